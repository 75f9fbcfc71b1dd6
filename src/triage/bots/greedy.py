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
   theirs this round (T7; not under V2 ``reopen``, where the draw gives each of them a turn);
9. pass.

The priorities are written once, on a game and what its seat to move knows there (asked of
:class:`triage.engine.observer.Seat`): :func:`greedy_action`. The search bots' playouts run them
on their drawn worlds directly (:mod:`triage.bots.policy`); the bot, which receives only its
seat's view, runs them on a world drawn from that view (:func:`triage.engine.determinize.determinize`).
They ask only what the seat knows, so every world a view allows gives the same decision.

No search and no randomness: the same view and legal actions give the same choice (the
generator is accepted for the bot protocol and left untouched). A decision costs about a
tenth of a millisecond, most of it drawing the world.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from triage.bots.base import Action
from triage.engine.cleanup import cleanups_before_death
from triage.engine.determinize import determinize
from triage.engine.game import Game
from triage.engine.config import Config
from triage.engine.observer import Seat
from triage.engine.shapes import Payment, View
from triage.engine.state import Patient, PlayerState
from triage.engine.treatment import may_purchase
from triage.engine.vocabulary import MarketItem

#: The order of the greedy priorities (module docstring): the method names of :class:`_Turn`.
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
#: The healing a critical patient is taken to need while its back is unseen (A4, C2).
UNSEEN_CRITICAL_NEED = 3


class GreedyBot:
    """Triage by deadline; see the module docstring for the order of priorities."""

    name = "greedy"
    #: The treatment priorities this bot runs (habit bots replace a step, triage.bots.habits).
    turn_class: type[_Turn]

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        # Any world the view allows gives the same decision: draw one with a fixed generator,
        # so the caller's is left untouched.
        return greedy_action(determinize(view, random.Random(0)), self.turn_class)


def greedy_action(game: Game, turn_class: type[_Turn] | None = None) -> Action:
    """The greedy priorities' choice for the seat to move in ``game``, from what it knows."""
    seat = game.turn
    if seat is None:
        raise ValueError("the greedy priorities need a game waiting for a decision (the game is over)")
    player = game.players[seat]
    if game.resolving == seat and player.pending:
        return _admission(game, seat, player)
    return (turn_class or _Turn)(game, seat, player).choose()


#: What free Healing tokens under a limit count for: a player buys them back after each use (T8),
#: so they cover any one patient's need.
FREE_HEALING_UNITS = 1_000


def _healing_bought(game: Game, credits: int) -> int:
    """The Healing tokens ``credits`` buy at the market (T8): none when it sells none (limit 0),
    :data:`FREE_HEALING_UNITS` when they cost nothing (the configuration then caps them, and
    they can be bought again once spent)."""
    item = game.config.market["healing"]
    if item.limit == 0:
        return 0
    return credits // item.price if item.price else FREE_HEALING_UNITS


# ---------------------------------------------------------------------- admission (A4)


def _admission(game: Game, seat: int, player: PlayerState) -> Action:
    """Admit the most valuable pending patient into the lowest free space; when no space is
    free, every choice is a rejection and the first one is as good as any."""
    free = [index + 1 for index, slot in enumerate(player.hospital) if slot is None]
    pending = player.pending
    if not free:
        return {"type": "reject", "card": pending[0]}
    if len(pending) <= len(free):
        return {"type": "admit", "card": pending[0], "space": free[0]}
    budget = player.healing + player.staff_available + player.congress + _healing_bought(game, player.credits)

    knower = Seat(game, seat)

    def value(card: str) -> float:
        kind = knower.kind_of(card)
        if kind == "critical":
            healing = knower.difficulty(card)
            need = healing if healing is not None else UNSEEN_CRITICAL_NEED
            # A critical patient not cured this round dies (-2 QoC), worse than a rejection (-1).
            return 6.0 if need <= budget else -1.0
        return ADMIT_VALUE.get(kind, ADMIT_VALUE[None])

    best = max(pending, key=lambda card: (value(card), -pending.index(card)))
    return {"type": "admit", "card": best, "space": free[0]}


# ---------------------------------------------------------------------- treatment


class _Turn:
    """One Treatment decision of the greedy priorities (see :mod:`triage.bots.greedy`)."""

    #: The steps tried in order (method names); a habit inserts or replaces one.
    priorities: tuple[str, ...] = PRIORITIES

    def __init__(self, game: Game, seat: int, player: PlayerState) -> None:
        self.game = game
        self.seat = seat
        self.me = player
        self.cards = game.cards
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
        self._sources: dict[str, tuple[str, Fraction] | None] = {}

    # -------------------------------------------------------------- helpers

    def kind(self, slot: Patient) -> str | None:
        return self.kinds[slot.card]

    def heal_need(self, slot: Patient) -> int:
        return self.needs[slot.card]

    def power(self, token: str, congress: bool) -> int:
        me = self.me
        tokens: int = getattr(me, token)
        return tokens + me.staff_available + (me.congress if congress else 0)

    def can_buy(self, item: str) -> bool:
        market = self.market.get(item)
        return market is not None and may_purchase(self.me, market)

    def source(self, supply: str) -> tuple[str, Fraction] | None:
        """The item the greedy buys for ``supply`` (T8): the cheapest per unit of it among those
        the seat may buy now, the first in market order among equals (a designer's item too),
        with its price per unit; None when none can be bought. Asked again in one decision (the
        seat's Credits and items do not change within it), it answers from :attr:`_sources`."""
        if supply in self._sources:
            return self._sources[supply]
        best: tuple[str, Fraction] | None = None
        me = self.me
        for name, item, unit in offers(self.game.config).get(supply, ()):
            if (best is None or unit < best[1]) and may_purchase(me, item):
                best = (name, unit)
        self._sources[supply] = best
        return best

    def buy(self, supply: str, units: int = 1) -> Action | None:
        """Buying the :meth:`source` of ``supply`` when ``units`` of it are affordable at its
        price per unit, else None."""
        found = self.source(supply)
        # units * price per unit > Credits, in whole numbers (a Fraction's denominator is positive)
        if found is None or units * found[1].numerator > self.me.credits * found[1].denominator:
            return None
        return {"type": "buy", "item": found[0]}

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

    def pay(self, cost: int, token: str, congress: bool, staff_first: bool) -> Payment | None:
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
        """C2: dies at tonight's Cleanup unless cured."""
        return cleanups_before_death(self.cards[slot.card].kind, slot.time) == 0

    def may_die_unseen(self, slot: Patient) -> bool:
        if slot.revealed or self.knower.is_not_severe(slot.card):
            return False
        # C2, C3: dies tonight if it is severe, which the seat does not rule out.
        return self.kind(slot) in (None, "severe") and cleanups_before_death("severe", slot.time) == 0

    def others_passed(self) -> bool:
        others = [p for seat, p in enumerate(self.game.players) if seat != self.seat]
        return bool(others) and all(p.passed for p in others)

    def draws_go_unanswered(self) -> bool:
        """T7, V2: every other player has passed and, under ``helicopter_draws = "wait"``,
        cannot act on a patient a Helicopter makes it draw; under ``reopen`` such a draw gives
        each of them another turn, so it is no longer one-sided."""
        return self.game.config.helicopter_draws == "wait" and self.others_passed()

    def helicopter(self, remove: str | None, draw_all: bool) -> Action | None:
        if self.me.helicopters <= 0:
            return None
        return {"type": "helicopter", "remove": remove, "draw_all": draw_all}

    # -------------------------------------------------------------- priorities

    def choose(self) -> Action:
        for name in self.priorities:
            action: Action | None = getattr(self, name)()
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
        for slot in dying:
            missing = self.heal_need(slot) - self.power("healing", True)
            purchase = self.buy("healing", missing) if missing > 0 else None
            if purchase is not None:
                return purchase
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
        if self.rounds_left >= 3:
            purchase = self.buy("staff")
            if purchase is not None:
                return purchase
        if self.rounds_left >= 2 and self.free_spaces == 0:
            return self.buy("spaces")
        return None

    def buy_to_finish(self) -> Action | None:
        staff = min(item.price for _, item, _ in offers(self.game.config).get("staff", ()))
        if self.rounds_left >= 3 and self.me.credits < staff + 2:
            return None
        for slot in self.slots:
            if not slot.revealed:
                if self.last and self.power("diagnostics", True) < (self.cards[slot.card].diagnosis or 0):
                    purchase = self.buy("diagnostics")
                    if purchase is not None:
                        return purchase
                continue
            need = self.heal_need(slot)
            missing = need - self.power("healing", True)
            purchase = self.buy("healing", missing) if need > 0 and missing > 0 else None
            if purchase is not None:
                return purchase
        return None

    def last_helicopter(self) -> Action | None:
        if not self.last or self.me.helicopters <= 0:
            return None
        doomed = [s.card for s in self.slots if (s.revealed and self.dies_now(s)) or self.may_die_unseen(s)]
        doomed += [p.card for p in self.me.terminals if not p.treated]
        terminals = {p.card for p in self.me.terminals}
        remove = doomed[0] if doomed else None
        space_after = self.free_spaces + (1 if remove is not None and remove not in terminals else 0)
        draw = self.draws_go_unanswered() and space_after > 0
        if remove is None and not draw:
            return None
        return self.helicopter(remove, draw)

    def draw_after_others_passed(self) -> Action | None:
        if not self.draws_go_unanswered() or self.free_spaces == 0:
            return None
        if self.power("healing", False) < 3 or self.power("diagnostics", False) < 2:
            return None
        return self.fly_to_draw()

    def fly_to_draw(self) -> Action | None:
        """A Helicopter that makes every player draw (T7), or buying one first (T8)."""
        if self.me.helicopters > 0:
            return self.helicopter(None, True)
        return self.buy("helicopters")


GreedyBot.turn_class = _Turn


#: The market items that give each supply, as (name, item, price per unit of it), in market
#: order (:func:`offers`), kept in a configuration's ``derived`` under this key.
_OFFERS = "greedy.offers"
Offers = dict[str, tuple[tuple[str, MarketItem, Fraction], ...]]


def offers(config: Config) -> Offers:
    """Per supply, the items that give some of it (``MarketItem.gives_of``, the first amount an
    item names), with their price per unit (T8): what :meth:`_Turn.source` compares at every
    decision, worked out once per configuration and kept in its ``derived``."""
    found: Offers | None = config.derived.get(_OFFERS)
    if found is None:
        table: dict[str, list[tuple[str, MarketItem, Fraction]]] = {}
        for name, item in config.market.items():
            for supply in dict(item.gives):
                amount = item.gives_of(supply)
                if amount:
                    table.setdefault(supply, []).append((name, item, Fraction(item.price, amount)))
        found = config.derived[_OFFERS] = {supply: tuple(rows) for supply, rows in table.items()}
    return found
