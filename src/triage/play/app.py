"""``triage play``: the full-screen terminal game (Textual).

The screen shows the position from the seat to move (its view only), a scrolling log of that
seat's events, the legal actions and a command line for typed actions. Bots move by themselves,
thinking in a thread so the screen keeps answering; each of their actions, once made, is shown as
its own step ``bot_delay`` seconds long (:mod:`triage.play.pacing`): the board just after it, the
acting card marked, the action's line. F3 (or ``skip``) skips to the next human decision. With
several human seats a "pass the device" screen hides the board between seats, because seats know
different things after checks (C3). All game logic lives in :class:`~triage.play.session.Session`.

Input never acts by surprise:

- On the command line every key is text (no shortcut), and the focus stays there after an
  action: only the player moves it away (Escape, Tab, a click). Enter sends the line in key order.
- In the list, arrows, digits or a click only point at an action; Enter (or a click on the action
  pointed at) takes it. A list shown afresh has nothing pointed at, so a stray Enter does nothing.
  A letter typed in the list goes, with the keys behind it, to the command line instead of acting
  as a shortcut.
- A bare number sent from the command line is refused once if the list changed after the player
  started typing it, naming the action now at that number.

``?`` (or F1, or ``help`` on the command line) opens the help: keys, commands, rules in short.
F2 (or ``hint``) asks the expert bot for the seat's move and why, and points at it in the list
(kept in the record as a hint, never played). The layout follows the terminal's size
(:mod:`triage.play.layout`): at 80x24 the board takes the whole width, at 40x12 the seat's own
hospital, the actions and the prompt stay.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer, Header, Input, OptionList, RichLog, Static

from triage.bots.hints import suggest_move
from triage.engine import RuleError
from triage.engine.shapes import Action, View
from triage.engine.text import describe_action, render_position
from triage.engine.undo import UndoError
from triage.play.help import help_lines
from triage.play.layout import LAYOUT_CSS, layout_classes, own_board
from triage.play.pacing import DEFAULT_DELAY, Pace, Step, acted_on
from triage.play.parse import CommandError, choose
from triage.play.session import Session


class PassDeviceScreen(Screen[None]):
    """Covers the whole board until the next human seat says it is ready. Keys in the first
    moments are ignored: an Enter the last player typed a beat too fast must not uncover the next
    seat's board (and its secrets, C3) in front of them."""

    BINDINGS = [Binding("enter", "ready", "I am ready"), Binding("space", "ready", show=False)]
    #: How long after it appears the screen ignores keys.
    GUARD_SECONDS = 0.8

    def __init__(self, seat_name: str) -> None:
        super().__init__()
        self.seat_name = seat_name
        self.shown_at = time.monotonic()

    def on_mount(self) -> None:
        self.shown_at = time.monotonic()

    def compose(self) -> ComposeResult:
        yield Static(
            Text(
                f"Pass the device to {self.seat_name}.\n\nPress Enter when {self.seat_name} is ready.",
                justify="center",
            ),
            id="pass-message",
        )
        yield Footer()

    def action_ready(self) -> None:
        if time.monotonic() - self.shown_at >= self.GUARD_SECONDS:
            self.dismiss(None)


class GameOverScreen(Screen[None]):
    """Final scores, the winner and each player's summary."""

    BINDINGS = [Binding("q", "app.quit", "Quit"), Binding("escape", "back", "Board")]

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        yield Static(Text("\n".join(self.lines)), id="final")
        yield Footer()

    def action_back(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """Keys, typed commands and the rules in short, over the board."""

    BINDINGS = [
        Binding("escape", "close", "Close help"),
        Binding("question_mark", "close", show=False),
        Binding("f1", "close", show=False),
        Binding("q", "close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-scroll"):
            yield Static(Text("\n".join(help_lines())), id="help")
        yield Footer()

    def on_mount(self) -> None:
        scroll = self.query_one("#help-scroll")
        scroll.border_title = "Help (Escape closes it)"
        scroll.focus()

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes-or-no question over the board: ``y`` answers yes; ``n`` or Escape, no."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", show=False),
    ]

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        yield Static(Text("\n".join(self.lines)), id="question")
        yield Footer()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def _triage_app(widget: Widget) -> TriageApp:
    """The game a widget of this screen talks to: these widgets live in a :class:`TriageApp` only."""
    app = widget.app
    if not isinstance(app, TriageApp):
        raise TypeError(f"{type(widget).__name__} belongs in a TriageApp, not in {type(app).__name__}")
    return app


class ActionList(OptionList):
    """The legal actions. Arrows, digits or a click point at one; Enter or a second click on it
    takes it. A letter starts a typed command on the command line, since no letter acts here
    (except the app's ``q`` and ``v``)."""

    #: Keys the app binds that the list lets through.
    SHORTCUTS = frozenset("qv?:")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: The digits typed since the list was last shown or pointed at otherwise.
        self.number = ""
        #: A letter was typed here: until the focus is on the command line, keys go there.
        self.forwarding = False

    def show(self, labels: list[Text]) -> None:
        """A fresh list with nothing pointed at, so Enter takes nothing until the player picks."""
        self.clear_options()
        self.add_options(labels)
        self.highlighted = None
        self.number = ""

    def point_at_digit(self, digit: str) -> None:
        """Digits point at the action with that number: typed one after the other they make a
        longer number while one exists (1, 2 -> 12 in a list of 12 or more), else they start
        again."""
        count = self.option_count
        for candidate in (self.number + digit, digit):
            if 1 <= int(candidate) <= count:
                self.number = candidate
                self.highlighted = int(candidate) - 1
                return
        self.number = ""
        _triage_app(self).set_status(
            f"No action {digit}: the list has {count} action{'s' if count != 1 else ''}."
            if count
            else "No action to pick now.",
            error=True,
        )

    def on_key(self, event: events.Key) -> None:
        if self.forwarding:
            self.forward(event)
            return
        character = event.character
        if character is None or not character.isprintable() or character == " ":
            self.number = (
                "" if event.key in ("up", "down", "pageup", "pagedown", "home", "end") else self.number
            )
            return
        if character.isdigit():
            event.stop()
            event.prevent_default()
            self.point_at_digit(character)
        elif character not in self.SHORTCUTS:
            self.forwarding = True
            self.forward(event)

    def forward(self, event: events.Key) -> None:
        """While the focus moves to the command line, keys already on their way here belong to
        the command being typed (fast typing or a paste): type them there, in order, Enter
        included."""
        event.stop()
        event.prevent_default()
        _triage_app(self).type_on_command_line(event)

    def on_blur(self) -> None:
        self.forwarding = False

    async def _on_click(self, event: events.Click) -> None:
        """A click points at an action, a click on the action already pointed at takes it: a
        double click takes one action, never a second one from the list shown after it."""
        event.prevent_default()  # instead of OptionList's click, which takes at once
        clicked = event.style.meta.get("option")
        if clicked is None or self.get_option_at_index(clicked).disabled:
            return
        if clicked == self.highlighted:
            self.action_select()
        else:
            self.highlighted = clicked


class CommandLine(Input):
    """The command line. Every key is text; Enter sends the line at once, in the order the keys
    came (Input's own Enter goes round the app and could come after keys typed behind it)."""

    def on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            line, self.value = self.value, ""
            _triage_app(self).run_line(line, self)
        elif event.is_printable and not self.value:
            _triage_app(self).line_started()


class TriageApp(App[None]):
    """The terminal game around a :class:`Session`."""

    TITLE = "Triage"
    CSS = (
        """
    #board-scroll { width: 1fr; border: round $primary; }
    #side { width: 48; }
    #actions { height: 1fr; border: round $secondary; }
    #log { height: 1fr; border: round $secondary; }
    #status { height: auto; min-height: 1; padding: 0 1; }
    #status.error { color: $error; }
    #pass-message, #final { width: 100%; height: 1fr; content-align: center middle; padding: 2 4; }
    HelpScreen, ConfirmScreen { align: center middle; }
    #question { width: 80; max-width: 100%; height: auto; border: round $error; background: $surface; padding: 1 2; }
    #help-scroll { width: 108; max-width: 100%; height: 90%; border: round $primary; background: $surface; }
    #help { padding: 0 1; }
    """
        + LAYOUT_CSS
    )
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("f1", "help", "Help", key_display="F1"),
        Binding("f2", "hint", "Hint", key_display="F2"),
        Binding("f3", "skip", "Skip to my turn", key_display="F3"),
        Binding("colon", "focus_command", "Command line"),
        Binding("escape", "focus_actions", "Action list"),
        Binding("v", "next_view", "Watch another seat", show=False),
    ]

    def __init__(self, session: Session, bot_delay: float = DEFAULT_DELAY) -> None:
        super().__init__()
        self.session = session
        #: The bots' actions made but not shown yet, shown ``bot_delay`` seconds apart.
        self.pace = Pace(bot_delay)
        #: Whether a step is due to be shown (a timer or a call is on its way).
        self.showing = False
        #: Skipping to the next human decision: the bots' steps are shown without a pause.
        self.skipping = False
        #: The card the last bot action acted on, marked on the board until the position moves.
        self.marked: tuple[int, str] | None = None
        humans = session.human_seats()
        #: The seat whose view is on screen: the human to move, or a watched seat.
        self.viewer = humans[0] if humans else 0
        self.ready_seat: int | None = None if len(humans) > 1 else self.viewer
        self.logged: tuple[int | None, int] = (None, 0)
        self.legal: list[Action] = []
        self.waiting_for_bot = False
        self.finished = False
        #: Bumped whenever the action list is shown afresh (its numbers may mean other actions).
        self.list_version = 0
        #: The list version when the player began the line now on the command line.
        self.typed_against = 0
        #: The hint shown: (list version, index in the list, its line), or None.
        self.hinted: tuple[int, int, str] | None = None
        #: Whether the board was drawn once (a resize before that has nothing to redraw).
        self.drawn = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with ScrollableContainer(id="board-scroll"):
                yield Static(id="board")
            with Vertical(id="side"):
                yield ActionList(id="actions", markup=False)
                yield RichLog(id="log", wrap=True)
        yield Static(id="status")
        yield CommandLine(
            placeholder="type an action: admit P04 2, heal P01 2 staff=1, pass ... (? or F1: help)",
            id="command",
            select_on_focus=False,
        )
        yield Footer()

    @property
    def board_screen(self) -> Screen[Any]:
        """The screen with the board, also while help or another screen covers it."""
        return self.screen_stack[0]

    def on_mount(self) -> None:
        self.board_screen.query_one("#board-scroll").border_title = "Board"
        self.board_screen.query_one("#actions").border_title = "Legal actions"
        self.board_screen.query_one("#log").border_title = "Log"
        self.board_screen.query_one("#actions", ActionList).focus()
        if self.session.human_seats():
            self.set_status(
                "Pick an action with the arrows or its number, then Enter; or type a command. ? or F1: help."
            )
        self.advance()

    # -------------------------------------------------------------- flow

    def advance(self) -> None:
        """Show what comes next: a human decision, a bot move, or the end (once every bot action
        already made has been shown)."""
        session = self.session
        if self.pace.busy:
            return  # the steps are shown first; the last one comes back here
        if session.game.is_over():
            self.refresh_board()
            if not self.finished:
                self.finished = True
                self.push_screen(GameOverScreen(session.final_lines()))
            return
        seat = session.turn
        assert seat is not None
        if session.is_human(seat):
            if self.ready_seat != seat:
                self.hide_board()
                self.push_screen(PassDeviceScreen(session.seat_name(seat)), lambda _: self.seat_ready(seat))
                return
            self.viewer = seat
            self.skipping = False
            self.refresh_board()
            return
        self.refresh_board()
        if not self.waiting_for_bot:
            self.waiting_for_bot = True
            self.call_later(self.bot_move)

    def seat_ready(self, seat: int) -> None:
        """The next human seat is at the device: its board, with a clean command line (keys the
        last player typed behind its last action are not the new seat's)."""
        self.ready_seat = seat
        self.viewer = seat
        self.board_screen.query_one("#command", Input).value = ""
        self.advance()

    def bot_move(self) -> None:
        """A bot's turn: it thinks in a thread (a searching bot may take a while), so the screen
        keeps answering; only its view, the legal actions and its generator go there."""
        session = self.session
        if session.turn is None or session.is_human(session.turn):
            self.waiting_for_bot = False
            return
        seat, position = session.turn, len(session.game.history)
        bot, seen, legal, rng = session.bot_request()

        def think() -> None:
            self.call_from_thread(self.bot_chose, seat, position, bot.choose(seen, legal, rng))

        self.run_worker(think, thread=True, group="bot")

    def bot_chose(self, seat: int, position: int, action: Action) -> None:
        """Back from the bot's thread: play its move (on the position it was asked about) and
        queue it to be shown; the next bot starts thinking at once (the pace only shows)."""
        self.waiting_for_bot = False
        session = self.session
        if session.turn != seat or len(session.game.history) != position:
            return
        session.act(action)
        self.pace.add(Step(seat, action, session.view_for(self.viewer), len(session.events)))
        self.schedule_step()
        if session.turn is not None and not session.is_human(session.turn):
            self.waiting_for_bot = True
            self.bot_move()

    def schedule_step(self) -> None:
        """Show the next bot action when its time comes (at once when skipping)."""
        wait = self.pace.wait(time.monotonic())
        if self.showing or wait is None:
            return
        self.showing = True
        if self.skipping or wait <= 0:
            self.call_later(self.show_step)
        else:
            self.set_timer(wait, self.show_step)

    def show_step(self) -> None:
        """One bot action on screen: the board just after it (from the seat on screen), its
        card marked, its line in the status; then the next one, or the next decision."""
        self.showing = False
        if not self.pace.busy:
            return
        step = self.pace.take(time.monotonic())
        card = acted_on(step.action)
        self.marked = (len(self.session.game.history), card) if card else None
        self.refresh_board(step.view, step.events, card)
        self.set_status(f"{self.session.seat_name(step.seat)}: {describe_action(step.action)}")
        if self.pace.busy:
            self.schedule_step()
        elif not self.waiting_for_bot:
            self.advance()

    def action_skip(self) -> None:
        """F3 (or ``skip``): show the latest position at once and the bots' next actions without a
        pause, until a human decides."""
        if not self.pace.busy and not self.waiting_for_bot:
            return
        last = self.pace.skip()
        card = acted_on(last.action) if last is not None else None
        if card:
            self.marked = (len(self.session.game.history), card)
        self.skipping = True
        self.set_status("Skipping to the next decision of yours...")
        self.advance()

    def take(self, action: Action) -> None:
        """A human's action: applied, or refused with its error code and rule id. Only for the
        seat whose board is uncovered: keys typed behind the last seat's final action never act
        for the next seat before it took the device. A pass that lets a patient die tonight is
        asked about first, naming what could still save it."""
        session = self.session
        seat = session.turn
        if seat is None or seat != self.ready_seat or self.pace.busy:
            return
        # A pass the phase does not allow goes straight to the engine's refusal, asking nothing.
        offered = action in self.legal and len(self.legal) > 1
        warning = session.pass_warning() if action["type"] == "pass" and offered else []
        if warning:
            question = [
                "Pass now? At tonight's Cleanup:",
                *warning,
                "",
                "y: pass anyway    n or Escape: keep playing",
            ]
            self.push_screen(
                ConfirmScreen(question), lambda yes: self.apply_human(seat, action) if yes else None
            )
            return
        self.apply_human(seat, action)

    def apply_human(self, seat: int, action: Action) -> None:
        """Apply a human seat's action (still its turn), or say why the rules refuse it."""
        session = self.session
        if session.turn != seat:
            return
        try:
            session.act(action)
        except RuleError as error:
            rule = f" (rule {error.rule})" if error.rule else ""
            self.set_status(f"Refused: {error.code}: {error.message}{rule}", error=True)
            return
        self.set_status(f"{session.seat_name(seat)}: {describe_action(action)}")
        self.advance()

    def undo_human(self) -> None:
        """``undo`` or ``u``: take back the last action of the seat at the device, within its
        turn and never past a reveal; the log is written again without the undone events."""
        session = self.session
        if session.turn is None or session.turn != self.ready_seat:
            return
        seat = session.turn
        try:
            undone = session.undo()
        except UndoError as error:
            rule = f" (rule {error.rule})" if error.rule else ""
            self.set_status(f"Refused: {error.code}: {error.message}{rule}", error=True)
            return
        self.logged = (None, 0)
        self.set_status(f"{session.seat_name(seat)}: undone: {undone}")
        self.advance()

    # -------------------------------------------------------------- drawing

    def hide_board(self) -> None:
        self.board_screen.query_one("#board", Static).update("")
        self.board_screen.query_one("#actions", ActionList).show([])
        self.list_version += 1
        self.board_screen.query_one("#log", RichLog).clear()
        self.logged = (None, 0)

    def refresh_board(
        self, seen: View | None = None, upto: int | None = None, mark: str | None = None
    ) -> None:
        """Draw the board: the live position, or (``seen``) a bot step's, with its log up to
        ``upto`` events and the card ``mark`` marked. The legal actions only on the live one."""
        session = self.session
        seat = self.viewer
        names = session.names()
        names[seat] += " - you" if session.is_human(seat) else " - watched"
        live = seen is None
        if live and self.marked is not None and self.marked[0] == len(session.game.history):
            mark = self.marked[1]  # the last bot action's card, until the position moves
        seen = session.view_for(seat) if seen is None else seen
        tiny = self.board_screen.has_class("tiny")
        self.drawn = True
        board = Text(own_board(seen, names) if tiny else render_position(seen, names))
        if mark:
            board.highlight_regex(rf"\b{mark}\b", "reverse bold")
        self.board_screen.query_one("#board", Static).update(board)
        self.sub_title = (
            f"round {seen['round']}/{session.game.config.rounds}, {seen['phase']}; seat on screen: {seat}"
        )
        self.refresh_log(seat, upto)
        self.legal = session.legal() if live and session.human_to_move() and session.turn == seat else []
        actions = self.board_screen.query_one("#actions", ActionList)
        actions.show(
            [
                Text(f"{number:>2}. {describe_action(action)}")
                for number, action in enumerate(self.legal, start=1)
            ]
        )
        actions.border_subtitle = session.undo_line() if self.legal else ""
        self.list_version += 1

    def refresh_log(self, seat: int, upto: int | None = None) -> None:
        """Append this seat's new log lines, up to the ``upto``-th event of the session (the whole
        log again after a change of seat)."""
        log = self.board_screen.query_one("#log", RichLog)
        logged_seat, count = self.logged
        if logged_seat != seat:
            log.clear()
            count = 0
        watching = not self.session.human_seats()
        upto = len(self.session.events) if upto is None else upto
        lines = self.session.log_for(None if watching else seat, count, upto)
        for line in lines:
            log.write(Text(line))
        self.logged = (seat, upto)

    def set_status(self, text: str, error: bool = False) -> None:
        status = self.board_screen.query_one("#status", Static)
        status.update(Text(text))
        status.set_class(error, "error")

    # -------------------------------------------------------------- input

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        if 0 <= message.option_index < len(self.legal):
            self.take(self.legal[message.option_index])

    def on_option_list_option_highlighted(self, message: OptionList.OptionHighlighted) -> None:
        """Say what Enter would take, so a pick is seen before it is confirmed."""
        if 0 <= message.option_index < len(self.legal):
            number = message.option_index + 1
            hinted = self.hinted
            if hinted is not None and hinted[:2] == (self.list_version, message.option_index):
                self.set_status(hinted[2])
                return
            self.set_status(f"{number}. {describe_action(self.legal[number - 1])}: Enter takes it")

    def line_started(self) -> None:
        """The first key of a new line: remember which list its number (if any) refers to."""
        self.typed_against = self.list_version

    def run_line(self, line: str, command: Input) -> None:
        """One line sent from the command line: help, quit, a number or a typed action."""
        text = line.strip()
        if text.lower() in ("help", "?"):
            self.action_help()
            return
        if text.lower() in ("quit", "exit"):
            self.exit()
            return
        if text.lower() == "skip":
            self.action_skip()
            return
        if self.pace.busy:
            self.set_status("The bots' actions are being shown: F3 (or skip) goes to your turn.", error=True)
            return
        if text.lower() == "hint":
            self.action_hint()
            return
        if text.lower() in ("undo", "u"):
            self.undo_human()
            return
        if text.isdigit() and self.typed_against != self.list_version and self.legal:
            self.typed_against = self.list_version
            command.value = text + command.value
            number = int(text)
            now = (
                f"is now: {describe_action(self.legal[number - 1])}"
                if 1 <= number <= len(self.legal)
                else "no longer exists"
            )
            self.set_status(
                f"The list changed while you typed: action {number} {now}. Enter again to take it.",
                error=True,
            )
            return
        if not text:
            return
        if not self.session.human_to_move():
            self.set_status("Not your decision: a bot is moving.", error=True)
            return
        if self.session.turn != self.ready_seat:
            return  # the next human seat has not taken the device yet
        try:
            action = choose(text, self.legal)
        except CommandError as error:
            self.set_status(f"Error: {error}", error=True)
            return
        self.take(action)

    def type_on_command_line(self, event: events.Key) -> None:
        """A key typed in the list that starts (or continues) a command: it goes to the command
        line, which takes the focus."""
        command = self.board_screen.query_one("#command", Input)
        if self.focused is not command:
            command.focus()
        if event.key == "enter":
            line, command.value = command.value, ""
            self.run_line(line, command)
        elif event.key == "backspace":
            command.action_delete_left()
        elif event.character is not None and event.character.isprintable():
            if not command.value:
                self.line_started()
            command.insert_text_at_cursor(event.character)

    def action_focus_command(self) -> None:
        actions = self.board_screen.query_one("#actions", ActionList)
        if self.focused is actions:
            actions.forwarding = True  # keys typed right after ':' belong to the command line
        self.board_screen.query_one("#command", Input).focus()

    def action_focus_actions(self) -> None:
        self.board_screen.query_one("#actions", ActionList).focus()

    async def action_quit(self) -> None:
        """``q`` asks first, saying whether the game is saved (only with ``--save``) and where."""
        if isinstance(self.screen, ConfirmScreen) or self.finished:
            self.exit()
            return
        question = ["Quit the game?", self.session.save_words(), "", "y: quit    n or Escape: keep playing"]
        self.push_screen(ConfirmScreen(question), lambda yes: self.exit() if yes else None)

    def on_resize(self, event: events.Resize) -> None:
        """Lay the board out for the terminal's size (:mod:`triage.play.layout`)."""
        narrow, tiny = layout_classes(event.size.width, event.size.height)
        screen = self.board_screen
        changed = screen.has_class("tiny") != tiny
        screen.set_class(narrow, "narrow")
        screen.set_class(tiny, "tiny")
        if changed and self.drawn and not self.pace.busy:
            self.refresh_board()

    def action_hint(self) -> None:
        """Ask the expert for the seat's move, in a thread (it searches for a while)."""
        session = self.session
        if not session.human_to_move() or session.turn != self.ready_seat or self.pace.busy:
            self.set_status("A hint is for your own decision.", error=True)
            return
        seat, at, seen, legal = session.hint_request()
        self.set_status("Thinking about a hint...")

        def think() -> None:
            action = suggest_move(seen, legal, f"{session.seed}:{at}")
            self.call_from_thread(self.hint_ready, seat, at, seen, action)

        self.run_worker(think, thread=True, group="hint")

    def hint_ready(self, seat: int, at: int, seen: View, action: Action) -> None:
        """Back from the hint's thread: keep it, point at it in the list and say why."""
        session = self.session
        if session.turn != seat or len(session.game.history) != at:
            return  # the position moved on: this hint is for a position that is gone
        reason = session.keep_hint(seat, at, seen, action)
        index = self.legal.index(action) if action in self.legal else None
        number = f"{index + 1}. " if index is not None else ""
        line = f"Hint: {number}{describe_action(action)} - {reason}"
        if index is not None:
            self.hinted = (self.list_version, index, line + " (Enter takes it)")
            self.board_screen.query_one("#actions", ActionList).highlighted = index
        self.set_status(line)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_next_view(self) -> None:
        """Watching bots: look at the board from the next seat."""
        if not self.session.human_seats():
            self.viewer = (self.viewer + 1) % self.session.game.num_players
            self.refresh_board()
