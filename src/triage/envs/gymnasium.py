"""Triage as a Gymnasium environment, registered as ``Triage-v0``: the solo game by default, or
seat 0 of a ``players``-player game against built-in bots (``opponents``: any name of
:func:`triage.bots.make_bot`, ``greedy`` by default, one for every other seat or one per seat),
who play their turns between the agent's steps.

>>> import gymnasium
>>> import triage.envs.gymnasium
>>> env = gymnasium.make("Triage-v0")
>>> observation, info = env.reset(seed=2)
>>> sorted(observation), info["score"]
(['action_mask', 'observation'], 10)

Observation and action space are those of the PettingZoo environment (a ``Dict`` of the seat's
view as a vector and the int8 ``action_mask``; ``Discrete`` integers of
:mod:`triage.envs.encoding`). ``action_masks()`` answers the mask as booleans (what sb3-contrib's
``MaskablePPO`` asks for). With ``observation="flat"`` the observation is the vector alone (a
``Box`` with proven bounds) and the mask comes only from ``action_masks()`` and
``info["action_mask"]``; ``normalize=True`` gives the normalised encoding of
:mod:`triage.envs.features`. The reward of a step is the change of the value chosen by
``returns`` (``score``: VP + QoC, ``margin``, ``win``; :mod:`triage.envs.returns`); the episode
terminates when the game ends (R4) and is never truncated.

Render modes: ``ansi`` (the view as text), ``human`` (printed), ``rgb_array`` (that text as an
image). ``info["winner"]`` at the end is the winning seat, -1 for none (solo: a loss).

An action outside the mask is refused: the game does not change, the step returns reward
``illegal_reward`` (default -1) and ``info["illegal_action"]`` says why. With
``on_illegal="raise"`` it raises :class:`~triage.envs.encoding.IllegalActionError` instead.
(Gymnasium's own checker steps unmasked random actions, so refusing is the default.)
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from triage.bots import Bot, make_bot
from triage.engine import Game, view
from triage.engine.text import render_position
from triage.envs.encoding import IllegalActionError
from triage.envs.features import ObservationEncoder
from triage.envs.pettingzoo import ON_ILLEGAL, OBSERVATIONS, observation_space
from triage.envs.returns import check_returns, final_values, values
from triage.envs.table import Table, copy_sharing
from triage.envs.variants import load_variant

ENV_ID = "Triage-v0"


class TriageEnv(gymnasium.Env):
    """The solo game of Triage, one decision per step."""

    #: Gymnasium's API leaves ``metadata``, ``options`` and every ``info`` open (string keys, any
    #: values): each environment adds its own keys; ours are in the module's docstring.
    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
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
        config: str | Path = "default",
        encoding: str | None = None,
        max_steps: int | None = None,
    ) -> None:
        if max_steps is not None and (isinstance(max_steps, bool) or max_steps < 1):
            raise ValueError(f"max_steps must be a whole number >= 1 or None, got {max_steps!r}")
        self.max_steps = max_steps
        self._steps = 0
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if on_illegal not in ON_ILLEGAL:
            raise ValueError(f"on_illegal must be one of {ON_ILLEGAL}, got {on_illegal!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        self.variant = load_variant(config, rounds=rounds, return_to=return_to)
        self.config = self.variant.config
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.illegal_reward = float(illegal_reward)
        self.returns = check_returns(returns)
        self.flat = observation == "flat"
        self._start = self.config.start["quality"] + self.config.start["vp"]
        self.players = players
        self.opponents = make_opponents(players, opponents)
        self._bot_rng = random.Random()
        self.table = Table(self.variant.deal(players, 0))
        self.encoder = ObservationEncoder(
            self.table.layout,
            self.config,
            self.variant.cards(),
            players=players,
            normalize=normalize,
            encoding=encoding,
        )
        self.observation_space = observation_space(self.encoder, flat=self.flat)
        self.action_space = spaces.Discrete(self.table.layout.num_actions)
        self._seeds = random.Random()
        self._last_value = self._value(self.table.game.scores(), self.table.game.is_over())

    #: What a deep copy shares with the original: fixed for the environment's life.
    _SHARED = frozenset({"variant", "config", "encoder", "observation_space", "action_space", "spec"})

    def __deepcopy__(self, memo: dict[int, Any]) -> TriageEnv:
        """An independent copy (for search over environments) made through ``Game.copy``."""
        copied: TriageEnv = copy_sharing(self, memo, self._SHARED)
        return copied

    def action_masks(self) -> np.ndarray:
        """The legal integers as a boolean mask (sb3-contrib's ``MaskablePPO`` protocol)."""
        return self.table.mask(0).view(np.bool_)  # a fresh 0/1 int8 array: read as bool, no copy

    def _observation(self) -> dict[str, np.ndarray] | np.ndarray:
        if self.flat:
            return self.encoder.encode_owned(self.table.observation(0))
        vector, mask = self.table.observation_and_mask(0)
        return {"observation": self.encoder.encode_owned(vector), "action_mask": mask}

    def _value(self, scores: list[int], over: bool) -> float:
        """The value chosen by ``returns`` of the game's ``scores`` (``over``: it has ended)."""
        if over:
            return final_values(scores, self.table.game.winner, self.returns, self._start)[0]
        return values(scores, self.returns, self._start)[0]

    def _info(self, scores: list[int], over: bool) -> dict[str, Any]:
        """The step's Gymnasium ``info`` (open by its API: ``step`` adds ``illegal_action``)."""
        info: dict[str, Any] = {"score": scores[0]}
        if self.flat:
            info["action_mask"] = self.table.mask(0)
        if over:
            winner = self.table.game.winner
            info["winner"] = -1 if winner is None else winner  # no None: replay buffers store infos
        return info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a new game: ``Game.new(seed=seed)`` when a seed is given, else a fresh seed."""
        super().reset(seed=seed)
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**31)
        self.table = Table(self.variant.deal(self.players, game_seed), self.table.layout)
        self._bot_rng.seed(game_seed)
        self._play_opponents()
        self._steps = 0
        game = self.table.game
        scores, over = game.scores(), game.is_over()
        self._last_value = self._value(scores, over)
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(scores, over)

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """One decision of seat 0, then the opponents' up to its next one. With ``max_steps``
        the episode is truncated at that many steps (refused ones count)."""
        before = self._last_value
        game = self.table.game
        self._steps += 1
        truncated = self.max_steps is not None and self._steps >= self.max_steps
        try:
            self.table.play_quiet(0, action)
        except IllegalActionError as error:
            if self.on_illegal == "raise":
                raise
            over = game.is_over()
            info = self._info(game.scores(), over)
            info["illegal_action"] = str(error)
            return self._observation(), self.illegal_reward, over, truncated and not over, info
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        scores, over = game.scores(), game.is_over()
        self._last_value = self._value(scores, over)
        reward = float(self._last_value - before)
        return self._observation(), reward, over, truncated and not over, self._info(scores, over)

    def _play_opponents(self) -> None:
        play_opponents(self.table.game, self.opponents, self._bot_rng)

    def render(self) -> str | np.ndarray | None:
        """The player's view as text (``ansi`` returns it, ``human`` prints it, ``rgb_array``
        draws it as an image: what Stable-Baselines3's ``make_vec_env`` asks for by default)."""
        if self.render_mode is None:
            return None
        text = render_position(self.table.view(0))
        if self.render_mode == "ansi":
            return text
        if self.render_mode == "rgb_array":
            return text_image(text)
        print(text)
        return None


def play_opponents(game: Game, bots: list[Bot], rng: random.Random) -> None:
    """The bots' decisions until it is seat 0's again or the game ends (each from its view)."""
    while not game.is_over() and game.turn != 0 and game.turn is not None:
        seat = game.turn
        game.apply(bots[seat - 1].choose(view(game, seat), game.legal_actions(), rng), seat)


def make_opponents(players: int, opponents: str | list[str]) -> list[Bot]:
    """One bot for every seat but 0: a single name fills them all."""
    if not 1 <= players <= 4:
        raise ValueError(f"players must be 1 to 4 (R1), got {players!r}")
    names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
    if len(names) != players - 1:
        raise ValueError(f"opponents names {len(names)} bots for {players - 1} other seats")
    return [make_bot(name) for name in names]


def text_image(text: str) -> np.ndarray:
    """``text`` drawn black on white with Pillow's built-in font, as an RGB array (uint8)."""
    from PIL import Image, ImageDraw  # only for rgb_array: the research extra installs it

    lines = text.splitlines() or [""]
    cell_width, cell_height = 6, 11
    size = (cell_width * max(len(line) for line in lines) + 8, cell_height * len(lines) + 8)
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).multiline_text((4, 4), text, fill="black", spacing=0)
    return np.asarray(image, dtype=np.uint8)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point=f"{__name__}:TriageEnv",
        vector_entry_point="triage.envs.vector:TriageVectorEnv",
    )
