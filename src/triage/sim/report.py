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
import pandas as pd
import pyarrow.parquet as pq
from matplotlib.figure import Figure

from triage.bots.base import BotForm
from triage.sim import balance
from triage.sim.games import CARD_COUNTS, KINDS, market_items
from triage.sim.provenance import LadderMetadata, RunMetadata, comparable
from triage.sim.runner import PLAYER_SCHEMA, cards_path, read_metadata, side_path


class ReportError(ValueError):
    """A result file the report cannot use; the message names the file and what is wrong."""


@dataclass
class Results:
    """One result file, loaded."""

    label: str
    path: Path
    players: pd.DataFrame
    cards: pd.DataFrame | None
    metadata: RunMetadata | LadderMetadata
    #: Round rows and decision times (side files; None when missing, as in older runs).
    rounds: pd.DataFrame | None = None
    times: pd.DataFrame | None = None


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
    rounds, times = (_side(path, part) for part in ("rounds", "times"))
    return Results(label or path.stem, path, players, cards, read_metadata(path), rounds, times)


def _side(path: Path, part: str) -> pd.DataFrame | None:
    side = side_path(path, part)
    return pq.read_table(side).to_pandas() if side.is_file() else None


#: What must agree for runs to be pooled: the same game, the same bots in the same exact forms
#: (search, budget, value file by its hash), the same way of dealing.
POOL_KEYS: tuple[str, ...] = ("players", "bots", "bot_forms", "rotate", "duplicate", "config", "deck")


def pool_results(runs: list[Results], label: str | None = None) -> Results:
    """Several runs of one experiment (different ``--seed``) as one larger sample: games and
    deals renumbered so that each stays its own cluster. Refused, naming the setting, when the
    runs did not play the same game with the same bots; runs with a seed in common would repeat
    deals, so they are refused too."""
    first = runs[0].metadata
    seeds: list[Any] = []
    for run in runs:
        for key in POOL_KEYS:
            differences = _differences(comparable(run.metadata.get(key)), comparable(first.get(key)), key)
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
    parts: dict[str, list[pd.DataFrame]] = {"players": [], "cards": [], "rounds": [], "times": []}
    offset = 0
    for run in runs:
        for name, frame in (
            ("players", run.players),
            ("cards", run.cards),
            ("rounds", run.rounds),
            ("times", run.times),
        ):
            if frame is None:
                continue
            frame = frame.copy()
            frame["game"] += offset
            if "deal" in frame.columns:
                frame["deal"] += offset
            parts[name].append(frame)
        offset = int(run.players["game"].max()) + offset + 1
    metadata = first.copy()
    metadata["games"] = sum(run.metadata.get("games", 0) for run in runs)
    metadata["seed"] = seeds

    def joined(name: str) -> pd.DataFrame | None:
        return pd.concat(parts[name], ignore_index=True) if len(parts[name]) == len(runs) else None

    return Results(
        label or f"pooled ({len(runs)} runs)",
        runs[0].path,
        pd.concat(parts["players"], ignore_index=True),
        joined("cards"),
        metadata,
        joined("rounds"),
        joined("times"),
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
    """Win rate by seat with 95% intervals clustered by deal: the first-player advantage."""
    table = balance.seat_table(results.players)
    figure, axis = plt.subplots(figsize=(4, 3.2))
    labels = [f"{row.players}p seat {row.seat}" for row in table.itertuples()]
    axis.bar(labels, table["win rate"], yerr=table["win ci95"].fillna(0), capsize=4)
    axis.axhline(1 / max(table["seat"].max() + 1, 1), color="grey", linestyle="--", linewidth=1)
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
            "games": label or "all",
            "target": check.name,
            "measured": check.value,
            "95% +-": check.half,
            "deals": check.deals,
            "goal": check.target,
            "verdict": check.verdict,
        }
        for label, checks in balance.checks_by_lineup(run.players)
        for check in checks
    ]
    return _table_html(pd.DataFrame(rows), "checks")


def _economy(run: Results) -> pd.DataFrame:
    """The purchase table with one column per bot (its rows are many, its bots few)."""
    return balance.purchase_table(run.players).set_index("bot").T.reset_index(names="figure")


def _describe(run: Results) -> str:
    meta = run.metadata
    if not meta:
        return f"{html.escape(str(run.path))}"
    return f"{html.escape(str(run.path))}: " + html.escape("; ".join(configuration_lines(meta)))


def configuration_lines(meta: RunMetadata | LadderMetadata) -> list[str]:
    """What a run played, from its metadata: games, players, bots, dealing, seed, every
    ``--set`` as given and every configuration value that differs from the default."""
    from triage.engine.config import make_config

    dealing = (
        "duplicate deals"
        if meta.get("duplicate")
        else "rotating seats"
        if meta.get("rotate")
        else "fixed seats"
    )
    played = f"{meta.get('games')} games"
    if meta.get("complete") is False:
        played += f" (stopped early: {meta.get('games')} of {meta.get('planned_games')})"
    lines = [
        played,
        f"{meta.get('players')} players",
        f"bots {', '.join(meta.get('bots', []))}",
        dealing,
        f"seed {meta.get('seed')}",
        "--set " + " --set ".join(meta["set"]) if meta.get("set") else "no --set",
        "custom deck" if meta.get("deck") else "standard deck",
    ]
    config = meta.get("config")
    if isinstance(config, dict):
        changed = _differences(config, make_config().to_dict(), "config")
        lines.append(
            "configuration: " + (", ".join(changed) + " (against the default)" if changed else "the default")
        )
    forms = meta.get("bot_forms")  # a ladder's are by player count: not listed here
    if isinstance(forms, dict):
        lines += [form_line(form) for form in forms.values()]
    made = meta.get("software")
    if isinstance(made, dict):
        commit = made.get("commit")
        state = " (with local changes)" if made.get("modified") else ""
        lines.append(
            f"Triage {made.get('triage')}" + (f", commit {str(commit)[:12]}{state}" if commit else "")
        )
    return lines


def form_line(form: BotForm) -> str:
    """One bot's exact form in a few words: ``expert: short playouts scored by a fitted value,
    140 playouts a decision, CPU cap 0.25 s, value standard-2p.json (SHA-256 b985c6c7aa13)``."""
    parts = [str(form.get("search") or form.get("class") or "")]
    if form.get("playouts") is not None:
        parts.append(f"{form['playouts']} playouts a decision")
    if form.get("time_limit") is not None:
        parts.append(f"CPU cap {form['time_limit']:g} s")
    value = form.get("value")
    if isinstance(value, dict):
        parts.append(f"value {Path(str(value.get('file'))).name} (SHA-256 {str(value.get('sha256'))[:12]})")
    elif value:
        parts.append(f"value: {value}")
    return f"{form.get('bot')}: " + ", ".join(part for part in parts if part)


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


def _side_by_side(runs: list[Results], key: str, table: Callable[[Results], str]) -> str:
    """One block per run, side by side, each captioned with the run's label."""
    blocks = "".join(
        f'<div data-table="{key}"><figcaption>{html.escape(run.label)}</figcaption>{table(run)}</div>'
        for run in runs
    )
    return f'<div class="row">{blocks}</div>'


def _rounds_html(run: Results) -> str:
    if run.rounds is None:
        return "<p>No round rows in this run.</p>"
    return _table_html(balance.round_table(run.rounds), "rounds")


def _times_html(run: Results) -> str:
    if run.times is None:
        return "<p>No decision times in this run.</p>"
    return _table_html(balance.time_table(run.times), "times")


def _ladder_sections(runs: list[Results]) -> list[str]:
    """A ladder's ratings and head-to-head table (runs written by ``triage ladder``)."""
    from triage.sim import ladder

    out = []
    for run in runs:
        if ladder.LINEUP not in run.players.columns:
            continue
        caption = html.escape(run.label)
        out.append(f"<h2>{caption}: ratings (openskill Plackett-Luce, 95%: mu +- 1.96 sigma)</h2>")
        out.append(f'<div data-table="ratings">{_table_html(ladder.ratings(run.players), "ratings")}</div>')
        out.append(f"<h2>{caption}: head to head (share of shared games the row bot finished ahead)</h2>")
        grid = ladder.head_to_head_grid(ladder.head_to_head(run.players))
        out.append(f'<div data-table="head-to-head">{_table_html(grid, "head-to-head")}</div>')
    return out


def _paired_sections(runs: list[Results]) -> list[str]:
    """Each run after the first against the first (B - A), paired deal by deal when they share deals."""
    out = []
    for run in runs[1:]:
        caption = f"Paired differences: {run.label} - {runs[0].label} (95% intervals over shared deals)"
        table = balance.paired_differences(runs[0].players, run.players)
        body = (
            _table_html(table, "paired")
            if not table.empty
            else "<p>No deal in common: no paired difference.</p>"
        )
        out.append(f'<h2>{html.escape(caption)}</h2><div data-table="paired">{body}</div>')
    return out


def paired_text(first: Results, second: Results) -> str:
    """The paired differences B - A as terminal lines."""
    table = balance.paired_differences(first.players, second.players)
    if table.empty:
        return f"{second.label} - {first.label}: no deal in common, no paired difference"
    lines = [f"{second.label} - {first.label}, paired over shared deals:"]
    for row in table.to_dict("records"):
        lines.append(
            f"  {row['figure']}: {_plus_minus(row['B - A'], row['ci95'])} "
            f"(A {row['A']:.3f}, B {row['B']:.3f}, {row['deals paired']} deals)"
        )
    return "\n".join(lines)


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
        *_ladder_sections(runs),
        "<h2>Summary</h2>",
        _summary_table(runs),
        "<h2>Seats: win rate and mean score (95% intervals, clustered by deal), largest seat gap</h2>",
        _side_by_side(runs, "seats", lambda run: _table_html(balance.seat_table(run.players), "seats")),
        _side_by_side(runs, "gaps", lambda run: _table_html(balance.seat_gaps(run.players), "gaps")),
        *_paired_sections(runs),
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
        "<h2>Per round and seat: deaths, cures, flights, flights drawing, purchases per game</h2>",
        _side_by_side(runs, "rounds", _rounds_html),
        "<h2>Decision times by bot (CPU seconds)</h2>",
        _side_by_side(runs, "times", _times_html),
        (
            "<h2>Balance targets (judged on the 95% interval: met, not met, undecided; no verdict on fewer "
            f"than {balance.MIN_DEALS} deals; a ladder's on each line-up apart)</h2>"
        ),
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
    groups = balance.checks_by_lineup(players)
    for label, checks in groups:
        if label:
            lines.append(f"targets on {label} only:")
        for check in checks:
            value = "nan" if math.isnan(check.value) else _plus_minus(check.value, check.half)
            sample = "" if check.deals is None else f", {check.deals} deals"
            lines.append(f"{check.verdict:<13}  {check.name}: {value} ({check.target}{sample})")
    if any(
        check.verdict == balance.TOO_FEW
        for _, checks in balance.checks_by_lineup(players)
        for check in checks
    ):
        lines.append(f"(no verdict on fewer than {balance.MIN_DEALS} deals, whatever the interval)")
    return "\n".join(lines)


def _plus_minus(value: float, half: float, digits: int = 3) -> str:
    if math.isnan(half):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} +-{half:.{digits}f}"


def seats_text(players: pd.DataFrame) -> list[str]:
    """Every seat's win rate and mean score at every player count, and the largest seat gap."""
    lines = ["players seat  games  win rate (95%)    mean score (95%)"]
    for row in balance.seat_table(players).to_dict("records"):
        lines.append(
            f"{row['players']:>7} {row['seat']:>4}  {row['games']:>5}  "
            f"{_plus_minus(row['win rate'], row['win ci95']):<16}  {_plus_minus(row['mean score'], row['score ci95'], 2)}"
        )
    for gap in balance.seat_gaps(players).to_dict("records"):
        lines.append(
            f"largest seat gap at {gap['players']} players: seat {gap['best seat']} - seat {gap['worst seat']} "
            f"{_plus_minus(gap['gap (points)'], gap['gap ci95'], 1)} points"
        )
    return lines


def purchase_lines(players: pd.DataFrame) -> list[str]:
    """Per bot: each item bought per player-game and the share of player-games buying it (per
    player), with the share of games in which any of its seats bought it named as such; flights."""
    lines = []
    for purchase in balance.purchase_table(players).to_dict("records"):
        bought = ", ".join(
            f"{item} {purchase[f'{item} / player-game']:.2f} ({purchase[f'{item}: share of player-games']:.0%} "
            f"of players; any seat in {purchase[f'{item}: share of games, any seat']:.0%} of games)"
            for item in market_items(players.columns)
        )
        flights = "/".join(
            f"{purchase[f'{name} / player-game']:.2f}"
            for name in ("flights", "flights removing", "flights drawing")
        )
        lines.append(f"{purchase['bot']}: bought per player-game: {bought}")
        lines.append(f"{purchase['bot']}: flights (all/remove/draw) per player-game {flights}")
    return lines


def summary_text(
    players: pd.DataFrame, times: pd.DataFrame | None = None, rounds: pd.DataFrame | None = None
) -> str:
    """What a run showed, for the terminal: win rate and score margin per bot (95% intervals
    clustered by deal), every seat, the first-player edge, the economy per bot, deaths and
    flights by round, decision times, and the balance targets judged on their intervals."""
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
        lines.extend(seats_text(players))
        edge, half = balance.first_player_edge(players)
        lines.append(f"first-player edge (points): {_plus_minus(edge, half, 1)}")
    else:
        lines.append(balance.solo_text(players))
    lines += purchase_lines(players)
    if rounds is not None and not rounds.empty:
        lines.append("per game, by round and seat:")
        lines.append(balance.round_table(rounds).to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    if times is not None and not times.empty:
        for timing in balance.time_table(times).to_dict("records"):
            lines.append(
                f"{timing['bot']}: {timing['mean s / decision'] * 1000:.2f} ms CPU a decision on average, "
                f"longest {timing['longest s'] * 1000:.1f} ms, {timing['decisions']} decisions"
            )
    lines.append(_checks_lines(players))
    return "\n".join(lines)
