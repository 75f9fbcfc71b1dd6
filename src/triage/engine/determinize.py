"""Determinization: a full game drawn at random among those a player's view allows.

Bots and search sample hidden worlds with it, so it must be exact: the drawn game's view for the
player equals the view it came from (I4). What the player does not know is drawn afresh:

* the backs of the cards whose treatment side the player has not seen, from the deck's contents
  less the backs it knows, respecting each card's public front, any priority the player knows
  (I2), and the public deduction that a card is not severe (I4);
* the order of the deck positions that public events have not fixed (I3);
* the game's random generator (it decides future reshuffles, V1), from ``rng``.

Each card's back is drawn uniformly among those still free that fit it, the most constrained
cards first; the constraints are nested (a known priority within not-severe within a front), so
this never paints itself into a corner when some consistent game exists.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from triage.engine.cards import CardSpec
from triage.engine.cleanup import CHECK_TIME, dies
from triage.engine.config import Config, make_config
from triage.engine.errors import DataError
from triage.engine.game import Game
from triage.engine.memory import restore_memory
from triage.engine.shapes import Board, CardShown, View
from triage.engine.state import BASE_SPACES, PLAYER_NUMBERS, Patient, PlayerState
from triage.engine.views import ViewConfig, Worked
from triage.engine.vocabulary import KIND, STANDARD_FRONT, STANDARD_KINDS

Back = tuple[str, int | None, int | None, int, int]


def _front_class(back: Back) -> tuple[str, int | None]:
    kind, diagnosis = back[0], back[1]
    if kind in STANDARD_KINDS:
        return (STANDARD_FRONT, diagnosis)
    return (kind, None)


#: I4: the kinds behind the standard front that a check at C3's Time leaves alive (C2).
SURVIVE_CHECK: tuple[str, ...] = tuple(kind for kind in STANDARD_KINDS if not dies(kind, CHECK_TIME))


def _hospital_time(view: View) -> dict[str, int]:
    times = {}
    for player in view["players"]:
        for slot in player["hospital"].values():
            if slot is not None and not slot["revealed"]:
                times[slot["card"]] = slot["time"]
    return times


def _draw_backs(view: View, rng: random.Random) -> dict[str, int]:
    """Each card's back, as its position in the catalogue's pool (:func:`_catalogue_pool`):
    known ones as known, the others drawn as described in the module doc.

    The pool of backs still free keeps the catalogue's order; a card's candidates are the free
    backs that fit it, in that order, and ``rng.choice`` picks one (so a seed always draws the
    same world). Free backs are kept per (front class, kind) so that the candidates of a card
    are found from a few short lists instead of a test of every back."""
    viewer = view["viewer"]
    if viewer is None:
        raise DataError("view: a spectator's view has no seat to draw a world for (I4)")
    knowledge = view["knowledge"][viewer]
    full = set(knowledge["full"])
    priority_only = set(knowledge["priority"])
    memory: dict[str, CardShown] = view["cards"]
    backs, buckets, keys = _known_backs(view, full)
    # What ``choice`` and ``randrange(n)`` draw from (the same numbers from the same seed).
    randbelow = _below(rng)
    not_severe = set(view["not_severe"])
    for card, time in _hospital_time(view).items():
        if time >= CHECK_TIME:  # I4: alive after a check, so not severe
            not_severe.add(card)
    for card in _most_constrained_first(memory, full, priority_only, not_severe):
        entry = memory[card]
        front = entry["front"]
        diagnosis = None if front != "standard" else entry["diagnosis"]
        kinds = _possible_kinds(entry, card in priority_only, card in not_severe)
        lists = [positions for kind in kinds if (positions := buckets.get((front, diagnosis, kind), ()))]
        candidates = lists[0] if len(lists) == 1 else sorted(p for positions in lists for p in positions)
        if not candidates:
            raise DataError(f"view: no card back fits {card}: no game is consistent with this view")
        # ``rng.choice(candidates)``, which is this very draw, without its checks.
        position = candidates[randbelow(len(candidates))]
        buckets[keys[position]].remove(position)
        backs[card] = position
    # Cards never seen fit every free back; nothing reads the class lists any more, so a draw
    # only leaves the free list (``randrange(n)`` draws what ``choice`` of n items would).
    alive = sorted(position for positions in buckets.values() for position in positions)
    for card in sorted(view["card_ids"]):
        if card in memory or card in full:
            continue
        if not alive:
            raise DataError(f"view: no card back fits {card}: no game is consistent with this view")
        backs[card] = alive.pop(randbelow(len(alive)))  # = rng.randrange(len(alive))
    return backs


def _known_backs(
    view: View, full: set[str]
) -> tuple[dict[str, int], dict[tuple[Any, ...], list[int]], list[tuple[Any, ...]]]:
    """The backs the viewer knows, each the first free copy of that back in the pool; the free
    positions per (front class, kind) left after them; each position's class."""
    memory: dict[str, CardShown] = view["cards"]
    _, keys, template, by_back, _ = _catalogue_pool(view)
    backs: dict[str, int] = {}
    used: dict[Back, int] = {}
    for card in sorted(full):
        entry = memory[card]
        kind = entry["kind"]
        back = (
            kind,
            entry["diagnosis"],
            entry["healing"] if KIND[kind].printed_healing else None,
            entry["credits"],
            entry["vp"],
        )
        copies = by_back.get(back, ())
        count = used.get(back, 0)
        if count >= len(copies):
            raise DataError(f"view: card {card}'s known back {back} is not in the catalogue")
        used[back] = count + 1
        backs[card] = copies[count]
    buckets = {key: list(positions) for key, positions in template.items()}
    for position in backs.values():
        # Few backs are known: removing them is cheaper than filtering every class list.
        buckets[keys[position]].remove(position)
    return backs, buckets, keys


def _most_constrained_first(
    memory: dict[str, CardShown], full: set[str], priority_only: set[str], not_severe: set[str]
) -> list[str]:
    """The remembered cards whose back is unknown: a known priority first, then not severe,
    then a seen front only; by card id within each."""
    groups: tuple[list[str], ...] = ([], [], [])
    for card in sorted(memory):
        if card in full:
            continue
        if card in priority_only:
            groups[0].append(card)
        else:
            groups[1 if card in not_severe else 2].append(card)
    return [*groups[0], *groups[1], *groups[2]]


def _possible_kinds(entry: CardShown, priority_known: bool, not_severe: bool) -> tuple[str, ...]:
    """The kinds a card may be, from what its front, a known priority (I2) and a survived check
    (I4) tell."""
    front = entry["front"]
    if front != STANDARD_FRONT:
        return (front,)
    if priority_known:
        kind = entry["kind"]
        return (kind,) if kind in STANDARD_KINDS and not (not_severe and kind not in SURVIVE_CHECK) else ()
    if not_severe:
        return SURVIVE_CHECK
    return STANDARD_KINDS


def _below(rng: random.Random) -> Callable[[int], int]:
    """``rng._randbelow``: a number in [0, n), the draw that ``choice``, ``randrange`` and
    ``shuffle`` make. For a plain ``random.Random``, its own algorithm on ``getrandbits``
    without a method look-up per draw (the same numbers; a world takes 30 to 60 draws)."""
    if type(rng) is not random.Random:
        return rng._randbelow  # type: ignore[attr-defined,no-any-return]
    getrandbits = rng.getrandbits

    def below(n: int) -> int:
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r

    return below


def _shuffle(items: list[Any], below: Callable[[int], int]) -> None:
    """``random.shuffle`` with ``below`` as its ``_randbelow`` (the same order from one seed)."""
    for i in reversed(range(1, len(items))):
        j = below(i + 1)
        items[i], items[j] = items[j], items[i]


def determinize(view: View, rng: random.Random) -> Game:
    """A full :class:`Game` consistent with ``view``, its hidden parts drawn with ``rng``.

    >>> from triage.engine import Game, view as view_of
    >>> game = Game.new(players=2, seed=5)
    >>> seen = view_of(game, 1)
    >>> view_of(determinize(seen, random.Random(0)), 1) == seen
    True
    """
    backs = _draw_backs(view, rng)
    pool, *_, named = _catalogue_pool(view)
    # _spec of each card, inline: a world has every card of the deck.
    cards: dict[str, CardSpec] = {}
    for card, position in backs.items():
        spec = named[position].get(card)
        cards[card] = spec if spec is not None else _spec(named[position], card, pool[position])
    # The drawn game's generator: seeded from ``rng`` now, made when first needed.
    placed: set[str] = set(view["discard"])
    boards = [_restore_player(data, placed) for data in view["players"]]
    game = Game(_config(view), cards, len(boards), rng.getrandbits(64), _identity(view), boards)
    # The same deck's cards under the same handles: the deck's plan and view parts are shared.
    game.deck_key = _kept(view).get("deck_key")
    _restore_flow(game, view)
    game.discard = list(view["discard"])
    known = {card for card in view["deck_known"] if card is not None}
    hidden = [card for card in view["card_ids"] if card not in placed and card not in known]
    _shuffle(hidden, _below(rng))
    draw = hidden.pop
    deck = [card if card is not None else draw() for card in view["deck_known"]]
    if hidden:
        raise DataError(f"view: {len(hidden)} cards are in no place the view shows")
    game.deck = deck
    restore_memory(
        game,
        known,
        frozenset(view["cards"]),
        set(view["not_severe"]),
        [(frozenset(entry["full"]), frozenset(entry["priority"])) for entry in view["knowledge"]],
    )
    return game


def _kept(view: View) -> Worked:
    """Where what is worked out from a view's unchanging parts is kept: on its configuration
    (:class:`~triage.engine.views.ViewConfig`, shared by the views of one game or one deck's
    deals), or nowhere for a view that came back from JSON or a copy (a fresh table each call)."""
    holder = view["config"]
    return holder.derived if isinstance(holder, ViewConfig) else {}


Pool = tuple[
    list[Back],
    list[tuple[Any, ...]],
    dict[tuple[Any, ...], list[int]],
    dict[Back, list[int]],
    list[dict[str, CardSpec]],
]


def _catalogue_pool(view: View) -> Pool:
    """The catalogue's backs, each back's (front class, kind), the positions of each such
    class and of each back, and each back's cards by id (:func:`_spec`'s table): worked out
    once per view configuration (:func:`_kept`)."""
    kept = _kept(view)
    found: Pool | None = kept.get("pool")
    if found is not None:
        return found
    pool: list[Back] = [(back[0], back[1], back[2], back[3], back[4]) for back in view["catalogue"]]
    keys = [(*_front_class(back), back[0]) for back in pool]
    template: dict[tuple[Any, ...], list[int]] = {}
    by_back: dict[Back, list[int]] = {}
    for position, key in enumerate(keys):
        template.setdefault(key, []).append(position)
        by_back.setdefault(pool[position], []).append(position)
    named: dict[Back, dict[str, CardSpec]] = {}
    found = kept["pool"] = (pool, keys, template, by_back, [named.setdefault(back, {}) for back in pool])
    return found


def _spec(specs: dict[str, CardSpec], card: str, back: Back) -> CardSpec:
    """The card ``card`` with this back, kept in ``specs`` (the back's table of the pool): cards
    are immutable, so drawn worlds share them."""
    spec = specs.get(card)
    if spec is None:
        spec = specs[card] = CardSpec(card, *back)
    return spec


def _identity(view: View) -> dict[str, str]:
    """A drawn world's ``origins``: each card is its own (shared by the worlds of one view's
    card list, never changed)."""
    kept = _kept(view)
    origins: dict[str, str] | None = kept.get("origins")
    if origins is None:
        origins = kept["origins"] = {card: card for card in view["card_ids"]}
    return origins


def _config(view: View) -> Config:
    """The view's configuration, validated once per view configuration (:func:`_kept`)."""
    kept = _kept(view)
    config: Config | None = kept.get("config")
    if config is None:
        config = kept["config"] = make_config(view["config"], source="view.config")
    return config


def _restore_flow(game: Game, view: View) -> None:
    game.round = view["round"]
    game.phase = view["phase"]
    game.first_player = view["first_player"]
    game.turn = view["turn"]
    game.queue = [list(entry) for entry in view["queue"]]
    game.resolving = view["resolving"]
    game.winner = view["winner"]
    game.active_pos = view["treatment_position"]
    game.extra_turn = view["extra_turn"]
    game.reopened = set(view["reopened"])


_NUMBERS = itemgetter(*PLAYER_NUMBERS)


def _restore_player(data: Board, placed: set[str]) -> PlayerState:
    player = PlayerState.__new__(PlayerState)  # every field is set below (as PlayerState.copy)
    (
        player.quality,
        player.vp,
        player.credits,
        player.treated,
        player.diagnostics,
        player.healing,
        player.staff,
        player.staff_available,
        player.congress,
        player.helicopters,
    ) = _NUMBERS(data)
    # T8: the items bought, as the board counts them (a view lists every counted item).
    player.items = data["items"]  # every counted item (T8), shared as the view shares it
    player.hospital = [None] * max(BASE_SPACES, data["spaces"])
    for space, slot in data["hospital"].items():
        if slot is not None:
            player.hospital[int(space) - 1] = Patient(
                slot["card"], slot["time"], slot["revealed"], slot["placed"]
            )
            placed.add(slot["card"])
    player.terminals = [
        Patient(entry["card"], entry["time"], True, 0, entry["treated"], entry["ever_treated"])
        for entry in data["terminals"]
    ]
    placed.update(entry["card"] for entry in data["terminals"])
    player.pending = list(data["pending"])
    placed.update(player.pending)
    player.passed = data["passed"]
    return player
