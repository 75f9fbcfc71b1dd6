"""Arrival (A1-A8): patients drawn, then admitted to a free space or rejected.

Functions over a :class:`~triage.engine.position.Position`: each action has a ``do_`` function
that validates it completely and raises :class:`RuleError` before anything changes, and an
effect function that the integer fast path (:meth:`~triage.engine.game.Game.apply_id`) calls
directly.
"""

from __future__ import annotations

from triage.engine.errors import RuleError
from triage.engine.memory import draw, return_card, reveal, see_front
from triage.engine.position import Action, Event, Position
from triage.engine.state import Patient
from triage.engine.vocabulary import FRONT_OF, KIND, STANDARD_FRONT


def draw_for(game: Position, seat: int, events: list[Event]) -> None:
    """A1, A2, A3, A8: draw one patient; a terminal one is admitted beside the board."""
    card = draw(game, events)
    if card is None:
        events.append({"type": "deck_empty", "player": seat})
        return
    player = game.players[seat]
    machinery = game.machinery  # the drawer's stamp, inline: every draw takes one
    machinery.stamps[seat] = next(machinery.count)
    if game.phase == "treatment" and player.passed and game.config.helicopter_draws == "reopen":
        # V2: a passed player made to draw by a Helicopter gets one more Treatment turn.
        game.reopened.add(seat)
    spec = game.cards[card]
    kind = spec.kind
    see_front(game, card)
    events.append(
        {
            "type": "drawn",
            "player": seat,
            "card": card,
            "front": FRONT_OF[kind],
            "diagnosis": spec.diagnosis,
            "round": game.round,
        }
    )
    if KIND[kind].beside:  # A3: a patient that takes no space waits beside the board
        player.terminals.append(Patient(card, revealed=True))
        reveal(game, card)
        events.append(
            {
                "type": "admitted",
                "player": seat,
                "card": card,
                "space": None,
                "kind": "terminal",
                "credits": spec.credits,
                "vp": spec.vp,
            }
        )
    else:
        player.pending.append(card)


def _pending_card(game: Position, seat: int, action: Action) -> str:
    card: str = action["card"]
    if card not in game.players[seat].pending:
        raise RuleError(
            "unknown_patient", f"{card!r} is not a patient waiting for player {seat}'s admission", "A4"
        )
    return card


def do_admit(game: Position, seat: int, action: Action, events: list[Event]) -> Action:
    card = _pending_card(game, seat, action)
    player = game.players[seat]
    space = action["space"]
    if not 1 <= space <= len(player.hospital):
        raise RuleError(
            "no_such_space",
            f"space {space} does not exist: player {seat}'s hospital has spaces 1-{len(player.hospital)}",
            "K4",
        )
    occupant = player.hospital[space - 1]
    if occupant is not None:
        raise RuleError(
            "space_occupied",
            f"space {space} already holds {occupant.card}; patients never move (A6)",
            "A4",
        )
    return admit(game, seat, card, space, events)


def admit(game: Position, seat: int, card: str, space: int, events: list[Event]) -> Action:
    """A4, A7: the effect of a validated admission."""
    player = game.players[seat]
    player.pending.remove(card)
    spec = game.cards[card]
    # A7: a critical patient, whose front shows its kind (K2), is revealed on admission.
    shown = FRONT_OF[spec.kind] != STANDARD_FRONT
    player.hospital[space - 1] = Patient(card, revealed=shown)
    event: Event = {"type": "admitted", "player": seat, "card": card, "space": space}
    if shown:
        reveal(game, card)
        event.update({"kind": spec.kind, "healing": spec.healing, "credits": spec.credits, "vp": spec.vp})
    events.append(event)
    return {"type": "admit", "card": card, "space": space}


def do_reject(game: Position, seat: int, action: Action, events: list[Event]) -> Action:
    card = _pending_card(game, seat, action)
    player = game.players[seat]
    free = [index + 1 for index, slot in enumerate(player.hospital) if slot is None]
    if free:
        raise RuleError(
            "space_available",
            f"{card} cannot be rejected while space {free[0]} is free",
            "A4",
        )
    return reject(game, seat, card, events)


def reject(game: Position, seat: int, card: str, events: list[Event]) -> Action:
    """A5: the effect of a validated rejection."""
    player = game.players[seat]
    player.pending.remove(card)
    lost = game.lose_quality(seat, 1)
    where = return_card(game, card, "rejected")
    events.append({"type": "rejected", "player": seat, "card": card, "quality_lost": lost, "to": where})
    return {"type": "reject", "card": card}
