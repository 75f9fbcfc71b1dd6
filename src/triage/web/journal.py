"""A live table's record and logs as JSON text, built as its actions are committed.

``GET /record`` and the WebSocket ``hello`` send every action and event of a game so far. Working
them out again for each request (replaying the record to filter its events, or filtering every
event) would hold the event loop in proportion to the game's length. The journal keeps them
encoded once: the JSON of each action, and for each viewer that asked (a seat, or None for the
spectators) the JSON of each event as the engine's filter (``event_for``) shows it to that viewer.
A request encodes only what was committed since the last one and joins the rest.

The journal follows its table's list of all-seeing events: when a rebuild replaces that list,
the journal starts again from nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from triage.engine import Game, event_for
from triage.engine.records import RECORD_FORMAT
from triage.engine.shapes import Event
from triage.engine.text import DEAL_PHASE, PHASE_HEADINGS, event_phase
from triage.engine.vocabulary import MarketItem
from triage.web.words import worded


class Journal:
    """The JSON text of a table's actions and of its events for each viewer, kept up to date."""

    def __init__(self) -> None:
        #: The table's list of all-seeing events this journal follows (by identity).
        self._events: list[Event] | None = None
        self._start(None, "")

    def _start(self, events: list[Event] | None, setup: str) -> None:
        self._events = events
        #: The record's opening (format and setup) as JSON text.
        self._setup = setup
        #: The JSON of each action (a history entry ``{"by", "do"}``), in order.
        self.actions: list[str] = []
        #: For each viewer that asked, the JSON of each event as that viewer sees it.
        self.logs: dict[int | None, list[str]] = {}
        #: For each viewer the page's log was sent to, the players' names it was worded with and
        #: the JSON of each event as that viewer sees it, with its words (:mod:`triage.web.words`).
        self.worded: dict[int | None, tuple[tuple[str, ...], list[str]]] = {}
        #: The game's phase each event belongs to (``Position.phase``'s names), in order.
        self.phases: list[str] = []
        self._market: Mapping[str, MarketItem] = {}
        self._counted = 0
        #: Bytes of the all-seeing record so far: its actions and its events as JSON.
        self.record_bytes = 0
        #: Bytes of the viewers' logs held (part of the table's memory estimate).
        self.log_bytes = 0

    @classmethod
    def following(cls, game: Game, events: list[Event]) -> Journal:
        """A journal caught up with ``game`` and ``events`` (to build one away from the loop)."""
        journal = cls()
        journal.follow(game, events)
        return journal

    def follow(self, game: Game, events: list[Event]) -> None:
        """Encode the actions and events committed since the last call (all of them when the
        table's event list was replaced by a rebuild)."""
        if events is not self._events:
            self._start(events, json.dumps({"format": RECORD_FORMAT, **(game.setup or {})}))
        for entry in game.history[len(self.actions) :]:
            text = json.dumps(entry)
            self.actions.append(text)
            self.record_bytes += len(text) + 1
        phase = self.phases[-1] if self.phases else DEAL_PHASE
        for event in events[self._counted :]:
            self.record_bytes += len(json.dumps(event)) + 1
            phase = event_phase(event, phase)
            self.phases.append(phase)
        self._counted = len(events)
        self._market = game.config.market

    def log(self, viewer: int | None) -> list[str]:
        """The JSON of every event so far as ``viewer`` sees it (call :meth:`follow` first)."""
        assert self._events is not None, "follow the table first"
        log = self.logs.setdefault(viewer, [])
        for event in self._events[len(log) :]:
            text = json.dumps(event_for(event, viewer))
            log.append(text)
            self.log_bytes += len(text) + 1
        return log

    def worded_log(self, viewer: int | None, names: Sequence[str], shown: int) -> list[str]:
        """The JSON of the first ``shown`` events (those ``viewer`` may be shown: the sealed
        point, :func:`~triage.web.sealing.shown_events`) as ``viewer`` sees them, each with its
        words and phase heading; kept per viewer, and worded again when a player's name changed
        (call :meth:`follow` first)."""
        assert self._events is not None, "follow the table first"
        key = tuple(names)
        known = self.worded.get(viewer)
        if known is None or known[0] != key:
            known = self.worded[viewer] = (key, [])
        log = known[1]
        for index in range(len(log), shown):
            text = json.dumps(
                worded(self._events[index], viewer, names, self._market, PHASE_HEADINGS[self.phases[index]])
            )
            log.append(text)
            self.log_bytes += len(text) + 1
        return log[:shown]

    def record_text(
        self,
        game: Game,
        viewer: int | None,
        shown_actions: int | None = None,
        shown_events: int | None = None,
    ) -> str:
        """The record as JSON text (``make_record`` once the game is over; until then
        ``record_for``'s form, filtered for ``viewer``), from the encoded parts; up to the
        sealed point (``shown_actions`` and ``shown_events``) for a seat that may not see
        another seat's undoable actions (:mod:`triage.web.sealing`)."""
        actions = "[" + ",".join(self.actions[:shown_actions]) + "]"
        if game.is_over():
            result = json.dumps({"scores": game.scores(), "winner": game.winner})
            return f'{self._setup[:-1]}, "actions": {actions}, "result": {result}}}'
        assert game.setup is not None
        head = {"format": RECORD_FORMAT, "players": game.setup["players"], "config": game.setup["config"]}
        events = "[" + ",".join(self.log(viewer)[:shown_events]) + "]"
        return f'{json.dumps({**head, "viewer": viewer})[:-1]}, "actions": {actions}, "events": {events}}}'
