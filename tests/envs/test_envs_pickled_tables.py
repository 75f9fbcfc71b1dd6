"""A table pickled mid-game and continued in a fresh process observes what a table dealt afresh
and replayed to the same point observes (what checkpointing, Ray workers and multiprocessing
do). The observation caches key on the game's stamps; stamps that came from a process-wide
count collided with the fresh process's own and served stale numbers."""

from __future__ import annotations

import multiprocessing
import pickle
import random
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from triage.envs.pettingzoo import raw_env

GAMES = 12
STEPS_BEFORE = 40
STEPS_AFTER = 60


def _observe_all(table: raw_env) -> list[np.ndarray]:
    return [np.asarray(table.observe(agent)["observation"]).copy() for agent in table.agents]


def _random_step(table: raw_env, rng: random.Random) -> int | None:
    agent = table.agent_selection
    if table.terminations[agent] or table.truncations[agent]:
        table.step(None)
        return None
    legal = np.flatnonzero(table.action_mask(agent))
    action = int(rng.choice(list(legal)))
    table.step(action)
    return action


def _play(table: raw_env, rng: random.Random, steps: int) -> tuple[list[int | None], list[list[np.ndarray]]]:
    """Random legal play, observing every seat after each step (which fills the caches)."""
    actions, observations = [], []
    for _ in range(steps):
        if not table.agents:
            break
        actions.append(_random_step(table, rng))
        if table.agents:
            observations.append(_observe_all(table))
    return actions, observations


def continue_in_fresh_process(pickled: bytes, seed: int, before: list[int | None]) -> int:
    """Go on with the unpickled table; replay a fresh deal to the same point beside it and count
    the observations where the two differ."""
    continued = pickle.loads(pickled)
    replayed = raw_env(players=2)
    replayed.reset(seed=seed)
    for action in before:
        replayed.step(action)
        if replayed.agents:
            _observe_all(replayed)
    actions, seen = _play(continued, random.Random(seed + 1), STEPS_AFTER)
    differ = 0
    for action, observations in zip(actions, seen):
        replayed.step(action)
        if replayed.agents:
            expected = _observe_all(replayed)
            differ += any(not np.array_equal(a, b) for a, b in zip(observations, expected))
    return differ


def test_a_table_pickled_mid_game_observes_as_a_fresh_replay_in_another_process() -> None:
    jobs = []
    for seed in range(GAMES):
        table = raw_env(players=2)
        table.reset(seed=seed)
        _observe_all(table)
        before, _ = _play(table, random.Random(seed), STEPS_BEFORE)
        jobs.append((pickle.dumps(table), seed, before))
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        differing = list(pool.map(continue_in_fresh_process, *zip(*jobs)))
    assert differing == [0] * GAMES
