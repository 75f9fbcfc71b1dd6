"""The integer action space and the observation vector shared by the research interfaces.

OpenSpiel, PettingZoo and Gymnasium all want a fixed-size integer action space with a mask of
the legal actions, and a fixed-size numeric observation. Both are built here, once, from a seat's
:func:`triage.engine.view` only: nothing in this module ever reads ``game.cards`` or the
all-seeing state, so an observation cannot hold what the seat may not know (rules.md I4).

The action space is the engine's integer action index (:mod:`triage.engine.actions`, sizes
from the view's public ``config`` and ``catalogue``), so an id here is the id of
``Game.legal_action_ids``; :class:`Layout` adds the observation vector to it.

>>> from triage.engine import Game, view
>>> game = Game.new(players=2, seed=3)
>>> layout = Layout.from_view(view(game, 0))
>>> layout.num_actions, layout.describe(layout.num_actions - 1)
(2466, 'pass')
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from triage.engine.actions import PAYERS, ActionSpace, EncodingError, IllegalActionError
from triage.engine.cards import KINDS
from triage.engine.config import MARKET_ITEMS
from triage.engine.game import PHASES
from triage.engine.state import PLAYER_NUMBERS

Action = dict[str, Any]
View = dict[str, Any]

MAX_PLAYERS = 4
FRONTS: tuple[str, ...] = ("standard", "critical", "terminal")
COUNTERS: tuple[str, ...] = (*PLAYER_NUMBERS, "spaces")
#: Deck positions from the top described in the observation (known ones only, I3).
DECK_PEEK = 4
#: Every observation value lies within +-OBS_LIMIT (far beyond any reachable counter).
OBS_LIMIT = 1.0e6


__all__ = ["ActionSpace", "EncodingError", "IllegalActionError", "Layout", "view_text"]


# ---------------------------------------------------------------------- the layout


@dataclass(frozen=True)
class Layout(ActionSpace):
    """The engine's action index for one configuration and deck, plus the observation's sizes."""

    @classmethod
    def from_view(cls, seat_view: View) -> Layout:
        """The layout for the game a view belongs to, from its public config and catalogue."""
        return cls(*ActionSpace.sizes(seat_view["config"], seat_view["catalogue"]))

    # ------------------------------------------------------------------ engine <-> integer

    def encode(self, seat_view: View, action: Action) -> int:
        """The integer of an engine action (section 4 shape) for the viewing seat."""
        me = seat_view["players"][seat_view["viewer"]]
        kind = action["type"]
        if kind in ("admit", "reject"):
            pending = _position(me["pending"], action["card"], "pending patient")
            if kind == "reject":
                return self.index("reject", pending)
            return self.index("admit", pending, action["space"] - 1)
        if kind == "diagnose":
            space = _space_of(me, action["patient"])
            pay = action.get("pay") or {}
            return self.index("diagnose", space - 1, pay.get("staff", 0), pay.get("congress", 0))
        if kind == "heal":
            space = _space_of(me, action["patient"])
            pay = action.get("pay") or {}
            return self.index(
                "heal", space - 1, action["amount"] - 1, pay.get("staff", 0), pay.get("congress", 0)
            )
        if kind == "treat":
            terminal = _terminal_of(me, action["patient"])
            pay = action.get("pay") or {"tokens": 1}
            payer = next((i for i, name in enumerate(PAYERS) if pay.get(name, 0) == 1), None)
            if payer is None:
                raise EncodingError(f"treat must be paid by one unit of one kind, got {pay!r}")
            return self.index("treat", terminal, payer)
        if kind == "helicopter":
            remove = action.get("remove")
            if remove is None:
                target = 0
            elif remove in me["pending"]:
                raise EncodingError(f"{remove} is pending, not a patient that can be removed")
            elif _find_space(me, remove) is not None:
                target = _find_space(me, remove)
            else:
                target = 1 + self.spaces + _terminal_of(me, remove)
            return self.index("helicopter", target, int(bool(action.get("draw_all", False))))
        if kind == "buy":
            return self.index("buy", MARKET_ITEMS.index(action["item"]))
        if kind == "pass":
            return self.index("pass", 0)
        raise EncodingError(f"unknown action type {kind!r}")

    def decode(self, seat_view: View, index: int) -> Action:
        """The engine action an integer stands for in this position, or IllegalActionError
        naming what it refers to that does not exist."""
        block, f = self.split(index)
        me = seat_view["players"][seat_view["viewer"]]
        what = f"action {int(index)} ({self.describe(index)})"
        if block in ("admit", "reject"):
            if f[0] >= len(me["pending"]):
                raise IllegalActionError(f"{what}: there is no pending patient #{f[0] + 1} (A4)")
            card = me["pending"][f[0]]
            if block == "reject":
                return {"type": "reject", "card": card}
            return {"type": "admit", "card": card, "space": f[1] + 1}
        if block in ("diagnose", "heal"):
            slot = me["hospital"].get(str(f[0] + 1))
            if slot is None:
                raise IllegalActionError(f"{what}: space {f[0] + 1} holds no patient (T1, T2)")
            if block == "diagnose":
                cost = slot.get("diagnosis") or 0
                return {"type": "diagnose", "patient": slot["card"], "pay": _pay(what, cost, f[1], f[2])}
            amount = f[1] + 1
            return {
                "type": "heal",
                "patient": slot["card"],
                "amount": amount,
                "pay": _pay(what, amount, f[2], f[3]),
            }
        if block == "treat":
            if f[0] >= len(me["terminals"]):
                raise IllegalActionError(f"{what}: there is no terminal patient #{f[0] + 1} (T5)")
            pay = {name: int(i == f[1]) for i, name in enumerate(PAYERS)}
            return {"type": "treat", "patient": me["terminals"][f[0]]["card"], "pay": pay}
        if block == "helicopter":
            return {"type": "helicopter", "remove": self._target_card(me, f[0], what), "draw_all": bool(f[1])}
        if block == "buy":
            return {"type": "buy", "item": MARKET_ITEMS[f[0]]}
        return {"type": "pass"}

    def _target_card(self, me: dict[str, Any], target: int, what: str) -> str | None:
        if target == 0:
            return None
        if target <= self.spaces:
            slot = me["hospital"].get(str(target))
            if slot is None:
                raise IllegalActionError(f"{what}: space {target} holds no patient (T7)")
            return slot["card"]
        number = target - self.spaces - 1
        if number >= len(me["terminals"]):
            raise IllegalActionError(f"{what}: there is no terminal patient #{number + 1} (T7)")
        return me["terminals"][number]["card"]

    def legal_ids(self, seat_view: View, legal: list[Action]) -> list[int]:
        """The sorted integers of the engine's legal actions; distinct by construction."""
        ids = [self.encode(seat_view, action) for action in legal]
        if len(set(ids)) != len(ids):
            raise EncodingError("two legal actions share one integer: the layout is too small")
        return sorted(ids)

    def mask(self, ids: list[int]) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[ids] = 1
        return mask

    # ------------------------------------------------------------------ observation

    def feature_names(self) -> list[str]:
        """The name of every entry of the observation vector, in order."""
        names = ["round", "rounds", "num_players", *(f"phase={phase}" for phase in PHASES)]
        names += ["my_decision", "my_admission", "deck_count", "discard_count"]
        for position in range(DECK_PEEK):
            names += [f"deck[{position}].{name}" for name in ("exists", "known", *_CARD_FIELDS)]
        for rel in range(MAX_PLAYERS):
            prefix = f"p+{rel}"
            names += [f"{prefix}.{name}" for name in ("present", *COUNTERS, "passed", "score")]
            names += [f"{prefix}.{name}" for name in ("decides", "active", "first")]
            for space in range(1, self.spaces + 1):
                names += [f"{prefix}.space{space}.{name}" for name in (*_CARD_FIELDS, *_SLOT_FIELDS)]
            for number in range(1, self.terminals + 1):
                names += [f"{prefix}.terminal{number}.{name}" for name in _TERMINAL_FIELDS]
            for number in range(1, self.pending + 1):
                names += [f"{prefix}.pending{number}.{name}" for name in _CARD_FIELDS]
        return names

    @property
    def observation_size(self) -> int:
        return len(self.feature_names())

    def observe(self, seat_view: View) -> np.ndarray:
        """The observation vector of a seat's view (float32; see :meth:`feature_names`)."""
        values: list[float] = []
        viewer = seat_view["viewer"]
        count = len(seat_view["players"])
        values += [seat_view["round"], seat_view["config"]["rounds"], count]
        values += _one_hot(seat_view["phase"], PHASES)
        me = seat_view["players"][viewer]
        decides = seat_view["turn"] == viewer
        values += [
            decides,
            decides and bool(me["pending"]),
            seat_view["deck_count"],
            len(seat_view["discard"]),
        ]
        memory = seat_view["cards"]
        not_severe = set(seat_view["not_severe"])
        for position in range(DECK_PEEK):
            known = seat_view["deck_known"][position] if position < seat_view["deck_count"] else None
            values += [position < seat_view["deck_count"], known is not None]
            values += _card_features(memory[known], known in not_severe) if known else _zeros(_CARD_FIELDS)
        for rel in range(MAX_PLAYERS):
            if rel >= count:
                values += [0.0] * self._player_size()
                continue
            seat = (viewer + rel) % count
            values += self._player_features(seat_view, seat, memory, not_severe)
        vector = np.asarray(values, dtype=np.float32)
        if np.abs(vector).max(initial=0.0) > OBS_LIMIT:
            raise EncodingError(f"an observation value exceeds {OBS_LIMIT:g}; the encoding cannot hold it")
        return vector

    def _player_size(self) -> int:
        fixed = 1 + len(COUNTERS) + 2 + 3
        card, slot = len(_CARD_FIELDS), len(_SLOT_FIELDS)
        return (
            fixed + self.spaces * (card + slot) + self.terminals * len(_TERMINAL_FIELDS) + self.pending * card
        )

    def _player_features(
        self, seat_view: View, seat: int, memory: dict[str, Any], not_severe: set[str]
    ) -> list[float]:
        player = seat_view["players"][seat]
        values: list[float] = [1.0, *(player[name] for name in COUNTERS), player["passed"], player["score"]]
        values += [seat_view["turn"] == seat, seat_view["active"] == seat, seat_view["first_player"] == seat]
        for space in range(1, self.spaces + 1):
            slot = player["hospital"].get(str(space))
            if slot is None:
                values += _zeros(_CARD_FIELDS) + _zeros(_SLOT_FIELDS)
            else:
                values += _card_features(slot, slot["card"] in not_severe)
                values += [slot["time"], slot["revealed"], slot["placed"]]
        terminals = player["terminals"]
        if len(terminals) > self.terminals or len(player["pending"]) > self.pending:
            raise EncodingError("more terminal or pending patients than this layout holds")
        for number in range(self.terminals):
            if number < len(terminals):
                entry = terminals[number]
                values += [1.0, entry["time"], entry["treated"], entry["credits"], entry["vp"]]
            else:
                values += _zeros(_TERMINAL_FIELDS)
        for number in range(self.pending):
            if number < len(player["pending"]):
                card = player["pending"][number]
                values += _card_features(memory[card], card in not_severe)
            else:
                values += _zeros(_CARD_FIELDS)
        return values


_CARD_FIELDS: tuple[str, ...] = (
    "present",
    *(f"front={front}" for front in FRONTS),
    "diagnosis",
    *(f"kind={kind}" for kind in KINDS),
    "kind_known",
    "healing",
    "healing_known",
    "credits",
    "vp",
    "reward_known",
    "not_severe",
)
_SLOT_FIELDS: tuple[str, ...] = ("time", "revealed", "placed")
_TERMINAL_FIELDS: tuple[str, ...] = ("present", "time", "treated", "credits", "vp")


def _card_features(card: dict[str, Any], not_severe: bool) -> list[float]:
    """A card as the viewer knows it: a missing field (unknown, I2) is 0 with its flag 0."""
    healing = card.get("healing")
    values: list[float] = [1.0, *_one_hot(card["front"], FRONTS), card.get("diagnosis") or 0]
    values += _one_hot(card.get("kind"), KINDS) + ["kind" in card]
    values += [healing or 0, healing is not None]
    values += [card.get("credits", 0), card.get("vp", 0), "credits" in card, not_severe]
    return values


def _one_hot(value: Any, choices: tuple[str, ...]) -> list[float]:
    return [float(value == choice) for choice in choices]


def _zeros(fields: tuple[str, ...]) -> list[float]:
    return [0.0] * len(fields)


def _position(items: list[str], card: str, what: str) -> int:
    if card not in items:
        raise EncodingError(f"{card!r} is not a {what} of the viewing seat")
    return items.index(card)


def _find_space(me: dict[str, Any], card: str) -> int | None:
    for space, slot in me["hospital"].items():
        if slot is not None and slot["card"] == card:
            return int(space)
    return None


def _space_of(me: dict[str, Any], card: str) -> int:
    space = _find_space(me, card)
    if space is None:
        raise EncodingError(f"{card!r} is not in a hospital space of the viewing seat")
    return space


def _terminal_of(me: dict[str, Any], card: str) -> int:
    return _position([entry["card"] for entry in me["terminals"]], card, "terminal patient")


def _pay(what: str, cost: int, staff: int, congress: int) -> dict[str, int]:
    if staff + congress > cost:
        raise IllegalActionError(
            f"{what}: staff and congress pay {staff + congress}, more than the cost {cost} (T6)"
        )
    return {"tokens": cost - staff - congress, "staff": staff, "congress": congress}


def view_text(seat_view: View) -> str:
    """A canonical text of a view (stable key order): equal views give equal strings."""
    return json.dumps(seat_view, sort_keys=True, separators=(",", ":"))
