"""A hint: the ``expert`` bot's move for a seat, with one line saying why.

Both the web table (``POST /api/tables/{id}/hint``) and the terminal game (``hint``) ask here.
The bot sees only the seat's view (scenario-format.md section 5), as every bot does, and the
reason is read from the engine's forecast of that same view (:mod:`triage.engine.forecast`), so
a hint tells nothing the seat could not know (I1-I4).

>>> from triage.engine import Game, view
>>> from triage.engine.choices import action_choices
>>> game = Game.new(players=1, seed=1)
>>> seen = view(game, 0)
>>> action = {"type": "admit", "card": "P25", "space": 1}
>>> hint_reason(seen, action_choices(game, 0), action).startswith("admits P25")
True
"""

from __future__ import annotations

import random
from typing import Any

from triage.engine.forecast import forecast
from triage.engine.shapes import Action, Choice, ChoiceEffect, Deadline, View

#: The bot a hint asks: the strongest level offered to players.
HINT_BOT = "expert"
#: The keys that name an action's target (a choice has the same ones).
_TARGETS = ("card", "patient", "item")
_VERBS = {
    "admit": "admits",
    "reject": "rejects",
    "diagnose": "diagnoses",
    "heal": "heals",
    "treat": "treats",
    "buy": "buys",
    "helicopter": "calls a Helicopter",
    "pass": "pass",
}


def suggest_move(view: View, legal: list[Action], seed: str, bot: str = HINT_BOT) -> Action:
    """The bot's move from the seat's ``view`` among ``legal`` (its generator seeded by ``seed``,
    so the same question gets the same hint wherever it is asked)."""
    from triage.bots import make_bot  # the registry imports this package's bots

    return make_bot(bot).choose(view, legal, random.Random(f"hint:{seed}"))


def hint_reason(view: View, choices: list[Choice], action: Action) -> str:
    """One line saying what ``action`` achieves, from the forecast of the seat's ``view`` and
    ``choices`` (:func:`triage.engine.choices.action_choices`), e.g. "heals P12 by 3: cures it
    (+3 VP, +2 Credits)"."""
    seen = forecast(view, choices)
    entry = _entry_for(seen["choices"], action)
    head = _head(action)
    if entry is None:  # not on offer: said plainly rather than guessed
        return head
    kind = action["type"]
    if kind == "heal":
        return f"{head}: {_heal_effect(entry, action, seen['patients'].get(action['patient']))}"
    if kind == "helicopter":
        return f"{head}: {_helicopter_effect(entry, action)}"
    if kind == "buy":  # the effect names the item and its price already
        return str(entry["effect"])
    return f"{head}: {entry['effect']}"


def _entry_for(entries: list[ChoiceEffect], action: Action) -> ChoiceEffect | None:
    """The forecast entry of the choice that allows ``action`` (same type and target)."""
    for entry in entries:
        if entry["type"] == action["type"] and all(
            entry.get(key) == action.get(key) for key in _TARGETS if key in entry
        ):
            return entry
    return None


def _head(action: Action) -> str:
    verb = _VERBS.get(action["type"], action["type"])
    kind = action["type"]
    if kind == "heal":
        return f"{verb} {action['patient']} by {action['amount']}"
    if kind == "admit":
        return f"{verb} {action['card']} to space {action['space']}"
    if kind == "buy":
        return f"{verb} 1 {str(action['item']).replace('_', ' ')}"
    target = action.get("card") or action.get("patient") or action.get("item")
    return str(verb) if target is None or kind == "helicopter" else f"{verb} {target}"


def _heal_effect(entry: ChoiceEffect, action: Action, found: Deadline | None) -> str:
    """A heal's line: a cure of a patient dying tonight says it is saved from that death."""
    amount = next((item for item in entry["amounts"] if item["amount"] == action["amount"]), None)
    if amount is None:
        return "places healing"
    text = str(amount["effect"])
    if (
        amount["outcome"] == "cures"
        and found is not None
        and found["level"] == "danger"
        and found["rounds"] == 0
    ):
        return f"{text}; saves it from dying tonight (C2)"
    return text


def _helicopter_effect(entry: ChoiceEffect, action: Action) -> str:
    parts = []
    removed = action.get("remove")
    if removed is not None:
        said = str(entry["remove"].get(removed, "removes it"))
        parts.append(said.replace("removes it", f"removes {removed}", 1))
    if action.get("draw_all") and entry.get("draw_all"):
        parts.append(str(entry["draw_all"]))
    return "; ".join(parts) or "T7"
