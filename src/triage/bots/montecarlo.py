"""The ``montecarlo`` reference bot: plain flat Monte-Carlo, the yardstick a search bot must beat.

For each candidate action it draws the same worlds from its seat's view
(:func:`triage.engine.determinize.determinize`), plays the candidate in each, plays the world out to
its end with the greedy playout policy in every seat, and keeps the candidate with the best mean
score margin (its score minus the best other score). No halving, no win bonus, no pruning
beyond the expert's own candidate list: a simple searcher that any cleverer search should beat
for the same CPU. The ladder (``triage ladder``) keeps measuring the levels against it.

Its budget, so that it can be given the same CPU as the bot it is compared with:

* ``worlds`` (default 8): every candidate is played in that many worlds;
* ``playouts``: that many playouts a decision, shared evenly (``playouts // candidates`` worlds,
  at least one): the expert's own budget unit, so ``montecarlo-80`` plays as many games a
  decision as ``expert`` (whose farming playouts run a little longer);
* ``time_limit``: CPU seconds a decision, *filled*: worlds are added one at a time (every
  candidate played in each) until the time is spent; only complete worlds count.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from triage.bots.base import Action, BotForm
from triage.bots.expert import candidate_actions, order_only
from triage.bots.greedy import GreedyBot
from triage.bots.policy import Policy, greedy_policy, play_out
from triage.engine.determinize import determinize
from triage.engine.game import Game
from triage.engine.shapes import View
from triage.engine.views import seat_of

#: Worlds drawn per decision: every candidate is played in each of them (common random numbers).
DEFAULT_WORLDS = 8


def score_margin(game: Game, seat: int) -> int:
    """A finished game's score margin for ``seat``: its score minus the best other (0 solo)."""
    scores = game.scores()
    others = [score for other, score in enumerate(scores) if other != seat]
    return scores[seat] - max(others, default=scores[seat])


def _positive(value: Any, what: str, whole: bool) -> None:
    if whole and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise ValueError(f"montecarlo bot: {what} must be a whole number of at least 1, got {value!r}")
    if not whole and not (isinstance(value, (int, float)) and value > 0):
        raise ValueError(f"montecarlo bot: {what} must be positive seconds, got {value!r}")


class MonteCarloBot:
    """Flat Monte-Carlo over determinized worlds (see the module docstring for its budgets)."""

    #: It searches for a noticeable time a decision: shells run it off their event loop.
    searches = True

    def __init__(
        self,
        worlds: int = DEFAULT_WORLDS,
        time_limit: float | None = None,
        policy: Policy = greedy_policy,
        playouts: int | None = None,
    ) -> None:
        _positive(worlds, "worlds", whole=True)
        if playouts is not None:
            _positive(playouts, "playouts", whole=True)
        if time_limit is not None:
            _positive(time_limit, "time_limit", whole=False)
        if playouts is not None and time_limit is not None:
            raise ValueError("montecarlo bot: give playouts or a time limit, not both")
        self.worlds = worlds
        self.playouts = playouts
        self.time_limit = time_limit
        self.policy = policy
        if time_limit is not None:
            self.name = f"montecarlo-{time_limit:g}s"
        elif playouts is not None:
            self.name = f"montecarlo-{playouts}"
        else:
            self.name = "montecarlo"
        self._greedy = GreedyBot()

    def form(self, view: View) -> BotForm:
        """What this bot is, exactly, for a result file: its worlds, playouts or CPU seconds a
        decision, and its playout policy."""
        return {
            "bot": self.name,
            "worlds": self.worlds,
            "playouts": self.playouts,
            "time_limit": self.time_limit,
            "policy": getattr(self.policy, "__name__", repr(self.policy)),
        }

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        fallback = self._greedy.choose(view, legal, rng)
        candidates = candidate_actions(legal)
        if fallback not in candidates:
            candidates.insert(0, fallback)
        if len(candidates) == 1 or order_only(legal):
            return fallback
        seed = rng.getrandbits(64)
        seat = seat_of(view)
        totals = [0] * len(candidates)
        worlds = self._world_count(len(candidates))
        timed = self.time_limit is not None
        deadline = time.thread_time() + self.time_limit if self.time_limit is not None else math.inf
        played = 0
        while played < worlds or (timed and time.thread_time() < deadline):
            world = determinize(view, random.Random(seed + played))
            margins = self._margins(world, candidates, seat, deadline if played else math.inf)
            if margins is None:
                break  # the time ran out within this world: it does not count
            totals = [total + margin for total, margin in zip(totals, margins)]
            played += 1
        best = max(range(len(candidates)), key=lambda index: (totals[index], -index))
        return candidates[best]

    def _margins(self, world: Game, candidates: list[Action], seat: int, deadline: float) -> list[int] | None:
        """Each candidate's score margin in ``world``, or None when the deadline passes first."""
        margins = []
        for candidate in candidates:
            game = world.copy()
            game.apply(candidate)
            margins.append(score_margin(play_out(game, self.policy), seat))
            if time.thread_time() > deadline:
                return None
        return margins

    def _world_count(self, candidates: int) -> int:
        """Worlds to play before the time, if any, is looked at."""
        if self.time_limit is not None:
            return 1
        if self.playouts is not None:
            return max(1, self.playouts // candidates)
        return self.worlds
