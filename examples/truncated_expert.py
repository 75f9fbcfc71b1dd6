"""The expert with short playouts: stop two round starts ahead and score the position with a value.

A designer's bot for ``triage simulate --bots truncated_expert:TruncatedExpert`` (with
``examples/`` on ``PYTHONPATH``), and the command that fits its value:

    PYTHONPATH=examples python examples/truncated_expert.py fit --games 20000 --seed 1000000

The expert's playouts run every world to the game's end, so a decision in round 1 costs about six
times one in round 6. Here a playout stops at the first decision of the round two ahead of the
one it starts in (the game's end, when that comes first) and the world is scored there by a
linear value per round: the seat's features less those of the other player who leads on score
now, fitted on games of the farming playout policy in every seat against the final score margin
(in units of 40 points, as :func:`triage.bots.expert.outcome`). A playout then costs a fraction of
a whole one, so the same CPU buys more of them. A world is a full game drawn from the seat's view,
so the value reads its cards as the playout's own end would.

The fitted weights (``truncated_expert_weights.json``) belong to the configuration, deck and
player count they were fitted on (kept in the file); for any other game the bot plays whole
playouts at the expert's own budget. Measured in docs/bots.md ("Short playouts with a value").
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any, ClassVar

from triage.bots.expert import ExpertBot, Search, outcome
from triage.bots.policy import farming_policy
from triage.engine import Game, view
from triage.engine.actions import action_to_id
from triage.engine.state import COUNTERS

WEIGHTS = Path(__file__).with_name("truncated_expert_weights.json")
#: A playout stops at the first decision of the round this many ahead of its own.
AHEAD = 2
#: Playouts a decision with the value: about the CPU of the expert's 80 whole ones.
PLAYOUTS = 140
KINDS = ("critical", "severe", "chronic", "non_severe", "terminal")
#: The player's numbers read: VP and QoC (the score, R4), then the counters but ``treated``.
NUMBERS = ("vp", "quality", *(name for name in COUNTERS if name not in ("vp", "treated")))


def seat_features(game: Game, seat: int) -> list[float]:
    """A seat's numbers, its hospital by kind (patients, Time, healing still needed, VP and credits
    on their backs), its terminal patients, free spaces and patients waiting to be admitted."""
    player, cards = game.players[seat], game.cards
    features: list[float] = [getattr(player, name) for name in NUMBERS]
    by_kind = [[0] * len(KINDS) for _ in range(5)]
    for slot in player.hospital:
        if slot is None:
            continue
        spec = cards[slot.card]
        kind = KINDS.index(spec.kind)
        difficulty = slot.time if spec.healing is None else spec.healing  # T3: chronic uses its Time
        for row, value in zip(
            by_kind, (1, slot.time, max(0, difficulty - slot.placed), spec.vp, spec.credits)
        ):
            row[kind] += value
    for row in by_kind:
        features += row
    terminals = player.terminals
    features += [
        len(terminals),
        sum(cards[patient.card].vp for patient in terminals),
        sum(patient.time for patient in terminals),
        sum(slot is None for slot in player.hospital),
        len(player.pending),
    ]
    return features


def features(game: Game, seat: int) -> list[float]:
    """The seat's features less those of the other player leading on score now, and a constant."""
    mine = seat_features(game, seat)
    others = [seat_features(game, other) for other in range(len(game.players)) if other != seat]
    leader = max(others, key=lambda other: other[0] + other[1])  # VP + QoC: the score (R4)
    return [a - b for a, b in zip(mine, leader)] + [1.0]


def fingerprint(seat_view: dict[str, Any]) -> str:
    """What a fitted value belongs to: the player count, the configuration and the deck list, as
    every seat's view shows them."""
    deck = sorted(json.dumps(back) for back in seat_view["catalogue"])
    return json.dumps([len(seat_view["players"]), seat_view["config"], deck], sort_keys=True)


# ---------------------------------------------------------------------- fitting


def fit(games: int, seed: int, players: int, ridge: float = 1.0) -> dict[str, Any]:
    """Play ``games`` with the farming policy in every seat; per round, fit the final score margin
    from the features at the round's first decision (ridge regression)."""
    import numpy as np

    rows: dict[int, list[list[float]]] = {}
    targets: dict[int, list[float]] = {}
    for index in range(games):
        game = Game.new(players=players, seed=seed + index)
        seen: list[tuple[int, int, list[float]]] = []
        last_round = None
        while game.turn is not None:
            if game.round != last_round:
                last_round = game.round
                seen += [(game.round, seat, features(game, seat)) for seat in range(players)]
            game.apply_id(action_to_id(game, farming_policy(game)))
        for round_number, seat, row in seen:
            rows.setdefault(round_number, []).append(row)
            targets.setdefault(round_number, []).append(outcome(game, seat))
    weights = {}
    for round_number, table in rows.items():
        x, y = np.array(table), np.array(targets[round_number])
        solved = np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ y)
        weights[str(round_number)] = [round(float(w), 6) for w in solved]
    return {
        "fingerprint": fingerprint(view(Game.new(players=players, seed=seed), 0)),
        "ahead": AHEAD,
        "games": games,
        "seed": seed,
        "weights": weights,
    }


# ---------------------------------------------------------------------- the bot


def load_weights(path: Path = WEIGHTS) -> tuple[str, dict[int, list[float]]]:
    data = json.loads(path.read_text())
    return data["fingerprint"], {int(key): value for key, value in data["weights"].items()}


class ShortSearch(Search):
    """The expert's search with playouts cut :data:`AHEAD` round starts ahead and valued there."""

    #: Per round, the fitted weights (set on the subclass each bot makes for its own file).
    weights: ClassVar[dict[int, list[float]]]

    def finish(self, game: Game) -> float:
        stop = game.round + AHEAD
        while game.turn is not None and game.round < stop:
            game.apply_id(action_to_id(game, self.policy(game)))
        if game.turn is None:
            return outcome(game, self.seat)
        return sum(w * f for w, f in zip(self.weights[game.round], features(game, self.seat)))


class TruncatedExpert(ExpertBot):
    """``expert`` with short playouts valued by the fitted weights, where they fit the game."""

    def __init__(self, playouts: int = PLAYOUTS, weights: Path = WEIGHTS) -> None:
        super().__init__(policy=farming_policy)
        self.fingerprint, fitted = load_weights(weights)
        self.short = ExpertBot(playouts=playouts, policy=farming_policy)
        self.short.search_type = type("ShortSearch", (ShortSearch,), {"weights": fitted})
        self.name = f"truncated-expert-{playouts}"

    def choose(self, seat_view: dict[str, Any], legal: list[Any], rng: random.Random) -> Any:
        if fingerprint(seat_view) == self.fingerprint:
            return self.short.choose(seat_view, legal, rng)
        return super().choose(seat_view, legal, rng)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fitting = commands.add_parser("fit", help="fit the value and write the weights file")
    fitting.add_argument("--games", type=int, default=20_000)
    fitting.add_argument("--seed", type=int, default=1_000_000)
    fitting.add_argument("--players", type=int, default=2)
    fitting.add_argument("--out", type=Path, default=WEIGHTS)
    arguments = parser.parse_args()
    fitted = fit(arguments.games, arguments.seed, arguments.players)
    arguments.out.write_text(json.dumps(fitted) + "\n")
    print(f"wrote {arguments.out}: {arguments.games} games, rounds {sorted(fitted['weights'])}")


if __name__ == "__main__":
    main()
