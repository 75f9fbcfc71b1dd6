"""How strong and how costly a bot is: duplicated deals against another bot, with intervals.

``python -m triage.bots.strength --deals 200 --bots expert,greedy`` plays every deal twice in a
2-player game, the two bots swapping seats, and reports the first bot's win rate (ties count
half) and score margin, each with a 95% interval clustered by deal (the two games of a deal share
its luck, so the deal is the unit of the sample). It also reports the CPU time of one core per
decision of each bot (mean, 95th percentile, largest), measured with the thread's clock so that
other work on the machine does not count.

Each decision uses its own generator, seeded from the deal and the action number, so a run is
reproducible for bots whose search is bounded by iterations.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypedDict

from triage.bots import Bot, ExpertBot, bot_form, make_bot
from triage.bots.fast import FastBot
from triage.engine import CardSpec, Config, DataError, Game, view
from triage.engine.cards import load_deck
from triage.engine.config import load_config, parse_assignments


class DecisionTimes(TypedDict):
    """One bot's CPU seconds a decision over a measurement."""

    decisions: int
    mean_s: float
    p95_s: float
    max_s: float


class StrengthSummary(TypedDict):
    """What ``python -m triage.bots.strength`` prints: the first bot's share of the games won
    and its score margin, per deal (both seats), each with its 95% half-width."""

    bots: list[str]
    deals: int
    games: int
    win_rate: float
    win_rate_95: float
    margin: float
    margin_95: float
    cpu_seconds_per_decision: dict[str, DecisionTimes]


@dataclass
class Tally:
    """Per-deal results for the first bot and decision times per bot."""

    bots: tuple[str, str]
    deal_wins: list[float] = field(default_factory=list)
    deal_margins: list[float] = field(default_factory=list)
    seconds: dict[str, list[float]] = field(default_factory=dict)

    def interval(self, values: list[float]) -> tuple[float, float]:
        """Mean and 95% half-width over deals (normal approximation)."""
        mean = statistics.fmean(values)
        if len(values) < 2:
            return mean, math.inf
        return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))

    def summary(self) -> StrengthSummary:
        win, win_half = self.interval(self.deal_wins)
        margin, margin_half = self.interval(self.deal_margins)
        timing: dict[str, DecisionTimes] = {}
        for bot, times in self.seconds.items():
            ordered = sorted(times)
            timing[bot] = {
                "decisions": len(times),
                "mean_s": round(statistics.fmean(times), 5),
                "p95_s": round(ordered[int(0.95 * (len(ordered) - 1))], 5),
                "max_s": round(ordered[-1], 5),
            }
        return {
            "bots": list(self.bots),
            "deals": len(self.deal_wins),
            "games": 2 * len(self.deal_wins),
            "win_rate": round(win, 4),
            "win_rate_95": round(win_half, 4),
            "margin": round(margin, 3),
            "margin_95": round(margin_half, 3),
            "cpu_seconds_per_decision": timing,
        }


@dataclass(frozen=True)
class Setting:
    """What every game of a run is dealt with: players, configuration and deck (None: the
    defaults)."""

    players: int = 2
    config: Config | None = None
    deck: tuple[CardSpec, ...] | None = None


def play_deal(
    names: tuple[str, str], bots: list[Bot], deal: int, seed: int, tally: Tally, setting: Setting
) -> None:
    """Deal ``seed + deal`` twice, the first bot at seat 0 then at seat 1; the other seats
    (3 or 4 players) go to the second bot."""
    wins, margins = [], []
    for first_seat in (0, 1):
        players = setting.players
        game = Game.new(players=players, deck=setting.deck, seed=seed + deal, config=setting.config)
        seating = [1] * players
        seating[first_seat] = 0
        while (seat := game.turn) is not None:  # None once the game is over
            which = seating[seat]
            rng = random.Random(f"strength:{seed + deal}:{first_seat}:{len(game.history)}")
            seen, legal = view(game, seat), game.legal_actions()
            start = time.thread_time()
            action = bots[which].choose(seen, legal, rng)
            tally.seconds[names[which]].append(time.thread_time() - start)
            game.apply(action)
        scores = game.scores()
        best_other = max(score for other, score in enumerate(scores) if other != first_seat)
        wins.append(1.0 if game.winner == first_seat else 0.5 if game.winner is None else 0.0)
        margins.append(scores[first_seat] - best_other)
    tally.deal_wins.append(statistics.fmean(wins))
    tally.deal_margins.append(statistics.fmean(margins))


def strict_bot(name: str) -> Bot:
    """A bot by name; an expert never plays a game without its fitted value with whole playouts
    instead (:class:`~triage.bots.expert.MissingValueError` names the command that fits it)."""
    bot = make_bot(name)
    if isinstance(bot, (ExpertBot, FastBot)):
        bot.strict = True
    return bot


def _deal_chunk(task: tuple[tuple[str, str], list[int], int, Setting]) -> Tally:
    names, deals, seed, setting = task
    bots = [strict_bot(name) for name in names]
    tally = Tally(names, seconds={name: [] for name in names})
    for deal in deals:
        play_deal(names, bots, deal, seed, tally, setting)
    return tally


def measure(
    names: tuple[str, str],
    deals: int,
    seed: int = 0,
    setting: Setting = Setting(),
    progress: bool = False,
    workers: int = 1,
) -> Tally:
    """Play ``deals`` duplicated deals; with ``workers`` > 1, in that many processes (the
    result is the same: each decision's generator depends on the deal only)."""
    tally = Tally(names, seconds={name: [] for name in names})
    chunks = [
        (names, list(range(start, min(deals, start + 5))), seed, setting) for start in range(0, deals, 5)
    ]
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            results = pool.imap(_deal_chunk, chunks)
            _collect(tally, results, progress)
    else:
        _collect(tally, map(_deal_chunk, chunks), progress)
    return tally


def _collect(tally: Tally, results: Iterable[Tally], progress: bool) -> None:
    for part in results:
        tally.deal_wins += part.deal_wins
        tally.deal_margins += part.deal_margins
        for name, times in part.seconds.items():
            tally.seconds[name] += times
        if progress:
            print(
                json.dumps({"progress": len(tally.deal_wins), **tally.summary()}), file=sys.stderr, flush=True
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m triage.bots.strength", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--bots", default="expert,greedy", help="two bot names: the one measured, its opponent"
    )
    parser.add_argument("--deals", type=int, default=100, help="deals, each played twice (seats swapped)")
    parser.add_argument(
        "--players", type=int, default=2, help="players (the second bot fills the other seats)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the first deal (deal i uses seed + i)")
    parser.add_argument("--deck", help="a deck file (default: the standard deck)")
    parser.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a configuration value, e.g. return_to=bottom (repeatable)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes playing deals side by side")
    parser.add_argument("--progress", action="store_true", help="report every 5 deals on stderr")
    args = parser.parse_args(argv)
    names = [name.strip() for name in str(args.bots).split(",")]
    if len(names) != 2:
        parser.error(f"--bots needs two names separated by a comma, got {args.bots!r}")
    if args.deals < 1:
        parser.error(f"--deals must be at least 1, got {args.deals}")
    if not 2 <= args.players <= 4:
        parser.error(f"--players must be 2 to 4, got {args.players}")
    try:
        overrides = parse_assignments(args.settings)
        setting = Setting(
            args.players,
            load_config(None, overrides) if overrides else None,
            tuple(load_deck(args.deck)) if args.deck else None,
        )
        pair = (names[0], names[1])
        tally = measure(pair, args.deals, args.seed, setting, args.progress, max(1, args.workers))
    except (ValueError, DataError) as error:
        parser.error(str(error))
    first = view(
        Game.new(players=setting.players, deck=setting.deck, seed=args.seed, config=setting.config), 0
    )
    forms = {name: bot_form(make_bot(name), first) for name in pair}
    print(json.dumps(tally.summary() | {"bot_forms": forms}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
