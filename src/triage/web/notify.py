"""Live updates across server processes: PostgreSQL ``LISTEN``/``NOTIFY`` (psycopg 3).

Each commit of actions sends ``NOTIFY triage_tables`` in its transaction (delivered only once
committed), with a JSON payload: the table, the first action's number, the new count and the
actions themselves when they fit in a notification. Every process listens on one connection of
its own: for a table it holds in memory it takes in the new actions (read from the database when
the payload lacks them or the process is further behind) and sends them on to its WebSocket
subscribers, in order. A process that lost the connection catches up every table it
holds when it is back (notifications sent meanwhile are gone). No extra server is needed.

A chat line is announced the same way (``{"table", "chat", "id", "origin"}``): every other
process keeps it and sends it to its clients that read the chat; the storing process skips its
own, and a line whose id a process holds (read again while catching up) is not said twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from sqlalchemy.engine import make_url

from triage.web.chat import catch_up_chat, said
from triage.web.errors import WebError
from triage.web.storage import CHANNEL, CONNECT_SECONDS
from triage.web.tables import TableService

log = logging.getLogger("triage.web")

#: Seconds between attempts to listen again after the connection was lost.
RETRY = 1.0


def libpq_url(url: str) -> str:
    """The psycopg connection string of a SQLAlchemy ``postgresql+psycopg://`` URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def on_notice(service: TableService, payload: str) -> None:
    """Committed actions: if this process holds the table and is behind, take them in (from the
    payload when it carries them, else from the database)."""
    try:
        notice = json.loads(payload)
        table_id = notice["table"]
        if "chat" in notice:
            line, line_id = notice["chat"], int(notice["id"])
        else:
            start, count, entries = notice["start"], notice["count"], notice["actions"]
    except (ValueError, KeyError, TypeError):
        log.warning("a notification that is not one of ours: %.80r", payload)
        return
    table = service.live.get(table_id)
    if table is None:
        return
    try:
        if "chat" in notice:  # a chat line another process stored (this one's own: sent already)
            if notice.get("origin") != service.store.origin:
                with table.writer():
                    said(table, line, line_id)
            return
        if notice.get("undone"):  # a seat's undo took actions back: replay the table from the store
            service.rebuild(table)
            return
        service.take_in(table, start, count, entries)
    except WebError as error:
        log.warning("table %s: could not catch up after a notification: %s", table_id, error.message)


def catch_up_all(service: TableService) -> None:
    """Every table held: the actions and the chat lines stored while this process was not
    listening."""
    for table in list(service.live.values()):
        with contextlib.suppress(WebError):
            service.refresh(table)
            catch_up_chat(service.store, table)


async def listen(service: TableService, url: str, ready: asyncio.Event | None = None) -> None:
    """Listen for committed changes until cancelled, reconnecting when the connection drops."""
    import psycopg

    first = True
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(
                libpq_url(url), autocommit=True, connect_timeout=max(1, round(CONNECT_SECONDS))
            ) as connection:
                await connection.execute(f"LISTEN {CHANNEL}")
                if not first:
                    await service.run(catch_up_all, service)
                first = False
                if ready is not None:
                    ready.set()
                async for notice in connection.notifies():
                    # In a thread: taking the actions in may read the database. One at a time, in order.
                    await service.run(on_notice, service, notice.payload)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - any connection failure: listen again
            log.warning("listening for table changes failed (%s); again in %.0f s", error, RETRY)
            await asyncio.sleep(RETRY)


#: Seconds a starting process waits for its listening connection before serving anyway.
READY_TIMEOUT = 10.0


async def start(service: TableService) -> asyncio.Task[None] | None:
    """The listener task when the store is PostgreSQL (None otherwise: one process only),
    once it listens, so that the process serves no WebSocket that could miss an update."""
    if not service.store.notifies:
        return None
    ready = asyncio.Event()
    task = asyncio.create_task(listen(service, service.store.url, ready), name="triage-notify")
    try:
        await asyncio.wait_for(ready.wait(), READY_TIMEOUT)
    except TimeoutError:
        log.warning("not yet listening for table changes after %.0f s; serving meanwhile", READY_TIMEOUT)
    return task
