"""The one place that decides what a seat may know (rules.md section 6: I1-I4, and C3's checks).

A :class:`Seat` is a game seen by one player (``viewer`` a seat number) or by a spectator
(``viewer`` None: only what every player knows, so watching a table never helps one of its
players). Every shell asks it, never the game: the view (:mod:`triage.engine.views`), the event
and record filters, the observation encoding of ``envs``, the bots' and the playout policy's
questions ("is this patient's kind known?", "what does it still need?"). Nothing else reads the
players' knowledge, the deck's hidden order or an event's secret part; a test holds the rest of
the code to that.

>>> from triage.engine import Game
>>> game = Game.new(players=2, seed=1)
>>> seat = Seat(game, 0)
>>> card = game.players[0].pending[0]
>>> seat.card(card)["front"] == game.cards[card].front
True
>>> Seat(game, None).viewer is None
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from triage.engine.shapes import CardShown
from triage.engine.vocabulary import KIND, STANDARD_FRONT

if TYPE_CHECKING:  # the game imports nothing from here; the observer reads the game
    from triage.engine.game import Event, Game
    from triage.engine.state import Patient

#: How much a seat knows of one card: its front only, its priority (and kind), or its whole back.
FRONT, PRIORITY, FULL = 0, 1, 2


class Seat:
    """What ``viewer`` (a seat, or None for a spectator) knows of ``game`` now.

    ``full`` and ``priority`` are the cards whose treatment side, or whose priority only, the
    viewer knows (I2); they are the game's own frozen sets for a seat, so a seat's knowledge can
    key caches by identity. A Seat is a snapshot: ask a new one after the game moves on."""

    __slots__ = ("full", "game", "priority", "viewer")

    def __init__(self, game: Game, viewer: int | None) -> None:
        self.game = game
        self.viewer = viewer
        if viewer is None:
            self.full = frozenset.intersection(*game.know_full)
            at_least_priority = frozenset.intersection(
                *(known | prio for known, prio in zip(game.know_full, game.know_priority))
            )
            self.priority = at_least_priority - self.full
        else:
            self.full = game.know_full[viewer]
            self.priority = game.know_priority[viewer]

    # ------------------------------------------------------------------ one card

    def level(self, card: str) -> int:
        """:data:`FULL`, :data:`PRIORITY` or :data:`FRONT`: how much the viewer knows (I2)."""
        return FULL if card in self.full else PRIORITY if card in self.priority else FRONT

    def kind_of(self, card: str) -> str | None:
        """The card's kind as the viewer knows it: a critical or terminal front shows it (K2),
        a standard one only from memory (I2); None while unknown."""
        spec = self.game.cards[card]
        if spec.front != STANDARD_FRONT or card in self.full or card in self.priority:
            return spec.kind
        return None

    def need(self, patient: Patient) -> int | None:
        """The healing ``patient`` still needs (T2; a chronic one's difficulty is its Time, T3),
        or None while the viewer does not know its difficulty."""
        card = patient.card
        spec = self.game.cards[card]
        if spec.healing is None:  # chronic: the difficulty is the Time, once the kind is known
            known = patient.revealed or card in self.full or card in self.priority
        else:  # a revealed or admitted critical patient shows it (T1, A7), else memory (I2)
            known = patient.revealed or card in self.full
        return max(0, spec.difficulty(patient.time) - patient.placed) if known else None

    def difficulty(self, card: str) -> int | None:
        """The healing difficulty printed on ``card``'s back (T2) if the viewer knows the back
        (I2), else None (a chronic patient's is its Time: :meth:`need`)."""
        return self.game.cards[card].healing if card in self.full else None

    def is_not_severe(self, card: str) -> bool:
        """I4: the card survived a check, so everyone knows it is not severe."""
        return card in self.game.not_severe

    def card(self, card: str, time: int | None = None) -> CardShown:
        """``card`` as the viewer sees it: the front always, back fields only where known (I1,
        I2). ``time`` is the patient's Time when it lies in a hospital (a chronic patient's
        healing difficulty, T3)."""
        return card_at_level(self.game, card, self.level(card), time)

    # ------------------------------------------------------------------ the table's memory

    def fronts_seen(self) -> frozenset[str]:
        """I1: every card whose front has been public at some moment."""
        return self.game.seen_fronts

    def cleared(self) -> set[str]:
        """I4: the cards publicly known not to be severe."""
        return self.game.not_severe

    def knowledge(self) -> list[tuple[frozenset[str], frozenset[str]]]:
        """Per seat, which cards it knows fully and by priority: public, since everyone saw
        who was shown what (I2)."""
        return list(zip(self.game.know_full, self.game.know_priority))

    # ------------------------------------------------------------------ the deck

    def deck_count(self) -> int:
        """How many cards the deck holds (public)."""
        return len(self.game.deck)

    def deck_top(self) -> str | None:
        """I3: the top card of the deck is always seen."""
        deck = self.game.deck
        return deck[0] if deck else None

    def deck_known(self) -> list[str | None]:
        """I3: the deck from the top, each position's card where public events fixed it, None
        elsewhere (a few of some thirty)."""
        deck = self.game.deck
        known: list[str | None] = [None] * len(deck)
        index = deck.index
        for card in self.game.known_positions:
            known[index(card)] = card
        return known

    def deck_known_positions(self) -> list[tuple[int, str]]:
        """I3: (position from the top, card) of every deck position public events fixed. They
        lie at the top (the top card, cards put on top) and at the bottom (cards put under), so
        both ends are walked; the whole deck only if some known card lies elsewhere."""
        deck, known = self.game.deck, self.game.known_positions
        found: list[tuple[int, str]] = []
        for top, card in enumerate(deck):
            if card not in known:
                break
            found.append((top, card))
        if len(found) < len(known):
            lowest = found[-1][0] if found else -1  # the end of the known run at the top
            bottom = len(deck) - 1
            while bottom > lowest and deck[bottom] in known:
                found.append((bottom, deck[bottom]))
                bottom -= 1
            if len(found) < len(known):
                found = [(at, card) for at, card in enumerate(deck) if card in known]
        return found

    def deck_seen(self) -> frozenset[str] | set[str]:
        """The deck's cards whose fronts the viewer has seen (I1): everyone saw them go there.
        Before the first reshuffle (V1) they are the known positions; a reshuffle happens only
        once every card was drawn, after which every deck card has been seen."""
        game = self.game
        if len(game.seen_fronts) == len(game.cards):
            return frozenset(game.deck)
        return game.known_positions

    def full_by_seat(self) -> tuple[frozenset[str], ...]:
        """Every seat's fully known cards (public, I2: after a check, C3, the owner knows who saw
        its patient), as the game's own frozen sets, which also key caches by identity."""
        return tuple(self.game.know_full)

    # ------------------------------------------------------------------ events

    def event(self, event: Event) -> Event:
        """``event`` as the viewer may see it (:func:`event_for`)."""
        return event_for(event, self.viewer)

    def events(self, events: list[Event]) -> list[Event]:
        return events_for(events, self.viewer)


def card_at_level(game: Game, card: str, level: int, time: int | None = None) -> CardShown:
    """``card`` as seen by someone who knows it to ``level`` (:meth:`Seat.level`)."""
    spec = game.cards[card]
    data: CardShown = {"card": card, "front": spec.front, "diagnosis": spec.diagnosis}
    if level == FULL:
        data["kind"] = spec.kind
        data["priority"] = spec.priority
        data["healing"] = spec.healing if spec.healing is not None else time
        data["credits"] = spec.credits
        data["vp"] = spec.vp
    elif level == PRIORITY:
        data["kind"] = spec.kind
        data["priority"] = spec.priority
        if not KIND[spec.kind].printed_healing and time is not None:  # T3: a chronic patient's Time
            data["healing"] = time
    elif spec.front != STANDARD_FRONT:
        # K2: a critical or terminal front shows the kind and the priority.
        data["kind"] = spec.kind
        data["priority"] = spec.priority
    return data


# ---------------------------------------------------------------------- events


def secret_audience(event: Event) -> list[int]:
    """Who sees an event's secret part. C3: a checked patient's treatment side is shown to the
    other players; solo, its owner learns the priority only."""
    if event["type"] == "checked":
        return event["seen_by"] or [event["player"]]
    return []


def event_for(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` may see it (None: a spectator): its secret part only if it was
    shown to them."""
    secret = event.get("secret")
    if secret is None:
        return event
    if viewer is not None and viewer in secret_audience(event):
        return whole_event(event)
    shown = event.copy()
    del shown["secret"]
    return shown


def whole_event(event: Event) -> Event:
    """The event with its secret part shown: as its audience sees it, and as everyone may once
    the game is over (its whole record is public then)."""
    secret = event.get("secret")
    if secret is None:
        return event
    shown = event.copy()
    del shown["secret"]
    return cast("Event", {**shown, **secret})  # the secret's keys are the event's (C3)


def events_for(events: list[Event], viewer: int | None) -> list[Event]:
    """Each event as ``viewer`` may see it (None: a spectator)."""
    return [event_for(event, viewer) for event in events]


def has_secret(event: Event) -> bool:
    """Whether ``event`` holds a part some viewers do not see (C3): an undo never crosses it."""
    return event.get("secret") is not None


def public_event(event: Event) -> Event:
    """The event as a spectator sees it."""
    return event_for(event, None)
