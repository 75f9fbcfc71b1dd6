"""Speed of the engine (pytest-benchmark; run with ``--benchmark-enable`` to measure).

The targets are ratios against the dict path measured in the same run (``triage bench --table``:
integer actions at least 2x, ``view`` and ``copy`` at least as fast as one dict-path action,
``determinize`` at least 0.2x), never timed assertions here. Without ``--benchmark-enable`` each
benchmark runs its function once, as a plain test."""

from __future__ import annotations

import json
import random

from typer.testing import CliRunner

from triage.cli import app
from triage.engine import Game, view
from triage.engine.determinize import determinize
from triage.bots.policy import rollout_policy
from triage.engine.rollout import random_policy, rollout
from triage.sim.bench import PATHS, play_random_game, play_random_game_ids, run_paths_bench


def mid_game(seed: int = 3, steps: int = 25) -> Game:
    game = Game.new(players=2, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_random_two_player_game(benchmark) -> None:  # type: ignore[no-untyped-def]
    seeds = iter(range(10**9))

    def one_game() -> int:
        seed = next(seeds)
        return play_random_game(Game.new(players=2, seed=seed), random.Random(seed))

    actions = benchmark(one_game)
    assert actions > 10


def test_random_two_player_game_on_integer_actions(benchmark) -> None:  # type: ignore[no-untyped-def]
    seeds = iter(range(10**9))

    def one_game() -> Game:
        seed = next(seeds)
        game = Game.new(players=2, seed=seed)
        play_random_game_ids(game, random.Random(seed))
        return game

    game = benchmark(one_game)
    assert game.is_over()


def test_legal_actions_and_apply_from_a_mid_game_position(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = mid_game()

    def step() -> None:
        trial = game.copy()
        trial.apply(trial.legal_actions()[0])

    benchmark(step)


def test_legal_action_ids_and_apply_id_from_a_mid_game_position(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = mid_game()

    def step() -> Game:
        trial = game.copy()
        trial.apply_id(trial.legal_action_ids()[0])
        return trial

    assert len(benchmark(step).history) == len(game.history) + 1


def test_view_of_a_mid_game_position(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = mid_game()
    seen = benchmark(view, game, game.turn)
    assert seen["viewer"] == game.turn


def test_copy_of_a_mid_game_position(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = mid_game()
    other = benchmark(game.copy)
    assert view(other, 0) == view(game, 0)


def test_determinize_a_mid_game_view(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = mid_game()
    seen = view(game, game.turn)  # type: ignore[arg-type]
    rng = random.Random(1)
    drawn = benchmark(determinize, seen, rng)
    assert view(drawn, game.turn) == seen  # type: ignore[arg-type]


def test_search_iteration_determinize_copy_rollout(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = mid_game()
    seen = view(game, game.turn)  # type: ignore[arg-type]
    rng = random.Random(2)

    def iteration() -> Game:
        world = determinize(seen, rng).copy()
        rollout(world, random_policy, rng)
        return world

    assert benchmark(iteration).is_over()


def test_greedy_rollout(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = mid_game()
    rng = random.Random(4)

    def play() -> Game:
        world = game.copy()
        rollout(world, rollout_policy(), rng)
        return world

    assert benchmark(play).is_over()


def test_the_paths_table_reports_every_path_as_a_ratio_to_the_dict_path() -> None:
    result = run_paths_bench(seconds=0.0)
    data = result.to_dict()
    assert list(data["paths"]) == list(PATHS)  # type: ignore[call-overload]
    assert result.rounds == 3 and result.ratio("dict") == 1.0
    for path in PATHS:
        assert result.counts[path] > 0 and result.per_second(path) > 0
    # The integer path plays the very games the dict path plays: the same number of actions.
    assert result.counts["ids"] == result.counts["dict"]
    assert "| game.copy() |" in result.table()


def test_the_view_path_is_timed_before_anything_else_views_its_positions(monkeypatch) -> None:
    """The views determinize starts from are made after the view path, so that the view path
    fills its own caches inside its timing (made first, they flattered it)."""
    import triage.engine

    calls: list[str] = []
    real_view = triage.engine.view

    def counting_view(game: Game, seat: int) -> dict:
        calls.append("view")
        return real_view(game, seat)

    clock = iter(range(10**6))
    monkeypatch.setattr(triage.engine, "view", counting_view)
    monkeypatch.setattr("triage.sim.bench.time.process_time", lambda: calls.append("clock") or next(clock))
    result = run_paths_bench(seconds=0.0, paths=("dict", "view", "determinize"))
    # The dict path's two clock readings, the view path's first, and only then a view.
    assert calls[: calls.index("view")] == ["clock"] * 3
    # Each position is viewed once by the view path and once for determinize.
    assert calls.count("view") == 2 * result.counts["view"]


def test_triage_bench_table_and_paths_from_the_command_line() -> None:
    runner = CliRunner()
    table = runner.invoke(app, ["bench", "--table", "--seconds", "0", "--json"])
    assert table.exit_code == 0, table.output
    assert set(json.loads(table.output)["paths"]) == set(PATHS)
    dict_path = json.loads(runner.invoke(app, ["bench", "--games", "3", "--json"]).output)
    ids_path = json.loads(runner.invoke(app, ["bench", "--games", "3", "--json", "--path", "ids"]).output)
    assert ids_path["path"] == "ids" and ids_path["actions"] == dict_path["actions"]
    search = runner.invoke(app, ["bench", "--search", "--seconds", "0"])
    assert search.exit_code == 0 and "determinize + copy + random rollout" in search.output
    wrong = runner.invoke(app, ["bench", "--path", "fast"])
    assert wrong.exit_code == 2 and "--path must be one of dict, ids" in wrong.output
