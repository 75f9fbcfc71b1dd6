"""The ``triage`` command as a user runs it: demo, replay, bench."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from triage.cli import app
from triage.engine.records import load_record, replay

runner = CliRunner()


def test_demo_plays_a_whole_game_position_by_position(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    result = runner.invoke(app, ["demo", "--seed", "5", "--record", str(record)])
    assert result.exit_code == 0, result.output
    assert result.output.count("Round ") > 20
    assert "Game over." in result.output
    game = replay(load_record(record))
    assert game.is_over()


def test_demo_from_a_seat_shows_only_that_seat_s_view(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--seed", "5", "--seat", "1"])
    assert result.exit_code == 0
    assert "?" in result.output  # unknown backs are drawn as question marks


def test_demo_refuses_bad_options(tmp_path: Path) -> None:
    result = runner.invoke(app, ["demo", "--bots", "random,random,random"])
    assert result.exit_code == 2 and "--bots names 3 seats but the game has 2 players" in result.output
    result = runner.invoke(app, ["demo", "--bots", "clever"])
    assert result.exit_code == 2 and "unknown bot 'clever'" in result.output
    bad = tmp_path / "c.toml"
    bad.write_text("rounds = -3\n")
    result = runner.invoke(app, ["demo", "--config", str(bad)])
    assert result.exit_code == 2 and "rounds must be a whole number" in result.output
    result = runner.invoke(app, ["demo", "--set", "return_to=sideways"])
    assert result.exit_code == 2 and "return_to" in result.output


def test_demo_takes_a_config_and_set_overrides() -> None:
    result = runner.invoke(app, ["demo", "--quiet", "--set", "rounds=1", "--players", "3"])
    assert result.exit_code == 0
    assert "Round 1  phase over" in result.output


def test_replay_steps_through_a_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    runner.invoke(app, ["demo", "--seed", "2", "--quiet", "--record", str(record)])
    actions = len(json.loads(record.read_text())["actions"])
    result = runner.invoke(app, ["replay", str(record)])
    assert result.exit_code == 0
    assert result.output.count(">>> action") == actions
    assert "Game over." in result.output


def test_replay_refuses_a_broken_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    runner.invoke(app, ["demo", "--seed", "2", "--quiet", "--record", str(record)])
    data = json.loads(record.read_text())
    data["actions"][3]["do"] = {"type": "heal", "patient": "P99", "amount": 1}
    record.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", str(record)])
    assert result.exit_code == 2 and "action 4 is refused" in result.output
    (tmp_path / "junk.json").write_text("{not json")
    result = runner.invoke(app, ["replay", str(tmp_path / "junk.json")])
    assert result.exit_code == 2 and "not valid JSON" in result.output


def test_bench_json_reports_actions_and_games_per_second() -> None:
    result = runner.invoke(app, ["bench", "--games", "3", "--json"])
    assert result.exit_code == 0
    figures = json.loads(result.output)
    assert figures["games"] == 3 and figures["actions"] > 30
    assert figures["actions_per_s"] > 0 and figures["games_per_s"] > 0


def test_replay_of_a_running_game_shows_a_seat_unless_asked_for_everything(tmp_path: Path) -> None:
    """Hidden information never leaks through a replay: a game not yet over needs --seat."""
    record = tmp_path / "game.json"
    runner.invoke(app, ["demo", "--seed", "2", "--quiet", "--record", str(record)])
    data = json.loads(record.read_text())
    data["actions"] = data["actions"][:10]
    data.pop("result", None)
    record.write_text(json.dumps(data))
    refused = runner.invoke(app, ["replay", str(record)])
    assert refused.exit_code == 2 and "not over" in refused.output and "--seat" in refused.output
    as_seat = runner.invoke(app, ["replay", str(record), "--seat", "0"])
    assert as_seat.exit_code == 0 and "?" in as_seat.output
    whole = runner.invoke(app, ["replay", str(record), "--referee"])
    assert whole.exit_code == 0 and "?" not in whole.output
