"""Triage as a PettingZoo AEC environment: ``env()`` (wrapped) and ``raw_env``.

>>> from triage.envs.pettingzoo import env
>>> game = env(players=2)
>>> game.reset(seed=1)
>>> observation, reward, termination, truncation, info = game.last()
>>> sorted(observation), int(observation["action_mask"].sum()) > 0
(['action_mask', 'observation'], True)

Agents are ``player_0`` .. ``player_{n-1}`` (the seats). The agent to act is the seat whose
decision it is (admissions, Treatment, Helicopter draws: not always a fixed rotation). Each
observation is a ``Dict`` of ``observation`` (the seat's view as a vector) and ``action_mask``
(int8, all zero for a seat that is not to act). The reward of a step is, for every agent, the
change of its score (VP + QoC), so an agent's rewards add up to its final score less its
starting score. An action outside the mask raises :class:`~triage.envs.encoding.IllegalActionError`
and changes nothing. ``render()`` draws the acting seat's view (never hidden state).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from triage.engine import Game
from triage.envs.encoding import OBS_LIMIT
from triage.envs.table import Table, make_game_config
from triage.play.render import render_position


def observation_space(table: Table) -> spaces.Dict:
    """The ``Dict`` observation space shared with the Gymnasium environment."""
    layout = table.layout
    return spaces.Dict(
        {
            "observation": spaces.Box(
                low=-OBS_LIMIT, high=OBS_LIMIT, shape=(layout.observation_size,), dtype=np.float32
            ),
            "action_mask": spaces.Box(low=0, high=1, shape=(layout.num_actions,), dtype=np.int8),
        }
    )


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's usual checks (bounds, call order)."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):
    """The unwrapped AEC environment."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "triage_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        players: int = 2,
        rounds: int | None = None,
        return_to: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.config = make_game_config(rounds=rounds, return_to=return_to)
        self.render_mode = render_mode
        self.table = Table(Game.new(players=players, seed=0, config=self.config))
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agents = list(self.possible_agents)
        space = observation_space(self.table)
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {
            agent: spaces.Discrete(self.table.layout.num_actions) for agent in self.possible_agents
        }
        self._seeds = random.Random()
        self._reset_bookkeeping()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _reset_bookkeeping(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._agent_to_act()

    def _agent_to_act(self) -> str:
        turn = self.table.game.turn
        return self.possible_agents[turn] if turn is not None else self.agents[0]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: ``Game.new(seed=seed)`` when a seed is given, else a fresh seed."""
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**31)
        players = len(self.possible_agents)
        self.table = Table(Game.new(players=players, seed=game_seed, config=self.config), self.table.layout)
        self._reset_bookkeeping()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat(agent)
        return {"observation": self.table.observation(seat), "action_mask": self.table.mask(seat)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for an agent whose game is over")
        before = self.table.scores()
        self.table.play(self._seat(agent), int(action))
        after = self.table.scores()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {
            name: float(after[self._seat(name)] - before[self._seat(name)]) for name in self.agents
        }
        self._accumulate_rewards()
        if self.table.game.is_over():
            self.terminations = dict.fromkeys(self.agents, True)
            result = {"scores": after, "winner": self.table.game.winner}
            self.infos = {name: dict(result) for name in self.agents}
        self.agent_selection = self._agent_to_act() if not self.table.game.is_over() else agent
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The acting seat's view as text (``ansi`` returns it, ``human`` prints it)."""
        if self.render_mode is None:
            return None
        text = render_position(self.table.view(self._seat(self.agent_selection)))
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
