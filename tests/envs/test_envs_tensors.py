"""Issue 42 point 1: every tensor a learner gets lies in [-1, 1], and OpenSpiel's policy-gradient
and NFSP agents train on the default 2-player game's information state without NaN."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pyspiel
import pytest

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
import triage.envs.openspiel  # noqa: F401 - registers "triage"
from triage.envs.openspiel import TriageState
from triage.envs.pettingzoo import env
from triage.envs.vector import random_actions


def _in_unit_range(array: np.ndarray) -> bool:
    return bool(np.all(array >= -1.0) and np.all(array <= 1.0))


@pytest.mark.parametrize("players", [2, 4])
def test_openspiel_tensors_lie_in_unit_range_and_keep_perfect_recall(players: int) -> None:
    """The observation part is the raw vector divided by its proven bounds; the record part is the
    raw record divided by its largest entry, so distinct events stay distinct (perfect recall)."""
    scaled = pyspiel.load_game("triage", {"players": players, "seed": 11})
    raw = pyspiel.load_game("triage", {"players": players, "seed": 11, "tensors": "raw"})
    state, twin = scaled.new_initial_state(), raw.new_initial_state()
    assert isinstance(state, TriageState)
    top = state._settings.record.top
    rng = random.Random(players)
    while not state.is_terminal():
        for seat in range(players):
            tensor, plain = state.information_state_tensor(seat), twin.information_state_tensor(seat)
            assert _in_unit_range(tensor) and _in_unit_range(state.observation_tensor(seat))
            size = len(state.observation_tensor(seat))
            assert np.allclose(tensor[:size], plain[:size] * scaled.scales.observation)
            assert np.array_equal(np.rint(tensor[size:] * top), plain[size:])
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        twin.apply_action(action)
    assert max(plain) > 1  # the raw record holds event codes, far outside [-1, 1]


def test_pettingzoo_gymnasium_and_vector_observations_lie_in_unit_range() -> None:
    rng = random.Random(3)
    for encoding in ("scaled", "normalized"):
        game = env(players=3, encoding=encoding)
        game.reset(seed=4)
        for agent in game.agent_iter():
            observation, _, termination, truncation, _ = game.last()
            assert isinstance(observation, dict) and _in_unit_range(observation["observation"])
            if termination or truncation:
                game.step(None)
            else:
                game.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    single = gymnasium.make("Triage-v0", players=2)
    observation, _ = single.reset(seed=5)
    done = False
    while not done:
        assert _in_unit_range(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        observation, _, done, _, _ = single.step(rng.choice(legal))
    envs = gymnasium.make_vec("Triage-v0", num_envs=4, vectorization_mode="vector_entry_point")
    batch, _ = envs.reset(seed=6)
    generator = np.random.default_rng(6)
    for _ in range(300):
        assert _in_unit_range(batch["observation"])
        batch, *_ = envs.step(random_actions(envs.action_masks(), generator))  # type: ignore[attr-defined]


def _train(agents: list, episodes: int, seed: int = 0) -> list[float]:  # type: ignore[type-arg]
    """Self-play through ``rl_environment`` on the default 2-player game's information state."""
    from open_spiel.python import rl_environment

    environment = rl_environment.Environment("triage", players=2, seed=seed)
    returns = []
    for _ in range(episodes):
        time_step = environment.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = environment.step([agents[player].step(time_step).action])
        for agent in agents:
            agent.step(time_step)
        returns.append(sum(time_step.rewards))
    return returns


def _spec() -> tuple[int, int]:
    game = pyspiel.load_game("triage", {"players": 2})
    return game.information_state_tensor_shape()[0], game.num_distinct_actions()


def test_policy_gradient_trains_on_the_information_state_without_nan() -> None:
    """The issue's reproduction: OpenSpiel's a2c failed with "probabilities contain NaN" after 3
    episodes on the raw record; on the scaled tensors it trains (and its weights stay finite)."""
    torch = pytest.importorskip("torch")
    from open_spiel.python.pytorch import policy_gradient

    torch.manual_seed(0)
    size, actions = _spec()
    agents = [
        policy_gradient.PolicyGradient(
            p, size, actions, loss_str="a2c", hidden_layers_sizes=(64,), batch_size=16
        )
        for p in range(2)
    ]
    returns = _train(agents, 200)
    assert len(returns) == 200 and all(np.isfinite(returns))
    for agent in agents:
        assert agent._num_learn_steps > 0
        assert all(torch.isfinite(weight).all() for weight in agent.policy_logits_network.parameters())


def test_nfsp_trains_on_the_information_state_without_nan() -> None:
    torch = pytest.importorskip("torch")
    from open_spiel.python.pytorch import nfsp

    torch.manual_seed(0)
    size, actions = _spec()
    agents = [
        nfsp.NFSP(
            player_id=p,
            state_representation_size=size,
            num_actions=actions,
            hidden_layers_sizes=[64],
            reservoir_buffer_capacity=20_000,
            anticipatory_param=0.1,
            batch_size=64,
            min_buffer_size_to_learn=500,
            learn_every=64,
            replay_buffer_capacity=20_000,
            seed=p,
        )
        for p in range(2)
    ]
    returns = _train(agents, 200)
    assert len(returns) == 200 and all(np.isfinite(returns))
    for agent in agents:
        assert all(torch.isfinite(weight).all() for weight in agent._avg_network.parameters())
