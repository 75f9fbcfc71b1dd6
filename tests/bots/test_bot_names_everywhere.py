"""The expert bot and its levels are accepted wherever a bot is named (issue 12 points 1, 5):
the terminal game, the simulator, the web app and the research environments."""

from __future__ import annotations

import json
import random
import time
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.bots import make_bot
from triage.cli import app
from triage.engine import Game, view
from triage.play.session import Session, parse_seats, seat_kinds

cli = CliRunner()
LEVELS = ("expert", "expert-club", "expert-novice")


def test_the_terminal_game_offers_every_level_for_a_seat():
    for name in LEVELS:
        assert name in seat_kinds()
    assert parse_seats("human,expert-club", 2) == ["human", "expert-club"]


def test_a_terminal_session_lets_the_expert_move():
    session = Session.new(2, ["human", "expert-novice"], 3, None, None, None)
    while session.game.turn == 0:
        session.game.apply(session.game.legal_actions()[0])
        session.run_bots()
    assert any(entry["by"] == 1 for entry in session.game.history)


def test_triage_play_matches_the_expert_against_greedy():
    result = cli.invoke(app, ["play", "--games", "2", "--bots", "expert-novice,greedy", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    assert report["games"] == 2 and set(report["win_rate"]) == {"expert-novice", "greedy"}


def test_triage_simulate_seats_the_expert(tmp_path: Path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "expert.parquet"
    result = cli.invoke(
        app,
        [
            "simulate",
            "--games",
            "2",
            "--quiet",
            "--bots",
            "expert-novice,greedy",
            "--workers",
            "1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    files = [out] if out.exists() else sorted(tmp_path.glob("expert*.parquet"))
    bots = {name for path in files for name in pq.read_table(path).column("bot").to_pylist()}
    assert "expert-novice" in bots


def test_triage_simulate_takes_a_designers_bot(tmp_path: Path):
    out = tmp_path / "designer.parquet"
    result = cli.invoke(
        app,
        [
            "simulate",
            "--games",
            "2",
            "--quiet",
            "--bots",
            "triage.bots.greedy:GreedyBot,random",
            "--workers",
            "1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output


def test_the_web_app_lists_and_seats_the_expert(tmp_path: Path):
    pytest.importorskip("fastapi", reason="the web extra is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from triage.web.app import create_app

    with TestClient(create_app(f"sqlite:///{tmp_path / 'tables.db'}")) as client:
        listed = json.dumps(client.get("/api/bots").json())
        for name in LEVELS:
            assert f'"{name}' in listed
        created = client.post("/api/tables", json={"players": 2, "bots": [None, "expert-novice"], "seed": 4})
        assert created.status_code == 201, created.json()
        table_id = created.json()["table_id"]
        token = created.json()["seats"][0]["token"]
        headers = {"Authorization": f"Bearer {token}"}

        def live_game():  # the table's game object is replaced at every stored action
            return client.app.state.service.get(table_id).game

        deadline = time.monotonic() + 120
        while not any(entry["by"] == 1 for entry in live_game().history):
            assert time.monotonic() < deadline, "the expert seat never moved"
            game = live_game()
            if game.turn == 0:
                answer = client.post(
                    f"/api/tables/{table_id}/actions", json=game.legal_actions(0)[0], headers=headers
                )
                assert answer.status_code == 200, answer.json()
            else:
                time.sleep(0.05)  # the bot moves on the server's event loop
        refused = client.post("/api/tables", json={"players": 2, "bots": [None, "os:system"]})
        assert refused.status_code == 422


def test_a_research_environment_can_be_played_by_the_expert():
    """The environments name no opponent bots; an agent there can still be the expert, choosing
    from the seat's view and playing the id of its action."""
    pytest.importorskip("pettingzoo")
    from triage.envs.pettingzoo import raw_env

    env = raw_env(players=2)
    env.reset(seed=5)
    bot = make_bot("expert-novice")
    steps = 0
    for agent in env.agent_iter(max_iter=12):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        table = env.table
        seat = int(agent.split("_")[-1])
        action = bot.choose(view(table.game, seat), table.game.legal_actions(seat), random.Random(steps))
        index = table.layout.encode(view(table.game, seat), action)
        assert observation["action_mask"][index] == 1
        env.step(index)
        steps += 1
    assert steps == 12


def test_a_game_between_all_levels_ends():
    game = Game.new(players=3, seed=9)
    bots = [make_bot(name) for name in ("expert-novice", "greedy", "expert-novice")]
    while not game.is_over():
        game.apply(
            bots[game.turn].choose(
                view(game, game.turn), game.legal_actions(), random.Random(len(game.history))
            )
        )
    assert game.winner is not None or game.scores()
