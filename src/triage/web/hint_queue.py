"""Hints share the server fairly (issue 40, point 3): they think below the tables' bots, one seat
one hint at a time, each client within a budget across its tables, clients in turn.

A hint is a search as costly as an expert bot's move, asked by a person who can wait; a bot's
move holds a table. So hints think in a pool of their own (:data:`HINT_PROCESSES` worker
process, started at a lower CPU priority, :data:`HINT_NICE`), never in the bots' pool, and a flood
of hints cannot take the cores the server and the bots need:

- **one in flight per seat**: the same question again (the same seat and position) waits for the
  answer already being thought; a seat asking about another position meanwhile is refused
  (429 ``rate_limited``, ``Retry-After``);
- **a budget per client** (its address, as rate limits count it): at most
  :data:`HINTS_PER_CLIENT` hints queued or thinking across all its tables, beyond it 429;
- **clients in turn**: the queue serves each client's oldest hint round robin, so one client's
  hints never wait behind another's many; a hint still queued after :data:`QUEUE_SECONDS` is
  refused 503 ``hint_unavailable`` (ask again), and one that thinks past its deadline
  (:data:`THINK_SECONDS`) too.

Without worker processes (``processes=0``: tests) hints think in a thread of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter, OrderedDict, deque
from concurrent.futures import Future
from dataclasses import dataclass, field

from triage.bots.hints import HINT_BOT
from triage.engine.shapes import Action, View
from triage.web.errors import WebError
from triage.web.thinking import ThinkingPool, bot_deadline, decide
from triage.web.workers import Workers

log = logging.getLogger("triage.web")

#: Worker processes thinking for hints (the bots' own pool is separate).
HINT_PROCESSES = 1
#: How much lower than the server and the bots' processes hints think (``nice`` steps): when the
#: cores are busy, the scheduler gives a hint's process about a tenth of a bot's share.
HINT_NICE = 10
#: Hints one client may have queued or thinking at once, across all its tables.
HINTS_PER_CLIENT = 2
#: Seconds a hint may wait in the queue before it is refused (the client asks again later).
QUEUE_SECONDS = 10.0
#: Seconds a hint may think before it is refused, when the hints' bot has a shorter deadline. A
#: person asked and can wait; the search is capped by its own CPU budget and holds its process
#: until it ends whatever the wait, so a longer wait costs nothing but turns fewer finished
#: searches away. On busy cores the niced process gets a tenth of a bot's share, and the first
#: hint also starts that process: the bot's deadline (its 0.25 CPU s and 1 s) refused them.
THINK_SECONDS = 10.0


def hint_deadline() -> float:
    """Seconds a hint may think, from its start in the queue's slot (the process's start-up
    included)."""
    return max(bot_deadline(HINT_BOT), THINK_SECONDS)


class HintsBusy(WebError):
    """429 ``rate_limited`` for hints beyond one per seat or a client's budget, with
    ``Retry-After``."""

    def __init__(self, message: str) -> None:
        super().__init__(429, "rate_limited", message)

    def headers(self) -> dict[str, str] | None:
        return {"Retry-After": "1"}


@dataclass
class Pending:
    """A hint asked: who asked, for which seat and position, and its answer to come."""

    client: str
    seat: tuple[str, int]
    at: int
    question: tuple[View, list[Action], str]
    answer: asyncio.Future[Action]
    queued: float = field(default_factory=time.monotonic)


def unavailable(message: str) -> WebError:
    return WebError(503, "hint_unavailable", message)


class HintQueue:
    """The hints of one server process: queued per client, thought one at a time below the bots."""

    def __init__(self, processes: int | None = None) -> None:
        """``processes``: None or more than 0, hints think in their own worker process; 0, in a
        thread of their own."""
        self.pool = ThinkingPool(HINT_PROCESSES, nice=HINT_NICE) if processes != 0 else None
        self.thread = Workers(1, "triage-hint") if processes == 0 else None
        self.slots = HINT_PROCESSES
        #: The hint in flight (queued or thinking) of each seat, and each client's count of them.
        self.in_flight: dict[tuple[str, int], Pending] = {}
        self.per_client: Counter[str] = Counter()
        #: Queued hints, by client in the order they first queued.
        self.waiting: OrderedDict[str, deque[Pending]] = OrderedDict()
        #: When each client with hints in flight was last served (a count of hints started): the
        #: client served longest ago goes next (round robin).
        self.last_served: dict[str, int] = {}
        self.started = 0
        #: Searches running (or past their deadline, still running in their process).
        self.running = 0

    async def ask(
        self,
        client: str,
        table_id: str,
        seat: int,
        at: int,
        question: tuple[View, list[Action], str],
    ) -> Action:
        """The expert's move for ``seat`` of ``table_id`` at action ``at`` (its view, legal
        actions and seed), thought in turn with the other clients' hints."""
        key = (table_id, seat)
        pending = self.in_flight.get(key)
        if pending is not None:
            if pending.at != at:
                raise HintsBusy(f"a hint for seat {seat} is still being thought: one at a time; retry in 1 s")
            return await asyncio.shield(pending.answer)
        self.check_budget(client)
        pending = Pending(client, key, at, question, asyncio.get_running_loop().create_future())
        self.in_flight[key] = pending
        self.per_client[client] += 1
        pending.answer.add_done_callback(lambda _answer: self._forget(pending))
        self.waiting.setdefault(client, deque()).append(pending)
        self._start()
        return await asyncio.shield(pending.answer)

    def check_budget(self, client: str) -> None:
        """429 when ``client`` has its whole budget of hints in flight (checked again by
        :meth:`ask`; checked first, before any work is done for the request)."""
        if self.per_client[client] >= HINTS_PER_CLIENT:
            raise HintsBusy(
                f"too many hints in flight from this client (limit {HINTS_PER_CLIENT} at a time, across "
                "tables); retry in 1 s"
            )

    def _forget(self, pending: Pending) -> None:
        if not pending.answer.cancelled():
            pending.answer.exception()  # read: a refusal nobody waits for any more is not an error
        if self.in_flight.get(pending.seat) is pending:
            del self.in_flight[pending.seat]
        self.per_client[pending.client] -= 1
        if self.per_client[pending.client] <= 0:
            del self.per_client[pending.client]
            self.last_served.pop(pending.client, None)

    def _next(self) -> Pending | None:
        """The oldest hint of the client served longest ago (never served first, then in the
        order clients queued)."""
        while self.waiting:
            client = min(self.waiting, key=lambda waiting: self.last_served.get(waiting, -1))
            queue = self.waiting[client]
            pending = queue.popleft()
            if not queue:
                del self.waiting[client]
            self.started += 1
            self.last_served[client] = self.started
            if time.monotonic() - pending.queued <= QUEUE_SECONDS:
                return pending
            pending.answer.set_exception(
                unavailable(f"the server was busy with other hints for {QUEUE_SECONDS:g} s; ask again")
            )
        return None

    def _start(self) -> None:
        while self.running < self.slots and (pending := self._next()) is not None:
            self.running += 1
            asyncio.get_running_loop().create_task(self._think(pending))

    async def _think(self, pending: Pending) -> None:
        """One search within its deadline; its slot is free again once its search has ended (a
        search past its deadline still holds its process)."""
        limit = hint_deadline()
        search: Future[Action] | asyncio.Future[Action]
        if self.pool is not None:
            search = self.pool.submit(HINT_BOT, *pending.question)
            waited: asyncio.Future[Action] = asyncio.wrap_future(search)
        else:
            assert self.thread is not None
            search = waited = asyncio.ensure_future(self.thread.run(decide, HINT_BOT, *pending.question))
        try:
            action = await asyncio.wait_for(asyncio.shield(waited), limit)
        except TimeoutError:
            pending.answer.set_exception(unavailable(f"no suggestion within {limit:g} s; ask again"))
        except Exception as error:  # noqa: BLE001 - the search or its process failed
            pending.answer.set_exception(
                unavailable(f"the suggestion failed ({type(error).__name__}); ask again")
            )
        else:
            pending.answer.set_result(action)
        if not waited.done():
            with contextlib.suppress(Exception):
                await waited  # the slot stays taken while the search goes on
        self.running -= 1
        self._start()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
        if self.thread is not None:
            self.thread.shutdown()
