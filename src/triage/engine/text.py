"""Plain-text pictures of a position, from a player's view or from the all-seeing state.

Both have the same shape (scenario-format.md sections 3 and 5); a card field missing from a
view is drawn as ``?``, so what this prints for a seat is exactly what that seat may know.
The terminal game, the ``triage`` command and the research adapters' ``ansi`` render all draw
with it, so none of those shells imports another (standard library only, like the engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from triage.engine.shapes import Action, CardShown, Event
from triage.engine.vocabulary import KINDS

#: Each card kind's short tag (the vocabulary's ``short``).
KIND_SHORT = {kind.name: kind.short for kind in KINDS}


def describe_card(card: CardShown | Mapping[str, Any]) -> str:
    """One patient as a short line: id, what is known of it, Time and healing placed.

    >>> describe_card({"card": "P07", "front": "standard", "diagnosis": 2, "time": 1,
    ...                "revealed": False, "placed": 0})
    'P07 standard d2 ? time 1'
    """
    parts = [card["card"]]
    kind = card.get("kind")
    if card.get("front") == "standard":
        parts.append(f"{KIND_SHORT.get(kind, 'standard') if kind else 'standard'} d{card.get('diagnosis')}")
    else:
        parts.append(KIND_SHORT.get(card.get("front", ""), str(card.get("front"))))
    if "healing" in card and card.get("front") != "terminal":
        parts.append(
            f"heal {card['placed'] if 'placed' in card else 0}/{card['healing']}"
            if card["healing"] is not None
            else "heal ?"
        )
    elif kind is None or "credits" not in card:
        parts.append("?")
    if "credits" in card and "vp" in card:
        parts.append(f"reward {card['credits']}c/{card['vp']}vp")
    if "time" in card:
        parts.append(f"time {card['time']}")
    if card.get("revealed") is False and kind is not None and card.get("front") == "standard":
        parts.append("(unrevealed)")
    return " ".join(parts)


def render_position(doc: Mapping[str, Any], names: list[str] | None = None) -> str:
    """The whole board as text lines."""
    lines = []
    turn = doc.get("turn")
    lines.append(
        f"Round {doc['round']}  phase {doc['phase']}  first player {doc['first_player']}  "
        f"decision: {'player ' + str(turn) if turn is not None else '-'}"
    )
    if "deck" in doc:
        top = doc["deck"][0] if doc["deck"] else "-"
        lines.append(f"Deck {len(doc['deck'])} cards, top {top}; discard {len(doc.get('discard', []))}")
    else:
        top = describe_card(doc["deck_top"]) if doc.get("deck_top") else "-"
        lines.append(f"Deck {doc['deck_count']} cards, top {top}; discard {len(doc.get('discard', []))}")
    for seat, player in enumerate(doc["players"]):
        name = names[seat] if names else f"Player {seat}"
        mark = " (passed)" if player.get("passed") else ""
        lines.append(
            f"{name}{mark}: QoC {player['quality']}  VP {player['vp']}  score {player['score']}  "
            f"credits {player['credits']}  treated {player['treated']}"
        )
        lines.append(
            f"  diagnostics {player['diagnostics']}  healing {player['healing']}  "
            f"staff {player['staff_available']}/{player['staff']}  congress {player['congress']}  "
            f"helicopters {player['helicopters']}  spaces {player['spaces']}"
            + "".join(f"  {item} {count}" for item, count in player.get("items", {}).items() if count)
        )
        for space, slot in player["hospital"].items():
            lines.append(f"  [{space}] {describe_card(slot) if slot else 'empty'}")
        for patient in player["terminals"]:
            treated = "treated" if patient["treated"] else "untreated"
            lines.append(
                f"  [T] {patient['card']} TERM reward {patient['credits']}c/{patient['vp']}vp "
                f"time {patient['time']} {treated}"
            )
        if player["pending"]:
            known = doc.get("cards", {})
            waiting = [
                describe_card({"card": card, **known[card]}) if card in known else card
                for card in player["pending"]
            ]
            lines.append(f"  waiting for admission: {'; '.join(waiting)}")
    if doc["phase"] == "over":
        winner = doc.get("winner")
        scores = ", ".join(f"player {seat}: {p['score']}" for seat, p in enumerate(doc["players"]))
        lines.append(
            f"Game over. Scores {scores}. Winner: {'player ' + str(winner) if winner is not None else 'none'}"
        )
    return "\n".join(lines)


def describe_action(action: Action | Mapping[str, Any]) -> str:
    """An action as the short command a person would type.

    >>> describe_action({"type": "heal", "patient": "P03", "amount": 2, "pay": {"tokens": 1, "staff": 1, "congress": 0}})
    'heal P03 2 tokens=1 staff=1'
    """
    kind = action["type"]
    if kind == "admit":
        text = f"admit {action['card']} {action['space']}"
    elif kind == "reject":
        text = f"reject {action['card']}"
    elif kind in ("diagnose", "treat"):
        text = f"{kind} {action['patient']}"
    elif kind == "heal":
        text = f"heal {action['patient']} {action['amount']}"
    elif kind == "helicopter":
        parts = ["helicopter"]
        if action.get("remove"):
            parts.append(f"remove={action['remove']}")
        if action.get("draw_all"):
            parts.append("draw")
        text = " ".join(parts)
    elif kind == "buy":
        text = f"buy {action['item']}"
    else:
        text = kind
    pay = action.get("pay")
    if pay:
        text += "".join(f" {key}={value}" for key, value in pay.items() if value)
    return text


def describe_event(event: Event | Mapping[str, Any]) -> str:
    """One event as a log line."""
    kind = event["type"]
    who = f"player {event['player']}" if "player" in event else ""
    card = event.get("card", "")
    if kind == "round_started":
        return f"-- round {event['round']} (first player {event['first_player']})"
    if kind == "income":
        return f"{who} gains {event['diagnostics']} diagnostics and {event['healing']} healing"
    if kind == "drawn":
        return f"{who} draws {card} ({event['front']})"
    if kind == "admitted":
        where = f"space {event['space']}" if event.get("space") else "beside the board"
        return f"{who} admits {card} to {where}"
    if kind == "rejected":
        return f"{who} rejects {card} (-1 QoC)"
    if kind == "diagnosed":
        return f"{who} diagnoses {card}: {event['kind']}, healing {event['healing']}"
    if kind == "healed":
        return f"{who} places {event['amount']} healing on {card}"
    if kind == "cured":
        return f"{who} cures {card} (+{event['credits']} credits, +{event['vp']} VP)"
    if kind == "treated":
        return f"{who} treats terminal {card} (+{event['credits']} credits, +{event['vp']} VP)"
    if kind == "time_added":
        return f"{card} of {who} now has {event['time']} Time"
    if kind == "checked":
        seen = f": {event['kind']}" if "kind" in event else ""
        return f"{card} of {who} is checked{seen}"
    if kind == "died":
        return f"{card} of {who} dies (-{event['quality_lost']} QoC)"
    if kind == "removed":
        return f"{who} removes {card} by Helicopter"
    if kind == "helicopter":
        return f"{who} flies a Helicopter"
    if kind == "bought":
        return f"{who} buys {event['item'].replace('_', ' ')}"
    if kind == "passed":
        return f"{who} passes"
    if kind == "deck_reshuffled":
        return f"the discard pile is shuffled into a new deck of {event['cards']} cards"
    if kind == "deck_empty":
        return f"{who} finds the deck empty"
    if kind == "game_over":
        return f"== game over: scores {event['scores']}, winner {event['winner']}"
    return f"{kind} {who} {card}".strip()
