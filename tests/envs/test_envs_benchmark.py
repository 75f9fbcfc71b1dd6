"""Speed of the research interfaces (pytest-benchmark; ``--benchmark-enable`` to measure).

Each benchmark plays one random two-player (Gymnasium: solo) game through one interface, with the
engine game following it step by step (triage.envs.random_games); no timed assertion here."""

from __future__ import annotations

from itertools import count

from triage.envs import random_games


def _bench(benchmark, play) -> None:  # type: ignore[no-untyped-def]
    seeds = count()
    outcomes = benchmark(lambda: play(seed=next(seeds)))
    assert all(outcome.matches for outcome in outcomes)


def test_openspiel_random_game(benchmark) -> None:  # type: ignore[no-untyped-def]
    _bench(benchmark, lambda seed: random_games.openspiel_games(games=1, players=2, seed=seed))


def test_pettingzoo_random_game(benchmark) -> None:  # type: ignore[no-untyped-def]
    _bench(benchmark, lambda seed: random_games.pettingzoo_games(games=1, players=2, seed=seed))


def test_gymnasium_random_game(benchmark) -> None:  # type: ignore[no-untyped-def]
    _bench(benchmark, lambda seed: random_games.gymnasium_games(games=1, seed=seed))


def test_the_bench_command_prints_every_path_with_its_ratio(capsys) -> None:  # type: ignore[no-untyped-def]
    from triage.envs import bench

    assert bench.main(["--seconds", "0.1", "--simulations", "4", "--slices", "1"]) == 0
    out = capsys.readouterr().out
    for name in ("engine dict path", "openspiel", "pettingzoo", "gymnasium (solo)", "ismcts leduc_poker"):
        assert name in out
    assert "ismcts triage, triage RolloutEvaluator / leduc_poker:" in out
