"""Measurements of the service's bounds against a real ``triage serve``, each against a reference
measured in the same run (docs/web.md, "The service's bounds", holds today's figures):

``python -m triage.web.stress_service reads [--db URL|postgresql] [--seconds 20] [--writers 12]``: the
latency of every kind of read (a seat's view and choices, the spectators' view, the table's
facts, presence, the lobby) of an idle table and of a table whose own write waits, while another
connection holds the database that long (SQLite: ``BEGIN EXCLUSIVE``; PostgreSQL: an exclusive
lock on ``tables``) and ``writers`` writes wait for it; against the same reads unloaded. And each
write's answer and seconds.

``python -m triage.web.stress_service frozen [--seconds 15]``: the same reads, and writes sent
over and over, while a throwaway PostgreSQL cluster of its own is stopped (SIGSTOP) that long;
then the seconds until a write goes through once it answers again.

``python -m triage.web.stress_service hints [--tables 18] [--per-table 2] [--moves 60]``: with the
server's default limits, a client at 127.0.0.1 times its moves against ``greedy`` (each ``POST
/actions``), its ``expert`` opponent's replies and its own hints, alone, then while a client at
127.0.0.2 floods hints from ``tables`` 4-seat tables (``per-table`` requests at once on each, for
the seat to move, asking again soon after each refusal of its budget and playing each suggested
move), then alone again. The flood is sustained: the figures say the share of its window in
which one of its hints was queued or thinking on the server.

``--server-src DIR`` runs the server from another checkout's sources (the code before a change,
measured in the same sitting).

Each starts ``triage serve`` on a free port of 127.0.0.1 and stops it; the figures are printed as
one JSON object (milliseconds, and ratios to the unloaded figures).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, Required, TypedDict

import httpx

from triage.engine.shapes import Action
from triage.web import DEFAULT_ACT_RATE, DEFAULT_CREATE_RATE, DEFAULT_HINT_RATE, DEFAULT_WATCH_RATE
from triage.web.loadtest import free_port, percentile, start_server
from triage.web.stress_loop import choices_of, database_held, new_table, opponent_times, post_action, serving

#: The reads timed, by name: (path under the table, whether the seat's token goes with it); the
#: lobby's and the control's paths are their own. The control (the bot levels: no table, no
#: database, no thread) tells a stall of the server's process or the machine from a wait of the
#: reads' own path: a read slow beside a control as slow waited on neither a lock nor a pool.
READS: dict[str, tuple[str, bool]] = {
    "view": ("/view", True),
    "legal": ("/legal", True),
    "public": ("/public", False),
    "facts": ("", False),
    "live": ("/live", False),
    "lobby": ("/api/tables", False),
    "control": ("/api/bots", False),
}


#: Milliseconds within which every read should answer (issue 40): the reads over it are counted.
READ_AIM_MS = 50.0


def read_once(client: httpx.Client, name: str, table_id: str, token: str) -> float:
    """One read's milliseconds (it must answer 200)."""
    path, seat = READS[name]
    url = path if name in ("lobby", "control") else f"/api/tables/{table_id}{path}"
    started = time.perf_counter()
    response = client.get(url, headers={"Authorization": f"Bearer {token}"} if seat else {})
    elapsed = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    return elapsed


def time_reads(
    client: httpx.Client,
    targets: list[tuple[str, str]],
    more: Callable[[int], bool],
    slow: list[tuple[str, float, float]] | None = None,
) -> dict[str, list[float]]:
    """Every read of every target (table, token) in turn, while ``more(rounds done)``; each read
    over :data:`READ_AIM_MS` goes to ``slow`` as (name, seconds since the first read began, ms),
    to line it up with what the server did then."""
    times: dict[str, list[float]] = {name: [] for name in READS}
    rounds, began = 0, time.monotonic()
    while more(rounds):
        for table_id, token in targets:
            for name in READS:
                ms = read_once(client, name, table_id, token)
                times[name].append(ms)
                if slow is not None and ms > READ_AIM_MS:
                    slow.append((name, round(time.monotonic() - began - ms / 1000, 2), round(ms, 1)))
        rounds += 1
    return times


class Spread(TypedDict, total=False):
    """Timings' count, percentiles and most (ms), each percentile also as a ratio to a
    reference's (when there is one)."""

    n: Required[int]
    p50_ms: Required[float]
    p50_ratio: float
    p90_ms: Required[float]
    p90_ratio: float
    p99_ms: Required[float]
    p99_ratio: float
    max_ms: Required[float]


def figures(values: list[float], reference: list[float] | None = None) -> Spread:
    """p50, p90, p99 and the most (ms), with each as a ratio to ``reference``'s."""
    p50, p90, p99 = (percentile(values, fraction) for fraction in (0.5, 0.9, 0.99))
    if not reference:
        return {
            "n": len(values),
            "p50_ms": round(p50, 2),
            "p90_ms": round(p90, 2),
            "p99_ms": round(p99, 2),
            "max_ms": round(max(values), 2),
        }
    r50, r90, r99 = (percentile(reference, fraction) for fraction in (0.5, 0.9, 0.99))
    return {
        "n": len(values),
        "p50_ms": round(p50, 2),
        "p50_ratio": round(p50 / r50, 2),
        "p90_ms": round(p90, 2),
        "p90_ratio": round(p90 / r90, 2),
        "p99_ms": round(p99, 2),
        "p99_ratio": round(p99 / r99, 2),
        "max_ms": round(max(values), 2),
    }


class Compared(TypedDict):
    """One kind of read, timed unloaded and loaded, and how many loaded reads took over
    :data:`READ_AIM_MS`."""

    unloaded: Spread
    loaded: Spread
    loaded_over_aim: int


class ReadsResult(TypedDict):
    """``reads``: the reads while the database was held ``held_s`` with ``writers`` waiting,
    each read over the aim (name, seconds into the hold, ms), and each write's (status,
    seconds)."""

    held_s: float
    writers: int
    reads: dict[str, Compared]
    slow_reads: list[tuple[str, float, float]]
    writes: list[tuple[int, float]]


class FrozenResult(TypedDict):
    """``frozen``: the reads and repeated writes while the database was stopped, and the
    seconds until a write went through once it answered again."""

    stopped_s: float
    first_read_ms: float
    reads: dict[str, Compared]
    writes: int
    write_statuses: list[int]
    write_s: Spread | None
    stored_after_thaw_s: float


class Flooded(TypedDict):
    """Alone (both unloaded runs), the second unloaded run against the first, and flooded
    against both."""

    alone: Spread
    alone_again: Spread
    flooded: Spread


class HintsResult(TypedDict):
    """``hints``: the measuring client's moves, its expert opponent's replies and its hints,
    alone, under the flood and alone again (ms); the flood's answers by status, its hints
    answered a second and the share of its window it kept a hint queued or thinking."""

    flood_tables: int
    flood_requests_at_once: int
    flood_answers: dict[str, int]
    flood_window_s: float
    flood_hints_per_s: float
    flood_busy_fraction: float
    greedy_move_ms: Flooded
    expert_reply_ms: Flooded
    hint_ms: Flooded


def one_seat_tables(client: httpx.Client, count: int) -> list[tuple[str, str, Action]]:
    """``count`` public one-seat tables, each with the first action its seat may take."""
    tables = []
    for seed in range(count):
        response = client.post("/api/tables", json={"players": 1, "seed": seed, "public": True})
        response.raise_for_status()
        created = response.json()
        table_id, token = created["table_id"], created["seats"][0]["token"]
        tables.append((table_id, token, choices_of(client, table_id, token)[0]))
    return tables


def timed_write(base_url: str, table_id: str, token: str, body: Any, out: list[tuple[int, float]]) -> None:
    with httpx.Client(base_url=base_url, timeout=300) as own:
        started = time.perf_counter()
        response = own.post(
            f"/api/tables/{table_id}/actions", headers={"Authorization": f"Bearer {token}"}, json=body
        )
        out.append((response.status_code, round(time.perf_counter() - started, 2)))


def compare(unloaded: dict[str, list[float]], loaded: dict[str, list[float]]) -> dict[str, Compared]:
    return {
        name: {
            "unloaded": figures(unloaded[name]),
            "loaded": figures(loaded[name], unloaded[name]),
            "loaded_over_aim": sum(1 for ms in loaded[name] if ms > READ_AIM_MS),
        }
        for name in READS
    }


def measure_reads(base_url: str, db_url: str, seconds: float, writers: int) -> ReadsResult:
    """Reads unloaded, then while the database is held ``seconds`` and ``writers`` writes wait."""
    with httpx.Client(base_url=base_url, timeout=300) as client:
        tables = one_seat_tables(client, writers + 1)
        idle, busy = tables[-1], tables[0]
        targets = [(idle[0], idle[1]), (busy[0], busy[1])]
        unloaded = time_reads(client, targets, lambda rounds: rounds < 30)
        writes: list[tuple[int, float]] = []
        slow: list[tuple[str, float, float]] = []
        with database_held(db_url, seconds):
            held = time.monotonic()
            threads = [
                threading.Thread(target=timed_write, args=(base_url, table_id, token, action, writes))
                for table_id, token, action in tables[:writers]
            ]
            for thread in threads:
                thread.start()
            time.sleep(0.2)  # the writes are waiting
            loaded = time_reads(
                client, targets, lambda _rounds: time.monotonic() - held < seconds - 0.5, slow
            )
            for thread in threads:
                thread.join()
    return {
        "held_s": seconds,
        "writers": writers,
        "reads": compare(unloaded, loaded),
        "slow_reads": slow,
        "writes": sorted(writes, key=lambda answer: answer[1]),
    }


def measure_frozen(seconds: float) -> FrozenResult:
    """Reads and repeated writes while a throwaway PostgreSQL cluster is stopped ``seconds``."""
    from triage.web.scratch_pg import throwaway_cluster

    with (
        throwaway_cluster() as cluster,
        serving(cluster.url) as (base_url, _url),
        httpx.Client(base_url=base_url, timeout=300) as client,
    ):
        table_id, token = new_table(client, [None, "random"], 3)
        assert token is not None
        body = {"action": choices_of(client, table_id, token)[0], "expected": 0}
        targets = [(table_id, token)]
        unloaded = time_reads(client, targets, lambda rounds: rounds < 30)
        writes: list[tuple[int, float]] = []
        cluster.stop_answering()
        stopped = time.monotonic()
        try:
            first_read = read_once(client, "view", table_id, token)
            writers = [
                threading.Thread(
                    target=repeat_writes,
                    args=(base_url, table_id, token, body, writes, stopped + seconds),
                )
                for _ in range(3)
            ]
            for writer in writers:
                writer.start()
            loaded = time_reads(client, targets, lambda _rounds: time.monotonic() - stopped < seconds)
            for writer in writers:
                writer.join()
        finally:
            cluster.answer_again()
        thawed = time.monotonic()
        after: list[tuple[int, float]] = []
        while not after or after[-1][0] != 200:
            timed_write(base_url, table_id, token, body, after)
    refused = [answer for answer in writes if answer[0] != 200]
    return {
        "stopped_s": seconds,
        "first_read_ms": round(first_read, 1),
        "reads": compare(unloaded, loaded),
        "writes": len(writes),
        "write_statuses": sorted({status for status, _ in writes}),
        "write_s": figures([1000 * answer[1] for answer in refused]) if refused else None,
        "stored_after_thaw_s": round(time.monotonic() - thawed, 2),
    }


def repeat_writes(
    base_url: str, table_id: str, token: str, body: Any, out: list[tuple[int, float]], until: float
) -> None:
    while time.monotonic() < until - 1.0:
        timed_write(base_url, table_id, token, body, out)


#: The flooding client's address (any 127.x.y.z reaches the server on Linux's loopback).
FLOOD_ADDRESS = "127.0.0.2"


@contextlib.contextmanager
def server_with_default_limits() -> Iterator[str]:
    """``triage serve`` with the default rate limits on a fresh SQLite file: its base URL."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        process = start_server(
            f"sqlite:///{Path(folder) / 'tables.db'}",
            port,
            DEFAULT_CREATE_RATE,
            DEFAULT_ACT_RATE,
            rate_watch=DEFAULT_WATCH_RATE,
            rate_hint=DEFAULT_HINT_RATE,
        )
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(30)


def greedy_move_times(client: httpx.Client, moves: int, seed: int) -> list[float]:
    """Milliseconds of each of ``moves`` actions of a human against ``greedy`` (the answer
    holds greedy's replies that fit the request's budget); new tables as games end. A move the
    action rate refuses (429) is not timed: the client waits as told and sends it again."""
    times: list[float] = []
    while len(times) < moves:
        table_id, token = new_table(client, [None, "greedy"], seed)
        seed += 1
        assert token is not None
        while len(times) < moves and (legal := choices_of(client, table_id, token)):
            times.append(post_action(client, table_id, token, legal[0]) * 1000)
    return times


def hint_times(client: httpx.Client, hints: int, seed: int) -> list[float]:
    """Milliseconds of each of ``hints`` hints asked at a table against ``greedy`` (the suggested
    move is played after each; a refusal is counted as its time and asked again)."""
    times: list[float] = []
    while len(times) < hints:
        table_id, token = new_table(client, [None, "greedy"], seed)
        seed += 1
        assert token is not None
        headers = {"Authorization": f"Bearer {token}"}
        while len(times) < hints and choices_of(client, table_id, token):
            started = time.perf_counter()
            answer = client.post(f"/api/tables/{table_id}/hint", headers=headers)
            times.append((time.perf_counter() - started) * 1000)
            if answer.status_code == 200:
                post_action(client, table_id, token, answer.json()["action"])
    return times


#: Seconds the flooding client waits before asking again when told its hints are all in flight
#: (it keeps the hints' queue full; a refusal by the hint rate is waited out as told).
FLOOD_RETRY_SECONDS = 0.1


class FloodTally:
    """The flooding client's answers by status, and when each hint it had taken in (answered 200 or
    503: queued or thinking on the server) was out, to tell how much of a window it kept the
    hints' workers busy."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: Counter[str] = Counter()
        self.spans: list[tuple[float, float]] = []

    def count(self, status: str, started: float, ended: float) -> None:
        with self.lock:
            self.statuses[status] += 1
            if status in ("200", "503"):
                self.spans.append((started, ended))

    def busy_fraction(self, start: float, end: float) -> float:
        """The share of [start, end] during which at least one of its hints was taken in.

        >>> tally = FloodTally()
        >>> for status, began, ended in [("200", 0, 2), ("503", 1, 3), ("429 in flight", 3, 4)]:
        ...     tally.count(status, began, ended)
        >>> tally.busy_fraction(0.0, 4.0), tally.answered(0.0, 4.0)
        (0.75, 2)
        """
        covered, reached = 0.0, start
        with self.lock:
            spans = sorted(self.spans)
        for began, ended in spans:
            began, ended = max(began, reached), min(ended, end)
            if ended > began:
                covered += ended - began
                reached = ended
        return round(covered / (end - start), 3)

    def answered(self, start: float, end: float) -> int:
        with self.lock:
            return sum(1 for _began, ended in self.spans if start <= ended <= end)


def flood_answer(answer: httpx.Response) -> str:
    """The flooding client's answer as tallied: its status, a 429 told apart by its reason (the
    hints' budget or one per seat: ``in flight``; else the hint rate)."""
    if answer.status_code != 429:
        return str(answer.status_code)
    words = answer.json().get("message", "")
    return "429 in flight" if "in flight" in words or "one at a time" in words else "429 rate"


def flood_tables(client: httpx.Client, tables: int) -> list[tuple[str, dict[int, str]]]:
    """The flooding client's 4-seat tables (all human seats): each id with its seats' tokens."""
    created = []
    for seed in range(tables):
        response = client.post("/api/tables", json={"players": 4, "seed": 500 + seed})
        response.raise_for_status()
        body = response.json()
        created.append((body["table_id"], {entry["seat"]: entry["token"] for entry in body["seats"]}))
    return created


def flood(
    base_url: str, tables: int, per_table: int, stop: threading.Event, tally: FloodTally
) -> list[threading.Thread]:
    """The flooding client, started: ``tables`` 4-seat tables of its own and ``per_table``
    requests at once on each, asking a hint for the seat to move again and again (from
    :data:`FLOOD_ADDRESS`), playing a suggested move when it gets one, until ``stop``. Told that
    its hints are all in flight (429, its budget) it asks again after
    :data:`FLOOD_RETRY_SECONDS`, so the server always has one of its hints waiting; a refusal by
    the hint rate is waited out as told."""
    client = httpx.Client(
        base_url=base_url,
        timeout=300,
        transport=httpx.HTTPTransport(local_address=FLOOD_ADDRESS),
        limits=httpx.Limits(max_connections=tables * per_table + 4),
    )

    def ask(table_id: str, tokens: dict[int, str]) -> None:
        turn: int | None = -1
        while not stop.is_set():
            if turn == -1:  # the seat to move, read again once the table may have moved
                seen = client.get(
                    f"/api/tables/{table_id}/view", headers={"Authorization": f"Bearer {tokens[0]}"}
                )
                turn = seen.json()["turn"]
            if turn is None:
                return
            headers = {"Authorization": f"Bearer {tokens[turn]}"}
            started = time.monotonic()
            answer = client.post(f"/api/tables/{table_id}/hint", headers=headers)
            kind = flood_answer(answer)
            tally.count(kind, started, time.monotonic())
            if kind == "200":
                client.post(f"/api/tables/{table_id}/actions", headers=headers, json=answer.json()["action"])
            if kind == "429 in flight":
                time.sleep(FLOOD_RETRY_SECONDS)
                continue  # the same seat asks again: the table did not move
            if kind == "429 rate":
                time.sleep(float(answer.headers.get("Retry-After", "1")))
            turn = -1

    threads = [
        threading.Thread(target=ask, args=table, daemon=True)
        for table in flood_tables(client, tables)
        for _ in range(per_table)
    ]
    for thread in threads:
        thread.start()
    return threads


def client_times(client: httpx.Client, moves: int) -> dict[str, list[float]]:
    """The measuring client's figures (ms): ``moves`` moves against greedy, a third as many replies
    of an expert opponent, a sixth as many hints; the same deals each time."""
    return {
        "greedy_move_ms": greedy_move_times(client, moves, 0),
        "expert_reply_ms": [1000 * s for s in opponent_times(client, moves // 3, 100)],
        "hint_ms": hint_times(client, moves // 6, 200),
    }


def measure_hints(tables: int, per_table: int, moves: int) -> HintsResult:
    """The measuring client's figures alone, under the flood, and alone again, on one server: the
    flooded figures against both unloaded runs together (the machine's drift meanwhile shows as
    the second alone run against the first)."""
    with (
        server_with_default_limits() as base_url,
        httpx.Client(base_url=base_url, timeout=300) as client,
    ):
        before = client_times(client, moves)
        stop, tally = threading.Event(), FloodTally()
        flooders = flood(base_url, tables, per_table, stop, tally)
        time.sleep(3.0)  # the flood is under way
        started = time.monotonic()
        flooded = client_times(client, moves)
        ended = time.monotonic()
        stop.set()
        for thread in flooders:
            thread.join(60)
        after = client_times(client, moves)

    def both(name: str) -> Flooded:
        alone = before[name] + after[name]
        return {
            "alone": figures(alone),
            "alone_again": figures(after[name], before[name]),
            "flooded": figures(flooded[name], alone),
        }

    return {
        "flood_tables": tables,
        "flood_requests_at_once": tables * per_table,
        "flood_answers": dict(tally.statuses),
        "flood_window_s": round(ended - started, 1),
        "flood_hints_per_s": round(tally.answered(started, ended) / (ended - started), 2),
        "flood_busy_fraction": tally.busy_fraction(started, ended),
        "greedy_move_ms": both("greedy_move_ms"),
        "expert_reply_ms": both("expert_reply_ms"),
        "hint_ms": both("hint_ms"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m triage.web.stress_service", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("check", choices=["reads", "frozen", "hints"])
    parser.add_argument(
        "--db",
        default=None,
        help="reads: SQLAlchemy URL, or 'postgresql' for a throwaway cluster (default: a fresh SQLite file)",
    )
    parser.add_argument(
        "--seconds", type=float, default=None, help="how long the database is held or stopped"
    )
    parser.add_argument("--writers", type=int, default=12, help="reads: writes waiting for the database")
    parser.add_argument("--tables", type=int, default=18, help="hints: the flooding client's 4-seat tables")
    parser.add_argument(
        "--per-table", type=int, default=2, help="hints: the flooding client's requests at once per table"
    )
    parser.add_argument(
        "--moves",
        type=int,
        default=60,
        help="hints: moves against greedy timed (a third as many expert replies, a sixth as many hints)",
    )
    parser.add_argument("--server-src", default=None, help="run the server from the sources in this folder")
    options = parser.parse_args(argv)
    if options.server_src:  # the server process reads its sources from there (this one is loaded)
        os.environ["PYTHONPATH"] = options.server_src
    result: HintsResult | ReadsResult | FrozenResult
    if options.check == "hints":
        result = measure_hints(options.tables, options.per_table, options.moves)
    elif options.check == "reads":
        with contextlib.ExitStack() as stack:
            db = options.db
            if db == "postgresql":  # a throwaway cluster of its own
                from triage.web.scratch_pg import throwaway_cluster

                db = stack.enter_context(throwaway_cluster()).url
            base_url, db_url = stack.enter_context(serving(db))
            result = measure_reads(base_url, db_url, options.seconds or 20.0, options.writers)
    else:
        result = measure_frozen(options.seconds or 15.0)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
