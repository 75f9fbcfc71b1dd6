"""Undo within a seat's own turn, never past a reveal (engine/undo.py).

The properties: undoing actions then playing the same actions again gives the original game
(D1: the state, every view and the history); an undo never takes back an action that drew a
card (A1, T7), flew a Helicopter (T7), showed a treatment side (T1, A7, C3) or ended the turn (T9); the game undone to
is the game as it stood before those actions."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.test_properties import GAME_FIELDS, deal
from triage.engine import Game, make_config, state_dict, view
from triage.engine.undo import UNDO_ERROR_CODES, UndoError, sealed_point, undo, undo_reach

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def admitted(seed: int = 0) -> Game:
    """A solo game (seed 0) just after its two admissions, in Treatment (seat 0 decides)."""
    game = Game.new(players=1, seed=seed)
    while game.in_admission(0):
        game.apply(game.legal_actions()[0])
    return game


def first_of(game: Game, kind: str) -> dict[str, Any]:
    return next(action for action in game.legal_actions() if action["type"] == kind)


def test_a_heal_is_undone_exactly() -> None:
    game = admitted()
    before = game.copy()
    game.apply(first_of(game, "heal"))
    undone = undo(game, 0)
    assert state_dict(undone) == state_dict(before)
    assert view(undone, 0) == view(before, 0)
    assert undone.history == before.history
    assert state_dict(game) != state_dict(before), "undo leaves the game it was asked of unchanged"


def test_several_steps_go_back_to_the_last_reveal() -> None:
    game = admitted()
    game.apply(first_of(game, "diagnose"))  # T1: a reveal
    sealed = game.copy()
    game.apply(first_of(game, "heal"))
    game.apply(first_of(game, "heal"))
    reach = undo_reach(game, 0)
    assert reach.steps == 2
    assert (
        reach.reveal is not None and reach.reveal.rule == "T1" and reach.reveal.action["type"] == "diagnose"
    )
    assert state_dict(undo(game, 0, 2)) == state_dict(sealed)
    with pytest.raises(UndoError) as refused:
        undo(game, 0, 3)
    assert refused.value.code == "undo_past_reveal" and "diagnose" in refused.value.message


def test_a_diagnosis_is_never_undone() -> None:
    game = admitted()
    game.apply(first_of(game, "diagnose"))
    with pytest.raises(UndoError) as refused:
        undo(game, 0)
    assert refused.value.code == "undo_past_reveal"
    assert refused.value.rule == "T1"
    assert "showed a treatment side" in refused.value.message


def test_a_helicopter_that_draws_is_a_reveal() -> None:
    game = admitted()
    helicopter = next(
        action for action in game.legal_actions() if action["type"] == "helicopter" and action["draw_all"]
    )
    game.apply(helicopter)
    reach = undo_reach(game, 0)
    assert reach.steps == 0 and reach.reveal is not None
    assert reach.reveal.rule in ("T7", "R1", "A1")
    with pytest.raises(UndoError) as refused:
        undo(game, 0)
    assert refused.value.code == "undo_past_reveal"


def test_any_helicopter_flight_is_a_reveal() -> None:
    """A flight that only removes a patient draws nothing, yet every seat saw it (T7): the
    issue's list of reveals names the Helicopter, so it is never taken back."""
    game = admitted()
    flight = next(
        (
            action
            for action in game.legal_actions()
            if action["type"] == "helicopter" and not action["draw_all"]
        ),
        None,
    )
    assert flight is not None, "seed 0 offers a flight without draws after the admissions"
    game.apply(flight)
    reach = undo_reach(game, 0)
    assert reach.steps == 0 and reach.reveal is not None and reach.reveal.rule == "T7"
    assert "Helicopter" in reach.reveal.what


def test_nothing_to_undo_at_the_start_of_a_turn() -> None:
    game = Game.new(players=2, seed=5)
    while game.turn == 0:
        game.apply(game.legal_actions()[0])
    assert game.turn == 1
    assert undo_reach(game, 1).steps == 0
    with pytest.raises(UndoError) as refused:
        undo(game, 1)
    assert refused.value.code in ("nothing_to_undo", "undo_past_reveal")


def test_only_the_seat_to_decide_undoes() -> None:
    game = Game.new(players=2, seed=5)
    with pytest.raises(UndoError) as refused:
        undo(game, 1)
    assert refused.value.code == "not_your_turn" and refused.value.rule == "R1"


def test_nothing_is_undone_after_the_end() -> None:
    game = Game.new(players=1, seed=2, config=make_config({"rounds": 1}))
    while not game.is_over():
        game.apply(game.legal_actions()[-1])
    with pytest.raises(UndoError) as refused:
        undo(game, 0)
    assert refused.value.code == "game_over"


def test_every_undo_code_is_known() -> None:
    assert set(UNDO_ERROR_CODES) == {"not_your_turn", "game_over", "nothing_to_undo", "undo_past_reveal"}
    with pytest.raises(ValueError):
        UndoError("no_such_code", "")
    with pytest.raises(ValueError):
        undo(admitted(), 0, 0)


@SETTINGS
@given(st.fixed_dictionaries(GAME_FIELDS), st.integers(0, 2**32), st.integers(0, 120))
def test_undo_then_redo_is_the_same_game(spec: dict[str, Any], choice_seed: int, prefix: int) -> None:
    """Undo the seat's undoable actions one at a time, then play them again: the same state,
    views and history as the game that was never undone (D1)."""
    rng = random.Random(choice_seed)
    game = deal(spec)
    for _ in range(prefix):
        if game.turn is None:
            return
        game.apply(rng.choice(game.legal_actions()))
    seat = game.turn
    if seat is None:
        return
    reach = undo_reach(game, seat)
    for steps in range(1, reach.steps + 1):
        undone = undo(game, seat, steps)
        assert len(undone.history) == len(game.history) - steps
        for entry in game.history[-steps:]:
            undone.apply(entry["do"], entry["by"])
        assert state_dict(undone) == state_dict(game)
        assert undone.history == game.history
        assert all(view(undone, other) == view(game, other) for other in range(game.num_players))


@SETTINGS
@given(st.fixed_dictionaries(GAME_FIELDS), st.integers(0, 2**32))
def test_undo_never_crosses_a_reveal(spec: dict[str, Any], choice_seed: int) -> None:
    """Through a whole game: an action counts as undoable only while no card was drawn or
    shuffled, no Helicopter flew, no event holds a secret, no seat's knowledge or the public fronts changed and the
    decision stayed with the seat; after such an action the reach starts again from 0."""
    rng = random.Random(choice_seed)
    game = deal(spec)
    expected = 0
    while game.turn is not None:
        seat = game.turn
        reach = undo_reach(game, seat)
        assert reach.steps == expected
        if reach.steps:
            assert all(entry["by"] == seat for entry in game.history[-reach.steps :])
        before = game.copy()
        action = rng.choice(game.legal_actions())
        events = game.apply(action)
        revealed = (
            game.turn != seat
            or action["type"] == "helicopter"
            or game.round != before.round
            or any(event["type"] in ("drawn", "deck_reshuffled", "checked") for event in events)
            or _knowledge_changed(before, game)
        )
        expected = 0 if revealed else expected + 1
        if not revealed:
            assert undo_reach(game, seat).steps == expected


def _knowledge_changed(before: Game, after: Game) -> bool:
    """Whether any seat now knows more of a card: its view's cards or knowledge changed."""
    return any(
        view(before, seat)[part] != view(after, seat)[part]
        for seat in range(after.num_players)
        for part in ("cards", "knowledge")
    )


@SETTINGS
@given(st.fixed_dictionaries(GAME_FIELDS), st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_sealed_point_from_the_last_one_equals_one_from_the_deal(
    spec: dict[str, Any], choice_seed: int, other_seed: int
) -> None:
    """Through a whole game, the sealed point worked out from the previous one (what the web
    server keeps) equals the one replayed from the deal (D1), reach and reveal included; a
    start from another deal or past an undo is checked and falls back to the deal."""
    rng = random.Random(choice_seed)
    game = deal(spec)
    stranger = Game.new(players=game.num_players, seed=other_seed % 1000)
    start, start_reveal = None, None
    while game.turn is not None:
        seat = game.turn
        expected = sealed_point(game, seat)
        for hint in ((start, start_reveal), (stranger, None)):
            reach, before = sealed_point(game, seat, *hint)
            assert reach == expected[0]
            assert before.history == expected[1].history
            assert state_dict(before) == state_dict(expected[1])
        start, start_reveal = expected[1], expected[0].reveal
        if expected[0].steps and rng.random() < 0.2:
            game = undo(game, seat)
            continue
        game.apply(rng.choice(game.legal_actions()))
