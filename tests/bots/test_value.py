"""The expert's fitted value (triage.bots.value, issue 19 point 3): the shipped values belong to
the games they were fitted for, the fitting command writes one the expert then uses, a bad file
says what is wrong, and short playouts stop where they should and score with the value."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.bots import make_bot
from triage.bots import value as value_module
from triage.bots.expert import HORIZON, Budget, ExpertBot, Search, outcome
from triage.bots.policy import farming_policy, play_out
from triage.bots.value import FEATURE_COUNT, Value, features, fingerprint, value_for
from triage.cli import app
from triage.engine import Game, view
from triage.engine.config import load_named_config
from triage.options import load_settings


@pytest.fixture(autouse=True)
def fresh_value_cache():
    value_module._values_in.cache_clear()
    yield
    value_module._values_in.cache_clear()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_default_game_has_a_value_at_every_player_count_but_solo(players):
    game = Game.new(players=players, seed=4)
    found = value_for(view(game, 0))
    assert found is not None, (
        "no shipped value fits the default game any more (its configuration or deck changed): "
        f"triage fit-value --players {players} --out src/triage/data/values/standard-{players}p.json"
    )
    assert found.fingerprint == fingerprint(view(game, players - 1))
    assert sorted(found.weights) == list(range(1, game.config.rounds + 1))
    assert {len(row) for row in found.weights.values()} == {len(features(game, 0))}
    # Late rounds are read better than early ones (the held-out share, kept in the file).
    assert found.explained[game.config.rounds] > found.explained[2] > 0


def test_another_configuration_or_deck_has_none_nor_the_solo_game():
    """Solo, the short playouts scored less than whole ones (docs/bots.md): no value is shipped."""
    mini = Game.new(players=2, seed=4, config=load_named_config("mini"))
    assert value_for(view(mini, 0)) is None
    assert value_for(view(Game.new(players=1, seed=4), 0)) is None


def test_the_fitting_command_writes_a_value_the_expert_then_uses(tmp_path, monkeypatch):
    out = tmp_path / "mini-2p.json"
    result = CliRunner().invoke(
        app, ["fit-value", "--players", "2", "--games", "40", "--config", "mini", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "round 1" in result.output
    config, deck = load_settings(Path("mini"), None, [])  # the mini deck comes with --config mini
    mini = Game.new(players=2, seed=4, config=config, deck=deck)
    monkeypatch.setenv("TRIAGE_VALUES", str(tmp_path))
    found = value_for(view(mini, 1))
    assert found is not None and found.games == 40 and found.source == str(out)
    # The standard game's own value is still found next to it.
    assert value_for(view(Game.new(players=2, seed=4), 0)) is not None


def test_a_value_belongs_to_its_own_counts_seat_tables_only(tmp_path, monkeypatch):
    """R1, R3: another player count's seat Credits or VP leave a value standing; its own count's
    do not. A file written while fingerprints held every count's seat tables still finds its game."""
    from triage.engine.config import make_config

    changed = make_config({"seat_credits": {"4": [0, 0, 0, 0]}, "seat_vp": {"3": [0, 1, 0]}})
    two = Game.new(players=2, seed=4, config=changed)
    assert fingerprint(view(two, 0)) == fingerprint(view(Game.new(players=2, seed=4), 0))
    assert value_for(view(two, 0)) is not None
    for players in (3, 4):
        game = Game.new(players=players, seed=4, config=changed)
        assert fingerprint(view(game, 0)) != fingerprint(view(Game.new(players=players, seed=4), 0))
        assert value_for(view(game, 0)) is None
    shipped = json.loads(
        Path(value_module.__file__).parent.joinpath("../data/values/standard-2p.json").read_text()
    )
    players, config, deck = json.loads(shipped["fingerprint"])
    assert config["seat_credits"] == [0, 0]  # the file holds its own count's entry
    config["seat_credits"] = {"3": [1, 0, 1], "4": [5, 5, 5, 5]}  # the older form, every count's table
    old = tmp_path / "old-2p.json"
    old.write_text(
        json.dumps({**shipped, "fingerprint": json.dumps([players, config, deck], sort_keys=True)})
    )
    assert Value.load(old).fingerprint == fingerprint(view(Game.new(players=2, seed=4), 0))


def test_a_bad_value_file_names_the_file_and_the_fault(tmp_path, monkeypatch):
    bad = tmp_path / "broken.json"
    bad.write_text('{"fingerprint": "x"}')
    with pytest.raises(ValueError, match=r"broken.json: not a fitted value"):
        Value.load(bad)
    short = tmp_path / "short.json"
    short.write_text(json.dumps({"fingerprint": "x", "games": 1, "seed": 0, "weights": {"1": [1.0]}}))
    with pytest.raises(ValueError, match="another feature list"):
        Value.load(short)
    gap = tmp_path / "gap.json"
    row = [0.0] * FEATURE_COUNT
    gap.write_text(json.dumps({"fingerprint": "x", "games": 1, "seed": 0, "weights": {"1": row, "3": row}}))
    with pytest.raises(ValueError, match=r"gap.json: weights for rounds \[1, 3\]"):
        Value.load(gap)
    monkeypatch.setenv("TRIAGE_VALUES", str(tmp_path))
    with pytest.raises(ValueError, match="broken.json"):
        value_for(view(Game.new(players=2, seed=4), 0))
    result = CliRunner().invoke(app, ["fit-value", "--out", str(tmp_path / "value.txt")])
    assert result.exit_code == 2 and "must end in .json" in result.output
    result = CliRunner().invoke(app, ["fit-value", "--out", str(tmp_path / "nowhere" / "value.json")])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = CliRunner().invoke(app, ["fit-value", "--set", "rounds=0", "--out", str(tmp_path / "v.json")])
    assert result.exit_code == 2 and "rounds" in result.output and not (tmp_path / "v.json").exists()


def test_a_short_playout_stops_rounds_ahead_and_scores_with_the_value():
    game = Game.new(players=2, seed=7)
    seat_view = view(game, game.turn)
    value = value_for(seat_view)
    search = Search(seat_view, [{"type": "pass"}], random.Random(0), Budget(4, None), farming_policy, value)
    world = game.copy()
    worth = search.finish(world)
    assert world.round == game.round + HORIZON and world.turn is not None
    assert worth == value(world, seat_view["viewer"])
    # In the last rounds the playout reaches the game's end and the outcome counts.
    late = game.copy()
    play_out(late, farming_policy, stop_round=game.config.rounds)
    ended = late.copy()
    assert search.finish(ended) == outcome(ended, seat_view["viewer"]) and ended.turn is None


def test_without_a_value_the_expert_plays_whole_playouts():
    game = Game.new(players=2, seed=7)
    whole = ExpertBot(playouts=6, valued=False)
    short = make_bot("expert-6")
    seen: list[int] = []

    class Spy(Search):
        def finish(self, world: Game) -> float:
            worth = super().finish(world)
            seen.append(world.turn is None)
            return worth

    for bot in (whole, short):
        bot.search_type = Spy
        while game.turn is not None and len(seen) < 6:
            game.apply(bot.choose(view(game, game.turn), game.legal_actions(), random.Random(1)))
        kept, seen[:] = list(seen), []
        assert all(kept) if bot is whole else not any(kept)
