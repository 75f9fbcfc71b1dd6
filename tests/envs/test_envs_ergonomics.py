"""Research ergonomics: proven bounds, the returns option, resampled states, masks, flat and
normalised observations, the turn-based parallel API."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pyspiel
import pytest
from envs_helpers import random_positions
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
from triage.engine import CardSpec, Game, load_standard_deck, make_config
from triage.envs.bounds import game_bounds
from triage.envs.features import ObservationEncoder
from triage.envs.openspiel import apply_deal
from triage.envs.pettingzoo import env, parallel_env
from triage.envs.returns import final_values

VARIANTS = [
    {},
    {"return_to": "discard", "helicopter_draws": "reopen"},
    {"terminal_upkeep": "reward", "quality_floor": 0, "return_to": "bottom"},
]


@pytest.mark.parametrize("variant", VARIANTS, ids=["default", "discard-reopen", "reward-floor-bottom"])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_stay_inside_the_proven_bounds(players: int, variant: dict) -> None:
    config = make_config(variant)
    bounds = game_bounds(config, load_standard_deck(), players)
    for seed in range(25):
        game, rng, decisions = Game.new(players=players, seed=seed, config=config), random.Random(seed), 0
        while game.turn is not None:
            game.apply(rng.choice(game.legal_actions()))
            decisions += 1
        assert decisions <= bounds.max_decisions
        assert all(bounds.min_score <= score <= bounds.max_score for score in game.scores())


def test_the_bounds_are_far_tighter_than_the_first_release() -> None:
    """The first release declared -1910..1930 and 2,400 decisions for 2 players."""
    bounds = game_bounds(make_config(), load_standard_deck(), 2)
    assert -100 < bounds.min_score < 0 and 10 < bounds.max_score < 500
    assert bounds.max_decisions < 1200


def test_a_deck_that_pays_more_than_a_token_costs_is_refused_by_name() -> None:
    deck = [*load_standard_deck(), CardSpec("X1", "chronic", diagnosis=1, credits=5, vp=1)]
    with pytest.raises(ValueError, match="credits per unit"):
        game_bounds(make_config(), deck, 2)


def test_final_values_add_up_to_zero_for_margin_and_win() -> None:
    assert final_values([30, 20, 10], winner=0, returns="margin") == [15.0, 0.0, -15.0]
    assert final_values([30, 20, 10], winner=0, returns="win") == [1.0, -0.5, -0.5]
    assert final_values([20, 20], winner=None, returns="win") == [0.0, 0.0]
    assert final_values([17], winner=0, returns="margin", start=10) == [7.0]
    assert final_values([17], winner=None, returns="win") == [-1.0]
    with pytest.raises(ValueError, match="returns must be one of"):
        pyspiel.load_game("triage", {"returns": "elo"})


@pytest.mark.parametrize("returns", ["score", "margin", "win"])
def test_openspiel_returns_and_their_declared_range(returns: str) -> None:
    game = pyspiel.load_game("triage", {"players": 3, "returns": returns})
    assert (game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM) == (returns != "score")
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    for seed in range(6):
        state = game.new_initial_state()
        apply_deal(state, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        values = state.returns()
        assert game.min_utility() <= min(values) <= max(values) <= game.max_utility()
        assert len(state.history()) <= game.max_game_length()
        engine = state.engine
        assert values == final_values(engine.scores(), engine.winner, returns)


def test_a_resampled_state_keeps_history_and_move_number() -> None:
    game = pyspiel.load_game("triage", {"players": 2})
    state = game.new_initial_state()
    apply_deal(state, 12)
    rng = random.Random(12)
    for _ in range(25):
        state.apply_action(rng.choice(state.legal_actions()))
    for player in (0, 1):
        world = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert world.history() == state.history() and world.move_number() == state.move_number()
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.legal_actions() == state.legal_actions()
        clone = world.clone()
        assert clone.history() == world.history() and clone.engine is not world.engine


def test_gymnasium_action_masks_and_the_flat_observation_match_the_dict_form() -> None:
    plain = gymnasium.make("Triage-v0").unwrapped
    flat = gymnasium.make("Triage-v0", observation="flat").unwrapped
    observation, _ = plain.reset(seed=6)
    vector, info = flat.reset(seed=6)
    rng = random.Random(6)
    done = False
    while not done:
        assert np.array_equal(observation["observation"], vector)
        assert np.array_equal(plain.action_masks(), observation["action_mask"].astype(bool))
        assert np.array_equal(info["action_mask"], observation["action_mask"])
        assert flat.observation_space.contains(vector)
        action = rng.choice(np.flatnonzero(plain.action_masks()).tolist())
        observation, _, done, _, _ = plain.step(action)
        vector, _, _, _, info = flat.step(action)


@pytest.mark.parametrize(
    "options",
    [{"observation": "flat"}, {"observation": "flat", "normalize": True}, {"normalize": True}],
    ids=["flat", "flat-normalised", "dict-normalised"],
)
def test_gymnasium_checker_passes_on_every_observation_option(options: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker warns on a dubious space: an error here
        check_env(gymnasium.make("Triage-v0", **options).unwrapped, skip_render_check=True)


@pytest.mark.parametrize("returns", ["score", "margin", "win"])
def test_gymnasium_rewards_add_up_to_the_final_value(returns: str) -> None:
    environment = gymnasium.make("Triage-v0", returns=returns).unwrapped
    for seed in range(4):
        observation, _ = environment.reset(seed=seed)
        rng, total, done = random.Random(seed), 0.0, False
        while not done:
            observation, reward, done, _, _ = environment.step(
                rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
            )
            total += reward
        game = environment.table.game
        start = 10.0 if returns == "score" else 0.0
        assert total + start == pytest.approx(final_values(game.scores(), game.winner, returns)[0])


@pytest.mark.parametrize("returns", ["margin", "win"])
def test_pettingzoo_rewards_add_up_to_the_final_values(returns: str) -> None:
    environment = env(players=3, returns=returns)
    environment.reset(seed=3)
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    rng = random.Random(3)
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _ = environment.last()
        totals[agent] += reward
        if termination or truncation:
            environment.step(None)
            continue
        environment.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    game = environment.unwrapped.table.game
    expected = final_values(game.scores(), game.winner, returns)
    assert [totals[agent] for agent in environment.possible_agents] == pytest.approx(expected)
    assert sum(expected) == pytest.approx(0.0)


def test_pettingzoo_api_test_passes_on_the_flat_normalised_option() -> None:
    api_test(env(players=2, observation="flat", normalize=True), num_cycles=200, verbose_progress=False)


def test_the_flat_pettingzoo_option_gives_the_mask_in_infos() -> None:
    environment = env(players=2, observation="flat")
    environment.reset(seed=2)
    agent = environment.agent_selection
    _, _, _, _, info = environment.last()
    assert info["action_mask"].sum() > 0
    assert np.array_equal(info["action_mask"], environment.unwrapped.action_mask(agent))
    other = next(name for name in environment.possible_agents if name != agent)
    assert environment.unwrapped.infos[other]["action_mask"].sum() == 0


@pytest.mark.parametrize("players", [1, 2, 3])
def test_parallel_api_test_passes_on_the_turn_based_parallel_environment(players: int) -> None:
    parallel_api_test(parallel_env(players=players), num_cycles=400)


def test_the_parallel_environment_takes_the_action_of_the_seat_to_decide_only() -> None:
    environment = parallel_env(players=2)
    observations, _ = environment.reset(seed=5)
    rng = random.Random(5)
    steps = 0
    while environment.agents:
        acting = [a for a in environment.agents if observations[a]["action_mask"].any()]
        assert len(acting) == 1
        actions = {a: 0 for a in environment.agents}  # the idle seat's 0 is ignored
        actions[acting[0]] = rng.choice(np.flatnonzero(observations[acting[0]]["action_mask"]).tolist())
        observations, _, _, _, _ = environment.step(actions)
        steps += 1
    assert steps > 20


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_normalised_encoding_drops_only_constant_entries_and_stays_in_its_box(players: int) -> None:
    raw = scaled = normalised = None
    constant: np.ndarray | None = None
    first: np.ndarray | None = None
    for table in random_positions(players, range(12), every=2):
        if raw is None:
            raw = ObservationEncoder(
                table.layout, make_config(), load_standard_deck(), players, encoding="raw"
            )
            scaled = ObservationEncoder(table.layout, make_config(), load_standard_deck(), players)
            normalised = ObservationEncoder(
                table.layout, make_config(), load_standard_deck(), players, normalize=True
            )
            assert scaled.low.min() >= -1 and scaled.high.max() <= 1
            assert normalised.low.min() >= -1 and normalised.high.max() <= 1
        for seat in range(players):
            vector = table.observation(seat)
            assert raw.space().contains(vector)
            assert scaled.space().contains(scaled.encode(vector))
            assert np.allclose(scaled.encode(vector) * scaled.scale, vector, rtol=1e-6, atol=0)
            assert normalised.space().contains(normalised.encode(vector))
            if first is None:
                first, constant = vector, np.ones_like(vector, dtype=bool)
            constant &= vector == first
    dropped = sorted(set(raw.names) - set(normalised.names))
    assert dropped and all(constant[raw.names.index(name)] for name in dropped)
    assert normalised.size < raw.size


def test_the_wrapped_pettingzoo_environment_refuses_an_integer_outside_the_space() -> None:
    """env() relies on the environment's own refusal rather than AssertOutOfBoundsWrapper."""
    from triage.envs import IllegalActionError

    environment = env(players=2)
    environment.reset(seed=1)
    agent = environment.agent_selection
    with pytest.raises(IllegalActionError, match="outside the action space"):
        environment.step(environment.action_space(agent).n)
    assert environment.agent_selection == agent
