"""Integer actions: one stable action index per configuration and deck.

Search and learning code wants actions as small integers. The index is fixed by public data
only (the configuration and the deck list, never a card's position or back), so every seat, a
view and a determinized game agree on it. The sizes:

* ``spaces`` S: the most hospital spaces a player can own (4, K4, plus the market limits of
  Clinical Trials and Outpatient Clinics, T8);
* ``pending`` P: the most patients a player admits at once (``arrivals``, A1; 1 for a Helicopter);
* ``terminals`` T: terminal cards in the deck (each may lie beside one board);
* ``max_cost`` M: the largest single Diagnostics or Healing cost (printed difficulties, and a
  chronic patient's Time, which stays below ``rounds``, T3);
* ``max_diagnosis`` D: the largest Diagnostics cost (printed on the deck's cards, T1).

The index is the concatenation of these blocks. Inside a block the ids follow its fields in
row-major order (last field fastest), with one exception that keeps the space small: a payment
field pair lists only the mixes that can pay, ``staff + congress`` at most the cost bound (D for a
diagnosis, the amount for a healing). ``staff`` and ``congress`` are the units of the cost paid
with available Staff and Congress Doctors, tokens pay the rest (T6):

=============  ===========================================  ==============================
block          fields (range)                               engine action
=============  ===========================================  ==============================
admit          pending i (P), space s-1 (S)                 admit the i-th pending card to s
reject         pending i (P)                                reject the i-th pending card
diagnose       space s-1 (S), staff, congress (sum <= D)    diagnose the patient in space s
heal           space s-1 (S), amount-1 (M), staff,          heal the patient in space s
               congress (sum <= amount)
treat          terminal j (T), payer (3: token/staff/cong.) treat the j-th terminal patient
helicopter     target (1+S+T: none, space, terminal), draw  helicopter remove/draw_all
buy            item (7, in MARKET_ITEMS order)              buy that market item
pass           (1)                                          pass
=============  ===========================================  ==============================

An id names a slot of the acting seat's own board (its i-th pending card, its space s), so it
means the same action to that seat whatever it knows of other cards.

:meth:`Game.legal_action_ids` lists the ids of :meth:`Game.legal_actions` in the same order (the
i-th id is the i-th action), and :meth:`Game.apply_id` applies one of them without validating it
again; the states, events, views and history are those of the dict path.

>>> from triage.engine import Game
>>> game = Game.new(players=2, seed=3)
>>> index = action_space(game)
>>> index.num_actions, index.describe(index.num_actions - 1)
(716, 'pass')
>>> ids = game.legal_action_ids()
>>> [id_to_action(game, i) for i in ids] == game.legal_actions()
True
>>> action_to_id(game, game.legal_actions()[0]) == ids[0]
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from operator import not_
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from triage.engine.config import ITEM_HOLDING, MARKET_ITEMS
from triage.engine.state import BASE_SPACES

if TYPE_CHECKING:  # the engine's Game imports this module, never the reverse at run time
    from triage.engine.game import Game

Action = dict[str, Any]
PAYERS: tuple[str, ...] = ("tokens", "staff", "congress")
BLOCKS: tuple[str, ...] = ("admit", "reject", "diagnose", "heal", "treat", "helicopter", "buy", "pass")


class IllegalActionError(ValueError):
    """An integer action that the current position does not allow: refused, nothing changes."""


class EncodingError(ValueError):
    """An engine action that this index cannot express (a configuration beyond its sizes)."""


@dataclass(frozen=True)
class ActionSpace:
    """The sizes of the integer action space for one configuration and deck."""

    spaces: int
    pending: int
    terminals: int
    max_cost: int
    max_diagnosis: int
    #: (block, number of ids) in id order.
    blocks: tuple[tuple[str, int], ...] = field(init=False)
    offsets: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        blocks = tuple((name, len(_block_fields(name, *self.shape))) for name in BLOCKS)
        object.__setattr__(self, "blocks", blocks)
        offsets, start = {}, 0
        for name, count in blocks:
            offsets[name] = start
            start += count
        object.__setattr__(self, "offsets", offsets)

    @staticmethod
    def sizes(
        config: Mapping[str, Any], catalogue: Iterable[tuple[Any, ...]]
    ) -> tuple[int, int, int, int, int]:
        """(S, P, T, M, D) from a configuration in its file shape and the deck's card backs."""
        extra = 0
        for item in ("clinical_trial", "outpatient_clinic"):
            limit = config["market"][item]["limit"]
            if limit is None:
                raise EncodingError(
                    f"integer actions need a finite market.{item}.limit (T8), "
                    "so that the number of hospital spaces is bounded"
                )
            extra += limit
        terminals = 0
        printed = [config["rounds"], 1]
        diagnoses = [0]
        for back in catalogue:
            terminals += back[0] == "terminal"
            printed.extend(value for value in (back[1], back[2]) if value is not None)
            if back[1] is not None:
                diagnoses.append(back[1])
        return BASE_SPACES + extra, max(config["arrivals"], 1), terminals, max(printed), max(diagnoses)

    # ------------------------------------------------------------------ index arithmetic

    @property
    def shape(self) -> tuple[int, int, int, int, int]:
        """(S, P, T, M, D)."""
        return (self.spaces, self.pending, self.terminals, self.max_cost, self.max_diagnosis)

    @property
    def table(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Every id's block and field values, in id order (computed once per shape)."""
        return _decoded(*self.shape)

    @property
    def ids(self) -> dict[tuple[str, tuple[int, ...]], int]:
        """The id of every (block, fields) (computed once per shape): :meth:`index` unchecked."""
        return _ids_of(*self.shape)

    @property
    def num_actions(self) -> int:
        return sum(count for _, count in self.blocks)

    def index(self, block: str, *fields: int) -> int:
        """The integer of a block's field values (see the module doc for their ranges)."""
        number = _ids_of(*self.shape).get((block, fields))
        if number is None:
            if block not in BLOCKS:
                raise EncodingError(f"unknown action block {block!r}")
            raise EncodingError(
                f"{block} fields {fields} are not in this index (S={self.spaces}, P={self.pending}, "
                f"T={self.terminals}, M={self.max_cost}, D={self.max_diagnosis}; a payment's staff + "
                "congress at most its cost)"
            )
        return number

    def split(self, index: int) -> tuple[str, tuple[int, ...]]:
        """The block of an action index and its field values."""
        if isinstance(index, bool) or not hasattr(index, "__index__"):
            raise IllegalActionError(f"an action is an integer, got {index!r}")
        index = int(index)
        if not 0 <= index < self.num_actions:
            raise IllegalActionError(f"action {index} is outside the action space 0..{self.num_actions - 1}")
        return _decoded(*self.shape)[index]

    def describe(self, index: int) -> str:
        """A static description of an action index (no position needed)."""
        block, f = self.split(index)
        if block == "admit":
            return f"admit pending patient #{f[0] + 1} to space {f[1] + 1}"
        if block == "reject":
            return f"reject pending patient #{f[0] + 1}"
        if block == "diagnose":
            return (
                f"diagnose the patient in space {f[0] + 1} (staff {f[1]}, congress {f[2]}, tokens the rest)"
            )
        if block == "heal":
            return (
                f"heal the patient in space {f[0] + 1} by {f[1] + 1} "
                f"(staff {f[2]}, congress {f[3]}, tokens the rest)"
            )
        if block == "treat":
            return f"treat terminal patient #{f[0] + 1} paying with {PAYERS[f[1]]}"
        if block == "helicopter":
            return f"helicopter: {self._target_text(f[0])}{', all draw' if f[1] else ''}"
        if block == "buy":
            return f"buy {MARKET_ITEMS[f[0]]}"
        return "pass"

    def _target_text(self, target: int) -> str:
        if target == 0:
            return "remove nobody"
        if target <= self.spaces:
            return f"remove the patient in space {target}"
        return f"remove terminal patient #{target - self.spaces}"


def _block_fields(
    name: str, spaces: int, pending: int, terminals: int, max_cost: int, max_diagnosis: int
) -> list[tuple[int, ...]]:
    """Every field tuple of one block, in id order."""
    if name == "admit":
        return [(i, s) for i in range(pending) for s in range(spaces)]
    if name == "reject":
        return [(i,) for i in range(pending)]
    if name == "diagnose":
        return [(s, *mix) for s in range(spaces) for mix in _mixes(max_diagnosis)]
    if name == "heal":
        return [
            (s, amount - 1, *mix)
            for s in range(spaces)
            for amount in range(1, max_cost + 1)
            for mix in _mixes(amount)
        ]
    if name == "treat":
        return [(j, payer) for j in range(terminals) for payer in range(len(PAYERS))]
    if name == "helicopter":
        return [(target, draw) for target in range(1 + spaces + terminals) for draw in range(2)]
    if name == "buy":
        return [(item,) for item in range(len(MARKET_ITEMS))]
    return [(0,)]


def _mixes(cost: int) -> list[tuple[int, int]]:
    """T6: the (staff, congress) pairs that can pay part of ``cost``, tokens paying the rest."""
    return [(staff, congress) for staff in range(cost + 1) for congress in range(cost + 1 - staff)]


@lru_cache(maxsize=64)
def _decoded(*shape: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Every id's block and fields for a shape (S, P, T, M, D), computed once per shape
    (``apply_id`` looks ids up here)."""
    return tuple((name, fields) for name in BLOCKS for fields in _block_fields(name, *shape))


@lru_cache(maxsize=64)
def _ids_of(*shape: int) -> dict[tuple[str, tuple[int, ...]], int]:
    """The id of every (block, fields), the inverse of :func:`_decoded`."""
    return {entry: number for number, entry in enumerate(_decoded(*shape))}


class _Plan:
    """What listing and applying ids needs for one card table and configuration, with memos:
    the ids of one patient's payment mixes depend on a few small numbers only."""

    __slots__ = (
        "cards",
        "config",
        "space",
        "table",
        "offsets",
        "ids",
        "buys",
        "diagnose_memo",
        "heal_memo",
        "admission_memo",
    )

    def __init__(self, cards: Any, config: Any) -> None:
        self.cards = cards
        self.config = config
        self.space = _space_of_sizes(*_game_sizes(cards, config))
        self.table = self.space.table
        self.offsets = self.space.offsets
        self.ids = self.space.ids
        # Config.market is built in MARKET_ITEMS order, so the k-th item is buy field k (T8).
        prices = tuple((market.price, market.limit) for market in config.market.values())
        self.buys = _buy_table(self.offsets["buy"], prices)
        # Shared by every plan of one index shape: the ids depend on nothing else.
        self.diagnose_memo, self.heal_memo, self.admission_memo = _memos(self.space)

    def admission_ids(self, pending: int, hospital: list[Any]) -> tuple[int, ...]:
        """A4: the ids of admitting each of ``pending`` patients to each free space, or of
        rejecting each when no space is free."""
        free = [number for number, slot in enumerate(hospital) if slot is None]
        if free:
            base = self.offsets["admit"]
            size = self.space.spaces
            return tuple(base + i * size + number for i in range(pending) for number in free)
        base = self.offsets["reject"]
        return tuple(base + i for i in range(pending))

    def diagnose_ids(self, number: int, cost: int, tokens: int, staff: int, congress: int) -> tuple[int, ...]:
        """T1, T6: the ids of every mix paying ``cost`` for the patient in space ``number + 1``."""
        key = _budget_key(number, cost, tokens, staff, congress)
        ids = self.diagnose_memo.get(key)
        if ids is None:
            id_of = self.ids
            found = []
            for use_staff in range(min(staff, cost) + 1):
                for use_congress in range(min(congress, cost - use_staff) + 1):
                    if cost - use_staff - use_congress <= tokens:
                        found.append(id_of["diagnose", (number, use_staff, use_congress)])
            ids = self.diagnose_memo[key] = tuple(found)
        return ids

    def heal_ids(self, number: int, need: int, tokens: int, staff: int, congress: int) -> tuple[int, ...]:
        """T2, T6: the ids of every amount up to ``need`` and every mix paying it."""
        key = _budget_key(number, need, tokens, staff, congress)
        ids = self.heal_memo.get(key)
        if ids is None:
            id_of = self.ids
            found = []
            for amount in range(1, need + 1):
                if amount > tokens + staff + congress:
                    break
                for use_staff in range(min(staff, amount) + 1):
                    for use_congress in range(min(congress, amount - use_staff) + 1):
                        if amount - use_staff - use_congress <= tokens:
                            found.append(id_of["heal", (number, amount - 1, use_staff, use_congress)])
            ids = self.heal_memo[key] = tuple(found)
        return ids


_PLANS: dict[Any, _Plan] = {}


@lru_cache(maxsize=64)
def _buy_table(base: int, prices: tuple[tuple[int, int | None], ...]) -> tuple[tuple[Any, Any], ...]:
    """By Credits held (capped at the dearest price): the ids of the items affordable, in
    market order (T8), and, where one of them has a limit, each id with its holding and limit
    to check (None where no limit applies, so the ids are all legal)."""
    items = [
        (base + number, price, ITEM_HOLDING[item], limit)
        for number, (item, (price, limit)) in enumerate(zip(MARKET_ITEMS, prices))
    ]
    table = []
    for credits in range(max(price for price, _ in prices) + 1):
        affordable = [
            (action_id, holding, limit) for action_id, price, holding, limit in items if price <= credits
        ]
        limited = any(limit is not None for _, _, limit in affordable)
        table.append(
            (tuple(action_id for action_id, _, _ in affordable), tuple(affordable) if limited else None)
        )
    return tuple(table)


@lru_cache(maxsize=64)
def _memos(space: ActionSpace) -> tuple[dict[tuple[Any, ...], tuple[int, ...]], ...]:
    return {}, {}, {}


def _game_sizes(cards: Any, config: Any) -> tuple[int, int, int, int, int]:
    """:meth:`ActionSpace.sizes` read from a game's Config and card table directly."""
    limits = [config.market[item].limit for item in ("clinical_trial", "outpatient_clinic")]
    if None in limits:
        raise EncodingError(
            "integer actions need finite market.clinical_trial.limit and market.outpatient_clinic.limit "
            "(T8), so that the number of hospital spaces is bounded"
        )
    terminals = 0
    largest = max(config.rounds, 1)
    diagnosis = 0
    for spec in cards.values():
        if spec.kind == "terminal":
            terminals += 1
        if spec.diagnosis is not None:
            largest = max(largest, spec.diagnosis)
            diagnosis = max(diagnosis, spec.diagnosis)
        if spec.healing is not None and spec.healing > largest:
            largest = spec.healing
    return BASE_SPACES + sum(limits), max(config.arrivals, 1), terminals, largest, diagnosis


def _plan(game: "Game") -> _Plan:
    """The plan of ``game``'s deck and configuration: one per card table, or one per deck key
    (``Game.deck_key``) and configuration for deals of a shared deck, which hold the same
    contents under other handles (the plan depends on the contents only)."""
    cards = game.cards
    config = game.config
    deck = game.deck_key
    key: Any = id(cards) if deck is None else (deck, id(config))
    plan = _PLANS.get(key)
    # A plan holds its configuration and cards, so the ids in its key stay theirs.
    if plan is not None and plan.config is config and (deck is not None or plan.cards is cards):
        return plan
    plan = _Plan(cards, config)
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[key] = plan
    return plan


def action_space(game: "Game") -> ActionSpace:
    """The action index of ``game``'s configuration and deck (worked out once per card table,
    or per shared deck, and configuration)."""
    return _plan(game).space


@lru_cache(maxsize=64)
def _space_of_sizes(*shape: int) -> ActionSpace:
    return ActionSpace(*shape)


def _budget_key(number: int, cost: int, tokens: int, staff: int, congress: int) -> tuple[int, ...]:
    """The memo key of a payment listing: means beyond the cost change nothing (T6).
    ``legal_action_ids`` builds the same key inline, on its hot path."""
    return (
        number,
        cost,
        tokens if tokens < cost else cost,
        staff if staff < cost else cost,
        congress if congress < cost else cost,
    )


# ---------------------------------------------------------------------- a position's ids


def legal_action_ids(game: "Game", player: int | None = None) -> list[int]:
    """The ids of ``game.legal_actions(player)``, in the same order (see the module doc)."""
    seat = game.turn
    if seat is None or (player is not None and player != seat):
        return []
    plan = game._id_plan  # a game's cards and configuration never change (see Game)
    if plan is None:
        plan = game._id_plan = _plan(game)
    state = game.players[seat]
    hospital = state.hospital
    if game.resolving == seat and state.pending:
        # A4: every pending patient to every free space, or, with none free, each rejected;
        # the ids depend on the number pending and the free spaces only.
        key = (len(state.pending), *map(not_, hospital))  # True where a space is free
        found = plan.admission_memo.get(key)
        if found is None:
            found = plan.admission_memo[key] = plan.admission_ids(key[0], hospital)
        return list(found)
    ids: list[int] = []
    offsets = plan.offsets
    cards = game.cards
    staff = state.staff_available
    congress = state.congress
    healing = state.healing
    diagnostics = state.diagnostics
    diagnose_memo = plan.diagnose_memo
    heal_memo = plan.heal_memo
    for number, slot in enumerate(hospital):
        if slot is None:
            continue
        spec = cards[slot.card]
        # _budget_key (the memo keys of Plan.diagnose_ids and heal_ids), inline to save a call.
        if not slot.revealed:
            cost = spec.diagnosis or 0
            found = diagnose_memo.get(
                (
                    number,
                    cost,
                    diagnostics if diagnostics < cost else cost,
                    staff if staff < cost else cost,
                    congress if congress < cost else cost,
                )
            )
            if found is None:
                found = plan.diagnose_ids(number, cost, diagnostics, staff, congress)
        else:
            need = (spec.healing if spec.healing is not None else slot.time) - slot.placed
            found = heal_memo.get(
                (
                    number,
                    need,
                    healing if healing < need else need,
                    staff if staff < need else need,
                    congress if congress < need else need,
                )
            )
            if found is None:
                found = plan.heal_ids(number, need, healing, staff, congress)
        ids.extend(found)
    if state.terminals:
        base = offsets["treat"]
        for patient in state.terminals:
            if not patient.treated:
                # The order of the mixes of a cost of 1 (T6): tokens, Congress, Staff.
                if healing >= 1:
                    ids.append(base)
                if congress >= 1:
                    ids.append(base + 2)
                if staff >= 1:
                    ids.append(base + 1)
            base += 3
    if state.helicopters > 0:
        base = offsets["helicopter"]
        ids.append(base + 1)
        for number, slot in enumerate(hospital):
            if slot is not None:
                ids.append(base + number * 2 + 2)
                ids.append(base + number * 2 + 3)
        base += (1 + plan.space.spaces) * 2
        for _ in state.terminals:
            ids.append(base)
            ids.append(base + 1)
            base += 2
    buys = plan.buys
    credits = state.credits
    affordable = buys[credits if credits < len(buys) else -1]
    if affordable[1] is None:
        ids.extend(affordable[0])
    else:
        for action_id, holding, limit in affordable[1]:
            if limit is None or getattr(state, holding) < limit:
                ids.append(action_id)
    ids.append(offsets["pass"])
    return ids


def id_to_action(game: "Game", action_id: int, seat: int | None = None) -> Action:
    """The action (dict form, as ``legal_actions`` lists it) an id stands for in this position,
    for ``seat`` (default: the player to decide). Raises :class:`IllegalActionError` when the id
    refers to a pending card, space or terminal patient the seat does not have; legality itself
    is checked by ``Game.apply``."""
    index = action_space(game)
    block, f = index.split(action_id)
    what = f"action {int(action_id)} ({index.describe(action_id)})"
    if seat is None:
        seat = game.turn
    if seat is None:
        raise IllegalActionError(f"{what}: no player is to decide (R4)")
    state = game.players[seat]
    if block in ("admit", "reject"):
        if f[0] >= len(state.pending):
            raise IllegalActionError(f"{what}: there is no pending patient #{f[0] + 1} (A4)")
        card = state.pending[f[0]]
        if block == "reject":
            return {"type": "reject", "card": card}
        return {"type": "admit", "card": card, "space": f[1] + 1}
    if block in ("diagnose", "heal"):
        slot = state.hospital[f[0]] if f[0] < len(state.hospital) else None
        if slot is None:
            raise IllegalActionError(f"{what}: space {f[0] + 1} holds no patient (T1, T2)")
        if block == "diagnose":
            cost = game.cards[slot.card].diagnosis or 0
            return {"type": "diagnose", "patient": slot.card, "pay": _pay(what, cost, f[1], f[2])}
        amount = f[1] + 1
        return {"type": "heal", "patient": slot.card, "amount": amount, "pay": _pay(what, amount, f[2], f[3])}
    if block == "treat":
        if f[0] >= len(state.terminals):
            raise IllegalActionError(f"{what}: there is no terminal patient #{f[0] + 1} (T5)")
        pay = {name: int(number == f[1]) for number, name in enumerate(PAYERS)}
        return {"type": "treat", "patient": state.terminals[f[0]].card, "pay": pay}
    if block == "helicopter":
        return {
            "type": "helicopter",
            "remove": _target_card(index, state, f[0], what),
            "draw_all": bool(f[1]),
        }
    if block == "buy":
        return {"type": "buy", "item": MARKET_ITEMS[f[0]]}
    return {"type": "pass"}


def _target_card(index: ActionSpace, state: Any, target: int, what: str) -> str | None:
    if target == 0:
        return None
    if target <= index.spaces:
        slot = state.hospital[target - 1] if target <= len(state.hospital) else None
        if slot is None:
            raise IllegalActionError(f"{what}: space {target} holds no patient (T7)")
        return str(slot.card)
    number = target - index.spaces - 1
    if number >= len(state.terminals):
        raise IllegalActionError(f"{what}: there is no terminal patient #{number + 1} (T7)")
    return str(state.terminals[number].card)


def _pay(what: str, cost: int, staff: int, congress: int) -> dict[str, int]:
    if staff + congress > cost:
        raise IllegalActionError(
            f"{what}: staff and congress pay {staff + congress}, more than the cost {cost} (T6)"
        )
    return {"tokens": cost - staff - congress, "staff": staff, "congress": congress}


def action_to_id(game: "Game", action: Action, seat: int | None = None) -> int:
    """The id of an action (dict form) for ``seat`` (default: the player to decide). A missing
    ``pay`` means the engine's default mix (T6: tokens, then Staff, then Congress Doctors).
    Raises :class:`EncodingError` when the action names a card the seat does not hold there."""
    index = action_space(game)
    if seat is None:
        seat = game.turn
    if seat is None:
        raise EncodingError("no player is to decide (R4)")
    state = game.players[seat]
    kind = action.get("type") if isinstance(action, dict) else None
    if kind in ("admit", "reject"):
        pending = _position(state.pending, action.get("card"), "pending patient")
        if kind == "reject":
            return index.index("reject", pending)
        space = action.get("space")
        if not isinstance(space, int) or isinstance(space, bool):
            raise EncodingError(f"admit needs a whole-number space, got {space!r}")
        return index.index("admit", pending, space - 1)
    if kind in ("diagnose", "heal"):
        number = _space_number(state, action.get("patient"))
        slot = state.hospital[number]
        if kind == "diagnose":
            cost = game.cards[slot.card].diagnosis or 0
        else:
            cost = action.get("amount")
            if not isinstance(cost, int) or isinstance(cost, bool) or cost < 1:
                raise EncodingError(f"heal needs a whole-number amount of at least 1, got {cost!r}")
        token = "diagnostics" if kind == "diagnose" else "healing"
        use_staff, use_congress = _staff_congress(state, action.get("pay"), cost, token)
        if kind == "diagnose":
            return index.index("diagnose", number, use_staff, use_congress)
        return index.index("heal", number, cost - 1, use_staff, use_congress)
    if kind == "treat":
        cards = [patient.card for patient in state.terminals]
        terminal = _position(cards, action.get("patient"), "terminal patient")
        use_staff, use_congress = _staff_congress(state, action.get("pay"), 1, "healing")
        return index.index("treat", terminal, 1 if use_staff else 2 if use_congress else 0)
    if kind == "helicopter":
        remove = action.get("remove")
        if remove is None:
            target = 0
        else:
            spaces = [slot.card if slot is not None else None for slot in state.hospital]
            if remove in spaces:
                target = spaces.index(remove) + 1
            else:
                cards = [patient.card for patient in state.terminals]
                target = 1 + index.spaces + _position(cards, remove, "patient (space or terminal)")
        return index.index("helicopter", target, int(bool(action.get("draw_all", False))))
    if kind == "buy":
        item = action.get("item")
        if item not in MARKET_ITEMS:
            raise EncodingError(f"unknown market item {item!r} (items: {', '.join(MARKET_ITEMS)})")
        return index.index("buy", MARKET_ITEMS.index(item))
    if kind == "pass":
        return index.index("pass", 0)
    raise EncodingError(f"unknown action type {kind!r} (known: {', '.join(BLOCKS)})")


def _staff_congress(state: Any, pay: Any, cost: int, token: str) -> tuple[int, int]:
    """The Staff and Congress Doctors of a payment; None is the engine's default mix (T6)."""
    if pay is None:
        tokens = min(getattr(state, token), cost)
        staff = min(state.staff_available, cost - tokens)
        return staff, min(state.congress, cost - tokens - staff)
    if not isinstance(pay, dict):
        raise EncodingError(f"'pay' must be an object of tokens, staff and congress, got {pay!r}")
    return pay.get("staff", 0), pay.get("congress", 0)


def _position(items: list[str], card: Any, what: str) -> int:
    if card not in items:
        raise EncodingError(f"{card!r} is not a {what} of the acting seat")
    return items.index(card)


def _space_number(state: Any, card: Any) -> int:
    for number, slot in enumerate(state.hospital):
        if slot is not None and slot.card == card:
            return number
    raise EncodingError(f"{card!r} is not in a hospital space of the acting seat")
