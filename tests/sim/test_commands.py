"""``triage simulate`` and ``triage report`` end to end (issue points 1, 4 and 6)."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.engine import make_config
from triage.sim.games import FATES, KINDS, kind_column
from triage.sim.report import FIGURES

cli = CliRunner()
REQUIRED = ["game", "seat", "bot", "score", "vp", "quality", "credits", "won", "rounds", "first_player"]


def simulate(tmp_path: Path, name: str, *args: str) -> Path:
    out = tmp_path / f"{name}.parquet"
    result = cli.invoke(app, ["simulate", "--games", "12", "--quiet", "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("runs")
    top = simulate(folder, "top", "--bots", "greedy,random", "--seed", "3", "--workers", "1")
    bottom = simulate(folder, "bottom", "--bots", "greedy,random", "--seed", "3", "--set", "return_to=bottom")
    return top, bottom


def test_simulate_writes_player_and_card_rows(runs):
    players = pq.read_table(runs[0]).to_pandas()
    assert all(column in players.columns for column in REQUIRED)
    assert all(kind_column(fate, kind) in players.columns for fate in FATES for kind in KINDS)
    assert len(players) == 24 and sorted(players.game.unique()) == list(range(12))
    assert list(players.bot[:2]) == ["greedy", "random"]
    assert players.groupby("game").won.sum().le(1).all()  # at most one winner (R4)
    cards = pq.read_table(runs[0].with_name("top.cards.parquet")).to_pandas()
    assert len(cards) == 12 * 40
    assert {"card", "kind", "drawn", "admitted", "rejected", "cured", "died", "rounds_in_hospital"} <= set(
        cards.columns
    )


def test_set_reaches_the_games(runs):
    """V1 return_to=bottom changes play, and is recorded in the file."""
    top, bottom = (pq.read_table(path) for path in runs)
    assert b"bottom" in bottom.schema.metadata[b"triage.sim"]
    assert top.column("score").to_pylist() != bottom.column("score").to_pylist()


@pytest.mark.parametrize(
    "setting, recorded",
    [
        ('return_to={cured="bottom"}', '"return_to": {"cured": "bottom"'),
        ("helicopter_draws=reopen", '"helicopter_draws": "reopen"'),
        ("terminal_upkeep=reward", '"terminal_upkeep": "reward"'),
        ("quality_floor=0", '"quality_floor": 0'),
    ],
)
def test_set_takes_each_variant(runs, tmp_path, setting, recorded):
    """V1-V4 are configuration values a run can change with --set; each changes play."""
    out = simulate(
        tmp_path, "variant", "--bots", "greedy,random", "--seed", "3", "--workers", "1", "--set", setting
    )
    assert recorded.encode() in pq.read_schema(out).metadata[b"triage.sim"]
    changed = pq.read_table(out).to_pandas()
    default = pq.read_table(runs[0]).to_pandas()
    columns = ["score", "quality", "vp", "credits", "rounds"]
    assert not changed[columns].equals(default[columns])


def test_a_solo_run_records_the_tier_reached(tmp_path):
    out = simulate(tmp_path, "solo", "--players", "1", "--bots", "greedy", "--workers", "1")
    players = pq.read_table(out).to_pandas()
    tiers = dict(make_config().solo_tiers)
    for row in players.itertuples():
        reached = [name for name, lowest in tiers.items() if row.score >= lowest and row.quality > 0]
        assert row.tier == (reached[0] if reached else None)
    assert players.tier.notna().any()


def test_simulate_is_byte_identical_across_worker_counts(runs, tmp_path):
    again = simulate(tmp_path, "again", "--bots", "greedy,random", "--seed", "3", "--workers", "2")
    assert again.read_bytes() == runs[0].read_bytes()
    assert (
        again.with_name("again.cards.parquet").read_bytes()
        == runs[0].with_name("top.cards.parquet").read_bytes()
    )


def test_simulate_on_a_local_ray_instance_writes_the_same_bytes(runs, tmp_path):
    ray = pytest.importorskip("ray")
    on_ray = simulate(
        tmp_path, "ray", "--bots", "greedy,random", "--seed", "3", "--ray", "local", "--workers", "2"
    )
    assert not ray.is_initialized()  # the instance the command started is shut down again
    assert on_ray.read_bytes() == runs[0].read_bytes()
    assert (
        on_ray.with_name("ray.cards.parquet").read_bytes()
        == runs[0].with_name("top.cards.parquet").read_bytes()
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bots", "random,nobody"], "unknown bot 'nobody'"),
        (["--bots", "random,random,random"], "names 3 seats but the game has 2 players"),
        (["--set", "nonsense=1"], "unknown configuration key 'nonsense'"),
        (["--set", "return_to=sideways"], "return_to must be one of"),
        (["--out", "results.csv"], "must end in .parquet"),
        (["--duplicate", "--players", "3", "--bots", "greedy,random,random"], "must be a multiple of 3"),
        (["--duplicate", "--rotate"], "exclude each other"),
    ],
)
def test_simulate_refuses_bad_input_clearly(tmp_path, args, message):
    result = cli.invoke(
        app, ["simulate", "--games", "2", "--quiet", "--out", str(tmp_path / "x.parquet"), *args]
    )
    assert result.exit_code == 2
    assert message in result.output


def test_duplicate_run_reports_win_rate_and_margin_per_bot(tmp_path):
    out = tmp_path / "dup.parquet"
    result = cli.invoke(
        app,
        [
            "simulate",
            "--games",
            "8",
            "--quiet",
            "--duplicate",
            "--workers",
            "1",
            "--bots",
            "greedy,random",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    players = pq.read_table(out).to_pandas()
    assert list(players.deal) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]
    assert list(players.bot[:4]) == ["greedy", "random", "random", "greedy"]  # both seat orders
    assert players.groupby("deal").game_seed.nunique().eq(1).all()
    lines = {
        line.split()[0]: line
        for line in result.output.splitlines()
        if line.startswith(("greedy ", "random "))
    }
    win_rate = players[players.bot == "greedy"].won.mean()
    assert f"{win_rate:.3f} +-" in lines["greedy"]
    assert "first-player edge (points)" in result.output and "bought per player-game" in result.output
    assert b'"duplicate": true' in pq.read_schema(out).metadata[b"triage.sim"]


DESIGNER_BOT = """
class FirstLegal:
    name = "first-legal"

    def choose(self, view, legal, rng):
        return legal[0]
"""


def test_a_designers_bot_plays_as_module_colon_class_in_worker_processes(tmp_path, monkeypatch):
    (tmp_path / "my_table_bots.py").write_text(DESIGNER_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))  # spawned workers inherit the import path
    out = simulate(tmp_path, "mine", "--bots", "my_table_bots:FirstLegal,greedy", "--workers", "2")
    players = pq.read_table(out).to_pandas()
    assert set(players.bot) == {"my_table_bots:FirstLegal", "greedy"}
    assert players[players.bot == "greedy"].won.mean() > 0.5
    bad = cli.invoke(
        app,
        [
            "simulate",
            "--games",
            "2",
            "--quiet",
            "--bots",
            "no_such_module_x:Bot",
            "--out",
            str(tmp_path / "bad.parquet"),
        ],
    )
    assert bad.exit_code == 2 and "--bots: bot 'no_such_module_x:Bot': cannot import module" in bad.output


#: A figure element holding an embedded PNG of some size (not an empty image).
FIGURE = re.compile(
    r'data-figure="(\w+)"[^>]*>.*?<img [^>]*src="data:image/png;base64,[A-Za-z0-9+/=]{200,}"', re.DOTALL
)


def figures_in(page: str) -> list[str]:
    return FIGURE.findall(page)


def test_report_is_self_contained_with_every_figure(runs, tmp_path):
    page_path = tmp_path / "report.html"
    result = cli.invoke(app, ["report", str(runs[0]), "-o", str(page_path)])
    assert result.exit_code == 0, result.output
    page = page_path.read_text()
    assert figures_in(page) == [key for key, _, _ in FIGURES]
    assert 'data-table="cards"' in page and "<td>C1</td>" in page
    assert 'data-table="bots"' in page and "win ci95" in page and "margin ci95" in page
    assert 'data-table="economy"' in page and "flights drawing / player-game" in page
    assert "first-player win-rate advantage" in page
    assert not re.search(r'(src|href)="(https?:|//)', page)  # nothing fetched from elsewhere
    assert "deaths per player per game" in result.output


def test_report_compares_runs_side_by_side(runs, tmp_path):
    page_path = tmp_path / "compare.html"
    result = cli.invoke(
        app,
        [
            "report",
            "--compare",
            str(runs[0]),
            str(runs[1]),
            "--label",
            "top",
            "--label",
            "bottom",
            "-o",
            str(page_path),
        ],
    )
    assert result.exit_code == 0, result.output
    page = page_path.read_text()
    assert figures_in(page) == [key for key, _, _ in FIGURES for _ in range(2)]
    for key, _, _ in FIGURES:
        assert f'id="fig-{key}-0" data-figure="{key}" data-run="top"' in page
        assert f'id="fig-{key}-1" data-figure="{key}" data-run="bottom"' in page


def test_report_refuses_files_it_cannot_use(runs, tmp_path):
    not_parquet = tmp_path / "notes.parquet"
    not_parquet.write_text("hello")
    cases = [
        ([str(tmp_path / "missing.parquet")], "no such result file"),
        ([str(not_parquet)], "not a Parquet file"),
        (["--compare", str(runs[0])], "--compare needs two or more"),
        ([str(runs[0]), "--label", "a", "--label", "b"], "--label given 2 times for 1 files"),
    ]
    for args, message in cases:
        result = cli.invoke(app, ["report", *args, "-o", str(tmp_path / "r.html")])
        assert result.exit_code == 2, args
        assert message in result.output, (args, result.output)


def test_report_pools_runs_of_one_experiment(runs, tmp_path):
    """Two seeds of one experiment are one sample of 24 games (the intervals and targets over
    both); runs that played another game, or the same deals twice, are refused by name."""
    more = simulate(tmp_path, "more", "--bots", "greedy,random", "--seed", "4", "--workers", "1")
    page_path = tmp_path / "pooled.html"
    result = cli.invoke(app, ["report", "--pool", str(runs[0]), str(more), "-o", str(page_path)])
    assert result.exit_code == 0, result.output
    assert "pooled (2 runs): 24 games, 48 player rows" in result.output
    assert "first-player edge (points)" in result.output and "greedy" in result.output
    assert figures_in(page_path.read_text()) == [key for key, _, _ in FIGURES]
    cases = [
        ([str(runs[0]), str(runs[1])], "config.return_to is 'bottom' against 'top'"),
        ([str(runs[0]), str(runs[0])], "seed 3 is used twice"),
        ([str(runs[0])], "--pool needs two or more"),
        (["--compare", str(runs[0]), str(more)], "--compare and --pool exclude each other"),
    ]
    for args, message in cases:
        refused = cli.invoke(app, ["report", "--pool", *args, "-o", str(tmp_path / "r.html")])
        assert refused.exit_code == 2 and message in refused.output, (args, refused.output)
