"""The proven bound on a whole game's actions (:mod:`triage.engine.length`, T1-T9, R1, R2): it
holds over games played to make them long, it counts start holdings, Income, Staff and flights,
it reads a designer's market item by what it gives, and a game it cannot bound is named with its
rule ids. The web refuses a table whose bound passes its action cap (tests/web/test_web_game_length.py).
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from triage.engine import Game, make_config
from triage.engine.cards import CardSpec, load_standard_deck
from triage.engine.choices import action_choices, sample
from triage.engine.config import Config
from triage.engine.length import Unbounded, length_bound

#: The issue's deck (issue 40, point 2): 40 non-severe cards, no diagnosis, healing 1, 10 Credits.
CHEAP_DECK = [
    CardSpec(f"N{number}", "non_severe", diagnosis=0, healing=1, credits=10) for number in range(40)
]


def played_length(config: Config, deck: list[CardSpec], players: int, seed: int) -> int:
    """The actions of a game played at random, taking a purchase or a flight that draws half the
    time one is open (the play that makes games long)."""
    game = Game.new(players=players, deck=deck, seed=seed, config=config)
    rng = random.Random(seed)
    while not game.is_over():
        seat = game.turn
        assert seat is not None
        choices = action_choices(game, seat)
        busy = [choice for choice in choices if choice["type"] in ("buy", "helicopter")]
        choice = rng.choice(busy if busy and rng.random() < 0.5 else choices)
        action = {"type": "helicopter", "remove": None, "draw_all": True}
        game.apply(action if choice["type"] == "helicopter" else sample(choice, rng), seat)
    return len(game.history)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_standard_games_bound_holds_over_long_played_games(players: int) -> None:
    config, deck = make_config(), load_standard_deck()
    bound = length_bound(config, deck, players)
    longest = max(played_length(config, deck, players, seed) for seed in range(6))
    assert longest < bound.actions < 5 * 1000
    assert bound.draws >= config.rounds * config.arrivals  # R2: every round's arrivals at least


def test_more_income_start_holdings_and_rounds_make_a_longer_bound() -> None:
    """Income, the start holdings and the rounds count (issue 40: the old check left them out)."""
    config, deck = make_config(), load_standard_deck()
    base = length_bound(config, deck, 2).actions
    richer = make_config(
        {"income": {"diagnostics": 6, "healing": 6}, "start": {"credits": 30, "staff": 5, "helicopters": 5}}
    )
    assert length_bound(richer, deck, 2).actions > base
    assert length_bound(dataclasses.replace(config, rounds=10, rounds_by_players={}), deck, 2).actions > base


def test_the_issues_configuration_cannot_be_bounded_and_says_why() -> None:
    """One player, Helicopters at 1 Credit, the rest at 10, income 6/6, start holdings at the
    web's maxima: each flight loses a Credit (so the engine deals it, T7, T8) but Staff and
    Income fund flights without end: no bound, and the reason names its rules."""
    config = make_config(
        {
            "rounds": 12,
            "income": {"diagnostics": 6, "healing": 6},
            "start": {
                "credits": 30,
                "diagnostics": 10,
                "healing": 10,
                "staff": 5,
                "congress": 5,
                "helicopters": 5,
            },
            "market": {
                "helicopter": {"price": 1},
                "healing": {"price": 10},
                "congress": {"price": 10},
                "staff": {"price": 10},
            },
        }
    )
    Game.new(players=1, deck=CHEAP_DECK, seed=1, config=config)  # the engine itself deals it
    with pytest.raises(Unbounded, match=r"flights can pay for themselves.*\(T6, T7, T8, R2\)"):
        length_bound(config, CHEAP_DECK, 1)


def test_a_designers_item_is_read_by_what_it_gives() -> None:
    """An item the vocabulary does not know, giving Helicopters cheaply, lengthens the bound as
    the market's own would (T7, T8): the argument reads ``gives``, never an item's name."""
    deck = load_standard_deck()
    plain = length_bound(make_config(), deck, 2)
    airlift = make_config(
        {"market": {"airlift": {"price": 4, "gives": {"helicopters": 2, "spaces": 1}, "limit": 4}}}
    )
    with_item = length_bound(airlift, deck, 2)
    assert with_item.flights > plain.flights and with_item.actions > plain.actions
