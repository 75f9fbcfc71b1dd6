"""How long the service's work may wait for the database: a deadline per job, set by the thread
that runs it and read by every wait below it.

A request's work runs in a thread of the service's pools (:class:`~triage.web.workers.Workers`);
on its way it may queue for a thread, for its table's write turn, for this process's SQLite
write turn, for a pooled connection, a new connection and each statement. Each of those waits is
bounded by what is left of one deadline, :data:`WRITE_SECONDS` from the moment the request
handed its work over, so the whole request is refused (503 ``storage_error``) within that bound
however many waits it meets, instead of each wait taking the bound anew.

Threads of the readers' pool are marked (:func:`mark_reader`): the store then serves them from
its readers' connections, which never wait behind a write (:mod:`triage.web.storage`).

>>> with until(10.0 + now()):
...     9.0 < remaining() <= 10.0
True
>>> remaining() == WRITE_SECONDS
True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Seconds a request may wait for the database in all, queueing for a thread included: the
#: documented bound (docs/deploy.md) after which a write is refused with 503 ``storage_error``.
WRITE_SECONDS = 5.0

_LOCAL = threading.local()


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
    :data:`WRITE_SECONDS`, when it has none), never below 0."""
    deadline: float | None = getattr(_LOCAL, "deadline", None)
    if deadline is None:
        return WRITE_SECONDS if default is None else default
    return max(0.0, deadline - now())


def deadline_in(default: float | None = None) -> float:
    """The calling thread's deadline, or ``default`` (else :data:`WRITE_SECONDS`) seconds from
    now when it has none."""
    deadline = getattr(_LOCAL, "deadline", None)
    if deadline is None:
        return now() + (WRITE_SECONDS if default is None else default)
    return float(deadline)


def mark_reader() -> None:
    """The calling thread serves reads only (the readers' pool)."""
    _LOCAL.reader = True


def is_reader() -> bool:
    """Whether the calling thread is one of the readers' pool."""
    return bool(getattr(_LOCAL, "reader", False))
