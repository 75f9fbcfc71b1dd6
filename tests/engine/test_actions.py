"""Integer actions (triage.engine.actions): the id path plays the very game the dict path plays.

Two copies of one deal are played side by side, one with ``legal_action_ids``/``apply_id``, the
other with ``legal_actions``/``apply``, picking the same position in both listings. After every
action the events, the full state, the history, the generator, the knowledge sets and (every few
actions) every seat's view must be equal, and the id listing must translate one to one into the
dict listing. Games cover 1-4 players, every variant (V1 return_to, also per case; V2
helicopter_draws; V3 terminal_upkeep; V4 quality_floor), short and long games and rich starting
holdings, so that every payment mix, Helicopter target and market item occurs.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.test_properties import GAME_FIELDS
from triage.engine import Game, RuleError, make_config, state_dict, view
from triage.engine.actions import (
    ActionSpace,
    EncodingError,
    IllegalActionError,
    action_space,
    action_to_id,
    id_to_action,
    plan_of,
)
from triage.engine.cards import STANDARD_DECK_KEY, load_standard_deck
from triage.engine.records import make_record, replay

variants = st.fixed_dictionaries(
    {
        **GAME_FIELDS,
        "choices": st.integers(0, 2**32),
        "staff": st.integers(0, 3),
        "congress": st.integers(0, 3),
        "helicopters": st.integers(0, 3),
        "credits": st.sampled_from([0, 0, 5, 30]),
        "end_on_zero_quality": st.booleans(),
    }
)


def deal(spec: dict[str, Any]) -> Game:
    config = make_config(
        {
            "return_to": spec["return_to"],
            "rounds": spec["rounds"],
            "arrivals": spec["arrivals"],
            "end_on_zero_quality": spec["end_on_zero_quality"],
            "helicopter_draws": spec["helicopter_draws"],
            "terminal_upkeep": spec["terminal_upkeep"],
            "quality_floor": spec["quality_floor"],
            "final_round_order": spec.get("final_round_order", "rotate"),
            "start": {
                "staff": spec["staff"],
                "congress": spec["congress"],
                "helicopters": spec["helicopters"],
                "credits": spec["credits"],
            },
        }
    )
    return Game.new(players=spec["players"], seed=spec["seed"], config=config)


def knowledge(game: Game) -> Any:
    return (
        [sorted(known) for known in game.know_full],
        [sorted(known) for known in game.know_priority],
        sorted(game.not_severe),
        sorted(game.seen_fronts),
        sorted(game.known_positions),
    )


def check_listing(game: Game, ids: list[int], legal: list[dict[str, Any]]) -> None:
    assert len(ids) == len(set(ids)) == len(legal), "ids must be distinct, one per legal action"
    assert [id_to_action(game, action_id) for action_id in ids] == legal
    assert [action_to_id(game, action) for action in legal] == ids


def play_side_by_side(spec: dict[str, Any]) -> tuple[Game, Game, set[str]]:
    by_id, by_dict = deal(spec), deal(spec)
    rng = random.Random(spec["choices"])
    step = 0
    blocks: set[str] = set()
    index = action_space(by_id)
    while by_dict.turn is not None:
        ids = by_id.legal_action_ids()
        legal = by_dict.legal_actions()
        check_listing(by_dict, ids, legal)
        pick = rng.randrange(len(legal))
        blocks.add(index.split(ids[pick])[0])
        assert by_id.apply_id(ids[pick]) == by_dict.apply(legal[pick])
        assert state_dict(by_id) == state_dict(by_dict)
        assert by_id.history == by_dict.history
        assert by_id.rng.getstate() == by_dict.rng.getstate()
        assert knowledge(by_id) == knowledge(by_dict)
        if step % 5 == 0:
            for seat in range(by_dict.num_players):
                assert view(by_id, seat) == view(by_dict, seat)
        step += 1
    assert by_id.turn is None and by_id.legal_action_ids() == []
    for seat in range(by_dict.num_players):
        assert view(by_id, seat) == view(by_dict, seat)
    return by_id, by_dict, blocks


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=variants)
def test_the_id_path_plays_the_same_game_as_the_dict_path(spec: dict[str, Any]) -> None:
    by_id, _, _ = play_side_by_side(spec)
    # D1: the id path's record replays through the dict path to the identical game.
    assert state_dict(replay(make_record(by_id))) == state_dict(by_id)


def test_every_block_of_the_index_is_played() -> None:
    """The side-by-side games reach every kind of action (so the property test covers them)."""
    seen: set[str] = set()
    for seed in range(40):
        spec = {
            "players": 1 + seed % 4,
            "seed": seed,
            "choices": seed,
            "return_to": ("top", "bottom", "discard")[seed % 3],
            "rounds": 6,
            "arrivals": 2 + seed % 2,
            "staff": 2,
            "congress": 2,
            "helicopters": 2,
            "credits": 30,
            "end_on_zero_quality": False,
            "helicopter_draws": ("wait", "reopen")[seed % 2],
            "terminal_upkeep": ("death", "reward")[seed // 2 % 2],
            "quality_floor": (None, 0)[seed // 4 % 2],
        }
        seen |= play_side_by_side(spec)[2]
    assert seen == {"admit", "reject", "diagnose", "heal", "treat", "helicopter", "buy", "pass"}


def test_the_index_depends_on_public_data_only() -> None:
    """Every seat, every deal of one deck and configuration, and the index from a view agree (a
    player count that plays other rounds has its own configuration, R1: four players play four)."""
    first = action_space(Game.new(players=2, seed=1))
    assert action_space(Game.new(players=3, seed=99)) == first
    four = view(Game.new(players=4, seed=7), 3)
    assert action_space(Game.new(players=4, seed=99)) == ActionSpace(
        *ActionSpace.sizes(four["config"], four["catalogue"])
    )
    seen = view(Game.new(players=3, seed=5), 2)
    assert ActionSpace(*ActionSpace.sizes(seen["config"], seen["catalogue"])) == first
    assert first.num_actions == 716
    assert first.split(first.index("heal", 2, 1, 1, 0)) == ("heal", (2, 1, 1, 0))


def test_deals_of_the_standard_deck_share_one_plan_and_other_decks_get_their_own() -> None:
    """The plan depends on the deck's contents and the configuration only, so deals of the
    standard deck (``Game.deck_key``) share it; a deal of another deck list, or under another
    configuration, gets its own, with its own sizes (T1, T8)."""
    first, second = Game.new(players=2, seed=1), Game.new(players=3, seed=2)
    assert first.deck_key == STANDARD_DECK_KEY and first.copy().deck_key == STANDARD_DECK_KEY
    assert plan_of(first) is plan_of(second)
    assert plan_of(Game.new(players=2, seed=1, config=make_config({"rounds": 7}))) is not plan_of(first)
    deck = [card for card in load_standard_deck() if card.kind != "terminal"]
    own = Game.new(players=2, seed=1, deck=deck)
    assert own.deck_key is None
    assert plan_of(own) is not plan_of(first)
    assert action_space(own).terminals == 0 and action_space(first).terminals > 0
    rng = random.Random(3)
    while own.turn is not None:  # its ids are its own deck's
        ids = own.legal_action_ids()
        assert [id_to_action(own, i) for i in ids] == own.legal_actions()
        own.apply_id(rng.choice(ids))


def test_every_id_round_trips_and_numbers_only_mixes_that_can_pay() -> None:
    """T6: the index numbers a (staff, congress) mix only if it fits the cost bound (D, the
    largest printed diagnosis, T1; the amount for a healing); every id splits into fields that
    index back to it."""
    index = action_space(Game.new(players=2, seed=1))
    mixes = {"diagnose": set(), "heal": set()}
    for number in range(index.num_actions):
        block, fields = index.split(number)
        assert index.index(block, *fields) == number
        if block == "diagnose":
            assert fields[1] + fields[2] <= index.max_diagnosis
            mixes[block].add(fields[1:])
        if block == "heal":
            assert fields[2] + fields[3] <= fields[1] + 1
            mixes[block].add(fields[1:])
    deck = Game.new(players=2, seed=1).cards.values()
    assert index.max_diagnosis == max(card.diagnosis or 0 for card in deck) == 3
    bound = index.max_diagnosis
    assert len(mixes["diagnose"]) == (bound + 1) * (bound + 2) // 2
    bound = index.max_cost
    assert len(mixes["heal"]) == sum((amount + 1) * (amount + 2) // 2 for amount in range(1, bound + 1))
    with pytest.raises(EncodingError, match=r"staff \+ congress at most its cost"):
        index.index("heal", 0, 0, 1, 1)  # two units of means for a healing of one


def test_unknown_ids_and_actions_are_refused_with_their_reason() -> None:
    game = Game.new(players=2, seed=4)
    index = action_space(game)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        id_to_action(game, index.num_actions)
    with pytest.raises(IllegalActionError, match="an action is an integer"):
        id_to_action(game, "3")  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="space 4 holds no patient"):
        id_to_action(game, index.index("diagnose", 3, 0, 0))
    with pytest.raises(EncodingError, match="not a pending patient"):
        action_to_id(game, {"type": "admit", "card": "nobody", "space": 1})
    with pytest.raises(EncodingError, match="unknown action type"):
        action_to_id(game, {"type": "fly"})
    # An id that decodes but is not legal now is refused by the dict path with the rule.
    with pytest.raises(RuleError):
        game.apply(id_to_action(game, index.index("pass", 0)))


def test_apply_id_after_the_end_is_refused() -> None:
    game = Game.new(players=1, seed=2, config=make_config({"rounds": 1}))
    while game.turn is not None:
        game.apply_id(game.legal_action_ids()[-1])
    with pytest.raises(RuleError, match="game is over"):
        game.apply_id(action_space(game).index("pass", 0))
