"""A seat's patients as its view shows them: what the forecast and its remedies read.

Only the view (scenario-format.md section 5) is read, so nothing here can tell more than the
seat knows (I1-I4): a kind is known where the front prints it (K2) or the seat has seen the
back (I2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from triage.engine.shapes import Deadline, PatientShown, View
from triage.engine.views import seat_of
from triage.engine.vocabulary import KIND, STANDARD_FRONT

#: A patient's deadline (see :mod:`triage.engine.forecast`).


def known_kind(card: Mapping[str, Any]) -> str | None:
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
    return str(front) if front != STANDARD_FRONT and front in KIND else None


def seat_card(view: View, card: str) -> PatientShown:
    """A patient of the seat as its view shows it (a space, beside the board, or arrived)."""
    player = view["players"][seat_of(view)]
    for slot in player["hospital"].values():
        if slot is not None and slot["card"] == card:
            return cast(PatientShown, dict(slot))
    for patient in player["terminals"]:
        if patient["card"] == card:
            return cast(PatientShown, {"kind": "terminal", **patient})
    return cast(PatientShown, {"card": card, **view["cards"].get(card, {})})


def reward_text(card: Mapping[str, Any]) -> str:
    """A cure's or a treatment's reward in words (T4, T5)."""
    return f"+{card['vp']} VP, +{card['credits']} Credits"


def tonight(found: Deadline) -> bool:
    """Whether a deadline is a death (certain or possible) at tonight's Cleanup."""
    return bool(found["rounds"] == 0 and found["level"] != "safe")


def need_of(card: Mapping[str, Any]) -> int | None:
    """The healing a patient still needs, where the seat knows it (T2, T3; a chronic one's need
    is its Time, which the view already counts in ``healing``); None when unknown."""
    if "healing" not in card or known_kind(card) == "terminal":
        return None
    return int(card["healing"]) - int(card["placed"])
