"""The balance figures on results small enough to check by hand."""

from __future__ import annotations

import math

import pandas as pd

from triage.sim import balance
from triage.sim.games import FATES, KINDS, kind_column


def rows(*players: dict) -> pd.DataFrame:
    blank = {kind_column(fate, kind): 0 for fate in FATES for kind in KINDS}
    return pd.DataFrame([{**blank, **player} for player in players])


# Two games of two players: seat 0 wins both; 3 severe arrivals, 1 cured; 2 critical, both cured.
RESULTS = rows(
    {
        "game": 0,
        "seat": 0,
        "won": True,
        "drawn_severe": 2,
        "cured_severe": 1,
        "died_severe": 1,
        "admitted_severe": 2,
    },
    {"game": 0, "seat": 1, "won": False, "drawn_critical": 2, "cured_critical": 2, "admitted_critical": 2},
    {"game": 1, "seat": 0, "won": True, "drawn_severe": 1, "rejected_severe": 1, "died_terminal": 3},
    {"game": 1, "seat": 1, "won": False},
)


def test_first_player_advantage_is_in_percentage_points():
    assert balance.first_player_advantage(RESULTS) == 100
    assert math.isnan(balance.first_player_advantage(RESULTS[RESULTS.seat == 0]))


def test_rates_are_shares_of_arrivals():
    cured = balance.rate_by_kind(RESULTS, "cured")
    assert cured["severe"] == 1 / 3 and cured["critical"] == 1
    assert math.isnan(cured["chronic"])  # never drawn


def test_deaths_per_player_per_game_count_every_kind():
    assert balance.deaths_per_player_game(RESULTS) == 4 / 4


def test_checks_flag_each_missed_target():
    checks = {check.name: check for check in balance.balance_checks(RESULTS)}
    assert not checks["first-player win-rate advantage (points)"].ok
    assert checks["deaths per player per game"].ok
    assert checks["cure rate of severe arrivals"].ok and checks["cure rate of critical arrivals"].ok
    assert not checks["cure rate of chronic arrivals"].ok
    assert (
        not checks["terminal patients admitted (total)"].ok and checks["severe patients admitted (total)"].ok
    )


def test_win_rate_by_seat_has_confidence_intervals():
    table = balance.win_rate_by_seat(RESULTS)
    assert list(table.win_rate) == [1.0, 0.0] and list(table.games) == [2, 2]
    assert list(table.ci95) == [0.0, 0.0]
