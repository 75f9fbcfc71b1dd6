"""The game's vocabulary, declared once: the card kinds, the supplies a player holds, and what a
market item is.

Every layer that lists card kinds or market items, names them to a player or asks what one of
them is (a kind's front, priority, when it dies, whether its healing is printed; what an item
gives) reads these records: configuration validation, the player's board, views, determinize,
the text pictures and help, the observation layout, the simulator's columns, the web's schemas
and limits, the page and the terminal game. A card kind is a rule of the game (rules.md K1, K2,
C1, C2, T3), so its records live here in code; a market item is data (T8): the configuration
declares each one with its price, limit and what it gives, and :class:`MarketItem` is its
validated form, so that a designer adds an item in TOML alone.

>>> KIND["severe"].front, KIND["severe"].priority, KIND["severe"].dies_at
('standard', 2, 2)
>>> [kind.name for kind in KINDS if kind.front == "standard"]
['severe', 'chronic', 'non_severe']
>>> SUPPLY["helicopters"].count(2)
'2 Helicopters'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from triage.engine.shapes import KindWords, MarketItemFile

# ---------------------------------------------------------------------- card kinds (K1, K2)


@dataclass(frozen=True, slots=True)
class CardKind:
    """One kind of patient card and the rules that hang on its kind alone."""

    #: The name cards, configuration and scenario files use (K2).
    name: str
    #: The front it shows (K2): its own name for critical and terminal cards, else "standard".
    front: str
    #: K1: 1 critical to 4 non-severe; None for a terminal card.
    priority: int | None
    #: T3: whether the healing difficulty is printed (chronic: its Time; terminal: T5's unit).
    printed_healing: bool
    #: C2: the Time at which a patient of this kind dies at Cleanup; None: it never dies.
    dies_at: int | None
    #: C1: whether a revealed patient of this kind still receives Time (non-severe: no).
    takes_time_revealed: bool
    #: A3, T5: whether it waits beside the board (no space), treated each round and never cured.
    beside: bool
    #: What a player reads: a word for the kind, a short tag for text pictures, one line of help.
    label: str
    short: str
    help: str

    @property
    def standard(self) -> bool:
        """Whether it hides behind the standard front until diagnosed (K2)."""
        return self.front == STANDARD_FRONT


STANDARD_FRONT = "standard"

KINDS: tuple[CardKind, ...] = (
    CardKind(
        "critical",
        front="critical",
        priority=1,
        printed_healing=True,
        dies_at=1,
        takes_time_revealed=True,
        beside=False,
        label="critical",
        short="CRIT",
        help="recognised on arrival; dies at the first Cleanup unless cured",
    ),
    CardKind(
        "severe",
        front=STANDARD_FRONT,
        priority=2,
        printed_healing=True,
        dies_at=2,
        takes_time_revealed=True,
        beside=False,
        label="severe",
        short="SEV",
        help="dies at the Cleanup that gives it its second Time, diagnosed or not",
    ),
    CardKind(
        "chronic",
        front=STANDARD_FRONT,
        priority=3,
        printed_healing=False,
        dies_at=None,
        takes_time_revealed=True,
        beside=False,
        label="chronic",
        short="CHR",
        help="never dies; needs as much healing as it has Time",
    ),
    CardKind(
        "non_severe",
        front=STANDARD_FRONT,
        priority=4,
        printed_healing=True,
        dies_at=None,
        takes_time_revealed=False,
        beside=False,
        label="non-severe",
        short="NON",
        help="never dies; once diagnosed it takes no more Time",
    ),
    CardKind(
        "terminal",
        front="terminal",
        priority=None,
        printed_healing=False,
        dies_at=1,
        takes_time_revealed=True,
        beside=True,
        label="terminal",
        short="TERM",
        help="takes no space; pays its reward each round it is treated, dies at a Cleanup without",
    ),
)
#: The kinds by name, and their names in order.
KIND: Mapping[str, CardKind] = {kind.name: kind for kind in KINDS}
KIND_NAMES: tuple[str, ...] = tuple(KIND)
#: Each kind's front (K2) and the Time its patient dies at (C2, None: never), by name: what the
#: rules read of a card's kind at every draw, admission and Cleanup, as plain lookups.
FRONT_OF: Mapping[str, str] = {kind.name: kind.front for kind in KINDS}
DIES_AT: Mapping[str, int | None] = {kind.name: kind.dies_at for kind in KINDS}
#: The names of the kinds behind the standard front (K2), in priority order.
STANDARD_KINDS: tuple[str, ...] = tuple(kind.name for kind in KINDS if kind.standard)
#: What a view says of each kind for players (labels and help, K2), the same in every view.
KIND_WORDS: dict[str, KindWords] = {
    kind.name: {
        "label": kind.label,
        "short": kind.short,
        "help": kind.help,
        "front": kind.front,
        "priority": kind.priority,
        "printed_healing": kind.printed_healing,
        "beside": kind.beside,
    }
    for kind in KINDS
}
#: The fronts a card may show (K2), the standard one first.
FRONTS: tuple[str, ...] = (STANDARD_FRONT, *(kind.front for kind in KINDS if not kind.standard))


# ---------------------------------------------------------------------- supplies (K4, T8)


@dataclass(frozen=True, slots=True)
class Supply:
    """A supply a market item may give (T8): a player's counter of K4, or hospital spaces."""

    #: The name ``gives`` tables use (scenario-format.md, ``market``).
    name: str
    #: The player's counter it adds to (``spaces``: the hospital grows by a space, K4).
    counter: str
    #: A player's words for one of it and for several.
    label: str
    plural: str
    help: str

    def count(self, amount: int) -> str:
        """``amount`` of it in words: "1 Helicopter", "2 Helicopters"."""
        return f"{amount} {self.label if amount == 1 else self.plural}"


SUPPLIES: tuple[Supply, ...] = (
    Supply(
        "diagnostics",
        "diagnostics",
        "Diagnostics token",
        "Diagnostics tokens",
        "pays 1 unit of a diagnosis (T1)",
    ),
    Supply(
        "healing",
        "healing",
        "Healing token",
        "Healing tokens",
        "places 1 healing or treats a terminal patient once (T2, T5)",
    ),
    Supply(
        "congress", "congress", "Congress Doctor", "Congress Doctors", "pays 1 unit of any cost, once (T6)"
    ),
    Supply(
        "helicopters",
        "helicopters",
        "Helicopter",
        "Helicopters",
        "removes a patient and/or makes every player draw one (T7)",
    ),
    Supply("staff", "staff", "Staff", "Staff", "pays 1 unit of any cost every round, available at once (T6)"),
    Supply(
        "spaces", "spaces", "hospital space", "hospital spaces", "one more hospital space, numbered on (K4)"
    ),
)
#: The supplies by name.
SUPPLY: Mapping[str, Supply] = {supply.name: supply for supply in SUPPLIES}
#: The supplies a player spends on the costs of patients (T6) and buys again: a limit on an item
#: that counts one of these held does not bound its purchases.
SPENT_SUPPLIES: frozenset[str] = frozenset({"diagnostics", "healing", "congress", "helicopters"})


# ---------------------------------------------------------------------- market items (T8)


@dataclass(frozen=True, slots=True)
class MarketItem:
    """One market item as the configuration declares it (T8).

    >>> item = MarketItem("night_shift", price=1, limit=2, gives=(("healing", 2),))
    >>> item.label, item.gives_of("healing"), item.holding
    ('Night shift', 2, None)
    >>> MarketItem("staff", 6, None, (("staff", 1),)).holding
    'staff'
    >>> staff = MarketItem("staff", 4, None, (("staff", 1),), prices=((1, 6), (2, 6), (3, 6), (4, 4)))
    >>> staff.for_players(4).price, staff.for_players(2).price, staff.to_dict()["price"]
    (4, 6, {'1': 6, '2': 6, '3': 6, '4': 4})
    """

    name: str
    #: Its price in Credits; with :attr:`prices`, the lowest of them (a game's own item,
    #: :meth:`for_players`, holds its count's).
    price: int
    #: The most of it a player may own (None: no limit); what is counted: :attr:`holding`.
    limit: int | None
    #: What one purchase adds, supply by supply (:data:`SUPPLIES`), in declared order.
    gives: tuple[tuple[str, int], ...]
    label: str = ""
    help: str = ""
    #: What its limit counts: for an item that gives one unit of one counter (a token, a
    #: Congress Doctor, a Helicopter, a Staff), what the player holds of that counter; for any
    #: other item (spaces, several supplies, several units: a Clinical Trial, a designer's item),
    #: None: the player's purchases of the item itself (``PlayerState.items``).
    holding: str | None = field(init=False, compare=False)
    #: T8: (player count, price) for every count 1-4, where the prices differ by count; empty
    #: when every count pays :attr:`price`.
    prices: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name.replace("_", " ").capitalize())
        if not self.help:
            object.__setattr__(self, "help", gives_text(self.gives))
        object.__setattr__(self, "holding", holding_of(dict(self.gives)))

    def gives_of(self, supply: str) -> int:
        """How much of ``supply`` one purchase adds."""
        for name, amount in self.gives:
            if name == supply:
                return amount
        return 0

    def for_players(self, players: int) -> MarketItem:
        """The item as a game of ``players`` sells it: its count's price (T8)."""
        if not self.prices:
            return self
        return replace(self, price=dict(self.prices)[players], prices=())

    def to_dict(self) -> MarketItemFile:
        """The item in the configuration file's shape (the price a table by player count where
        the prices differ)."""
        return {
            "price": {str(count): price for count, price in self.prices} if self.prices else self.price,
            "limit": self.limit,
            "gives": dict(self.gives),
            "label": self.label,
            "help": self.help,
        }


def holding_of(gives: Mapping[str, int]) -> str | None:
    """:attr:`MarketItem.holding` of an item that gives ``gives`` (also read from a view's
    configuration, where items are plain data)."""
    if len(gives) == 1:
        ((supply, amount),) = gives.items()
        if amount == 1 and supply != "spaces":
            return SUPPLY[supply].counter
    return None


def gives_text(gives: tuple[tuple[str, int], ...]) -> str:
    """What an item gives, in a player's words.

    >>> gives_text((("healing", 2), ("spaces", 1)))
    '2 Healing tokens, 1 hospital space'
    """
    return ", ".join(SUPPLY[name].count(amount) for name, amount in gives)


#: scenario-format.md section 3: the state's own names for the purchases of two default items
#: (K4's Outpatient Clinics and Clinical Trials); every counted item is also in ``items``.
ITEM_COUNT_FIELDS: tuple[tuple[str, str], ...] = (
    ("outpatient_clinics", "outpatient_clinic"),
    ("clinical_trials", "clinical_trial"),
)


def counted_items(market: Mapping[str, MarketItem] | Mapping[str, Mapping[str, object]]) -> tuple[str, ...]:
    """The items whose purchases a player's board counts (:attr:`MarketItem.holding` None), in
    market order: what a state's and a view's ``items`` list. ``market`` is the configuration's,
    or a view's plain copy of it."""
    names = []
    for name, item in market.items():
        holding = item.holding if isinstance(item, MarketItem) else holding_of(item["gives"])  # type: ignore[arg-type]
        if holding is None:
            names.append(name)
    return tuple(names)
