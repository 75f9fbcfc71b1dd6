"""The balance report: one self-contained HTML page (plots embedded as PNG) from one or more
result files; given several, each figure is shown side by side for every file.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: the figures only go into the page

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
import pandas as pd
import pyarrow.parquet as pq

from triage.engine.config import MARKET_ITEMS
from triage.sim import balance
from triage.sim.games import CARD_COUNTS, KINDS
from triage.sim.runner import PLAYER_SCHEMA, cards_path, read_metadata


class ReportError(ValueError):
    """A result file the report cannot use; the message names the file and what is wrong."""


@dataclass
class Results:
    """One result file, loaded."""

    label: str
    path: Path
    players: pd.DataFrame
    cards: pd.DataFrame | None
    metadata: dict[str, Any]


def load_results(path: Path, label: str | None = None) -> Results:
    """Read a player-rows file written by ``triage simulate`` and, if present, its card rows."""
    if not path.is_file():
        raise ReportError(f"{path}: no such result file")
    try:
        players = pq.read_table(path).to_pandas()
    except Exception as error:  # pyarrow raises several types for a file that is not Parquet
        raise ReportError(f"{path}: not a Parquet file ({error})") from None
    missing = [name for name in PLAYER_SCHEMA.names if name not in players.columns]
    if missing:
        raise ReportError(f"{path}: not a triage simulate result (missing columns: {', '.join(missing[:5])})")
    if players.empty:
        raise ReportError(f"{path}: holds no games")
    card_file = cards_path(path)
    cards = pq.read_table(card_file).to_pandas() if card_file.is_file() else None
    return Results(label or path.stem, path, players, cards, read_metadata(path))


#: What must agree for runs to be pooled: the same game, the same bots, the same way of dealing.
POOL_KEYS: tuple[str, ...] = ("players", "bots", "rotate", "duplicate", "config", "deck")


def pool_results(runs: list[Results], label: str | None = None) -> Results:
    """Several runs of one experiment (different ``--seed``) as one larger sample: games and
    deals renumbered so that each stays its own cluster. Refused, naming the setting, when the
    runs did not play the same game with the same bots; runs with a seed in common would repeat
    deals, so they are refused too."""
    first = runs[0].metadata
    seeds: list[Any] = []
    for run in runs:
        for key in POOL_KEYS:
            differences = _differences(run.metadata.get(key), first.get(key), key)
            if differences:
                raise ReportError(
                    f"{run.path}: cannot pool with {runs[0].path}: {'; '.join(differences[:3])}"
                )
        seed = run.metadata.get("seed")
        if seed is not None and seed in seeds:
            raise ReportError(
                f"{run.path}: cannot pool: seed {seed} is used twice, so its deals would count twice"
            )
        seeds.append(seed)
    players, cards = [], []
    offset = 0
    for run in runs:
        frame = run.players.copy()
        frame["game"] += offset
        frame["deal"] += offset
        players.append(frame)
        if run.cards is not None:
            card_rows = run.cards.copy()
            card_rows["game"] += offset
            cards.append(card_rows)
        offset = int(frame["game"].max()) + 1
    metadata = dict(first, games=sum(run.metadata.get("games", 0) for run in runs), seed=seeds)
    return Results(
        label or f"pooled ({len(runs)} runs)",
        runs[0].path,
        pd.concat(players, ignore_index=True),
        pd.concat(cards, ignore_index=True) if len(cards) == len(runs) else None,
        metadata,
    )


def _differences(mine: Any, theirs: Any, name: str) -> list[str]:
    """Where two metadata values differ, as ``name.key: mine against theirs`` lines."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        found: list[str] = []
        for key in sorted(set(mine) | set(theirs), key=str):
            found += _differences(mine.get(key), theirs.get(key), f"{name}.{key}")
        return found
    if mine == theirs:
        return []
    if isinstance(mine, list) and isinstance(theirs, list):
        return [f"{name} differs"]  # a deck: too long to print
    return [f"{name} is {mine!r} against {theirs!r}"]


# ---------------------------------------------------------------------------- figures


def _png(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80, bbox_inches="tight", metadata={"Software": None})
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def fig_scores(results: Results) -> Figure:
    """Score distribution by seat (histograms) and by bot (box plots)."""
    players = results.players
    figure, (by_seat, by_bot) = plt.subplots(1, 2, figsize=(8, 3.2))
    low, high = int(players.score.min()), int(players.score.max())
    bins = range(low, high + 2)
    for seat, group in players.groupby("seat"):
        by_seat.hist(group.score, bins=bins, alpha=0.5, label=f"seat {seat}")
    by_seat.set(title="Score by seat", xlabel="score (VP + QoC)", ylabel="players")
    by_seat.legend(fontsize="small")
    bots = sorted(players.bot.unique())
    by_bot.boxplot([players.score[players.bot == bot] for bot in bots], tick_labels=bots)
    by_bot.set(title="Score by bot", ylabel="score")
    return figure


def fig_win_rate(results: Results) -> Figure:
    """Win rate by seat with 95% intervals: the first-player advantage."""
    table = balance.win_rate_by_seat(results.players)
    figure, axis = plt.subplots(figsize=(4, 3.2))
    axis.bar([f"seat {seat}" for seat in table.index], table.win_rate, yerr=table.ci95, capsize=4)
    axis.axhline(1 / len(table), color="grey", linestyle="--", linewidth=1)
    advantage = balance.first_player_advantage(results.players)
    axis.set(title=f"Win rate by seat (first player {advantage:+.1f} pts)", ylabel="win rate", ylim=(0, 1))
    return figure


def losses_top(runs: list[Results]) -> float:
    """One y-axis height for every run's deaths-and-rejections plot, so side by side they compare."""
    heights = [
        balance.per_player_game(run.players, fate).max() for run in runs for fate in ("died", "rejected")
    ]
    return max(float(max(heights)) * 1.1, 0.1)


def fig_losses(results: Results, top: float | None = None) -> Figure:
    """Deaths and rejections per player per game, by patient kind."""
    died = balance.per_player_game(results.players, "died")
    rejected = balance.per_player_game(results.players, "rejected")
    figure, axis = plt.subplots(figsize=(5, 3.2))
    positions = range(len(KINDS))
    axis.bar([p - 0.2 for p in positions], died, width=0.4, label="died")
    axis.bar([p + 0.2 for p in positions], rejected, width=0.4, label="rejected")
    axis.set_xticks(list(positions), [kind.replace("_", "-") for kind in KINDS])
    axis.set(title="Deaths and rejections per player per game", ylabel="patients", ylim=(0, top))
    axis.legend(fontsize="small")
    return figure


def fig_cure_rate(results: Results) -> Figure:
    """Share of each kind's arrivals that were cured (terminal patients are never cured, T5)."""
    rates = balance.rate_by_kind(results.players, "cured")[list(balance.CURABLE)]
    figure, axis = plt.subplots(figsize=(4.5, 3.2))
    axis.bar([kind.replace("_", "-") for kind in rates.index], rates.fillna(0))
    axis.axhline(0.30, color="grey", linestyle="--", linewidth=1)
    axis.set(title="Cure rate by kind (of arrivals)", ylabel="cured / drawn", ylim=(0, 1))
    return figure


def fig_quality(results: Results) -> Figure:
    """Quality of Care at the end of the game."""
    quality = results.players.quality
    figure, axis = plt.subplots(figsize=(4.5, 3.2))
    axis.hist(quality, bins=range(int(quality.min()), int(quality.max()) + 2), color="tab:green")
    axis.axvline(0, color="grey", linestyle="--", linewidth=1)
    axis.set(title=f"QoC at the end (mean {quality.mean():.1f})", xlabel="QoC", ylabel="players")
    return figure


FIGURES: list[tuple[str, str, Callable[[Results], Figure]]] = [
    ("scores", "Score distribution by seat and bot", fig_scores),
    ("win_rate", "Win rate by seat (first-player advantage)", fig_win_rate),
    ("losses", "Deaths and rejections per game by patient kind", fig_losses),
    ("cure_rate", "Cure rate by patient kind", fig_cure_rate),
    ("quality", "Quality of Care at the end", fig_quality),
]


# ---------------------------------------------------------------------------- tables


def card_table(cards: pd.DataFrame) -> pd.DataFrame:
    """Per deck card: how often it was drawn, admitted, rejected, cured, died, removed per game,
    and the mean rounds a stay in hospital lasted."""
    grouped = cards.groupby(["card", "kind"], sort=False)
    games = cards["game"].nunique()
    table = grouped[[name for name in CARD_COUNTS if name != "rounds_in_hospital"]].sum() / games
    stays = grouped["admitted"].sum()
    table["rounds per stay"] = grouped["rounds_in_hospital"].sum() / stays.where(stays > 0)
    table.columns = [f"{name} / game" if name != "rounds per stay" else name for name in table.columns]
    return table.reset_index()


def _number(value: float) -> str:
    """Whole numbers without decimals (counts), the rest to three places (rates, means)."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:.3f}"


def _table_html(frame: pd.DataFrame, css: str = "") -> str:
    return frame.to_html(index=False, float_format=_number, classes=css, border=0, na_rep="-")


def _summary_table(runs: list[Results]) -> str:
    columns = {run.label: balance.summary(run.players) for run in runs}
    return _table_html(pd.DataFrame(columns).rename_axis("figure").reset_index(), "summary")


def _checks_table(run: Results) -> str:
    rows = [
        {
            "target": check.name,
            "measured": check.value,
            "goal": check.target,
            "met": "yes" if check.ok else "NO",
        }
        for check in balance.balance_checks(run.players)
    ]
    return _table_html(pd.DataFrame(rows), "checks")


def _economy(run: Results) -> pd.DataFrame:
    """The purchase table with one column per bot (its rows are many, its bots few)."""
    return balance.purchase_table(run.players).set_index("bot").T.reset_index(names="figure")


def _describe(run: Results) -> str:
    meta = run.metadata
    if not meta:
        return f"{html.escape(str(run.path))}"
    parts = [
        f"{meta.get('games')} games",
        f"{meta.get('players')} players",
        f"bots {', '.join(meta.get('bots', []))}",
        f"seed {meta.get('seed')}",
        f"return_to {meta.get('config', {}).get('return_to')}",
        "custom deck" if meta.get("deck") else "standard deck",
    ]
    return f"{html.escape(str(run.path))}: " + html.escape("; ".join(parts))


# ---------------------------------------------------------------------------- page

STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
.row { display: flex; flex-wrap: wrap; gap: 1.2em; align-items: flex-start; }
figure { margin: 0; } figcaption { font-weight: bold; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; } td, th { padding: 2px 8px; text-align: right; }
th { background: #eee; } tr:nth-child(even) td { background: #f7f7f7; }
td:first-child, th:first-child { text-align: left; }
"""


def build_report(runs: list[Results], title: str = "Triage simulation report") -> str:
    """The HTML page for ``runs`` (one run, or several compared side by side)."""
    if not runs:
        raise ReportError("no result file given")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        "<ul>"
        + "".join(f"<li><b>{html.escape(run.label)}</b>: {_describe(run)}</li>" for run in runs)
        + "</ul>",
        "<h2>Summary</h2>",
        _summary_table(runs),
        "<h2>Bots: win rate and score margin (95% intervals, clustered by deal)</h2>",
        '<div class="row">',
        *(
            f'<div data-table="bots"><figcaption>{html.escape(run.label)}</figcaption>'
            f"{_table_html(balance.bot_table(run.players), 'bots')}</div>"
            for run in runs
        ),
        "</div>",
        "<h2>Market and Helicopter by bot</h2>",
        '<div class="row">',
        *(
            f'<div data-table="economy"><figcaption>{html.escape(run.label)}</figcaption>'
            f"{_table_html(_economy(run), 'economy')}</div>"
            for run in runs
        ),
        "</div>",
        "<h2>Balance targets</h2>",
        '<div class="row">',
    ]
    for run in runs:
        out.append(f"<div><figcaption>{html.escape(run.label)}</figcaption>{_checks_table(run)}</div>")
    out.append("</div>")
    top = losses_top(runs)
    for key, caption, draw in FIGURES:
        out.append(f'<h2>{html.escape(caption)}</h2><div class="row">')
        for number, run in enumerate(runs):
            image = _png(fig_losses(run, top) if draw is fig_losses else draw(run))
            out.append(
                f'<figure id="fig-{key}-{number}" data-figure="{key}" data-run="{html.escape(run.label)}">'
                f"<figcaption>{html.escape(run.label)}</figcaption>"
                f'<img alt="{html.escape(caption)}: {html.escape(run.label)}" '
                f'src="data:image/png;base64,{image}">'
                "</figure>"
            )
        out.append("</div>")
    out.append('<h2>Per card</h2><div class="row">')
    for run in runs:
        out.append(f'<div data-table="cards"><figcaption>{html.escape(run.label)}</figcaption>')
        if run.cards is None:
            out.append(f"<p>No card rows ({html.escape(str(cards_path(run.path)))} is missing).</p>")
        else:
            out.append(_table_html(card_table(run.cards), "cards"))
        out.append("</div>")
    out.append("</div></body></html>")
    return "\n".join(out) + "\n"


def checks_text(run: Results) -> str:
    """The balance targets as plain text lines, for the terminal."""
    return _checks_lines(run.players)


def _checks_lines(players: pd.DataFrame) -> str:
    lines = []
    for check in balance.balance_checks(players):
        value = "nan" if math.isnan(check.value) else f"{check.value:.3f}"
        lines.append(f"{'ok ' if check.ok else 'NO '} {check.name}: {value} ({check.target})")
    return "\n".join(lines)


def _plus_minus(value: float, half: float, digits: int = 3) -> str:
    if math.isnan(half):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} +-{half:.{digits}f}"


def summary_text(players: pd.DataFrame) -> str:
    """What a run showed, for the terminal: win rate and score margin per bot (95% intervals
    clustered by deal), the first-player edge, the economy per bot, and the balance targets."""
    lines = []
    bots = balance.bot_table(players)
    width = max(len("bot"), *(len(name) for name in bots.bot))
    lines.append(f"{'bot':<{width}}  seats  win rate (95%)    margin (95%)     score  unspent Credits")
    for row in bots.itertuples(index=False):
        lines.append(
            f"{row.bot:<{width}}  {row[1]:>5}  {_plus_minus(row[3], row[4]):<16}  "
            f"{_plus_minus(row[5], row[6], 2):<15}  {row[7]:5.1f}  {row[8]:5.2f}"
        )
    if players["seat"].nunique() > 1:
        edge, half = balance.first_player_edge(players)
        lines.append(f"first-player edge (points): {_plus_minus(edge, half, 1)}")
    else:
        lines.append(balance.solo_text(players))
    purchases = balance.purchase_table(players)
    for purchase in purchases.to_dict("records"):
        bought = ", ".join(f"{item} {purchase[f'{item}: games bought']:.0%}" for item in MARKET_ITEMS)
        flights = "/".join(
            f"{purchase[f'{name} / game']:.2f}" for name in ("flights", "flights removing", "flights drawing")
        )
        lines.append(
            f"{purchase['bot']}: games with a purchase: {bought}; flights (all/remove/draw) per game {flights}"
        )
    lines.append(_checks_lines(players))
    return "\n".join(lines)
