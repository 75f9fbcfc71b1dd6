"""WebSocket limits (docs/web.md, "Live updates"): what a client must send and how far it may lag.

A client that sends a binary or non-JSON frame, or nothing, is closed with a code saying why; a
client that does not read is closed (1013) once its bounded queue is full, rather than buffered
without end; and each update is built once per seat and once for all spectators.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import UNLIMITED
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_helpers import create, play_random, service_of, tokens_of

from triage.web import live_table, payloads
from triage.web.app import create_app
from triage.web.limits import RateLimits


def closed(socket: Any) -> WebSocketDisconnect:
    """The close the server sends next (after any error message)."""
    with pytest.raises(WebSocketDisconnect) as closing:
        while True:
            socket.receive_text()
    return closing.value


def spectate(client: TestClient, table_id: str) -> Any:
    return client.websocket_connect(f"/api/tables/{table_id}/ws")


@pytest.mark.parametrize(
    ("send", "code", "reason"),
    [
        (lambda socket: socket.send_bytes(b'{"spectate": true}'), 1003, "binary"),
        (lambda socket: socket.send_text("spectate please"), 1007, "not JSON"),
        (lambda socket: socket.send_text("[1, 2]"), 1007, "first message must be"),
        (lambda socket: socket.send_text('{"token": "' + "x" * 5000 + '"}'), 1009, "4096"),
    ],
)
def test_a_bad_first_frame_is_closed_with_a_code(
    client: TestClient, send: Any, code: int, reason: str
) -> None:
    table_id = create(client, players=2, seed=1)["table_id"]
    with spectate(client, table_id) as socket:
        send(socket)
        close = closed(socket)
    assert close.code == code and reason in close.reason
    assert service_of(client).get(table_id).subscribers == []


def test_a_socket_that_sends_nothing_is_closed_after_the_timeout(client: TestClient) -> None:
    client.app.state.first_message_seconds = 0.2
    table_id = create(client, players=2, seed=1)["table_id"]
    with spectate(client, table_id) as socket:
        error = socket.receive_json()
        close = closed(socket)
    assert error["type"] == "error" and error["code"] == "timeout"
    assert close.code == 4408 and "no first message within 0.2 s" in close.reason


def test_a_binary_frame_after_the_hello_closes_the_socket(client: TestClient) -> None:
    table_id = create(client, players=2, seed=1)["table_id"]
    with spectate(client, table_id) as socket:
        socket.send_json({"spectate": True})
        assert socket.receive_json()["type"] == "hello"
        socket.send_text('{"still": "json"}')  # JSON text is read and ignored
        socket.send_bytes(b"\x00\x01")
        close = closed(socket)
    assert close.code == 1003


class StalledClient:
    """ASGI wrapper: WebSocket sends after the first never complete, as when a client stops
    reading and the connection's buffers are full; closes still go through."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state
        self.stalled: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        sent = 0

        async def stalling(message: Any) -> None:
            nonlocal sent
            if message["type"] == "websocket.send":
                sent += 1
                if sent > 1:
                    self.stalled.append(message["text"])
                    await asyncio.Event().wait()  # never set: cancelled when the server gives up
            await send(message)

        await self.app(scope, receive, stalling)


@pytest.fixture
def stalled(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, StalledClient]]:
    monkeypatch.setattr(live_table, "QUEUE_LIMIT", 5)
    wrapper = StalledClient(create_app(db_url, RateLimits(create=UNLIMITED, act=UNLIMITED, watch=UNLIMITED)))
    with TestClient(wrapper) as client:
        yield client, wrapper


def test_a_client_that_does_not_read_is_closed_once_its_queue_is_full(
    stalled: tuple[TestClient, StalledClient],
) -> None:
    client, wrapper = stalled
    created = create(client, players=2, seed=5)
    table_id = created["table_id"]
    with spectate(client, table_id) as socket:
        socket.send_json({"spectate": True})
        assert socket.receive_json()["type"] == "hello"
        played = play_random(client, table_id, tokens_of(created), steps=12)
        close = closed(socket)
    assert played == 12
    assert close.code == 1013 and "too slow" in close.reason
    # One message was being sent when the client stalled, five waited: nothing more was kept.
    assert len(wrapper.stalled) == 1
    assert service_of(client).get(table_id).subscribers == []


def test_an_update_is_built_once_per_seat_and_once_for_all_spectators(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = create(client, players=2, seed=7)
    table_id, tokens = created["table_id"], tokens_of(created)
    service = service_of(client)
    table = service.get(table_id)
    spectators = [table.subscribe(None) for _ in range(200)]
    seats = [table.subscribe(seat) for seat in (0, 1, 0)]
    built: list[Any] = []
    original = payloads.message_for

    def counting(*args: Any, **kwargs: Any) -> dict[str, Any]:
        built.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(payloads, "message_for", counting)
    assert play_random(client, table_id, tokens, steps=1) == 1
    assert sorted(built, key=str) == [0, 1, None]
    messages = [subscriber.queue.get_nowait() for subscriber in spectators]
    assert all(message is messages[0] for message in messages)  # one encoded text for all
    assert seats[0].queue.get_nowait() is seats[2].queue.get_nowait()
    assert '"seat": null' in messages[0] and '"choices": []' in messages[0]
