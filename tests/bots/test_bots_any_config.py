"""Every built-in bot plays every accepted configuration and deck to the end (T6-T8, R4).

Random markets (free items under limits, items off the market, spaces without a limit), small
random decks and 1-4 players: no bot raises, every action a bot takes is one the listing offers,
and every expert playout takes only legal actions and ends (``play_out`` raises past its limit).
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.engine.test_bounded_rounds import market_item  # any price and limit accepted (T7, T8)
from triage.bots import BOTS, ExpertBot
from triage.bots.base import Bot
from triage.bots.greedy import greedy_action
from triage.engine import Game, make_config, view
from triage.engine.actions import action_to_id, legal_action_ids
from triage.engine.cards import CardSpec
from triage.engine.config import flight_profit_problem, make_config

#: The most actions a test game may take: far above what these small games need (a few hundred).
GAME_ACTIONS = 5_000

#: The default market's items (T8).
MARKET_ITEMS = tuple(make_config().market)


def checked_greedy(game: Game) -> dict[str, Any]:
    """The playout policy, checked: the engine's fast path trusts it (T8 limits included)."""
    action = greedy_action(game)
    assert action_to_id(game, action) in legal_action_ids(game), action
    return action


def small_bot(name: str) -> Bot:
    """``BOTS[name]``, with an expert level on a small budget and a checked playout policy."""
    factory = BOTS[name]
    if isinstance(factory, partial) and factory.func is ExpertBot:
        return ExpertBot(level=factory.keywords["level"], playouts=3, policy=checked_greedy)
    return factory()


market_items = st.fixed_dictionaries({name: market_item(name) for name in MARKET_ITEMS})
configs = st.fixed_dictionaries(
    {
        "rounds": st.integers(1, 3),
        "arrivals": st.integers(1, 3),
        "return_to": st.sampled_from(["top", "bottom", "discard"]),
        "helicopter_draws": st.sampled_from(["wait", "reopen"]),
        "terminal_upkeep": st.sampled_from(["death", "reward"]),
        "quality_floor": st.sampled_from([None, 0]),
        "start": st.fixed_dictionaries(
            {
                "credits": st.integers(0, 8),
                "helicopters": st.integers(0, 2),
                "congress": st.integers(0, 2),
                "staff": st.integers(0, 2),
            }
        ),
        "market": market_items,
    }
)


@st.composite
def decks(draw: st.DrawFn) -> list[CardSpec]:
    deck = []
    for index in range(draw(st.integers(3, 10))):
        kind = draw(st.sampled_from(["critical", "severe", "chronic", "non_severe", "terminal"]))
        diagnosis = draw(st.integers(0, 3)) if kind in ("severe", "chronic", "non_severe") else None
        healing = draw(st.integers(0, 4)) if kind in ("critical", "severe", "non_severe") else None
        deck.append(
            CardSpec(f"X{index}", kind, diagnosis, healing, draw(st.integers(0, 3)), draw(st.integers(0, 3)))
        )
    return deck


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(
    overrides=configs,
    deck=decks(),
    seats=st.lists(st.sampled_from(sorted(BOTS)), min_size=1, max_size=4),
    seed=st.integers(0, 2**16),
)
def test_every_bot_ends_every_accepted_game(
    overrides: dict[str, Any], deck: list[CardSpec], seats: list[str], seed: int
) -> None:
    config = make_config(overrides)
    assume(flight_profit_problem(config, deck, len(seats)) is None)
    game = Game.new(players=len(seats), deck=deck, seed=seed, config=config)
    bots = [small_bot(name) for name in seats]
    rngs = [random.Random(seed + seat) for seat in range(len(seats))]
    for _ in range(GAME_ACTIONS):
        seat = game.turn
        if seat is None:
            break
        legal = game.legal_actions()
        action = bots[seat].choose(view(game, seat), legal, rngs[seat])
        assert action in legal, (seats[seat], action)
        game.apply(action)
    assert game.is_over(), f"{seats} still in round {game.round} after {GAME_ACTIONS} actions"


def test_every_bot_is_covered() -> None:
    """The property above draws its seats from :data:`BOTS`: each one must make a small bot."""
    assert {small_bot(name).name.split("-")[0] for name in BOTS} >= {"random", "greedy", "expert"}


#: Free items under limits (the configurations that once crashed the greedy family and the
#: expert's playouts) and a small deck of every kind: a game of a few dozen actions.
FREE_MARKET = make_config(
    {
        "rounds": 2,
        "market": {
            "healing": {"price": 0, "limit": 2},
            "staff": {"price": 0, "limit": 2},
            "diagnostics": {"price": 0, "limit": 1},
            "helicopter": {"price": 8, "limit": None},
        },
    }
)
SMALL_DECK = [
    CardSpec("S0", "critical", None, 2, 1, 1),
    CardSpec("S1", "severe", 1, 2, 1, 2),
    CardSpec("S2", "chronic", 2, None, 1, 1),
    CardSpec("S3", "non_severe", 0, 1, 0, 0),
    CardSpec("S4", "terminal", None, None, 0, 2),
    CardSpec("S5", "severe", 3, 4, 1, 3),
]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("name", sorted(BOTS))
def test_each_bot_and_level_ends_a_free_market_game(name: str, players: int) -> None:
    """Every built-in bot and level, at every table size, whatever the draws above: the game
    ends within :data:`GAME_ACTIONS`, every action legal, every playout bounded."""
    assert flight_profit_problem(FREE_MARKET, SMALL_DECK, players) is None
    game = Game.new(players=players, deck=SMALL_DECK, seed=players, config=FREE_MARKET)
    bots = [small_bot(name) for _ in range(players)]
    rng = random.Random(players)
    for _ in range(GAME_ACTIONS):
        seat = game.turn
        if seat is None:
            break
        legal = game.legal_actions()
        action = bots[seat].choose(view(game, seat), legal, rng)
        assert action in legal, (name, action)
        game.apply(action)
    assert game.is_over(), f"{name} x{players} still in round {game.round} after {GAME_ACTIONS} actions"
