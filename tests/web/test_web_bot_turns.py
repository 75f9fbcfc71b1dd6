"""The bot runner (docs/web.md, "Bots"): fair between tables, bounded, with a deadline per move,
and a bot that fails never sticks its table (issue 22, points 2 and 4).

None of these tests measures speed: they check the order in which tables are served, how many
batches run at once, and what happens when a bot raises or misses its deadline.
``python -m triage.web.stress_loop experts`` measures a human's expert opponent under load.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from triage.bots import make_bot
from triage.engine import Game
from triage.web import thinking, turns
from triage.web.live_table import LiveTable
from triage.web.storage import Store
from triage.web.tables import TableService


def served_order(service: TableService) -> list[str]:
    """The table of each bot batch, in the order the batches started."""
    served: list[str] = []
    prepare = service.turns._prepare

    def recording(table: LiveTable) -> Game | None:
        served.append(table.id)
        return prepare(table)

    service.turns._prepare = recording  # type: ignore[method-assign]
    return served


async def until_idle(service: TableService) -> None:
    while service.turns.bot_tasks or service.turns.human_queue or service.turns.bot_queue:
        await asyncio.sleep(0.005)


def test_tables_take_turns_and_a_human_s_table_goes_first(tmp_path: Path) -> None:
    """One batch at a time (one slot): bot-only tables are served round robin, and a table
    whose human waits for its bot goes before every bot-only table waiting."""
    service = TableService(Store(f"sqlite:///{tmp_path / 'tables.db'}"), bot_budget=0.0, processes=0)
    service.turns.slots = 1
    served = served_order(service)

    async def play() -> tuple[list[str], str, int]:
        one_round = {"rounds": 1}
        bot_tables = [service.create(2, ["random"] * 2, seed, one_round, None)[0].id for seed in range(3)]
        human = service.create(2, [None, "random"], 5, one_round, None)[0]
        while len(served) < 4:  # a few bot batches
            await asyncio.sleep(0.001)
        while human.game.turn == 0:  # until the human hands over to its bot
            asked = len(served)
            service.turns.act(human, 0, human.game.legal_actions(0)[-1])
        await until_idle(service)
        return bot_tables, human.id, asked

    bot_tables, human, asked = asyncio.run(play())
    # Round robin among the bot-only tables until one of them is over.
    assert served[:3] == bot_tables and [table for table in served if table != human][3:6] == bot_tables
    # The human's table went before the bot-only tables waiting: it waited for the batch that
    # was running when it asked (and one taken from the queue just before), no more.
    assert served.index(human) in (asked, asked + 1)
    assert all(service.get(table_id).game.is_over() for table_id in bot_tables)
    service.close()


class Sleeper:
    """A bot that searches (``searches``): each decision takes 50 ms of waiting."""

    name = "sleeper"
    searches = True
    running = 0
    most = 0
    lock = threading.Lock()

    def choose(self, view: Any, legal: list[Any], rng: Any) -> Any:
        with Sleeper.lock:
            Sleeper.running += 1
            Sleeper.most = max(Sleeper.most, Sleeper.running)
        time.sleep(0.05)
        with Sleeper.lock:
            Sleeper.running -= 1
        return legal[0]


def test_bot_batches_run_in_parallel_within_the_slots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six bot-only tables of thinking bots: two decisions at a time (the three slots but the
    one kept for tables a human waits for), never more; a human's table takes the third at once;
    the event loop goes on meanwhile."""
    monkeypatch.setattr(thinking, "make_bot", lambda name: Sleeper() if name == "sleeper" else make_bot(name))
    service = TableService(Store(f"sqlite:///{tmp_path / 'tables.db'}"), processes=0)
    assert service.turns.slots == 3

    async def play() -> int:
        tables = [service.create(1, [None], seed, None, None)[0] for seed in range(6)]
        for table in tables:
            table.seats[0].bot = "sleeper"
            service.turns.move_bots(table)
        human = service.create(2, [None, None], 9, None, None)[0]
        human.seats[1].bot = "sleeper"
        await asyncio.sleep(0.02)
        while human.game.turn == 0:
            assert len(service.turns.bot_tasks) == 2  # the bot-only tables use two slots
            service.turns.act(human, 0, human.game.legal_actions(0)[-1])
        # The human's table takes the slot kept for it at once: its bot waits for no other table.
        assert not service.turns.human_queue and len(service.turns.bot_tasks) == 3
        ticks = 0
        while sum(len(table.game.history) for table in tables) < 18:
            ticks += 1
            await asyncio.sleep(0.005)
        return ticks

    ticks = asyncio.run(play())
    assert Sleeper.most == 3
    assert ticks > 10  # the loop kept turning while the bots thought
    service.close()


def test_a_searching_bot_past_its_deadline_or_failing_in_its_process_plays_random(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The expert thinks in a worker process: a deadline it cannot meet, or a decision that
    fails in the process, gives random's move for that decision, and the table goes on.

    The worker's answers are injected as events, never raced against a clock: first a decision
    that never comes (so its deadline passes whatever the machine's load), then a process that
    died (answered at once, well within a deadline no loaded machine misses)."""
    service = TableService(Store(f"sqlite:///{tmp_path / 'tables.db'}"), processes=1)
    assert service.turns.thinking is not None
    deadlines = {"expert": 0.001}
    monkeypatch.setattr(turns, "bot_deadline", lambda name: deadlines[name])
    never: Future[Any] = Future()
    assert never.set_running_or_notify_cancel()  # a decision its process still works on
    monkeypatch.setattr(service.turns.thinking, "submit", lambda *args: never)

    async def play() -> LiveTable:
        table = service.create(1, ["expert"], 4, None, None)[0]
        while len(table.game.history) < 2:
            await asyncio.sleep(0.01)
        broken: Future[Any] = Future()
        broken.set_exception(EOFError("the worker process died"))
        deadlines["expert"] = 600.0
        monkeypatch.setattr(service.turns.thinking, "submit", lambda *args: broken)
        patched = len(table.game.history)
        while len(table.game.history) < patched + 2:
            await asyncio.sleep(0.01)
        return table

    with caplog.at_level(logging.ERROR, logger="triage.web"):
        table = asyncio.run(play())
    never.set_result({"type": "pass"})  # it ends at last, long after its table went on
    service.threads.shutdown()  # a batch the end of the loop cut short
    assert "bot expert failed (no decision within 0.001 s)" in caplog.text
    assert "bot expert failed (EOFError: the worker process died)" in caplog.text
    assert service.store.version(table.id) == (len(table.game.history), 0)
    service.close()


def test_a_decision_in_a_worker_process_is_the_one_made_here(tmp_path: Path) -> None:
    """The worker process gets the view, the legal actions and the generator's seed: its
    choice is the bot's choice in the server's own process; its failures come back."""
    game = Game.new(players=2, seed=11)
    from triage.engine import view

    seen, legal = view(game, 0), game.legal_actions(0)
    pool = thinking.ThinkingPool(1)
    try:
        assert pool.submit("expert-12", seen, legal, "t:1").result(30) == thinking.decide(
            "expert-12", seen, legal, "t:1"
        )
        with pytest.raises(KeyError):
            pool.submit("expert", {}, legal, "t:1").result(30)
    finally:
        pool.close()
