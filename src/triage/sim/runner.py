"""Many games at once: split a run into chunks of game indexes, play them on local worker
processes or on a Ray cluster, and gather the rows in game order into Parquet files.

A chunk's rows depend only on the job and its indexes (see :mod:`triage.sim.games`), and the
chunks are put back in index order, so the files are byte-identical whatever the number of
workers, the chunk size or the backend.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import pyarrow as pa
import pyarrow.parquet as pq

from triage.sim.games import (
    CARD_COUNTS,
    DEFAULT_MARKET,
    FATES,
    KINDS,
    ROUND_COUNTS,
    SimJob,
    economy,
    kind_column,
    play_game_rows,
)
from triage.sim.provenance import LadderMetadata, RunMetadata, bot_forms, software

#: How many rows a Parquet row group holds: fixed, so the bytes never depend on the chunking.
ROW_GROUP = 65536
METADATA_KEY = b"triage.sim"

#: One column of a result file: its name and its Arrow type.
Column = tuple[str, pa.DataType]


def player_columns(market: Iterable[str]) -> list[Column]:
    """The player rows' columns for a configuration's market items (T8)."""
    return [
        *PLAYER_HEAD,
        *[(kind_column(fate, kind), pa.int16()) for fate in FATES for kind in KINDS],
        *[(name, pa.int16()) for name in economy(market)],
    ]


PLAYER_HEAD: list[Column] = [
    ("game", pa.int64()),
    ("deal", pa.int64()),
    ("game_seed", pa.int64()),
    ("players", pa.int8()),
    ("seat", pa.int8()),
    ("bot", pa.string()),
    ("score", pa.int32()),
    ("vp", pa.int32()),
    ("quality", pa.int32()),
    ("credits", pa.int32()),
    ("treated", pa.int32()),
    ("won", pa.bool_()),
    ("rounds", pa.int16()),
    ("first_player", pa.bool_()),
    ("actions", pa.int32()),
    ("tier", pa.string()),
    ("margin", pa.int32()),
]
#: The player rows' schema with the default market: every result holds at least its columns.
PLAYER_SCHEMA = pa.schema(player_columns(DEFAULT_MARKET))
CARD_COLUMNS: list[Column] = [
    ("game", pa.int64()),
    ("card", pa.string()),
    ("kind", pa.string()),
    *[(name, pa.int16()) for name in CARD_COUNTS],
]
CARD_SCHEMA = pa.schema(CARD_COLUMNS)
ROUND_COLUMNS: list[Column] = [
    ("game", pa.int64()),
    ("deal", pa.int64()),
    ("round", pa.int16()),
    ("seat", pa.int8()),
    ("bot", pa.string()),
    *[(name, pa.int16()) for name in ROUND_COUNTS],
]
ROUND_SCHEMA = pa.schema(ROUND_COLUMNS)
#: Decision times in CPU seconds of the deciding thread (they vary with the machine: kept out of
#: the player rows, which must be byte-identical from run to run).
TIME_COLUMNS: list[Column] = [
    ("game", pa.int64()),
    ("seat", pa.int8()),
    ("bot", pa.string()),
    ("decisions", pa.int32()),
    ("seconds", pa.float64()),
    ("longest", pa.float64()),
]
TIME_SCHEMA = pa.schema(TIME_COLUMNS)
SCHEMAS = (PLAYER_SCHEMA, CARD_SCHEMA, ROUND_SCHEMA, TIME_SCHEMA)


def schemas(market: Iterable[str]) -> tuple[pa.Schema, ...]:
    """The four tables' schemas for a configuration's market items (T8)."""
    return (pa.schema(player_columns(market)), *SCHEMAS[1:])


Progress = Callable[[int], None]
#: Called with the rows played so far (in game order) while a run goes on.
Checkpoint = Callable[["SimResult"], None]
#: Tables of one chunk: players, cards, rounds, times.
ChunkTables = tuple[pa.Table, pa.Table, pa.Table, pa.Table]


@dataclass(frozen=True)
class Chunk:
    """Games ``start`` to ``stop - 1`` of a run."""

    start: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.start


@dataclass
class SimResult:
    """The rows of a run: one per player per game, one per card per game, one per seat per round,
    and the seats' decision times. ``complete`` is False when a time budget stopped the run."""

    players: pa.Table
    cards: pa.Table
    rounds: pa.Table | None = None
    times: pa.Table | None = None
    complete: bool = True

    @property
    def games(self) -> int:
        """How many games the rows hold."""
        return len(set(self.players.column("game").to_pylist()))


def play_chunk(job: SimJob, chunk: Chunk) -> ChunkTables:
    """Play a chunk of games; its rows as Arrow tables (cheap to send between processes)."""
    games = [play_game_rows(job, index) for index in range(chunk.start, chunk.stop)]
    player_schema, card_schema, round_schema, time_schema = schemas(job.config.market)
    return (
        pa.Table.from_pylist([row for game in games for row in game.player_rows()], schema=player_schema),
        pa.Table.from_pylist([row for game in games for row in game.cards], schema=card_schema),
        pa.Table.from_pylist([row for game in games for row in game.rounds], schema=round_schema),
        pa.Table.from_pylist([row for game in games for row in game.times], schema=time_schema),
    )


def make_chunks(games: int, workers: int, start: int = 0, align: int = 1, most: int = 200) -> list[Chunk]:
    """Chunks small enough to share the work evenly and show progress, big enough to be cheap;
    their sizes are multiples of ``align`` (a duplicate run's games per deal, so a run stopped
    early holds whole deals) and at most ``most`` (rounded up to ``align``).

    >>> [len(chunk) for chunk in make_chunks(10, 2)]
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    >>> make_chunks(1000, 2)[:2]
    [Chunk(start=0, stop=31), Chunk(start=31, stop=62)]
    >>> len(make_chunks(100_000, 2))
    500
    >>> [len(chunk) for chunk in make_chunks(12, 2, align=3)]
    [3, 3, 3, 3]
    """
    size = max(1, min(most, games // (max(1, workers) * 16)))
    size = -(-size // align) * align
    return [Chunk(first, min(first + size, start + games)) for first in range(start, start + games, size)]


@dataclass(frozen=True)
class RunLimits:
    """How a run may stop early and report as it goes: ``time_budget`` in wall seconds (no new
    chunk starts after it), ``checkpoint`` called with the rows so far at most every ``every``
    seconds."""

    time_budget: float | None = None
    checkpoint: Checkpoint | None = None
    every: float = 5.0


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _chunks_for(job: SimJob, games: int, workers: int, limits: RunLimits) -> list[Chunk]:
    """Whole deals per chunk; a few deals under a time budget (the run stops between chunks), at
    most 50 games when checkpoints are written (each chunk costs a little to send back)."""
    if limits.time_budget is not None:
        most = job.orders * 4
    else:
        most = 50 if limits.checkpoint is not None else 200
    return make_chunks(games, workers, align=job.orders, most=most)


def run_local(
    job: SimJob,
    games: int,
    workers: int,
    progress: Progress | None = None,
    limits: RunLimits = RunLimits(),
) -> SimResult:
    """Play ``games`` games on ``workers`` local processes (1: in this process)."""
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    chunks = _chunks_for(job, games, workers, limits)
    if workers == 1:
        return _gather(
            chunks, ((index, play_chunk(job, chunk)) for index, chunk in enumerate(chunks)), progress, limits
        )
    # spawn, not fork: the parent may run threads (the progress bar), which fork does not copy safely.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(play_chunk, job, chunk): index for index, chunk in enumerate(chunks)}

        def finished() -> Generator[tuple[int, ChunkTables], None, None]:
            pending = set(futures)
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        yield futures[future], future.result()
            finally:  # stopped early (time budget): the chunks not started are dropped
                for future in pending:
                    future.cancel()

        return _gather(chunks, finished(), progress, limits)


class RayOptions(TypedDict):
    """What every ``ray.init`` of a run says: no dashboard, no worker output in this terminal."""

    include_dashboard: bool
    log_to_driver: bool


def run_ray(
    job: SimJob,
    games: int,
    address: str,
    workers: int | None = None,
    progress: Progress | None = None,
    limits: RunLimits = RunLimits(),
) -> SimResult:
    """Play ``games`` games as Ray tasks. ``address``: ``auto`` (the cluster RAY_ADDRESS names,
    else a new local instance), ``local`` (always a new local instance) or a cluster address
    (``HOST:PORT`` or ``ray://HOST:PORT``). A Ray already initialised in this process is used as is
    and left running; one started here is shut down at the end."""
    import ray

    started = not ray.is_initialized()
    if started:
        options: RayOptions = {"include_dashboard": False, "log_to_driver": False}
        if address == "local":
            ray.init(address="local", num_cpus=workers, **options)
        elif address == "auto":
            ray.init(address=os.environ.get("RAY_ADDRESS") or None, num_cpus=None, **options)
        else:
            ray.init(address=address, **options)
    try:
        total_cpus = int(ray.cluster_resources().get("CPU", 1))
        chunks = _chunks_for(job, games, workers or total_cpus, limits)
        remote_chunk = ray.remote(play_chunk)
        job_ref = ray.put(job)
        refs = {remote_chunk.remote(job_ref, chunk): index for index, chunk in enumerate(chunks)}

        def finished() -> Generator[tuple[int, ChunkTables], None, None]:
            pending = list(refs)
            try:
                while pending:
                    done, pending = ray.wait(pending, num_returns=1)
                    for ref in done:
                        yield refs[ref], ray.get(ref)
            finally:
                for ref in pending:
                    ray.cancel(ref)

        return _gather(chunks, finished(), progress, limits)
    finally:
        if started:
            ray.shutdown()


def _gather(
    chunks: list[Chunk],
    results: Generator[tuple[int, ChunkTables], None, None],
    progress: Progress | None,
    limits: RunLimits = RunLimits(),
) -> SimResult:
    """Collect chunk results as they finish, then put them in game order. Past the time budget
    no more results are taken; the checkpoint gets the rows so far now and then."""
    start = last_checkpoint = time.monotonic()
    pause = limits.every  # grows with the cost of writing, so checkpoints never take over a long run
    by_index: dict[int, ChunkTables] = {}
    for index, tables in results:
        by_index[index] = tables
        if progress is not None:
            progress(len(chunks[index]))
        now = time.monotonic()
        if limits.checkpoint is not None and now - last_checkpoint >= pause:
            limits.checkpoint(_ordered(by_index, complete=False))
            last_checkpoint = time.monotonic()
            pause = max(limits.every, 10 * (last_checkpoint - now))
        if (
            limits.time_budget is not None
            and now - start >= limits.time_budget
            and len(by_index) < len(chunks)
        ):
            results.close()  # cancels the chunks not started
            return _ordered(by_index, complete=False)
    return _ordered(by_index, complete=True)


def _ordered(by_index: dict[int, ChunkTables], complete: bool) -> SimResult:
    """The chunks gathered so far, in game order, as one result."""
    ordered = [by_index[index] for index in sorted(by_index)]
    players, cards, rounds, times = (
        pa.concat_tables([tables[part] for tables in ordered] or [schema.empty_table()]).combine_chunks()
        for part, schema in enumerate(SCHEMAS)
    )
    return SimResult(players, cards, rounds, times, complete)


def side_path(out: Path, part: str) -> Path:
    """Where the ``part`` rows of a result file live: ``results.parquet`` -> ``results.PART.parquet``."""
    return out.with_name(out.name.removesuffix(".parquet") + f".{part}.parquet")


def cards_path(out: Path) -> Path:
    """Where the card rows of a result file live: ``results.parquet`` -> ``results.cards.parquet``."""
    return side_path(out, "cards")


def job_metadata(
    job: SimJob, games: int, settings: list[str] | None = None, played: int | None = None
) -> RunMetadata:
    """What produced a result file (no worker count or backend: they never change the rows):
    ``games`` asked for, ``played`` (fewer when stopped early), the ``--set`` overrides as given."""
    return {
        "format": "triage.sim/1",
        "games": games if played is None else played,
        "planned_games": games,
        "complete": played is None or played == games,
        "set": list(settings or []),
        "players": job.players,
        "bots": list(job.bots),
        "seed": job.seed,
        "rotate": job.rotate,
        "duplicate": job.duplicate,
        "config": job.config.to_dict(),
        "deck": None if job.deck is None else [card.to_dict() for card in job.deck],
        "bot_forms": bot_forms(job.bots, job.players, job.config, job.deck),
        "software": software(),
    }


def write_results(result: SimResult, out: Path, metadata: RunMetadata) -> tuple[Path, Path]:
    """Write the player rows to ``out`` and the card, round and time rows beside it
    (:func:`side_path`). Each file is written whole under a temporary name, then renamed: a run
    killed while writing keeps the previous checkpoint's file."""
    meta = {METADATA_KEY: json.dumps(metadata, sort_keys=True).encode()}
    out.parent.mkdir(parents=True, exist_ok=True)
    tables: list[tuple[pa.Table | None, Path]] = [(result.players, out), (result.cards, cards_path(out))]
    tables += [
        (table, side_path(out, part)) for table, part in ((result.rounds, "rounds"), (result.times, "times"))
    ]
    for table, path in tables:
        if table is None:
            continue
        partial = path.with_name(path.name + ".partial")
        pq.write_table(
            table.replace_schema_metadata(meta), partial, row_group_size=ROW_GROUP, compression="zstd"
        )
        os.replace(partial, path)
    return out, cards_path(out)


def read_metadata(path: Path) -> RunMetadata | LadderMetadata:
    """The job description stored in a result file (empty if it has none): a ladder's says so by
    its ``format``."""
    raw = (pq.read_schema(path).metadata or {}).get(METADATA_KEY)
    found: RunMetadata | LadderMetadata = json.loads(raw) if raw else {}
    return found
