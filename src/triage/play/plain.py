"""``triage play --plain``: the game as plain text lines on stdin and stdout.

For scripts, screen readers and dumb terminals. At each human decision it prints that seat's
new log lines, its board (from its view only) and the numbered legal actions, then reads one
line: a number, a typed command (:mod:`triage.play.parse`), or ``help``, ``board``, ``log``,
``quit``. With several human seats it asks for Enter before showing the next seat's board (the
"pass the device" pause; seats know different things after checks, C3). Each bot action is
printed as its own line, followed by its events: as the one human seat sees them, or as a
spectator sees them when every seat is a bot (``delay`` seconds apart, none by default); with
several human seats, each seat sees them in its news once it is at the device.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from triage.engine import RuleError
from triage.engine.text import describe_action, render_position
from triage.engine.undo import UndoError
from triage.play.help import help_lines
from triage.play.parse import CommandError, choose
from triage.play.session import Session

HELP = [
    "Type the number of an action, or the action itself.",
    "Other commands: board (show the board again), log (this seat's whole log), undo or u (take back",
    "your last action this turn, never past a draw, a diagnosis or anything else revealed),",
    "hint (the Expert bot's move for you, and why; kept in the record as a hint), help, quit.",
    "",
    *help_lines(keys=False),
]


class PlainGame:
    """The text loop around a :class:`Session`."""

    def __init__(
        self,
        session: Session,
        stdin: TextIO,
        stdout: TextIO,
        delay: float = 0.0,
        pause: Callable[[float], None] = time.sleep,
    ) -> None:
        self.session = session
        self.stdin = stdin
        self.stdout = stdout
        #: Seconds between two bot actions printed (``pause`` waits them: injectable for tests).
        self.delay = delay
        self.pause = pause
        #: Per seat: how many events of the session it has been shown.
        self.seen = [0] * session.game.num_players
        self.shown_seat: int | None = None

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def read(self, prompt: str) -> str | None:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        return None if line == "" else line.rstrip("\n")

    def run(self) -> int:
        """Play until the end (0) or until input ends or the player quits (1; the game is kept
        only where a save file was named)."""
        session = self.session
        humans = session.human_seats()
        if not humans:
            self.say("Every seat is a bot: watching the game.")
            for text in session.log_for(None):
                self.say(f"  . {text}")
        while session.turn is not None:
            if not session.is_human(session.turn):
                self.bot_moves(watching=not humans)
                continue
            if not self.human_turn(session.turn, several=len(humans) > 1):
                self.say(f"Stopped before the end. {session.save_words()}")
                return 1
        self.say(render_position(session.view_for(humans[0] if humans else 0), session.names()))
        for line in session.final_lines():
            self.say(line)
        return 0

    def bot_moves(self, watching: bool) -> None:
        """Let the bots move. Watching, print each move and its public events; with one human
        seat, that seat's view of the events at once; with several, nothing until the next
        human seat is at the device (its news then include the bots' moves)."""
        humans = self.session.human_seats()
        for seat, action, events in self.session.bot_steps():
            if self.delay > 0:
                self.pause(self.delay)
            if watching:
                self.say(f"{self.session.seat_name(seat)}: {describe_action(action)}")
                for text in self.session.words(events, None):
                    self.say(f"  . {text}")
            elif len(humans) == 1:
                self.say(f"{self.session.seat_name(seat)}: {describe_action(action)}")
                self.show_news(humans[0])

    def human_turn(self, seat: int, several: bool) -> bool:
        """One decision of a human seat; False when input ended or the player quit."""
        session = self.session
        if several and self.shown_seat != seat:
            self.say(
                "\n" * 3 + f"=== Pass the device to {session.seat_name(seat)}. Press Enter when ready. ==="
            )
            if self.read("") is None:
                return False
        self.shown_seat = seat
        self.show_news(seat)
        self.show_board(seat)
        while True:
            line = self.read(f"player {seat}> ")
            if line is None:
                return False
            word = line.strip().lower()
            if word in ("quit", "exit", "q"):
                if self.confirm(f"Quit now? {session.save_words()} [y/N] "):
                    return False
                continue
            if word in ("help", "?", "h"):
                for text in HELP:
                    self.say(text)
                continue
            if word in ("undo", "u"):
                if self.undo(seat):
                    return True
                continue
            if word == "board":
                self.show_board(seat)
                continue
            if word == "hint":
                self.show_hint()
                continue
            if word == "log":
                for text in session.log_for(seat):
                    self.say(f"  . {text}")
                continue
            if not word:
                continue
            try:
                action = choose(line, session.legal())
                # A pass the phase does not allow is refused by the engine before any question.
                if action["type"] == "pass" and action in session.legal() and not self.confirm_pass():
                    continue
                session.act(action)
            except CommandError as error:
                self.say(f"error: {error}")
                continue
            except RuleError as error:
                rule = f" (rule {error.rule})" if error.rule else ""
                self.say(f"refused: {error.code}: {error.message}{rule}")
                continue
            self.say(f"{session.seat_name(seat)}: {describe_action(action)}")
            return True

    def show_hint(self) -> None:
        """The expert's move for this seat, its number in the list and why."""
        action, reason = self.session.hint()
        legal = self.session.legal()
        number = f"{legal.index(action) + 1}. " if action in legal else ""
        self.say(f"hint: {number}{describe_action(action)} - {reason}")

    def undo(self, seat: int) -> bool:
        """Take back the seat's last action (True: the board is shown again), or say why not."""
        try:
            undone = self.session.undo()
        except UndoError as error:
            rule = f" (rule {error.rule})" if error.rule else ""
            self.say(f"refused: {error.code}: {error.message}{rule}")
            return False
        count = len(self.session.events)
        self.seen = [min(seen, count) for seen in self.seen]
        self.say(f"{self.session.seat_name(seat)}: undone: {undone}")
        return True

    def confirm(self, question: str) -> bool:
        """A yes-or-no question; the end of input answers yes (a script that stops, stops)."""
        answer = self.read(question)
        return answer is None or answer.strip().lower() in ("y", "yes")

    def confirm_pass(self) -> bool:
        """Pass at once, or first name the patients it lets die tonight and what could save them
        (asked only while something else can still be done)."""
        warning = self.session.pass_warning()
        if not warning:
            return True
        self.say("Passing now ends your Treatment; at tonight's Cleanup:")
        for line in warning:
            self.say(f"  {line}")
        if len(self.session.legal()) == 1:
            return True
        return self.confirm("Pass anyway? [y/N] ")

    def show_news(self, seat: int) -> None:
        """This seat's log lines since it last looked."""
        for text in self.session.log_for(seat, self.seen[seat]):
            self.say(f"  . {text}")
        self.seen[seat] = len(self.session.events)

    def show_board(self, seat: int) -> None:
        session = self.session
        self.say(render_position(session.view_for(seat), session.names()))
        self.say(f"{session.seat_name(seat)} to decide. Legal actions:")
        for number, action in enumerate(session.legal(), start=1):
            self.say(f"  {number:>3}. {describe_action(action)}")
        if undo_line := session.undo_line():
            self.say(undo_line)


def run_plain(session: Session, stdin: TextIO, stdout: TextIO, delay: float = 0.0) -> int:
    return PlainGame(session, stdin, stdout, delay).run()
