"""Bots: players that choose from their seat's view only.

Built-in bots are named in :data:`BOTS` (name -> a callable making one); a designer's own bot is
named ``module:Class`` (any importable class or factory whose objects have ``choose``).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Callable

from triage.bots.base import Bot, BotForm
from triage.bots.expert import ExpertBot
from triage.bots.fast import FastBot
from triage.bots.flatmc import FlatMonteCarloBot
from triage.bots.greedy import GreedyBot
from triage.bots.habits import HABIT_BOTS, HABIT_DESCRIPTIONS
from triage.bots.montecarlo import MonteCarloBot
from triage.bots.random_bot import RandomBot
from triage.engine.shapes import View

BOTS: dict[str, Callable[[], Bot]] = {"random": RandomBot}
BOTS["greedy"] = GreedyBot  # triage.bots.greedy (issue 3)
BOTS["expert"] = partial(ExpertBot, level="expert")  # triage.bots.expert (issue 12)
BOTS["expert-club"] = partial(ExpertBot, level="club")
BOTS["expert-novice"] = partial(ExpertBot, level="novice")
BOTS["expert-whole"] = partial(ExpertBot, level="expert", valued=False)
BOTS["expert-fast"] = FastBot  # the expert's judgement learned, without search (triage.bots.fast)

BOTS.update(HABIT_BOTS)  # greedy plus one habit, for balance work (triage.bots.habits)
BOTS["montecarlo"] = MonteCarloBot  # the flat Monte-Carlo yardstick (triage.bots.montecarlo)
BOTS["flatmc"] = FlatMonteCarloBot  # the independent reference searcher (triage.bots.flatmc)


@dataclass(frozen=True)
class BotLevel:
    """A bot as a player meets it: its name (what ``make_bot`` takes), the level's friendly
    label and one line saying how it plays."""

    name: str
    label: str
    description: str


#: The opponents offered to players (the terminal game, the web form), gentlest first. Every
#: other built-in bot (the habit bots, ``montecarlo``) is for the simulator and the ladder only:
#: they exist to test the game's balance or to measure the levels, not to be played against.
PLAYER_LEVELS: tuple[BotLevel, ...] = (
    BotLevel(
        "expert-novice", "Gentle", "sound priorities, but overlooks one move in five: for your first games"
    ),
    BotLevel("expert-club", "Club", "a sound club player who knows the Helicopter's tricks; answers at once"),
    BotLevel("expert", "Expert", "searches hard before each move: the toughest opponent"),
    BotLevel("greedy", "Quick", "saves the dying first, then cures by deadline; plays at once"),
    BotLevel("random", "Random", "plays any legal move at random"),
)

#: One line per built-in bot, for help texts, menus and the simulator: the levels' own lines, then
#: the bots kept for balance testing.
BOT_DESCRIPTIONS: dict[str, str] = {level.name: level.description for level in PLAYER_LEVELS}
BOT_DESCRIPTIONS.update(HABIT_DESCRIPTIONS)
BOT_DESCRIPTIONS["expert-whole"] = (
    "the expert searching with whole playouts, no fitted value (any game; slower and weaker at 2-4 players)"
)
BOT_DESCRIPTIONS["expert-fast"] = (
    "the expert's judgement learned from its own play (triage train-fast) and a few short playouts: under 2 ms a move"
)
BOT_DESCRIPTIONS["montecarlo"] = (
    "flat Monte-Carlo: 8 drawn worlds per move, greedy playouts (the reference searcher, for ladders)"
)
BOT_DESCRIPTIONS["flatmc"] = (
    "the independent reference: flat Monte-Carlo sharing no code with the expert, 16 worlds a move; "
    "flatmc-<ms> for that many CPU milliseconds a move"
)


#: ``expert-<N>``: N playouts per decision (reproducible); ``expert-<S>s``: S CPU seconds a decision.
EXPERT_BUDGET = re.compile(r"expert-(?:([1-9][0-9]*)|([0-9]*\.?[0-9]+)s)")
#: ``montecarlo-<N>``: the reference searcher with N playouts a decision; ``montecarlo-<S>s``: S
#: CPU seconds a decision, filled.
MONTECARLO_BUDGET = re.compile(r"montecarlo-(?:([1-9][0-9]*)|([0-9]*\.?[0-9]+)s)")
#: ``flatmc-<ms>``: the independent reference searcher with that many CPU milliseconds a decision.
FLATMC_BUDGET = re.compile(r"flatmc-([0-9]*\.?[0-9]+)")


def make_bot(name: str) -> Bot:
    """A bot by name: one of :data:`BOTS`, ``expert-<N>`` or ``montecarlo-<N>`` (N playouts a
    decision), ``expert-<S>s`` or ``montecarlo-<S>s`` (S CPU seconds a decision), or
    ``module:Class`` for a designer's own bot."""
    if not isinstance(name, str):
        raise ValueError(f"a bot name must be text, got {name!r}")
    if ":" in name:
        return _designer_bot(name)
    flat = FLATMC_BUDGET.fullmatch(name)
    if flat is not None and float(flat.group(1)) > 0:
        return FlatMonteCarloBot(time_limit=float(flat.group(1)) / 1000)
    searchers: tuple[tuple[re.Pattern[str], Callable[..., Bot]], ...] = (
        (EXPERT_BUDGET, ExpertBot),
        (MONTECARLO_BUDGET, MonteCarloBot),
    )
    for pattern, searcher in searchers:
        budget = pattern.fullmatch(name)
        if budget is not None:
            count, seconds = budget.groups()
            if count is not None:
                return searcher(playouts=int(count))
            return searcher(time_limit=float(seconds))
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(
            f"unknown bot {name!r} (bots: {', '.join(sorted(BOTS))}; expert-<N> for N playouts a decision, "
            "expert-<S>s for S seconds, montecarlo-<N> and montecarlo-<S>s alike; flatmc-<ms> for the independent reference with that many CPU "
            "milliseconds a decision; module:Class for your own)"
        ) from None


def bot_form(bot: Bot, seat_view: View) -> BotForm:
    """What ``bot`` is, exactly, in the game of ``seat_view``, for a result file: a searching bot
    says its search, budget and value file (its ``form``); any other bot its name and class."""
    describe = getattr(bot, "form", None)
    if callable(describe):
        described: BotForm = describe(seat_view)
        return described
    kind = type(bot)
    return {"bot": getattr(bot, "name", kind.__name__), "class": f"{kind.__module__}:{kind.__qualname__}"}


def bot_names() -> dict[str, str]:
    """Every built-in bot name with its one-line description, in :data:`BOTS` order."""
    return {name: BOT_DESCRIPTIONS.get(name) or _first_line(BOTS[name]) for name in BOTS}


def player_levels() -> list[dict[str, str]]:
    """The opponents offered to players, strongest first, as plain data (``name``, ``label``,
    ``description``) for menus such as the web form."""
    return [asdict(level) for level in PLAYER_LEVELS]


def simulator_bots() -> dict[str, str]:
    """The built-in bots kept for the simulator and the ladder (not offered to players)."""
    offered = {level.name for level in PLAYER_LEVELS}
    return {name: line for name, line in bot_names().items() if name not in offered}


def _first_line(factory: Callable[[], Any]) -> str:
    target = factory.func if isinstance(factory, partial) else factory
    doc = (getattr(target, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else "a bot"


def _designer_bot(name: str) -> Bot:
    """``module:Class``: import the module, make the object, check that it can ``choose``."""
    module_name, _, attribute = name.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"bot {name!r}: a designer's bot is named module:Class, e.g. mybots:Cautious")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"bot {name!r}: cannot import module {module_name!r} ({error})") from None
    factory = module
    for part in attribute.split("."):
        try:
            factory = getattr(factory, part)
        except AttributeError:
            raise ValueError(f"bot {name!r}: module {module_name!r} has no {attribute!r}") from None
    if not callable(factory):
        raise ValueError(f"bot {name!r}: {attribute!r} is not a class or function that makes a bot")
    try:
        bot = factory()
    except Exception as error:  # a designer's constructor may fail any way; say which bot
        raise ValueError(f"bot {name!r}: making it with no arguments failed: {error}") from None
    if not callable(getattr(bot, "choose", None)):
        raise ValueError(f"bot {name!r}: its objects have no choose(view, legal, rng) method")
    if not isinstance(getattr(bot, "name", None), str):
        try:
            bot.name = name
        except AttributeError:
            pass
    checked: Bot = bot  # it has choose (checked above) and, where it can, a name
    return checked


def seat_names(text: str, players: int) -> list[str]:
    """A ``--bots`` option: one name per seat, comma-separated; a single name fills every seat.

    >>> seat_names("greedy, random", 2)
    ['greedy', 'random']
    >>> seat_names("random", 3)
    ['random', 'random', 'random']
    """
    names = [name.strip() for name in text.split(",")]
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise ValueError(f"--bots names {len(names)} seats but the game has {players} players")
    return names


__all__ = [
    "BOTS",
    "BOT_DESCRIPTIONS",
    "Bot",
    "BotLevel",
    "ExpertBot",
    "FlatMonteCarloBot",
    "GreedyBot",
    "MonteCarloBot",
    "PLAYER_LEVELS",
    "RandomBot",
    "bot_form",
    "bot_names",
    "make_bot",
    "player_levels",
    "seat_names",
    "simulator_bots",
]
