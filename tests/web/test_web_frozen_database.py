"""A database server that stops answering (issue 40, point 1): a throwaway PostgreSQL cluster of
the test's own is stopped with SIGSTOP, as a frozen host is, for as long as the test needs.

Every write gets the 503 ``storage_error`` within the bound (5 s) and stores nothing; every read of
a table held in memory answers from memory meanwhile; a table not in memory is refused at once;
once the cluster answers again the same request (same ``expected``) goes through, once. Formerly
every table request waited as long as the freeze lasted (here: for ever). No answer is compared
with a clock: the cluster stays stopped until every answer came, so a request that waited for
the database would never come back (each is given 120 s before the test says so).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pg_cluster import Cluster, throwaway_cluster
from web_helpers import auth, create, legal_actions, reads_of, service_of, tokens_of

from triage.web.app import create_app
from triage.web.limits import RateLimits
from triage.web.loadtest import UNLIMITED

#: Seconds a request is given before the test calls it stuck (a failure, never a measurement).
STUCK = 120.0


def answer(request: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    """``request()``'s response and its seconds, failing the test if it does not come back."""
    box: list[Any] = []
    started = time.monotonic()
    worker = threading.Thread(target=lambda: box.append(request()), daemon=True)
    worker.start()
    worker.join(STUCK)
    assert box, f"no answer within {STUCK:.0f} s: the request waits for the stopped database"
    return box[0], time.monotonic() - started


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with throwaway_cluster() as made:
        yield made


def test_a_stopped_database_refuses_writes_within_the_bound_while_reads_go_on(cluster: Cluster) -> None:
    rates = RateLimits(create=UNLIMITED, act=UNLIMITED)
    with TestClient(create_app(cluster.url, rates)) as client:
        created = create(client, players=2, bots=[None, "random"], seed=3, public=True)
        table_id, token = created["table_id"], tokens_of(created)[0]
        elsewhere = create(client, players=1, seed=4)["table_id"]
        service = service_of(client)
        service.live.pop(elsewhere)  # let go of: only the database holds it now
        reads = reads_of(client, table_id, token)
        before = {name: read().json() for name, read in reads.items()}
        number = before["view"]["actions"]
        action = legal_actions(client, table_id, token)[0]
        body = {"action": action, "expected": number}

        cluster.stop_answering()
        try:
            # The bound is 5 s (no clock is compared with it here: docs/web.md has the figures);
            # an answer at all says the write did not wait for the freeze, which never ends alone.
            write, _seconds = answer(
                lambda: client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)
            )
            assert write.status_code == 503 and write.json()["code"] == "storage_error", write.text
            # Sent before the freeze was known, the write cannot tell whether it was stored: the
            # message says so, and the same request with its expected number is safe to repeat.
            assert "send the same request again" in write.json()["message"]
            for name, read in reads.items():
                got, _seconds = answer(read)
                assert got.status_code == 200, (name, got.text)
                if name != "live":  # presence moves with the clock
                    assert got.json() == before[name], name  # memory, as it was: nothing was stored
            refused, _seconds = answer(lambda: client.get(f"/api/tables/{elsewhere}/public"))
            assert refused.status_code == 503 and refused.json()["code"] == "storage_error"
            again, _seconds = answer(
                lambda: client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)
            )
            assert again.status_code == 503, again.text
            assert not service.store.answering
        finally:
            cluster.answer_again()

        stored, _seconds = answer(
            lambda: client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)
        )
        assert stored.status_code == 200, stored.text
        assert stored.json()["number"] == number
        live = service.get(table_id)
        assert service.store.version(table_id) == (live.actions, live.seats_version)
        assert service.store.answering
        assert client.get(f"/api/tables/{elsewhere}/public").status_code == 200
