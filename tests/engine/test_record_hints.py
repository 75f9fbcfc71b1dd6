"""A record's optional ``hints`` (issue 20, point 2): checked in shape, never replayed as moves,
and shown while the game runs only to the seat that asked (I1-I4)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from triage.engine import DataError, Game
from triage.engine.records import make_record, new_game_from_record, record_for, replay


def played(actions: int, seed: int = 3) -> Game:
    game = Game.new(players=2, seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        seat = game.turn
        assert seat is not None
        game.apply(rng.choice(game.legal_actions(seat)), seat)
    return game


def test_hints_ride_along_and_replay_changes_nothing() -> None:
    game = played(6)
    hint = {"by": game.turn, "at": 6, "do": game.legal_actions(game.turn or 0)[0]}
    record = make_record(game, [hint])
    assert record["hints"] == [hint]
    assert replay(record).history == game.history
    assert "hints" not in make_record(game)


def test_a_running_games_record_shows_a_seat_only_its_own_hints() -> None:
    game = played(6)
    hints = [{"by": 0, "at": 1, "do": {"type": "pass"}}, {"by": 1, "at": 4, "do": {"type": "pass"}}]
    record = make_record(game, hints)
    assert record_for(record, 0)["hints"] == [hints[0]]
    assert record_for(record, 1)["hints"] == [hints[1]]
    assert "hints" not in record_for(record, None)


@pytest.mark.parametrize(
    ("hints", "words"),
    [
        ("pass", "'hints' must be a list"),
        ([{"by": 0, "at": 1}], "exactly 'by', 'at' and 'do'"),
        ([{"by": 2, "at": 1, "do": {}}], "'by' must be a seat 0 to 1"),
        ([{"by": 0, "at": -1, "do": {}}], "'at' must be an action number"),
        ([{"by": 0, "at": True, "do": {}}], "'at' must be an action number"),
        ([{"by": 0, "at": 1, "do": "pass"}], "'do' must be an action object"),
    ],
)
def test_malformed_hints_are_refused_by_name(hints: Any, words: str) -> None:
    record = make_record(played(2))
    record["hints"] = hints
    with pytest.raises(DataError, match=words):
        new_game_from_record(record)
