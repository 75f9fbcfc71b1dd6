"""The game configuration: every [O] value of rules.md, read from TOML and validated.

The defaults live in ``triage/data/config/default.toml``; a configuration file or a scenario's
``config`` holds overrides merged key by key into them.
"""

from __future__ import annotations

import copy
import tomllib
from fractions import Fraction
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from triage.engine.cards import CardSpec
from triage.engine.errors import DataError
from triage.engine.files import read_toml
from triage.engine.shapes import ConfigFile
from triage.engine.vocabulary import SPENT_SUPPLIES, SUPPLY, SUPPLIES, MarketItem

#: A table of a configuration file (or of ``--set`` overrides) as TOML reads it, before
#: validation: open by nature, its keys and values are what :func:`_validate` checks.
TomlTable = dict[str, Any]

RETURN_TO: tuple[str, ...] = ("top", "bottom", "discard")
#: V1: the cases ``return_to`` may name one by one (a missing case takes ``top``).
RETURN_CASES: tuple[str, ...] = ("cured", "died", "rejected")
#: V2: what a passed player may do with a patient a Helicopter made it draw.
HELICOPTER_DRAWS: tuple[str, ...] = ("wait", "reopen")
#: R1: who goes first in the last round: the seat the rotation gives, or the seat after the
#: trailing player, so that the player behind acts last.
FINAL_ROUND_ORDER: tuple[str, ...] = ("rotate", "trailing_last")
#: V3: whether a treated terminal patient left untreated later gets Time again.
TERMINAL_UPKEEP: tuple[str, ...] = ("death", "reward")
START_FIELDS: tuple[str, ...] = (
    "quality",
    "vp",
    "credits",
    "diagnostics",
    "healing",
    "staff",
    "congress",
    "helicopters",
)


@dataclass(frozen=True, slots=True)
class Config:
    """A validated configuration. Build one with :func:`make_config` or :func:`load_config`."""

    #: R1: rounds in a game; with :attr:`rounds_by_players`, the most any player count plays (a
    #: dealt game's configuration, :meth:`for_players`, holds its own count's).
    rounds: int
    arrivals: int
    end_on_zero_quality: bool
    #: V1 as configured: one place for every case, or a table per case.
    return_to: str | Mapping[str, str]
    income_diagnostics: int
    income_healing: int
    start: Mapping[str, int]
    market: Mapping[str, MarketItem]
    helicopter_draws: str = "wait"
    terminal_upkeep: str = "death"
    quality_floor: int | None = None
    #: R1: the last round's first player (:data:`FINAL_ROUND_ORDER`).
    final_round_order: str = "rotate"
    #: Solo score tiers (R4 solo), best first: (name, lowest score that earns it).
    solo_tiers: tuple[tuple[str, int], ...] = ()
    #: R1, R3: Credits each seat starts with on top of ``start.credits``, by player count (2-4),
    #: to make up for the seat order (:meth:`start_credits`).
    seat_credits: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    #: R1, R3: VP each seat starts with on top of ``start.vp``, by player count (2-4), the same
    #: shape (:meth:`start_vp`): a compensation worth the same to every kind of play.
    seat_vp: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    #: R1: rounds by player count (1-4), where they differ; empty when every count plays
    #: :attr:`rounds`.
    rounds_by_players: Mapping[int, int] = field(default_factory=dict)
    #: What other modules work out from this configuration once (per deck list, for example
    #: the integer action plan or a view's fixed parts): caches hang on what they describe.
    derived: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled without :attr:`derived`: what was worked out is rebuilt where it is needed."""
        return type(self), tuple(getattr(self, name) for name in _CONFIG_FIELDS)

    def for_players(self, players: int) -> Config:
        """The configuration of a game of ``players``: its own count's :attr:`rounds` (R1) and
        market prices (T8). Every game holds this one (:class:`~triage.engine.position.Position`),
        so its view, record and rules read one number of rounds and one price an item. Counts
        that play as many rounds at the same prices share one object, and with it what is worked
        out on it (the action plans of a shared deck).

        >>> config = make_config({"rounds": {"4": 8}})
        >>> config.rounds, config.for_players(4).rounds, config.for_players(2).rounds
        (8, 8, 6)
        >>> config.for_players(2).to_dict()["rounds"], config.for_players(2) is config.for_players(3)
        (6, True)
        >>> config = make_config({"market": {"staff": {"price": {"4": 4}}}})
        >>> config.for_players(4).market["staff"].price, config.for_players(3).market["staff"].price
        (4, 6)
        """
        if not self.rounds_by_players and not self.priced_by_players:
            return self
        rounds = self.rounds_by_players.get(players, self.rounds)
        priced = self.priced_by_players  # most configurations: one price an item, one market
        prices = tuple(item.for_players(players).price for item in self.market.values()) if priced else ()
        key = ("rounds", rounds, prices)
        known: Config | None = self.derived.get(key)
        if known is None:
            market = {name: item.for_players(players) for name, item in self.market.items()}
            known = self.derived[key] = replace(self, rounds=rounds, rounds_by_players={}, market=market)
        return known

    @property
    def priced_by_players(self) -> bool:
        """Whether some market item's price differs by player count (T8)."""
        return any(item.prices for item in self.market.values())

    def return_place(self, case: str) -> str:
        """V1: where a ``cured``, ``died`` or ``rejected`` patient goes.

        >>> make_config({"return_to": {"cured": "bottom"}}).return_place("died")
        'top'
        """
        if isinstance(self.return_to, str):
            return self.return_to
        return self.return_to.get(case, "top")

    def start_credits(self, players: int, seat: int) -> int:
        """R1, R3: the Credits ``seat`` starts with in a game of ``players``: ``start.credits``
        plus that seat's ``seat_credits``, which make up for the order of play.

        >>> config = make_config({"seat_credits": {"3": [0, 0, 2]}})
        >>> [config.start_credits(3, seat) for seat in range(3)], config.start_credits(2, 1)
        ([0, 0, 2], 0)
        """
        return _seat_start(self.start["credits"], self.seat_credits, players, seat)

    def start_vp(self, players: int, seat: int) -> int:
        """R1, R3: the VP ``seat`` starts with in a game of ``players``: ``start.vp`` plus that
        seat's ``seat_vp``.

        >>> make_config({"seat_vp": {"4": [0, 1, 0, 0]}}).start_vp(4, 1)
        1
        """
        return _seat_start(self.start["vp"], self.seat_vp, players, seat)

    @property
    def uses_discard(self) -> bool:
        """Whether any case goes to the V1 discard pile."""
        return any(self.return_place(case) == "discard" for case in RETURN_CASES)

    def to_dict(self) -> ConfigFile:
        """The configuration in the file's shape (``limit`` None where there is none)."""
        return {
            "rounds": (
                {str(count): rounds for count, rounds in sorted(self.rounds_by_players.items())}
                if self.rounds_by_players
                else self.rounds
            ),
            "arrivals": self.arrivals,
            "end_on_zero_quality": self.end_on_zero_quality,
            "return_to": self.return_to if isinstance(self.return_to, str) else dict(self.return_to),
            "helicopter_draws": self.helicopter_draws,
            "terminal_upkeep": self.terminal_upkeep,
            "quality_floor": self.quality_floor,
            "final_round_order": self.final_round_order,
            "income": {"diagnostics": self.income_diagnostics, "healing": self.income_healing},
            "start": dict(self.start),
            "market": {name: item.to_dict() for name, item in self.market.items()},
            "solo": {"tiers": [{"name": name, "score": score} for name, score in self.solo_tiers]},
            "seat_credits": {str(count): list(credits) for count, credits in self.seat_credits.items()},
            "seat_vp": {str(count): list(vp) for count, vp in self.seat_vp.items()},
        }


def _seat_start(start: int, table: Mapping[int, tuple[int, ...]], players: int, seat: int) -> int:
    """R1, R3: ``start`` plus ``seat``'s entry of a per-seat table (``seat_credits``,
    ``seat_vp``) for ``players``, where the table has a list for that count."""
    extra = table.get(players)
    return start + (extra[seat] if extra else 0)


#: The fields that make a configuration (every one but the ``derived`` cache), in order.
_CONFIG_FIELDS: tuple[str, ...] = tuple(item.name for item in fields(Config) if item.name != "derived")


def default_config_path() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "config" / "default.toml"


def config_names() -> list[str]:
    """The built-in configurations by name (``default``, ``mini`` ...): the files under
    ``data/config``."""
    return sorted(path.stem for path in default_config_path().parent.glob("*.toml"))


def named_config_path(name: str) -> Path:
    """The file of the built-in configuration ``name``; any other name is an error naming them."""
    if name not in config_names():
        raise DataError(
            f"unknown configuration {name!r} (built-in: {', '.join(config_names())}; or a configuration file)"
        )
    return default_config_path().parent / f"{name}.toml"


def load_named_config(name: str, overrides: Mapping[str, Any] | None = None) -> Config:
    """A built-in configuration by name (the defaults, then its file, then ``overrides``).

    >>> load_named_config("mini").rounds
    1
    """
    return load_config(named_config_path(name), overrides)


_DEFAULTS: TomlTable | None = None


def default_values() -> TomlTable:
    """The default configuration as plain data (a fresh copy each call)."""
    global _DEFAULTS
    if _DEFAULTS is None:
        _DEFAULTS = _read_toml(default_config_path())
        for item in _DEFAULTS.get("market", {}).values():
            item.setdefault("limit", None)
        # TOML has no null: an absent quality_floor means none (V4).
        _DEFAULTS.setdefault("quality_floor", None)
    return copy.deepcopy(_DEFAULTS)


def _read_toml(path: Path) -> TomlTable:
    data: TomlTable = read_toml(path, "configuration file")
    return data


def merge(base: TomlTable, overrides: Mapping[str, Any], source: str, path: str = "") -> None:
    """Merge ``overrides`` into ``base`` key by key, refusing keys the configuration lacks."""
    if not isinstance(overrides, Mapping):
        raise DataError(f"{source}: {path or 'configuration'} must be a table, got {overrides!r}")
    for key, value in overrides.items():
        where = f"{path}.{key}" if path else str(key)
        if key not in base and path == "market":
            # T8: a designer's own item (checked whole by _market_item).
            base[key] = {"limit": None, **value} if isinstance(value, Mapping) else value
            continue
        if key not in base and path.count(".") == 1 and path.startswith("market.") and key in ITEM_KEYS:
            base[key] = value  # a key of a designer's item given on its own (--set)
            continue
        if key not in base:
            known = ", ".join(sorted(base))
            raise DataError(f"{source}: unknown configuration key {where!r} (known here: {known})")
        if key in BY_PLAYERS_KEYS and isinstance(value, Mapping) and not isinstance(base[key], dict):
            # R1, T8: a table of some counts over one number keeps that number for the others.
            base[key] = {str(count): base[key] for count in PLAYER_COUNTS}
        if isinstance(base[key], dict) and path.startswith("market") and key == "gives":
            base[key] = value  # T8: what an item gives is replaced whole, never merged
        elif isinstance(base[key], dict) and not (key in EITHER_KEYS and not isinstance(value, Mapping)):
            merge(base[key], value, source, where)
        else:
            base[key] = value


def _whole(value: Any, where: str, source: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise DataError(f"{source}: {where} must be a whole number >= {minimum}, got {value!r}")
    return value


def make_config(overrides: Mapping[str, Any] | None = None, source: str = "config") -> Config:
    """Defaults merged with ``overrides``, validated.

    >>> make_config({"rounds": 3}).rounds
    3
    >>> make_config({"return_to": "sideways"})
    Traceback (most recent call last):
    ...
    triage.engine.errors.DataError: config: return_to must be one of top, bottom, discard (V1), got 'sideways'
    """
    values = default_values()
    if overrides:
        # A limit may be set to None (no limit); merge sees the key in the defaults.
        merge(values, overrides, source)
    return _validate(values, source)


def _validate(values: TomlTable, source: str) -> Config:
    rounds_by_players = _by_players(values["rounds"], "rounds", "R1", source, 1)
    rounds = max(rounds_by_players.values())
    if len(set(rounds_by_players.values())) == 1:
        rounds_by_players = {}
    arrivals = _whole(values["arrivals"], "arrivals", source, 0)
    end_on_zero = values["end_on_zero_quality"]
    if not isinstance(end_on_zero, bool):
        raise DataError(f"{source}: end_on_zero_quality must be true or false, got {end_on_zero!r}")
    return_to = _return_to(values["return_to"], source)
    helicopter_draws = _choice(values["helicopter_draws"], "helicopter_draws", HELICOPTER_DRAWS, "V2", source)
    terminal_upkeep = _choice(values["terminal_upkeep"], "terminal_upkeep", TERMINAL_UPKEEP, "V3", source)
    final_round_order = _choice(
        values["final_round_order"], "final_round_order", FINAL_ROUND_ORDER, "R1", source
    )
    quality_floor = values["quality_floor"]
    if quality_floor is not None:
        quality_floor = _whole(quality_floor, "quality_floor (V4)", source, -1000)
    income = values["income"]
    start = {name: _whole(values["start"][name], f"start.{name}", source) for name in START_FIELDS}
    market = _market(values["market"], source)
    _refuse_unbounded_rounds(market, source)
    return Config(
        rounds=rounds,
        arrivals=arrivals,
        end_on_zero_quality=end_on_zero,
        return_to=return_to,
        helicopter_draws=helicopter_draws,
        terminal_upkeep=terminal_upkeep,
        quality_floor=quality_floor,
        final_round_order=final_round_order,
        solo_tiers=_solo_tiers(values["solo"], source),
        seat_credits=_seat_table(values["seat_credits"], "seat_credits", "Credits", source),
        seat_vp=_seat_table(values["seat_vp"], "seat_vp", "VP", source),
        rounds_by_players=rounds_by_players,
        income_diagnostics=_whole(income["diagnostics"], "income.diagnostics", source),
        income_healing=_whole(income["healing"], "income.healing", source),
        start=start,
        market=market,
    )


#: The keys a market item's table may hold (T8).
ITEM_KEYS: tuple[str, ...] = ("price", "limit", "gives", "label", "help")
#: The longest label and help text of an item (what the page and the terminal show).
MAX_LABEL, MAX_HELP = 40, 200


def _market(table: Any, source: str) -> dict[str, MarketItem]:
    """T8: every item of the market, in declared order (the defaults' items first)."""
    if not isinstance(table, Mapping):
        raise DataError(f"{source}: market must be a table of items, got {table!r}")
    return {str(name): _market_item(str(name), raw, source) for name, raw in table.items()}


def _market_item(name: str, raw: Any, source: str) -> MarketItem:
    """One item's table: a price, an optional limit, what it gives, and its words for players.

    >>> _market_item("night_shift", {"price": 1, "gives": {"healing": 2}}, "config").label
    'Night shift'
    >>> _market_item("night_shift", {"price": 1, "gives": {"sleep": 2}}, "config")
    Traceback (most recent call last):
    ...
    triage.engine.errors.DataError: config: market.night_shift.gives has no supply 'sleep' (supplies: diagnostics, healing, congress, helicopters, staff, spaces) (T8)
    """
    where = f"market.{name}"
    if not name.isidentifier() or not name.islower() or name.startswith("_"):
        raise DataError(
            f"{source}: {where}: an item's name must be lower-case letters, digits and '_' (T8), got {name!r}"
        )
    if not isinstance(raw, Mapping):
        raise DataError(f"{source}: {where} must be a table (price, limit, gives), got {raw!r}")
    unknown = [key for key in raw if key not in ITEM_KEYS]
    if unknown:
        raise DataError(f"{source}: {where} has no key {unknown[0]!r} (keys: {', '.join(ITEM_KEYS)})")
    for key in ("price", "gives"):
        if key not in raw:
            raise DataError(
                f"{source}: {where} needs '{key}' (an item names its price and what it gives, T8)"
            )
    limit = raw.get("limit")
    prices = _by_players(raw["price"], f"{where}.price", "T8", source, 0)
    return MarketItem(
        name,
        price=min(prices.values()),
        prices=tuple(sorted(prices.items())) if len(set(prices.values())) > 1 else (),
        limit=None if limit is None else _whole(limit, f"{where}.limit", source),
        gives=_gives(raw["gives"], where, source),
        label=_words(raw.get("label", ""), f"{where}.label", MAX_LABEL, source),
        help=_words(raw.get("help", ""), f"{where}.help", MAX_HELP, source),
    )


def _gives(table: Any, where: str, source: str) -> tuple[tuple[str, int], ...]:
    """T8: what one purchase adds: a non-empty table of supplies, each a whole number >= 1."""
    supplies = ", ".join(supply.name for supply in SUPPLIES)
    if not isinstance(table, Mapping) or not table:
        raise DataError(f"{source}: {where}.gives must be a table of supplies ({supplies}), got {table!r}")
    gives = []
    for supply, amount in table.items():
        if supply not in SUPPLY:
            raise DataError(f"{source}: {where}.gives has no supply {supply!r} (supplies: {supplies}) (T8)")
        gives.append((str(supply), _whole(amount, f"{where}.gives.{supply}", source, 1)))
    return tuple(gives)


def _words(value: Any, where: str, longest: int, source: str) -> str:
    """A label or help text: plain text on one line, at most ``longest`` characters."""
    if not isinstance(value, str) or len(value) > longest or not value.isprintable():
        raise DataError(
            f"{source}: {where} must be text of at most {longest} characters on one line, got {value!r}"
        )
    return value.strip()


def _refuse_unbounded_rounds(market: Mapping[str, MarketItem], source: str) -> None:
    """T7, T8: refuse a market that lets one Treatment turn go on without end.

    A purchase changes nothing but the buyer's Credits and holdings, so buying can repeat without
    bound only where it costs nothing (price 0) and nothing stops it. A limit stops it where what
    it counts only grows: Staff, spaces, and the purchases of an item (K4, :attr:`MarketItem.holding`).
    Tokens and Congress Doctors are spent only on the costs of patients (T1, T2, T5), and patients
    arrive during Treatment only by Helicopter (T7): free ones under a limit stay bounded as long
    as flights do. A flight needs no patient and no token, so a free item that gives Helicopters
    and whose limit counts the Helicopters held can be bought back after every flight: its limit
    does not bound it (a limit of 0 takes it off the market). Flights that pay for themselves
    through the deck's rewards are a matter of the deck as well (:func:`flight_profit_problem`).
    """
    for name, item in market.items():
        if item.price > 0:
            continue
        if item.limit is None:
            raise DataError(
                f"{source}: market.{name}: price 0 with no limit lets a round go on forever (T8): "
                "give it a price of at least 1 or a limit"
            )
        if item.gives_of("helicopters") and rebuyable(item):
            raise DataError(
                f"{source}: market.{name}: price 0 lets a player buy a Helicopter back after every "
                "flight, so a round can go on forever whatever the limit (T7, T8): give it a price of "
                "at least 1, or a limit of 0 to take it off the market"
            )


def rebuyable(item: MarketItem) -> bool:
    """T8: whether a player can buy ``item`` again and again within a round: it has no limit,
    or its limit counts a supply that play spends (tokens, Congress Doctors, Helicopters), not
    one that only grows (Staff, spaces, the item's own purchases). A limit of 0 takes it off
    the market."""
    if item.limit is None:
        return True
    return item.limit > 0 and item.holding in SPENT_SUPPLIES


#: T6: the supplies that pay a unit of each cost (Staff only where it can be bought again).
UNIT_SOURCES: dict[str, tuple[str, ...]] = {
    "diagnostics": ("diagnostics", "congress", "staff"),
    "healing": ("healing", "congress", "staff"),
}


#: The supplies that pay a unit of some cost (T6).
PAYING_SUPPLIES: frozenset[str] = frozenset(supply for sources in UNIT_SOURCES.values() for supply in sources)


def unit_price(market: Mapping[str, MarketItem], cost: str) -> Fraction | None:
    """The cheapest Credits that buy one more unit of a ``cost`` in the middle of a turn (T6,
    T8): an item bought again and again, its price shared by the units of that cost it gives;
    None when every source is a stock that runs out."""
    prices = []
    for item in market.values():
        units = sum(item.gives_of(supply) for supply in UNIT_SOURCES[cost])
        if units and rebuyable(item):
            prices.append(Fraction(item.price, units))
    return min(prices) if prices else None


def _cash_cost(card: CardSpec, diagnostics: Fraction | None, healing: Fraction | None) -> Fraction | None:
    """The Credits a freshly drawn ``card`` costs to turn into its reward at market prices
    (T1, T2, T4, T5; a chronic patient drawn now has no Time), None if the market cannot pay."""
    diagnosis = card.diagnosis or 0
    treatment = 1 if card.kind == "terminal" else card.healing or 0
    if (diagnosis and diagnostics is None) or (treatment and healing is None):
        return None
    return diagnosis * (diagnostics or Fraction(0)) + treatment * (healing or Fraction(0))


def best_flight_patient(config: Config, cards: Iterable[CardSpec]) -> tuple[Fraction, str] | None:
    """T4, T5, T8: the most Credits one patient a flight brings can yield once the market is
    paid for curing or treating it, with that card's id; None when the market can cure none."""
    diagnostics = unit_price(config.market, "diagnostics")
    healing = unit_price(config.market, "healing")
    best: tuple[Fraction, str] | None = None
    for card in cards:
        cost = _cash_cost(card, diagnostics, healing)
        if cost is not None and (best is None or card.credits - cost > best[0]):
            best = (card.credits - cost, card.id)
    return best


def flight_price(market: Mapping[str, MarketItem]) -> tuple[Fraction, str] | None:
    """T7, T8: the fewest Credits a bought flight costs, with the item that sells it: an item
    bought again and again that gives Helicopters, its price less what its other units of
    Diagnostics, Healing, Congress Doctors or Staff would cost at the market, shared by its
    Helicopters; None when no Helicopter can be bought again."""
    unit_costs = [unit_price(market, cost) for cost in UNIT_SOURCES]
    cheapest_unit = min((price for price in unit_costs if price is not None), default=Fraction(0))
    found: tuple[Fraction, str] | None = None
    for item in market.values():
        helicopters = item.gives_of("helicopters")
        if not helicopters or not rebuyable(item):
            continue
        units = sum(amount for supply, amount in item.gives if supply in PAYING_SUPPLIES)
        price = (item.price - units * cheapest_unit) / helicopters
        if found is None or price < found[0]:
            found = (price, item.name)
    return found


def flight_profit_problem(config: Config, cards: Iterable[CardSpec], players: int) -> str | None:
    """T7, T8: why this deck lets a Helicopter pay for itself in ``players``-player games, or
    None when every bought flight loses Credits.

    A flight makes every player draw one patient; whoever can still act may cure or treat it
    (T4, T5; V2 ``reopen`` lets even passed players act). When the rewards of the ``players``
    patients a flight brings, less what the market charges for curing them, reach the price of
    a flight (:func:`flight_price`), the Credits never run out and a round can go on forever.
    Otherwise each bought flight costs more Credits than it can bring, and the Credits, the
    tokens and Staff held and the patients already admitted are all finite within a round.
    """
    flight = flight_price(config.market)
    if flight is None:
        return None
    best = best_flight_patient(config, cards)
    if best is None or players * best[0] < flight[0]:
        return None
    item = config.market[flight[1]]
    return (
        f"card {best[1]} brings {_credits(best[0])} Credits more than the market charges to cure or "
        f"treat it: with {players} players drawing, a Helicopter from {item.label} at {item.price} Credits "
        f"pays for itself and a round can go on forever (T7, T8): raise market.{item.name}.price above "
        f"{_credits((players * best[0] - flight[0]) * item.gives_of('helicopters') + item.price)} "
        "or lower the card's credits"
    )


def _credits(amount: Fraction) -> str:
    """A number of Credits in a message: whole where it is, else to two places."""
    return str(amount.numerator) if amount.denominator == 1 else f"{float(amount):.2f}"


def check_bounded_rounds(
    config: Config, cards: Iterable[CardSpec], players: int, source: str = "game"
) -> None:
    """T7, T8: refuse a configuration and deck under which a round can go on forever.

    :func:`make_config` already refuses the markets that loop whatever the deck; what is left
    is a Helicopter whose flights pay for themselves through the deck's rewards
    (:func:`flight_profit_problem`). Every deal (``Game.new``, a record's replay, a table of
    the web service) and every scenario goes through here, so an accepted game always ends.
    """
    problem = flight_profit_problem(config.for_players(players), cards, players)
    if problem is not None:
        raise DataError(f"{source}: {problem}")


def _choice(value: Any, where: str, allowed: tuple[str, ...], rule: str, source: str) -> str:
    if value not in allowed:
        raise DataError(f"{source}: {where} must be one of {', '.join(allowed)} ({rule}), got {value!r}")
    return str(value)


def _return_to(value: Any, source: str) -> str | dict[str, str]:
    """V1: one place for every case, or a table naming cases (a missing case takes ``top``).

    >>> _return_to({"cured": "bottom"}, "config")
    {'cured': 'bottom'}
    >>> _return_to({"healed": "bottom"}, "config")
    Traceback (most recent call last):
    ...
    triage.engine.errors.DataError: config: return_to has no case 'healed' (cases: cured, died, rejected) (V1)
    """
    if not isinstance(value, Mapping):
        return _choice(value, "return_to", RETURN_TO, "V1", source)
    table = {}
    for case, place in value.items():
        if case not in RETURN_CASES:
            raise DataError(
                f"{source}: return_to has no case {case!r} (cases: {', '.join(RETURN_CASES)}) (V1)"
            )
        table[case] = _choice(place, f"return_to.{case}", RETURN_TO, "V1", source)
    return table


def _by_players(value: Any, where: str, rule: str, source: str, minimum: int) -> dict[int, int]:
    """One whole number for every player count, or a table by player count (1-4): R1's
    ``rounds``, T8's item prices.

    >>> _by_players({"1": 6, "2": 6, "3": 6, "4": 8}, "rounds", "R1", "config", 1)[4]
    8
    >>> _by_players({"1": 6, "2": 6, "3": 6, "5": 8}, "rounds", "R1", "config", 1)
    Traceback (most recent call last):
    ...
    triage.engine.errors.DataError: config: rounds.5: the player count must be 1, 2, 3 or 4 (R1)
    """
    if not isinstance(value, Mapping):
        number = _whole(value, where, source, minimum)
        return {count: number for count in PLAYER_COUNTS}
    table: dict[int, int] = {}
    for key, number in value.items():
        count = int(key) if str(key).isdigit() else None
        if count not in PLAYER_COUNTS:
            raise DataError(f"{source}: {where}.{key}: the player count must be 1, 2, 3 or 4 ({rule})")
        table[count] = _whole(number, f"{where}.{key}", source, minimum)
    missing = [str(count) for count in PLAYER_COUNTS if count not in table]
    if missing:
        raise DataError(
            f"{source}: {where} by player count must give every count 1-4 ({rule}); missing: {', '.join(missing)}"
        )
    return table


#: R1: the player counts a game may have.
PLAYER_COUNTS: tuple[int, ...] = (1, 2, 3, 4)
#: Keys whose value is one number or a table by player count (R1 ``rounds``, T8 an item's
#: ``price``): a table of some counts merged over one number keeps it for the others.
BY_PLAYERS_KEYS: tuple[str, ...] = ("rounds", "price")
#: Keys whose value is either one value or a table (V1 ``return_to``, and :data:`BY_PLAYERS_KEYS`).
EITHER_KEYS: tuple[str, ...] = ("return_to", *BY_PLAYERS_KEYS)


#: The player counts ``seat_credits`` and ``seat_vp`` have a list for (a solo game has no seat
#: order to make up for).
SEAT_TABLE_COUNTS: tuple[int, ...] = (2, 3, 4)


def _seat_table(table: Any, name: str, what: str, source: str) -> dict[int, tuple[int, ...]]:
    """R1: one list of whole numbers per player count, a number per seat (``seat_credits``,
    ``seat_vp``); all-zero lists dropped."""
    if not isinstance(table, Mapping):
        raise DataError(f"{source}: {name} must be a table of player count = [{what} by seat], got {table!r}")
    result: dict[int, tuple[int, ...]] = {}
    for key, numbers in table.items():
        count = int(key) if str(key).isdigit() else None
        if count not in SEAT_TABLE_COUNTS:
            raise DataError(f"{source}: {name}.{key}: the player count must be 2, 3 or 4 (R1)")
        if not isinstance(numbers, (list, tuple)) or len(numbers) != count:
            raise DataError(
                f"{source}: {name}.{key} must list {count} numbers, one per seat (R1), got {numbers!r}"
            )
        values = tuple(_whole(value, f"{name}.{key}[{seat}]", source) for seat, value in enumerate(numbers))
        if any(values):
            result[count] = values
    return result


def _solo_tiers(solo: Any, source: str) -> tuple[tuple[str, int], ...]:
    """The solo score tiers, sorted best first; names must be distinct."""
    if not isinstance(solo, Mapping) or set(solo) - {"tiers"}:
        raise DataError(f"{source}: solo must be a table with only 'tiers', got {solo!r}")
    tiers = solo.get("tiers", [])
    if not isinstance(tiers, list):
        raise DataError(f"{source}: solo.tiers must be a list of {{name, score}} tables, got {tiers!r}")
    result = []
    for index, tier in enumerate(tiers):
        where = f"solo.tiers[{index}]"
        if not isinstance(tier, Mapping) or set(tier) != {"name", "score"}:
            raise DataError(f"{source}: {where} must be a table of exactly name and score, got {tier!r}")
        name = tier["name"]
        if not isinstance(name, str) or not name.strip():
            raise DataError(f"{source}: {where}.name must be a non-empty string, got {name!r}")
        result.append((name, _whole(tier["score"], f"{where}.score", source, -1000)))
    names = [name for name, _ in result]
    if len(set(names)) != len(names):
        raise DataError(f"{source}: solo.tiers names must be distinct, got {names}")
    return tuple(sorted(result, key=lambda tier: -tier[1]))


def load_config(path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> Config:
    """The defaults, then the file at ``path`` (any subset of keys), then ``overrides``."""
    values = default_values()
    source = "config"
    if path is not None:
        source = str(path)
        merge(values, _read_toml(Path(path)), source)
    if overrides:
        merge(values, overrides, source)
    return _validate(values, source)


def parse_assignments(texts: Iterable[str]) -> TomlTable:
    """Several ``--set`` settings as one nested override, merged key by key, so that
    ``market.staff.price=5`` and ``market.staff.limit=2`` keep both (a later setting of the same
    key wins). The override is a TOML table: open until :func:`load_config` validates it.

    >>> parse_assignments(["market.staff.price=5", "market.staff.limit=2", "rounds=4"])
    {'market': {'staff': {'price': 5, 'limit': 2}}, 'rounds': 4}
    """
    merged: TomlTable = {}
    for text in texts:
        _merge_tables(merged, parse_assignment(text))
    return merged


def _merge_tables(target: TomlTable, source: Mapping[str, Any]) -> None:
    for key, value in source.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge_tables(target[key], value)
        else:
            target[key] = value


def parse_assignment(text: str) -> TomlTable:
    """Turn ``market.staff.price=5`` into a nested override (values read as TOML).

    >>> parse_assignment("market.staff.price=5")
    {'market': {'staff': {'price': 5}}}
    >>> parse_assignment("return_to=bottom")
    {'return_to': 'bottom'}
    """
    if "=" not in text:
        raise DataError(f"--set {text!r}: expected key=value")
    key, _, raw_value = text.partition("=")
    try:
        value = tomllib.loads(f"v = {raw_value}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw_value
    result: TomlTable = {}
    node = result
    parts = key.strip().split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return result
