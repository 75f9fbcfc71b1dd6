"""A game's speed machinery: what makes it fast and is no part of its rules.

A :class:`~triage.engine.game.Game` owns one :class:`Machinery`. Its stamps mark which parts of
the position may have changed, so observers keep what they built while they have not (``envs``
does); the integer action plan and the ``derived`` caches are what the engine and its observers
work out once from the game's fixed parts (its card table and configuration). Copies share the
count the stamps come from, the plan and the caches, and copy the stamps themselves.
"""

from __future__ import annotations

import itertools
from typing import Any, TypedDict


class MachineryState(TypedDict):
    """What a pickle keeps of a game's machinery: the number its count has reached, and the
    stamps (the plan and the caches are worked out again where needed)."""

    count: int
    stamps: list[int]
    deck_stamp: int


class Machinery:
    """Stamps, the integer action plan and the caches of one game (shared with its copies)."""

    __slots__ = ("count", "deck_stamp", "derived", "plan", "stamps")

    def __init__(self, players: int) -> None:
        #: One count shared by a game and all its copies, so one stamp is one state of one player
        #: across them. A game restored from a pickle numbers on from where it was pickled.
        self.count = itertools.count(1)
        #: Per player, a stamp taken afresh whenever its board, tracks or supply may change: for
        #: the actor of every action, a player who draws, a passed player a Helicopter draw
        #: reopens (V2), and every player at Cleanup (C1-C5, then the next round's Income).
        self.stamps: list[int] = [next(self.count) for _ in range(players)]
        #: A stamp taken afresh whenever the deck, its known positions, the discard pile or the
        #: cards publicly not severe may change (``memory.py``).
        self.deck_stamp = next(self.count)
        #: The integer action index of the game's cards and configuration, once asked for
        #: (:mod:`triage.engine.actions`).
        self.plan: Any = None
        #: What observers work out once from the game's fixed parts, shared by its copies.
        self.derived: dict[Any, Any] = {}

    def copy(self) -> Machinery:
        """The machinery of a copy: its own stamps, the same count, plan and caches."""
        other = Machinery.__new__(Machinery)
        other.count = self.count
        other.stamps = self.stamps.copy()
        other.deck_stamp = self.deck_stamp
        other.plan = self.plan
        other.derived = self.derived
        return other

    def stamp_all(self) -> None:
        """Every player's state may have changed."""
        count = self.count
        self.stamps = [next(count) for _ in self.stamps]

    def __getstate__(self) -> MachineryState:
        """Pickled as the number its count has reached (a count itself does not pickle on every
        Python) and its stamps; the plan and the caches are rebuilt where needed."""
        return {"count": next(self.count), "stamps": self.stamps, "deck_stamp": self.deck_stamp}

    def __setstate__(self, state: MachineryState) -> None:
        self.count = itertools.count(state["count"])
        self.stamps = state["stamps"]
        self.deck_stamp = state["deck_stamp"]
        self.plan = None
        self.derived = {}
