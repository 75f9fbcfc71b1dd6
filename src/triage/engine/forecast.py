"""What a seat can foresee: deadlines, what each choice will do, what passing will do.

The page asks these questions of every position; answering them here keeps every game rule in
the engine. :func:`forecast` reads a seat's view (scenario-format.md section 5) and that seat's
bounded choices (:func:`triage.engine.choices.action_choices`) and nothing else, so it can never
tell more than the seat knows (I1-I4): an unrevealed patient's fate reads "if severe".

The answer, plain JSON data::

    {"patients": {ID: DEADLINE, ...},       every patient in a space or beside a board
     "choices": [ENTRY, ...],                 one per choice, in the choices' order
     "pass": {"dies": [AT_RISK], "may_die": [AT_RISK]},   the seat's own, tonight
     "rescue": {ID: [STR, ...]}}              per AT_RISK patient: what on offer could save it
    DEADLINE: {"owner": SEAT, "level": "danger" | "maybe" | "safe", "rounds": N or null,
               "text": STR, "rule": ID, "quality_lost": N}
    ENTRY: the choice's "type" and target ("card", "patient" or "item"), then
      heal: "amounts": [{"amount", "effect", "outcome", "rule", "default_pay", "pays"}, ...]
        ("outcome": "cures", "dies_tonight" (it dies at tonight's Cleanup all the same) or "short")
      diagnose, treat: "effect", "rule", "default_pay", "pays" (the default first)
      helicopter: "remove": {ID: STR}, "draw_all": STR or null, "rule"
      others: "effect", "rule"
    AT_RISK: {"card": ID, "text": STR} (and "quality_lost" in "dies")

A heal whose outcome is "dies_tonight" spends the seat's resources on a patient lost anyway:
``rescue`` names what the seat's choices could do instead (a cure within reach, a Helicopter,
the market's tokens, treating a terminal patient), or says that nothing on offer saves it.

``level`` maybe is a death that depends on a kind the seat does not know; ``rounds`` counts the
Cleanups after tonight's before the death (0: tonight; null: never before the game ends).

>>> from triage.engine import Game, view
>>> from triage.engine.choices import action_choices
>>> game = Game.new(players=1, seed=1)
>>> seen = forecast(view(game, 0), action_choices(game, 0))
>>> sorted(seen)
['choices', 'pass', 'patients', 'rescue']
>>> [entry["type"] for entry in seen["choices"]] == [c["type"] for c in action_choices(game, 0)]
True
"""

from __future__ import annotations

from typing import Any

from triage.engine.choices import default_pay, expand
from triage.engine.cleanup import DEATH_QUALITY, TERMINAL_DEATH_QUALITY

Forecast = dict[str, Any]
Deadline = dict[str, Any]


def forecast(view: dict[str, Any], choices: list[dict[str, Any]]) -> Forecast:
    """The seat's forecast: ``patients`` (card id -> deadline), ``choices`` (one entry per
    choice, same order) and ``pass`` (the seat's patients that will or may die tonight)."""
    patients = deadlines(view)
    at_risk = _pass_forecast(view, patients)
    return {
        "patients": patients,
        "choices": [_effect(view, patients, choice) for choice in choices],
        "pass": at_risk,
        "rescue": {
            patient["card"]: rescues(view, patient["card"], choices)
            for patient in at_risk["dies"] + at_risk["may_die"]
        },
    }


# ---------------------------------------------------------------------- deadlines (C1-C4)


def deadlines(view: dict[str, Any]) -> dict[str, Deadline]:
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


def _dies(view: dict[str, Any], rounds: int, level: str, rule: str) -> Deadline:
    """A death ``rounds`` Cleanups after tonight's, unless the game ends first (R1, R4)."""
    if view["round"] + rounds > view["config"]["rounds"]:
        return _entry("safe", None, "safe: the game ends first", "R1")
    if level == "maybe" and rounds == 0:
        return _entry(level, 0, "checked at Cleanup tonight: dies if severe", "C3")
    return _entry(level, rounds, f"dies {_when(rounds)}" + (" if severe" if level == "maybe" else ""), rule)


def known_kind(card: dict[str, Any]) -> str | None:
    """The card's kind where the view tells it: printed on a critical or terminal front (K2),
    else known with its priority (I2).

    >>> known_kind({"front": "standard", "diagnosis": 2}) is None
    True
    >>> known_kind({"front": "critical"})
    'critical'
    """
    if "kind" in card:
        return str(card["kind"])
    front = card.get("front")
    return str(front) if front in ("critical", "terminal") else None


def deadline(view: dict[str, Any], slot: dict[str, Any]) -> Deadline:
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
    # C1 then C2: with t Time now it has t + 1 + r after the r-th Cleanup after tonight's.
    severe_rounds = max(0, 1 - slot["time"])
    if kind == "critical":
        return _dies(view, 0, "danger", "C2")
    if kind == "severe":
        return _dies(view, severe_rounds, "danger", "C2")
    if kind == "chronic":
        return _entry("safe", None, "safe: never dies (each Time adds 1 to its healing)", "T3")
    if kind == "non_severe":
        return _entry("safe", None, "safe: never dies", "C2")
    if slot["card"] in view.get("not_severe", []):
        return _entry("safe", None, "safe: not severe (survived a check)", "I4")
    return _dies(view, severe_rounds, "maybe", "C3")


def terminal_deadline(view: dict[str, Any], patient: dict[str, Any]) -> Deadline:
    """A terminal patient dies at tonight's Cleanup unless treated this round (C1, C2, T5); with
    V3 ``reward`` one treated during this stay never gets Time again."""
    if patient["treated"]:
        return _entry("safe", None, "treated: safe tonight", "C1")
    if view["config"]["terminal_upkeep"] == "reward" and patient.get("ever_treated"):
        return _entry("safe", None, "safe: treated in an earlier round", "V3")
    return _entry("danger", 0, "dies at Cleanup tonight unless treated", "C2", TERMINAL_DEATH_QUALITY)


def _tonight(found: Deadline) -> bool:
    return bool(found["rounds"] == 0 and found["level"] != "safe")


# ---------------------------------------------------------------------- what a choice does


def _card(view: dict[str, Any], card: str) -> dict[str, Any]:
    """A patient of the seat as its view shows it (a space, beside the board, or arrived)."""
    player = view["players"][view["viewer"]]
    for slot in player["hospital"].values():
        if slot is not None and slot["card"] == card:
            return dict(slot)
    for patient in player["terminals"]:
        if patient["card"] == card:
            return {"kind": "terminal", **patient}
    return {"card": card, **view["cards"].get(card, {})}


def _reward(card: dict[str, Any]) -> str:
    return f"+{card['vp']} VP, +{card['credits']} Credits"


def _pays(choice: dict[str, Any], cost: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The payment mixes of ``cost`` on offer (T6), the engine's own default first."""
    mixes = [action["pay"] for action in actions]
    default = default_pay(cost, choice["budget"])
    return {"default_pay": default, "pays": [default] + [mix for mix in mixes if mix != default]}


def _effect(view: dict[str, Any], patients: dict[str, Deadline], choice: dict[str, Any]) -> dict[str, Any]:
    """One choice's entry: its target, what it does (``effect``, ``rule``) and its payments."""
    kind = choice["type"]
    target: dict[str, Any] = {
        key: choice[key] for key in ("type", "card", "patient", "item") if key in choice
    }
    if kind == "heal":
        return {**target, "amounts": _heal_amounts(view, patients, choice)}
    if kind in ("diagnose", "treat"):
        card = _card(view, choice["patient"])
        text, rule = _diagnosis(card) if kind == "diagnose" else _treatment(view, card)
        return {**target, "effect": text, "rule": rule, **_pays(choice, choice["cost"], list(expand(choice)))}
    if kind == "helicopter":
        return {**target, **_helicopter(patients, choice)}
    text, rule = _simple_effect(view, patients, choice)
    return {**target, "effect": text, "rule": rule}


def _simple_effect(
    view: dict[str, Any], patients: dict[str, Deadline], choice: dict[str, Any]
) -> tuple[str, str]:
    """Admission (A4, A5), the market (T8) and passing (T9)."""
    kind = choice["type"]
    if kind == "admit":
        card = _card(view, choice["card"])
        arrived = {**card, "time": 0, "revealed": known_kind(card) == "critical"}
        return f"takes a space; then {deadline(view, arrived)['text']}", "A4"
    if kind == "reject":
        return "costs 1 QoC; the patient goes back to the deck", "A5"
    if kind == "buy":
        return f"buys 1 {choice['item'].replace('_', ' ')} for {choice['price']} Credits", "T8"
    dying = [card for card, found in patients.items() if found["owner"] == view["viewer"] and _tonight(found)]
    if not dying:
        return "ends your Treatment; no patient of yours can die tonight", "T9"
    return f"ends your Treatment; at risk tonight: {', '.join(dying)}", "T9"


def _diagnosis(card: dict[str, Any]) -> tuple[str, str]:
    """T1 reveals the back; a chronic patient with no Time is then cured at once (T4)."""
    kind = known_kind(card)
    if kind is None:
        return "reveals its kind, reward and healing need", "T1"
    if kind == "chronic" and card["time"] == 0:
        return f"reveals it and cures it at once: {_reward(card)}", "T4"
    return f"reveals it ({kind.replace('_', '-')})", "T1"


def _treatment(view: dict[str, Any], card: dict[str, Any]) -> tuple[str, str]:
    """T5: the recurring reward now; C1: no Time tonight (V3 ``reward``: for the whole stay)."""
    if view["config"]["terminal_upkeep"] == "reward":
        return f"{_reward(card)} now; saves it for the rest of its stay", "V3"
    return f"{_reward(card)} now; saves it until the next Cleanup", "T5"


def _heal_amounts(
    view: dict[str, Any], patients: dict[str, Deadline], choice: dict[str, Any]
) -> list[dict[str, Any]]:
    """Per amount on offer: what it does (T2, T4) and its payment mixes (T6)."""
    card = _card(view, choice["patient"])
    found = patients.get(choice["patient"], _entry("safe", None, "", "T2"))
    by_amount: dict[int, list[dict[str, Any]]] = {}
    for action in expand(choice):
        by_amount.setdefault(action["amount"], []).append(action)
    amounts = []
    for amount, actions in by_amount.items():
        text, rule = _healing(card, found, amount)
        outcome = _outcome(card, found, amount)
        amounts.append(
            {
                "amount": amount,
                "effect": text,
                "outcome": outcome,
                "rule": rule,
                **_pays(choice, amount, actions),
            }
        )
    return amounts


def _outcome(card: dict[str, Any], found: Deadline, amount: int) -> str:
    """ "cures" (T4), "dies_tonight" (placed, yet C2 kills it tonight) or "short" (not yet)."""
    if card["healing"] - card["placed"] - amount <= 0:
        return "cures"
    return "dies_tonight" if _tonight(found) else "short"


def _healing(card: dict[str, Any], found: Deadline, amount: int) -> tuple[str, str]:
    """T2 places healing; T4 cures once placed healing reaches the need (a chronic one's Time)."""
    still = card["healing"] - card["placed"] - amount
    if still <= 0:
        return f"cures it: {_reward(card)}", "T4"
    if _tonight(found):
        return f"still dies tonight: needs {still} more", "C2"
    if found["level"] == "danger":
        return f"needs {still} more before it dies {_when(found['rounds'])}", "C2"
    if known_kind(card) == "chronic":
        return f"needs {still} more, and 1 more after each Cleanup", "T3"
    return f"needs {still} more to cure it", "T4"


def _helicopter(patients: dict[str, Deadline], choice: dict[str, Any]) -> dict[str, Any]:
    """T7: a removal costs no QoC (sparing a death tonight); draw_all makes everyone draw."""
    removes = {}
    for card in choice["remove"]:
        found = patients.get(card)
        removes[card] = "removes it: no QoC lost"
        if found is not None and found["level"] == "danger" and found["rounds"] == 0:
            removes[card] += f", instead of {found['quality_lost']} when it dies tonight"
    draw_all = "every player draws one patient" if choice["draw_all"] else None
    return {"remove": removes, "draw_all": draw_all, "rule": "T7"}


# ---------------------------------------------------------------------- passing


def _pass_forecast(view: dict[str, Any], patients: dict[str, Deadline]) -> dict[str, Any]:
    """The seat's patients that will die (``dies``) or die if severe (``may_die``) at tonight's
    Cleanup, each with what the seat sees of it and the QoC it costs (C4)."""
    dies, may_die = [], []
    for card, found in patients.items():
        if found["owner"] != view["viewer"] or not _tonight(found):
            continue
        shown = _card(view, card)
        kind = known_kind(shown)
        if found["level"] == "danger":
            cost, label = found["quality_lost"], (kind or "").replace("_", "-")
            text = f"{card} ({label}, Time {shown['time']}): −{cost} QoC"
            dies.append({"card": card, "quality_lost": cost, "text": text})
        else:
            may_die.append({"card": card, "text": f"{card} (unrevealed, Time {shown['time']})"})
    return {"dies": dies, "may_die": may_die}


# ---------------------------------------------------------------------- what could save a patient

#: What pays a unit of healing (T6), by its market name: the seat's market may sell more of each.
_HEALING_PAYERS = {"healing": "Healing tokens", "staff": "Staff", "congress": "Congress Doctors"}


def rescues(view: dict[str, Any], card: str, choices: list[dict[str, Any]]) -> list[str]:
    """What the seat's choices could do for ``card``, at risk tonight: cure it now (T4), fly it
    out (T7), treat it (T5), buy what pays healing (T6, T8), or cure another patient instead.
    Only from what the view shows: an unrevealed patient's need is never named (I2)."""
    shown = _card(view, card)
    known = "healing" in shown and known_kind(shown) != "terminal"
    found: list[str] = []
    for choice in choices:
        kind, target = choice["type"], choice.get("patient")
        if kind == "heal" and target == card and known:
            need = shown["healing"] - shown["placed"]
            if choice["amount"]["max"] >= need:
                found.append(f"heal it by {need}: that saves it")
        elif kind == "treat" and target == card:
            found.append("treat it: that saves it tonight")
        elif kind == "diagnose" and target == card:
            found.append("diagnose it: then you know whether it can be saved")
        elif kind == "helicopter" and card in choice["remove"]:
            found.append("fly it out with a Helicopter: no QoC lost")
    if known and shown.get("kind") != "terminal":
        found += _market_help(view, shown, choices)
    found += _cures_elsewhere(view, card, choices)
    return found or ["nothing on offer can save it now"]


def _market_help(view: dict[str, Any], shown: dict[str, Any], choices: list[dict[str, Any]]) -> list[str]:
    """The market's items that pay healing, when the seat cannot pay the whole need today."""
    need = shown["healing"] - shown["placed"]
    heal = next((c for c in choices if c["type"] == "heal" and c.get("patient") == shown["card"]), None)
    if heal is not None and heal["amount"]["max"] >= need:
        return []
    short = need - (heal["amount"]["max"] if heal is not None else 0)
    credits = view["players"][view["viewer"]]["credits"]
    offers = [c for c in choices if c["type"] == "buy" and c["item"] in _HEALING_PAYERS]
    return [
        f"buy {_HEALING_PAYERS[offer['item']]} ({offer['price']} Credits each, you have {credits}): "
        f"{short} healing short"
        for offer in offers
    ]


def _cures_elsewhere(view: dict[str, Any], card: str, choices: list[dict[str, Any]]) -> list[str]:
    """Heals within reach that cure another of the seat's patients (T4)."""
    found = []
    for choice in choices:
        if choice["type"] != "heal" or choice["patient"] == card:
            continue
        other = str(choice["patient"])
        shown = _card(view, other)
        if choice["amount"]["max"] >= shown["healing"] - shown["placed"]:
            found.append(f"or cure {other} instead ({_reward(shown)})")
    return found
