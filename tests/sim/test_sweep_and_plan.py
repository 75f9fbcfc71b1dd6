"""Issue 41, point 4: sweeps over configuration values on the same deals, the sample-size planner,
the ladder's time budget, per-bot deals and decision times, fit-value's progress and budget."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.sim.sweep import Axis, deals_needed, grid

cli = CliRunner()


def test_a_sweep_plays_the_same_deals_at_every_value_and_tables_and_plots_each_outcome(tmp_path):
    out = tmp_path / "sweep"
    args = [
        "sweep",
        "--over",
        "market.staff.price=3,6",
        "--games",
        "12",
        "--players",
        "3",
        "--bots",
        "greedy",
    ]
    result = cli.invoke(app, [*args, "--workers", "1", "--quiet", "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    runs = {value: pq.read_table(out / f"market.staff.price={value}.parquet").to_pandas() for value in (3, 6)}
    assert list(runs[3]["game_seed"]) == list(runs[6]["game_seed"])  # paired: the same cards at each value
    assert runs[3]["bought_staff"].sum() > runs[6]["bought_staff"].sum()
    table = pd.read_csv(out / "sweep.csv")
    staff = table[table["outcome"] == "staff bought / player-game"].set_index("market.staff.price")
    assert staff.loc[3, "value"] == runs[3]["bought_staff"].mean() and staff.loc[3, "deals"] == 12
    assert {"seat 0 win rate", "seat 2 win rate", "deaths / player-game", "rounds played"} <= set(
        table["outcome"]
    )
    page = (out / "sweep.html").read_text()
    assert (
        page.count("<img") == table["outcome"].nunique()
        and 'data-figure="staff bought / player-game"' in page
    )
    assert "market.staff.price=3" in result.output and "+-" in result.output


def test_a_two_key_sweep_covers_the_grid(tmp_path):
    axes = [Axis.parse("market.staff.price=3,4"), Axis.parse("seat_vp.2=[0,0],[0,1]")]
    assert grid(axes) == [
        ("market.staff.price=3", "seat_vp.2=[0,0]"),
        ("market.staff.price=3", "seat_vp.2=[0,1]"),
        ("market.staff.price=4", "seat_vp.2=[0,0]"),
        ("market.staff.price=4", "seat_vp.2=[0,1]"),
    ]
    out = tmp_path / "grid"
    args = ["sweep", "--over", "market.staff.price=3,4", "--over", "seat_vp.2=[0,0],[0,1]", "--games", "4"]
    result = cli.invoke(app, [*args, "--workers", "1", "--quiet", "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    assert len(list(out.glob("*.parquet"))) == 4 * 4  # each run's player, card, round and time files


@pytest.mark.parametrize(
    "over, message",
    [("market.staff.price", "expected key=value,value"), ("market.staff.price=3,,4", "an empty value")],
)
def test_a_sweep_refuses_a_bad_axis(tmp_path, over, message):
    result = cli.invoke(app, ["sweep", "--over", over, "--out-dir", str(tmp_path)])
    assert result.exit_code == 2 and message in result.output


def test_the_planner_scales_a_pilots_interval_to_the_half_width_asked(tmp_path):
    assert deals_needed(0.04, 100, 0.02) == 400 and deals_needed(0.01, 100, 0.02) == 25
    pilot = tmp_path / "pilot.parquet"
    run = cli.invoke(
        app,
        ["simulate", "--games", "60", "--bots", "greedy", "--workers", "1", "--quiet", "--out", str(pilot)],
    )
    assert run.exit_code == 0, run.output
    result = cli.invoke(app, ["plan", str(pilot), "--within", "0.02", "--outcome", "seat 1 win rate"])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if "seat 1 win rate" in line)
    assert "deals" in line and "CPU hours" in line
    missing = cli.invoke(app, ["plan", str(pilot), "--outcome", "nothing like it"])
    assert missing.exit_code == 2 and "no outcome" in missing.output


def test_the_ladder_plays_fewer_deals_for_a_slow_bot_and_reports_decision_times(tmp_path):
    out = tmp_path / "ladder.parquet"
    args = ["ladder", "--bots", "greedy,random,expert-club", "--deals", "6", "--deals-for", "expert-club=2"]
    result = cli.invoke(
        app, [*args, "--workers", "1", "--quiet", "--out", str(out), "--html", str(tmp_path / "l.html")]
    )
    assert result.exit_code == 0, result.output
    rows = pq.read_table(out).to_pandas()
    deals = rows.groupby("lineup")["deal"].nunique().to_dict()
    assert deals == {"greedy,random": 6, "greedy,expert-club": 2, "random,expert-club": 2}
    assert (
        "decision time per bot" in result.output and "expert-club" in result.output.split("decision time")[1]
    )
    times = pq.read_table(out.with_name("ladder.times.parquet")).to_pandas()
    assert set(times["bot"]) == {"greedy", "random", "expert-club"}
    meta = json.loads(pq.read_schema(out).metadata[b"triage.sim"])
    assert meta["deals_for"] == {"expert-club": 2} and "2" in meta["bot_forms_by_players"]
    bad = cli.invoke(app, ["ladder", "--bots", "greedy,random", "--deals-for", "expert=3", "--out", str(out)])
    assert bad.exit_code == 2 and "not among the ladder's bots" in bad.output


def test_the_ladders_time_budget_stops_it_with_whole_deals(tmp_path):
    out = tmp_path / "ladder.parquet"
    args = ["ladder", "--bots", "greedy,random", "--deals", "4000", "--time-budget", "1"]
    result = cli.invoke(
        app, [*args, "--workers", "1", "--quiet", "--out", str(out), "--html", str(tmp_path / "l.html")]
    )
    assert result.exit_code == 0, result.output
    rows = pq.read_table(out).to_pandas()
    assert 0 < rows["game"].nunique() < 8000 and rows.groupby("deal")["game"].nunique().eq(2).all()


def test_fit_value_stops_at_its_time_budget_and_says_how_many_games(tmp_path):
    out = tmp_path / "v.json"
    args = ["fit-value", "--players", "2", "--games", "100000", "--config", "mini", "--time-budget", "1"]
    result = cli.invoke(app, [*args, "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    games = json.loads(out.read_text())["games"]
    assert 10 <= games < 100000 and f"(time budget: {games} of 100000)" in result.output
