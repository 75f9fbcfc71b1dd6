"""Speed of the research adapters, as ratios against the engine measured in the same run.

    python -m triage.envs.bench [--seconds 3] [--players 2] [--simulations 200]

Every figure is a rate of random play on one core, so that machines and loads cancel out in the
ratios:

* ``engine dict``: the engine alone, ``legal_actions()`` then ``apply()`` of a random one (the
  reference, as in ``triage bench``), for ``--players`` and for the solo game (Gymnasium's
  reference);
* ``openspiel``: ``state.legal_actions()`` then ``state.apply_action()`` (deal by chance nodes
  included in the time, not in the count);
* ``pettingzoo``: the AEC loop, ``last()`` (observation and mask) then ``step()``; ``, raw``
  the same on the raw encoding (:mod:`triage.envs.features`), where the default's scaling
  costs nothing: the scaling's own cost is the gap between the two rows;
* ``engine integer path``: ``legal_action_ids()`` then ``apply_id()`` of a random one, for
  ``--players`` and solo (the second column's reference);
* ``openspiel rl_environment``: OpenSpiel's ``rl_environment.Environment`` loop (every player's
  information-state tensor and legal actions at each step);
* ``gymnasium``: ``action_masks()`` then ``step()`` (which returns the observation); and on
  the raw encoding;
* ``gymnasium vector``: the native vector environment (``gymnasium.make_vec``) of
  :data:`VECTOR_ENVS` solo games, a random legal action per game, every game's step counted;
  its rate is printed as a ratio to one ``Triage-v0`` (the single environment a learner would
  otherwise step) and to the same vector environment with one game; the same with
  :data:`VECTOR_WIDE` games against one ``Triage-v0``;
* ``--ceilings``: the vector environment and ``rl_environment`` again with every observation
  replaced by a constant (:func:`free_observation`): the adapter's own cost, the most its ratio
  could reach however cheap the observation became;
* ``ismcts``: iterations per second of OpenSpiel's Python IS-MCTS bot
  (``open_spiel.python.algorithms.ismcts``) choosing the first decision of a 2-player game, with
  OpenSpiel's ``RandomRolloutEvaluator`` and with :class:`triage.envs.openspiel.RolloutEvaluator`,
  against the same bot on ``leduc_poker``.

Random choices use Python's ``random`` in every loop but OpenSpiel's own evaluator (NumPy).
Time is the process's CPU time (``time.process_time``), so other work on a shared machine does
not count; the paths also take turns in short slices (``--slices``), so that what load still
does (caches, frequency) hits them alike.
"""

from __future__ import annotations

import argparse
import random
from array import array
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from pyspiel import GameParameter

#: The vector environment's games, and its steps per timed batch; the wide batch's games.
VECTOR_ENVS = 16
VECTOR_WIDE = 256
VECTOR_STEPS = 8


@dataclass(frozen=True)
class Rate:
    """``count`` units of work in ``seconds``."""

    name: str
    count: int
    seconds: float
    unit: str

    @property
    def per_second(self) -> float:
        return self.count / self.seconds


@dataclass
class _Path:
    """One path: ``batch(k)`` does the k-th unit of work (a game, a search) and counts it."""

    name: str
    unit: str
    batch: Callable[[int], int]
    count: int = 0
    seconds: float = 0.0
    calls: int = 0

    def run(self, seconds: float) -> None:
        start = time.process_time()
        while True:
            self.count += self.batch(self.calls)
            self.calls += 1
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                self.seconds += elapsed
                return

    def rate(self) -> Rate:
        return Rate(self.name, self.count, self.seconds, self.unit)


def _timed(name: str, unit: str, seconds: float, batch: Callable[[int], int]) -> _Path:
    return _Path(name, unit, batch)


def engine_dict(players: int, seconds: float, name: str = "engine dict path") -> _Path:
    from triage.engine import Game

    def game(seed: int) -> int:
        state, rng, steps = Game.new(players=players, seed=seed), random.Random(seed), 0
        while state.turn is not None:
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return _timed(name, "actions", seconds, game)


def engine_int(players: int, seconds: float, name: str = "engine integer path") -> _Path:
    """The engine's integer path: ``legal_action_ids()`` then ``apply_id()`` of a random one."""
    from triage.engine import Game

    def game(seed: int) -> int:
        state, rng, steps = Game.new(players=players, seed=seed), random.Random(seed), 0
        while state.turn is not None:
            state.apply_id(rng.choice(state.legal_action_ids()))
            steps += 1
        return steps

    return _timed(name, "actions", seconds, game)


def vector_env(seconds: float, num_envs: int = VECTOR_ENVS) -> _Path:
    """``gymnasium.make_vec("Triage-v0", num_envs)`` (the native vector environment, solo games):
    a random legal action per game from ``action_masks()``, then ``step``; every game counts."""
    import gymnasium

    import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
    from triage.envs.vector import random_actions

    environment = gymnasium.make_vec("Triage-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")
    rng = np.random.default_rng(0)
    environment.reset(seed=0)

    def batch(_: int) -> int:
        for _ in range(VECTOR_STEPS):
            environment.step(random_actions(environment.action_masks(), rng))  # type: ignore[attr-defined]
        return VECTOR_STEPS * num_envs

    return _timed(f"gymnasium vector x{num_envs} (solo)", "actions", seconds, batch)


#: Copies per timed batch, and the random actions that lead to the copied position.
COPIES = 200
COPY_AT = 40


def _copy_rate(name: str, copy: Callable[[], object], count: int = COPIES) -> _Path:
    def batch(_: int) -> int:
        for _ in range(count):
            copy()
        return count

    return _Path(name, "copies", batch)


def copy_paths(players: int) -> list[_Path]:
    """Copies of one mid-game position (:data:`COPY_AT` random actions into a deal): the engine's
    ``Game.copy`` (the reference), OpenSpiel's ``state.clone()`` from Python and pyspiel's own
    clone (through C++ and ``copy.deepcopy``), the floor of any clone through pyspiel that copies
    the game at once (``Game.copy`` plus a bare pyspiel state object), a copy then stepped once
    as search does (``Game.copy`` + ``apply_id`` against ``state.clone()`` + ``apply_action``:
    the clone's game is copied at that step, copy-on-write), ``leduc_poker``'s clone, and
    ``copy.deepcopy`` of the PettingZoo and Gymnasium environments, each also through the
    generic deep copy that they had before they copied through ``Game.copy``."""
    import copy
    from unittest import mock

    import gymnasium
    import pyspiel

    import triage.envs.gymnasium  # noqa: F401 - registers Triage-v0
    from triage.envs.gymnasium import TriageEnv
    from triage.envs.openspiel import TriageState, apply_deal
    from triage.envs.pettingzoo import env, raw_env
    from triage.envs.table import Table

    rng = random.Random(COPY_AT)
    state = pyspiel.load_game("triage", {"players": players}).new_initial_state()
    apply_deal(state, 7)
    for _ in range(COPY_AT):
        state.apply_action(rng.choice(state.legal_actions()))
    engine = state.engine  # type: ignore[attr-defined]
    leduc = pyspiel.load_game("leduc_poker").new_initial_state()
    leduc.apply_action(0)
    leduc.apply_action(1)
    zoo = env(players=players)
    zoo.reset(seed=7)
    for _ in range(COPY_AT):
        zoo.step(rng.choice(np.flatnonzero(zoo.observe(zoo.agent_selection)["action_mask"]).tolist()))  # type: ignore[index]
    single = gymnasium.make("Triage-v0")
    observation, _ = single.reset(seed=7)
    for _ in range(COPY_AT // 2):
        observation, *_ = single.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))

    spiel_game = state.get_game()
    step = state.legal_actions()[0]  # an integer of the layout: the engine's own id

    def clone_and_step() -> None:
        state.clone().apply_action(step)

    def copy_and_step() -> None:
        engine.copy().apply_id(step)

    def floor() -> object:
        """``Game.copy`` and a pyspiel state object with nothing in it: a clone's least cost."""
        engine.copy()
        bare = pyspiel.State.__new__(TriageState)
        pyspiel.State.__init__(bare, spiel_game)
        return bare

    def generic(environment: object, cls: type) -> Callable[[], object]:
        def copied() -> object:
            with mock.patch.object(cls, "__deepcopy__", None), mock.patch.object(Table, "__deepcopy__", None):
                return copy.deepcopy(environment)

        return copied

    return [
        _copy_rate(COPY_REFERENCE, engine.copy),
        _copy_rate("openspiel state.clone()", state.clone),
        _copy_rate("openspiel clone through C++ (pyspiel's)", lambda: pyspiel.State.clone(state)),
        _copy_rate(CLONE_FLOOR, floor),
        _copy_rate(COPY_STEP, copy_and_step),
        _copy_rate(CLONE_STEP, clone_and_step),
        _copy_rate("leduc_poker clone", leduc.clone),
        _copy_rate("pettingzoo deepcopy", lambda: copy.deepcopy(zoo)),
        _copy_rate("pettingzoo deepcopy, generic", generic(zoo, raw_env), 10),
        _copy_rate("gymnasium deepcopy (solo)", lambda: copy.deepcopy(single)),
        _copy_rate("gymnasium deepcopy (solo), generic", generic(single, TriageEnv), 10),
    ]


COPY_REFERENCE = "engine Game.copy"
CLONE_FLOOR = "Game.copy + bare pyspiel state (floor)"
#: A copy that is then stepped once, as search does: the engine's, and a clone's (whose game is
#: copied at that step, copy-on-write).
COPY_STEP = "engine Game.copy + apply_id"
CLONE_STEP = "openspiel clone() + apply_action"


def rl_environment(players: int, seconds: float) -> _Path:
    """OpenSpiel's ``rl_environment.Environment`` (information-state tensors of every player
    and their legal actions at every step, as its agents read them), random legal actions."""
    from open_spiel.python import rl_environment as rl

    import triage.envs.openspiel  # noqa: F401 - registers "triage"

    environment = rl.Environment("triage", players=players)

    def game(seed: int) -> int:
        rng, steps = random.Random(seed), 0
        environment.seed(seed)
        time_step = environment.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = environment.step([rng.choice(time_step.observations["legal_actions"][player])])
            steps += 1
        return steps

    return _timed("openspiel rl_environment", "actions", seconds, game)


def openspiel(players: int, seconds: float) -> _Path:
    import pyspiel

    from triage.envs.openspiel import apply_deal

    spiel_game = pyspiel.load_game("triage", {"players": players})

    def game(seed: int) -> int:
        state, rng, steps = spiel_game.new_initial_state(), random.Random(seed), 0
        apply_deal(state, seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        return steps

    return _timed("openspiel", "actions", seconds, game)


def pettingzoo(players: int, seconds: float, encoding: str = "scaled") -> _Path:
    from triage.envs.pettingzoo import env

    environment = env(players=players, encoding=encoding)

    def game(seed: int) -> int:
        environment.reset(seed=seed)
        rng, steps = random.Random(seed), 0
        for _ in environment.agent_iter():
            observation, _, termination, truncation, _ = environment.last()
            if termination or truncation:
                environment.step(None)
                continue
            if not isinstance(observation, dict):
                raise TypeError("the pettingzoo path reads the Dict observation (observation='dict')")
            environment.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            steps += 1
        return steps

    return _timed(_named("pettingzoo", encoding), "actions", seconds, game)


def _named(name: str, encoding: str) -> str:
    """A path's name; one run on another encoding than the default says which."""
    return name if encoding == "scaled" else f"{name}, {encoding}"


def gymnasium_env(seconds: float, encoding: str = "scaled") -> _Path:
    import gymnasium

    from triage.envs.gymnasium import TriageEnv  # importing it registers Triage-v0

    environment = gymnasium.make("Triage-v0", encoding=encoding).unwrapped
    if not isinstance(environment, TriageEnv):
        raise TypeError(f"Triage-v0 makes a {type(environment).__name__}, not a TriageEnv")

    def game(seed: int) -> int:
        environment.reset(seed=seed)
        rng, steps, done = random.Random(seed), 0, False
        while not done:
            legal = np.flatnonzero(environment.action_masks()).tolist()
            _, _, done, _, _ = environment.step(rng.choice(legal))
            steps += 1
        return steps

    return _timed(_named("gymnasium", encoding) + " (solo)", "actions", seconds, game)


def ismcts(
    name: str,
    game_name: str,
    params: Mapping[str, GameParameter],
    evaluator: object,
    simulations: int,
    seconds: float,
) -> _Path:
    """IS-MCTS iterations per second on the first decision of ``game_name``."""
    import pyspiel
    from open_spiel.python.algorithms import ismcts as ismcts_module

    import triage.envs.openspiel  # noqa: F401 - registers "triage"

    spiel_game = pyspiel.load_game(game_name, params)
    bot = ismcts_module.ISMCTSBot(
        game=spiel_game,
        evaluator=evaluator,
        uct_c=2.0,
        max_simulations=simulations,
        random_state=np.random.RandomState(0),
    )

    def search(seed: int) -> int:
        state = spiel_game.new_initial_state()
        rng = np.random.RandomState(seed)
        while state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probabilities)))
        bot.step(state)
        return simulations

    return _timed(name, "iterations", seconds, search)


def free_observation(path: _Path) -> _Path:
    """``path`` with every observation and tensor replaced by one constant array while it runs:
    what the adapter costs besides the observation, so the ratio it could reach if observing
    cost nothing (a ceiling, not a way to play: the games are the same, the numbers are not)."""
    from unittest import mock

    from triage.envs.encoding import Layout
    from triage.envs.openspiel import TriageState
    from triage.envs.table import Table

    constant = np.zeros(1, np.float32)

    def zeros(layout: Layout, game: object, seat: int, memo: object = None) -> array[float]:
        """A zero raw observation of the right size (the vector environment joins its games')."""
        return array("f", bytes(4 * layout.observation_size))

    def batch(index: int) -> int:
        with (
            mock.patch.object(Table, "observation", lambda table, seat: constant),
            mock.patch.object(Layout, "observe_array", zeros),
            mock.patch.object(TriageState, "_tensor", lambda state, observer, player: constant),
        ):
            return path.batch(index)

    return _Path(f"{path.name}, free observation", path.unit, batch)


def measure(
    players: int = 2,
    seconds: float = 3.0,
    simulations: int = 200,
    slices: int = 5,
    ceilings: bool = False,
    only: tuple[str, ...] = (),
) -> tuple[Rate, list[Rate]]:
    """The engine's rate and every adapter's, in one run: ``seconds`` per path in all, taken in
    ``slices`` turns; with ``ceilings``, also the vector environment and ``rl_environment`` with
    a free observation (:func:`free_observation`); with ``only``, the engine's dict path and the
    paths whose name holds one of those words."""
    from open_spiel.python.algorithms import mcts

    from triage.envs.openspiel import RolloutEvaluator

    spiel_random = mcts.RandomRolloutEvaluator(random_state=np.random.RandomState(1))
    paths = [
        engine_dict(players, seconds),
        engine_dict(1, seconds, SOLO),
        engine_int(players, seconds),
        engine_int(1, seconds, SOLO_INT),
        openspiel(players, seconds),
        rl_environment(players, seconds),
        pettingzoo(players, seconds),
        pettingzoo(players, seconds, "raw"),
        gymnasium_env(seconds),
        gymnasium_env(seconds, "raw"),
        vector_env(seconds),
        ismcts("ismcts leduc_poker", "leduc_poker", {}, spiel_random, simulations, seconds),
        ismcts(
            "ismcts triage, RandomRolloutEvaluator",
            "triage",
            {"players": 2},
            spiel_random,
            simulations,
            seconds,
        ),
        ismcts(
            "ismcts triage, triage RolloutEvaluator",
            "triage",
            {"players": 2},
            RolloutEvaluator(seed=1),
            simulations,
            seconds,
        ),
    ]
    paths += [vector_env(seconds, 1), vector_env(seconds, VECTOR_WIDE), *copy_paths(players)]
    if ceilings:
        paths += [free_observation(vector_env(seconds)), free_observation(rl_environment(players, seconds))]
    if only:
        paths = paths[:1] + [path for path in paths[1:] if any(word in path.name for word in only)]
    for _ in range(slices):
        for path in paths:
            path.run(seconds / slices)
    rates = [path.rate() for path in paths]
    return rates[0], rates[1:]


SOLO = "engine dict path, solo"
SOLO_INT = "engine integer path, solo"


def report(reference: Rate, rates: list[Rate]) -> str:
    """The table of rates; each adapter's ratios are against the engine's dict and integer paths
    with as many players (Gymnasium's: the solo engine)."""
    lines = [f"{'path':42} {'per second':>12} {'vs engine dict path':>20} {'vs integer path':>16}"]
    named = {rate.name: rate for rate in rates}
    integer = named.get("engine integer path")
    solo = named.get(SOLO, reference), named.get(SOLO_INT, integer)
    leduc = named.get("ismcts leduc_poker")
    for rate in [reference, *rates]:
        dict_base, int_base = solo if "solo" in rate.name else (reference, integer)
        ratio = f"{rate.per_second / dict_base.per_second:20.2f}" if rate.unit == "actions" else " " * 20
        to_int = (
            f"{rate.per_second / int_base.per_second:16.2f}"
            if rate.unit == "actions" and int_base is not None
            else " " * 16
        )
        lines.append(f"{rate.name:42} {rate.per_second:12,.0f} {ratio} {to_int} {rate.unit}")
    if leduc is not None:
        for rate in rates:
            if rate.name.startswith("ismcts triage"):
                lines.append(f"{rate.name} / leduc_poker: {rate.per_second / leduc.per_second:.3f}")
    for numerator, denominator in RATIOS:
        if numerator in named and denominator in named:
            share = named[numerator].per_second / named[denominator].per_second
            lines.append(f"{numerator} / {denominator}: {share:.2f}")
    return "\n".join(lines)


#: The ratios the issues set aims on, printed under the table (issue 42 points 4 and 5). The
#: vector environment's aim is against a single environment: one ``Triage-v0``, and the vector
#: environment with one game, whose fixed cost per step makes it the slower of the two.
RATIOS: tuple[tuple[str, str], ...] = (
    (f"gymnasium vector x{VECTOR_ENVS} (solo)", "gymnasium (solo)"),
    (f"gymnasium vector x{VECTOR_ENVS} (solo)", "gymnasium vector x1 (solo)"),
    (f"gymnasium vector x{VECTOR_WIDE} (solo)", "gymnasium (solo)"),
    ("openspiel state.clone()", COPY_REFERENCE),
    ("openspiel clone through C++ (pyspiel's)", COPY_REFERENCE),
    (CLONE_FLOOR, COPY_REFERENCE),
    (CLONE_STEP, COPY_STEP),
    ("leduc_poker clone", COPY_REFERENCE),
    ("pettingzoo deepcopy", "pettingzoo deepcopy, generic"),
    ("gymnasium deepcopy (solo)", "gymnasium deepcopy (solo), generic"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2, help="OpenSpiel and PettingZoo (Gymnasium is solo)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each path")
    parser.add_argument("--simulations", type=int, default=200, help="IS-MCTS iterations per search")
    parser.add_argument("--slices", type=int, default=5, help="turns the paths take")
    parser.add_argument(
        "--ceilings",
        action="store_true",
        help="also the vector environment and rl_environment with a free observation",
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated words: measure only the paths whose name holds one (e.g. copy,clone,ismcts)",
    )
    args = parser.parse_args(argv)
    only = tuple(word for word in args.only.split(",") if word)
    print(report(*measure(args.players, args.seconds, args.simulations, args.slices, args.ceilings, only)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
