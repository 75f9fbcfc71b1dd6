"""The Gymnasium environment Triage-v0 (triage.envs.gymnasium) under Gymnasium's checker."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
from triage.engine import state_dict
from triage.envs import IllegalActionError


@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_gymnasium_check_env_passes_without_warnings(render_mode: str | None) -> None:
    environment = gymnasium.make("Triage-v0", render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(environment.unwrapped)


def test_triage_v0_is_the_solo_game_with_the_shared_spaces() -> None:
    from triage.envs.pettingzoo import raw_env

    environment = gymnasium.make("Triage-v0")
    observation, info = environment.reset(seed=3)
    assert len(environment.unwrapped.table.game.players) == 1
    assert environment.observation_space == raw_env(players=1).observation_space("player_0")
    assert environment.action_space.n == observation["action_mask"].shape[0]
    assert info == {"score": 10}


def test_an_action_outside_the_mask_is_refused_and_changes_nothing() -> None:
    environment = gymnasium.make("Triage-v0").unwrapped
    observation, _ = environment.reset(seed=4)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[-1])
    before = state_dict(environment.table.game)
    again, reward, terminated, truncated, info = environment.step(illegal)
    assert reward == -1.0 and not terminated and not truncated
    assert info["illegal_action"].startswith(f"action {illegal} (")
    assert state_dict(environment.table.game) == before
    assert np.array_equal(again["observation"], observation["observation"])


def test_on_illegal_raise_raises() -> None:
    environment = gymnasium.make("Triage-v0", on_illegal="raise").unwrapped
    observation, _ = environment.reset(seed=4)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[-1])
    with pytest.raises(IllegalActionError, match=f"action {illegal}"):
        environment.step(illegal)


def test_bad_options_are_named() -> None:
    from triage.envs.gymnasium import TriageEnv

    with pytest.raises(ValueError, match="on_illegal must be one of"):
        gymnasium.make("Triage-v0", on_illegal="ignore")
    with pytest.raises(ValueError, match="render_mode must be one of"):
        TriageEnv(render_mode="rgb")


def test_observation_and_render_hold_nothing_the_player_cannot_know() -> None:
    """I4: a world drawn from the solo player's view (other backs, other deck order) gives the
    same observation, mask and render."""
    import random

    from triage.engine.determinize import determinize
    from triage.envs import Table

    environment = gymnasium.make("Triage-v0", render_mode="ansi").unwrapped
    differing = 0
    for seed in range(6):
        observation, _ = environment.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(8 + seed):
            if environment.table.game.is_over():
                break
            observation, *_ = environment.step(
                rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
            )
        real = environment.table
        shown, rendered = environment._observation(), environment.render()
        environment.table = Table(determinize(real.view(0), random.Random(seed)), real.layout)
        drawn = environment._observation()
        assert np.array_equal(drawn["observation"], shown["observation"])
        assert np.array_equal(drawn["action_mask"], shown["action_mask"])
        assert environment.render() == rendered
        differing += environment.table.game.deck != real.game.deck
    assert differing > 0
