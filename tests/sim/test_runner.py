"""Running many games: the same bytes whatever the workers, chunks or backend (D1, issue point 2)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from triage.engine import make_config
from triage.sim import runner
from triage.sim.games import SimJob
from triage.sim.runner import (
    cards_path,
    job_metadata,
    make_chunks,
    play_chunk,
    read_metadata,
    run_local,
    write_results,
)

GAMES = 24


@pytest.fixture(scope="module")
def job() -> SimJob:
    return SimJob(2, ("greedy", "random"), 11, make_config())


def written(result, tmp_path: Path, name: str, job: SimJob) -> tuple[bytes, bytes]:
    out, cards = write_results(result, tmp_path / f"{name}.parquet", job_metadata(job, GAMES))
    return out.read_bytes(), cards.read_bytes()


@pytest.fixture(scope="module")
def one_worker(job, tmp_path_factory) -> tuple[bytes, bytes]:
    return written(run_local(job, GAMES, 1), tmp_path_factory.mktemp("one"), "one", job)


def test_two_workers_write_the_same_bytes_as_one(job, one_worker, tmp_path):
    assert written(run_local(job, GAMES, 2), tmp_path, "two", job) == one_worker


def test_chunking_does_not_change_the_bytes(job, one_worker, tmp_path, monkeypatch):
    def chunks_of_five(games: int, workers: int, **_: int) -> list[runner.Chunk]:
        return [runner.Chunk(start, min(start + 5, games)) for start in range(0, games, 5)]

    monkeypatch.setattr(runner, "make_chunks", chunks_of_five)
    assert written(run_local(job, GAMES, 1), tmp_path, "fives", job) == one_worker


def test_rows_come_in_game_then_seat_order(job):
    result = run_local(job, 10, 2)
    players = result.players.to_pydict()
    assert players["game"] == [game for game in range(10) for _ in range(2)]
    assert players["seat"] == [0, 1] * 10
    assert players["bot"] == ["greedy", "random"] * 10
    assert result.cards.num_rows == 10 * 40


def test_chunks_cover_every_game_once():
    for games, workers in [(1, 4), (7, 2), (1000, 2), (12345, 3)]:
        chunks = make_chunks(games, workers)
        assert [index for chunk in chunks for index in range(chunk.start, chunk.stop)] == list(range(games))


def test_a_chunk_is_its_games(job):
    whole_players = play_chunk(job, runner.Chunk(0, 4))[0]
    tail_players = play_chunk(job, runner.Chunk(2, 4))[0]
    assert whole_players.slice(4).to_pydict() == tail_players.to_pydict()


def test_result_files_record_the_job_and_hold_both_tables(job, tmp_path):
    out, cards = write_results(run_local(job, 3, 1), tmp_path / "r.parquet", job_metadata(job, 3))
    assert cards == cards_path(out) == tmp_path / "r.cards.parquet"
    meta = read_metadata(out)
    assert (meta["games"], meta["bots"], meta["seed"]) == (3, ["greedy", "random"], 11)
    assert meta["config"]["return_to"] == "top"
    assert pq.read_table(out).num_rows == 6 and pq.read_table(cards).num_rows == 120


def test_workers_must_be_positive(job):
    with pytest.raises(ValueError, match="--workers must be at least 1"):
        run_local(job, 2, 0)
