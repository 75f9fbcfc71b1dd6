"""A fitted value of a position, so that the expert's playouts can stop early.

A whole playout of a round-1 decision plays six rounds, most of which the move hardly touches.
With a value the expert's playouts stop at the first decision of a round a few ahead of their own
(:data:`triage.bots.expert.HORIZON`) and score the world there: a linear function, one
per round, of the seat's features less those of the other player leading on score, fitted by
ridge regression on games of the farming playout policy in every seat against the final score
margin (in units of 40 points, as :func:`triage.bots.expert.outcome`). A short playout costs about
half of a whole one, so the same CPU buys more of them (docs/bots.md, "Short playouts with a
value").

A value belongs to one game: player count, configuration and deck list (its
:func:`fingerprint`). The fitted values are data files (``triage/data/values/*.json``, and any
directory named in ``TRIAGE_VALUES``), written by ``triage fit-value``; a game without one is
searched with whole playouts.

>>> from triage.engine import Game, view
>>> value_for(view(Game.new(players=2, seed=1), 0)) is not None
True
>>> value_for(view(Game.new(players=1, seed=1), 0)) is None  # solo: whole playouts won more
True
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol, TypeVar

from triage.bots.base import Provenance
from triage.engine.cards import KINDS, CardSpec
from triage.engine.config import Config
from triage.engine.game import Game
from triage.engine.shapes import View
from triage.engine.state import COUNTERS
from triage.engine.views import view
from triage.engine.vocabulary import ITEM_COUNT_FIELDS

#: Where the fitted values shipped with Triage live; ``TRIAGE_VALUES`` adds directories.
VALUES_DIR = Path(__file__).resolve().parents[1] / "data" / "values"
#: The player's numbers read: VP and QoC (the score, R4), then the counters but ``treated``, then
#: the Outpatient Clinics and Clinical Trials bought (K4; a designer's own items are not read).
NUMBERS = ("vp", "quality", *(name for name in COUNTERS if name not in ("vp", "treated")))
ITEMS = tuple(item for _, item in ITEM_COUNT_FIELDS)
#: Per kind: patients, Time, healing still needed, VP and credits (:func:`seat_features`).
BY_KIND = ("patients", "time", "healing_needed", "vp", "credits")
#: Then terminal patients, their VP and Time, free spaces, pending patients.
TAIL = ("terminals", "terminal_vp", "terminal_time", "free_spaces", "pending")
#: The length of :func:`features`: a seat's numbers less the leader's, and a constant.
FEATURE_COUNT = len(NUMBERS) + len(ITEMS) + len(BY_KIND) * len(KINDS) + len(TAIL) + 1
#: Ridge penalty of the fit (the features are counts of a few units: a small one suffices).
RIDGE = 1.0
#: Games of the farming policy a value is fitted on by default.
FIT_GAMES = 20_000


def seat_features(game: Game, seat: int) -> list[float]:
    """A seat's numbers, its hospital by kind (patients, Time, healing still needed, VP and credits
    on their backs), its terminal patients, free spaces and patients waiting to be admitted.
    Read from a world (a full game), as a playout's own end would be."""
    player, cards = game.players[seat], game.cards
    features: list[float] = [getattr(player, name) for name in NUMBERS]
    features += [player.items.get(item, 0) for item in ITEMS]
    by_kind = [[0] * len(KINDS) for _ in BY_KIND]
    for slot in player.hospital:
        if slot is None:
            continue
        spec = cards[slot.card]
        kind = KINDS.index(spec.kind)
        needed = max(0, spec.difficulty(slot.time) - slot.placed)  # T2, T3
        for row, amount in zip(by_kind, (1, slot.time, needed, spec.vp, spec.credits)):
            row[kind] += amount
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
    """The seat's features less those of the other player leading on score now (solo: less
    nothing), and a constant."""
    mine = seat_features(game, seat)
    others = [seat_features(game, other) for other in range(len(game.players)) if other != seat]
    if others:
        leader = max(others, key=lambda other: other[0] + other[1])  # VP + QoC: the score (R4)
        mine = [a - b for a, b in zip(mine, leader)]
    return [*mine, 1.0]


def fingerprint(seat_view: View) -> str:
    """What a value belongs to: the player count, the configuration and the deck list, as every
    seat's view shows them (so a bot finds its value from the view alone)."""
    players = len(seat_view["players"])
    deck = sorted(json.dumps(back) for back in seat_view["catalogue"])
    config = seat_view["config"]
    # T8: what each item costs and gives decides the game; its words for players do not.
    market = {
        name: {key: value for key, value in item.items() if key not in ("label", "help")}
        for name, item in config["market"].items()
    }
    return json.dumps([players, _own_count({**config, "market": market}, players), deck], sort_keys=True)


#: R1, R3: the tables by player count of which a game reads its own count's entry alone.
SEAT_TABLES = ("seat_credits", "seat_vp")


def _own_count(config: Mapping[str, Any], players: int) -> dict[str, Any]:
    """The configuration with each seat table cut to the game's own count (zeros where it has
    none), so that a change at 4 players leaves the 2- and 3-player values and policies standing."""
    own = dict(config)
    for key in SEAT_TABLES:
        table = config.get(key) or {}
        if isinstance(table, Mapping):  # a list is a count's own entry already
            table = table.get(str(players), table.get(players, [0] * players))
        own[key] = list(table)
    return own


def current_fingerprint(text: str) -> str:
    """A fingerprint read from a data file, in today's form: files written while it held every
    count's seat tables keep finding their game. Text of another form is kept as it is: it finds
    no game."""
    try:
        players, config, deck = json.loads(text)
        return json.dumps([players, _own_count(config, players), deck], sort_keys=True)
    except (ValueError, TypeError, AttributeError):
        return text


@dataclass(frozen=True)
class Value:
    """Per round, the weights of :func:`features`; the game they fit, how they were fitted, and per
    round the share of the final margin's variance they explain on a fifth of the games held out."""

    fingerprint: str
    weights: dict[int, list[float]]
    games: int
    seed: int
    explained: dict[int, float] = field(default_factory=dict)
    source: str = field(default="", compare=False)
    #: The SHA-256 of the file it was read from (empty for a value fitted in this process).
    sha256: str = field(default="", compare=False)

    def __call__(self, game: Game, seat: int) -> float:
        """The expected final score margin of ``seat`` (units of 40 points) from here."""
        return sum(w * f for w, f in zip(self.weights[game.round], features(game, seat)))

    def to_json(self) -> str:
        return json.dumps(
            {
                "fingerprint": self.fingerprint,
                "games": self.games,
                "seed": self.seed,
                "explained": {str(number): share for number, share in sorted(self.explained.items())},
                "weights": {str(number): row for number, row in sorted(self.weights.items())},
            }
        )

    def provenance(self) -> Provenance:
        """Which value this is, for a result file: its file, the file's SHA-256, the games and
        seed it was fitted on."""
        return {"file": self.source, "sha256": self.sha256, "games": self.games, "seed": self.seed}

    @classmethod
    def load(cls, path: Path) -> Value:
        """A value file, or ValueError naming the file and what is wrong in it."""
        try:
            raw = path.read_bytes()
            data = json.loads(raw)
            weights = {int(number): [float(w) for w in row] for number, row in data["weights"].items()}
            explained = {int(number): float(share) for number, share in data.get("explained", {}).items()}
            value = cls(
                current_fingerprint(str(data["fingerprint"])),
                weights,
                int(data["games"]),
                int(data["seed"]),
                explained,
                str(path),
                hashlib.sha256(raw).hexdigest(),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"value file {path}: not a fitted value ({error!r})") from None
        sizes = {len(row) for row in weights.values()}
        if sizes != {FEATURE_COUNT}:
            raise ValueError(
                f"value file {path}: fitted for another feature list (rows of {sorted(sizes)} weights, "
                f"not {FEATURE_COUNT}); fit it again with `triage fit-value`"
            )
        if sorted(weights) != list(range(1, len(weights) + 1)):
            raise ValueError(f"value file {path}: weights for rounds {sorted(weights)}, not 1 to the last")
        return value


def value_dirs() -> list[Path]:
    """The directories searched for values: ``TRIAGE_VALUES`` (``os.pathsep``-separated) first,
    then the values shipped with Triage."""
    extra = [Path(part) for part in os.environ.get("TRIAGE_VALUES", "").split(os.pathsep) if part]
    return [*extra, VALUES_DIR]


#: The name a trained ``expert-fast`` policy file starts with (:mod:`triage.bots.fast`): such files
#: live beside the values and are no value.
FAST_PREFIX = "fast-"


class _Fingerprinted(Protocol):
    @property
    def fingerprint(self) -> str: ...


#: A data file read by its fingerprint: a :class:`Value` or a fast policy.
Found = TypeVar("Found", bound=_Fingerprinted)


def by_fingerprint(
    directories: tuple[Path, ...], fast: bool, load: Callable[[Path], Found]
) -> dict[str, Found]:
    """Every data file of the directories (the fast policies, or the values) by its fingerprint;
    the first directory named wins a fingerprint."""
    found: dict[str, Found] = {}
    for directory in reversed(directories):
        for path in sorted(directory.glob("*.json")):
            if path.name.startswith(FAST_PREFIX) == fast:
                item = load(path)
                found[item.fingerprint] = item
    return found


@cache
def _values_in(directories: tuple[Path, ...]) -> dict[str, Value]:
    return by_fingerprint(directories, False, Value.load)


def forget_values() -> None:
    """Read the value directories again at the next look-up (after a value file was written)."""
    _values_in.cache_clear()


def value_for(seat_view: View) -> Value | None:
    """The fitted value of the game a view belongs to, or None when none was fitted for it."""
    return _values_in(tuple(value_dirs())).get(fingerprint(seat_view))


def fit_value(
    players: int,
    games: int = FIT_GAMES,
    seed: int = 1_000_000,
    config: Config | None = None,
    deck: Sequence[CardSpec] | None = None,
    progress: Callable[[int], None] | None = None,
    time_budget: float | None = None,
) -> Value:
    """Play ``games`` of the farming policy in every seat (seeds ``seed`` on); per round, fit the
    final score margin from every seat's features at the round's first decision (ridge
    regression). The share explained is measured on every fifth game, fitted on the others.

    ``progress`` is called with each game played; after ``time_budget`` wall seconds no new game
    starts and the value is fitted on the games played (the value records how many)."""
    import numpy as np

    from triage.bots.expert import outcome
    from triage.bots.policy import farming_policy, play_out

    rows: dict[int, list[tuple[int, list[float], float]]] = {}
    deadline = time.monotonic() + time_budget if time_budget is not None else math.inf
    played = 0
    for index in range(games):
        if time.monotonic() > deadline and played >= 10:
            break
        played += 1
        if progress is not None:
            progress(1)
        game = Game.new(players=players, deck=deck, seed=seed + index, config=config)
        seen: list[tuple[int, int, list[float]]] = []
        while game.turn is not None:
            seen += [(game.round, seat, features(game, seat)) for seat in range(players)]
            play_out(game, farming_policy, stop_round=game.round + 1)
        for number, seat, row in seen:
            rows.setdefault(number, []).append((index % 5, row, outcome(game, seat)))

    def solve(x: Any, y: Any) -> Any:
        return np.linalg.solve(x.T @ x + RIDGE * np.eye(x.shape[1]), x.T @ y)

    weights, explained = {}, {}
    for number, table in sorted(rows.items()):
        held = np.array([fold == 0 for fold, _, _ in table])
        x = np.array([row for _, row, _ in table])
        y = np.array([target for _, _, target in table])
        if held.any() and (~held).any() and y[held].var() > 0:
            miss = y[held] - x[held] @ solve(x[~held], y[~held])
            explained[number] = round(float(1 - miss.var() / y[held].var()), 3)
        weights[number] = [round(float(w), 6) for w in solve(x, y)]
    first = Game.new(players=players, deck=deck, seed=seed, config=config)
    return Value(fingerprint(view(first, 0)), weights, played, seed, explained)
