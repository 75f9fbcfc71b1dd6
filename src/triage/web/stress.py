"""Stress checks of the web service's limits, each against a reference measured in the same run.

``python -m triage.web.stress refusals``: the expensive requests of the service's issue (start
holdings of 300 with a deck needing 300 healing, 1,000 rounds, a 200,000-card deck) and how
fast each is refused.

``python -m triage.web.stress bots [--tables 10]``: ``GET /api/bots`` latency while that many
all-bot 4-seat tables at the limits play, against the same request on the idle server.

``python -m triage.web.stress spectators [--spectators 500]``: ``POST /actions`` latency on a
table watched by that many WebSocket spectators (reading in another process), against the same
game with none.

``python -m triage.web.stress slow [--spectators 3]``: the server's memory while a 4-seat table at
the limits is played to its end over HTTP, watched by that many spectators that never read,
against the same game unwatched.

Each starts ``triage serve`` on a free port of 127.0.0.1 with a fresh SQLite file and stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Required, TypedDict

import httpx

from triage.engine.choices import sample
from triage.web.limits import MAX_CARD_VALUES, MAX_INCOME, MAX_START
from triage.web.loadtest import free_port, percentile, start_server

if TYPE_CHECKING:
    from triage.web.schemas import CardFields, ConfigFields

#: A configuration and deck at the limits: the most work a table may ask for.
LIMIT_CONFIG: ConfigFields = {
    "rounds": 12,
    "arrivals": 4,
    "end_on_zero_quality": False,
    "start": dict(MAX_START),
    "income": {"diagnostics": MAX_INCOME, "healing": MAX_INCOME},
}
#: The same for four seats: with 12 rounds the length check refuses it (a game could pass the
#: 5,000 actions a table holds, triage.engine.length); 7 rounds is the most it accepts (8 until
#: the 4-player seats started with more Credits and a cheaper Staff, Change 6).
LIMIT_CONFIG_4P: ConfigFields = {**LIMIT_CONFIG, "rounds": 7}
LIMIT_DECK: list[CardFields] = [
    {
        "id": f"C{number}",
        "kind": "non_severe",
        "diagnosis": MAX_CARD_VALUES["diagnosis"],
        "healing": MAX_CARD_VALUES["healing"],
        "credits": MAX_CARD_VALUES["credits"],
        "vp": MAX_CARD_VALUES["vp"],
    }
    for number in range(200)
]


@asynccontextmanager
async def server_process() -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    with tempfile.TemporaryDirectory(prefix="triage-stress-") as folder:
        port = free_port()
        process = start_server(f"sqlite:///{Path(folder) / 'tables.db'}", port)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
                yield client, process
        finally:
            process.terminate()
            process.wait(10)


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values):.1f} ms, p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms"


async def timed(
    client: httpx.AsyncClient, method: str, path: str, **options: Any
) -> tuple[httpx.Response, float]:
    start = time.perf_counter()
    response = await client.request(method, path, **options)
    return response, (time.perf_counter() - start) * 1000


class TableBody(TypedDict, total=False):
    """The parts of a ``POST /api/tables`` body this tool sends (triage.web.schemas.TableRequest)."""

    players: Required[int]
    bots: list[str | None]
    seed: int
    config: ConfigFields
    deck: list[CardFields]


async def new_table(client: httpx.AsyncClient, body: TableBody) -> tuple[str, dict[int, str]]:
    """A new table's id and the token of each of its seats."""
    created = (await client.post("/api/tables", json=body)).json()
    return created["table_id"], {entry["seat"]: entry["token"] for entry in created["seats"]}


async def play_turn(
    client: httpx.AsyncClient, table_id: str, tokens: dict[int, str], turn: int, rng: random.Random
) -> tuple[int | None, float]:
    """The seat's action, at random among its choices: the next turn and the action's milliseconds."""
    headers = {"Authorization": f"Bearer {tokens[turn]}"}
    legal = (await client.get(f"/api/tables/{table_id}/legal", headers=headers)).json()
    action = sample(rng.choice(legal["choices"]), rng)
    path = f"/api/tables/{table_id}/actions"
    response, ms = await timed(client, "POST", path, headers=headers, json=action)
    return response.json()["turn"], ms


async def spectate(port: Any, table_id: str, **options: Any) -> Any:
    """A spectator's WebSocket on the table."""
    from websockets.asyncio.client import connect

    socket = await connect(f"ws://127.0.0.1:{port}/api/tables/{table_id}/ws", max_size=None, **options)
    await socket.send(json.dumps({"spectate": True}))
    return socket


async def refusals() -> None:
    big = {"staff": 300, "congress": 300, "healing": 300, "diagnostics": 300}
    critical = [{"id": f"C{n}", "kind": "critical", "healing": 300, "credits": 1, "vp": 1} for n in range(40)]
    cases = {
        "start holdings 300, critical deck with healing 300": {
            "players": 1,
            "config": {"start": big},
            "deck": critical,
        },
        "1,000 rounds, all bots": {"players": 2, "bots": ["random", "random"], "config": {"rounds": 1000}},
        "a deck of 200,000 cards": {
            "players": 2,
            "deck": [
                {"id": f"C{n}", "kind": "critical", "healing": 3, "credits": 1, "vp": 1}
                for n in range(200_000)
            ],
        },
    }
    async with server_process() as (client, _process):
        await client.get("/api/bots")
        for name, body in cases.items():
            content = json.dumps(body).encode()
            response, ms = await timed(
                client, "POST", "/api/tables", content=content, headers={"content-type": "application/json"}
            )
            answer = response.json()
            print(
                f"{name} ({len(content) / 1e6:.2f} MB): {response.status_code} {answer['code']} in {ms:.0f} ms: "
                f"{answer['message']}"
            )


async def bots(tables: int) -> None:
    async with server_process() as (client, _process):
        idle = [(await timed(client, "GET", "/api/bots"))[1] for _ in range(100)]
        ids = []
        for seed in range(tables):
            body = {
                "players": 4,
                "bots": ["random"] * 4,
                "config": LIMIT_CONFIG_4P,
                "deck": LIMIT_DECK,
                "seed": seed,
            }
            response, _ = await timed(client, "POST", "/api/tables", json=body)
            ids.append(response.json()["table_id"])
        busy: list[float] = []
        started = time.perf_counter()
        while True:
            busy.append((await timed(client, "GET", "/api/bots"))[1])
            await asyncio.sleep(0.01)
            if len(busy) % 20 == 0:
                facts = [(await client.get(f"/api/tables/{table_id}")).json() for table_id in ids]
                if all(fact["over"] for fact in facts):
                    break
        played = time.perf_counter() - started
        print(f"GET /api/bots, idle server: {summary(idle)}")
        print(
            f"GET /api/bots while {tables} all-bot tables at the limits play ({sum(f['actions'] for f in facts)} "
            f"actions in {played:.1f} s): {summary(busy)}; median ratio to idle "
            f"{statistics.median(busy) / statistics.median(idle):.1f}"
        )


async def watch(port: int, table_id: str, count: int) -> None:
    """The spectators' process: ``count`` sockets reading along until SIGTERM."""
    from websockets.exceptions import ConnectionClosed

    received = [0] * count

    async def read(socket: Any, index: int) -> None:
        try:
            async for _ in socket:
                received[index] += 1
        except (ConnectionClosed, OSError):  # the server closed or the run ended
            return

    sockets = [await spectate(port, table_id) for _ in range(count)]
    readers = [asyncio.create_task(read(socket, index)) for index, socket in enumerate(sockets)]
    await asyncio.sleep(1)
    print("ready", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    for reader in readers:
        reader.cancel()
    print(min(received), flush=True)


async def one_game(client: httpx.AsyncClient, spectators: int, seed: int) -> tuple[list[float], int]:
    table_id, tokens = await new_table(client, {"players": 2, "seed": seed})
    watcher = None
    if spectators:
        port = str(client.base_url.port)
        watcher = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "triage.web.stress",
            "watch",
            port,
            table_id,
            str(spectators),
            stdout=asyncio.subprocess.PIPE,
        )
        assert watcher.stdout is not None
        await watcher.stdout.readline()  # ready
    rng = random.Random(seed)
    latency: list[float] = []
    turn: int | None = 0
    while turn is not None:
        turn, ms = await play_turn(client, table_id, tokens, turn, rng)
        latency.append(ms)
        await asyncio.sleep(0.02)
    got = 0
    if watcher is not None:
        await asyncio.sleep(2)
        watcher.terminate()
        out, _ = await asyncio.wait_for(watcher.communicate(), 30)
        got = int(out.split()[-1])
    return latency, got


async def spectators(count: int) -> None:
    async with server_process() as (client, _process):
        for watching in (0, count, 0, count):
            latency, got = await one_game(client, watching, 11)
            print(
                f"{watching:4} spectators: {len(latency)} actions, POST /actions {summary(latency)}"
                + (f"; every spectator got {got} messages or more" if watching else "")
            )


async def slow(count: int) -> None:
    import psutil

    async with server_process() as (client, process):
        memory = psutil.Process(process.pid)
        for watching in (0, count):
            body: TableBody = {
                "players": 4,
                "bots": [None] * 4,
                "seed": 3,
                "config": LIMIT_CONFIG_4P,
                "deck": LIMIT_DECK[:60],
            }
            table_id, tokens = await new_table(client, body)
            # max_queue=1: the client stops reading after one message
            sockets = [await spectate(client.base_url.port, table_id, max_queue=1) for _ in range(watching)]
            before = peak = memory.memory_info().rss
            rng = random.Random(1)
            turn: int | None = 0
            actions = 0
            while turn is not None:
                turn, _ = await play_turn(client, table_id, tokens, turn, rng)
                actions += 1
                if actions % 25 == 0:
                    peak = max(peak, memory.memory_info().rss)
            for socket in sockets:
                await socket.close()
            print(
                f"{watching} spectators that never read, {actions} actions: server memory {before / 2**20:.0f} MB "
                f"before, peak {max(peak, memory.memory_info().rss) / 2**20:.0f} MB"
            )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m triage.web.stress", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("refusals")
    commands.add_parser("bots").add_argument("--tables", type=int, default=10)
    commands.add_parser("spectators").add_argument("--spectators", type=int, default=500)
    commands.add_parser("slow").add_argument("--spectators", type=int, default=3)
    watcher = commands.add_parser("watch")
    for name, kind in (("port", int), ("table_id", str), ("count", int)):
        watcher.add_argument(name, type=kind)
    args = parser.parse_args()
    if args.command == "refusals":
        asyncio.run(refusals())
    elif args.command == "bots":
        asyncio.run(bots(args.tables))
    elif args.command == "spectators":
        asyncio.run(spectators(args.spectators))
    elif args.command == "slow":
        asyncio.run(slow(args.spectators))
    else:
        asyncio.run(watch(args.port, args.table_id, args.count))


if __name__ == "__main__":
    main()
