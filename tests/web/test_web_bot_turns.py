"""Bot moves share the event loop fairly (docs/web.md, "Limits"): tables whose bots move are
served round robin, one batch of a few milliseconds a loop step, so requests are answered
between any two batches however many all-bot tables play."""

from __future__ import annotations

import asyncio
from pathlib import Path

from triage.bots import make_bot
from triage.web.storage import Store
from triage.web.tables import TableService


def test_all_bot_tables_take_turns_one_batch_a_step(tmp_path: Path) -> None:
    service = TableService(Store(f"sqlite:///{tmp_path / 'tables.db'}"), bot_budget=0.0)
    served: list[str] = []
    answered: list[int] = []
    requests: list[int] = []
    moves = service.turns.bot_moves

    def recording(table, *args, **options):  # type: ignore[no-untyped-def]
        served.append(table.id)
        answered.append(len(requests))
        return moves(table, *args, **options)

    async def play() -> list[str]:
        service.turns.bot_moves = recording  # type: ignore[method-assign]
        ids = [service.create(2, ["random", "random"], seed, None, None)[0].id for seed in range(3)]

        async def request() -> None:  # a client's request: one step of the loop at a time
            for _ in range(50):
                requests.append(1)
                await asyncio.sleep(0)

        await request()
        while service.turns.bot_queue or service.turns.runner_scheduled:
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


class Thinker:
    """A bot that searches (``searches``): it takes a while for every decision."""

    name = "thinker"
    searches = True

    def choose(self, view, legal, rng):  # type: ignore[no-untyped-def]
        import time

        time.sleep(0.05)  # stands for a search's CPU time; the thread lets the loop go on
        return legal[0]


def test_a_searching_bot_thinks_in_a_thread_never_inside_a_request(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Game work never holds the event loop (issue: limits): a bot that searches moves in the
    background runner, whose thinking runs in a worker thread, never inline in a seat's action."""
    from triage.web import turns

    monkeypatch.setattr(turns, "make_bot", lambda name: Thinker() if name == "thinker" else make_bot(name))
    threaded: list[str] = []
    to_thread = asyncio.to_thread

    async def recording_to_thread(function, *args, **options):  # type: ignore[no-untyped-def]
        threaded.append(function.__name__)
        return await to_thread(function, *args, **options)

    monkeypatch.setattr(turns.asyncio, "to_thread", recording_to_thread)
    service = TableService(Store(f"sqlite:///{tmp_path / 'tables.db'}"))

    async def play() -> tuple[str, list[dict], int]:  # type: ignore[type-arg]
        table = service.create(2, [None, "random"], 3, None, None)[0]
        table.seats[1].bot = "thinker"
        answers = []
        ticks = 0
        while sum(entry["by"] == 1 for entry in table.game.history) < 3 and not table.game.is_over():
            if table.game.turn == 0:
                answers.append(service.turns.act(table, 0, table.game.legal_actions(0)[-1]))
            else:
                ticks += 1
                await asyncio.sleep(0.005)
        return table.id, answers, ticks

    table_id, answers, ticks = asyncio.run(play())
    history = service.get(table_id).game.history
    # Every answer stored the seat's own action alone: the thinking bot never moved inside it.
    assert answers and all(answer["actions"] == answer["number"] + 1 for answer in answers)
    assert sum(entry["by"] == 1 for entry in history) >= 3, "the thinking bot never moved"
    assert "bot_moves" in threaded
    # The loop kept turning while the bot thought (several ticks per 50 ms decision).
    assert ticks > 3 * 3
    service.store.close()
