"""``triage ladder`` (issue 19 point 2): ratings with intervals and the head-to-head table on
duplicate deals, on small samples."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.engine import make_config
from triage.sim.ladder import LadderJob, head_to_head, lineups, ratings, run_ladder
from triage.sim.report import load_results

pytest.importorskip("openskill")
cli = CliRunner()


def rigged_rows(games: int = 30) -> pd.DataFrame:
    """Three-player games where ``rigged`` always wins and ``middle`` always beats ``weak``."""
    rows = []
    for game in range(games):
        order = ["rigged", "middle", "weak"][game % 3 :] + ["rigged", "middle", "weak"][: game % 3]
        for seat, bot in enumerate(order):
            score = {"rigged": 40, "middle": 30, "weak": 20}[bot]
            rows.append(
                {
                    "game": game,
                    "deal": game // 3,
                    "seat": seat,
                    "bot": bot,
                    "score": score,
                    "won": bot == "rigged",
                }
            )
    return pd.DataFrame(rows)


def test_a_rigged_bot_gets_the_top_rating_and_wins_every_head_to_head():
    table = ratings(rigged_rows())
    assert list(table["bot"]) == ["rigged", "middle", "weak"]
    assert (table["low"] < table["mu"]).all() and (table["mu"] < table["high"]).all()
    assert table.loc[0, "low"] > table.loc[2, "high"]  # 30 straight wins separate the intervals
    pairs = head_to_head(rigged_rows()).set_index(["bot", "against"])
    assert pairs.loc[("rigged", "weak"), "ahead"] == 1.0 and pairs.loc[("weak", "middle"), "ahead"] == 0.0
    assert pairs.loc[("rigged", "middle"), "games"] == 30


def test_line_ups_cover_every_set_of_bots_and_skip_mirrors():
    assert lineups(("a", "b", "c"), 3) == [("a", "b", "c")]
    assert ("a", "a") not in lineups(("a", "b"), 2)
    assert all(len(set(lineup)) > 1 for lineup in lineups(("a", "b"), 4))


def test_a_small_ladder_puts_greedy_above_random_at_two_and_three_players():
    ladder = LadderJob(("random", "greedy"), (2, 3), 3, 5, make_config())
    rows, times = run_ladder(ladder, 1)
    assert set(rows["players"]) == {2, 3}
    # Each bot's decision times come with the rows (issue 41, point 4).
    assert set(times["bot"]) == {"random", "greedy"} and (times["decisions"] > 0).all()
    # Every line-up of a player count plays the same deals: the deal ids are shared.
    three = rows[rows.players == 3]
    assert three.groupby("deal")["lineup"].nunique().min() == 2
    assert ratings(rows).loc[0, "bot"] == "greedy"
    pairs = head_to_head(rows).set_index(["bot", "against"])
    assert pairs.loc[("greedy", "random"), "ahead"] + pairs.loc[
        ("random", "greedy"), "ahead"
    ] == pytest.approx(1)
    assert pairs.loc[("greedy", "random"), "ahead"] > 0.5


def test_triage_ladder_writes_parquet_and_the_html_report(tmp_path: Path):
    out, page = tmp_path / "ladder.parquet", tmp_path / "ladder.html"
    arguments = ["ladder", "--bots", "greedy,random", "--players", "2", "--deals", "2", "--workers", "1"]
    result = cli.invoke(app, [*arguments, "--quiet", "--out", str(out), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert "rating (openskill" in result.output and "head to head" in result.output
    assert set(pq.read_table(out).column("lineup").to_pylist()) == {"greedy,random"}
    assert 'data-table="ratings"' in page.read_text() and 'data-table="head-to-head"' in page.read_text()
    assert load_results(out).metadata["format"] == "triage.ladder/1"
    refused = cli.invoke(app, ["ladder", "--bots", "greedy", "--quiet", "--out", str(out)])
    assert refused.exit_code == 2 and "two different bots" in refused.output
