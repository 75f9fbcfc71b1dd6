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
from typing import Any

from triage.engine.cards import CardSpec, STANDARD_KINDS
from triage.engine.config import make_config
from triage.engine.errors import DataError
from triage.engine.game import Game
from triage.engine.state import BASE_SPACES, PLAYER_NUMBERS, Patient, PlayerState

Back = tuple[str, int | None, int | None, int, int]


def _front_class(back: Back) -> tuple[str, int | None]:
    kind, diagnosis = back[0], back[1]
    if kind in STANDARD_KINDS:
        return ("standard", diagnosis)
    return (kind, None)


def _known_back(entry: dict[str, Any]) -> Back:
    return (entry["kind"], entry["diagnosis"], entry["healing"], entry["credits"], entry["vp"])


def _hospital_time(view: dict[str, Any]) -> dict[str, int]:
    times = {}
    for player in view["players"]:
        for slot in player["hospital"].values():
            if slot is not None and not slot["revealed"]:
                times[slot["card"]] = slot["time"]
    return times


def _draw_backs(view: dict[str, Any], rng: random.Random) -> dict[str, Back]:
    viewer = view["viewer"]
    knowledge = view["knowledge"][viewer]
    full = set(knowledge["full"])
    priority_only = set(knowledge["priority"])
    memory: dict[str, dict[str, Any]] = view["cards"]
    pool: list[Back] = [tuple(back) for back in view["catalogue"]]  # type: ignore[misc]
    backs: dict[str, Back] = {}
    for card in sorted(full):
        entry = dict(memory[card])
        if entry.get("kind") == "chronic":
            entry["healing"] = None
        back = _known_back(entry)
        try:
            pool.remove(back)
        except ValueError:
            raise DataError(f"view: card {card}'s known back {back} is not in the catalogue") from None
        backs[card] = back
    not_severe = set(view["not_severe"])
    for card, time in _hospital_time(view).items():
        if time >= 2:
            not_severe.add(card)

    def fits(card: str) -> Any:
        entry = memory.get(card)
        if entry is None:
            return lambda back: True
        front = (entry["front"], entry["diagnosis"] if entry["front"] == "standard" else None)
        kind = entry.get("kind") if card in priority_only else None
        excluded = card in not_severe
        return lambda back: (
            _front_class(back) == front
            and (kind is None or back[0] == kind)
            and not (excluded and back[0] == "severe")
        )

    def tightness(card: str) -> int:
        if card not in memory:
            return 3
        if card in priority_only:
            return 0
        return 1 if card in not_severe else 2

    unknown = sorted((card for card in view["card_ids"] if card not in full), key=lambda c: (tightness(c), c))
    for card in unknown:
        test = fits(card)
        candidates = [index for index, back in enumerate(pool) if test(back)]
        if not candidates:
            raise DataError(f"view: no card back fits {card}: no game is consistent with this view")
        backs[card] = pool.pop(rng.choice(candidates))
    return backs


def determinize(view: dict[str, Any], rng: random.Random) -> Game:
    """A full :class:`Game` consistent with ``view``, its hidden parts drawn with ``rng``.

    >>> from triage.engine import Game, view as view_of
    >>> game = Game.new(players=2, seed=5)
    >>> seen = view_of(game, 1)
    >>> view_of(determinize(seen, random.Random(0)), 1) == seen
    True
    """
    backs = _draw_backs(view, rng)
    cards = {card: CardSpec(card, *back) for card, back in backs.items()}
    config = make_config(view["config"], source="view.config")
    game = Game(config, cards, len(view["players"]), random.Random(rng.getrandbits(64)))
    _restore_flow(game, view)
    placed: set[str] = set(view["discard"])
    for seat, data in enumerate(view["players"]):
        game.players[seat] = _restore_player(data, placed)
    game.discard = list(view["discard"])
    known = [card for card in view["deck_known"] if card is not None]
    hidden = [card for card in view["card_ids"] if card not in placed and card not in known]
    rng.shuffle(hidden)
    deck = []
    for card in view["deck_known"]:
        deck.append(card if card is not None else hidden.pop())
    if hidden:
        raise DataError(f"view: {len(hidden)} cards are in no place the view shows")
    game.deck = deck
    game.known_positions = set(known)
    game.seen_fronts = set(view["cards"])
    game.not_severe = set(view["not_severe"])
    for seat, entry in enumerate(view["knowledge"]):
        game.know_full[seat] = set(entry["full"])
        game.know_priority[seat] = set(entry["priority"])
    return game


def _restore_flow(game: Game, view: dict[str, Any]) -> None:
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


def _restore_player(data: dict[str, Any], placed: set[str]) -> PlayerState:
    player = PlayerState()
    for name in PLAYER_NUMBERS:
        setattr(player, name, data[name])
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
