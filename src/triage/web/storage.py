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
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    delete,
    event,
    func,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from triage.web import DEFAULT_DB_URL

#: The PostgreSQL channel on which committed actions are announced to every server process.
CHANNEL = "triage_tables"
#: Seconds one statement may run or wait for a lock (SQLite's busy timeout, PostgreSQL's
#: statement_timeout) before it fails with :class:`StorageError`: a stuck database costs a 503,
#: never a request that hangs.
STATEMENT_SECONDS = 5.0
#: Seconds to open a connection (PostgreSQL's connect_timeout) or to wait for a free one in the pool.
CONNECT_SECONDS = 5.0


class StorageError(Exception):
    """The database could not do what was asked: nothing of the request was stored."""


class Conflict(Exception):
    """Another writer changed the table first: the write was not made."""


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


class SeatRow(Base):
    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    invite_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed: Mapped[bool] = mapped_column(Boolean, default=False)


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


TABLES = Base.metadata.tables[TableRow.__tablename__]
SEATS = Base.metadata.tables[SeatRow.__tablename__]
ACTIONS = Base.metadata.tables[ActionRow.__tablename__]


#: PostgreSQL refuses a notification payload of 8,000 bytes or more.
MAX_NOTICE = 7900


def notice(table_id: str, start: int, count: int, entries: list[dict[str, Any]]) -> str:
    """The payload announcing stored actions: with the actions when they fit, so that the
    other processes need not read them back."""
    payload = json.dumps({"table": table_id, "start": start, "count": count, "actions": entries})
    if len(payload.encode()) <= MAX_NOTICE:
        return payload
    return json.dumps({"table": table_id, "start": start, "count": count, "actions": None})


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


@dataclass
class StoredTable:
    """Everything stored about one table: enough to replay it."""

    id: str
    players: int
    seed: int
    config: dict[str, Any]
    deck: list[dict[str, Any]]
    seed_chosen: bool
    public: bool
    seats_version: int
    seats: list[SeatInfo]
    actions: list[dict[str, Any]]

    def record(self) -> dict[str, Any]:
        """The game record (triage.engine.records format) of the stored table."""
        return {
            "format": "triage.record/1",
            "players": self.players,
            "config": self.config,
            "deck": self.deck,
            "seed": self.seed,
            "actions": [dict(entry) for entry in self.actions],
        }


@dataclass
class StoredAnswer:
    """A stored seat's action with the request and answer that went with it."""

    by: int
    action: dict[str, Any]
    request: str | None
    answer: dict[str, Any] | None


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets readers and the writer overlap; a committed transaction survives a killed
    process (synchronous NORMAL only risks the last commits on a power cut)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class StatementCount:
    """What a store sends its database, counted by SQLAlchemy's events: each statement by its
    first word, and each transaction's ``BEGIN`` and ``COMMIT``/``ROLLBACK`` outside autocommit
    (a round trip each on PostgreSQL). Statements per action are deterministic where latency is
    not: the regression test and ``triage loadtest`` read them."""

    def __init__(self, engine: Engine) -> None:
        self.kinds: Counter[str] = Counter()
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


def engine_options(url: str) -> dict[str, Any]:
    """Timeouts on every connection, and a liveness check of a pooled connection before it is
    used (``pool_pre_ping``), so that connections dropped by a database restart are replaced
    instead of failing the next request."""
    driver = make_url(url).get_backend_name()
    options: dict[str, Any] = {"pool_pre_ping": True}
    if driver == "sqlite":
        options["connect_args"] = {"timeout": STATEMENT_SECONDS}
    elif driver == "postgresql":
        options["pool_timeout"] = CONNECT_SECONDS
        options["connect_args"] = {
            "connect_timeout": max(1, round(CONNECT_SECONDS)),
            "options": f"-c statement_timeout={round(STATEMENT_SECONDS * 1000)}",
        }
    return options


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
        options = engine_options(url)
        if not url.startswith("sqlite"):
            options.update(pool_size=pool_size, max_overflow=POOL_OVERFLOW)
        self.engine: Engine = create_engine(url, **options)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.notifies = self.engine.dialect.name == "postgresql"
        self.shared = self.notifies if shared is None else shared
        #: Single-statement reads and writes need no transaction: one round trip each.
        self.autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        Base.metadata.create_all(self.engine)
        self._check_schema()
        self.statements = StatementCount(self.engine) if count_statements else None

    def _check_schema(self) -> None:
        missing = [
            f"{table.name}.{column.name}"
            for table in (TABLES, SEATS, ACTIONS)
            for column in table.columns
            if column.name not in {found["name"] for found in inspect(self.engine).get_columns(table.name)}
        ]
        if missing:
            raise StorageError(
                f"the database {self.url} was made by an older version of triage (no {', '.join(missing)}); "
                "start with a new database"
            )

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ writing

    def create_table(
        self,
        table_id: str,
        setup: dict[str, Any],
        seed_chosen: bool,
        public: bool,
        seats: list[SeatInfo],
        facts: dict[str, Any],
    ) -> None:
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
        }
        seat_rows = [{"table_id": table_id, **asdict(info)} for info in seats]
        with _Transaction(self.engine) as connection:
            connection.execute(TABLES.insert(), row)
            connection.execute(SEATS.insert(), seat_rows)

    def add_actions(
        self,
        table_id: str,
        start: int,
        entries: list[dict[str, Any]],
        facts: dict[str, Any],
        request: str | None = None,
        answer: dict[str, Any] | None = None,
    ) -> None:
        """Commit ``entries`` (``{"by", "do"}``) as actions ``start``, ``start + 1``, ... in one
        transaction; ``request`` and ``answer`` go with the first. Raises :class:`Conflict` if
        the table no longer has ``start`` actions (another process acted first). A Core insert:
        this is the server's hot path."""
        rows = [
            {
                "table_id": table_id,
                "number": start + offset,
                "by": entry["by"],
                "action": json.dumps(entry["do"]),
                "request": request if offset == 0 else None,
                "answer": json.dumps(answer) if offset == 0 and answer is not None else None,
            }
            for offset, entry in enumerate(entries)
        ]
        count = start + len(entries)
        if self.notifies:
            self._add_actions_postgresql(table_id, start, count, entries, rows, facts)
            return
        with _Transaction(self.engine) as connection:
            moved = connection.execute(
                update(TABLES)
                .where(TABLES.c.id == table_id, TABLES.c.actions == start)
                .values(actions=count, facts=facts)
            )
            if moved.rowcount != 1:
                raise Conflict(f"table {table_id} no longer has {start} actions")
            connection.execute(ACTIONS.insert(), rows)

    def _add_actions_postgresql(
        self,
        table_id: str,
        start: int,
        count: int,
        entries: list[dict[str, Any]],
        rows: list[dict[str, Any]],
        facts: dict[str, Any],
    ) -> None:
        parameters = {
            "table_id": table_id,
            "start": start,
            "count": count,
            "facts": json.dumps(facts),
            "rows": json.dumps(rows),
            "channel": CHANNEL,
            "payload": notice(table_id, start, count, entries),
        }
        with _Transaction(self.autocommit) as connection:
            if connection.execute(PG_ADD_ACTIONS, parameters).first() is None:
                raise Conflict(f"table {table_id} no longer has {start} actions")

    def undo_actions(self, table_id: str, keep: int, count: int, facts: dict[str, Any]) -> None:
        """A seat's undo: delete the actions numbered ``keep`` and after, in one transaction,
        only if the table still has ``count`` actions (else :class:`Conflict`: another process
        acted first); the other processes are told (PostgreSQL), so they replay the table."""
        with _Transaction(self.engine) as connection:
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
            if self.notifies:
                payload = json.dumps(
                    {"table": table_id, "start": keep, "count": keep, "actions": [], "undone": True}
                )
                connection.execute(select(func.pg_notify(CHANNEL, payload)))

    def claim_seat(self, table_id: str, seat: int, token_hash: str, invite_hash: str | None) -> int:
        """Give the open ``seat`` a player (``token_hash``), only if it is still open and, when
        ``invite_hash`` is given, still has that invitation. Returns the new seats version;
        raises :class:`Conflict` if the seat was taken meanwhile."""
        conditions = [SEATS.c.table_id == table_id, SEATS.c.seat == seat, SEATS.c.claimed.is_(False)]
        if invite_hash is not None:
            conditions.append(SEATS.c.invite_hash == invite_hash)
        with _Transaction(self.engine) as connection:
            taken = connection.execute(
                update(SEATS).where(*conditions).values(token_hash=token_hash, claimed=True)
            )
            if taken.rowcount != 1:
                raise Conflict(f"seat {seat} of table {table_id} is taken")
            # The new version comes back with the update (no read-back).
            return int(
                connection.execute(
                    update(TABLES)
                    .where(TABLES.c.id == table_id)
                    .values(seats_version=TABLES.c.seats_version + 1)
                    .returning(TABLES.c.seats_version)
                ).scalar_one()
            )

    # ------------------------------------------------------------------ reading

    def version(self, table_id: str) -> tuple[int, int] | None:
        """The table's (action count, seats version), or None if there is no such table."""
        with _Transaction(self.autocommit) as connection:
            row = connection.execute(
                select(TABLES.c.actions, TABLES.c.seats_version).where(TABLES.c.id == table_id)
            ).first()
        return None if row is None else (int(row[0]), int(row[1]))

    def actions_from(self, table_id: str, start: int) -> list[dict[str, Any]]:
        """The stored actions numbered ``start`` and after, in order."""
        with _Transaction(self.autocommit) as connection:
            rows = connection.execute(
                select(ACTIONS.c.by, ACTIONS.c.action)
                .where(ACTIONS.c.table_id == table_id, ACTIONS.c.number >= start)
                .order_by(ACTIONS.c.number)
            ).all()
        return [{"by": by, "do": json.loads(action)} for by, action in rows]

    def seats(self, table_id: str) -> tuple[list[SeatInfo], int]:
        with _Transaction(self.engine) as connection:
            return self._seats(connection, table_id), self._seats_version(connection, table_id)

    def answer_for(self, table_id: str, number: int) -> StoredAnswer | None:
        with _Transaction(self.autocommit) as connection:
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
        with _Transaction(self.engine) as connection:
            row = connection.execute(select(TABLES).where(TABLES.c.id == table_id)).first()
            if row is None:
                return None
            seats = self._seats(connection, table_id)
            actions = connection.execute(
                select(ACTIONS.c.by, ACTIONS.c.action)
                .where(ACTIONS.c.table_id == table_id)
                .order_by(ACTIONS.c.number)
            ).all()
        return StoredTable(
            id=row.id,
            players=row.players,
            seed=row.seed,
            config=row.config,
            deck=row.deck,
            seed_chosen=row.seed_chosen,
            public=row.public,
            seats_version=row.seats_version,
            seats=seats,
            actions=[{"by": by, "do": json.loads(action)} for by, action in actions],
        )

    def table_ids(self) -> list[str]:
        with _Transaction(self.engine) as connection:
            return list(connection.execute(select(TABLES.c.id).order_by(TABLES.c.created)).scalars())

    def lobby(self, limit: int) -> list[dict[str, Any]]:
        """The latest public tables, newest first, with their stored public facts (no replay)."""
        with _Transaction(self.engine) as connection:
            rows = connection.execute(
                select(TABLES.c.id, TABLES.c.seed_chosen, TABLES.c.facts)
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
                seats[seat.table_id].append(
                    SeatInfo(seat.seat, seat.bot, seat.token_hash, seat.claimed, seat.invite_hash)
                )
        return [
            {
                "table_id": row.id,
                **row.facts,
                "seats": seat_facts(seats[row.id]),
                "public": True,
                "seed_chosen": row.seed_chosen,
            }
            for row in rows
        ]

    @staticmethod
    def _seats(connection: Connection, table_id: str) -> list[SeatInfo]:
        rows = connection.execute(
            select(SEATS).where(SEATS.c.table_id == table_id).order_by(SEATS.c.seat)
        ).all()
        return [SeatInfo(row.seat, row.bot, row.token_hash, row.claimed, row.invite_hash) for row in rows]

    @staticmethod
    def _seats_version(connection: Connection, table_id: str) -> int:
        return int(
            connection.execute(select(TABLES.c.seats_version).where(TABLES.c.id == table_id)).scalar_one()
        )


def seat_facts(seats: list[SeatInfo]) -> list[dict[str, Any]]:
    """What everyone may know about the seats: who is a bot, which human seats are taken."""
    return [
        {"seat": info.seat, "bot": info.bot, "human": info.bot is None, "taken": info.claimed}
        for info in seats
    ]


class _Transaction:
    """``engine.begin()`` that turns any database failure into :class:`StorageError` (a
    :class:`Conflict` for a broken uniqueness: another process stored that row first)."""

    def __init__(self, engine: Engine) -> None:
        self.context: AbstractContextManager[Connection] = engine.begin()  # connects on entering

    def __enter__(self) -> Connection:
        try:
            return self.context.__enter__()
        except SQLAlchemyError as error:
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
