"""A record's optional ``chat`` (issue 39, point 4): what the players said at a web table,
checked in shape, never replayed as moves, and nothing of a seat's secrets (kept as it is in a
seat's filtered record)."""

from __future__ import annotations

from typing import Any

import pytest
from test_record_hints import played

from triage.engine import DataError
from triage.engine.records import make_record, new_game_from_record, record_for, replay
from triage.engine.shapes import ChatLine


def test_chat_rides_along_and_replay_changes_nothing() -> None:
    game = played(6)
    record = make_record(game)
    said: list[ChatLine] = [
        {"by": 0, "at": 2, "kind": "say", "text": "<b>nice</b>"},
        {"by": 1, "at": 6, "kind": "react", "text": "Good game"},
    ]
    record["chat"] = said
    assert replay(record).history == game.history
    for viewer in (0, 1, None):
        assert record_for(record, viewer)["chat"] == said


@pytest.mark.parametrize(
    ("chat", "words"),
    [
        ("hello", "'chat' must be a list"),
        ([{"by": 0, "at": 1, "text": "hi"}], "exactly 'by', 'at', 'kind' and 'text'"),
        ([{"by": 2, "at": 1, "kind": "say", "text": "hi"}], "'by' must be a seat 0 to 1"),
        ([{"by": 0, "at": -1, "kind": "say", "text": "hi"}], "'at' must be an action number"),
        ([{"by": 0, "at": 1, "kind": "shout", "text": "hi"}], "'kind' must be one of say, react"),
        ([{"by": 0, "at": 1, "kind": "say", "text": 5}], "'text' text"),
    ],
)
def test_malformed_chat_is_refused_by_name(chat: Any, words: str) -> None:
    record = make_record(played(2))
    record["chat"] = chat
    with pytest.raises(DataError, match=words):
        new_game_from_record(record)
