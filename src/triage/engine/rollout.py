"""Rollouts: play a game on from its state with a cheap policy, on integer actions, no views.

Search bots (Monte Carlo, IS-MCTS) spend most of their time playing positions to the end. A
policy here is ``policy(game, ids, rng) -> id``: it gets the game itself and the ids of
:meth:`Game.legal_action_ids`, and returns one of them.

What a policy may read: the whole state of the ``game`` it is given. That is fair only where
the game is a world the searching player may see in full, which is what search plays in: a
determinized world (:func:`triage.engine.determinize.determinize` of the player's own view)
holds drawn guesses, not the real hidden cards. Never run a state-reading policy on the real
game for a seat's decision: that would use what the seat cannot know (rules.md I4).

>>> import random
>>> from triage.engine import Game
>>> game = Game.new(players=2, seed=1)
>>> actions = rollout(game, greedy_policy, random.Random(1))
>>> game.is_over(), actions > 10
(True, True)
"""

from __future__ import annotations

import random
from typing import Callable

from triage.engine.actions import _plan
from triage.engine.game import Game

Policy = Callable[[Game, list[int], random.Random], int]


def random_policy(game: Game, ids: list[int], rng: random.Random) -> int:
    """A uniformly random legal action."""
    return ids[int(rng.random() * len(ids))]


def greedy_policy(game: Game, ids: list[int], rng: random.Random) -> int:
    """A one-step greedy policy on the state: cure what can be cured now (the reward it
    brings), diagnose, heal, treat terminal patients, in that order of preference; pay with
    tokens before Staff and Congress Doctors (T6); admit to the lowest free space; never use a
    Helicopter or buy; pass when nothing else is worth doing. Ties go to the first listed."""
    if len(ids) == 1:
        return ids[0]
    plan = _plan(game)
    table = plan.table
    state = game.players[game.turn]  # type: ignore[index]
    cards = game.cards
    best = ids[-1]
    best_score = -1.0e9
    for action_id in ids:
        block, fields = table[action_id]
        if block == "heal":
            slot = state.hospital[fields[0]]
            spec = cards[slot.card]  # type: ignore[union-attr]
            difficulty = spec.healing if spec.healing is not None else slot.time  # type: ignore[union-attr]
            amount = fields[1] + 1
            if amount == difficulty - slot.placed:  # type: ignore[union-attr]
                score = 10.0 + spec.credits + spec.vp + (3.0 if spec.kind in ("critical", "severe") else 0.0)
            else:
                score = 2.0 + 0.1 * amount
            score -= 0.5 * (fields[2] + fields[3])
        elif block == "diagnose":
            score = 5.0 - 0.5 * (fields[1] + fields[2])
        elif block == "treat":
            score = 3.0 - 0.5 * (fields[1] != 0)
        elif block in ("admit", "reject"):
            score = -float(action_id)
        elif block == "pass":
            score = 0.0
        else:
            score = -1.0
        if score > best_score:
            best, best_score = action_id, score
    return best


def rollout(game: Game, policy: Policy = random_policy, rng: random.Random | None = None, limit: int | None = None) -> int:
    """Play ``game`` on in place with ``policy`` until it ends (or ``limit`` actions); the
    number of actions taken. Copy the game first to keep it."""
    rng = rng or random.Random()
    count = 0
    while game.turn is not None and (limit is None or count < limit):
        ids = game.legal_action_ids()
        game.apply_id(policy(game, ids, rng))
        count += 1
    return count
