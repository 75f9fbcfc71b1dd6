"""Bot against bot over many games (``triage play --games N``): who wins, and how often.

Seats rotate from game to game (game ``i`` seats bot ``j`` at seat ``(i + j) % players``), so
neither bot keeps the advantage of moving first. Each game has its own seed (``seed + i``), and
bots use the same per-decision generators as a played session, so a match is reproducible.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TypedDict

from triage.bots import make_bot
from triage.engine import Config, Game, view
from triage.engine.cards import CardSpec
from triage.play.session import bot_rng


class MatchSummary(TypedDict):
    """A match's figures as ``triage match --json`` prints them: per bot, the games won, the
    share won and the microseconds a decision."""

    bots: list[str]
    games: int
    ties: int
    wins: dict[str, int]
    win_rate: dict[str, float]
    us_per_decision: dict[str, float]


@dataclass
class MatchResult:
    bots: list[str]
    games: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    ties: int = 0
    total_score: Counter[str] = field(default_factory=Counter)
    decisions: Counter[str] = field(default_factory=Counter)
    thinking: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # seconds

    def win_rate(self, bot: str) -> float:
        return self.wins[bot] / self.games if self.games else 0.0

    def lines(self) -> list[str]:
        seats = f"{len(self.bots)} seat{'s, seats rotating' if len(self.bots) > 1 else ''}"
        no_winner = "ties (no winner)" if len(self.bots) > 1 else "losses (QoC at 0 or below)"
        lines = [f"{self.games} games, {seats}; {no_winner}: {self.ties}"]
        for bot in dict.fromkeys(self.bots):
            seat_count = self.bots.count(bot)
            mean = self.total_score[bot] / (self.games * seat_count) if self.games else 0.0
            per_decision = 1e6 * self.thinking[bot] / self.decisions[bot] if self.decisions[bot] else 0.0
            lines.append(
                f"{bot}: won {self.wins[bot]} ({100 * self.win_rate(bot):.1f}%), mean score {mean:.2f}, "
                f"{per_decision:.0f} us per decision (choose only, {self.decisions[bot]} decisions)"
            )
        return lines

    def to_dict(self) -> MatchSummary:
        return {
            "bots": self.bots,
            "games": self.games,
            "ties": self.ties,
            "wins": dict(self.wins),
            "win_rate": {bot: round(self.win_rate(bot), 4) for bot in dict.fromkeys(self.bots)},
            "us_per_decision": {
                bot: round(1e6 * self.thinking[bot] / self.decisions[bot], 1)
                for bot in dict.fromkeys(self.bots)
                if self.decisions[bot]
            },
        }


def play_match(
    bots: list[str],
    games: int,
    seed: int = 0,
    config: Config | None = None,
    deck: list[CardSpec] | None = None,
) -> MatchResult:
    """Play ``games`` games among ``bots`` (one name per seat), rotating seats each game."""
    if not 1 <= len(bots) <= 4:
        raise ValueError(f"a match needs 1 to 4 bots, got {len(bots)}")
    if games < 1:
        raise ValueError(f"a match needs at least one game, got {games}")
    players = len(bots)
    instances = [make_bot(name) for name in bots]
    result = MatchResult(list(bots))
    clock = time.perf_counter
    for number in range(games):
        game_seed = seed + number
        game = Game.new(players=players, deck=deck, seed=game_seed, config=config)
        at_seat = [(seat - number) % players for seat in range(players)]  # bot index at each seat
        while game.turn is not None:
            seat = game.turn
            index = at_seat[seat]
            seen = view(game, seat)
            legal = game.legal_actions()
            rng = bot_rng(game_seed, len(game.history))
            started = clock()
            action = instances[index].choose(seen, legal, rng)
            result.thinking[bots[index]] += clock() - started
            result.decisions[bots[index]] += 1
            game.apply(action)
        result.games += 1
        for seat, score in enumerate(game.scores()):
            result.total_score[bots[at_seat[seat]]] += score
        if game.winner is None:
            result.ties += 1
        else:
            result.wins[bots[at_seat[game.winner]]] += 1
    return result
