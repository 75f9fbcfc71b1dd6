"""examples/truncated_expert.py, the expert with short playouts scored by a fitted value (issue 19
point 3, measured in docs/bots.md): it plays legal moves, uses its value only on the game the
weights were fitted for, and its fitting command writes weights it can load."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

from triage.bots import expert as expert_module
from triage.engine import Game, view
from triage.engine.config import load_named_config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "truncated_expert.py"


def load_example():
    spec = importlib.util.spec_from_file_location("examples_truncated_expert", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def searches_run(monkeypatch, bot, game, decisions):
    """Play ``decisions`` moves with ``bot``; return the search classes its decisions ran."""
    ran = []
    original = expert_module.Search.__init__

    def spy(self, *args):
        ran.append(type(self).__name__)
        original(self, *args)

    monkeypatch.setattr(expert_module.Search, "__init__", spy)
    for number in range(decisions):
        if game.turn is None:
            break
        legal = game.legal_actions()
        action = bot.choose(view(game, game.turn), legal, random.Random(number))
        assert action in legal
        game.apply(action)
    return set(ran)


def test_the_default_game_is_searched_with_short_playouts(monkeypatch):
    example = load_example()
    bot = example.TruncatedExpert(playouts=12)
    assert searches_run(monkeypatch, bot, Game.new(players=2, seed=3), 12) == {"ShortSearch"}


def test_another_game_gets_whole_playouts_not_a_value_fitted_elsewhere(monkeypatch):
    example = load_example()
    bot = example.TruncatedExpert(playouts=12)
    bot.budget = expert_module.Budget(8, None)  # the whole-playout fallback, kept short here
    three = Game.new(players=3, seed=3)
    mini = Game.new(players=2, seed=3, config=load_named_config("mini"))
    assert searches_run(monkeypatch, bot, three, 30) == {"Search"}
    assert searches_run(monkeypatch, bot, mini, 30) == {"Search"}


def test_the_fitting_command_writes_weights_the_bot_loads(tmp_path):
    example = load_example()
    fitted = example.fit(games=30, seed=5, players=2)
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(fitted))
    fingerprint, weights = example.load_weights(path)
    assert fingerprint == example.fingerprint(view(Game.new(players=2, seed=9), 1))
    assert sorted(weights) == [1, 2, 3, 4, 5, 6]
    assert {len(row) for row in weights.values()} == {len(example.features(Game.new(players=2, seed=1), 0))}
    assert example.TruncatedExpert(weights=path).fingerprint == fingerprint
