"""Issue 42 point 5: search on Triage's own fast paths. :class:`RolloutEvaluator` plays a rollout
on the engine (integer ids, ``Game.copy``): its value is the true outcome of the game it played
out, the same as that game played through OpenSpiel's own API, and a seed fixes it. Worlds drawn
for IS-MCTS share their deck's integer plan, so a rollout in a world lists actions as fast as one
in the real game."""

from __future__ import annotations

import json
import random

import numpy as np
import pyspiel
import pytest

import triage.envs.openspiel  # noqa: F401 - registers "triage"
from triage.engine import Game
from triage.engine.rollout import random_policy, rollout
from triage.envs.openspiel import RolloutEvaluator, TriageState, apply_deal
from triage.envs.returns import final_values


def _position(params: dict[str, int | str], moves: int, seed: int = 11) -> TriageState:
    state = pyspiel.load_game("triage", params).new_initial_state()
    apply_deal(state, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        state.apply_action(rng.choice(state.legal_actions()))
    assert isinstance(state, TriageState)
    return state


def _played_out(state: TriageState, seed: int) -> tuple[list[int], list[float]]:
    """The ids a random rollout from ``Random(seed)`` takes (the evaluator's draws, through the
    generic :func:`rollout` loop), and the returns of a clone that OpenSpiel's own
    ``apply_action`` takes along them to the end."""
    engine = state.engine
    assert engine is not None
    taken: list[int] = []

    def recording(game: Game, ids: list[int], rng: random.Random) -> int:
        taken.append(random_policy(game, ids, rng))
        return taken[-1]

    rollout(engine.copy(), recording, random.Random(seed))
    clone = state.clone()
    for action in taken:
        clone.apply_action(action)
    assert clone.is_terminal()
    return taken, clone.returns()


@pytest.mark.parametrize(
    "params",
    [{"players": 2}, {"players": 3, "returns": "margin"}, {"players": 2, "returns": "win", "rounds": 3}],
)
def test_the_evaluator_returns_the_outcome_of_the_game_it_plays_out(params: dict[str, int | str]) -> None:
    state = _position(params, moves=9)
    before = (state.history(), state.information_state_string(0), state.observation_tensor(0).tolist())
    for seed in (1, 2, 3):
        taken, returns = _played_out(state, seed)
        value = RolloutEvaluator(seed=seed).evaluate(state)
        assert len(taken) > 10
        assert value.tolist() == returns  # the true outcome, seat by seat
    assert (
        state.history(),
        state.information_state_string(0),
        state.observation_tensor(0).tolist(),
    ) == before


def test_the_evaluator_is_deterministic_for_a_seed_and_averages_its_rollouts() -> None:
    state = _position({"players": 2}, moves=5)
    first = [RolloutEvaluator(seed=7).evaluate(state).tolist() for _ in range(2)]
    assert first[0] == first[1]
    several = RolloutEvaluator(n_rollouts=4, seed=9)
    # Four rollouts from one generator: the mean of the four games it plays out, in turn.
    draws = random.Random(9)
    engine = state.engine
    assert engine is not None
    outcomes = []
    for _ in range(4):
        game = engine.copy()
        rollout(game, random_policy, draws)
        outcomes.append(final_values(game.scores(), game.winner, "score"))
    assert np.allclose(several.evaluate(state), np.mean(outcomes, axis=0))


def test_a_world_drawn_for_search_shares_the_deals_integer_plan() -> None:
    """A world drawn from a seat's view of a standard deal holds the standard deck under the
    same handles (K1): it takes the deck's plan instead of working one out (and its memos)."""
    state = _position({"players": 2}, moves=3)
    engine = state.engine
    assert engine is not None
    engine.legal_action_ids()  # the real game's plan, once asked for
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(3):
        world = state.resample_from_infostate(0, sampler)
        drawn = world.engine
        assert drawn is not None and drawn.deck_key == engine.deck_key is not None
        drawn.legal_action_ids()
        assert drawn.machinery.plan is engine.machinery.plan


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [("default", 2, {}), ("default", 4, {"return_to": "discard"}), ("mini", 2, {}), ("duel", 2, {})],
)
def test_the_view_text_is_jsons_own_text(variant: str, players: int, options: dict[str, str]) -> None:
    """``view_text`` (search's node keys) is written by orjson: at every position of random games,
    for every seat and the spectator, it is exactly the text json's canonical dump gives."""
    from triage.engine import spectator_view, view
    from triage.envs.encoding import FIXED_VIEW_PARTS, view_text
    from triage.envs.variants import load_variant

    rng = random.Random(players)
    positions = 0
    for seed in range(3):
        game = load_variant(variant, **options).deal(players, seed)
        while True:
            for seen in [*(view(game, seat) for seat in range(players)), spectator_view(game)]:
                changing = {key: value for key, value in seen.items() if key not in FIXED_VIEW_PARTS}
                assert view_text(seen) == json.dumps(changing, sort_keys=True, separators=(",", ":"))
            positions += 1
            if game.turn is None:
                break
            game.apply_id(rng.choice(game.legal_action_ids()))
    assert positions > 15
