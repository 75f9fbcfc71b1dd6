"""The OpenSpiel game ``triage`` (triage.envs.openspiel) under OpenSpiel's own checks."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

import triage.envs.openspiel  # noqa: F401 - registers "triage"
from triage.envs import IllegalActionError, Table
from triage.envs.openspiel import DEAL_BASE, DEAL_DIGITS, apply_deal


@pytest.mark.parametrize("players", [1, 2, 4])
def test_openspiel_random_sim_test_passes_with_serialization(players: int) -> None:
    game = pyspiel.load_game("triage", {"players": players})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_random_sim_test_passes_with_a_fixed_deal_and_the_variants() -> None:
    game = pyspiel.load_game("triage", {"players": 2, "seed": 11, "rounds": 3, "return_to": "discard"})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    params = {"players": 3, "helicopter_draws": "reopen", "terminal_upkeep": "reward", "quality_floor": 0}
    game = pyspiel.load_game("triage", params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    engine = game.new_initial_state().child(0).child(0).child(0).child(0).child(0).child(0).child(0).engine
    config = engine.config
    assert (config.helicopter_draws, config.terminal_upkeep, config.quality_floor) == ("reopen", "reward", 0)
    assert game.min_utility() == 0.0  # V4: no score below the floor (VP start at 0)


def test_the_deal_is_drawn_by_chance_nodes_spelling_the_engine_seed() -> None:
    game = pyspiel.load_game("triage", {"players": 2})
    state = game.new_initial_state()
    digits = [3, 141, 59, 26, 5, 35, 89]
    assert len(digits) == DEAL_DIGITS
    for digit in digits:
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert len(outcomes) == DEAL_BASE == game.max_chance_outcomes()
        assert sum(probability for _, probability in outcomes) == pytest.approx(1.0)
        state.apply_action(digit)
    assert not state.is_chance_node()
    seed = int.from_bytes(bytes(digits), "big")
    assert state.legal_actions() == Table.deal(players=2, seed=seed).legal_ids(0)


def test_so_many_deals_that_a_seat_cannot_recognise_its_own() -> None:
    """K1, I3: 2**56 deals; the first observation does not tell the chance digits."""
    assert DEAL_BASE**DEAL_DIGITS >= 2**56
    game = pyspiel.load_game("triage", {"players": 2})
    state = game.new_initial_state()
    for _ in range(DEAL_DIGITS):
        state.apply_action(7)
    observed = state.observation_string(0) + state.information_state_string(0)
    assert "deal" not in observed and str(int.from_bytes(bytes([7] * DEAL_DIGITS), "big")) not in observed


def test_a_seed_parameter_deals_at_once() -> None:
    state = pyspiel.load_game("triage", {"players": 3, "seed": 37}).new_initial_state()
    assert not state.is_chance_node()
    table = Table.deal(players=3, seed=37)
    assert state.current_player() == table.game.turn
    assert state.legal_actions() == table.legal_ids(table.game.turn)


def test_rounds_and_return_to_reach_the_engine_configuration() -> None:
    game = pyspiel.load_game("triage", {"players": 2, "seed": 3, "rounds": 2, "return_to": "bottom"})
    state = game.new_initial_state()
    assert state.engine.config.rounds == 2 and state.engine.config.return_to == "bottom"
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.engine.round <= 2
    assert state.returns() == [float(score) for score in state.engine.scores()]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": 5}, "players must be 1 to 4"),
        ({"seed": -4}, "seed must be -1"),
        ({"return_to": "side"}, "return_to"),
    ],
)
def test_bad_parameters_are_refused_by_name(params: dict, message: str) -> None:
    with pytest.raises(Exception, match=message):
        pyspiel.load_game("triage", params)


def _midgame_state(seed: int, steps: int):
    game = pyspiel.load_game("triage", {"players": 2})
    state = game.new_initial_state()
    apply_deal(state, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_an_illegal_integer_is_refused_and_the_state_is_unchanged() -> None:
    state = _midgame_state(seed=5, steps=12)
    before = (str(state), state.legal_actions(), state.history())
    illegal = next(a for a in range(state.get_game().num_distinct_actions()) if a not in before[1])
    with pytest.raises(Exception, match=rf"action {illegal} \("):
        state.apply_action(illegal)
    assert (str(state), state.legal_actions(), state.history()) == before
    assert issubclass(IllegalActionError, ValueError)


def test_every_information_channel_is_the_same_in_a_world_drawn_from_the_seat_view() -> None:
    """I4 for every OpenSpiel channel: strings, tensors, str(state) and legal actions of seat p
    do not change when the hidden backs and deck order are drawn afresh from p's view."""
    differing = 0
    for seed in range(6):
        state = _midgame_state(seed=seed, steps=20 + seed)
        if state.is_terminal():
            continue
        for player in range(2):
            sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
            world = state.resample_from_infostate(player, sampler)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.observation_string(player) == state.observation_string(player)
            assert np.array_equal(
                world.information_state_tensor(player), state.information_state_tensor(player)
            )
            assert np.array_equal(world.observation_tensor(player), state.observation_tensor(player))
            assert str(world) == str(state)
            assert world.current_player() == state.current_player()
            if world.engine.deck != state.engine.deck or any(
                world.engine.cards[c].back() != state.engine.cards[c].back() for c in state.engine.cards
            ):
                differing += 1
    assert differing > 0


def test_serialization_restores_the_same_position() -> None:
    state = _midgame_state(seed=9, steps=30)
    text = pyspiel.serialize_game_and_state(state.get_game(), state)
    _, restored = pyspiel.deserialize_game_and_state(text)
    assert restored.history() == state.history()
    assert restored.legal_actions() == state.legal_actions()
    assert restored.information_state_string(0) == state.information_state_string(0)
    assert restored.engine.scores() == state.engine.scores()


def test_openspiel_ismcts_bot_plays_a_whole_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("triage", {"players": 2, "seed": 2, "rounds": 2})
    bot = ismcts.ISMCTSBot(
        game=game,
        uct_c=2.0,
        evaluator=mcts.RandomRolloutEvaluator(random_state=np.random.RandomState(0)),
        max_simulations=6,
        random_state=np.random.RandomState(1),
    )
    state = game.new_initial_state()
    rng = random.Random(0)
    bot_moves = 0
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
            bot_moves += 1
        else:
            action = rng.choice(state.legal_actions())
        assert action in state.legal_actions()
        state.apply_action(action)
    assert bot_moves > 3
    assert state.returns() == [float(score) for score in state.engine.scores()]
