"""The PettingZoo AEC environment (triage.envs.pettingzoo) under PettingZoo's own tests."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from triage.engine import state_dict
from triage.engine.determinize import determinize
from triage.envs import IllegalActionError, Table
from triage.envs.pettingzoo import env, raw_env


@pytest.mark.parametrize("players", [1, 2, 4])
def test_pettingzoo_api_test_passes(players: int) -> None:
    api_test(env(players=players), num_cycles=300, verbose_progress=False)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(lambda: env(players=3), num_cycles=300)


def test_pettingzoo_render_test_passes_for_ansi(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode=None: env(players=2, render_mode=render_mode))
    assert "Round 1" in capsys.readouterr().out  # the "human" mode prints what "ansi" returns


def _played(players: int, seed: int, steps: int) -> raw_env:
    environment = raw_env(players=players, render_mode="ansi")
    environment.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if environment.table.game.is_over():
            break
        mask = environment.observe(environment.agent_selection)["action_mask"]
        environment.step(rng.choice(np.flatnonzero(mask).tolist()))
    return environment


def test_observations_and_render_hold_nothing_a_seat_cannot_know() -> None:
    """I4: replacing the game by a world drawn from a seat's view changes none of that seat's
    channels (observation, mask, and the render of the seat to act)."""
    for seed in range(5):
        environment = _played(players=3, seed=seed, steps=15 + 3 * seed)
        if environment.table.game.is_over():
            continue
        real = environment.table
        for seat, agent in enumerate(environment.possible_agents):
            shown = environment.observe(agent)
            rendered = environment.render() if seat == real.game.turn else None
            environment.table = Table(determinize(real.view(seat), random.Random(seed)), real.layout)
            drawn = environment.observe(agent)
            assert np.array_equal(drawn["observation"], shown["observation"])
            assert np.array_equal(drawn["action_mask"], shown["action_mask"])
            if rendered is not None:
                assert environment.render() == rendered
            environment.table = real


def test_an_action_outside_the_mask_raises_and_changes_nothing() -> None:
    environment = _played(players=2, seed=1, steps=6)
    agent = environment.agent_selection
    mask = environment.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = state_dict(environment.table.game)
    with pytest.raises(IllegalActionError, match=rf"action {illegal} "):
        environment.step(illegal)
    assert state_dict(environment.table.game) == before
    assert environment.agent_selection == agent


def test_rewards_are_score_changes_and_the_end_reports_the_scores() -> None:
    environment = env(players=2)
    environment.reset(seed=8)
    totals = dict.fromkeys(environment.possible_agents, 10.0)
    rng = random.Random(8)
    final_info = None
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, info = environment.last()
        totals[agent] += reward
        if termination or truncation:
            final_info = info
            environment.step(None)
            continue
        environment.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    assert final_info is not None
    assert [totals[agent] for agent in ("player_0", "player_1")] == [float(s) for s in final_info["scores"]]
