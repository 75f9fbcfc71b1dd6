"""Statements per request, counted with SQLAlchemy's events (deterministic where latency is not):
a regression in the database round trips of an action fails here. And the paths that fewer round
trips opened: a process whose memory is behind the store (another process acted) and that reads
nothing before a write still takes the action once, at the right position.

Budgets: on SQLite (one process: memory is the truth) ``GET /legal`` sends nothing and an action,
with the bot moves after it, ``BEGIN``, the conditional ``UPDATE``, one ``INSERT``, ``COMMIT``; on
PostgreSQL a read sends one version ``SELECT`` and an action one statement (``WITH``: the
conditional update, the insert and the notification, in autocommit).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_helpers import auth, create, service_of, tokens_of

from triage.engine.choices import sample
from triage.web.app import create_app
from triage.web.errors import WebError
from triage.web.limits import RateLimits
from triage.web.storage import StatementCount, Store
from triage.web.tables import TableService

UNLIMITED = "100000/second"
POSTGRES = os.environ.get("TRIAGE_TEST_POSTGRES_URL")

#: What one request may send its database, per database kind.
BUDGETS = {
    "sqlite": {
        "legal": Counter(),
        "action": Counter({"BEGIN": 1, "UPDATE": 1, "INSERT": 1, "COMMIT": 1}),
        "join": Counter({"BEGIN": 1, "UPDATE": 2, "COMMIT": 1}),
    },
    "postgresql": {
        "legal": Counter({"SELECT": 1}),
        "action": Counter({"WITH": 1}),
        "join": Counter({"BEGIN": 1, "UPDATE": 2, "COMMIT": 1, "SELECT": 1}),
    },
}


@pytest.fixture(params=["sqlite", "postgresql"])
def counted(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[TestClient, StatementCount, str]]:
    if request.param == "postgresql" and not POSTGRES:
        pytest.skip("set TRIAGE_TEST_POSTGRES_URL to a scratch PostgreSQL database to run this")
    url = POSTGRES if request.param == "postgresql" else f"sqlite:///{tmp_path / 'tables.db'}"
    assert url is not None
    with TestClient(create_app(url, RateLimits(create=UNLIMITED, act=UNLIMITED))) as client:
        service = service_of(client)
        service.turns.bot_budget = 30.0  # every quick bot move inside its request: nothing in between
        yield client, StatementCount(service.store.engine, service.store.reads), request.param


def sent(count: StatementCount) -> Counter[str]:
    kinds = Counter(count.kinds)
    count.reset()
    return kinds


def test_each_request_sends_no_more_statements_than_its_budget(
    counted: tuple[TestClient, StatementCount, str],
) -> None:
    client, count, kind = counted
    budget = BUDGETS[kind]
    created = create(client, players=3, bots=[None, "random", None], seed=11, public=True, creator_seats=[0])
    table_id, token = created["table_id"], tokens_of(created)[0]
    client.get(f"/api/tables/{table_id}/legal", headers=auth(token))  # loaded: replay reads are not counted
    sent(count)
    joined = client.post(f"/api/tables/{table_id}/join", json={"invite": created["invites"][0]["code"]})
    assert joined.status_code == 200, joined.text
    # The join's route reads the version first on PostgreSQL (a read), then takes the seat.
    assert sent(count) == budget["join"]
    tokens = {0: token, 2: joined.json()["token"]}
    rng, actions = random.Random(3), 0
    while actions < 40:
        seat = next(
            (seat for seat, mine in tokens.items() if legal_of(client, table_id, mine)["choices"]), None
        )
        sent(count)
        if seat is None:
            break
        legal = legal_of(client, table_id, tokens[seat])
        assert sent(count) == budget["legal"], actions
        body = {"action": sample(rng.choice(legal["choices"]), rng), "expected": legal["actions"]}
        answer = client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[seat]), json=body)
        assert answer.status_code == 200, answer.text
        assert sent(count) == budget["action"], (actions, answer.json())
        actions += 1
    assert actions >= 15  # (or the game ended: the bot's moves depend on the table's random id)


def legal_of(client: TestClient, table_id: str, token: str) -> dict:
    response = client.get(f"/api/tables/{table_id}/legal", headers=auth(token))
    assert response.status_code == 200, response.text
    return response.json()


def two_processes(tmp_path: Path) -> tuple[TableService, TableService]:
    """Two services on one database, as two processes (``shared``: each may be behind)."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    return TableService(Store(url, shared=True)), TableService(Store(url, shared=True))


def test_a_process_behind_the_store_takes_an_action_at_the_stored_position(tmp_path: Path) -> None:
    first, second = two_processes(tmp_path)
    table, _tokens, _ = first.create(1, None, 5, None, None)
    behind = second.get(table.id)
    for _ in range(3):
        first.turns.act(table, 0, table.game.legal_actions(0)[0], expected=table.actions)
    assert behind.actions == 0  # nothing read yet: its write will find out
    action = table.game.legal_actions(0)[-1]
    answer = second.turns.act(second.get(table.id, check=False), 0, action, expected=3)
    stored = second.store.load_table(table.id)
    assert answer["number"] == 3 and stored is not None and behind.game.history == stored.actions
    # The first process is behind now: a bare action is taken at the stored position, once.
    bare = behind.game.legal_actions(0)[0]  # legal at the stored position
    assert table.actions == 3
    taken = first.turns.act(table, 0, bare)
    assert taken["number"] == answer["actions"] and table.game.history[-1]["do"] == bare


def test_a_bare_action_refused_by_a_stale_position_is_taken_at_the_stored_one(tmp_path: Path) -> None:
    """Memory behind, the rules refuse the action there: the process reads the store and takes it."""
    first, second = two_processes(tmp_path)
    table, _tokens, _ = first.create(1, None, 7, None, None)
    behind = second.get(table.id)
    while behind.game.phase == table.game.phase:  # the first process plays on into the next phase
        first.turns.act(table, 0, table.game.legal_actions(0)[0])
    action = next(move for move in table.game.legal_actions(0) if move not in behind.game.legal_actions(0))
    answer = second.turns.act(second.get(table.id, check=False), 0, action)
    assert answer["number"] == table.actions and behind.game.history[-1]["do"] == action


def test_the_same_request_sent_to_a_process_behind_gets_the_stored_answer(tmp_path: Path) -> None:
    first, second = two_processes(tmp_path)
    table, _tokens, _ = first.create(1, None, 7, None, None)
    behind = second.get(table.id)
    action = behind.game.legal_actions(0)[0]
    original = first.turns.act(table, 0, action, expected=0)
    assert second.turns.act(behind, 0, action, expected=0) == original
    assert behind.actions == table.actions
    other = next(candidate for candidate in behind.game.legal_actions(0) if candidate != action)
    with pytest.raises(WebError) as refused:
        second.turns.act(behind, 0, other, expected=0)
    assert refused.value.code == "stale_action"
