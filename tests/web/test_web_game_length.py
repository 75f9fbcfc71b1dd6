"""No accepted game can stop short of its end (issue 40, point 2): a table is refused when the
proven bound on its game's actions (:mod:`triage.engine.length`) passes the action cap, with the
reason; every table accepted ends before the cap, whatever its players do.

The issue's configuration (one player, a deck of 40 non-severe cards with no diagnosis, healing 1
and 10 Credits, a Helicopter at 1 Credit, Healing, Congress Doctors and Staff at 10, income 6/6,
start holdings at the web's maximum) was accepted and froze at ``409 action_limit`` in round 10
of 12; it is refused now. Over random configurations and decks at the web's limits, every one the
service accepts is played to its end (choices drawn at random, with a player who flies and buys
whenever it can), within its bound and the caps.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, given, settings, target
from hypothesis import strategies as st

from triage.bots.greedy import greedy_action
from triage.engine import Game, make_config
from triage.engine.choices import action_choices, sample
from triage.engine.length import length_bound
from triage.engine.shapes import Action
from triage.engine.vocabulary import KINDS, SUPPLIES
from triage.web.errors import WebError
from triage.web.limits import (
    MAX_ARRIVALS,
    MAX_CARD_VALUES,
    MAX_GIFT,
    MAX_INCOME,
    MAX_ITEM_LIMIT,
    MAX_PRICE,
    MAX_RECORD_BYTES,
    MAX_ROUNDS,
    MAX_START,
    MAX_TABLE_ACTIONS,
    check_table_limits,
)
from triage.web.tables import deal

#: The issue's configuration and deck (issue 40, point 2).
ISSUE_CONFIG: dict[str, Any] = {
    "rounds": 12,
    "income": {"diagnostics": MAX_INCOME, "healing": MAX_INCOME},
    "start": dict(MAX_START),
    "market": {
        "helicopter": {"price": 1},
        "healing": {"price": 10},
        "congress": {"price": 10},
        "staff": {"price": 10},
    },
}
ISSUE_DECK = [
    {"id": f"N{number}", "kind": "non_severe", "diagnosis": 0, "healing": 1, "credits": 10, "vp": 0}
    for number in range(40)
]


def test_the_issues_table_is_refused_with_the_reason(client: TestClient) -> None:
    response = client.post(
        "/api/tables", json={"players": 1, "config": ISSUE_CONFIG, "deck": ISSUE_DECK, "bots": [None]}
    )
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == "limit_exceeded"
    assert "5,000 actions a table holds" in body["message"]
    assert "flights can pay for themselves" in body["message"] and "(T6, T7, T8, R2)" in body["message"]


def test_a_table_at_the_limits_with_more_players_than_its_length_allows_is_refused_with_the_figures(
    client: TestClient,
) -> None:
    """The stress tables' configuration at the limits: with 12 rounds a 4-seat game could take
    more than the cap (refused, naming the bound); with 8 it is accepted."""
    from triage.web.stress import LIMIT_CONFIG, LIMIT_CONFIG_4P, LIMIT_DECK

    body = {"players": 4, "bots": ["random"] * 4, "deck": LIMIT_DECK[:60]}
    refused = client.post("/api/tables", json={**body, "config": LIMIT_CONFIG})
    assert refused.status_code == 422 and refused.json()["code"] == "limit_exceeded"
    assert "could take up to" in refused.json()["message"] and "flights" in refused.json()["message"]
    assert client.post("/api/tables", json={**body, "config": LIMIT_CONFIG_4P}).status_code == 201


# ---------------------------------------------------------------------- random tables at the limits

#: The standard market's items (the vocabulary's, T8), each drawn with a random price and limit.
STANDARD_ITEMS = tuple(make_config().market.values())
#: A refusal names its reason: a rule id or the server's limits (docs/web.md).
REASON = re.compile(r"\b[A-Z][0-9]+\b|docs/web\.md")


def up_to(least: int, most: int) -> st.SearchStrategy[int]:
    """A number in ``least..most``, the limit itself a third of the time: the long games are
    at the web's limits."""
    return st.one_of(st.just(most), st.integers(least, most), st.integers(least, most))


@st.composite
def cards(draw: Any, number: int) -> dict[str, Any]:
    """A card of any kind (K1, K2) with the fields its kind prints, each up to the web's limit."""
    kind = draw(st.sampled_from(KINDS))
    card: dict[str, Any] = {"id": f"C{number}", "kind": kind.name}
    printed = [
        "credits",
        "vp",
        *(["diagnosis"] if kind.standard else []),
        *(["healing"] if kind.printed_healing else []),
    ]
    for field in printed:
        card[field] = draw(up_to(0, MAX_CARD_VALUES[field]))
    return card


@st.composite
def market_items(draw: Any, gives: dict[str, int] | None) -> dict[str, Any]:
    """An item's price and limit (required on a free item or one that adds spaces, T8); what it
    gives drawn too unless ``gives`` (a standard item's own) is given."""
    price = draw(st.one_of(st.integers(0, 3), st.integers(1, MAX_PRICE)))
    item: dict[str, Any] = {"price": price}
    if gives is None:
        supplies = st.sampled_from([supply.name for supply in SUPPLIES])
        gives = item["gives"] = draw(
            st.dictionaries(supplies, st.integers(1, MAX_GIFT), min_size=1, max_size=3)
        )
    limits = st.integers(0, MAX_ITEM_LIMIT)
    item["limit"] = draw(limits if price == 0 or "spaces" in gives else st.one_of(st.none(), limits))
    return item


@st.composite
def tables(draw: Any) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """A table request at (and within) the web's limits: random rounds, arrivals, income, start
    holdings, market prices and limits (the standard items and, at times, a designer's item
    giving any supplies), and a random deck."""
    market = {item.name: draw(market_items(dict(item.gives))) for item in STANDARD_ITEMS}
    if draw(st.booleans()):
        market["designers_item"] = draw(market_items(None))
    config = {
        "rounds": draw(up_to(1, MAX_ROUNDS)),
        "arrivals": draw(up_to(1, MAX_ARRIVALS)),
        "end_on_zero_quality": draw(st.booleans()),
        "helicopter_draws": draw(st.sampled_from(["wait", "reopen"])),
        "income": {
            "diagnostics": draw(up_to(0, MAX_INCOME)),
            "healing": draw(up_to(0, MAX_INCOME)),
        },
        "start": {name: draw(up_to(0, most)) for name, most in MAX_START.items()},
        "market": market,
    }
    size = draw(up_to(8, 60))
    deck = [draw(cards(number)) for number in range(size)]
    return draw(up_to(1, 4)), config, deck


def lengthening(game: Game, seat: int, rng: random.Random) -> Action:
    """A choice drawn at random, but a flight that draws, or a purchase, whenever one is open
    half the time: the play that makes games long."""
    choices = action_choices(game, seat)
    busy = [choice for choice in choices if choice["type"] in ("buy", "helicopter")]
    if busy and rng.random() < 0.5:
        choice = rng.choice(busy)
        if choice["type"] == "helicopter":
            return {"type": "helicopter", "remove": None, "draw_all": True}
        return sample(choice, rng)
    return sample(rng.choice(choices), rng)


def greedy(game: Game, seat: int, rng: random.Random) -> Action:
    """The greedy bot's priorities (triage.bots.greedy) on the whole game."""
    return greedy_action(game)


PLAYS = {"lengthening": lengthening, "greedy": greedy}


def dealt_or_refused(table: tuple[int, dict[str, Any], list[dict[str, Any]]], seed: int) -> Game | None:
    """The service's game for ``table``, or None when it refuses it (after checking that the
    refusal names its reason)."""
    players, config, deck = table
    try:
        return deal(players, seed, config, deck)
    except WebError as error:
        assert error.status == 422 and error.code in ("invalid_request", "limit_exceeded"), error
        assert REASON.search(error.message), f"a refusal that does not say why: {error.message}"
        event(f"refused: {error.code}" + (" (length)" if "actions a table holds" in error.message else ""))
        return None


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(table=tables(), seed=st.integers(0, 2**31), play=st.sampled_from(sorted(PLAYS)))
def test_every_accepted_table_at_the_limits_ends_within_its_bound_and_the_caps(
    table: tuple[int, dict[str, Any], list[dict[str, Any]]], seed: int, play: str
) -> None:
    """Refused tables name why (a rule id or the server's limits); an accepted one, played at
    random with flights and purchases favoured or by the greedy bot, ends within its proven
    bound, under the action cap and the record's size."""
    game = dealt_or_refused(table, seed)
    if game is None:
        return
    players, config, deck = table
    game_config, cards = check_table_limits(config, deck)
    assert cards is not None
    bound = length_bound(game_config, cards, players)
    assert bound.actions <= MAX_TABLE_ACTIONS
    rng = random.Random(seed)
    events = list(game.initial_events)
    while not game.is_over():
        assert len(game.history) < bound.actions, "a game passed its proven bound"
        seat = game.turn
        assert seat is not None
        events += game.apply(PLAYS[play](game, seat, rng), seat)
    event("accepted")
    target(len(game.history) / bound.actions, label="length over its bound")  # seek the longest games
    target(float(len(game.history)), label="length")
    record = json.dumps({"actions": game.history, "events": events})
    assert len(record.encode()) < MAX_RECORD_BYTES
