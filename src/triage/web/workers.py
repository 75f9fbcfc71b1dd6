"""Threads for the service's store and game work, handed work straight from the event loop.

``loop.run_in_executor`` with a :class:`~concurrent.futures.ThreadPoolExecutor` builds, for each
call, a thread-safe future (a condition and a lock), an asyncio future chained to it and their
callbacks: under load that bookkeeping cost the server more of its one core than the SQLite
write the thread was there for (docs/web.md, "CPU per action"). :class:`Workers` puts the
work and a plain asyncio future on one queue and sets the result from the thread with
``call_soon_threadsafe``: one queue put and one wake-up of the loop per call.

A job may carry a deadline (:mod:`triage.web.waits`): a thread that takes it after its deadline
does not run it (the caller gets :class:`~triage.web.waits.Expired`), and one that runs it sets the
deadline for every wait of the job.

>>> import asyncio
>>> workers = Workers(2, "doc")
>>> asyncio.run(workers.run(sum, [1, 2, 3]))
6
>>> workers.shutdown()
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any, TypeVar

from triage.web import waits

Result = TypeVar("Result")

#: A queued call: the loop to answer on, its future, the work, its arguments and its deadline.
Job = tuple[
    asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...], float | None
]


class Workers:
    """``count`` daemon threads taking jobs from one queue, in the order they came; ``readers``:
    threads that serve reads only (:func:`triage.web.waits.mark_reader`)."""

    def __init__(self, count: int, name: str, readers: bool = False) -> None:
        self.jobs: SimpleQueue[Job | None] = SimpleQueue()
        self.readers = readers
        self.threads = [
            threading.Thread(target=self._serve, name=f"{name}-{number}", daemon=True)
            for number in range(count)
        ]
        for thread in self.threads:
            thread.start()

    async def run(self, work: Callable[..., Result], *args: Any, deadline: float | None = None) -> Result:
        """``work(*args)`` in one of the threads; the event loop goes on meanwhile. The work runs
        even if the awaiting task is cancelled (as a started executor job does). With
        ``deadline`` (:func:`triage.web.waits.now` seconds) a job still queued then is not run:
        :class:`~triage.web.waits.Expired`."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Result] = loop.create_future()
        self.jobs.put((loop, future, work, args, deadline))
        return await future

    def shutdown(self) -> None:
        """Finish the jobs already queued, then stop every thread and wait for it."""
        for _thread in self.threads:
            self.jobs.put(None)
        for thread in self.threads:
            thread.join()

    def _serve(self) -> None:
        if self.readers:
            waits.mark_reader()
        while (job := self.jobs.get()) is not None:
            loop, future, work, args, deadline = job
            outcome: tuple[Any, BaseException | None]
            if deadline is not None and waits.now() >= deadline:
                outcome = (
                    None,
                    waits.Expired(f"queued past its deadline: {getattr(work, '__name__', work)}"),
                )
            else:
                try:
                    with waits.until(deadline):
                        outcome = (work(*args), None)
                except BaseException as error:  # handed to the awaiting task, as an executor does
                    outcome = (None, error)
            try:
                loop.call_soon_threadsafe(_settle, future, *outcome)
            except RuntimeError:  # the loop has closed: nobody waits for the answer
                pass


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """Give the waiting task its answer (unless it stopped waiting)."""
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
