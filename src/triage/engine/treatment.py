"""Treatment (T1-T9): diagnose, heal, treat terminal patients, Helicopters, the market, pass.

Functions over a :class:`~triage.engine.position.Position`: each action has a ``do_`` function
that validates it completely and raises :class:`RuleError` before anything changes, and an
effect function that the integer fast path (:meth:`~triage.engine.game.Game.apply_id`) calls
directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from triage.engine.errors import RuleError
from triage.engine.memory import put_under_deck, return_card, reveal
from triage.engine.position import Action, Event, Pay, Position
from triage.engine.shapes import Payment
from triage.engine.state import Patient, PlayerState
from triage.engine.vocabulary import SUPPLY, MarketItem

#: What a Helicopter's removal names: a card id, or a target number of the integer index.
Target = TypeVar("Target")
K = TypeVar("K")


def default_mix(cost: int, tokens: int, staff: int, congress: int) -> tuple[int, int, int] | None:
    """T6's default payment, the engine's mix when an action names none: tokens first, then
    available Staff, then Congress Doctors; None when the means fall short of ``cost``.

    >>> default_mix(3, 1, 1, 5)
    (1, 1, 1)
    """
    use_tokens = tokens if tokens < cost else cost
    use_staff = min(staff, cost - use_tokens)
    use_congress = min(congress, cost - use_tokens - use_staff)
    if use_tokens + use_staff + use_congress < cost:
        return None
    return use_tokens, use_staff, use_congress


def flight_options(removable: Sequence[Target]) -> list[tuple[Target | None, bool]]:
    """T7: everything one Helicopter may do, as (the patient removed or None, every player
    draws): the draws alone, then each of ``removable`` removed without and with the draws;
    never neither. The listing of ids, the choices and the page's options all come from here.

    >>> flight_options(["P07"])
    [(None, True), ('P07', False), ('P07', True)]
    """
    options: list[tuple[Target | None, bool]] = [(None, True)]
    for patient in removable:
        options += [(patient, False), (patient, True)]
    return options


def owned(player: PlayerState, item: MarketItem) -> int:
    """T8: what ``item``'s limit counts for ``player``: the supply it gives held, or the
    purchases of the item itself (:attr:`MarketItem.holding`)."""
    holding = item.holding
    return getattr(player, holding) if holding is not None else player.items.get(item.name, 0)


def limits_reached(player: PlayerState, items: Iterable[tuple[K, MarketItem]]) -> list[K]:
    """T8: the keys of those ``items`` whose limit ``player`` has reached (it owns as many as
    the limit allows, :func:`owned` read inline; an item with no limit never): the one limit
    test, for several items in one call because the listing asks it of every limited item at
    every decision.

    >>> from triage.engine.vocabulary import MarketItem
    >>> trial = MarketItem("clinical_trial", 2, 1, (("spaces", 1),))
    >>> player = PlayerState()
    >>> player.items = {"clinical_trial": 1}
    >>> limits_reached(player, [(7, trial)]), limits_reached(PlayerState(), [(7, trial)])
    ([7], [])
    """
    reached = []
    for key, item in items:
        limit = item.limit
        if limit is not None:
            holding = item.holding
            if (getattr(player, holding) if holding is not None else player.items.get(item.name, 0)) >= limit:
                reached.append(key)
    return reached


def limit_reached(player: PlayerState, item: MarketItem) -> bool:
    """T8: whether ``player`` owns as many of ``item`` as its limit allows."""
    return bool(limits_reached(player, ((item, item),)))


def may_purchase(player: PlayerState, item: MarketItem) -> bool:
    """T8: whether ``player`` may buy ``item`` now (its limit not reached and the Credits to pay):
    :func:`purchase_refusal`'s test without the refusal, for the bots that ask it of every item
    at every decision.

    >>> from triage.engine.vocabulary import MarketItem
    >>> trial = MarketItem("clinical_trial", 2, 1, (("spaces", 1),))
    >>> player = PlayerState()
    >>> player.credits = 2
    >>> may_purchase(player, trial), may_purchase(PlayerState(), trial)
    (True, False)
    """
    return player.credits >= item.price and not limit_reached(player, item)


def purchase_refusal(player: PlayerState, item: MarketItem, who: str = "the player") -> RuleError | None:
    """T8: why ``player`` may not buy ``item`` now (its limit reached, or not enough Credits),
    or None: the one affordability test of the market, for the rules, the listings and the bots.

    >>> from triage.engine.vocabulary import SUPPLY, MarketItem
    >>> player = PlayerState()
    >>> purchase_refusal(player, MarketItem("staff", 6, None, (("staff", 1),))).code
    'cannot_afford'
    """
    if may_purchase(player, item):
        return None
    if limit_reached(player, item):
        return RuleError("limit_reached", f"a player may own at most {item.limit} {item.label}", "T8")
    return RuleError(
        "cannot_afford", f"{item.label} costs {item.price} Credits; {who} has {player.credits}", "T8"
    )


def add_purchase(player: PlayerState, item: MarketItem) -> None:
    """T8: one purchase of ``item``: its price paid, what it gives added (a Staff available at
    once; a space numbered on, K4), and the purchase counted where its limit counts purchases."""
    player.credits -= item.price
    for supply, amount in item.gives:
        if supply == "spaces":
            player.hospital.extend([None] * amount)
            continue
        counter = SUPPLY[supply].counter
        setattr(player, counter, getattr(player, counter) + amount)
        if supply == "staff":
            player.staff_available += amount
    if item.holding is None:
        player.items = {**player.items, item.name: player.items.get(item.name, 0) + 1}


def check_cures(game: Position, seat: int, events: list[Event]) -> None:
    """T4: a revealed patient whose placed healing reaches its difficulty is cured."""
    for index, slot in enumerate(game.players[seat].hospital):
        if slot is not None and slot.revealed:
            cure_if_healed(game, seat, index, events)


def cure_if_healed(game: Position, seat: int, index: int, events: list[Event]) -> None:
    """T4 for the revealed patient in space ``index + 1``."""
    player = game.players[seat]
    slot = player.hospital[index]
    if slot is not None:
        spec = game.cards[slot.card]
        if slot.placed >= spec.difficulty(slot.time):
            player.hospital[index] = None
            player.credits += spec.credits
            player.vp += spec.vp
            player.treated += 1
            where = return_card(game, slot.card, "cured")
            events.append(
                {
                    "type": "cured",
                    "player": seat,
                    "card": slot.card,
                    "credits": spec.credits,
                    "vp": spec.vp,
                    "to": where,
                }
            )


def _hospital_patient(game: Position, seat: int, action: Action, verb: str) -> tuple[int, Patient]:
    card = action["patient"]
    space, patient = game.players[seat].find(card)
    if patient is None:
        raise RuleError("unknown_patient", f"{card!r} is not a patient of player {seat}", "T1")
    if space is None:
        raise RuleError(
            "is_terminal", f"{card} is a terminal patient: it is treated (T5), never {verb}", "T5"
        )
    return space, patient


def do_diagnose(game: Position, seat: int, action: Action, events: list[Event]) -> Action:
    space, patient = _hospital_patient(game, seat, action, "diagnosed")
    if patient.revealed:
        raise RuleError("already_revealed", f"{patient.card} is already revealed", "T1")
    spec = game.cards[patient.card]
    cost = spec.diagnosis or 0
    pay = _payment(game, seat, action.get("pay"), cost, "diagnostics", f"diagnosing {patient.card}", "T1")
    return diagnose(game, seat, space, patient, pay, events)


def diagnose(
    game: Position, seat: int, space: int, patient: Patient, pay: Pay, events: list[Event]
) -> Action:
    """T1: the effect of a validated diagnosis."""
    spec = game.cards[patient.card]
    _spend(game, seat, pay, "diagnostics")
    patient.revealed = True
    reveal(game, patient.card)
    events.append(
        {
            "type": "diagnosed",
            "player": seat,
            "card": patient.card,
            "space": space,
            "kind": spec.kind,
            "priority": spec.priority,
            "healing": spec.difficulty(patient.time),
            "credits": spec.credits,
            "vp": spec.vp,
            "pay": _pay_dict(pay),
        }
    )
    return {"type": "diagnose", "patient": patient.card, "pay": _pay_dict(pay)}


def do_heal(game: Position, seat: int, action: Action, events: list[Event]) -> Action:
    _, patient = _hospital_patient(game, seat, action, "healed")
    if not patient.revealed:
        raise RuleError("not_revealed", f"{patient.card} must be diagnosed before it is healed", "T2")
    spec = game.cards[patient.card]
    need = spec.difficulty(patient.time) - patient.placed
    amount = action["amount"]
    if amount > need:
        raise RuleError(
            "too_much_healing", f"{patient.card} needs only {need} more healing, not {amount}", "T2"
        )
    pay = _payment(
        game, seat, action.get("pay"), amount, "healing", f"healing {patient.card} by {amount}", "T2"
    )
    return heal(game, seat, patient, amount, pay, events)


def heal(game: Position, seat: int, patient: Patient, amount: int, pay: Pay, events: list[Event]) -> Action:
    """T2: the effect of a validated healing."""
    _spend(game, seat, pay, "healing")
    patient.placed += amount
    events.append(
        {
            "type": "healed",
            "player": seat,
            "card": patient.card,
            "amount": amount,
            "placed": patient.placed,
            "pay": _pay_dict(pay),
        }
    )
    return {"type": "heal", "patient": patient.card, "amount": amount, "pay": _pay_dict(pay)}


def do_treat(game: Position, seat: int, action: Action, events: list[Event]) -> Action:
    card = action["patient"]
    space, patient = game.players[seat].find(card)
    if patient is None:
        raise RuleError("unknown_patient", f"{card!r} is not a patient of player {seat}", "T5")
    if space is not None:
        raise RuleError("not_terminal", f"{card} is not a terminal patient: diagnose and heal it", "T5")
    if patient.treated:
        raise RuleError("already_treated", f"{card} was already treated this round", "T5")
    pay = _payment(game, seat, action.get("pay"), 1, "healing", f"treating {card}", "T5")
    return treat(game, seat, patient, pay, events)


def treat(game: Position, seat: int, patient: Patient, pay: Pay, events: list[Event]) -> Action:
    """T5: the effect of a validated treatment of a terminal patient."""
    card = patient.card
    _spend(game, seat, pay, "healing")
    spec = game.cards[card]
    player = game.players[seat]
    patient.treated = True
    patient.ever_treated = True
    player.credits += spec.credits
    player.vp += spec.vp
    events.append(
        {
            "type": "treated",
            "player": seat,
            "card": card,
            "credits": spec.credits,
            "vp": spec.vp,
            "pay": _pay_dict(pay),
        }
    )
    return {"type": "treat", "patient": card, "pay": _pay_dict(pay)}


def do_helicopter(game: Position, seat: int, action: Action, events: list[Event]) -> Action:
    player = game.players[seat]
    remove = action["remove"]
    draw_all = action["draw_all"]
    space: int | None = None
    patient: Patient | None = None
    if remove is not None:
        space, patient = player.find(remove)
        if patient is None:
            raise RuleError("unknown_patient", f"{remove!r} is not a patient of player {seat}", "T7")
    if player.helicopters <= 0:
        raise RuleError("no_helicopter", f"player {seat} has no Helicopter left", "T7")
    return helicopter(game, seat, remove, draw_all, space, patient, events)


def helicopter(
    game: Position,
    seat: int,
    remove: str | None,
    draw_all: bool,
    space: int | None,
    patient: Patient | None,
    events: list[Event],
) -> Action:
    """T7: the effect of a validated Helicopter (``patient`` in ``space``, None for a
    terminal one, is removed)."""
    player = game.players[seat]
    player.helicopters -= 1
    events.append({"type": "helicopter", "player": seat, "remove": remove, "draw_all": draw_all})
    if patient is not None:
        # T7: removal comes first; no QoC lost; the card goes under the deck.
        if space is None:
            player.terminals.remove(patient)
        else:
            player.hospital[space - 1] = None
        put_under_deck(game, patient.card)
        events.append({"type": "removed", "player": seat, "card": patient.card, "space": space})
    if draw_all:
        order = game.order()
        start = order.index(seat)
        game.queue = [[other, 1] for other in order[start:] + order[:start]]
    return {"type": "helicopter", "remove": remove, "draw_all": draw_all}


def do_buy(game: Position, seat: int, action: Action, events: list[Event]) -> Action:
    refusal = purchase_refusal(game.players[seat], game.config.market[action["item"]], f"player {seat}")
    if refusal is not None:
        raise refusal
    return buy(game, seat, action["item"], events)


def buy(game: Position, seat: int, item: str, events: list[Event]) -> Action:
    """T8: the effect of a validated purchase."""
    market = game.config.market[item]
    add_purchase(game.players[seat], market)
    events.append({"type": "bought", "player": seat, "item": item, "price": market.price})
    return {"type": "buy", "item": item}


def do_pass(game: Position, seat: int, action: Action, events: list[Event]) -> Action:
    return pass_turn(game, seat, events)


def pass_turn(game: Position, seat: int, events: list[Event]) -> Action:
    """T9: the effect of passing."""
    game.players[seat].passed = True
    events.append({"type": "passed", "player": seat})
    return {"type": "pass"}


def _payment(game: Position, seat: int, pay: Any, cost: int, token: str, what: str, rule: str) -> Pay:
    """T6: the mix of tokens, Staff and Congress Doctors that pays ``cost``."""
    player = game.players[seat]
    tokens = getattr(player, token)
    if pay is None:
        mix = default_mix(cost, tokens, player.staff_available, player.congress)
        if mix is None:
            raise RuleError("cannot_afford", _afford_message(game, seat, cost, token, what), "T6")
        return mix
    mix = (pay.get("tokens", 0), pay.get("staff", 0), pay.get("congress", 0))
    if sum(mix) != cost:
        raise RuleError("bad_payment", f"{what} costs {cost}; the payment adds up to {sum(mix)}", "T6")
    if mix[0] > tokens or mix[1] > player.staff_available or mix[2] > player.congress:
        raise RuleError("cannot_afford", _afford_message(game, seat, cost, token, what), "T6")
    return mix


def _afford_message(game: Position, seat: int, cost: int, token: str, what: str) -> str:
    player = game.players[seat]
    return (
        f"{what} costs {cost}; player {seat} has {getattr(player, token)} {token.capitalize()}, "
        f"{player.staff_available} Staff available and {player.congress} Congress Doctors"
    )


def _spend(game: Position, seat: int, pay: Pay, token: str) -> None:
    player = game.players[seat]
    setattr(player, token, getattr(player, token) - pay[0])
    player.staff_available -= pay[1]
    player.congress -= pay[2]


def _pay_dict(pay: Pay) -> Payment:
    return {"tokens": pay[0], "staff": pay[1], "congress": pay[2]}
