"""The deck and what the players know of the cards (I1-I3, V1): kept by the game, read only
by the observer (:mod:`triage.engine.observer`).

Functions over a :class:`~triage.engine.position.Position`: the only writers of the knowledge
fields (``know_full``, ``know_priority``, ``not_severe``, ``seen_fronts``, ``known_positions``).
"""

from __future__ import annotations

from triage.engine.position import Event, Position


def touch_top(game: Position) -> None:
    """I3: the top card of the deck is always seen."""
    if game.deck:
        top = game.deck[0]
        game.known_positions.add(top)
        if top not in game.seen_fronts:  # see_front written out: every draw and return
            game.seen_fronts = game.seen_fronts | {top}


def draw(game: Position, events: list[Event]) -> str | None:
    """Take the top card; an empty deck gives nothing (A1), or, with V1 ``discard``, is first
    rebuilt from the discard pile, shuffled from the game's generator."""
    if not game.deck:
        if not game.discard:
            return None
        game.deck = game.discard
        game.discard = []
        game.rng.shuffle(game.deck)
        game.known_positions.clear()
        touch_top(game)
        events.append({"type": "deck_reshuffled", "cards": len(game.deck)})
    card = game.deck.pop(0)
    game.known_positions.discard(card)
    touch_top(game)
    machinery = game.machinery  # the deck's stamp, inline: every draw takes one
    machinery.deck_stamp = next(machinery.count)
    return card


def put_under_deck(game: Position, card: str) -> None:
    """T7: a removed patient goes under the deck, where everyone saw it go (I3)."""
    game.deck.append(card)
    game.known_positions.add(card)
    touch_top(game)
    machinery = game.machinery  # the deck's stamp, inline: every draw takes one
    machinery.deck_stamp = next(machinery.count)


def return_card(game: Position, card: str, case: str) -> str:
    """V1: where a ``cured`` (T4), ``died`` (C4) or ``rejected`` (A5) patient goes."""
    where = game.config.return_place(case)
    if where == "top":
        game.deck.insert(0, card)
        game.known_positions.add(card)
    elif where == "bottom":
        game.deck.append(card)
        game.known_positions.add(card)
    else:
        game.discard.insert(0, card)
    see_front(game, card)
    touch_top(game)
    machinery = game.machinery  # the deck's stamp, inline: every draw takes one
    machinery.deck_stamp = next(machinery.count)
    return where


def reveal(game: Position, card: str) -> None:
    """A revealed treatment side is public (I1) and remembered by all (I2)."""
    for seat in range(len(game.players)):
        learn_full(game, seat, card)


def see_front(game: Position, card: str) -> None:
    """I1: ``card``'s front is public from now on."""
    if card not in game.seen_fronts:
        game.seen_fronts = game.seen_fronts | {card}


def learn_full(game: Position, seat: int, card: str) -> None:
    """I2: ``seat`` has seen ``card``'s treatment side."""
    known = game.know_full[seat]
    if card not in known:
        game.know_full[seat] = known | {card}


def learn_priority(game: Position, seat: int, card: str) -> None:
    """I2: ``seat`` knows ``card``'s priority."""
    known = game.know_priority[seat]
    if card not in known:
        game.know_priority[seat] = known | {card}


def learn_not_severe(game: Position, card: str) -> None:
    """I4: ``card`` survived a check, so everyone knows it is not severe."""
    game.not_severe.add(card)
    machinery = game.machinery  # the deck's stamp, inline: every draw takes one
    machinery.deck_stamp = next(machinery.count)


def restore_memory(
    game: Position,
    known_positions: set[str],
    seen_fronts: frozenset[str],
    not_severe: set[str],
    knowledge: list[tuple[frozenset[str], frozenset[str]]],
) -> None:
    """I1-I4 as a view records them, for a game drawn from that view (``determinize``): the
    deck positions fixed, the fronts seen, the cards known not severe, and per seat the cards
    known fully and by priority."""
    game.known_positions = known_positions
    game.seen_fronts = seen_fronts
    game.not_severe = not_severe
    game.know_full = [full for full, _ in knowledge]
    game.know_priority = [priority for _, priority in knowledge]
