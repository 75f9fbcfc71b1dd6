"""An action's own shape (scenario-format.md section 4), checked before any game rule."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from triage.engine.errors import RuleError
from triage.engine.position import is_whole
from triage.engine.shapes import Action

PAY_KEYS: frozenset[str] = frozenset({"tokens", "staff", "congress"})
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "admit": frozenset({"type", "card", "space"}),
    "reject": frozenset({"type", "card"}),
    "diagnose": frozenset({"type", "patient", "pay"}),
    "heal": frozenset({"type", "patient", "amount", "pay"}),
    "treat": frozenset({"type", "patient", "pay"}),
    "helicopter": frozenset({"type", "remove", "draw_all"}),
    "buy": frozenset({"type", "item"}),
    "pass": frozenset({"type"}),
}
ADMISSION_ACTIONS: frozenset[str] = frozenset({"admit", "reject"})


def _invalid(message: str) -> RuleError:
    return RuleError("invalid_action", message)


def check_shape(action: object, items: Collection[str]) -> Action:
    """The action's own shape (scenario-format.md section 4), before any game check; a buy names
    one of ``items``, the configuration's market (T8)."""
    if not isinstance(action, dict):
        raise _invalid(f"an action must be an object with a 'type', got {action!r}")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:
        raise _invalid(f"unknown action type {kind!r} (known: {', '.join(ACTION_FIELDS)})")
    fields = ACTION_FIELDS[kind]
    extra = [key for key in action if key not in fields]
    if extra:
        raise _invalid(f"{kind} has no field {extra[0]!r} (fields: {', '.join(sorted(fields))})")
    for field in ("card", "patient"):
        if field in fields and not isinstance(action.get(field), str):
            raise _invalid(f"{kind} needs '{field}': a card id string, got {action.get(field)!r}")
    if kind == "admit" and not is_whole(action.get("space")):
        raise _invalid(f"admit needs 'space': a whole number, got {action.get('space')!r}")
    if kind == "heal":
        amount = action.get("amount")
        if not is_whole(amount) or amount < 1:
            raise _invalid(f"heal needs 'amount': a whole number of at least 1, got {amount!r}")
    if "pay" in fields:
        check_pay(action.get("pay"))
    if kind == "helicopter":
        missing = [field for field in ("remove", "draw_all") if field not in action]
        if missing:
            raise _invalid(
                f"helicopter needs '{missing[0]}' (remove: a card id or null; draw_all: true or false)"
            )
        remove = action["remove"]
        draw_all = action["draw_all"]
        if remove is not None and not isinstance(remove, str):
            raise _invalid(f"helicopter 'remove' must be a card id or null, got {remove!r}")
        if not isinstance(draw_all, bool):
            raise _invalid(f"helicopter 'draw_all' must be true or false, got {draw_all!r}")
        if remove is None and not draw_all:
            raise RuleError(
                "empty_helicopter", "a Helicopter must remove a patient, make all draw, or both", "T7"
            )
    if kind == "buy" and (not isinstance(action.get("item"), str) or action["item"] not in items):
        raise _invalid(f"unknown market item {action.get('item')!r} (items: {', '.join(items)})")
    return action  # type: ignore[return-value]  # its shape checked above: an Action


def check_pay(pay: Any) -> None:
    if pay is None:
        return
    if not isinstance(pay, dict):
        raise _invalid(f"'pay' must be an object of tokens, staff and congress, got {pay!r}")
    for key, count in pay.items():
        if key not in PAY_KEYS:
            raise _invalid(f"'pay' has no field {key!r} (fields: congress, staff, tokens)")
        if not is_whole(count) or count < 0:
            raise _invalid(f"'pay.{key}' must be a whole number >= 0, got {count!r}")
