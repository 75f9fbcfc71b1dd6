"""Rollouts: play a game on from its state with a cheap policy, on integer actions, no views.

Search bots (Monte Carlo, IS-MCTS) spend most of their time playing positions to the end. A
policy here is ``policy(game, ids, rng) -> id``: it gets the game itself and the ids of
:meth:`Game.legal_action_ids`, and returns one of them. The engine offers the uniform random
policy; the greedy bot's priorities, read off the state, are
:func:`triage.bots.policy.rollout_policy` (heuristics belong with the bots, not the rules).

What a policy may read: the whole state of the ``game`` it is given. That is fair only where
the game is a world the searching player may see in full, which is what search plays in: a
determinized world (:func:`triage.engine.determinize.determinize` of the player's own view)
holds drawn guesses, not the real hidden cards. Never run a state-reading policy on the real
game for a seat's decision: that would use what the seat cannot know (rules.md I4).

>>> import random
>>> from triage.engine import Game
>>> game = Game.new(players=2, seed=1)
>>> actions = rollout(game, random_policy, random.Random(1))
>>> game.is_over(), actions > 10
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from triage.engine.game import Game

Policy = Callable[[Game, list[int], random.Random], int]


def random_policy(game: Game, ids: list[int], rng: random.Random) -> int:
    """A uniformly random legal action."""
    return ids[int(rng.random() * len(ids))]


def rollout(
    game: Game, policy: Policy = random_policy, rng: random.Random | None = None, limit: int | None = None
) -> int:
    """Play ``game`` on in place with ``policy`` until it ends (or ``limit`` actions); the
    number of actions taken. Copy the game first to keep it."""
    rng = rng or random.Random()
    if policy is random_policy and limit is None:
        return _random_rollout(game, rng)
    count = 0
    while game.turn is not None and (limit is None or count < limit):
        ids = game.legal_action_ids()
        game.apply_id(policy(game, ids, rng))
        count += 1
    return count


def _random_rollout(game: Game, rng: random.Random) -> int:
    """:func:`rollout` with :func:`random_policy` written out (the same draws, so the same
    game): search plays tens of thousands of actions this way, so no call per action but the
    engine's two."""
    draw = rng.random
    listing = game.legal_action_ids
    apply_id = game.apply_id
    count = 0
    while game.turn is not None:
        ids = listing()
        apply_id(ids[int(draw() * len(ids))])
        count += 1
    return count
