"""The shared integer action space and observation (triage.envs.encoding, triage.envs.table)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from envs_helpers import advanced_table, random_positions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.engine import Game, make_config, state_dict, view
from triage.engine.determinize import determinize
from triage.envs import EncodingError, IllegalActionError, Layout, Table


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_legal_action_has_its_own_integer_and_decodes_back(players: int) -> None:
    """Legal actions (each payment mix, T6) map to distinct integers that decode to them."""
    checked = 0
    for table in random_positions(players, range(6), every=3):
        seat = table.game.turn
        seat_view = table.view(seat)
        legal = table.game.legal_actions(seat)
        ids = [table.layout.encode(seat_view, action) for action in legal]
        assert len(set(ids)) == len(ids)
        assert all(0 <= index < table.layout.num_actions for index in ids)
        assert [table.layout.decode(seat_view, index) for index in ids] == legal
        assert np.flatnonzero(table.mask(seat)).tolist() == sorted(ids)
        checked += len(legal)
    assert checked > 100


def test_a_seat_that_is_not_to_decide_has_an_empty_mask() -> None:
    table = advanced_table(players=3, seed=2, steps=10)
    others = [seat for seat in range(3) if seat != table.game.turn]
    for seat in others:
        assert table.legal_ids(seat) == []
        assert table.mask(seat).sum() == 0
        with pytest.raises(IllegalActionError, match=f"it is player {table.game.turn}'s decision"):
            table.play(seat, table.layout.num_actions - 1)


def _treatment_table() -> Table:
    for table in random_positions(2, range(20), every=1):
        me = table.game.players[table.game.turn]
        if table.game.phase == "treatment" and me.credits == 0 and any(s is None for s in me.hospital):
            return table
    raise AssertionError("no treatment position found")


def test_an_integer_outside_the_mask_is_refused_clearly_and_changes_nothing() -> None:
    table = _treatment_table()
    seat = table.game.turn
    layout = table.layout
    before = state_dict(table.game)
    empty = next(index + 1 for index, slot in enumerate(table.game.players[seat].hospital) if slot is None)
    cases = {
        -1: "outside the action space",
        layout.num_actions: "outside the action space",
        layout.index("heal", empty - 1, 0, 0, 0): f"space {empty} holds no patient",
        layout.index("buy", 4): "cannot_afford: Staff costs 6 Credits.*T8",
        layout.index("reject", 0): "there is no pending patient #1",
    }
    for index, message in cases.items():
        with pytest.raises(IllegalActionError, match=message):
            table.play(seat, index)
        assert state_dict(table.game) == before
    with pytest.raises(IllegalActionError, match="an action is an integer"):
        table.play(seat, "pass")  # type: ignore[arg-type]


def test_an_overpaid_mix_is_refused_naming_the_payment_rule() -> None:
    for table in random_positions(2, range(20), every=1):
        seat = table.game.turn
        bound = table.layout.max_diagnosis
        cards = table.game.cards
        slots = [
            (n, s)
            for n, s in enumerate(table.game.players[seat].hospital, 1)
            if s and not s.revealed and (cards[s.card].diagnosis or 0) < bound
        ]
        if table.game.phase == "treatment" and slots:
            space = slots[0][0]
            index = table.layout.index("diagnose", space - 1, bound, 0)
            with pytest.raises(IllegalActionError, match=r"more than the cost .* \(T6\)"):
                table.play(seat, index)
            return
    raise AssertionError("no unrevealed patient found")


def _unknown_cards(seat_view: dict) -> list[str]:
    return [
        slot["card"]
        for player in seat_view["players"]
        for slot in player["hospital"].values()
        if slot is not None and "kind" not in slot
    ]


def test_the_observation_holds_nothing_the_seat_cannot_know() -> None:
    """I4: a world drawn to fit the seat's view, whose hidden backs differ, gives the same
    observation, mask and legal integers; and unknown backs are zeros with their flags off."""
    differing_worlds = 0
    for table in random_positions(2, range(8), every=5):
        for seat in range(2):
            seat_view = table.view(seat)
            world = Table(determinize(seat_view, random.Random(seat)), table.layout)
            if any(
                world.game.cards[c].back() != table.game.cards[c].back() for c in _unknown_cards(seat_view)
            ):
                differing_worlds += 1
            assert np.array_equal(world.observation(seat), table.observation(seat))
            assert world.legal_ids(seat) == table.legal_ids(seat)
    assert differing_worlds > 5


def test_observation_entries_follow_the_documented_names() -> None:
    table = advanced_table(players=3, seed=4, steps=25)
    layout = table.layout
    names = layout.feature_names()
    assert len(names) == layout.observation_size == len(set(names))
    for viewer in range(3):
        seat_view = table.view(viewer)
        values = dict(zip(names, table.observation(viewer).tolist()))
        assert values["deck_count"] == seat_view["deck_count"]
        assert values["p+3.present"] == 0.0
        for rel in range(3):
            player = seat_view["players"][(viewer + rel) % 3]
            assert values[f"p+{rel}.quality"] == player["quality"]
            assert values[f"p+{rel}.score"] == player["score"]
            for space, slot in player["hospital"].items():
                prefix = f"p+{rel}.space{space}"
                assert values[f"{prefix}.present"] == (slot is not None)
                if slot is None:
                    continue
                assert values[f"{prefix}.time"] == slot["time"]
                assert values[f"{prefix}.kind_known"] == ("kind" in slot)
                for kind in ("critical", "severe", "chronic", "non_severe"):
                    assert values[f"{prefix}.kind={kind}"] == (slot.get("kind") == kind)


def test_the_layout_needs_a_bounded_number_of_spaces() -> None:
    config = make_config({"market": {"outpatient_clinic": {"price": 7, "limit": None}}})
    game = Game.new(players=2, seed=1, config=config)
    with pytest.raises(EncodingError, match=r"market\.outpatient_clinic\.limit \(T8\)"):
        Layout.from_view(view(game, 0))


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_observation_from_the_game_is_the_observation_of_the_view(players: int) -> None:
    """Layout.observe_game skips building the view but gives its vector exactly, and a world
    drawn from the seat's view gives the same vector (I4)."""
    checked = 0
    for table in random_positions(players, range(10), every=3):
        for seat in range(players):
            from_view = table.layout.observe(view(table.game, seat))
            assert np.array_equal(table.layout.observe_game(table.game, seat), from_view)
            world = determinize(view(table.game, seat), random.Random(checked))
            assert np.array_equal(table.layout.observe_game(world, seat), from_view)
            checked += 1
    assert checked > 50


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(1, 4),
    seed=st.integers(0, 2**32),
    options=st.fixed_dictionaries(
        {
            "arrivals": st.integers(1, 3),
            "helicopter_draws": st.sampled_from(["wait", "reopen"]),
            "terminal_upkeep": st.sampled_from(["death", "reward"]),
            "return_to": st.sampled_from(["top", "bottom", "discard"]),
            "quality_floor": st.sampled_from([None, 0]),
        }
    ),
)
def test_kept_parts_of_an_observation_are_those_worked_out_afresh(
    players: int, seed: int, options: dict[str, object]
) -> None:
    """A table keeps each seat's numbers for the other players while their state
    (``Game.stamps``: every action, draw, V2 reopening and Cleanup takes a new one), the seat's
    knowledge and the turn stay the same: at every position of a whole game, on the dict and
    the integer paths, with seats observing in a random order, the kept vector is the one
    worked out afresh (I1-I4, every variant V1-V4)."""
    config = make_config(options)
    table = Table.deal(players=players, seed=seed, config=config)
    fresh = Layout.from_view(view(table.game, 0))
    rng = random.Random(seed)
    while not table.game.is_over():
        for seat in rng.sample(range(players), players):
            assert np.array_equal(table.observation(seat), fresh.observe_game(table.game, seat))
        seat = table.game.turn
        if rng.random() < 0.5:
            table.play(seat, rng.choice(table.legal_ids(seat)))
        else:
            table.game.apply(rng.choice(table.game.legal_actions()))


def test_the_remembered_card_features_stay_right_when_they_are_forgotten(monkeypatch) -> None:
    """Card features are remembered across games by card content; when the memory is cleared
    (here after every few entries) content numbers are handed out afresh, and no game may keep
    reading features through an old number: games played side by side stay exact."""
    from triage.envs import encoding

    monkeypatch.setattr(encoding, "_KEPT", 30)
    tables = [Table.deal(players=2, seed=seed) for seed in range(4)]
    rng = random.Random(0)
    checked = 0
    while any(not table.game.is_over() for table in tables):
        for table in tables:
            if table.game.is_over():
                continue
            for seat in range(2):
                assert np.array_equal(table.observation(seat), table.layout.observe(view(table.game, seat)))
                checked += 1
            seat = table.game.turn
            table.play(seat, rng.choice(table.legal_ids(seat)))
    assert checked > 200


def test_a_finished_game_refuses_every_integer_and_numpy_integers_are_taken() -> None:
    """R4: nothing is played after the end; a NumPy integer is an integer, a bool is not."""
    table = Table.deal(players=1, seed=3, config=make_config({"rounds": 1}))
    first = True
    while not table.game.is_over():
        ids = table.legal_ids(0)
        if first:
            with pytest.raises(IllegalActionError, match="an action is an integer"):
                table.play(0, True)  # type: ignore[arg-type]
            table.play(0, np.int64(ids[0]))
            first = False
        else:
            table.play(0, ids[-1])
    before = state_dict(table.game)
    with pytest.raises(IllegalActionError, match=r"the game is over.*\(R4\)"):
        table.play(0, 0)
    assert state_dict(table.game) == before


def test_observation_and_mask_come_together_as_apart() -> None:
    for table in random_positions(3, range(3), every=4):
        for seat in range(3):
            vector, mask = table.observation_and_mask(seat)
            assert np.array_equal(vector, table.observation(seat))
            assert np.array_equal(mask, table.mask(seat))


def test_a_layout_too_small_for_the_game_is_refused_naming_the_sizes() -> None:
    """K4/T8: a layout made for fewer hospital spaces cannot describe a game that may hold more."""
    small = Table.deal(players=2, seed=0, config=make_config({"market": {"clinical_trial": {"limit": 0}}}))
    large = Game.new(players=2, seed=0)
    with pytest.raises(EncodingError, match=r"this layout holds 6 spaces.*allow 7"):
        small.layout.observe_game(large, 0)
