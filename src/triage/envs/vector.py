"""``Triage-v0`` as a native Gymnasium vector environment: N games stepped in one call.

>>> import gymnasium
>>> import triage.envs.gymnasium
>>> envs = gymnasium.make_vec("Triage-v0", num_envs=3, vectorization_mode="vector_entry_point")
>>> observations, infos = envs.reset(seed=7)
>>> observations["observation"].shape[0], envs.action_masks().shape == (3, envs.single_action_space.n)
(3, True)

:class:`TriageVectorEnv` takes the options of :class:`~triage.envs.gymnasium.TriageEnv` (``rounds``,
``players``, ``opponents``, ``returns``, ``observation``, ``normalize``, ``on_illegal``, ...) and
plays the same games: game ``i`` is what a single ``Triage-v0`` would play after
``reset(seed=seed + i)`` with the same actions (a test holds them equal). What it saves is the
per-environment wrapping: one call steps every game on the engine's integer path, writes every
observation into one float32 batch and every mask into one buffer.

* Observations: the single environment's space batched (``{"observation": (N, size),
  "action_mask": (N, actions)}``, or with ``observation="flat"`` the ``(N, size)`` array).
* Masks: ``info["action_mask"]`` (bool, ``(N, actions)``) and :meth:`TriageVectorEnv.action_masks`
  (what sb3-contrib's ``MaskablePPO`` asks a vector environment for).
* Autoreset (``autoreset_mode``, declared in ``metadata["autoreset_mode"]``): ``next_step`` (the
  default) or ``same_step``, Gymnasium's two modes. Next step: the step after a game ended
  ignores that game's action and deals a new one (reward 0, not terminated); the row of a game
  that ended offers every action (its mask all ones, as Pgx does: whatever a masked policy picks
  there is ignored, and a policy with ``-inf`` logits outside the mask never meets an all-zero
  row). Same step: the game is dealt anew in the step that ended it; the returned row is the new
  game's, and ``info["final_obs"]`` / ``info["final_info"]`` (with their ``_`` masks) hold the
  ended game's last observation (its mask all ones) and its ``score`` and ``winner``. A new
  deal's seed comes from the game's own seed sequence, as a single environment's ``reset()``
  draws it. Gymnasium refuses ``vector_kwargs`` for a native vector environment, so the mode is
  an option like the others: ``gymnasium.make_vec("Triage-v0", 16, autoreset_mode="same_step")``
  (with ``vectorization_mode="sync"``, ``vector_kwargs={"autoreset_mode": ...}`` reaches
  Gymnasium's own ``SyncVectorEnv`` as usual).
* Seeds: ``reset(seed=s)`` deals game ``i`` with seed ``s + i``; a list gives one seed per game;
  ``options={"reset_mask": mask}`` deals afresh only where ``mask`` is true.
* Illegal actions: refused in their own game (reward ``illegal_reward``, nothing changes), or
  with ``on_illegal="raise"`` checked before any game moves (the error names the game).
* Infos: ``score`` (seat 0's VP + QoC), ``action_mask``, ``winner`` where a game ended (the
  winning seat, -1 for none) and ``illegal_action`` where an action was refused, each with its
  ``_name`` mask, as Gymnasium's vector environments give them. Every value is seat 0's own
  (its view's score and mask): nothing hidden.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from triage.bots import Bot
from triage.engine.text import render_position
from triage.envs.encoding import IllegalActionError
from triage.envs.features import ObservationEncoder
from triage.envs.gymnasium import make_opponents, play_opponents, text_image
from triage.envs.pettingzoo import OBSERVATIONS, ON_ILLEGAL, observation_space
from triage.envs.returns import check_returns, final_values, values
from triage.envs.table import Table
from triage.envs.variants import load_variant


class _Slot:
    """One game of the batch: its table, its bots and their generator, its seed sequence, and
    what the batch keeps of it between steps (seat 0's legal integers, the observation memo)."""

    __slots__ = ("bot_rng", "bots", "done", "legal", "memo", "score", "seeds", "table", "value")

    def __init__(self, table: Table, bots: list[Bot]) -> None:
        self.table = table
        self.bots = bots
        self.bot_rng = random.Random()
        self.seeds = random.Random()
        self.done = False
        #: Seat 0's VP + QoC and its value (``returns``) after the last step.
        self.score = 0
        self.value = 0.0
        #: Seat 0's legal integers now (empty once the game is over).
        self.legal: list[int] = []
        #: What :meth:`~triage.envs.encoding.Layout.observe_array` keeps between this game's observations.
        self.memo: dict[Any, Any] = {}


class TriageVectorEnv(VectorEnv):
    """``num_envs`` games of ``Triage-v0`` stepped together (seat 0 of each; bots elsewhere)."""

    #: Gymnasium's VectorEnv leaves ``metadata``, ``options`` and the ``infos`` open (string keys,
    #: any values): arrays by key with ``_key`` masks, as each environment fills them.
    metadata: dict[str, Any] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["ansi", "rgb_array"],
    }

    def __init__(
        self,
        num_envs: int = 1,
        rounds: int | None = None,
        players: int = 1,
        opponents: str | list[str] = "greedy",
        return_to: str | None = None,
        render_mode: str | None = None,
        on_illegal: str = "refuse",
        illegal_reward: float = -1.0,
        returns: str = "score",
        observation: str = "dict",
        normalize: bool = False,
        config: str = "default",
        encoding: str | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
    ) -> None:
        _check_options(num_envs, render_mode, self.metadata["render_modes"], on_illegal, observation)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.illegal_reward = float(illegal_reward)
        self.returns = check_returns(returns)
        self.flat = observation == "flat"
        self.players = players
        self.variant = load_variant(config, rounds=rounds, return_to=return_to)
        self.config = self.variant.config
        self._start = self.config.start["quality"] + self.config.start["vp"]
        probe = Table(self.variant.deal(players, 0))
        self.layout = probe.layout
        self.slots = [
            _Slot(Table(probe.game.copy(), self.layout), make_opponents(players, opponents))
            for _ in range(num_envs)
        ]
        self.encoder = ObservationEncoder(
            self.layout,
            self.config,
            self.variant.cards(),
            players=players,
            normalize=normalize,
            encoding=encoding,
        )
        self.single_observation_space = observation_space(self.encoder, flat=self.flat)
        self.single_action_space = spaces.Discrete(self.layout.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._actions = self.layout.num_actions
        self._mask = np.zeros((num_envs, self._actions), np.int8)
        self._all_actions = b"\x01" * self._actions
        #: Every game's flag set, and none: copied for each step's answer (a copy of the first
        #: costs a fifth of ``np.ones`` at a few games).
        self._trues, self._falses = np.ones(num_envs, bool), np.zeros(num_envs, bool)

    # ------------------------------------------------------------------ the Gymnasium API

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal every game (``options["reset_mask"]``: only those where it is true): game ``i``
        from ``seed + i``, ``seed[i]``, or the next seed of its own sequence."""
        if isinstance(seed, int):
            super().reset(seed=seed)
        seeds = _seed_list(seed, self.num_envs)
        mask = (options or {}).get("reset_mask")
        if mask is not None and np.shape(mask) != (self.num_envs,):
            raise ValueError(f"options['reset_mask'] must hold {self.num_envs} booleans, got {mask!r}")
        for index, slot in enumerate(self.slots):
            if mask is None or mask[index]:
                self._deal(slot, seeds[index])
        return self._finish([False] * self.num_envs, [])

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every game, or a new deal where the last step ended the game. Each
        game moves on the engine's integer path (its legal integers are kept from the last
        step, so checking an action is one lookup); observations and masks are then put
        together for the whole batch (:meth:`_finish`)."""
        chosen = np.asarray(actions).tolist()
        if len(chosen) != self.num_envs:
            raise ValueError(f"step takes {self.num_envs} actions, one per game, got {len(chosen)}")
        if self.on_illegal == "raise":
            self._check_all(chosen)
        rewards = [0.0] * self.num_envs  # lists: a Python write into NumPy costs more
        ended = [False] * self.num_envs
        refused: list[tuple[int, str]] = []
        finals: list[tuple[int, np.ndarray, int, int]] = []
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        for index, slot in enumerate(self.slots):
            if slot.done:
                self._deal(slot, None)
                continue
            action = chosen[index]
            if type(action) is int and action in slot.legal:  # a bool or a float is never an action
                rewards[index], ended[index] = self._advance(slot, action)
            else:
                refused.append((index, _refusal(slot.table, action)))
                rewards[index] = self.illegal_reward
            if same_step and ended[index]:
                game = slot.table.game
                winner = -1 if game.winner is None else game.winner
                finals.append((index, self._observe(slot), slot.score, winner))
                self._deal(slot, None)
        done = np.array(ended, bool)
        # Same step: the ended games' winners go to final_info; the rows are new games'.
        observations, infos = self._finish([False] * self.num_envs if same_step else ended, refused)
        if finals:
            self._put_finals(infos, finals)
        return observations, np.array(rewards, np.float64), done, self._falses.copy(), infos

    def _put_finals(self, infos: dict[str, Any], finals: list[tuple[int, np.ndarray, int, int]]) -> None:
        """Same-step autoreset: the ended games' last observations and results, as Gymnasium's
        ``final_obs`` (an object array) and ``final_info`` give them."""
        count = self.num_envs
        final_obs = np.full(count, None, dtype=object)
        has = np.zeros(count, bool)
        scores, winners = np.zeros(count, np.int64), np.full(count, -1, np.int64)
        every = np.ones(self._actions, np.int8)
        for index, raw, score, winner in finals:
            vector = self.encoder.encode_owned(raw)
            final_obs[index] = vector if self.flat else {"observation": vector, "action_mask": every.copy()}
            has[index], scores[index], winners[index] = True, score, winner
        infos["final_obs"], infos["_final_obs"] = final_obs, has
        final_info = {"score": scores, "_score": has, "winner": winners, "_winner": has}
        infos["final_info"], infos["_final_info"] = final_info, has

    def _check_all(self, chosen: list[Any]) -> None:
        """``on_illegal="raise"``: refuse the step before any game moves if one action is not
        legal in its game (IllegalActionError names it); a game that ended takes any action."""
        for index, slot in enumerate(self.slots):
            action = chosen[index]
            if not slot.done and not (type(action) is int and action in slot.legal):
                try:
                    slot.table.play_quiet(0, chosen[index])  # raises, naming why, and changes nothing
                except IllegalActionError as error:
                    raise IllegalActionError(f"game {index}: {error}") from None

    def _advance(self, slot: _Slot, action: int) -> tuple[float, bool]:
        """Seat 0's legal ``action`` in ``slot``'s game, then the bots' up to its next decision:
        the reward (the change of seat 0's value) and whether the game ended."""
        game = slot.table.game
        game.apply_id(action)
        if game.turn != 0 and slot.bots:
            play_opponents(game, slot.bots, slot.bot_rng)
        scores = game.scores()
        slot.score = scores[0]
        over = game.is_over()
        if over:
            value = final_values(scores, game.winner, self.returns, self._start)[0]
            slot.done = True
            slot.legal = []
        else:
            value = values(scores, self.returns, self._start)[0]
            slot.legal = game.legal_action_ids()
        reward = value - slot.value
        slot.value = value
        return reward, over

    def action_masks(self) -> np.ndarray:
        """Every game's legal integers as a boolean ``(num_envs, actions)`` array (MaskablePPO)."""
        return self._mask.astype(np.bool_)

    def render(self) -> tuple[Any, ...] | None:
        """Each game's view of seat 0: text (``ansi``) or that text as an image (``rgb_array``)."""
        if self.render_mode is None:
            return None
        texts = [render_position(slot.table.view(0)) for slot in self.slots]
        if self.render_mode == "ansi":
            return tuple(texts)
        return tuple(text_image(text) for text in texts)

    # ------------------------------------------------------------------ the games

    def _deal(self, slot: _Slot, seed: int | None) -> None:
        """A new game in ``slot``, as :meth:`triage.envs.gymnasium.TriageEnv.reset` deals it (bots play up to seat 0)."""
        if seed is not None:
            slot.seeds.seed(seed)
            game_seed = seed
        else:
            game_seed = slot.seeds.randrange(2**31)
        slot.table = Table(self.variant.deal(self.players, game_seed), self.layout)
        slot.bot_rng.seed(game_seed)
        game = slot.table.game
        if game.turn != 0:
            play_opponents(game, slot.bots, slot.bot_rng)
        scores = game.scores()
        slot.score = scores[0]
        slot.value = values(scores, self.returns, self._start)[0]
        slot.done = False
        slot.legal = [] if game.is_over() else game.legal_action_ids()
        slot.memo = {}

    def _observe(self, slot: _Slot) -> np.ndarray:
        """Seat 0's raw observation of ``slot``'s game (a new vector, the caller's own)."""
        return np.frombuffer(self.layout.observe_array(slot.table.game, 0, slot.memo), np.float32)

    def _masks(self) -> np.ndarray:
        """Every game's mask in one int8 ``(num_envs, actions)`` array, written from the games'
        kept legal integers into one zeroed buffer (a byte written into a ``bytearray`` costs
        less than NumPy's fancy indexing at every batch size measured, 1 to 256 games); a game
        that ended (next-step mode) offers every action, which the next step ignores."""
        actions, every = self._actions, self._all_actions
        buffer = bytearray(self.num_envs * actions)
        at = 0
        for slot in self.slots:
            if slot.done:
                buffer[at : at + actions] = every
            else:
                for action_id in slot.legal:
                    buffer[at + action_id] = 1
            at += actions
        return np.frombuffer(buffer, np.int8).reshape(self.num_envs, actions)

    def _finish(self, ended: list[bool], refused: list[tuple[int, str]]) -> tuple[Any, dict[str, Any]]:
        """The batch as the observation space gives it, and the infos: every game's raw
        observation joined into one buffer (one copy), encoded in place."""
        count, observe, memo_of = self.num_envs, self.layout.observe_array, _memo_of
        raws = bytearray().join([observe(slot.table.game, 0, memo_of(slot)) for slot in self.slots])
        vectors = self.encoder.encode_owned(
            np.frombuffer(raws, np.float32).reshape(count, self.layout.observation_size)
        )
        mask = self._mask = self._masks()
        scores = np.array([slot.score for slot in self.slots], np.int64)
        every = self._trues.copy()
        infos: dict[str, Any] = {"score": scores, "_score": every, "action_mask": mask.view(np.bool_)}
        infos["_action_mask"] = every
        if any(ended):
            winners = [
                -1 if slot.table.game.winner is None else slot.table.game.winner for slot in self.slots
            ]
            flags = np.array(ended, bool)
            infos["winner"], infos["_winner"] = np.where(flags, winners, -1), flags
        if refused:
            reasons = np.full(count, "", dtype=object)
            for index, reason in refused:
                reasons[index] = reason
            infos["illegal_action"], infos["_illegal_action"] = reasons, reasons != ""
        if self.flat:
            return vectors, infos
        return {"observation": vectors, "action_mask": mask}, infos


_memo_of = attrgetter("memo")


def _refusal(table: Table, action: Any) -> str:
    """Why seat 0 may not take ``action`` (:meth:`Table.play_quiet` refuses it, naming the rule,
    and changes nothing)."""
    try:
        table.play_quiet(0, action)
    except IllegalActionError as error:
        return str(error)
    raise AssertionError(f"action {action!r} was refused by the batch but taken by the table")


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal integer per row of ``masks``, uniformly at random (0 for a row with none: a game
    that ended, whose action the next step ignores), with a few NumPy calls for the whole batch."""
    legal = masks.astype(bool, copy=False)
    count, actions = legal.shape
    if count == 1:  # one game: the same pick without the batch's index arithmetic (a quarter of the time)
        row = np.flatnonzero(legal[0])
        return np.array([row[int(rng.random() * len(row))] if len(row) else 0], np.int64)
    counts = np.count_nonzero(legal, axis=1)
    flat = np.flatnonzero(legal)  # row * actions + column: one index array, not two
    if len(flat) == 0:
        return np.zeros(count, np.int64)
    picks = np.cumsum(counts) - counts + (rng.random(count) * counts).astype(np.intp)
    # a row with none points at the next row's first (or past the end): its pick is set to 0
    chosen: np.ndarray = flat[np.minimum(picks, len(flat) - 1)] - np.arange(0, count * actions, actions)
    chosen[counts == 0] = 0
    return chosen


def _check_options(
    num_envs: int, render_mode: str | None, render_modes: list[str], on_illegal: str, observation: str
) -> None:
    """Refuse bad options with the same words as :class:`TriageEnv`."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(f"render_mode must be one of {render_modes}, got {render_mode!r}")
    if on_illegal not in ON_ILLEGAL:
        raise ValueError(f"on_illegal must be one of {ON_ILLEGAL}, got {on_illegal!r}")
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")


def _autoreset_mode(mode: str | AutoresetMode) -> AutoresetMode:
    """Gymnasium's autoreset mode from its enum or its name (``next_step``, ``same_step``, or the
    enum's value, ``NextStep``, ``SameStep``)."""
    allowed = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
    for option in allowed:
        spelled = str(mode).replace("_", "").lower()
        if mode == option or spelled in (option.value.lower(), option.name.replace("_", "").lower()):
            return option
    raise ValueError(f"autoreset_mode must be one of ['next_step', 'same_step'], got {mode!r}")


def _seed_list(seed: int | Sequence[int | None] | None, count: int) -> list[int | None]:
    """One seed (or None: the game's own next seed) per game."""
    if seed is None:
        return [None] * count
    if isinstance(seed, int):
        return [seed + index for index in range(count)]
    seeds = list(seed)
    if len(seeds) != count:
        raise ValueError(f"reset takes one seed or {count} seeds, got {len(seeds)}")
    return seeds


__all__ = ["TriageVectorEnv", "random_actions"]
