"""Example: random games through each research interface, checked against the engine.

It trains nothing. Each game is played by uniform random choices among the legal integers of
one interface (OpenSpiel, PettingZoo or Gymnasium) while a plain engine game with the same deal
follows along: at every step both must offer the same legal integers, the chosen integer is
decoded on the engine's own view and applied there, and at the end the interface's final
scores must equal the engine's.

    python -m triage.envs.random_games --games 100 --players 2

>>> [outcome.matches for outcome in gymnasium_games(games=2)]
[True, True]
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

import numpy as np

from triage.engine import Game
from triage.envs.encoding import Layout
from triage.envs.table import Table

#: Each player's score before the first decision (QoC 10, R3).
START_SCORE = 10


@dataclass(frozen=True)
class Outcome:
    """One game: the interface's final scores and those of the engine game that followed it."""

    interface: str
    seed: int
    steps: int
    interface_scores: list[float]
    engine_scores: list[int]

    @property
    def matches(self) -> bool:
        return [float(score) for score in self.engine_scores] == [float(s) for s in self.interface_scores]


class Mirror:
    """The engine game that follows an interface, step by step, through the same integers."""

    def __init__(self, players: int, seed: int, layout: Layout | None = None) -> None:
        self.table = Table(Game.new(players=players, seed=seed), layout)

    def follow(self, seat: int, offered: list[int], index: int) -> None:
        expected = self.table.legal_ids(seat)
        if sorted(int(i) for i in offered) != expected:
            raise AssertionError(f"seat {seat}: the interface offers other integers than the engine")
        action = self.table.layout.decode(self.table.view(seat), index)
        self.table.game.apply(action, seat)


def openspiel_games(games: int = 100, players: int = 2, seed: int = 0) -> list[Outcome]:
    """Deal ``seed + k`` as the chance outcome of game ``k``."""
    import pyspiel

    from triage.envs.openspiel import apply_deal  # registers the game

    game = pyspiel.load_game("triage", {"players": players})
    outcomes = []
    for deal in range(seed, seed + games):
        rng = random.Random(deal)
        state = game.new_initial_state()
        apply_deal(state, deal)
        mirror = Mirror(players, deal)
        steps = 0
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            index = rng.choice(legal)
            mirror.follow(seat, legal, index)
            state.apply_action(index)
            steps += 1
        outcomes.append(Outcome("openspiel", deal, steps, state.returns(), mirror.table.scores()))
    return outcomes


def pettingzoo_games(games: int = 100, players: int = 2, seed: int = 0) -> list[Outcome]:
    """Each game's score is its start plus the agent's summed rewards."""
    from triage.envs.pettingzoo import env as make_env

    environment = make_env(players=players)
    outcomes = []
    for deal in range(seed, seed + games):
        rng = random.Random(deal)
        environment.reset(seed=deal)
        mirror = Mirror(players, deal)
        totals = dict.fromkeys(environment.possible_agents, float(START_SCORE))
        steps = 0
        for agent in environment.agent_iter():
            observation, reward, termination, truncation, _ = environment.last()
            totals[agent] += reward
            if termination or truncation:
                environment.step(None)
                continue
            if not isinstance(observation, dict):
                raise TypeError("pettingzoo_games reads the Dict observation (observation='dict')")
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            index = rng.choice(legal)
            mirror.follow(environment.possible_agents.index(agent), legal, index)
            environment.step(index)
            steps += 1
        scores = [totals[agent] for agent in environment.possible_agents]
        outcomes.append(Outcome("pettingzoo", deal, steps, scores, mirror.table.scores()))
    return outcomes


def gymnasium_games(games: int = 100, seed: int = 0) -> list[Outcome]:
    """The solo game; its score is the start plus the summed rewards."""
    import gymnasium

    import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0

    environment = gymnasium.make("Triage-v0", on_illegal="raise")
    outcomes = []
    for deal in range(seed, seed + games):
        rng = random.Random(deal)
        observation, _ = environment.reset(seed=deal)
        mirror = Mirror(1, deal)
        total, steps, done = float(START_SCORE), 0, False
        while not done:
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            index = rng.choice(legal)
            mirror.follow(0, legal, index)
            observation, reward, terminated, truncated, _ = environment.step(index)
            total += float(reward)
            done = terminated or truncated
            steps += 1
        outcomes.append(Outcome("gymnasium", deal, steps, [total], mirror.table.scores()))
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument(
        "--players", type=int, default=2, help="for OpenSpiel and PettingZoo (Gymnasium is solo)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    runs = [
        openspiel_games(args.games, args.players, args.seed),
        pettingzoo_games(args.games, args.players, args.seed),
        gymnasium_games(args.games, args.seed),
    ]
    failed = 0
    for outcomes in runs:
        wrong = [outcome for outcome in outcomes if not outcome.matches]
        failed += len(wrong)
        steps = sum(outcome.steps for outcome in outcomes)
        print(
            f"{outcomes[0].interface}: {len(outcomes)} games, {steps} decisions, "
            f"{len(outcomes) - len(wrong)} final scores equal to the engine's"
        )
        for outcome in wrong:
            print(
                f"  seed {outcome.seed}: interface {outcome.interface_scores}, engine {outcome.engine_scores}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
