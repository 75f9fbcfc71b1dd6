"""The game's vocabulary as data (T8, K2, K4): card kinds declared once, and market items that a
designer adds in a configuration file alone, read by the engine's every part."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from triage.engine import Game, RuleError, make_config, state_dict, view
from triage.engine.actions import action_space, action_to_id, id_to_action
from triage.engine.cards import load_standard_deck
from triage.engine.config import flight_profit_problem, load_config
from triage.engine.determinize import determinize
from triage.engine.errors import DataError
from triage.engine.records import make_record, replay
from triage.options import load_settings
from triage.engine.vocabulary import KIND, KINDS, STANDARD_KINDS, SUPPLIES, counted_items

NIGHT_SHIFT_TOML = """
[market.night_shift]      # a designer's new item: no code change
price = 1
limit = 2
gives = { healing = 2 }
"""


def night_shift_config(tmp_path: Path) -> Any:
    path = tmp_path / "night.toml"
    path.write_text(NIGHT_SHIFT_TOML)
    return load_config(path)


def test_a_market_item_declared_in_a_toml_file_alone_is_read_with_its_words(tmp_path: Path) -> None:
    """T8: the issue's form, read from a file: price, limit, gives, and a label made from its name."""
    config = night_shift_config(tmp_path)
    item = config.market["night_shift"]
    assert (item.price, item.limit, item.gives, item.label) == (1, 2, (("healing", 2),), "Night shift")
    assert item.help == "2 Healing tokens"
    assert list(config.market)[-1] == "night_shift", "a designer's items follow the default ones"
    assert config.to_dict()["market"]["night_shift"]["gives"] == {"healing": 2}


def test_a_designer_item_may_be_given_key_by_key_on_the_command_line() -> None:
    """``--set`` assignments build the same item as a file (T8)."""
    settings = [
        "market.night_shift.price=1",
        "market.night_shift.gives={healing=2}",
        "market.night_shift.limit=2",
    ]
    config, _ = load_settings(None, None, settings)
    assert (config.market["night_shift"].gives, config.market["night_shift"].limit) == ((("healing", 2),), 2)


def test_the_default_items_say_what_they_give() -> None:
    """The seven default items are entries of data with the gifts of scenario-format.md."""
    gives = {name: dict(item.gives) for name, item in make_config().market.items()}
    assert gives == {
        "diagnostics": {"diagnostics": 1},
        "healing": {"healing": 1},
        "congress": {"congress": 1},
        "helicopter": {"helicopters": 1},
        "staff": {"staff": 1},
        "clinical_trial": {"spaces": 1},
        "outpatient_clinic": {"spaces": 1},
    }
    assert counted_items(make_config().market) == ("clinical_trial", "outpatient_clinic")


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"price": 1}, "market.night_shift needs 'gives'"),
        ({"gives": {"healing": 1}}, "market.night_shift needs 'price'"),
        ({"price": 1, "gives": {"sleep": 1}}, "market.night_shift.gives has no supply 'sleep'"),
        (
            {"price": 1, "gives": {"healing": 0}},
            r"market.night_shift.gives.healing must be a whole number >= 1",
        ),
        ({"price": 1, "gives": {}}, "market.night_shift.gives must be a table of supplies"),
        ({"price": 1, "gives": {"healing": 1}, "colour": "red"}, "market.night_shift has no key 'colour'"),
        ({"price": 1, "gives": {"healing": 1}, "label": "x" * 41}, "market.night_shift.label must be text"),
        ({"price": -1, "gives": {"healing": 1}}, "market.night_shift.price must be a whole number >= 0"),
    ],
)
def test_a_designer_item_that_is_not_whole_is_refused_by_name(item: dict[str, Any], message: str) -> None:
    with pytest.raises(DataError, match=message):
        make_config({"market": {"night_shift": item}})


def test_an_item_name_must_be_a_plain_word() -> None:
    with pytest.raises(DataError, match="an item's name must be lower-case letters"):
        make_config({"market": {"Night Shift": {"price": 1, "gives": {"healing": 1}}}})


def test_a_default_item_given_new_gifts_loses_its_old_ones() -> None:
    """An override of ``gives`` replaces the table whole: a trial giving two spaces gives no more."""
    item = make_config({"market": {"clinical_trial": {"gives": {"spaces": 2}}}}).market["clinical_trial"]
    assert item.gives == (("spaces", 2),)


def test_a_free_item_giving_helicopters_back_is_refused_whatever_its_name() -> None:
    """T7, T8: the bounded-rounds check covers a designer's items as it does the Helicopter."""
    with pytest.raises(DataError, match=r"market.air_ambulance: price 0 lets a player buy a Helicopter back"):
        make_config({"market": {"air_ambulance": {"price": 0, "limit": 1, "gives": {"helicopters": 1}}}})
    with pytest.raises(DataError, match=r"market.cheap_healing: price 0 with no limit"):
        make_config({"market": {"cheap_healing": {"price": 0, "gives": {"healing": 3}}}})
    # Capped by purchases, a free item is bought a few times at most: accepted.
    make_config({"market": {"air_drop": {"price": 0, "limit": 2, "gives": {"helicopters": 1, "healing": 1}}}})


def test_cheap_healing_that_makes_flights_pay_is_refused_when_dealt() -> None:
    """T7, T8: Healing at half a Credit a unit makes the standard deck's flights pay for themselves
    at four players; the refusal names the card and the item whose price to raise."""
    config = make_config({"market": {"night_shift": {"price": 1, "gives": {"healing": 2}}}})
    deck = load_standard_deck()
    problem = flight_profit_problem(config, deck, 4)
    assert problem is not None and "a Helicopter from Helicopter at 4 Credits pays for itself" in problem
    assert flight_profit_problem(make_config(), deck, 4) is None


def play_buying(game: Game, rng: random.Random, actions: int) -> None:
    """Random legal actions, a purchase whenever one is legal (T8)."""
    for _ in range(actions):
        if game.turn is None:
            return
        legal = game.legal_actions()
        buys = [action for action in legal if action["type"] == "buy"]
        game.apply(rng.choice(buys or legal))


def test_a_designer_item_works_through_the_engine_s_every_path(tmp_path: Path) -> None:
    """The integer path, views, copies, records and determinize all carry a designer's item
    (D1, I4, T8), its purchases shown in the board's ``items``."""
    config = night_shift_config(tmp_path)
    game = Game.new(players=2, seed=5, config=config)
    space = action_space(game)
    assert "night_shift" in space.items
    rng = random.Random(5)
    bought = 0
    while not game.is_over():
        ids = game.legal_action_ids()
        assert [id_to_action(game, i) for i in ids] == game.legal_actions()
        legal = game.legal_actions()
        night = [a for a in legal if a == {"type": "buy", "item": "night_shift"}]
        action = night[0] if night else rng.choice(legal)
        bought += bool(night)
        copy = game.copy()
        events = game.apply(action)
        assert copy.apply_id(action_to_id(copy, action)) == events
        assert state_dict(copy) == state_dict(game)
        if game.turn is not None:
            seat = game.turn
            seen = view(game, seat)
            assert view(determinize(seen, random.Random(1)), seat) == seen
    assert bought, "the deal never let a seat buy the night shift"
    assert max(player.items.get("night_shift", 0) for player in game.players) <= 2
    assert state_dict(replay(make_record(game))) == state_dict(game)
    assert "night_shift" in state_dict(game)["players"][0]["items"]


def test_refusing_a_designer_item_leaves_the_game_as_it_was(tmp_path: Path) -> None:
    game = Game.new(players=1, seed=3, config=night_shift_config(tmp_path))
    while game.phase != "treatment":
        game.apply(game.legal_actions()[0])
    before = state_dict(game)
    with pytest.raises(RuleError) as refused:
        game.apply({"type": "buy", "item": "night_shift"})
    assert refused.value.code == "cannot_afford" and "Night shift costs 1 Credits" in refused.value.message
    assert state_dict(game) == before


def test_the_card_kinds_are_declared_once() -> None:
    """K1, K2, C2, T3: every kind's front, priority, death threshold and printed healing."""
    assert [kind.name for kind in KINDS] == ["critical", "severe", "chronic", "non_severe", "terminal"]
    assert STANDARD_KINDS == ("severe", "chronic", "non_severe")
    assert {kind.name: kind.dies_at for kind in KINDS} == {
        "critical": 1,
        "severe": 2,
        "chronic": None,
        "non_severe": None,
        "terminal": 1,
    }
    assert not KIND["chronic"].printed_healing and not KIND["non_severe"].takes_time_revealed
    assert all(kind.label and kind.help and kind.short for kind in KINDS)
    assert {supply.name for supply in SUPPLIES} == {
        "diagnostics",
        "healing",
        "congress",
        "helicopters",
        "staff",
        "spaces",
    }
