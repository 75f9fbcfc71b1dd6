"""Greedy plus one habit: bots that play like :class:`~triage.bots.greedy.GreedyBot` except for one
habit a strong player might exploit. A designer runs each against plain greedy; a default game
where one habit wins much more than half its games has a loop worth fixing (issue: balance under
strong play). Each sees only its seat's view, like every bot.

- ``greedy-farm``: farms known chronic patients with the Helicopter. A cured patient goes back on
  top of the deck (V1 ``top``) with its back known (I2); a chronic patient with no Time is cured the
  moment it is diagnosed (T4); a Helicopter's draws start with its owner (T7), so flying one pulls
  that patient straight back for a second cure. The bot flies (buying a Helicopter if need be)
  whenever the top card is a chronic patient it knows and it can diagnose it.
- ``greedy-noterminal``: never treats terminal patients (T5); they die and cost 1 QoC each (C4).
- ``greedy-market``: rushes the market (T8): buys Staff, Clinical Trial and Outpatient Clinic
  whenever it can, before anything but saving the dying, until the last two rounds.

Each pair of habits is a bot too (``greedy-farm-noterminal``, ``greedy-farm-market``,
``greedy-noterminal-market``): habits that are fair alone may not be together.

:class:`FarmFirstBot` is not a balance-testing habit: it farms before any diagnosis, the
priorities the expert's playouts follow and the club level plays (:mod:`triage.bots.expert`).
"""

from __future__ import annotations

from triage.bots.base import Action
from triage.bots.greedy import PRIORITIES, GreedyBot, _Turn


class _FarmTurn(_Turn):
    #: Farming comes right after the diagnoses: before treating, healing or investing.
    priorities = (*PRIORITIES[:3], "farm_known_chronic", *PRIORITIES[3:])

    def farm_known_chronic(self) -> Action | None:
        """T7 + T4 + V1: fly for the known chronic patient on top of the deck (I3: seen)."""
        top = self.knower.deck_top()
        if top is None or self.free_spaces == 0 or self.knower.kind_of(top) != "chronic":
            return None
        if self.power("diagnostics", congress=False) < (self.cards[top].diagnosis or 0):
            return None
        return self.fly_to_draw()


class _FarmFirstTurn(_FarmTurn):
    """Farming before any diagnosis, only saving the dying first: a Helicopter flown for a known
    chronic patient while the Diagnostics are still unspent can pay its diagnosis, where after
    the diagnoses they are often gone (docs/notes/strength-farming-first-point-3-met.md)."""

    priorities = ("save_the_dying", "farm_known_chronic", *PRIORITIES[1:])


class _NoTerminalTurn(_Turn):
    def treat_paying_terminals(self) -> Action | None:
        return None

    def treat_other_terminals(self) -> Action | None:
        return None


class _MarketTurn(_Turn):
    RUSH = ("staff", "clinical_trial", "outpatient_clinic")

    def rush_market(self) -> Action | None:
        """T8: an item that pays over the game, whenever at least two rounds remain."""
        if self.rounds_left < 2:
            return None
        for item in self.RUSH:
            if self.can_buy(item):
                return {"type": "buy", "item": item}
        return None

    def choose(self) -> Action:
        action = self.save_the_dying() or self.rush_market()
        return action if action is not None else super().choose()


class HabitBot(GreedyBot):
    """Greedy, with one step of its priorities replaced or added (see the module docstring)."""


class FarmBot(HabitBot):
    name = "greedy-farm"
    turn_class = _FarmTurn


class FarmFirstBot(GreedyBot):
    """The club level's moves (``expert-club``) and the expert's playouts (module docstring)."""

    name = "greedy-farm-first"
    turn_class = _FarmFirstTurn


class NoTerminalBot(HabitBot):
    name = "greedy-noterminal"
    turn_class = _NoTerminalTurn


class MarketBot(HabitBot):
    name = "greedy-market"
    turn_class = _MarketTurn


class _FarmNoTerminalTurn(_NoTerminalTurn, _FarmTurn):
    """Both habits: farm's steps first (its ``choose``), never a terminal treatment."""


class _FarmMarketTurn(_MarketTurn, _FarmTurn):
    """Save the dying, rush the market, then farm's steps, then greedy's."""


class _NoTerminalMarketTurn(_MarketTurn, _NoTerminalTurn):
    """Rush the market, never treat a terminal patient."""


class FarmNoTerminalBot(HabitBot):
    name = "greedy-farm-noterminal"
    turn_class = _FarmNoTerminalTurn


class FarmMarketBot(HabitBot):
    name = "greedy-farm-market"
    turn_class = _FarmMarketTurn


class NoTerminalMarketBot(HabitBot):
    name = "greedy-noterminal-market"
    turn_class = _NoTerminalMarketTurn


#: What each habit does, for bot lists; a pair's name joins its two habits.
HABIT_LINES = {
    "farm": "farms known chronic patients with the Helicopter",
    "noterminal": "never treats terminal patients",
    "market": "rushes Staff, Clinical Trial and Outpatient Clinic",
}
#: The habit bots by name: each habit, then each pair of them.
HABIT_BOTS: dict[str, type[HabitBot]] = {
    bot.name: bot
    for bot in (FarmBot, NoTerminalBot, MarketBot, FarmNoTerminalBot, FarmMarketBot, NoTerminalMarketBot)
}


def _habit_line(name: str) -> str:
    habits = name.removeprefix("greedy-").split("-")
    return f"greedy that {' and '.join(HABIT_LINES[habit] for habit in habits)} (balance testing)"


HABIT_DESCRIPTIONS = {name: _habit_line(name) for name in HABIT_BOTS}
