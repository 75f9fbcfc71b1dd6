"""Issue 42 point 3: masked self-play without glue, opponents on PettingZoo, and a step limit."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
from triage.envs.pettingzoo import env, raw_env
from triage.envs.selfplay import SelfPlayEnv


def test_pettingzoo_opponents_play_their_seats_and_the_api_test_passes() -> None:
    game = env(players=3, opponents={1: "greedy"})
    assert game.possible_agents == ["player_0", "player_2"]
    api_test(env(players=3, opponents="greedy"), num_cycles=200)
    api_test(game, num_cycles=200)
    game.reset(seed=3)
    rng = random.Random(3)
    seen = set()
    for agent in game.agent_iter():
        observation, _, termination, truncation, _ = game.last()
        seen.add(agent)
        if termination or truncation:
            game.step(None)
        else:
            game.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))  # type: ignore[index]
    raw = game.unwrapped
    assert isinstance(raw, raw_env) and raw.table.game.is_over() and seen == {"player_0", "player_2"}
    assert any(entry["by"] == 1 for entry in raw.table.game.history)  # the bot played seat 1


def test_opponents_are_refused_with_clear_words() -> None:
    with pytest.raises(ValueError, match="every seat"):
        raw_env(players=2, opponents={0: "greedy", 1: "greedy"})
    with pytest.raises(ValueError, match="seat 5"):
        raw_env(players=2, opponents={5: "greedy"})
    with pytest.raises(ValueError, match="max_steps"):
        raw_env(players=2, max_steps=0)


def test_a_step_limit_truncates_a_learner_without_masks() -> None:
    """Unmasked random actions are mostly refused, so without a limit no game would end."""
    game = env(players=2, on_illegal="refuse", max_steps=50)
    game.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    for agent in game.agent_iter():
        _, _, termination, truncation, _ = game.last()
        if termination or truncation:
            assert truncation and not termination
            game.step(None)
            continue
        game.step(int(rng.integers(game.action_space(agent).n)))
        steps += 1
    assert steps == 50
    single = gymnasium.make("Triage-v0", max_steps=30)
    single.reset(seed=2)
    results = [single.step(int(rng.integers(single.action_space.n))) for _ in range(30)]
    assert [r[3] for r in results] == [False] * 29 + [True]


def test_self_play_gives_the_learner_its_seat_in_turn_with_its_own_rewards() -> None:
    game = SelfPlayEnv(env(players=2, returns="margin", config="mini"))
    seats, totals = [], []
    for episode in range(6):
        observation, info = game.reset(seed=episode)
        assert game.observation_space.contains(observation)
        seats.append(info["seat"])
        total, done = 0.0, False
        while not done:
            action = int(np.random.default_rng(episode).choice(np.flatnonzero(game.action_masks())))
            observation, reward, terminated, truncated, info = game.step(action)
            total += reward
            done = terminated or truncated
        raw = game.aec.unwrapped
        scores = raw.table.game.scores()  # type: ignore[attr-defined]
        seat = info["seat"]
        assert total == pytest.approx(scores[seat] - scores[1 - seat])  # margin, the deal's value 0
        totals.append(total)
    assert seats == [0, 1, 0, 1, 0, 1]


def test_maskable_ppo_learns_in_self_play_through_the_wrapper(tmp_path: object) -> None:
    """The supported path: PettingZoo -> SelfPlayEnv -> SB3's make_vec_env -> MaskablePPO, the
    model playing the other seat (no glue class)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.env_util import make_vec_env

    check_env(SelfPlayEnv(env(players=2, config="mini", on_illegal="refuse")))  # it steps unmasked actions
    vec = make_vec_env(lambda: SelfPlayEnv(env(players=2, returns="margin", config="mini")), n_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=32, seed=0)
    vec.env_method("set_opponent", model)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256


def test_openspiel_opponents_make_a_one_player_game_for_rl_environment() -> None:
    """``opponents`` on the OpenSpiel game: the bots play seats 1.. inside the state, so
    rl_environment (and any single-agent OpenSpiel learner) sees seat 0 alone."""
    import pyspiel
    from open_spiel.python import rl_environment

    import triage.envs.openspiel  # noqa: F401 - registers "triage"

    environment = rl_environment.Environment("triage", players=3, opponents="greedy,random", returns="margin")
    assert environment.num_players == 1
    rng = random.Random(4)
    for _ in range(2):
        time_step = environment.reset()
        while not time_step.last():
            assert time_step.observations["current_player"] == 0
            time_step = environment.step([rng.choice(time_step.observations["legal_actions"][0])])
        game = environment.get_state.engine  # type: ignore[attr-defined]
        assert {entry["by"] for entry in game.history} == {0, 1, 2}
        scores = game.scores()
        assert time_step.rewards[0] == pytest.approx(scores[0] - (scores[1] + scores[2]) / 2)
    with pytest.raises(ValueError, match="opponents names 3 bots for 1 other seats"):
        pyspiel.load_game("triage", {"players": 2, "opponents": "greedy,greedy,greedy"})
    state = pyspiel.load_game("triage", {"players": 2, "opponents": "greedy", "seed": 3}).new_initial_state()
    twin = state.clone()
    while not state.is_terminal():  # the bots decide alike in a state and its copy
        action = state.legal_actions()[-1]
        state.apply_action(action)
        twin.apply_action(action)
        assert state.information_state_string(0) == twin.information_state_string(0)
