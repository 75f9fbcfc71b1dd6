"""The part of OpenSpiel's compiled ``pyspiel`` module that Triage uses, typed as its pybind11
signatures say (``help(pyspiel.X)``); pyspiel ships no types. Add what a new use needs."""

from collections.abc import Callable, Mapping
from enum import IntEnum
from typing import ClassVar, Self, SupportsFloat, SupportsIndex, SupportsInt, overload

_Int = SupportsInt | SupportsIndex
_Float = SupportsFloat | SupportsIndex
GameParameter = bool | int | float | str

class SpielError(Exception): ...

class PlayerId(IntEnum):
    DEFAULT_PLAYER_ID = 0
    CHANCE = -1
    SIMULTANEOUS = -2
    INVALID = -3
    TERMINAL = -4
    MEAN_FIELD = -5

class PrivateInfoType:
    NONE: ClassVar[PrivateInfoType]
    SINGLE_PLAYER: ClassVar[PrivateInfoType]
    ALL_PLAYERS: ClassVar[PrivateInfoType]

class IIGObservationType:
    public_info: bool
    perfect_recall: bool
    private_info: PrivateInfoType
    def __init__(
        self, public_info: bool = True, *, perfect_recall: bool, private_info: PrivateInfoType = ...
    ) -> None: ...

class GameType:
    class Dynamics:
        SEQUENTIAL: ClassVar[GameType.Dynamics]
        SIMULTANEOUS: ClassVar[GameType.Dynamics]
        MEAN_FIELD: ClassVar[GameType.Dynamics]

    class ChanceMode:
        DETERMINISTIC: ClassVar[GameType.ChanceMode]
        EXPLICIT_STOCHASTIC: ClassVar[GameType.ChanceMode]
        SAMPLED_STOCHASTIC: ClassVar[GameType.ChanceMode]

    class Information:
        ONE_SHOT: ClassVar[GameType.Information]
        PERFECT_INFORMATION: ClassVar[GameType.Information]
        IMPERFECT_INFORMATION: ClassVar[GameType.Information]

    class Utility:
        ZERO_SUM: ClassVar[GameType.Utility]
        CONSTANT_SUM: ClassVar[GameType.Utility]
        GENERAL_SUM: ClassVar[GameType.Utility]
        IDENTICAL: ClassVar[GameType.Utility]

    class RewardModel:
        REWARDS: ClassVar[GameType.RewardModel]
        TERMINAL: ClassVar[GameType.RewardModel]

    def __init__(
        self,
        short_name: str,
        long_name: str,
        dynamics: GameType.Dynamics,
        chance_mode: GameType.ChanceMode,
        information: GameType.Information,
        utility: GameType.Utility,
        reward_model: GameType.RewardModel,
        max_num_players: _Int,
        min_num_players: _Int,
        provides_information_state_string: bool,
        provides_information_state_tensor: bool,
        provides_observation_string: bool,
        provides_observation_tensor: bool,
        parameter_specification: Mapping[str, GameParameter] = ...,
        default_loadable: bool = True,
        provides_factored_observation_string: bool = False,
        action_structs_only: bool = False,
    ) -> None: ...

class GameInfo:
    def __init__(
        self,
        num_distinct_actions: _Int,
        max_chance_outcomes: _Int,
        num_players: _Int,
        min_utility: _Float,
        max_utility: _Float,
        utility_sum: _Float | None = None,
        *,
        max_game_length: _Int,
    ) -> None: ...

class Bot:
    def __init__(self) -> None: ...

class Game:
    def __init__(self, game_type: GameType, info: GameInfo, params: Mapping[str, GameParameter]) -> None: ...
    def new_initial_state(self) -> State: ...

class State:
    def __init__(self, game: Game) -> None: ...
    def clone(self) -> Self: ...
    def get_game(self) -> Game: ...
    def current_player(self) -> int: ...
    def is_chance_node(self) -> bool: ...
    def is_terminal(self) -> bool: ...
    def chance_outcomes(self) -> list[tuple[int, float]]: ...
    @overload
    def legal_actions(self) -> list[int]: ...
    @overload
    def legal_actions(self, player: _Int) -> list[int]: ...
    def apply_action(self, action: _Int) -> None: ...
    def returns(self) -> list[float]: ...

@overload
def load_game(name: str) -> Game: ...
@overload
def load_game(name: str, params: Mapping[str, GameParameter]) -> Game: ...
def register_game(game_type: GameType, creator: Callable[..., Game]) -> None: ...
