"""``triage play``: the full-screen terminal game (Textual).

The screen shows the position from the seat to move (its view only), a scrolling log of that
seat's events, the legal actions (arrow keys and Enter, a number key, or the mouse) and a
command line for typed actions. Bots move by themselves, ``bot_delay`` seconds apart. With
several human seats a "pass the device" screen hides the board between seats, because seats know
different things after checks (C3). All game logic lives in :class:`~triage.play.session.Session`.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, RichLog, Static

from triage.engine import RuleError, public_event
from triage.play.parse import CommandError, choose
from triage.play.render import describe_action, describe_event, render_position
from triage.play.session import Session


class PassDeviceScreen(Screen[None]):
    """Covers the whole board until the next human seat says it is ready."""

    BINDINGS = [Binding("enter", "ready", "I am ready"), Binding("space", "ready", show=False)]

    def __init__(self, seat_name: str) -> None:
        super().__init__()
        self.seat_name = seat_name

    def compose(self) -> ComposeResult:
        yield Static(
            Text(f"Pass the device to {self.seat_name}.\n\nPress Enter when {self.seat_name} is ready.", justify="center"),
            id="pass-message",
        )
        yield Footer()

    def action_ready(self) -> None:
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


class TriageApp(App[None]):
    """The terminal game around a :class:`Session`."""

    TITLE = "Triage"
    CSS = """
    #board-scroll { width: 1fr; border: round $primary; }
    #side { width: 48; }
    #actions { height: 1fr; border: round $secondary; }
    #log { height: 1fr; border: round $secondary; }
    #status { height: auto; min-height: 1; padding: 0 1; }
    #status.error { color: $error; }
    #pass-message, #final { width: 100%; height: 1fr; content-align: center middle; padding: 2 4; }
    """
    BINDINGS = [
        Binding("q", "quit", "Quit (saved)"),
        Binding("colon", "focus_command", "Type a command"),
        Binding("a", "focus_actions", "Actions"),
        Binding("v", "next_view", "Watch another seat", show=False),
    ]

    def __init__(self, session: Session, bot_delay: float = 0.4) -> None:
        super().__init__()
        self.session = session
        self.bot_delay = bot_delay
        humans = session.human_seats()
        #: The seat whose view is on screen: the human to move, or a watched seat.
        self.viewer = humans[0] if humans else 0
        self.ready_seat: int | None = None if len(humans) > 1 else self.viewer
        self.logged = (None, 0)
        self.legal: list[dict[str, Any]] = []
        self.waiting_for_bot = False
        self.finished = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            with VerticalScroll(id="board-scroll"):
                yield Static(id="board")
            with Vertical(id="side"):
                yield OptionList(id="actions", markup=False)
                yield RichLog(id="log", wrap=True)
        yield Static(id="status")
        yield Input(placeholder="type an action: admit P04 2, heal P01 2 staff=1, pass ... (help: see docs/play.md)", id="command")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#board-scroll").border_title = "Board"
        self.query_one("#actions").border_title = "Legal actions"
        self.query_one("#log").border_title = "Log"
        self.advance()

    # -------------------------------------------------------------- flow

    def advance(self) -> None:
        """Show what comes next: a human decision, a bot move, or the end."""
        session = self.session
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
            self.refresh_board()
            self.query_one("#actions", OptionList).focus()
            return
        self.refresh_board()
        if not self.waiting_for_bot:
            self.waiting_for_bot = True
            self.set_timer(self.bot_delay, self.bot_move) if self.bot_delay > 0 else self.call_later(self.bot_move)

    def seat_ready(self, seat: int) -> None:
        self.ready_seat = seat
        self.viewer = seat
        self.advance()

    def bot_move(self) -> None:
        self.waiting_for_bot = False
        session = self.session
        if session.turn is None or session.is_human(session.turn):
            return
        seat = session.turn
        action = session.bot_action()
        session.act(action)
        self.set_status(f"{session.seat_name(seat)}: {describe_action(action)}")
        self.advance()

    def take(self, action: dict[str, Any]) -> None:
        """A human's action: applied, or refused with its error code and rule id."""
        session = self.session
        seat = session.turn
        try:
            session.act(action)
        except RuleError as error:
            rule = f" (rule {error.rule})" if error.rule else ""
            self.set_status(f"Refused: {error.code}: {error.message}{rule}", error=True)
            return
        self.set_status(f"{session.seat_name(seat)}: {describe_action(action)}")  # type: ignore[arg-type]
        self.advance()

    # -------------------------------------------------------------- drawing

    def hide_board(self) -> None:
        self.query_one("#board", Static).update("")
        self.query_one("#actions", OptionList).clear_options()
        self.query_one("#log", RichLog).clear()
        self.logged = (None, 0)

    def refresh_board(self) -> None:
        session = self.session
        seat = self.viewer
        names = session.names()
        names[seat] += " - you" if session.is_human(seat) else " - watched"
        self.query_one("#board", Static).update(Text(render_position(session.view_for(seat), names)))
        game = session.game
        self.sub_title = f"round {game.round}/{game.config.rounds}, {game.phase}; seat on screen: {seat}"
        self.refresh_log(seat)
        options = self.query_one("#actions", OptionList)
        options.clear_options()
        self.legal = session.legal() if session.human_to_move() and session.turn == seat else []
        options.add_options(
            [Text(f"{number:>2}. {describe_action(action)}") for number, action in enumerate(self.legal, start=1)]
        )
        if self.legal:
            options.highlighted = 0

    def refresh_log(self, seat: int) -> None:
        """Append this seat's new log lines (the whole log again after a change of seat)."""
        log = self.query_one("#log", RichLog)
        logged_seat, count = self.logged
        if logged_seat != seat:
            log.clear()
            count = 0
        watching = not self.session.human_seats()
        new_events = self.session.events[count:]
        lines = (
            [describe_event(public_event(event)) for event in new_events]
            if watching
            else self.session.log_for(seat, count)
        )
        for line in lines:
            log.write(Text(line))
        self.logged = (seat, len(self.session.events))

    def set_status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.update(Text(text))
        status.set_class(error, "error")

    # -------------------------------------------------------------- input

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        if 0 <= message.option_index < len(self.legal):
            self.take(self.legal[message.option_index])

    def on_input_submitted(self, message: Input.Submitted) -> None:
        text = message.value.strip()
        message.input.value = ""
        if not text:
            return
        if not self.session.human_to_move():
            self.set_status("Not your decision: a bot is moving.", error=True)
            return
        try:
            action = choose(text, self.legal)
        except CommandError as error:
            self.set_status(f"Error: {error}", error=True)
            return
        self.take(action)

    def on_key(self, event: Any) -> None:
        """Digits 1-9 pick a listed action at once (when the command line is not in use)."""
        if isinstance(self.focused, Input) or not event.character or not event.character.isdigit():
            return
        number = int(event.character)
        if 1 <= number <= min(9, len(self.legal)):
            event.stop()
            self.take(self.legal[number - 1])

    def action_focus_command(self) -> None:
        self.query_one("#command", Input).focus()

    def action_focus_actions(self) -> None:
        self.query_one("#actions", OptionList).focus()

    def action_next_view(self) -> None:
        """Watching bots: look at the board from the next seat."""
        if not self.session.human_seats():
            self.viewer = (self.viewer + 1) % self.session.game.num_players
            self.refresh_board()
