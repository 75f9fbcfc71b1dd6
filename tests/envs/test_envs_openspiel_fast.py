"""The Python callers' fast path of the OpenSpiel state (legal_actions, is_chance_node and the
tensors answered in Python): the same answers as pyspiel's own path, under rl_environment."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment

import triage.envs.openspiel  # noqa: F401 - registers "triage"
from triage.envs.openspiel import TriageState


def _same_as_pyspiel(state: TriageState, players: int) -> None:
    """Every fast answer equals pyspiel's own (the base class's methods, through C++)."""
    assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
    assert state.legal_actions() == pyspiel.State.legal_actions(state)
    for player in range(players):
        assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
        assert state.information_state_string(player) == pyspiel.State.information_state_string(state, player)
        assert state.observation_string(player) == pyspiel.State.observation_string(state, player)
        if not state.is_chance_node():
            fast = state.information_state_tensor(player)
            assert fast.dtype == np.float32
            assert np.array_equal(fast, pyspiel.State.information_state_tensor(state, player))
            assert np.array_equal(
                state.observation_tensor(player), pyspiel.State.observation_tensor(state, player)
            )


@pytest.mark.parametrize("players", [1, 2, 3])
def test_the_fast_answers_match_pyspiels_through_whole_games(players: int) -> None:
    game = pyspiel.load_game("triage", {"players": players})
    rng = random.Random(players)
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            _same_as_pyspiel(state, players)
            state.apply_action(rng.choice(state.legal_actions()))
        _same_as_pyspiel(state, players)
        assert state.legal_actions() == [] == pyspiel.State.legal_actions(state)


def test_a_chance_node_lists_the_deal_digits_as_pyspiel_does() -> None:
    state = pyspiel.load_game("triage", {"players": 2}).new_initial_state()
    assert state.legal_actions() == list(range(256)) == state.legal_actions(pyspiel.PlayerId.CHANCE)
    assert state.legal_actions(0) == pyspiel.State.legal_actions(state, 0)
    assert state.chance_outcomes() == pyspiel.State.chance_outcomes(state)


def test_a_tensor_is_a_new_array_each_time_and_a_bad_player_is_named() -> None:
    state = pyspiel.load_game("triage", {"players": 2, "seed": 3}).new_initial_state()
    first = state.information_state_tensor(0)
    first[:] = -5.0
    assert not np.array_equal(state.information_state_tensor(0), first)
    with pytest.raises(pyspiel.SpielError, match="a player 0..1, got 2"):
        state.observation_tensor(2)


@pytest.mark.parametrize(
    "observation_type",
    [rl_environment.ObservationType.INFORMATION_STATE, rl_environment.ObservationType.OBSERVATION],
)
def test_rl_environment_plays_whole_games_and_keeps_what_it_handed_out(observation_type: object) -> None:
    """rl_environment's time steps hold the tensors of pyspiel's path; a tensor an agent kept is
    never written over by a later step (replay buffers keep them)."""
    environment = rl_environment.Environment("triage", players=2, observation_type=observation_type)
    environment.seed(4)
    rng = random.Random(4)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    games = 0
    time_step = environment.reset()
    while games < 2:
        state = environment.get_state
        for player in range(2):
            tensor = time_step.observations["info_state"][player]
            plain = (
                pyspiel.State.information_state_tensor(state, player)
                if observation_type == rl_environment.ObservationType.INFORMATION_STATE
                else pyspiel.State.observation_tensor(state, player)
            )
            assert np.array_equal(tensor, plain)
            assert time_step.observations["legal_actions"][player] == pyspiel.State.legal_actions(
                state, player
            )
            kept.append((tensor, np.array(tensor, copy=True)))
        if time_step.last():
            games += 1
            time_step = environment.reset()
            continue
        player = time_step.observations["current_player"]
        time_step = environment.step([rng.choice(time_step.observations["legal_actions"][player])])
    assert all(np.array_equal(tensor, copy) for tensor, copy in kept)
