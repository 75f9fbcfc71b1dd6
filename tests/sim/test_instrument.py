"""The designer's instrument (issue 19 point 1): seats with deal-clustered intervals, paired
differences, targets judged on their interval, round rows, decision times, time budgets and
partial files, duplicate deals without repeated line-ups. Small samples: each test fails on a
gross break."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.engine import make_config
from triage.sim import balance
from triage.sim.games import KINDS, ROUND_COUNTS, SimJob, kind_column
from triage.sim.report import build_report, load_results
from triage.sim.runner import RunLimits, SimResult, run_local

cli = CliRunner()


def played(bots: tuple[str, ...], games: int, seed: int = 1, **settings: object) -> SimResult:
    job = SimJob(len(bots), bots, seed, make_config(settings or None), duplicate=True)
    return run_local(job, games, 1)


@pytest.fixture(scope="module")
def three() -> SimResult:
    return played(("greedy", "random", "greedy-market"), 18)


def test_a_mirror_match_plays_each_deal_once_and_a_repeated_line_up_each_distinct_rotation():
    config = make_config()
    assert SimJob(3, ("greedy",) * 3, 0, config, duplicate=True).orders == 1
    pairs = SimJob(4, ("greedy", "random") * 2, 0, config, duplicate=True)
    assert pairs.orders == 2 and pairs.seat_bots(1) == ["random", "greedy"] * 2 and pairs.deal(3) == 1
    assert SimJob(3, ("greedy", "random", "random"), 0, config, duplicate=True).orders == 3


def test_every_seat_has_an_interval_around_its_estimate_and_the_gap_is_between_two_seats(three):
    players = three.players.to_pandas()
    seats = balance.seat_table(players)
    assert list(seats["seat"]) == [0, 1, 2] and set(seats["players"]) == {3}
    for row in seats.to_dict("records"):
        assert row["win ci95"] >= 0 and row["score ci95"] > 0
        assert row["win rate"] == pytest.approx(players.loc[players.seat == row["seat"], "won"].mean())
    gap = balance.seat_gaps(players).iloc[0]
    rates = players.groupby("seat")["won"].mean()
    assert gap["gap (points)"] == pytest.approx(100 * (rates.max() - rates.min()))
    assert gap["gap ci95"] > 0


def test_deal_clustering_widens_nothing_that_is_independent_and_counts_a_deal_once():
    values = pd.Series([1.0, 0.0] * 200)
    _, apart = balance.clustered_mean(values, pd.Series(range(400)))
    deals = pd.Series([deal for deal in range(200) for _ in (0, 1)])
    _, together = balance.clustered_mean(values, deals)  # each deal: one win, one loss
    assert together < 0.01 < apart  # only the pseudo-deal of a share's small-sample floor (issue 41)


def test_a_paired_difference_of_identical_runs_is_exactly_zero(three):
    players = three.players.to_pandas()
    table = balance.paired_differences(players, players.copy())
    assert not table.empty and (table["B - A"] == 0).all() and (table["ci95"] == 0).all()
    assert (table["deals paired"] == 6).all()


def test_a_paired_difference_sees_a_changed_rule_on_the_same_deals(three):
    other = played(("greedy", "random", "greedy-market"), 18, return_to="bottom").players.to_pandas()
    table = balance.paired_differences(three.players.to_pandas(), other).set_index("figure")
    assert table.loc["seat 0: mean score", "deals paired"] == 6
    assert table["B - A"].abs().sum() > 0
    assert balance.paired_differences(
        three.players.to_pandas(), played(("greedy",) * 3, 3, seed=99).players.to_pandas()
    ).empty


def test_targets_are_judged_on_their_interval():
    assert balance.Check("x", 2.0, "1 <= x <= 4", 1, 4, 0.5).verdict == "met"
    assert balance.Check("x", 4.2, "1 <= x <= 4", 1, 4, 0.1).verdict == "not met"
    undecided = balance.Check("x", 3.9, "1 <= x <= 4", 1, 4, 0.3)
    assert undecided.verdict == "undecided" and undecided.ok
    assert balance.Check("x", 0.5, "x >= 0.3", 0.3, None, math.nan).verdict == "undecided"


def test_every_check_of_a_run_has_an_interval_containing_its_value(three):
    for check in balance.balance_checks(three.players.to_pandas()):
        assert check.half >= 0 or math.isnan(check.half), check.name
        assert check.verdict in ("met", "not met", "undecided", balance.TOO_FEW)


def test_round_rows_add_up_to_the_player_rows(three):
    rounds = three.rounds.to_pandas()
    players = three.players.to_pandas()
    assert set(rounds["round"]) == set(range(1, 7))
    by_seat = rounds.groupby(["game", "seat"])[list(ROUND_COUNTS)].sum()
    totals = players.set_index(["game", "seat"])
    for fate in ("died", "cured"):
        assert (by_seat[fate] == sum(totals[kind_column(fate, kind)] for kind in KINDS)).all()
    assert (by_seat["flights"] == totals["flights"]).all()
    assert (by_seat["flights_draw"] == totals["flights_draw"]).all()
    bought = sum(totals[column] for column in totals.columns if column.startswith("bought_"))
    assert (by_seat["bought"] == bought).all()
    table = balance.round_table(rounds)
    assert table["died"].sum() * 18 == pytest.approx(rounds["died"].sum())


def test_decision_times_are_kept_per_seat_and_game(three):
    times = three.times.to_pandas()
    players = three.players.to_pandas()
    assert len(times) == len(players)
    per_game = times.groupby("game")["decisions"].sum()
    assert (per_game == players.groupby("game")["actions"].first()).all()
    table = balance.time_table(times).set_index("bot")
    assert table.loc["random", "mean s / decision"] < table.loc["greedy", "longest s"] + 1
    assert (table["decisions"] > 0).all()


def test_a_time_budget_stops_the_run_with_whole_deals():
    job = SimJob(2, ("greedy", "random"), 0, make_config(), duplicate=True)
    checkpoints: list[int] = []
    result = run_local(
        job, 200, 1, limits=RunLimits(0.0, lambda partial: checkpoints.append(partial.games), 0.0)
    )
    assert not result.complete and 0 < result.games < 200 and result.games % 2 == 0
    assert checkpoints and checkpoints[-1] <= result.games


def test_a_killed_run_keeps_what_it_played(tmp_path: Path):
    out = tmp_path / "killed.parquet"
    command = [sys.executable, "-m", "triage", "simulate", "--games", "100000", "--bots", "random"]
    command += ["--workers", "1", "--quiet", "--checkpoint", "0", "--out", str(out)]
    source = str(Path(__file__).parents[2] / "src")
    env = dict(os.environ, PYTHONPATH=source + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (out.exists() and (tmp_path / "killed.times.parquet").exists()):
            assert time.monotonic() < deadline and process.poll() is None, "no partial file was written"
            time.sleep(0.2)
        time.sleep(1.0)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    run = load_results(out)
    assert run.metadata["complete"] is False and run.metadata["planned_games"] == 100000
    assert 0 < run.players["game"].nunique() == run.metadata["games"] < 100000
    assert run.rounds is not None and run.times is not None


def test_the_report_header_names_every_setting_and_compares_paired(tmp_path: Path):
    paths = []
    for name, extra in (("top", []), ("bottom", ["--set", "return_to=bottom"])):
        out = tmp_path / f"{name}.parquet"
        arguments = ["simulate", "--games", "8", "--bots", "greedy,random", "--duplicate", "--workers", "1"]
        result = cli.invoke(app, [*arguments, "--quiet", "--out", str(out), *extra])
        assert result.exit_code == 0, result.output
        assert "largest seat gap at 2 players" in result.output and "ms CPU a decision" in result.output
        paths.append(out)
    compared = cli.invoke(app, ["report", "--compare", *map(str, paths), "-o", str(tmp_path / "r.html")])
    assert compared.exit_code == 0, compared.output
    assert "bottom - top, paired over shared deals" in compared.output
    page = build_report([load_results(path) for path in paths])
    assert (
        "--set return_to=bottom" in page
        and "config.return_to is &#x27;bottom&#x27; against &#x27;top&#x27;" in page
    )
    assert 'data-table="paired"' in page and 'data-table="rounds"' in page and 'data-table="times"' in page
