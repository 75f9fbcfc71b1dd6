"""Acting and bot turns: a seat's action with the quick bot moves after it, and the background
runner that moves the bots of every table round robin.

Each change is worked out on a copy of the game and handed to :meth:`TableService.commit`,
which stores it before memory takes it (write, then remember).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from triage.bots import make_bot
from triage.engine import Game, RuleError, events_for, view
from triage.web.errors import WebError, rule_refusal, stale, storage_refused
from triage.web.live_table import Event, LiveTable, Step
from triage.web.payloads import update_messages
from triage.web.storage import canonical

if TYPE_CHECKING:
    from triage.web.tables import TableService

#: Seconds of bot moves worked out within one request (more follow in later steps of the loop).
BOT_BUDGET = 0.005
#: At most this many actions in one transaction.
MAX_BATCH = 200

#: An action worked out: its number, its history entry, its events and the position just after it.
Move = tuple[int, dict[str, Any], list[Event], Game]

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
        Step(number, entry, events, update_messages(table, after, number, entry, events))
        for number, entry, events, after in moves
    ]


class Turns:
    """The actions of a service's tables: the seats' (one request each) and the bots'."""

    def __init__(self, service: TableService, bot_budget: float = BOT_BUDGET) -> None:
        self.service = service
        self.bot_budget = bot_budget
        #: Tables whose bots are waiting to move, served round robin, one batch a loop step.
        self.bot_queue: deque[LiveTable] = deque()
        self.runner_scheduled = False
        #: Running bot batches (kept so the loop does not drop them).
        self.bot_tasks: set[asyncio.Task[None]] = set()

    def act(self, table: LiveTable, seat: int, action: Any, expected: Any = None) -> dict[str, Any]:
        """Take ``action`` for ``seat``, with the bot moves that follow it, in one transaction.

        With ``expected`` (the action number the client saw) the request is idempotent: a
        repeat of a stored request gets the stored answer, any other stale number 409.

        The request reads nothing before its write: the commit's conditional write checks the
        version. Memory may then be behind the store (another process acted): a refusal (a
        number ahead of memory, the rules, a lost race) reads the store once, and the action is
        tried again if the store was ahead."""
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

    def _act(self, table: LiveTable, seat: int, action: Any, expected: Any) -> dict[str, Any]:
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
        steps = steps_of(table, [(number, game.history[-1], events, game)])
        deadline = time.perf_counter() + self.bot_budget
        # Quick bots move within the request; a bot that searches is left to the runner.
        steps.extend(steps_of(table, self.bot_moves(table, game, len(steps), deadline, quick_only=True)))
        answer = {
            "number": number,
            "actions": len(game.history),
            "events": events_for([event for step in steps for event in step.events], seat),
            "turn": game.turn,
            "phase": game.phase,
        }
        stored = self.service.commit(table, game, steps, request, answer)
        self.move_bots(table)
        return stored or answer

    def _repeat(
        self, table: LiveTable, seat: int, request: str, expected: int, current: int
    ) -> dict[str, Any]:
        with storage_refused():
            stored = self.service.store.answer_for(table.id, expected)
        if (
            stored is not None
            and stored.by == seat
            and stored.request == request
            and stored.answer is not None
        ):
            return stored.answer
        raise stale(current, expected)

    @staticmethod
    def bot_moves(
        table: LiveTable, game: Game, done: int, deadline: float, quick_only: bool = False
    ) -> list[Move]:
        """Bots move on ``game`` (a copy) whenever it is their decision, each from its own view,
        until a human's decision, the end, the time budget or (``quick_only``) a bot that
        searches. Each move comes with a copy of the position just after it, for the
        subscribers' messages. Reads nothing the event loop changes, so it may run in a thread."""
        moves: list[Move] = []
        while (
            table.bots_to_move(game)
            and done + len(moves) < MAX_BATCH
            and (done + len(moves) == 0 or time.perf_counter() < deadline)
        ):
            seat = game.turn
            assert seat is not None
            bot = make_bot(table.seats[seat].bot or "")
            if quick_only and getattr(bot, "searches", False):
                break
            number = len(game.history)
            rng = random.Random(f"{table.id}:{game.setup['seed'] if game.setup else 0}:{number}")
            action = bot.choose(view(game, seat), game.legal_actions(seat), rng)
            events = game.apply(action, seat)
            moves.append((number, game.history[-1], events, game.copy()))
        return moves

    def move_bots(self, table: LiveTable) -> None:
        """Let the bots move: within a running event loop the table joins the round robin of
        tables whose bots move, one batch a loop step (other requests are served between any
        two batches, however many tables play); without a loop (scripts, tests), to the end now."""
        if not table.bots_to_move():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            while table.bots_to_move():
                self.bot_batch(table)
            return
        if not table.bots_scheduled:
            table.bots_scheduled = True
            self.bot_queue.append(table)
            self._wake_runner(loop)

    def _wake_runner(self, loop: asyncio.AbstractEventLoop, pause: float = 0.0) -> None:
        # The next batch runs in a later loop step, after the loop has looked at the sockets.
        if not self.runner_scheduled and self.bot_queue:
            self.runner_scheduled = True
            loop.call_later(pause, self._run_bot_batch)

    def _run_bot_batch(self) -> None:
        """Start one batch of the next table in the round robin (the runner stays busy until
        it ends: one batch at a time)."""
        table = self.bot_queue.popleft()
        table.bots_scheduled = False
        task = asyncio.get_running_loop().create_task(self._bot_batch_task(table))
        self.bot_tasks.add(task)
        task.add_done_callback(self.bot_tasks.discard)

    async def _bot_batch_task(self, table: LiveTable) -> None:
        """One batch of bot moves. The bots think in a worker thread on a copy of the game, so
        the event loop goes on serving requests (a searching bot thinks for tenths of a
        second); the moves are then stored and remembered on the loop. The table rejoins the
        round robin, and the runner rests as long as the batch took."""
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        pause = 0.0
        try:
            self.service.refresh(table)
            if table.bots_to_move():
                game = table.game.copy()
                deadline = time.perf_counter() + self.bot_budget
                moves = await asyncio.to_thread(self.bot_moves, table, game, 0, deadline)
                self.service.commit(table, game, steps_of(table, moves))
            pause = time.perf_counter() - started
        except WebError as error:
            if error.status == 503:  # the database is down: try again in a while
                log.warning("table %s: bots wait for the database (%s)", table.id, error.message)
                table.bots_scheduled = True
                loop.call_later(1.0, self._requeue, table)
            elif error.code != "stale_action":  # another process moved first: go on from there
                log.error("table %s: bots stopped: %s", table.id, error.message)
            else:
                self.move_bots(table)
        else:
            self.move_bots(table)
        finally:
            self.runner_scheduled = False
            self._wake_runner(loop, pause)

    def _requeue(self, table: LiveTable) -> None:
        self.bot_queue.append(table)
        self._wake_runner(asyncio.get_running_loop())

    def bot_batch(self, table: LiveTable) -> None:
        """One transaction of bot moves, within the time budget (outside an event loop)."""
        if not table.bots_to_move():
            return
        game = table.game.copy()
        moves = self.bot_moves(table, game, 0, time.perf_counter() + self.bot_budget)
        self.service.commit(table, game, steps_of(table, moves))
