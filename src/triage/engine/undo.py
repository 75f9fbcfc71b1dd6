"""Undo within a seat's own turn, back to the last action that revealed something.

A seat may take back its latest actions as long as none of them told anyone anything new: no
card was drawn (A1, T7) or shuffled (V1), no treatment side was shown to anyone (T1, A7, C3: the
observer's knowledge), no front became public (I1), and the decision never left the seat (T9,
C1-C5). Such an action is a *reveal*; it seals itself and everything before it. Undo is exact
because a game is its deal plus its actions (D1): the game before the undone actions is a replay
of the history without them.

>>> from triage.engine import Game
>>> game = Game.new(players=1, seed=0)
>>> while game.in_admission(0):  # A4: admit both arrivals (a critical one is revealed, A7)
...     _ = game.apply(game.legal_actions()[0])
>>> before = game.copy()
>>> heal = {"type": "heal", "patient": "P10", "amount": 1, "pay": {"tokens": 1, "staff": 0, "congress": 0}}
>>> _ = game.apply(heal)  # T2: healing a revealed patient shows nothing new
>>> undo_reach(game, 0).steps  # the heal, and the last admission (a standard patient, unrevealed)
2
>>> undone = undo(game, 0)
>>> undone.history == before.history and undone.players[0].healing == before.players[0].healing
True
>>> diagnose = next(action for action in game.legal_actions() if action["type"] == "diagnose")
>>> _ = game.apply(diagnose)  # T1: the diagnosis shows the seat a treatment side
>>> undo(game, 0)
Traceback (most recent call last):
...
triage.engine.undo.UndoError: undo_past_reveal: action 4 (diagnose P21) showed a treatment side; an undo never goes back past a reveal (rule T1)
>>> _ = game.apply({"type": "pass"})  # T9: the pass ends the turn (Cleanup follows)
>>> reach = undo_reach(game, 0)
>>> reach.steps, reach.reveal is not None and reach.reveal.rule
(0, 'T9')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from triage.engine.cards import STANDARD_DECK_KEY
from triage.engine.game import Action, Event, Game
from triage.engine.observer import Seat, has_secret
from triage.engine.shapes import Step

#: The refusals of an undo (they are not the rules' refusals of an action, ``ERROR_CODES``).
UNDO_ERROR_CODES: tuple[str, ...] = ("not_your_turn", "game_over", "nothing_to_undo", "undo_past_reveal")


class UndoError(Exception):
    """An undo the seat may not make; the game is left as it was.

    >>> str(UndoError("nothing_to_undo", "no action of yours to take back", "T9"))
    'nothing_to_undo: no action of yours to take back (rule T9)'
    """

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        if code not in UNDO_ERROR_CODES:
            raise ValueError(f"unknown undo error code {code!r}")
        self.code, self.message, self.rule = code, message, rule
        suffix = f" (rule {rule})" if rule else ""
        super().__init__(f"{code}: {message}{suffix}")

    def to_dict(self) -> dict[str, str | None]:
        return {"code": self.code, "message": self.message, "rule": self.rule}


@dataclass(frozen=True)
class Reveal:
    """The action that revealed something: its index in the history (0 first), the action, and
    what it revealed in words with the rule that made it so."""

    number: int
    action: Action
    what: str
    rule: str

    def describe(self) -> str:
        """The reveal for a message: which action and what it showed."""
        return f"action {self.number + 1} ({_name(self.action)}) {self.what}"

    def in_words(self) -> str:
        """The reveal as its player reads it, with no number or rule id: "diagnosing P07 showed
        a treatment side", "your pass ended your turn".

        >>> Reveal(18, {"type": "pass"}, "ended the turn", "T9").in_words()
        'your pass ended your turn'
        """
        return f"{_doing(self.action)} {self.what.replace('the turn', 'your turn')}"


@dataclass(frozen=True)
class UndoReach:
    """How far back a seat may undo now: ``steps`` trailing actions that revealed nothing;
    ``reveal`` the latest action of its turn that revealed something (None: none did);
    ``step_events`` how many events each of the ``steps`` actions caused, oldest first (a log
    withholds or drops them)."""

    steps: int
    reveal: Reveal | None
    step_events: tuple[int, ...]

    def events(self, steps: int | None = None) -> int:
        """How many events the last ``steps`` undoable actions caused (default: all of them)."""
        counts = self.step_events if steps is None else self.step_events[len(self.step_events) - steps :]
        return sum(counts)


#: Nothing to undo: a turn that has not begun, or a game another seat decides.
NO_REACH = UndoReach(0, None, ())


def _name(action: Action) -> str:
    """An action in a few words: its type and what it acts on."""
    target = action.get("patient") or action.get("card") or action.get("remove") or action.get("item")
    return f"{action['type']} {target}" if target else str(action["type"])


#: What a seat was doing when it revealed something, as its player reads it.
_DOING = {
    "pass": "your pass",
    "admit": "admitting {card}",
    "reject": "rejecting {card}",
    "diagnose": "diagnosing {patient}",
    "heal": "healing {patient}",
    "treat": "treating {patient}",
    "helicopter": "your Helicopter",
    "buy": "your purchase",
}


def _doing(action: Action) -> str:
    return _DOING.get(action["type"], "your action").format(**action)


def _public_state(game: Game) -> tuple[Any, ...]:
    """What changes when something is revealed: the round, everyone's knowledge and the public
    fronts (asked of the observer, the one reader of knowledge)."""
    seat = Seat(game, None)
    return (game.round, seat.knowledge(), seat.fronts_seen())


def reveal_of(
    before: tuple[Any, ...], game: Game, seat: int, entry: Step, events: list[Event]
) -> tuple[str, str] | None:
    """What ``entry`` (just applied to ``game``, whose :func:`_public_state` was ``before``)
    revealed, as (words, rule id), or None when it revealed nothing."""
    action = entry["do"]
    round_number, knowledge, fronts = before
    if game.turn != seat or game.round != round_number or game.phase == "over":
        return ("ended the turn", "T9") if action["type"] == "pass" else ("ended the turn", "R1")
    if any(event["type"] == "deck_reshuffled" for event in events):
        return "reshuffled the deck", "V1"
    if any(event["type"] == "drawn" for event in events):
        return ("drew new patients", "T7") if action["type"] == "helicopter" else ("drew from the deck", "A1")
    if action["type"] == "helicopter":  # every seat saw the flight and the patient leave (T7)
        return "flew a Helicopter", "T7"
    if any(has_secret(event) for event in events):
        return "showed a checked patient", "C3"
    seen = Seat(game, None)
    if seen.knowledge() != knowledge:
        rule = {"diagnose": "T1", "admit": "A7"}.get(action["type"], "I2")
        return "showed a treatment side", rule
    if seen.fronts_seen() != fronts:
        return "made a front public", "I1"
    return None


def fresh_deal(game: Game) -> Game:
    """The game as it was dealt, before any action (D1): the same configuration, deck and seed."""
    setup = game.setup
    if setup is None:
        raise UndoError("nothing_to_undo", "a game set up by hand has no deal to replay (D1)", "D1")
    if game.deck_key == STANDARD_DECK_KEY:
        return Game.new(players=setup["players"], seed=setup["seed"], config=game.config)
    from triage.engine.records import new_game_from_record  # records imports this module's peers

    return new_game_from_record({"format": "triage.record/1", **setup, "actions": []})


def _trailing_run(game: Game, seat: int) -> int:
    """How many of the history's last entries are ``seat``'s, without another seat's between."""
    history = game.history
    count = 0
    while count < len(history) and history[-1 - count]["by"] == seat:
        count += 1
    return count


def _walk(
    game: Game, seat: int, start: Game | None = None, start_reveal: Reveal | None = None
) -> tuple[UndoReach, list[Game]]:
    """Replay the game, checking each action of the seat's trailing run for a reveal; returns
    the reach and, per undoable action from the oldest, the game just before it. The replay
    begins at ``start`` when it is an earlier position of this game that :func:`_replay_from`
    can trust (``start_reveal``: the reveal that sealed it), else at the deal."""
    if game.turn != seat:
        return NO_REACH, []
    run = _trailing_run(game, seat)
    if run == 0:
        return NO_REACH, []
    history = game.history
    first = len(history) - run
    replay, reveal = _replay_from(game, seat, first, start, start_reveal)
    befores: list[Game] = []
    counts: list[int] = []
    for number in range(max(first, len(replay.history)), len(history)):
        entry = history[number]
        befores.append(replay.copy())
        state = _public_state(replay)
        events = replay.apply(entry["do"], entry["by"])
        counts.append(len(events))
        found = reveal_of(state, replay, seat, entry, events)
        if found is not None:
            reveal = Reveal(number, entry["do"].copy(), found[0], found[1])
            befores, counts = [], []
    return UndoReach(len(befores), reveal, tuple(counts)), befores


def _replay_from(
    game: Game, seat: int, first: int, start: Game | None, start_reveal: Reveal | None
) -> tuple[Game, Reveal | None]:
    """A copy of the game at the trailing run's first action (``first``), or later when
    ``start`` lies inside the run just after the reveal ``start_reveal`` (the actions before it
    cannot be undone); with the reveal that sealed it. Starting at a known position instead of
    the deal saves replaying the whole game on every commit (D1 makes both exact)."""
    if start is not None and _is_prefix(start, game):
        known = len(start.history)
        if known <= first:
            replay = start.copy()
            for entry in game.history[known:first]:
                replay.apply(entry["do"], entry["by"])
            return replay, None
        if (
            start_reveal is not None
            and start_reveal.number == known - 1
            and game.history[known - 1]["by"] == seat
        ):
            return start.copy(), start_reveal
    replay = fresh_deal(game)
    for entry in game.history[:first]:
        replay.apply(entry["do"], entry["by"])
    return replay, None


def _is_prefix(start: Game, game: Game) -> bool:
    """Whether ``start`` is an earlier (or the same) position of ``game``: same deal, and its
    history the beginning of the game's."""
    known = len(start.history)
    return (
        start.setup == game.setup
        and start.deck_key == game.deck_key
        and start.config == game.config
        and known <= len(game.history)
        and game.history[:known] == start.history
    )


def undo_reach(game: Game, seat: int) -> UndoReach:
    """How many of ``seat``'s latest actions it may take back now (0 when it is not its
    decision), and the reveal that stops it going further back.

    >>> from triage.engine import Game
    >>> game = Game.new(players=2, seed=1)
    >>> undo_reach(game, 1).steps  # not seat 1's decision (R1)
    0
    """
    return _walk(game, seat)[0]


def sealed_point(
    game: Game, seat: int, start: Game | None = None, start_reveal: Reveal | None = None
) -> tuple[UndoReach, Game]:
    """``seat``'s reach and the game before all of its undoable actions: the last position
    every other seat may be shown (``game`` itself when nothing can be undone). ``start`` may
    name an earlier sealed point of the same game (with the reveal that sealed it), where the
    replay begins instead of at the deal; the answer is the same either way."""
    reach, befores = _walk(game, seat, start, start_reveal)
    return reach, befores[0] if befores else game


def undo_refusal(game: Game, seat: int, reach: UndoReach) -> UndoError:
    """Why ``seat`` cannot undo (``reach.steps`` is 0): whose decision it is, or the reveal."""
    if game.is_over():
        return UndoError("game_over", "the game is over; nothing is taken back", "R4")
    if game.turn != seat:
        return UndoError("not_your_turn", f"it is player {game.turn}'s decision, not player {seat}'s", "R1")
    if reach.reveal is not None and reach.reveal.number == len(game.history) - 1:
        return UndoError(
            "undo_past_reveal",
            f"{reach.reveal.describe()}; an undo never goes back past a reveal",
            reach.reveal.rule,
        )
    return UndoError("nothing_to_undo", "you have taken no action this turn that can be taken back", "T9")


def undo(game: Game, seat: int, steps: int = 1) -> Game:
    """The game before ``seat``'s last ``steps`` actions, a new game (``game`` is unchanged).
    Raises :class:`UndoError` when the seat may not go back that far."""
    if type(steps) is not int or steps < 1:
        raise ValueError(f"steps must be 1 or more, got {steps!r}")
    reach, befores = _walk(game, seat)
    if reach.steps == 0:
        raise undo_refusal(game, seat, reach)
    if steps > reach.steps:
        where = reach.reveal.describe() if reach.reveal is not None else "your turn began"
        raise UndoError(
            "undo_past_reveal",
            f"only {reach.steps} action(s) can be taken back: {where}",
            reach.reveal.rule if reach.reveal is not None else "T9",
        )
    return befores[-steps]
