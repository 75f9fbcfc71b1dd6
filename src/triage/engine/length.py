"""The most actions a whole game can take, proven from its configuration and deck (T1-T9, R1, R2).

The web service stores at most a fixed number of actions per table: a game it accepts must end
before that whatever the players do, or its table could neither move nor end. So it refuses a
table whose bound passes its cap, saying what makes the game long (issue 40). The argument reads
the market generically (every item by what it ``gives``, its price and its limit) and counts what
a game's length grows with: start holdings, Income, Staff and flights. Per player:

1. **Actions.** Each patient drawn takes at most one admission or rejection (A4, A5) and one
   diagnosis (T1: once a stay); a heal places, and a treatment pays, at least one unit (T2, T5);
   each flight spends a Helicopter (T7); a purchase costs at least the lowest price, or is a free
   one under its limit (T8); a player passes once a round, and once more per flight under V2
   ``reopen``. So ``actions <= 2 draws + units + purchases + passes`` a player, plus the flights.
2. **Draws.** ``rounds * arrivals``, plus one per flight of any player (T7).
3. **Units** go to the patients of the player's own stays, each begun by a draw: at most
   ``most_cost`` a stay (diagnosis and printed healing; a chronic patient's Time is at most the
   rounds, T3) and one per terminal card and round (T5). They are also what pays them: the start
   tokens and Congress Doctors, Income, Staff's uses and the units bought.
4. **Credits.** A reward event pays ``credits <= k_d * diagnosis + k_h * healing`` for the units
   its patient took (a chronic one at least its diagnosis, a terminal one a unit a treatment),
   the per-unit rates ``k`` chosen for this deck (a card with no cost at all pays at most
   ``zero_reward``, once a draw). Every Credit spent comes from the start Credits or a reward. An
   item bought again and again whose units are worth at most its price at these rates leaves the
   rest of its price, ``net``, to pay for the Helicopters or Staff it gives; so what a player
   ever puts into Helicopters and Staff is at most ``N = start Credits + k(free units) + k_max
   Staff uses + zero_reward * draws``, free units being the start tokens and Congress Doctors,
   Income and the limited items' units. Staff held in a round is at most the start's, the limited
   items' and ``N`` of that round over a Staff's ``net`` (bought Staff works at once, T6): a small
   round-by-round computation, linear in the zero-cost rewards (fractions of a Staff allowed,
   which only adds). Flights are at most the Helicopters held and ``N`` over a Helicopter's
   ``net``.
5. Flights bring draws, draws zero-cost rewards: the flights' bound is a fixed point, proven when
   what one flight can bring back buys less than one flight. If the rates leave no item a
   positive ``net``, a second argument bounds the rewards by the units patients can take
   (``most_cost`` a draw). If neither holds, flights can pay for themselves and the game is
   refused with the reason (:class:`Unbounded`).

>>> from triage.engine import make_config, load_standard_deck
>>> bound = length_bound(make_config(), load_standard_deck(), players=2)
>>> 150 < bound.actions < 1500
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from triage.engine.cards import CardSpec
from triage.engine.config import Config, rebuyable
from triage.engine.vocabulary import MarketItem

#: The supplies that pay a unit of a cost (T6), by the cost they pay (Congress Doctors: either).
UNIT_SUPPLIES: tuple[str, ...] = ("diagnostics", "healing", "congress")
#: Ratios of the diagnosis rate to both rates tried when choosing the rates ``k`` (any choice is
#: sound; the one giving the fewest flights is kept).
RATE_SPLITS = 40


class Unbounded(ValueError):
    """No bound on the game's length follows from this configuration and deck; the message says
    what can repeat, with its rule ids."""


@dataclass(frozen=True)
class LengthBound:
    """The most actions of a whole game, and the figures that make it."""

    actions: int
    #: The most flights of all players together (T7).
    flights: int
    #: The most patients one player draws.
    draws: int
    #: The most units one player pays (T6).
    units: int


@dataclass(frozen=True)
class _Play:
    """What the argument reads of a configuration and deck for one player count."""

    players: int
    rounds: int
    arrivals: int
    #: Per seat: start Credits; per player: start units, Income units a round, start Staff,
    #: Helicopters held without buying (start and limited items).
    credits: tuple[int, ...]
    start_units: dict[str, int]
    income_units: dict[str, int]
    staff: int
    helicopters: int
    most_cost: int
    terminals: int
    zero_reward: int
    #: The most Credits a unit can bring (over every card with a cost).
    unit_rate: Fraction
    #: (diagnosis, least healing, credits) of every card with a cost.
    costs: tuple[tuple[int, int, int], ...]
    priced: tuple[MarketItem, ...]
    limited: tuple[MarketItem, ...]
    free_again: tuple[MarketItem, ...]
    reopen: bool


def _play(config: Config, deck: list[CardSpec], players: int) -> _Play:
    config = config.for_players(players)
    items = list(config.market.values())
    limited = tuple(item for item in items if not rebuyable(item))
    start = config.start
    start_units = {supply: start[supply] for supply in UNIT_SUPPLIES}
    for item in limited:
        for supply in UNIT_SUPPLIES:
            start_units[supply] += (item.limit or 0) * item.gives_of(supply)
    costs, zero_reward, most_cost = [], 0, 0
    for card in deck:
        if card.kind == "terminal":
            diagnosis, healing = 0, 1  # one unit a treatment (T5)
        else:
            diagnosis = card.diagnosis or 0
            healing = 0 if card.kind == "chronic" else card.healing or 0  # a chronic one's Time may be 0 (T3)
            most_cost = max(most_cost, diagnosis + (config.rounds if card.kind == "chronic" else healing))
        if diagnosis + healing == 0:
            zero_reward = max(zero_reward, card.credits)
        else:
            costs.append((diagnosis, healing, card.credits))
    return _Play(
        players=players,
        rounds=config.rounds,
        arrivals=config.arrivals,
        credits=tuple(config.start_credits(players, seat) for seat in range(players)),
        start_units=start_units,
        income_units={"diagnostics": config.income_diagnostics, "healing": config.income_healing},
        staff=start["staff"] + sum((item.limit or 0) * item.gives_of("staff") for item in limited),
        helicopters=start["helicopters"]
        + sum((item.limit or 0) * item.gives_of("helicopters") for item in limited),
        most_cost=most_cost,
        terminals=sum(card.kind == "terminal" for card in deck),
        zero_reward=zero_reward,
        unit_rate=max((Fraction(credits, d + h) for d, h, credits in costs), default=Fraction(0)),
        costs=tuple(costs),
        priced=tuple(item for item in items if rebuyable(item) and item.price > 0),
        limited=limited,
        free_again=tuple(item for item in items if rebuyable(item) and item.price == 0),
        reopen=config.helicopter_draws == "reopen",
    )


def _rates(play: _Play, split: Fraction) -> dict[str, Fraction] | None:
    """Rates ``k`` with ``k_d / (k_d + k_h) = split`` that every card's credits stay within
    (None if none do: a card whose cost this split does not weigh)."""
    scale = Fraction(0)
    for diagnosis, healing, credits in play.costs:
        weight = split * diagnosis + (1 - split) * healing
        if weight == 0:
            if credits > 0:
                return None
            continue
        scale = max(scale, Fraction(credits) / weight)
    rates = {"diagnostics": scale * split, "healing": scale * (1 - split)}
    rates["congress"] = max(rates.values())
    return rates


def _worth(item: MarketItem, rates: dict[str, Fraction]) -> Fraction:
    return sum((rates[supply] * item.gives_of(supply) for supply in UNIT_SUPPLIES), Fraction(0))


def _per_net(play: _Play, rates: dict[str, Fraction], supply: str) -> Fraction | None:
    """The most of ``supply`` (Helicopters, Staff) a Credit of ``net`` buys (None: some item
    gives it for nothing beyond its units' worth, or an item's units are worth more than its
    price)."""
    most = Fraction(0)
    for item in play.priced:
        net = item.price - _worth(item, rates)
        amount = item.gives_of(supply)
        if net < 0 or (amount and net == 0):
            return None
        if amount:
            most = max(most, Fraction(amount) / net)
    return most


def _seat_money(play: _Play, rates: dict[str, Fraction], seat: int) -> tuple[Fraction, Fraction, Fraction]:
    """A seat's start worth (Credits and the start units at ``rates``), its Income's worth a
    round, and its start Staff."""
    start = play.credits[seat] + sum(
        (rates[supply] * amount for supply, amount in play.start_units.items()), Fraction(0)
    )
    income = sum((rates[supply] * amount for supply, amount in play.income_units.items()), Fraction(0))
    return start, income, Fraction(play.staff)


def _kept(
    horizon: int,
    inputs: list[Fraction],
    income: Fraction,
    use: Fraction,
    per_staff: Fraction,
    staff: Fraction,
) -> Fraction:
    """The most ``N`` a player can have left for Helicopters by the end of round ``horizon``,
    over every way of buying Staff: ``inputs[r - 1]`` arrives in round ``r``, Income every round,
    ``use`` per Staff held; Staff is bought (fractions allowed) as soon as its uses up to the
    horizon are worth more than its ``net`` (``1 / per_staff``), with all that is held then: the
    most any way of playing keeps (a Staff bought later works fewer rounds; one that does not pay
    back only loses)."""
    kept = Fraction(0)
    for round_number in range(1, horizon + 1):
        kept += inputs[round_number - 1] + income + use * staff
        if per_staff and use * (horizon - round_number + 1) * per_staff > 1:
            bought = kept / (1 / per_staff - use)  # it works this round too
            kept, staff = Fraction(0), staff + bought
    return kept


def _staff_uses(
    play: _Play, rates: dict[str, Fraction], per_staff: Fraction, seat: int, surplus: Fraction
) -> Fraction:
    """The most Staff uses of a seat: everything it ever gets, the whole game's surplus counted
    from the first round, goes into Staff as soon as it comes (an upper bound)."""
    start, income, staff = _seat_money(play, rates, seat)
    use = max(rates["diagnostics"], rates["healing"])
    uses = Fraction(0)
    for round_number in range(1, play.rounds + 1):
        money = (start + surplus + income * round_number + use * (uses + staff)) / (1 - use * per_staff)
        uses += staff + per_staff * money  # this round's Staff works this round too
    return uses


def _flights_over_rounds(
    play: _Play, rates: dict[str, Fraction], per_flight: Fraction, per_staff: Fraction, surplus: Fraction
) -> Fraction | None:
    """Point 5's fixed point, round by round: the flights flown by the end of round ``t`` are at
    most the Helicopters held and what all players can have kept by then over a flight's
    ``net``, where each flight of round ``s`` brings every player a draw whose surplus grows by
    ``g_t(s)`` with Staff by round ``t``. Flights flown earlier grow more, so the worst case puts
    the earlier flights in the first round. Proven when a flight's own round cannot pay for it
    (``players * surplus * g_t(t) * per_flight < 1``); None otherwise."""
    use = max(rates["diagnostics"], rates["healing"])
    if use * per_staff >= 1:
        return None  # a Staff pays for itself within its round
    seats = [_seat_money(play, rates, seat) for seat in range(play.players)]
    round_surplus = surplus * (play.arrivals + play.terminals)
    held = Fraction(play.players * play.helicopters)
    flown = Fraction(0)
    for horizon in range(1, play.rounds + 1):
        base = Fraction(0)
        for start, income, staff in seats:
            inputs = [round_surplus + (start if number == 0 else 0) for number in range(horizon)]
            base += _kept(horizon, inputs, income, use, per_staff, staff)
        first, own = (
            _kept(
                horizon,
                [Fraction(number == arrives) for number in range(horizon)],
                Fraction(0),
                use,
                per_staff,
                Fraction(0),
            )
            for arrives in (0, horizon - 1)
        )
        room = 1 - play.players * per_flight * surplus * own
        if room <= 0:
            return None
        earlier = play.players * per_flight * surplus * (first - own) * flown
        flown = max(flown, (held + per_flight * base + earlier) / room)
    return flown


def _flights_by_money(play: _Play) -> tuple[Fraction, list[Fraction]] | None:
    """Point 4 with the best rates tried: the flights' bound and each seat's Staff uses at it."""
    if any(item.gives_of(supply) for item in play.free_again for supply in UNIT_SUPPLIES):
        return None  # free units bought again and again: only the patients bound them
    if any(item.gives_of("staff") and item.gives_of("helicopters") for item in play.priced):
        return None  # Staff that comes with Helicopters: left to the patients' argument
    best: tuple[Fraction, list[Fraction]] | None = None
    candidates = [_rates(play, Fraction(step, RATE_SPLITS)) for step in range(RATE_SPLITS + 1)]
    for rates in [*candidates, _market_rates(play)]:
        if rates is None:
            continue
        per_flight = _per_net(play, rates, "helicopters")
        per_staff = _per_net(play, rates, "staff")
        if per_flight is None or per_staff is None:
            continue
        surplus = _surplus(play, rates)
        flights = _flights_over_rounds(play, rates, per_flight, per_staff, surplus)
        if flights is None or (best is not None and flights >= best[0]):
            continue
        events = play.rounds * (play.arrivals + play.terminals) + flights
        uses = [_staff_uses(play, rates, per_staff, seat, surplus * events) for seat in range(play.players)]
        best = (flights, uses)
    return best


def _market_rates(play: _Play) -> dict[str, Fraction]:
    """Rates at the market's own prices: the fewest Credits a unit of each cost costs from an
    item sold again and again (a Congress Doctor pays either), scaled until no such item's units
    are worth more than its price; 0 where none sells it. Cards may then yield a surplus."""
    rates: dict[str, Fraction] = {}
    for cost in ("diagnostics", "healing"):
        prices = [
            Fraction(item.price, item.gives_of(cost) + item.gives_of("congress"))
            for item in play.priced
            if item.gives_of(cost) + item.gives_of("congress")
        ]
        rates[cost] = min(prices, default=Fraction(0))
    rates["congress"] = max(rates.values())
    over = [
        Fraction(item.price) / worth for item in play.priced if (worth := _worth(item, rates)) > item.price
    ]
    scale = min(over, default=Fraction(1))
    return {supply: rate * scale for supply, rate in rates.items()}


def _surplus(play: _Play, rates: dict[str, Fraction]) -> Fraction:
    """The most Credits one reward event yields beyond its units' worth at ``rates``."""
    most = Fraction(play.zero_reward)
    for diagnosis, healing, credits in play.costs:
        most = max(most, credits - diagnosis * rates["diagnostics"] - healing * rates["healing"])
    return max(most, Fraction(0))


def _flights_by_patients(play: _Play) -> Fraction | None:
    """Point 5's second argument: rewards at most ``unit_rate`` a unit and the units at most what
    patients take; Helicopters at most their price's worth of the Credits."""
    per_credit = max(
        (Fraction(item.gives_of("helicopters"), item.price) for item in play.priced), default=Fraction(0)
    )
    if per_credit == 0:
        return Fraction(play.players * play.helicopters)
    per_draw = play.unit_rate * play.most_cost + play.zero_reward
    feedback = play.players * per_credit * per_draw
    if feedback >= 1:
        return None
    fixed_draws = play.rounds * play.arrivals
    fixed = sum(
        credits + per_draw * fixed_draws + play.unit_rate * play.rounds * play.terminals
        for credits in play.credits
    )
    return (play.players * play.helicopters + per_credit * fixed) / (1 - feedback)


def length_bound(config: Config, deck: list[CardSpec], players: int) -> LengthBound:
    """The bound of the module docstring; :class:`Unbounded` when the argument finds none."""
    play = _play(config, deck, players)
    by_money = _flights_by_money(play)
    by_patients = _flights_by_patients(play)
    found = [bound for bound in (by_money[0] if by_money else None, by_patients) if bound is not None]
    if not found:
        raise Unbounded(
            f"flights can pay for themselves: a patient a flight brings can yield up to "
            f"{float(play.unit_rate * play.most_cost + play.zero_reward):g} Credits, through Staff, Income "
            "and the tokens held, and the Credits buy more flights (T6, T7, T8, R2)"
        )
    flights = math.floor(min(found))
    draws = play.rounds * play.arrivals + flights
    capacity = play.most_cost * draws + play.rounds * play.terminals
    actions = flights
    most_units = 0
    for seat, credits in enumerate(play.credits):
        units = Fraction(capacity)
        if by_money is not None and not play.free_again:
            units = min(units, _units_by_money(play, credits, by_money[1][seat], draws))
        rewards = play.unit_rate * units + play.zero_reward * draws
        lowest = min((item.price for item in play.priced + play.limited if item.price > 0), default=0)
        purchases = int((credits + rewards) // lowest) if lowest else 0
        purchases += sum(item.limit or 0 for item in play.limited)
        purchases += sum((item.limit or 0) + math.ceil(units) for item in play.free_again)
        passes = play.rounds + (flights if play.reopen else 0)
        most_units = max(most_units, math.ceil(units))
        actions += 2 * draws + math.ceil(units) + purchases + passes
    return LengthBound(actions, flights, draws, most_units)


def _units_by_money(play: _Play, credits: int, staff_uses: Fraction, draws: int) -> Fraction:
    """Point 3's second bound: units paid are at most those held free, Staff's uses and those
    bought, and Credits buy at most ``per_credit`` units each, while rewards bring at most
    ``unit_rate`` a unit (infinite when units bought can pay for themselves)."""
    per_credit = max(
        (
            Fraction(sum(item.gives_of(supply) for supply in UNIT_SUPPLIES), item.price)
            for item in play.priced
        ),
        default=Fraction(0),
    )
    if per_credit * play.unit_rate >= 1:
        return Fraction(10**12)
    free = sum(play.start_units.values()) + play.rounds * sum(play.income_units.values())
    return (free + staff_uses + per_credit * (credits + play.zero_reward * draws)) / (
        1 - per_credit * play.unit_rate
    )
