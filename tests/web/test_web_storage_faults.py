"""Write, then remember: when the database fails, the answer is the documented JSON 503, nothing
of the request is stored, memory stays equal to the database, and an answer never hides a
stored action (issue reproductions: a 503 for a stored action, a failed join leaving the table
full, a failed first use freeing the seat, live updates lost after a failure)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from web_helpers import auth, create, service_of, tokens_of

from triage.engine import view
from triage.engine.records import replay
from triage.web.app import create_app
from triage.web.storage import Store


class FailingStore:
    """Makes the store's database refuse the statements that match a pattern, as a full disk
    does: raised where the driver would raise, inside the store's transactions."""

    def __init__(self, store: Store) -> None:
        self.pattern: re.Pattern[str] | None = None
        self.failures = 0
        for engine in {store.engine, store.reads}:  # the writers' connections and the readers'
            event.listen(engine, "before_cursor_execute", self._check)

    def fail(self, pattern: str | None) -> None:
        self.pattern = re.compile(pattern, re.IGNORECASE) if pattern else None

    def _check(self, _conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if self.pattern is not None and self.pattern.search(statement):
            self.failures += 1
            raise OperationalError(statement, {}, Exception("database or disk is full"))


@pytest.fixture
def faults(client: TestClient) -> FailingStore:
    return FailingStore(service_of(client).store)


def stored_game(client: TestClient, table_id: str):
    """The game as the database holds it (what a restarted server would serve)."""
    stored = service_of(client).store.load_table(table_id)
    assert stored is not None
    return replay(stored.record()), stored


def first_action(client: TestClient, table_id: str, token: str) -> dict[str, Any]:
    return service_of(client).get(table_id).game.legal_actions(0)[0]


def assert_storage_error(response: Any) -> None:
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["code"] == "storage_error" and "nothing was stored" in body["message"]


def test_a_failed_create_stores_nothing_and_remembers_nothing(
    client: TestClient, faults: FailingStore
) -> None:
    faults.fail("INSERT INTO seats")
    before = set(service_of(client).live)
    assert_storage_error(client.post("/api/tables", json={"players": 2}))
    faults.fail(None)
    assert set(service_of(client).live) == before
    assert service_of(client).store.table_ids() == []


def test_a_failed_action_changes_nothing_and_can_be_retried(client: TestClient, faults: FailingStore) -> None:
    created = create(client, players=2, bots=[None, "random"], seed=19)
    table_id, token = created["table_id"], tokens_of(created)[0]
    before = client.get(f"/api/tables/{table_id}/view", headers=auth(token)).json()
    action = first_action(client, table_id, token)
    body = {"action": action, "expected": before["actions"]}
    faults.fail("INSERT INTO actions")
    assert_storage_error(client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body))
    faults.fail(None)
    live = service_of(client).get(table_id)
    game, _ = stored_game(client, table_id)
    assert live.game.history == game.history and view(live.game, 0) == view(game, 0)
    assert client.get(f"/api/tables/{table_id}/view", headers=auth(token)).json() == before
    retried = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)
    assert retried.status_code == 200 and retried.json()["number"] == before["actions"]


def test_the_seat_action_and_its_bot_moves_are_stored_together_or_not_at_all(
    client: TestClient, faults: FailingStore
) -> None:
    """The reproduction: the seat's action was committed, a bot's insert failed, and the answer
    was 503 for a stored action. Now they are one transaction; the answer says what was stored."""
    created = create(client, players=2, bots=[None, "random"], seed=23)
    table_id, token = created["table_id"], tokens_of(created)[0]
    live = service_of(client).get(table_id)
    # Play to a point where the bot moves right after seat 0's action.
    while True:
        action = live.game.legal_actions(0)[0]
        answer = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action).json()
        if answer["actions"] > answer["number"] + 1:
            break
    count = live.actions
    faults.fail("UPDATE tables")  # the commit of the action and the bot moves after it
    action = live.game.legal_actions(0)[0] if live.game.turn == 0 else None
    assert action is not None
    assert_storage_error(client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action))
    faults.fail(None)
    game, stored = stored_game(client, table_id)
    assert len(stored.actions) == count == live.actions and live.game.history == game.history
    answer = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action).json()
    _, stored = stored_game(client, table_id)
    assert len(stored.actions) == answer["actions"] == live.actions


def test_bot_moves_after_the_answer_are_acknowledged_one_batch_at_a_time(
    client: TestClient, faults: FailingStore
) -> None:
    """With no time for bots within the request, the answer covers the seat's action alone and
    says so; the bots' later commits failing does not touch what was acknowledged."""
    service_of(client).turns.bot_budget = 0.0
    created = create(client, players=2, bots=[None, "random"], seed=29)
    table_id, token = created["table_id"], tokens_of(created)[0]
    live = service_of(client).get(table_id)
    # Fail every commit but the first: the seat's action is stored, the bots' moves are not.
    commits = {"n": 0}

    def fail_after_first(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.startswith("INSERT INTO actions"):
            commits["n"] += 1
            if commits["n"] > 1:
                raise OperationalError(statement, {}, Exception("database or disk is full"))

    event.listen(service_of(client).store.engine, "before_cursor_execute", fail_after_first)
    while live.game.turn == 0:
        action = live.game.legal_actions(0)[0]
        commits["n"] = 0
        response = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action)
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["actions"] == answer["number"] + 1
        _, stored = stored_game(client, table_id)
        assert len(stored.actions) == answer["actions"]
    event.remove(service_of(client).store.engine, "before_cursor_execute", fail_after_first)
    # The bots go on committing in the background, each batch in the table's write turn (its
    # lock is let go of while the store is written, so readers go on): hold the turn to compare
    # memory and the store at one moment.
    with live.writer():
        _, stored = stored_game(client, table_id)
        assert live.actions == len(stored.actions)


def test_a_failed_join_leaves_the_seat_open(client: TestClient, faults: FailingStore) -> None:
    created = create(client, players=2, creator_seats=[0], public=True)
    table_id, invite = created["table_id"], created["invites"][0]["code"]
    faults.fail("UPDATE seats")
    assert_storage_error(client.post(f"/api/tables/{table_id}/join", json={"invite": invite}))
    assert_storage_error(client.post(f"/api/tables/{table_id}/join"))
    faults.fail(None)
    summary = client.get(f"/api/tables/{table_id}").json()
    assert [seat["taken"] for seat in summary["seats"]] == [True, False]
    _, stored = stored_game(client, table_id)
    assert [seat.claimed for seat in stored.seats] == [True, False]
    joined = client.post(f"/api/tables/{table_id}/join", json={"invite": invite})
    assert joined.status_code == 200 and joined.json()["seat"] == 1


def test_a_token_is_its_seat_from_creation_so_a_restart_never_frees_it(db_url: str) -> None:
    """The reproduction: a failed first use left the seat free in the database, and after a
    restart a stranger's join took it. Seats are now taken when their token is given."""
    with TestClient(create_app(db_url)) as client:
        created = create(client, players=2, bots=[None, "random"], public=True)
        table_id, token = created["table_id"], tokens_of(created)[0]
    with TestClient(create_app(db_url)) as client:  # a restart, the token never used
        stranger = client.post(f"/api/tables/{table_id}/join")
        assert stranger.status_code == 409 and stranger.json()["code"] == "table_full"
        assert client.get(f"/api/tables/{table_id}/view", headers=auth(token)).json()["viewer"] == 0


def test_live_updates_go_on_after_a_storage_failure(client: TestClient, faults: FailingStore) -> None:
    created = create(client, players=2, seed=31)
    table_id, tokens = created["table_id"], tokens_of(created)
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
        socket.send_json({"token": tokens[0]})
        assert socket.receive_json()["type"] == "hello"
        action = first_action(client, table_id, tokens[0])
        faults.fail("INSERT INTO actions")
        assert_storage_error(
            client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=action)
        )
        faults.fail(None)
        assert (
            client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=action).status_code
            == 200
        )
        update = socket.receive_json()
        assert (
            update["type"] == "update"
            and update["number"] == 0
            and update["action"]["card"] == action["card"]
        )


def test_a_failing_database_on_reads_answers_503_too(client: TestClient, faults: FailingStore) -> None:
    """A read that needs the database (a table not in memory, the lobby) answers 503; a table in
    memory of the one process on its database is served from memory (nothing to read)."""
    created = create(client, players=1)
    table_id, token = created["table_id"], tokens_of(created)[0]
    faults.fail("SELECT")
    assert client.get(f"/api/tables/{table_id}/view", headers=auth(token)).status_code == 200
    service_of(client).live.clear()
    assert_storage_error(client.get(f"/api/tables/{table_id}/view", headers=auth(token)))
    assert_storage_error(client.get("/api/tables"))
    faults.fail(None)
    assert client.get(f"/api/tables/{table_id}/view", headers=auth(token)).status_code == 200


def test_a_table_loaded_in_a_thread_is_one_object_and_up_to_date(client: TestClient) -> None:
    """TableService.load replays off the event loop; two loads at once give the same table."""
    import asyncio

    created = create(client, players=2, bots=[None, "random"], seed=37)
    table_id, token = created["table_id"], tokens_of(created)[0]
    service = service_of(client)
    live = service.get(table_id)
    client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=live.game.legal_actions(0)[0])
    expected = view(live.game, 0)
    service.live.clear()

    async def twice() -> list[Any]:
        return list(await asyncio.gather(service.load(table_id), service.load(table_id)))

    first, second = asyncio.run(twice())
    assert first is second is service.live[table_id] and view(first.game, 0) == expected


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 KB tmpfs (root only; skipped where mounting is not allowed)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True, check=False
    ).returncode:
        pytest.skip("this system does not let us mount a tmpfs")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk`` (again, if some was freed since)."""
    filler = disk / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(descriptor, b"\0" * size)
            except OSError:
                continue
    finally:
        os.close(descriptor)
    return filler


def test_a_full_disk_keeps_memory_database_and_answers_in_step(small_disk: Path) -> None:
    url = f"sqlite:///{small_disk / 'tables.db'}"
    with TestClient(create_app(url)) as client:
        created = create(client, players=3, bots=[None, None, None], creator_seats=[0, 1], public=True)
        table_id, tokens, invite = created["table_id"], tokens_of(created), created["invites"][0]["code"]
        live = service_of(client).get(table_id)
        filler = fill(small_disk)  # the table waits for seat 2 (issue 20): its join is refused first
        assert_storage_error(client.post(f"/api/tables/{table_id}/join", json={"invite": invite}))
        stored = Store(url).load_table(table_id)
        assert stored is not None and [s.claimed for s in stored.seats] == [True, True, False]
        assert [s.claimed for s in live.seats] == [True, True, False] and live.waiting
        filler.unlink()
        joined = client.post(f"/api/tables/{table_id}/join", json={"invite": invite})
        assert joined.status_code == 200, joined.text
        tokens[2] = joined.json()["token"]
        refused, token = None, ""
        for _ in range(300):
            # Taken again before every write: SQLite may free space of its own (a WAL file
            # removed when its last connection closes), which would let a write through.
            filler = fill(small_disk)
            seat = live.game.turn
            if seat not in tokens:
                break
            token = tokens[seat]
            body = {"action": live.game.legal_actions(seat)[0], "expected": live.actions}
            response = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)
            if response.status_code == 503:
                refused = body
                break
            assert response.status_code == 200, response.text
        assert refused is not None, "the full disk never refused a write"
        assert response.json()["code"] == "storage_error"
        stored = Store(url).load_table(table_id)
        assert stored is not None
        assert live.game.history == stored.actions and [s.claimed for s in live.seats] == [
            s.claimed for s in stored.seats
        ]
        filler.unlink()  # space again: the same requests now go through, once
        retried = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=refused)
        assert retried.status_code == 200 and retried.json()["number"] == refused["expected"]
        again = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=refused)
        assert again.json() == retried.json()
        stored = Store(url).load_table(table_id)
        assert stored is not None and live.game.history == stored.actions


def test_serve_refuses_a_database_of_an_older_version_clearly(tmp_path: Path) -> None:
    import sqlite3

    from typer.testing import CliRunner

    from triage.cli import app

    old = tmp_path / "old.db"
    with sqlite3.connect(old) as connection:
        connection.execute("CREATE TABLE tables (id VARCHAR(32) PRIMARY KEY, players INTEGER, seed BIGINT)")
    result = CliRunner().invoke(app, ["serve", "--db", f"sqlite:///{old}"])
    assert result.exit_code == 2 and "made by an older version of triage" in result.output


def test_a_commit_the_database_did_not_confirm_is_answered_as_stored(client: TestClient) -> None:
    """The connection fails after the database committed: the server finds the action stored
    and answers it as taken (never a 503 for a stored action), memory taking it from the store."""
    from triage.web.storage import StorageError

    created = create(client, players=2, bots=[None, "random"], seed=43)
    table_id, token = created["table_id"], tokens_of(created)[0]
    store = service_of(client).store
    live = service_of(client).get(table_id)
    real = store.add_actions

    def committed_then_lost(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        raise StorageError("the connection was lost before the commit was confirmed")

    with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
        socket.send_json({"token": token})
        assert socket.receive_json()["type"] == "hello"
        body = {"action": live.game.legal_actions(0)[0], "expected": live.actions}
        store.add_actions = committed_then_lost
        try:
            response = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)
        finally:
            store.add_actions = real
        assert response.status_code == 200, response.text
        answer = response.json()
        _, stored = stored_game(client, table_id)
        assert len(stored.actions) >= answer["actions"] > answer["number"] == body["expected"]
        assert live.game.history[: answer["actions"]] == stored.actions[: answer["actions"]]
        assert socket.receive_json()["number"] == body["expected"]
        repeat = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)
        assert repeat.json() == answer


def test_an_unconfirmed_commit_that_cannot_be_checked_says_so(
    client: TestClient, faults: FailingStore
) -> None:
    from triage.web.storage import StorageError

    created = create(client, players=1, seed=47)
    table_id, token = created["table_id"], tokens_of(created)[0]
    store = service_of(client).store
    live = service_of(client).get(table_id)

    def lost(*_args: Any, **_kwargs: Any) -> None:
        faults.fail("SELECT")  # and the database cannot be read to check
        raise StorageError("the connection was lost")

    real = store.add_actions
    store.add_actions = lost
    try:
        response = client.post(
            f"/api/tables/{table_id}/actions",
            headers=auth(token),
            json={"action": live.game.legal_actions(0)[0], "expected": 0},
        )
    finally:
        store.add_actions = real
        faults.fail(None)
    assert (
        response.status_code == 503
        and "could not tell whether the action was stored" in response.json()["message"]
    )
    assert live.actions == 0
