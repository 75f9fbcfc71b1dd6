"""What a seat can foresee: deadlines, what each choice will do, what passing will do.

The page asks these questions of every position; answering them here keeps every game rule in
the engine. :func:`forecast` reads a seat's view (scenario-format.md section 5) and that seat's
bounded choices (:func:`triage.engine.choices.action_choices`) and nothing else, so it can never
tell more than the seat knows (I1-I4): an unrevealed patient's fate reads "if severe".

The answer, plain JSON data::

    {"patients": {ID: DEADLINE, ...},       every patient in a space or beside a board
     "choices": [ENTRY, ...],                 one per choice, in the choices' order
     "pass": {"dies": [AT_RISK], "may_die": [AT_RISK]},   the seat's own, tonight
     "rescue": {ID: [STR, ...]},              per AT_RISK patient: what could save it
     "market": {ITEM: {"price": N, "why": STR or null}},  why it cannot be bought now (T8)
     "actions": [{"do": ACTION, "text": STR}, ...],      every action, default payment (T6)
     "quick": {ID: {"do": ACTION, "text": STR}}}         a patient's one-tap action
    DEADLINE: {"owner": SEAT, "level": "danger" | "maybe" | "safe", "rounds": N or null,
               "text": STR, "rule": ID, "quality_lost": N}
    ENTRY: the choice's "type" and target ("card", "patient" or "item"), then
      heal: "amounts": [{"amount", "effect", "outcome", "rule", PAYS}, ...]
        ("outcome": "cures", "dies_tonight" (it dies at tonight's Cleanup all the same) or "short")
      diagnose, treat: "effect", "rule", PAYS
      helicopter: "remove": {ID: STR}, "draw_all": STR or null, "rule"
      others: "effect", "rule"
    PAYS: "default_pay", "pays" (the default first) and "warnings": [[INDEX, STR], ...] for the
      pays that would take what another patient needs to be saved tonight (the others none)
    AT_RISK: {"card": ID, "text": STR} (and "quality_lost" in "dies")

``pass`` and ``rescue`` are Treatment's questions (T9): empty when no pass is on offer (Arrival
offers admissions only, A4). A heal whose outcome is "dies_tonight" spends the seat's resources
on a patient lost anyway: ``rescue`` names what could save that very patient (a cure within
reach, a treatment, a Helicopter, the market's units when the seat's Credits pay for them all),
or says that nothing on offer saves it (:mod:`triage.engine.remedies`).

``level`` maybe is a death that depends on a kind the seat does not know; ``rounds`` counts the
Cleanups after tonight's before the death (0: tonight; null: never before the game ends).

>>> from triage.engine import Game, view
>>> from triage.engine.choices import action_choices
>>> game = Game.new(players=1, seed=1)
>>> seen = forecast(view(game, 0), action_choices(game, 0))
>>> sorted(seen)
['actions', 'choices', 'market', 'pass', 'patients', 'quick', 'rescue']
>>> [entry["type"] for entry in seen["choices"]] == [c["type"] for c in action_choices(game, 0)]
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from triage.engine.choices import default_pay, expand
from triage.engine.cleanup import DEATH_QUALITY, TERMINAL_DEATH_QUALITY, cleanups_before_death
from triage.engine.offers import action_lists, quick_actions
from triage.engine.patients import known_kind, need_of, reward_text, seat_card, tonight
from triage.engine.remedies import market, needs_tonight, rescues, warning
from triage.engine.shapes import (
    Action,
    AtRisk,
    AtRiskTonight,
    CardShown,
    Choice,
    ChoiceEffect,
    Deadline,
    Forecast,
    HealAmount,
    PatientShown,
    Pays,
    TerminalShown,
    View,
)
from triage.engine.vocabulary import KIND, STANDARD_FRONT


def forecast(view: View, choices: list[Choice]) -> Forecast:
    """The seat's forecast: ``patients`` (card id -> deadline), ``choices`` (one entry per
    choice, same order), and in the seat's Treatment (T9: a pass is on offer) ``pass`` (the
    seat's patients that will or may die tonight) with their ``rescue``; ``market`` (each item's
    price and why it cannot be bought now) and ``quick`` (each patient's one-tap action)."""
    patients = deadlines(view)
    deciding = any(choice["type"] == "pass" for choice in choices)
    at_risk = _pass_forecast(view, patients) if deciding else {"dies": [], "may_die": []}
    needs = needs_tonight(view, patients, choices)
    entries = [_effect(view, patients, choice, needs) for choice in choices]
    return {
        "patients": patients,
        "choices": entries,
        "pass": at_risk,
        "rescue": {
            patient["card"]: rescues(view, patient["card"], choices)
            for patient in at_risk["dies"] + at_risk["may_die"]
        },
        "market": market(view, choices),
        "actions": action_lists(view, choices, entries),
        "quick": quick_actions(choices, entries),
    }


# ---------------------------------------------------------------------- deadlines (C1-C4)


def deadlines(view: View) -> dict[str, Deadline]:
    """Every visible patient's deadline as the view tells it; none once the game is over."""
    if view["phase"] == "over":
        return {}
    found: dict[str, Deadline] = {}
    for seat, player in enumerate(view["players"]):
        for slot in player["hospital"].values():
            if slot is not None:
                found[slot["card"]] = {"owner": seat, **deadline(view, slot)}
        for patient in player["terminals"]:
            found[patient["card"]] = {"owner": seat, **terminal_deadline(view, patient)}
    return found


def _entry(level: str, rounds: int | None, text: str, rule: str, cost: int = DEATH_QUALITY) -> Deadline:
    """``level`` danger (dies unless saved), maybe (dies if severe) or safe; ``rounds``: the
    Cleanups after tonight's before it dies (0: tonight; None: never); ``quality_lost``: what
    its death costs (C4), 0 when safe."""
    lost = 0 if level == "safe" else cost
    return {"level": level, "rounds": rounds, "text": text, "rule": rule, "quality_lost": lost}


def _when(rounds: int) -> str:
    if rounds == 0:
        return "at Cleanup tonight"
    return "at the next Cleanup" if rounds == 1 else f"at the Cleanup in {rounds} rounds"


def _dies(view: View, rounds: int, level: str, rule: str) -> Deadline:
    """A death ``rounds`` Cleanups after tonight's, unless the game ends first (R1, R4)."""
    if view["round"] + rounds > view["config"]["rounds"]:
        return _entry("safe", None, "safe: the game ends first", "R1")
    if level == "maybe" and rounds == 0:
        return _entry(level, 0, "checked at Cleanup tonight: dies if severe", "C3")
    return _entry(level, rounds, f"dies {_when(rounds)}" + (" if severe" if level == "maybe" else ""), rule)


def deadline(view: View, slot: CardShown | Mapping[str, Any]) -> Deadline:
    """A patient in a space: C1 adds one Time tonight (not to a revealed non-severe one), then
    C2 kills a critical patient with 1 Time, a severe one with 2.

    >>> config = {"rounds": 6}
    >>> deadline({"round": 1, "config": config}, {"front": "critical", "time": 0})["text"]
    'dies at Cleanup tonight'
    >>> slot = {"card": "P1", "front": "standard", "diagnosis": 2, "time": 0}
    >>> deadline({"round": 1, "config": config, "not_severe": []}, slot)["text"]
    'dies at the next Cleanup if severe'
    >>> deadline({"round": 6, "config": config, "not_severe": []}, slot)["text"]
    'safe: the game ends first'
    """
    kind = known_kind(slot)
    if kind is not None:
        rounds = cleanups_before_death(kind, slot["time"])
        if rounds is not None:
            return _dies(view, rounds, "danger", "C2")
        if KIND[kind].printed_healing:
            return _entry("safe", None, "safe: never dies", "C2")
        return _entry("safe", None, "safe: never dies (each Time adds 1 to its healing)", "T3")
    if slot["card"] in view.get("not_severe", []):
        return _entry("safe", None, "safe: not severe (survived a check)", "I4")
    # Unknown: it dies as a severe patient would, if it is one (C2, C3).
    return _dies(view, cleanups_before_death("severe", slot["time"]) or 0, "maybe", "C3")


def terminal_deadline(view: View, patient: TerminalShown | Mapping[str, Any]) -> Deadline:
    """A terminal patient dies at tonight's Cleanup unless treated this round (C1, C2, T5); with
    V3 ``reward`` one treated during this stay never gets Time again."""
    if patient["treated"]:
        return _entry("safe", None, "treated: safe tonight", "C1")
    if view["config"]["terminal_upkeep"] == "reward" and patient.get("ever_treated"):
        return _entry("safe", None, "safe: treated in an earlier round", "V3")
    return _entry("danger", 0, "dies at Cleanup tonight unless treated", "C2", TERMINAL_DEATH_QUALITY)


def _pays(
    view: View,
    choice: Choice,
    cost: int,
    actions: list[Action],
    needs: dict[str, int],
) -> Pays:
    """The payment mixes of ``cost`` on offer (T6), the engine's own default first, and what
    some of them would take from another patient's rescue tonight (``warnings``: [index in
    ``pays``, words] for those only, so that the listing stays small at the table limits)."""
    default = default_pay(cost, choice["budget"])
    pays = [default] if default is not None else []
    pays += [mix for action in actions if (mix := action.get("pay")) is not None and mix != default]
    token, target = choice["token"], choice.get("patient")
    warned = [(index, warning(view, needs, target, mix, token)) for index, mix in enumerate(pays)]
    return {"default_pay": default, "pays": pays, "warnings": [(i, words) for i, words in warned if words]}


def _effect(view: View, patients: dict[str, Deadline], choice: Choice, needs: dict[str, int]) -> ChoiceEffect:
    """One choice's entry: its target, what it does (``effect``, ``rule``) and its payments."""
    kind = choice["type"]
    target: ChoiceEffect = {"type": kind}
    if "card" in choice:
        target["card"] = choice["card"]
    if "patient" in choice:
        target["patient"] = choice["patient"]
    if "item" in choice:
        target["item"] = choice["item"]
    if kind == "heal":
        return {**target, "amounts": _heal_amounts(view, patients, choice, needs)}
    if kind in ("diagnose", "treat"):
        card = seat_card(view, choice["patient"])
        text, rule = _diagnosis(card) if kind == "diagnose" else _treatment(view, card)
        pays = _pays(view, choice, choice["cost"], list(expand(choice)), needs)
        return {**target, "effect": text, "rule": rule, **pays}
    if kind == "helicopter":
        return {**target, **_helicopter(patients, choice)}
    text, rule = _simple_effect(view, patients, choice)
    return {**target, "effect": text, "rule": rule}


def _simple_effect(view: View, patients: dict[str, Deadline], choice: Choice) -> tuple[str, str]:
    """Admission (A4, A5), the market (T8) and passing (T9)."""
    kind = choice["type"]
    if kind == "admit":
        card = seat_card(view, choice["card"])
        # A7: a patient whose front shows its kind is revealed on admission.
        arrived = {**card, "time": 0, "revealed": card.get("front") != STANDARD_FRONT}
        return f"takes a space; then {deadline(view, arrived)['text']}", "A4"
    if kind == "reject":
        return "costs 1 QoC; the patient goes back to the deck", "A5"
    if kind == "buy":
        label = view["config"]["market"][choice["item"]].get("label", choice["item"])
        return f"buys 1 {label} for {choice['price']} Credits", "T8"
    dying = [card for card, found in patients.items() if found["owner"] == view["viewer"] and tonight(found)]
    if not dying:
        return "ends your Treatment; no patient of yours can die tonight", "T9"
    return f"ends your Treatment; at risk tonight: {', '.join(dying)}", "T9"


def _diagnosis(card: PatientShown) -> tuple[str, str]:
    """T1 reveals the back; a chronic patient with no Time is then cured at once (T4)."""
    kind = known_kind(card)
    if kind is None:
        return "reveals its kind, reward and healing need", "T1"
    if not KIND[kind].printed_healing and card["time"] == 0:  # T3: a chronic one's need is its Time
        return f"reveals it and cures it at once: {reward_text(card)}", "T4"
    return f"reveals it ({KIND[kind].label})", "T1"


def _treatment(view: View, card: PatientShown) -> tuple[str, str]:
    """T5: the recurring reward now; C1: no Time tonight (V3 ``reward``: for the whole stay)."""
    if view["config"]["terminal_upkeep"] == "reward":
        return f"{reward_text(card)} now; saves it for the rest of its stay", "V3"
    return f"{reward_text(card)} now; saves it until the next Cleanup", "T5"


def _heal_amounts(
    view: View, patients: dict[str, Deadline], choice: Choice, needs: dict[str, int]
) -> list[HealAmount]:
    """Per amount on offer: what it does (T2, T4) and its payment mixes (T6)."""
    card = seat_card(view, choice["patient"])
    found = patients.get(choice["patient"], _entry("safe", None, "", "T2"))
    by_amount: dict[int, list[Action]] = {}
    for action in expand(choice):
        by_amount.setdefault(action["amount"], []).append(action)
    amounts: list[HealAmount] = []
    for amount, actions in by_amount.items():
        text, rule = _healing(card, found, amount)
        outcome = _outcome(card, found, amount)
        amounts.append(
            {
                "amount": amount,
                "effect": text,
                "outcome": outcome,
                "rule": rule,
                **_pays(view, choice, amount, actions, needs),
            }
        )
    return amounts


def _outcome(card: PatientShown, found: Deadline, amount: int) -> str:
    """ "cures" (T4), "dies_tonight" (placed, yet C2 kills it tonight) or "short" (not yet)."""
    if (need_of(card) or 0) - amount <= 0:  # a heal is offered only where the need is known (T2, T3)
        return "cures"
    return "dies_tonight" if tonight(found) else "short"


def _healing(card: PatientShown, found: Deadline, amount: int) -> tuple[str, str]:
    """T2 places healing; T4 cures once placed healing reaches the need (a chronic one's Time)."""
    still = (need_of(card) or 0) - amount
    if still <= 0:
        return f"cures it: {reward_text(card)}", "T4"
    if tonight(found):
        return f"still dies tonight: needs {still} more", "C2"
    if found["level"] == "danger" and found["rounds"] is not None:
        return f"needs {still} more before it dies {_when(found['rounds'])}", "C2"
    kind = known_kind(card)
    if kind is not None and not KIND[kind].printed_healing:  # T3: its need grows with its Time
        return f"needs {still} more, and 1 more after each Cleanup", "T3"
    return f"needs {still} more to cure it", "T4"


def _helicopter(patients: dict[str, Deadline], choice: Choice) -> ChoiceEffect:
    """T7: a removal costs no QoC (sparing a death tonight); draw_all makes everyone draw."""
    removes = {}
    for card in choice["remove"]:
        found = patients.get(card)
        removes[card] = "removes it: no QoC lost"
        if found is not None and found["level"] == "danger" and found["rounds"] == 0:
            removes[card] += f", instead of {found['quality_lost']} when it dies tonight"
    draw_all = "every player draws one patient" if choice["draw_all"] else None
    return {"type": "helicopter", "remove": removes, "draw_all": draw_all, "rule": "T7"}


# ---------------------------------------------------------------------- passing


def _pass_forecast(view: View, patients: dict[str, Deadline]) -> AtRiskTonight:
    """The seat's patients that will die (``dies``) or die if severe (``may_die``) at tonight's
    Cleanup, each with what the seat sees of it and the QoC it costs (C4)."""
    dies: list[AtRisk] = []
    may_die: list[AtRisk] = []
    for card, found in patients.items():
        if found["owner"] != view["viewer"] or not tonight(found):
            continue
        shown = seat_card(view, card)
        kind = known_kind(shown)
        if found["level"] == "danger":
            cost, label = found["quality_lost"], (kind or "").replace("_", "-")
            text = f"{card} ({label}, Time {shown['time']}): −{cost} QoC"
            dies.append({"card": card, "quality_lost": cost, "text": text})
        else:
            may_die.append({"card": card, "text": f"{card} (unrevealed, Time {shown['time']})"})
    return {"dies": dies, "may_die": may_die}
