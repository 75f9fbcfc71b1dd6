"""The expert bot: Monte-Carlo search over worlds drawn to fit its seat's view.

The bot sees only its seat's view. For each decision it draws *worlds*: full games consistent
with that view (:func:`triage.engine.determinize.determinize`, I4), so whatever it cannot know is
guessed afresh in each world. Every candidate action is tried in the same worlds and the game is
played out to its end with a fast playout policy (:mod:`triage.bots.policy`) in every seat; the
candidate with the best average result is chosen. This is flat Monte-Carlo over determinized
worlds: a one-step improvement of the playout policy, averaged over what the bot cannot see.

Where the game has a fitted value (:mod:`triage.bots.value`: the default game at 2-4 players
ships with one), a playout stops :data:`HORIZON` rounds ahead of its own and the value scores
the world there; a short playout costs about half a whole one, so the level makes more of them.

The budget is a number of playouts per decision, spent by *sequential halving*: every
candidate gets a few playouts, the better half keeps going with more, and so on, so the budget
goes where the choice is close. Candidates are first reduced to the moves that differ in
substance (one admission space per card, at most two payment mixes per step, a heal in full or
as far as the means reach), and the greedy bot's own choice is always one of them.

Levels differ in kind (:data:`LEVELS`), because this search's strength grows slowly with its
budget (docs/bots.md): the expert searches, with playouts that farm known chronic patients as a
strong player does (:func:`triage.bots.policy.farming_policy`); the club level plays those same
priorities without searching; the novice level plays greedy's priorities and slips, one move in
five chosen at random among the moves that differ in substance.

The budget in playouts makes the bot reproducible: the same view and the same generator give
the same choice. A CPU-time cap per decision (``time_limit``) is a safety net on slow machines;
when it cuts a search short the choice may depend on the machine's speed.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from triage.bots.base import Action, BotForm
from triage.bots.greedy import GreedyBot
from triage.bots.habits import FarmFirstBot
from triage.bots.policy import Policy, farming_policy, greedy_policy, play_out
from triage.bots.value import Value, value_for
from triage.engine.determinize import determinize
from triage.engine.game import Game
from triage.engine.shapes import Action, Payment, View
from triage.engine.views import seat_of


@dataclass(frozen=True)
class Level:
    """A level: playouts per decision in a 2-player game (scaled by 2 / players; 0 plays
    ``player``'s choice without searching, and the cap then goes unused), the short playouts it
    makes instead where the game has a fitted value (:mod:`triage.bots.value`: about the same
    CPU, a short playout costing about half a whole one), the CPU-seconds safety
    cap of a decision, the policy the playouts follow in every seat, the priorities that pick the
    move the search starts from (or plays, without search), and the share of moves it ``slips``:
    chosen at random among the moves that differ in substance, as a beginner overlooks things."""

    playouts: int
    short_playouts: int
    time_limit: float
    policy: Policy
    player: type[GreedyBot] = GreedyBot
    slips: float = 0.0


LEVELS: dict[str, Level] = {
    "novice": Level(0, 0, 0.05, greedy_policy, slips=0.2),
    "club": Level(0, 0, 0.05, farming_policy, player=FarmFirstBot),
    "expert": Level(80, 140, 0.25, farming_policy),
}
DEFAULT_LEVEL = "expert"
#: With a value, a playout stops at the first decision of the round this many ahead of its own
#: (docs/notes/strength-short-playouts-with-a-value.md: one round ahead and whole playouts both won less).
HORIZON = 2


@dataclass(frozen=True)
class Budget:
    """How much search one decision may use: ``playouts`` (None: as many as ``time_limit``
    allows) and a cap in CPU seconds (None: no cap)."""

    playouts: int | None
    time_limit: float | None

    def __post_init__(self) -> None:
        if self.playouts is not None and (not isinstance(self.playouts, int) or self.playouts < 1):
            raise ValueError(
                f"expert bot: playouts must be a whole number of at least 1, got {self.playouts!r}"
            )
        if self.time_limit is not None and not (
            isinstance(self.time_limit, (int, float)) and self.time_limit > 0
        ):
            raise ValueError(
                f"expert bot: time_limit must be a positive number of seconds, got {self.time_limit!r}"
            )
        if self.playouts is None and self.time_limit is None:
            raise ValueError("expert bot: give a number of playouts, a time limit, or both")


def level_of(name: str) -> Level:
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown expert level {name!r} (levels: {', '.join(LEVELS)})") from None


class ExpertBot:
    """Flat Monte-Carlo search over determinized worlds (see the module docstring).

    ``level`` picks a budget, a playout policy, the priorities and the slips from
    :data:`LEVELS`; a level without playouts does not search. ``playouts`` alone sets
    an iteration budget (reproducible, no time cap); ``time_limit`` alone a budget in CPU seconds
    per decision (the number of playouts is then estimated from the first ones); both, an
    iteration budget with that cap. ``policy`` replaces the level's playout policy;
    ``valued=False`` plays whole playouts even where the game has a fitted value (the bot named
    ``expert-whole``).

    A game with several players and no fitted value is played with whole playouts, a different
    algorithm: :meth:`form` says which one a game gets, and ``strict`` (the simulator's setting)
    refuses such a game with :class:`MissingValueError`, naming the command that fits its value,
    instead of switching without a word.
    """

    #: A searching level thinks for tenths of a second a decision: shells run it off their
    #: event loop (set per bot: the levels that do not search answer at once).
    searches = True
    #: The search a decision runs: a designer's bot may put a subclass of :class:`Search` here
    #: (for example one whose playouts stop early and score the position with a value).
    search_type: type[Search]

    def __init__(
        self,
        level: str = DEFAULT_LEVEL,
        playouts: int | None = None,
        time_limit: float | None = None,
        policy: Policy | None = None,
        valued: bool = True,
        strict: bool = False,
    ) -> None:
        chosen = level_of(level)
        self.level = level
        #: A level's playouts are for a 2-player game and scale with the players (a playout
        #: of a 4-player game costs about twice as much); an explicit budget is kept as given.
        self.scaled = playouts is None and time_limit is None
        self.budget: Budget | None
        if self.scaled:
            self.budget = Budget(chosen.playouts, chosen.time_limit) if chosen.playouts else None
            self.name = "expert" if level == DEFAULT_LEVEL else f"expert-{level}"
        else:
            self.budget = Budget(playouts, time_limit)
            self.name = f"expert-{playouts}" if time_limit is None else f"expert-{time_limit:g}s"
        #: A level that plays its priorities without searching answers at once.
        self.searches = self.budget is not None
        self.slips = chosen.slips if self.scaled else 0.0
        self.short_playouts = chosen.short_playouts
        #: Whether playouts stop early and score with the game's fitted value, where it has one.
        self.valued = valued
        if not valued and self.scaled and level == DEFAULT_LEVEL:
            self.name = "expert-whole"
        #: Whether a game of several players without a fitted value is refused (never played
        #: with whole playouts instead): the simulator's shells set it.
        self.strict = strict
        self.policy = policy if policy is not None else chosen.policy
        self._player = chosen.player()

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        if self.slips and rng.random() < self.slips:
            return rng.choice(candidate_actions(legal))
        fallback = self._player.choose(view, legal, rng)
        budget = self.budget
        if budget is None:
            return fallback
        candidates = candidate_actions(legal)
        if fallback not in candidates:
            candidates.append(fallback)
        if len(candidates) == 1 or order_only(legal):
            return fallback
        value = self._value(view)
        search = self.search_type(view, candidates, rng, self._budget_for(view, value), self.policy, value)
        return search.run(default=candidates.index(fallback))

    def _value(self, view: View) -> Value | None:
        """The fitted value this bot scores short playouts with in the view's game (None: whole
        playouts); strict, a game of several players without one is refused."""
        if not self.valued:
            return None
        value = value_for(view)
        if value is None and self.strict and len(view["players"]) > 1:
            raise MissingValueError(len(view["players"]))
        return value

    def _budget_for(self, view: View, value: Value | None) -> Budget:
        """The decision's budget: a level's playouts (short ones with a value) scaled by 2 /
        players; an explicit budget as given."""
        budget = self.budget
        assert budget is not None
        if self.scaled and budget.playouts is not None:
            playouts = self.short_playouts if value is not None else budget.playouts
            players = max(1, len(view["players"]))
            budget = Budget(max(1, round(playouts * 2 / players)), budget.time_limit)
        return budget

    def form(self, view: View) -> BotForm:
        """What this bot is in the view's game, exactly: its search (none, whole playouts, or
        short playouts scored by a fitted value), the playouts and CPU cap of a decision, the
        playout policy, the slips, and the value file with its SHA-256. Result files record it."""
        described: BotForm = {"bot": self.name, "level": self.level, "slips": self.slips}
        if self.budget is None:
            described["search"] = "none: plays its priorities"
            described["policy"] = type(self._player).__name__
            return described
        value = value_for(view) if self.valued else None
        budget = self._budget_for(view, value)
        described["search"] = (
            "short playouts scored by a fitted value" if value is not None else "whole playouts"
        )
        described["playouts"] = budget.playouts
        described["time_limit"] = budget.time_limit
        described["policy"] = getattr(self.policy, "__name__", repr(self.policy))
        if value is not None:
            described["value"] = value.provenance()
        elif self.valued and len(view["players"]) > 1:
            described["value"] = "none fitted for this game"
        return described


class MissingValueError(ValueError):
    """A strict expert met a game of several players with no fitted value (docs/simulate.md,
    "The expert on a designer's own game")."""

    def __init__(self, players: int) -> None:
        super().__init__(
            f"the expert has no fitted value for this {players}-player game (configuration and deck): "
            f"fit one with `triage fit-value --players {players} --out values/mine-{players}p.json` (same "
            "--config, --deck and --set) and run with TRIAGE_VALUES=values, or pass --fit-values to fit it "
            "now, or name `expert-whole` to search with whole playouts"
        )
        self.players = players

    def __reduce__(self) -> tuple[type[MissingValueError], tuple[int]]:
        return MissingValueError, (self.players,)  # raised in a worker process, read in its parent


# ---------------------------------------------------------------------- candidates


def candidate_actions(legal: list[Action]) -> list[Action]:
    """The legal actions that differ in substance, in the order they are listed.

    One admission per card (the lowest free space: spaces differ only by number, A6); for each
    diagnosis, treatment or heal, the mix paying tokens first and the one paying Staff first
    (Congress Doctors only where nothing else pays, T6); a heal only for the largest amount the
    means reach. Rejections, Helicopters, purchases and passing are kept as they are.
    """
    chosen: list[Action] = []
    admitted: set[str] = set()
    largest: dict[str, int] = {}
    for action in legal:
        if action["type"] == "heal":
            largest[action["patient"]] = max(largest.get(action["patient"], 0), action["amount"])
    mixes: dict[tuple[str, str], list[Action]] = {}
    order: list[tuple[str, Any]] = []
    for action in legal:
        kind = action["type"]
        if kind == "admit":
            if action["card"] not in admitted:
                admitted.add(action["card"])
                order.append(("one", action))
        elif kind in ("diagnose", "treat", "heal"):
            if kind == "heal" and action["amount"] != largest[action["patient"]]:
                continue
            key = (kind, action["patient"])
            if key not in mixes:
                mixes[key] = []
                order.append(("mix", key))
            mixes[key].append(action)
        else:
            order.append(("one", action))
    for what, item in order:
        if what == "one":
            chosen.append(item)
            continue
        options = mixes[item]
        fewest = min(_mix(option)["congress"] for option in options)
        options = [option for option in options if _mix(option)["congress"] == fewest]
        tokens_first = min(options, key=lambda option: _mix(option)["staff"])
        staff_first = max(options, key=lambda option: _mix(option)["staff"])
        chosen.append(tokens_first)
        if staff_first is not tokens_first:
            chosen.append(staff_first)
    return chosen


def order_only(legal: list[Action]) -> bool:
    """Whether the choice is only an order that changes nothing of substance: every pending
    patient fits a free space (all are admitted, whichever first, A4), or every one is
    rejected (A5)."""
    kinds = {action["type"] for action in legal}
    if kinds == {"reject"}:
        return True
    if kinds != {"admit"}:
        return False
    cards = {action["card"] for action in legal}
    spaces = {action["space"] for action in legal}
    return len(cards) <= len(spaces)


# ---------------------------------------------------------------------- search


def outcome(game: Game, seat: int) -> float:
    """A finished game's worth to ``seat``: its score margin over the best other player (R4), in
    units of 40 points; solo, a game kept (QoC above 0) counts 1 and the score breaks ties.

    The margin, not the win: a playout's margin says by how much a move helped, where a win says
    only whether it tipped this world, so candidates are told apart in fewer worlds (measured
    against the win first in docs/notes/strength-strength-against-the-yardstick.md)."""
    scores = game.scores()
    mine = scores[seat]
    if len(scores) == 1:
        return (1.0 if game.winner == 0 else 0.0) + mine / 40.0
    best_other = max(score for other, score in enumerate(scores) if other != seat)
    return (mine - best_other) / 40.0


class Search:
    """One decision's sequential-halving search over shared worlds."""

    def __init__(
        self,
        view: View,
        candidates: list[Action],
        rng: random.Random,
        budget: Budget,
        policy: Policy,
        value: Value | None = None,
    ) -> None:
        self.view = view
        self.seat = seat_of(view)
        self.candidates = candidates
        self.budget = budget
        self.policy = policy
        self.value = value
        self.world_seed = rng.getrandbits(64)
        #: Exact ties between candidates go to the greedy choice, then by this rank, drawn at
        #: random once per decision from the search's own seeded generator (reproducible). Two
        #: moves with the same effect, such as buying a Clinical Trial or an Outpatient Clinic
        #: (each adds one space, K4), score exactly alike in the shared worlds: list order
        #: would always keep the first.
        self.tie_rank = list(range(len(candidates)))
        random.Random(self.world_seed).shuffle(self.tie_rank)
        self.worlds: list[Game] = []
        self.totals = [0.0] * len(candidates)
        self.counts = [0] * len(candidates)
        self.deadline = time.thread_time() + budget.time_limit if budget.time_limit is not None else math.inf
        self.out_of_time = False

    def world(self, index: int) -> Game:
        """World ``index``: the same for every candidate (common random numbers)."""
        while len(self.worlds) <= index:
            seed_rng = random.Random(self.world_seed + len(self.worlds))
            self.worlds.append(determinize(self.view, seed_rng))
        return self.worlds[index]

    def playout(self, candidate: int, world: int) -> None:
        game = self.world(world).copy()
        game.apply(self.candidates[candidate])
        self.totals[candidate] += self.finish(game)
        self.counts[candidate] += 1
        if time.thread_time() > self.deadline:
            self.out_of_time = True

    def finish(self, game: Game) -> float:
        """A world after the candidate: played to its end by the policy, worth its outcome; with
        a value, played until the first decision :data:`HORIZON` rounds ahead and worth the value
        there."""
        value = self.value
        if value is None:
            return outcome(play_out(game, self.policy), self.seat)
        play_out(game, self.policy, stop_round=game.round + HORIZON)
        return outcome(game, self.seat) if game.turn is None else value(game, self.seat)

    def mean(self, candidate: int) -> float:
        count = self.counts[candidate]
        return self.totals[candidate] / count if count else -math.inf

    def estimate_playouts(self) -> int:
        """Time budget only: one playout per candidate, then the playouts the rest of the time
        allows at that pace."""
        start = time.thread_time()
        for candidate in range(len(self.candidates)):
            self.playout(candidate, 0)
        spent = max(time.thread_time() - start, 1e-6)
        assert self.budget.time_limit is not None
        return max(0, int(len(self.candidates) * self.budget.time_limit / spent) - len(self.candidates))

    def run(self, default: int) -> Action:
        alive = list(range(len(self.candidates)))
        rounds = max(1, math.ceil(math.log2(len(alive))))
        remaining = self.budget.playouts if self.budget.playouts is not None else self.estimate_playouts()
        if self.out_of_time:
            return self.best(alive, default)
        for round_number in range(rounds):
            share = max(1, remaining // ((rounds - round_number) * len(alive)))
            start = self.counts[alive[0]]
            for candidate in alive:
                for world in range(start, start + share):
                    self.playout(candidate, world)
                    remaining -= 1
                    if self.out_of_time:
                        return self.best(alive, default)
            alive.sort(key=lambda c: (-self.mean(c), c != default, self.tie_rank[c]))
            alive = alive[: math.ceil(len(alive) / 2)]
        return self.best(alive, default)

    def best(self, alive: list[int], default: int) -> Action:
        """The candidate with the best mean so far (ties: the greedy choice, then the tie rank);
        when a time cap cut a round short, candidates tried less often still count."""
        tried = [c for c in alive if self.counts[c] > 0]
        if not tried:
            return self.candidates[default]
        return self.candidates[max(tried, key=lambda c: (self.mean(c), c == default, -self.tie_rank[c]))]


ExpertBot.search_type = Search


def _mix(action: Action) -> Payment:
    """A listed action's payment: the listing always spells it out (T6)."""
    pay = action.get("pay")
    if pay is None:
        raise ValueError(f"a listed action without its payment: {action}")
    return pay
