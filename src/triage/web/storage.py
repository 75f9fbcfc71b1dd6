"""Durable storage of tables (SQLAlchemy): SQLite by default, any SQLAlchemy URL otherwise.

A table is stored as what makes it reproducible (D1): its setup (players, configuration, deck,
seed), its seats, and the list of accepted actions. The position itself is never stored: it is
replayed from those, so a restarted server resumes every table exactly. Each accepted action is
committed in its own transaction before the server acknowledges it.

Seat tokens are stored as SHA-256 digests only, so the database alone cannot act for a seat.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
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
    event,
    select,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from triage.web import DEFAULT_DB_URL


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    players: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    config: Mapped[Any] = mapped_column(JSON)
    deck: Mapped[Any] = mapped_column(JSON)
    #: Whether the creator chose the seed (then the creator could work out the deal).
    seed_chosen: Mapped[bool] = mapped_column(Boolean, default=False)


class SeatRow(Base):
    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed: Mapped[bool] = mapped_column(Boolean, default=False)


class ActionRow(Base):
    __tablename__ = "actions"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    by: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)


ACTIONS = ActionRow.__table__


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class SeatInfo:
    seat: int
    bot: str | None
    token_hash: str | None
    claimed: bool


@dataclass
class StoredTable:
    """Everything stored about one table: enough to replay it."""

    id: str
    players: int
    seed: int
    config: dict[str, Any]
    deck: list[dict[str, Any]]
    seed_chosen: bool
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


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets readers and the writer overlap; a committed transaction survives a killed
    process (synchronous NORMAL only risks the last commits on a power cut)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class Store:
    """The tables, seats and actions in a SQL database."""

    def __init__(self, url: str = DEFAULT_DB_URL) -> None:
        self.url = url
        self.engine: Engine = create_engine(url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        Base.metadata.create_all(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()

    def create_table(
        self,
        table_id: str,
        setup: dict[str, Any],
        seed_chosen: bool,
        seats: list[SeatInfo],
    ) -> None:
        with self.sessions.begin() as session:
            session.add(
                TableRow(
                    id=table_id,
                    created=datetime.now(UTC),
                    players=setup["players"],
                    seed=setup["seed"],
                    config=setup["config"],
                    deck=setup["deck"],
                    seed_chosen=seed_chosen,
                )
            )
            session.flush()
            for info in seats:
                session.add(
                    SeatRow(
                        table_id=table_id,
                        seat=info.seat,
                        bot=info.bot,
                        token_hash=info.token_hash,
                        claimed=info.claimed,
                    )
                )

    def add_action(self, table_id: str, number: int, by: int, action: dict[str, Any]) -> None:
        """Commit one accepted action; returns only once it is durable. (A Core insert: this is
        the server's hot path, and the ORM's unit of work would double its cost.)"""
        with self.engine.begin() as connection:
            connection.execute(
                ACTIONS.insert(), {"table_id": table_id, "number": number, "by": by, "action": json.dumps(action)}
            )

    def update_seat(self, table_id: str, seat: int, token_hash: str | None, claimed: bool) -> None:
        with self.sessions.begin() as session:
            row = session.get(SeatRow, (table_id, seat))
            if row is None:
                raise KeyError(f"no seat {seat} at table {table_id}")
            row.token_hash = token_hash
            row.claimed = claimed

    def load_table(self, table_id: str) -> StoredTable | None:
        with self.sessions() as session:
            row = session.get(TableRow, table_id)
            if row is None:
                return None
            return self._stored(session, row)

    def table_ids(self) -> list[str]:
        with self.sessions() as session:
            return list(session.scalars(select(TableRow.id).order_by(TableRow.created)))

    @staticmethod
    def _stored(session: Session, row: TableRow) -> StoredTable:
        seats = session.scalars(select(SeatRow).where(SeatRow.table_id == row.id).order_by(SeatRow.seat))
        actions = session.scalars(
            select(ActionRow).where(ActionRow.table_id == row.id).order_by(ActionRow.number)
        )
        return StoredTable(
            id=row.id,
            players=row.players,
            seed=row.seed,
            config=row.config,
            deck=row.deck,
            seed_chosen=row.seed_chosen,
            seats=[SeatInfo(s.seat, s.bot, s.token_hash, s.claimed) for s in seats],
            actions=[{"by": a.by, "do": json.loads(a.action)} for a in actions],
        )
