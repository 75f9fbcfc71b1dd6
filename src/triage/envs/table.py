"""One game seen through the integer interface: what the three adapters share.

A :class:`Table` holds an engine :class:`~triage.engine.Game` and answers, for one seat at a
time, with that seat's view only: its observation vector, its legal integers and mask, and
``play`` for an integer. An integer outside the mask is refused with
:class:`~triage.envs.encoding.IllegalActionError` and the game is left exactly as it was.

Legal integers and play go through the engine's integer path (``Game.legal_action_ids`` and
``Game.apply_id``, :mod:`triage.engine.actions`): no view is built to list or take an action.
What a position answers is worked out once and kept until the game moves on (the key is the
number of actions taken), so an adapter that asks for the mask, the observation and then plays
lists the legal actions once and builds a seat's view at most once.

>>> table = Table.deal(players=2, seed=5)
>>> seat = table.game.turn
>>> ids = table.legal_ids(seat)
>>> events = table.play(seat, ids[0])
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np

from triage.engine import Config, Game, RuleError, events_for, make_config, view
from triage.engine.config import TomlTable
from triage.engine.shapes import Event, View
from triage.envs.encoding import IllegalActionError, Layout, view_text


def make_game_config(rounds: int | None = None, return_to: str | None = None, **overrides: Any) -> Config:
    """A configuration from the few options the research interfaces expose. ``overrides`` are
    configuration settings as a file would hold them (config.md): a raw table, open until
    ``make_config`` validates it."""
    changes: TomlTable = dict(overrides)
    if rounds is not None:
        changes["rounds"] = rounds
    if return_to is not None:
        changes["return_to"] = return_to
    return make_config(changes)


class Table:
    """A game plus the integer encoding of its actions, seen seat by seat."""

    __slots__ = ("_key", "_legal", "_memo", "_sorted", "_texts", "_views", "game", "layout")

    def __init__(self, game: Game, layout: Layout | None = None) -> None:
        self.game = game
        self.layout = layout or Layout.from_view(view(game, 0))
        self._key = -1
        self._views: dict[int, View] = {}
        self._texts: dict[int, str] = {}
        #: The legal integers of the seat to decide (a few: a list answers ``in`` as fast as a
        #: set, without building one per position), sorted once someone asks for the list.
        self._legal: list[int] = []
        self._sorted = True
        #: What :meth:`Layout.observe_game` keeps between observations of this game.
        self._memo: dict[Any, Any] = {}

    @classmethod
    def deal(cls, players: int = 2, seed: int = 0, config: Config | None = None) -> Table:
        return cls(Game.new(players=players, seed=seed, config=config))

    def copy(self) -> Table:
        """An independent table on a copy of the game (``Game.copy``): what search does at every
        node, so nothing else is copied. What this position worked out is shared, not copied:
        views and texts belong to one position and :meth:`_fresh` replaces them (never clears
        them) when either table moves on; the observation memo's entries are checked against the
        players' stamps, which name one state across a game and all its copies."""
        other = Table.__new__(Table)
        other.game = self.game.copy()
        other.layout = self.layout
        other._key = self._key
        other._views = self._views
        other._texts = self._texts
        other._legal = self._legal
        other._sorted = self._sorted
        other._memo = self._memo
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        """``copy.deepcopy`` (of an environment holding this table) copies through :meth:`copy`."""
        return self.copy()

    def _fresh(self) -> None:
        """Forget what was worked out for an earlier position."""
        key = len(self.game.history)
        if key != self._key:
            self._key = key
            self._views = {}
            self._texts = {}
            self._legal = self.game.legal_action_ids()
            self._sorted = False

    def _view(self, seat: int) -> View:
        seat_view = self._views.get(seat)
        if seat_view is None:
            seat_view = self._views[seat] = view(self.game, seat)
        return seat_view

    def view(self, seat: int) -> View:
        self._fresh()
        return self._view(seat)

    def text(self, seat: int) -> str:
        """The seat's view as canonical text (:func:`~triage.envs.encoding.view_text`)."""
        self._fresh()
        text = self._texts.get(seat)
        if text is None:
            text = self._texts[seat] = view_text(self._view(seat))
        return text

    def share_seat(self, source: Table, seat: int) -> None:
        """Take ``source``'s view and text of ``seat`` as this table's own: for a game drawn
        from that view (determinize), whose view of ``seat`` is the same by construction."""
        self._fresh()
        source._fresh()
        if seat in source._views:
            self._views[seat] = source._views[seat]
        if seat in source._texts:
            self._texts[seat] = source._texts[seat]

    def observation(self, seat: int) -> np.ndarray:
        """The seat's observation vector: ``layout.observe(view(game, seat))``, computed straight
        from the game with the seat's knowledge (:meth:`Layout.observe_game`)."""
        self._fresh()
        return self.layout.observe_game(self.game, seat, self._memo)

    def observation_and_mask(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`observation` and :meth:`mask` in one call (what an adapter's step returns)."""
        self._fresh()
        game, layout = self.game, self.layout
        return layout.observe_game(game, seat, self._memo), layout.mask(
            self._legal if seat == game.turn else ()
        )

    def legal_ids(self, seat: int) -> list[int]:
        """The seat's legal integers, sorted; empty when it is not its decision."""
        self._fresh()
        if seat != self.game.turn:
            return []
        if not self._sorted:
            self._legal.sort()
            self._sorted = True
        return list(self._legal)

    def mask(self, seat: int) -> np.ndarray:
        """The seat's int8 mask of legal integers, a new array written afresh each call (an
        adapter asks once or twice a position: keeping the bytes and copying them costs more)."""
        self._fresh()
        return self.layout.mask(self._legal if seat == self.game.turn else ())

    def play(self, seat: int, index: int) -> list[Event]:
        """Take integer ``index`` for ``seat``; refused clearly (and nothing changes) when it is
        not one of the seat's legal integers. Returns the events as the seat may see them."""
        return events_for(self.play_quiet(seat, index), seat)

    def play_quiet(self, seat: int, index: int) -> list[Event]:
        """:meth:`play` returning the engine's own events (all-seeing: never for an agent)."""
        game = self.game
        if seat != game.turn:
            if game.is_over():
                raise IllegalActionError(f"action {index}: the game is over; no more actions are taken (R4)")
            raise IllegalActionError(
                f"action {index}: it is player {game.turn}'s decision, not player {seat}'s (R1)"
            )
        self._fresh()
        if type(index) is not int:  # a bool is an int, but never an action
            if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
                raise IllegalActionError(self._refusal(seat, index))
            index = int(index)
        if index not in self._legal:
            raise IllegalActionError(self._refusal(seat, index))
        return game.apply_id(index)

    def _refusal(self, seat: int, index: Any) -> str:
        """Why an integer is refused, naming the rule where the engine names one."""
        action = self.layout.decode(self._view(seat), index)  # raises for what does not exist
        try:
            self.game.copy().apply(action, seat)
        except RuleError as error:
            reason = str(error)
        else:
            reason = "that payment mix is not one the engine lists (T6)"
        return f"action {int(index)} ({self.layout.describe(int(index))}) is not legal now: {reason}"

    def scores(self) -> list[int]:
        return self.game.scores()


def copy_sharing(environment: Any, memo: dict[int, Any], shared: frozenset[str]) -> Any:
    """``copy.deepcopy`` of an environment that copies its game through ``Game.copy`` (its
    :class:`Table`'s ``__deepcopy__``) and shares the attributes named in ``shared`` (what is
    fixed for its life: configuration, encoder, spaces), deep-copying the rest."""
    cls: type = type(environment)
    other: Any = object.__new__(cls)
    memo[id(environment)] = other
    state = other.__dict__
    for key, value in environment.__dict__.items():
        if key in shared:
            state[key] = value
        elif type(value) is random.Random:  # its state tuple of 625 numbers, not one by one
            state[key] = twin = random.Random()
            twin.setstate(value.getstate())
        else:
            state[key] = copy.deepcopy(value, memo)
    return other
