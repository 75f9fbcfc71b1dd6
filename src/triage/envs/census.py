"""The card count of the observation: what a seat can count of the deck and the discard pile.

A careful player counts cards: the deck list is public (the view's ``catalogue``), every front
that was ever public is remembered (I1), the backs the seat has seen stay known (I2), some deck
positions are known (I3), and some patients are publicly known not to be severe (I4). This
block of the observation holds that count, so that an agent needs no memory of its own to do it:

* ``deck.known_positions`` and ``deck.unseen`` (cards whose front was never public: all in the
  deck);
* ``deck_order[p]`` for each deck position p from the top: 0 where the position is unknown,
  else 1 + the class (below) of the card known to lie there (I3: every known position, not only
  the top four that the peek describes card by card);
* ``deck.<class>`` and ``discard.<class>``: how many cards of each class the seat knows to be in
  the deck (seen, then put back; after a reshuffle, every deck card) and in the discard pile;
* ``deck.possible.<back>``: how many cards with that back may still lie in the deck: the deck
  list's count minus the cards the seat knows to have that back outside the deck.

A card's **class** is what the seat knows of it: ``back:<kind>/d<diagnosis>/h<healing>/c<credits>/v<vp>``
when it knows the whole back (one class per distinct back of the deck list, ``-`` for none), else
``seen:critical`` or ``seen:terminal`` (the front shows the kind, K2), or for a standard front
``seen:standard/d<diagnosis>`` followed by ``/not_severe`` (I4) or ``/kind=<kind>`` (priority
known, I2) where the seat knows that much.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

from triage.engine.game import Game
from triage.engine.observer import Seat
from triage.engine.shapes import CardShown, View
from triage.engine.vocabulary import FRONTS, KIND, STANDARD_FRONT, STANDARD_KINDS

#: The fronts that show their kind (K2): each one class of partial knowledge.
SHOWN_FRONTS: tuple[str, ...] = FRONTS[1:]
#: A standard partial class's offsets: unknown, not severe, then each known kind.
_UNKNOWN, _NOT_SEVERE = 0, 1
_KIND_OFFSET = {kind: 2 + index for index, kind in enumerate(STANDARD_KINDS)}
_PER_DIAGNOSIS = 2 + len(STANDARD_KINDS)
#: Where the standard front's classes start, after the shown fronts'.
_STANDARD_AT = len(SHOWN_FRONTS)

Back = tuple[Any, ...]
#: A card's class codes: whole back known, front only, publicly not severe, priority known.
Codes = tuple[int, int, int, int]


def _text(value: Any) -> str:
    return "-" if value is None else str(value)


class Census:
    """The card-count block for one deck list (a view's ``catalogue``)."""

    def __init__(self, catalogue: Sequence[Sequence[Any]]) -> None:
        backs: dict[Back, int] = {}
        for back in catalogue:
            backs[tuple(back)] = backs.get(tuple(back), 0) + 1
        self.backs: list[Back] = list(backs)
        self.counts = array("f", backs.values())
        self.deck_size = len(catalogue)
        self.diagnoses: list[int] = sorted({back[1] for back in catalogue if back[0] in STANDARD_KINDS})
        self._back_code = {back: code for code, back in enumerate(self.backs)}
        self._partial_at = len(self.backs)
        self.classes = [self._back_name(back) for back in self.backs] + self._partial_names()
        self._codes_by_back = {back: self._codes_of(back) for back in self.backs}
        #: ``Game.deck_key`` of the deck lists found to be this one.
        self._fitting_decks: set[str] = set()

    # ------------------------------------------------------------------ names and sizes

    @staticmethod
    def _back_name(back: Back) -> str:
        kind, diagnosis, healing, credits, vp = back
        return f"back:{kind}/d{_text(diagnosis)}/h{_text(healing)}/c{credits}/v{vp}"

    def _partial_names(self) -> list[str]:
        names = [f"seen:{front}" for front in SHOWN_FRONTS]
        for diagnosis in self.diagnoses:
            stem = f"seen:standard/d{diagnosis}"
            names += [stem, f"{stem}/not_severe", *(f"{stem}/kind={kind}" for kind in STANDARD_KINDS)]
        return names

    def feature_names(self) -> list[str]:
        names = ["deck.known_positions", "deck.unseen"]
        names += [f"deck_order[{position}]" for position in range(self.deck_size)]
        names += [f"deck.{name}" for name in self.classes]
        names += [f"discard.{name}" for name in self.classes]
        names += [f"deck.possible.{self._back_name(back)[5:]}" for back in self.backs]
        return names

    @property
    def size(self) -> int:
        return 2 + self.deck_size + 2 * len(self.classes) + len(self.backs)

    def highs(self) -> list[int]:
        """The largest value of each entry (in :meth:`feature_names` order)."""
        front_counts = {**{front: 0 for front in SHOWN_FRONTS}, **{f"d{d}": 0 for d in self.diagnoses}}
        for back, count in zip(self.backs, self.counts):
            shown = KIND[back[0]].front
            front_counts[shown if shown != STANDARD_FRONT else f"d{back[1]}"] += int(count)
        per_class = [int(count) for count in self.counts]
        per_class += [front_counts[front] for front in SHOWN_FRONTS]
        for diagnosis in self.diagnoses:
            per_class += [front_counts[f"d{diagnosis}"]] * _PER_DIAGNOSIS
        order = [len(self.classes)] * self.deck_size
        return [self.deck_size, self.deck_size, *order, *per_class, *per_class, *per_class[: len(self.backs)]]

    # ------------------------------------------------------------------ classes

    def fits(self, game: Game) -> bool:
        """Whether ``game`` was dealt from this deck list (as a multiset of backs); known at
        once for a deal of a deck list already checked (``Game.deck_key``)."""
        if game.deck_key is not None and game.deck_key in self._fitting_decks:
            return True
        counts: dict[Back, int] = {}
        for spec in game.cards.values():
            counts[spec.back()] = counts.get(spec.back(), 0) + 1
        fitting = counts == {back: int(count) for back, count in zip(self.backs, self.counts)}
        if fitting and game.deck_key is not None:
            self._fitting_decks.add(game.deck_key)
        return fitting

    def codes(self, game: Game) -> dict[str, Codes]:
        """Each card's class codes (:data:`Codes`), worked out once per card table."""
        by_back = self._codes_by_back
        return {card: by_back[spec.back()] for card, spec in game.cards.items()}

    def _codes_of(self, back: Back) -> Codes:
        whole = self._back_code[back]
        kind = back[0]
        shown = KIND[kind].front
        if shown != STANDARD_FRONT:  # the front tells the kind (K2): one class however much is known
            code = self._partial_at + SHOWN_FRONTS.index(shown)
            return whole, code, code, code
        base = self._partial_at + _STANDARD_AT + _PER_DIAGNOSIS * self.diagnoses.index(back[1])
        return whole, base + _UNKNOWN, base + _NOT_SEVERE, base + _KIND_OFFSET[kind]

    def code_of_entry(self, entry: CardShown, not_severe: bool) -> int:
        """The class of a card from its view entry (:func:`triage.engine.view`'s ``cards``)."""
        if "credits" in entry:  # the whole back is known (I2)
            back = (entry["kind"], entry["diagnosis"], entry["healing"], entry["credits"], entry["vp"])
            return self._back_code[back]
        front = entry["front"]
        if front != STANDARD_FRONT:
            return self._partial_at + SHOWN_FRONTS.index(front)
        base = (
            self._partial_at + _STANDARD_AT + _PER_DIAGNOSIS * self.diagnoses.index(entry["diagnosis"] or 0)
        )
        kind = entry.get("kind")
        if kind is not None:
            return base + _KIND_OFFSET[kind]
        return base + (_NOT_SEVERE if not_severe else _UNKNOWN)

    # ------------------------------------------------------------------ the block

    def put_game(
        self,
        vector: Any,
        at: int,
        game: Game,
        knower: Seat,
        known: list[tuple[int, str]],
        codes: dict[str, Codes],
        kept: dict[frozenset[str], array[float]],
    ) -> None:
        """Write the block from ``at``, read from the game through the seat's observer, with
        ``known`` its deck positions (:meth:`Seat.deck_known_positions`). ``kept`` holds the
        possible backs per fully known set of cards, for this game's card table only (card ids
        are shuffled handles, K1: the same ids name other backs in another deal)."""
        full, priority, not_severe = knower.full, knower.priority, knower.cleared()
        in_deck = knower.deck_seen()
        vector[at] = len(known)
        vector[at + 1] = len(game.cards) - len(knower.fronts_seen())
        order_at = at + 2
        deck_at = order_at + self.deck_size
        possible_at = deck_at + 2 * len(self.classes)
        backs = len(self.backs)
        possible = kept.get(full)
        vector[possible_at : possible_at + backs] = possible or self._possible(full, codes, kept)
        for position, card in known:
            of = codes[card]
            number = (
                of[0]
                if card in full
                else of[3]
                if card in priority
                else of[2]
                if card in not_severe
                else of[1]
            )
            vector[order_at + position] = 1 + number
            vector[deck_at + number] += 1
            if number < backs:
                vector[possible_at + number] += 1
        if len(in_deck) != len(known):  # after a reshuffle (V1): seen deck cards at unknown positions
            placed = {card for _, card in known}
            for card in in_deck:
                if card not in placed:
                    number = self._code(codes[card], card, full, priority, not_severe)
                    vector[deck_at + number] += 1
                    if number < backs:
                        vector[possible_at + number] += 1
        discard_at = deck_at + len(self.classes)
        for card in game.discard:
            vector[discard_at + self._code(codes[card], card, full, priority, not_severe)] += 1

    @staticmethod
    def _code(
        of: Codes, card: str, full: frozenset[str], priority: frozenset[str], not_severe: set[str]
    ) -> int:
        """The class of ``card`` with this knowledge (I2, I4)."""
        if card in full:
            return of[0]
        if card in priority:
            return of[3]
        return of[2] if card in not_severe else of[1]

    def _possible(
        self, full: frozenset[str], codes: dict[str, Codes], kept: dict[frozenset[str], array[float]]
    ) -> array[float]:
        """The deck list's counts less every card the seat knows fully (kept per knowledge)."""
        if len(kept) > 4096:
            kept.clear()
        counts = array("f", self.counts)
        for card in full:
            counts[codes[card][0]] -= 1
        kept[full] = counts
        return counts

    def put_view(self, vector: Any, at: int, seat_view: View) -> None:
        """Write the block from ``at``, read from a seat's view (the same numbers as
        :meth:`put_game`)."""
        memory = seat_view["cards"]
        not_severe = set(seat_view["not_severe"])
        deck_known = seat_view["deck_known"]
        vector[at] = sum(card is not None for card in deck_known)
        vector[at + 1] = len(seat_view["card_ids"]) - len(memory)
        order_at = at + 2
        for position, card in enumerate(deck_known):
            if card is not None:
                vector[order_at + position] = 1 + self.code_of_entry(memory[card], card in not_severe)
        deck_at = order_at + self.deck_size
        discard_at = deck_at + len(self.classes)
        possible_at = discard_at + len(self.classes)
        backs = len(self.backs)
        vector[possible_at : possible_at + backs] = self.counts
        outside = set(seat_view["discard"])
        for player in seat_view["players"]:
            outside.update(slot["card"] for slot in player["hospital"].values() if slot is not None)
            outside.update(player["pending"])
            outside.update(entry["card"] for entry in player["terminals"])
        for card, entry in memory.items():
            number = self.code_of_entry(entry, card in not_severe)
            if number < backs:
                vector[possible_at + number] -= 1
            if card not in outside:
                vector[deck_at + number] += 1
                if number < backs:
                    vector[possible_at + number] += 1
        for card in seat_view["discard"]:
            vector[discard_at + self.code_of_entry(memory[card], card in not_severe)] += 1
