"""Real research code runs on the adapters unchanged: MaskablePPO, SuperSuit, IS-MCTS, Tianshou."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pyspiel
import torch
from open_spiel.python.algorithms import ismcts
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from supersuit import dtype_v0, flatten_v0, frame_stack_v1, normalize_obs_v0
from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
from tianshou.data import Collector, ReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
from triage.envs.openspiel import RolloutEvaluator
from triage.envs.pettingzoo import env as pettingzoo_env


class _IllegalCounter(BaseCallback):
    """Counts the steps the environment refused (an action outside the mask)."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = 0
        self.steps = 0

    def _on_step(self) -> bool:
        self.steps += 1
        self.refused += sum("illegal_action" in info for info in self.locals["infos"])
        return True


def test_maskable_ppo_trains_on_triage_v0_without_a_wrapper() -> None:
    """sb3-contrib finds ``action_masks()`` itself; every action it takes is legal."""
    torch.set_num_threads(1)
    environment = gymnasium.make("Triage-v0")
    model = MaskablePPO(
        "MultiInputPolicy", environment, n_steps=1024, batch_size=256, n_epochs=1, seed=0, device="cpu"
    )
    before = [p.detach().clone() for p in model.policy.parameters()]
    counter = _IllegalCounter()
    model.learn(total_timesteps=3072, callback=counter)
    assert counter.steps >= 3072 and counter.refused == 0
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    observation, _ = environment.reset(seed=5)
    masks = environment.unwrapped.action_masks()
    action, _ = model.predict(observation, action_masks=masks, deterministic=True)
    assert masks[int(action)]


def test_maskable_ppo_learns_on_the_flat_normalised_option() -> None:
    torch.set_num_threads(1)
    environment = gymnasium.make("Triage-v0", observation="flat", normalize=True, returns="win")
    model = MaskablePPO(
        "MlpPolicy", environment, n_steps=512, batch_size=256, n_epochs=1, seed=1, device="cpu"
    )
    model.learn(total_timesteps=1024)
    observation, _ = environment.reset(seed=2)
    assert environment.observation_space.contains(observation)


def test_supersuit_flatten_normalize_and_frame_stack_run_on_the_flat_option() -> None:
    wrapped = pettingzoo_env(players=2, observation="flat")
    wrapped = dtype_v0(wrapped, np.float32)
    wrapped = flatten_v0(wrapped)
    wrapped = normalize_obs_v0(wrapped, env_min=0.0, env_max=1.0)
    wrapped = frame_stack_v1(wrapped, 3)
    wrapped.reset(seed=4)
    rng = random.Random(4)
    steps = 0
    for agent in wrapped.agent_iter():
        observation, _, termination, truncation, info = wrapped.last()
        if termination or truncation:
            wrapped.step(None)
            continue
        assert wrapped.observation_space(agent).contains(observation)
        assert observation.min() >= 0.0 and observation.max() <= 1.0
        wrapped.step(rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
        steps += 1
    assert steps > 20
    assert observation.shape == (
        3 * pettingzoo_env(players=2, observation="flat").observation_space(agent).shape[0],
    )


def test_supersuit_wraps_the_flat_gymnasium_option() -> None:
    environment = frame_stack_v1(normalize_obs_v0(gymnasium.make("Triage-v0", observation="flat")), 2)
    observation, info = environment.reset(seed=1)
    rng = random.Random(1)
    done = False
    while not done:
        assert environment.observation_space.contains(observation)
        action = rng.choice(np.flatnonzero(info["action_mask"]).tolist())
        observation, _, terminated, truncated, info = environment.step(action)
        done = terminated or truncated


def test_openspiel_ismcts_with_the_engine_rollouts_plays_a_zero_sum_game() -> None:
    game = pyspiel.load_game("triage", {"players": 2, "rounds": 2, "returns": "win"})
    bot = ismcts.ISMCTSBot(
        game=game,
        evaluator=RolloutEvaluator(seed=0),
        uct_c=1.5,
        max_simulations=40,
        random_state=np.random.RandomState(2),
    )
    state = game.new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.randrange(game.max_chance_outcomes()))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    returns = state.returns()
    assert sum(returns) == 0.0 and max(returns) in (0.0, 1.0)
    assert game.min_utility() <= min(returns) <= max(returns) <= game.max_utility()


def test_a_tianshou_collector_runs_on_the_pettingzoo_environment() -> None:
    def make() -> PettingZooEnv:
        return PettingZooEnv(pettingzoo_env(players=2))

    probe = make()
    policy = MultiAgentPolicy(
        {
            agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space).policy
            for agent in probe.agents
        }
    )
    # one environment and a plain buffer: Tianshou's vector buffer spends ~20 s compiling (Numba)
    collector = Collector(policy, DummyVectorEnv([make]), ReplayBuffer(4000))
    np.random.seed(0)
    result = collector.collect(n_episode=4, reset_before_collect=True)
    assert result.n_collected_episodes >= 4 and result.n_collected_steps > 100
    # rewards are score changes, so each episode's return is a final score less the start (10)
    assert np.all(result.returns >= -40) and np.all(result.returns <= 80)
