"""The engine benchmark: random legal games on one core (``triage bench``).

Each action costs one legal-action listing plus one ``apply``: that is what a simulator or a
search pays per step. Dealing each game is counted in the time too.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass

from triage.engine import Game
from triage.engine.cards import CardSpec
from triage.engine.config import Config


@dataclass
class BenchResult:
    games: int
    actions: int
    seconds: float
    players: int

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    def to_dict(self) -> dict[str, float | int]:
        data: dict[str, float | int] = asdict(self)
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


def run_bench(
    players: int = 2,
    seconds: float = 5.0,
    games: int | None = None,
    seed: int = 0,
    deck: list[CardSpec] | None = None,
    config: Config | None = None,
) -> BenchResult:
    """Play random games for ``seconds`` (or exactly ``games`` games) and time them."""
    rng = random.Random(seed)
    played = actions = 0
    start = time.perf_counter()
    while True:
        game = Game.new(players=players, deck=deck, seed=seed + played, config=config)
        actions += play_random_game(game, rng)
        played += 1
        elapsed = time.perf_counter() - start
        if (games is not None and played >= games) or (games is None and elapsed >= seconds):
            return BenchResult(played, actions, elapsed, players)
