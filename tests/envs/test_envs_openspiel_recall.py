"""OpenSpiel's information state has perfect recall, and a public-only observer exists."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

import triage.envs.openspiel  # noqa: F401 - registers "triage"
from triage.engine import spectator_view, view
from triage.envs.openspiel import TriageState


def _two_paths() -> tuple[pyspiel.State, pyspiel.State]:
    """Two states that seat 0 sees alike, reached from one state by two different pairs of
    decisions (two admissions in either order, two purchases...)."""
    game = pyspiel.load_game("triage", {"players": 2, "seed": 3})
    for seed in range(20):
        state = game.new_initial_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            reached: dict[str, pyspiel.State] = {}
            for first in state.legal_actions():
                child = state.child(first)
                for second in child.legal_actions() if not child.is_terminal() else []:
                    grandchild = child.child(second)
                    seen = grandchild.observation_string(0)
                    if seen in reached and reached[seen].history() != grandchild.history():
                        return reached[seen], grandchild
                    reached[seen] = grandchild
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("no two paths to one position")


def test_the_information_state_remembers_the_order_of_decisions() -> None:
    """The same position by two paths: equal observations, different information states."""
    one, other = _two_paths()
    player = one.current_player()
    assert np.array_equal(one.observation_tensor(player), other.observation_tensor(player))
    assert not np.array_equal(one.information_state_tensor(player), other.information_state_tensor(player))
    assert one.information_state_string(player) != other.information_state_string(player)


def test_the_information_state_holds_the_observation_then_the_record() -> None:
    game = pyspiel.load_game("triage", {"players": 2, "seed": 5, "tensors": "raw"})
    state = game.new_initial_state()
    rng = random.Random(5)
    for _ in range(30):
        state.apply_action(rng.choice(state.legal_actions()))
    assert isinstance(state, TriageState)
    size = len(state.observation_tensor(0))
    tensor = state.information_state_tensor(0)
    assert np.array_equal(tensor[:size], state.observation_tensor(0))
    assert np.array_equal(tensor[:size], state._settings.layout.observe(view(state.engine, 0)))
    record = [value for value in tensor[size:] if value]
    decisions = [value for value in record if value <= 2 * game.num_distinct_actions()]
    assert len(decisions) == 30
    assert len(record) > 30  # the deal's and the game's draws
    assert game.information_state_tensor_shape() == [len(tensor)]


def test_the_public_observer_sees_what_every_player_knows() -> None:
    game = pyspiel.load_game("triage", {"players": 3, "seed": 8})
    public = make_observation(
        game, pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    state = game.new_initial_state()
    rng = random.Random(8)
    checked = 0
    while not state.is_terminal():
        public.set_from(state, 0)
        first = np.array(public.tensor)
        public.set_from(state, 2)
        assert np.array_equal(first, public.tensor)  # the same for every player
        assert isinstance(state, TriageState)
        engine = state.engine
        assert engine is not None
        expected = state._settings.layout.observe(spectator_view(engine))
        assert np.array_equal(first, expected * game.scales.observation)
        assert public.string_from(state, 1) == public.string_from(state, 0)
        checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 20


def test_the_all_players_observer_is_refused() -> None:
    game = pyspiel.load_game("triage", {"players": 2})
    try:
        make_observation(
            game,
            pyspiel.IIGObservationType(
                perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
            ),
        )
    except ValueError as refused:
        assert "ALL_PLAYERS" in str(refused)
    else:
        raise AssertionError("an all-seeing observer was made")


def _fresh_information_state(game: pyspiel.Game, state: pyspiel.State, player: int) -> np.ndarray:
    """The information-state tensor written by an observer of its own (nothing kept from before)."""
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    observer.set_from(state, player)
    return np.array(observer.tensor)


def test_the_record_part_kept_between_states_equals_one_written_afresh() -> None:
    """The game's observer writes only the record's new entries when it last wrote the start of
    the same record: asked of states, clones and children in any order (a clone stepped apart,
    the original again, a state read back), each tensor equals one from a fresh observer."""
    game = pyspiel.load_game("triage", {"players": 2, "seed": 9})
    rng = random.Random(9)
    states = [game.new_initial_state()]
    while states[0].is_chance_node():
        states[0].apply_action(rng.choice(states[0].legal_actions()))
    for step in range(120):
        state = rng.choice([s for s in states if not s.is_terminal()])
        roll = rng.random()
        if roll < 0.2:
            states.append(state.clone())
        elif roll < 0.25:
            states.append(
                pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
            )
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        asked = rng.choice(states)
        player = rng.randrange(2)
        kept = asked.information_state_tensor(player)
        assert np.array_equal(kept, _fresh_information_state(game, asked, player)), step


def test_an_observer_read_back_keeps_its_parts_as_views_of_its_tensor() -> None:
    game = pyspiel.load_game("triage", {"players": 2, "seed": 9})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    observer = again._settings.fast_observers[1]
    assert np.shares_memory(observer.dict["view"], observer.tensor)
    assert np.shares_memory(observer.dict["record"], observer.tensor)
    assert np.array_equal(again.information_state_tensor(0), _fresh_information_state(game, state, 0))
