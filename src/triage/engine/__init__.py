"""The Triage rules engine: pure game logic, no I/O (see rules.md for every rule id).

>>> from triage.engine import Game, view
>>> game = Game.new(players=2, seed=42)
>>> sorted(view(game, 1)["players"][0])[:3]
['clinical_trials', 'congress', 'credits']
"""

from triage.engine.cards import CardSpec, load_deck, load_standard_deck, parse_deck
from triage.engine.config import Config, load_config, make_config
from triage.engine.errors import ERROR_CODES, DataError, RuleError
from triage.engine.game import Action, Event, Game
from triage.engine.observer import Seat, event_for, events_for, public_event
from triage.engine.views import spectator_view, state_dict, view

__all__ = [
    "ERROR_CODES",
    "Action",
    "CardSpec",
    "Config",
    "DataError",
    "Event",
    "Game",
    "RuleError",
    "Seat",
    "event_for",
    "events_for",
    "load_config",
    "load_deck",
    "load_standard_deck",
    "make_config",
    "parse_deck",
    "public_event",
    "spectator_view",
    "state_dict",
    "view",
]
