"""The load benchmark runs end to end (its figures are reported, never asserted: no timed tests)."""

from __future__ import annotations

from triage.web.loadtest import percentile, run_loadtest


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50 and percentile(values, 0.99) == 99 and percentile(values, 1.0) == 100
    assert percentile([7.0], 0.99) == 7.0


def test_the_load_benchmark_plays_tables_over_http_and_reports_its_figures() -> None:
    result = run_loadtest(tables=3, players=2, think=0.0, seconds=1.5, ramp=0.1)
    assert result["errors"] == 0, result["last_error"]
    assert result["actions"] > 10
    assert 0 < result["median_ms"] <= result["p99_ms"] <= result["max_ms"]
    assert result["server_peak_mb"] > 10


def test_a_mix_of_seats_bot_levels_and_spectators_reports_statements_and_the_worst_table() -> None:
    result = run_loadtest(
        tables=4,
        players=[1, 2],
        bots=[None, "random", "greedy", "expert-novice"],
        spectators=2,
        think=0.0,
        seconds=2.0,
        ramp=0.1,
    )
    assert result["errors"] == 0, result["last_error"]
    assert result["players"] == [1, 2] and result["bots"] == [None, "random", "greedy", "expert-novice"]
    assert result["spectator_updates"] >= result["actions"] > 10  # two spectators a table see every action
    assert result["median_ms"] <= result["worst_table_p99_ms"] <= result["max_ms"]
    assert 0 < result["worst_table_actions"] < result["actions"]
    # The server counted what it sent SQLite: at least a write (UPDATE, INSERT) per action.
    kinds = result["db_statements_by_kind"]
    assert result["db_statements_per_action"] >= 2 and kinds["UPDATE"] >= 1 and kinds["INSERT"] >= 1


def test_the_loadtest_command_refuses_an_unknown_bot_and_too_many_seats() -> None:
    from typer.testing import CliRunner

    from triage.cli import app

    unknown = CliRunner().invoke(app, ["loadtest", "--bots", "none,nobody"])
    assert unknown.exit_code == 2 and "unknown bot 'nobody'" in unknown.output
    crowded = CliRunner().invoke(app, ["loadtest", "--players", "4", "--bots", "random"])
    assert crowded.exit_code == 2 and "at most 4 seats" in crowded.output
