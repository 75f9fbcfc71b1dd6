"""Slow clients (issue 22, point 5): connections that trickle their headers or their body, or send
nothing at all, are answered 408 and closed once ``--header-timeout``/``--body-timeout`` pass,
while a prompt client is served as usual (docs/web.md, "Slow clients")."""

from __future__ import annotations

import pickle
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest
from web_server import serve, stop

from triage.web.server import GuardedHttpTools, ServerConfig

#: Connections of each kind the script opens (three kinds).
SLOW_CLIENTS = 150
#: The server's deadlines in these tests, in seconds.
TIMEOUT = 1.0

OPENINGS = {
    "silent": b"",
    "headers": b"GET /api/bots HTTP/1.1\r\nHost: triage\r\n",
    "body": (
        b"POST /api/tables HTTP/1.1\r\nHost: triage\r\nContent-Type: application/json\r\n"
        b"Content-Length: 60000\r\n\r\n{"
    ),
}
#: What each kind sends every tick: one more header byte, one more body byte, nothing.
TRICKLES = {"silent": b"", "headers": b"X", "body": b" "}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, str]]:
    timeouts = ["--header-timeout", str(TIMEOUT), "--body-timeout", str(TIMEOUT)]
    process, url = serve(tmp_path / "tables.db", *timeouts)
    try:
        yield process.pid, url
    finally:
        stop(process)


def open_slow_clients(port: int, count: int) -> dict[socket.socket, str]:
    clients: dict[socket.socket, str] = {}
    for kind, opening in OPENINGS.items():
        for _ in range(count):
            client = socket.create_connection(("127.0.0.1", port), timeout=5)
            client.setblocking(False)
            if opening:
                client.sendall(opening)
            clients[client] = kind
    return clients


def trickle(clients: dict[socket.socket, str], seconds: float, tick: float = 0.2) -> dict[str, list[bytes]]:
    """Send each open client's next byte every ``tick`` for ``seconds``; what each kind of client
    received before the server closed it (a client still open is in ``clients`` after)."""
    answers: dict[str, list[bytes]] = {kind: [] for kind in OPENINGS}
    received: dict[socket.socket, bytes] = {client: b"" for client in clients}
    deadline = time.monotonic() + seconds
    while clients and time.monotonic() < deadline:
        readable, _, _ = select.select(list(clients), [], [], tick)
        for client in readable:
            try:
                data = client.recv(4096)
            except ConnectionError:
                data = b""
            received[client] += data
            if not data:
                answers[clients.pop(client)].append(received[client])
                client.close()
        for client, kind in list(clients.items()):
            try:
                client.send(TRICKLES[kind])
            except (BlockingIOError, ConnectionError):
                pass
    return answers


def established(pid: int, port: int) -> int:
    """The server's open TCP connections on its port."""
    connections = psutil.Process(pid).net_connections(kind="tcp")
    return sum(1 for c in connections if c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port)


def test_slow_clients_are_answered_408_and_closed(server: tuple[int, str]) -> None:
    pid, url = server
    port = int(url.rsplit(":", 1)[1])
    clients = open_slow_clients(port, SLOW_CLIENTS)
    # A prompt client is served while the slow ones trickle.
    assert httpx.get(f"{url}/api/bots", timeout=5).status_code == 200
    started = time.monotonic()
    answers = trickle(clients, seconds=TIMEOUT + 4)
    left = len(clients)
    for client in clients:
        client.close()
    assert left == 0, f"{left} slow connections still open {time.monotonic() - started:.1f} s later"
    for kind, received in answers.items():
        assert len(received) == SLOW_CLIENTS, kind
        assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in received), (kind, received[:1])
        assert all(b'"code": "request_timeout"' in answer for answer in received), kind
    assert established(pid, port) == 0
    assert httpx.get(f"{url}/api/bots", timeout=5).status_code == 200


def read_answer(client: socket.socket) -> bytes:
    """One whole answer (headers and a body of its Content-Length) from ``client``."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += client.recv(4096)
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        int(line.split(b":")[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    while len(body) < length:
        body += client.recv(4096)
    return head


def test_a_kept_alive_connection_may_wait_between_requests(server: tuple[int, str]) -> None:
    """The deadlines run while a request is read, not while a kept-alive connection waits between
    requests (uvicorn's keep-alive timeout, 5 s, does that)."""
    _pid, url = server
    port = int(url.rsplit(":", 1)[1])
    request = b"GET /api/bots HTTP/1.1\r\nHost: triage\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        for _ in range(2):
            client.sendall(request)
            assert read_answer(client).startswith(b"HTTP/1.1 200 ")
            time.sleep(TIMEOUT * 1.5)
        client.sendall(request[:20])
        time.sleep(TIMEOUT / 2)
        client.sendall(request[20:])
        assert read_answer(client).startswith(b"HTTP/1.1 200 ")


def test_each_worker_process_gets_the_deadlines() -> None:
    """``--workers N`` hands the configuration to each process pickled: the deadlines and the
    guarded protocol go with it."""
    config = ServerConfig(
        "triage.web.app:create_app_from_env", factory=True, workers=2, header_timeout=3.0, body_timeout=4.0
    )
    copy = pickle.loads(pickle.dumps(config))
    assert (copy.header_timeout, copy.body_timeout, copy.http) == (3.0, 4.0, GuardedHttpTools)
