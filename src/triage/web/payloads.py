"""What each one sees: every game document a client receives is built here.

Only the engine's filters are used (``view``, and ``event_for`` through
:mod:`~triage.web.words`, which words each event from the viewer's copy, and through the table's
:mod:`~triage.web.journal`, which encodes what ``record_for`` would give, event by event, once):
a seat never gets what it cannot know, and a spectator (seat None) gets only what every player
knows.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from typing_extensions import Unpack

from triage.engine import Game, spectator_view, view
from triage.engine.choices import action_choices
from triage.engine.forecast import forecast
from triage.engine.shapes import Event, View
from triage.engine.shapes import Step as StepEntry
from triage.web.answers import (
    LegalAnswer,
    LobbyFacts,
    MessageExtras,
    PublicView,
    SeatView,
    TableFacts,
    TableMessage,
)
from triage.web.chat import chat_feed
from triage.web.live_table import LiveTable, Subscriber, facts
from triage.web.sealing import sealed, shown_events, undo_info, visible_game
from triage.web.storage import seat_facts
from triage.web.words import seat_names, worded_events


def view_payload(game: Game, seat: int | None) -> View:
    """The seat's view (the spectators' for None): the one place every payload takes it from."""
    return spectator_view(game) if seat is None else view(game, seat)


def view_answer(table: LiveTable, seat: int) -> SeatView:
    """The seat's view with the table's action number (``actions``) for idempotent actions;
    another seat's undoable actions are not in it (:mod:`triage.web.sealing`), and the seat
    that may undo is told how far (``undo``)."""
    game = visible_game(table, seat)
    return {**view_payload(game, seat), "actions": len(game.history), "undo": undo_info(table, seat)}


def public_answer(table: LiveTable) -> PublicView:
    """The spectators' view with the table's action number (``actions``), as every other channel
    carries it (:func:`view_answer`, the WebSocket messages, the table's facts), so that a client
    can line them up; it stops at the sealed point (:mod:`triage.web.sealing`) like the others."""
    game = visible_game(table, None)
    return {**view_payload(game, None), "actions": len(game.history)}


def legal_answer(table: LiveTable, seat: int) -> LegalAnswer:
    """The seat's choices with what each will do (the engine's forecast), at ``actions``; none
    while the table waits for its players."""
    game = visible_game(table, seat)
    choices = [] if table.waiting else action_choices(game, seat)
    return {
        "actions": len(game.history),
        "choices": choices,
        "forecast": forecast(view_payload(game, seat), choices),
    }


def table_record(table: LiveTable, seat: int | None) -> str:
    """The record as JSON text; until the game is over, filtered for the seat (or for
    spectators). Built from the table's journal: nothing is replayed, and only what was
    committed since the last request is encoded."""
    journal = table.follow()
    point = sealed(table)
    if not point.holding or seat == point.holder:
        return journal.record_text(table.game, seat)
    return journal.record_text(point.game, seat, point.actions, point.events)


def summary(table: LiveTable) -> TableFacts:
    """Public facts about a table, for the lobby."""
    return {
        "table_id": table.id,
        **facts(sealed(table).game),
        "seats": seat_facts(table.seats),
        "public": table.public,
        # A creator who chose the seed could work out the deal: a practice table.
        "seed_chosen": table.seed_chosen,
        "settings": table.settings,
        **lobby_facts(table),
    }


def lobby_facts(table: LiveTable) -> LobbyFacts:
    """The table's life around the game, public: whether it waits for players, whose seat
    hosts it, and the rematch offered at its end."""
    return {"waiting": table.waiting, "host": table.host, "rematch": table.rematch}


def lobby_message(table: LiveTable) -> str:
    """The WebSocket message telling every client (the same for all) who sits where now."""
    return json.dumps(
        {"type": "lobby", "table_id": table.id, "seats": seat_facts(table.seats), **lobby_facts(table)}
    )


def message_for(
    table: LiveTable,
    seat: int | None,
    kind: Literal["hello", "update"],
    game: Game | None = None,
    **extra: Unpack[MessageExtras],
) -> TableMessage:
    """A WebSocket message of ``kind`` for the seat: its view and choices at ``game``."""
    game = game or table.game
    seen = view_payload(game, seat)
    choices = [] if seat is None or table.waiting else action_choices(game, seat)
    message: TableMessage = {
        "type": kind,
        "table_id": table.id,
        "seat": seat,
        "view": seen,
        "actions": len(game.history),
        "choices": choices,
    }
    if seat is not None:  # deadlines, effects and payments, from what the seat sees alone
        message["forecast"] = forecast(seen, choices)
        message["undo"] = undo_info(table, seat, game)
    merged: TableMessage = {**message, **extra}
    return merged


def hello(table: LiveTable, seat: int | None) -> str:
    """The first message of a (re)connected client as JSON text: its current view, its log so
    far (from the table's journal, where each event is encoded once per viewer) and the chat."""
    log = table.follow().worded_log(seat, seat_names(table.seats), shown_events(table, seat))
    first = message_for(
        table,
        seat,
        "hello",
        visible_game(table, seat),
        seats=seat_facts(table.seats),
        chat=chat_feed(table, seat),
        **lobby_facts(table),
    )
    return f'{json.dumps(first)[:-1]}, "log": [{",".join(log)}]}}'


def update_messages(
    table: LiveTable, game: Game, number: int, entry: StepEntry, events: list[Event], phase: str
) -> list[tuple[Subscriber, str]]:
    """Each subscriber's ``update`` message for one action, built from ``game`` just after it
    (``phase``: the game's phase before it, which heads its first events): built and encoded
    once per seat, and once for all spectators."""
    updates = []
    built: dict[int | None, str] = {}
    names = seat_names(table.seats)
    for subscriber in table.subscribers:
        seat = subscriber.seat
        if seat not in built:
            built[seat] = json.dumps(
                message_for(
                    table,
                    seat,
                    "update",
                    game,
                    number=number,
                    by=entry["by"],
                    action=entry["do"],
                    events=worded_events(events, seat, names, game.config.market, phase),
                )
            )
        updates.append((subscriber, built[seat]))
    return updates
