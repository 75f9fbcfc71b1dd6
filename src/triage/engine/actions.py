"""Integer actions: one stable action index per configuration and deck.

Search and learning code wants actions as small integers. The index is fixed by public data
only (the configuration and the deck list, never a card's position or back), so every seat, a
view and a determinized game agree on it. The sizes:

* ``spaces`` S: the most hospital spaces a player can own (4, K4, plus the spaces the market's
  items give up to their limits, T8);
* ``pending`` P: the most patients a player admits at once (``arrivals``, A1; 1 for a Helicopter);
* ``terminals`` T: terminal cards in the deck (each may lie beside one board);
* ``max_cost`` M: the largest single Diagnostics or Healing cost (printed difficulties, and a
  chronic patient's Time, which stays below ``rounds``, T3);
* ``max_diagnosis`` D: the largest Diagnostics cost (printed on the deck's cards, T1);
* ``items`` I: the market's items, in the configuration's order (T8).

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
buy            item (I, in the configuration's market order)  buy that market item
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

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import not_
from typing import TYPE_CHECKING, Any, NamedTuple

from triage.engine.shapes import Action
from triage.engine.state import BASE_SPACES
from triage.engine.treatment import default_mix, flight_options, limits_reached
from triage.engine.vocabulary import MarketItem

if TYPE_CHECKING:  # the engine's Game imports this module, never the reverse at run time
    from triage.engine.game import Game

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
    #: The market's item names, in the configuration's order (T8): the buy block's fields.
    items: tuple[str, ...]
    #: (block, number of ids) in id order.
    blocks: tuple[tuple[str, int], ...] = field(init=False)
    offsets: dict[str, int] = field(init=False, repr=False, compare=False)
    #: The id of every (block, fields): :attr:`ids`, kept at hand for :meth:`index`.
    id_of: dict[tuple[str, tuple[int, ...]], int] = field(init=False, repr=False, compare=False)
    #: The listing's memos of this shape (payment ids, payment fields, admissions, Helicopter
    #: flights), shared by the plans of every deck and configuration of the shape.
    memos: tuple[dict[Any, Any], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        blocks = tuple((name, len(_block_fields(name, *self.shape))) for name in BLOCKS)
        object.__setattr__(self, "blocks", blocks)
        offsets, start = {}, 0
        for name, count in blocks:
            offsets[name] = start
            start += count
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "id_of", _ids_of(*self.shape))
        object.__setattr__(self, "memos", ({}, {}, {}, {}))

    @staticmethod
    def sizes(
        config: Mapping[str, Any], catalogue: Iterable[Sequence[Any]]
    ) -> tuple[int, int, int, int, int, tuple[str, ...]]:
        """(S, P, T, M, D, I) from a configuration in its file shape and the deck's card backs."""
        extra = 0
        for name, item in config["market"].items():
            spaces = item["gives"].get("spaces", 0)
            if spaces and item["limit"] is None:
                raise EncodingError(
                    f"integer actions need a finite market.{name}.limit (T8), "
                    "so that the number of hospital spaces is bounded"
                )
            extra += spaces * (item["limit"] or 0)
        terminals = 0
        printed = [config["rounds"], 1]
        diagnoses = [0]
        for back in catalogue:
            terminals += back[0] == "terminal"
            printed.extend(value for value in (back[1], back[2]) if value is not None)
            if back[1] is not None:
                diagnoses.append(back[1])
        return (
            BASE_SPACES + extra,
            max(config["arrivals"], 1),
            terminals,
            max(printed),
            max(diagnoses),
            tuple(config["market"]),
        )

    # ------------------------------------------------------------------ index arithmetic

    @property
    def shape(self) -> tuple[int, int, int, int, int, tuple[str, ...]]:
        """(S, P, T, M, D, I)."""
        return (self.spaces, self.pending, self.terminals, self.max_cost, self.max_diagnosis, self.items)

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
        number = self.id_of.get((block, fields))
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
            return f"buy {self.items[f[0]]}"
        return "pass"

    def _target_text(self, target: int) -> str:
        if target == 0:
            return "remove nobody"
        if target <= self.spaces:
            return f"remove the patient in space {target}"
        return f"remove terminal patient #{target - self.spaces}"


def _block_fields(
    name: str,
    spaces: int,
    pending: int,
    terminals: int,
    max_cost: int,
    max_diagnosis: int,
    items: tuple[str, ...],
) -> list[tuple[int, ...]]:
    """Every field tuple of one block, in id order."""
    if name == "admit":
        return [(i, s) for i in range(pending) for s in range(spaces)]
    if name == "reject":
        return [(i,) for i in range(pending)]
    if name == "diagnose":
        return [
            (s, *mix) for s in range(spaces) for mix in payment_mixes(max_diagnosis, *[max_diagnosis] * 3)
        ]
    if name == "heal":
        return [
            (s, amount - 1, *mix)
            for s in range(spaces)
            for amount in range(1, max_cost + 1)
            for mix in payment_mixes(amount, amount, amount, amount)
        ]
    if name == "treat":
        return [(j, payer) for j in range(terminals) for payer in range(len(PAYERS))]
    if name == "helicopter":
        return [(target, draw) for target in range(1 + spaces + terminals) for draw in range(2)]
    if name == "buy":
        return [(item,) for item in range(len(items))]
    return [(0,)]


@lru_cache(maxsize=64)
def _decoded(*shape: Any) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Every id's block and fields for a shape (S, P, T, M, D, I), computed once per shape
    (``apply_id`` looks ids up here)."""
    return tuple((name, fields) for name in BLOCKS for fields in _block_fields(name, *shape))


@lru_cache(maxsize=64)
def _ids_of(*shape: Any) -> dict[tuple[str, tuple[int, ...]], int]:
    """The id of every (block, fields), the inverse of :func:`_decoded`."""
    return {entry: number for number, entry in enumerate(_decoded(*shape))}


# ---------------------------------------------------------------------- T6: paying a cost

#: The blocks whose actions pay a cost with tokens, Staff and Congress Doctors (T6).
PAID: frozenset[str] = frozenset({"diagnose", "heal", "treat"})


def payment_mixes(cost: int, tokens: int, staff: int, congress: int) -> list[tuple[int, int]]:
    """T6: every (staff, congress) that pays part of ``cost`` with tokens paying the rest, within
    these means, in id order (the all-tokens mix first)."""
    return [
        (use_staff, use_congress)
        for use_staff in range(min(staff, cost) + 1)
        for use_congress in range(min(congress, cost - use_staff) + 1)
        if cost - use_staff - use_congress <= tokens
    ]


def payable(block: str, cost: int, means: int) -> bool:
    """T1, T2, T5, T6: whether a payment block has an action: a diagnosis or treatment its whole
    cost, a heal at least one unit of what the patient still needs (``cost``)."""
    least = 1 if block == "heal" else cost
    return least <= cost and least <= means


#: A payment group: (block, target, cost, tokens, staff, congress), the means capped at the
#: cost (more changes nothing, T6). The target is a space number (0-based) or, for ``treat``,
#: a terminal patient's position.
PaymentGroup = tuple[str, int, int, int, int, int]


class _Plan:
    """What listing and applying ids needs for one card table and configuration, with memos:
    the ids of one patient's payment mixes depend on a few small numbers only."""

    __slots__ = (
        "admission_memo",
        "buys",
        "cards",
        "config",
        "fields_memo",
        "fixed",
        "helicopter_memo",
        "ids",
        "offsets",
        "paid_memo",
        "space",
        "table",
    )

    def __init__(self, cards: Any, config: Any, spaces: int = 0) -> None:
        self.cards = cards
        self.config = config
        #: Whether the spaces are bounded by the market's limits (T8), or grow with the hospitals.
        self.fixed = spaces == 0
        self.space = _space_of_sizes(*_game_sizes(cards, config, spaces))
        self.table = self.space.table
        self.offsets = self.space.offsets
        self.ids = self.space.ids
        # The k-th item of the configuration's market is buy field k (T8).
        self.buys = _buy_table(self.offsets["buy"], tuple(config.market.values()))
        # Kept on the index shape they describe: the ids depend on nothing else.
        self.paid_memo, self.fields_memo, self.admission_memo, self.helicopter_memo = self.space.memos

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

    def helicopter_ids(self, key: tuple[int, ...]) -> tuple[int, ...]:
        """T7, by (terminal patients, then True per free space): the ids of flying for the draws
        alone, then of removing each patient in a space, then each terminal one, without and
        with the draws (memoized)."""
        base = self.offsets["helicopter"]
        # Targets: 0 none, 1 + space for a space's patient, 1 + spaces + j for terminal j.
        targets = [1 + number for number, free in enumerate(key[1:]) if not free]
        targets += range(1 + self.space.spaces, 1 + self.space.spaces + key[0])
        ids = [base + (target or 0) * 2 + draw for target, draw in flight_options(targets)]
        found = self.helicopter_memo[key] = tuple(ids)
        return found

    def paid_ids(self, group: PaymentGroup) -> tuple[int, ...]:
        """The ids of :meth:`paid_fields` (memoized)."""
        ids = self.paid_memo.get(group)
        if ids is None:
            id_of = self.ids
            block = group[0]
            ids = self.paid_memo[group] = tuple(id_of[block, fields] for fields in self.paid_fields(group))
        return ids

    def paid_fields(self, group: PaymentGroup) -> tuple[tuple[int, ...], ...]:
        """T1, T2, T5, T6: the field values of a payment group's actions in id order: every mix
        paying a diagnosis or a treatment, every amount up to a heal's need and every mix paying
        it (memoized)."""
        found = self.fields_memo.get(group)
        if found is None:
            block, target, cost, tokens, staff, congress = group
            fields: list[tuple[int, ...]] = []
            for amount in range(1, cost + 1) if block == "heal" else (cost,):
                for mix in payment_mixes(amount, tokens, staff, congress):
                    if block == "diagnose":
                        fields.append((target, *mix))
                    elif block == "heal":
                        fields.append((target, amount - 1, *mix))
                    else:  # a treatment costs one unit (T5): its payer
                        fields.append((target, 1 if mix[0] else 2 if mix[1] else 0))
            found = self.fields_memo[group] = tuple(fields)
        return found


@lru_cache(maxsize=64)
def _buy_table(
    base: int, market: tuple[MarketItem, ...]
) -> tuple[tuple[tuple[int, ...], tuple[tuple[int, MarketItem], ...]], ...]:
    """By Credits held (capped at the dearest price): the ids of the items affordable, in
    market order (T8), and those of them whose item has a limit, each with its item, for
    :func:`~triage.engine.treatment.limits_reached` to check (empty where none has)."""
    table = []
    for credits in range(max(item.price for item in market) + 1):
        affordable = [(base + number, item) for number, item in enumerate(market) if item.price <= credits]
        limited = tuple((action_id, item) for action_id, item in affordable if item.limit is not None)
        table.append((tuple(action_id for action_id, _ in affordable), limited))
    return tuple(table)


def _game_sizes(cards: Any, config: Any, spaces: int = 0) -> tuple[int, int, int, int, int, tuple[str, ...]]:
    """:meth:`ActionSpace.sizes` read from a game's Config and card table directly. Where an
    item that gives spaces has no limit (T8), the spaces are ``spaces``, what the largest
    hospital of the position needs (:func:`_open_spaces`)."""
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
    bounded = BASE_SPACES + sum(
        item.gives_of("spaces") * (item.limit or 0) for item in config.market.values()
    )
    return max(bounded, spaces), max(config.arrivals, 1), terminals, largest, diagnosis, tuple(config.market)


#: Open-ended plans (no limit on a space item, T8) grow their spaces in steps of this many, so
#: that a few purchases share one plan.
SPACE_STEP = 4


def _open_spaces(game: Game) -> int:
    """The spaces an open-ended plan needs for this position: the largest hospital, rounded up
    to a whole step (0 where every item that gives spaces has a limit: the bound is fixed)."""
    config = game.config
    bounded = config.derived.get("spaces_bounded")  # asked at every deal: worked out once
    if bounded is None:
        bounded = config.derived["spaces_bounded"] = all(
            item.limit is not None for item in config.market.values() if item.gives_of("spaces")
        )
    if bounded:
        return 0
    largest = max(len(player.hospital) for player in game.players)
    return -(-largest // SPACE_STEP) * SPACE_STEP


def plan_of(game: Game) -> _Plan:
    """The plan of ``game``'s deck and configuration: one per card table, or one per deck key
    (``Game.deck_key``) and configuration for deals of a shared deck, which hold the same
    contents under other handles (the plan depends on the contents only).

    A configuration with no limit on an item that gives spaces (T8) has no fixed number of
    spaces: its plan covers the hospitals of the position and is replaced by a larger
    one when a purchase outgrows it, so its ids keep their meaning only while the spaces do.
    """
    known: _Plan | None = game.machinery.plan  # a game's cards and configuration never change (see Game)
    if known is not None and known.fixed:
        return known
    spaces = _open_spaces(game)
    if known is not None and known.space.spaces >= spaces:
        return known
    cards = game.cards
    config = game.config
    deck = game.deck_key
    # Kept on what it describes: the configuration for deals of a shared deck, else the game
    # (whose copies share its card table).
    store, key = (
        (game.machinery.derived, ("plan", spaces))
        if deck is None
        else (config.derived, ("plan", deck, spaces))
    )
    plan: _Plan | None = store.get(key)
    if plan is None or (deck is None and plan.cards is not cards):
        plan = store[key] = _Plan(cards, config, spaces)
    game.machinery.plan = plan
    return plan


def action_space(game: Game) -> ActionSpace:
    """The action index of ``game``'s configuration and deck (worked out once per card table,
    or per shared deck, and configuration)."""
    return plan_of(game).space


@lru_cache(maxsize=64)
def _space_of_sizes(
    spaces: int, pending: int, terminals: int, max_cost: int, max_diagnosis: int, items: tuple[str, ...]
) -> ActionSpace:
    return ActionSpace(spaces, pending, terminals, max_cost, max_diagnosis, items)


# ---------------------------------------------------------------------- a position's ids


def legal_action_ids(game: Game, player: int | None = None, grouped: bool = False) -> list[int]:
    """The engine's one listing of legal moves: the ids of ``game.legal_actions(player)``, in
    the same order (see the module doc). With ``grouped``, each diagnosis, heal and treatment
    stands as one :data:`PaymentGroup` instead of its ids (:func:`legal_groups`)."""
    seat = game.turn
    if seat is None or (player is not None and player != seat):
        return []
    plan = game.machinery.plan
    if plan is None or not plan.fixed:
        plan = plan_of(game)
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
    ids: list[Any] = []
    cards = game.cards
    staff = state.staff_available
    congress = state.congress
    healing = state.healing
    diagnostics = state.diagnostics
    paid_memo = plan.paid_memo
    for number, slot in enumerate(hospital):
        if slot is None:
            continue
        spec = cards[slot.card]
        if not slot.revealed:  # T1
            block, cost, tokens = "diagnose", spec.diagnosis or 0, diagnostics
        else:  # T2, T3: up to what the patient still needs (a chronic one's Time)
            block, tokens = "heal", healing
            # CardSpec.difficulty written out: this loop runs for every slot of every listing.
            cost = (spec.healing if spec.healing is not None else slot.time) - slot.placed
        group = (
            block,
            number,
            cost,
            tokens if tokens < cost else cost,
            staff if staff < cost else cost,
            congress if congress < cost else cost,
        )
        if grouped:
            if payable(group[0], cost, group[3] + group[4] + group[5]):
                ids.append(group)
            continue
        found = paid_memo.get(group)
        ids.extend(found if found is not None else plan.paid_ids(group))
    if state.terminals:  # T5: one unit of healing for each untreated terminal patient
        means = (1 if healing else 0, 1 if staff else 0, 1 if congress else 0)
        for number, patient in enumerate(state.terminals):
            if not patient.treated:
                group = ("treat", number, 1, *means)
                if grouped:
                    if payable("treat", 1, sum(means)):
                        ids.append(group)
                    continue
                found = paid_memo.get(group)
                ids.extend(found if found is not None else plan.paid_ids(group))
    if state.helicopters > 0:  # T7: draws alone, or a patient removed, with or without draws
        key = (len(state.terminals), *map(not_, hospital))  # True where a space is free
        found = plan.helicopter_memo.get(key)
        ids.extend(found if found is not None else plan.helicopter_ids(key))
    buys = plan.buys  # T8: what the Credits afford, within the market's limits
    credits = state.credits
    affordable, limited = buys[credits if credits < len(buys) else -1]
    ids.extend(affordable)
    if limited:
        for action_id in limits_reached(state, limited):
            ids.remove(action_id)
    ids.append(plan.offsets["pass"])  # T9
    return ids


def legal_groups(game: Game, seat: int) -> list[int | PaymentGroup]:
    """The bounded form of :func:`legal_action_ids` (its length grows with the patients, not
    with the holdings): the ids, except that each payment group stands for all of its ids."""
    return legal_action_ids(game, seat, grouped=True)  # type: ignore[return-value]


def legal_actions(game: Game, player: int | None = None) -> list[Action]:
    """The actions (dict form) of :func:`legal_action_ids`, in the same order: its bounded form,
    each payment group's actions, and each run of ids of one block, built at once."""
    seat = game.turn
    if seat is None or (player is not None and player != seat):
        return []
    plan = plan_of(game)
    space = plan.space
    table = plan.table
    state = game.players[seat]
    if game.resolving == seat and state.pending:  # A4: admissions or rejections, one block
        ids = legal_action_ids(game, seat)
        many = [table[action_id][1] for action_id in ids]
        return _BUILD[table[ids[0]][0]](space, _pending_board(state.pending), many)
    board = board_of(game, seat)
    actions: list[Action] = []
    run: list[tuple[int, ...]] = []
    run_block = ""
    entries: list[Any] = legal_action_ids(game, seat, True)
    for entry in entries:
        if entry.__class__ is tuple:
            if run:
                actions += _BUILD[run_block](space, board, run)
                run = []
            actions += _BUILD[entry[0]](space, board, plan.paid_fields(entry))
            continue
        block, fields = table[entry]
        if block != run_block and run:
            actions += _BUILD[run_block](space, board, run)
            run = []
        run_block = block
        run.append(fields)
    if run:
        actions += _BUILD[run_block](space, board, run)
    return actions


# ---------------------------------------------------------------------- integers <-> dicts


class Board(NamedTuple):
    """One seat's own board as an id reads it (its slots, not what it knows of other cards):
    what translating between ids and dict actions needs, from a game or from a seat's view."""

    #: The pending cards (A4), in order.
    pending: Sequence[str]
    #: Per hospital space (0-based), its patient's card or None.
    spaces: Sequence[str | None]
    #: The printed Diagnostics cost (T1, on the front: public) of at least the hospital's cards.
    diagnosis: Mapping[str, int]
    #: The terminal patients' cards (T5), in order.
    terminals: Sequence[str]
    #: The means of T6's default payment: Diagnostics, Healing, available Staff, Congress.
    means: tuple[int, int, int, int]


class _Diagnoses(Mapping[str, int]):
    """A card table's Diagnostics costs, read on demand (a listing rarely needs one)."""

    __slots__ = ("cards",)

    def __init__(self, cards: Mapping[str, Any]) -> None:
        self.cards = cards

    def __getitem__(self, card: str) -> int:
        return self.cards[card].diagnosis or 0

    def __iter__(self) -> Iterator[str]:
        return iter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)


def _pending_board(pending: Sequence[str]) -> Board:
    """A board of pending cards only: what an admission's actions name (A4)."""
    return tuple.__new__(Board, (pending, (), _NO_CARDS, (), (0, 0, 0, 0)))  # Board(...), without its checks


_NO_CARDS: Mapping[str, int] = {}


def board_of(game: Game, seat: int) -> Board:
    """``seat``'s board in ``game``."""
    state = game.players[seat]
    derived = game.machinery.derived
    diagnosis = derived.get("diagnoses")
    if diagnosis is None:  # one per card table, kept on the game (its copies share it)
        diagnosis = derived["diagnoses"] = _Diagnoses(game.cards)
    terminals = state.terminals
    return tuple.__new__(  # Board(...), without its argument checks: a listing builds one each time
        Board,
        (
            state.pending,
            [None if slot is None else slot.card for slot in state.hospital],
            diagnosis,
            [patient.card for patient in terminals] if terminals else (),
            (state.diagnostics, state.healing, state.staff_available, state.congress),
        ),
    )


# Per block, the dict actions of field tuples on a board, trusting that the slots exist: the
# one place where a block's fields become an action (a listing builds a payment group at once).
Fields = Sequence[tuple[int, ...]]


def _build_admit(space: ActionSpace, board: Board, many: Fields) -> list[Action]:
    return [{"type": "admit", "card": board.pending[f[0]], "space": f[1] + 1} for f in many]


def _build_reject(space: ActionSpace, board: Board, many: Fields) -> list[Action]:
    return [{"type": "reject", "card": board.pending[f[0]]} for f in many]


def _build_diagnose(space: ActionSpace, board: Board, many: Fields) -> list[Action]:
    spaces, costs = board.spaces, board.diagnosis
    return [
        {
            "type": "diagnose",
            "patient": patient,
            "pay": {"tokens": costs[patient] - f[1] - f[2], "staff": f[1], "congress": f[2]},
        }
        for f in many
        if (patient := spaces[f[0]]) is not None  # a listed space holds a patient
    ]


def _build_heal(space: ActionSpace, board: Board, many: Fields) -> list[Action]:
    spaces = board.spaces
    return [
        {
            "type": "heal",
            "patient": patient,
            "amount": f[1] + 1,
            "pay": {"tokens": f[1] + 1 - f[2] - f[3], "staff": f[2], "congress": f[3]},
        }
        for f in many
        if (patient := spaces[f[0]]) is not None  # a listed space holds a patient
    ]


def _build_treat(space: ActionSpace, board: Board, many: Fields) -> list[Action]:
    return [
        {
            "type": "treat",
            "patient": board.terminals[f[0]],
            "pay": {"tokens": int(f[1] == 0), "staff": int(f[1] == 1), "congress": int(f[1] == 2)},
        }
        for f in many
    ]


def _build_helicopter(space: ActionSpace, board: Board, many: Fields) -> list[Action]:
    return [
        {"type": "helicopter", "remove": _target(space, board, f[0]), "draw_all": bool(f[1])} for f in many
    ]


def _target(space: ActionSpace, board: Board, target: int) -> str | None:
    """T7: the patient a Helicopter's target field names (0: none, then spaces, then terminals)."""
    if target == 0:
        return None
    if target <= space.spaces:
        return board.spaces[target - 1]
    return board.terminals[target - space.spaces - 1]


def _build_buy(space: ActionSpace, board: Board, many: Fields) -> list[Action]:
    return [{"type": "buy", "item": space.items[f[0]]} for f in many]


def _build_pass(space: ActionSpace, board: Board, many: Fields) -> list[Action]:
    return [{"type": "pass"} for _ in many]


_BUILD: dict[str, Callable[[ActionSpace, Board, Fields], list[Action]]] = {
    "admit": _build_admit,
    "reject": _build_reject,
    "diagnose": _build_diagnose,
    "heal": _build_heal,
    "treat": _build_treat,
    "helicopter": _build_helicopter,
    "buy": _build_buy,
    "pass": _build_pass,
}


def decode(space: ActionSpace, board: Board, action_id: int) -> Action:
    """The action (dict form) an id stands for on ``board``. Raises :class:`IllegalActionError`
    when the id refers to a pending card, space or terminal patient the board does not have;
    legality itself is checked by ``Game.apply``."""
    block, f = space.split(action_id)
    missing = _missing(space, board, block, f)
    if missing is not None:
        raise IllegalActionError(f"action {int(action_id)} ({space.describe(action_id)}): {missing}")
    return _BUILD[block](space, board, (f,))[0]


def _missing(space: ActionSpace, board: Board, block: str, f: tuple[int, ...]) -> str | None:
    """What an id's fields name that ``board`` does not have, or None."""
    if block in ("admit", "reject") and f[0] >= len(board.pending):
        return f"there is no pending patient #{f[0] + 1} (A4)"
    if block in ("diagnose", "heal") and _card_at(board.spaces, f[0]) is None:
        return f"space {f[0] + 1} holds no patient (T1, T2)"
    if block == "treat" and f[0] >= len(board.terminals):
        return f"there is no terminal patient #{f[0] + 1} (T5)"
    if block == "helicopter" and 0 < f[0] <= space.spaces and _card_at(board.spaces, f[0] - 1) is None:
        return f"space {f[0]} holds no patient (T7)"
    if block == "helicopter" and f[0] - space.spaces - 1 >= len(board.terminals):
        return f"there is no terminal patient #{f[0] - space.spaces} (T7)"
    if block == "diagnose" and f[1] + f[2] > board.diagnosis[board.spaces[f[0]]]:  # type: ignore[index]
        cost = board.diagnosis[board.spaces[f[0]]]  # type: ignore[index]
        return f"staff and congress pay {f[1] + f[2]}, more than the cost {cost} (T6)"
    return None


def _card_at(spaces: Sequence[str | None], number: int) -> str | None:
    return spaces[number] if number < len(spaces) else None


def encode(space: ActionSpace, board: Board, action: Action | Mapping[str, Any]) -> int:
    """The id of an action (dict form) on ``board``. A missing ``pay`` means T6's default mix
    (:func:`default_mix`). Raises :class:`EncodingError` when the action names a card the
    board does not hold there, or that the index cannot express."""
    kind = action.get("type") if isinstance(action, dict) else None
    fields = _fields(space, board, action, kind)
    number = space.id_of.get((kind, fields))  # type: ignore[arg-type]
    return number if number is not None else space.index(kind, *fields)  # type: ignore[arg-type]


def _fields(space: ActionSpace, board: Board, action: Mapping[str, Any], kind: Any) -> tuple[int, ...]:
    """The field values of an action's block (see the module doc), from the board's slots."""
    if kind in PAID:
        return _paid_fields(board, action, kind)
    if kind == "admit" or kind == "reject":
        pending = _position(board.pending, action.get("card"), "pending patient")
        if kind == "reject":
            return (pending,)
        number = action.get("space")
        if not isinstance(number, int) or isinstance(number, bool):
            raise EncodingError(f"admit needs a whole-number space, got {number!r}")
        return (pending, number - 1)
    if kind == "helicopter":
        remove = action.get("remove")
        if remove is None:
            target = 0
        elif remove in board.spaces:
            target = board.spaces.index(remove) + 1
        else:
            target = 1 + space.spaces + _position(board.terminals, remove, "patient (space or terminal)")
        return (target, int(bool(action.get("draw_all", False))))
    if kind == "buy":
        item = action.get("item")
        if item not in space.items:
            raise EncodingError(f"unknown market item {item!r} (items: {', '.join(space.items)})")
        return (space.items.index(item),)
    if kind == "pass":
        return (0,)
    raise EncodingError(f"unknown action type {kind!r} (known: {', '.join(BLOCKS)})")


def _paid_fields(board: Board, action: Mapping[str, Any], kind: str) -> tuple[int, ...]:
    """The fields of a diagnosis, heal or treatment: its target and its Staff and Congress."""
    patient = action.get("patient")
    cost: Any = 1
    if kind == "treat":
        target = _position(board.terminals, patient, "terminal patient")
    else:
        target = _position(board.spaces, patient, "patient in a hospital space")
        cost = board.diagnosis[patient] if kind == "diagnose" else action.get("amount")  # type: ignore[index]
        if not isinstance(cost, int) or isinstance(cost, bool) or (kind == "heal" and cost < 1):
            raise EncodingError(f"heal needs a whole-number amount of at least 1, got {cost!r}")
    pay = action.get("pay")
    if pay is None:
        means = board.means
        mix = default_mix(cost, means[kind != "diagnose"], means[2], means[3]) or (cost, 0, 0)
        staff, congress = mix[1], mix[2]
    elif isinstance(pay, dict):
        staff, congress = pay.get("staff", 0), pay.get("congress", 0)
    else:
        raise EncodingError(f"'pay' must be an object of tokens, staff and congress, got {pay!r}")
    if kind == "treat":
        if staff + congress > 1 or (pay is not None and sum(pay.values()) != 1):
            raise EncodingError(f"treat must be paid by one unit of one kind, got {pay!r}")
        return (target, 1 if staff else 2 if congress else 0)
    if kind == "diagnose":
        return (target, staff, congress)
    return (target, cost - 1, staff, congress)


def _position(items: Sequence[Any], card: Any, what: str) -> int:
    if card is None or card not in items:
        raise EncodingError(f"{card!r} is not a {what} of the acting seat")
    return items.index(card)


def id_to_action(game: Game, action_id: int, seat: int | None = None) -> Action:
    """The action (dict form, as ``legal_actions`` lists it) an id stands for in this position,
    for ``seat`` (default: the player to decide): :func:`decode` on the seat's board."""
    space = action_space(game)
    if seat is None:
        seat = game.turn
    if seat is None:
        space.split(action_id)  # an id outside the index is refused for that first
        raise IllegalActionError(
            f"action {action_id} ({space.describe(action_id)}): no player is to decide (R4)"
        )
    return decode(space, board_of(game, seat), action_id)


def action_to_id(game: Game, action: Action | Mapping[str, Any], seat: int | None = None) -> int:
    """The id of an action (dict form) for ``seat`` (default: the player to decide):
    :func:`encode` on the seat's board."""
    if seat is None:
        seat = game.turn
    if seat is None:
        raise EncodingError("no player is to decide (R4)")
    plan = game.machinery.plan
    if plan is None or not plan.fixed:
        plan = plan_of(game)
    if action.__class__ is dict and action.get("type") in _PENDING_ONLY:
        return encode(plan.space, _pending_board(game.players[seat].pending), action)
    return encode(plan.space, board_of(game, seat), action)


#: The blocks whose actions name no hospital or terminal patient: the pending cards are all of
#: the board they need (playouts translate many of them).
_PENDING_ONLY: frozenset[str] = frozenset({"admit", "reject", "buy", "pass"})
