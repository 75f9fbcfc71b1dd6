"""Load benchmark of the web app: many tables of bots playing at once over loopback HTTP.

It starts ``triage serve`` (``--workers N`` processes) in a child process on a free port of
127.0.0.1 with a fresh SQLite file (or ``db``), opens ``tables`` tables whose seats are all played
by random-bot clients over the HTTP API, and keeps that many games running (a finished table is
replaced by a new one) for ``seconds``; the tables arrive evenly over the first ``ramp`` seconds.
Each client asks ``/legal`` for the seat whose decision it is, draws an action within a random
choice (``triage.engine.choices.sample``), waits a think time (exponential, mean ``think``
seconds: 0 means as fast as possible) and posts it with the action number it saw (idempotent:
a request whose answer was lost is sent again as it was). It reports the latency of ``POST
/actions`` (every one is committed before it is answered) and of ``GET /legal``, and the
server's memory (resident set size of all its processes, sampled every half second).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import psutil

from triage.engine.choices import sample


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
    rate_watch: str = UNLIMITED,
) -> subprocess.Popen[bytes]:
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
    ]
    if workers != 1:
        command += ["--workers", str(workers)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"triage serve exited with status {process.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/bots", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("triage serve did not answer within 30 s")


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (0 < fraction <= 1) of ``values``."""
    ordered = sorted(values)
    rank = max(1, int(-(-fraction * len(ordered) // 1)))
    return ordered[rank - 1]


class Load:
    """The clients' shared tallies."""

    def __init__(self) -> None:
        self.action_ms: list[float] = []
        self.legal_ms: list[float] = []
        self.errors = 0
        self.games = 0
        self.retries = 0
        self.last_error = ""


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
    players: int,
    think: float,
    until: float,
    rng: random.Random,
    delay: float,
) -> None:
    """One table's clients: arrive after ``delay`` seconds, then play games one after another
    until time is up."""
    await asyncio.sleep(delay)
    while time.monotonic() < until:
        created = await call(session, load, "POST", "/api/tables", json={"players": players})
        if created is None or not await play_game(session, load, created, think, until, rng):
            return


async def play_game(
    session: aiohttp.ClientSession,
    load: Load,
    created: dict[str, Any],
    think: float,
    until: float,
    rng: random.Random,
) -> bool:
    """One game on a created table, its seats' clients taking turns; False if a request failed."""
    table_id = created["table_id"]
    headers = {entry["seat"]: {"Authorization": f"Bearer {entry['token']}"} for entry in created["seats"]}
    turn: int | None = 0
    while turn is not None and time.monotonic() < until:
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
        load.action_ms.append((time.perf_counter() - start) * 1000)
        if answer is None:
            return False
        turn = answer["turn"]
    load.games += turn is None
    return True


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
    port: int, pid: int, tables: int, players: int, think: float, seconds: float, ramp: float
) -> tuple[Load, list[int], float, float]:
    """Play; returns the tallies, memory samples, elapsed seconds and the server's CPU seconds."""
    load = Load()
    memory: list[int] = []
    cpu_before = tree_cpu(psutil.Process(pid))
    connector = aiohttp.TCPConnector(limit=tables + 8)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(
        f"http://127.0.0.1:{port}", connector=connector, timeout=timeout
    ) as client:
        started = time.monotonic()
        until = started + seconds
        clients = [
            play_table(client, load, players, think, until, random.Random(number), ramp * number / tables)
            for number in range(tables)
        ]
        await asyncio.gather(sample_memory(pid, memory, until), *clients)
        elapsed = time.monotonic() - started
    return load, memory, elapsed, tree_cpu(psutil.Process(pid)) - cpu_before


def run_loadtest(
    tables: int = 200,
    players: int = 2,
    think: float = 1.0,
    seconds: float = 30.0,
    db: str | None = None,
    ramp: float = 2.0,
    workers: int = 1,
) -> dict[str, Any]:
    """Run the benchmark; returns its figures (latencies in milliseconds, memory in MB)."""
    with tempfile.TemporaryDirectory(prefix="triage-loadtest-") as folder:
        db_url = db or f"sqlite:///{Path(folder) / 'tables.db'}"
        port = free_port()
        server = start_server(db_url, port, workers=workers)
        # A benchmark stopped with SIGTERM still stops its server (the finally below).
        previous = signal.signal(signal.SIGTERM, _stop)
        try:
            load, memory, elapsed, cpu = asyncio.run(
                drive(port, server.pid, tables, players, think, seconds, ramp)
            )
            peak_kb = None if workers > 1 else _peak_kb(server.pid)
        finally:
            signal.signal(signal.SIGTERM, previous)
            server.terminate()
            server.wait(30)
    if not load.action_ms:
        raise RuntimeError("no action was taken: is the server working?")
    return {
        "tables": tables,
        "workers": workers,
        "players": players,
        "think_s": think,
        "ramp_s": ramp,
        "seconds": elapsed,
        "actions": len(load.action_ms),
        "actions_per_s": len(load.action_ms) / elapsed,
        "games_finished": load.games,
        "errors": load.errors,
        "retries": load.retries,
        "last_error": load.last_error,
        "median_ms": statistics.median(load.action_ms),
        "p99_ms": percentile(load.action_ms, 0.99),
        "max_ms": max(load.action_ms),
        "legal_median_ms": statistics.median(load.legal_ms),
        "legal_p99_ms": percentile(load.legal_ms, 0.99),
        "server_rss_mb": memory[-1] / 2**20 if memory else 0.0,
        "server_peak_mb": (peak_kb / 1024) if peak_kb else (max(memory) / 2**20 if memory else 0.0),
        "server_cpu_ms_per_action": cpu * 1000 / len(load.action_ms),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


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
