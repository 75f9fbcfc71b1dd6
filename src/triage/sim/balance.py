"""Balance figures from simulation results, and the targets the default deck must meet
(issue: simulate at scale, point 5).

Every figure is computed from the player rows (one per player per game) alone, so a result file
without its card rows still gives them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from triage.sim.games import KINDS, kind_column

#: Kinds that can be cured: a terminal patient never is (T5), it can only be treated each round.
CURABLE = ("critical", "severe", "chronic", "non_severe")


def kind_sums(players: pd.DataFrame, fate: str) -> pd.Series:
    """Total ``fate`` events over the whole run, by patient kind."""
    return pd.Series({kind: int(players[kind_column(fate, kind)].sum()) for kind in KINDS})


def per_player_game(players: pd.DataFrame, fate: str) -> pd.Series:
    """Mean ``fate`` events per player per game, by patient kind."""
    rows = max(len(players), 1)
    return kind_sums(players, fate) / rows


def rate_by_kind(players: pd.DataFrame, fate: str) -> pd.Series:
    """Share of arrivals (draws) of each kind that ended in ``fate`` (NaN for a kind never drawn)."""
    drawn = kind_sums(players, "drawn")
    return (kind_sums(players, fate) / drawn.where(drawn > 0)).astype(float)


def win_rate_by_seat(players: pd.DataFrame) -> pd.DataFrame:
    """Win rate of each seat, with the half-width of its 95% confidence interval."""
    grouped = players.groupby("seat")["won"]
    table = pd.DataFrame({"win_rate": grouped.mean(), "games": grouped.size()})
    table["ci95"] = 1.96 * (table.win_rate * (1 - table.win_rate) / table.games).pow(0.5)
    return table


def first_player_advantage(players: pd.DataFrame) -> float:
    """Win rate of seat 0 (first player of round 1, R1) minus the mean win rate of the other
    seats, in percentage points (NaN in a solo run)."""
    rates = players.groupby("seat")["won"].mean()
    if len(rates) < 2:
        return math.nan
    return float(100 * (rates.loc[0] - rates.drop(0).mean()))


def deaths_per_player_game(players: pd.DataFrame) -> float:
    return float(per_player_game(players, "died").sum())


@dataclass(frozen=True)
class Check:
    """One balance target and how the run measured against it."""

    name: str
    value: float
    target: str
    ok: bool


def balance_checks(players: pd.DataFrame) -> list[Check]:
    """The targets of issue point 5 on these results."""
    checks: list[Check] = []
    advantage = first_player_advantage(players)
    checks.append(
        Check("first-player win-rate advantage (points)", advantage, "|x| < 5", bool(abs(advantage) < 5))
    )
    deaths = deaths_per_player_game(players)
    checks.append(Check("deaths per player per game", deaths, "1 <= x <= 4", 1 <= deaths <= 4))
    cured = rate_by_kind(players, "cured")
    for kind in CURABLE:
        value = float(cured[kind])
        checks.append(Check(f"cure rate of {kind} arrivals", value, "x >= 0.30", bool(value >= 0.30)))
    admitted = kind_sums(players, "admitted")
    for kind in KINDS:
        checks.append(
            Check(
                f"{kind} patients admitted (total)", float(admitted[kind]), "x > 0", bool(admitted[kind] > 0)
            )
        )
    return checks


def summary(players: pd.DataFrame) -> dict[str, float]:
    """The headline figures of a run, for the report's comparison table."""
    games = players["game"].nunique()
    winners = players.groupby("game")["won"].any()
    figures: dict[str, float] = {
        "games": float(games),
        "first-player advantage (points)": first_player_advantage(players),
        "games without a winner (share)": float(1 - winners.mean()) if games else math.nan,
        "mean score": float(players["score"].mean()),
        "mean VP": float(players["vp"].mean()),
        "mean QoC at the end": float(players["quality"].mean()),
        "mean rounds played": float(players.groupby("game")["rounds"].first().mean()),
        "deaths per player per game": deaths_per_player_game(players),
        "rejections per player per game": float(per_player_game(players, "rejected").sum()),
        "cures per player per game": float(per_player_game(players, "cured").sum()),
    }
    for kind, rate in rate_by_kind(players, "cured").items():
        if kind in CURABLE:
            figures[f"cure rate: {kind}"] = float(rate)
    for kind, rate in rate_by_kind(players, "admitted").items():
        figures[f"admission rate: {kind}"] = float(rate)
    return figures
