"""What each player may see (rules.md section 6) and the all-seeing state, as plain data.

``state_dict`` is the full state of scenario-format.md section 3. ``view`` is one player's view
(section 5): the same shape, with every card field the player cannot know left out, the deck
replaced by what is public of it, and the public memory of the game (fronts seen, who knows
which treatment side, cards publicly known not to be severe) that a player could have noted
down. ``event_for`` filters an event for one player. None of these ever reads a secret the
viewer does not hold.
"""

from __future__ import annotations

from typing import Any

from triage.engine.cards import CardSpec
from triage.engine.game import Event, Game
from triage.engine.state import PLAYER_NUMBERS, Patient, PlayerState

VIEW_FORMAT = "triage.view/1"


def _slot_state(spec: CardSpec, slot: Patient) -> dict[str, Any]:
    return {
        "card": slot.card,
        "front": spec.front,
        "kind": spec.kind,
        "priority": spec.priority,
        "diagnosis": spec.diagnosis,
        "healing": spec.healing if spec.healing is not None else slot.time,
        "credits": spec.credits,
        "vp": spec.vp,
        "time": slot.time,
        "revealed": slot.revealed,
        "placed": slot.placed,
    }


def _terminal_state(spec: CardSpec, patient: Patient) -> dict[str, Any]:
    return {
        "card": patient.card,
        "time": patient.time,
        "treated": patient.treated,
        "ever_treated": patient.ever_treated,
        "front": spec.front,
        "credits": spec.credits,
        "vp": spec.vp,
    }




def _counters(player: PlayerState) -> dict[str, Any]:
    data: dict[str, Any] = {name: getattr(player, name) for name in PLAYER_NUMBERS}
    data["spaces"] = player.spaces
    return data


def _flow(game: Game) -> dict[str, Any]:
    """Whose decision it is and what the game still has to do: public in every view."""
    return {
        "round": game.round,
        "phase": game.phase,
        "first_player": game.first_player,
        "turn": game.turn,
        "active": game.active,
        "treatment_position": game.active_pos,
        "extra_turn": game.extra_turn,
        "reopened": sorted(game.reopened),
        "queue": [list(entry) for entry in game.queue],
        "resolving": game.resolving,
        "winner": game.winner,
    }


def state_dict(game: Game) -> dict[str, Any]:
    """The full, all-seeing state (scenario-format.md section 3)."""
    cards = game.cards
    players = []
    for player in game.players:
        data = _counters(player)
        data["hospital"] = {
            str(index + 1): (_slot_state(cards[slot.card], slot) if slot is not None else None)
            for index, slot in enumerate(player.hospital)
        }
        data["terminals"] = [_terminal_state(cards[p.card], p) for p in player.terminals]
        data["pending"] = list(player.pending)
        data["passed"] = player.passed
        data["score"] = player.score
        players.append(data)
    state = _flow(game)
    state["deck"] = list(game.deck)
    state["discard"] = list(game.discard)
    state["players"] = players
    return state


# ---------------------------------------------------------------------- one player's view


class _Knower:
    """Whose knowledge a view shows: a seat's, or what every seat knows (a spectator's)."""

    __slots__ = ("full", "priority")

    def __init__(self, full: set[str], priority: set[str]) -> None:
        self.full = full
        self.priority = priority


def _seat(game: Game, viewer: int) -> _Knower:
    return _Knower(game.know_full[viewer], game.know_priority[viewer])


def _everyone(game: Game) -> _Knower:
    full = set.intersection(*game.know_full)
    at_least_priority = set.intersection(
        *(known | prio for known, prio in zip(game.know_full, game.know_priority))
    )
    return _Knower(full, at_least_priority - full)


def card_view(game: Game, knower: _Knower, card: str, time: int | None = None) -> dict[str, Any]:
    """A card as seen with ``knower``'s knowledge: the front always, back fields only where
    known (I1, I2). ``time`` is the patient's Time when it lies in a hospital (a chronic
    patient's healing difficulty, T3)."""
    spec = game.cards[card]
    data: dict[str, Any] = {"card": card, "front": spec.front, "diagnosis": spec.diagnosis}
    if card in knower.full:
        data["kind"] = spec.kind
        data["priority"] = spec.priority
        data["healing"] = spec.healing if spec.healing is not None else time
        data["credits"] = spec.credits
        data["vp"] = spec.vp
    elif card in knower.priority:
        data["kind"] = spec.kind
        data["priority"] = spec.priority
        if spec.kind == "chronic" and time is not None:
            data["healing"] = time
    elif spec.front == "critical":
        # K2: the critical front shows the kind and the priority.
        data["kind"] = "critical"
        data["priority"] = 1
    elif spec.front == "terminal":
        data["kind"] = "terminal"
        data["priority"] = None
    return data


def _slot_view(game: Game, knower: _Knower, slot: Patient) -> dict[str, Any]:
    data = card_view(game, knower, slot.card, slot.time)
    data["time"] = slot.time
    data["revealed"] = slot.revealed
    data["placed"] = slot.placed
    return data


def _memory(game: Game, knower: _Knower) -> dict[str, dict[str, Any]]:
    """Every card whose front has been public, as remembered with this knowledge (I2)."""
    memory = {}
    for card in sorted(game.seen_fronts):
        entry = card_view(game, knower, card)
        del entry["card"]
        memory[card] = entry
    return memory


_CATALOGUES: dict[int, tuple[dict[str, CardSpec], list[tuple[Any, ...]]]] = {}


def catalogue(game: Game) -> list[list[Any]]:
    """The deck's contents without ids or order: public, like the deck list of a box.

    Sorted once per card table (games copied from one another share it)."""
    cached = _CATALOGUES.get(id(game.cards))
    if cached is None or cached[0] is not game.cards:
        backs = sorted(
            (spec.back() for spec in game.cards.values()),
            key=lambda back: [-1 if value is None else value for value in back[1:]] + [back[0]],
        )
        if len(_CATALOGUES) > 256:
            _CATALOGUES.clear()
        cached = (game.cards, backs)
        _CATALOGUES[id(game.cards)] = cached
    return [list(back) for back in cached[1]]


def view(game: Game, viewer: int) -> dict[str, Any]:
    """Player ``viewer``'s view (scenario-format.md section 5, rules I1-I4).

    >>> from triage.engine import Game
    >>> game = Game.new(players=2, seed=1)
    >>> v = view(game, 0)
    >>> v["deck_count"] == len(game.deck) and "deck" not in v
    True
    """
    if isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < len(game.players):
        raise ValueError(f"no player {viewer!r} in a {len(game.players)}-player game")
    return _view(game, viewer, _seat(game, viewer))


def spectator_view(game: Game) -> dict[str, Any]:
    """What someone without a seat sees: the public position, a card's back shown only where
    every player knows it (so watching a table never helps one of its players). ``viewer`` is
    None."""
    return _view(game, None, _everyone(game))


def _view(game: Game, viewer: int | None, knower: _Knower) -> dict[str, Any]:
    players = []
    for player in game.players:
        data = _counters(player)
        data["hospital"] = {
            str(index + 1): (_slot_view(game, knower, slot) if slot is not None else None)
            for index, slot in enumerate(player.hospital)
        }
        data["terminals"] = [_terminal_state(game.cards[p.card], p) for p in player.terminals]
        data["pending"] = list(player.pending)
        data["passed"] = player.passed
        data["score"] = player.score
        players.append(data)
    result: dict[str, Any] = {"format": VIEW_FORMAT, "viewer": viewer}
    result.update(_flow(game))
    result["deck_count"] = len(game.deck)
    result["deck_top"] = card_view(game, knower, game.deck[0]) if game.deck else None
    result["deck_known"] = [card if card in game.known_positions else None for card in game.deck]
    result["discard"] = list(game.discard)
    result["players"] = players
    result["cards"] = _memory(game, knower)
    result["knowledge"] = [
        {"full": sorted(full), "priority": sorted(prio - full)}
        for full, prio in zip(game.know_full, game.know_priority)
    ]
    result["not_severe"] = sorted(game.not_severe)
    result["card_ids"] = sorted(game.cards)
    result["catalogue"] = catalogue(game)
    result["config"] = game.config.to_dict()
    return result


# ---------------------------------------------------------------------- events

def event_for(event: Event, viewer: int) -> Event:
    """The event as ``viewer`` may see it: its secret part only if it was shown to them."""
    secret = event.get("secret")
    if secret is None:
        return event
    shown = {key: value for key, value in event.items() if key != "secret"}
    if viewer in secret["to"]:
        shown.update({key: value for key, value in secret.items() if key != "to"})
    return shown


def events_for(events: list[Event], viewer: int) -> list[Event]:
    return [event_for(event, viewer) for event in events]


def public_event(event: Event) -> Event:
    """The event as a spectator sees it."""
    if "secret" not in event:
        return event
    return {key: value for key, value in event.items() if key != "secret"}
