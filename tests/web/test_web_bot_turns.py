"""Bot moves share the event loop fairly (docs/web.md, "Limits"): tables whose bots move are
served round robin, one batch of a few milliseconds a loop step, so requests are answered
between any two batches however many all-bot tables play."""

from __future__ import annotations

import asyncio
from pathlib import Path

from triage.web.storage import Store
from triage.web.tables import TableService


def test_all_bot_tables_take_turns_one_batch_a_step(tmp_path: Path) -> None:
    service = TableService(Store(f"sqlite:///{tmp_path / 'tables.db'}"), bot_budget=0.0)
    served: list[str] = []
    answered: list[int] = []
    requests: list[int] = []
    batch = service.bot_batch

    def recording(table):  # type: ignore[no-untyped-def]
        served.append(table.id)
        answered.append(len(requests))
        batch(table)

    async def play() -> list[str]:
        service.bot_batch = recording  # type: ignore[method-assign]
        ids = [service.create(2, ["random", "random"], seed, None, None)[0].id for seed in range(3)]

        async def request() -> None:  # a client's request: one step of the loop at a time
            for _ in range(50):
                requests.append(1)
                await asyncio.sleep(0)

        await request()
        while service.bot_queue or service.bot_runner_scheduled:
            await asyncio.sleep(0.01)
        return ids

    ids = asyncio.run(play())
    # Round robin: the three tables take turns until one of them is over.
    assert served[:9] == ids * 3
    # With a budget of 0 each batch is still one move: every game reaches its end.
    assert all(service.get(table_id).game.is_over() for table_id in ids)
    # The request went on between batches: it was never held for more than one batch.
    steps_with_batches = [count for count in answered if count < 50]
    assert len(steps_with_batches) == len(set(steps_with_batches)), "two batches ran in one loop step"
    service.store.close()
