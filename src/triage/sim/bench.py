"""The engine benchmark: random legal games on one core (``triage bench``).

Each action costs one legal-action listing plus one ``apply`` (or, on the integer path, one
``legal_action_ids`` plus one ``apply_id``): that is what a simulator or a search pays per step.
Dealing each game is counted in the time too.

:func:`run_paths_bench` measures the fast paths of search and learning against the dict path in
one run (``triage bench --table``): integer actions, ``view``, ``copy``, ``determinize``, and
search iterations (determinize + copy + rollout).
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass
from typing import Any

from triage.engine import Game
from triage.engine.cards import CardSpec
from triage.engine.config import Config
from triage.engine.shapes import View


@dataclass
class BenchResult:
    games: int
    actions: int
    seconds: float
    players: int
    path: str = "dict"

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    def to_dict(self) -> dict[str, float | int | str]:
        data: dict[str, float | int | str] = asdict(self)
        data["actions_per_s"] = round(self.actions_per_s, 1)
        data["games_per_s"] = round(self.games_per_s, 2)
        return data


def play_random_game(game: Game, rng: random.Random) -> int:
    """Play ``game`` to the end with uniformly random legal actions; the number of actions."""
    count = 0
    choice = rng.choice
    while game.turn is not None:
        game.apply(choice(game.legal_actions()))
        count += 1
    return count


def play_random_game_ids(game: Game, rng: random.Random) -> int:
    """:func:`play_random_game` on integer actions (``legal_action_ids`` + ``apply_id``): the
    same random choices, so the very same game."""
    count = 0
    choice = rng.choice
    while game.turn is not None:
        game.apply_id(choice(game.legal_action_ids()))
        count += 1
    return count


#: What one action costs on each path of ``triage bench --path``.
PLAYERS = {"dict": play_random_game, "ids": play_random_game_ids}


def run_bench(
    players: int = 2,
    seconds: float = 5.0,
    games: int | None = None,
    seed: int = 0,
    deck: list[CardSpec] | None = None,
    config: Config | None = None,
    path: str = "dict",
) -> BenchResult:
    """Play random games for ``seconds`` (or exactly ``games`` games) and time them, on the
    dict path or the integer ``ids`` path (the same games either way)."""
    if path not in PLAYERS:
        raise ValueError(f"unknown bench path {path!r} (paths: {', '.join(PLAYERS)})")
    play = PLAYERS[path]
    rng = random.Random(seed)
    played = actions = 0
    start = time.perf_counter()
    while True:
        game = Game.new(players=players, deck=deck, seed=seed + played, config=config)
        actions += play(game, rng)
        played += 1
        elapsed = time.perf_counter() - start
        if (games is not None and played >= games) or (games is None and elapsed >= seconds):
            return BenchResult(played, actions, elapsed, players, path)


# ---------------------------------------------------------------------- the fast-path table

#: The rows of the table, in order: what one unit of each is.
PATHS: dict[str, str] = {
    "dict": "action: legal_actions() + apply()",
    "ids": "action: legal_action_ids() + apply_id()",
    "view": "view(game, seat)",
    "copy": "game.copy()",
    "determinize": "determinize(view, rng)",
    "search": "iteration: determinize + copy + random rollout to the end",
}
#: The issue's targets, as ratios to the dict path (None: no target).
TARGETS: dict[str, float | None] = {
    "dict": 1.0,
    "ids": 2.0,
    "view": 1.0,
    "copy": 1.0,
    "determinize": 0.2,
    "search": None,
}


@dataclass
class PathsResult:
    """Units per CPU second of each path, measured interleaved in one run."""

    players: int
    rounds: int
    counts: dict[str, int]
    seconds: dict[str, float]

    def per_second(self, path: str) -> float:
        return self.counts[path] / self.seconds[path] if self.seconds[path] else 0.0

    def ratio(self, path: str) -> float:
        return self.per_second(path) / self.per_second("dict")

    def to_dict(self) -> dict[str, object]:
        return {
            "players": self.players,
            "rounds": self.rounds,
            "clock": "process CPU time",
            "paths": {
                path: {
                    "unit": PATHS[path],
                    "count": self.counts[path],
                    "seconds": round(self.seconds[path], 4),
                    "per_s": round(self.per_second(path), 1),
                    "ratio": round(self.ratio(path), 3),
                    "target": TARGETS[path],
                }
                for path in self.counts
            },
        }

    def table(self) -> str:
        lines = ["| path | per second | vs dict path | target |", "| --- | --- | --- | --- |"]
        for path in self.counts:
            target = TARGETS[path]
            lines.append(
                f"| {PATHS[path]} | {self.per_second(path):,.0f} | {self.ratio(path):.2f} | "
                f"{'' if target is None else f'>= {target:g}'} |"
            )
        return "\n".join(lines)


def _positions(players: int, seed: int, games: int, config: Config | None) -> list[tuple[Game, int]]:
    """Every decision position of ``games`` random games (copies), in game order, each with the
    seat to decide there."""
    positions = []
    for number in range(games):
        game = Game.new(players=players, seed=seed + number, config=config)
        rng = random.Random(seed + number)
        while (seat := game.turn) is not None:
            positions.append((game.copy(), seat))
            game.apply_id(rng.choice(game.legal_action_ids()))
    return positions


def run_paths_bench(
    players: int = 2,
    seconds: float = 5.0,
    seed: int = 0,
    paths: tuple[str, ...] = tuple(PATHS),
    config: Config | None = None,
) -> PathsResult:
    """Measure each path of ``paths`` (and always the dict path) for about ``seconds`` in all,
    in interleaved rounds so that a busy machine slows them alike; CPU time of this process.

    Each round deals fresh games, so caches kept per card table (views, action index) are
    warmed inside the timing, as they are once per game in real use."""
    from triage.engine import view
    from triage.engine.determinize import determinize
    from triage.engine.rollout import random_policy, rollout

    paths = ("dict", *(path for path in paths if path != "dict"))
    counts = dict.fromkeys(paths, 0)
    spent = dict.fromkeys(paths, 0.0)
    clock = time.process_time
    rounds = 0
    games_per_round = 4
    while rounds < 3 or sum(spent.values()) < seconds:
        base = seed + rounds * games_per_round
        positions = _positions(players, base, games_per_round, config) if len(paths) > 1 else []
        # The views that determinize and search start from, made after the view path has run
        # (untimed), so that it warms its caches inside its own timing.
        views: list[View] = []
        for path in paths:
            if path in ("determinize", "search") and not views:
                views = [view(position, seat) for position, seat in positions]
            start = clock()
            if path in ("dict", "ids"):
                play = play_random_game if path == "dict" else play_random_game_ids
                for number in range(games_per_round):
                    game = Game.new(players=players, seed=base + number, config=config)
                    counts[path] += play(game, random.Random(base + number))
            elif path == "view":
                for position, seat in positions:
                    view(position, seat)
                counts[path] += len(positions)
            elif path == "copy":
                for position, _ in positions:
                    position.copy()
                counts[path] += len(positions)
            elif path == "determinize":
                rng = random.Random(base)
                for seen in views:
                    determinize(seen, rng)
                counts[path] += len(views)
            elif path == "search":
                rng = random.Random(base)
                for seen in views[::4]:
                    world = determinize(seen, rng).copy()
                    rollout(world, random_policy, rng)
                counts[path] += len(views[::4])
            else:
                raise ValueError(f"unknown bench path {path!r} (known: {', '.join(PATHS)})")
            spent[path] += clock() - start
        rounds += 1
    return PathsResult(players, rounds, counts, spent)
