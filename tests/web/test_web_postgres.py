"""The same storage on PostgreSQL (``--db postgresql+psycopg://...``).

Runs only where a scratch database is named by ``TRIAGE_TEST_POSTGRES_URL`` (its tables are
created if missing); SQLite, the default, is covered by every other web test.
"""

from __future__ import annotations

import os
import random

import pytest

URL = os.environ.get("TRIAGE_TEST_POSTGRES_URL")
if not URL:
    pytest.skip(
        "set TRIAGE_TEST_POSTGRES_URL to a scratch PostgreSQL database to run these", allow_module_level=True
    )

from triage.engine import view
from triage.web import chat
from triage.web.seats import seat_for_token
from triage.web.storage import Store
from triage.web.tables import TableService


def test_tables_are_stored_and_replayed_on_postgresql() -> None:
    first = TableService(Store(URL))
    table, tokens, _invites = first.create(
        3, [None, "random", None], seed=2**40 + 3, config={"rounds": 2}, deck=None
    )
    rng = random.Random(0)
    while table.game.turn is not None and len(table.game.history) < 40:
        seat = table.game.turn
        first.turns.act(table, seat, rng.choice(table.game.legal_actions(seat)))
    first.store.close()

    second = TableService(Store(URL))  # as after a restart
    again = second.get(table.id)
    for seat in range(3):
        assert view(again.game, seat) == view(table.game, seat)
    assert again.seats[0].token_hash == table.seats[0].token_hash and again.seats[1].bot == "random"
    assert seat_for_token(again, tokens[0]["token"]) == 0
    second.store.close()


def test_chat_lines_are_kept_on_postgresql_within_the_tables_cap() -> None:
    first = TableService(Store(URL))
    table, _tokens, _invites = first.create(2, None, seed=9, config=None, deck=None)
    said = [chat.post(first.store, table, seat, "say", f"line {seat}") for seat in (0, 1)]
    assert first.store.add_chat(table.id, {"by": 0, "at": 0, "kind": "react", "text": "Ouch"}, 3)
    assert not first.store.add_chat(table.id, {"by": 1, "at": 0, "kind": "say", "text": "a fourth"}, 3)
    first.store.close()
    second = TableService(Store(URL))  # as after a restart
    assert second.get(table.id).chat == [*said, {"by": 0, "at": 0, "kind": "react", "text": "Ouch"}]
    second.store.close()
