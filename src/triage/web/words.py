"""Each event the page gets, with its words for the viewer and its phase heading.

The engine words an event (:func:`triage.engine.text.event_words`) and heads it with its phase
(:func:`~triage.engine.text.event_phases`); this module adds both to every event the web sends
(the seat's log in a ``hello``, an ``update``'s events, a replay step's), so the page shows the
server's text and keeps no wording or table of event types of its own.

The words are built from the event as the viewer may see it (the engine's filter,
:func:`~triage.engine.observer.event_for`), never from the all-seeing event, and only for the
events the viewer is sent: the sealed point (:mod:`triage.web.sealing`) cuts the events before
any are worded for it, so a word never tells what the viewer cannot know (I1-I4, C3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from triage.bots import PLAYER_LEVELS
from triage.engine import event_for
from triage.engine.shapes import Event
from triage.engine.text import event_phases, event_words
from triage.engine.vocabulary import MarketItem
from triage.web.answers import WordedEvent
from triage.web.storage import SeatInfo

LEVEL_LABELS = {level.name: level.label for level in PLAYER_LEVELS}


def seat_names(seats: Sequence[SeatInfo]) -> list[str]:
    """Each seat's player by name, as the page names them (issue 39: never "seat 1" nor
    "player 0"): the name they chose, a bot by its level ("Gentle bot", numbered when two seats
    have the same level), else "Player N" (seats count from 1 for people)."""
    labels = [LEVEL_LABELS.get(info.bot, info.bot) if info.bot else None for info in seats]
    names = []
    for index, info in enumerate(seats):
        label = labels[index]
        if label is None:
            names.append(info.name or f"Player {index + 1}")
            continue
        same = [other for other, known in enumerate(labels) if known == label]
        names.append(f"{label} bot {same.index(index) + 1}" if len(same) > 1 else f"{label} bot")
    return names


def worded(
    event: Event, viewer: int | None, names: Sequence[str], market: Mapping[str, MarketItem], phase: str
) -> WordedEvent:
    """``event`` (all-seeing) as ``viewer`` may see it, with its words for that viewer, worded
    from that copy alone, and its phase heading."""
    shown = event_for(event, viewer)
    words: WordedEvent = {**shown, "text": event_words(shown, viewer, names, market), "phase": phase}
    return words


def worded_events(
    events: Sequence[Event],
    viewer: int | None,
    names: Sequence[str],
    market: Mapping[str, MarketItem],
    phase: str | None,
) -> list[WordedEvent]:
    """``events`` (all-seeing, in order) for ``viewer``, worded; ``phase``: the game's phase
    before the first of them (None: the deal)."""
    headings = event_phases(events, phase)
    return [worded(event, viewer, names, market, heading) for event, heading in zip(events, headings)]
