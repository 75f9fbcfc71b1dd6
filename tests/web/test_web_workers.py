"""Several server processes on one PostgreSQL database (issue reproductions: stale positions,
one seat given to two people, WebSockets missing actions taken on another process).

Two ``triage serve`` processes (A and B, each on its own port, as two workers behind one
address would be) share the scratch database named by ``TRIAGE_TEST_POSTGRES_URL``; the tests
choose which process each request goes to.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

URL = os.environ.get("TRIAGE_TEST_POSTGRES_URL")
if not URL:
    pytest.skip(
        "set TRIAGE_TEST_POSTGRES_URL to a scratch PostgreSQL database to run these", allow_module_level=True
    )

from websockets.sync.client import connect

from triage.engine.choices import sample
from triage.engine.records import replay
from triage.web.loadtest import free_port, start_server
from triage.web.storage import Store


class Server:
    def __init__(self, workers: int = 1) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] = start_server(URL or "", self.port, workers=workers)
        self.url = f"http://127.0.0.1:{self.port}"
        self.http = httpx.Client(base_url=self.url, timeout=20)

    def stop(self) -> None:
        self.http.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    a, b = Server(), Server()
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def legal(server: Server, table_id: str, token: str) -> dict[str, Any]:
    response = server.http.get(f"/api/tables/{table_id}/legal", headers=auth(token))
    assert response.status_code == 200, response.text
    return response.json()


def take_turn(
    server: Server, table_id: str, tokens: dict[int, str], rng: random.Random
) -> dict[str, Any] | None:
    """One random legal action of whoever's decision it is, sent to ``server``; its answer."""
    for token in tokens.values():
        seen = legal(server, table_id, token)
        if seen["choices"]:
            body = {"action": sample(rng.choice(seen["choices"]), rng), "expected": seen["actions"]}
            response = server.http.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)
            assert response.status_code == 200, response.text
            return response.json()
    return None


def new_table(server: Server, **body: Any) -> tuple[str, dict[int, str], dict[str, Any]]:
    response = server.http.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    return created["table_id"], {entry["seat"]: entry["token"] for entry in created["seats"]}, created


def test_every_request_sees_the_committed_position_on_either_process(servers: tuple[Server, Server]) -> None:
    a, b = servers
    table_id, tokens, _ = new_table(a, players=2, seed=41)
    rng = random.Random(0)
    for turn in range(30):
        acting, other = (a, b) if turn % 2 == 0 else (b, a)
        answer = take_turn(acting, table_id, tokens, rng)
        assert answer is not None
        shown = []
        for token in tokens.values():
            mine = acting.http.get(f"/api/tables/{table_id}/view", headers=auth(token)).json()
            theirs = other.http.get(f"/api/tables/{table_id}/view", headers=auth(token)).json()
            assert mine == theirs
            shown.append(theirs["actions"])
        # The seat that acted sees its action; the other is shown the sealed point, which holds
        # back what the acting seat may still undo (triage.web.sealing): the same on both.
        assert max(shown) == answer["actions"]
        public = other.http.get(f"/api/tables/{table_id}").json()["actions"]
        assert public == acting.http.get(f"/api/tables/{table_id}").json()["actions"] == min(shown)


def test_a_stale_action_on_the_other_process_is_refused_not_applied(servers: tuple[Server, Server]) -> None:
    a, b = servers
    table_id, tokens, _ = new_table(a, players=1, seed=43)
    seen = legal(b, table_id, tokens[0])  # B holds the table at action 0
    body = {"action": sample(seen["choices"][0], random.Random(1)), "expected": seen["actions"]}
    assert (
        a.http.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=body).status_code == 200
    )
    other = {"action": sample(seen["choices"][-1], random.Random(2)), "expected": seen["actions"]}
    if other["action"] != body["action"]:
        stale = b.http.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=other)
        assert stale.status_code == 409 and stale.json() == {
            **stale.json(),
            "code": "stale_action",
            "actions": 1,
        }
    repeat = b.http.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=body)
    assert repeat.status_code == 200 and repeat.json()["number"] == 0  # the original answer, from B


def test_no_seat_is_given_twice_when_both_processes_are_asked_at_once(servers: tuple[Server, Server]) -> None:
    a, b = servers
    for _ in range(5):
        table_id, _, created = new_table(a, players=2, public=True, creator_seats=[0])
        b.http.get(f"/api/tables/{table_id}")  # both processes hold the table with seat 1 open
        code = created["invites"][0]["code"]
        results: list[int] = []
        start = threading.Barrier(4)

        def join(
            server: Server,
            body: dict[str, Any],
            start: threading.Barrier = start,
            results: list[int] = results,
            table_id: str = table_id,
        ) -> None:
            start.wait()
            with httpx.Client(base_url=server.url, timeout=20) as client:
                results.append(client.post(f"/api/tables/{table_id}/join", json=body).status_code)

        threads = [
            threading.Thread(target=join, args=(server, body))
            for server in (a, b)
            for body in ({"invite": code}, {})
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert min(results) == 200 and results.count(200) == 1, results


def test_every_websocket_gets_every_update_in_order_whichever_process_took_it(
    servers: tuple[Server, Server],
) -> None:
    a, b = servers
    table_id, tokens, _ = new_table(a, players=3, bots=[None, "random", None], seed=47)
    received: dict[str, list[int]] = {}
    sockets = []
    stack = contextlib.ExitStack()
    for name, server, hello in (
        ("A seat 0", a, {"token": tokens[0]}),
        ("B seat 2", b, {"token": tokens[2]}),
        ("A spectator", a, {"spectate": True}),
        ("B spectator", b, {"spectate": True}),
    ):
        socket = stack.enter_context(connect(f"ws://127.0.0.1:{server.port}/api/tables/{table_id}/ws"))
        socket.send(json.dumps(hello))
        first = json.loads(socket.recv(timeout=20))
        assert first["type"] == "hello", first
        received[name] = list(range(first["actions"]))
        sockets.append((name, socket))
    rng = random.Random(5)
    final = 0
    for _ in range(25):  # every action through A: B's subscribers hear of them only by NOTIFY
        answer = take_turn(a, table_id, tokens, rng)
        if answer is None:
            break
        final = answer["actions"]
    # Each is shown every action it may see, in order: an update each, or one hello for actions
    # a seat held back while it could undo them (triage.web.sealing); a seat's socket sees its
    # own actions, a spectator the sealed point.
    seen = {
        "A seat 0": a.http.get(f"/api/tables/{table_id}/view", headers=auth(tokens[0])).json()["actions"],
        "B seat 2": b.http.get(f"/api/tables/{table_id}/view", headers=auth(tokens[2])).json()["actions"],
        "A spectator": a.http.get(f"/api/tables/{table_id}").json()["actions"],
        "B spectator": b.http.get(f"/api/tables/{table_id}").json()["actions"],
    }
    assert max(seen.values()) == final and min(seen.values()) > 0
    try:
        for name, socket in sockets:
            while len(received[name]) < seen[name]:
                message = json.loads(socket.recv(timeout=20))
                if message["type"] == "update":
                    assert message["number"] == len(received[name]), name
                    received[name].append(message["number"])
                elif message["type"] == "hello":
                    assert message["actions"] >= len(received[name]), name
                    received[name] = list(range(message["actions"]))
            assert received[name] == list(range(seen[name])), name
    finally:
        stack.close()


def test_killing_one_process_loses_no_acknowledged_action(servers: tuple[Server, Server]) -> None:
    a, b = servers
    tables = [new_table(a, players=2, seed=50 + number)[:2] for number in range(4)]
    acked: dict[str, int] = {table_id: 0 for table_id, _ in tables}
    stop = threading.Event()

    def client(table_id: str, tokens: dict[int, str], seed: int) -> None:
        rng = random.Random(seed)
        servers_in_turn = [a, b]
        with httpx.Client(timeout=10) as http:
            turn = 0
            while not stop.is_set() and turn < 400:
                server = servers_in_turn[turn % 2] if a.process.poll() is None else b
                turn += 1
                try:
                    for token in tokens.values():
                        seen = http.get(
                            f"{server.url}/api/tables/{table_id}/legal", headers=auth(token)
                        ).json()
                        if seen.get("choices"):
                            body = {
                                "action": sample(rng.choice(seen["choices"]), rng),
                                "expected": seen["actions"],
                            }
                            answer = http.post(
                                f"{server.url}/api/tables/{table_id}/actions", headers=auth(token), json=body
                            )
                            if answer.status_code == 200:
                                acked[table_id] = max(acked[table_id], answer.json()["actions"])
                            break
                    else:
                        return
                except (httpx.HTTPError, ValueError):
                    continue  # the killed process: go on with the other

    workers = [
        threading.Thread(target=client, args=(table_id, tokens, n))
        for n, (table_id, tokens) in enumerate(tables)
    ]
    for worker in workers:
        worker.start()
    while sum(acked.values()) < 40:
        threading.Event().wait(0.05)
    a.process.send_signal(signal.SIGKILL)
    a.process.wait(10)
    threading.Event().wait(1.0)
    stop.set()
    for worker in workers:
        worker.join(60)
    store = Store(URL or "")
    try:
        for table_id, tokens in tables:
            stored = store.load_table(table_id)
            assert stored is not None and len(stored.actions) >= acked[table_id] > 0
            game = replay(stored.record())
            # Asked of the seat that acted last: another seat's view withholds that action while
            # it may still be undone (issue 20, triage.web.sealing), so it may count one fewer.
            last_seat = stored.actions[-1]["by"]
            view = b.http.get(f"/api/tables/{table_id}/view", headers=auth(tokens[last_seat])).json()
            assert view["actions"] == len(game.history) == len(stored.actions)
    finally:
        store.close()


def test_serve_with_two_workers_survives_kill_9_of_a_worker_and_loses_no_acknowledged_action() -> None:
    """``triage serve --workers 2``: kill -9 one worker mid-game; the client retries each
    unanswered request as it was (idempotent), and every acknowledged action is stored once."""
    import psutil

    server = Server(workers=2)
    try:
        table_id, tokens, _ = new_table(server, players=1, seed=3)
        children = psutil.Process(server.process.pid).children(recursive=True)
        workers = [child for child in children if "spawn_main" in " ".join(child.cmdline())]
        assert len(workers) >= 2, [child.cmdline() for child in children]
        rng = random.Random(3)
        acked: list[dict[str, Any]] = []
        for step in range(40):
            if step == 15:
                workers[0].send_signal(signal.SIGKILL)
            body = None
            for _attempt in range(20):
                try:
                    with httpx.Client(
                        base_url=server.url, timeout=20
                    ) as fresh:  # a new connection: either worker
                        if body is None:
                            seen = fresh.get(f"/api/tables/{table_id}/legal", headers=auth(tokens[0])).json()
                            if not seen["choices"]:
                                break
                            body = {
                                "action": sample(rng.choice(seen["choices"]), rng),
                                "expected": seen["actions"],
                            }
                        answer = fresh.post(
                            f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=body
                        )
                        assert answer.status_code == 200, answer.text
                        acked.append(answer.json())
                        break
                except httpx.TransportError:
                    threading.Event().wait(0.2)  # the killed worker's connection: send it again
        assert len(acked) > 16  # actions answered after the kill
        store = Store(URL or "")
        try:
            stored = store.load_table(table_id)
        finally:
            store.close()
        assert stored is not None
        assert (
            [answer["number"] for answer in acked]
            == list(range(len(acked)))
            == list(range(len(stored.actions)))
        )
    finally:
        server.stop()


def test_serve_refuses_several_workers_on_sqlite(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from triage.cli import app

    result = CliRunner().invoke(app, ["serve", "--workers", "2", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 2 and "needs PostgreSQL" in result.output and "LISTEN/NOTIFY" in result.output


def test_the_load_benchmark_compares_one_and_two_workers_in_one_run() -> None:
    from typer.testing import CliRunner

    from triage.cli import app

    command = ["loadtest", "--db", URL or "", "--workers", "1,2", "--tables", "3", "--seconds", "1.5"]
    result = CliRunner().invoke(app, [*command, "--think", "0", "--ramp", "0.1", "--json"])
    assert result.exit_code == 0, result.output
    runs = json.loads(result.output)
    assert [run["workers"] for run in runs] == [1, 2]
    assert all(run["errors"] == 0 and run["actions"] > 5 for run in runs), runs
    text = CliRunner().invoke(app, [*command, "--think", "0", "--ramp", "0.1"])
    assert "3 tables, 2 workers against 1: actions/s x" in text.output and ", p99 x" in text.output


def shown_in_order(messages: list[dict[str, Any]], start: int = 0) -> int:
    """How many actions ``messages`` have shown, checking they come in order: an update each, or
    a hello for the actions a seat held back while it could undo them (triage.web.sealing)."""
    shown = start
    for message in messages:
        if message["type"] == "update":
            assert message["number"] == shown, message["number"]
            shown += 1
        elif message["type"] == "hello":
            assert message["actions"] >= shown
            shown = message["actions"]
    return shown


def test_a_process_whose_listening_connection_dropped_catches_up_its_websockets(
    servers: tuple[Server, Server],
) -> None:
    import psycopg

    from triage.web.notify import libpq_url

    a, b = servers
    table_id, tokens, _ = new_table(a, players=1, seed=59)
    with connect(f"ws://127.0.0.1:{b.port}/api/tables/{table_id}/ws") as socket:
        socket.send(json.dumps({"spectate": True}))
        assert json.loads(socket.recv(timeout=20))["type"] == "hello"
        with psycopg.connect(libpq_url(URL or ""), autocommit=True) as admin:
            dropped = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN triage_tables%'"
            ).fetchall()
        assert len(dropped) >= 2  # both processes' listeners
        # Said and taken on A while B may not listen: those notifications are lost to B.
        said = [f"line {n}" for n in range(2)]
        for text in said:
            posted = a.http.post(
                f"/api/tables/{table_id}/chat",
                headers=auth(tokens[0]),
                json={"text": text},
            )
            assert posted.status_code == 200, posted.text
        rng = random.Random(9)
        final = 0
        for _ in range(3):
            answer = take_turn(a, table_id, tokens, rng)
            assert answer is not None
            final = answer["actions"]
        sealed = b.http.get(f"/api/tables/{table_id}").json()["actions"]  # what a spectator may see
        assert 0 < sealed <= final
        messages: list[dict[str, Any]] = []
        heard: list[str] = []
        while shown_in_order(messages) < sealed or len(heard) < len(said):
            messages.append(json.loads(socket.recv(timeout=20)))
            if messages[-1]["type"] == "chat":
                heard.append(messages[-1]["line"]["text"])
        assert heard == said  # each line once, in order (issue 39)


def test_a_game_played_through_two_hosts_is_one_truth_and_their_websockets_follow_it_alike(
    servers: tuple[Server, Server],
) -> None:
    """Two hosts behind a proxy that sends each request anywhere: a whole game with a server bot,
    each read and each action to a host drawn at random (never reading first where it writes).
    Every WebSocket, on either host, sees the stored actions in order and ends on the view both
    hosts answer; the stored record replays to the position both hosts hold."""
    a, b = servers
    table_id, tokens, _ = new_table(a, players=3, bots=[None, "greedy", None], seed=61)
    rng = random.Random(61)
    stack = contextlib.ExitStack()
    watchers: list[tuple[str, Any, int | None, list[dict[str, Any]]]] = []
    for name, server, seat in (
        ("B seat 0", b, 0),
        ("A seat 2", a, 2),
        ("A watch", a, None),
        ("B watch", b, None),
    ):
        socket = stack.enter_context(connect(f"ws://127.0.0.1:{server.port}/api/tables/{table_id}/ws"))
        socket.send(json.dumps({"spectate": True} if seat is None else {"token": tokens[seat]}))
        hello = json.loads(socket.recv(timeout=20))
        assert hello["type"] == "hello" and hello["actions"] == 0, name
        watchers.append((name, socket, seat, [hello]))
    over = False
    with stack:
        for _ in range(400):
            reader, writer = rng.choice([(a, b), (b, a), (a, a), (b, b)])
            seat = next((seat for seat in tokens if legal(reader, table_id, tokens[seat])["choices"]), None)
            if seat is None:  # the game is over, or a bot moves on the server after an answer
                over = reader.http.get(f"/api/tables/{table_id}").json()["over"]
                if over:
                    break
                threading.Event().wait(0.05)
                continue
            seen = legal(reader, table_id, tokens[seat])
            body = {"action": sample(rng.choice(seen["choices"]), rng), "expected": seen["actions"]}
            answer = writer.http.post(
                f"/api/tables/{table_id}/actions", headers=auth(tokens[seat]), json=body
            )
            assert answer.status_code == 200, answer.text
        final = b.http.get(f"/api/tables/{table_id}").json()["actions"]
        for name, socket, _seat, messages in watchers:
            while shown_in_order(messages[1:], messages[0]["actions"]) < final:
                messages.append(json.loads(socket.recv(timeout=20)))
    assert over and final > 20
    store = Store(URL or "")
    try:
        stored = store.load_table(table_id)
    finally:
        store.close()
    assert stored is not None and len(stored.actions) == final
    game = replay(stored.record())
    for name, _socket, seat, messages in watchers:
        updates = [m for m in messages[1:] if m["type"] == "update"]
        assert all({"by": m["by"], "do": m["action"]} == stored.actions[m["number"]] for m in updates), name
        for server in (a, b):
            if seat is None:
                now = server.http.get(f"/api/tables/{table_id}/public").json()
                assert now.pop("actions") == final
            else:
                now = server.http.get(f"/api/tables/{table_id}/view", headers=auth(tokens[seat])).json()
                assert now.pop("actions") == final
                now.pop("undo")  # how far the seat may undo (issue 20), beside its view
            assert messages[-1]["view"] == now, (name, server.port)
    for server in (a, b):
        facts = server.http.get(f"/api/tables/{table_id}").json()
        assert facts["over"] and facts["actions"] == final and facts["scores"] == game.scores()
