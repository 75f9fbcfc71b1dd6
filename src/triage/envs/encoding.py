"""The integer action space and the observation vector shared by the research interfaces.

OpenSpiel, PettingZoo and Gymnasium all want a fixed-size integer action space with a mask of
the legal actions, and a fixed-size numeric observation. The observation is defined on a seat's
:func:`triage.engine.view` (:meth:`Layout.observe`), so it cannot hold what the seat may not know
(rules.md I4). :meth:`Layout.observe_game` computes the same vector from the game without
building the whole view, reading cards only through the observer's
:class:`~triage.engine.observer.Seat`, as the view does; the tests check that both give the same vector.

The action space is the engine's integer action index (:mod:`triage.engine.actions`, sizes
from the view's public ``config`` and ``catalogue``), so an id here is the id of
``Game.legal_action_ids``; :class:`Layout` adds the observation vector to it.

>>> from triage.engine import Game, view
>>> game = Game.new(players=2, seed=3)
>>> layout = Layout.from_view(view(game, 0))
>>> layout.num_actions, layout.describe(layout.num_actions - 1)
(716, 'pass')
"""

from __future__ import annotations

import json
import struct
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cached_property, lru_cache
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
import orjson

from triage.engine.actions import (
    ActionSpace,
    Board,
    EncodingError,
    IllegalActionError,
    action_space,
    decode,
    encode,
)
from triage.engine.cards import KINDS, CardSpec
from triage.engine.game import PHASES, Game
from triage.engine.observer import Seat
from triage.engine.shapes import Action, CardShown, View
from triage.engine.state import PLAYER_NUMBERS
from triage.engine.views import seat_of
from triage.engine.vocabulary import FRONTS, counted_items
from triage.envs.census import Census

MAX_PLAYERS = 4
#: Deck positions from the top described in the observation (known ones only, I3).
DECK_PEEK = 4
#: Every observation value lies within +-OBS_LIMIT (far beyond the proven bounds of
#: :mod:`triage.envs.bounds`).
OBS_LIMIT = 1.0e6


__all__ = ["ActionSpace", "EncodingError", "IllegalActionError", "Layout", "view_text"]


# ---------------------------------------------------------------------- the layout


@dataclass(frozen=True)
class Layout(ActionSpace):
    """The engine's action index for one configuration and deck, plus the observation's sizes.

    ``catalogue`` is the deck list (a view's ``catalogue``): the card count of the observation
    (:class:`~triage.envs.census.Census`) has one class per distinct back in it."""

    catalogue: tuple[tuple[Any, ...], ...] = ()
    #: The market items whose purchases a board counts (T8, K4: the Clinical Trials and
    #: Outpatient Clinics, a designer's items): one entry each in a player's block.
    counted: tuple[str, ...] = ()

    @cached_property
    def counters(self) -> tuple[str, ...]:
        """A player's numbers in its block: the board's counters, each counted item, spaces."""
        return (*PLAYER_NUMBERS, *(f"items.{name}" for name in self.counted), "spaces")

    @cached_property
    def _player_entries(self) -> struct.Struct:
        """A player's entries: present, :attr:`counters`, passed, score, decides, active, first
        (packing them costs less than building a float array of them)."""
        return _entries(self._player_head)

    def __getstate__(self) -> dict[str, Any]:
        """The layout's fields alone: what is worked out from them (the packers, which do not
        pickle, and the feature memories) is worked out again after a read back."""
        return {field.name: getattr(self, field.name) for field in fields(self)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    @cached_property
    def _item_counts(self) -> Callable[[Mapping[str, int]], tuple[int, ...]]:
        """A player's counts of the :attr:`counted` items, in order, from its ``items`` (which
        holds every counted item, none bought included): one ``itemgetter`` call a block."""
        return _counts_getter(self.counted)

    @cached_property
    def _player_head(self) -> int:
        """Where a player's patients start in its block: after ``present`` and its entries."""
        return 1 + len(self.counters) + 5

    @cached_property
    def num_actions(self) -> int:
        """The size of the action space (worked out once: masks ask for it at every step)."""
        return sum(count for _, count in self.blocks)

    @classmethod
    def from_view(cls, seat_view: View) -> Layout:
        """The layout for the game a view belongs to, from its public config and catalogue."""
        catalogue = seat_view["catalogue"]
        config = seat_view["config"]
        return cls(
            *ActionSpace.sizes(config, catalogue),
            tuple(tuple(back) for back in catalogue),
            counted_items(config["market"]),
        )

    @cached_property
    def census(self) -> Census:
        """The card-count block: the discard's and the deck's composition as the seat counts it."""
        return Census(self.catalogue)

    # ------------------------------------------------------------------ engine <-> integer

    def encode(self, seat_view: View, action: Action) -> int:
        """The integer of an engine action (section 4 shape) for the viewing seat: the engine's
        :func:`~triage.engine.actions.encode` on the view's board."""
        return encode(self, view_board(seat_view), action)

    def decode(self, seat_view: View, index: int) -> Action:
        """The engine action an integer stands for in this position, or IllegalActionError
        naming what it refers to that does not exist (:func:`~triage.engine.actions.decode`)."""
        return decode(self, view_board(seat_view), index)

    def legal_ids(self, seat_view: View, legal: list[Action]) -> list[int]:
        """The sorted integers of the engine's legal actions; distinct by construction."""
        ids = [self.encode(seat_view, action) for action in legal]
        if len(set(ids)) != len(ids):
            raise EncodingError("two legal actions share one integer: the layout is too small")
        return sorted(ids)

    def mask(self, ids: Sequence[int]) -> np.ndarray:
        """A new writable int8 mask with a 1 at each of ``ids``: set in a ``bytearray`` that the
        array then shares (a byte written there costs a tenth of a write into a NumPy array)."""
        buffer = bytearray(self.num_actions)
        for action_id in ids:
            buffer[action_id] = 1
        return np.frombuffer(buffer, _INT8)

    # ------------------------------------------------------------------ observation

    def feature_names(self) -> list[str]:
        """The name of every entry of the observation vector, in order."""
        names = ["round", "rounds", "num_players", *(f"phase={phase}" for phase in PHASES)]
        names += ["my_decision", "my_admission", "deck_count", "discard_count"]
        for position in range(DECK_PEEK):
            names += [f"deck[{position}].{name}" for name in ("exists", "known", *_CARD_FIELDS)]
        for rel in range(MAX_PLAYERS):
            prefix = f"p+{rel}"
            names += [f"{prefix}.{name}" for name in ("present", *self.counters, "passed", "score")]
            names += [f"{prefix}.{name}" for name in ("decides", "active", "first")]
            for space in range(1, self.spaces + 1):
                names += [f"{prefix}.space{space}.{name}" for name in (*_CARD_FIELDS, *_SLOT_FIELDS)]
            for number in range(1, self.terminals + 1):
                names += [f"{prefix}.terminal{number}.{name}" for name in _TERMINAL_FIELDS]
            for number in range(1, self.pending + 1):
                names += [f"{prefix}.pending{number}.{name}" for name in _CARD_FIELDS]
        return names + self.census.feature_names()

    @cached_property
    def observation_size(self) -> int:
        return len(self.feature_names())

    def observe(self, seat_view: View) -> np.ndarray:
        """The observation vector of a seat's view (float32; see :meth:`feature_names`), or of a
        spectator's (what every player knows: players from seat 0 on, no decision of its own).

        Written straight into a zero vector at fixed offsets: only what is present costs time."""
        vector = np.zeros(self.observation_size, np.float32)
        viewer = seat_view["viewer"]
        players = seat_view["players"]
        count = len(players)
        turn = seat_view["turn"]
        vector[0] = seat_view["round"]
        vector[1] = seat_view["config"]["rounds"]
        vector[2] = count
        vector[_GAME_PHASE + PHASES.index(seat_view["phase"])] = 1.0
        at = _GAME_PHASE + len(PHASES)
        if viewer is not None and turn == viewer:
            vector[at] = 1.0
            vector[at + 1] = bool(players[viewer]["pending"])
        deck_count = seat_view["deck_count"]
        vector[at + 2] = deck_count
        vector[at + 3] = len(seat_view["discard"])
        memory = seat_view["cards"]
        not_severe = seat_view["not_severe"]
        at += 4
        deck_known = seat_view["deck_known"]
        for position in range(min(DECK_PEEK, deck_count)):
            vector[at] = 1.0
            known = deck_known[position]
            if known is not None:
                vector[at + 1] = 1.0
                _put_card(vector, at + 2, memory[known], known in not_severe)
            at += 2 + _CARD_SIZE
        at = self._players_at
        size = self._player_size
        others = [set(known["full"]) for seat, known in enumerate(seat_view["knowledge"]) if seat != viewer]
        for rel in range(min(count, MAX_PLAYERS)):
            seat = ((viewer or 0) + rel) % count
            _put_view_player(self, vector, at + rel * size, seat_view, seat, (memory, not_severe, others))
        self.census.put_view(vector, self._census_at, seat_view)
        return vector

    def observe_game(self, game: Game, seat: int, memo: dict[Any, Any] | None = None) -> np.ndarray:
        """:meth:`observe_array` as a float32 vector sharing its memory (new, so writable)."""
        return np.frombuffer(self.observe_array(game, seat, memo), _FLOAT32)

    def observe_array(self, game: Game, seat: int, memo: dict[Any, Any] | None = None) -> array[float]:
        """:meth:`observe` of ``view(game, seat)`` without building the view: the same vector
        (a test checks it over thousands of positions), read through the observer
        (:class:`~triage.engine.observer.Seat`) with the seat's knowledge only (I1-I4).

        ``memo``, a dict kept with this one game (a :class:`~triage.envs.table.Table` keeps it),
        holds the seat's last numbers for each other player (and its own while it waits), reused
        while that player's state (``Game.stamps``), the seat's knowledge and whose turn it is
        stay the same. Written into a new ``array('f')`` (a Python-level write there costs about
        half of one into a NumPy array), which a batch joins with others' in one copy."""
        fitted = self._fitted
        if (
            fitted[0] is not game.cards
            or fitted[1] is not game.config
            or fitted[3] != self._memory.generation
        ):
            self._fit(game)
        vector = self._zeros[:]
        knower = Seat(game, seat)
        players = game.players
        count = len(players)
        turn, active, first = game.turn, game.active, game.first_player
        _HEAD.pack_into(  # the game's entries: round, phase, whose decision, deck and discard counts
            vector,
            0,
            game.round,
            game.config.rounds,
            count,
            *_PHASE_HOT[game.phase],
            turn == seat,
            turn == seat and bool(players[seat].pending),
            knower.deck_count(),
            len(game.discard),
        )
        everyone = knower.full_by_seat()
        others = everyone[:seat] + everyone[seat + 1 :]
        flags = (turn, active, first, knower.cleared())
        size = self._player_size
        # The seat's own part changes with each of its actions: kept only while it waits (what
        # OpenSpiel's rl_environment asks of every player at every step).
        own = memo is not None and seat != turn
        for rel in range(min(MAX_PLAYERS, count)):
            other = (seat + rel) % count
            start = self._players_at + rel * size
            if memo is None or not (rel or own):
                _put_player_part(self, vector, start, game, other, knower, others, flags)
                continue
            stamp = (
                game.stamps[other],
                everyone,
                knower.full,
                knower.priority,
                other == turn,
                other == active,
                other == first,
            )
            kept = memo.get((seat, other))
            if kept is not None and kept[0] == stamp:
                vector[start : start + size] = kept[1]
                continue
            _put_player_part(self, vector, start, game, other, knower, others, flags)
            memo[seat, other] = (stamp, vector[start : start + size])
        self._put_deck(vector, game, seat, knower, memo)
        return vector

    def _put_deck(
        self, vector: array[float], game: Game, seat: int, knower: Seat, memo: dict[Any, Any] | None
    ) -> None:
        """The deck peek and the card count, kept in ``memo`` while the deck, the discard pile,
        the public deductions (``Game.deck_stamp``) and the seat's knowledge stay the same: most
        actions move no card to or from the deck."""
        at = self._census_at
        if memo is not None:
            key = (game.deck_stamp, knower.full, knower.priority, knower.fronts_seen())
            kept = memo.get(("deck", seat))
            if kept is not None and kept[0] == key:
                vector[_DECK_AT : self._players_at] = kept[1]
                vector[at:] = kept[2]
                return
        known = knower.deck_known_positions()  # one walk of the deck for the peek and the census
        _put_peek(self, vector, game, knower, known)
        self.census.put_game(vector, at, game, knower, known, self._fitted[4], self._fitted[5])
        if memo is not None:
            memo["deck", seat] = (key, vector[_DECK_AT : self._players_at], vector[at:])

    @cached_property
    def _zeros(self) -> array[float]:
        return array("f", bytes(4 * self.observation_size))

    @cached_property
    def _fitted(self) -> list[Any]:
        """The card table and configuration last checked by :meth:`_fit`, the table's content
        numbers, the generation of the memories they belong to, its cards' census classes and the
        census's possible backs kept per knowledge (:meth:`Census.put_game`)."""
        return [None, None, {}, -1, {}, {}]

    @cached_property
    def _memory(self) -> _FeatureMemory:
        return _FeatureMemory()

    def _fit(self, game: Game) -> None:
        """Refuse a game that could hold more spaces, pending or terminal patients than this
        layout has room for (checked once per game: its sizes depend on its configuration and
        deck only), and number its cards' contents. What was worked out for a game is also kept
        on the game (``Game.derived``, keyed by this layout's feature memory), so that observing
        many games in turn (the vector environment) fits each once, not at every switch."""
        memory = self._memory
        kept = game.derived.get(memory)
        if (
            kept is not None
            and kept[0] is game.cards
            and kept[1] is game.config
            and kept[3] == memory.generation
        ):
            self._fitted[:] = kept
            return
        sizes = action_space(game)
        if sizes.spaces > self.spaces or sizes.pending > self.pending or sizes.terminals > self.terminals:
            raise EncodingError(
                f"this layout holds {self.spaces} spaces, {self.pending} pending and {self.terminals} "
                f"terminal patients a player; the game's configuration and deck allow {sizes.spaces}, "
                f"{sizes.pending} and {sizes.terminals} (K4, A1, A3)"
            )
        census = self.census
        if not census.fits(game):
            raise EncodingError("this layout was made for another deck list: its card count would be wrong")
        fitted = [
            game.cards,
            game.config,
            memory.number(game.cards),
            memory.generation,
            census.codes(game),
            {},
        ]
        self._fitted[:] = fitted
        game.derived[memory] = fitted

    @cached_property
    def _players_at(self) -> int:
        return _DECK_AT + DECK_PEEK * _PEEK_SIZE

    @cached_property
    def _census_at(self) -> int:
        return self._players_at + MAX_PLAYERS * self._player_size

    @cached_property
    def _player_size(self) -> int:
        fixed = self._player_head
        card, slot = len(_CARD_FIELDS), len(_SLOT_FIELDS)
        return (
            fixed + self.spaces * (card + slot) + self.terminals * len(_TERMINAL_FIELDS) + self.pending * card
        )


def _put_view_player(
    layout: Layout, vector: np.ndarray, at: int, seat_view: View, seat: int, known: tuple[Any, Any, Any]
) -> None:
    """One player's entries from the view; ``known`` is the seat's memory of cards, the
    cards publicly not severe and the other seats' fully known cards."""
    memory, not_severe, others = known
    player = seat_view["players"][seat]
    vector[at] = 1.0
    numbers = len(PLAYER_NUMBERS)
    for offset, value in enumerate(_board_numbers(player), start=1):
        vector[at + offset] = value
    for offset, name in enumerate(layout.counted, start=1 + numbers):
        vector[at + offset] = player["items"][name]
    vector[at + 1 + numbers + len(layout.counted)] = player["spaces"]
    at += 1 + len(layout.counters)
    vector[at] = player["passed"]
    vector[at + 1] = player["score"]
    vector[at + 2] = seat_view["turn"] == seat
    vector[at + 3] = seat_view["active"] == seat
    vector[at + 4] = seat_view["first_player"] == seat
    at += 5
    slot_size = _CARD_SIZE + len(_SLOT_FIELDS)
    for space, slot in player["hospital"].items():
        if slot is not None:
            start = at + (int(space) - 1) * slot_size
            _put_card(vector, start, slot, slot["card"] in not_severe)
            vector[start + _CARD_SIZE] = slot["time"]
            vector[start + _CARD_SIZE + 1] = slot["revealed"]
            vector[start + _CARD_SIZE + 2] = slot["placed"]
            vector[start + _CARD_SIZE + 3] = sum(slot["card"] in cards for cards in others)
    at += layout.spaces * slot_size
    terminals = player["terminals"]
    pending = player["pending"]
    if (
        len(terminals) > layout.terminals
        or len(pending) > layout.pending
        or len(player["hospital"]) > layout.spaces
    ):
        raise EncodingError("more spaces, terminal or pending patients than this layout holds")
    for number, entry in enumerate(terminals):
        start = at + number * len(_TERMINAL_FIELDS)
        vector[start] = 1.0
        vector[start + 1] = entry["time"]
        vector[start + 2] = entry["treated"]
        vector[start + 3] = entry["credits"]
        vector[start + 4] = entry["vp"]
    at += layout.terminals * len(_TERMINAL_FIELDS)
    for number, card in enumerate(pending):
        _put_card(vector, at + number * _CARD_SIZE, memory[card], card in not_severe)


def _put_player_part(
    layout: Layout,
    vector: array[float],
    start: int,
    game: Game,
    other: int,
    knower: Seat,
    others: tuple[frozenset[str], ...],
    flags: tuple[int | None, int | None, int, set[str]],
) -> None:
    """Player ``other``'s entries, board, terminal and pending patients as the seat knows
    them, from ``start``; ``others`` are the other seats' fully known cards (I2, C3);
    ``flags`` the game's turn, active and first player and the cards cleared by checks (I4)."""
    memory = layout._memory
    contents = layout._fitted[2]
    full, priority = knower.full, knower.priority
    turn, active, first, not_severe = flags
    player = game.players[other]
    numbers = _numbers(player)  # quality, vp, ...: the score is their sum (R4)
    layout._player_entries.pack_into(
        vector,
        4 * start,
        1.0,  # present
        *numbers,
        *layout._item_counts(player.items),
        len(player.hospital),
        player.passed,
        numbers[0] + numbers[1],
        other == turn,
        other == active,
        other == first,
    )
    slots = memory.slots
    head = start + layout._player_head  # where the board's spaces start
    slot_at = head
    for slot in player.hospital:
        if slot is not None:
            card = slot.card
            level = 2 if card in full else 1 if card in priority else 0
            seen_by = 0
            for known in others:
                if card in known:
                    seen_by += 1
            key = (
                contents[card],
                level,
                slot.time,
                slot.revealed,
                slot.placed,
                card in not_severe,
                seen_by,
            )
            features = slots.get(key)
            if features is None:
                features = slots[key] = _slot_features(memory, contents, game, knower, slot, seen_by)
            vector[slot_at : slot_at + _SLOT_SIZE] = features
        slot_at += _SLOT_SIZE
    terminal_at = head + layout.spaces * _SLOT_SIZE
    for patient in player.terminals:
        spec = game.cards[patient.card]  # a terminal patient lies revealed: its reward is public (A3)
        _TERMINAL_ENTRIES.pack_into(
            vector, 4 * terminal_at, 1.0, patient.time, patient.treated, spec.credits, spec.vp
        )
        terminal_at += _TERMINAL_SIZE
    card_at = head + layout.spaces * _SLOT_SIZE + layout.terminals * _TERMINAL_SIZE
    for card in player.pending:  # only while admitting: the plain call will do
        features = _card_features(memory, contents, game, knower, card, None, card in not_severe)
        vector[card_at : card_at + _CARD_SIZE] = features
        card_at += _CARD_SIZE


def _put_peek(
    layout: Layout, vector: array[float], game: Game, knower: Seat, known: list[tuple[int, str]]
) -> None:
    """The deck peek: the known positions (``known``, I3) among the deck's top cards."""
    shown = min(DECK_PEEK, knower.deck_count())
    vector[_DECK_AT : _DECK_AT + shown * _PEEK_SIZE : _PEEK_SIZE] = _ONES[shown]  # exists
    memory = layout._memory
    contents = layout._fitted[2]
    not_severe = knower.cleared()
    for position, card in known:
        if position >= DECK_PEEK:
            continue
        at = _DECK_AT + position * _PEEK_SIZE
        vector[at + 1] = 1.0
        # The key of _card_features (no Time off the board), inline to save a call.
        ns = card in not_severe
        features = memory.cards.get((contents[card], knower.level(card), None, ns))
        if features is None:
            features = _card_features(memory, contents, game, knower, card, None, ns)
        vector[at + 2 : at + _PEEK_SIZE] = features


_CARD_FIELDS: tuple[str, ...] = (
    "present",
    *(f"front={front}" for front in FRONTS),
    "diagnosis",
    *(f"kind={kind}" for kind in KINDS),
    "kind_known",
    "healing",
    "healing_known",
    "credits",
    "vp",
    "reward_known",
    "not_severe",
)
#: ``others_know``: how many other seats know the patient's back (I2; after a check, C3).
_SLOT_FIELDS: tuple[str, ...] = ("time", "revealed", "placed", "others_know")
_TERMINAL_FIELDS: tuple[str, ...] = ("present", "time", "treated", "credits", "vp")


_CARD_SIZE = len(_CARD_FIELDS)
_SLOT_SIZE = _CARD_SIZE + len(_SLOT_FIELDS)
_TERMINAL_SIZE = len(_TERMINAL_FIELDS)


_numbers = attrgetter(*PLAYER_NUMBERS)
#: A view's board's PLAYER_NUMBERS, in their order.
_board_numbers = itemgetter(*PLAYER_NUMBERS)
assert PLAYER_NUMBERS[:2] == ("quality", "vp")


def _counts_getter(names: tuple[str, ...]) -> Callable[[Mapping[str, int]], tuple[int, ...]]:
    """What reads ``names``' counts as a tuple: ``itemgetter`` (picklable, like the layout
    that keeps it) for two names or more, where it answers a tuple."""
    if len(names) >= 2:
        return itemgetter(*names)
    return _CountsOf(names)


@dataclass(frozen=True)
class _CountsOf:
    """The counts of one counted item or none, as a tuple (``itemgetter`` answers a bare value)."""

    names: tuple[str, ...]

    def __call__(self, items: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(items[name] for name in self.names)


@lru_cache(maxsize=None)
def _entries(count: int) -> struct.Struct:
    """The packer of ``count`` floats (a struct does not pickle, so a layout does not hold one)."""
    return struct.Struct(f"{count}f")


#: A terminal patient's entries (_TERMINAL_FIELDS).
_TERMINAL_ENTRIES = struct.Struct(f"{len(_TERMINAL_FIELDS)}f")

#: A layout's feature memory is cleared past this many entries (many custom decks in one process).
_KEPT = 50_000


class _FeatureMemory:
    """What a layout remembers of card features, kept on the layout (and pickled with it, so a
    table continued in another process reads its own numbers): each card content met, numbered,
    and the features by (content number, knowledge, ...), shared by every game the layout
    observes. What a card's features depend on besides what the seat knows of it is its content
    (its handle does not count: a game's handles are shuffled, K1)."""

    __slots__ = ("cards", "contents", "generation", "slots")

    def __init__(self) -> None:
        self.contents: dict[tuple[Any, ...], int] = {}
        self.cards: dict[tuple[Any, ...], array[float]] = {}
        self.slots: dict[tuple[Any, ...], array[float]] = {}
        #: How many times the memory was cleared: numbers handed out before are stale.
        self.generation = 0

    def number(self, cards: dict[str, CardSpec]) -> dict[str, int]:
        """Each card's content number, for one card table (worked out once per game)."""
        if len(self.contents) + len(self.cards) + len(self.slots) > _KEPT:
            # Content numbers are reused after this, so every table that holds them goes too
            # (and the layout's copy of one: the generation moves on).
            self.generation += 1
            self.contents.clear()
            self.cards.clear()
            self.slots.clear()
        contents = self.contents
        return {
            handle: contents.setdefault(
                (spec.kind, spec.diagnosis, spec.healing, spec.credits, spec.vp), len(contents)
            )
            for handle, spec in cards.items()
        }


def _card_features(
    memory: _FeatureMemory,
    contents: dict[str, int],
    game: Game,
    knower: Seat,
    card: str,
    time: int | None,
    not_severe: bool,
) -> array[float]:
    """:func:`_put_card` of ``knower.card(card, time)``, remembered: the features depend only
    on the card's content, how much the seat knows of it (I2), its Time for a chronic one, and
    whether it is publicly not severe (I4)."""
    level = knower.level(card)
    key = (contents[card], level, time if level and game.cards[card].healing is None else None, not_severe)
    features = memory.cards.get(key)
    if features is None:
        vector = np.zeros(_CARD_SIZE, np.float32)
        _put_card(vector, 0, knower.card(card, time), not_severe)
        features = memory.cards[key] = array("f", vector.tobytes())
    return features


def _slot_features(
    memory: _FeatureMemory, contents: dict[str, int], game: Game, knower: Seat, slot: Any, seen_by: int
) -> array[float]:
    """A hospital slot's entries: its card's features, then its Time, revealed, placed and how
    many other seats know its back."""
    card = slot.card
    features = _card_features(memory, contents, game, knower, card, slot.time, knower.is_not_severe(card))
    return features + array("f", (slot.time, slot.revealed, slot.placed, seen_by))


#: dtype objects: np.frombuffer reads them faster than the scalar types.
_FLOAT32 = np.dtype(np.float32)
_INT8 = np.dtype(np.int8)
_GAME_PHASE = 3  # round, rounds, num_players come first
#: my_decision, my_admission, deck_count, discard_count follow the phases; then the deck peek,
#: DECK_PEEK positions of exists, known and the card.
_DECIDES = _GAME_PHASE + len(PHASES)
_DECK_AT = _DECIDES + 4
#: Everything before the deck peek: round, rounds, players, the phase, then the four above.
_HEAD = struct.Struct(f"{_DECK_AT}f")
_PHASE_HOT = {phase: tuple(float(phase == other) for other in PHASES) for phase in PHASES}
_PEEK_SIZE = 2 + _CARD_SIZE
#: The ``exists`` flags of 0..DECK_PEEK deck positions.
_ONES = [array("f", [1.0] * number) for number in range(DECK_PEEK + 1)]
_FRONT_AT = {front: 1 + i for i, front in enumerate(FRONTS)}
_KIND_AT = {kind: 2 + len(FRONTS) + i for i, kind in enumerate(KINDS)}
_AFTER_KIND = 2 + len(FRONTS) + len(KINDS)


def _put_card(vector: np.ndarray, at: int, card: CardShown, not_severe: bool) -> None:
    """A card as the viewer knows it: a missing field (unknown, I2) is 0 with its flag 0."""
    vector[at] = 1.0
    vector[at + _FRONT_AT[card["front"]]] = 1.0
    diagnosis = card.get("diagnosis")
    if diagnosis:
        vector[at + 1 + len(FRONTS)] = diagnosis
    kind = card.get("kind")
    if kind is not None:
        vector[at + _KIND_AT[kind]] = 1.0
        vector[at + _AFTER_KIND] = 1.0
    healing = card.get("healing")
    if healing is not None:
        vector[at + _AFTER_KIND + 1] = healing
        vector[at + _AFTER_KIND + 2] = 1.0
    if "credits" in card:
        vector[at + _AFTER_KIND + 3] = card["credits"]
        vector[at + _AFTER_KIND + 4] = card.get("vp", 0)
        vector[at + _AFTER_KIND + 5] = 1.0
    elif "vp" in card:
        vector[at + _AFTER_KIND + 4] = card["vp"]
    if not_severe:
        vector[at + _AFTER_KIND + 6] = 1.0


def view_board(seat_view: View) -> Board:
    """The viewing seat's own board (:class:`~triage.engine.actions.Board`) read from its view:
    what the engine's translation between ids and actions needs, without a game."""
    me = seat_view["players"][seat_of(seat_view)]
    slots = [me["hospital"][str(number)] for number in range(1, len(me["hospital"]) + 1)]
    return Board(
        me["pending"],
        [None if slot is None else slot["card"] for slot in slots],
        {slot["card"]: slot["diagnosis"] or 0 for slot in slots if slot is not None},
        [entry["card"] for entry in me["terminals"]],
        (me["diagnostics"], me["healing"], me["staff_available"], me["congress"]),
    )


#: Parts of a view that are the same all game long (the box, the settings and the vocabulary's
#: kinds): left out of :func:`view_text`, which only has to tell positions of one game apart.
FIXED_VIEW_PARTS: frozenset[str] = frozenset({"format", "config", "catalogue", "card_ids", "kinds"})


def view_text(seat_view: View) -> str:
    """A canonical text of a view (stable key order) without its :data:`FIXED_VIEW_PARTS`:
    within one game, equal views give equal strings and different views different ones.

    It is ``json.dumps(..., sort_keys=True, separators=(",", ":"))``, written by orjson (search
    keys its nodes by these strings: a tenth of the time json takes); a text orjson would write
    otherwise (anything but ASCII, which json escapes) or refuses is json's own."""
    changing = {key: value for key, value in seat_view.items() if key not in FIXED_VIEW_PARTS}
    try:
        text = orjson.dumps(changing, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        text = ""
    if text and text.isascii():
        return text
    return json.dumps(changing, sort_keys=True, separators=(",", ":"))
