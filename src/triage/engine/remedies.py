"""What the seat can do about tonight's deaths, from its view and its choices alone: what could
save a patient at risk (``rescue``), which payment would take from another patient what it
needs to be saved (``warnings``), and what the market sells the seat now (``market``).

Every remedy is one the engine would accept now, or one it would accept after purchases the
seat can pay for now: a remedy is listed under the patient it saves and nowhere else (issue 39).
Only the view is read (I1-I4): an unrevealed patient's need is never named (I2).

>>> from triage.engine import Game, view
>>> from triage.engine.choices import action_choices
>>> game = Game.new(players=1, seed=1)
>>> sorted(market(view(game, 0), action_choices(game, 0))["staff"])
['price', 'why']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from triage.engine.patients import need_of, seat_card, tonight
from triage.engine.shapes import Board, Choice, Deadline, MarketItemShown, MarketOffer, Payment, View
from triage.engine.state import COUNTERS, PlayerState
from triage.engine.treatment import owned, purchase_refusal
from triage.engine.views import seat_of
from triage.engine.vocabulary import SUPPLY, MarketItem, holding_of

#: T6: the supplies that pay a unit of healing (a Staff bought is available at once, T8).
HEALING_SUPPLIES = ("healing", "staff", "congress")


def healing_units(player: Board) -> int:
    """What the player can pay healing with now: tokens, available Staff, Congress Doctors (T6)."""
    return int(player["healing"]) + int(player["staff_available"]) + int(player["congress"])


# ---------------------------------------------------------------------- what could save a patient


def rescues(view: View, card: str, choices: list[Choice]) -> list[str]:
    """What the seat's choices could do for ``card``, at risk tonight: cure it now (T4), treat it
    (T5), diagnose it (T1), fly it out (T7), or buy what pays the rest of its healing and cure it
    (T6, T8), only when the seat's Credits pay for all of it."""
    shown = seat_card(view, card)
    need = need_of(shown)
    found: list[str] = []
    heal = _heal_choice(choices, card)
    for choice in choices:
        kind = choice["type"]
        if choice.get("patient") != card and not (kind == "helicopter" and card in choice["remove"]):
            continue
        if kind == "heal" and need is not None and choice["amount"]["max"] >= need:
            found.append(f"heal it by {need}: that saves it")
        elif kind == "treat":
            found.append("treat it: that saves it tonight")
        elif kind == "diagnose":
            found.append("diagnose it: then you know whether it can be saved")
        elif kind == "helicopter":
            found.append("fly it out with a Helicopter: no QoC lost")
    if need is not None and heal is not None and heal["amount"]["max"] < need:
        plan = purchase_plan(view, choices, need - heal["amount"]["max"])
        if plan:
            found.append(f"buy {plan}, then heal it by {need}: that saves it")
    return found or ["nothing on offer can save it now"]


def _heal_choice(choices: list[Choice], card: str) -> Choice | None:
    return next((c for c in choices if c["type"] == "heal" and c["patient"] == card), None)


def purchase_plan(view: View, choices: list[Choice], short: int) -> str | None:
    """The cheapest purchases that pay ``short`` more units of healing this turn (T6, T8), in
    words, when the seat's Credits and the items' limits allow them all; None otherwise. The
    items with the lowest price per unit of healing go first."""
    if not any(c["type"] == "buy" for c in choices):
        return None  # not the seat's Treatment: nothing can be bought now
    player = view["players"][seat_of(view)]
    holder = holdings(player)
    offers = []
    for name, data in view["config"]["market"].items():
        item = market_item(name, data)
        units = sum(item.gives_of(supply) for supply in HEALING_SUPPLIES)
        if units:
            room = None if item.limit is None else max(0, item.limit - owned(holder, item))
            offers.append((item.price / units, units, room, item))
    left, cost, parts = short, 0, []
    for _, units, room, item in sorted(offers, key=lambda offer: offer[0]):
        count = -(-left // units) if room is None else min(room, -(-left // units))
        if count:
            left, cost = left - count * units, cost + count * item.price
            parts.append(_count_words(item, count))
        if left <= 0:
            break
    if left > 0 or cost > player["credits"]:
        return None
    return f"{' and '.join(parts)} ({cost} Credits of your {player['credits']})"


def market_item(name: str, data: MarketItemShown) -> MarketItem:
    """A market item of the view's configuration (plain data) as the engine declares it."""
    gives = tuple((supply, int(amount)) for supply, amount in data["gives"].items())
    return MarketItem(name, data["price"], data["limit"], gives, data.get("label", ""), data.get("help", ""))


def holdings(player: Board) -> PlayerState:
    """What a view shows of the seat's own counters and purchases, as the rules read a player
    (T8's limits and prices): nothing else of the board is needed."""
    state = PlayerState()
    shown: Mapping[str, object] = player
    for counter in COUNTERS:
        setattr(state, counter, shown[counter])
    state.items = dict(player.get("items", {}))
    return state


def _count_words(item: MarketItem, count: int) -> str:
    """``count`` of ``item`` in words: "4 Healing tokens", "1 Night shift"."""
    counter = holding_of(dict(item.gives))
    supply = next((s for s in SUPPLY.values() if s.counter == counter), None) if counter else None
    return supply.count(count) if supply is not None else f"{count} {item.label}"


# ---------------------------------------------------------------------- what a payment takes away


def needs_tonight(view: View, patients: dict[str, Deadline], choices: list[Choice]) -> dict[str, int]:
    """The seat's patients that die tonight unless cured or treated, and that the seat can save
    now with what it holds: the units of healing each needs (T2-T6)."""
    needs: dict[str, int] = {}
    for choice in choices:
        patient = str(choice.get("patient"))
        found = patients.get(patient)
        if found is None or found["level"] != "danger" or not tonight(found):
            continue
        if choice["type"] == "treat":
            needs[patient] = choice["cost"]
        elif choice["type"] == "heal":
            need = need_of(seat_card(view, patient))
            if need is not None and choice["amount"]["max"] >= need:
                needs[patient] = need
    return needs


def warning(
    view: View, needs: dict[str, int], target: str | None, pay: Payment | None, token: str
) -> str | None:
    """What paying ``pay`` (tokens of ``token``, Staff, Congress Doctors) for an action on
    ``target`` takes from the other patients of ``needs``: the ones it leaves unsaveable
    tonight, in words; None when it takes nothing they need, or when the action itself saves a
    patient of ``needs`` (two patients competing for the same units is a choice, not a slip)."""
    if pay is None or (
        target in needs
        and pay.get("tokens", 0) + pay.get("staff", 0) + pay.get("congress", 0) >= needs[target]
    ):
        return None
    player = view["players"][seat_of(view)]
    spent = pay["staff"] + pay["congress"] + (pay["tokens"] if token == "healing" else 0)
    left = healing_units(player) - spent
    starved = sorted(card for card, need in needs.items() if card != target and need > left)
    if not starved:
        return None
    names = " and ".join(starved)
    most = max(needs[card] for card in starved)
    return f"then {names} cannot be saved tonight: {most} healing needed, {left} would be left"


# ---------------------------------------------------------------------- the market


def market(view: View, choices: list[Choice]) -> dict[str, MarketOffer]:
    """Each market item with its price and, when the seat cannot buy it now, why (T8): its
    Credits fall short, it owns as many as allowed, or it is not its Treatment decision."""
    player = view["players"][seat_of(view)]
    offered = {c["item"] for c in choices if c["type"] == "buy"}
    deciding = any(c["type"] == "pass" for c in choices)
    found: dict[str, MarketOffer] = {}
    holder = holdings(player)
    for name, data in view["config"]["market"].items():
        why = None
        if name not in offered:
            item = market_item(name, data)
            refused = purchase_refusal(holder, item)
            if refused is not None and refused.code == "limit_reached":
                why = f"you own the most allowed ({item.limit})"
            elif refused is not None:
                why = f"costs {item.price} Credits; you have {player['credits']}"
            else:
                why = "the market is open in your Treatment" if not deciding else "not on offer now"
        found[name] = {"price": data["price"], "why": why}
    return found
