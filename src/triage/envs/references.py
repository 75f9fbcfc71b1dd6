"""The reference lines of the published baselines: built-in bots on fixed deals.

A learned agent's score means little alone; docs/research.md sets it beside a built-in bot's on
the very deals the agent was evaluated on. :func:`bot_scores` plays those deals through the same
``Triage-v0`` environment the agents use (seat 0; ``opponent`` in the other seat), so the greedy
line moves when the rules, the configuration or the bot do, and a test re-measures it against
the figure the page prints (``tests/envs/test_envs_baselines.py``).

>>> scores = bot_scores("greedy", games=2)
>>> len(scores), all(isinstance(score, float) for score in scores)
(2, True)
"""

from __future__ import annotations

import math
import random
import statistics

from triage.bots import make_bot
from triage.engine import view
from triage.envs.gymnasium import TriageEnv

#: The first evaluation deal: deal ``k`` of an evaluation is ``Game.new(seed=EVAL_SEED + k)``.
EVAL_SEED = 10000


def make_env(opponent: str = "none", config: str = "default") -> TriageEnv:
    """``Triage-v0`` as the baselines train and evaluate on it: solo (``opponent="none"``) or
    seat 0 of two against a bot; the flat, normalised observation."""
    if opponent == "none":
        return TriageEnv(players=1, observation="flat", normalize=True, config=config)
    return TriageEnv(players=2, opponents=opponent, observation="flat", normalize=True, config=config)


def bot_scores(
    name: str, opponent: str = "none", config: str = "default", games: int = 400, first: int = EVAL_SEED
) -> list[float]:
    """Seat 0's final score (VP + QoC) with bot ``name`` in it on deals ``first`` ..
    ``first + games - 1`` (its generator seeded by the deal's index)."""
    env = make_env(opponent, config)
    player = make_bot(name)
    scores = []
    for index in range(games):
        env.reset(seed=first + index)
        rng = random.Random(index)
        game = env.table.game
        while not game.is_over():
            action = player.choose(view(game, 0), game.legal_actions(), rng)
            env.step(env.table.layout.encode(env.table.view(0), action))
            game = env.table.game
        scores.append(float(game.scores()[0]))
    return scores


def interval(values: list[float]) -> dict[str, float]:
    """The mean with a 95% normal interval (half-width 1.96 standard errors; 0 for one value)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return {"mean": mean, "ci95": half, "n": len(values)}
