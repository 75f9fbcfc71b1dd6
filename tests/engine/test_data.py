"""Configuration and deck files: validated on load, with errors naming the file, card and field."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from triage.engine import DataError, Game, load_config, load_deck, load_standard_deck, make_config, view
from triage.engine.cards import KINDS
from triage.engine.config import parse_assignment


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_default_configuration_holds_every_outer_game_value() -> None:
    config = make_config()
    assert (config.rounds, config.arrivals, config.end_on_zero_quality, config.return_to) == (
        6,
        2,
        True,
        "top",
    )
    assert (config.income_diagnostics, config.income_healing) == (2, 3)
    assert dict(config.start) == {
        "quality": 10,
        "vp": 0,
        "credits": 0,
        "diagnostics": 0,
        "healing": 0,
        "staff": 1,
        "congress": 0,
        "helicopters": 1,
    }
    prices = {name: (item.price, item.limit) for name, item in config.market.items()}
    assert prices == {
        "diagnostics": (2, None),
        "healing": (2, None),
        "congress": (3, None),
        "helicopter": (4, None),
        "staff": (5, None),  # the lowest of its table by player count
        "clinical_trial": (2, 1),
        "outpatient_clinic": (2, 2),
    }
    # T8, R1: Staff costs 5 at 4 players, where it had too few buyers under strong play, and every
    # 4-player seat but the strong second one starts with Credits (Change 6,
    # docs/notes/balance-change-6-four-players-fair-under-strong-play.md).
    assert [config.for_players(count).market["staff"].price for count in (1, 2, 3, 4)] == [6, 6, 6, 5]
    assert config.seat_credits == {3: (1, 0, 1), 4: (1, 0, 1, 2)}


def test_config_file_overrides_only_what_it_names(tmp_path: Path) -> None:
    path = write(tmp_path, "c.toml", 'return_to = "discard"\n[market.staff]\nprice = 4\n')
    config = load_config(path)
    assert config.return_to == "discard" and config.market["staff"].price == 4
    assert config.market["staff"].limit is None and config.rounds == 6


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("rounds = 0\n", "rounds must be a whole number >= 1"),
        ('return_to = "side"\n', "return_to must be one of top, bottom, discard (V1)"),
        ("turns = 3\n", "unknown configuration key 'turns'"),
        ("[market.staff]\nprize = 3\n", "unknown configuration key 'market.staff.prize'"),
        ("[income]\nhealing = -1\n", "income.healing must be a whole number >= 0"),
        ("end_on_zero_quality = 1\n", "end_on_zero_quality must be true or false"),
        ("rounds = [\n", "not valid TOML"),
    ],
)
def test_bad_config_files_name_the_file_and_key(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path, "bad.toml", text)
    with pytest.raises(DataError) as caught:
        load_config(path)
    assert str(path) in str(caught.value) and fragment in str(caught.value)


def test_missing_config_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read the configuration file"):
        load_config(tmp_path / "nope.toml")


def test_set_assignments_are_read_as_toml_values() -> None:
    assert parse_assignment("end_on_zero_quality=false") == {"end_on_zero_quality": False}
    assert make_config(parse_assignment("income.healing=4")).income_healing == 4
    with pytest.raises(DataError, match="expected key=value"):
        parse_assignment("rounds")


def test_standard_deck_has_about_forty_cards_of_all_five_kinds() -> None:
    deck = load_standard_deck()
    assert 36 <= len(deck) <= 44
    assert {card.kind for card in deck} == set(KINDS)
    assert len({card.id for card in deck}) == len(deck)


@pytest.mark.parametrize(
    "card, fragment",
    [
        ('{ id = "X", kind = "grave" }', "card 1 (X): field 'kind' must be one of"),
        (
            '{ id = "X", kind = "severe", diagnosis = 1 }',
            "card 1 (X): field 'healing' is required for a severe card",
        ),
        (
            '{ id = "X", kind = "chronic", healing = 2 }',
            "card 1 (X): field 'healing' does not apply to a chronic card (T3)",
        ),
        (
            '{ id = "X", kind = "critical", healing = 2, diagnosis = 1 }',
            "field 'diagnosis' does not apply to a critical card",
        ),
        (
            '{ id = "X", kind = "terminal", credits = -1 }',
            "card 1 (X): field 'credits': expected a whole number >= 0",
        ),
        ('{ id = "X", kind = "severe", healing = 2, colour = "red" }', "card 1: unknown field 'colour'"),
        ('{ kind = "severe", healing = 2 }', "card 1: field 'id' must be a non-empty string"),
    ],
)
def test_bad_deck_files_name_the_file_card_and_field(tmp_path: Path, card: str, fragment: str) -> None:
    path = write(tmp_path, "deck.toml", f"cards = [ {card} ]\n")
    with pytest.raises(DataError) as caught:
        load_deck(path)
    assert str(path) in str(caught.value) and fragment in str(caught.value)


@pytest.mark.parametrize(
    "card, missing",
    [
        ('{ id = "S", kind = "severe", healing = 3, credits = 2, vp = 3 }', "diagnosis"),
        ('{ id = "S", kind = "non_severe", diagnosis = 1, healing = 2, vp = 1 }', "credits"),
        ('{ id = "S", kind = "critical", healing = 3, credits = 2 }', "vp"),
        ('{ id = "S", kind = "terminal", vp = 0 }', "credits"),
    ],
)
def test_a_deck_card_missing_a_field_its_kind_prints_is_refused_by_name(
    tmp_path: Path, card: str, missing: str
) -> None:
    """Issue 41 point 5: a severe card without ``diagnosis`` was read as diagnosis 0 (K1)."""
    path = write(tmp_path, "deck.toml", f"cards = [ {card} ]\n")
    with pytest.raises(
        DataError, match=rf"card 1 \(S\): field '{missing}' is required for a \w+ card \(K1\)"
    ):
        load_deck(path)


def test_scenarios_keep_their_formats_defaults_for_a_cards_numbers() -> None:
    """scenario-format.md: in a scenario, ``diagnosis``, ``credits`` and ``vp`` default to 0."""
    from triage.engine.cards import parse_card

    card = parse_card({"kind": "severe", "healing": 2}, "scenario: cards.S1", "S1", defaults=True)
    assert (card.diagnosis, card.credits, card.vp) == (0, 0, 0)
    with pytest.raises(DataError, match="field 'healing' is required"):
        parse_card({"kind": "severe"}, "scenario: cards.S1", "S1", defaults=True)


def test_duplicate_card_ids_are_refused(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "deck.toml",
        'cards = [ { id = "A", kind = "terminal", credits = 1, vp = 0 }, '
        '{ id = "A", kind = "terminal", credits = 1, vp = 0 } ]\n',
    )
    with pytest.raises(DataError, match="card 2: id 'A' is used twice"):
        load_deck(path)


def test_a_custom_deck_plays(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "deck.toml",
        'cards = [ { id = "A", kind = "non_severe", diagnosis = 1, healing = 1, credits = 0, vp = 2 },'
        ' { id = "B", kind = "terminal", credits = 1, vp = 0 } ]\n',
    )
    game = Game.new(players=1, deck=load_deck(path), seed=1)
    assert sorted(game.cards) == ["P01", "P02"]
    assert sorted(game.origins.values()) == ["A", "B"]


def test_dealt_ids_are_neutral_handles() -> None:
    """K1: the ids a player sees do not follow the deck file, nor the deck order."""
    origins = [tuple(Game.new(players=2, seed=seed).origins.items()) for seed in range(20)]
    assert len(set(origins)) == 20
    deck_orders = {tuple(Game.new(players=2, seed=seed).deck[:5]) for seed in range(20)}
    assert len(deck_orders) == 20


# ---------------------------------------------------------------------- variants V1-V4, solo tiers


def test_variant_values_are_validated_with_their_rule_id() -> None:
    import pytest

    from triage.engine.config import make_config
    from triage.engine.errors import DataError

    cases = [
        ({"helicopter_draws": "always"}, "helicopter_draws must be one of wait, reopen (V2)"),
        ({"terminal_upkeep": "never"}, "terminal_upkeep must be one of death, reward (V3)"),
        ({"quality_floor": "zero"}, "quality_floor (V4) must be a whole number"),
        ({"final_round_order": "leader_last"}, "final_round_order must be one of rotate, trailing_last (R1)"),
        ({"seat_credits": {"3": [1, 0]}}, "seat_credits.3 must list 3 numbers, one per seat (R1)"),
        ({"seat_credits": {"3": [1, -1, 0]}}, "seat_credits.3[1] must be a whole number >= 0"),
        ({"seat_credits": {"5": [0, 0, 0, 0, 0]}}, "unknown configuration key 'seat_credits.5'"),
        ({"seat_credits": [0, 1]}, "seat_credits must be a table"),
        ({"seat_vp": {"2": [1]}}, "seat_vp.2 must list 2 numbers, one per seat (R1)"),
        ({"seat_vp": {"4": [0, 0, 0, -1]}}, "seat_vp.4[3] must be a whole number >= 0"),
        ({"rounds": {"4": 0}}, "rounds.4 must be a whole number >= 1"),
        ({"rounds": {"0": 6}}, "unknown configuration key 'rounds.0'"),
        ({"rounds": "six"}, "rounds must be a whole number >= 1"),
        ({"market": {"staff": {"price": {"4": -1}}}}, "market.staff.price.4 must be a whole number >= 0"),
        ({"market": {"staff": {"price": {"5": 4}}}}, "unknown configuration key 'market.staff.price.5'"),
        (
            {"market": {"night_shift": {"price": {"4": 1}, "gives": {"healing": 2}}}},
            "market.night_shift.price by player count must give every count 1-4 (T8); missing: 1, 2, 3",
        ),
        (
            {"market": {"night_shift": {"price": {"0": 1}, "gives": {"healing": 2}}}},
            "market.night_shift.price.0: the player count must be 1, 2, 3 or 4 (T8)",
        ),
        (
            {"market": {"healing": {"price": {"2": 0}}}},
            "market.healing: price 0 with no limit lets a round go on forever (T8)",
        ),
        ({"return_to": {"cured": "sideways"}}, "return_to.cured must be one of top, bottom, discard (V1)"),
        ({"return_to": {"healed": "top"}}, "return_to has no case 'healed'"),
        ({"solo": {"tiers": [{"name": "gold"}]}}, "solo.tiers[0] must be a table of exactly name and score"),
        (
            {"solo": {"tiers": [{"name": "a", "score": 1}, {"name": "a", "score": 2}]}},
            "names must be distinct",
        ),
    ]
    for overrides, message in cases:
        with pytest.raises(
            DataError,
            match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]"),
        ):
            make_config(overrides)


def test_configuration_round_trips_through_its_dict_with_every_variant() -> None:
    from triage.engine.config import make_config

    config = make_config(
        {
            "return_to": {"cured": "bottom", "rejected": "discard"},
            "helicopter_draws": "reopen",
            "terminal_upkeep": "reward",
            "quality_floor": 0,
            "final_round_order": "trailing_last",
            "solo": {"tiers": [{"name": "pass", "score": 20}]},
            "seat_credits": {"4": [0, 1, 1, 2]},
            "seat_vp": {"3": [2, 0, 1]},
            "rounds": {"1": 5, "4": 7},
            "market": {"staff": {"price": {"4": 4}}},
        }
    )
    assert make_config(config.to_dict()) == config
    assert [config.return_place(case) for case in ("cured", "died", "rejected")] == [
        "bottom",
        "top",
        "discard",
    ]
    assert config.uses_discard


def test_rounds_by_player_count_give_each_game_its_own_count() -> None:
    """R1: ``rounds`` may be a table by player count; a table over one number keeps that number
    for the counts it does not name, and one number for every count replaces a table."""
    import pytest

    from triage.engine.config import make_config
    from triage.engine.errors import DataError

    config = make_config({"rounds": {"4": 3}})
    assert [Game.new(players=count, seed=1, config=config).config.rounds for count in (1, 2, 3, 4)] == [
        6,
        6,
        6,
        3,
    ]
    four = Game.new(players=4, seed=1, config=config)
    assert four.setup["config"]["rounds"] == 3  # the record and every view show the game's own count
    while four.turn is not None:
        four.apply(four.legal_actions()[-1])
    assert four.round == 3  # the game ended after the Cleanup of its third round (R4)
    assert make_config({"rounds": {"1": 4, "2": 4, "3": 4, "4": 4}}).to_dict()["rounds"] == 4
    assert make_config({"rounds": 5}).for_players(4).rounds == 5
    with pytest.raises(DataError, match=r"must give every count 1-4 \(R1\); missing: 1, 2, 3"):
        from triage.engine.config import _validate, default_values

        _validate({**default_values(), "rounds": {"4": 8}}, "config")


def test_an_items_price_by_player_count_is_each_games_own() -> None:
    """T8: an item's ``price`` may be a table by player count, as R1's rounds: a table over one
    number keeps that number for the counts it does not name; a game, its record and its views
    hold its own count's price, and the purchase pays it."""
    from triage.engine.config import make_config, parse_assignments
    from triage.engine.errors import RuleError

    config = make_config(parse_assignments(["market.staff.price={4 = 4}"]))
    assert config.to_dict()["market"]["staff"]["price"] == {"1": 6, "2": 6, "3": 6, "4": 4}
    assert make_config(parse_assignments(["market.staff.price.4=4"])) == config  # what a sweep sets
    assert make_config({"market": {"staff": {"price": 4}}}).market["staff"].prices == ()
    for players, price in ((2, 6), (3, 6), (4, 4)):
        game = Game.new(players=players, seed=1, config=config)
        assert game.config.market["staff"].price == price
        assert view(game, 0)["config"]["market"]["staff"]["price"] == price
        assert game.setup["config"]["market"]["staff"]["price"] == price
        while game.phase != "treatment" or game.turn is None:
            game.apply(game.legal_actions()[0])
        seat = game.turn
        game.players[seat].credits = 5
        buy = {"type": "buy", "item": "staff"}
        if price > 5:
            with pytest.raises(RuleError, match=f"Staff costs {price} Credits; player {seat} has 5"):
                game.apply(buy)
        else:
            game.apply(buy)
            assert game.players[seat].credits == 5 - price and game.players[seat].staff == 2
    # One number for every count, or a table giving every count the same, is one price.
    assert (
        make_config({"market": {"staff": {"price": {"1": 5, "2": 5, "3": 5, "4": 5}}}})
        .market["staff"]
        .to_dict()["price"]
        == 5
    )
    # A game of one count is the game of that price: the same fitted values (its fingerprint).
    assert (
        Game.new(players=4, seed=1, config=config).config.to_dict()
        == Game.new(
            players=4, seed=1, config=make_config({"market": {"staff": {"price": 4}}})
        ).config.to_dict()
    )

    # R1: a count outside 1-4 is refused by name before any count's price is looked up.
    for players in (0, 5):
        with pytest.raises(ValueError, match=f"a game has 1 to 4 players \\(R1\\), got {players}"):
            Game.new(players=players, seed=1, config=config)


def test_solo_tier_names_the_best_tier_reached_and_none_on_a_loss() -> None:
    from triage.engine import Game
    from triage.engine.config import make_config

    config = make_config(
        {"solo": {"tiers": [{"name": "low", "score": -100}, {"name": "high", "score": 1000}]}}
    )
    game = Game.new(players=1, seed=2, config=config)
    while game.turn is not None:
        game.apply({"type": "pass"} if not game.in_admission(game.turn) else game.legal_actions()[0])
    assert game.is_over()
    expected = "low" if game.players[0].quality > 0 else None
    assert game.solo_tier() == expected
    duo = Game.new(players=2, seed=2, config=config)
    assert duo.solo_tier() is None


def test_a_configuration_made_from_another_works_out_its_own_derived_parts() -> None:
    """Config.derived caches what is worked out from one configuration (a view's fixed parts):
    a configuration made from another by dataclasses.replace starts without them."""
    config = make_config()
    view(Game.new(players=2, seed=1, config=config), 0)
    shorter = dataclasses.replace(config, rounds=3, rounds_by_players={})  # one count for all (R1)
    assert shorter.derived == {}
    assert view(Game.new(players=2, seed=1, config=shorter), 0)["config"]["rounds"] == 3


def test_seat_credits_start_each_seat_with_its_own_credits() -> None:
    """R1, R3: a seat's start.credits plus its seat_credits for the game's player count only."""
    from triage.engine.config import make_config
    from triage.engine.game import Game

    config = make_config({"start": {"credits": 1}, "seat_credits": {"3": [0, 2, 1]}})
    assert [player.credits for player in Game.new(players=3, seed=0, config=config).players] == [1, 3, 2]
    assert [player.credits for player in Game.new(players=2, seed=0, config=config).players] == [1, 1]
    assert [player.credits for player in Game.new(players=1, seed=0, config=config).players] == [1]
