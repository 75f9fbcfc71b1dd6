"""Balance figures from simulation results, and the targets the default deck must meet
(issue: simulate at scale, point 5).

Every figure is computed from the player rows (one per player per game) alone, so a result file
without its card rows still gives them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from triage.engine.vocabulary import KINDS as VOCABULARY_KINDS
from triage.sim.games import BOUGHT, KINDS, kind_column, market_items

#: Kinds that can be cured: a terminal patient never is (T5), it can only be treated each round.
CURABLE = tuple(kind.name for kind in VOCABULARY_KINDS if not kind.beside)


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


def cluster_series(players: pd.DataFrame) -> pd.Series:
    """The unit of independence of each row: its deal (the games of a ``--duplicate`` deal share
    their cards, so they are not independent), else its game."""
    return players["deal"] if "deal" in players.columns else players["game"]


_clusters = cluster_series


#: The fewest deals (independent clusters) a target is judged on: below it the report gives no
#: verdict, whatever the interval says (issue 41, point 3).
MIN_DEALS = 30
#: Student's t 97.5% quantiles for 1 to 30 degrees of freedom (beyond: the Cornish-Fisher series).
T975: tuple[float, ...] = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
)
T975 += (2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048)
T975 += (2.045, 2.042)
Z975 = 1.959964


def t975(freedom: int) -> float:
    """Student's t 97.5% quantile: the 95% interval's multiplier with ``freedom`` degrees of
    freedom (clusters less one), wider than 1.96 on few clusters.

    >>> t975(4), round(t975(60), 3), round(t975(10**6), 3)
    (2.776, 2.0, 1.96)
    """
    if freedom <= len(T975):
        return T975[max(freedom, 1) - 1]
    z = Z975
    return z + (z**3 + z) / (4 * freedom) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * freedom**2)


def clustered_mean(values: pd.Series, clusters: pd.Series) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% interval, with the variance summed
    over clusters (rows of one cluster may be correlated; clusters are independent) and Student's
    t for the clusters less one. For a share (values within 0 and 1) the variance also counts one
    pseudo-deal at the binomial spread of the share adjusted by two successes and two failures
    (as the plus-four interval does), so that a share seen on few deals, or the same in every
    one, keeps an honest width: 0 purchases in 5 games gives +-0.26, not +-0.000, while on
    hundreds of deals the pseudo-deal weighs nothing. NaN half-width with fewer than two clusters.

    >>> clustered_mean(pd.Series([0.0] * 5), pd.Series(range(5)))[1] > 0.25
    True
    """
    values = values.astype(float)
    count = len(values)
    if count == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    sums = (values - mean).groupby(clusters.to_numpy()).sum()
    groups = len(sums)
    if groups < 2:
        return mean, math.nan
    spread = float((sums**2).sum())
    if values.between(0, 1).all():
        adjusted = (float(values.sum()) + 2) / (count + 4)
        spread += (count / groups) ** 2 * adjusted * (1 - adjusted)
    variance = groups / (groups - 1) * spread / count**2
    return mean, t975(groups - 1) * math.sqrt(variance)


def cluster_count(clusters: pd.Series) -> int:
    """How many independent deals the rows come from."""
    return int(clusters.nunique())


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
    """Per bot and market item (T8): bought per player-game (mean), the share of its player-games
    with at least one bought (per player: the figure to compare between bots and settings), and,
    labelled as such, the share of games in which any seat it played bought one (with a bot in
    every seat that share counts a game if any one of them bought); then Helicopter flights (T7)
    and Credits per player-game."""
    rows = []
    for bot, group in players.groupby("bot", sort=True):
        per_game = group.groupby("game")
        row: dict[str, object] = {"bot": bot}
        for item in market_items(players.columns):
            column = BOUGHT + item
            row[f"{item} / player-game"] = float(group[column].mean())
            row[f"{item}: share of player-games"] = float((group[column] > 0).mean())
            row[f"{item}: share of games, any seat"] = float((per_game[column].sum() > 0).mean())
        for column, name in FLIGHTS_AND_CREDITS.items():
            row[f"{name} / player-game"] = float(group[column].mean())
        rows.append(row)
    return pd.DataFrame(rows)


#: The most a greedy-plus-one-habit bot may win against greedy at 2 players, and the least the
#: expert must; at 3 and 4 players a habit may win at most HABIT_SHARE times its fair share.
HABIT_CEILING = 0.58
HABIT_SHARE = 1.16
EXPERT_FLOOR = 0.80
#: With the expert in every seat, each seat's win rate stays in this band, by player count.
EXPERT_SEAT_BANDS: dict[int, tuple[float, float]] = {2: (0.40, 0.60), 3: (0.23, 0.43), 4: (0.15, 0.35)}
#: Deaths per player per game the default game should see (under expert play).
DEATHS_BAND = (1.0, 3.5)
#: The least share of games in which the expert buys each market item.
MARKET_FLOOR = 0.10


#: The verdict of a target measured on fewer than :data:`MIN_DEALS` deals.
TOO_FEW = "too few deals"


def deaths_per_player_game(players: pd.DataFrame) -> float:
    return float(per_player_game(players, "died").sum())


@dataclass(frozen=True)
class Check:
    """One balance target and how the run measured against it: ``value`` with the half-width
    ``half`` of its 95% interval (0 for an exact count, NaN when too few deals give one), the
    bounds ``low`` and ``high`` (None: unbounded), the target as text and the ``deals`` measured
    (None for an exact count, which needs no sample)."""

    name: str
    value: float
    target: str
    low: float | None = None
    high: float | None = None
    half: float = 0.0
    deals: int | None = None

    def _inside(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    @property
    def ok(self) -> bool:
        """Whether the point estimate meets the target (the verdict also weighs the interval)."""
        return not math.isnan(self.value) and self._inside(self.value)

    @property
    def verdict(self) -> str:
        """``met`` when the whole interval meets the target, ``not met`` when none of it does,
        ``undecided`` when it straddles a bound (more games would tell); ``too few deals`` below
        :data:`MIN_DEALS`, whatever the interval."""
        if self.deals is not None and self.deals < MIN_DEALS:
            return TOO_FEW
        if math.isnan(self.value) or math.isnan(self.half):
            return "undecided"
        bottom, top = self.value - self.half, self.value + self.half
        if self._inside(bottom) and self._inside(top):
            return "met"
        if (self.low is not None and top < self.low) or (self.high is not None and bottom > self.high):
            return "not met"
        return "undecided"


def clustered_ratio(numerator: pd.Series, denominator: pd.Series, clusters: pd.Series) -> tuple[float, float]:
    """The ratio of two sums and the half-width of its 95% interval clustered by deal (the
    linearised ratio: each row's ``numerator - ratio * denominator`` summed per cluster)."""
    total = float(denominator.sum())
    if total == 0:
        return math.nan, math.nan
    ratio = float(numerator.sum()) / total
    residual = (numerator - ratio * denominator).astype(float) / (total / len(denominator))
    _, half = clustered_mean(residual, clusters)
    return ratio, half


def seat_spread(players: pd.DataFrame) -> tuple[float, float]:
    """The seat whose win rate lies furthest from the mean of the seats: its distance in points
    (signed) with its 95% interval clustered by deal. Computed game by game: a seat's win minus
    the mean win of the game's seats."""
    if players["seat"].nunique() < 2:
        return math.nan, math.nan
    won = players["won"].astype(float)
    deviation = (won - won.groupby(players["game"]).transform("mean")) * 100
    rates = deviation.groupby(players["seat"]).mean()
    seat = _whole(rates.abs().idxmax())
    rows = players["seat"] == seat
    return clustered_mean(deviation[rows], _clusters(players)[rows])


def balance_checks(players: pd.DataFrame) -> list[Check]:
    """The balance targets on these results, each judged on its 95% interval (clustered by deal),
    none below :data:`MIN_DEALS` deals."""
    checks: list[Check] = []
    clusters = _clusters(players)
    deals = cluster_count(clusters)
    if players["seat"].nunique() > 1:  # no first player to favour in a solo game
        edge, half = first_player_edge(players)
        checks.append(Check("first-player win-rate advantage (points)", edge, "|x| < 5", -5, 5, half, deals))
        spread, spread_half = seat_spread(players)
        name = "seat furthest from the seats' mean win rate (points)"
        checks.append(Check(name, spread, "|x| <= 3", -3, 3, spread_half, deals))
    deaths, deaths_half = clustered_mean(fate_total(players, "died"), clusters)
    low, high = DEATHS_BAND
    band = f"{low:g} <= x <= {high:g}"
    checks.append(Check("deaths per player per game", deaths, band, low, high, deaths_half, deals))
    for kind in CURABLE:
        rate, half = clustered_ratio(
            players[kind_column("cured", kind)], players[kind_column("drawn", kind)], clusters
        )
        checks.append(Check(f"cure rate of {kind} arrivals", rate, "x >= 0.30", 0.30, None, half, deals))
    admitted = kind_sums(players, "admitted")
    for kind in KINDS:
        checks.append(Check(f"{kind} patients admitted (total)", float(admitted[kind]), "x > 0", 1, None))
    return checks + bot_checks(players)


def checks_by_lineup(players: pd.DataFrame) -> list[tuple[str, list[Check]]]:
    """The targets judged on games of one kind only: a ladder's rows (a ``lineup`` column) per
    player count and line-up, each its own run; any other run whole (an empty label)."""
    if "lineup" not in players.columns:
        return [("", balance_checks(players))]
    return [
        (f"{count} players, {lineup}", balance_checks(group))
        for (count, lineup), group in players.groupby(["players", "lineup"], sort=True)
    ]


def fate_total(players: pd.DataFrame, fate: str) -> pd.Series:
    """Each player row's ``fate`` events over every patient kind (its deaths, its cures...)."""
    return sum((players[kind_column(fate, kind)] for kind in KINDS), start=pd.Series(0, index=players.index))


def bot_checks(players: pd.DataFrame) -> list[Check]:
    """The targets that name bots: a greedy-plus-one-habit bot (``greedy-HABIT``) against greedy
    wins at most 58% at 2 players and at most 1.16 times its fair share at 3 and 4; the expert
    against greedy at least 80%; in a run with the expert in every seat, every seat's win rate
    stays in its band (:data:`EXPERT_SEAT_BANDS`) and every market item is bought in at least 10%
    of games (by any seat: the target is about games, and says so)."""
    checks: list[Check] = []
    if "bot" not in players.columns or not market_items(players.columns):  # rows without bots or purchases
        return checks
    bots = set(players["bot"])
    clusters = _clusters(players)
    count = int(players["seat"].max()) + 1  # the player count (a run plays one)
    if len(bots) == 2 and "greedy" in bots:
        (other,) = bots - {"greedy"}
        rows = players.bot == other
        rate, half = clustered_mean(players.loc[rows, "won"], clusters[rows])
        name, deals = f"{other} win rate against greedy", cluster_count(clusters[rows])
        if other.startswith("greedy-"):
            ceiling = habit_ceiling(count)
            checks.append(Check(name, rate, f"x <= {ceiling:g}", None, ceiling, half, deals))
        elif other == "expert":
            checks.append(Check(name, rate, f"x >= {EXPERT_FLOOR}", EXPERT_FLOOR, None, half, deals))
    if bots == {"expert"} and count in EXPERT_SEAT_BANDS:
        checks += _expert_seat_checks(players, clusters, EXPERT_SEAT_BANDS[count])
    if bots == {"expert"} and players["seat"].nunique() > 1:
        games = players.groupby("game")
        deals_of_game = clusters.groupby(players["game"]).first()
        for item in market_items(players.columns):
            bought = (games[BOUGHT + item].sum() > 0).astype(float)
            share, half = clustered_mean(bought, deals_of_game.reindex(bought.index))
            name = f"games in which any expert seat buys {item}"
            floor = f"x >= {MARKET_FLOOR}"
            checks.append(Check(name, share, floor, MARKET_FLOOR, None, half, cluster_count(deals_of_game)))
    return checks


def habit_ceiling(players: int) -> float:
    """The most a habit bot may win among greedy bots: 58% at 2 players, 1.16 times its fair share
    at 3 and 4.

    >>> habit_ceiling(2), habit_ceiling(3), habit_ceiling(4)
    (0.58, 0.387, 0.29)
    """
    return HABIT_CEILING if players <= 2 else round(HABIT_SHARE / players, 3)


def _expert_seat_checks(players: pd.DataFrame, clusters: pd.Series, band: tuple[float, float]) -> list[Check]:
    low, high = band
    checks = []
    for seat in sorted(players["seat"].unique()):
        rows = players["seat"] == seat
        rate, half = clustered_mean(players.loc[rows, "won"].astype(float), clusters[rows])
        name, deals = f"expert in every seat: seat {seat} win rate", cluster_count(clusters[rows])
        checks.append(Check(name, rate, f"{low} <= x <= {high}", low, high, half, deals))
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


# ---------------------------------------------------------------------------- seats, pairs, rounds


def _whole(value: Any) -> int:
    """A pandas group key or index label (typed loosely by pandas) as the int it is."""
    return int(value)


def seat_table(players: pd.DataFrame) -> pd.DataFrame:
    """Per player count and seat: the seats' win rate and mean score, each with its 95% interval
    clustered by deal (a deal played from every seat is one cluster)."""
    rows = []
    clusters = _clusters(players)
    for (count, seat), group in players.groupby(["players", "seat"], sort=True):
        win, win_ci = clustered_mean(group["won"], clusters[group.index])
        score, score_ci = clustered_mean(group["score"], clusters[group.index])
        rows.append(
            {
                "players": _whole(count),
                "seat": _whole(seat),
                "games": len(group),
                "deals": clusters[group.index].nunique(),
                "win rate": win,
                "win ci95": win_ci,
                "mean score": score,
                "score ci95": score_ci,
            }
        )
    return pd.DataFrame(rows)


def seat_gaps(players: pd.DataFrame) -> pd.DataFrame:
    """Per player count: the largest gap between two seats' win rates (the best seat's minus the
    worst's, in points), with its 95% interval clustered by deal from the paired per-game
    difference. The pair is chosen after looking, so the gap leans high on small samples."""
    rows = []
    for count, group in players.groupby("players", sort=True):
        rates = group.groupby("seat")["won"].mean()
        if len(rates) < 2:
            continue
        best, worst = _whole(rates.idxmax()), _whole(rates.idxmin())
        by_game = group.pivot_table(index="game", columns="seat", values="won", aggfunc="mean")
        difference = (by_game[best] - by_game[worst]).astype(float) * 100
        deals = _clusters(group).groupby(group["game"]).first().reindex(difference.index)
        gap, half = clustered_mean(difference, deals)
        rows.append(
            {
                "players": _whole(count),
                "best seat": best,
                "worst seat": worst,
                "gap (points)": gap,
                "gap ci95": half,
            }
        )
    return pd.DataFrame(rows)


def _per_deal(players: pd.DataFrame, key: str, value: str) -> pd.DataFrame:
    """The mean of ``value`` per deal (named by its seed and player count) and ``key`` group."""
    deal = players["players"].astype(str) + "/" + players["game_seed"].astype(str)
    return players.assign(_deal=deal).pivot_table(index="_deal", columns=key, values=value, aggfunc="mean")


def paired_figures(players: pd.DataFrame) -> list[tuple[str, str, str]]:
    """What :func:`paired_differences` pairs, as (group column, value column, name): per seat the
    win rate and score; per bot the win rate, margin, deaths, cures, flights and each market
    item bought (per player-game); per game its length in rounds and actions."""
    figures = [("seat", "won", "win rate"), ("seat", "score", "mean score")]
    figures += [("bot", "won", "win rate"), ("bot", "margin", "margin")]
    figures += [("bot", "_deaths", "deaths / player-game"), ("bot", "_cures", "cures / player-game")]
    figures += [("bot", "flights", "flights / player-game")]
    figures += [
        ("bot", BOUGHT + item, f"{item} bought / player-game") for item in market_items(players.columns)
    ]
    return figures + [("_game", "rounds", "rounds played"), ("_game", "actions", "actions")]


def _with_totals(players: pd.DataFrame) -> pd.DataFrame:
    """The rows with each player's deaths and cures over every kind, and one group for whole games."""
    return players.assign(
        _deaths=fate_total(players, "died"), _cures=fate_total(players, "cured"), _game="all"
    )


def paired_differences(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """B - A for runs that share deals (same seeds and player counts): each figure of
    :func:`paired_figures`, averaged within a deal, differenced deal by deal over the deals both
    runs played, with a 95% interval from those paired differences (one per deal, independent;
    Student's t). Empty when no deal is shared."""
    rows = []
    first, second = _with_totals(first), _with_totals(second)
    shared_columns = set(first.columns) & set(second.columns)
    for key, value, name in paired_figures(first):
        if value not in shared_columns:
            continue
        a, b = _per_deal(first, key, value), _per_deal(second, key, value)
        shared = a.index.intersection(b.index)
        for group in sorted(set(a.columns) & set(b.columns), key=str):
            pair = pd.DataFrame({"a": a.loc[shared, group], "b": b.loc[shared, group]}).dropna()
            if pair.empty:
                continue
            difference = (pair["b"] - pair["a"]).astype(float)
            count = len(difference)
            spread = float(difference.std(ddof=1)) if count > 1 else math.nan
            half = t975(count - 1) * spread / math.sqrt(count) if count > 1 else math.nan
            label = name if key == "_game" else f"{key} {group}: {name}"
            rows.append(
                {
                    "figure": label,
                    "deals paired": count,
                    "A": float(pair["a"].mean()),
                    "B": float(pair["b"].mean()),
                    "B - A": float(difference.mean()),
                    "ci95": half,
                }
            )
    return pd.DataFrame(rows)


def round_table(rounds: pd.DataFrame) -> pd.DataFrame:
    """Per round and seat: deaths, cures, Helicopter flights, flights that made everyone draw and
    purchases, per game (a game that ended before a round counts 0 in it)."""
    from triage.sim.games import ROUND_COUNTS

    games = max(rounds["game"].nunique(), 1)
    sums = rounds.groupby(["round", "seat"], sort=True)[list(ROUND_COUNTS)].sum() / games
    return sums.reset_index()


def time_table(times: pd.DataFrame) -> pd.DataFrame:
    """Per bot: decisions taken, mean and longest CPU seconds a decision, CPU seconds a game."""
    rows = []
    for bot, group in times.groupby("bot", sort=True):
        decisions = int(group["decisions"].sum())
        rows.append(
            {
                "bot": bot,
                "decisions": decisions,
                "mean s / decision": float(group["seconds"].sum()) / decisions if decisions else math.nan,
                "longest s": float(group["longest"].max()),
                "s / seat-game": float(group["seconds"].mean()),
            }
        )
    return pd.DataFrame(rows)
