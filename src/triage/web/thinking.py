"""Bots' decisions off the server's process: searching bots think in a pool of worker processes.

A searching bot (the expert) spends tenths of a second of CPU on every decision. Threads share
one interpreter lock, so the server's own work and every other table would wait behind it; the
pool's processes (one per core by default, and one for the tables a human waits for) let the decisions of different tables run side by
side. A decision travels as plain data (the bot's name, the seat's view, the legal actions and
the seed of its random generator) and comes back as the chosen action.

Whatever goes wrong with one decision (the bot raises, its process dies, it misses its deadline)
the bot's table goes on: :func:`fallback_action` picks a random legal action instead, and the
failure is logged. Nothing here imports the web framework, so a worker process starts light.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import lru_cache
from typing import Any, cast

from triage.bots import RandomBot, make_bot
from triage.bots.expert import ExpertBot
from triage.engine.shapes import Action, View

log = logging.getLogger("triage.web")

#: Seconds a decision may take beyond its bot's own CPU budget before random moves instead.
DEADLINE_MARGIN = 1.0
#: The deadline of a searching bot that has no CPU budget of its own (``expert-<N>``).
UNCAPPED_DEADLINE = 5.0


@lru_cache(maxsize=64)
def bot_deadline(name: str) -> float:
    """Seconds a decision of the bot ``name`` may take: its CPU budget plus a margin."""
    bot = make_bot(name)
    limit = bot.budget.time_limit if isinstance(bot, ExpertBot) and bot.budget is not None else None
    return UNCAPPED_DEADLINE if limit is None else limit + DEADLINE_MARGIN


@lru_cache(maxsize=64)
def searches(name: str) -> bool:
    """Whether the bot ``name`` searches (it then thinks in a worker process)."""
    return bool(getattr(make_bot(name), "searches", False))


def decide(name: str, view: View, legal: list[Action], seed: str) -> Action:
    """The bot's choice, its generator seeded with ``seed`` (so a decision is the same in a
    worker process and in the server's own): what a worker process runs."""
    return make_bot(name).choose(view, legal, random.Random(seed))


def fallback_action(table_id: str, name: str, legal: list[Action], seed: str, failure: str) -> Action:
    """The random bot's choice in place of a failed decision, logged with what went wrong."""
    log.error("table %s: bot %s failed (%s); random moves instead", table_id, name, failure)
    return RandomBot().choose(cast("View", {}), legal, random.Random(seed))  # it reads no view


def safe_decide(table_id: str, name: str, view: View, legal: list[Action], seed: str) -> Action:
    """:func:`decide` in the calling thread, random in place of any exception."""
    try:
        return decide(name, view, legal, seed)
    except Exception as error:  # noqa: BLE001 - any bot failure: the table goes on
        return fallback_action(table_id, name, legal, seed, f"{type(error).__name__}: {error}")


def lower_priority(steps: int) -> None:
    """Run this worker process ``steps`` nice levels below the server (hints: below the bots)."""
    if steps:
        os.nice(steps)


class ThinkingPool:
    """A bounded pool of worker processes for searching bots, started on first use; ``nice``:
    how many nice levels below the server its processes run."""

    def __init__(self, processes: int | None = None, nice: int = 0) -> None:
        #: How many decisions run at once: by default one per core for every table, and one
        #: more kept for the tables a human waits for (see :class:`~triage.web.turns.Turns`).
        self.size = processes or (os.cpu_count() or 1) + 1
        self.nice = nice
        self._pool: ProcessPoolExecutor | None = None

    def submit(self, name: str, view: View, legal: list[Action], seed: str) -> Future[Action]:
        """One decision, started in a worker process (a fresh pool if the last one broke)."""
        if self._pool is None:
            # forkserver: a worker is never forked from the server's threads (which may hold locks).
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["triage.web.thinking"])
            self._pool = ProcessPoolExecutor(
                self.size, mp_context=context, initializer=lower_priority, initargs=(self.nice,)
            )
        try:
            return self._pool.submit(decide, name, view, legal, seed)
        except BrokenProcessPool:
            self.close()
            return self.submit(name, view, legal, seed)

    def close(self) -> None:
        """Let the workers go (a decision still running ends on its own budget)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
