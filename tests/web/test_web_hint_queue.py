"""Hints share the server fairly (issue 40, point 3, :mod:`triage.web.hint_queue`): one in flight
per seat, a budget per client across tables, clients served in turn, below the bots (a pool and
a priority of their own).

The searches are injected (each waits for the test's word), so the order in which hints are
thought is checked, never a clock. ``python -m triage.web.stress_service hints`` measures a
flood's effect on other clients' moves and bot replies (docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
from fastapi.testclient import TestClient
from web_helpers import auth, create, service_of, tokens_of

from triage.web import hint_queue
from triage.web.errors import WebError
from triage.web.hint_queue import HINT_NICE, HINTS_PER_CLIENT, HintQueue, HintsBusy


class Searches:
    """Injected searches: each records its seed and waits until the test lets it finish."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.finish: dict[str, threading.Event] = {}
        self.lock = threading.Lock()

    def decide(self, _name: str, _view: Any, _legal: Any, seed: str) -> dict[str, Any]:
        with self.lock:
            self.started.append(seed)
            done = self.finish.setdefault(seed, threading.Event())
        assert done.wait(60), f"search {seed} never let go"
        return {"type": "pass", "seed": seed}

    def let_go(self, seed: str) -> None:
        with self.lock:
            self.finish.setdefault(seed, threading.Event()).set()


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> Iterator[Searches]:
    injected = Searches()
    monkeypatch.setattr(hint_queue, "decide", injected.decide)
    monkeypatch.setattr(hint_queue, "hint_deadline", lambda: 600.0)
    yield injected
    for event in injected.finish.values():
        event.set()


def question(seed: str) -> tuple[dict[str, Any], list[Any], str]:
    return {}, [], seed


async def until(condition: Any) -> None:
    for _ in range(6000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the queue never got there")


def test_one_hint_per_seat_is_thought_once_and_shared(searches: Searches) -> None:
    queue = HintQueue(processes=0)

    async def ask_twice() -> list[Any]:
        first = asyncio.ensure_future(queue.ask("a", "t1", 0, 5, question("t1:0:5")))
        again = asyncio.ensure_future(queue.ask("a", "t1", 0, 5, question("t1:0:5")))
        await until(lambda: searches.started)
        with pytest.raises(HintsBusy, match="still being thought"):
            await queue.ask("a", "t1", 0, 6, question("t1:0:6"))  # the same seat, another position
        searches.let_go("t1:0:5")
        return list(await asyncio.gather(first, again))

    answers = asyncio.run(ask_twice())
    queue.close()
    assert searches.started == ["t1:0:5"]  # one search for both requests
    assert answers[0] == answers[1] == {"type": "pass", "seed": "t1:0:5"}
    assert queue.in_flight == {} and not queue.per_client


def test_a_client_has_a_budget_across_tables_and_others_are_served_in_turn(searches: Searches) -> None:
    """Client A floods (more tables than its budget), client B asks once: A's extra hint is
    refused 429, and B's hint is thought before A's second (round robin), not after all of A's."""
    queue = HintQueue(processes=0)
    assert HINTS_PER_CLIENT == 2

    async def flood() -> None:
        a1 = asyncio.ensure_future(queue.ask("A", "t1", 0, 0, question("A1")))
        await until(lambda: searches.started == ["A1"])
        a2 = asyncio.ensure_future(queue.ask("A", "t2", 0, 0, question("A2")))
        await asyncio.sleep(0)
        with pytest.raises(HintsBusy, match="too many hints in flight from this client") as refused:
            await queue.ask("A", "t3", 0, 0, question("A3"))
        assert refused.value.status == 429 and refused.value.headers() == {"Retry-After": "1"}
        b1 = asyncio.ensure_future(queue.ask("B", "t4", 0, 0, question("B1")))
        await asyncio.sleep(0)
        for seed, waiting in (("A1", a1), ("B1", b1), ("A2", a2)):
            searches.let_go(seed)
            await waiting
        assert searches.started == ["A1", "B1", "A2"]

    asyncio.run(flood())
    queue.close()


def test_a_hint_queued_past_its_wait_is_refused(searches: Searches, monkeypatch: pytest.MonkeyPatch) -> None:
    queue = HintQueue(processes=0)
    monkeypatch.setattr(hint_queue, "QUEUE_SECONDS", -1.0)  # any wait is too long

    async def queued_behind() -> None:
        monkeypatch.setattr(hint_queue, "QUEUE_SECONDS", 600.0)
        first = asyncio.ensure_future(queue.ask("A", "t1", 0, 0, question("A1")))
        await until(lambda: searches.started == ["A1"])
        monkeypatch.setattr(hint_queue, "QUEUE_SECONDS", -1.0)
        second = asyncio.ensure_future(queue.ask("B", "t2", 0, 0, question("B1")))
        await asyncio.sleep(0)
        searches.let_go("A1")
        await first
        with pytest.raises(WebError) as refused:
            await second
        assert (refused.value.status, refused.value.code) == (503, "hint_unavailable")

    asyncio.run(queued_behind())
    queue.close()
    assert searches.started == ["A1"]  # the expired hint was never thought


def test_a_hint_may_think_longer_than_a_bots_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """A person who asked can wait: a search still going past the hint bot's own deadline (0 here)
    is answered, within the hints' longer bound (its process is held until it ends anyway)."""
    searches = Searches()
    monkeypatch.setattr(hint_queue, "decide", searches.decide)
    monkeypatch.setattr(hint_queue, "bot_deadline", lambda _name: 0.0)
    monkeypatch.setattr(hint_queue, "THINK_SECONDS", 600.0)
    queue = HintQueue(processes=0)

    async def slow_search() -> Any:
        asked = asyncio.ensure_future(queue.ask("A", "t1", 0, 0, question("A1")))
        await until(lambda: searches.started == ["A1"])
        await asyncio.sleep(0.05)  # the search goes on past the bot's deadline
        searches.let_go("A1")
        return await asked

    assert asyncio.run(slow_search()) == {"type": "pass", "seed": "A1"}
    queue.close()


def test_hints_think_in_their_own_process_below_the_bots(client: TestClient) -> None:
    """A hint never takes the bots' worker processes, and its own process runs HINT_NICE nice
    levels below the server."""
    service = service_of(client)
    assert service.hints.pool is not None and service.hints.pool is not service.turns.thinking

    def no_bot_process(*_args: Any) -> None:
        raise AssertionError("a hint went to the bots' pool")

    assert service.turns.thinking is not None
    service.turns.thinking.submit = no_bot_process  # type: ignore[method-assign]
    created = create(client, players=1, seed=5)
    table, token = created["table_id"], tokens_of(created)[0]
    answer = client.post(f"/api/tables/{table}/hint", headers=auth(token))
    assert answer.status_code == 200, answer.text
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    niced = [
        process for process in psutil.Process().children(recursive=True) if process.nice() == mine + HINT_NICE
    ]
    assert niced, "no worker process runs below the server"
