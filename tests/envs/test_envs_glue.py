"""Consumers without glue: SB3's make_vec_env, infos without None, PettingZoo's on_illegal."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from stable_baselines3.common.env_util import make_vec_env

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
from triage.envs import IllegalActionError
from triage.envs.gymnasium import TriageEnv
from triage.envs.pettingzoo import env as pettingzoo_env


def test_stable_baselines3_make_vec_env_builds_triage_v0() -> None:
    """make_vec_env passes render_mode="rgb_array" (and retries only on TypeError)."""
    vector_env = make_vec_env("Triage-v0", n_envs=2, seed=3)
    observations = vector_env.reset()
    assert observations["observation"].shape[0] == 2
    masks = np.stack(vector_env.env_method("action_masks"))
    actions = np.array([np.flatnonzero(mask)[0] for mask in masks])
    vector_env.step(actions)
    image = vector_env.env_method("render", indices=[0])[0]
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert (image < 128).any() and (image > 128).any()  # text on a background


def _values(info: dict[str, Any]) -> list[Any]:
    found: list[Any] = []
    for value in info.values():
        found += _values(value) if isinstance(value, dict) else [value]
    return found


def test_no_info_holds_none_even_when_no_one_wins() -> None:
    """Replay buffers (Tianshou's) store infos as arrays: a None breaks them."""
    environment = TriageEnv()
    rejections = range(
        environment.table.layout.offsets["reject"], environment.table.layout.offsets["diagnose"]
    )
    for seed in range(3):
        _, info = environment.reset(seed=seed)
        done = False
        while not done:  # reject every patient (1 QoC each, A5) and pass: a lost solo game
            legal = np.flatnonzero(environment.action_masks()).tolist()
            action = next((a for a in legal if a in rejections), legal[-1])
            _, _, done, _, info = environment.step(action)
            assert None not in _values(info)
        assert info["winner"] == -1 and environment.table.game.winner is None
    game = pettingzoo_env(players=2, rounds=1)
    for seed in range(30):
        game.reset(seed=seed)
        rng = random.Random(seed)
        for agent in game.agent_iter():
            observation, _, termination, truncation, info = game.last()
            assert None not in _values(info)
            if termination or truncation:
                game.step(None)
            else:
                game.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))


def test_pettingzoo_refuses_an_illegal_action_when_asked() -> None:
    game = pettingzoo_env(players=2, on_illegal="refuse", illegal_reward=-2.0)
    game.reset(seed=4)
    agent = game.agent_selection
    observation, _, _, _, _ = game.last()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    game.step(illegal)
    again, reward, _, _, info = game.last()
    assert game.agent_selection == agent and reward == -2.0
    assert "not legal now" in info["illegal_action"] or "outside" in info["illegal_action"]
    assert np.array_equal(again["observation"], observation["observation"])
    game.step(int(np.flatnonzero(again["action_mask"])[0]))
    assert "illegal_action" not in game.infos[agent]
    with pytest.raises(ValueError, match="on_illegal"):
        pettingzoo_env(players=2, on_illegal="ignore")
    strict = pettingzoo_env(players=2)
    strict.reset(seed=4)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
