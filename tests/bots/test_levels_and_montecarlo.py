"""The levels players are offered (issue 19 point 5) and the ``montecarlo`` reference bot (point 2)."""

from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from triage.bots import BOTS, PLAYER_LEVELS, make_bot, player_levels, simulator_bots
from triage.bots.montecarlo import MonteCarloBot, score_margin
from triage.cli import app
from triage.engine import Game, view
from triage.play.session import seat_kinds


def test_players_are_offered_the_levels_and_never_the_balance_testing_bots():
    offered = [level["name"] for level in player_levels()]
    assert offered[:3] == ["expert-novice", "expert-club", "expert"]  # gentlest first
    assert seat_kinds()[1:] == offered
    for name in ("greedy-farm", "greedy-noterminal", "greedy-market", "montecarlo"):
        assert name in simulator_bots() and name not in offered and name not in seat_kinds()
    assert set(offered) | set(simulator_bots()) == set(BOTS)
    for level in player_levels():
        assert set(level) == {"name", "label", "description"} and "\n" not in level["description"]
        make_bot(level["name"])
    assert len({level.label for level in PLAYER_LEVELS}) == len(PLAYER_LEVELS)


def test_play_help_names_the_levels_and_keeps_the_testing_bots_apart():
    shown = " ".join(CliRunner().invoke(app, ["play", "--help"], terminal_width=300).output.split())
    opponents, _, testing = shown.partition("For balance testing")
    assert "expert (Expert)" in opponents and "greedy-farm" not in opponents
    assert "greedy-farm" in testing


def test_the_web_form_is_served_only_the_levels(tmp_path):
    pytest.importorskip("fastapi", reason="the web extra is not installed")
    from fastapi.testclient import TestClient

    from triage.web.app import create_app

    with TestClient(create_app(f"sqlite:///{tmp_path / 'tables.db'}")) as client:
        assert sorted(client.get("/api/bots").json()) == sorted(level.name for level in PLAYER_LEVELS)


def _play(bots: list[MonteCarloBot | object], seed: int) -> Game:
    game = Game.new(players=len(bots), seed=seed)
    while game.turn is not None:
        seat = game.turn
        action = bots[seat].choose(view(game, seat), game.legal_actions(), random.Random(len(game.history)))  # type: ignore[attr-defined]
        assert action in game.legal_actions()
        game.apply(action)
    return game


def test_montecarlo_plays_legal_moves_reproducibly_and_beats_random():
    first = _play([MonteCarloBot(worlds=2), make_bot("random")], seed=5)
    again = _play([MonteCarloBot(worlds=2), make_bot("random")], seed=5)
    assert first.history == again.history
    assert score_margin(first, 0) > 0 and score_margin(first, 0) == -score_margin(first, 1)


def test_montecarlo_takes_a_cpu_budget_by_name():
    bot = make_bot("montecarlo-0.01s")
    assert isinstance(bot, MonteCarloBot) and bot.time_limit == 0.01 and bot.name == "montecarlo-0.01s"
    assert make_bot("montecarlo").worlds == 8  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        MonteCarloBot(worlds=0)
