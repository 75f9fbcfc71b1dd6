"""How long the service's work may wait for the database: a deadline per job, set by the thread
that runs it and read by every wait below it.

A request's work runs in a thread of the service's pools (:class:`~triage.web.workers.Workers`);
on its way it may queue for a thread, for its table's write turn, for this process's SQLite
write turn, for a pooled connection, a new connection and each statement. Each of those waits is
bounded by what is left of one deadline, so the whole request is refused (503 ``storage_error``)
within the bound however many waits it meets, instead of each wait taking the bound anew. The
deadline runs from the request's arrival (:func:`arriving`, stamped as its body has been read), not
from the moment its work is handed over: time spent before (the event loop busy, other work of the
request) counts, and :data:`ANSWER_MARGIN` of the bound is kept for what follows the deadline (the
watchdog's cut, the refusal, the answer's way out), so the answer leaves within the bound by
construction.

Threads of the readers' pool are marked (:func:`mark_reader`): the store then serves them from
its readers' connections, which never wait behind a write (:mod:`triage.web.storage`).

>>> with until(10.0 + now()):
...     9.0 < remaining() <= 10.0
True
>>> remaining() == JOB_SECONDS
True
>>> with arriving(at=now() - 3.0):
...     round(job_deadline() - now(), 1) == JOB_SECONDS - 3.0
True
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: Seconds a request may wait for the database in all, queueing for a thread included: the
#: documented bound (docs/deploy.md) after which a write is refused with 503 ``storage_error``.
WRITE_SECONDS = 5.0

#: Seconds of :data:`WRITE_SECONDS` kept for what follows a job's deadline: the watchdog's cut of
#: a call still under way, the refusal's way back to the event loop and the answer's way out.
ANSWER_MARGIN = 0.5

#: Seconds a job may wait for the database in all, from its request's arrival.
JOB_SECONDS = WRITE_SECONDS - ANSWER_MARGIN

_LOCAL = threading.local()

#: The request being served in this context: (its task, the moment it arrived). A task started
#: while serving it copies this context; the task is kept to tell the request from such a task
#: (a bot's turn, a hint's search), whose work is not the request's and is bounded from its own start.
_ARRIVAL: ContextVar[tuple[object, float] | None] = ContextVar("triage_arrival", default=None)


class Expired(Exception):
    """A job whose deadline passed before a thread took it: it was not run, nothing changed."""


def now() -> float:
    """The clock deadlines are read on (monotonic seconds)."""
    return time.monotonic()


@contextmanager
def until(deadline: float | None) -> Iterator[None]:
    """Within the block, the calling thread's waits end by ``deadline`` (None: no change). A
    nested deadline never extends the one around it."""
    if deadline is None:
        yield
        return
    outer = getattr(_LOCAL, "deadline", None)
    _LOCAL.deadline = deadline if outer is None else min(outer, deadline)
    try:
        yield
    finally:
        _LOCAL.deadline = outer


def remaining(default: float | None = None) -> float:
    """Seconds left before the calling thread's deadline (``default``, else
    :data:`JOB_SECONDS`, when it has none), never below 0."""
    deadline: float | None = getattr(_LOCAL, "deadline", None)
    if deadline is None:
        return JOB_SECONDS if default is None else default
    return max(0.0, deadline - now())


def deadline_in(default: float | None = None) -> float:
    """The calling thread's deadline, or ``default`` (else :data:`JOB_SECONDS`) seconds from
    now when it has none."""
    deadline = getattr(_LOCAL, "deadline", None)
    if deadline is None:
        return now() + (JOB_SECONDS if default is None else default)
    return float(deadline)


def _current_task() -> object:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no event loop in this thread
        return None


@contextmanager
def arriving(at: float | None = None) -> Iterator[None]:
    """Within the block, the calling task serves a request that arrived ``at`` (default now):
    its jobs' deadlines (:func:`job_deadline`) run from then."""
    stamp = _ARRIVAL.set((_current_task(), now() if at is None else at))
    try:
        yield
    finally:
        _ARRIVAL.reset(stamp)


def job_deadline() -> float:
    """The deadline of a job handed over now: :data:`JOB_SECONDS` from the arrival of the
    request this task serves (:func:`arriving`), else from now."""
    arrival = _ARRIVAL.get()
    start = arrival[1] if arrival is not None and arrival[0] is _current_task() else now()
    return start + JOB_SECONDS


def mark_reader() -> None:
    """The calling thread serves reads only (the readers' pool)."""
    _LOCAL.reader = True


def is_reader() -> bool:
    """Whether the calling thread is one of the readers' pool."""
    return bool(getattr(_LOCAL, "reader", False))
