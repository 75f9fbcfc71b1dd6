"""Triage as an OpenSpiel game: importing this module registers ``triage``.

>>> import pyspiel
>>> game = pyspiel.load_game("triage", {"players": 2, "seed": 4})
>>> state = game.new_initial_state()
>>> state.current_player(), len(state.legal_actions()) > 0
(0, True)

Parameters: ``players`` (1-4, default 2), ``seed`` (default -1), ``rounds`` (default 6, R1) and
``return_to`` (``top``, ``bottom`` or ``discard``, V1).

* Chance: with ``seed`` -1 the game starts with :data:`DEAL_DIGITS` chance nodes of
  :data:`DEAL_BASE` equally likely outcomes each; together they spell a secret seed ``k`` among
  2**56, and the deal is ``Game.new(seed=k)``: the shuffle of R3, and with V1 ``discard`` the
  later reshuffles, all follow from it. So many deals that no agent can recognise one from what
  its seat sees (K1, I3). With ``seed`` >= 0 that deal is made at once, with no chance node.
* Actions: the integer space of :mod:`triage.envs.encoding`; ``legal_actions()`` is the mask.
* Returns: at the end, each player's score (VP + QoC, R4); 0 before.
* Information: ``observation_string(p)`` is seat ``p``'s view (canonical JSON) and
  ``observation_tensor(p)`` its vector; ``information_state_string(p)`` adds the public action
  history (every player decision is public in Triage; only card backs and the deck order are
  hidden), ``information_state_tensor(p)`` is the view's vector (the view holds the seat's
  memory, I2). None of them reads hidden state.
* ``str(state)`` shows public information only; ``state.engine`` is the all-seeing game.
* ``resample_from_infostate(p, sampler)`` draws a world consistent with seat ``p``'s view
  (:func:`triage.engine.determinize.determinize`), which OpenSpiel's IS-MCTS uses.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from triage.engine import Config, Game, view
from triage.engine.cards import load_standard_deck
from triage.engine.determinize import determinize
from triage.envs.encoding import Layout, view_text
from triage.envs.table import Table, make_game_config

#: The secret seed of the deal is drawn as DEAL_DIGITS digits in base DEAL_BASE (2**56 deals).
DEAL_BASE = 256
DEAL_DIGITS = 7
#: A loose bound on the number of decisions per player and round (random play takes ~10).
_MOVES_PER_PLAYER_ROUND = 200
#: A loose bound on how far a score moves per card of the deck and round.
_SCORE_PER_CARD_ROUND = 8

_DEFAULTS: dict[str, Any] = {"players": 2, "seed": -1, "rounds": 6, "return_to": "top"}

GAME_TYPE = pyspiel.GameType(
    short_name="triage",
    long_name="Triage (Patients and Treatment)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def _parameters(params: dict[str, Any] | None) -> dict[str, Any]:
    values = dict(_DEFAULTS)
    values.update(params or {})
    unknown = sorted(set(values) - set(_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown triage parameter {unknown[0]!r} (known: {', '.join(_DEFAULTS)})")
    if not 1 <= values["players"] <= 4:
        raise ValueError(f"players must be 1 to 4 (R1), got {values['players']!r}")
    if values["seed"] < -1:
        raise ValueError(
            f"seed must be -1 (a chance node deals) or a whole number >= 0, got {values['seed']}"
        )
    return values


@dataclass(frozen=True)
class Settings:
    """What a state needs of its game; immutable, so clones share it instead of copying."""

    players: int
    seed: int
    config: Config
    layout: Layout

    def __deepcopy__(self, memo: dict[int, Any]) -> Settings:
        return self


class TriageGame(pyspiel.Game):
    """The OpenSpiel game: parameters, sizes, and the observers of seat views."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        values = _parameters(params)
        self.players = int(values["players"])
        self.seed = int(values["seed"])
        self.config = make_game_config(rounds=int(values["rounds"]), return_to=str(values["return_to"]))
        probe = Game.new(players=self.players, seed=0, config=self.config)
        self.layout = Layout.from_view(view(probe, 0))
        deck_size = len(load_standard_deck())
        start = self.config.start["quality"] + self.config.start["vp"]
        swing = _SCORE_PER_CARD_ROUND * deck_size * self.config.rounds
        info = pyspiel.GameInfo(
            num_distinct_actions=self.layout.num_actions,
            max_chance_outcomes=DEAL_BASE,
            num_players=self.players,
            min_utility=float(start - swing),
            max_utility=float(start + swing),
            max_game_length=_MOVES_PER_PLAYER_ROUND * self.players * self.config.rounds,
        )
        super().__init__(GAME_TYPE, info, {key: values[key] for key in _DEFAULTS})
        self.settings = Settings(self.players, self.seed, self.config, self.layout)

    def new_initial_state(self) -> TriageState:
        return TriageState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TriageObserver:
        return TriageObserver(
            self.layout, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


def apply_deal(state: pyspiel.State, seed: int) -> None:
    """Play the chance nodes that deal ``Game.new(seed=seed)``: for experiments that fix a deal."""
    for digit in seed.to_bytes(DEAL_DIGITS, "big"):
        state.apply_action(digit)


class TriageState(pyspiel.State):
    """A Triage position: the engine game (None until the deal) and the public decisions."""

    def __init__(self, game: TriageGame, engine: Game | None = None) -> None:
        super().__init__(game)
        self._settings: Settings = game.settings
        self.engine: Game | None = engine
        #: Every player decision so far as (player, integer): public in Triage.
        self.public_actions: list[tuple[int, int]] = []
        #: The chance digits of the deal drawn so far (secret: never part of an observation).
        self.deal_digits: list[int] = []
        if engine is None and game.seed >= 0:
            self._deal(game.seed)

    def _deal(self, seed: int) -> None:
        self.engine = Game.new(players=self._settings.players, seed=seed, config=self._settings.config)

    def _table(self) -> Table:
        if self.engine is None:
            raise pyspiel.SpielError("the deal has not been made yet (a chance node)")
        return Table(self.engine, self._settings.layout)

    # ------------------------------------------------------------------ pyspiel.State API

    def current_player(self) -> int:
        if self.engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.engine.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.engine.turn)

    def _legal_actions(self, player: int) -> list[int]:
        if self.engine is None or self.engine.is_over() or player != self.engine.turn:
            return []
        return self._table().legal_ids(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.engine is not None:
            return []
        return [(digit, 1.0 / DEAL_BASE) for digit in range(DEAL_BASE)]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            if not 0 <= action < DEAL_BASE:
                raise pyspiel.SpielError(f"a deal digit must be in 0..{DEAL_BASE - 1}, got {action}")
            self.deal_digits.append(int(action))
            if len(self.deal_digits) == DEAL_DIGITS:
                self._deal(int.from_bytes(bytes(self.deal_digits), "big"))
            return
        player = int(self.engine.turn)
        self._table().play(player, int(action))
        self.public_actions.append((player, int(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal digit {action}"
        return f"p{player}: {self._settings.layout.describe(int(action))}"

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_over()

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._settings.players
        return [float(score) for score in self.engine.scores()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TriageState:
        """A state drawn among those seat ``player_id`` cannot tell apart from this one."""
        if self.engine is None:
            return self.clone()
        rng = random.Random(int(probability_sampler() * 2**53))
        world = determinize(view(self.engine, player_id), rng)
        state = TriageState(self.get_game(), engine=world)
        state.public_actions = list(self.public_actions)
        return state

    def __str__(self) -> str:
        """Public information only: round, phase, whose decision, scores, decisions so far."""
        if self.engine is None:
            return "deal pending"
        game = self.engine
        return json.dumps(
            {
                "round": game.round,
                "phase": game.phase,
                "turn": game.turn,
                "scores": game.scores(),
                "actions": [list(entry) for entry in self.public_actions],
            },
            separators=(",", ":"),
        )


class TriageObserver:
    """OpenSpiel's observer protocol over seat views (private_info SINGLE_PLAYER only)."""

    def __init__(self, layout: Layout, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"the triage observer takes no parameters, got {params!r}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError(
                "triage observations are one seat's view: public_info=True and "
                "private_info=SINGLE_PLAYER only (rules.md I4)"
            )
        self.layout = layout
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(layout.observation_size, np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state: TriageState, player: int) -> None:
        if state.engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self.layout.observe(view(state.engine, player))

    def string_from(self, state: TriageState, player: int) -> str:
        if state.engine is None:
            return f"p{player} before the deal"
        text = view_text(view(state.engine, player))
        if self.perfect_recall:
            history = " ".join(f"{who}:{action}" for who, action in state.public_actions)
            text += f"\nactions {history}"
        return text


pyspiel.register_game(GAME_TYPE, TriageGame)
