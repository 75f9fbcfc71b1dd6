"""The deck and what the players know of the cards (I1-I3, V1): kept by the game, read only
by the observer (:mod:`triage.engine.observer`)."""

from __future__ import annotations

from triage.engine.position import Event, Position


class Memory(Position):
    """Deck moves and the knowledge they give (I1-I3)."""

    __slots__ = ()

    def _touch_top(self) -> None:
        """I3: the top card of the deck is always seen."""
        if self.deck:
            top = self.deck[0]
            self.known_positions.add(top)
            self.see_front(top)

    def _draw(self, events: list[Event]) -> str | None:
        """Take the top card; an empty deck gives nothing (A1), or, with V1 ``discard``, is
        first rebuilt from the discard pile, shuffled from the game's generator."""
        if not self.deck:
            if not self.discard:
                return None
            self.deck = self.discard
            self.discard = []
            self.rng.shuffle(self.deck)
            self.known_positions.clear()
            self._touch_top()
            events.append({"type": "deck_reshuffled", "cards": len(self.deck)})
        card = self.deck.pop(0)
        self.known_positions.discard(card)
        self._touch_top()
        self.deck_stamp = next(self._stamp_count)
        return card

    def _put_under_deck(self, card: str) -> None:
        """T7: a removed patient goes under the deck, where everyone saw it go (I3)."""
        self.deck.append(card)
        self.known_positions.add(card)
        self._touch_top()
        self.deck_stamp = next(self._stamp_count)

    def _return_card(self, card: str, case: str) -> str:
        """V1: where a ``cured`` (T4), ``died`` (C4) or ``rejected`` (A5) patient goes."""
        where = self.config.return_place(case)
        if where == "top":
            self.deck.insert(0, card)
            self.known_positions.add(card)
        elif where == "bottom":
            self.deck.append(card)
            self.known_positions.add(card)
        else:
            self.discard.insert(0, card)
        self.see_front(card)
        self._touch_top()
        self.deck_stamp = next(self._stamp_count)
        return where

    def _reveal(self, card: str) -> None:
        """A revealed treatment side is public (I1) and remembered by all (I2)."""
        for seat in range(len(self.players)):
            self.learn_full(seat, card)

    def see_front(self, card: str) -> None:
        """I1: ``card``'s front is public from now on."""
        if card not in self.seen_fronts:
            self.seen_fronts = self.seen_fronts | {card}

    def learn_full(self, seat: int, card: str) -> None:
        """I2: ``seat`` has seen ``card``'s treatment side."""
        known = self.know_full[seat]
        if card not in known:
            self.know_full[seat] = known | {card}

    def restore_memory(
        self,
        known_positions: set[str],
        seen_fronts: frozenset[str],
        not_severe: set[str],
        knowledge: list[tuple[frozenset[str], frozenset[str]]],
    ) -> None:
        """I1-I4 as a view records them, for a game drawn from that view (``determinize``):
        the deck positions fixed, the fronts seen, the cards known not severe, and per seat
        the cards known fully and by priority."""
        self.known_positions = known_positions
        self.seen_fronts = seen_fronts
        self.not_severe = not_severe
        self.know_full = [full for full, _ in knowledge]
        self.know_priority = [priority for _, priority in knowledge]

    def learn_not_severe(self, card: str) -> None:
        """I4: ``card`` survived a check, so everyone knows it is not severe."""
        self.not_severe.add(card)
        self.deck_stamp = next(self._stamp_count)

    def learn_priority(self, seat: int, card: str) -> None:
        """I2: ``seat`` knows ``card``'s priority."""
        known = self.know_priority[seat]
        if card not in known:
            self.know_priority[seat] = known | {card}
