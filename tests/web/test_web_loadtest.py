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
