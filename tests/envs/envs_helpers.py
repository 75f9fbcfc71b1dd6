"""Positions for the research-interface tests: games advanced by seeded random play."""

from __future__ import annotations

import random
from collections.abc import Iterator

from triage.envs import Table


def random_positions(players: int, seeds: range, every: int = 7) -> Iterator[Table]:
    """Every ``every``-th decision of seeded random games (the same Table, advanced in place)."""
    for seed in seeds:
        table = Table.deal(players=players, seed=seed)
        rng = random.Random(seed)
        step = 0
        while not table.game.is_over():
            if step % every == 0:
                yield table
            seat = table.game.turn
            table.play(seat, rng.choice(table.legal_ids(seat)))
            step += 1


def advanced_table(players: int, seed: int, steps: int) -> Table:
    """A game after ``steps`` random decisions (or at its end)."""
    table = Table.deal(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if table.game.is_over():
            break
        seat = table.game.turn
        table.play(seat, rng.choice(table.legal_ids(seat)))
    return table
