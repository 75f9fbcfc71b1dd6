"""The greedy bot: a fast triage heuristic that plays from its seat's view only.

Each decision walks a fixed list of priorities and takes the first one the legal actions allow:

1. save patients who die at this Cleanup (C2): a critical patient, a severe one with Time; heal
   them in full (Congress Doctors and Credits allowed), else fly them out by Helicopter (T7);
2. diagnose an unrevealed patient with Time (it may be severe and about to die, C3);
3. diagnose fresh patients: a chronic patient with no Time is cured at once (T4);
4. treat terminal patients that pay VP (T5), and every terminal patient in the last round;
5. heal what can be cured, by deadline: severe, then chronic (its cost grows with Time), then
   non-severe; partial healing only where it keeps (not in the last round);
6. buy what pays off: Staff early, a space when the hospital is full, tokens that finish a cure;
7. in the last round, spend an unused Helicopter on a patient who would die;
8. once every other player has passed, fly a Helicopter (bought with spare Credits if need be)
   for one more patient each: this player can still cure its own, the others cannot act on
   theirs this round (T7);
9. pass.

No search and no randomness: the same view and legal actions give the same choice (the
generator is accepted for the bot protocol and left untouched). A decision costs a few dozen
microseconds.
"""

from __future__ import annotations

import random
from typing import Any

from triage.bots.base import Action

PayKey = tuple[str, str | None, int | None]

#: The order of the greedy priorities (module docstring), method names shared by this bot's
#: view-reading turn and the state-reading playout policy (triage.bots.policy).
PRIORITIES: tuple[str, ...] = (
    "save_the_dying",
    "diagnose_the_risky",
    "diagnose_fresh",
    "treat_paying_terminals",
    "heal_by_deadline",
    "invest",
    "treat_other_terminals",
    "buy_to_finish",
    "last_helicopter",
    "draw_after_others_passed",
)

#: Rough value of admitting a patient whose back is unknown, by what is known of it (A4).
ADMIT_VALUE = {"chronic": 5.0, "severe": 3.0, "non_severe": 2.0, None: 2.5}
#: Which unrevealed patient to diagnose first, by what is known of its kind (None: unknown).
HIDDEN_ORDER = {"chronic": 0, None: 1, "severe": 2, "non_severe": 3}
#: Which revealed patient to heal first: the nearest deadline (C2-C4) first.
DEADLINE_ORDER = {"critical": 0, "severe": 1, "chronic": 2, "non_severe": 3}


class GreedyBot:
    """Triage by deadline; see the module docstring for the order of priorities."""

    name = "greedy"

    def choose(self, view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        if legal[0]["type"] in ("admit", "reject"):
            return _admission(view, legal)
        return _Turn(view, legal).choose()


# ---------------------------------------------------------------------- admission (A4)


def _admission(view: dict[str, Any], legal: list[Action]) -> Action:
    """Admit the most valuable pending patient into the lowest free space; when no space is
    free, every choice is a rejection and the first one listed is as good as any."""
    if legal[0]["type"] == "reject":
        return legal[0]
    me = view["players"][view["viewer"]]
    candidates = [action for action in legal if action["type"] == "admit"]
    pending = list(dict.fromkeys(action["card"] for action in candidates))
    free = sum(1 for slot in me["hospital"].values() if slot is None)
    if len(pending) <= free:
        return candidates[0]
    budget = me["healing"] + me["staff_available"] + me["congress"] + me["credits"] // _price(view, "healing")
    best = max(pending, key=lambda card: (_admit_value(view, card, budget), -pending.index(card)))
    return next(action for action in candidates if action["card"] == best)


def _admit_value(view: dict[str, Any], card: str, budget: int) -> float:
    known = view["cards"].get(card, {})
    kind = known.get("kind")
    if kind == "critical":
        healing = known.get("healing")
        need = healing if healing is not None else 3
        # A critical patient not cured this round dies (-2 QoC), worse than a rejection (-1).
        return 6.0 if need <= budget else -1.0
    return ADMIT_VALUE.get(kind, ADMIT_VALUE[None])


def _price(view: dict[str, Any], item: str) -> int:
    return view["config"]["market"][item]["price"]


# ---------------------------------------------------------------------- treatment


class _Turn:
    """One treatment decision: the view read once, the legal actions indexed once."""

    def __init__(self, view: dict[str, Any], legal: list[Action]) -> None:
        self.view = view
        self.me = view["players"][view["viewer"]]
        config = view["config"]
        self.market = config["market"]
        self.rounds_left = config["rounds"] - view["round"]
        self.last = self.rounds_left <= 0
        self.by_key: dict[PayKey, list[Action]] = {}
        self.buys: set[str] = set()
        self.helicopters: dict[tuple[str | None, bool], Action] = {}
        self.pass_action: Action = {"type": "pass"}
        for action in legal:
            kind = action["type"]
            if kind == "buy":
                self.buys.add(action["item"])
            elif kind == "helicopter":
                self.helicopters[(action["remove"], action["draw_all"])] = action
            elif kind == "pass":
                self.pass_action = action
            else:
                key = (kind, action.get("patient"), action.get("amount"))
                self.by_key.setdefault(key, []).append(action)
        self.slots = [slot for slot in self.me["hospital"].values() if slot is not None]
        self.free_spaces = len(self.me["hospital"]) - len(self.slots)
        self.cleared = set(view.get("not_severe", ()))

    # -------------------------------------------------------------- helpers

    def pay(
        self, kind: str, patient: str, amount: int | None, congress: bool, staff_first: bool
    ) -> Action | None:
        """The legal action for this step with the preferred payment mix, if there is one."""
        options = self.by_key.get((kind, patient, amount))
        if not options:
            return None
        if not congress:
            options = [action for action in options if action["pay"]["congress"] == 0]
            if not options:
                return None
        if staff_first:
            return max(options, key=lambda action: (action["pay"]["staff"], -action["pay"]["congress"]))
        return min(options, key=lambda action: (action["pay"]["congress"], action["pay"]["staff"]))

    def power(self, token: str, congress: bool) -> int:
        """Units this player can pay now for a ``token`` cost (T6)."""
        return self.me[token] + self.me["staff_available"] + (self.me["congress"] if congress else 0)

    def can_buy(self, item: str) -> bool:
        return item in self.buys

    def staff_first(self, token: str) -> bool:
        """Spend Staff before tokens (Staff not used this round is lost, tokens keep) unless the
        other kind of cost this round will need that Staff."""
        if self.last:
            return True
        if token == "diagnostics":
            other_need = sum(self.heal_need(slot) for slot in self.slots if slot.get("revealed"))
            other_need += sum(1 for patient in self.me["terminals"] if not patient["treated"])
            return other_need <= self.me["healing"]
        other_need = sum(slot["diagnosis"] or 0 for slot in self.slots if not slot.get("revealed"))
        return other_need <= self.me["diagnostics"]

    @staticmethod
    def heal_need(slot: dict[str, Any]) -> int:
        healing = slot.get("healing")
        if healing is None:
            return 0
        return max(0, healing - slot.get("placed", 0))

    def heal(self, slot: dict[str, Any], congress: bool, partial: bool) -> Action | None:
        """Heal ``slot`` in full if possible, else (when ``partial``) as much as can be paid."""
        need = self.heal_need(slot)
        if need <= 0:
            return None
        staff_first = self.staff_first("healing")
        full = self.pay("heal", slot["card"], need, congress, staff_first)
        if full is not None or not partial:
            return full
        for amount in range(need - 1, 0, -1):
            action = self.pay("heal", slot["card"], amount, congress, staff_first)
            if action is not None:
                return action
        return None

    def dies_now(self, slot: dict[str, Any]) -> bool:
        """C2: whether a revealed patient dies at this Cleanup unless cured."""
        kind = slot.get("kind")
        return kind == "critical" or (kind == "severe" and slot["time"] >= 1)

    def may_die_unseen(self, slot: dict[str, Any]) -> bool:
        """An unrevealed patient that, if severe, dies at this Cleanup (C2, C3)."""
        if slot.get("revealed") or slot["card"] in self.cleared:
            return False
        kind = slot.get("kind")
        return slot["time"] >= 1 and kind in (None, "severe")

    # -------------------------------------------------------------- priorities

    def choose(self) -> Action:
        for name in PRIORITIES:
            action = getattr(self, name)()
            if action is not None:
                return action
        return self.pass_action

    def save_the_dying(self) -> Action | None:
        dying = [slot for slot in self.slots if slot.get("revealed") and self.dies_now(slot)]
        dying.sort(key=self.heal_need)
        for slot in dying:
            action = self.heal(slot, congress=True, partial=False)
            if action is not None:
                return action
        for slot in dying:
            missing = self.heal_need(slot) - self.power("healing", congress=True)
            if (
                0 < missing
                and missing * _price(self.view, "healing") <= self.me["credits"]
                and self.can_buy("healing")
            ):
                return {"type": "buy", "item": "healing"}
        for slot in dying:
            rescue = self.helicopters.get((slot["card"], False))
            if rescue is not None:
                return rescue
        return None

    def diagnose(self, slot: dict[str, Any], congress: bool) -> Action | None:
        return self.pay("diagnose", slot["card"], None, congress, self.staff_first("diagnostics"))

    def diagnose_the_risky(self) -> Action | None:
        risky = [slot for slot in self.slots if self.may_die_unseen(slot)]
        for slot in sorted(risky, key=lambda slot: slot["diagnosis"] or 0):
            action = self.diagnose(slot, congress=self.last)
            if action is not None:
                return action
        return None

    def diagnose_fresh(self) -> Action | None:
        hidden = [slot for slot in self.slots if not slot.get("revealed")]
        order = HIDDEN_ORDER
        hidden.sort(key=lambda slot: (order.get(slot.get("kind"), 1), slot["diagnosis"] or 0, -slot["time"]))
        for slot in hidden:
            if (
                self.last
                and slot.get("kind") == "non_severe"
                and self.heal_need(slot) > self.power("healing", True)
            ):
                continue
            action = self.diagnose(slot, congress=self.last)
            if action is not None:
                return action
        return None

    def treat(self, patient: dict[str, Any]) -> Action | None:
        return self.pay("treat", patient["card"], None, self.last, self.staff_first("healing"))

    def treat_paying_terminals(self) -> Action | None:
        for patient in self.me["terminals"]:
            if not patient["treated"] and (patient["vp"] > 0 or self.rounds_left <= 1):
                action = self.treat(patient)
                if action is not None:
                    return action
        return None

    def treat_other_terminals(self) -> Action | None:
        for patient in self.me["terminals"]:
            if not patient["treated"]:
                action = self.treat(patient)
                if action is not None:
                    return action
        return None

    def heal_by_deadline(self) -> Action | None:
        order = DEADLINE_ORDER
        revealed = [slot for slot in self.slots if slot.get("revealed") and self.heal_need(slot) > 0]
        if self.last:
            # Only a cure counts now: the best reward per unit of healing first.
            revealed.sort(key=lambda slot: -(slot.get("vp", 0) + 0.1) / self.heal_need(slot))
        else:
            revealed.sort(key=lambda slot: (order.get(slot.get("kind"), 4), self.heal_need(slot)))
        for slot in revealed:
            action = self.heal(slot, congress=self.last, partial=not self.last)
            if action is not None:
                return action
        return None

    def invest(self) -> Action | None:
        if self.rounds_left >= 3 and self.can_buy("staff"):
            return {"type": "buy", "item": "staff"}
        if self.rounds_left >= 2 and self.free_spaces == 0:
            for item in ("clinical_trial", "outpatient_clinic"):
                if self.can_buy(item):
                    return {"type": "buy", "item": item}
        return None

    def buy_to_finish(self) -> Action | None:
        """Buy the tokens that finish a cure this round (Credits only break ties, R4)."""
        if self.rounds_left >= 3 and self.me["credits"] < self.market["staff"]["price"] + 2:
            return None
        for slot in self.slots:
            if not slot.get("revealed"):
                if (
                    self.last
                    and self.can_buy("diagnostics")
                    and self.power("diagnostics", True) < (slot["diagnosis"] or 0)
                ):
                    return {"type": "buy", "item": "diagnostics"}
                continue
            need = self.heal_need(slot)
            missing = need - self.power("healing", congress=True)
            price = self.market["healing"]["price"]
            if need > 0 and 0 < missing and missing * price <= self.me["credits"] and self.can_buy("healing"):
                return {"type": "buy", "item": "healing"}
        return None

    def last_helicopter(self) -> Action | None:
        """T7 in the last round: an unused Helicopter is worth nothing after the game."""
        if not self.last or not self.helicopters:
            return None
        doomed = [
            slot["card"]
            for slot in self.slots
            if (slot.get("revealed") and self.dies_now(slot)) or self.may_die_unseen(slot)
        ]
        doomed += [patient["card"] for patient in self.me["terminals"] if not patient["treated"]]
        others = [player for seat, player in enumerate(self.view["players"]) if seat != self.view["viewer"]]
        draw = bool(others) and all(player["passed"] for player in others)
        remove = doomed[0] if doomed else None
        space_after = self.free_spaces + (
            1 if remove is not None and remove not in self._terminal_cards() else 0
        )
        draw = draw and space_after > 0
        if remove is None and not draw:
            return None
        return self.helicopters.get((remove, draw))

    def others_passed(self) -> bool:
        others = [player for seat, player in enumerate(self.view["players"]) if seat != self.view["viewer"]]
        return bool(others) and all(player["passed"] for player in others)

    def draw_after_others_passed(self) -> Action | None:
        """T7: once every other player has passed, a Helicopter's draws bring this player one
        more patient it can still treat, while the others can do nothing with theirs this round.
        Worth a Helicopter (and its price in Credits) when there is room and the means to cure
        even a critical patient."""
        if not self.others_passed() or self.free_spaces == 0:
            return None
        if self.power("healing", congress=False) < 3 or self.power("diagnostics", congress=False) < 2:
            return None
        return self.fly_to_draw()

    def fly_to_draw(self) -> Action | None:
        """A Helicopter that makes every player draw (T7), or buying one first (T8)."""
        action = self.helicopters.get((None, True))
        if action is not None:
            return action
        if self.me["helicopters"] == 0 and self.can_buy("helicopter"):
            return {"type": "buy", "item": "helicopter"}
        return None

    def _terminal_cards(self) -> set[str]:
        return {patient["card"] for patient in self.me["terminals"]}
