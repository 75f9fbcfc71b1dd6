"""Triage-v0 against built-in bots: ``players`` and ``opponents``."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
from triage.envs.gymnasium import TriageEnv


def test_check_env_passes_against_greedy() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(
            gymnasium.make("Triage-v0", players=2, opponents="greedy").unwrapped, skip_render_check=True
        )


@pytest.mark.parametrize("opponents", ["greedy", ["random", "greedy"]])
def test_the_agent_acts_only_on_its_turns_and_its_rewards_add_up(opponents: str | list[str]) -> None:
    players = 2 if isinstance(opponents, str) else 3
    environment = TriageEnv(players=players, opponents=opponents, rounds=3)
    _, info = environment.reset(seed=6)
    rng = random.Random(6)
    total, done = 0.0, False
    while not done:
        game = environment.table.game
        assert game.turn == 0
        action = rng.choice(np.flatnonzero(environment.action_masks()).tolist())
        _, reward, done, _, info = environment.step(action)
        assert "illegal_action" not in info
        total += reward
    game = environment.table.game
    assert game.is_over() and info["winner"] in (-1, *range(players))
    assert total + 10 == pytest.approx(game.scores()[0])  # VP + QoC, from 10 at the deal


def test_the_bots_play_the_other_seats_by_name() -> None:
    environment = TriageEnv(players=4, opponents=["random", "greedy", "expert-novice"])
    assert [type(bot).__name__ for bot in environment.opponents] == ["RandomBot", "GreedyBot", "ExpertBot"]
    with pytest.raises(ValueError, match="unknown bot"):
        TriageEnv(players=2, opponents="nobody")
    with pytest.raises(ValueError, match="opponents names 1 bots for 2 other seats"):
        TriageEnv(players=3, opponents=["greedy"])
