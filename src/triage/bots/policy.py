"""A fast playout policy for search: the greedy bot's priorities, read straight off a game.

Search bots (:mod:`triage.bots.expert`) play thousands of games to their end inside *determinized
worlds*, full games drawn to fit the searching bot's view. Building a view for every move of those
playouts would cost more than the move itself, so this policy reads the world's state directly.
It still acts on what the seat to move would know in that world (its own memory of card backs,
I2), so the players it simulates behave like :class:`~triage.bots.greedy.GreedyBot`.

Reading a world's state is fine here: a world is a guess built from a view, never the real game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from triage.bots.greedy import ADMIT_VALUE, DEADLINE_ORDER, HIDDEN_ORDER, PRIORITIES
from triage.engine.actions import ActionSpace, action_space
from triage.engine.config import MARKET_ITEMS
from triage.engine.game import Game
from triage.engine.observer import Seat
from triage.engine.state import Patient, PlayerState

Action = dict[str, Any]
Policy = Callable[[Game], Action]


def greedy_policy(game: Game) -> Action:
    """The greedy bot's choice for the seat to move, computed from the game itself."""
    seat = game.turn
    if seat is None:
        raise ValueError("greedy_policy needs a game waiting for a decision (the game is over)")
    player = game.players[seat]
    if game.resolving == seat and player.pending:
        return _admission(game, seat, player)
    return _Turn(game, seat, player).choose()


def rollout_policy(policy: Policy = greedy_policy) -> Callable[[Game, list[int], random.Random], int]:
    """``policy`` in the form :func:`triage.engine.rollout.rollout` takes (integer ids), for
    search code that plays on ids, such as the OpenSpiel IS-MCTS evaluator.

    >>> from triage.engine import Game
    >>> from triage.engine.rollout import rollout
    >>> game = Game.new(players=2, seed=1)
    >>> rollout(game, rollout_policy(), random.Random(0)) > 10 and game.is_over()
    True
    """

    def choose(game: Game, ids: list[int], rng: random.Random) -> int:
        seat = game.turn
        assert seat is not None
        return _action_id(action_space(game), game, seat, policy(game))

    return choose


def play_out(game: Game, policy: Policy = greedy_policy, limit: int = 10_000) -> Game:
    """Play ``game`` to its end with ``policy`` in every seat (changes ``game``; returns it).

    The policy's actions are taken through the engine's integer fast path
    (:meth:`Game.apply_id`), which trusts them: a policy here must return legal actions.
    """
    space = action_space(game)
    steps = 0
    while game.turn is not None:
        game.apply_id(_action_id(space, game, game.turn, policy(game)))
        steps += 1
        if steps > limit:
            raise RuntimeError(f"a playout ran past {limit} actions without ending (R4)")
    return game


def _find(patients: list[Patient | None] | list[Patient], card: str) -> int:
    return next(
        index for index, patient in enumerate(patients) if patient is not None and patient.card == card
    )


def _action_id(space: ActionSpace, game: Game, seat: int, action: Action) -> int:
    """The integer id (:mod:`triage.engine.actions`) of a legal ``action`` of ``seat``,
    computed directly from the index's layout (no validation: trusted input)."""
    kind = action["type"]
    offsets = space.offsets
    spaces = space.spaces
    player = game.players[seat]
    if kind == "pass":
        return offsets["pass"]
    if kind == "buy":
        return offsets["buy"] + MARKET_ITEMS.index(action["item"])
    if kind == "admit":
        return offsets["admit"] + player.pending.index(action["card"]) * spaces + action["space"] - 1
    if kind == "reject":
        return offsets["reject"] + player.pending.index(action["card"])
    if kind == "helicopter":
        remove = action["remove"]
        if remove is None:
            target = 0
        elif any(slot is not None and slot.card == remove for slot in player.hospital):
            target = 1 + _find(player.hospital, remove)
        else:
            target = 1 + spaces + _find(player.terminals, remove)
        return offsets["helicopter"] + 2 * target + int(action["draw_all"])
    pay = action["pay"]
    if kind == "treat":
        payer = 0 if pay["tokens"] else 1 if pay["staff"] else 2
        return offsets["treat"] + 3 * _find(player.terminals, action["patient"]) + payer
    number = _find(player.hospital, action["patient"])
    if kind == "diagnose":
        return space.ids["diagnose", (number, pay["staff"], pay["congress"])]
    return space.ids["heal", (number, action["amount"] - 1, pay["staff"], pay["congress"])]


def _known_kind(game: Game, seat: int, card: str) -> str | None:
    """The kind of ``card`` as ``seat`` knows it (I1, I2): public fronts tell critical and
    terminal; a standard back is known only from memory."""
    return Seat(game, seat).kind_of(card)


def _price(game: Game, item: str) -> int:
    return game.config.market[item].price


def _admission(game: Game, seat: int, player: PlayerState) -> Action:
    free = [index + 1 for index, slot in enumerate(player.hospital) if slot is None]
    pending = player.pending
    if not free:
        return {"type": "reject", "card": pending[0]}
    if len(pending) <= len(free):
        return {"type": "admit", "card": pending[0], "space": free[0]}
    budget = (
        player.healing + player.staff_available + player.congress + player.credits // _price(game, "healing")
    )

    def value(card: str) -> float:
        kind = _known_kind(game, seat, card)
        if kind == "critical":
            return 6.0 if (game.cards[card].healing or 0) <= budget else -1.0
        return ADMIT_VALUE.get(kind, ADMIT_VALUE[None])

    best = max(pending, key=lambda card: (value(card), -pending.index(card)))
    return {"type": "admit", "card": best, "space": free[0]}


class _Turn:
    """One Treatment decision of the greedy priorities (see :mod:`triage.bots.greedy`)."""

    def __init__(self, game: Game, seat: int, player: PlayerState) -> None:
        self.game = game
        self.seat = seat
        self.me = player
        cards = self.cards = game.cards
        self.market = game.config.market
        self.rounds_left = game.config.rounds - game.round
        self.last = self.rounds_left <= 0
        self.slots = [slot for slot in player.hospital if slot is not None]
        self.free_spaces = len(player.hospital) - len(self.slots)
        self.knower = knower = Seat(game, seat)
        #: Per card in the hospital: the kind this seat knows (None if unknown) and the healing
        #: still needed where that is known (T2, T3), both fixed for this decision.
        self.kinds: dict[str, str | None] = {}
        self.needs: dict[str, int] = {}
        for slot in self.slots:
            self.kinds[slot.card] = kind = knower.kind_of(slot.card)
            self.needs[slot.card] = (knower.need(slot) or 0) if kind is not None else 0
        self._staff_first: dict[str, bool] = {}

    # -------------------------------------------------------------- helpers

    def kind(self, slot: Patient) -> str | None:
        return self.kinds[slot.card]

    def heal_need(self, slot: Patient) -> int:
        return self.needs[slot.card]

    def power(self, token: str, congress: bool) -> int:
        me = self.me
        return getattr(me, token) + me.staff_available + (me.congress if congress else 0)

    def can_buy(self, item: str) -> bool:
        market = self.market.get(item)
        if market is None or self.me.credits < market.price:
            return False
        if market.limit is None:
            return True
        holding = {"clinical_trial": "clinical_trials", "outpatient_clinic": "outpatient_clinics"}.get(item)
        return holding is None or getattr(self.me, holding) < market.limit

    def staff_first(self, token: str) -> bool:
        """Spend Staff before tokens unless the other kind of cost this round needs it."""
        cached = self._staff_first.get(token)
        if cached is not None:
            return cached
        if self.last:
            first = True
        elif token == "diagnostics":
            need = sum(self.needs[slot.card] for slot in self.slots if slot.revealed)
            need += sum(1 for patient in self.me.terminals if not patient.treated)
            first = need <= self.me.healing
        else:
            need = sum(self.cards[slot.card].diagnosis or 0 for slot in self.slots if not slot.revealed)
            first = need <= self.me.diagnostics
        self._staff_first[token] = first
        return first

    def pay(self, cost: int, token: str, congress: bool, staff_first: bool) -> dict[str, int] | None:
        """T6: the payment mix the greedy bot prefers, or None if it cannot pay."""
        me = self.me
        tokens = getattr(me, token)
        if staff_first:
            staff = min(me.staff_available, cost)
            use_tokens = min(tokens, cost - staff)
        else:
            use_tokens = min(tokens, cost)
            staff = min(me.staff_available, cost - use_tokens)
        rest = cost - staff - use_tokens
        if rest > (me.congress if congress else 0):
            return None
        return {"tokens": use_tokens, "staff": staff, "congress": rest}

    def heal(self, slot: Patient, congress: bool, partial: bool) -> Action | None:
        need = self.heal_need(slot)
        if need <= 0:
            return None
        power = self.power("healing", congress)
        amount = need if power >= need else (power if partial else 0)
        if amount <= 0:
            return None
        pay = self.pay(amount, "healing", congress, self.staff_first("healing"))
        if pay is None:
            return None
        return {"type": "heal", "patient": slot.card, "amount": amount, "pay": pay}

    def diagnose(self, slot: Patient, congress: bool) -> Action | None:
        cost = self.cards[slot.card].diagnosis or 0
        pay = self.pay(cost, "diagnostics", congress, self.staff_first("diagnostics"))
        return None if pay is None else {"type": "diagnose", "patient": slot.card, "pay": pay}

    def treat(self, patient: Patient) -> Action | None:
        pay = self.pay(1, "healing", self.last, self.staff_first("healing"))
        return None if pay is None else {"type": "treat", "patient": patient.card, "pay": pay}

    def dies_now(self, slot: Patient) -> bool:
        kind = self.cards[slot.card].kind
        return kind == "critical" or (kind == "severe" and slot.time >= 1)

    def may_die_unseen(self, slot: Patient) -> bool:
        if slot.revealed or self.knower.is_not_severe(slot.card):
            return False
        return slot.time >= 1 and self.kind(slot) in (None, "severe")

    def others_passed(self) -> bool:
        others = [p for seat, p in enumerate(self.game.players) if seat != self.seat]
        return bool(others) and all(p.passed for p in others)

    def helicopter(self, remove: str | None, draw_all: bool) -> Action | None:
        if self.me.helicopters <= 0:
            return None
        return {"type": "helicopter", "remove": remove, "draw_all": draw_all}

    # -------------------------------------------------------------- priorities

    def choose(self) -> Action:
        for name in PRIORITIES:
            action = getattr(self, name)()
            if action is not None:
                return action
        return {"type": "pass"}

    def save_the_dying(self) -> Action | None:
        dying = sorted((s for s in self.slots if s.revealed and self.dies_now(s)), key=self.heal_need)
        if not dying:
            return None
        for slot in dying:
            action = self.heal(slot, congress=True, partial=False)
            if action is not None:
                return action
        price = _price(self.game, "healing")
        for slot in dying:
            missing = self.heal_need(slot) - self.power("healing", True)
            if 0 < missing and missing * price <= self.me.credits and self.can_buy("healing"):
                return {"type": "buy", "item": "healing"}
        return self.helicopter(dying[0].card, False)

    def diagnose_the_risky(self) -> Action | None:
        risky = sorted(
            (s for s in self.slots if self.may_die_unseen(s)), key=lambda s: self.cards[s.card].diagnosis or 0
        )
        for slot in risky:
            action = self.diagnose(slot, congress=self.last)
            if action is not None:
                return action
        return None

    def diagnose_fresh(self) -> Action | None:
        hidden = [s for s in self.slots if not s.revealed]
        hidden.sort(
            key=lambda s: (HIDDEN_ORDER.get(self.kind(s), 1), self.cards[s.card].diagnosis or 0, -s.time)
        )
        for slot in hidden:
            if (
                self.last
                and self.kind(slot) == "non_severe"
                and self.heal_need(slot) > self.power("healing", True)
            ):
                continue
            action = self.diagnose(slot, congress=self.last)
            if action is not None:
                return action
        return None

    def treat_paying_terminals(self) -> Action | None:
        for patient in self.me.terminals:
            if not patient.treated and (self.cards[patient.card].vp > 0 or self.rounds_left <= 1):
                action = self.treat(patient)
                if action is not None:
                    return action
        return None

    def treat_other_terminals(self) -> Action | None:
        for patient in self.me.terminals:
            if not patient.treated:
                action = self.treat(patient)
                if action is not None:
                    return action
        return None

    def heal_by_deadline(self) -> Action | None:
        revealed = [s for s in self.slots if s.revealed and self.heal_need(s) > 0]
        if self.last:
            revealed.sort(key=lambda s: -(self.cards[s.card].vp + 0.1) / self.heal_need(s))
        else:
            revealed.sort(key=lambda s: (DEADLINE_ORDER.get(self.cards[s.card].kind, 4), self.heal_need(s)))
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
        if self.rounds_left >= 3 and self.me.credits < self.market["staff"].price + 2:
            return None
        price = _price(self.game, "healing")
        for slot in self.slots:
            if not slot.revealed:
                if (
                    self.last
                    and self.can_buy("diagnostics")
                    and self.power("diagnostics", True) < (self.cards[slot.card].diagnosis or 0)
                ):
                    return {"type": "buy", "item": "diagnostics"}
                continue
            need = self.heal_need(slot)
            missing = need - self.power("healing", True)
            if need > 0 and 0 < missing and missing * price <= self.me.credits and self.can_buy("healing"):
                return {"type": "buy", "item": "healing"}
        return None

    def last_helicopter(self) -> Action | None:
        if not self.last or self.me.helicopters <= 0:
            return None
        doomed = [s.card for s in self.slots if (s.revealed and self.dies_now(s)) or self.may_die_unseen(s)]
        doomed += [p.card for p in self.me.terminals if not p.treated]
        terminals = {p.card for p in self.me.terminals}
        remove = doomed[0] if doomed else None
        space_after = self.free_spaces + (1 if remove is not None and remove not in terminals else 0)
        draw = self.others_passed() and space_after > 0
        if remove is None and not draw:
            return None
        return self.helicopter(remove, draw)

    def draw_after_others_passed(self) -> Action | None:
        if not self.others_passed() or self.free_spaces == 0:
            return None
        if self.power("healing", False) < 3 or self.power("diagnostics", False) < 2:
            return None
        if self.me.helicopters > 0:
            return self.helicopter(None, True)
        if self.can_buy("helicopter"):
            return {"type": "buy", "item": "helicopter"}
        return None
