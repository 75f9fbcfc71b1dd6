"""The mini variant (issue 21 point 5): named data files, loadable everywhere, a finite chance node
over the deck's orders, a tree small enough for tabular CFR, and the bots as OpenSpiel players."""

from __future__ import annotations

from pathlib import Path

import pyspiel
import numpy as np
import pytest
from open_spiel.python.algorithms import cfr, exploitability

import triage.envs.openspiel as triage_openspiel
from envs_helpers import count_tree
from triage.engine import DataError, Game
from triage.engine.cards import deck_names, load_named_deck
from triage.engine.config import config_names, load_named_config
from triage.envs.variants import arrangements, deal_arranged, load_variant
from triage.options import load_settings

#: The mini game's tree, walked in full (test below): histories, terminal histories, and each
#: player's information states (perfect recall). docs/research.md quotes these numbers.
MINI_TREE = {"histories": 7921, "terminal": 3456, "infostates": [617, 2875]}


def test_the_mini_files_are_built_in_and_validated_like_the_others() -> None:
    assert "mini" in config_names() and "mini" in deck_names()
    config = load_named_config("mini")
    assert (config.rounds, config.arrivals, config.start["helicopters"]) == (1, 1, 0)
    deck = load_named_deck("mini")
    assert sorted(card.kind for card in deck) == ["critical", "non_severe", "severe", "terminal"]


def test_an_unknown_name_is_refused_naming_the_built_in_ones() -> None:
    with pytest.raises(DataError, match="unknown deck 'tiny'.*mini, standard"):
        load_named_deck("tiny")
    with pytest.raises(DataError, match="unknown configuration 'tiny'.*default, duel, mini"):
        load_named_config("tiny")


def test_config_mini_on_the_command_line_brings_the_mini_deck_and_settings_stay_on_top() -> None:
    config, deck = load_settings(Path("mini"), None, ["rounds=2"])
    assert config.rounds == 2 and deck is not None and len(deck) == 4
    config, deck = load_settings(Path("mini"), Path("standard"), [])
    assert config.rounds == 1 and deck is not None and len(deck) == 40


def test_every_order_of_the_mini_deck_is_dealt_once_and_as_laid_out() -> None:
    variant = load_variant("mini")
    orders = arrangements(variant.deck or ())
    assert len(orders) == 24
    starts = set()
    for order in orders:
        game = deal_arranged(2, variant.config, order)
        # A1: seat 0 draws the first card; the rest wait in the deck in the order's order
        drawn = [event["card"] for event in game.initial_events if event["type"] == "drawn"]
        laid_out = [game.origins[card] for card in drawn + game.deck]
        assert laid_out == [card.id for card in order]
        starts.add(tuple(laid_out))
    assert len(starts) == 24


def test_the_neutral_handles_of_an_arranged_deal_say_only_the_place_in_the_order() -> None:
    """K1, I4: with the seed fixed, the handle at each place is the same in every order, so a
    seat that sees a handle learns the card's place (which the public draws tell), never its back."""
    variant = load_variant("mini")
    places = set()
    for order in arrangements(variant.deck or ()):
        game = deal_arranged(2, variant.config, order)
        drawn = [event["card"] for event in game.initial_events if event["type"] == "drawn"]
        places.add(tuple(drawn + game.deck))
    assert len(places) == 1


def test_the_openspiel_parameter_config_mini_deals_from_one_chance_node_of_24_orders() -> None:
    game = pyspiel.load_game("triage", {"config": "mini"})
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 24 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    state.apply_action(5)
    assert not state.is_chance_node() and state.engine is not None and len(state.engine.cards) == 4
    assert game.max_chance_outcomes() == 24
    with pytest.raises(pyspiel.SpielError, match="deal order must be in 0..23"):
        game.new_initial_state().apply_action(24)


def test_the_mini_game_keeps_the_rounds_parameter_and_a_fixed_seed_has_no_chance_node() -> None:
    game = pyspiel.load_game("triage", {"config": "mini", "seed": 3, "rounds": 2})
    state = game.new_initial_state()
    assert not state.is_chance_node() and state.engine is not None
    assert state.engine.config.rounds == 2 and len(state.engine.cards) == 4


def test_the_default_game_keeps_six_rounds_and_the_standard_deck() -> None:
    state = pyspiel.load_game("triage", {"seed": 1}).new_initial_state()
    assert state.engine is not None and state.engine.config.rounds == 6 and len(state.engine.cards) == 40


def test_an_unknown_config_name_is_refused() -> None:
    with pytest.raises(DataError, match="unknown configuration 'maxi'"):
        pyspiel.load_game("triage", {"config": "maxi"})


def test_the_mini_tree_is_counted_in_full() -> None:
    game = pyspiel.load_game("triage", {"config": "mini", "returns": "margin"})
    counted = count_tree(game)
    assert counted == MINI_TREE


def test_cfr_lowers_the_exploitability_in_a_few_iterations() -> None:
    """A smoke test on one deal (seed 3: no chance node) so that it takes seconds; the full
    game's curve is examples/cfr_mini.py's (docs/research.md)."""
    game = pyspiel.load_game("triage", {"config": "mini", "returns": "margin", "seed": 3})
    solver = cfr.CFRSolver(game)
    solver.evaluate_and_update_policy()
    first = exploitability.nash_conv(game, solver.average_policy())
    for _ in range(3):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(game, solver.average_policy()) < first


def test_a_bot_is_an_openspiel_bot_that_plays_a_whole_game() -> None:
    game = pyspiel.load_game("triage", {"config": "mini"})
    state = game.new_initial_state()
    state.apply_action(7)
    players = [triage_openspiel.bot("greedy"), triage_openspiel.bot("random", seed=1)]
    assert isinstance(players[0], pyspiel.Bot)
    while not state.is_terminal():
        action = players[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    with pytest.raises(pyspiel.SpielError, match="a bot decides only at a player's decision"):
        players[0].step(state)


def test_the_bots_as_policies_give_a_nash_conv_and_random_is_exploitable() -> None:
    game = pyspiel.load_game("triage", {"config": "mini", "returns": "margin"})
    assert exploitability.nash_conv(game, triage_openspiel.BotPolicy(game, "random")) > 1.0
    assert exploitability.nash_conv(game, triage_openspiel.BotPolicy(game, "greedy")) >= 0.0


def test_the_bot_policy_answers_alike_in_every_state_of_an_information_state() -> None:
    game = pyspiel.load_game("triage", {"config": "mini"})
    policy = triage_openspiel.BotPolicy(game, "random")
    answers: dict[str, set[int]] = {}
    for order in range(24):
        state = game.new_initial_state()
        state.apply_action(order)
        key = state.information_state_string(0)
        answers.setdefault(key, set()).update(policy.action_probabilities(state))
    assert all(len(actions) == 1 for actions in answers.values()) and len(answers) < 24


def test_gymnasium_and_pettingzoo_take_the_mini_config() -> None:
    from triage.envs.gymnasium import TriageEnv
    from triage.envs.pettingzoo import raw_env

    environment = TriageEnv(config="mini", players=2, opponents="greedy")
    environment.reset(seed=1)
    assert len(environment.table.game.cards) == 4 and environment.table.game.config.rounds == 1
    zoo = raw_env(config="mini")
    zoo.reset(seed=2)
    assert len(zoo.table.game.cards) == 4


def test_a_mini_game_is_a_full_game_of_the_engine() -> None:
    variant = load_variant("mini")
    game = variant.deal(2, 9)
    assert isinstance(game, Game) and game.config.rounds == 1 and len(game.cards) == 4


def test_the_research_page_quotes_the_counted_tree() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "research.md").read_text(encoding="utf-8")
    histories, terminal = f"{MINI_TREE['histories']:,}", f"{MINI_TREE['terminal']:,}"
    first, second = (f"{count:,}" for count in MINI_TREE["infostates"])  # type: ignore[union-attr]
    assert all(figure in text for figure in (histories, terminal, first, second))


def _state_of_order(kinds: tuple[str, ...]) -> pyspiel.State:
    game = pyspiel.load_game("triage", {"config": "mini"})
    variant = load_variant("mini")
    orders = [[card.kind for card in order] for order in arrangements(variant.deck or ())]
    state = game.new_initial_state()
    state.apply_action(orders.index(list(kinds)))
    return state


def test_the_deal_order_never_reaches_a_seat_beyond_what_it_may_know() -> None:
    """I4, K3: seat 0 has drawn the critical patient and sees the next card's front only. A
    severe and a non-severe card share the standard front (diagnosis 1 both), so the two orders
    below are one information state to seat 0: same string, same tensors; a terminal on top is
    another."""
    severe_next = _state_of_order(("critical", "severe", "non_severe", "terminal"))
    non_severe_next = _state_of_order(("critical", "non_severe", "severe", "terminal"))
    terminal_next = _state_of_order(("critical", "terminal", "severe", "non_severe"))
    assert severe_next.engine is not None and non_severe_next.engine is not None
    assert severe_next.engine.deck != [] and severe_next.history() != non_severe_next.history()
    for read in (
        "information_state_string",
        "information_state_tensor",
        "observation_string",
        "observation_tensor",
    ):
        assert np.array_equal(getattr(severe_next, read)(0), getattr(non_severe_next, read)(0)), read
    assert severe_next.information_state_string(0) != terminal_next.information_state_string(0)
    assert str(severe_next) == str(non_severe_next)  # the public string says nothing of the order


def test_the_command_line_simulates_the_mini_variant_by_name() -> None:
    from typer.testing import CliRunner

    from triage.cli import app

    result = CliRunner().invoke(app, ["simulate", "--config", "mini", "--games", "4", "--players", "2"])
    assert result.exit_code == 0, result.output
    refused = CliRunner().invoke(app, ["simulate", "--config", "mega", "--games", "1"])
    assert refused.exit_code == 2 and "mega" in refused.output


def test_gymnasium_make_passes_the_config_name() -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0

    environment = gymnasium.make("Triage-v0", config="mini", players=2, observation="flat")
    observation, info = environment.reset(seed=3)
    # every entry's filler 0 (seats 2 and 3 here) lies in the bounds, though mini's QoC never reaches 0
    assert environment.observation_space.contains(observation) and info["action_mask"].any()
    check_env(environment.unwrapped, skip_render_check=True)


def test_pettingzoo_api_test_passes_on_the_mini_variant() -> None:
    from pettingzoo.test import api_test

    from triage.envs.pettingzoo import env

    api_test(env(config="mini", observation="flat"), num_cycles=30)


def test_openspiel_random_sim_test_passes_on_the_mini_variant() -> None:
    game = pyspiel.load_game("triage", {"config": "mini", "returns": "win"})
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
