"""Durable storage of tables (SQLAlchemy): SQLite by default, any SQLAlchemy URL otherwise.

A table is stored as what makes it reproducible (D1): its setup (players, configuration, deck,
seed), its seats, and the list of accepted actions. The position itself is never stored: it is
replayed from those, so a restarted server resumes every table exactly.

The store is the source of truth and the server writes before it remembers: every change
(a table, a seat taken, a seat's action with the bot moves that followed it) is one transaction,
committed before the server's memory changes. Several server processes may share one database:

- ``tables.actions`` is the table's action count. A write of actions updates it only if it
  still holds the count the writer started from, and ``(table_id, number)`` is the actions'
  primary key: of two processes acting on one position, one commits and the other gets
  :class:`Conflict` (optimistic concurrency). ``tables.seats_version`` does the same for seats.
- A process checks the table's row on each read (:meth:`Store.version`) and reads the actions it
  has not seen yet, so no request is answered from a stale position; a write needs no such read,
  since its conditional update is the check (a stale process gets :class:`Conflict`). A store
  that no other process writes (:attr:`Store.shared` false: SQLite, one process) needs no check.
- On PostgreSQL a write of actions is one statement (:data:`PG_ADD_ACTIONS`: the conditional
  update, the insert and ``NOTIFY triage_tables`` with the actions, see :func:`notice`), sent
  outside any explicit transaction: one round trip, its own transaction, the notification
  delivered on commit, so the other processes push the actions to their WebSocket subscribers.

Seat tokens and invitation codes are stored as SHA-256 digests only, so the database alone
cannot act for a seat or take one.

Every call is bounded, whatever the database does (docs/web.md, "The service's bounds"): its waits share the
calling thread's deadline (:mod:`triage.web.waits`: the write turn, the pool, connecting, each
statement), a database server is sent each statement with a ``statement_timeout`` and TCP
keepalives, and a :class:`Watchdog` cuts the connection of a call that outlives its deadline (a
server that stopped answering holds a statement for ever, timeouts or not). Reads come from
connections of their own (:meth:`Engines.for_reads`) that never queue behind the writers', wait
at most :data:`READ_LOCK_MS` for a lock and :data:`READ_SECONDS` in all; once a call went
unanswered the store says so (:attr:`Store.answering`) until a call succeeds, so that reads of
tables in memory stop asking it meanwhile (:mod:`triage.web.tables`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, TypedDict, TypeVar, cast

import orjson
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine, Row, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from triage.engine.shapes import Action, ChatLine, Hint, Record, Setup, Step
from triage.web import DEFAULT_DB_URL, waits
from triage.web.answers import (
    ActionResult,
    ListedTable,
    Pace,
    PositionFacts,
    SeatFacts,
    SpectatorChat,
    TableSettings,
)

#: The PostgreSQL channel on which committed actions are announced to every server process.
CHANNEL = "triage_tables"
#: Seconds to open a connection (PostgreSQL's connect_timeout) or to wait for a free one in the
#: pool, at most (a call's deadline may leave less).
CONNECT_SECONDS = 5.0
#: psycopg and libpq refuse a connect timeout under 2 s: a call with less left does not connect.
MIN_CONNECT_SECONDS = 2.0
#: TCP keepalives of every connection to a database server, and the most milliseconds data sent
#: may stay unacknowledged: a server that vanished from the network ends its connections in
#: seconds instead of the system's default of minutes to hours.
KEEPALIVES: dict[str, int] = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 1,
    "keepalives_count": 3,
    "tcp_user_timeout": 5000,
}
#: The readers' connections (:meth:`Engines.for_reads`): how many, how long a statement may run
#: on the server (PostgreSQL's statement_timeout) and wait for a lock (lock_timeout), and how long
#: a read may wait in all before the watchdog cuts it. A read of a table in memory that fails
#: within these is answered from memory (:mod:`triage.web.tables`).
READ_POOL_SIZE = 4
READ_STATEMENT_SECONDS = 0.25
READ_LOCK_MS = 20
READ_SECONDS = 1.0
#: Seconds between two looks at a database that stopped answering (:meth:`Engines.probe`).
PROBE_SECONDS = 1.0


class StorageError(Exception):
    """The database could not do what was asked: nothing of the request was stored."""


class Conflict(Exception):
    """Another writer changed the table first: the write was not made."""


class WouldWait(Exception):
    """Raised, instead of waiting, by a store asked to refuse waits (:meth:`Store.without_waiting`):
    the database or this process's write turn is taken. Nothing was stored."""


class DatabaseHeld(WouldWait):
    """:class:`WouldWait` because another connection holds the database (not this process's
    own writes)."""


log = logging.getLogger("triage.web")

#: Whether the current thread refuses to wait for the database (see :meth:`Store.without_waiting`).
_REFUSING = threading.local()
#: Whether the current thread is :meth:`Engines.probe`'s (the one reader that connects to a database
#: that does not answer).
_PROBING = threading.local()

#: Actions' commits between two checkpoints of SQLite's write-ahead log. No connection of the
#: server checkpoints at its own commit (SQLite's default every 1,000 pages), which would write
#: and sync the database file while holding the process's write turn (and, on the event loop,
#: the loop); a thread of its own does it instead, beside the writers.
CHECKPOINT_EVERY = 500


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    players: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    config: Mapped[Any] = mapped_column(JSON)
    deck: Mapped[Any] = mapped_column(JSON)
    #: Whether the creator chose the seed (then the creator could work out the deal).
    seed_chosen: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Listed in the lobby, its open seats free for anyone to join.
    public: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The number of stored actions (the table's version for optimistic concurrency).
    actions: Mapped[int] = mapped_column(Integer, default=0)
    seats_version: Mapped[int] = mapped_column(Integer, default=0)
    #: The public facts of the position after the last stored action, for the lobby (no replay).
    facts: Mapped[Any] = mapped_column(JSON)
    #: The creator's seat: it may fill the empty seats with bots while the table waits (null: a
    #: table made before the waiting room, which never waits).
    host: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The table of the rematch offered at this table's end (null: none yet).
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: The pace others' moves are shown at, and whether spectators read the chat (its settings,
    #: :class:`~triage.web.answers.TableSettings`; null: the defaults, for an older table).
    pace: Mapped[str | None] = mapped_column(String(16), nullable=True)
    spectator_chat: Mapped[str | None] = mapped_column(String(8), nullable=True)


class SeatRow(Base):
    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    invite_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The player's public name, chosen when the seat was taken (null: none given, or a bot).
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)


class ActionRow(Base):
    __tablename__ = "actions"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    by: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    #: For a seat's action sent with its expected number: the request as sent (canonical JSON)
    #: and the answer given, so that a repeat of the request gets the same answer.
    request: Mapped[str | None] = mapped_column(Text, nullable=True)
    answer: Mapped[str | None] = mapped_column(Text, nullable=True)


class TimingRow(Base):
    """A table's time rules and its seats' banks and stand-ins (:mod:`triage.web.clocks`): only
    for tables created with a clock or an absence limit."""

    __tablename__ = "timings"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    rules: Mapped[Any] = mapped_column(JSON)
    state: Mapped[Any] = mapped_column(JSON)


class HintRow(Base):
    """A move the ``expert`` suggested to a seat (never a move played; see triage.web.hints)."""

    __tablename__ = "hints"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    by: Mapped[int] = mapped_column(Integer)
    #: The number of actions the table held when the seat asked.
    at: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)


class ChatRow(Base):
    """A line said at a table (never a move; see triage.web.chat), in the order said."""

    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    by: Mapped[int] = mapped_column(Integer)
    #: The number of actions every player could see when it was said (the sealed point).
    at: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(Text)


TABLES = Base.metadata.tables[TableRow.__tablename__]
TIMINGS = Base.metadata.tables[TimingRow.__tablename__]
SEATS = Base.metadata.tables[SeatRow.__tablename__]
ACTIONS = Base.metadata.tables[ActionRow.__tablename__]
HINTS = Base.metadata.tables[HintRow.__tablename__]
CHAT = Base.metadata.tables[ChatRow.__tablename__]
#: Columns added since the first stored version, all nullable: :meth:`Store._check_schema`
#: adds them to an older database (any other missing column is refused).
ADDED_COLUMNS = (
    (TABLES, TABLES.c.host),
    (TABLES, TABLES.c.rematch),
    (SEATS, SEATS.c.name),
    (TABLES, TABLES.c.pace),
    (TABLES, TABLES.c.spectator_chat),
)


#: PostgreSQL refuses a notification payload of 8,000 bytes or more.
MAX_NOTICE = 7900


def json_text(value: Any) -> str:
    """``value`` as compact JSON text, encoded by orjson (the store's hot path writes an action,
    its answer and the table's facts per request: the standard encoder took ~3% of the server)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def notice(table_id: str, start: int, count: int, entries: list[Step]) -> str:
    """The payload announcing stored actions: with the actions when they fit, so that the
    other processes need not read them back."""
    payload = orjson.dumps({"table": table_id, "start": start, "count": count, "actions": entries})
    if len(payload) <= MAX_NOTICE:
        return payload.decode()
    return json_text({"table": table_id, "start": start, "count": count, "actions": None})


#: A write of actions on PostgreSQL in one statement (one round trip, one implicit transaction):
#: the table's count moves from ``start`` only if it still holds it (the version check folded into
#: the write), the actions are inserted only if it moved, and the other processes are notified
#: only then. No row back means another writer moved first. Its text never changes, so psycopg
#: prepares it on each connection after a few uses.
PG_ADD_ACTIONS = text(
    """
    WITH moved AS (
        UPDATE tables SET actions = :count, facts = CAST(:facts AS JSON)
        WHERE id = :table_id AND actions = :start
        RETURNING id
    ), stored AS (
        INSERT INTO actions (table_id, number, "by", action, request, answer)
        SELECT moved.id, entry.number, entry."by", entry.action, entry.request, entry.answer
        FROM moved, json_to_recordset(CAST(:rows AS JSON))
            AS entry(number INTEGER, "by" INTEGER, action TEXT, request TEXT, answer TEXT)
    )
    SELECT pg_notify(:channel, :payload) FROM moved
    """
)


#: The hot path's statements, built once (a statement built per call costs its construction and
#: its cache key, about as much as SQLite's own work): the conditional update of a table's count
#: (SQLite), the insert of its actions and the version read (a read on a shared store).
#: The hot write on SQLite in the driver's own words (no statement to compile per action; the
#: PostgreSQL write is ``PG_ADD_ACTIONS``).
SQLITE_ADVANCE_TABLE = "UPDATE tables SET actions = ?, facts = ? WHERE tables.id = ? AND tables.actions = ?"
SQLITE_INSERT_ACTIONS = (
    'INSERT INTO actions (table_id, number, "by", action, request, answer) VALUES (?, ?, ?, ?, ?, ?)'
)
#: A chat line, inserted only while its table holds fewer than ``most`` lines: the cap is checked
#: in the insert itself, so several processes never pass it (RETURNING: psycopg counts no rows of
#: an INSERT ... SELECT).
ADD_CHAT_LINE = (
    CHAT.insert()
    .from_select(
        ["table_id", "by", "at", "kind", "text"],
        select(
            bindparam("table_id", type_=String),
            bindparam("by", type_=Integer),
            bindparam("at", type_=Integer),
            bindparam("kind", type_=String),
            bindparam("text", type_=Text),
        ).where(
            select(func.count())
            .select_from(CHAT)
            .where(CHAT.c.table_id == bindparam("table_id"))
            .scalar_subquery()
            < bindparam("most", type_=Integer)
        ),
    )
    .returning(CHAT.c.id)
)
#: A table's chat lines in the order they were said, each with its id (a process that missed a
#: notification takes in the lines whose ids it does not hold).
CHAT_LINES = (
    select(CHAT.c.id, CHAT.c.by, CHAT.c.at, CHAT.c.kind, CHAT.c.text)
    .where(CHAT.c.table_id == bindparam("at_table"))
    .order_by(CHAT.c.id)
)
READ_VERSION = select(TABLES.c.actions, TABLES.c.seats_version).where(TABLES.c.id == bindparam("at_table"))


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def canonical(value: Any) -> str:
    """One spelling of a JSON value, to compare a repeated request with the stored one."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass
class SeatInfo:
    seat: int
    bot: str | None
    token_hash: str | None
    claimed: bool
    invite_hash: str | None = None
    name: str | None = None


@dataclass
class StoredTable:
    """Everything stored about one table: enough to replay it."""

    id: str
    #: How its game was dealt (D1): players, configuration, deck and seed.
    setup: Setup
    seed_chosen: bool
    public: bool
    seats_version: int
    seats: list[SeatInfo]
    actions: list[Step]
    host: int | None = None
    rematch: str | None = None
    settings: TableSettings | None = None
    #: What the players said, in order (the store's ``chat`` table), each line with its id.
    chat: list[tuple[int, ChatLine]] = field(default_factory=list)

    def record(self) -> Record:
        """The game record (triage.engine.records format) of the stored table."""
        setup = self.setup
        return {
            "format": "triage.record/1",
            "players": setup["players"],
            "config": setup["config"],
            "deck": setup["deck"],
            "seed": setup["seed"],
            "actions": [entry.copy() for entry in self.actions],
        }


@dataclass
class StoredAnswer:
    """A stored seat's action with the request and answer that went with it."""

    by: int
    action: Action
    request: str | None
    answer: ActionResult | None


class ActionInsert(TypedDict):
    """An action's row as :meth:`Store.add_actions` inserts it: the action and the answer given
    (the first action of a seat's request only) as JSON text."""

    table_id: str
    number: int
    by: int
    action: str
    request: str | None
    answer: str | None


class StoredRules(TypedDict):
    """A timed table's time rules as the store keeps them (``timings.rules``,
    :class:`triage.web.clocks.TimeRules`)."""

    bank: int | None
    increment: int
    away: int | None
    stand_in: str


class StoredClocks(TypedDict):
    """A timed table's banks and stand-ins as the store keeps them (``timings.state``): each
    seat's bank (seconds) and [stand-in level, reason], the round last seen, and the numbers of
    the actions a stand-in played."""

    banks: list[float]
    stand_ins: list[list[str | None]]
    round: int
    stand_in_moves: list[int]


#: A timed table's rules and state, as :meth:`Store.save_timing` stores them.
StoredTiming = tuple[StoredRules, StoredClocks]


class EngineOptions(TypedDict, total=False):
    """The keyword arguments of SQLAlchemy's ``create_engine`` a store sets: the pool and the
    driver's connection arguments (timeouts, keepalives, the server's options)."""

    pool_pre_ping: bool
    pool_timeout: float
    pool_size: int
    max_overflow: int
    connect_args: dict[str, str | int | float]


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets readers and the writer overlap; a committed transaction survives a killed
    process (synchronous NORMAL only risks the last commits on a power cut)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints in a thread (CHECKPOINT_EVERY)
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_busy_timeout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A pooled SQLite connection waits for a locked file at most what is left of its thread's
    deadline (:mod:`triage.web.waits`), not a whole busy timeout anew."""
    dbapi_connection.execute(f"PRAGMA busy_timeout = {int(waits.remaining() * 1000)}")


class StatementCount:
    """What a store sends its database, counted by SQLAlchemy's events: each statement by its
    first word, and each transaction's ``BEGIN`` and ``COMMIT``/``ROLLBACK`` outside autocommit
    (a round trip each on PostgreSQL). Statements per action are deterministic where latency is
    not: the regression test and ``triage loadtest`` read them."""

    def __init__(self, *engines: Engine) -> None:
        self.kinds: Counter[str] = Counter()
        for engine in dict.fromkeys(engines):  # each once (a store in memory reads on its own)
            event.listen(engine, "before_cursor_execute", self._statement)
            for kind in ("begin", "commit", "rollback"):
                event.listen(engine, kind, self._transaction(kind.upper()))

    @property
    def total(self) -> int:
        return sum(self.kinds.values())

    def reset(self) -> None:
        self.kinds.clear()

    def _statement(self, _connection: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        self.kinds[statement.lstrip().split(None, 1)[0].upper()] += 1

    def _transaction(self, kind: str) -> Any:
        def count(connection: Connection) -> None:
            if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
                self.kinds[kind] += 1

        return count


#: Connections each store (each server process) keeps open: one per thread of the service's
#: pool (``tables.STORE_THREADS``, where store calls run); beyond them up to POOL_OVERFLOW more.
POOL_SIZE = 8
POOL_OVERFLOW = 4


def sqlite_file(url: str) -> bool:
    """Whether ``url`` is a SQLite file (pooled like a server's connections), not memory."""
    parsed = make_url(url)
    database = parsed.database or ""
    return (
        parsed.get_backend_name() == "sqlite"
        and database not in ("", ":memory:")
        and parsed.query.get("mode") != "memory"
    )


#: A pooled connection to a database server that waited in the pool longer than this is checked
#: (one round trip) before use (:func:`ping_idle_connections`).
PING_IDLE_SECONDS = 1.0

Read = TypeVar("Read")


def ping_idle_connections(engine: Engine) -> None:
    """Check a pooled connection before use only if it waited in the pool more than
    :data:`PING_IDLE_SECONDS`: one that failed the check is replaced, so that connections a
    database restart dropped while the server was quiet fail no request. Under load a connection
    goes back into use within milliseconds: SQLAlchemy's ``pool_pre_ping`` checked every
    checkout, a round trip per request as many as the requests' own. A connection dropped while
    busy fails its statement; SQLAlchemy then replaces the whole pool, and a read is tried again
    (:meth:`Store._read`)."""

    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.pop("idle_since", None)
        if idle_since is None or time.monotonic() - idle_since < PING_IDLE_SECONDS:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as error:  # the driver's own error: the connection is gone
            raise DisconnectionError(
                f"a pooled connection failed its check: {type(error).__name__}"
            ) from error
        if not alive:
            raise DisconnectionError("a pooled connection failed its check")


def dropped(error: BaseException) -> bool:
    """Whether ``error`` came from a connection the database had dropped (SQLAlchemy then
    replaces the pool's connections: the work may be tried again)."""
    cause = error.__cause__
    return isinstance(cause, DBAPIError) and cause.connection_invalidated


def engine_options(url: str, reads: bool = False) -> EngineOptions:
    """Timeouts on every connection (``reads``: the readers' connections, whose statements wait
    at most :data:`READ_LOCK_MS` for a lock). A SQLite file has no server to drop a connection:
    no liveness check there; a database server's idle connections are checked before use
    (:func:`ping_idle_connections`, set up by :class:`Store`)."""
    driver = make_url(url).get_backend_name()
    options: EngineOptions = {"pool_pre_ping": False}
    if driver == "sqlite":
        options["connect_args"] = {"timeout": waits.JOB_SECONDS}
    elif driver == "postgresql":
        statement = round(READ_STATEMENT_SECONDS * 1000) if reads else _statement_ms(waits.JOB_SECONDS)
        server = f"-c statement_timeout={statement}"
        if reads:
            server += f" -c lock_timeout={READ_LOCK_MS}"
        options["pool_timeout"] = CONNECT_SECONDS
        options["connect_args"] = {
            "connect_timeout": max(1, round(CONNECT_SECONDS)),
            "options": server,
            **KEEPALIVES,
        }
    return options


class Health:
    """Whether a database server answers: it stops answering, as far as the store knows, when
    a call was cut by the :class:`Watchdog` or could not connect, and answers again with the next
    call that succeeds."""

    def __init__(self) -> None:
        #: When the store last found it silent (None: it answers).
        self.silent_since: float | None = None

    @property
    def answering(self) -> bool:
        return self.silent_since is None

    def failed(self) -> None:
        if self.silent_since is None:
            self.silent_since = waits.now()
            log.warning("the database does not answer; reads of tables in memory go on without it")

    def answered(self) -> None:
        if self.silent_since is not None:
            self.silent_since = None
            log.warning("the database answers again")


def _cut(dbapi_connection: Any) -> None:
    """Shut a psycopg connection's socket down from another thread: the call waiting on it
    fails at once with a lost connection (the pool then replaces it)."""
    try:
        descriptor = dbapi_connection.pgconn.socket
        with socket.socket(fileno=os.dup(descriptor)) as duplicate:
            duplicate.shutdown(socket.SHUT_RDWR)
    except (OSError, AttributeError, ValueError) as error:  # already closed: nothing waits on it
        log.debug("the watchdog found no socket to cut (%s)", error)


class Watchdog:
    """One thread that cuts the connection of any call to a database server still under way
    at its deadline (:mod:`triage.web.waits`). Server-side timeouts end a statement that waits
    for a lock, but not one sent to a server that stopped (a frozen or unreachable host): the
    call would wait for ever; cut, it fails, and the store takes the database as silent."""

    def __init__(self, health: Health) -> None:
        self.health = health
        #: The calls under way: a pool record's id -> (deadline, its DBAPI connection, record).
        self._armed: dict[int, tuple[float, Any, Any]] = {}
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        #: Connections cut so far.
        self.cuts = 0

    def arm(self, record: Any, deadline: float, dbapi_connection: Any) -> None:
        with self._changed:
            self._armed[id(record)] = (deadline, dbapi_connection, record)
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="triage-db-watchdog", daemon=True)
                self._thread.start()
            self._changed.notify()

    def disarm(self, record: Any) -> None:
        with self._changed:
            self._armed.pop(id(record), None)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify()

    def _watch(self) -> None:
        with self._changed:
            while not self._closed:
                now = waits.now()
                for key, (deadline, dbapi_connection, record) in list(self._armed.items()):
                    if deadline <= now:
                        del self._armed[key]
                        record.info["cut"] = True  # replaced at its next checkout
                        _cut(dbapi_connection)
                        self.cuts += 1
                        self.health.failed()
                soonest = min((entry[0] for entry in self._armed.values()), default=None)
                self._changed.wait(None if soonest is None else max(0.001, soonest - now))


#: Seconds before a write's deadline at which the server cancels its statement itself
#: (statement_timeout): a live server that makes a write wait for a lock refuses it cleanly, with
#: nothing stored, before the watchdog would have to cut its connection, which leaves the
#: statement's fate unknown.
SERVER_MARGIN = 0.2


def _statement_ms(seconds: float) -> int:
    """A write statement's ``statement_timeout`` for ``seconds`` left (at least 10 ms)."""
    return max(10, int((seconds - SERVER_MARGIN) * 1000))


def _server_gives_up_first(dbapi_connection: Any, record: Any, deadline: float) -> None:
    """Set the connection's statement_timeout to what is left of the deadline (less
    :data:`SERVER_MARGIN`) when it differs by more than 0.25 s from the one it has: under
    normal load a write checks its connection out with nearly the whole bound left, and sends
    nothing more; a write that queued first sends one ``SET``, outside any transaction."""
    wanted = _statement_ms(deadline - waits.now())
    if abs(wanted - record.info.get("statement_ms", wanted)) <= 250:
        return
    autocommit = dbapi_connection.autocommit
    dbapi_connection.autocommit = True
    try:
        dbapi_connection.execute(f"SET statement_timeout = {wanted}")
    finally:
        dbapi_connection.autocommit = autocommit
    record.info["statement_ms"] = wanted


def bound_connections(engine: Engine, watchdog: Watchdog, reads: bool) -> None:
    """Bound every call on ``engine``'s connections to a database server by its thread's
    deadline, and (``reads``) by :data:`READ_SECONDS` from its checkout: a new connection tries
    for what is left (at least :data:`MIN_CONNECT_SECONDS`, else none is tried; a reader's for
    that least, and none while the database does not answer but :meth:`Engines.probe`'s), and
    the watchdog cuts a checked-out connection at the deadline. Registered before
    :func:`ping_idle_connections`, so that the check of an idle connection is bounded too."""
    longest = READ_SECONDS if reads else waits.JOB_SECONDS

    # ``parameters``: the keyword arguments SQLAlchemy hands the driver's connect(), open by nature.
    @event.listens_for(engine, "do_connect")
    def _connect(_dialect: Any, record: Any, _args: Any, parameters: dict[str, Any]) -> None:
        left = min(waits.remaining(longest), CONNECT_SECONDS)
        if reads:
            if not (watchdog.health.answering or getattr(_PROBING, "active", False)):
                raise StorageError("the database does not answer: a read does not wait to connect")
            left = min(left, MIN_CONNECT_SECONDS)
        if left < MIN_CONNECT_SECONDS:
            raise StorageError(f"no time left to connect to the database ({left:.1f} s)")
        parameters["connect_timeout"] = int(left)
        if not reads:  # the statement timeout it starts with (see _server_gives_up_first)
            record.info["statement_ms"] = _statement_ms(waits.JOB_SECONDS)
            parameters["options"] = f"-c statement_timeout={record.info['statement_ms']}"

    @event.listens_for(engine, "checkout")
    def _arm(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if record.info.pop("cut", False):
            raise DisconnectionError("a connection the watchdog cut")
        deadline = min(waits.deadline_in(longest), waits.now() + longest)
        watchdog.arm(record, deadline, dbapi_connection)
        if not reads:
            _server_gives_up_first(dbapi_connection, record, deadline)

    @event.listens_for(engine, "checkin")
    def _disarm(_dbapi_connection: Any, record: Any) -> None:
        watchdog.disarm(record)


class Engines:
    """A store's connections, bounded (module docstring): the writers' engine and the readers'
    (pools of their own), with the database's :class:`Health` and its probe."""

    def __init__(self, url: str, pool_size: int) -> None:
        self.health = Health()
        self.watchdog = Watchdog(self.health)
        self.writes = self._new_engine(url, pool_size, reads=False)
        self.server = self.writes.dialect.name != "sqlite"
        #: The readers' connections: reads never wait for a connection a writer holds.
        self.reads = (
            self._new_engine(url, READ_POOL_SIZE, reads=True)
            if self.server or sqlite_file(url)
            else self.writes  # a database in memory exists on its own connections only
        )
        #: Single-statement reads and writes need no transaction: one round trip each.
        self.writes_autocommit = self.writes.execution_options(isolation_level="AUTOCOMMIT")
        self.reads_autocommit = self.reads.execution_options(isolation_level="AUTOCOMMIT")
        self._probing = threading.Lock()
        self._last_probe = 0.0

    def _new_engine(self, url: str, pool_size: int, reads: bool) -> Engine:
        options = engine_options(url, reads)
        if not url.startswith("sqlite") or sqlite_file(url):
            # SQLite's default pool keeps 5 connections: the service's 8 threads would open and
            # close extra ones (with their pragmas) under load.
            options["pool_size"], options["max_overflow"] = pool_size, POOL_OVERFLOW
        engine = create_engine(url, json_serializer=json_text, **options)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
            event.listen(engine, "checkout", _sqlite_busy_timeout)
        else:
            bound_connections(engine, self.watchdog, reads)
            ping_idle_connections(engine)
        return engine

    def begin(self, engine: Engine | Connection) -> _Transaction:
        """A transaction that tells :attr:`health` how it went (a database server's: a SQLite
        file is always there)."""
        return _Transaction(engine, self.health if self.server else None)

    def for_reads(self, autocommit: bool = True) -> Engine:
        """The engine a read takes: the readers' connections in the readers' threads
        (:func:`triage.web.waits.is_reader`), so reads never wait for the writers' pool, else the
        writers' own."""
        if waits.is_reader():
            return self.reads_autocommit if autocommit else self.reads
        return self.writes_autocommit if autocommit else self.writes

    def probe(self) -> None:
        """While the database is taken as silent, look at it (``SELECT 1`` on a readers'
        connection, bounded like a read) in a thread of its own, at most one at a time and every
        :data:`PROBE_SECONDS`: if it answers, it is taken as answering again."""
        now = waits.now()
        if (
            self.health.answering
            or now - self._last_probe < PROBE_SECONDS
            or not self._probing.acquire(False)
        ):
            return
        self._last_probe = now
        threading.Thread(target=self._look, name="triage-db-probe", daemon=True).start()

    def _look(self) -> None:
        _PROBING.active = True
        try:
            with waits.until(waits.now() + READ_SECONDS), self.begin(self.reads_autocommit) as connection:
                connection.execute(select(1))
        except StorageError:
            pass
        finally:
            self._probing.release()

    def dispose(self) -> None:
        self.watchdog.close()
        self.writes.dispose()
        self.reads.dispose()


class Store:
    """The tables, seats and actions in a SQL database. Every method raises
    :class:`StorageError` when the database fails, and changes nothing then.

    ``shared``: whether other processes may write the same database (default: PostgreSQL yes,
    SQLite no, as ``triage serve`` runs one process on SQLite); when not, memory is the truth
    and a read needs no version check. ``count_statements`` keeps a :class:`StatementCount`."""

    def __init__(
        self,
        url: str = DEFAULT_DB_URL,
        shared: bool | None = None,
        count_statements: bool = False,
        pool_size: int = POOL_SIZE,
    ) -> None:
        self.url = url
        #: This store's name in its notifications (a process skips its own chat lines).
        self.origin = secrets.token_hex(8)
        self.engines = Engines(url, pool_size)
        self.engine: Engine = self.engines.writes
        self.reads: Engine = self.engines.reads
        self.autocommit = self.engines.writes_autocommit
        self._begin = self.engines.begin
        self._read_engine = self.engines.for_reads
        self.probe = self.engines.probe
        self.notifies = self.engine.dialect.name == "postgresql"
        #: SQLite takes one writer at a time; this process's writers queue here instead (see
        #: :meth:`_writing`).
        self._writer = threading.Lock() if self.engine.dialect.name == "sqlite" else None
        #: The connections of those writers' hot path, in threads and on the event loop (see
        #: :meth:`_held_transaction`), and their commits so far.
        self._held: Connection | None = None
        self._loop_held: Connection | None = None
        self._commits = 0
        self.shared = self.notifies if shared is None else shared
        #: The busy timeout last set on the held SQLite connection (see :meth:`_bound_busy_wait`).
        self._held_busy_ms = round(waits.JOB_SECONDS * 1000)
        Base.metadata.create_all(self.engine)
        _check_schema(self.engines, url)
        if self._writer is not None:  # set up now, not in the first request's statement count
            self._loop_held = _connect_held(self.engine, for_loop=True)
        self.statements = StatementCount(self.engine, self.reads) if count_statements else None

    @property
    def answering(self) -> bool:
        """Whether the database answers, as far as the store knows (a database server that
        stopped answering a call is taken as silent until a call or :meth:`probe` succeeds)."""
        return self.engines.health.answering

    def close(self) -> None:
        for connection in (self._held, self._loop_held):
            if connection is not None:
                connection.close()
        self.engines.dispose()

    @contextmanager
    def _held_transaction(self) -> Iterator[Connection]:
        """A transaction on a connection this process keeps for its SQLite writes (taken under
        :meth:`_writing`, so one thread at a time): no pool checkout per action. A thread's
        writes wait for a busy database (the busy timeout); the event loop's own connection
        never waits (:meth:`without_waiting`). A failed connection is let go; the next write
        opens another."""
        refusing = _refusing()
        connection = self._loop_held if refusing else self._held
        if connection is None:
            connection = _connect_held(self.engine, for_loop=refusing)
            if refusing:
                self._loop_held = connection
            else:
                self._held = connection
        if not refusing:
            self._bound_busy_wait(connection)
        try:
            with self._begin(connection):
                yield connection
        except StorageError as error:
            if refusing and _busy(error):
                raise DatabaseHeld("the database is held by another connection") from error
            raise
        finally:
            if connection.invalidated or connection.closed:  # let it go: the next write reconnects
                if refusing:
                    self._loop_held = None
                else:
                    self._held = None
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY == 0:
            threading.Thread(
                target=_checkpoint, args=(self.autocommit,), name="triage-checkpoint", daemon=True
            ).start()

    def _bound_busy_wait(self, connection: Connection) -> None:
        """SQLite's busy timeout on the held connection: what is left of the thread's deadline
        (set only when it moved by 0.1 s or more, on the driver's connection: no statement
        counted)."""
        wanted = int(waits.remaining() * 10) * 100
        if wanted != self._held_busy_ms:
            connection.connection.dbapi_connection.execute(f"PRAGMA busy_timeout = {wanted}")  # type: ignore[union-attr]
            self._held_busy_ms = wanted

    def write_turn_taken(self) -> bool:
        """Whether a write of this process holds its SQLite write turn now (another would wait)."""
        return self._writer is not None and self._writer.locked()

    @contextmanager
    def without_waiting(self) -> Iterator[None]:
        """Within this block the calling thread (the event loop's) never waits for the database:
        a SQLite write runs on a connection with no busy timeout, the only store work allowed;
        anything else, a busy database or another write under way raises :class:`WouldWait`
        (nothing stored), and the caller does the work in a thread instead. WAL commits do not
        sync to disk, so such a write takes about as long as a write to memory."""
        if self._writer is None:
            raise WouldWait("only SQLite writes may run on the event loop")
        _REFUSING.active = True
        try:
            yield
        finally:
            _REFUSING.active = False

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One write transaction of this process at a time on SQLite, which takes one writer
        at a time anyway: a writer that finds the file locked sleeps in SQLite's busy handler
        (1, 2, 5, 10 ms and more) and tries again, while a writer waiting here starts the moment
        the previous one commits. The wait is bounded by the thread's deadline
        (:class:`StorageError` then, :mod:`triage.web.waits`). A database server orders its
        writers itself."""
        if self._writer is None:
            yield
            return
        if _refusing():
            if not self._writer.acquire(blocking=False):
                raise WouldWait("another write of this process is under way")
        elif not self._writer.acquire(timeout=waits.remaining()):
            raise StorageError(f"database busy: no write finished within {waits.WRITE_SECONDS:g} s")
        try:
            yield
        finally:
            self._writer.release()

    # ------------------------------------------------------------------ writing

    def create_table(
        self,
        table_id: str,
        setup: Setup,
        seed_chosen: bool,
        public: bool,
        seats: list[SeatInfo],
        facts: PositionFacts,
        host: int | None = None,
        rematch_of: str | None = None,
        timing: StoredTiming | None = None,
        settings: TableSettings | None = None,
    ) -> None:
        """Store a new table with its seats and ``settings`` (and its time rules and banks, if
        it has a clock); with ``rematch_of``, in the same transaction, make it that table's
        rematch, only if it has none yet (else :class:`Conflict`: another one was made first)."""
        row = {
            "id": table_id,
            "created": datetime.now(UTC),
            "players": setup["players"],
            "seed": setup["seed"],
            "config": setup["config"],
            "deck": setup["deck"],
            "seed_chosen": seed_chosen,
            "public": public,
            "actions": 0,
            "seats_version": 0,
            "facts": facts,
            "host": host,
            "pace": settings["pace"] if settings else None,
            "spectator_chat": settings["spectator_chat"] if settings else None,
        }
        seat_rows = [{"table_id": table_id, **asdict(info)} for info in seats]
        with self._writing(), self._begin(self.engine) as connection:
            connection.execute(TABLES.insert(), row)
            connection.execute(SEATS.insert(), seat_rows)
            if rematch_of is not None:
                linked = connection.execute(
                    update(TABLES)
                    .where(TABLES.c.id == rematch_of, TABLES.c.rematch.is_(None))
                    .values(rematch=table_id, seats_version=TABLES.c.seats_version + 1)
                )
                if linked.rowcount != 1:
                    raise Conflict(f"table {rematch_of} has its rematch already")
            if timing is not None:
                connection.execute(
                    TIMINGS.insert(), {"table_id": table_id, "rules": timing[0], "state": timing[1]}
                )

    def save_timing(self, table_id: str, rules: StoredRules, state: StoredClocks) -> None:
        """Store a timed table's banks and stand-ins (its row was made with the table)."""
        with self._writing(), self._begin(self.engine) as connection:
            saved = connection.execute(
                update(TIMINGS).where(TIMINGS.c.table_id == table_id).values(rules=rules, state=state)
            )
            if saved.rowcount == 0:
                connection.execute(TIMINGS.insert(), {"table_id": table_id, "rules": rules, "state": state})

    def load_timing(self, table_id: str) -> StoredTiming | None:
        """A table's time rules and stored state, or None for a table without a clock."""
        with self._begin(self._read_engine()) as connection:
            row = connection.execute(
                select(TIMINGS.c.rules, TIMINGS.c.state).where(TIMINGS.c.table_id == table_id)
            ).first()
        return None if row is None else (row.rules, row.state)

    def add_actions(
        self,
        table_id: str,
        start: int,
        entries: list[Step],
        facts: PositionFacts,
        request: str | None = None,
        answer: ActionResult | None = None,
    ) -> None:
        """Commit ``entries`` (``{"by", "do"}``) as actions ``start``, ``start + 1``, ... in one
        transaction; ``request`` and ``answer`` go with the first. Raises :class:`Conflict` if
        the table no longer has ``start`` actions (another process acted first). A Core insert:
        this is the server's hot path."""
        rows: list[ActionInsert] = [
            {
                "table_id": table_id,
                "number": start + offset,
                "by": entry["by"],
                "action": json_text(entry["do"]),
                "request": request if offset == 0 else None,
                "answer": json_text(answer) if offset == 0 and answer is not None else None,
            }
            for offset, entry in enumerate(entries)
        ]
        count = start + len(entries)
        if self.notifies:
            self._add_actions_postgresql(table_id, start, count, entries, rows, facts)
            return
        with self._writing(), self._held_transaction() as connection:
            moved = connection.exec_driver_sql(
                SQLITE_ADVANCE_TABLE, (count, json_text(facts), table_id, start)
            )
            if moved.rowcount != 1:
                raise Conflict(f"table {table_id} no longer has {start} actions")
            connection.exec_driver_sql(SQLITE_INSERT_ACTIONS, [_action_row(row) for row in rows])

    def _add_actions_postgresql(
        self,
        table_id: str,
        start: int,
        count: int,
        entries: list[Step],
        rows: list[ActionInsert],
        facts: PositionFacts,
    ) -> None:
        parameters = {
            "table_id": table_id,
            "start": start,
            "count": count,
            "facts": json_text(facts),
            "rows": json_text(rows),
            "channel": CHANNEL,
            "payload": notice(table_id, start, count, entries),
        }
        with self._begin(self.autocommit) as connection:
            if connection.execute(PG_ADD_ACTIONS, parameters).first() is None:
                raise Conflict(f"table {table_id} no longer has {start} actions")

    def undo_actions(self, table_id: str, keep: int, count: int, facts: PositionFacts) -> None:
        """A seat's undo: delete the actions numbered ``keep`` and after, in one transaction,
        only if the table still has ``count`` actions (else :class:`Conflict`: another process
        acted first); the other processes are told (PostgreSQL), so they replay the table."""
        with self._writing(), self._begin(self.engine) as connection:
            moved = connection.execute(
                update(TABLES)
                .where(TABLES.c.id == table_id, TABLES.c.actions == count)
                .values(actions=keep, facts=facts)
            )
            if moved.rowcount != 1:
                raise Conflict(f"table {table_id} no longer has {count} actions")
            connection.execute(
                delete(ACTIONS).where(ACTIONS.c.table_id == table_id, ACTIONS.c.number >= keep)
            )
            # A hint asked in a position that held an undone action would tell of it (issue 20).
            connection.execute(delete(HINTS).where(HINTS.c.table_id == table_id, HINTS.c.at > keep))
            if self.notifies:
                payload = json.dumps(
                    {"table": table_id, "start": keep, "count": keep, "actions": [], "undone": True}
                )
                connection.execute(select(func.pg_notify(CHANNEL, payload)))

    def claim_seat(
        self, table_id: str, seat: int, token_hash: str, invite_hash: str | None, name: str | None = None
    ) -> int:
        """Give the open ``seat`` a player (``token_hash``, its ``name``), only if it is still open
        and, when ``invite_hash`` is given, still has that invitation. Returns the new seats
        version; raises :class:`Conflict` if the seat was taken meanwhile."""
        conditions = [SEATS.c.table_id == table_id, SEATS.c.seat == seat, SEATS.c.claimed.is_(False)]
        if invite_hash is not None:
            conditions.append(SEATS.c.invite_hash == invite_hash)
        with self._writing(), self._begin(self.engine) as connection:
            taken = connection.execute(
                update(SEATS).where(*conditions).values(token_hash=token_hash, claimed=True, name=name)
            )
            if taken.rowcount != 1:
                raise Conflict(f"seat {seat} of table {table_id} is taken")
            return self._next_seats_version(connection, table_id)

    def fill_seats(self, table_id: str, seats: list[int], bot: str) -> int:
        """Give the open human ``seats`` to the bot ``bot`` (the host starts without waiting), all
        or none: :class:`Conflict` if one was taken meanwhile. Returns the new seats version."""
        with self._begin(self.engine) as connection:
            filled = connection.execute(
                update(SEATS)
                .where(SEATS.c.table_id == table_id, SEATS.c.seat.in_(seats), SEATS.c.claimed.is_(False))
                .values(bot=bot, claimed=True)
            )
            if filled.rowcount != len(seats):
                raise Conflict(f"a seat of table {table_id} was taken meanwhile")
            return self._next_seats_version(connection, table_id)

    @staticmethod
    def _next_seats_version(connection: Connection, table_id: str) -> int:
        """Count a seat change; the new version comes back with the update (no read-back)."""
        return int(
            connection.execute(
                update(TABLES)
                .where(TABLES.c.id == table_id)
                .values(seats_version=TABLES.c.seats_version + 1)
                .returning(TABLES.c.seats_version)
            ).scalar_one()
        )

    # ------------------------------------------------------------------ reading

    def _read(self, read: Callable[[], Read]) -> Read:
        """``read()``, tried once more if it met a connection the database had dropped (a
        restart): reading twice changes nothing."""
        try:
            return read()
        except StorageError as error:
            if not dropped(error) or not self.answering:  # not a restart's: a silent server
                raise
        return read()

    def version(self, table_id: str) -> tuple[int, int] | None:
        """The table's (action count, seats version), or None if there is no such table."""
        return self._read(lambda: self._version(table_id))

    def _version(self, table_id: str) -> tuple[int, int] | None:
        with self._begin(self._read_engine()) as connection:
            row = connection.execute(READ_VERSION, {"at_table": table_id}).first()
        return None if row is None else (int(row[0]), int(row[1]))

    def actions_from(self, table_id: str, start: int) -> list[Step]:
        """The stored actions numbered ``start`` and after, in order."""
        return self._read(lambda: self._actions_from(table_id, start))

    def _actions_from(self, table_id: str, start: int) -> list[Step]:
        with self._begin(self._read_engine()) as connection:
            rows = connection.execute(
                select(ACTIONS.c.by, ACTIONS.c.action)
                .where(ACTIONS.c.table_id == table_id, ACTIONS.c.number >= start)
                .order_by(ACTIONS.c.number)
            ).all()
        return [{"by": by, "do": json.loads(action)} for by, action in rows]

    def seats(self, table_id: str) -> tuple[list[SeatInfo], int]:
        with self._begin(self._read_engine(autocommit=False)) as connection:
            return seats_of(connection, table_id), seats_version_of(connection, table_id)

    def answer_for(self, table_id: str, number: int) -> StoredAnswer | None:
        with self._begin(self._read_engine()) as connection:
            row = connection.execute(
                select(ACTIONS.c.by, ACTIONS.c.action, ACTIONS.c.request, ACTIONS.c.answer).where(
                    ACTIONS.c.table_id == table_id, ACTIONS.c.number == number
                )
            ).first()
        if row is None:
            return None
        return StoredAnswer(
            row.by, json.loads(row.action), row.request, json.loads(row.answer) if row.answer else None
        )

    def load_table(self, table_id: str) -> StoredTable | None:
        return self._read(lambda: self._load_table(table_id))

    def _load_table(self, table_id: str) -> StoredTable | None:
        with self._begin(self._read_engine(autocommit=False)) as connection:
            row = connection.execute(select(TABLES).where(TABLES.c.id == table_id)).first()
            if row is None:
                return None
            seats = seats_of(connection, table_id)
            actions = connection.execute(
                select(ACTIONS.c.by, ACTIONS.c.action)
                .where(ACTIONS.c.table_id == table_id)
                .order_by(ACTIONS.c.number)
            ).all()
            said = chat_lines(connection, table_id)
        return StoredTable(
            id=row.id,
            setup={"players": row.players, "config": row.config, "deck": row.deck, "seed": row.seed},
            seed_chosen=row.seed_chosen,
            public=row.public,
            seats_version=row.seats_version,
            seats=seats,
            actions=[{"by": by, "do": json.loads(action)} for by, action in actions],
            host=row.host,
            rematch=row.rematch,
            settings=stored_settings(row.pace, row.spectator_chat),
            chat=said,
        )

    def links(self, table_id: str) -> tuple[int | None, str | None]:
        """The table's host seat and its rematch's table id (each None when there is none)."""
        with self._begin(self._read_engine()) as connection:
            row = connection.execute(
                select(TABLES.c.host, TABLES.c.rematch).where(TABLES.c.id == table_id)
            ).first()
        return (None, None) if row is None else (row.host, row.rematch)

    def table_ids(self) -> list[str]:
        with self._begin(self._read_engine(autocommit=False)) as connection:
            return list(connection.execute(select(TABLES.c.id).order_by(TABLES.c.created)).scalars())

    def lobby(self, limit: int) -> list[ListedTable]:
        """The latest public tables, newest first, with their stored public facts (no replay)."""
        with self._begin(self._read_engine(autocommit=False)) as connection:
            rows = connection.execute(
                select(
                    TABLES.c.id, TABLES.c.seed_chosen, TABLES.c.facts, TABLES.c.pace, TABLES.c.spectator_chat
                )
                .where(TABLES.c.public.is_(True))
                .order_by(TABLES.c.created.desc())
                .limit(limit)
            ).all()
            seats: dict[str, list[SeatInfo]] = {row.id: [] for row in rows}
            for seat in connection.execute(
                select(SEATS)
                .where(SEATS.c.table_id.in_(list(seats)))
                .order_by(SEATS.c.table_id, SEATS.c.seat)
            ):
                seats[seat.table_id].append(seat_info(seat))
        return [
            listed(
                row.id,
                row.facts,
                seats[row.id],
                row.seed_chosen,
                stored_settings(row.pace, row.spectator_chat),
            )
            for row in rows
        ]

    def add_hint(self, table_id: str, by: int, at: int, action: Action) -> None:
        """Keep a hint given to seat ``by`` at action number ``at`` (the record's ``hints``)."""
        row = {"table_id": table_id, "by": by, "at": at, "action": json_text(action)}
        with self._writing(), self._begin(self.autocommit) as connection:
            connection.execute(HINTS.insert(), row)

    def hints(self, table_id: str) -> list[Hint]:
        """The table's hints in the order they were given, as the record holds them."""
        with self._begin(self._read_engine()) as connection:
            rows = connection.execute(
                select(HINTS.c.by, HINTS.c.at, HINTS.c.action)
                .where(HINTS.c.table_id == table_id)
                .order_by(HINTS.c.id)
            ).all()
        return [{"by": by, "at": at, "do": json.loads(action)} for by, at, action in rows]

    def add_chat(self, table_id: str, line: ChatLine, most: int) -> int | None:
        """Keep a chat line unless the table holds ``most`` already; its id (None: nothing
        stored). On PostgreSQL the other processes are told in the same transaction."""
        with self._writing(), self._begin(self.engine) as connection:
            added = connection.execute(ADD_CHAT_LINE, {**line, "table_id": table_id, "most": most}).first()
            if added is None:
                return None
            if self.notifies:
                payload = json_text({"table": table_id, "chat": line, "id": added.id, "origin": self.origin})
                connection.execute(select(func.pg_notify(CHANNEL, payload)))
        return int(added.id)

    def chat(self, table_id: str) -> list[tuple[int, ChatLine]]:
        """The table's chat lines in the order said, each with its id."""
        with self._begin(self._read_engine()) as connection:
            return chat_lines(connection, table_id)


def _missing_columns(engine: Engine) -> list[Any]:
    return [
        column
        for table in (TABLES, SEATS, ACTIONS)
        for column in table.columns
        if column.name not in {found["name"] for found in inspect(engine).get_columns(table.name)}
    ]


def _check_schema(engines: Engines, url: str) -> None:
    """A database of this version is taken as it is; one of the version before names and the
    waiting room (missing only :data:`ADDED_COLUMNS`, all nullable) gains them: its tables
    never wait and its players have no names. Any other is refused."""
    engine = engines.writes
    missing = _missing_columns(engine)
    added = {(table.name, column.name) for table, column in ADDED_COLUMNS}
    if missing and all((column.table.name, column.name) in added for column in missing):
        with engines.begin(engine) as connection:
            for column in missing:
                kind = column.type.compile(dialect=engine.dialect)
                connection.execute(text(f"ALTER TABLE {column.table.name} ADD COLUMN {column.name} {kind}"))
        missing = _missing_columns(engine)
    if missing:
        names = ", ".join(f"{column.table.name}.{column.name}" for column in missing)
        raise StorageError(
            f"the database {url} was made by an older version of triage (no {names}); "
            "start with a new database"
        )


def seat_info(row: Row[Any]) -> SeatInfo:
    """A seat as a row of the ``seats`` table holds it."""
    return SeatInfo(row.seat, row.bot, row.token_hash, row.claimed, row.invite_hash, row.name)


def seats_of(connection: Connection, table_id: str) -> list[SeatInfo]:
    rows = connection.execute(select(SEATS).where(SEATS.c.table_id == table_id).order_by(SEATS.c.seat))
    return [seat_info(row) for row in rows]


def seats_version_of(connection: Connection, table_id: str) -> int:
    return int(connection.execute(select(TABLES.c.seats_version).where(TABLES.c.id == table_id)).scalar_one())


def chat_lines(connection: Connection, table_id: str) -> list[tuple[int, ChatLine]]:
    rows = connection.execute(CHAT_LINES, {"at_table": table_id}).all()
    return [(row.id, {"by": row.by, "at": row.at, "kind": row.kind, "text": row.text}) for row in rows]


def stored_settings(pace: str | None, spectator_chat: str | None) -> TableSettings:
    """A table's settings as stored (an older table's null columns: the defaults)."""
    return {
        "pace": cast(Pace, pace or "normal"),
        "spectator_chat": cast(SpectatorChat, spectator_chat or "read"),
    }


def seat_facts(seats: list[SeatInfo]) -> list[SeatFacts]:
    """What everyone may know about the seats: who is a bot, which human seats are taken, and
    the players' names (public by choice)."""
    return [
        {
            "seat": info.seat,
            "bot": info.bot,
            "human": info.bot is None,
            "taken": info.claimed,
            "name": info.name,
        }
        for info in seats
    ]


def listed(
    table_id: str, facts: PositionFacts, seats: list[SeatInfo], seed_chosen: bool, settings: TableSettings
) -> ListedTable:
    """A public table as the lobby lists it: its stored facts, who sits where and its settings."""
    return {
        "table_id": table_id,
        **facts,
        "seats": seat_facts(seats),
        "public": True,
        "seed_chosen": seed_chosen,
        "settings": settings,
    }


def _connect_held(engine: Engine, for_loop: bool) -> Connection:
    """A connection a store keeps for its SQLite writes; the loop's never waits on a lock."""
    try:
        connection = engine.connect()
        if for_loop:
            connection.exec_driver_sql("PRAGMA busy_timeout = 0")
            connection.commit()
    except SQLAlchemyError as error:
        raise StorageError(f"database unavailable: {type(error).__name__}") from error
    return connection


def _checkpoint(engine: Engine) -> None:
    """Copy SQLite's write-ahead log into the database file (in a thread, never on the loop)."""
    try:
        with _Transaction(engine) as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
    except StorageError:
        log.warning("the write-ahead log's checkpoint failed; the next one will try again")


def _refusing() -> bool:
    """Whether the current thread refuses to wait for the database."""
    return bool(getattr(_REFUSING, "active", False))


def _busy(error: StorageError) -> bool:
    """Whether a store failure was SQLite finding the database locked by another connection."""
    cause = error.__cause__
    return isinstance(cause, DBAPIError) and any(
        word in str(cause.orig).lower() for word in ("locked", "busy")
    )


def _action_row(row: ActionInsert) -> tuple[str, int, int, str, str | None, str | None]:
    """An action's row in :data:`SQLITE_INSERT_ACTIONS`'s order."""
    return (row["table_id"], row["number"], row["by"], row["action"], row["request"], row["answer"])


@contextmanager
def _begun(connection: Connection) -> Iterator[Connection]:
    """A transaction on an open connection, given as the connection (as ``engine.begin()``)."""
    with connection.begin():
        yield connection


class _Transaction:
    """``engine.begin()`` (or a held connection's ``begin()``) that turns any database failure
    into :class:`StorageError` (a :class:`Conflict` for a broken uniqueness: another process
    stored that row first); refused with :class:`WouldWait` on an engine (a pooled connection
    may wait) while the thread refuses waits. With ``health``, a connection that could not be
    made marks the database silent and a transaction that went through marks it answering."""

    def __init__(self, engine: Engine | Connection, health: Health | None = None) -> None:
        if not isinstance(engine, Connection) and _refusing():
            raise WouldWait("a pooled connection may wait: not on the event loop")
        self.health = health
        self.context: AbstractContextManager[Connection] = (
            _begun(engine) if isinstance(engine, Connection) else engine.begin()  # connects on entering
        )

    def __enter__(self) -> Connection:
        try:
            return self.context.__enter__()
        except (SQLAlchemyError, StorageError) as error:
            if self.health is not None and isinstance(error, StorageError | OperationalError):
                self.health.failed()  # no connection within the bound: the server does not answer
            if isinstance(error, StorageError):
                raise
            raise StorageError(f"database unavailable: {type(error).__name__}") from error

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            self.context.__exit__(kind, error, trace)
        except IntegrityError as failure:
            raise Conflict(f"another writer stored it first: {type(failure).__name__}") from failure
        except SQLAlchemyError as failure:
            raise StorageError(f"the database refused the write: {type(failure).__name__}") from failure
        if isinstance(error, IntegrityError):
            raise Conflict("another writer stored it first") from error
        if isinstance(error, SQLAlchemyError):
            raise StorageError(f"the database failed: {type(error).__name__}") from error
        if error is None and self.health is not None:
            self.health.answered()
