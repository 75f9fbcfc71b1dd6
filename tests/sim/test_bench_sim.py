"""Simulator speed, as benchmarks (run with ``--benchmark-enable``; never a timed assertion)."""

from __future__ import annotations

from triage.engine import make_config
from triage.sim.games import SimJob
from triage.sim.runner import Chunk, play_chunk


def test_benchmark_a_chunk_of_greedy_games(benchmark):
    job = SimJob(2, ("greedy", "greedy"), 0, make_config())
    players, cards, _, _ = benchmark(play_chunk, job, Chunk(0, 20))
    assert players.num_rows == 40 and cards.num_rows == 800
