"""Issue 42 point 6: the duel variant, a small game whose seats interact, solvable by tabular CFR.

Its tree is counted in full; greedy is exploitable there (mini's greedy is an exact equilibrium,
NashConv 0.0) and CFR's average policy falls below greedy's NashConv within the documented budget."""

from __future__ import annotations

import pyspiel
import pytest
from open_spiel.python.algorithms import cfr, exploitability

import triage.envs.openspiel as triage_openspiel
from envs_helpers import count_tree
from triage.engine.config import load_named_config
from triage.envs.variants import arrangements, load_variant

DUEL_TREE = {"histories": 8847, "terminal": 4168, "infostates": [181, 4497]}
#: Greedy's NashConv on duel (returns=margin), exactly 11/3; and the CFR budget that beats it.
GREEDY_NASH_CONV = 11 / 3
CFR_ITERATIONS = 2


def _game() -> pyspiel.Game:
    return pyspiel.load_game("triage", {"config": "duel", "returns": "margin"})


def test_duel_is_a_built_in_variant_of_outer_values_only() -> None:
    variant = load_variant("duel")
    default = load_named_config("default")
    assert variant.config.rounds == 1 and variant.config.arrivals == 1
    assert variant.deck is not None and len(variant.deck) == 3
    assert len(arrangements(variant.deck)) == 3  # the two terminal cards are alike
    assert variant.config.market == default.market  # prices and limits as the default (T8)


def test_the_duel_tree_is_counted_in_full() -> None:
    counted = count_tree(_game())
    assert counted == DUEL_TREE
    assert counted["histories"] <= 100_000


def test_the_seats_interact_a_helicopter_makes_the_other_seat_draw() -> None:
    """Somewhere in the tree a Treatment decision of seat 0 hands seat 1 a patient (T7), which
    never happens in mini (every draw there is in Arrival, before anyone treats)."""

    def seat1(state: pyspiel.State) -> list[object]:
        other = state.engine.players[1]  # type: ignore[attr-defined]
        return [slot.card for slot in other.hospital if slot] + [p.card for p in other.terminals]

    for name, expected in (("duel", True), ("mini", False)):
        game = pyspiel.load_game("triage", {"config": name, "returns": "margin"})
        found = False
        stack = [game.new_initial_state()]
        while stack and not found:
            state = stack.pop()
            if state.is_terminal():
                continue
            if state.is_chance_node():
                stack += [state.child(action) for action, _ in state.chance_outcomes()]
                continue
            treating = state.current_player() == 0 and state.engine.phase == "treatment"  # type: ignore[attr-defined]
            for action in state.legal_actions():
                child = state.child(action)
                found = found or (treating and seat1(child) != seat1(state))
                stack.append(child)
        assert found == expected, name


def test_greedy_is_exploitable_and_cfr_beats_it_within_the_budget() -> None:
    game = _game()
    greedy = exploitability.nash_conv(game, triage_openspiel.BotPolicy(game, "greedy"))
    assert greedy == pytest.approx(GREEDY_NASH_CONV)
    solver = cfr.CFRSolver(game)
    for _ in range(CFR_ITERATIONS):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(game, solver.average_policy()) < greedy
