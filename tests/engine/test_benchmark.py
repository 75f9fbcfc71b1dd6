"""Speed of the engine (pytest-benchmark; run with ``--benchmark-enable`` to measure).

The target (issue: at least 50,000 actions per second, legal listing plus apply) is checked by
``triage bench --json``, never by a timed assertion here."""

from __future__ import annotations

import random

from triage.engine import Game
from triage.sim.bench import play_random_game


def test_random_two_player_game(benchmark) -> None:  # type: ignore[no-untyped-def]
    seeds = iter(range(10**9))

    def one_game() -> int:
        seed = next(seeds)
        return play_random_game(Game.new(players=2, seed=seed), random.Random(seed))

    actions = benchmark(one_game)
    assert actions > 10


def test_legal_actions_and_apply_from_a_mid_game_position(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = Game.new(players=2, seed=3)
    rng = random.Random(3)
    for _ in range(25):
        game.apply(rng.choice(game.legal_actions()))

    def step() -> None:
        trial = game.copy()
        trial.apply(trial.legal_actions()[0])

    benchmark(step)
