"""Triage as an OpenSpiel game: importing this module registers ``triage``.

>>> import pyspiel
>>> game = pyspiel.load_game("triage", {"players": 2, "seed": 4})
>>> state = game.new_initial_state()
>>> state.current_player(), len(state.legal_actions()) > 0
(0, True)

Parameters: ``players`` (1-4, default 2), ``seed`` (default -1), ``config`` (a built-in
configuration by name, :mod:`triage.envs.variants`: ``default``, or ``mini``, the small solvable
variant with its own deck), ``rounds`` (default 0: the configuration's own, 6 by default, R1),
``return_to`` (``top``, ``bottom`` or ``discard``, V1), ``helicopter_draws`` (``wait`` or
``reopen``, V2), ``terminal_upkeep`` (``death`` or ``reward``, V3), ``quality_floor`` (-1 for
none, or 0, V4) and ``returns`` (``score``, ``margin`` or ``win``, :mod:`triage.envs.returns`).

* Chance: with ``seed`` -1 the ``mini`` game starts with one chance node over the mini deck's
  orders (:func:`~triage.envs.variants.arrangements`, equally likely), so that its whole tree is
  finite and small. Any other game starts with :data:`DEAL_DIGITS` chance nodes of
  :data:`DEAL_BASE` equally likely outcomes each; together they spell a secret seed ``k`` among
  2**56, and the deal is ``Game.new(seed=k)``: the shuffle of R3, and with V1 ``discard`` the
  later reshuffles, all follow from it. So many deals that no agent can recognise one from what
  its seat sees (K1, I3). With ``seed`` >= 0 that deal is made at once, with no chance node.
* Actions: the integer space of :mod:`triage.envs.encoding`; ``legal_actions()`` is the mask.
* Returns: at the end, each player's value (``returns``: score, margin or win); 0 before.
  ``min_utility``/``max_utility`` are proven bounds (:mod:`triage.envs.bounds`; ``win``: -1, 1)
  and ``max_game_length`` the proven most decisions, plus the deal's chance nodes.
* Information: ``observation_string(p)`` is seat ``p``'s view (canonical JSON, less the parts
  fixed all game: settings, deck list, card ids, the kinds' words) and
  ``observation_tensor(p)`` its vector; ``information_state_string(p)`` adds the public action
  history (every player decision is public in Triage; only card backs and the deck order are
  hidden), ``information_state_tensor(p)`` is the view's vector followed by the public record
  (:class:`PublicRecord`: every decision and every draw so far, so it has perfect recall). An
  observer with ``private_info=NONE`` sees what every player knows (the spectator's view).
  None of them reads hidden state.
* ``str(state)`` shows public information only; ``state.engine`` is the all-seeing game.
* ``resample_from_infostate(p, sampler)`` draws a world consistent with seat ``p``'s view
  (:func:`triage.engine.determinize.determinize`), which OpenSpiel's IS-MCTS uses. The drawn
  state keeps ``history()`` and ``move_number()``; its hidden cards are drawn afresh, so its
  history (which holds the real deal's digits) no longer replays to it.
* Python callers (OpenSpiel's ``rl_environment`` asks every player's tensor and legal actions at
  every step) get ``legal_actions``, ``is_chance_node``, ``observation_tensor`` and
  ``information_state_tensor`` answered in Python, the tensors as new float32 NumPy arrays
  (pyspiel's generic path lists them); C++ callers keep pyspiel's path, and a test holds both equal.
* :class:`RolloutEvaluator` is an evaluator for OpenSpiel's MCTS and IS-MCTS bots that plays its
  random rollouts on the engine directly (no pyspiel state, no view).
"""

from __future__ import annotations

import json
import random
import zlib
from dataclasses import asdict, dataclass, field, fields
from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar

import numpy as np
import pyspiel
from open_spiel.python import policy as openspiel_policy
from open_spiel.python.algorithms import mcts

from triage.bots import Bot, make_bot
from triage.engine import Config, Game, spectator_view, view
from triage.engine.actions import action_to_id
from triage.engine.cards import CardSpec
from triage.engine.determinize import determinize
from triage.engine.rollout import Policy, random_policy, rollout
from triage.engine.shapes import Event
from triage.envs.bounds import DEAL_NODES, GameBounds, game_bounds
from triage.envs.encoding import EncodingError, Layout, view_text
from triage.envs.returns import check_returns, final_values, value_range
from triage.envs.table import Table
from triage.envs.variants import Variant, arrangements, deal_arranged, load_variant

#: The secret seed of the deal is drawn as DEAL_DIGITS digits in base DEAL_BASE (2**56 deals).
DEAL_BASE = 256
DEAL_DIGITS = DEAL_NODES


@dataclass(frozen=True)
class GameParameters:
    """The game's parameters (the module's docstring says each), as :func:`_parameters` checked
    them. Their defaults, :data:`_DEFAULTS`, are OpenSpiel's ``parameter_specification``, which
    gives each its type (``load_game`` refuses another)."""

    players: int = 2
    seed: int = -1
    config: str = "default"
    rounds: int = 0
    return_to: str = "top"
    helicopter_draws: str = "wait"
    terminal_upkeep: str = "death"
    quality_floor: int = -1
    returns: str = "score"
    tensors: str = "scaled"
    opponents: str = ""


_DEFAULTS = GameParameters()
_NAMES = tuple(parameter.name for parameter in fields(GameParameters))

#: The tensors' forms: every entry in [-1, 1] (the observation by its proven bounds, the record
#: by its largest entry), or the counts and event codes as they are.
TENSORS: tuple[str, ...] = ("scaled", "raw")


def _game_type(utility: pyspiel.GameType.Utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name="triage",
        long_name="Triage (Patients and Treatment)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=asdict(_DEFAULTS),
    )


GAME_TYPE = _game_type(pyspiel.GameType.Utility.GENERAL_SUM)


_Parameter = TypeVar("_Parameter", int, str)


def _given(params: Mapping[str, pyspiel.GameParameter], key: str, default: _Parameter) -> _Parameter:
    """``params[key]``, or ``default`` when it is not given; of ``default``'s type (OpenSpiel's
    ``load_game`` checks it against the specification before the game sees it)."""
    value = params.get(key, default)
    if not isinstance(value, type(default)) or isinstance(value, bool):
        raise TypeError(f"triage parameter {key!r} must be {type(default).__name__}, got {value!r}")
    return value


def _parameters(params: Mapping[str, pyspiel.GameParameter] | None) -> GameParameters:
    given = params or {}
    unknown = sorted(set(given) - set(_NAMES))
    if unknown:
        raise ValueError(f"unknown triage parameter {unknown[0]!r} (known: {', '.join(_NAMES)})")
    values = GameParameters(**{name: _given(given, name, getattr(_DEFAULTS, name)) for name in _NAMES})
    if not 1 <= values.players <= 4:
        raise ValueError(f"players must be 1 to 4 (R1), got {values.players!r}")
    if values.seed < -1:
        raise ValueError(f"seed must be -1 (a chance node deals) or a whole number >= 0, got {values.seed}")
    if values.rounds < 0:
        raise ValueError(
            f"rounds must be 0 (the configuration's) or a whole number >= 1, got {values.rounds}"
        )
    check_returns(values.returns)
    opponent_names(values)  # refuses a bad list early, with the players it names
    if values.tensors not in TENSORS:
        raise ValueError(f"tensors must be one of {TENSORS}, got {values.tensors!r}")
    return values


def opponent_names(values: GameParameters) -> list[str]:
    """The bots of the ``opponents`` parameter for seats 1.. (empty: every seat is a player's):
    one name for all of them, or one per seat separated by commas."""
    names = [name.strip() for name in values.opponents.split(",") if name.strip()]
    players = values.players
    if len(names) == 1 and players > 2:
        names *= players - 1
    if names and len(names) != players - 1:
        raise ValueError(
            f"opponents names {len(names)} bots for {players - 1} other seats: one name for all, "
            "or one per seat separated by commas"
        )
    return names


def _variant(values: GameParameters) -> Variant:
    """The configuration the parameters name, with the variants' parameters on top."""
    floor = values.quality_floor
    return load_variant(
        values.config,
        rounds=values.rounds or None,
        return_to=values.return_to,
        helicopter_draws=values.helicopter_draws,
        terminal_upkeep=values.terminal_upkeep,
        quality_floor=None if floor < 0 else floor,
    )


def _chance_nodes(seed: int, orders: tuple[Any, ...]) -> int:
    """The deal's chance nodes: none for a fixed seed, one over the orders, or the digits."""
    if seed >= 0:
        return 0
    return 1 if orders else DEAL_DIGITS


@dataclass(frozen=True)
class Settings:
    """What a state needs of its game; immutable, so clones share it instead of copying."""

    players: int
    seed: int
    config: Config
    layout: Layout
    returns: str
    start: int
    record: PublicRecord
    #: The observers that :meth:`TriageState.observation_tensor` and
    #: :meth:`TriageState.information_state_tensor` write into (without, then with perfect recall).
    fast_observers: tuple[TriageObserver, TriageObserver]
    variant: Variant
    #: The deck's orders of the ``mini`` deal's chance node (empty: the deal digits instead).
    orders: tuple[tuple[CardSpec, ...], ...]
    #: The built-in bots that play seats 1.. inside the game (``opponents``), by seat; then
    #: OpenSpiel sees one player, seat 0.
    bots: dict[int, Bot]

    @property
    def seats(self) -> int:
        """OpenSpiel's players: the seats no bot plays."""
        return self.players - len(self.bots)

    def deal(self, seed: int) -> Game:
        """The deal of ``seed`` on the game's configuration and deck."""
        return self.variant.deal(self.players, seed)

    def __deepcopy__(self, memo: dict[int, Any]) -> Settings:
        return self


class TriageGame(pyspiel.Game):
    """The OpenSpiel game: parameters, sizes, and the observers of seat views."""

    def __init__(self, params: Mapping[str, pyspiel.GameParameter] | None = None) -> None:
        values = _parameters(params)
        self.players = values.players
        self.seed = values.seed
        self.returns = values.returns
        self.variant = _variant(values)
        self.config = self.variant.config
        orders = tuple(arrangements(self.variant.deck)) if self.variant.deck and self.seed < 0 else ()
        probe = self.variant.deal(self.players, 0)
        self.layout = Layout.from_view(view(probe, 0))
        self.bounds: GameBounds = game_bounds(self.config, self.variant.cards(), self.players)
        start = self.config.start["quality"] + self.config.start["vp"]
        low, high = value_range(self.returns, self.bounds, self.players, start)
        bots = {seat: make_bot(name) for seat, name in enumerate(opponent_names(values), start=1)}
        seats = self.players - len(bots)
        zero_sum = self.returns != "score" and seats > 1
        info = pyspiel.GameInfo(
            num_distinct_actions=self.layout.num_actions,
            max_chance_outcomes=len(orders) or DEAL_BASE,
            num_players=seats,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=self.bounds.max_decisions + _chance_nodes(self.seed, orders),
        )
        utility = pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        super().__init__(_game_type(utility), info, asdict(values))
        record = PublicRecord(
            self.players,
            self.layout.num_actions,
            sorted(probe.cards),
            self.bounds.max_decisions + self.players * self.bounds.draws,
        )
        self.scales = _tensor_scales(self, record, values.tensors)
        fast = (
            TriageObserver(self.scales, pyspiel.IIGObservationType(perfect_recall=False), None),
            TriageObserver(self.scales, pyspiel.IIGObservationType(perfect_recall=True), None),
        )
        self.settings = Settings(
            self.players,
            self.seed,
            self.config,
            self.layout,
            self.returns,
            start,
            record,
            fast,
            self.variant,
            orders,
            bots,
        )

    def new_initial_state(self) -> TriageState:
        return TriageState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TriageObserver:
        return TriageObserver(
            self.scales, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


@dataclass(frozen=True)
class TensorScales:
    """What an observer writes with: the layout, the public record, and the factors that bring
    the observation (``observation``: one per entry) and the record (``record``) into [-1, 1]
    (all 1 with ``tensors="raw"``)."""

    layout: Layout
    record: PublicRecord
    observation: np.ndarray
    record_factor: float


def _tensor_scales(game: TriageGame, record: PublicRecord, tensors: str) -> TensorScales:
    """The tensors' factors: the scaled encoding's (:mod:`triage.envs.features`, every entry by
    its proven bound) and 1 / the record's largest entry; ones for ``raw``."""
    size = game.layout.observation_size
    if tensors == "raw":
        return TensorScales(game.layout, record, np.ones(size, np.float32), 1.0)
    from triage.envs.features import ObservationEncoder  # Gymnasium's spaces: only when scaling

    encoder = ObservationEncoder(game.layout, game.config, game.variant.cards(), game.players)
    return TensorScales(game.layout, record, (1.0 / encoder.scale).astype(np.float32), 1.0 / record.top)


@dataclass(frozen=True)
class PublicRecord:
    """The public record of a game as numbers: one entry per decision and per draw, in order.

    Every decision in Triage is public, and so is every draw (the drawn card's front and id,
    I1; ids are neutral handles, K1, that let a seat tell a card again, I2). A decision by
    player p of integer a is ``1 + p * num_actions + a``; a draw of card c by player p is
    ``1 + players * num_actions + p * cards + c``, c the card's place among the sorted ids.
    ``length`` entries (the proven most decisions and draws) follow the observation in
    ``information_state_tensor``, zeros after the last."""

    players: int
    num_actions: int
    card_ids: list[str]
    length: int
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {card: number for number, card in enumerate(self.card_ids)})

    def decision(self, player: int, action: int) -> int:
        return 1 + player * self.num_actions + action

    @property
    def top(self) -> int:
        """The largest entry (the last card drawn by the last player): the scaled tensors
        divide by it, so that every entry lies in (0, 1] and stays distinct."""
        return self.players * (self.num_actions + len(self.card_ids))

    def draws(self, events: list[Event]) -> list[int]:
        """The entries of the draws among ``events`` (public: the card's front, I1)."""
        base = 1 + self.players * self.num_actions
        cards = len(self.card_ids)
        index = self.index
        return [
            base + event["player"] * cards + index[event["card"]]
            for event in events
            if event["type"] == "drawn"
        ]


#: The chance outcomes of one deal digit: every digit equally likely.
_DEAL_OUTCOMES: tuple[tuple[int, float], ...] = tuple((digit, 1.0 / DEAL_BASE) for digit in range(DEAL_BASE))


def apply_deal(state: pyspiel.State, seed: int) -> None:
    """Play the chance nodes that deal ``Game.new(seed=seed)``: for experiments that fix a deal."""
    for digit in seed.to_bytes(DEAL_DIGITS, "big"):
        state.apply_action(digit)


class PlayerAction(NamedTuple):
    """One entry of :meth:`TriageState.full_history`."""

    player: int
    action: int


class _Position:
    """A state's own part: its table (None until the deal), the public decisions and the deal
    digits. A copy (:meth:`copy`, what ``state.clone()`` makes) shares all of them with the
    original, copy-on-write: whichever of the two changes first makes its own copy
    (:meth:`own`), the table by ``Game.copy``. So a clone costs a few references, and a clone
    that is stepped costs the ``Game.copy`` it needs then, once."""

    __slots__ = (
        "deal_digits",
        "public_actions",
        "record",
        "recall",
        "seed",
        "shared",
        "table",
        "table_shared",
    )

    def __init__(self, table: Table | None, seed: int | None) -> None:
        self.table = table
        #: A deal to make when the game is first looked at (``seed`` >= 0: no chance node).
        self.seed = seed
        #: Every player decision so far as (player, integer): public in Triage.
        self.public_actions: list[tuple[int, int]] = []
        #: The public record's entries so far (:class:`PublicRecord`).
        self.record: list[int] = []
        #: The chance digits of the deal drawn so far (secret: never part of an observation).
        self.deal_digits: list[int] = []
        #: Whether the three lists above may be another position's too.
        self.shared = False
        #: Whether the table (and so its game) may be another position's too.
        self.table_shared = False
        #: The perfect-recall strings' tail (:meth:`recall_text`) and the record length it is of.
        self.recall: tuple[int, str] | None = None

    def own(self) -> None:
        """Make the table and the lists this position's own before it changes them."""
        if self.table_shared:
            self.own_table()
        if self.shared:
            self.public_actions = self.public_actions[:]
            self.record = self.record[:]
            self.deal_digits = self.deal_digits[:]
            self.shared = False

    def own_table(self) -> Table | None:
        """This position's table, copied first (``Table.copy``: ``Game.copy``) if it is shared."""
        table = self.table
        if self.table_shared and table is not None:
            table = self.table = table.copy()
        self.table_shared = False
        return table

    def copy(self, table: Table | None = None) -> _Position:
        """A copy sharing everything until either changes (on ``table``, this one's own, when
        given: a drawn world's)."""
        other = _new_position(_Position)
        if table is None:
            other.table = self.table
            other.table_shared = self.table_shared = self.table is not None
        else:
            other.table = table
            other.table_shared = False
        other.seed = self.seed
        other.public_actions = self.public_actions
        other.record = self.record
        other.deal_digits = self.deal_digits
        other.shared = self.shared = True
        other.recall = self.recall
        return other

    def recall_text(self) -> str:
        """What the perfect-recall strings add to the view's text: every decision, then the
        public record; worked out once per position (the record grows at every decision)."""
        record = self.record
        recall = self.recall
        if recall is None or recall[0] != len(record):
            history = " ".join(f"{who}:{action}" for who, action in self.public_actions)
            recall = self.recall = (len(record), f"\nactions {history}\nrecord {' '.join(map(str, record))}")
        return recall[1]

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        return self.copy()

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """Pickled as its own: a position read back shares nothing."""
        slots = {name: getattr(self, name) for name in self.__slots__}
        slots["shared"] = slots["table_shared"] = False
        return None, slots

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        """Read back, also from a pickle made before the copy-on-write flags and the recall."""
        self.shared = self.table_shared = False
        self.recall = None
        for name, value in state[1].items():
            setattr(self, name, value)


_new_position = _Position.__new__


_new_state = pyspiel.State.__new__
_state_init = pyspiel.State.__init__


class TriageState(pyspiel.State):
    """A Triage position: the engine game (None until the deal) and the public decisions."""

    def __init__(self, game: TriageGame, engine: Game | None = None) -> None:
        super().__init__(game)
        self._settings: Settings = game.settings
        table = Table(engine, game.layout) if engine is not None else None
        self._position = _Position(table, game.seed if engine is None and game.seed >= 0 else None)

    def _table(self) -> Table | None:
        position = self._position
        if position.table is None and position.seed is not None:
            self._deal(position.seed)
        return position.table

    def _deal(self, seed: int) -> None:
        self._place(self._settings.deal(seed))

    def _place(self, game: Game) -> None:
        settings = self._settings
        if sorted(game.cards) != settings.record.card_ids:
            raise EncodingError("this deal's card ids are not those of the game's deck list")
        self._position.table = Table(game, settings.layout)
        self._position.table_shared = False
        self._position.seed = None
        self._position.record = settings.record.draws(game.initial_events)
        self._play_bots()

    @property
    def engine(self) -> Game | None:
        """The all-seeing engine game (for analysis and tests, never for an agent): this
        state's own, so that changing it changes no clone."""
        if self._table() is None:
            return None
        table = self._position.own_table()
        return table.game if table is not None else None

    @property
    def public_actions(self) -> list[tuple[int, int]]:
        return self._position.public_actions

    @property
    def deal_digits(self) -> list[int]:
        return self._position.deal_digits

    # ------------------------------------------------------------------ pyspiel.State API

    def current_player(self) -> int:
        table = self._table()
        if table is None:
            return int(pyspiel.PlayerId.CHANCE)
        turn = table.game.turn
        return int(pyspiel.PlayerId.TERMINAL) if turn is None else int(turn)

    def _legal_actions(self, player: int) -> list[int]:
        table = self._table()
        if table is None or player != table.game.turn:
            return []
        return table.legal_ids(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._table() is not None:
            return []
        orders = len(self._settings.orders)
        if orders:
            return [(index, 1.0 / orders) for index in range(orders)]
        return list(_DEAL_OUTCOMES)

    # ------------------------------------------------------------------ Python callers' fast path
    # rl_environment asks every player's tensor and legal actions at every step; pyspiel's own
    # answers go through C++ and back (current_player, _legal_actions, the observer set twice,
    # the tensor turned into a Python list). These answer the same from Python, for Python callers.

    def legal_actions(self, player: Any = None) -> list[int]:
        """pyspiel's ``legal_actions``: the deal digits at a chance node (whichever player is
        named, as pyspiel answers there), the seat's legal integers at its decision, else none."""
        table = self._table()
        if table is None:
            return list(range(len(self._settings.orders) or DEAL_BASE))
        turn = table.game.turn
        if turn is None or (player is not None and player != turn):
            return []
        return table.legal_ids(turn)

    def is_chance_node(self) -> bool:
        """Whether the deal is still to be drawn."""
        return self._table() is None

    def information_state_tensor(self, player: Any = None) -> np.ndarray:
        """pyspiel's ``information_state_tensor`` (the perfect-recall observer's tensor), as a
        new float32 array written by one observer kept on the game."""
        return self._tensor(self._settings.fast_observers[1], player)

    def observation_tensor(self, player: Any = None) -> np.ndarray:
        """pyspiel's ``observation_tensor``, as :meth:`information_state_tensor`."""
        return self._tensor(self._settings.fast_observers[0], player)

    def information_state_string(self, player: Any = None) -> str:
        """pyspiel's ``information_state_string`` (what IS-MCTS keys its nodes by), from Python."""
        return self._settings.fast_observers[1].string_from(self, self._seat(player, "an information state"))

    def observation_string(self, player: Any = None) -> str:
        """pyspiel's ``observation_string``, from Python."""
        return self._settings.fast_observers[0].string_from(self, self._seat(player, "an observation"))

    def _seat(self, player: Any, what: str) -> int:
        players = self._settings.seats
        seat = self.current_player() if player is None else int(player)
        if not 0 <= seat < players:
            raise pyspiel.SpielError(f"{what} is asked of a player 0..{players - 1}, got {seat}")
        return seat

    def _tensor(self, observer: TriageObserver, player: Any) -> np.ndarray:
        observer.set_from(self, self._seat(player, "a tensor"))
        return observer.tensor.copy()

    def _deal_order(self, index: int) -> None:
        """The ``mini`` deal: the deck in its ``index``-th order (secret, as a shuffle is)."""
        settings = self._settings
        if not 0 <= index < len(settings.orders):
            raise pyspiel.SpielError(f"a deal order must be in 0..{len(settings.orders) - 1}, got {index}")
        self._position.own()
        self._position.deal_digits.append(index)
        self._place(deal_arranged(settings.players, settings.config, settings.orders[index]))

    def _apply_action(self, action: int) -> None:
        table = self._table()
        position = self._position
        if table is None and self._settings.orders:
            self._deal_order(int(action))
            return
        if position.shared or position.table_shared:
            position.own()
        table = position.table
        if table is None:
            if not 0 <= action < DEAL_BASE:
                raise pyspiel.SpielError(f"a deal digit must be in 0..{DEAL_BASE - 1}, got {action}")
            position.deal_digits.append(int(action))
            if len(position.deal_digits) == DEAL_DIGITS:
                self._deal(int.from_bytes(bytes(position.deal_digits), "big"))
            return
        player = table.game.turn
        if player is None:
            raise pyspiel.SpielError(f"the game is over: no action applies, got {action}")
        events = table.play_quiet(player, int(action))
        position.public_actions.append((player, int(action)))
        self._note(player, int(action), events)
        if self._settings.bots:
            self._play_bots()

    def _note(self, player: int, action: int, events: list[Event]) -> None:
        """A decision and the draws it caused, on the public record."""
        record = self._position.record
        record.append(self._settings.record.decision(player, action))
        for event in events:
            if event["type"] == "drawn":
                record += self._settings.record.draws([event])

    def _play_bots(self) -> None:
        """The ``opponents`` bots' decisions, each from its seat's view (I4), until seat 0's
        turn or the end. Each draws from a generator seeded by the deal and the move, so that a
        state's future does not depend on how it was reached or copied."""
        bots = self._settings.bots
        position = self._position
        if not bots or position.table is None or position.table.game.turn not in bots:
            return
        position.own()
        table = position.table
        game = table.game
        deal = zlib.crc32(bytes(self._position.deal_digits))
        while (seat := game.turn) is not None and seat in bots:
            rng = random.Random((deal << 20) + len(game.history))
            action = action_to_id(game, bots[seat].choose(table.view(seat), game.legal_actions(), rng), seat)
            self._note(seat, action, table.play_quiet(seat, action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal order {action}" if self._settings.orders else f"deal digit {action}"
        return f"p{player}: {self._settings.layout.describe(int(action))}"

    def is_terminal(self) -> bool:
        table = self._table()
        return table is not None and table.game.phase == "over"

    def returns(self) -> list[float]:
        settings = self._settings
        table = self._table()
        if table is None or not table.game.is_over():
            return [0.0] * settings.seats
        game = table.game
        return final_values(game.scores(), game.winner, settings.returns, settings.start)[: settings.seats]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TriageState:
        """A state drawn among those seat ``player_id`` cannot tell apart from this one; it keeps
        this state's history and move number."""
        table = self._table()
        if table is None:
            return self.clone()
        rng = random.Random(int(probability_sampler() * 2**53))
        world = determinize(table.view(player_id), rng)
        drawn_table = Table(world, self._settings.layout)
        drawn_table.share_seat(table, player_id)
        return self._sibling(self._position.copy(drawn_table))

    # ------------------------------------------------------------------ copies for Python callers
    # Search clones a state at every node. pyspiel's own clone (what C++ callers get) makes a new
    # initial state and deep-copies each attribute through copy.deepcopy; this one shares the
    # state's position (game and public lists, copy-on-write: the first of the two to be
    # stepped copies the game with Game.copy) and answers the history from it, so that a clone
    # costs a pyspiel state object and a few references. The C++ side of a state made here
    # starts empty: its history and move number are answered from Python (below), from the
    # state's own record; its serialization holds the same attributes, so a state read back
    # answers them alike.

    def clone(self) -> TriageState:
        """An independent copy: it shares this state's game and record until either is stepped
        (:class:`_Position`, copy-on-write), so stepping one never changes the other."""
        return self._sibling(self._position.copy())

    def _sibling(self, position: _Position) -> TriageState:
        other = _new_state(TriageState)
        _state_init(other, self.get_game())
        other._settings = self._settings
        other._position = position
        return other

    def history(self) -> list[int]:
        """Every action so far, chance outcomes (the deal) first: from this state's own record,
        so that a copy made in Python answers it too."""
        position = self._position
        return [*position.deal_digits, *(action for _, action in position.public_actions)]

    def full_history(self) -> list[PlayerAction]:
        """pyspiel's ``full_history``: each action with its player (-1: chance), as entries with
        ``player`` and ``action`` (pyspiel's own ``PlayerAction`` cannot be made from Python)."""
        chance = int(pyspiel.PlayerId.CHANCE)
        position = self._position
        return [PlayerAction(chance, digit) for digit in position.deal_digits] + [
            PlayerAction(player, action) for player, action in position.public_actions
        ]

    def history_str(self) -> str:
        return ", ".join(map(str, self.history()))

    def move_number(self) -> int:
        position = self._position
        return len(position.deal_digits) + len(position.public_actions)

    def is_initial_state(self) -> bool:
        return self.move_number() == 0

    def __str__(self) -> str:
        """Public information only: round, phase, whose decision, scores, decisions so far."""
        game = self.engine
        if game is None:
            return "deal pending"
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
    """OpenSpiel's observer protocol over views: one seat's (``private_info=SINGLE_PLAYER``) or
    what every player knows (``NONE``, the spectator's view); with ``perfect_recall`` the tensor
    goes on with the public record (:class:`PublicRecord`) and the string with the decisions.
    Tensors are scaled into [-1, 1] unless the game's ``tensors`` is ``raw`` (:class:`TensorScales`)."""

    def __init__(self, scales: TensorScales, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"the triage observer takes no parameters, got {params!r}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS or not iig_obs_type.public_info:
            raise ValueError(
                "triage observations are views: public_info=True, and private_info SINGLE_PLAYER "
                "(a seat's) or NONE (what every player knows); never ALL_PLAYERS (rules.md I4)"
            )
        self.public_only = private == pyspiel.PrivateInfoType.NONE
        self.layout = scales.layout
        self.scales = scales
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.record_length = scales.record.length if self.perfect_recall else 0
        self.tensor = np.zeros(self.layout.observation_size + self.record_length, np.float32)
        self._share_parts()

    def _share_parts(self) -> None:
        """``dict``'s parts as views of ``tensor`` (OpenSpiel's observer protocol), and no record
        written into it yet."""
        self.dict = {"view": self.tensor[: self.layout.observation_size]}
        if self.perfect_recall:
            self.dict["record"] = self.tensor[self.layout.observation_size :]
        #: The record whose first entries the tensor's record part holds, and how many: the
        #: record only grows (a state copies it before changing it), so the next state of the
        #: same game, or another seat of the same state, writes only what is new.
        self._written: tuple[list[int] | None, int] = (None, 0)

    def __getstate__(self) -> dict[str, Any]:
        """A pickle (a state read back carries its game's observers) without the views, which
        would come back as copies of the tensor, and without the record it was written from."""
        state = dict(self.__dict__)
        del state["dict"], state["_written"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._share_parts()

    def set_from(self, state: TriageState, player: int) -> None:
        table = state._table()
        view_part = self.dict["view"]
        if table is None:
            self.tensor.fill(0.0)
            self._written = (None, 0)
            return
        if self.public_only:
            np.multiply(
                self.layout.observe(spectator_view(table.game)), self.scales.observation, out=view_part
            )
        else:
            np.multiply(table.observation(player), self.scales.observation, out=view_part)
        if self.perfect_recall:
            self._set_record(state._position.record)

    def _set_record(self, record: list[int]) -> None:
        """The record part: the entries of ``record`` (scaled), zeros after them. Only the
        entries not yet written are, when the part already holds the start of this same list."""
        count = len(record)
        if count > self.record_length:
            raise EncodingError(f"the public record outgrew its proven length {self.record_length}")
        part = self.dict["record"]
        source, written = self._written
        if source is not record or written > count:
            part.fill(0.0)
            written = 0
        if count > written:
            entries = part[written:count]
            entries[:] = record[written:count]
            if self.scales.record_factor != 1.0:
                entries *= self.scales.record_factor
        self._written = (record, count)

    def string_from(self, state: TriageState, player: int) -> str:
        table = state._table()
        if table is None:
            return "before the deal" if self.public_only else f"p{player} before the deal"
        text = view_text(spectator_view(table.game)) if self.public_only else table.text(player)
        if self.perfect_recall:
            text += state._position.recall_text()
        return text


class RolloutEvaluator(mcts.Evaluator):
    """Rollouts played on the engine itself, for OpenSpiel's MCTS and IS-MCTS bots.

    OpenSpiel's ``RandomRolloutEvaluator`` steps a pyspiel state (legal list, NumPy choice,
    apply) at every move; this one copies the engine game once and plays it out with
    :func:`triage.engine.rollout.rollout` on integer actions (``policy``: uniform random by
    default, or the greedy bot's ``triage.bots.policy.rollout_policy()``), then scores the end
    with the game's ``returns``.

    A state-reading policy such as the greedy one is fair only on a world drawn from the
    searching seat's view, which is what IS-MCTS evaluates (``resample_from_infostate``); with
    plain MCTS on the real game it would read hidden cards (I4)."""

    def __init__(self, n_rollouts: int = 1, seed: int | None = None, policy: Policy = random_policy) -> None:
        self.n_rollouts = n_rollouts
        self.policy = policy
        self._rng = random.Random(seed)

    def evaluate(self, state: TriageState) -> np.ndarray:
        settings = state._settings
        table = state._table()
        if table is None:  # before the deal: deal one at random
            table = Table(settings.deal(self._rng.randrange(2**56)), settings.layout)
        total = np.zeros(settings.players)
        for _ in range(self.n_rollouts):
            game = table.game.copy()
            rollout(game, self.policy, self._rng)
            total += final_values(game.scores(), game.winner, settings.returns, settings.start)
        return total / self.n_rollouts

    def prior(self, state: TriageState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


def bot_action(chooser: Any, state: TriageState, rng: random.Random) -> int:
    """The integer a built-in bot chooses in ``state`` from the seat's view alone (I4)."""
    table = state._table()
    seat = table.game.turn if table is not None else None
    if table is None or seat is None:
        raise pyspiel.SpielError("a bot decides only at a player's decision, not at the deal or the end")
    game = table.game
    action = chooser.choose(table.view(seat), game.legal_actions(), rng)
    return action_to_id(game, action, seat)


class TriageBot(pyspiel.Bot):
    """A built-in bot (``greedy``, ``expert-novice`` ... any name ``triage.bots.make_bot``
    takes) as an OpenSpiel bot: ``step(state)`` gives its integer action."""

    def __init__(self, name: str, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.name = name
        self._chooser = make_bot(name)
        self._rng = random.Random(seed)

    def step(self, state: TriageState) -> int:
        return bot_action(self._chooser, state, self._rng)

    def restart_at(self, state: TriageState) -> None:
        """Nothing to forget: the bot reads the view afresh at every decision."""

    def provides_policy(self) -> bool:
        return False


def bot(name: str, seed: int | None = None) -> TriageBot:
    """``triage.envs.openspiel.bot("greedy")``: a built-in bot as a ``pyspiel.Bot``."""
    return TriageBot(name, seed)


class BotPolicy(openspiel_policy.Policy):
    """A built-in bot as an OpenSpiel policy (all its weight on its choice), for
    ``exploitability.nash_conv``: a policy must answer the same in every state of an information
    state, so the bot's generator is seeded from the information state string and each answer
    is kept."""

    def __init__(self, game: TriageGame, name: str) -> None:
        super().__init__(game, list(range(game.players)))  # type: ignore[no-untyped-call]
        self.name = name
        self._chooser = make_bot(name)
        self._answers: dict[str, int] = {}

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        key = state.information_state_string(state.current_player())
        action = self._answers.get(key)
        if action is None:
            rng = random.Random(zlib.crc32(key.encode()))
            action = self._answers[key] = bot_action(self._chooser, state, rng)
        return {action: 1.0}


pyspiel.register_game(GAME_TYPE, TriageGame)
