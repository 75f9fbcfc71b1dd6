"""Every accepted game ends: the configuration refuses markets that let a round go on forever
(T7, T8), and every deal refuses the decks whose rewards let a Helicopter pay for itself
(:func:`flight_profit_problem`, checked by :func:`check_bounded_rounds`); a player that never
passes while it may do anything else still finishes every round within :func:`round_bound`.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from triage.engine import Game, make_config
from triage.engine.actions import action_to_id, id_to_action
from triage.engine.cards import CardSpec, load_standard_deck
from triage.engine.config import (
    Config,
    best_flight_patient,
    flight_profit_problem,
    unit_price,
)
from triage.engine.errors import DataError
from triage.engine.records import make_record, replay
from triage.scenario.runner import build_game

SPEND_TYPES = frozenset({"buy", "helicopter"})
#: The default market's items (T8).
MARKET_ITEMS = tuple(make_config().market)


# ---------------------------------------------------------------------- refusals at validation


@pytest.mark.parametrize(
    ("market", "key", "rules"),
    [
        ({"helicopter": {"price": 0, "limit": 4}}, "market.helicopter", "(T7, T8)"),
        ({"helicopter": {"price": 0, "limit": None}}, "market.helicopter", "(T8)"),
        ({"healing": {"price": 0}}, "market.healing", "(T8)"),
        ({"staff": {"price": 0}}, "market.staff", "(T8)"),
        ({"congress": {"price": 0}}, "market.congress", "(T8)"),
        ({"outpatient_clinic": {"price": 0, "limit": None}}, "market.outpatient_clinic", "(T8)"),
    ],
)
def test_a_market_that_lets_a_round_go_on_forever_is_refused(
    market: dict[str, Any], key: str, rules: str
) -> None:
    with pytest.raises(DataError, match=rf"{re.escape(key)}: price 0 .*go on forever.*{re.escape(rules)}"):
        make_config({"market": market})


@pytest.mark.parametrize(
    "market",
    [
        {"helicopter": {"price": 0, "limit": 0}},  # off the market: only the Helicopters held fly
        {"helicopter": {"price": 1}},
        {"healing": {"price": 0, "limit": 3}},  # spent only on patients' costs (T2, T5)
        {"diagnostics": {"price": 0, "limit": 1}, "congress": {"price": 0, "limit": 2}},
        {"staff": {"price": 0, "limit": 2}},  # a holding that use never spends
        {"clinical_trial": {"price": 0, "limit": 3}, "outpatient_clinic": {"price": 1, "limit": None}},
    ],
)
def test_a_market_whose_rounds_end_is_accepted(market: dict[str, Any]) -> None:
    config = make_config({"market": market})
    for name, values in market.items():
        assert (config.market[name].price, config.market[name].limit) == (
            values["price"],
            values.get("limit"),
        )


def test_the_shipped_configuration_and_deck_bound_every_flight() -> None:
    deck = load_standard_deck()
    assert all(flight_profit_problem(make_config(), deck, players) is None for players in range(1, 5))


def test_a_deck_whose_reward_pays_for_the_helicopter_is_named() -> None:
    deck = [CardSpec("cheap", "chronic", diagnosis=0, credits=2), CardSpec("S", "severe", 1, 2, 8, 0)]
    config = make_config({"market": {"helicopter": {"price": 5}}})
    assert flight_profit_problem(config, deck, 2) is None  # 2 x 2 < 5; S gains 8 - 6 to cure it
    problem = flight_profit_problem(config, deck, 3)
    assert problem is not None and "card cheap" in problem and "(T7, T8)" in problem
    free_healing = make_config({"market": {"helicopter": {"price": 5}, "healing": {"price": 0, "limit": 1}}})
    assert "card S" in (flight_profit_problem(free_healing, deck, 1) or "")  # 8 - 1 x 2 >= 5
    no_helicopters = make_config({"market": {"helicopter": {"price": 5, "limit": 0}}})
    assert flight_profit_problem(no_helicopters, deck, 4) is None


PROFITABLE_DECK = [CardSpec("cheap", "chronic", diagnosis=0, credits=2), CardSpec("S", "severe", 1, 2, 8, 0)]
PROFITABLE_MARKET = {"market": {"helicopter": {"price": 5}}}


def test_a_deck_whose_flights_pay_for_themselves_is_refused_wherever_a_game_starts() -> None:
    """A deal (``Game.new``), a record's replay and a scenario all go through
    :func:`check_bounded_rounds`: with 3 players, card ``cheap`` pays 3 x 2 >= 5 a flight."""
    config = make_config(PROFITABLE_MARKET)
    expected = r"card cheap brings 2 Credits.*go on forever \(T7, T8\)"
    with pytest.raises(DataError, match=expected):
        Game.new(players=3, deck=PROFITABLE_DECK, seed=1, config=config)
    record = make_record(Game.new(players=2, deck=PROFITABLE_DECK, seed=1, config=config))
    with pytest.raises(DataError, match=expected):
        replay({**record, "players": 3})
    scenario = {
        "players": 3,
        "config": PROFITABLE_MARKET,
        "cards": {card.id: card.to_dict() for card in PROFITABLE_DECK},
        "deck": [card.id for card in PROFITABLE_DECK],
    }
    for card in scenario["cards"].values():
        card.pop("id", None)
    with pytest.raises(DataError, match="scenario: config: " + expected):
        build_game(scenario)


# ---------------------------------------------------------------------- the spamming table


def spam_action(game: Game, rng: random.Random) -> dict[str, Any]:
    """A purchase or a Helicopter whenever one is legal (T7, T8), else passing (T9), else the
    forced admission or rejection (A4, A5)."""
    legal = game.legal_actions()
    spending = [action for action in legal if action["type"] in SPEND_TYPES]
    if spending:
        return rng.choice(spending)
    return {"type": "pass"} if {"type": "pass"} in legal else rng.choice(legal)


def spam_bound(config: Config, deck: list[CardSpec], players: int) -> int:
    """The most actions a table of spamming players can take in one game (see the test)."""
    n, rounds, arrivals = players, config.rounds, config.arrivals
    price = config.market["helicopter"].price
    on_market = config.market["helicopter"].limit != 0
    # Credits come only from a critical patient with healing 0, cured as it is admitted (A7, T4).
    reward = max([card.credits for card in deck if card.kind == "critical" and card.healing == 0] + [0])
    held_flights = n * config.start["helicopters"]
    # Every seat's starting Credits, its seat_credits included (R1, R3).
    starting = sum(config.start_credits(n, seat) for seat in range(n))
    earned_before_buying = starting + (rounds * arrivals + held_flights) * n * reward
    bought_flights = earned_before_buying // (price - n * reward) if on_market else 0
    flights = held_flights + bought_flights
    credits = starting + (rounds * arrivals + flights) * n * reward
    free = sum(item.limit or 0 for item in config.market.values() if item.price == 0)
    return credits + n * free + flights + (rounds * arrivals + flights) * n + (rounds + flights) * n


def market_item(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Any price and limit the configuration accepts, often free, often small."""
    limits = st.one_of(st.none(), st.integers(0, 3))
    priced = st.fixed_dictionaries({"price": st.integers(1, 6), "limit": limits})
    free_limit = st.just(0) if name == "helicopter" else st.integers(0, 3)
    free = st.fixed_dictionaries({"price": st.just(0), "limit": free_limit})
    return st.one_of(priced, free)


configs = st.fixed_dictionaries(
    {
        "rounds": st.integers(1, 4),
        "arrivals": st.integers(0, 3),
        "return_to": st.sampled_from(["top", "bottom", "discard"]),
        "helicopter_draws": st.sampled_from(["wait", "reopen"]),
        "terminal_upkeep": st.sampled_from(["death", "reward"]),
        "start": st.fixed_dictionaries(
            {"credits": st.integers(0, 8), "helicopters": st.integers(0, 2), "congress": st.integers(0, 2)}
        ),
        "market": st.fixed_dictionaries({name: market_item(name) for name in MARKET_ITEMS}),
    }
)


@st.composite
def cards(draw: st.DrawFn, index: int) -> CardSpec:
    kind = draw(st.sampled_from(["critical", "severe", "chronic", "non_severe", "terminal"]))
    diagnosis = draw(st.integers(0, 3)) if kind in ("severe", "chronic", "non_severe") else None
    healing = draw(st.integers(0, 4)) if kind in ("critical", "severe", "non_severe") else None
    return CardSpec(f"X{index}", kind, diagnosis, healing, draw(st.integers(0, 4)), draw(st.integers(0, 3)))


@st.composite
def decks(draw: st.DrawFn) -> list[CardSpec]:
    return [draw(cards(index)) for index in range(draw(st.integers(1, 8)))]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(overrides=configs, deck=decks(), players=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_a_spamming_table_ends_every_accepted_game(
    overrides: dict[str, Any], deck: list[CardSpec], players: int, seed: int
) -> None:
    """Every seat buys or flies whenever it may (T7, T8), else passes: the game ends within
    :func:`spam_bound`.

    The bound, for n players, R rounds, A arrivals, C starting Credits in all (``start.credits``
    and the seats' ``seat_credits``, R1) and h0 starting Helicopters each: a spamming seat never pays a cost, so its Credits grow only when an admitted critical
    patient with healing 0 is cured at once (A7, T4), by at most r (the largest such reward). The
    patients drawn are the R*n*A of Arrival and n a flight (T7). Flights are the n*h0 held plus the
    ones bought at price p: the configuration makes p >= 1 when Helicopters are on sale, and
    :func:`flight_profit_problem` makes n*r < p, so from b*p <= C + (R*A + n*h0 + b)*n*r the
    bought flights b are at most (C + (R*A + n*h0)*n*r) / (p - n*r). Every priced purchase
    spends at least 1 of the Credits ever held, C + (R*A + F)*n*r for F flights; a free item
    has a limit and is never spent by a spammer, so each seat buys it at most limit times. The rest
    are the admissions or rejections of the patients drawn, (R*A + F)*n, and the passes: one a
    seat a round plus, with V2 ``reopen``, one for each seat a flight reopens, at most (R + F)*n.
    """
    config = make_config(overrides)
    assume(flight_profit_problem(config, deck, players) is None)
    game = Game.new(players=players, deck=deck, seed=seed, config=config)
    bound = spam_bound(config, deck, players)
    rng = random.Random(seed)
    for _ in range(bound + 1):
        if game.turn is None:
            break
        game.apply(spam_action(game, rng))
    assert game.is_over(), f"the game was still in round {game.round} after {bound} actions"


def never_pass_action(game: Game, rng: random.Random) -> dict[str, Any]:
    """Anything but passing (T9) while anything else is legal: half the time a purchase or a
    flight (T7, T8) when one is legal, else any other action (diagnose, heal, treat, admit)."""
    legal = game.legal_actions()
    spending = [action for action in legal if action["type"] in SPEND_TYPES]
    if spending and rng.random() < 0.5:
        return rng.choice(spending)
    others = [action for action in legal if action["type"] != "pass"]
    return rng.choice(others) if others else {"type": "pass"}


def round_bound(game: Game) -> int:
    """The most actions any players can take in the round ``game`` has just entered (Income
    done), read from its position; the proof is :func:`test_every_round_ends_within_its_bound`'s.
    """
    config, n, players = game.config, game.num_players, game.players
    cards = list(game.cards.values())
    market = config.market
    most_credits = max(card.credits for card in cards)
    heal_units = max([card.healing or 0 for card in cards] + [config.rounds, 1])
    units_per_stay = max(card.diagnosis or 0 for card in cards) + heal_units
    prices = [unit_price(market, cost) for cost in ("diagnostics", "healing")]
    dearest_unit = max((price for price in prices if price is not None), default=0)
    credits = sum(player.credits for player in players)
    held = sum(player.helicopters for player in players)
    stock = sum(player.diagnostics + player.healing + player.congress + player.staff for player in players)
    stock += n * (market["staff"].limit or 0)
    best = best_flight_patient(config, cards)
    gain = max(best[0], 0) if best is not None else 0
    helicopter = market["helicopter"]
    early_stays = len(cards) + n * config.arrivals
    bought = 0
    if helicopter.limit != 0:
        earned = (
            credits + early_stays * most_credits + n * held * gain + stock * (dearest_unit + most_credits)
        )
        bought = earned // (helicopter.price - n * gain)
    flights = held + bought
    stays = early_stays + n * flights
    units = stays * units_per_stay
    free_limits = sum(item.limit or 0 for item in market.values() if item.price == 0)
    buys = credits + stays * most_credits + n * free_limits + units
    admissions = n * (config.arrivals + flights)
    return admissions + 2 * stays + stays * heal_units + flights + buys + n * (1 + flights)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(overrides=configs, deck=decks(), players=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_every_round_ends_within_its_bound(
    overrides: dict[str, Any], deck: list[CardSpec], players: int, seed: int
) -> None:
    """Seats that never pass while they may do anything else finish every round of every
    accepted configuration and deck within :func:`round_bound` actions; a deck whose flights
    pay for themselves is refused when dealt.

    Why the bound holds, for n players, a deck of D cards and A arrivals: within a round,
    Credits come only from curing (T4) or treating (T5) a patient, each once a stay (a stay is
    a card's time in a hospital). The stays are the D cards at most that are there or are drawn
    in Arrival (n*A draws: a rejected card goes back on top and is drawn again), plus n for
    each of the F flights (T7). The flights are the Helicopters held (H) and those bought (b):
    a flight patient can bring at most g Credits more than the market charges to cure it
    (:func:`best_flight_patient`), and the units held (the tokens, Congress Doctors and Staff
    at the round's start, and Staff up to a limit, S in all) save at most S times the dearest
    unit, or pay for at most S cures the market could not pay for. So b*p <= C + (D + n*A)*c +
    n*H*g + S*(u + c) + n*b*g for C Credits held, c the largest reward and u the dearest unit;
    the deal refuses n*g >= p (:func:`check_bounded_rounds`) and the configuration p = 0 while
    Helicopters are on sale, so b <= (C + (D + n*A)*c + n*H*g + S*(u + c)) / (p - n*g). Then
    each stay takes one diagnosis, one treatment and at most one Healing action per unit of its
    difficulty (printed, or a chronic patient's Time, at most ``rounds``); each priced purchase
    spends one of the C + stays*c Credits; each free one (under a limit: the configuration
    refuses free items without one) either raises a holding to its limit or replaces a spent
    unit; each patient drawn takes one admission or rejection; and each seat passes once a
    round and once more for each flight that reopens it (V2).
    """
    config = make_config(overrides)
    try:
        game = Game.new(players=players, deck=deck, seed=seed, config=config)
    except DataError as error:
        assert flight_profit_problem(config, deck, players) is not None, error
        assume(False)
        return
    rng = random.Random(seed)
    while not game.is_over():
        round_number, bound, taken = game.round, round_bound(game), 0
        while game.round == round_number and not game.is_over():
            game.apply(never_pass_action(game, rng))
            taken += 1
            assert taken <= bound, f"round {round_number} took more than its bound of {bound} actions"
        LONGEST_ROUNDS.append((taken, bound))


#: (actions, bound) of every round the never-passing seats played (the report's figure).
LONGEST_ROUNDS: list[tuple[int, int]] = []


def test_without_the_refusal_a_free_helicopter_keeps_round_one_going() -> None:
    """The probe that the refusal answers: a free Helicopter under a limit, bought back after
    every flight (T7, T8), as a configuration that bypassed validation would allow."""
    valid = make_config({"market": {"helicopter": {"price": 1}}})
    market = {**valid.market, "helicopter": dataclasses.replace(valid.market["helicopter"], price=0, limit=4)}
    game = Game.new(players=2, seed=1, config=dataclasses.replace(valid, market=market))
    rng = random.Random(0)
    for _ in range(2_000):
        game.apply(spam_action(game, rng))
    assert game.round == 1 and not game.is_over()


# ---------------------------------------------------------------------- spaces without a limit


def test_the_listing_grows_with_spaces_that_have_no_limit() -> None:
    """T8, K4: with no limit on Outpatient Clinics a hospital may outgrow any fixed index; the
    listing and the id translator cover every space the position holds."""
    config = make_config({"market": {"outpatient_clinic": {"price": 1, "limit": None}}})
    game = Game.new(players=2, seed=4, config=config)
    while game.resolving is not None:
        game.apply(game.legal_actions()[0])
    seat = game.turn
    assert seat is not None
    game.players[seat].credits = 12
    for _ in range(12):
        buy = {"type": "buy", "item": "outpatient_clinic"}
        assert buy in game.legal_actions()
        game.apply_id(action_to_id(game, buy))
    assert len(game.players[seat].hospital) == 4 + 12  # K4: every clinic adds a space
    flights = [action for action in game.legal_actions() if action["type"] == "helicopter"]
    assert {"type": "helicopter", "remove": None, "draw_all": True} in flights
    ids = game.legal_action_ids()
    assert [id_to_action(game, action_id) for action_id in ids] == game.legal_actions()
    assert [action_to_id(game, action) for action in game.legal_actions()] == ids
    game.apply_id(action_to_id(game, {"type": "helicopter", "remove": None, "draw_all": True}))
    admissions = game.legal_actions()
    assert {action["space"] for action in admissions if action["type"] == "admit"} >= {16}
    game.apply_id(action_to_id(game, {**admissions[0], "space": 16}))
    assert game.players[seat].hospital[15] is not None
