"""``flatmc``: the independent reference searcher, flat Monte-Carlo written from the rules alone.

The expert's strength is measured against a searcher that shares nothing with it but the
engine: not its candidate list, not its playout policy (greedy's priorities), not its search
code. This bot uses only the engine's public API: the seat's view, the legal actions,
:func:`triage.engine.determinize.determinize` to draw worlds that fit the view (I4), the integer
actions (:mod:`triage.engine.actions`) and :func:`triage.engine.rollout.rollout` to play them out.

For each decision it

1. reduces the legal actions to those that differ in substance, by its own reading of the rules:
   one admission per pending card (spaces differ only by number, A6), for each diagnosis, heal or
   treatment one payment (Staff first, since an unused Staff is lost at the next Income, R2, then
   tokens, Congress Doctors last, T6), a heal for the largest amount the means reach (T2);
   Helicopters, purchases and passing as they are;
2. draws worlds from the view, each shared by the candidates played in it (common random
   numbers), plays a candidate in a world and the world to its end with a playout policy in
   every seat;
3. spends its budget by sequential halving (``allocation="halving"``, the default: every
   candidate in the first world, then the better half goes on in new worlds, round after round)
   or on every candidate in every world (``"uniform"``);
4. keeps the candidate with the best mean score margin over the best other player (R4), or,
   with ``score="wins"``, the best win rate (ties count half), margin breaking ties.

The playout policies (:data:`PLAYOUTS`) are its own: ``random`` plays uniformly random legal
moves; ``triage`` a simple priority read off the rules: finish a cure (T4), diagnose (T1), treat
a terminal patient (T5), put healing on a patient who can die (C2), buy the market item that
gives Healing or Diagnostics when it would be used, then pass; admissions at random. A world is a
guess drawn from the view, so reading its state is fair; the real game is never read.

Its budget: ``time_limit`` CPU seconds of the process a decision (``flatmc-<ms>``; a loaded
machine slows the clock of neither bot, so the match does not change with the load), worlds
added until it is spent, a world cut short by the clock not counted; or ``worlds`` worlds a
decision, reproducible (the tests' form).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from triage.bots.base import Action, BotForm
from triage.engine.actions import action_space
from triage.engine.determinize import determinize
from triage.engine.game import Game
from triage.engine.rollout import Policy, random_policy, rollout
from triage.engine.shapes import View
from triage.engine.state import PlayerState
from triage.engine.views import seat_of
from triage.engine.vocabulary import KIND

#: Worlds a decision when neither a time nor a number of worlds is given.
DEFAULT_WORLDS = 16


def triage_policy(game: Game, ids: list[int], rng: random.Random) -> int:
    """The ``triage`` playout: a fixed priority read off the rules (see the module doc)."""
    table = action_space(game).table
    seat = game.turn
    assert seat is not None
    state = game.players[seat]
    if game.resolving == seat and state.pending:
        return ids[int(rng.random() * len(ids))]  # A4: admit (or reject) at random
    best_id, best_rank = ids[-1], (9, 0, 0)
    for action_id in ids:
        block, f = table[action_id]
        rank = _rank(game, state, block, f)
        if rank is not None and rank < best_rank:
            best_id, best_rank = action_id, rank
    if best_rank[0] >= 4:
        bought = _purchase(game, state, ids, table)
        if bought is not None:
            return bought
    return best_id


def _rank(game: Game, state: PlayerState, block: str, f: tuple[int, ...]) -> tuple[int, int, int] | None:
    """Lower is better: (tier, payment cost, -amount); None for what the playout never does."""
    if block == "heal":
        slot = state.hospital[f[0]]
        assert slot is not None  # a heal names an occupied space
        spec = game.cards[slot.card]
        needed = spec.difficulty(slot.time) - slot.placed
        amount = f[1] + 1
        congress, staff = f[3], f[2]
        paid = (congress * 4 - staff, -amount)
        if amount == needed:
            return (0, *paid)  # T4: a cure now
        if KIND[spec.kind].dies_at is not None:
            return (3, *paid)  # C2: these die with Time; healing now may cure next round
        return None
    if block == "diagnose":
        return (1, f[2] * 4 - f[1], 0)
    if block == "treat":
        return (2, (0, -1, 4)[f[1]], 0)
    if block == "pass":
        return (8, 0, 0)
    return None  # Helicopters and purchases: see _purchase; the root tries Helicopters


def _purchase(
    game: Game, state: PlayerState, ids: list[int], table: tuple[tuple[str, tuple[int, ...]], ...]
) -> int | None:
    """T8, asked when nothing but passing is left: the first item in market order that gives
    Healing (Diagnostics) when a revealed (unrevealed) patient lies in the hospital, else None."""
    wants: set[str] = set()
    for slot in state.hospital:
        if slot is None:
            continue
        wants.add("healing" if slot.revealed else "diagnostics")
    if not wants:
        return None
    market = list(game.config.market.values())
    for action_id in ids:
        block, f = table[action_id]
        if block != "buy":
            continue
        gives = dict(market[f[0]].gives)
        if any(gives.get(counter, 0) for counter in wants):
            return action_id
    return None


#: The playout policies, by name (``FlatMonteCarloBot(playout=...)``).
PLAYOUTS: dict[str, Policy] = {"random": random_policy, "triage": triage_policy}


def substantive_actions(legal: list[Action]) -> list[Action]:
    """The legal actions that differ in substance (step 1 of the module doc), in listed order."""
    chosen: dict[tuple[object, ...], Action] = {}
    preference: dict[tuple[object, ...], tuple[int, ...]] = {}
    for action in legal:
        kind = action["type"]
        if kind == "admit":
            key: tuple[object, ...] = (kind, action["card"])
            rank: tuple[int, ...] = ()
        elif kind in ("diagnose", "heal", "treat"):
            pay = action.get("pay") or {}
            key = (kind, action.get("patient") or action.get("card"))
            amount = action.get("amount", 0)
            rank = (-amount, pay.get("congress", 0), -pay.get("staff", 0))
        else:
            key = (kind, repr(sorted(action.items())))
            rank = ()
        if key not in chosen or rank < preference[key]:
            chosen[key] = action
            preference[key] = rank
    return list(chosen.values())


def trivial(legal: list[Action]) -> bool:
    """Whether every legal action comes to the same: only rejections (A5: all are rejected), or
    only admissions with a free space for every pending card (A4: all are admitted)."""
    kinds = {action["type"] for action in legal}
    if kinds == {"reject"}:
        return True
    if kinds != {"admit"}:
        return False
    return len({action["card"] for action in legal}) <= len({action["space"] for action in legal})


def margin(game: Game, seat: int) -> int:
    """A finished game's score margin for ``seat`` over the best other player (R4)."""
    scores = game.scores()
    others = [score for other, score in enumerate(scores) if other != seat]
    return scores[seat] - max(others, default=0)


class FlatMonteCarloBot:
    """Flat Monte-Carlo over worlds drawn from the view, independent of the expert's code (see
    the module doc)."""

    searches = True

    def __init__(
        self,
        time_limit: float | None = None,
        worlds: int | None = None,
        playout: str = "triage",
        score: str = "margin",
        allocation: str = "halving",
        clock: Callable[[], float] = time.process_time,
    ) -> None:
        if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
            raise ValueError(f"flatmc bot: time_limit must be positive seconds, got {time_limit!r}")
        if worlds is not None and (isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1):
            raise ValueError(f"flatmc bot: worlds must be a whole number of at least 1, got {worlds!r}")
        if time_limit is not None and worlds is not None:
            raise ValueError("flatmc bot: give a time limit or a number of worlds, not both")
        if playout not in PLAYOUTS:
            raise ValueError(f"flatmc bot: unknown playout {playout!r} (playouts: {', '.join(PLAYOUTS)})")
        if score not in ("margin", "wins"):
            raise ValueError(f"flatmc bot: score is 'margin' or 'wins', got {score!r}")
        if allocation not in ("uniform", "halving"):
            raise ValueError(f"flatmc bot: allocation is 'uniform' or 'halving', got {allocation!r}")
        self.allocation = allocation
        self.time_limit = time_limit
        self.worlds = worlds if worlds is not None or time_limit is not None else DEFAULT_WORLDS
        self.playout = playout
        self.score = score
        self.clock = clock
        self.name = f"flatmc-{time_limit * 1000:g}" if time_limit is not None else f"flatmc-{self.worlds}w"

    def form(self, view: View) -> BotForm:
        """What this bot is, for a result file."""
        return {
            "bot": self.name,
            "search": f"flat Monte-Carlo, best mean {self.score}",
            "worlds": self.worlds or 0,
            "time_limit": self.time_limit,
            "policy": self.playout,
        }

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        candidates = substantive_actions(legal)
        if len(candidates) == 1 or trivial(legal):
            return candidates[0]
        search = _Search(self, view, candidates, rng.getrandbits(64))
        return candidates[search.halving() if self.allocation == "halving" else search.uniform()]


class _Search:
    """One decision's playouts: worlds drawn once each and shared by every candidate (common
    random numbers), each candidate's total margin and wins."""

    def __init__(self, bot: FlatMonteCarloBot, view: View, candidates: list[Action], seed: int) -> None:
        self.bot = bot
        self.view = view
        self.seat = seat_of(view)
        self.candidates = candidates
        self.seed = seed
        self.policy = PLAYOUTS[bot.playout]
        self.clock = bot.clock
        self.start = self.clock()
        self.deadline = self.start + bot.time_limit if bot.time_limit is not None else math.inf
        self.worlds: list[Game] = []
        self.totals = [0.0] * len(candidates)
        self.wins = [0.0] * len(candidates)
        self.counts = [0] * len(candidates)

    def world(self, index: int) -> Game:
        while len(self.worlds) <= index:
            self.worlds.append(determinize(self.view, random.Random(self.seed + len(self.worlds))))
        return self.worlds[index]

    def play(self, candidate: int, index: int) -> None:
        """Candidate ``candidate`` in world ``index``, played to the end."""
        game = self.world(index).copy()
        game.apply(self.candidates[candidate])
        rollout(game, self.policy, random.Random(self.seed * 31 + index))
        result = margin(game, self.seat)
        self.totals[candidate] += result
        self.wins[candidate] += 1.0 if result > 0 else 0.5 if result == 0 else 0.0
        self.counts[candidate] += 1

    def out_of_time(self) -> bool:
        return self.clock() >= self.deadline

    def key(self, candidate: int) -> tuple[float, float, int]:
        """Best first: the mean of the bot's score (margin or wins), the mean margin, list order."""
        count = max(1, self.counts[candidate])
        main = self.wins if self.bot.score == "wins" else self.totals
        return (main[candidate] / count, self.totals[candidate] / count, -candidate)

    def uniform(self) -> int:
        """Every candidate in every world, worlds added until the budget is spent; a world cut
        short by the clock does not count (the first is always played in full)."""
        everyone = range(len(self.candidates))
        index = 0
        while self.bot.worlds is None or index < self.bot.worlds:
            before = (self.totals.copy(), self.wins.copy(), self.counts.copy())
            for candidate in everyone:
                self.play(candidate, index)
                if index and candidate < len(self.candidates) - 1 and self.out_of_time():
                    self.totals, self.wins, self.counts = before
                    return max(everyone, key=self.key)
            index += 1
            if self.out_of_time():
                break
        return max(everyone, key=self.key)

    def halving(self) -> int:
        """Sequential halving: every candidate in the first world, then rounds in which the
        better half of the candidates left goes on in new worlds, the budget shared evenly
        between the rounds (with a time budget, its playouts are estimated from the first world)."""
        alive = list(range(len(self.candidates)))
        for candidate in alive:
            self.play(candidate, 0)
        if self.out_of_time():
            return max(alive, key=self.key)
        if self.bot.worlds is not None:
            remaining = (self.bot.worlds - 1) * len(alive)
        else:
            pace = max(self.clock() - self.start, 1e-9) / len(alive)
            remaining = int((self.deadline - self.clock()) / pace)
        rounds = max(1, math.ceil(math.log2(len(alive))))
        index = 1
        for number in range(rounds):
            share = max(1, remaining // ((rounds - number) * len(alive)))
            for candidate in alive:
                for world in range(index, index + share):
                    self.play(candidate, world)
                    remaining -= 1
                    if self.out_of_time():
                        return max(alive, key=self.key)
            index += share
            alive.sort(key=self.key, reverse=True)
            alive = alive[: math.ceil(len(alive) / 2)]
        return max(alive, key=self.key)
