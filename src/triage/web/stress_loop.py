"""Two measurements of the event loop and the bot runner against a real ``triage serve``.

``python -m triage.web.stress_loop stall [--db URL] [--seconds 6]``: ``GET /api/bots`` (no
database) timed while the database is held for that long and a seat's action waits for it.
SQLite: another connection holds the write lock; PostgreSQL: another connection holds an
exclusive lock on the ``tables`` table, which every request reads (a frozen database, as
far as the server can tell).

``python -m triage.web.stress_loop experts [--tables 12] [--moves 20]``: how long a human's
``expert`` opponent takes for each of its moves while that many all-expert 4-seat tables play.

Each starts ``triage serve`` on a free port of 127.0.0.1 (a fresh SQLite file unless ``--db``)
and stops it; the figures are printed as one JSON object.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypedDict

import httpx
from sqlalchemy.engine import make_url

from triage.engine.choices import expand
from triage.engine.shapes import Action
from triage.web.loadtest import free_port, percentile, start_server


def hold_database(
    db_url: str, seconds: float, held: threading.Event, release: threading.Event | None = None
) -> None:
    """Hold the database from another connection for ``seconds``, or until ``release`` is set
    (``held`` is set once it is held)."""
    release = release or threading.Event()
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite":
        locked = sqlite3.connect(url.database or "", isolation_level=None, timeout=30)
        locked.execute("BEGIN EXCLUSIVE")  # the write lock: every writer waits
        held.set()
        release.wait(seconds)
        locked.execute("ROLLBACK")
        locked.close()
        return
    import psycopg

    from triage.web.notify import libpq_url

    with psycopg.connect(libpq_url(db_url)) as connection:
        connection.execute("LOCK TABLE tables IN ACCESS EXCLUSIVE MODE")  # readers and writers wait
        held.set()
        release.wait(seconds)
        connection.rollback()


@contextlib.contextmanager
def database_held(db_url: str, seconds: float) -> Iterator[None]:
    """The block runs while another thread holds the database for ``seconds`` (however long
    the block's requests wait: a server that waits on the loop cannot keep it held)."""
    held = threading.Event()
    holder = threading.Thread(target=hold_database, args=(db_url, seconds, held))
    holder.start()
    held.wait(30)
    try:
        yield
    finally:
        holder.join()


def choices_of(client: httpx.Client, table_id: str, token: str) -> list[Action]:
    answer = client.get(f"/api/tables/{table_id}/legal", headers={"Authorization": f"Bearer {token}"})
    answer.raise_for_status()
    return [action for choice in answer.json()["choices"] for action in expand(choice)]


def post_action(client: httpx.Client, table_id: str, token: str, action: Action) -> float:
    """Send a seat's action as a person's client would: a refusal by the action rate (429) is
    waited out as told and the action sent again. Returns the seconds of the answer that took it
    (the waits and refused tries left out)."""
    headers = {"Authorization": f"Bearer {token}"}
    _, seconds = _sent_past_rate(
        lambda: client.post(f"/api/tables/{table_id}/actions", headers=headers, json=action)
    )
    return seconds


def new_table(client: httpx.Client, bots: list[str | None], seed: int) -> tuple[str, str | None]:
    """A table's id and its first human seat's token (None if all bots); a refusal by the table
    rate (429, a long measurement opens many tables) is waited out as told."""
    body = {"players": len(bots), "bots": bots, "seed": seed}
    created = _sent_past_rate(lambda: client.post("/api/tables", json=body))[0].json()
    return created["table_id"], created["seats"][0]["token"] if created["seats"] else None


def _sent_past_rate(send: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    """The first answer to ``send()`` that is not a rate's refusal (429), each refusal waited out
    as its ``Retry-After`` says, and the seconds that answer took; any other error raises."""
    while True:
        started = time.perf_counter()
        answer = send()
        if answer.status_code != 429:
            answer.raise_for_status()
            return answer, time.perf_counter() - started
        time.sleep(float(answer.headers.get("Retry-After", "1")))


class StallResult(TypedDict):
    """``stall``: ``GET /api/bots`` while the database was held ``held_s`` (ms), and the
    waiting action's status and seconds."""

    held_s: float
    bots_requests: int
    bots_median_ms: float
    bots_p99_ms: float
    bots_max_ms: float
    action_status: int
    action_s: float


class ExpertsResult(TypedDict):
    """``experts``: the seconds of a human's expert opponent's moves, alone then beside
    ``busy_tables`` all-expert tables."""

    busy_tables: int
    moves: int
    alone_median_s: float
    alone_p90_s: float
    median_s: float
    p90_s: float
    max_s: float


def measure_stall(base_url: str, db_url: str, seconds: float) -> StallResult:
    """``GET /api/bots`` latencies while the database is held for ``seconds`` and a seat's
    action waits for it (and the action's status and time)."""
    with httpx.Client(base_url=base_url, timeout=120) as client:
        table_id, token = new_table(client, [None, "random"], 1)
        assert token is not None
        action = choices_of(client, table_id, token)[0]
        acted: list[tuple[int, float]] = []  # the action's status and seconds

        def act() -> None:
            started = time.perf_counter()
            with httpx.Client(base_url=base_url, timeout=120) as own:
                response = own.post(
                    f"/api/tables/{table_id}/actions",
                    headers={"Authorization": f"Bearer {token}"},
                    json=action,
                )
            acted.append((response.status_code, time.perf_counter() - started))

        bots_ms: list[float] = []
        with database_held(db_url, seconds):
            held = time.perf_counter()
            acting = threading.Thread(target=act)
            acting.start()
            time.sleep(0.2)  # the action is waiting for the database
            while time.perf_counter() - held < seconds:
                started = time.perf_counter()
                client.get("/api/bots").raise_for_status()
                bots_ms.append((time.perf_counter() - started) * 1000)
                time.sleep(0.02)
        acting.join()
    return {
        "held_s": seconds,
        "bots_requests": len(bots_ms),
        "bots_median_ms": statistics.median(bots_ms),
        "bots_p99_ms": percentile(bots_ms, 0.99),
        "bots_max_ms": max(bots_ms),
        "action_status": acted[0][0],
        "action_s": acted[0][1],
    }


def bot_move_times(client: httpx.Client, table_id: str, token: str, limit: float = 120.0) -> list[float]:
    """After the human's action: the seconds each bot move took (from the previous action),
    until it is the human's decision again or the game is over."""
    headers = {"Authorization": f"Bearer {token}"}
    seen = client.get(f"/api/tables/{table_id}/view", headers=headers).json()
    count, last, started, times = seen["actions"], time.perf_counter(), time.perf_counter(), []
    while time.perf_counter() - started < limit:
        seen = client.get(f"/api/tables/{table_id}/view", headers=headers).json()
        now = time.perf_counter()
        if seen["actions"] > count:
            # Moves stored together (a batch) share the time; polling adds up to 10 ms.
            moves = seen["actions"] - count
            times.extend([(now - last) / moves] * moves)
            count, last = seen["actions"], now
        if seen["turn"] == 0 or seen["phase"] == "over":
            return times
        time.sleep(0.01)
    raise RuntimeError(f"table {table_id}: the bot did not move for {limit:.0f} s")


def measure_experts(base_url: str, tables: int, moves: int) -> ExpertsResult:
    """Per-move times of a human's expert opponent alone, then while ``tables`` all-expert
    tables play (the same machine, the same run)."""
    with httpx.Client(base_url=base_url, timeout=120) as client:
        alone = opponent_times(client, moves, 0)
        for seed in range(tables):
            new_table(client, ["expert"] * 4, 100 + seed)
        time.sleep(2.0)  # the busy tables are under way
        busy = opponent_times(client, moves, 1000)
    return {
        "busy_tables": tables,
        "moves": moves,
        "alone_median_s": statistics.median(alone),
        "alone_p90_s": percentile(alone, 0.9),
        "median_s": statistics.median(busy),
        "p90_s": percentile(busy, 0.9),
        "max_s": max(busy),
    }


def opponent_times(client: httpx.Client, moves: int, seed: int) -> list[float]:
    """The seconds of each of ``moves`` moves of a human's expert opponent (new tables from
    ``seed`` on as games end); the human passes whenever it can."""
    times: list[float] = []
    while len(times) < moves:
        table_id, token = new_table(client, [None, "expert"], seed)
        seed += 1
        assert token is not None
        while len(times) < moves:
            legal = choices_of(client, table_id, token)
            if not legal:
                break  # the game is over
            passing = [action for action in legal if action["type"] == "pass"]
            post_action(client, table_id, token, (passing or legal)[0])
            times.extend(bot_move_times(client, table_id, token))
    return times[:moves]


@contextlib.contextmanager
def serving(db_url: str | None) -> Iterator[tuple[str, str]]:
    """A fresh ``triage serve`` (a new SQLite file unless ``db_url``): its base URL and database."""
    with tempfile.TemporaryDirectory() as folder:
        url = db_url or f"sqlite:///{Path(folder) / 'tables.db'}"
        port = free_port()
        process = start_server(url, port)
        try:
            yield f"http://127.0.0.1:{port}", url
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m triage.web.stress_loop", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("check", choices=["stall", "experts"])
    parser.add_argument("--db", default=None, help="SQLAlchemy URL (default: a fresh SQLite file)")
    parser.add_argument("--seconds", type=float, default=6.0, help="stall: how long the database is held")
    parser.add_argument("--tables", type=int, default=12, help="experts: all-expert tables playing")
    parser.add_argument("--moves", type=int, default=20, help="experts: the opponent's moves timed")
    options = parser.parse_args(argv)
    result: StallResult | ExpertsResult
    with serving(options.db) as (base_url, db_url):
        if options.check == "stall":
            result = measure_stall(base_url, db_url, options.seconds)
        else:
            result = measure_experts(base_url, options.tables, options.moves)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
