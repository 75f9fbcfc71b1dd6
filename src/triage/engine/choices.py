"""Legal actions in bounded form: one choice per (type, target), never one per payment mix.

:meth:`Game.legal_actions` lists every payment mix of every heal explicitly (T6), so its length
grows with the holdings: a player with 300 Healing, Staff and Congress Doctors facing a patient
that needs 300 healing has millions of entries. :func:`action_choices` answers the same question
with the payment as a choice inside one entry, so a listing grows with the patients only:

- ``{"type": "admit", "card": ID, "spaces": [N, ...]}`` (A4: any free space)
- ``{"type": "reject", "card": ID}`` (A4: only when no space is free)
- ``{"type": "diagnose", "patient": ID, "cost": N, "token": "diagnostics", "budget": B, "default_pay": P}``
- ``{"type": "heal", "patient": ID, "amount": {"min": 1, "max": M}, "token": "healing", "budget": B}``
- ``{"type": "treat", "patient": ID, "cost": 1, "token": "healing", "budget": B, "default_pay": P}``
- ``{"type": "helicopter", "remove": [ID, ...], "draw_all": true}`` (T7: remove one of the ids
  or null, draw_all true or false, not null and false together)
- ``{"type": "buy", "item": NAME, "price": N}`` (T8)
- ``{"type": "pass"}``

``budget`` is ``{"tokens", "staff", "congress"}``: what the player can spend now (tokens of the
named kind, available Staff, Congress Doctors). Any payment of the cost (for a heal: of the
chosen amount) within the budget is legal (T6); the default pay, which the engine also uses when
an action omits ``pay``, takes tokens first, then Staff, then Congress Doctors.

:func:`covers` says whether a choice allows a given action, :func:`sample` draws one of them at
random, and :func:`expand` lists them all (for tests and small positions only: that listing is
what this form avoids).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from triage.engine.config import ITEM_HOLDING, MARKET_ITEMS
from triage.engine.game import Game
from triage.engine.state import PlayerState

Choice = dict[str, Any]
Action = dict[str, Any]


def action_choices(game: Game, seat: int) -> list[Choice]:
    """The choices open to ``seat`` now, in the order of :meth:`Game.legal_actions`; empty when
    it is not the seat's decision (R1)."""
    if game.turn is None or seat != game.turn:
        return []
    state = game.players[seat]
    if game.in_admission(seat):
        return _admission_choices(state)
    choices: list[Choice] = []
    for slot in state.hospital:
        if slot is None:
            continue
        spec = game.cards[slot.card]
        if not slot.revealed:
            choice = _paid("diagnose", slot.card, spec.diagnosis or 0, "diagnostics", state)
            if choice is not None:
                choices.append(choice)
            continue
        # T2, T3: a heal places up to what the patient still needs (a chronic one's Time).
        difficulty = spec.healing if spec.healing is not None else slot.time
        budget = _budget(state, "healing")
        most = min(difficulty - slot.placed, sum(budget.values()))
        if most >= 1:
            choices.append(
                {
                    "type": "heal",
                    "patient": slot.card,
                    "amount": {"min": 1, "max": most},
                    "token": "healing",
                    "budget": budget,
                }
            )
    for patient in state.terminals:
        if not patient.treated:  # T5: one unit of healing a round
            choice = _paid("treat", patient.card, 1, "healing", state)
            if choice is not None:
                choices.append(choice)
    if state.helicopters > 0:  # T7
        removable = [slot.card for slot in state.hospital if slot is not None]
        removable += [patient.card for patient in state.terminals]
        choices.append({"type": "helicopter", "remove": removable, "draw_all": True})
    for item, market in game.config.market.items():  # T8
        if state.credits >= market.price and (
            market.limit is None or getattr(state, ITEM_HOLDING[item]) < market.limit
        ):
            choices.append({"type": "buy", "item": item, "price": market.price})
    choices.append({"type": "pass"})
    return choices


def _admission_choices(state: PlayerState) -> list[Choice]:
    """A4: each drawn patient goes to a free space, or is rejected when none is free."""
    free = [index + 1 for index, slot in enumerate(state.hospital) if slot is None]
    if free:
        return [{"type": "admit", "card": card, "spaces": list(free)} for card in state.pending]
    return [{"type": "reject", "card": card} for card in state.pending]


def _budget(state: PlayerState, token: str) -> dict[str, int]:
    """T6: what can pay now: tokens of the kind, available Staff, Congress Doctors."""
    return {"tokens": getattr(state, token), "staff": state.staff_available, "congress": state.congress}


def default_pay(cost: int, budget: dict[str, int]) -> dict[str, int] | None:
    """T6: tokens first, then Staff, then Congress Doctors; None if the budget falls short.

    >>> default_pay(3, {"tokens": 1, "staff": 1, "congress": 5})
    {'tokens': 1, 'staff': 1, 'congress': 1}
    """
    tokens = min(budget["tokens"], cost)
    staff = min(budget["staff"], cost - tokens)
    congress = min(budget["congress"], cost - tokens - staff)
    if tokens + staff + congress < cost:
        return None
    return {"tokens": tokens, "staff": staff, "congress": congress}


def _paid(kind: str, card: str, cost: int, token: str, state: PlayerState) -> Choice | None:
    budget = _budget(state, token)
    pay = default_pay(cost, budget)
    if pay is None:
        return None
    return {"type": kind, "patient": card, "cost": cost, "token": token, "budget": budget, "default_pay": pay}


# ---------------------------------------------------------------------- reading a choice


def _within(pay: Any, cost: int, budget: dict[str, int]) -> bool:
    """Whether ``pay`` (None: the default pay) pays exactly ``cost`` within ``budget`` (T6)."""
    if pay is None:
        return default_pay(cost, budget) is not None
    if not isinstance(pay, dict) or not set(pay) <= set(budget):
        return False
    mix = [pay.get(key, 0) for key in ("tokens", "staff", "congress")]
    if any(isinstance(count, bool) or not isinstance(count, int) or count < 0 for count in mix):
        return False
    return sum(mix) == cost and all(
        count <= budget[key] for count, key in zip(mix, ("tokens", "staff", "congress"))
    )


def covers(choice: Choice, action: Action) -> bool:
    """Whether ``choice`` allows ``action`` (an action of scenario-format.md section 4)."""
    kind = choice["type"]
    if not isinstance(action, dict) or action.get("type") != kind:
        return False
    if kind == "admit":
        return action.get("card") == choice["card"] and action.get("space") in choice["spaces"]
    if kind == "reject":
        return action.get("card") == choice["card"]
    if kind in ("diagnose", "treat"):
        return action.get("patient") == choice["patient"] and _within(
            action.get("pay"), choice["cost"], choice["budget"]
        )
    if kind == "heal":
        amount = action.get("amount")
        if (
            action.get("patient") != choice["patient"]
            or isinstance(amount, bool)
            or not isinstance(amount, int)
        ):
            return False
        if not choice["amount"]["min"] <= amount <= choice["amount"]["max"]:
            return False
        return _within(action.get("pay"), amount, choice["budget"])
    if kind == "helicopter":
        remove, draw_all = action.get("remove"), action.get("draw_all")
        if not isinstance(draw_all, bool) or (remove is None and not draw_all):
            return False
        return remove is None or remove in choice["remove"]
    if kind == "buy":
        return action.get("item") == choice["item"] and choice["item"] in MARKET_ITEMS
    return kind == "pass"


def _mixes(cost: int, budget: dict[str, int]) -> Iterator[dict[str, int]]:
    for staff in range(min(budget["staff"], cost) + 1):
        for congress in range(min(budget["congress"], cost - staff) + 1):
            tokens = cost - staff - congress
            if tokens <= budget["tokens"]:
                yield {"tokens": tokens, "staff": staff, "congress": congress}


def expand(choice: Choice) -> Iterator[Action]:
    """Every action ``choice`` allows, each payment mix explicit. Its length is what the
    bounded form avoids: use it on small positions (tests, tools) only."""
    kind = choice["type"]
    if kind == "admit":
        for space in choice["spaces"]:
            yield {"type": "admit", "card": choice["card"], "space": space}
    elif kind == "reject":
        yield {"type": "reject", "card": choice["card"]}
    elif kind in ("diagnose", "treat"):
        for pay in _mixes(choice["cost"], choice["budget"]):
            yield {"type": kind, "patient": choice["patient"], "pay": pay}
    elif kind == "heal":
        for amount in range(choice["amount"]["min"], choice["amount"]["max"] + 1):
            for pay in _mixes(amount, choice["budget"]):
                yield {"type": "heal", "patient": choice["patient"], "amount": amount, "pay": pay}
    elif kind == "helicopter":
        if choice["draw_all"]:
            yield {"type": "helicopter", "remove": None, "draw_all": True}
        for card in choice["remove"]:
            yield {"type": "helicopter", "remove": card, "draw_all": False}
            yield {"type": "helicopter", "remove": card, "draw_all": True}
    elif kind == "buy":
        yield {"type": "buy", "item": choice["item"]}
    else:
        yield {"type": "pass"}


def sample(choice: Choice, rng: random.Random) -> Action:
    """One action ``choice`` allows, drawn at random without listing them all (for random
    players and load tests): a random target, amount and payment mix within the budget."""
    kind = choice["type"]
    if kind == "admit":
        return {"type": "admit", "card": choice["card"], "space": rng.choice(choice["spaces"])}
    if kind in ("reject", "buy", "pass"):
        return {key: value for key, value in choice.items() if key in ("type", "card", "item")}
    if kind == "helicopter":
        remove = rng.choice([None, *choice["remove"]]) if choice["draw_all"] else rng.choice(choice["remove"])
        return {"type": "helicopter", "remove": remove, "draw_all": remove is None or rng.random() < 0.5}
    cost = choice["cost"] if kind != "heal" else rng.randint(choice["amount"]["min"], choice["amount"]["max"])
    budget = choice["budget"]
    staff = rng.randint(max(0, cost - budget["tokens"] - budget["congress"]), min(budget["staff"], cost))
    congress = rng.randint(max(0, cost - staff - budget["tokens"]), min(budget["congress"], cost - staff))
    pay = {"tokens": cost - staff - congress, "staff": staff, "congress": congress}
    action: Action = {"type": kind, "patient": choice["patient"], "pay": pay}
    if kind == "heal":
        action["amount"] = cost
    return action
