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
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TypedDict

from triage.bots import Bot, ExpertBot, make_bot
from triage.bots.fast import FastBot
from triage.engine import CardSpec, Config, Event, Game, view
from triage.engine.config import make_config
from triage.engine.vocabulary import KINDS as CARD_KINDS

#: The card kinds (K2), whose fates the player rows count.
KINDS: tuple[str, ...] = tuple(kind.name for kind in CARD_KINDS)
#: What can happen to a patient, counted per player and patient kind in the player rows.
FATES = ("drawn", "admitted", "rejected", "cured", "died", "removed")
#: The prefix of a player-row column counting the purchases of one market item (T8).
BOUGHT = "bought_"


def economy(market: Iterable[str]) -> tuple[str, ...]:
    """The per-player counters of the market, one per item of the configuration's market (T8),
    and of the Helicopter (T7), beside the fates."""
    return (*(BOUGHT + item for item in market), "credits_spent", "flights", "flights_remove", "flights_draw")


def market_items(columns: Iterable[str]) -> list[str]:
    """The market items whose purchases a table of player rows counts, in column order: the
    default market's and any item of a designer's configuration."""
    return [column[len(BOUGHT) :] for column in columns if column.startswith(BOUGHT)]


#: The default market's items (T8): every simulation counts at least these.
DEFAULT_MARKET: tuple[str, ...] = tuple(make_config().market)
#: The economy columns of the default market.
ECONOMY = economy(DEFAULT_MARKET)
#: The per-card counters of the card rows.
CARD_COUNTS = ("drawn", "admitted", "rejected", "cured", "died", "removed", "rounds_in_hospital")
#: The per-round counters of the round rows (one row per seat per round played): deaths and cures
#: (C2, T2-T4), Helicopter flights and the flights that made everyone draw (T7), purchases (T8).
ROUND_COUNTS = ("died", "cured", "flights", "flights_draw", "bought")


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
        """Games per deal: with ``duplicate``, one per distinct seat rotation of the bots (both
        orders for 2 players, every rotation for 3 or 4); a rotation that seats the same bots as
        an earlier one is skipped (a mirror match plays each deal once; ``a,b,a,b`` twice); else 1.

        >>> from triage.engine.config import make_config
        >>> [SimJob(2, bots, 0, make_config(), duplicate=True).orders for bots in (("random",) * 2, ("random", "greedy"))]
        [1, 2]
        """
        if not self.duplicate:
            return 1
        return next(shift for shift in range(1, self.players + 1) if _rotated(self.bots, shift) == self.bots)

    def deal(self, index: int) -> int:
        """The deal game ``index`` is played on: the games of one deal share its seed."""
        return index // self.orders

    def seat_bots(self, index: int) -> list[str]:
        """The bot names by seat in game ``index``. ``rotate`` shifts them one seat per game, and
        ``duplicate`` one seat per replay of the same deal, so that every bot plays every seat
        equally often."""
        if not (self.rotate or self.duplicate):
            return list(self.bots)
        return list(_rotated(self.bots, index % (self.orders if self.duplicate else self.players)))

    def check_games(self, games: int) -> None:
        """A duplicate run plays whole deals only."""
        if games % self.orders:
            raise ValueError(
                f"--duplicate plays each deal {self.orders} times (every distinct seat rotation): "
                f"--games must be a multiple of {self.orders}, got {games}"
            )


def _rotated(bots: tuple[str, ...], shift: int) -> tuple[str, ...]:
    return bots[shift:] + bots[:shift]


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
    #: (round, seat) -> the :data:`ROUND_COUNTS` of that seat in that round.
    per_round: dict[tuple[int, int], dict[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        blank = {kind_column(fate, kind): 0 for fate in FATES for kind in KINDS}
        blank.update(dict.fromkeys(economy(self.game.config.market), 0))
        self.per_player = [dict(blank) for _ in range(self.game.num_players)]
        self.per_card = {handle: dict.fromkeys(CARD_COUNTS, 0) for handle in self.game.cards}

    def in_round(self, player: int) -> dict[str, int]:
        """The current round's counters of ``player``."""
        key = (self.round, player)
        if key not in self.per_round:
            self.per_round[key] = dict.fromkeys(ROUND_COUNTS, 0)
        return self.per_round[key]

    def feed(self, events: Iterable[Event]) -> None:
        for event in events:
            kind = event["type"]
            if kind == "round_started":
                self.round = event["round"]
                for player in range(self.game.num_players):
                    self.in_round(player)
            elif kind in FATES:
                self._fate(kind, event["player"], event["card"])
                if kind in ROUND_COUNTS:
                    self.in_round(event["player"])[kind] += 1
            elif kind == "bought":
                counts = self.per_player[event["player"]]
                counts[BOUGHT + event["item"]] += 1
                counts["credits_spent"] += event["price"]
                self.in_round(event["player"])["bought"] += 1
            elif kind == "helicopter":
                counts = self.per_player[event["player"]]
                counts["flights"] += 1
                counts["flights_remove"] += event["remove"] is not None
                counts["flights_draw"] += bool(event["draw_all"])
                this_round = self.in_round(event["player"])
                this_round["flights"] += 1
                this_round["flights_draw"] += bool(event["draw_all"])
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


@dataclass(frozen=True)
class PlayerRow:
    """A player row's fixed columns (one row per player per game); its counters follow them in
    the file (:attr:`GameRows.counts`)."""

    game: int
    deal: int
    game_seed: int
    players: int
    seat: int
    bot: str
    score: int
    vp: int
    quality: int
    credits: int
    treated: int
    won: bool
    rounds: int
    #: R1: seat 0 is the first player of round 1 (the seat order then rotates).
    first_player: bool
    actions: int
    #: R4 solo: the score tier reached (None with several players or on a loss).
    tier: str | None
    #: Score minus the best other score (0 in a solo game): what the win was by.
    margin: int


class CardRow(TypedDict):
    """One deck-file card in one game: what happened to it (:data:`CARD_COUNTS`)."""

    game: int
    card: str
    kind: str
    drawn: int
    admitted: int
    rejected: int
    cured: int
    died: int
    removed: int
    rounds_in_hospital: int


class RoundRow(TypedDict):
    """One seat in one round: its :data:`ROUND_COUNTS`."""

    game: int
    deal: int
    round: int
    seat: int
    bot: str
    died: int
    cured: int
    flights: int
    flights_draw: int
    bought: int


class TimeRow(TypedDict):
    """One seat's decision times in one game (CPU seconds of the deciding thread)."""

    game: int
    seat: int
    bot: str
    decisions: int
    seconds: float
    longest: float


#: A cell of a result file: a number, a flag, a name or nothing.
Cell = int | float | bool | str | None


@dataclass
class GameRows:
    """What one game gives: player rows with each player's counters, card rows, round rows (one
    per seat per round) and the decision times of each seat (kept apart: they depend on the
    machine, the rest never does)."""

    players: list[PlayerRow]
    #: Each player's counters by column name: the fates by patient kind and the economy, whose
    #: columns depend on the configuration's market (T8), hence a plain mapping.
    counts: list[dict[str, int]]
    cards: list[CardRow]
    rounds: list[RoundRow]
    times: list[TimeRow]

    def player_rows(self) -> list[dict[str, Cell]]:
        """The player rows as a result file holds them: the fixed columns, then the counters."""
        return [{**asdict(row), **counts} for row, counts in zip(self.players, self.counts)]


def play_game(job: SimJob, index: int) -> tuple[list[dict[str, Cell]], list[CardRow]]:
    """Play game ``index`` of ``job`` to the end: its player rows and its card rows."""
    rows = play_game_rows(job, index)
    return rows.player_rows(), rows.cards


def sim_bot(name: str) -> Bot:
    """A bot for the simulator: an expert here is strict, so that a game without its fitted value
    stops with the command that fits it rather than switching to whole playouts without a word."""
    bot = make_bot(name)
    if isinstance(bot, (ExpertBot, FastBot)):
        bot.strict = True
    return bot


def play_game_rows(job: SimJob, index: int) -> GameRows:
    """Play game ``index`` of ``job`` to the end, with every kind of row it gives."""
    seed = derive_seed(job.seed, job.deal(index))
    names = job.seat_bots(index)
    bots = [sim_bot(name) for name in names]
    rngs = [random.Random(derive_seed(job.seed, index, f"seat{seat}")) for seat in range(job.players)]
    game = Game.new(players=job.players, deck=job.deck, seed=seed, config=job.config)
    stats = GameStats(game)
    stats.feed(game.initial_events)
    actions = 0
    thinking = [[0.0, 0.0, 0] for _ in range(job.players)]  # seconds, longest, decisions
    while game.turn is not None:
        seat = game.turn
        legal = game.legal_actions()
        seat_view = view(game, seat)
        start = time.thread_time()
        action = bots[seat].choose(seat_view, legal, rngs[seat])
        spent = time.thread_time() - start
        clock = thinking[seat]
        clock[0] += spent
        clock[1] = max(clock[1], spent)
        clock[2] += 1
        stats.feed(game.apply(action))
        actions += 1
    return GameRows(
        _player_rows(job, index, seed, names, game, actions),
        stats.per_player,
        _card_rows(index, game, stats),
        _round_rows(job, index, names, stats),
        [
            {
                "game": index,
                "seat": seat,
                "bot": names[seat],
                "decisions": int(decisions),
                "seconds": seconds,
                "longest": longest,
            }
            for seat, (seconds, longest, decisions) in enumerate(thinking)
        ],
    )


def _round_rows(job: SimJob, index: int, names: list[str], stats: GameStats) -> list[RoundRow]:
    return [
        {
            "game": index,
            "deal": job.deal(index),
            "round": round_number,
            "seat": seat,
            "bot": names[seat],
            "died": counts["died"],
            "cured": counts["cured"],
            "flights": counts["flights"],
            "flights_draw": counts["flights_draw"],
            "bought": counts["bought"],
        }
        for (round_number, seat), counts in sorted(stats.per_round.items())
    ]


def _player_rows(
    job: SimJob, index: int, seed: int, names: list[str], game: Game, actions: int
) -> list[PlayerRow]:
    return [
        PlayerRow(
            game=index,
            deal=job.deal(index),
            game_seed=seed,
            players=job.players,
            seat=seat,
            bot=names[seat],
            score=player.score,
            vp=player.vp,
            quality=player.quality,
            credits=player.credits,
            treated=player.treated,
            won=game.winner == seat,
            rounds=game.round,
            first_player=seat == 0,
            actions=actions,
            tier=game.solo_tier(),
            margin=player.score
            - max(
                (other.score for number, other in enumerate(game.players) if number != seat),
                default=player.score,
            ),
        )
        for seat, player in enumerate(game.players)
    ]


def _card_rows(index: int, game: Game, stats: GameStats) -> list[CardRow]:
    rows: list[CardRow] = []
    for handle in sorted(game.cards, key=lambda handle: game.origins[handle]):
        counts = stats.per_card[handle]
        rows.append(
            {
                "game": index,
                "card": game.origins[handle],
                "kind": game.cards[handle].kind,
                "drawn": counts["drawn"],
                "admitted": counts["admitted"],
                "rejected": counts["rejected"],
                "cured": counts["cured"],
                "died": counts["died"],
                "removed": counts["removed"],
                "rounds_in_hospital": counts["rounds_in_hospital"],
            }
        )
    return rows
