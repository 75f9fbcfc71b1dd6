"""The server's CPU per action (issue 23): what a request costs beyond its database work.

A read of a table in memory, when memory is the truth (one process on SQLite), runs on the event
loop with no thread hand-off; whenever the store must be asked (a shared store, a table not in
memory) or the table is busy (its lock held by a commit), the read goes to the service's threads.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from pathlib import Path

import pytest
from fastapi.responses import JSONResponse

from triage.web import payloads, storage, tables, waits
from triage.web.clocks import TimeRules
from triage.web.errors import WebError
from triage.web.live_table import LiveTable
from triage.web.routes import GameJSON
from triage.web.storage import StorageError, Store
from triage.web.tables import TableService


@pytest.fixture
def service(tmp_path: Path) -> TableService:
    return TableService(Store(f"sqlite:///{tmp_path / 'tables.db'}"), processes=0)


def reader_thread(service: TableService, table_id: str) -> str:
    """The name of the thread a seat's read ran in."""

    def work(table: LiveTable) -> str:
        payloads.legal_answer(table, 0)
        return threading.current_thread().name

    return asyncio.run(service.read_table(table_id, work))


def test_a_read_of_memory_runs_on_the_loop_when_memory_is_the_truth(service: TableService) -> None:
    table = service.create(2, [None, None], 5, None, None)[0]
    assert reader_thread(service, table.id) == threading.current_thread().name
    service.close()


def test_a_read_goes_to_a_thread_when_the_table_is_busy_or_the_store_is_shared(
    service: TableService,
) -> None:
    table = service.create(2, [None, None], 5, None, None)[0]
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with table.lock:  # as a commit holds it
            held.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)

    async def read_then_release() -> str:
        read = asyncio.ensure_future(service.read_table(table.id, lambda _: threading.current_thread().name))
        await asyncio.sleep(0.05)
        assert not read.done()  # it waits for the lock in a thread: the loop goes on
        release.set()
        return await read

    try:
        assert asyncio.run(read_then_release()).startswith("triage-read")
    finally:
        release.set()
        holder.join()
    service.store.shared = True  # another process may write: the version check needs the store
    assert reader_thread(service, table.id).startswith("triage-read")
    service.close()


def test_a_read_of_a_table_not_in_memory_loads_it_in_a_thread(service: TableService) -> None:
    table = service.create(2, [None, None], 5, None, None)[0]
    service.live.clear()
    assert reader_thread(service, table.id).startswith("triage-read")
    assert table.id in service.live
    with pytest.raises(WebError) as unknown:
        reader_thread(service, "no-such-table")
    assert unknown.value.status == 404
    service.close()


def test_sqlite_writers_of_one_process_queue_for_the_file_with_a_bounded_wait(
    service: TableService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One write at a time on SQLite, waiting in the process (no busy-handler sleeps); a writer
    that waits longer than a statement may gets 503's StorageError and stores nothing."""
    monkeypatch.setattr(waits, "JOB_SECONDS", 0.3)
    table = service.create(1, [None], 3, None, None)[0]
    writer = service.store._writer
    assert writer is not None
    writer.acquire()  # another write of this process in progress
    try:
        started = time.perf_counter()
        with pytest.raises(StorageError, match="database busy"):
            service.store.add_actions(table.id, 0, [{"by": 0, "do": {"type": "pass"}}], {})
        assert 0.25 <= time.perf_counter() - started < 2.0
    finally:
        writer.release()
    assert service.store.version(table.id) == (0, 0)
    service.store.add_actions(table.id, 0, [{"by": 0, "do": {"type": "pass"}}], {})
    assert service.store.version(table.id) == (1, 0)
    service.close()


def test_game_documents_encode_to_the_same_text_as_the_standard_json_response(service: TableService) -> None:
    """orjson (GameJSON) sends byte for byte what FastAPI's JSONResponse would, seat by seat,
    along a whole game: only the encoder's time changes."""
    table = service.create(3, [None, None, None], 11, None, None)[0]
    rng = random.Random(3)
    while not table.game.is_over():
        seat = table.game.turn
        for answer in (payloads.view_answer(table, seat), payloads.legal_answer(table, seat)):
            assert GameJSON(answer).body == JSONResponse(answer).body
        service.turns.act(table, seat, rng.choice(table.game.legal_actions()))
    spectators = payloads.view_payload(table.game, None)
    assert GameJSON(spectators).body == JSONResponse(spectators).body
    service.close()


def test_a_sqlite_file_keeps_a_connection_per_thread_of_the_service(service: TableService) -> None:
    """The pool holds as many connections as the service has threads (SQLite's default, 5,
    made the other threads open and close a connection, pragmas and all, per request)."""
    assert service.store.engine.pool.size() == storage.POOL_SIZE == tables.STORE_THREADS  # type: ignore[attr-defined]
    assert storage.sqlite_file("sqlite:///tables.db")
    assert not storage.sqlite_file("sqlite://") and not storage.sqlite_file("sqlite:///:memory:")
    service.close()


def test_the_store_writes_compact_json_that_reads_back_the_same() -> None:
    value = {"type": "heal", "card": "P07", "pay": {"healing": 2, "staff": 1}, "note": "Zoë", "n": [1, None]}
    assert storage.json_text(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert json.loads(storage.json_text(value)) == value


def committer_thread(service: TableService, table: LiveTable) -> str:
    """The name of the thread a seat's action was committed in (through ``write_table``)."""

    def work(live: LiveTable) -> str:
        seat = live.game.turn
        assert seat is not None
        service.turns.act(live, seat, live.game.legal_actions()[0], live.actions)
        return threading.current_thread().name

    return asyncio.run(service.write_table(table.id, work))


def test_an_action_commits_on_the_loop_when_nothing_would_wait(service: TableService) -> None:
    """An unclocked table in memory, its lock free, no other write under way: the action's
    SQLite write runs on the event loop itself (no hand-off to a thread and back)."""
    table = service.create(2, [None, None], 5, None, None)[0]
    assert committer_thread(service, table) == threading.current_thread().name
    assert service.store.version(table.id) == (1, 0)
    service.close()


def test_an_action_that_would_wait_commits_in_a_thread_and_once(service: TableService) -> None:
    """Another write of the process under way, or a table with a clock: the action goes to the
    service's threads; either way it is stored exactly once."""
    table = service.create(2, [None, None], 5, None, None)[0]
    writer = service.store._writer
    assert writer is not None
    writer.acquire()  # another write under way: the loop must not wait for it
    releaser = threading.Timer(0.2, writer.release)
    releaser.start()
    assert committer_thread(service, table).startswith("triage-store")
    releaser.join()
    assert service.store.version(table.id) == (1, 0)
    assert len(table.game.history) == 1
    clocked = service.create(2, [None, None], 5, None, None, time_rules=TimeRules(bank=600, increment=5))[0]
    assert committer_thread(service, clocked).startswith("triage-store")
    assert service.store.version(clocked.id)[0] == 1
    service.close()


def test_a_store_refusing_waits_raises_before_storing_anything(service: TableService) -> None:
    """Within ``without_waiting`` a pooled connection (which may wait) and a write whose turn
    is taken raise WouldWait; the table is unchanged."""
    table = service.create(1, [None], 3, None, None)[0]
    store = service.store
    with store.without_waiting(), pytest.raises(storage.WouldWait):
        store.version(table.id)
    assert store._writer is not None
    with store._writer, store.without_waiting(), pytest.raises(storage.WouldWait):
        store.add_actions(table.id, 0, [{"by": 0, "do": {"type": "pass"}}], {})
    assert store.version(table.id) == (0, 0)
    service.close()


def test_the_write_ahead_log_is_checkpointed_by_its_own_thread(
    service: TableService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No connection checkpoints at a commit (which would hold the write turn or the loop); every
    CHECKPOINT_EVERY actions a thread checkpoints, and the log's pages reach the database."""
    monkeypatch.setattr(storage, "CHECKPOINT_EVERY", 5)
    done = threading.Event()
    real = storage._checkpoint
    monkeypatch.setattr(storage, "_checkpoint", lambda engine: (real(engine), done.set()))
    table = service.create(1, [None], 3, None, None)[0]
    with service.store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
    for number in range(5):
        service.store.add_actions(table.id, number, [{"by": 0, "do": {"type": "pass"}}], {})
    assert done.wait(10)
    with service.store.engine.connect() as connection:
        busy, log_pages, moved = connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
    assert busy == 0 and moved == log_pages
    service.close()
