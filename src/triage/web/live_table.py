"""A table in memory with its WebSocket subscribers, and one action waiting to be committed.

Two locks guard a table. :attr:`LiveTable.lock` is held by whoever reads or changes its memory,
never while waiting for the database; :attr:`LiveTable.writing` is held by whoever changes the
table, from the first look at it to the end of its store write, so that writers take turns. A
writer lets go of :attr:`LiveTable.lock` while it waits for the store
(:meth:`LiveTable.waiting_on_store`): it changes memory only once its write is stored (write,
then remember), so readers meanwhile read the table as it was, and a database that stops
answering holds the table's writers, never its readers.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

from triage.engine import Game
from triage.engine.shapes import ChatLine, Event
from triage.engine.shapes import Step as StepEntry
from triage.web import waits
from triage.web.answers import PositionFacts, TableSettings
from triage.web.errors import WebError
from triage.web.journal import Journal
from triage.web.storage import SeatInfo, stored_settings

if TYPE_CHECKING:
    from triage.web.clocks import TableTiming


#: The most messages waiting for one WebSocket client; beyond it the client is too slow.
QUEUE_LIMIT = 64
#: A table's memory, estimated (docs/web.md, Limits): a dealt game with its caches, plus this
#: many bytes of Python objects (the game's history and the all-seeing events) per byte of the
#: all-seeing record's JSON (measured: about 5), plus the viewers' encoded logs twice over
#: (their text and each string's overhead).
TABLE_BASE_BYTES = 64 * 1024
BYTES_PER_RECORD_BYTE = 6
BYTES_PER_LOG_BYTE = 2


@dataclass
class Subscriber:
    """One WebSocket: its seat (None for a spectator) and the bounded queue its writer task
    drains. A message is its JSON text (built once, and shared by the subscribers it is the
    same for)."""

    seat: int | None
    limit: int = field(default_factory=lambda: QUEUE_LIMIT)
    queue: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    #: Set when the socket must close: too slow, or asked to reconnect.
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    close_code: int = 1000
    close_reason: str = ""
    #: The event loop that serves the socket (None: whoever delivers, as in tests without one).
    loop: asyncio.AbstractEventLoop | None = None
    #: Whether the client asked for presence and clocks (``"live": true`` in its first message).
    live: bool = False

    def deliver(self, message: str) -> None:
        """Queue ``message``; from a thread of the service's pool it is handed to the loop, in
        the order of the calls (the queue and the event are the loop's alone)."""
        if self.loop is not None and not _runs(self.loop):
            self.loop.call_soon_threadsafe(self._put, message)
        else:
            self._put(message)

    def _put(self, message: str) -> None:
        if self.closing.is_set():
            return
        if self.queue.qsize() >= self.limit:
            self.close(1013, f"too slow: {self.limit} messages were waiting; reconnect for the current view")
            return
        self.queue.put_nowait(message)

    def close(self, code: int, reason: str) -> None:
        """Ask the socket to close with ``code`` (1013: reconnect) and ``reason``."""
        if self.loop is not None and not _runs(self.loop):
            self.loop.call_soon_threadsafe(self.close, code, reason)
        elif not self.closing.is_set():
            self.close_code, self.close_reason = code, reason
            self.closing.set()


def _on_a_loop() -> bool:
    """Whether the calling thread runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _runs(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the calling thread is the one running ``loop``."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class TableLock:
    """A reentrant lock that knows which thread holds it, and can be let go of for a while by
    that thread (:meth:`released`), however deeply it holds it.

    >>> lock = TableLock()
    >>> with lock, lock:
    ...     with lock.released():
    ...         lock.held()
    ...     lock.held()
    False
    True
    """

    __slots__ = ("_depth", "_lock", "_owner")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None
        self._depth = 0

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        me = threading.get_ident()
        if self._owner == me:
            self._depth += 1
            return True
        if not self._lock.acquire(blocking, timeout if blocking else -1):
            return False
        self._owner, self._depth = me, 1
        return True

    def release(self) -> None:
        if self._owner != threading.get_ident():
            raise RuntimeError("release of a table lock this thread does not hold")
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
            self._lock.release()

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()

    def held(self) -> bool:
        """Whether the calling thread holds it."""
        return self._owner == threading.get_ident()

    @contextmanager
    def released(self) -> Iterator[None]:
        """Let go of the lock (all its levels) for the block, then take it back as it was."""
        depth = self._depth
        self._owner, self._depth = None, 0
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()
            self._owner, self._depth = threading.get_ident(), depth


@dataclass
class LiveTable:
    """A table in memory. The object of a table id stays the same while it is in memory (a
    rebuild replaces its game, events and seats in place), so its subscribers survive."""

    id: str
    game: Game
    seats: list[SeatInfo]
    seed_chosen: bool
    #: The all-seeing events of the whole game, in order (never sent unfiltered).
    events: list[Event]
    public: bool = False
    seats_version: int = 0
    subscribers: list[Subscriber] = field(default_factory=list)
    bots_scheduled: bool = False
    #: Held by whoever reads or changes the table's memory (its game, seats, subscribers), never
    #: while waiting for the database.
    lock: TableLock = field(default_factory=TableLock, repr=False, compare=False)
    #: Held by whoever changes the table, from its first look to its store write (taken before
    #: :attr:`lock`): writers take turns, and readers never wait for a write's database.
    writing: TableLock = field(default_factory=TableLock, repr=False, compare=False)
    #: Held only while the subscriber list is replaced (never while waiting for anything).
    subscribers_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    #: The record and the viewers' logs as JSON text, built as actions are committed.
    journal: Journal = field(default_factory=Journal)
    #: The memory estimate the table cache last counted for this table.
    counted_bytes: int = 0
    #: The creator's seat, who may fill the empty seats with bots (None: a table that never waits).
    host: int | None = None
    #: The id of the rematch table offered at this table's end (None: none yet).
    rematch: str | None = None
    #: Presence, clocks and stand-in bots (:mod:`triage.web.clocks`); None until first needed.
    timing: TableTiming | None = None
    #: The sealed point (:mod:`triage.web.sealing`) with the position it was worked out for.
    sealed: Any = field(default=None, repr=False, compare=False)
    #: The last undo (seat, expected, steps, action count after, answer): a repeat gets the answer.
    last_undo: Any = field(default=None, repr=False, compare=False)
    #: The table's settings, chosen at its creation (the bots' pace, spectators and the chat).
    settings: TableSettings = field(default_factory=lambda: stored_settings(None, None))
    #: What the players said, in order (:mod:`triage.web.chat`; the store keeps it too).
    chat: list[ChatLine] = field(default_factory=list)
    #: Bytes of the chat's text held (part of the table's memory estimate).
    chat_bytes: int = 0
    #: The store's ids of the lines held: a line announced or read again is not said twice.
    chat_ids: set[int] = field(default_factory=set)

    @property
    def actions(self) -> int:
        return len(self.game.history)

    @contextmanager
    def writer(self) -> Iterator[None]:
        """The table's write turn then its lock, for a change; the wait for the turn is bounded
        by the thread's deadline (:mod:`triage.web.waits`): 503 ``storage_error`` when another
        write of the table still waits for the database then."""
        limit = waits.remaining()
        if not self.writing.acquire(timeout=limit):
            raise WebError(
                503,
                "storage_error",
                f"another write of table {self.id} was still waiting for the database after "
                f"{waits.WRITE_SECONDS:g} s: nothing was stored and nothing changed; try again",
            )
        try:
            with self.lock:
                yield
        finally:
            self.writing.release()

    @contextmanager
    def waiting_on_store(self) -> Iterator[None]:
        """Around a writer's store call: the table's lock is let go of meanwhile, so readers go
        on, when the calling thread holds the write turn (no other writer can change the table,
        and this one changes memory only after the call); otherwise it stays held."""
        if self.writing.held() and self.lock.held() and not _on_a_loop():
            with self.lock.released():
                yield
        else:  # the event loop's own write (a SQLite commit that never waits) keeps it
            yield

    def follow(self) -> Journal:
        """The journal, caught up with what the table committed (or took in) since it last was."""
        self.journal.follow(self.game, self.events)
        return self.journal

    def memory_estimate(self) -> int:
        """Bytes this table holds in memory, estimated from its journal (docs/web.md, Limits)."""
        journal = self.follow()
        return (
            TABLE_BASE_BYTES
            + BYTES_PER_RECORD_BYTE * journal.record_bytes
            + BYTES_PER_LOG_BYTE * journal.log_bytes
            + BYTES_PER_LOG_BYTE * self.chat_bytes
        )

    @property
    def waiting(self) -> bool:
        """The waiting room: a hosted table does not start until every human seat is taken."""
        return self.host is not None and any(info.bot is None and not info.claimed for info in self.seats)

    def bots_to_move(self, game: Game | None = None) -> bool:
        """Whether a bot is to move (never while the table waits for its players)."""
        game = game or self.game
        return game.turn is not None and self.bot_of(game.turn) is not None and not self.waiting

    def bot_of(self, seat: int) -> str | None:
        """The bot that plays ``seat``: its own, or one standing in for its absent player."""
        bot = self.seats[seat].bot
        if bot is None and self.timing is not None:
            return self.timing.seats[seat].stand_in
        return bot

    def subscribe(self, seat: int | None, loop: asyncio.AbstractEventLoop | None = None) -> Subscriber:
        """A new subscriber. The list is replaced, never changed in place: a thread going
        through it meanwhile goes through the list as it was (no lock on the event loop)."""
        subscriber = Subscriber(seat, loop=loop)
        with self.subscribers_lock:
            self.subscribers = [*self.subscribers, subscriber]
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self.subscribers_lock:
            self.subscribers = [other for other in self.subscribers if other is not subscriber]


@dataclass
class Step:
    """One action worked out on a copy of the game, waiting to be committed, with each
    subscriber's message (sent only once the action is stored)."""

    number: int
    entry: StepEntry
    events: list[Event]
    messages: list[tuple[Subscriber, str]]

    def deliver(self) -> None:
        for subscriber, message in self.messages:
            subscriber.deliver(message)


def facts(game: Game) -> PositionFacts:
    """The public facts of a position, stored with each commit for the lobby."""
    over = game.is_over()
    return {
        "players": game.num_players,
        "round": game.round,
        "phase": game.phase,
        "turn": game.turn,
        "over": over,
        "winner": game.winner,
        "scores": game.scores() if over else None,
        "actions": len(game.history),
    }
