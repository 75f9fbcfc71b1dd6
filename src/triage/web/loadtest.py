"""Load benchmark of the web app: many tables of bots playing at once over loopback HTTP.

It starts ``triage serve`` (``--workers N`` processes) in a child process on a free port of
127.0.0.1 with a fresh SQLite file (or ``db``), opens ``tables`` tables and keeps that many games
running (a finished table is replaced by a new one) for ``seconds``; the tables arrive evenly
over the first ``ramp`` seconds. Table ``i`` has ``players[i % len(players)]`` seats played by
random-bot clients over the HTTP API and, when ``bots[i % len(bots)]`` names a bot level, one
more seat played by that bot on the server; ``spectators`` WebSocket spectators watch each table.

Each client asks ``/legal`` for the seat whose decision it is, draws an action within a random
choice (``triage.engine.choices.sample``), waits a think time (exponential, mean ``think``
seconds: 0 means as fast as possible) and posts it with the action number it saw (idempotent:
a request whose answer was lost is sent again as it was). It reports the latency of ``POST
/actions`` (every one is committed before it is answered) overall and for the worst table, of
``GET /legal``, the server's memory (resident set size of all its processes, sampled every half
second) and CPU time, and the statements the server sent its database per action (each server
process counts them and writes the count when it stops: :data:`triage.web.app.STATEMENTS_ENV`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import aiohttp
import httpx
import psutil

from triage.engine.choices import sample
from triage.web.answers import CreatedTable


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


#: Every client of the benchmark (and of the tests) comes from 127.0.0.1: the servers they start
#: hold that one address to no practical rate limit.
UNLIMITED = "1000000/second"


def start_server(
    db_url: str,
    port: int,
    rate_create: str = UNLIMITED,
    rate_act: str = UNLIMITED,
    workers: int = 1,
    statements_file: Path | None = None,
    rate_watch: str = UNLIMITED,
    rate_hint: str = UNLIMITED,
) -> subprocess.Popen[bytes]:
    """``triage serve`` on 127.0.0.1:``port``, once it answers; with ``statements_file`` its
    processes count their database statements into it (when they stop)."""
    command = [
        sys.executable,
        "-c",
        "from triage.cli import main; main()",
        "serve",
        "--port",
        str(port),
        "--db",
        db_url,
        "--log-level",
        "warning",
        "--rate-create",
        rate_create,
        "--rate-act",
        rate_act,
        "--rate-watch",
        rate_watch,
        "--rate-hint",
        rate_hint,
    ]
    if workers != 1:
        command += ["--workers", str(workers)]
    env = dict(os.environ)
    if statements_file is not None:
        from triage.web.app import STATEMENTS_ENV

        env[STATEMENTS_ENV] = str(statements_file)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"triage serve exited with status {process.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/bots", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("triage serve did not answer within 90 s")


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (0 < fraction <= 1) of ``values``."""
    ordered = sorted(values)
    rank = max(1, int(-(-fraction * len(ordered) // 1)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Mix:
    """Who sits at table ``i``: the clients' seat count and the server bot, each taken in turn
    from its list (a bot of None: no bot seat); and the spectators each table has."""

    players: Sequence[int] = (2,)
    bots: Sequence[str | None] = (None,)
    spectators: int = 0

    def seats(self, number: int) -> tuple[int, str | None]:
        return self.players[number % len(self.players)], self.bots[number % len(self.bots)]


class Load:
    """The clients' shared tallies."""

    def __init__(self, tables: int) -> None:
        self.action_ms: list[float] = []
        self.legal_ms: list[float] = []
        #: Each table's action latencies (its games one after another), for the worst table.
        self.table_ms: list[list[float]] = [[] for _ in range(tables)]
        self.errors = 0
        self.games = 0
        self.retries = 0
        self.last_error = ""
        self.spectator_updates = 0


class LoadFigures(TypedDict):
    """The clients' tallies as figures (:func:`figures`): latencies in milliseconds, the worst
    table's, and the database statements per action (None when the server counted none)."""

    actions: int
    actions_per_s: float
    games_finished: int
    errors: int
    retries: int
    last_error: str
    median_ms: float
    p99_ms: float
    max_ms: float
    worst_table_p99_ms: float
    worst_table_median_ms: float
    worst_table_actions: int
    legal_median_ms: float
    legal_p99_ms: float
    spectator_updates: int
    db_statements: int | None
    db_statements_per_action: float | None
    db_statements_by_kind: dict[str, float] | None


class LoadResult(LoadFigures):
    """A load test's result (:func:`run_loadtest`, printed by ``triage loadtest --json``): its
    settings, the figures, and the server's memory (MB) and CPU."""

    tables: int
    workers: int
    players: list[int]
    bots: list[str | None]
    spectators: int
    think_s: float
    ramp_s: float
    seconds: float
    server_rss_mb: float
    server_peak_mb: float
    server_cpu_ms_per_action: float
    cpus: int | None
    load_average: float | None


async def call(
    session: aiohttp.ClientSession, load: Load, method: str, path: str, tries: int = 1, **options: Any
) -> Any:
    """One request; its JSON answer, or None (counted as an error) if it failed. A request whose
    answer was lost (connection error) is sent again as it was, up to ``tries`` times in all,
    which is safe for an action with its expected number: a repeat gets the original answer."""
    for attempt in range(tries):
        try:
            async with session.request(method, path, **options) as response:
                data = await response.json()
                if response.status >= 400:
                    load.errors += 1
                    load.last_error = f"{method} {path}: {response.status} {data}"
                    return None
                return data
        except (TimeoutError, aiohttp.ClientError) as error:
            load.retries += attempt < tries - 1
            load.last_error = f"{method} {path}: {error!r}"
    load.errors += 1
    return None


async def play_table(
    session: aiohttp.ClientSession,
    load: Load,
    mix: Mix,
    number: int,
    think: float,
    until: float,
    delay: float,
) -> None:
    """Table ``number``'s clients (and spectators): arrive after ``delay`` seconds, then play
    games one after another until time is up."""
    rng = random.Random(number)
    await asyncio.sleep(delay)
    humans, bot = mix.seats(number)
    body = {"players": humans + (bot is not None), "bots": [None] * humans + ([bot] if bot else [])}
    while time.monotonic() < until:
        created = await call(session, load, "POST", "/api/tables", json=body)
        if created is None:
            return
        watching = [
            asyncio.create_task(spectate(session, load, created["table_id"])) for _ in range(mix.spectators)
        ]
        try:
            played = await play_game(session, load, created, think, until, rng, load.table_ms[number])
        finally:
            for task in watching:
                task.cancel()
            await asyncio.gather(*watching, return_exceptions=True)
        if not played:
            return


async def spectate(session: aiohttp.ClientSession, load: Load, table_id: str) -> None:
    """A spectator of the table: counts the actions it is shown after its first hello, until
    cancelled (an update each, or a hello at once for the actions a human seat could still undo,
    held back from spectators until sealed: triage.web.sealing)."""
    try:
        async with session.ws_connect(f"/api/tables/{table_id}/ws") as socket:
            await socket.send_json({"spectate": True})
            seen: int | None = None
            async for message in socket:
                if message.type is not aiohttp.WSMsgType.TEXT:
                    continue
                shown = json.loads(message.data).get("actions")
                if isinstance(shown, int):
                    if seen is not None and shown > seen:
                        load.spectator_updates += shown - seen
                    seen = shown if seen is None else max(seen, shown)
    except (TimeoutError, aiohttp.ClientError) as error:
        load.errors += 1
        load.last_error = f"spectator of {table_id}: {error!r}"


async def play_game(
    session: aiohttp.ClientSession,
    load: Load,
    created: CreatedTable,
    think: float,
    until: float,
    rng: random.Random,
    table_ms: list[float],
) -> bool:
    """One game on a created table, its seats' clients taking turns (waiting while a server
    bot thinks); False if a request failed."""
    table_id = created["table_id"]
    headers = {entry["seat"]: {"Authorization": f"Bearer {entry['token']}"} for entry in created["seats"]}
    facts = await call(session, load, "GET", f"/api/tables/{table_id}")  # the deal may make seat 1 first
    if facts is None:
        return False
    turn: int | None = facts["turn"]
    while turn is not None and time.monotonic() < until:
        if turn not in headers:
            turn = await bot_turn_over(session, load, table_id, turn, until)
            continue
        start = time.perf_counter()
        legal = await call(session, load, "GET", f"/api/tables/{table_id}/legal", headers=headers[turn])
        load.legal_ms.append((time.perf_counter() - start) * 1000)
        if not legal or not legal["choices"]:
            return False
        if think > 0:
            await asyncio.sleep(min(rng.expovariate(1 / think), max(0.0, until - time.monotonic())))
            if time.monotonic() >= until:
                break
        body = {"action": sample(rng.choice(legal["choices"]), rng), "expected": legal["actions"]}
        start = time.perf_counter()
        path = f"/api/tables/{table_id}/actions"
        answer = await call(session, load, "POST", path, tries=3, headers=headers[turn], json=body)
        elapsed = (time.perf_counter() - start) * 1000
        load.action_ms.append(elapsed)
        table_ms.append(elapsed)
        if answer is None:
            return False
        turn = answer["turn"]
    load.games += turn is None
    return True


#: Seconds between two looks at a table whose server bot is thinking.
BOT_POLL = 0.05


async def bot_turn_over(
    session: aiohttp.ClientSession, load: Load, table_id: str, turn: int, until: float
) -> int | None:
    """Wait while the server's bot (seat ``turn``) moves; whose turn it is then."""
    while time.monotonic() < until:
        await asyncio.sleep(BOT_POLL)
        facts = await call(session, load, "GET", f"/api/tables/{table_id}")
        if facts is None or facts["turn"] != turn:
            return None if facts is None else facts["turn"]
    return None


def tree_total(process: psutil.Process, measure: Callable[[psutil.Process], float]) -> float:
    """The sum of ``measure`` over a process and its children (the workers) that still run."""
    total = 0.0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += measure(member)
    return total


def tree_cpu(process: psutil.Process) -> float:
    """CPU seconds (user and system) used so far by a process and its children."""
    return tree_total(process, lambda member: sum(member.cpu_times()[:2]))


def tree_rss(process: psutil.Process) -> int:
    """Resident memory of a process and its children."""
    return int(tree_total(process, lambda member: member.memory_info().rss))


async def sample_memory(pid: int, samples: list[int], until: float) -> None:
    process = psutil.Process(pid)
    while time.monotonic() < until:
        samples.append(tree_rss(process))
        await asyncio.sleep(0.5)


async def drive(
    port: int, pid: int, tables: int, mix: Mix, think: float, seconds: float, ramp: float
) -> tuple[Load, list[int], float, float]:
    """Play; returns the tallies, memory samples, elapsed seconds and the server's CPU seconds."""
    load = Load(tables)
    memory: list[int] = []
    cpu_before = tree_cpu(psutil.Process(pid))
    connector = aiohttp.TCPConnector(limit=tables * (1 + mix.spectators) + 8)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(
        f"http://127.0.0.1:{port}", connector=connector, timeout=timeout
    ) as client:
        started = time.monotonic()
        until = started + seconds
        clients = [
            play_table(client, load, mix, number, think, until, ramp * number / tables)
            for number in range(tables)
        ]
        await asyncio.gather(sample_memory(pid, memory, until), *clients)
        elapsed = time.monotonic() - started
    return load, memory, elapsed, tree_cpu(psutil.Process(pid)) - cpu_before


def run_loadtest(
    tables: int = 200,
    players: int | Sequence[int] = 2,
    think: float = 1.0,
    seconds: float = 30.0,
    db: str | None = None,
    ramp: float = 2.0,
    workers: int = 1,
    bots: Sequence[str | None] = (None,),
    spectators: int = 0,
) -> LoadResult:
    """Run the benchmark; returns its figures (latencies in milliseconds, memory in MB).
    ``players``: client seats per table (a list: taken in turn, table by table); ``bots``: the
    server bot seat of each table in turn (None: none); ``spectators``: per table."""
    mix = Mix(tuple([players] if isinstance(players, int) else players), tuple(bots), spectators)
    with tempfile.TemporaryDirectory(prefix="triage-loadtest-") as folder:
        db_url = db or f"sqlite:///{Path(folder) / 'tables.db'}"
        port = free_port()
        counts = Path(folder) / "statements.jsonl"
        server = start_server(db_url, port, workers=workers, statements_file=counts)
        # A benchmark stopped with SIGTERM still stops its server (the finally below).
        previous = signal.signal(signal.SIGTERM, _stop)
        try:
            load, memory, elapsed, cpu = asyncio.run(
                drive(port, server.pid, tables, mix, think, seconds, ramp)
            )
            peak_kb = None if workers > 1 else _peak_kb(server.pid)
        finally:
            signal.signal(signal.SIGTERM, previous)
            server.terminate()
            server.wait(30)
        statements = statement_counts(counts)
    if not load.action_ms:
        raise RuntimeError("no action was taken: is the server working?")
    return {
        "tables": tables,
        "workers": workers,
        "players": list(mix.players),
        "bots": list(mix.bots),
        "spectators": spectators,
        "think_s": think,
        "ramp_s": ramp,
        "seconds": elapsed,
        **figures(load, elapsed, statements),
        "server_rss_mb": memory[-1] / 2**20 if memory else 0.0,
        "server_peak_mb": (peak_kb / 1024) if peak_kb else (max(memory) / 2**20 if memory else 0.0),
        "server_cpu_ms_per_action": cpu * 1000 / len(load.action_ms),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def figures(load: Load, elapsed: float, statements: Counter[str] | None) -> LoadFigures:
    """The clients' tallies as figures: latencies, the worst table, statements per action."""
    actions = len(load.action_ms)
    worst = max(
        (ms for ms in load.table_ms if ms), key=lambda ms: (percentile(ms, 0.99), len(ms)), default=[0.0]
    )
    return {
        "actions": actions,
        "actions_per_s": actions / elapsed,
        "games_finished": load.games,
        "errors": load.errors,
        "retries": load.retries,
        "last_error": load.last_error,
        "median_ms": statistics.median(load.action_ms),
        "p99_ms": percentile(load.action_ms, 0.99),
        "max_ms": max(load.action_ms),
        "worst_table_p99_ms": percentile(worst, 0.99),
        "worst_table_median_ms": statistics.median(worst),
        "worst_table_actions": len(worst),
        "legal_median_ms": statistics.median(load.legal_ms),
        "legal_p99_ms": percentile(load.legal_ms, 0.99),
        "spectator_updates": load.spectator_updates,
        "db_statements": None if statements is None else sum(statements.values()),
        "db_statements_per_action": None if statements is None else sum(statements.values()) / actions,
        "db_statements_by_kind": None
        if statements is None
        else {kind: round(count / actions, 3) for kind, count in statements.most_common()},
    }


def statement_counts(path: Path) -> Counter[str] | None:
    """The statements the server's processes sent their database (None if none reported)."""
    if not path.exists():
        return None
    total: Counter[str] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        total.update(json.loads(line)["statements"])
    return total


def _stop(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def _peak_kb(pid: int) -> int | None:
    """The server's peak resident set size (VmHWM, Linux), if the system tells it."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None
