"""Greedy plus one habit: each bot is registered, plays legally from its view, and shows its habit
against plain greedy on the same deals."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from triage.bots import make_bot
from triage.bots.habits import HABIT_BOTS
from triage.engine import Game, view

DEALS = 6


def play(bots: list[str], seed: int) -> tuple[Game, list[Counter]]:
    """Play one game; per seat, how often each (action type, detail) was chosen."""
    game = Game.new(players=len(bots), seed=seed)
    players = [make_bot(name) for name in bots]
    rng = random.Random(seed)
    chosen = [Counter() for _ in bots]
    while game.turn is not None:
        seat = game.turn
        legal = game.legal_actions()
        action = players[seat].choose(view(game, seat), legal, rng)
        assert action in legal
        detail = action.get("item") or action.get("draw_all")
        chosen[seat][(action["type"], detail)] += 1
        game.apply(action)
    return game, chosen


def totals(habit: str) -> tuple[Counter, Counter]:
    """What the habit bot and greedy chose over the same deals, each from both seats."""
    mine, theirs = Counter(), Counter()
    for seed in range(DEALS):
        for seats in ([habit, "greedy"], ["greedy", habit]):
            _, chosen = play(seats, seed)
            mine.update(chosen[seats.index(habit)])
            theirs.update(chosen[seats.index("greedy")])
    return mine, theirs


HABIT_NAMES = [
    "greedy-farm",
    "greedy-noterminal",
    "greedy-market",
    "greedy-farm-noterminal",
    "greedy-farm-market",
    "greedy-noterminal-market",
]


@pytest.mark.parametrize("name", HABIT_NAMES)
def test_habit_bots_are_registered_by_name(name):
    assert name in HABIT_BOTS and make_bot(name).name == name


def test_farm_flies_for_draws_far_more_than_greedy():
    mine, theirs = totals("greedy-farm")
    assert mine[("helicopter", True)] >= 2 * max(1, theirs[("helicopter", True)])


def test_noterminal_never_treats_a_terminal_patient():
    mine, theirs = totals("greedy-noterminal")
    assert mine[("treat", None)] == 0 < theirs[("treat", None)]


def test_market_rushes_staff_clinic_and_trial():
    mine, theirs = totals("greedy-market")
    rush = ("staff", "clinical_trial", "outpatient_clinic")
    assert sum(mine[("buy", item)] for item in rush) > 1.5 * sum(theirs[("buy", item)] for item in rush)


def test_a_pair_of_habits_keeps_both():
    """farm + noterminal: flies for draws like farm, never treats a terminal like noterminal."""
    mine, theirs = totals("greedy-farm-noterminal")
    assert mine[("treat", None)] == 0 < theirs[("treat", None)]
    assert mine[("helicopter", True)] >= 1.5 * max(1, theirs[("helicopter", True)])


def test_market_pairs_rush_the_market_and_keep_their_other_habit():
    rush = ("staff", "clinical_trial", "outpatient_clinic")
    for name in ("greedy-farm-market", "greedy-noterminal-market"):
        mine, theirs = totals(name)
        assert sum(mine[("buy", item)] for item in rush) > 1.5 * sum(theirs[("buy", item)] for item in rush)
    mine, _ = totals("greedy-noterminal-market")
    assert mine[("treat", None)] == 0
