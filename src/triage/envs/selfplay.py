"""Masked self-play without glue: a turn-based PettingZoo game as one Gymnasium environment.

Single-agent learners (Stable-Baselines3, sb3-contrib's ``MaskablePPO``) see one environment
with one agent. :class:`SelfPlayEnv` shows them one seat of a PettingZoo AEC game: the learner's
seat changes every episode (every seat in turn, or ``learner_seats``) and ``opponent`` plays the
other seats between the learner's decisions, each from that seat's own observation:

* ``None`` (the default): a uniformly random legal action;
* a model with ``predict(observation, action_masks=..., deterministic=...)``, such as the
  ``MaskablePPO`` being trained (``set_opponent(model)``: the learner plays against itself);
* any callable ``(observation, mask) -> action``.

The observation is the learner seat's (the ``observation`` part of a ``Dict``, or the flat
vector), ``action_masks()`` its legal actions (what ``MaskablePPO`` asks for), the reward its own
rewards since its last decision (the AEC ``last()`` reward, so the opponents' moves count), and
the episode ends when the game does (``terminated``) or the AEC game truncates (``truncated``).
It works on any AEC environment whose observations carry an ``action_mask`` (a ``Dict``) or
whose infos do (the flat form).

>>> from triage.envs.pettingzoo import env
>>> game = SelfPlayEnv(env(players=2, config="mini"))
>>> observation, info = game.reset(seed=1)
>>> info["seat"], bool(game.action_masks().any())
(0, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

#: What plays the other seats: random legal actions, a model with ``predict``, or a callable.
Opponent = Any


class SelfPlayEnv(gymnasium.Env):
    """One learner seat of a turn-based PettingZoo AEC game; ``opponent`` plays the others."""

    #: Gymnasium's API leaves ``metadata``, ``options`` and every ``info`` open (string keys, any
    #: values); the infos read here are any wrapped PettingZoo game's own.
    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        aec: AECEnv[str, Any, Any],
        opponent: Opponent = None,
        learner_seats: Sequence[str] | None = None,
        deterministic_opponent: bool = False,
    ) -> None:
        self.aec = aec
        self.learners = list(learner_seats or aec.possible_agents)
        unknown = sorted(set(self.learners) - set(aec.possible_agents))
        if unknown or not self.learners:
            raise ValueError(
                f"learner_seats must name agents of {aec.possible_agents}, got {self.learners!r}"
            )
        first = aec.possible_agents[0]
        space = aec.observation_space(first)
        self._dict = isinstance(space, spaces.Dict)
        self.observation_space = space["observation"] if isinstance(space, spaces.Dict) else space
        self.action_space = aec.action_space(first)
        self.opponent = opponent
        self.deterministic_opponent = deterministic_opponent
        self.learner = self.learners[0]
        self._episodes = 0
        self._rng = np.random.default_rng()
        self._mask = np.zeros(int(getattr(self.action_space, "n", 0)), np.int8)

    def set_opponent(self, opponent: Opponent) -> None:
        """Play the other seats with ``opponent`` from now on (the model itself: self-play)."""
        self.opponent = opponent

    def action_masks(self) -> np.ndarray:
        """The learner seat's legal actions as booleans (sb3-contrib's ``MaskablePPO`` protocol)."""
        return self._mask.astype(np.bool_)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a new game; the learner takes the next seat of ``learner_seats``."""
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.learner = self.learners[self._episodes % len(self.learners)]
        self._episodes += 1
        self.aec.reset(seed=seed, options=options)
        self._play_opponents()
        observation, _, _, _ = self._learner_part()
        return observation, self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self.aec.step(int(action))
        self._play_opponents()
        observation, reward, terminated, truncated = self._learner_part()
        return observation, reward, terminated, truncated, self._info()

    # ------------------------------------------------------------------ the other seats

    def _over(self) -> bool:
        agent = self.aec.agent_selection
        return bool(self.aec.terminations[agent] or self.aec.truncations[agent])

    def _play_opponents(self) -> None:
        aec = self.aec
        while not self._over() and aec.agent_selection != self.learner:
            observation, _, _, _, info = aec.last()
            vector, mask = self._split(observation, info, aec.agent_selection)
            aec.step(self._opponent_action(vector, mask))

    def _opponent_action(self, vector: np.ndarray, mask: np.ndarray) -> int:
        opponent = self.opponent
        if opponent is None:
            return int(self._rng.choice(np.flatnonzero(mask)))
        if hasattr(opponent, "predict"):
            action, _ = opponent.predict(
                vector, action_masks=mask.astype(np.bool_), deterministic=self.deterministic_opponent
            )
            return int(action)
        chooser: Callable[[np.ndarray, np.ndarray], Any] = opponent
        return int(chooser(vector, mask))

    def _split(self, observation: Any, info: dict[str, Any], agent: str) -> tuple[np.ndarray, np.ndarray]:
        """The vector and the mask of one agent's observation (a ``Dict``, or flat with the mask
        in its info)."""
        if self._dict:
            return observation["observation"], np.asarray(observation["action_mask"])
        mask = info.get("action_mask")
        if mask is None:
            raise ValueError(f"{agent}'s observation is flat and its info holds no action_mask")
        return observation, np.asarray(mask)

    def _learner_part(self) -> tuple[Any, float, bool, bool]:
        """The learner seat's observation, its reward since its last decision, and whether the
        game ended or was truncated."""
        aec, learner = self.aec, self.learner
        observation = aec.observe(learner)
        info = aec.infos.get(learner, {})
        vector, mask = self._split(observation, info, learner)
        self._mask = mask
        reward = float(aec._cumulative_rewards.get(learner, 0.0))
        return vector, reward, bool(aec.terminations[learner]), bool(aec.truncations[learner])

    def _info(self) -> dict[str, Any]:
        """Gymnasium's ``info`` of the learner seat (open by its API)."""
        return {"seat": int(self.learner.rsplit("_", 1)[-1]), "action_mask": self._mask}


__all__ = ["SelfPlayEnv"]
