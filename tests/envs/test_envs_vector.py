"""The native vector environment (triage.envs.vector): make_vec's vector_entry_point, batched
observations and masks, next-step autoreset, seeds, and equality with N single Triage-v0."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
from triage.engine import state_dict, view
from triage.engine.memory import learn_full
from triage.envs import IllegalActionError
from triage.envs.gymnasium import TriageEnv
from triage.envs.vector import TriageVectorEnv, random_actions


def make(num_envs: int, **kwargs: Any) -> TriageVectorEnv:
    envs = gymnasium.make_vec(
        "Triage-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )
    assert isinstance(envs, TriageVectorEnv)
    return envs


def test_make_vec_gives_the_native_vector_env_with_batched_spaces() -> None:
    envs = make(3)
    assert isinstance(envs, VectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.single_observation_space == gymnasium.make("Triage-v0").observation_space
    observations, infos = envs.reset(seed=5)
    assert envs.observation_space.contains(observations)
    assert observations["observation"].shape == (3, envs.layout.observation_size)
    assert observations["observation"].dtype == np.float32
    assert observations["action_mask"].shape == (3, envs.single_action_space.n)
    assert envs.action_space.shape == (3,)
    assert np.array_equal(infos["action_mask"], envs.action_masks())
    assert infos["action_mask"].dtype == np.bool_
    assert np.array_equal(infos["score"], [10, 10, 10]) and infos["_score"].all()


def test_default_vectorization_is_the_native_one() -> None:
    assert isinstance(gymnasium.make_vec("Triage-v0", num_envs=2), TriageVectorEnv)


def _single_envs(count: int, seed: int, **kwargs: Any) -> list[TriageEnv]:
    singles = [TriageEnv(**kwargs) for _ in range(count)]
    for index, single in enumerate(singles):
        single.reset(seed=seed + index)
    return singles


def _flat(observation: Any) -> np.ndarray:
    return observation["observation"] if isinstance(observation, dict) else observation


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"observation": "flat", "normalize": True},
        {"players": 2},
        {"players": 3, "returns": "margin"},
        {"players": 2, "config": "mini"},
    ],
)
def test_each_game_is_the_single_env_with_the_same_seed_and_actions(kwargs: dict[str, Any]) -> None:
    """Game i plays what Triage-v0 plays after reset(seed=seed + i), through autoresets (a single
    env's reset() without seed draws the next game as the vector env's autoreset does)."""
    count, seed = 3, 11
    envs = make(count, **kwargs)
    singles = _single_envs(count, seed, **kwargs)
    observations, _ = envs.reset(seed=seed)
    rng = np.random.default_rng(0)
    finished = [False] * count
    resets = 0
    for _ in range(260):
        actions = random_actions(envs.action_masks(), rng)
        observations, rewards, terminated, truncated, _infos = envs.step(actions)
        assert not truncated.any()
        for index, single in enumerate(singles):
            if finished[index]:
                expected, _ = single.reset()
                reward, done, resets = 0.0, False, resets + 1
            else:
                expected, reward, done, _, _ = single.step(int(actions[index]))
            finished[index] = done
            assert np.array_equal(_flat(observations)[index], _flat(expected))
            assert rewards[index] == pytest.approx(reward) and terminated[index] == done
            # a game that ended offers every action (the next step ignores it): never all zero
            legal = single.action_masks() if not done else np.ones_like(single.action_masks())
            assert np.array_equal(envs.action_masks()[index], legal)
    assert resets >= count  # every game ended at least once within 260 steps


def test_autoreset_is_next_step_a_new_game_with_reward_zero() -> None:
    envs = make(2, observation="flat")
    envs.reset(seed=3)
    rng = np.random.default_rng(1)
    while True:
        _, _, terminated, _, infos = envs.step(random_actions(envs.action_masks(), rng))
        if terminated.any():
            break
    ended = int(np.flatnonzero(terminated)[0])
    assert infos["_winner"][ended] and infos["winner"][ended] == -1  # solo: no winner (R4)
    assert envs.action_masks()[ended].all()  # an ended game offers every action; the next step ignores it
    _observations, rewards, terminated, _, infos = envs.step(np.zeros(2, np.int64))
    assert rewards[ended] == 0.0 and not terminated[ended]
    assert infos["score"][ended] == 10 and envs.action_masks()[ended].any()
    assert envs.slots[ended].table.game.round == 1


def test_seeds_make_games_repeat_and_differ() -> None:
    def play(seed: Any) -> list[np.ndarray]:
        envs = make(3, observation="flat")
        observations, _ = envs.reset(seed=seed)
        rng = np.random.default_rng(2)
        seen = [observations]
        for _ in range(80):
            seen.append(envs.step(random_actions(envs.action_masks(), rng))[0])
        return seen

    first, again = play(21), play(21)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0][0], first[0][1])  # games 0 and 1 are dealt apart
    listed = play([21, 22, 23])
    assert all(np.array_equal(a, b) for a, b in zip(first, listed))


def test_reset_mask_deals_only_where_true() -> None:
    envs = make(2, observation="flat")
    envs.reset(seed=4)
    envs.step(random_actions(envs.action_masks(), np.random.default_rng(0)))
    kept = state_dict(envs.slots[1].table.game)
    observations, _ = envs.reset(seed=[9, None], options={"reset_mask": np.array([True, False])})
    assert state_dict(envs.slots[1].table.game) == kept
    single = TriageEnv(observation="flat")
    assert np.array_equal(observations[0], single.reset(seed=9)[0])
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": [True]})


def test_an_illegal_action_is_refused_in_its_game_alone() -> None:
    envs = make(2)
    observations, _ = envs.reset(seed=6)
    before = state_dict(envs.slots[0].table.game)
    illegal = int(np.flatnonzero(observations["action_mask"][0] == 0)[-1])
    legal = int(np.flatnonzero(observations["action_mask"][1])[0])
    again, rewards, _, _, infos = envs.step(np.array([illegal, legal]))
    assert rewards[0] == -1.0 and infos["_illegal_action"].tolist() == [True, False]
    assert infos["illegal_action"][0].startswith(f"action {illegal} (")
    assert state_dict(envs.slots[0].table.game) == before
    assert np.array_equal(again["observation"][0], observations["observation"][0])
    raising = make(2, on_illegal="raise")
    raising.reset(seed=6)
    games = [state_dict(slot.table.game) for slot in raising.slots]
    with pytest.raises(IllegalActionError, match=f"game 0: action {illegal}"):
        raising.step(np.array([illegal, legal]))
    assert [state_dict(slot.table.game) for slot in raising.slots] == games  # no game moved


def test_observations_are_the_seat_views_vectors_and_infos_hide_nothing() -> None:
    """Each row is the layout's vector of seat 0's view (I4), raw or scaled by its bounds; infos
    carry seat 0's own score, mask and the winner only."""
    envs = make(2, players=2, observation="flat", encoding="raw")
    observations, infos = envs.reset(seed=8)
    rng = np.random.default_rng(3)
    for _ in range(40):
        for index, slot in enumerate(envs.slots):
            seat_view = view(slot.table.game, 0)
            assert np.array_equal(observations[index], envs.layout.observe(seat_view))
        assert set(infos) <= {
            "score", "_score", "action_mask", "_action_mask", "winner", "_winner",
            "illegal_action", "_illegal_action",
        }  # fmt: skip
        observations, _, _, _, infos = envs.step(random_actions(envs.action_masks(), rng))


def test_random_actions_picks_legal_integers_only() -> None:
    rng = np.random.default_rng(4)
    masks = np.zeros((3, 5), np.int8)
    masks[0, [1, 3]] = 1
    masks[2, 4] = 1
    for _ in range(50):
        chosen = random_actions(masks, rng)
        assert chosen[0] in (1, 3) and chosen[1] == 0 and chosen[2] == 4


def test_random_actions_draws_every_legal_integer_of_its_own_row() -> None:
    """The batch's draw reads each row's own legal integers (one flat index for the batch)."""
    rng = np.random.default_rng(9)
    masks = rng.random((40, 30)) < 0.2
    masks[5] = False  # a row with none gives 0
    seen: list[set[int]] = [set() for _ in masks]
    for _ in range(400):
        for row, action in enumerate(random_actions(masks, rng).tolist()):
            seen[row].add(action)
    assert seen == [set(np.flatnonzero(row).tolist()) or {0} for row in masks]


def test_random_actions_of_one_game_draws_as_the_batch_draws_its_first_row() -> None:
    """One row takes a shorter path: the same generator gives the same pick (and 0 for none)."""
    masks = np.random.default_rng(2).random((200, 1, 40)) < 0.15
    masks[7] = False
    for seed, single in enumerate(masks):
        batch = np.vstack([single, single])
        alone = random_actions(single, np.random.default_rng(seed))
        assert alone.dtype == np.int64 and alone.shape == (1,)
        assert alone[0] == random_actions(batch, np.random.default_rng(seed))[0]
    assert random_actions(masks[7], np.random.default_rng(0)).tolist() == [0]


def test_an_action_that_is_not_an_integer_is_refused_as_the_single_env_refuses_it() -> None:
    envs = make(1)
    single = TriageEnv()
    observations, _ = envs.reset(seed=3)
    single.reset(seed=3)
    legal_as_float = float(np.flatnonzero(observations["action_mask"][0])[0])
    _, rewards, _, _, infos = envs.step(np.array([legal_as_float]))
    _, reward, _, _, info = single.step(legal_as_float)  # type: ignore[arg-type]
    assert rewards[0] == reward == -1.0
    assert (
        infos["illegal_action"][0]
        == info["illegal_action"]
        == f"an action is an integer, got {legal_as_float!r}"
    )


def test_render_gives_each_games_view() -> None:
    envs = make(2, render_mode="ansi")
    envs.reset(seed=1)
    texts = envs.render()
    assert texts is not None and len(texts) == 2 and all(isinstance(text, str) for text in texts)
    images = make(1, render_mode="rgb_array")
    images.reset(seed=1)
    frames = images.render()
    assert frames is not None and frames[0].ndim == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs must be"),
        ({"num_envs": 2, "render_mode": "human"}, "render_mode must be one of"),
        ({"num_envs": 2, "on_illegal": "ignore"}, "on_illegal must be one of"),
        ({"num_envs": 2, "observation": "image"}, "observation must be one of"),
        ({"num_envs": 2, "players": 5}, "1 to 4 players"),
    ],
)
def test_bad_options_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TriageVectorEnv(**kwargs)


def test_step_takes_one_action_per_game() -> None:
    envs = make(2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="step takes 2 actions"):
        envs.step(np.array([0]))
    with pytest.raises(ValueError, match="one seed or 2 seeds"):
        envs.reset(seed=[1, 2, 3])


def test_one_layout_observing_games_in_turn_gives_each_its_own_vector() -> None:
    """Games observed in turn by one layout (what the vector env does): each vector equals the
    one of the seat's view. Card ids are shuffled handles (K1), so nothing worked out for one
    deal (its card numbering, the census's possible backs) may serve another."""
    import random

    from triage.envs import Table

    tables = [Table.deal(players=players, seed=seed) for players in (1, 2) for seed in range(4)]
    layout = tables[0].layout
    tables = [Table(table.game, layout) for table in tables]
    rng = random.Random(0)
    checked = 0
    while any(not table.game.is_over() for table in tables):
        for table in tables:
            game = table.game
            if game.is_over():
                continue
            for seat in range(len(game.players)):
                assert np.array_equal(table.observation(seat), layout.observe(view(game, seat)))
                checked += 1
            table.play(game.turn, rng.choice(table.legal_ids(game.turn)))
    assert checked > 500


def test_the_same_card_ids_known_in_two_deals_count_their_own_backs() -> None:
    """deck.possible counts the backs the seat knows outside the deck: one id names another back
    in another deal (K1), so the count kept for one deal's known ids must not serve another."""
    from triage.engine import Game
    from triage.envs import Layout

    first, second = Game.new(players=1, seed=1), Game.new(players=1, seed=2)
    card = next(
        card
        for card in sorted(first.seen_fronts & second.seen_fronts)  # a front seen in both (I1)
        if first.cards[card].back() != second.cards[card].back()
    )
    for game in (first, second):
        learn_full(game, 0, card)  # the seat saw that card's back (I2) in both deals
    layout = Layout.from_view(view(first, 0))
    for game in (first, second, first):
        assert np.array_equal(layout.observe_game(game, 0, {}), layout.observe(view(game, 0)))


def _play_until_an_end(envs: TriageVectorEnv, seed: int) -> tuple[Any, dict[str, Any], np.ndarray, Any]:
    """Step random legal actions until some game ends; the step's results."""
    rng = np.random.default_rng(seed)
    observations, infos = envs.reset(seed=seed)
    for _ in range(2_000):
        observations, _, terminated, _, infos = envs.step(random_actions(envs.action_masks(), rng))
        if terminated.any():
            return observations, infos, terminated, rng
    raise AssertionError("no game ended in 2,000 steps")


def test_next_step_rows_of_ended_games_offer_every_action_and_ignore_it() -> None:
    """Issue 42 point 4: never an all-zero mask (a masked policy with -inf logits would give NaN)."""
    envs = make(3, rounds=1)
    observations, infos, ended, rng = _play_until_an_end(envs, 5)
    masks = envs.action_masks()
    assert masks[ended].all() and observations["action_mask"][ended].all()
    assert all(row.any() for row in masks)
    observations, rewards, terminated, _, infos = envs.step(random_actions(masks, rng))
    assert not terminated[ended].any() and (rewards[ended] == 0).all()  # the new deal, action ignored
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP


def test_same_step_autoreset_deals_at_once_and_keeps_the_final_observation() -> None:
    envs = gymnasium.make_vec(
        "Triage-v0", num_envs=3, vectorization_mode="vector_entry_point", rounds=1, autoreset_mode="same_step"
    )
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    observations, infos, ended, _ = _play_until_an_end(envs, 6)  # type: ignore[arg-type]
    assert np.array_equal(infos["_final_obs"], ended) and np.array_equal(infos["_final_info"], ended)
    for index in np.flatnonzero(ended):
        final = infos["final_obs"][index]
        assert final["observation"].shape == observations["observation"][index].shape
        assert final["action_mask"].all()
        assert infos["final_info"]["winner"][index] in (-1, 0)
        assert observations["action_mask"][index].any()  # the new game's first decision
        assert infos["score"][index] == 10  # a fresh deal: QoC 10, VP 0
    assert all(row.any() for row in envs.action_masks())  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        make(1, autoreset_mode="disabled")


def test_the_same_step_final_observation_is_the_single_environments_last() -> None:
    envs = make(2, rounds=1, observation="flat", autoreset_mode="same_step")
    singles = [TriageEnv(rounds=1, observation="flat") for _ in range(2)]
    envs.reset(seed=40)
    for index, single in enumerate(singles):
        single.reset(seed=40 + index)
    rng = np.random.default_rng(40)
    finals = 0
    while finals < 2:
        actions = random_actions(envs.action_masks(), rng)
        _, _, terminated, _, infos = envs.step(actions)
        for index, single in enumerate(singles):
            observation, _, done, _, _ = single.step(int(actions[index]))
            if done:
                assert terminated[index] and np.array_equal(infos["final_obs"][index], observation)
                single.reset()
                finals += 1


def test_maskable_ppo_learns_on_the_sb3_adapter_of_the_native_vector_environment() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from triage.envs.sb3 import TriageVecEnv

    envs = TriageVecEnv(num_envs=4, rounds=1, observation="flat", normalize=True)
    envs.seed(3)
    first = envs.reset()
    envs.seed(3)
    assert np.array_equal(envs.reset(), first)  # seeded like make_vec_env's environments
    model = MaskablePPO("MlpPolicy", envs, n_steps=64, batch_size=64, seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    rng = np.random.default_rng(1)
    for _ in range(200):
        envs.step_async(random_actions(envs.action_masks(), rng))
        observations, rewards, dones, infos = envs.step_wait()
        for index in np.flatnonzero(dones):
            assert infos[index]["terminal_observation"].shape == observations[index].shape
            assert infos[index]["TimeLimit.truncated"] is False
    with pytest.raises(AttributeError, match="action_masks"):
        envs.env_method("render")
