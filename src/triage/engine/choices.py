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
from collections.abc import Iterator, Mapping
from typing import Any, cast

from triage.engine.actions import (
    Board,
    PaymentGroup,
    action_space,
    board_of,
    decode,
    legal_groups,
    payment_mixes,
)
from triage.engine.game import Game
from triage.engine.shapes import Action, Budget, Choice, Payment
from triage.engine.state import PlayerState
from triage.engine.treatment import default_mix, flight_options


def action_choices(game: Game, seat: int) -> list[Choice]:
    """The choices open to ``seat`` now, in the order of :meth:`Game.legal_actions`; empty when
    it is not the seat's decision (R1). Read off the engine's one listing in its bounded form
    (:func:`triage.engine.actions.legal_groups`): each payment group becomes one choice, the
    ids of one pending card's admissions one choice, the Helicopter's ids one choice."""
    if game.turn is None or seat != game.turn:
        return []
    space = action_space(game)
    board = board_of(game, seat)
    state = game.players[seat]
    choices: list[Choice] = []
    for entry in legal_groups(game, seat):
        if isinstance(entry, tuple):
            choices.append(_paid_choice(entry, board, state))
            continue
        action = decode(space, board, entry)
        kind = action["type"]
        last = choices[-1] if choices else None
        if kind == "admit":
            if last is not None and last["type"] == "admit" and last["card"] == action["card"]:
                last["spaces"].append(action["space"])
            else:
                choices.append({"type": "admit", "card": action["card"], "spaces": [action["space"]]})
        elif kind == "helicopter":  # T7: remove one of the ids or none, draws or not
            if last is None or last["type"] != "helicopter":
                last = {"type": "helicopter", "remove": [], "draw_all": True}
                choices.append(last)
            remove = action["remove"]
            if remove is not None and remove not in last["remove"]:
                last["remove"].append(remove)
        elif kind == "buy":
            item = action["item"]
            choices.append({"type": "buy", "item": item, "price": game.config.market[item].price})
        elif kind == "reject":
            choices.append({"type": "reject", "card": action["card"]})
        else:
            choices.append({"type": kind})
    return choices


def _paid_choice(group: PaymentGroup, board: Board, state: PlayerState) -> Choice:
    """T6: a diagnosis, heal or treatment with its cost (a heal: its amounts) and the means."""
    block, target, cost = group[:3]
    token = "diagnostics" if block == "diagnose" else "healing"
    budget: Budget = {
        "tokens": getattr(state, token),
        "staff": state.staff_available,
        "congress": state.congress,
    }
    if block == "heal":
        most = min(cost, budget["tokens"] + budget["staff"] + budget["congress"])
        return {
            "type": "heal",
            "patient": cast(str, board.spaces[target]),
            "amount": {"min": 1, "max": most},
            "token": token,
            "budget": budget,
        }
    patient = board.terminals[target] if block == "treat" else cast(str, board.spaces[target])
    return {
        "type": block,
        "patient": patient,
        "cost": cost,
        "token": token,
        "budget": budget,
        "default_pay": default_pay(cost, budget),
    }


def default_pay(cost: int, budget: Budget) -> Payment | None:
    """T6 (:func:`triage.engine.actions.default_mix`) as a ``pay`` object; None if the budget
    falls short.

    >>> default_pay(3, {"tokens": 1, "staff": 1, "congress": 5})
    {'tokens': 1, 'staff': 1, 'congress': 1}
    """
    mix = default_mix(cost, budget["tokens"], budget["staff"], budget["congress"])
    return None if mix is None else {"tokens": mix[0], "staff": mix[1], "congress": mix[2]}


# ---------------------------------------------------------------------- reading a choice


def _within(pay: Any, cost: int, budget: Budget) -> bool:
    """Whether ``pay`` (None: the default pay) pays exactly ``cost`` within ``budget`` (T6)."""
    if pay is None:
        return default_pay(cost, budget) is not None
    if not isinstance(pay, dict) or not set(pay) <= set(budget):
        return False
    mix = [pay.get(key, 0) for key in ("tokens", "staff", "congress")]
    if any(isinstance(count, bool) or not isinstance(count, int) or count < 0 for count in mix):
        return False
    means = (budget["tokens"], budget["staff"], budget["congress"])
    return sum(mix) == cost and all(count <= most for count, most in zip(mix, means))


def covers(choice: Choice, action: Action | Mapping[str, Any]) -> bool:
    """Whether ``choice`` allows ``action`` (an action of scenario-format.md section 4)."""
    kind = choice["type"]
    if not isinstance(action, dict) or action.get("type") != kind:
        return False
    if kind == "admit":
        return bool(action.get("card") == choice["card"] and action.get("space") in choice["spaces"])
    if kind == "reject":
        return bool(action.get("card") == choice["card"])
    if kind in ("diagnose", "treat"):
        return bool(action.get("patient") == choice["patient"]) and _within(
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
        draw_all = action.get("draw_all")
        return isinstance(draw_all, bool) and (action.get("remove"), draw_all) in flight_options(
            choice["remove"]
        )
    if kind == "buy":
        return bool(action.get("item") == choice["item"])
    return bool(kind == "pass")


def _mixes(cost: int, budget: Budget) -> Iterator[Payment]:
    for staff, congress in payment_mixes(cost, budget["tokens"], budget["staff"], budget["congress"]):
        yield {"tokens": cost - staff - congress, "staff": staff, "congress": congress}


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
        for remove, draw_all in flight_options(choice["remove"]):
            yield {"type": "helicopter", "remove": remove, "draw_all": draw_all}
    elif kind == "buy":
        yield {"type": "buy", "item": choice["item"]}
    else:
        yield {"type": "pass"}


def default_actions(choice: Choice) -> Iterator[Action]:
    """Every action ``choice`` allows with the default payment only (T6): one per target and
    heal amount (most first), every Helicopter flight (T7). Its length grows with the patients,
    never with the holdings: the list a player picks from.

    >>> heal = {"type": "heal", "patient": "P1", "amount": {"min": 1, "max": 2}, "token": "healing",
    ...         "budget": {"tokens": 1, "staff": 1, "congress": 0}}
    >>> [(a["amount"], a["pay"]) for a in default_actions(heal)]
    [(2, {'tokens': 1, 'staff': 1, 'congress': 0}), (1, {'tokens': 1, 'staff': 0, 'congress': 0})]
    """
    kind = choice["type"]
    if kind in ("diagnose", "treat"):
        yield {
            "type": kind,
            "patient": choice["patient"],
            "pay": default_pay(choice["cost"], choice["budget"]),
        }
    elif kind == "heal":
        for amount in range(choice["amount"]["max"], choice["amount"]["min"] - 1, -1):
            pay = default_pay(amount, choice["budget"])
            yield {"type": "heal", "patient": choice["patient"], "amount": amount, "pay": pay}
    else:
        yield from expand(choice)


def sample(choice: Choice, rng: random.Random) -> Action:
    """One action ``choice`` allows, drawn at random without listing them all (for random
    players and load tests): a random target, amount and payment mix within the budget."""
    kind = choice["type"]
    if kind == "admit":
        return {"type": "admit", "card": choice["card"], "space": rng.choice(choice["spaces"])}
    if kind == "reject":
        return {"type": "reject", "card": choice["card"]}
    if kind == "buy":
        return {"type": "buy", "item": choice["item"]}
    if kind == "pass":
        return {"type": "pass"}
    if kind == "helicopter":
        remove = rng.choice([None, *choice["remove"]]) if choice["draw_all"] else rng.choice(choice["remove"])
        return {"type": "helicopter", "remove": remove, "draw_all": remove is None or rng.random() < 0.5}
    cost = choice["cost"] if kind != "heal" else rng.randint(choice["amount"]["min"], choice["amount"]["max"])
    budget = choice["budget"]
    staff = rng.randint(max(0, cost - budget["tokens"] - budget["congress"]), min(budget["staff"], cost))
    congress = rng.randint(max(0, cost - staff - budget["tokens"]), min(budget["congress"], cost - staff))
    pay: Payment = {"tokens": cost - staff - congress, "staff": staff, "congress": congress}
    action: Action = {"type": kind, "patient": choice["patient"], "pay": pay}
    if kind == "heal":
        action["amount"] = cost
    return action
