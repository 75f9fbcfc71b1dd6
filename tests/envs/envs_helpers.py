"""Positions for the research-interface tests: games advanced by seeded random play."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

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


def count_tree(game: Any) -> dict[str, Any]:
    """An OpenSpiel game's whole tree walked: its histories, terminal ones, and each player's
    information states (perfect recall: one string each)."""
    counts = {"histories": 0, "terminal": 0}
    infostates: list[set[str]] = [set() for _ in range(game.num_players())]
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        counts["histories"] += 1
        if state.is_terminal():
            counts["terminal"] += 1
        elif state.is_chance_node():
            stack += [state.child(action) for action, _ in state.chance_outcomes()]
        else:
            player = state.current_player()
            infostates[player].add(state.information_state_string(player))
            stack += [state.child(action) for action in state.legal_actions()]
    return {**counts, "infostates": [len(seen) for seen in infostates]}
