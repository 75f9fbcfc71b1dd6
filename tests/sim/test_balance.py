"""The balance figures on results small enough to check by hand."""

from __future__ import annotations

import math

import pandas as pd

from triage.sim import balance
from triage.sim.games import ECONOMY, FATES, KINDS, kind_column


def rows(*players: dict) -> pd.DataFrame:
    blank = {kind_column(fate, kind): 0 for fate in FATES for kind in KINDS}
    blank.update(dict.fromkeys(ECONOMY, 0))
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


def test_clustered_interval_is_the_usual_one_for_independent_rows_and_wider_for_correlated():
    values = pd.Series([3.0, 0.0, 3.0, 3.0, 0.0, 3.0])  # counts, not shares: no small-sample floor
    mean, half = balance.clustered_mean(values, pd.Series(range(6)))
    # Six independent rows: Student's t with 5 degrees of freedom, not 1.96 (issue 41, point 3).
    assert mean == 2 and math.isclose(half, 2.571 * values.std(ddof=1) / math.sqrt(6))
    # Rows paired by deal that always agree: three independent deals, not six rows.
    paired, paired_half = balance.clustered_mean(values, pd.Series([0, 1, 0, 0, 1, 2]))
    mean_pairs = pd.Series([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    assert paired == 2 and paired_half > half
    assert math.isnan(balance.clustered_mean(mean_pairs, pd.Series([0] * 6))[1])  # one cluster


# Habit bot against greedy, two duplicate deals (each played in both seat orders).
DUPLICATE = rows(
    {
        "game": 0,
        "deal": 0,
        "seat": 0,
        "bot": "greedy-farm",
        "won": True,
        "margin": 4,
        "score": 30,
        "credits": 2,
    },
    {"game": 0, "deal": 0, "seat": 1, "bot": "greedy", "won": False, "margin": -4, "score": 26, "credits": 0},
    {"game": 1, "deal": 0, "seat": 0, "bot": "greedy", "won": False, "margin": -2, "score": 20, "credits": 0},
    {
        "game": 1,
        "deal": 0,
        "seat": 1,
        "bot": "greedy-farm",
        "won": True,
        "margin": 2,
        "score": 22,
        "credits": 4,
        "bought_helicopter": 1,
        "flights": 2,
        "flights_draw": 2,
    },
    {
        "game": 2,
        "deal": 1,
        "seat": 0,
        "bot": "greedy-farm",
        "won": False,
        "margin": -1,
        "score": 30,
        "credits": 0,
    },
    {"game": 2, "deal": 1, "seat": 1, "bot": "greedy", "won": True, "margin": 1, "score": 31, "credits": 0},
    {"game": 3, "deal": 1, "seat": 0, "bot": "greedy", "won": False, "margin": -3, "score": 28, "credits": 0},
    {
        "game": 3,
        "deal": 1,
        "seat": 1,
        "bot": "greedy-farm",
        "won": True,
        "margin": 3,
        "score": 31,
        "credits": 0,
    },
)


def test_bot_table_gives_win_rate_and_margin_per_bot():
    table = balance.bot_table(DUPLICATE).set_index("bot")
    assert table.loc["greedy-farm", "win rate"] == 0.75 and table.loc["greedy", "win rate"] == 0.25
    assert table.loc["greedy-farm", "margin"] == 2 and table.loc["greedy", "margin"] == -2
    assert table.loc["greedy", "deals"] == 2 and table.loc["greedy", "seats played"] == 4
    assert table.loc["greedy-farm", "unspent credits"] == 1.5
    assert table["win ci95"].gt(0).all()


def test_first_player_edge_is_per_game_with_an_interval():
    edge, half = balance.first_player_edge(DUPLICATE)
    assert edge == 100 * (1 / 4 - 3 / 4) == balance.first_player_advantage(DUPLICATE)
    assert half > 0


def test_purchase_table_counts_games_with_a_purchase_and_flights():
    table = balance.purchase_table(DUPLICATE).set_index("bot")
    assert table.loc["greedy-farm", "helicopter: share of games, any seat"] == 0.25
    assert table.loc["greedy-farm", "helicopter: share of player-games"] == 0.25
    assert table.loc["greedy-farm", "flights drawing / player-game"] == 0.5
    assert table.loc["greedy", "helicopter: share of games, any seat"] == 0


def test_a_habit_bot_winning_too_often_against_greedy_is_flagged():
    checks = {check.name: check for check in balance.bot_checks(DUPLICATE)}
    habit = checks["greedy-farm win rate against greedy"]
    assert habit.value == 0.75 and not habit.ok
    fair = DUPLICATE.assign(won=(DUPLICATE.bot == "greedy-farm") == (DUPLICATE.game < 2))  # 50%
    assert {check.name: check.ok for check in balance.bot_checks(fair)}["greedy-farm win rate against greedy"]


def test_the_market_target_applies_to_an_expert_only_run():
    experts = DUPLICATE.assign(bot="expert", bought_staff=1)
    checks = {check.name: check for check in balance.bot_checks(experts)}
    assert checks["games in which any expert seat buys staff"].ok
    assert checks["games in which any expert seat buys helicopter"].value == 0.25
    assert not checks["games in which any expert seat buys congress"].ok


def three_player_games(winners: list[int], bots: list[str] | None = None) -> pd.DataFrame:
    """One 3-player game per winner, seat ``winner`` winning, each game its own deal."""
    names = bots or ["expert"] * 3
    return rows(
        *(
            {"game": game, "deal": game, "seat": seat, "bot": names[seat], "won": seat == winner}
            for game, winner in enumerate(winners)
            for seat in range(3)
        )
    )


def test_an_expert_run_judges_every_seat_against_its_band():
    """3 players: each seat's win rate in 0.23-0.43 (EXPERT_SEAT_BANDS)."""
    checks = {check.name: check for check in balance.bot_checks(three_player_games([0, 1, 2] * 10 + [0] * 6))}
    assert {name for name in checks if "win rate" in name} == {
        f"expert in every seat: seat {seat} win rate" for seat in range(3)
    }
    assert checks["expert in every seat: seat 0 win rate"].value == 16 / 36
    assert not checks["expert in every seat: seat 0 win rate"].ok
    assert (
        checks["expert in every seat: seat 1 win rate"].ok
        and checks["expert in every seat: seat 1 win rate"].target == "0.23 <= x <= 0.43"
    )


def test_a_habit_at_three_players_is_judged_against_its_fair_share():
    """1.16 times a third: 0.387. A habit winning 40% of 3-player games is over it."""
    habit = ["greedy-farm", "greedy", "greedy"]
    checks = {
        check.name: check for check in balance.bot_checks(three_player_games([0, 0, 1, 2, 1] * 4, habit))
    }
    farm = checks["greedy-farm win rate against greedy"]
    assert farm.value == 0.4 and farm.target == "x <= 0.387" and not farm.ok
