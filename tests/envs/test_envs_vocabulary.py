"""A designer's market item declared in a TOML file alone (T8) reaches the research interfaces:
Gymnasium's action and observation spaces include it, and learning code can buy it."""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
from triage.envs.gymnasium import TriageEnv

NIGHT_SHIFT = """
[market.night_shift]      # a designer's new item: no code change
price = 1
limit = 2
gives = { healing = 2 }
"""


def night_env(tmp_path: Path, **options: object) -> TriageEnv:
    path = tmp_path / "night.toml"
    path.write_text(NIGHT_SHIFT)
    environment = gymnasium.make("Triage-v0", config=str(path), **options).unwrapped
    assert isinstance(environment, TriageEnv)
    return environment


def test_a_designer_item_is_in_the_action_and_observation_spaces(tmp_path: Path) -> None:
    environment = night_env(tmp_path, observation="flat", normalize=True)
    layout = environment.table.layout
    assert "night_shift" in layout.items
    buy = layout.index("buy", layout.items.index("night_shift"))
    assert buy < environment.action_space.n
    assert "p+0.items.night_shift" in layout.feature_names()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(environment)


def test_a_learner_buys_the_designer_item_and_sees_it_counted(tmp_path: Path) -> None:
    """Masked random play that buys the night shift whenever the mask allows it: each purchase
    adds 2 Healing (T8), the observation counts it, and every observation stays in its space."""
    environment = night_env(tmp_path)
    layout = environment.table.layout
    buy = layout.index("buy", layout.items.index("night_shift"))
    count_at = layout.feature_names().index("p+0.items.night_shift")
    rng = np.random.default_rng(0)
    bought = 0
    observation, _ = environment.reset(seed=1)
    for _ in range(3_000):
        mask = observation["action_mask"]
        if mask[buy]:
            healing = environment.table.game.players[0].healing
            observation, _, done, _, _ = environment.step(buy)
            bought += 1
            assert environment.table.game.players[0].healing == healing + 2
            count = environment.table.game.players[0].items["night_shift"]
            assert observation["observation"][count_at] * environment.encoder.scale[count_at] == count
        else:
            observation, _, done, _, _ = environment.step(int(rng.choice(np.flatnonzero(mask))))
        assert environment.observation_space.contains(observation)
        if done:
            observation, _ = environment.reset(seed=int(rng.integers(1 << 30)))
    assert bought >= 5, f"the learner bought the night shift {bought} times"
