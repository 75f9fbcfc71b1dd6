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
(int8, all zero for a seat that is not to act). With ``observation="flat"`` it is the vector
alone (a ``Box`` with proven bounds, what SuperSuit's wrappers want) and the mask is in
``infos[agent]["action_mask"]`` and ``action_mask(agent)``; ``normalize=True`` gives the
normalised encoding (:mod:`triage.envs.features`). The reward of a step is, for every agent, the
change of its value (``returns``: ``score`` VP + QoC, ``margin`` or ``win``,
:mod:`triage.envs.returns`), so an agent's rewards add up to its final value less its value at
the deal. An action outside the mask raises :class:`~triage.envs.encoding.IllegalActionError`
and changes nothing; with ``on_illegal="refuse"`` it is refused without raising (what learners
that sample unmasked actions need): nothing changes, the same agent is to act, its reward is
``illegal_reward`` (default -1) and ``infos[agent]["illegal_action"]`` says why. At the end every
info holds ``scores`` and ``winner`` (the winning seat, -1 for none: never None). ``render()`` draws the acting seat's view (never hidden state).

:func:`parallel_env` is the parallel API in its turn-based form: no phase of Triage lets two seats
decide at once (A1 draws and admissions go in turn order, and a rejected patient goes on top of
the deck for the next draw, A5; Treatment is in turn order; Helicopter draws resolve in order,
T7), so each ``step`` takes the action of the seat to decide (the one whose mask is not empty,
named in ``infos[agent]["active_agent"]``) and ignores the others'.
"""

from __future__ import annotations

import random
from typing import Any, SupportsIndex

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator


from triage.bots import Bot, make_bot
from triage.engine import Game, view
from triage.engine.text import render_position
from triage.envs.encoding import OBS_LIMIT, IllegalActionError
from triage.envs.features import ObservationEncoder
from triage.envs.returns import check_returns, final_values, values
from triage.envs.table import Table, copy_sharing
from triage.envs.variants import load_variant

#: What an action outside the mask does: raise IllegalActionError, or refuse it with a reward.
ON_ILLEGAL: tuple[str, ...] = ("refuse", "raise")
#: The observation forms: a ``Dict`` with the mask inside, or the vector alone.
OBSERVATIONS: tuple[str, ...] = ("dict", "flat")

#: One agent's observation: ``{"observation": vector, "action_mask": mask}``, or the vector alone.
Observation = dict[str, np.ndarray] | np.ndarray
#: What an agent passes to ``step``: an integer of the layout (Python's or NumPy's, as
#: ``Discrete`` samples them), or None for an agent whose game is over.
ActionType = SupportsIndex | None


#: Which seats built-in bots play: a bot name for every seat but 0, one name per seat from 1 on,
#: or a name per seat number; None for none.
Opponents = str | list[str] | dict[int, str] | None


def seat_bots(players: int, opponents: Opponents) -> dict[int, Bot]:
    """The bots of ``opponents`` by seat; at least one seat stays a learner's."""
    if not 1 <= players <= 4:
        raise ValueError(f"players must be 1 to 4 (R1), got {players!r}")
    if opponents is None:
        return {}
    if isinstance(opponents, str):
        names = dict.fromkeys(range(1, players), opponents)
    elif isinstance(opponents, dict):
        names = {int(seat): name for seat, name in opponents.items()}
    else:
        if len(opponents) != players - 1:
            raise ValueError(f"opponents names {len(opponents)} bots for {players - 1} other seats")
        names = dict(zip(range(1, players), opponents))
    wrong = sorted(seat for seat in names if not 0 <= seat < players)
    if wrong:
        raise ValueError(f"opponents names seat {wrong[0]}; the seats are 0..{players - 1}")
    if len(names) >= players:
        raise ValueError("opponents fills every seat: at least one seat must be a learner's")
    return {seat: make_bot(name) for seat, name in sorted(names.items())}


def play_bots(game: Game, bots: dict[int, Bot], rng: random.Random) -> None:
    """The bots' decisions, each from its seat's view (I4), until another seat is to decide or
    the game ends."""
    while (seat := game.turn) is not None and seat in bots:
        game.apply(bots[seat].choose(view(game, seat), game.legal_actions(), rng), seat)


def observation_space(encoder: ObservationEncoder, flat: bool = False) -> spaces.Space[Any]:
    """The observation space shared with the Gymnasium environment: the encoder's bounds (within
    [-1, 1] for the scaled encodings); the ``Dict`` form of the raw encoding keeps the wide +-1e6
    range of its first release."""
    if flat:
        return encoder.space()
    vector = (
        encoder.space()
        if encoder.encoding != "raw"
        else spaces.Box(low=-OBS_LIMIT, high=OBS_LIMIT, shape=(encoder.size,), dtype=np.float32)
    )
    mask = spaces.Box(low=0, high=1, shape=(encoder.layout.num_actions,), dtype=np.int8)
    return spaces.Dict({"observation": vector, "action_mask": mask})


def env(**kwargs: Any) -> AECEnv[str, Observation, ActionType]:
    """The environment with PettingZoo's call-order checks (``OrderEnforcingWrapper``). No
    ``AssertOutOfBoundsWrapper``: the environment refuses any integer outside the mask itself,
    with an :class:`~triage.envs.encoding.IllegalActionError` naming the integer and the rule,
    and each wrapper layer costs every attribute read of a step."""
    return _OrderEnforcing(raw_env(**kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper[str, Observation, ActionType]):
    """PettingZoo's ``OrderEnforcingWrapper`` with ``last`` (``AECEnv.last`` on the environment's
    own attributes) and ``step`` handed straight to the environment once it is reset: the
    inherited ones read five attributes each through the wrapper's ``__getattr__``, which cost
    more than building the observation's mask. Before ``reset`` they refuse exactly as the
    wrapper does."""

    def __init__(self, env: raw_env) -> None:
        super().__init__(env)
        self.raw = env  # self.env, typed as the environment it is

    def last(self, observe: bool = True) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``; its API leaves the info dict open (string keys, any values)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        raw = self.raw
        agent = raw.agent_selection
        return (
            raw.observe(agent) if observe else None,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action: ActionType) -> None:
        if self._has_reset and self.raw.agents:
            self._has_updated = True
            self.raw.step(action)
        else:
            super().step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable[str, Observation, ActionType]:
        if not self._has_reset:
            return super().agent_iter(max_iter)  # refuses as the wrapper does
        return _AgentIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _AgentIterable(AECOrderEnforcingIterable[str, Observation, ActionType]):
    def __init__(self, wrapper: _OrderEnforcing, max_iter: int) -> None:
        super().__init__(wrapper, max_iter)
        self.wrapper = wrapper

    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.wrapper, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator[str, Observation, ActionType]):
    """PettingZoo's order-enforcing iterator reading the agents from the environment itself,
    not through the wrapper's ``__getattr__``; the same checks."""

    def __init__(self, wrapper: _OrderEnforcing, max_iter: int) -> None:
        super().__init__(wrapper, max_iter)
        self.wrapper = wrapper

    def __next__(self) -> str:
        raw = self.wrapper.raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.wrapper._has_updated = False
        return raw.agent_selection


def parallel_env(**kwargs: Any) -> ParallelEnv[str, Observation, ActionType]:
    """The parallel API, turn-based (see the module docstring): only the seat to decide acts."""
    return turn_based_aec_to_parallel(raw_env(**kwargs))


class raw_env(AECEnv[str, Observation, ActionType]):
    """The unwrapped AEC environment."""

    #: PettingZoo's AECEnv leaves ``metadata``, ``options`` and each agent's ``info`` open (string
    #: keys, any values): each environment adds its own keys; ours are in the module's docstring.
    metadata: dict[str, Any] = {
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
        returns: str = "score",
        observation: str = "dict",
        normalize: bool = False,
        config: str = "default",
        on_illegal: str = "raise",
        encoding: str | None = None,
        illegal_reward: float = -1.0,
        opponents: Opponents = None,
        max_steps: int | None = None,
    ) -> None:
        super().__init__()
        if max_steps is not None and (isinstance(max_steps, bool) or max_steps < 1):
            raise ValueError(f"max_steps must be a whole number >= 1 or None, got {max_steps!r}")
        self.max_steps = max_steps
        self.players = players
        self._bots = seat_bots(players, opponents)
        self._bot_rng = random.Random()
        if on_illegal not in ON_ILLEGAL:
            raise ValueError(f"on_illegal must be one of {ON_ILLEGAL}, got {on_illegal!r}")
        self.on_illegal = on_illegal
        self.illegal_reward = float(illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        self.variant = load_variant(config, rounds=rounds, return_to=return_to)
        self.config = self.variant.config
        self.render_mode = render_mode
        self.returns = check_returns(returns)
        self.flat = observation == "flat"
        self._start = self.config.start["quality"] + self.config.start["vp"]
        self.table = Table(self.variant.deal(players, 0))
        self.encoder = ObservationEncoder(
            self.table.layout,
            self.config,
            self.variant.cards(),
            players=players,
            normalize=normalize,
            encoding=encoding,
        )
        self.possible_agents = [f"player_{seat}" for seat in range(players) if seat not in self._bots]
        self._seats = {agent: int(agent.removeprefix("player_")) for agent in self.possible_agents}
        #: Each seat's agent name, bots' seats included (the agent to act is read by seat).
        self._agent_of = tuple(f"player_{seat}" for seat in range(players))
        self.agents = list(self.possible_agents)
        space = observation_space(self.encoder, flat=self.flat)
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {
            agent: spaces.Discrete(self.table.layout.num_actions) for agent in self.possible_agents
        }
        self._seeds = random.Random()
        self._play_bots()
        self._reset_bookkeeping()

    #: What a deep copy shares with the original: fixed for the environment's life.
    _SHARED = frozenset(
        {
            "variant",
            "config",
            "encoder",
            "possible_agents",
            "_seats",
            "_agent_of",
            "observation_spaces",
            "action_spaces",
            "_bots",
        }
    )

    def __deepcopy__(self, memo: dict[int, Any]) -> raw_env:
        """An independent copy (for search over environments) made through ``Game.copy``."""
        copied: raw_env = copy_sharing(self, memo, self._SHARED)
        return copied

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _seat(self, agent: str) -> int:
        return self._seats[agent]

    def _reset_bookkeeping(self) -> None:
        self.agents = list(self.possible_agents)
        self._no_rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards = self._no_rewards.copy()
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._steps = 0
        self.agent_selection = self._agent_to_act()
        self._last_scores = self.table.game.scores()
        self._last_values = self._values()
        self._masks_to_infos()

    def _masks_to_infos(self) -> None:
        """Flat observations: each agent's mask goes in its info (empty for one not to act)."""
        if self.flat:
            for agent in self.agents:
                self.infos[agent]["action_mask"] = self.action_mask(agent)

    def _agent_to_act(self) -> str:
        turn = self.table.game.turn
        return self._agent_of[turn] if turn is not None else self.agents[0]

    def _play_bots(self) -> None:
        """The opponents' decisions (each from its own view) until a learner's turn or the end."""
        if self._bots:
            play_bots(self.table.game, self._bots, self._bot_rng)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: ``Game.new(seed=seed)`` when a seed is given, else a fresh seed."""
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**31)
        self.table = Table(self.variant.deal(self.players, game_seed), self.table.layout)
        self._bot_rng.seed(game_seed)
        self._play_bots()
        self._reset_bookkeeping()

    def action_mask(self, agent: str) -> np.ndarray:
        """The agent's legal integers as a new int8 mask (all zero when it is not to act)."""
        return self.table.mask(self._seats[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        if self.flat:
            return self.encoder.encode_owned(self.table.observation(self._seats[agent]))
        vector, mask = self.table.observation_and_mask(self._seats[agent])
        return {"observation": self.encoder.encode_owned(vector), "action_mask": mask}

    def _values(self, scores: list[int] | None = None) -> list[float]:
        game = self.table.game
        if scores is None:
            scores = game.scores()
        if game.is_over():
            return final_values(scores, game.winner, self.returns, self._start)
        return values(scores, self.returns, self._start)

    def step(self, action: ActionType) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for an agent whose game is over")
        table = self.table
        game = table.game
        self._steps += 1
        try:
            table.play_quiet(self._seats[agent], int(action))
        except IllegalActionError as error:
            if self.on_illegal == "raise":
                raise
            self._refuse(agent, str(error))
            self._truncate_at_limit()
            return
        if self._bots:
            self._play_bots()
        self.infos[agent].pop("illegal_action", None)
        self._cumulative_rewards[agent] = 0.0
        scores = game.scores()
        over = game.is_over()
        if scores == self._last_scores and not over:
            # Most steps: no score moved and the game goes on, so no value moved either.
            self.rewards = self._no_rewards.copy()
        else:
            self._last_scores = scores
            self._reward_changes(scores)
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
            result = {"scores": scores, "winner": -1 if game.winner is None else game.winner}
            self.infos = {name: dict(result) for name in self.agents}
        elif (turn := game.turn) is not None:  # always, while the game goes on
            self.agent_selection = self._agent_of[turn]
            if self.max_steps is not None:
                self._truncate_at_limit()
        if self.flat:
            self._masks_to_infos()
        if self.render_mode == "human":
            self.render()

    def _truncate_at_limit(self) -> None:
        """``max_steps``: past that many steps the episode is truncated for every agent (what a
        learner without masks needs: refused actions alone would never end a game)."""
        if self.max_steps is not None and self._steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)

    def _refuse(self, agent: str, reason: str) -> None:
        """``on_illegal="refuse"``: the game stays as it was and the same agent acts again."""
        self.rewards = self._no_rewards.copy()
        self.rewards[agent] = self.illegal_reward
        self._cumulative_rewards[agent] = self.illegal_reward
        self.infos[agent]["illegal_action"] = reason

    def _reward_changes(self, scores: list[int]) -> None:
        """Every agent's reward: the change of its value (``returns``) since the last step."""
        before = self._last_values
        after = self._last_values = self._values(scores)
        cumulative = self._cumulative_rewards
        rewards = {}
        for name in self.agents:
            seat = self._seats[name]
            reward = rewards[name] = float(after[seat] - before[seat])
            cumulative[name] += reward
        self.rewards = rewards

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
