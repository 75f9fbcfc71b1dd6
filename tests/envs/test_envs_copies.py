"""Issue 42 point 5: copies for search. ``state.clone()`` and ``copy.deepcopy`` of the PettingZoo and
Gymnasium environments copy through ``Game.copy``; a copy is faithful (it goes on as the original
would) and independent (stepping it leaves the original unchanged)."""

from __future__ import annotations

import copy
import random

import gymnasium
import numpy as np
import pyspiel

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
import triage.envs.openspiel  # noqa: F401 - registers "triage"
from triage.envs.openspiel import TriageState
from triage.envs.pettingzoo import env


def _random_play(state: pyspiel.State, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.apply_action(rng.randrange(len(state.chance_outcomes())))
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def _snapshot(state: pyspiel.State) -> tuple[object, ...]:
    players = state.num_players()
    return (
        state.history(),
        state.move_number(),
        state.is_terminal(),
        state.returns(),
        [state.information_state_string(p) for p in range(players)],
        [state.information_state_tensor(p).tolist() for p in range(players)],
        [state.observation_string(p) for p in range(players)],
        [state.observation_tensor(p).tolist() for p in range(players)],
        state.legal_actions(),
    )


def test_clone_is_faithful_and_independent_from_the_deal_on() -> None:
    game = pyspiel.load_game("triage", {"players": 2})
    state = game.new_initial_state()
    rng = random.Random(1)
    _random_play(state, rng, 7)  # the deal's chance nodes
    for _ in range(12):
        _random_play(state, rng, rng.randrange(1, 15))
        if state.is_terminal():
            break
        before = _snapshot(state)
        clone = state.clone()
        assert isinstance(clone, TriageState) and _snapshot(clone) == before
        assert [(e.player, e.action) for e in clone.full_history()] == [
            (e.player, e.action) for e in state.full_history()
        ]
        child = state.child(state.legal_actions()[0])  # pyspiel's own clone, from C++
        clone.apply_action(state.legal_actions()[0])
        assert _snapshot(clone) == _snapshot(child)
        _random_play(clone, random.Random(2), 40)
        assert _snapshot(state) == before


def test_stepping_either_of_a_state_and_its_clone_leaves_the_other_unchanged() -> None:
    """A clone shares its original's game and record until one of them is stepped
    (copy-on-write): whichever moves first, the other keeps its position, tensors and strings;
    a clone of a clone, and a game changed through ``engine``, change nothing else either."""
    for params, first in (({"players": 2}, "original"), ({"players": 3, "opponents": "greedy"}, "clone")):
        game = pyspiel.load_game("triage", params)
        state = game.new_initial_state()
        rng = random.Random(4)
        _random_play(state, rng, 7 + 20)
        before = _snapshot(state)
        clone = state.clone()
        twin = clone.clone()
        moved, kept = (state, clone) if first == "original" else (clone, state)
        _random_play(moved, random.Random(5), 30)
        assert _snapshot(kept) == before and _snapshot(twin) == before
        _random_play(kept, random.Random(6), 30)  # the one kept moves on by itself, too
        assert _snapshot(twin) == before
        engine = twin.engine
        assert engine is not None
        engine.apply(engine.legal_actions()[0])  # the all-seeing game is the twin's own
        assert _snapshot(state.clone()) == _snapshot(state) and _snapshot(twin) != before


def test_a_clone_serializes_and_reads_back() -> None:
    game = pyspiel.load_game("triage", {"players": 2, "config": "mini"})
    state = game.new_initial_state()
    _random_play(state, random.Random(3), 4)
    clone = state.clone()
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, clone))[1]
    assert _snapshot(again) == _snapshot(state)


def test_a_deep_copied_pettingzoo_environment_is_faithful_and_independent() -> None:
    original = env(players=3)
    original.reset(seed=5)
    rng = random.Random(5)
    for _ in range(25):
        mask = original.observe(original.agent_selection)["action_mask"]  # type: ignore[index]
        original.step(rng.choice(np.flatnonzero(mask).tolist()))
    twin = copy.deepcopy(original)
    before = (
        original.agent_selection,
        [original.observe(a)["observation"].tolist() for a in original.agents],
    )  # type: ignore[index]
    moves = random.Random(6)
    played = []
    for _ in range(30):
        mask = twin.observe(twin.agent_selection)["action_mask"]  # type: ignore[index]
        played.append(moves.choice(np.flatnonzero(mask).tolist()))
        twin.step(played[-1])
    after = (original.agent_selection, [original.observe(a)["observation"].tolist() for a in original.agents])  # type: ignore[index]
    assert after == before
    for action in played:  # the original, fed the same actions, reaches the copy's position
        original.step(action)
    for agent in original.agents:
        assert np.array_equal(original.observe(agent)["observation"], twin.observe(agent)["observation"])  # type: ignore[index]
    assert original.rewards == twin.rewards and original.agent_selection == twin.agent_selection


def test_a_deep_copied_gymnasium_environment_is_faithful_and_independent() -> None:
    original = gymnasium.make("Triage-v0", players=2)
    observation, _ = original.reset(seed=9)
    rng = random.Random(9)
    for _ in range(20):
        observation, *_ = original.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    twin = copy.deepcopy(original)
    seen = observation["observation"].copy()
    results = []
    copy_observation = observation
    moves = random.Random(10)
    for _ in range(25):
        action = moves.choice(np.flatnonzero(copy_observation["action_mask"]).tolist())
        copy_observation, reward, done, _, _ = twin.step(action)
        results.append((action, copy_observation["observation"].copy(), reward))
        if done:
            break
    assert np.array_equal(original.unwrapped.encoder.encode(original.unwrapped.table.observation(0)), seen)
    for action, expected, reward in results:  # the opponents' generator was copied too
        observation, got, *_ = original.step(action)
        assert np.array_equal(observation["observation"], expected) and got == reward
