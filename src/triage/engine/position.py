"""A game position's state and its plain queries: what every rule section reads and writes.

:class:`Position` holds the fields (slots) of a :class:`~triage.engine.game.Game`: a plain
record of the rules' state. The rules are functions over it, each section in its own module
(:mod:`~triage.engine.memory` for the deck and what players know, :mod:`~triage.engine.arrival`,
:mod:`~triage.engine.treatment`, :mod:`~triage.engine.cleanup`, :mod:`~triage.engine.flow`);
:class:`~triage.engine.game.Game` adds dealing and taking actions.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, Self, TypeGuard

from triage.engine.cards import CardSpec
from triage.engine.config import Config
from triage.engine.machinery import Machinery
from triage.engine.shapes import Action, Event, Setup, Step
from triage.engine.state import PlayerState
from triage.engine.vocabulary import counted_items

#: A payment: tokens, Staff and Congress Doctors (T6).
Pay = tuple[int, int, int]

PHASES: tuple[str, ...] = ("arrival", "treatment", "cleanup", "over")
__all__ = ["Action", "Event", "PHASES", "Pay", "Position", "is_whole"]


def is_whole(value: object) -> TypeGuard[int]:
    """A whole number, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


@lru_cache(maxsize=64)
def _orders(count: int) -> tuple[list[int], ...]:
    """R1: each first player's turn order (shared lists: callers never change them)."""
    return tuple([(first + offset) % count for offset in range(count)] for first in range(count))


#: ``ORDERS[players][first]``: :func:`_orders` without a call, for the hot path (R1).
ORDERS: tuple[tuple[list[int], ...], ...] = ((), *(_orders(count) for count in range(1, 5)))


def check_players(players: object) -> None:
    """R1: a game seats 1 to 4 players; anything else is refused before a count's values are read."""
    if not is_whole(players) or not 1 <= players <= 4:
        raise ValueError(f"a game has 1 to 4 players (R1), got {players!r}")


class Position:
    """A whole game position, all-seeing (players see it only through the observer): a plain
    record of the rules' state. The rules that change it are functions of the rule sections;
    what makes it fast is its :class:`~triage.engine.machinery.Machinery`."""

    __slots__ = (
        "_rng",
        "_rng_shared",
        "active_pos",
        "cards",
        "config",
        "deck",
        "deck_key",
        "discard",
        "extra_turn",
        "first_player",
        "history",
        "initial_events",
        "know_full",
        "know_priority",
        "known_positions",
        "machinery",
        "not_severe",
        "origins",
        "phase",
        "players",
        "queue",
        "reopened",
        "resolving",
        "round",
        "seen_fronts",
        "setup",
        "turn",
        "winner",
    )

    def __init__(
        self,
        config: Config,
        cards: dict[str, CardSpec],
        players: int,
        rng: random.Random | int,
        origins: dict[str, str] | None = None,
        boards: list[PlayerState] | None = None,
    ) -> None:
        """``boards``: the players' states when the caller has them already (a drawn world),
        else new empty ones."""
        check_players(players)
        if boards is not None and len(boards) != players:
            raise ValueError(f"{len(boards)} boards for {players} players")
        #: The rules and the card table: fixed for the game's life (copies share them, and the
        #: integer plan is worked out from them once). The configuration is this player count's
        #: (R1 ``rounds`` by player count).
        self.config = config.for_players(players)
        self.cards = cards
        self.players = boards if boards is not None else [PlayerState() for _ in range(players)]
        if boards is None:  # T8: no item bought yet (one table shared, never changed in place)
            none_bought = dict.fromkeys(counted_items(self.config.market), 0)
            for board in self.players:
                board.items = none_bought
        self.round = 0
        self.phase = "arrival"
        self.first_player = 0
        self.turn: int | None = None
        #: Position in this round's turn order of the player acting in Treatment.
        self.active_pos = 0
        #: V2 ``reopen``: the player taking an extra Treatment turn, and those waiting for one.
        self.extra_turn: int | None = None
        self.reopened: set[int] = set()
        #: Draws still to make, in order: ``[player, how many]`` (A1 Arrival, T7 Helicopter).
        self.queue: list[list[int]] = []
        #: The player now admitting the patients it drew, if any.
        self.resolving: int | None = None
        self.deck: list[str] = []
        self.discard: list[str] = []
        self._rng: random.Random | int = rng
        self._rng_shared = False
        #: I2: per player, the cards whose treatment side it has seen / whose priority it knows.
        #: Knowledge only grows, so these are frozen and replaced when they grow (``memory``):
        #: copies share them, and views key their caches on them.
        self.know_full: list[frozenset[str]] = [frozenset() for _ in range(players)]
        self.know_priority: list[frozenset[str]] = [frozenset() for _ in range(players)]
        #: I4: unrevealed cards that survived a Cleanup with 2+ Time, so are publicly not severe.
        self.not_severe: set[str] = set()
        #: I1: cards whose front has been public at some moment (frozen, as knowledge).
        self.seen_fronts: frozenset[str] = frozenset()
        #: I3: cards in the deck whose position public events have fixed.
        self.known_positions: set[str] = set()
        self.winner: int | None = None
        #: How the game was dealt (for records, D1); None for a game set up by a scenario.
        self.setup: Setup | None = None
        self.history: list[Step] = []
        self.initial_events: list[Event] = []
        #: Secret: the deck-file id of each card's neutral handle (K1), for designers' statistics.
        self.origins: dict[str, str] = {card: card for card in cards} if origins is None else origins
        #: The name of the deck list this game was dealt from when many deals share it
        #: (:data:`STANDARD_DECK_KEY`), else None. What depends on the deck's contents only (the
        #: integer action plan; a view's card ids, catalogue and configuration) is then worked
        #: out once per deck and configuration, not once per deal.
        self.deck_key: str | None = None
        #: Stamps, the integer action plan and the caches (:mod:`triage.engine.machinery`).
        self.machinery = Machinery(players)

    def copy(self) -> Self:
        """An independent copy (for search and what-if analysis)."""
        other = type(self).__new__(type(self))
        other.config = self.config
        other.cards = self.cards
        other.players = [player.copy() for player in self.players]
        other.round = self.round
        other.phase = self.phase
        other.first_player = self.first_player
        other.turn = self.turn
        other.active_pos = self.active_pos
        other.extra_turn = self.extra_turn
        other.reopened = self.reopened.copy()
        other.queue = [list(entry) for entry in self.queue] if self.queue else []
        other.resolving = self.resolving
        other.deck = self.deck.copy()
        other.discard = self.discard.copy()
        # The generator is shared until one of the two needs it (see :attr:`rng`).
        other._rng = self._rng
        other._rng_shared = self._rng_shared = True
        other.know_full = self.know_full.copy()
        other.know_priority = self.know_priority.copy()
        other.not_severe = self.not_severe.copy()
        other.seen_fronts = self.seen_fronts
        other.known_positions = self.known_positions.copy()
        other.winner = self.winner
        other.setup = self.setup
        other.history = self.history.copy()
        other.initial_events = self.initial_events
        other.origins = self.origins
        other.deck_key = self.deck_key
        other.machinery = self.machinery.copy()
        return other

    def __getstate__(self) -> tuple[None, dict[str, Any]]:  # pickle's slot state: name -> value
        """Pickle the slots (the machinery as its own state: see :class:`Machinery`)."""
        return None, {name: getattr(self, name) for name in Position.__slots__ if hasattr(self, name)}

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        for name, value in state[1].items():
            setattr(self, name, value)

    @property
    def stamps(self) -> list[int]:
        """Per player, the stamp of its present state (:class:`Machinery`)."""
        return self.machinery.stamps

    @property
    def deck_stamp(self) -> int:
        """The stamp of the deck's present state (:class:`Machinery`)."""
        return self.machinery.deck_stamp

    @property
    def derived(self) -> dict[Any, Any]:
        """What observers work out once from the game's fixed parts (:class:`Machinery`)."""
        return self.machinery.derived

    @property
    def rng(self) -> random.Random:
        """The game's own generator (it decides V1 reshuffles). A copy shares it with its
        original until either needs it, and a determinized game holds a seed until then: copies
        stay cheap for search, whose worlds rarely reshuffle."""
        rng = self._rng
        if isinstance(rng, int):
            rng = self._rng = random.Random(rng)
        elif self._rng_shared:
            clone = random.Random.__new__(random.Random)
            clone.setstate(rng.getstate())
            rng = self._rng = clone
        self._rng_shared = False
        return rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value
        self._rng_shared = False

    @property
    def num_players(self) -> int:
        return len(self.players)

    def order(self) -> list[int]:
        """R1: this round's turn order, from the first player."""
        return list(_orders(len(self.players))[self.first_player])

    @property
    def active(self) -> int | None:
        """The player whose Treatment it is (which may differ from :attr:`turn` during
        Helicopter draws, T7); with V2 ``reopen``, a player on its extra turn."""
        if self.phase != "treatment":
            return None
        if self.extra_turn is not None:
            return self.extra_turn
        if self.active_pos >= len(self.players):
            return None
        return ORDERS[len(self.players)][self.first_player][self.active_pos]

    def is_over(self) -> bool:
        return self.phase == "over"

    def scores(self) -> list[int]:
        """Each player's score, VP plus QoC (R4: ``PlayerState.score``, summed here without
        the property call: adapters read it after every action)."""
        return [player.vp + player.quality for player in self.players]

    def in_admission(self, player: int) -> bool:
        """Whether ``player`` is now admitting the patients it drew (A4)."""
        return self.resolving == player and bool(self.players[player].pending)

    def lose_quality(self, seat: int, amount: int) -> int:
        """A5, C4: QoC drops by ``amount``; with V4 ``quality_floor`` it stops at the floor.
        Returns what was really lost."""
        player = self.players[seat]
        floor = self.config.quality_floor
        after = player.quality - amount
        if floor is not None:
            after = max(after, min(floor, player.quality))
        lost = player.quality - after
        player.quality = after
        return lost
