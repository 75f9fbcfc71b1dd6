"""Proven bounds on a player's score and on a game's number of decisions.

Search (UCT constants) and learning (value targets) want the range of the returns; OpenSpiel
asks every game for it. The bounds here are derived from the configuration and the deck list and
hold for every legal game, whatever the players do. The argument, per player:

1. **Wealth.** Price everything consumable at the market (T8): ``W = credits + 2 Diagnostics +
   2 Healing + 3 Congress + 4 Helicopters`` (each the fewest Credits a unit costs from an item
   bought again and again: :func:`market_prices`). Buying such an item leaves W as it is or lowers
   it; buying Staff or a space lowers it; an item whose limit caps its purchases raises W by at
   most its limit times its units' worth above its price, once (counted in W0); income adds
   ``income_value`` (R2: 2x2 + 3x2 = 10).
   A cure or a terminal treatment pays at least its cost in units of Diagnostics/Healing (T1, T2,
   T5), and returns at most ``credit_rate`` credits per unit (the deck's best credits/cost:
   2, for a chronic card diagnosed at 1 with Time 0). A unit paid with a token or Congress
   Doctor removes at least ``unit_price`` (2) from W; one paid with Staff (T6) removes nothing.
   While ``credit_rate <= unit_price`` (checked), W grows in a round by at most
   ``income_value + credit_rate * staff`` (the units Staff pays), and the most a player can ever
   spend on consumables, ``spendable``, is the best over Staff purchases of
   ``W0 + sum(gains) - staff price * bought`` (a small search over rounds).
2. **Draws.** Every extra draw comes from a Helicopter (T7), which gives each player one draw;
   a player uses at most ``spendable / 4`` of them, so a player draws at most
   ``rounds * arrivals + players * helicopters`` cards in a game.
3. **Quality of Care** never rises; each draw costs at most one loss of at most 2 (a rejection
   costs 1, A5; a death 2 in a space, 1 for a terminal patient, C4). With
   ``end_on_zero_quality`` (R4) the last round starts with QoC >= 1 and loses at most its own
   rejections (its draws), two per space and one per terminal patient. With V4's
   ``quality_floor`` QoC never goes below the floor.
4. **VP** rise only by cures and treatments, each paid in units: at most ``vp_rate`` VP per unit
   (the deck's best vp/cost: 3), and units paid at most ``spendable / unit_price`` plus the
   Staff-paid ones; and at most the best card VP per card drawn.
5. **Decisions.** Each admission or rejection takes a drawn card; a diagnosis a drawn card; a
   heal or treatment at least one unit; a Helicopter one helicopter; a purchase at least the
   lowest price; and each player passes once a round, plus once per Helicopter draw (V2
   ``reopen`` gives a passed player one more turn).

The bounds are loose where play is sensible (random and greedy games score 0-45), but true.
:func:`triage.envs.bench` and the tests check that simulated games stay inside them.

>>> from triage.engine import make_config, load_standard_deck
>>> bounds = game_bounds(make_config(), load_standard_deck(), players=2)
>>> bounds.min_score < 0 < 10 < bounds.max_score, bounds.max_decisions < 2400
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from triage.engine import CardSpec, Config
from triage.engine.config import rebuyable
from triage.engine.state import BASE_SPACES
from triage.engine.vocabulary import KIND


@dataclass(frozen=True)
class GameBounds:
    """Per-player score bounds and the most decisions a whole game can take."""

    min_score: int
    max_score: int
    max_decisions: int
    spendable: int
    draws: int


def _cost(card: CardSpec) -> int:
    """The fewest units a card's reward costs (T1, T2; chronic: its diagnosis, Time may be 0)."""
    if KIND[card.kind].beside:  # T5: a unit a treatment
        return 1
    return (card.diagnosis or 0) + (card.healing or 0)


#: The supplies priced in the wealth W of the module docstring: those play spends.
CONSUMABLES: tuple[str, ...] = ("diagnostics", "healing", "congress", "helicopters")


@dataclass(frozen=True)
class MarketPrices:
    """What the bounds' argument reads of the market (T8), whatever its items: each consumable
    supply's value in W (the fewest Credits a unit of it costs from an item bought again and
    again), what the items bought a limited number of times can add to W at most, and the
    Staff's price and cap."""

    value: dict[str, Fraction]
    bonus: Fraction
    staff_price: int
    staff_limit: int | None
    cheapest: int
    free_purchases: int
    spaces: int


def market_prices(config: Config) -> MarketPrices:
    """The market as the bounds' argument sees it. An item bought again and again
    (:func:`~triage.engine.config.rebuyable`) must not raise W (its units valued at most its
    price); an item whose limit caps its purchases adds at most its limit times what its units
    are worth above its price, once per game."""
    market = config.market
    value: dict[str, Fraction] = {}
    for supply in CONSUMABLES:
        prices = [
            Fraction(item.price, item.gives_of(supply))
            for item in market.values()
            if item.gives_of(supply) and rebuyable(item)
        ]
        if not prices:
            raise ValueError(
                f"no market item sells {supply} again and again: the wealth argument needs one (T8)"
            )
        value[supply] = min(prices)
    bonus = Fraction(0)
    for item in market.values():
        worth = sum((value[supply] * amount for supply, amount in item.gives if supply in value), Fraction(0))
        if rebuyable(item):
            if worth > item.price and item.limit != 0:
                raise ValueError(
                    f"market.{item.name} gives more than its price in W: the wealth argument does not hold (T8)"
                )
        elif item.limit:
            bonus += item.limit * max(worth - item.price, Fraction(0))
    staff_items = [item for item in market.values() if item.gives_of("staff") and item.limit != 0]
    staff_price = min((item.price // item.gives_of("staff") for item in staff_items), default=0)
    staff_limit: int | None = 0
    for item in staff_items:
        if item.limit is None or staff_limit is None:
            staff_limit = None
        else:  # a cap on the Staff held, or on purchases that each give some
            staff_limit += item.limit * (1 if item.holding == "staff" else item.gives_of("staff"))
    spaces = 0
    for item in market.values():
        if item.gives_of("spaces"):
            if item.limit is None:
                raise ValueError(
                    f"market.{item.name} gives spaces without a limit: no bound on the spaces (K4, T8)"
                )
            spaces += item.limit * item.gives_of("spaces")
    priced = [item.price for item in market.values() if item.price > 0]
    free = sum(item.limit or 0 for item in market.values() if item.price == 0)
    return MarketPrices(value, bonus, staff_price, staff_limit, min(priced, default=1), free, spaces)


def game_bounds(config: Config, deck: list[CardSpec], players: int) -> GameBounds:
    """The bounds of section docstring for this configuration, deck and number of players."""
    config = config.for_players(players)  # R1: this count's rounds
    market = market_prices(config)
    value = market.value
    unit_price = min(value["diagnostics"], value["healing"], value["congress"])
    costs = [(_cost(card), card) for card in deck]
    if any(cost <= 0 for cost, _ in costs):
        raise ValueError("every card must cost at least one unit for the bounds to hold (T1, T2)")
    credit_rate = max(Fraction(card.credits, cost) for cost, card in costs)
    vp_rate = max(Fraction(card.vp, cost) for cost, card in costs)
    if credit_rate > unit_price:
        raise ValueError(
            f"a card returns {credit_rate} credits per unit, more than a unit's price {unit_price}: "
            "wealth is not bounded by this argument (T8)"
        )
    start = config.start
    wealth0 = (
        max(config.start_credits(players, seat) for seat in range(players))  # seat_credits too (R1)
        + sum(value[supply] * start[supply] for supply in CONSUMABLES)
        + market.bonus
    )
    income_value = value["diagnostics"] * config.income_diagnostics + value["healing"] * config.income_healing
    spendable, staff_units = _spendable(
        config.rounds,
        int(wealth0),
        int(income_value) + 1 if income_value.denominator > 1 else int(income_value),
        credit_rate,
        market.staff_price,
        market.staff_limit,
        start["staff"],
    )
    helicopters = int(spendable // value["helicopters"])
    draws = config.rounds * config.arrivals + players * helicopters
    units = int(spendable // unit_price) + staff_units
    spaces = BASE_SPACES + market.spaces
    terminals = sum(KIND[card.kind].beside for card in deck)
    loss = 2 * draws
    if config.end_on_zero_quality and config.rounds > 1:
        last_round = config.arrivals + players * helicopters + 2 * spaces + terminals
        loss = min(loss, start["quality"] - 1 + last_round)
    min_quality = start["quality"] - loss
    if config.quality_floor is not None:
        min_quality = max(min_quality, config.quality_floor)
    best_vp = max(card.vp for card in deck)
    vp = min(int(vp_rate * units), best_vp * draws + config.rounds * terminals * best_vp)
    passes = config.rounds + draws  # V2 reopen: a Helicopter draw may give one more turn
    purchases = spendable // market.cheapest + market.free_purchases
    decisions = 2 * draws + units + helicopters + purchases + passes
    return GameBounds(
        min_score=min(config.start_vp(players, seat) for seat in range(players)) + min_quality,
        max_score=max(config.start_vp(players, seat) for seat in range(players)) + start["quality"] + vp,
        max_decisions=players * decisions,
        spendable=spendable,
        draws=draws,
    )


@lru_cache(maxsize=64)
def _spendable(
    rounds: int,
    wealth0: int,
    income_value: int,
    credit_rate: Fraction,
    staff_price: int,
    staff_limit: int | None,
    staff0: int,
) -> tuple[int, int]:
    """The most W a player can ever put into consumables, and the most Staff-paid units, over
    every way of buying Staff: a search over (round, wealth, staff). A purchase is allowed when
    the round's whole possible gain would pay it (a relaxation, so the result stays an upper
    bound). Returns (spendable, staff-paid units), each maximised on its own."""
    states = {(wealth0, staff0, 0)}  # (wealth left, staff, staff-paid units so far)
    for _ in range(rounds):
        following = set()
        for wealth, staff, used in states:
            bought = 0
            while True:
                total = staff + bought
                gain = income_value + int(credit_rate * total)
                left = wealth + gain - staff_price * bought
                if left < 0 or (staff_limit is not None and total > staff_limit):
                    break
                following.add((left, total, used + total))
                bought += 1
        # keep only states not dominated in all three numbers
        states = {
            s for s in following if not any(o != s and all(a >= b for a, b in zip(o, s)) for o in following)
        }
    return max(s[0] for s in states), max(s[2] for s in states)


def bounds_table(config: Config | None = None, deck: list[CardSpec] | None = None) -> str:
    """The Markdown table of the bounds for 1-4 players that docs/research.md shows (a test
    compares them): ``python -m triage.envs.bounds`` prints it."""
    from triage.engine import load_standard_deck, make_config

    config = config or make_config()
    deck = deck or load_standard_deck()
    rows = [
        "| players | score range (`score`) | most decisions | `max_game_length` (with the deal) | most draws of a player |",
        "| --- | --- | --- | --- | --- |",
    ]
    for players in range(1, 5):
        bounds = game_bounds(config, deck, players)
        rows.append(
            f"| {players} | {bounds.min_score} .. {bounds.max_score} | {bounds.max_decisions} "
            f"| {bounds.max_decisions + DEAL_NODES} | {bounds.draws} |"
        )
    return "\n".join(rows)


#: The chance nodes of an OpenSpiel deal (``triage.envs.openspiel.DEAL_DIGITS``).
DEAL_NODES = 7


if __name__ == "__main__":
    print(bounds_table())
