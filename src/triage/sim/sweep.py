"""``triage sweep``: one simulation per value of one or two configuration keys, on the same deals,
with one table and one plot of each outcome against the value (issue 41, point 4); and the
sample-size planner that reads a pilot run (``triage plan``).

Every point of the grid plays the same master seed, so its deals are the same cards at every
value: a difference between two values is paired deal by deal (``triage report --compare`` on
two of the files the sweep writes gives those paired differences with their intervals).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from typing import Any, TypedDict

import pandas as pd

from triage.sim import balance
from triage.sim.games import BOUGHT, market_items


@dataclass(frozen=True)
class Axis:
    """One configuration key and the values a sweep takes it through, as ``--set`` texts."""

    key: str
    values: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Axis:
        """``market.staff.price=3,4,5,6`` (a list value keeps its brackets: ``seat_vp.4=[0,0,0,1],[0,0,0,2]``).

        >>> Axis.parse("market.staff.price=3,4,5")
        Axis(key='market.staff.price', values=('3', '4', '5'))
        >>> Axis.parse("seat_vp.4=[0,0,0,1],[0,0,0,2]").values
        ('[0,0,0,1]', '[0,0,0,2]')
        """
        key, equals, raw = text.partition("=")
        if not equals or not key.strip() or not raw.strip():
            raise ValueError(
                f"--over {text!r}: expected key=value,value,... such as market.staff.price=3,4,5"
            )
        values, depth, current = [], 0, ""
        for character in raw:
            depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(character, 0)
            if character == "," and depth == 0:
                values.append(current.strip())
                current = ""
            else:
                current += character
        values.append(current.strip())
        if any(not value for value in values):
            raise ValueError(f"--over {text!r}: an empty value in the list")
        return cls(key.strip(), tuple(values))


def grid(axes: list[Axis]) -> list[tuple[str, ...]]:
    """Every point of the grid, as its ``--set`` texts (the first axis varies slowest)."""
    return [
        tuple(f"{axis.key}={value}" for axis, value in zip(axes, point))
        for point in product(*(axis.values for axis in axes))
    ]


def point_label(point: tuple[str, ...]) -> str:
    """A grid point as a file-name-safe label: ``market.staff.price=4``."""
    return ",".join(point).replace("/", "_").replace(" ", "")


class Outcome(TypedDict):
    """One outcome of a run: its value, the half-width of its 95% interval clustered by deal and
    the deals it rests on."""

    outcome: str
    value: float
    ci95: float
    deals: int


def outcomes(players: pd.DataFrame) -> list[Outcome]:
    """A run's outcomes, each with its 95% interval clustered by deal and the deals it rests on:
    every seat's win rate and mean score, each market item bought per player-game, deaths and
    cures per player-game, rounds played."""
    clusters = balance.cluster_series(players)
    found: list[Outcome] = []

    def add(name: str, values: pd.Series, groups: pd.Series) -> None:
        mean, half = balance.clustered_mean(values, groups)
        found.append({"outcome": name, "value": mean, "ci95": half, "deals": balance.cluster_count(groups)})

    for seat, group in players.groupby("seat", sort=True):
        add(f"seat {seat} win rate", group["won"].astype(float), clusters[group.index])
    for seat, group in players.groupby("seat", sort=True):
        add(f"seat {seat} mean score", group["score"].astype(float), clusters[group.index])
    for item in market_items(players.columns):
        add(f"{item} bought / player-game", players[BOUGHT + item].astype(float), clusters)
        add(f"{item}: share of player-games buying", (players[BOUGHT + item] > 0).astype(float), clusters)
    add("deaths / player-game", balance.fate_total(players, "died").astype(float), clusters)
    add("cures / player-game", balance.fate_total(players, "cured").astype(float), clusters)
    games = players.groupby("game").first()
    add("rounds played", games["rounds"].astype(float), balance.cluster_series(games.reset_index()))
    return found


def sweep_table(points: list[tuple[tuple[str, ...], pd.DataFrame]]) -> pd.DataFrame:
    """One row per grid point and outcome: the point's values (one column per key), the outcome,
    its value, 95% half-width and deals."""
    rows = []
    for point, players in points:
        values = dict(text.split("=", 1) for text in point)
        rows += [{**values, **found} for found in outcomes(players)]
    return pd.DataFrame(rows)


def sweep_plots(table: pd.DataFrame, keys: list[str]) -> Iterator[tuple[str, Any]]:
    """One figure per outcome: the outcome against the first key with its 95% intervals, one line
    per value of the second key when there is one."""
    import matplotlib.pyplot as plt

    for name, rows in table.groupby("outcome", sort=False):
        figure, axis = plt.subplots(figsize=(4.2, 3.0))
        lines = rows.groupby(keys[1], sort=False) if len(keys) > 1 else [(None, rows)]
        for second, line in lines:
            label = None if second is None else f"{keys[1]}={second!s}"
            axis.errorbar(
                line[keys[0]].astype(str),
                line["value"],
                yerr=line["ci95"].fillna(0),
                capsize=4,
                marker="o",
                label=label,
            )
        axis.set(title=str(name), xlabel=keys[0])
        if len(keys) > 1:
            axis.legend(fontsize="small")
        yield str(name), figure


# ---------------------------------------------------------------------- planning


def deals_needed(half: float, deals: int, within: float) -> float:
    """Deals for a 95% half-width of ``within``, from a pilot's half-width ``half`` on ``deals``
    deals (a half-width shrinks as one over the square root of the deals).

    >>> deals_needed(0.04, 100, 0.02)
    400.0
    """
    if math.isnan(half) or half <= 0 or deals < 2:
        return math.nan
    return float(math.ceil(deals * (half / within) ** 2))


def plan_table(players: pd.DataFrame, within: float, seconds_per_deal: float | None) -> pd.DataFrame:
    """For each outcome of a pilot run: its value and half-width now, the deals a half-width of
    ``within`` needs, and (when the pilot's times are known) the CPU time they would take."""
    rows = []
    for found in outcomes(players):
        needed = deals_needed(found["ci95"], found["deals"], within)
        rows.append(
            found
            | {
                "deals needed": needed,
                "CPU hours": needed * seconds_per_deal / 3600
                if seconds_per_deal and not math.isnan(needed)
                else math.nan,
            }
        )
    return pd.DataFrame(rows)
