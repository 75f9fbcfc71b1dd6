"""The ladder: bots judged against each other on duplicate deals, with ratings and a head-to-head
table (``triage ladder``).

Every line-up of the bots at every player count plays the same deals (one master seed), each
deal from every distinct seat rotation, so luck cancels within a deal and between line-ups.
Ratings come from ``openskill`` (Plackett-Luce, which takes 3- and 4-player results as finishing
orders); a rating's interval is its mean +- 1.96 of its deviation. The head-to-head share is
model-free: in the games two bots both played, how often the first finished ahead (R4: the
winner first, then the score), with a 95% interval clustered by deal.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from typing import TypedDict

import pandas as pd
import pyarrow as pa

from triage.engine import CardSpec, Config
from triage.sim.balance import clustered_mean, time_table
from triage.sim.games import SimJob
from triage.sim.runner import Progress, RunLimits, SimResult, run_local, schemas

#: The column a ladder adds to the player rows: the line-up of the game's deal, as ``a,b,c``.
LINEUP = "lineup"


def lineups(bots: tuple[str, ...], players: int) -> list[tuple[str, ...]]:
    """The line-ups of ``players`` seats among ``bots``: every set of distinct bots when there are
    enough, else every multiset with at least two different bots (a mirror rates nobody).

    >>> lineups(("a", "b", "c"), 2)
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> lineups(("a", "b"), 3)
    [('a', 'a', 'b'), ('a', 'b', 'b')]
    """
    if len(bots) >= players:
        return list(combinations(bots, players))
    return [lineup for lineup in combinations_with_replacement(bots, players) if len(set(lineup)) > 1]


@dataclass(frozen=True)
class LadderJob:
    """A ladder: the bots, the player counts, the deals each line-up plays, the game settings."""

    bots: tuple[str, ...]
    players: tuple[int, ...]
    deals: int
    seed: int
    config: Config
    deck: tuple[CardSpec, ...] | None = None
    #: Deals for the line-ups a bot plays in, by bot (a slow bot's line-ups play fewer): a line-up
    #: plays the fewest of its bots' deals, ``deals`` for a bot not named.
    bot_deals: tuple[tuple[str, int], ...] = ()
    #: Wall seconds for the whole ladder, shared out line-up by line-up (the time one leaves
    #: goes to the next); each line-up keeps the whole deals it played.
    time_budget: float | None = None

    def __post_init__(self) -> None:
        if len(set(self.bots)) < 2:
            raise ValueError("a ladder needs at least two different bots")
        if any(not 2 <= count <= 4 for count in self.players):
            raise ValueError("a ladder's player counts are 2 to 4")
        unknown = sorted(set(dict(self.bot_deals)) - set(self.bots))
        if unknown:
            raise ValueError(f"--deals-for names {', '.join(unknown)}, not among the ladder's bots")
        if any(count < 1 for _, count in self.bot_deals):
            raise ValueError("--deals-for: a bot's deals must be at least 1")

    def deals_of(self, lineup: tuple[str, ...]) -> int:
        """The deals a line-up plays: the fewest of its bots' (:attr:`bot_deals`)."""
        named = dict(self.bot_deals)
        return min(named.get(bot, self.deals) for bot in lineup)

    def jobs(self) -> list[SimJob]:
        """One duplicate simulation per player count and line-up, all on the same master seed."""
        return [
            SimJob(count, lineup, self.seed, self.config, self.deck, duplicate=True)
            for count in self.players
            for lineup in lineups(self.bots, count)
        ]

    def games(self) -> int:
        """Every game the ladder plays when no time budget cuts it short."""
        return sum(self.deals_of(job.bots) * job.orders for job in self.jobs())


def run_ladder(
    ladder: LadderJob, workers: int, progress: Progress | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play the ladder; its player rows (the simulator's columns and :data:`LINEUP`), with games
    numbered across line-ups and ``deal`` naming the cards dealt (the same deal in every
    line-up of a player count), so intervals cluster on it; and the seats' decision times."""
    frames, times = [], []
    offset = 0
    jobs = ladder.jobs()
    start = time.monotonic()
    for number, job in enumerate(jobs):
        limits = RunLimits()
        if ladder.time_budget is not None:
            left = ladder.time_budget - (time.monotonic() - start)
            limits = RunLimits(time_budget=max(0.0, left / (len(jobs) - number)))
        result: SimResult = run_local(job, ladder.deals_of(job.bots) * job.orders, workers, progress, limits)
        if result.players.num_rows == 0:
            continue
        frame = result.players.to_pandas()
        frame["game"] += offset
        frame[LINEUP] = ",".join(job.bots)
        if result.times is not None:
            seat_times = result.times.to_pandas()
            seat_times["game"] += offset
            times.append(seat_times)
        offset = int(frame["game"].max()) + 1
        frames.append(frame)
    rows = pd.concat(frames, ignore_index=True)
    rows["deal"] = pd.factorize(rows["players"].astype(str) + "/" + rows["game_seed"].astype(str))[0]
    return rows, pd.concat(times, ignore_index=True) if times else pd.DataFrame()


def ladder_schema(market: Iterable[str]) -> pa.Schema:
    """The Arrow schema of a ladder's rows: the simulator's for the configuration's market
    items (T8), and the line-up."""
    return schemas(market)[0].append(pa.field(LINEUP, pa.string()))


# ---------------------------------------------------------------------------- ratings


def _finish(game: pd.DataFrame) -> pd.Series:
    """Each seat's finishing place in one game, 1 the best: the R4 winner first, then by score."""
    key = game["won"].astype(int) * 10_000 + game["score"]
    return key.rank(ascending=False, method="min").astype(int)


def ratings(rows: pd.DataFrame) -> pd.DataFrame:
    """An openskill Plackett-Luce rating per bot from the games' finishing orders, best first:
    ``mu``, ``sigma``, the 95% interval ``mu +- 1.96 sigma`` and ``ordinal`` (mu - 3 sigma).
    Games are taken deal by deal (each deal's line-ups together), so no line-up comes last.
    A bot holding several seats of a game takes the mean of its seats' updates."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {bot: model.rating(name=bot) for bot in sorted(rows["bot"].unique())}
    for _, game in rows.sort_values(["deal", "game", "seat"]).groupby(["deal", "game"], sort=False):
        seats = list(game["bot"])
        places = list(_finish(game))
        updated = model.rate([[current[bot]] for bot in seats], ranks=places)
        for bot in set(seats):
            mine = [team[0] for team, name in zip(updated, seats) if name == bot]
            current[bot] = model.rating(
                mu=sum(rating.mu for rating in mine) / len(mine),
                sigma=sum(rating.sigma for rating in mine) / len(mine),
                name=bot,
            )
    table = pd.DataFrame(
        [
            {
                "bot": bot,
                "games": int((rows["bot"] == bot).sum()),
                "mu": rating.mu,
                "sigma": rating.sigma,
                "low": rating.mu - 1.96 * rating.sigma,
                "high": rating.mu + 1.96 * rating.sigma,
                "ordinal": rating.mu - 3 * rating.sigma,
            }
            for bot, rating in current.items()
        ]
    )
    return table.sort_values("mu", ascending=False, ignore_index=True)


class Pair(TypedDict):
    """How often ``bot`` finished ahead of ``against`` in the ``games`` both played (a tie counts
    half), with the half-width of its 95% interval clustered by deal (NaN with no game)."""

    bot: str
    against: str
    games: int
    ahead: float
    ci95: float


def head_to_head(rows: pd.DataFrame) -> pd.DataFrame:
    """For each ordered pair of bots (row bot, column bot): the share of their shared games in
    which the row bot finished ahead (a tie counts half), with a 95% interval clustered by deal;
    long form: ``bot``, ``against``, ``games``, ``ahead``, ``ci95``."""
    results: list[Pair] = []
    key = rows["won"].astype(int) * 10_000 + rows["score"]
    frame = rows.assign(place=key.groupby(rows["game"]).rank(ascending=False, method="min"))
    bots = sorted(frame["bot"].unique())
    for bot in bots:
        for against in bots:
            if bot == against:
                continue
            results.append(_pair(frame, bot, against))
    return pd.DataFrame(results)


def _pair(frame: pd.DataFrame, bot: str, against: str) -> Pair:
    """How often ``bot`` finished ahead of ``against`` in the games both played."""
    mine = frame[frame["bot"] == bot][["game", "deal", "place"]]
    theirs = frame[frame["bot"] == against][["game", "place"]]
    pairs = mine.merge(theirs, on="game", suffixes=("", "_other"))
    if pairs.empty:
        return {"bot": bot, "against": against, "games": 0, "ahead": math.nan, "ci95": math.nan}
    score = (pairs["place"] < pairs["place_other"]).astype(float) + 0.5 * (
        pairs["place"] == pairs["place_other"]
    )
    per_game = score.groupby(pairs["game"]).mean()
    deals = pairs.groupby("game")["deal"].first().reindex(per_game.index)
    ahead, half = clustered_mean(per_game, deals)
    return {"bot": bot, "against": against, "games": len(per_game), "ahead": ahead, "ci95": half}


def head_to_head_grid(table: pd.DataFrame) -> pd.DataFrame:
    """The head-to-head shares as a grid: ``0.620 +-0.041`` in row bot, column opponent."""
    cells = table.assign(
        cell=[
            "-" if math.isnan(ahead) else f"{ahead:.3f} +-{half:.3f}"
            for ahead, half in zip(table["ahead"], table["ci95"])
        ]
    )
    grid = cells.pivot(index="bot", columns="against", values="cell").fillna("")
    return grid.rename_axis(index="bot (row) ahead of", columns=None).reset_index()


def ladder_text(rows: pd.DataFrame, times: pd.DataFrame | None = None) -> str:
    """Ratings, head-to-head and each bot's decision times as terminal lines."""
    lines = ["rating (openskill Plackett-Luce, 95%: mu +- 1.96 sigma):"]
    width = max(len(str(bot)) for bot in rows["bot"].unique())
    for row in ratings(rows).to_dict("records"):
        lines.append(
            f"  {row['bot']:<{width}}  {row['mu']:6.2f}  [{row['low']:6.2f}, {row['high']:6.2f}]  "
            f"{row['games']} seats"
        )
    lines.append("head to head (share of shared games the row bot finished ahead, 95%):")
    lines.append(head_to_head_grid(head_to_head(rows)).to_string(index=False))
    deals = rows.groupby(LINEUP)["deal"].nunique()
    lines.append("deals per line-up: " + "; ".join(f"{lineup} {count}" for lineup, count in deals.items()))
    if times is not None and not times.empty:
        lines.append("decision time per bot (CPU of the deciding thread):")
        for timing in time_table(times).to_dict("records"):
            lines.append(
                f"  {timing['bot']:<{width}}  {timing['mean s / decision'] * 1000:8.2f} ms a decision, "
                f"longest {timing['longest s'] * 1000:.1f} ms, {timing['decisions']} decisions"
            )
    return "\n".join(lines)


def format_lineups(ladder: LadderJob) -> Iterable[str]:
    """The line-ups a ladder plays, per player count, for its header."""
    for count in ladder.players:
        yield f"{count} players: " + "; ".join(",".join(lineup) for lineup in lineups(ladder.bots, count))
