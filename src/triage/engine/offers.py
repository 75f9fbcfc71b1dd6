"""The seat's choices as a player reads them: every action on offer with its default payment in
words (the page's "All legal actions"), and each patient's one-tap action (the page's quick
buttons): both read off the choices and their forecast entries, so they hold no rule of their
own (T6's default payment and T7's combinations come from :mod:`triage.engine.choices`).

>>> from triage.engine import Game, view
>>> from triage.engine.choices import action_choices
>>> from triage.engine.forecast import forecast
>>> game = Game.new(players=1, seed=1)
>>> found = forecast(view(game, 0), action_choices(game, 0))
>>> found["actions"][0]["text"], found["quick"]["P25"]["do"]
('Admit P25 to space 1', {'type': 'admit', 'card': 'P25', 'space': 1})
"""

from __future__ import annotations

from typing import Any

from triage.engine.choices import default_actions
from triage.engine.shapes import Action, Choice, ChoiceEffect, HealAmount, Offer, Payment, Pays, View

Entry = ChoiceEffect

#: The words of each kind of token (T6).
TOKEN_WORDS = {"diagnostics": "Diagnostics", "healing": "Healing"}


def pay_words(pay: Payment | None, token: str) -> str:
    """A payment in words: "2 Healing + 1 Staff" ("nothing" for an empty one).

    >>> pay_words({"tokens": 1, "staff": 0, "congress": 2}, "diagnostics")
    '1 Diagnostics + 2 Congress Doctors'
    """
    if pay is None:
        return "nothing"
    parts = []
    if pay["tokens"]:
        parts.append(f"{pay['tokens']} {TOKEN_WORDS[token]}")
    if pay["staff"]:
        parts.append(f"{pay['staff']} Staff")
    if pay["congress"]:
        parts.append(f"{pay['congress']} Congress Doctor{'s' if pay['congress'] > 1 else ''}")
    return " + ".join(parts) or "nothing"


def action_text(action: Action, entry: Entry | None, token: str = "healing", label: str | None = None) -> str:
    """One action in a player's words, with its payment and what it does where the forecast
    says it (``entry``, the choice's forecast entry); ``label``: a bought item's label (T8)."""
    kind = action["type"]
    effect = _effect_of(action, entry)
    paid = f" (pay {pay_words(action['pay'], token)})" if action.get("pay") else ""
    if kind == "admit":
        return f"Admit {action['card']} to space {action['space']}"
    if kind == "reject":
        return f"Reject {action['card']}: {effect}"
    if kind in ("diagnose", "treat"):
        return f"{kind.capitalize()} {action['patient']}{paid}: {effect}"
    if kind == "heal":
        return f"Heal {action['patient']} by {action['amount']}{paid}: {effect}"
    if kind == "helicopter":
        parts = [f"remove {action['remove']}"] if action["remove"] else []
        parts += ["everyone draws"] if action["draw_all"] else []
        return "Helicopter: " + ", ".join(parts)
    if kind == "buy":
        return f"Buy 1 {label or action['item']}: {effect}"
    return "Pass: end your Treatment this round"


def _effect_of(action: Action, entry: Entry | None) -> str:
    if entry is None:
        return ""
    if action["type"] == "heal":
        amount = next((a for a in entry["amounts"] if a["amount"] == action["amount"]), None)
        return str(amount["effect"]) if amount else ""
    return str(entry.get("effect", ""))


def action_lists(view: View, choices: list[Choice], entries: list[Entry]) -> list[Offer]:
    """Every action on offer with its default payment (T6), each with its text: the full list a
    player may pick from (its length is the number of targets and amounts, never of payments)."""
    labels = {name: item.get("label") for name, item in view["config"]["market"].items()}
    found: list[Offer] = []
    for choice, entry in zip(choices, entries, strict=True):
        token, label = choice.get("token", "healing"), labels.get(choice.get("item", ""))
        for action in default_actions(choice):
            found.append({"do": action, "text": action_text(action, entry, token, label)})
    return found


def quick_actions(choices: list[Choice], entries: list[Entry]) -> dict[str, Offer]:
    """Each patient's one-tap action, where one is plainly the thing to do: admit an arrival to
    the first free space (A4), cure it with the smallest heal that cures (T2, T4), treat it (T5)
    or diagnose it (T1), each with its default payment; none where that payment would take what
    another patient needs tonight (the panel then says so), nor where no heal cures."""
    found: dict[str, Offer] = {}
    for choice, entry in zip(choices, entries, strict=True):
        card = choice.get("patient") or choice.get("card")
        if card is None or card in found:
            continue
        quick = _quick(choice, entry)
        if quick is not None:
            found[card] = quick
    return found


def _quick(choice: Choice, entry: Entry) -> Offer | None:
    kind = choice["type"]
    if kind == "admit":
        space = choice["spaces"][0]
        admit: Action = {"type": "admit", "card": choice["card"], "space": space}
        return {
            "do": admit,
            "text": f"Admit to space {space}",
        }
    if kind == "heal":
        cures = [a for a in entry["amounts"] if a["outcome"] == "cures" and not _warned(a)]
        if not cures:
            return None
        amount = min(cures, key=lambda a: a["amount"])
        action: Action = {"type": "heal", "patient": choice["patient"], "amount": amount["amount"]}
        action["pay"] = amount["default_pay"]
        return {"do": action, "text": f"Heal {amount['amount']}: {amount['effect']}"}
    if kind in ("treat", "diagnose") and not _warned(entry):
        action = {"type": kind, "patient": choice["patient"], "pay": entry["default_pay"]}
        words = pay_words(entry["default_pay"], choice["token"])
        return {"do": action, "text": f"{kind.capitalize()} ({words})"}
    return None


def _warned(entry: Pays | HealAmount | ChoiceEffect) -> bool:
    """Whether the default payment (the first of ``pays``) carries a warning."""
    return any(index == 0 for index, _ in entry["warnings"])
