"""Balance figures from simulation results, and the targets the default deck must meet
(issue: simulate at scale, point 5).

Every figure is computed from the player rows (one per player per game) alone, so a result file
without its card rows still gives them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from triage.engine.config import MARKET_ITEMS
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


def _clusters(players: pd.DataFrame) -> pd.Series:
    """The unit of independence of each row: its deal (the games of a ``--duplicate`` deal share
    their cards, so they are not independent), else its game."""
    return players["deal"] if "deal" in players.columns else players["game"]


def clustered_mean(values: pd.Series, clusters: pd.Series) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% interval, with the variance summed
    over clusters (rows of one cluster may be correlated; clusters are independent). NaN
    half-width with fewer than two clusters."""
    values = values.astype(float)
    count = len(values)
    if count == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    sums = (values - mean).groupby(clusters.to_numpy()).sum()
    groups = len(sums)
    if groups < 2:
        return mean, math.nan
    variance = groups / (groups - 1) * float((sums**2).sum()) / count**2
    return mean, 1.96 * math.sqrt(variance)


def first_player_edge(players: pd.DataFrame) -> tuple[float, float]:
    """:func:`first_player_advantage` computed game by game, with its 95% interval (clustered by
    deal), in percentage points: per game, seat 0's win (0 or 1) minus the mean win of the others."""
    if players["seat"].nunique() < 2:
        return math.nan, math.nan
    deals = _clusters(players).groupby(players["game"]).first()  # one row per game, in game order
    first_seat = players["seat"] == 0
    first = players.loc[first_seat].groupby("game")["won"].mean().reindex(deals.index)
    others = players.loc[~first_seat].groupby("game")["won"].mean().reindex(deals.index)
    mean, half = clustered_mean((first - others) * 100, deals)
    return mean, half


def bot_table(players: pd.DataFrame) -> pd.DataFrame:
    """Per bot: seats played, win rate and mean score margin (score minus the best other score,
    R4), each with its 95% interval clustered by deal, mean score and unspent Credits. A full tie
    counts as no win (R4)."""
    rows = []
    clusters = _clusters(players)
    for bot, group in players.groupby("bot", sort=True):
        win, win_ci = clustered_mean(group["won"], clusters[group.index])
        margin, margin_ci = clustered_mean(group["margin"], clusters[group.index])
        rows.append(
            {
                "bot": bot,
                "seats played": len(group),
                "deals": clusters[group.index].nunique(),
                "win rate": win,
                "win ci95": win_ci,
                "margin": margin,
                "margin ci95": margin_ci,
                "mean score": float(group["score"].mean()),
                "unspent credits": float(group["credits"].mean()),
            }
        )
    return pd.DataFrame(rows)


#: Columns of the economy table besides purchases, and their names there.
FLIGHTS_AND_CREDITS = {
    "flights": "flights",
    "flights_remove": "flights removing",
    "flights_draw": "flights drawing",
    "credits_spent": "credits spent",
    "credits": "credits unspent",
}


def purchase_table(players: pd.DataFrame) -> pd.DataFrame:
    """Per bot and market item (T8): mean bought per seat-game and the share of games in which the
    bot (any seat it plays) bought at least one; then Helicopter flights (T7) and Credits."""
    rows = []
    for bot, group in players.groupby("bot", sort=True):
        per_game = group.groupby("game")
        row: dict[str, object] = {"bot": bot}
        for item in MARKET_ITEMS:
            column = f"bought_{item}"
            row[f"{item} / game"] = float(group[column].mean())
            row[f"{item}: games bought"] = float((per_game[column].sum() > 0).mean())
        for column, name in FLIGHTS_AND_CREDITS.items():
            row[f"{name} / game"] = float(group[column].mean())
        rows.append(row)
    return pd.DataFrame(rows)


#: The most a greedy-plus-one-habit bot may win against greedy, and the least the expert must.
HABIT_CEILING = 0.58
EXPERT_FLOOR = 0.80
#: The least share of games in which the expert buys each market item.
MARKET_FLOOR = 0.10


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
    if players["seat"].nunique() > 1:  # no first player to favour in a solo game
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
    return checks + bot_checks(players)


def bot_checks(players: pd.DataFrame) -> list[Check]:
    """The targets that name bots: a greedy-plus-one-habit bot (``greedy-HABIT``) against greedy
    wins at most 58%; the expert against greedy at least 80%; in a run with the expert in every
    seat, every market item is bought in at least 10% of games."""
    checks: list[Check] = []
    if not {"bot", "bought_staff"} <= set(players.columns):  # rows without bots or purchases
        return checks
    bots = set(players["bot"])
    if len(bots) == 2 and "greedy" in bots:
        (other,) = bots - {"greedy"}
        rate = float(players.loc[players.bot == other, "won"].mean())
        if other.startswith("greedy-"):
            checks.append(
                Check(
                    f"{other} win rate against greedy", rate, f"x <= {HABIT_CEILING}", rate <= HABIT_CEILING
                )
            )
        elif other == "expert":
            checks.append(
                Check(f"{other} win rate against greedy", rate, f"x >= {EXPERT_FLOOR}", rate >= EXPERT_FLOOR)
            )
    if bots == {"expert"} and players["seat"].nunique() > 1:
        bought = purchase_table(players).iloc[0]
        for item in MARKET_ITEMS:
            share = float(bought[f"{item}: games bought"])
            checks.append(
                Check(
                    f"games in which expert buys {item}", share, f"x >= {MARKET_FLOOR}", share >= MARKET_FLOOR
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
        "first-player advantage, 95% half-width": first_player_edge(players)[1],
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
    if players["seat"].nunique() == 1:
        figures.update({f"solo: {name}": value for name, value in solo_figures(players).items()})
    return figures


def solo_figures(players: pd.DataFrame) -> dict[str, float]:
    """A solo run's score distribution (R4: QoC at 0 or below is a loss) and the share of games
    reaching each score tier (``solo.tiers``), for choosing the tier values."""
    score = players["score"]
    figures = {
        "games": float(len(players)),
        "mean score": float(score.mean()),
        "score sd": float(score.std(ddof=1)) if len(players) > 1 else math.nan,
        "median score": float(score.median()),
        "score 80th percentile": float(score.quantile(0.8)),
        "lost (share)": float((players["quality"] <= 0).mean()),
    }
    if "tier" in players.columns:
        for tier, share in players["tier"].fillna("none").value_counts(normalize=True).sort_index().items():
            figures[f"tier {tier} (share)"] = float(share)
    return figures


def solo_text(players: pd.DataFrame) -> str:
    figures = solo_figures(players)
    return "solo: " + ", ".join(
        f"{name} {value:.3f}" if not float(value).is_integer() else f"{name} {value:.0f}"
        for name, value in figures.items()
    )
