"""Reads never queue behind writes (issue 40, point 4).

Another connection holds the database (SQLite's write lock; an exclusive lock on PostgreSQL's
``tables``) for as long as the test needs, while twelve writes wait for it (more than the
service's eight writers' threads). Every read (a seat's view and choices, the spectators' view,
the table's facts, presence, the lobby) answers meanwhile, of an idle table and of a table whose
own write is waiting; every write is refused by its bound, its wait for a thread included.
Formerly the reads queued behind the writes (4.9 s), and queued writes answered after 5.3,
10.3 and 15.3 s.

No answer is compared with a clock: the hold lasts until every read has answered (a read that
waited for the database would never come back: each is given 120 s before the test says so),
and the bound is shown by refusals that came while the database was still held.
``python -m triage.web.stress_loop reads`` measures the latencies (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from web_helpers import auth, create, legal_actions, reads_of, service_of, tokens_of

from triage.web import waits
from triage.web.app import create_app
from triage.web.limits import RateLimits
from triage.web.loadtest import UNLIMITED
from triage.web.stress_loop import hold_database
from triage.web.workers import Workers

POSTGRES = os.environ.get("TRIAGE_TEST_POSTGRES_URL")
BACKENDS = [
    "sqlite",
    pytest.param("postgresql", marks=pytest.mark.skipif(not POSTGRES, reason="no TRIAGE_TEST_POSTGRES_URL")),
]
#: Seconds a request is given before the test calls it stuck (a failure, never a measurement).
STUCK = 120.0
WRITERS = 12


def database(backend: str, tmp_path: Path) -> str:
    return (POSTGRES or "") if backend == "postgresql" else f"sqlite:///{tmp_path / 'tables.db'}"


def answered(request: Callable[[], httpx.Response]) -> httpx.Response:
    box: list[httpx.Response] = []
    worker = threading.Thread(target=lambda: box.append(request()), daemon=True)
    worker.start()
    worker.join(STUCK)
    assert box, f"no answer within {STUCK:.0f} s: the read waits behind the held database"
    return box[0]


def tables_to_write(client: TestClient) -> list[tuple[str, str, dict[str, Any]]]:
    """Twelve one-seat tables, each with the action its seat will send."""
    bodies = []
    for seed in range(WRITERS):
        created = create(client, players=1, seed=seed, public=True)
        table_id, token = created["table_id"], tokens_of(created)[0]
        bodies.append((table_id, token, legal_actions(client, table_id, token)[0]))
    return bodies


def start_writes(
    client: TestClient, bodies: list[tuple[str, str, dict[str, Any]]]
) -> tuple[list[Any], list[threading.Thread]]:
    answers: list[httpx.Response] = []
    workers = [
        threading.Thread(
            target=lambda t=table_id, k=token, a=action: answers.append(
                client.post(f"/api/tables/{t}/actions", headers=auth(k), json=a)
            ),
            daemon=True,
        )
        for table_id, token, action in bodies
    ]
    for worker in workers:
        worker.start()
    return answers, workers


def wait_until(condition: Callable[[], bool]) -> None:
    give_up = time.monotonic() + STUCK
    while not condition():
        assert time.monotonic() < give_up, "the writes never started waiting"
        time.sleep(0.01)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_read_answers_while_writes_wait_for_a_held_database(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = database(backend, tmp_path)
    with TestClient(create_app(url, RateLimits(create=UNLIMITED, act=UNLIMITED))) as client:
        service = service_of(client)
        bodies = tables_to_write(client)
        idle = create(client, players=1, seed=99)
        idle_id, idle_token = idle["table_id"], tokens_of(idle)[0]
        busy_id, busy_token, _action = bodies[0]  # its own write waits too
        reads = {
            **reads_of(client, idle_id, idle_token),
            **{f"busy {name}": read for name, read in reads_of(client, busy_id, busy_token).items()},
        }
        before = {name: read().json() for name, read in reads.items()}
        monkeypatch.setattr(waits, "WRITE_SECONDS", 600.0)  # the writes wait as long as the hold
        held, release = threading.Event(), threading.Event()
        holder = threading.Thread(target=hold_database, args=(url, 600.0, held, release), daemon=True)
        holder.start()
        assert held.wait(STUCK)
        try:
            answers, writers = start_writes(client, bodies)
            wait_until(lambda: service.threads.jobs.qsize() >= WRITERS - len(service.threads.threads))
            for name, read in reads.items():
                got = answered(read)
                assert got.status_code == 200, (name, got.text)
                if "live" not in name:  # presence moves with the clock
                    assert got.json() == before[name], name
            assert answers == [] and holder.is_alive()  # every write still waits
        finally:
            release.set()
            holder.join()
        for writer in writers:
            writer.join(STUCK)
        assert sorted(got.status_code for got in answers) == [200] * WRITERS


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_waiting_for_a_held_database_are_refused_by_their_bound(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve writes, eight writers' threads, a bound of 0.5 s here: all twelve are refused while
    the database is still held, the four that queued for a thread included (their wait counts
    in the bound), and none is stored."""
    url = database(backend, tmp_path)
    with TestClient(create_app(url, RateLimits(create=UNLIMITED, act=UNLIMITED))) as client:
        service = service_of(client)
        bodies = tables_to_write(client)
        monkeypatch.setattr(waits, "WRITE_SECONDS", 0.5)
        held, release = threading.Event(), threading.Event()
        holder = threading.Thread(target=hold_database, args=(url, 600.0, held, release), daemon=True)
        holder.start()
        assert held.wait(STUCK)
        try:
            answers, writers = start_writes(client, bodies)
            for writer in writers:
                writer.join(STUCK)
            assert len(answers) == WRITERS, "a write waited beyond its bound"
            assert holder.is_alive()  # refused while the database was held
        finally:
            release.set()
            holder.join()
        assert all(got.status_code == 503 and got.json()["code"] == "storage_error" for got in answers)
        for table_id, _token, _action in bodies:
            assert service.store.version(table_id) == (0, 0)


def test_a_job_still_queued_at_its_deadline_is_not_run() -> None:
    """The wait for a thread counts in a write's bound: a job a thread takes after its deadline
    is answered :class:`~triage.web.waits.Expired` and never run (its deadline is injected: no
    clock is raced)."""
    workers = Workers(1, "test")
    release, ran = threading.Event(), []

    async def queue_behind_a_busy_thread() -> None:
        busy = asyncio.ensure_future(workers.run(release.wait, STUCK))
        late = asyncio.ensure_future(workers.run(ran.append, "late", deadline=waits.now()))
        on_time = asyncio.ensure_future(workers.run(ran.append, "on time", deadline=waits.now() + 600))
        await asyncio.sleep(0)
        release.set()
        await busy
        with pytest.raises(waits.Expired):
            await late
        await on_time

    asyncio.run(queue_behind_a_busy_thread())
    workers.shutdown()
    assert ran == ["on time"]
