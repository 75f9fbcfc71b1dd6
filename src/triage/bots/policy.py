"""Fast playout policies for search: the greedy bot's priorities (and greedy's with farming), run on a game.

Search bots (:mod:`triage.bots.expert`) play thousands of games to their end inside *determinized
worlds*, full games drawn to fit the searching bot's view. Building a view for every move of those
playouts would cost more than the move itself, so the playouts run the greedy priorities
(:func:`triage.bots.greedy.greedy_action`) on the world directly. They act on what the seat to
move would know in that world (its own memory of card backs, I2), so the players it simulates
make :class:`~triage.bots.greedy.GreedyBot`'s choices (with :func:`farming_policy`, those of
:class:`~triage.bots.habits.FarmFirstBot`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from triage.bots.greedy import greedy_action
from triage.bots.habits import FarmFirstBot
from triage.engine.actions import action_to_id
from triage.engine.game import Game
from triage.engine.shapes import Action

Policy = Callable[[Game], Action]


def greedy_policy(game: Game) -> Action:
    """The greedy bot's choice for the seat to move, computed from the game itself."""
    return greedy_action(game)


def farming_policy(game: Game) -> Action:
    """Greedy's priorities with farming known chronic patients by Helicopter put first, right
    after saving the dying (:class:`~triage.bots.habits.FarmFirstBot`): the expert level's
    playouts. A playout that takes the farming chances a strong player takes values the
    positions that offer them (and the ones that leave them to the other player) as they will be
    played; measured against the reference searcher in docs/bots.md ("Strength against the
    yardstick", "Farming first")."""
    return greedy_action(game, FarmFirstBot.turn_class)


def rollout_policy(policy: Policy = greedy_policy) -> Callable[[Game, list[int], random.Random], int]:
    """``policy`` in the form :func:`triage.engine.rollout.rollout` takes (integer ids), for
    search code that plays on ids, such as the OpenSpiel IS-MCTS evaluator.

    >>> from triage.engine import Game
    >>> from triage.engine.rollout import rollout
    >>> game = Game.new(players=2, seed=1)
    >>> rollout(game, rollout_policy(), random.Random(0)) > 10 and game.is_over()
    True
    """

    def choose(game: Game, ids: list[int], rng: random.Random) -> int:
        return action_to_id(game, policy(game))

    return choose


def play_out(
    game: Game, policy: Policy = greedy_policy, limit: int = 10_000, stop_round: int | None = None
) -> Game:
    """Play ``game`` to its end with ``policy`` in every seat (changes ``game``; returns it), or,
    with ``stop_round``, until the first decision of that round if it comes sooner.

    The policy's actions are taken through the engine's integer fast path
    (:meth:`Game.apply_id`), which trusts them: a policy here must return legal actions.
    """
    steps = 0
    stop = stop_round if stop_round is not None else math.inf
    while game.turn is not None and game.round < stop:
        game.apply_id(action_to_id(game, policy(game)))
        steps += 1
        if steps > limit:
            raise RuntimeError(f"a playout ran past {limit} actions without ending (R4)")
    return game
