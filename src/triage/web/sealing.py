"""What the other seats may be shown while a seat can still undo: the table's sealed point.

A human seat's latest actions that revealed nothing (:mod:`triage.engine.undo`) may still be
taken back, so nothing of them reaches any other seat or spectator: their views, logs, records,
the lobby's facts and WebSocket messages all come from the *sealed point*, the position before
those actions. The actions are sealed when the turn ends or a reveal happens (which seals
everything before it); until then only the acting seat sees them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from triage.engine import Game
from triage.engine.undo import NO_REACH, Reveal, UndoReach, sealed_point
from triage.web.answers import UndoInfo
from triage.web.live_table import LiveTable


@dataclass(frozen=True)
class Sealed:
    """A table's sealed point: ``actions`` and ``events`` (all-seeing) every other seat is
    shown, the ``game`` after them, and the ``holder`` whose undoable actions lie beyond (None
    when nothing is held back), with its ``reach``."""

    actions: int
    events: int
    game: Game
    holder: int | None
    reach: UndoReach

    @property
    def holding(self) -> bool:
        return self.holder is not None and self.reach.steps > 0


def undoing_seat(table: LiveTable, game: Game) -> int | None:
    """The seat that may undo on ``game``: a human seat whose decision it is (bots never undo)."""
    seat = game.turn
    if seat is None or table.bot_of(seat) is not None:  # a stand-in bot too (triage.web.clocks)
        return None
    return seat


def seal(table: LiveTable, game: Game, events: int) -> Sealed:
    """The sealed point of ``game`` (whose all-seeing events number ``events``)."""
    seat = undoing_seat(table, game)
    if seat is None:
        return Sealed(len(game.history), events, game, None, NO_REACH)
    reach, before = sealed_point(game, seat, *_last_seal(table))
    if _stand_in_moved(table, len(before.history)):  # the others saw those moves as they came
        return Sealed(len(game.history), events, game, None, NO_REACH)
    return Sealed(len(before.history), events - reach.events(), before, seat, reach)


def _last_seal(table: LiveTable) -> tuple[Game | None, Reveal | None]:
    """Where the table's last sealed point stands (and the reveal that sealed it), for the
    replay to begin there rather than at the deal (the engine checks it is an earlier
    position of the same game)."""
    if table.sealed is None:
        return None, None
    point: Sealed = table.sealed[2]
    return point.game, point.reach.reveal


def _stand_in_moved(table: LiveTable, since: int) -> bool:
    """Whether a stand-in bot made any action numbered ``since`` or later (its moves are never
    held back nor undone: they reached every seat when made)."""
    timing = table.timing
    return timing is not None and any(number >= since for number in timing.stand_in_moves)


def sealed(table: LiveTable) -> Sealed:
    """The table's sealed point now, worked out once per position (kept on the table)."""
    cached = table.sealed
    if cached is not None and cached[0] is table.game and cached[1] == _position(table):
        point: Sealed = cached[2]
        return point
    point = seal(table, table.game, len(table.events))
    keep_sealed(table, point)
    return point


def keep_sealed(table: LiveTable, point: Sealed) -> None:
    """Keep ``point`` on the table as the sealed point of its game as it stands now."""
    table.sealed = (table.game, _position(table), point)


def _position(table: LiveTable) -> tuple[int, int, str | None]:
    """What a kept sealed point must still match: the history, the events, and who plays the
    seat to move (a stand-in bot coming or going changes what is held back)."""
    return len(table.game.history), len(table.events), table.bot_of(table.game.turn or 0)


def visible_game(table: LiveTable, seat: int | None) -> Game:
    """The game as far as ``seat`` (None: spectators) may be shown it: all of it for the seat
    that holds undoable actions, the sealed point for everyone else."""
    point = sealed(table)
    return table.game if seat is not None and seat == point.holder else point.game


def shown_events(table: LiveTable, seat: int | None) -> int:
    """How many of the table's all-seeing events ``seat`` may be shown."""
    point = sealed(table)
    return len(table.events) if seat is not None and seat == point.holder else point.events


def undo_info(table: LiveTable, seat: int | None, game: Game | None = None) -> UndoInfo | None:
    """For the seat that may undo on ``game`` (default: the table's): how many actions it may
    take back and, when none, the reveal that stops it (for the page's Undo button)."""
    game = game or table.game
    if seat is None or undoing_seat(table, game) != seat:
        return None
    point = sealed(table) if game is table.game else seal(table, game, 0)
    reason, rule = _why_not(point.reach, len(game.history))
    return {"steps": point.reach.steps, "reason": reason, "rule": rule}


def _why_not(reach: UndoReach, actions: int) -> tuple[str | None, str | None]:
    """Why the seat cannot undo now, in its player's words, and the rule behind it (None, None:
    it can): the reveal just made, or an empty turn."""
    if reach.steps:
        return None, None
    if reach.reveal is not None and reach.reveal.number == actions - 1:
        return reach.reveal.in_words(), reach.reveal.rule
    return "nothing of yours to take back this turn", None
