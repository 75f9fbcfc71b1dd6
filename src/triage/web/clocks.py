"""Presence, clocks and stand-in bots of a table (issue 20, point 6).

- **Presence**: a seat is ``online`` while one of its WebSockets is open, and for
  :attr:`Timekeeper.grace` seconds after its last one closed (a reload is no absence); then
  ``away``. Bot seats are ``bot``, seats nobody took yet ``open``. Presence is public.
- **Clocks** (optional, chosen at creation): each human seat has a time bank; the bank of the seat
  to move runs (monotonic time), and every seat gains the increment when a round starts. The banks
  are stored after each commit, so a restart keeps them (the time the server was down is nobody's).
- **Stand-ins**: when the running seat's bank is empty, or the seat to move has been away for the
  table's ``away`` seconds, a bot of the table's stand-in level plays for it (the service's fair
  bot runner, as for any bot seat) until its player comes back: a new socket of the seat, an
  action, or ``POST /back``. The numbers of the stand-in's moves go into the game record.

Everything here is public and per seat: no view, event or choice passes through it, so it can
leak nothing hidden. The service's clock is injectable (:attr:`Timekeeper.now`): tests move time
by hand, and call :meth:`Timekeeper.check` where the server's ticker would.

Presence and clocks live in the memory of the process that serves the table's sockets (one
process per database for SQLite; with several processes, each knows its own sockets).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from triage.bots import PLAYER_LEVELS
from triage.web.answers import Clock, LiveFacts, Presence
from triage.web.errors import WebError
from triage.web.sealing import sealed
from triage.web.storage import StoredClocks, StoredRules, StoredTiming
from triage.web.withhold import deliver_steps

if TYPE_CHECKING:
    from triage.web.live_table import LiveTable, Step, Subscriber
    from triage.web.schemas import ClockSettings
    from triage.web.tables import TableService

log = logging.getLogger("triage.web")

#: Seconds a seat stays ``online`` after its last socket closed (a reload, a network blip).
GRACE_SECONDS = 5.0
#: The gentle level that plays for an absent seat unless the table chose another.
STAND_IN_DEFAULT = "expert-novice"
#: Bounds of a table's time rules, in whole seconds.
MIN_BANK, MAX_BANK = 5, 24 * 3600
MAX_INCREMENT = 3600
MIN_AWAY, MAX_AWAY = 5, 24 * 3600
#: A player who comes back with an empty bank finds at least this many seconds in it.
RETURN_SECONDS = 15.0
#: Seconds between two looks of the ticker at the timed tables.
TICK_SECONDS = 0.5

ONLINE, AWAY, BOT, OPEN = "online", "away", "bot", "open"


@dataclass(frozen=True)
class TimeRules:
    """A table's clock (``bank`` None: no clock), its absence limit (None: none) and the level of
    the bot that stands in for an absent or timed-out seat."""

    bank: int | None = None
    increment: int = 0
    away: int | None = None
    stand_in: str = STAND_IN_DEFAULT

    @property
    def timed(self) -> bool:
        """Whether a stand-in can ever take a seat over."""
        return self.bank is not None or self.away is not None

    def stored(self) -> StoredRules:
        """The rules as the store keeps them."""
        return {"bank": self.bank, "increment": self.increment, "away": self.away, "stand_in": self.stand_in}


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise WebError(
            422, "invalid_clock", f"'{name}' must be whole seconds from {low} to {high}, got {value!r}"
        )
    return int(value)


def time_rules(clock: ClockSettings | None, away: Any, stand_in: Any) -> TimeRules | None:
    """A new table's time rules from its request (None: no clock and no absence limit), each
    value checked against the bounds above."""
    if stand_in is not None and stand_in not in {level.name for level in PLAYER_LEVELS}:
        levels = ", ".join(level.name for level in PLAYER_LEVELS)
        raise WebError(422, "unknown_bot", f"'stand_in' must be a player level ({levels}), got {stand_in!r}")
    if clock is None and away is None:
        if stand_in is not None:
            raise WebError(422, "invalid_clock", "'stand_in' goes with a 'clock' or 'away_seconds': set one")
        return None
    bank = increment = None
    if clock is not None:
        bank = _whole(clock.get("bank"), "clock.bank", MIN_BANK, MAX_BANK)
        increment = _whole(clock.get("increment", 0), "clock.increment", 0, MAX_INCREMENT)
    limit = None if away is None else _whole(away, "away_seconds", MIN_AWAY, MAX_AWAY)
    return TimeRules(bank, increment or 0, limit, stand_in or STAND_IN_DEFAULT)


@dataclass
class SeatTime:
    """One seat's sockets, absence, bank and stand-in."""

    #: Open WebSockets of the seat.
    sockets: int = 0
    #: When (the service's clock) its last socket closed; None while one is open.
    left_at: float | None = None
    #: Seconds left in its bank when the bank last stopped (the running seat's: at ``since``).
    bank: float = 0.0
    #: The bot level playing for it now, and why ("time" or "away").
    stand_in: str | None = None
    reason: str | None = None


@dataclass
class TableTiming:
    """A table's presence and, with time rules, its clocks and stand-ins."""

    rules: TimeRules | None
    seats: list[SeatTime]
    #: The seat whose bank runs, since when (the service's clock), and the round last seen.
    running: int | None = None
    since: float = 0.0
    round: int = 0
    #: The action numbers a stand-in played (noted in the game record).
    stand_in_moves: list[int] = field(default_factory=list)
    #: The presence last sent to the table's subscribers.
    announced: list[str] = field(default_factory=list)

    def stored(self) -> StoredClocks:
        """What the store keeps: enough to restart with the same banks and stand-ins."""
        return {
            "banks": [seat.bank for seat in self.seats],
            "stand_ins": [[seat.stand_in, seat.reason] for seat in self.seats],
            "round": self.round,
            "stand_in_moves": self.stand_in_moves,
        }


class Timekeeper:
    """The presence, clocks and stand-ins of a service's tables. ``now`` is the clock (monotonic
    seconds), injectable for tests; ``grace`` the seconds of :data:`GRACE_SECONDS`."""

    def __init__(
        self, service: TableService, now: Callable[[], float] = time.monotonic, grace: float = GRACE_SECONDS
    ) -> None:
        self.service = service
        self.now = now
        self.grace = grace
        #: Guards the seats' socket counts (changed on the loop and in threads).
        self.sockets_lock = threading.Lock()
        self.ticker: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ a table's life

    def timing(self, table: LiveTable) -> TableTiming:
        """The table's timing, made on first use (every seat away since now: nobody came yet)."""
        if table.timing is None:
            now = self.now()
            table.timing = TableTiming(None, [SeatTime(left_at=now) for _ in table.seats], since=now)
            table.timing.round = table.game.round
        return table.timing

    def created(self, table: LiveTable, rules: TimeRules | None) -> None:
        """A new table's rules: every bank full."""
        timing = self.timing(table)
        timing.rules = rules
        if rules is not None and rules.bank is not None:
            for seat in timing.seats:
                seat.bank = float(rules.bank)
        self._start_running(table)

    def restore(self, table: LiveTable, stored: StoredTiming | None) -> None:
        """A table read from the store: its rules, banks and stand-ins as last stored."""
        if stored is None:
            return
        rules_data, state = stored
        timing = self.timing(table)
        timing.rules = TimeRules(**rules_data)
        for seat, bank, (level, reason) in zip(
            timing.seats, state["banks"], state["stand_ins"], strict=False
        ):
            seat.bank, seat.stand_in, seat.reason = float(bank), level, reason
        timing.round = int(state["round"])
        timing.stand_in_moves = list(state["stand_in_moves"])
        self._start_running(table)

    @staticmethod
    def stored(table: LiveTable) -> StoredTiming | None:
        """The table's rules and state as the store keeps them (None: no time rules)."""
        timing = table.timing
        if timing is None or timing.rules is None:
            return None
        return timing.rules.stored(), timing.stored()

    def play_began(self, table: LiveTable) -> None:
        """The waiting room closed (:mod:`triage.web.lobby`): the seat to move starts its bank."""
        if table.timing is not None and table.timing.rules is not None:
            self._start_running(table)
            self.announce(table, force=True)

    def _start_running(self, table: LiveTable) -> None:
        timing = self.timing(table)
        timing.running = self._to_run(table)
        timing.since = self.now()

    def _to_run(self, table: LiveTable) -> int | None:
        """The seat whose bank runs: the human seat to move, taken, with a clock."""
        timing = table.timing
        turn = table.game.turn
        if timing is None or timing.rules is None or timing.rules.bank is None or turn is None:
            return None
        if table.waiting:  # nobody may act in the waiting room: no bank runs
            return None
        info = table.seats[turn]
        return turn if info.bot is None and info.claimed and not table.game.is_over() else None

    def _settle(self, timing: TableTiming, now: float) -> None:
        """Charge the running seat for the time since ``since`` (not while a stand-in plays)."""
        if timing.running is not None and timing.seats[timing.running].stand_in is None:
            seat = timing.seats[timing.running]
            seat.bank = max(0.0, seat.bank - (now - timing.since))
        timing.since = now

    def committed(self, table: LiveTable, steps: list[Step]) -> None:
        """After a commit (under the table's lock): note the stand-in's moves, charge the seat
        that moved, add each new round's increment, start the next seat's bank, store the banks
        and tell the subscribers."""
        timing = table.timing
        if timing is None or timing.rules is None:
            return
        for step in steps:
            if (
                timing.seats[step.entry["by"]].stand_in is not None
                and table.seats[step.entry["by"]].bot is None
            ):
                timing.stand_in_moves.append(step.number)
        self._settle(timing, self.now())
        rounds = table.game.round - timing.round
        if rounds > 0 and timing.rules.bank is not None:
            for seat in timing.seats:
                seat.bank += rounds * timing.rules.increment
        timing.round = table.game.round
        self._start_running(table)
        self.save(table)
        self.announce(table, force=timing.rules.bank is not None)  # a clock: the running seat changed

    def save(self, table: LiveTable) -> None:
        """Store the table's banks (charged up to now) and stand-ins (a failure is logged:
        memory goes on)."""
        if table.timing is None or table.timing.rules is None:
            return
        self._settle(table.timing, self.now())
        stored = self.stored(table)
        assert stored is not None
        try:
            with table.waiting_on_store():
                self.service.store.save_timing(table.id, *stored)
        except Exception as error:  # noqa: BLE001 - the game goes on; the banks are stored next time
            log.warning("table %s: the clocks were not stored (%s)", table.id, error)

    def _save_locked(self, table: LiveTable) -> None:
        with table.writer():
            self.save(table)

    # ------------------------------------------------------------------ presence

    def joined(self, table: LiveTable, subscriber: Subscriber) -> None:
        """A socket subscribed (under the table's lock): its seat is online and, if a bot stood
        in for it, its own again. Everyone hears of it; a spectator gets the table's state."""
        if subscriber.seat is None:
            if subscriber.live:
                subscriber.deliver(self.message(table))
            return
        timing = self.timing(table)
        self._settle(timing, self.now())
        timing.running = self._to_run(table)  # a seat taken since the last commit starts its clock
        seat = timing.seats[subscriber.seat]
        with self.sockets_lock:
            seat.sockets += 1
            seat.left_at = None
        if seat.stand_in is not None:
            self.back(table, subscriber.seat)  # announces too
        else:
            self.announce(table, force=True)

    def left(self, table: LiveTable, subscriber: Subscriber) -> None:
        """A seat's socket closed: the seat is away once its grace has passed with none open.
        Called on the event loop: it takes only :attr:`sockets_lock`, never held for long."""
        if subscriber.seat is None or table.timing is None:
            return
        with self.sockets_lock:
            seat = table.timing.seats[subscriber.seat]
            seat.sockets = max(0, seat.sockets - 1)
            if seat.sockets == 0:
                seat.left_at = self.now()

    def status(self, table: LiveTable, seat: int, now: float) -> str:
        info = table.seats[seat]
        if info.bot is not None:
            return BOT
        if not info.claimed:
            return OPEN
        timing = self.timing(table).seats[seat]
        if timing.sockets > 0 or (timing.left_at is not None and now - timing.left_at < self.grace):
            return ONLINE
        return AWAY

    # ------------------------------------------------------------------ stand-ins

    def back(self, table: LiveTable, seat: int) -> None:
        """The player of ``seat`` is back (a socket, an action, ``POST /back``): its stand-in
        stops; an empty bank gets :data:`RETURN_SECONDS`. Under the table's lock."""
        timing = self.timing(table)
        mine = timing.seats[seat]
        mine.left_at = None if mine.sockets or mine.left_at is None else self.now()
        if mine.stand_in is None:
            return
        self._settle(timing, self.now())
        mine.stand_in = mine.reason = None
        if timing.rules is not None and timing.rules.bank is not None:
            mine.bank = max(mine.bank, RETURN_SECONDS)
        self.save(table)
        self.announce(table, force=True)

    def take_over(self, table: LiveTable, seat: int, reason: str) -> None:
        """A bot of the table's stand-in level plays for ``seat`` from now on (under the lock)."""
        timing = self.timing(table)
        assert timing.rules is not None
        self._settle(timing, self.now())
        mine = timing.seats[seat]
        held = sealed(table)
        mine.stand_in, mine.reason = timing.rules.stand_in, reason
        log.info("table %s: a %s bot plays for seat %d (%s)", table.id, mine.stand_in, seat, reason)
        # What the absent player could still have undone is everyone's now: the others get it.
        deliver_steps(table, [], held, sealed(table))
        self.save(table)
        self.announce(table, force=True)
        self.service.turns.move_bots(table)

    def due(self, table: LiveTable, now: float) -> str | None:
        """Why the seat to move must be taken over now ("time", "away"), or None."""
        timing = table.timing
        turn = table.game.turn
        if timing is None or timing.rules is None or turn is None or table.game.is_over() or table.waiting:
            return None
        info, mine = table.seats[turn], timing.seats[turn]
        if info.bot is not None or not info.claimed or mine.stand_in is not None:
            return None
        if timing.running == turn and mine.bank - (now - timing.since) <= 0:
            return "time"
        away = timing.rules.away
        gone_since = mine.left_at if mine.sockets == 0 else None
        if away is not None and gone_since is not None and now - gone_since >= self.grace + away:
            return "away"
        return None

    def check(self, table: LiveTable) -> None:
        """Take the seat to move over if its time ran out or its player is away past the limit,
        and tell the subscribers of presence that changed (a blocking call, for a thread)."""
        with table.writer():
            if table.timing is None:
                return
            reason = self.due(table, self.now())
            if reason is not None:
                assert table.game.turn is not None
                self.take_over(table, table.game.turn, reason)
            else:
                self.announce(table)

    # ------------------------------------------------------------------ what everyone sees

    def state(self, table: LiveTable) -> LiveFacts:
        """The table's public presence and clocks, as every client gets them."""
        now = self.now()
        timing = self.timing(table)
        presence: list[Presence] = [
            {
                "seat": seat,
                "status": self.status(table, seat, now),
                "stand_in": mine.stand_in,
                "stand_in_reason": mine.reason,
            }
            for seat, mine in enumerate(timing.seats)
        ]
        rules = timing.rules
        clock: Clock | None = None
        if rules is not None and rules.bank is not None:
            remaining = [mine.bank for mine in timing.seats]
            if timing.running is not None and timing.seats[timing.running].stand_in is None:
                remaining[timing.running] = max(0.0, remaining[timing.running] - (now - timing.since))
            clock = {
                "bank": rules.bank,
                "increment": rules.increment,
                "remaining": [round(value, 1) for value in remaining],
                "running": timing.running,
            }
        return {
            "presence": presence,
            "clock": clock,
            "away_seconds": None if rules is None else rules.away,
            "stand_in": None if rules is None else rules.stand_in,
        }

    def message(self, table: LiveTable) -> str:
        return json.dumps({"type": "live", "table_id": table.id, "live": self.state(table)})

    def announce(self, table: LiveTable, force: bool = False) -> None:
        """Send the table's state to its subscribers (when presence changed, or ``force``)."""
        now = self.now()
        statuses = [self.status(table, seat, now) for seat in range(len(table.seats))]
        timing = self.timing(table)
        if not force and statuses == timing.announced:
            return
        timing.announced = statuses
        listeners = [subscriber for subscriber in table.subscribers if subscriber.live]
        if not listeners:
            return
        text = self.message(table)
        for subscriber in listeners:
            subscriber.deliver(text)

    # ------------------------------------------------------------------ the ticker

    def start(self) -> None:
        """Look at the tables every :data:`TICK_SECONDS` on the running loop (the server's)."""
        if self.ticker is None:
            self.ticker = asyncio.get_running_loop().create_task(self._tick_forever())

    async def stop(self) -> None:
        """Stop the ticker and store every timed table's banks as they are now."""
        with self.service.live_lock:
            tables = list(self.service.live.values())
        for table in tables:
            with contextlib.suppress(Exception):
                await self.service.run(self._save_locked, table)
        if self.ticker is not None:
            self.ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.ticker
            self.ticker = None

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(TICK_SECONDS)
            try:
                await self.tick()
            except Exception:  # a fault is logged; the ticker goes on
                log.exception("the clocks' ticker failed")

    async def tick(self) -> None:
        """One look: a table with a takeover due, or with presence to announce, is checked in a
        thread (under its lock); the others cost a comparison on the loop."""
        now = self.now()
        with self.service.live_lock:  # held only briefly by the cache's bookkeeping
            tables = list(self.service.live.values())
        for table in tables:
            if table.timing is None:
                continue
            if self.due(table, now) is not None or self._presence_moved(table, now):
                await self.service.run(self.check, table)

    def _presence_moved(self, table: LiveTable, now: float) -> bool:
        timing = table.timing
        assert timing is not None
        return any(
            self.status(table, seat, now) != announced for seat, announced in enumerate(timing.announced)
        )


def note_stand_ins(table: LiveTable, record: str) -> str:
    """The record's JSON text with ``stand_in_moves``: the numbers of the actions a stand-in bot
    played for an absent seat (left out when there are none)."""
    timing = table.timing
    if timing is None or not timing.stand_in_moves:
        return record
    return f'{record[:-1]}, "stand_in_moves": {json.dumps(timing.stand_in_moves)}}}'
