"""One simulated game: play it with bots, and turn its events into statistics rows.

Everything here is a pure function of the job and the game's index, so a game gives the same
rows in whatever process, worker count or backend plays it (issue: determinism).

The statistics read the all-seeing events and ``game.origins`` (which deck-file card is behind
each neutral handle). That is fine for a designer's statistics, never for a player: the bots only
ever get :func:`triage.engine.view` of their own seat.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from triage.bots import make_bot
from triage.engine import CardSpec, Config, Event, Game, view
from triage.engine.config import MARKET_ITEMS

KINDS = ("critical", "severe", "chronic", "non_severe", "terminal")
#: What can happen to a patient, counted per player and patient kind in the player rows.
FATES = ("drawn", "admitted", "rejected", "cured", "died", "removed")
#: Per-player counters of the market and the Helicopter (T7, T8), beside the fates.
ECONOMY = (
    *(f"bought_{item}" for item in MARKET_ITEMS),
    "credits_spent",
    "flights",
    "flights_remove",
    "flights_draw",
)
#: The per-card counters of the card rows.
CARD_COUNTS = ("drawn", "admitted", "rejected", "cured", "died", "removed", "rounds_in_hospital")


def kind_column(fate: str, kind: str) -> str:
    """The player-row column counting ``fate`` events for patients of ``kind``: ``died_severe``."""
    return f"{fate}_{kind}"


@dataclass(frozen=True)
class SimJob:
    """Everything that decides a batch of games, except which games (their indexes)."""

    players: int
    bots: tuple[str, ...]
    seed: int
    config: Config
    deck: tuple[CardSpec, ...] | None = None
    rotate: bool = False
    duplicate: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.players <= 4:
            raise ValueError(f"a game has 1 to 4 players (R1), got {self.players}")
        if len(self.bots) != self.players:
            raise ValueError(f"{len(self.bots)} bots named for {self.players} players: name one per seat")
        if self.rotate and self.duplicate:
            raise ValueError(
                "--rotate and --duplicate exclude each other (--duplicate already plays every seat order)"
            )
        for name in set(self.bots):
            make_bot(name)  # an unknown name fails here, before any worker starts

    @property
    def orders(self) -> int:
        """Games per deal: with ``duplicate``, one per seat rotation of the bots (both orders for
        2 players, every rotation for 3 or 4); else 1."""
        return self.players if self.duplicate else 1

    def deal(self, index: int) -> int:
        """The deal game ``index`` is played on: the games of one deal share its seed."""
        return index // self.orders

    def seat_bots(self, index: int) -> list[str]:
        """The bot names by seat in game ``index``. ``rotate`` shifts them one seat per game, and
        ``duplicate`` one seat per replay of the same deal, so that every bot plays every seat
        equally often."""
        if not (self.rotate or self.duplicate):
            return list(self.bots)
        shift = index % self.players
        return list(self.bots[shift:] + self.bots[:shift])

    def check_games(self, games: int) -> None:
        """A duplicate run plays whole deals only."""
        if games % self.orders:
            raise ValueError(
                f"--duplicate plays each deal {self.orders} times (every seat rotation): "
                f"--games must be a multiple of {self.orders}, got {games}"
            )


def derive_seed(master: int, index: int, purpose: str = "game") -> int:
    """A 63-bit seed for game ``index`` of the run with ``master`` seed (D1: nothing but these).

    >>> derive_seed(7, 0) == derive_seed(7, 0) != derive_seed(7, 1)
    True
    """
    digest = hashlib.sha256(f"triage.sim/{purpose}/{master}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class _Stay:
    """Where a card is in its current stay in a hospital."""

    player: int
    since_round: int


@dataclass
class GameStats:
    """Follows one game's events and counts what happened to each player and each card."""

    game: Game
    round: int = 0
    per_player: list[dict[str, int]] = field(default_factory=list)
    per_card: dict[str, dict[str, int]] = field(default_factory=dict)
    stays: dict[str, _Stay] = field(default_factory=dict)

    def __post_init__(self) -> None:
        blank = {kind_column(fate, kind): 0 for fate in FATES for kind in KINDS}
        blank.update(dict.fromkeys(ECONOMY, 0))
        self.per_player = [dict(blank) for _ in range(self.game.num_players)]
        self.per_card = {handle: dict.fromkeys(CARD_COUNTS, 0) for handle in self.game.cards}

    def feed(self, events: Iterable[Event]) -> None:
        for event in events:
            kind = event["type"]
            if kind == "round_started":
                self.round = event["round"]
            elif kind in FATES:
                self._fate(kind, event["player"], event["card"])
            elif kind == "bought":
                counts = self.per_player[event["player"]]
                counts[f"bought_{event['item']}"] += 1
                counts["credits_spent"] += event["price"]
            elif kind == "helicopter":
                counts = self.per_player[event["player"]]
                counts["flights"] += 1
                counts["flights_remove"] += event["remove"] is not None
                counts["flights_draw"] += bool(event["draw_all"])
            elif kind == "game_over":
                for card in list(self.stays):
                    self._leave(card)

    def _fate(self, fate: str, player: int, card: str) -> None:
        kind = self.game.cards[card].kind
        self.per_player[player][kind_column(fate, kind)] += 1
        self.per_card[card][fate] += 1
        if fate == "admitted":
            self.stays[card] = _Stay(player, self.round)
        elif fate in ("cured", "died", "removed"):
            self._leave(card)

    def _leave(self, card: str) -> None:
        """A stay ends: count the rounds it spanned, the arrival and the leaving one included."""
        stay = self.stays.pop(card)
        self.per_card[card]["rounds_in_hospital"] += self.round - stay.since_round + 1


def play_game(job: SimJob, index: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Play game ``index`` of ``job`` to the end: its player rows and its card rows."""
    seed = derive_seed(job.seed, job.deal(index))
    names = job.seat_bots(index)
    bots = [make_bot(name) for name in names]
    rngs = [random.Random(derive_seed(job.seed, index, f"seat{seat}")) for seat in range(job.players)]
    game = Game.new(players=job.players, deck=job.deck, seed=seed, config=job.config)
    stats = GameStats(game)
    stats.feed(game.initial_events)
    actions = 0
    while game.turn is not None:
        seat = game.turn
        legal = game.legal_actions()
        action = bots[seat].choose(view(game, seat), legal, rngs[seat])
        stats.feed(game.apply(action))
        actions += 1
    return _player_rows(job, index, seed, names, game, stats, actions), _card_rows(index, game, stats)


def _player_rows(
    job: SimJob, index: int, seed: int, names: list[str], game: Game, stats: GameStats, actions: int
) -> list[dict[str, Any]]:
    rows = []
    for seat, player in enumerate(game.players):
        rows.append(
            {
                "game": index,
                "deal": job.deal(index),
                "game_seed": seed,
                "players": job.players,
                "seat": seat,
                "bot": names[seat],
                "score": player.score,
                "vp": player.vp,
                "quality": player.quality,
                "credits": player.credits,
                "treated": player.treated,
                "won": game.winner == seat,
                "rounds": game.round,
                # R1: seat 0 is the first player of round 1 (the seat order then rotates).
                "first_player": seat == 0,
                "actions": actions,
                # R4 solo: the score tier reached (None with several players or on a loss).
                "tier": game.solo_tier(),
                # Score minus the best other score (0 in a solo game): what the win was by.
                "margin": player.score
                - max(
                    (other.score for number, other in enumerate(game.players) if number != seat),
                    default=player.score,
                ),
                **stats.per_player[seat],
            }
        )
    return rows


def _card_rows(index: int, game: Game, stats: GameStats) -> list[dict[str, Any]]:
    rows = []
    for handle in sorted(game.cards, key=lambda handle: game.origins[handle]):
        rows.append(
            {
                "game": index,
                "card": game.origins[handle],
                "kind": game.cards[handle].kind,
                **stats.per_card[handle],
            }
        )
    return rows
