"""The bounded legal-action form (triage.engine.choices) against the engine's own listing.

Over random games with varied holdings, at every decision: each action of
``game.legal_actions(seat)`` is allowed by exactly one choice, every action a choice allows is
legal (listed, and accepted by ``apply``), and seats whose decision it is not get no choice.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.engine import Game, make_config
from triage.engine.cards import CardSpec
from triage.engine.choices import action_choices, covers, default_pay, expand, sample

games = st.fixed_dictionaries(
    {
        "players": st.integers(1, 4),
        "seed": st.integers(0, 2**32),
        "return_to": st.sampled_from(["top", "bottom", "discard"]),
        "rounds": st.integers(1, 6),
        "arrivals": st.integers(1, 3),
        # Holdings that make several payment mixes possible (T6).
        "staff": st.integers(0, 3),
        "congress": st.integers(0, 3),
        "healing": st.integers(0, 4),
        "diagnostics": st.integers(0, 3),
        "credits": st.integers(0, 12),
        "helicopters": st.integers(0, 2),
        "helicopter_draws": st.sampled_from(["wait", "reopen"]),  # V2
        "terminal_upkeep": st.sampled_from(["death", "reward"]),  # V3
    }
)


def deal(spec: dict[str, Any]) -> Game:
    start = {
        key: spec[key] for key in ("staff", "congress", "healing", "diagnostics", "credits", "helicopters")
    }
    variants = {
        key: spec[key] for key in ("return_to", "rounds", "arrivals", "helicopter_draws", "terminal_upkeep")
    }
    config = make_config({**variants, "start": start})
    return Game.new(players=spec["players"], seed=spec["seed"], config=config)


def key(action: dict[str, Any]) -> str:
    return json.dumps(action, sort_keys=True)


def check_choices_match_legal_actions(game: Game) -> None:
    for seat in range(game.num_players):
        legal = game.legal_actions(seat)
        choices = action_choices(game, seat)
        if seat != game.turn:
            assert choices == [] and legal == []
            continue
        json.dumps(choices)  # plain JSON data
        for action in legal:
            covering = [choice for choice in choices if covers(choice, action)]
            assert len(covering) == 1, f"{action} is covered by {covering}"
        listed = {key(action) for action in legal}
        allowed: list[dict[str, Any]] = []
        for choice in choices:
            expanded = list(expand(choice))
            assert expanded, f"{choice} allows nothing"
            for action in expanded:
                assert covers(choice, action), f"{choice} does not cover its own {action}"
            allowed += expanded
        assert {key(action) for action in allowed} == listed
        rng = random.Random(len(game.history))
        for choice in choices:
            for _ in range(3):
                drawn = sample(choice, rng)
                assert covers(choice, drawn) and key(drawn) in listed, (choice, drawn)
        assert len(allowed) == len(legal), "an action is allowed by two choices"
        for action in allowed:
            game.copy().apply(action, seat)
        for choice in choices:
            # The default pay the choice names is the engine's own (T6): applying without pay
            # spends it.
            if "default_pay" in choice:
                trial = game.copy()
                events = trial.apply({"type": choice["type"], "patient": choice["patient"]}, seat)
                paid = next(event["pay"] for event in events if event.get("card") == choice["patient"])
                assert paid == choice["default_pay"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=games, moves=st.integers(0, 2**32))
def test_every_legal_action_is_in_exactly_one_choice_over_random_games(
    spec: dict[str, Any], moves: int
) -> None:
    rng = random.Random(moves)
    game = deal(spec)
    while game.turn is not None:
        check_choices_match_legal_actions(game)
        # Play from the choices themselves, with random payments inside them.
        choice = rng.choice(action_choices(game, game.turn))
        game.apply(sample(choice, rng) if rng.random() < 0.5 else rng.choice(list(expand(choice))), game.turn)
    assert all(action_choices(game, seat) == [] for seat in range(game.num_players))


def test_a_choice_refuses_what_the_rules_refuse() -> None:
    budget = {"tokens": 2, "staff": 1, "congress": 0}
    heal = {
        "type": "heal",
        "patient": "P01",
        "amount": {"min": 1, "max": 3},
        "token": "healing",
        "budget": budget,
    }
    assert covers(heal, {"type": "heal", "patient": "P01", "amount": 3})
    assert covers(heal, {"type": "heal", "patient": "P01", "amount": 2, "pay": {"tokens": 1, "staff": 1}})
    refused = [
        {"type": "heal", "patient": "P01", "amount": 4},  # more than the most (T2)
        {"type": "heal", "patient": "P02", "amount": 1},  # another patient
        {"type": "heal", "patient": "P01", "amount": 2, "pay": {"tokens": 1}},  # pays 1 for 2 (T6)
        {"type": "heal", "patient": "P01", "amount": 1, "pay": {"congress": 1}},  # beyond the budget
        {"type": "heal", "patient": "P01", "amount": True},
        {"type": "diagnose", "patient": "P01"},
    ]
    for action in refused:
        assert not covers(heal, action), action
    helicopter = {"type": "helicopter", "remove": ["P01"], "draw_all": True}
    assert not covers(helicopter, {"type": "helicopter", "remove": None, "draw_all": False})  # T7
    assert not covers(helicopter, {"type": "helicopter", "remove": "P09", "draw_all": False})
    assert default_pay(4, budget) is None


def test_the_listing_grows_with_the_patients_not_with_the_holdings() -> None:
    """Holdings of 40 and a patient needing 40 healing: the engine's own listing has tens of
    thousands of payment mixes (it grows with the cube of the holdings); the bounded form has one
    heal entry per patient. (At 300 the engine's integer index of every mix held 8 GB: the
    cube is the point, shown here at a size a test process can hold.)"""
    start = {"staff": 40, "congress": 40, "healing": 40, "diagnostics": 40}
    deck = [CardSpec(f"C{number}", "critical", healing=40) for number in range(40)]
    game = Game.new(players=1, deck=deck, seed=1, config=make_config({"start": start}))
    while game.in_admission(0):
        game.apply(next(expand(action_choices(game, 0)[0])), 0)
    assert len(game.legal_actions(0)) > 20_000
    choices = action_choices(game, 0)
    heals = [choice for choice in choices if choice["type"] == "heal"]
    assert len(heals) == 2 and all(choice["amount"] == {"min": 1, "max": 40} for choice in heals)
    assert len(choices) < 20
    assert len(json.dumps(choices)) < 4000
