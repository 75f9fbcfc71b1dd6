"""A designer's market item declared in a TOML file alone (T8), through the simulator and its
report: its purchases get a column of their own, counted from the events."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from typer.testing import CliRunner

from triage.cli import app
from triage.sim.balance import purchase_table

cli = CliRunner()

NIGHT_SHIFT = """
[market.night_shift]      # a designer's new item: no code change
price = 1
limit = 2
gives = { healing = 2 }
"""


def test_a_designer_item_is_counted_by_the_simulator_and_its_report(tmp_path: Path) -> None:
    config = tmp_path / "night.toml"
    config.write_text(NIGHT_SHIFT)
    out = tmp_path / "night.parquet"
    args = ["simulate", "--games", "40", "--bots", "random,random", "--seed", "2", "--workers", "1"]
    result = cli.invoke(app, [*args, "--quiet", "--config", str(config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    players = pq.read_table(out).to_pandas()
    assert players["bought_night_shift"].sum() > 0, "random play never bought the night shift"
    assert players["bought_night_shift"].max() <= 2  # its limit counts purchases (T8)
    table = purchase_table(players).set_index("bot")
    assert table.loc["random", "night_shift / player-game"] == players["bought_night_shift"].mean()
    report = cli.invoke(app, ["report", str(out), "--output", str(tmp_path / "night.html")])
    assert report.exit_code == 0, report.output
    assert "night_shift" in (tmp_path / "night.html").read_text()
