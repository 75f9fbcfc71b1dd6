"""Live updates over a WebSocket, with limits: what a client must send, and how far it may lag.

A client sends one first message, ``{"token": TOKEN}`` for a seat or ``{"spectate": true}``,
within :data:`FIRST_MESSAGE_SECONDS`; the server answers ``hello`` and then one ``update`` per
stored action. Each client has its own queue of at most :data:`QUEUE_LIMIT` messages: a client
that does not read fast enough is closed (1013, "try again later") rather than buffered without
end; reconnecting gives it a fresh ``hello``. Close codes (docs/web.md lists them):

- 1003: a binary frame (this socket speaks JSON text);
- 1007: a text frame that is not bounded JSON, or a first message that is not an object;
- 1009: a frame larger than :data:`~triage.web.limits.MAX_WS_MESSAGE` bytes;
- 1013: the client fell :data:`QUEUE_LIMIT` messages behind (or the server asks it to reconnect);
- 4000 + HTTP status: a refusal sent first as ``{"type": "error", "code", "message"}`` (4401 no
  token, 4403 wrong token, 4404 unknown table, 4408 no first message in time, 4429 a spectator
  over its rate).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any, TypedDict, cast

from starlette.websockets import WebSocket, WebSocketDisconnect

from triage.web.errors import WebError
from triage.web.limits import MAX_WS_MESSAGE, BodyProblem, RateLimits, check_json
from triage.web.live_table import LiveTable, Subscriber
from triage.web.payloads import hello
from triage.web.seats import seat_for_token
from triage.web.tables import TableService

#: Seconds a new socket has to send its first message.
FIRST_MESSAGE_SECONDS = 10.0
#: Seconds one send may wait for the client to take data before the client counts as gone.
SEND_SECONDS = 10.0

CLOSE_BINARY = 1003
CLOSE_NOT_JSON = 1007
CLOSE_TOO_BIG = 1009


class Refusal(Exception):
    """Close the socket with ``code`` and ``reason`` (sending an error message first for the
    4000-range refusals, which have an error code)."""

    def __init__(self, code: int, reason: str, error: str | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.error = error


def _reason(text: str) -> str:
    """A close reason fits in 123 bytes of UTF-8 (RFC 6455 section 5.5)."""
    encoded = text.encode()
    return text if len(encoded) <= 123 else encoded[:120].decode(errors="ignore") + "..."


def read_frame(message: Mapping[str, Any]) -> Any:
    """The JSON value of a client's frame, or :class:`Refusal` saying what is wrong with it."""
    if message.get("bytes") is not None:
        raise Refusal(CLOSE_BINARY, "binary frames are not accepted: send JSON text")
    text = message.get("text")
    if text is None:
        raise Refusal(CLOSE_NOT_JSON, "an empty frame: send JSON text")
    if len(text) > MAX_WS_MESSAGE:
        raise Refusal(CLOSE_TOO_BIG, f"a message of more than {MAX_WS_MESSAGE} characters")
    try:
        return check_json(text.encode())
    except BodyProblem as problem:
        raise Refusal(CLOSE_NOT_JSON, str(problem).replace("the body", "the message")) from None


class FirstMessage(TypedDict, total=False):
    """What the server reads of a client's first message, a JSON object as the client sent it:
    each value is checked before use (a seat's ``token``, ``spectate`` true, ``live`` true)."""

    token: object
    spectate: object
    live: object


async def first_message(websocket: WebSocket, seconds: float) -> FirstMessage:
    try:
        message = await asyncio.wait_for(websocket.receive(), seconds)
    except TimeoutError:
        raise Refusal(
            4408,
            f"no first message within {seconds:g} s",
            "timeout",
        ) from None
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    first = read_frame(message)
    if not isinstance(first, dict):
        raise Refusal(CLOSE_NOT_JSON, 'the first message must be {"token": ...} or {"spectate": true}')
    return cast(FirstMessage, first)  # the JSON as sent: seat_of checks each value it reads


def seat_of(table: LiveTable, first: FirstMessage) -> int | None:
    """The seat the first message names by its token, or None for a spectator."""
    token = first.get("token")
    if isinstance(token, str) and token:
        return seat_for_token(table, token)
    if first.get("spectate") is True:
        return None
    raise WebError(401, "unauthorized", 'send {"token": TOKEN} for a seat or {"spectate": true}')


async def close(websocket: WebSocket, code: int, reason: str) -> None:
    """Close, unless the client cannot even take the close frame in time."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(websocket.close(code=code, reason=_reason(reason)), SEND_SECONDS)


async def serve_socket(
    websocket: WebSocket,
    service: TableService,
    table_id: str,
    first_seconds: float = FIRST_MESSAGE_SECONDS,
    rates: RateLimits | None = None,
) -> None:
    """One client's socket, from its first message to its close. A spectator's hello (the
    whole game's log, without a token) counts against the ``watch`` rate of ``rates``."""
    await websocket.accept()
    loop = asyncio.get_running_loop()
    client = websocket.client.host if websocket.client else "unknown"

    def subscribe(table: LiveTable, first: FirstMessage) -> tuple[LiveTable, Subscriber]:
        # Under the table's lock, on the table in memory now (it may have left memory while the
        # first message was awaited): the hello and the updates after it come in order.
        seat = seat_of(table, first)
        if seat is None and rates is not None:
            rates.hit("watch", client)
        subscriber = table.subscribe(seat, loop)
        subscriber.live = first.get("live") is True
        subscriber.deliver(hello(table, subscriber.seat))
        service.timekeeper.joined(table, subscriber)  # presence and clocks, after the hello
        return table, subscriber

    try:
        await service.load(table_id)  # an unknown table is refused before the first message
        first = await first_message(websocket, first_seconds)
        table, subscriber = await service.on_table(table_id, lambda live: subscribe(live, first))
    except WebError as error:
        await _refuse(websocket, 4000 + error.status, error.message, error.code)
        return
    except Refusal as refusal:
        await _refuse(websocket, refusal.code, refusal.reason, refusal.error)
        return
    except WebSocketDisconnect:
        return
    try:
        await _pump(websocket, subscriber)
    finally:
        table.unsubscribe(subscriber)
        service.timekeeper.left(table, subscriber)  # no await: the task may be cancelled here


async def _refuse(websocket: WebSocket, code: int, reason: str, error: str | None) -> None:
    if error is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                websocket.send_json({"type": "error", "code": error, "message": reason}), SEND_SECONDS
            )
    await close(websocket, code, reason)


async def _pump(websocket: WebSocket, subscriber: Subscriber) -> None:
    """Send the subscriber's queue while reading the client, until one of them ends."""
    sender = asyncio.create_task(_send_all(websocket, subscriber))
    reader = asyncio.create_task(_read_client(websocket))
    closing = asyncio.create_task(subscriber.closing.wait())
    try:
        done, _ = await asyncio.wait({sender, reader, closing}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sender, reader, closing):
            task.cancel()
    if closing in done:
        await close(websocket, subscriber.close_code, subscriber.close_reason)
    elif reader in done and not reader.cancelled() and reader.exception() is None:
        refused = reader.result()
        if refused is not None:
            await close(websocket, *refused)


async def _send_all(websocket: WebSocket, subscriber: Subscriber) -> None:
    """Send queued messages in order; a send that waits more than :data:`SEND_SECONDS` for the
    client ends the socket (the client is gone or stuck)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, TimeoutError, OSError):
        while True:
            text = await subscriber.queue.get()
            await asyncio.wait_for(websocket.send_text(text), SEND_SECONDS)


async def _read_client(websocket: WebSocket) -> tuple[int, str] | None:
    """Read what the client sends after its first message (nothing is expected): JSON text is
    ignored; a binary or non-JSON frame ends the socket with its close code; None when the
    client goes away."""
    while True:
        try:
            message = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return None
        if message["type"] == "websocket.disconnect":
            return None
        try:
            read_frame(message)
        except Refusal as refusal:
            return refusal.code, refusal.reason
