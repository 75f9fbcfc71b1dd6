"""``expert-fast``: the expert's judgement learned from its own play, plus a small search, answering
in a few milliseconds where the expert spends tens.

The expert (:mod:`triage.bots.expert`) scores each candidate move by the mean of many short
playouts. ``expert-fast`` learns those scores: a small network (numpy at play time) reads each
candidate's *afterstate*, the position one move on in a world drawn from the seat's view
(:func:`triage.engine.determinize.determinize`), as the fitted value's features
(:func:`triage.bots.value.features`), with the move's type, its payment and whether it is the club
level's own move, each beside its difference from the decision's other candidates
(:func:`with_rivals`). The network alone plays at greedy's level (it agrees with the expert no more
often than the club's priorities do); what it does well is put the expert's move among its first
few. So the bot keeps the network's :data:`KEEP` best moves and the club level's, and lets the
expert's own search choose among them with :data:`PLAYOUTS` short playouts scored by the game's
fitted value (:mod:`triage.bots.value`), where the expert spends 140 on every candidate
(docs/notes/strength-expert-fast-a-small-search-on-the-networks-best-moves.md).

The network is trained by ``triage train-fast`` on the decisions of the expert playing itself in
the game at hand (players, configuration, deck): the target of each candidate is the expert's
search mean, centred on the decision's mean, so that the network learns how much better each
move is than its rivals; the moves the expert tried least are weighed least. The network is data,
a JSON file beside the values (``triage/data/values/fast-*.json`` and the directories of
``TRIAGE_VALUES``), found by the game's fingerprint as a value is.

Like the expert it never sees the game, only its seat's view; like the expert it refuses, when
strict, a game for which nothing was trained (:class:`MissingPolicyError`) or no value fitted
(:class:`~triage.bots.expert.MissingValueError`). The same view and generator give the same move:
the playouts are counted, not timed.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

from triage.bots.base import Action, BotForm, Provenance
from triage.bots.expert import Budget, ExpertBot, MissingValueError, Search, candidate_actions, order_only
from triage.bots.habits import FarmFirstBot
from triage.bots.policy import farming_policy
from triage.bots.value import (
    Value,
    by_fingerprint,
    current_fingerprint,
    features,
    fingerprint,
    value_dirs,
    value_for,
)
from triage.engine.determinize import determinize
from triage.engine.game import Game
from triage.engine.shapes import View
from triage.engine.validation import ACTION_FIELDS
from triage.engine.views import seat_of

#: The move types, in a fixed order, for the one-hot part of a candidate's features.
MOVE_TYPES = tuple(ACTION_FIELDS)
#: The network's best moves a searched decision keeps for its playouts (with the club level's move).
KEEP = 3
#: The short playouts those moves share (the expert's sequential halving, at least one each a
#: round): docs/notes/strength-expert-fast-a-small-search-on-the-networks-best-moves.md.
PLAYOUTS = 8
#: (:data:`KEEP`, :data:`PLAYOUTS`) where a player count differs. A playout plays more moves the
#: more players there are (at 4, twice a 2-player one's), so the search is smaller there, to
#: answer within 2 ms a decision: six playouts at 3 players, two moves kept and four playouts at
#: 4 (docs/notes/speed-expert-fast-within-2-ms-at-3-and-4-players.md).
SEARCH_BY_PLAYERS: dict[int, tuple[int, int]] = {3: (3, 6), 4: (2, 4)}
#: How high the network must rank a Helicopter that makes every player draw (T7) for the search to
#: try it, where a player count sets it (elsewhere any of the kept moves). The draws make such a
#: flight the noisiest move of a decision, and the few playouts among three moves chose it far
#: more often than the expert, whose search over every candidate drops most flights early: at 3
#: players the fast bot flew 1.56 draw flights a player-game against the expert's 1.32, and the
#: round's first player, already passed, lost the patients. The network learned the expert's
#: choices (its first choice is a draw flight about as often as the expert's), so at 3 players a
#: draw flight is searched only when the network ranks it first
#: (docs/notes/strength-expert-fast-three-players-first-seat.md).
DRAW_FLIGHT_RANK_BY_PLAYERS: dict[int, int] = {3: 1}
#: What a fast policy file says it is: its network reads each candidate beside its rivals
#: (:func:`with_rivals`). :meth:`FastPolicy.load` also reads :data:`PLAIN_FORMAT`.
FORMAT = "triage.fast/2"
#: The earlier form, whose network reads a candidate's features alone; the shipped 3- and 4-player
#: policies are of this form (docs/notes/strength-expert-fast-three-players-first-seat.md).
PLAIN_FORMAT = "triage.fast/1"

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: The network's arrays by name while it is fitted: ``hidden`` (features x width), ``bias`` and
#: ``output`` (width), and once fitted the features' ``mean`` and ``scale``.
Weights = dict[str, "NDArray[np.float64]"]


class Measured(TypedDict):
    """How a fitted policy did on the fifth of the games held out: the share of decisions where
    its best-scored move is the expert's, the same for the club level's move, and how many."""

    agreement: float
    club_agreement: float
    held_out_decisions: int


class Training(TypedDict, total=False):
    """How a policy file was trained (its ``trained``): the player count, the games and
    decisions it learned from, the first deal's seed, and what :class:`Measured` found."""

    players: int
    games: int
    decisions: int
    seed: int
    agreement: float
    club_agreement: float
    held_out_decisions: int


class DecisionRows(TypedDict):
    """One searched decision of the expert: each candidate's features ``x``, centred search
    mean ``y`` and playouts ``n``, the candidate it chose, and the round."""

    x: list[list[float]]
    y: list[float]
    n: list[int]
    chosen: int
    round: int


def move_features(action: Action, club: bool, rounds_left: int) -> list[float]:
    """A move's own features: its type (one-hot), the Staff and Congress Doctors it pays, a heal's
    amount, whether a Helicopter makes every player draw, whether it is the club level's move,
    and the rounds left (the same for every candidate: it only scales the others through the
    network)."""
    pay = action.get("pay") or {}
    return [
        *(1.0 if action["type"] == kind else 0.0 for kind in MOVE_TYPES),
        float(pay.get("staff", 0)),
        float(pay.get("congress", 0)),
        float(action.get("amount", 0)),
        1.0 if action.get("draw_all") else 0.0,
        1.0 if club else 0.0,
        float(rounds_left),
    ]


def candidate_table(view: View, candidates: list[Action], club: int, rng: random.Random) -> list[list[float]]:
    """Each candidate's features: its afterstate in one world drawn from ``view`` (the value's
    features, seat less the leader) and :func:`move_features`."""
    world = determinize(view, rng)
    seat = seat_of(view)
    rounds_left = world.config.rounds - world.round
    rows = []
    for index, candidate in enumerate(candidates):
        after = world.copy()
        after.apply(candidate)
        rows.append([*features(after, seat), *move_features(candidate, index == club, rounds_left)])
    return rows


@dataclass(frozen=True, eq=False)  # compared and cached by identity: one file, one object
class FastPolicy:
    """A trained scorer: the game it belongs to (its fingerprint), the feature scaling, one hidden
    layer (tanh) and an output; how it was trained; whether it reads each candidate beside its
    rivals (:data:`FORMAT`) or alone (:data:`PLAIN_FORMAT`); the file read and its SHA-256."""

    fingerprint: str
    mean: list[float]
    scale: list[float]
    hidden: list[list[float]]
    hidden_bias: list[float]
    output: list[float]
    trained: Training = field(default_factory=Training)
    rivals: bool = True
    source: str = field(default="", compare=False)
    sha256: str = field(default="", compare=False)

    def arrays(self) -> tuple[Any, ...]:
        """The weights as numpy arrays, made once per policy."""
        return _arrays(self)

    def scores(self, table: list[list[float]]) -> Any:
        """Each candidate's score (higher is better) from its feature row."""
        import numpy as np

        mean, scale, hidden, bias, output = self.arrays()
        x = np.asarray(table, dtype=float)
        x = ((with_rivals(x) if self.rivals else x) - mean) / scale
        return np.tanh(x @ hidden + bias) @ output

    def provenance(self) -> Provenance:
        trained = self.trained
        return {
            "file": self.source,
            "sha256": self.sha256,
            "players": trained.get("players"),
            "decisions": trained.get("decisions"),
            "games": trained.get("games"),
            "seed": trained.get("seed"),
            "agreement": trained.get("agreement"),
            "reads": "each move beside its rivals" if self.rivals else "each move alone",
        }

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT if self.rivals else PLAIN_FORMAT,
                "fingerprint": self.fingerprint,
                "trained": self.trained,
                "mean": self.mean,
                "scale": self.scale,
                "hidden": self.hidden,
                "hidden_bias": self.hidden_bias,
                "output": self.output,
            }
        )

    @classmethod
    def load(cls, path: Path) -> FastPolicy:
        """A fast policy file, or ValueError naming the file and what is wrong in it."""
        try:
            raw = path.read_bytes()
            data = json.loads(raw)
            if data.get("format") not in (FORMAT, PLAIN_FORMAT):
                raise ValueError(f"format {data.get('format')!r}, not {FORMAT!r} or {PLAIN_FORMAT!r}")
            policy = cls(
                current_fingerprint(str(data["fingerprint"])),
                [float(v) for v in data["mean"]],
                [float(v) for v in data["scale"]],
                [[float(v) for v in row] for row in data["hidden"]],
                [float(v) for v in data["hidden_bias"]],
                [float(v) for v in data["output"]],
                data.get("trained", {}),  # the file's own record of its training (Training)
                data["format"] == FORMAT,
                str(path),
                hashlib.sha256(raw).hexdigest(),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"fast policy file {path}: not a trained policy ({error})") from None
        width = len(policy.mean)
        if (
            len(policy.scale) != width
            or len(policy.hidden) != width
            or len(policy.output) != len(policy.hidden_bias)
        ):
            raise ValueError(f"fast policy file {path}: its layers do not fit together")
        expected = INPUT_WIDTH if policy.rivals else FEATURE_WIDTH
        if width != expected:
            raise ValueError(
                f"fast policy file {path}: trained on {width} features, not today's {expected}; "
                "train it again with `triage train-fast`"
            )
        return policy


@cache
def _arrays(policy: FastPolicy) -> tuple[Any, ...]:
    import numpy as np

    return (
        np.asarray(policy.mean),
        np.asarray(policy.scale),
        np.asarray(policy.hidden),
        np.asarray(policy.hidden_bias),
        np.asarray(policy.output),
    )


@cache
def _policies_in(directories: tuple[Path, ...]) -> dict[str, FastPolicy]:
    return by_fingerprint(directories, True, FastPolicy.load)


def policy_for(seat_view: View) -> tuple[FastPolicy | None, bool]:
    """The trained fast policy of the game a view belongs to, and whether it was trained on that
    very game. A game with none of its own (a designer's new price, say) gets a policy trained at
    its player count on another configuration: a move's afterstate carries the price it paid and
    what it bought, so the scorer reads a changed market as it is; the bot's form says so."""
    policies = _policies_in(tuple(value_dirs()))
    own = policies.get(fingerprint(seat_view))
    if own is not None:
        return own, True
    players = len(seat_view["players"])
    nearest = [policy for policy in policies.values() if policy.trained.get("players") == players]
    return (nearest[0], False) if nearest else (None, False)


#: The width of a candidate's features (:func:`candidate_table`).
FEATURE_WIDTH = len(features(Game.new(players=2, seed=0), 0)) + len(move_features({"type": "pass"}, False, 0))
#: The width of the network's input: the features and their difference from the rivals' (:func:`with_rivals`).
INPUT_WIDTH = 2 * FEATURE_WIDTH


def with_rivals(table: Any, group: Any = None) -> Any:
    """Each candidate's features beside their difference from the mean of its decision's candidates
    (``table`` is one decision's rows, or many decisions' with ``group`` naming each row's).

    A move's worth is relative: buying a Congress Doctor differs from its rivals in one count and
    a few Credits, which the afterstate alone buries under everything the candidates share. Read
    beside the difference, the 2-player network put the expert's move among the kept ones more
    often and beat greedy more (docs/notes/strength-expert-fast-three-players-first-seat.md)."""
    import numpy as np

    if group is None:
        return np.hstack([table, table - table.mean(axis=0)])
    sizes = np.bincount(group)
    means = np.stack([np.bincount(group, weights=column) / sizes for column in table.T], axis=1)
    return np.hstack([table, table - means[group]])


def forget_policies() -> None:
    """Read the directories again at the next look-up (after a policy file was written)."""
    _policies_in.cache_clear()


class MissingPolicyError(ValueError):
    """A strict ``expert-fast`` met a game for which no policy was trained."""

    def __init__(self, players: int) -> None:
        super().__init__(
            f"expert-fast has no trained policy for this {players}-player game (configuration and deck): "
            f"train one with `triage train-fast --players {players} --out values/fast-mine-{players}p.json` "
            "(same --config, --deck and --set) and run with TRIAGE_VALUES=values"
        )
        self.players = players

    def __reduce__(self) -> tuple[type[MissingPolicyError], tuple[int]]:
        return MissingPolicyError, (self.players,)


class FastBot:
    """``expert-fast`` (module docstring): the network ranks the candidates, then a few short
    playouts scored by the fitted value choose among its :data:`KEEP` best and the club level's
    move. Without a policy for the game it plays the club level's move, without a fitted value
    the network's best, unless ``strict``."""

    name = "expert-fast"
    searches = False

    def __init__(self, strict: bool = False, keep: int | None = None, playouts: int | None = None) -> None:
        self.strict = strict
        #: The search's size when set here; None: the player count's (:meth:`search_size`).
        self.keep = keep
        self.playouts = playouts
        self._club = FarmFirstBot()
        #: The last game's data files, by what decides them (:meth:`_data_for`).
        self._known: tuple[Any, ...] = ()

    def search_size(self, players: int) -> tuple[int, int]:
        """The moves kept and the playouts they share at ``players`` (:data:`SEARCH_BY_PLAYERS`,
        unless this bot was given its own)."""
        keep, playouts = SEARCH_BY_PLAYERS.get(players, (KEEP, PLAYOUTS))
        return (
            self.keep if self.keep is not None else keep,
            self.playouts if self.playouts is not None else playouts,
        )

    def draw_flight_rank(self, players: int) -> int:
        """How high the network must rank a Helicopter that makes every player draw for the search
        to try it at ``players`` (:data:`DRAW_FLIGHT_RANK_BY_PLAYERS`; elsewhere any kept move)."""
        return DRAW_FLIGHT_RANK_BY_PLAYERS.get(players, self.search_size(players)[0])

    def _data_for(self, view: View) -> tuple[FastPolicy | None, bool, Value | None]:
        """The policy (and whether it is this game's own) and the fitted value of the view's game.
        Found by the game's fingerprint, a JSON text of its whole configuration and deck list: kept
        for the next decision while the directories searched, the view's configuration and deck
        list compare equal (far cheaper than writing the text again), read afresh when they differ."""
        game = (tuple(value_dirs()), len(view["players"]), view["config"], view["catalogue"])
        known = self._known
        if known[:4] == game:
            return known[4], known[5], known[6]
        policy, own = policy_for(view)
        value = value_for(view)
        self._known = (*game, policy, own, value)
        return policy, own, value

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        club = self._club.choose(view, legal, rng)
        candidates = candidate_actions(legal)
        if club not in candidates:
            candidates.append(club)
        if len(candidates) == 1 or order_only(legal):
            return club
        policy, _, value = self._data_for(view)
        if policy is None:
            if self.strict:
                raise MissingPolicyError(len(view["players"]))
            return club
        default = candidates.index(club)
        scores = policy.scores(candidate_table(view, candidates, default, rng))
        ranked = sorted(range(len(candidates)), key=lambda index: (-float(scores[index]), index))
        if value is None:
            if self.strict and len(view["players"]) > 1:
                raise MissingValueError(len(view["players"]))
            return candidates[ranked[0]]
        players = len(view["players"])
        keep, playouts = self.search_size(players)
        kept = kept_moves(ranked, candidates, default, keep, self.draw_flight_rank(players))
        if len(kept) == 1:
            return club
        search = Search(
            view, [candidates[i] for i in kept], rng, Budget(playouts, None), farming_policy, value
        )
        return search.run(default=kept.index(default))

    def form(self, view: View) -> BotForm:
        """What this bot is in the view's game: the policy file (its SHA-256, what it was trained
        on), whether it was trained on this very game, the playouts and the value file."""
        policy, own = policy_for(view)
        described: BotForm = {"bot": self.name}
        if policy is None:
            described["search"] = "none: the club level's move"
            described["policy"] = "none trained at this player count"
            return described
        described["policy"] = policy.provenance()
        described["trained on"] = "this game" if own else "another configuration at this player count"
        value = value_for(view)
        if value is None:
            described["search"] = "none: the trained scorer's best move (no fitted value to score playouts)"
            if len(view["players"]) > 1:
                described["value"] = "none fitted for this game"
            return described
        players = len(view["players"])
        keep, playouts = self.search_size(players)
        flight_rank = self.draw_flight_rank(players)
        flights = (
            f" (a Helicopter making every player draw only among its {flight_rank} best)"
            if flight_rank < keep
            else ""
        )
        described["search"] = (
            f"a trained scorer keeps its {keep} best moves{flights} and the club level's; "
            "short playouts scored by the fitted value choose"
        )
        described["playouts"] = playouts
        described["time_limit"] = None
        described["value"] = value.provenance()
        return described


def kept_moves(
    ranked: list[int], candidates: list[Action], club: int, keep: int, flight_rank: int
) -> list[int]:
    """The candidates the search tries, in their listed order: the network's ``keep`` best
    (``ranked`` best first) and the club level's move (``club``), a Helicopter that makes every
    player draw only when ranked within ``flight_rank`` (:data:`DRAW_FLIGHT_RANK_BY_PLAYERS`)."""
    best = (
        index
        for rank, index in enumerate(ranked[:keep])
        if rank < flight_rank or not candidates[index].get("draw_all")
    )
    return sorted({*best, club})


# ---------------------------------------------------------------------- the expert's decisions


class RecordingSearch(Search):
    """The expert's search, kept after it ran: each candidate's mean and playouts."""

    #: The searches run in this process since the list was last emptied.
    kept: ClassVar[list[RecordingSearch]] = []

    def run(self, default: int) -> Action:
        chosen = super().run(default)
        self.default = default
        self.chosen = self.candidates.index(chosen)
        RecordingSearch.kept.append(self)
        return chosen


class RecordingExpert(ExpertBot):
    """The expert, strict, keeping its searches (:class:`RecordingSearch`)."""

    search_type = RecordingSearch

    def __init__(self, playouts: int | None = None) -> None:
        super().__init__(playouts=playouts, strict=True)


def decision_rows(
    search: RecordingSearch, rng: random.Random
) -> tuple[list[list[float]], list[float], list[int]]:
    """One decision's training rows: the candidates' features, their search means (centred on
    the decision's mean over the candidates tried) and their playout counts."""
    tried = [index for index, count in enumerate(search.counts) if count]
    centre = sum(search.mean(index) for index in tried) / len(tried)
    table = candidate_table(search.view, search.candidates, search.default, rng)
    targets = [search.mean(index) - centre if search.counts[index] else 0.0 for index in range(len(table))]
    return table, targets, list(search.counts)


def play_recorded(
    players: int, seed: int, config: Any, deck: Any, playouts: int | None = None
) -> list[DecisionRows]:
    """One game of the expert in every seat (deal ``seed``; ``playouts`` a decision, or the
    expert level's own); each searched decision's rows."""
    bots = [RecordingExpert(playouts) for _ in range(players)]
    game = Game.new(players=players, deck=deck, seed=seed, config=config)
    rows: list[DecisionRows] = []
    feature_rng = random.Random(f"fast:{seed}")
    while (seat := game.turn) is not None:
        from triage.engine.views import view as seat_view

        rng = random.Random(f"fast:{seed}:{len(game.history)}")
        action = bots[seat].choose(seat_view(game, seat), game.legal_actions(), rng)
        for search in RecordingSearch.kept:
            table, targets, counts = decision_rows(search, feature_rng)
            rows.append({"x": table, "y": targets, "n": counts, "chosen": search.chosen, "round": game.round})
        RecordingSearch.kept.clear()
        game.apply(action)
    return rows


# ---------------------------------------------------------------------- training


@dataclass
class Decisions:
    """The expert's searched decisions, flattened: one row per candidate (features ``x``, centred
    search mean ``y``, playouts ``n``), the decision each row belongs to (``group``), each
    decision's chosen row (``chosen``) and its game (``game``)."""

    x: Any
    y: Any
    n: Any
    group: Any
    chosen: Any
    game: Any

    @classmethod
    def gather(cls, games: list[tuple[int, list[DecisionRows]]]) -> Decisions:
        import numpy as np

        x: list[list[float]] = []
        y: list[float] = []
        n: list[int] = []
        group: list[int] = []
        chosen: list[int] = []
        game: list[int] = []
        for number, rows in games:
            for row in rows:
                start = len(x)
                x += row["x"]
                y += row["y"]
                n += row["n"]
                group += [len(chosen)] * len(row["x"])
                chosen.append(start + row["chosen"])
                game.append(number)
        return cls(
            *(np.asarray(part, dtype=float) for part in (x, y, n)),
            *(np.asarray(part) for part in (group, chosen, game)),
        )

    def save(self, path: Path) -> None:
        import numpy as np

        np.savez_compressed(
            path, x=self.x, y=self.y, n=self.n, group=self.group, chosen=self.chosen, game=self.game
        )

    @classmethod
    def load(cls, path: Path) -> Decisions:
        import numpy as np

        with np.load(path) as data:
            return cls(*(data[name] for name in ("x", "y", "n", "group", "chosen", "game")))

    def select(self, games: Any) -> Decisions:
        """The decisions of the games where ``games`` (a boolean per decision) holds, renumbered."""
        import numpy as np

        keep_rows = games[self.group]
        renumber = np.cumsum(games) - 1
        offsets = np.cumsum(keep_rows) - 1
        return Decisions(
            self.x[keep_rows],
            self.y[keep_rows],
            self.n[keep_rows],
            renumber[self.group[keep_rows]],
            offsets[self.chosen[games]],
            self.game[games],
        )


def _play_seed(task: tuple[int, int, Any, Any, int | None]) -> tuple[int, list[DecisionRows]]:
    players, seed, config, deck, playouts = task
    return seed, play_recorded(players, seed, config, deck, playouts)


def record_decisions(
    players: int,
    games: int,
    seed: int,
    config: Any,
    deck: Any,
    workers: int = 1,
    progress: Any = None,
    time_budget: float | None = None,
    playouts: int | None = None,
) -> Decisions:
    """Play up to ``games`` games of the expert in every seat (deals ``seed`` on, ``workers``
    processes) and keep its searched decisions; after ``time_budget`` wall seconds no game starts."""
    import multiprocessing
    import time

    deadline = time.monotonic() + time_budget if time_budget is not None else float("inf")
    tasks = [(players, seed + index, config, deck, playouts) for index in range(games)]
    played: list[tuple[int, list[DecisionRows]]] = []
    if workers <= 1:
        for task in tasks:
            if time.monotonic() > deadline and played:
                break
            played.append(_play_seed(task))
            if progress is not None:
                progress(1)
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for result in pool.imap_unordered(_play_seed, tasks):
                played.append(result)
                if progress is not None:
                    progress(1)
                if time.monotonic() > deadline:
                    pool.terminate()
                    break
    return Decisions.gather(sorted(played, key=lambda item: item[0]))


def _forward(weights: Weights, x: Any) -> tuple[Any, Any]:
    import numpy as np

    hidden = np.tanh(x @ weights["hidden"] + weights["bias"])
    return hidden, hidden @ weights["output"]


def _gradients(weights: Weights, data: Decisions, x: Any, choice_weight: float) -> tuple[float, Weights]:
    """The loss (the candidates' squared error against the centred search means, weighed by
    their share of the decision's playouts, and the cross-entropy of the expert's choice under a
    softmax of the scores) and its gradients."""
    import numpy as np

    hidden, score = _forward(weights, x)
    decisions = len(data.chosen)
    share = data.n / np.bincount(data.group, weights=data.n)[data.group]
    error = score - data.y
    loss = float((share * error**2).sum()) / decisions
    d_score = 2 * share * error / decisions
    temperature = 0.05
    logits = score / temperature
    top = np.full(decisions, -np.inf)
    np.maximum.at(top, data.group, logits)
    exp = np.exp(logits - top[data.group])
    prob = exp / np.bincount(data.group, weights=exp)[data.group]
    loss += choice_weight * float(-np.log(prob[data.chosen] + 1e-12).sum()) / decisions
    d_logits = prob.copy()
    d_logits[data.chosen] -= 1
    d_score += choice_weight * d_logits / temperature / decisions
    d_hidden = np.outer(d_score, weights["output"]) * (1 - hidden**2)
    grads = {
        "output": hidden.T @ d_score,
        "hidden": x.T @ d_hidden,
        "bias": d_hidden.sum(axis=0),
    }
    return loss, grads


def agreement(policy_scores: Any, data: Decisions) -> float:
    """The share of decisions whose best-scored candidate is the expert's choice."""
    import numpy as np

    top = np.full(len(data.chosen), -np.inf)
    np.maximum.at(top, data.group, policy_scores)
    return float((policy_scores[data.chosen] >= top).mean()) if len(data.chosen) else float("nan")


def fit_policy(
    data: Decisions, width: int = 32, steps: int = 800, choice_weight: float = 0.1, seed: int = 0
) -> tuple[Weights, Measured]:
    """Fit the network on four fifths of the games (Adam, whole batch), measure how often it
    picks the expert's choice on the fifth held out, then fit again on every game."""
    held = data.game % 5 == 0
    fitted, _ = _fit(data.select(~held), width, steps, choice_weight, seed)
    test = data.select(held)
    scores = _score(fitted, test.x, test.group)
    club = test.x[:, -2] == 1.0  # the club level's move (move_features)
    measured: Measured = {
        "agreement": round(agreement(scores, test), 4),
        "club_agreement": round(float(club[test.chosen].mean()), 4),
        "held_out_decisions": len(test.chosen),
    }
    weights, _ = _fit(data, width, steps, choice_weight, seed)
    return weights, measured


def _score(weights: Weights, x: Any, group: Any) -> Any:
    return _forward(weights, (with_rivals(x, group) - weights["mean"]) / weights["scale"])[1]


def _fit(data: Decisions, width: int, steps: int, choice_weight: float, seed: int) -> tuple[Weights, float]:
    import numpy as np

    rng = np.random.default_rng(seed)
    inputs = with_rivals(data.x, data.group)
    mean, scale = inputs.mean(axis=0), inputs.std(axis=0)
    scale[scale < 1e-6] = 1.0
    x = (inputs - mean) / scale
    columns = x.shape[1]
    weights = {
        "hidden": rng.normal(0, 1 / np.sqrt(columns), (columns, width)),
        "bias": np.zeros(width),
        "output": rng.normal(0, 1 / np.sqrt(width), width),
    }
    moments = {key: (np.zeros_like(value), np.zeros_like(value)) for key, value in weights.items()}
    loss = float("nan")
    for step in range(1, steps + 1):
        loss, grads = _gradients(weights, data, x, choice_weight)
        for key, grad in grads.items():
            first, second = moments[key]
            first[:] = 0.9 * first + 0.1 * grad
            second[:] = 0.999 * second + 0.001 * grad**2
            rate = 0.01 * np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
            weights[key] -= rate * first / (np.sqrt(second) + 1e-8)
    return weights | {"mean": mean, "scale": scale}, loss


def make_policy(weights: Weights, game_fingerprint: str, trained: Training) -> FastPolicy:
    """The fitted weights as a :class:`FastPolicy` (rounded, for a readable file)."""

    def rounded(values: Any) -> Any:
        return [round(float(value), 6) for value in values]

    return FastPolicy(
        game_fingerprint,
        rounded(weights["mean"]),
        rounded(weights["scale"]),
        [rounded(row) for row in weights["hidden"]],
        rounded(weights["bias"]),
        rounded(weights["output"]),
        trained,
    )
