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
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from triage.sim.games import CARD_COUNTS, ECONOMY, FATES, KINDS, SimJob, kind_column, play_game

#: How many rows a Parquet row group holds: fixed, so the bytes never depend on the chunking.
ROW_GROUP = 65536
METADATA_KEY = b"triage.sim"

#: One column of a result file: its name and its Arrow type.
Column = tuple[str, pa.DataType]

PLAYER_COLUMNS: list[Column] = [
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
    *[(kind_column(fate, kind), pa.int16()) for fate in FATES for kind in KINDS],
    *[(name, pa.int16()) for name in ECONOMY],
]
PLAYER_SCHEMA = pa.schema(PLAYER_COLUMNS)
CARD_COLUMNS: list[Column] = [
    ("game", pa.int64()),
    ("card", pa.string()),
    ("kind", pa.string()),
    *[(name, pa.int16()) for name in CARD_COUNTS],
]
CARD_SCHEMA = pa.schema(CARD_COLUMNS)

Progress = Callable[[int], None]


@dataclass(frozen=True)
class Chunk:
    """Games ``start`` to ``stop - 1`` of a run."""

    start: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.start


@dataclass
class SimResult:
    """The rows of a run: one per player per game, one per card per game."""

    players: pa.Table
    cards: pa.Table


def play_chunk(job: SimJob, chunk: Chunk) -> tuple[pa.Table, pa.Table]:
    """Play a chunk of games; its rows as two Arrow tables (cheap to send between processes)."""
    player_rows: list[dict[str, Any]] = []
    card_rows: list[dict[str, Any]] = []
    for index in range(chunk.start, chunk.stop):
        players, cards = play_game(job, index)
        player_rows.extend(players)
        card_rows.extend(cards)
    return (
        pa.Table.from_pylist(player_rows, schema=PLAYER_SCHEMA),
        pa.Table.from_pylist(card_rows, schema=CARD_SCHEMA),
    )


def make_chunks(games: int, workers: int, start: int = 0) -> list[Chunk]:
    """Chunks small enough to share the work evenly and show progress, big enough to be cheap.

    >>> [len(chunk) for chunk in make_chunks(10, 2)]
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    >>> make_chunks(1000, 2)[:2]
    [Chunk(start=0, stop=31), Chunk(start=31, stop=62)]
    >>> len(make_chunks(100_000, 2))
    500
    """
    size = max(1, min(200, games // (max(1, workers) * 16)))
    return [Chunk(first, min(first + size, start + games)) for first in range(start, start + games, size)]


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run_local(job: SimJob, games: int, workers: int, progress: Progress | None = None) -> SimResult:
    """Play ``games`` games on ``workers`` local processes (1: in this process)."""
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    chunks = make_chunks(games, workers)
    if workers == 1:
        return _gather(
            chunks, ((index, play_chunk(job, chunk)) for index, chunk in enumerate(chunks)), progress
        )
    # spawn, not fork: the parent may run threads (the progress bar), which fork does not copy safely.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(play_chunk, job, chunk): index for index, chunk in enumerate(chunks)}

        def finished() -> Iterator[tuple[int, tuple[pa.Table, pa.Table]]]:
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield futures[future], future.result()

        return _gather(chunks, finished(), progress)


def run_ray(
    job: SimJob, games: int, address: str, workers: int | None = None, progress: Progress | None = None
) -> SimResult:
    """Play ``games`` games as Ray tasks. ``address``: ``auto`` (the cluster RAY_ADDRESS names,
    else a new local instance), ``local`` (always a new local instance) or a cluster address
    (``HOST:PORT`` or ``ray://HOST:PORT``). A Ray already initialised in this process is used as is
    and left running; one started here is shut down at the end."""
    import ray

    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address == "local":
            ray.init(address="local", num_cpus=workers, **options)
        elif address == "auto":
            ray.init(address=os.environ.get("RAY_ADDRESS") or None, num_cpus=None, **options)
        else:
            ray.init(address=address, **options)
    try:
        total_cpus = int(ray.cluster_resources().get("CPU", 1))
        chunks = make_chunks(games, workers or total_cpus)
        remote_chunk = ray.remote(play_chunk)
        job_ref = ray.put(job)
        refs = {remote_chunk.remote(job_ref, chunk): index for index, chunk in enumerate(chunks)}

        def finished() -> Iterator[tuple[int, tuple[pa.Table, pa.Table]]]:
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield refs[ref], ray.get(ref)

        return _gather(chunks, finished(), progress)
    finally:
        if started:
            ray.shutdown()


def _gather(
    chunks: list[Chunk],
    results: Iterator[tuple[int, tuple[pa.Table, pa.Table]]],
    progress: Progress | None,
) -> SimResult:
    """Collect chunk results as they finish, then put them in game order."""
    by_index: dict[int, tuple[pa.Table, pa.Table]] = {}
    for index, tables in results:
        by_index[index] = tables
        if progress is not None:
            progress(len(chunks[index]))
    ordered = [by_index[index] for index in range(len(chunks))]
    players = pa.concat_tables([tables[0] for tables in ordered] or [PLAYER_SCHEMA.empty_table()])
    cards = pa.concat_tables([tables[1] for tables in ordered] or [CARD_SCHEMA.empty_table()])
    return SimResult(players.combine_chunks(), cards.combine_chunks())


def cards_path(out: Path) -> Path:
    """Where the card rows of a result file live: ``results.parquet`` -> ``results.cards.parquet``."""
    return out.with_name(out.name.removesuffix(".parquet") + ".cards.parquet")


def job_metadata(job: SimJob, games: int) -> dict[str, Any]:
    """What produced a result file (no worker count or backend: they never change the rows)."""
    return {
        "format": "triage.sim/1",
        "games": games,
        "players": job.players,
        "bots": list(job.bots),
        "seed": job.seed,
        "rotate": job.rotate,
        "duplicate": job.duplicate,
        "config": job.config.to_dict(),
        "deck": None if job.deck is None else [card.to_dict() for card in job.deck],
    }


def write_results(result: SimResult, out: Path, metadata: dict[str, Any]) -> tuple[Path, Path]:
    """Write the player rows to ``out`` and the card rows beside it (:func:`cards_path`)."""
    meta = {METADATA_KEY: json.dumps(metadata, sort_keys=True).encode()}
    out.parent.mkdir(parents=True, exist_ok=True)
    card_out = cards_path(out)
    for table, path in ((result.players, out), (result.cards, card_out)):
        pq.write_table(
            table.replace_schema_metadata(meta), path, row_group_size=ROW_GROUP, compression="zstd"
        )
    return out, card_out


def read_metadata(path: Path) -> dict[str, Any]:
    """The job description stored in a result file (empty if it has none)."""
    raw = (pq.read_schema(path).metadata or {}).get(METADATA_KEY)
    return json.loads(raw) if raw else {}
