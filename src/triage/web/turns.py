"""Acting and bot turns: a seat's action with the quick bot moves after it, and the background
runner that moves the bots of every table.

Each change is worked out on a copy of the game and handed to :meth:`TableService.commit`,
which stores it before memory takes it (write, then remember).

The runner is fair and bounded: at most :attr:`Turns.slots` batches run at once (one per worker
process of the :class:`~triage.web.thinking.ThinkingPool`), tables a human waits for go before
bot-only tables, and tables take turns round robin within each (a table rejoins the back of its
queue after each batch). A searching bot thinks in a worker process with a deadline; a bot that
raises, plays an illegal action or misses its deadline is replaced by ``random`` for that move
(logged), so no bot ever sticks a table. The event loop only hands work around: the store and
the game run in the service's threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from triage.engine import Game, RuleError, events_for, view
from triage.engine.shapes import Action, Event, View
from triage.engine.shapes import Step as StepEntry
from triage.web.answers import ActionResult
from triage.web.errors import WebError, rule_refusal, stale, storage_refused
from triage.web.live_table import LiveTable, Step
from triage.web.payloads import update_messages
from triage.web.storage import canonical
from triage.web.thinking import (
    ThinkingPool,
    bot_deadline,
    fallback_action,
    safe_decide,
    searches,
)

if TYPE_CHECKING:
    from triage.web.tables import TableService

#: Seconds of bot moves worked out within one request (more follow in later steps of the loop).
BOT_BUDGET = 0.005
#: At most this many actions in one transaction.
MAX_BATCH = 200
#: Seconds a table's bots wait before trying again after the database (or anything else) failed.
RETRY_SECONDS = 1.0
#: Batches running at once when searching bots think in threads (no worker processes).
THREAD_SLOTS = 3

#: An action worked out: its number, its history entry, its events, the position just after it
#: and the game's phase before it (which heads its first events in the seats' logs).
Move = tuple[int, StepEntry, list[Event], Game, str]

log = logging.getLogger("triage.web")


def check_expected(expected: Any) -> int:
    if type(expected) is not int or expected < 0:
        raise WebError(
            422,
            "invalid_request",
            f"'expected' must be an action number (0 or more), got {expected!r}",
        )
    return expected


def steps_of(table: LiveTable, moves: list[Move]) -> list[Step]:
    """The moves with each subscriber's message, built from the position after each."""
    return [
        Step(number, entry, events, update_messages(table, after, number, entry, events, phase))
        for number, entry, events, after, phase in moves
    ]


def move_seed(table: LiveTable, game: Game) -> str:
    """The seed of a bot's generator for the next action: the same decision wherever it runs."""
    return f"{table.id}:{game.setup['seed'] if game.setup else 0}:{len(game.history)}"


def play(table: LiveTable, game: Game, seat: int, action: Action, legal: list[Action], seed: str) -> Move:
    """``action`` played on ``game`` by the bot of ``seat`` (random's choice instead if the
    rules refuse it), with a copy of the position just after it."""
    number, phase = len(game.history), game.phase
    try:
        events = game.apply(action, seat)
    except RuleError as error:  # refused before anything changed
        name = table.bot_of(seat) or ""
        events = game.apply(fallback_action(table.id, name, legal, seed, f"refused: {error.message}"), seat)
    return number, game.history[-1], events, game.copy(), phase


def _runs(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


#: The refusals of a table that takes no more actions (docs/web.md, Limits).
TABLE_FULL: frozenset[str] = frozenset({"action_limit", "record_limit"})


class Turns:
    """The actions of a service's tables: the seats' (one request each) and the bots'.

    ``processes``: worker processes for searching bots (None: one per core; 0: none, they
    think in the service's threads)."""

    def __init__(
        self, service: TableService, bot_budget: float = BOT_BUDGET, processes: int | None = None
    ) -> None:
        self.service = service
        self.bot_budget = bot_budget
        self.thinking = ThinkingPool(processes) if processes != 0 else None
        #: Bot batches running at once.
        self.slots = self.thinking.size if self.thinking is not None else THREAD_SLOTS
        #: Tables whose bots wait to move: those a human waits for, then bot-only tables.
        self.human_queue: deque[LiveTable] = deque()
        self.bot_queue: deque[LiveTable] = deque()
        #: Running bot batches (kept so the loop does not drop them).
        self.bot_tasks: set[asyncio.Task[None]] = set()
        #: Decisions past their deadline still running in a worker process.
        self.lingering: set[Future[Action]] = set()
        #: The event loop the service answers on (set by :meth:`TableService.run`).
        self.loop: asyncio.AbstractEventLoop | None = None

    def close(self) -> None:
        if self.thinking is not None:
            self.thinking.close()

    def act(self, table: LiveTable, seat: int, action: Any, expected: Any = None) -> ActionResult:
        """Take ``action`` for ``seat``, with the bot moves that follow it, in one transaction.

        With ``expected`` (the action number the client saw) the request is idempotent: a
        repeat of a stored request gets the stored answer, any other stale number 409.

        The request reads nothing before its write: the commit's conditional write checks the
        version. Memory may then be behind the store (another process acted): a refusal (a
        number ahead of memory, the rules, a lost race) reads the store once, and the action is
        tried again if the store was ahead."""
        with table.writer():
            seen = table.actions
            try:
                return self._act(table, seat, action, expected)
            except WebError as error:
                if not self.service.store.shared or error.status not in (409, 422):
                    raise
                refused = error
            self.service.refresh(table)
            if table.actions == seen:
                raise refused
            return self._act(table, seat, action, expected)

    def _act(self, table: LiveTable, seat: int, action: Any, expected: Any) -> ActionResult:
        number = table.actions
        request = None
        if expected is not None:
            expected = check_expected(expected)
            request = canonical(action)
            if expected < number:
                return self._repeat(table, seat, request, expected, number)
            if expected > number:
                raise stale(number, expected)
        game = table.game.copy()
        try:
            events = game.apply(action, seat)
        except RuleError as error:
            raise rule_refusal(error) from None
        steps = steps_of(table, [(number, game.history[-1], events, game, table.game.phase)])
        deadline = time.perf_counter() + self.bot_budget
        # Quick bots move within the request; a bot that searches is left to the runner.
        steps.extend(steps_of(table, self.bot_moves(table, game, len(steps), deadline, quick_only=True)))
        answer: ActionResult = {
            "number": number,
            "actions": len(game.history),
            "events": events_for([event for step in steps for event in step.events], seat),
            "turn": game.turn,
            "phase": game.phase,
        }
        stored = self.service.commit(table, game, steps, request, answer)
        self.move_bots(table)
        return stored or answer

    def _repeat(self, table: LiveTable, seat: int, request: str, expected: int, current: int) -> ActionResult:
        with storage_refused(), table.waiting_on_store():
            stored = self.service.store.answer_for(table.id, expected)
        if (
            stored is not None
            and stored.by == seat
            and stored.request == request
            and stored.answer is not None
        ):
            return stored.answer
        raise stale(current, expected)

    def bot_moves(
        self, table: LiveTable, game: Game, done: int, deadline: float, quick_only: bool = False
    ) -> list[Move]:
        """Bots move on ``game`` (a copy) whenever it is their decision, each from its own view,
        until a human's decision, the end, the time budget or (``quick_only``) a bot that
        searches. Each move comes with a copy of the position just after it, for the
        subscribers' messages. Reads nothing the event loop changes, so it runs in a thread."""
        moves: list[Move] = []
        while self._more(table, game, done + len(moves), deadline):
            seat = game.turn
            assert seat is not None
            name = table.bot_of(seat) or ""
            if quick_only and searches(name):
                break
            legal, seed = game.legal_actions(seat), move_seed(table, game)
            action = safe_decide(table.id, name, view(game, seat), legal, seed)
            moves.append(play(table, game, seat, action, legal, seed))
        return moves

    @staticmethod
    def _more(table: LiveTable, game: Game, done: int, deadline: float) -> bool:
        """Whether a batch goes on: a bot's decision, room in the batch and (after the first
        move) time left in the budget."""
        return table.bots_to_move(game) and done < MAX_BATCH and (done == 0 or time.perf_counter() < deadline)

    def quick_moves(self, table: LiveTable) -> None:
        """The quick bots' moves at once (a new table: within the budget, as after a seat's
        action), the rest left to the runner; a failed commit leaves them all to the runner."""
        with table.writer():
            if table.bots_to_move():
                game = table.game.copy()
                moves = self.bot_moves(table, game, 0, time.perf_counter() + self.bot_budget, quick_only=True)
                if moves:
                    try:
                        self.service.commit(table, game, steps_of(table, moves))
                    except WebError as error:
                        log.warning("table %s: the first bot moves wait (%s)", table.id, error.message)
        self.move_bots(table)

    def move_bots(self, table: LiveTable) -> None:
        """Let the bots move: with the service on an event loop the table joins the runner's
        queues (from any thread); without one (scripts, tests), to the end now."""
        if not table.bots_to_move():
            return
        loop = self._loop()
        if loop is None:
            while table.bots_to_move():
                self.bot_batch(table)
        elif _runs(loop):
            self._enqueue(table)
        else:
            loop.call_soon_threadsafe(self._enqueue, table)

    def _loop(self) -> asyncio.AbstractEventLoop | None:
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            if self.loop is None or self.loop.is_closed() or not self.loop.is_running():
                return None
        return self.loop

    def _enqueue(self, table: LiveTable) -> None:
        """Queue the table's next batch (on the loop): behind the tables a human waits for if a
        human sits at it, else behind every table; once queued or running, it waits its turn."""
        if table.bots_scheduled or not table.bots_to_move():
            return
        table.bots_scheduled = True
        human = any(info.bot is None for info in table.seats)
        (self.human_queue if human else self.bot_queue).append(table)
        self._start_batches()

    def _linger(self, future: Future[Action]) -> None:
        """A decision past its deadline that its process still works on keeps its slot until it
        ends, so that the next decision finds a free process (the table went on meanwhile)."""
        if future.done():  # it never started: it was cancelled
            return
        loop = asyncio.get_running_loop()
        self.lingering.add(future)

        def ended(_: Future[Action]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing is waiting
                loop.call_soon_threadsafe(self._lingered, future)

        future.add_done_callback(ended)

    def _lingered(self, future: Future[Action]) -> None:
        self.lingering.discard(future)
        self._start_batches()

    def _start_batches(self) -> None:
        """Start the next batches while slots are free, tables a human waits for first."""
        loop = asyncio.get_running_loop()
        while True:
            if self.human_queue and self._free_slot(human=True):
                queue = self.human_queue
            elif self.bot_queue and self._free_slot(human=False):
                queue = self.bot_queue
            else:
                return
            task = loop.create_task(self._bot_batch_task(queue.popleft()))
            self.bot_tasks.add(task)
            task.add_done_callback(self._batch_done)

    def _free_slot(self, human: bool) -> bool:
        """Whether a batch may start: one slot is kept for the tables a human waits for (their
        bot never waits for a bot-only table's decision), and decisions past their deadline
        still running hold slots, but never all of them."""
        reserved = 0 if human or self.slots == 1 else 1
        held = min(len(self.lingering), max(0, self.slots - 2))
        return len(self.bot_tasks) + held < self.slots - reserved

    def _batch_done(self, task: asyncio.Task[None]) -> None:
        self.bot_tasks.discard(task)
        if not task.cancelled():  # cancelled: the loop is stopping, its thread may still think
            self._start_batches()

    async def _bot_batch_task(self, table: LiveTable) -> None:
        """One batch of the table's bot moves; then the table rejoins the back of its queue. A
        failure is logged and the table tried again a moment later: its bots never stop."""
        retry = False
        try:
            await self._play_batch(table)
        except WebError as error:
            if error.code in TABLE_FULL:  # the table takes no more actions: its bots stop for good
                log.warning("table %s: bots stop (%s)", table.id, error.message)
                table.bots_scheduled = False
                return
            if error.code != "stale_action":  # stale: another process moved first; go on from there
                log.warning(
                    "table %s: bots wait (%s); again in %.0f s", table.id, error.message, RETRY_SECONDS
                )
                retry = True
        except Exception:  # a fault of the server: logged, and the bots try again
            log.exception("table %s: a bot batch failed; again in %.0f s", table.id, RETRY_SECONDS)
            retry = True
        if retry:
            asyncio.get_running_loop().call_later(RETRY_SECONDS, self._requeue, table)
        else:
            self._requeue(table)

    def _requeue(self, table: LiveTable) -> None:
        table.bots_scheduled = False
        self._enqueue(table)

    async def _play_batch(self, table: LiveTable) -> None:
        """Work the moves out on a copy of the table's game (quick bots in a thread, a searching
        bot in a worker process), then commit them in a thread."""
        game = await self.service.run(self._prepare, table)
        if game is None:
            return
        start = len(game.history)
        moves: list[Move] = []
        deadline = time.perf_counter() + self.bot_budget
        while self._more(table, game, len(moves), deadline):
            seat = game.turn
            assert seat is not None
            name = table.bot_of(seat) or ""
            if self.thinking is not None and searches(name):
                moves.append(await self._think(table, game, seat, name))
            else:
                quick = self.thinking is not None
                moves.extend(await self.service.run(self.bot_moves, table, game, len(moves), deadline, quick))
        if moves:
            await self.service.run(self._commit_moves, table, game, start, moves)

    def _prepare(self, table: LiveTable) -> Game | None:
        """A copy of the up-to-date game when a bot is to move (None otherwise)."""
        with table.writer():
            self.service.refresh(table)
            return table.game.copy() if table.bots_to_move() else None

    async def _think(self, table: LiveTable, game: Game, seat: int, name: str) -> Move:
        """A searching bot's move, decided in a worker process within its deadline."""
        assert self.thinking is not None
        seen, legal, seed = await self.service.run(self._question, table, game, seat)
        limit = bot_deadline(name)
        future = self.thinking.submit(name, seen, legal, seed)
        try:
            action = await asyncio.wait_for(asyncio.wrap_future(future), limit)
        except TimeoutError:
            self._linger(future)
            action = fallback_action(table.id, name, legal, seed, f"no decision within {limit:g} s")
        except Exception as error:  # noqa: BLE001 - the bot or its process failed: the table goes on
            action = fallback_action(table.id, name, legal, seed, f"{type(error).__name__}: {error}")
        return await self.service.run(play, table, game, seat, action, legal, seed)

    @staticmethod
    def _question(table: LiveTable, game: Game, seat: int) -> tuple[View, list[Action], str]:
        return view(game, seat), game.legal_actions(seat), move_seed(table, game)

    def _commit_moves(self, table: LiveTable, game: Game, start: int, moves: list[Move]) -> None:
        """Store the batch, unless the table moved meanwhile (another process): it is then
        worked out again from there."""
        with table.writer():
            # A player who came back meanwhile takes the seat's moves back: the batch is dropped.
            if table.actions == start and all(table.bot_of(move[1]["by"]) for move in moves):
                self.service.commit(table, game, steps_of(table, moves))

    def bot_batch(self, table: LiveTable) -> None:
        """One transaction of bot moves, within the time budget (outside an event loop)."""
        with table.writer():
            if not table.bots_to_move():
                return
            game = table.game.copy()
            moves = self.bot_moves(table, game, 0, time.perf_counter() + self.bot_budget)
            self.service.commit(table, game, steps_of(table, moves))
