"""Triage as a Gymnasium environment: the solo game (1 player), registered as ``Triage-v0``.

>>> import gymnasium
>>> import triage.envs.gymnasium
>>> env = gymnasium.make("Triage-v0")
>>> observation, info = env.reset(seed=2)
>>> sorted(observation), info["score"]
(['action_mask', 'observation'], 10)

Observation and action space are those of the PettingZoo environment (a ``Dict`` of the seat's
view as a vector and the int8 ``action_mask``; ``Discrete`` integers of
:mod:`triage.envs.encoding`). The reward of a step is the change of the score (VP + QoC); the
episode terminates when the game ends (R4) and is never truncated.

An action outside the mask is refused: the game does not change, the step returns reward
``illegal_reward`` (default -1) and ``info["illegal_action"]`` says why. With
``on_illegal="raise"`` it raises :class:`~triage.envs.encoding.IllegalActionError` instead.
(Gymnasium's own checker steps unmasked random actions, so refusing is the default.)
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from triage.engine import Game
from triage.envs.encoding import IllegalActionError
from triage.envs.pettingzoo import observation_space
from triage.envs.table import Table, make_game_config
from triage.play.render import render_position

ENV_ID = "Triage-v0"
ON_ILLEGAL = ("refuse", "raise")


class TriageEnv(gymnasium.Env):
    """The solo game of Triage, one decision per step."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        rounds: int | None = None,
        return_to: str | None = None,
        render_mode: str | None = None,
        on_illegal: str = "refuse",
        illegal_reward: float = -1.0,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if on_illegal not in ON_ILLEGAL:
            raise ValueError(f"on_illegal must be one of {ON_ILLEGAL}, got {on_illegal!r}")
        self.config = make_game_config(rounds=rounds, return_to=return_to)
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.illegal_reward = float(illegal_reward)
        self.table = Table(Game.new(players=1, seed=0, config=self.config))
        self.observation_space = observation_space(self.table)
        self.action_space = spaces.Discrete(self.table.layout.num_actions)
        self._seeds = random.Random()

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observation": self.table.observation(0), "action_mask": self.table.mask(0)}

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"score": self.table.scores()[0]}
        if self.table.game.is_over():
            info["winner"] = self.table.game.winner
        return info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal a new game: ``Game.new(seed=seed)`` when a seed is given, else a fresh seed."""
        super().reset(seed=seed)
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**31)
        self.table = Table(Game.new(players=1, seed=game_seed, config=self.config), self.table.layout)
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        before = self.table.scores()[0]
        try:
            self.table.play(0, action)
        except IllegalActionError as error:
            if self.on_illegal == "raise":
                raise
            info = self._info()
            info["illegal_action"] = str(error)
            return self._observation(), self.illegal_reward, self.table.game.is_over(), False, info
        if self.render_mode == "human":
            self.render()
        reward = float(self.table.scores()[0] - before)
        return self._observation(), reward, self.table.game.is_over(), False, self._info()

    def render(self) -> str | None:
        """The player's view as text (``ansi`` returns it, ``human`` prints it)."""
        if self.render_mode is None:
            return None
        text = render_position(self.table.view(0))
        if self.render_mode == "ansi":
            return text
        print(text)
        return None


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point=TriageEnv)
