"""The observation is sufficient: it holds everything a seat may know (rules.md I1-I4) and no more.

Each test takes a position and a copy of it whose card backs differ in one place (two cards
trade backs, the ``swapped`` helper). If the seat knows one of the traded backs (it sits in the
discard pile, at a known deck position, in the deck after a reshuffle...) the two vectors must
differ; if the seat knows neither, they must be equal.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from triage.engine import Game, make_config, view
from triage.engine.memory import learn_full
from triage.engine.observer import FRONT, FULL, Seat
from triage.envs import Table
from triage.envs.encoding import DECK_PEEK, Layout

SEAT = 0


def swapped(game: Game, first: str, second: str) -> Game:
    """A copy of ``game`` where two cards trade backs (and nothing else changes)."""
    other = game.copy()
    cards = dict(game.cards)
    cards[first], cards[second] = game.cards[second].with_id(first), game.cards[first].with_id(second)
    other.cards = cards
    other.deck_key = None
    other.machinery.derived = {}
    return other


def find_position(options: dict[str, object], players: int, wanted: Callable[[Game], bool]) -> Game:
    """The first position of seeded random games where ``wanted`` holds."""
    config = make_config(options)
    for seed in range(200):
        table = Table.deal(players=players, seed=seed, config=config)
        rng = random.Random(seed)
        while not table.game.is_over():
            if wanted(table.game):
                return table.game
            seat = table.game.turn
            table.play(seat, rng.choice(table.legal_ids(seat)))
    raise AssertionError("no such position in 200 games")


def observe(game: Game, seat: int = SEAT) -> np.ndarray:
    """The vector from the game, after checking it equals the view's."""
    layout = Layout.from_view(view(game, seat))
    vector = layout.observe_game(game, seat)
    assert np.array_equal(vector, layout.observe(view(game, seat)))
    return vector


def unseen_in_deck(game: Game) -> list[str]:
    seen = Seat(game, SEAT).fronts_seen()
    return [card for card in game.deck if card not in seen]


def partner(game: Game, card: str, candidates: list[str], same_front: bool) -> str | None:
    """A candidate with a different back, and the same front (kind and diagnosis) if asked."""
    spec = game.cards[card]
    for other in candidates:
        other_spec = game.cards[other]
        if other == card or other_spec.back() == spec.back():
            continue
        if not same_front or (other_spec.front, other_spec.diagnosis) == (spec.front, spec.diagnosis):
            return other
    return None


def known_fully(game: Game, card: str) -> bool:
    return Seat(game, SEAT).level(card) == FULL


def test_the_discard_piles_composition_is_observed() -> None:
    """V1 ``discard``: a card the seat knows in the discard pile (same count, other back)."""

    def wanted(game: Game) -> bool:
        return any(
            known_fully(game, card) and partner(game, card, unseen_in_deck(game), False)
            for card in game.discard
        )

    game = find_position({"return_to": "discard"}, 2, wanted)
    card = next(card for card in game.discard if known_fully(game, card))
    other = partner(game, card, unseen_in_deck(game), False)
    assert other is not None
    assert not np.array_equal(observe(game), observe(swapped(game, card, other)))


def test_an_unknown_card_in_the_discard_pile_trades_backs_unnoticed() -> None:
    """A rejected standard patient's back was never shown: trading it for an unseen deck card
    with the same front changes nothing the seat can see."""

    def pair(game: Game) -> tuple[str, str] | None:
        for card in game.discard:
            if Seat(game, SEAT).level(card) == FRONT and card not in Seat(game, SEAT).cleared():
                other = partner(game, card, unseen_in_deck(game), True)
                if other is not None:
                    return card, other
        return None

    game = find_position({"return_to": "discard"}, 2, lambda game: pair(game) is not None)
    card, other = pair(game) or ("", "")
    assert np.array_equal(observe(game), observe(swapped(game, card, other)))


def deep_known(game: Game) -> list[str]:
    """Fully known deck cards at a known position below the observation's card-by-card peek."""
    return [
        card
        for position, card in Seat(game, SEAT).deck_known_positions()
        if position >= DECK_PEEK and known_fully(game, card)
    ]


def test_every_known_deck_position_is_observed() -> None:
    """V1 ``bottom``: cured patients go under the deck at a known position (I3), deep below
    the top four."""
    game = find_position(
        {"return_to": "bottom"},
        2,
        lambda game: any(partner(game, card, unseen_in_deck(game), False) for card in deep_known(game)),
    )
    card = next(card for card in deep_known(game) if partner(game, card, unseen_in_deck(game), False))
    other = partner(game, card, unseen_in_deck(game), False)
    assert other is not None
    assert not np.array_equal(observe(game), observe(swapped(game, card, other)))


def test_two_unseen_deck_cards_trade_backs_unnoticed() -> None:
    game = find_position({}, 2, lambda game: game.round >= 2)
    unseen = unseen_in_deck(game)
    other = partner(game, unseen[0], unseen[1:], False)
    assert other is not None
    assert np.array_equal(observe(game), observe(swapped(game, unseen[0], other)))


def test_the_deck_composition_after_a_reshuffle_is_observed() -> None:
    """After a reshuffle (V1 ``discard``) no deck position is known, but every deck card has
    been seen: which backs the deck holds is the seat's to count."""

    def hidden_elsewhere(game: Game) -> list[str]:
        """Cards in an opponent's hospital whose back the seat does not know."""
        return [
            slot.card
            for seat, player in enumerate(game.players)
            if seat != SEAT
            for slot in player.hospital
            if slot is not None and Seat(game, SEAT).level(slot.card) == FRONT
        ]

    def pair(game: Game) -> tuple[str, str] | None:
        if len(Seat(game, SEAT).fronts_seen()) < len(game.cards):
            return None
        known = {card for _, card in Seat(game, SEAT).deck_known_positions()}
        for card in game.deck:
            if card not in known and known_fully(game, card):
                other = partner(game, card, hidden_elsewhere(game), True)
                if other is not None:
                    return card, other
        return None

    game = find_position({"return_to": "discard", "rounds": 12}, 2, lambda game: pair(game) is not None)
    card, other = pair(game) or ("", "")
    assert not np.array_equal(observe(game), observe(swapped(game, card, other)))


def test_who_saw_a_checked_patient_is_observed() -> None:
    """C3: the owner of a checked patient learns nothing of its back, but knows the others saw
    it; that knowledge is public (I2) and in the vector."""

    def unknown_to_opponent(game: Game) -> list[str]:
        return [
            slot.card
            for slot in game.players[SEAT].hospital
            if slot is not None and Seat(game, 1).level(slot.card) != FULL
        ]

    game = find_position({}, 2, lambda game: bool(unknown_to_opponent(game)))
    checked = game.copy()
    learn_full(checked, 1, unknown_to_opponent(game)[0])
    assert not np.array_equal(observe(game), observe(checked))


def test_another_players_public_state_is_observed() -> None:
    game = find_position({}, 3, lambda game: game.round >= 2)
    richer = game.copy()  # a copy has its own boards
    richer.players[2].credits += 1
    assert not np.array_equal(observe(game), observe(richer))


def test_the_deck_order_names_each_known_position_by_class() -> None:
    """``deck_order[p]`` is 0 at unknown positions and 1 + the card's class at known ones."""
    game = find_position({"return_to": "bottom"}, 2, lambda game: bool(deep_known(game)))
    layout = Layout.from_view(view(game, SEAT))
    values = dict(zip(layout.feature_names(), observe(game).tolist()))
    known = dict(Seat(game, SEAT).deck_known_positions())
    assert values["deck.known_positions"] == len(known)
    for position in range(len(game.deck)):
        code = values[f"deck_order[{position}]"]
        assert (code == 0) == (position not in known)
        if position in known:
            name = layout.census.classes[int(code) - 1]
            back = game.cards[known[position]].back()
            if known_fully(game, known[position]):
                assert name.startswith(f"back:{back[0]}/")
    assert values["deck.unseen"] == len(unseen_in_deck(game))
