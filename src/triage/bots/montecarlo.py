"""The ``montecarlo`` reference bot: plain flat Monte-Carlo, the yardstick a search bot must beat.

For each candidate action it draws the same few worlds from its seat's view
(:func:`triage.engine.determinize.determinize`), plays the candidate in each, plays the world out to
its end with the greedy playout policy in every seat, and keeps the candidate with the best mean
score margin (its score minus the best other score). No halving, no win bonus, no pruning
beyond the expert's own candidate list: a simple searcher that any cleverer search should beat
for the same CPU. The ladder (``triage ladder``) keeps measuring the levels against it.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from triage.bots.base import Action
from triage.bots.expert import order_only, candidate_actions
from triage.bots.greedy import GreedyBot
from triage.bots.policy import Policy, greedy_policy, play_out
from triage.engine.determinize import determinize
from triage.engine.game import Game

#: Worlds drawn per decision: every candidate is played in each of them (common random numbers).
DEFAULT_WORLDS = 8


def score_margin(game: Game, seat: int) -> int:
    """A finished game's score margin for ``seat``: its score minus the best other (0 solo)."""
    scores = game.scores()
    others = [score for other, score in enumerate(scores) if other != seat]
    return scores[seat] - max(others, default=scores[seat])


class MonteCarloBot:
    """Flat Monte-Carlo over determinized worlds (see the module docstring).

    ``worlds`` playouts per candidate; ``time_limit`` (CPU seconds per decision, None: no cap)
    stops early, keeping the candidates whose worlds were all played, so equal CPU can be
    given to the bots a ladder compares."""

    #: It searches for a noticeable time a decision: shells run it off their event loop.
    searches = True

    def __init__(
        self, worlds: int = DEFAULT_WORLDS, time_limit: float | None = None, policy: Policy = greedy_policy
    ) -> None:
        if not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"montecarlo bot: worlds must be a whole number of at least 1, got {worlds!r}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"montecarlo bot: time_limit must be positive seconds, got {time_limit!r}")
        self.worlds = worlds
        self.time_limit = time_limit
        self.policy = policy
        self.name = "montecarlo" if time_limit is None else f"montecarlo-{time_limit:g}s"
        self._greedy = GreedyBot()

    def choose(self, view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        fallback = self._greedy.choose(view, legal, rng)
        candidates = candidate_actions(legal)
        if fallback not in candidates:
            candidates.insert(0, fallback)
        if len(candidates) == 1 or order_only(legal):
            return fallback
        deadline = math.inf if self.time_limit is None else time.thread_time() + self.time_limit
        seed = rng.getrandbits(64)
        worlds = [determinize(view, random.Random(seed + number)) for number in range(self.worlds)]
        best, best_mean = fallback, -math.inf
        seat: int = view["viewer"]
        for candidate in candidates:
            total = 0
            for world in worlds:
                game = world.copy()
                game.apply(candidate)
                total += score_margin(play_out(game, self.policy), seat)
            mean = total / len(worlds)
            if mean > best_mean:
                best, best_mean = candidate, mean
            if time.thread_time() > deadline:
                break
        return best
