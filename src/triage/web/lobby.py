"""A table's life around the game: the waiting room, filling empty seats with bots, and the
rematch offered to the same people at the end.

A table waits (:attr:`LiveTable.waiting`) while one of its human seats is free: nobody acts and
no bot moves. The creator's seat hosts it (``host``) and may give the free seats to a bot of a
chosen level instead of waiting. At the end any player may ask for a rematch: the server deals a
new table with the same configuration, deck and bots (a new secret seed), gives the asking seat
its place at once, keeps each other seat for the player who had it (who takes it with one click,
keeping their name) and tells every client of the old table (a WebSocket ``lobby`` message).

Everything here is public: seats, names, who waits; no token, invitation or card leaves it.
"""

from __future__ import annotations

import secrets
from typing import Any, cast

from fastapi import Body, FastAPI, Header
from fastapi.responses import JSONResponse

from triage.bots import BOTS
from triage.engine.records import RECORD_FORMAT, new_game_from_record
from triage.web.answers import FilledSeats, RematchPlace
from triage.web.errors import WebError, storage_refused
from triage.web.live_table import LiveTable
from triage.web.schemas import FillRequest, RematchSeat, errors
from triage.web.seats import new_token, seat_for
from triage.web.storage import Conflict, SeatInfo, token_digest
from triage.web.tables import TableService

AUTH_HEADER = Header(None, description="Bearer TOKEN: the seat's token.")
FILL_BODY = Body(..., examples=[{"bot": "expert-novice"}])


def check_playing(service: TableService, table: LiveTable) -> None:
    """Refuse an action while the table waits for its players (after reading the seats again
    when other processes may have seated someone meanwhile)."""
    if table.waiting and service.store.shared:
        service.refresh(table, force=True)
    if table.waiting:
        free = [info.seat for info in table.seats if info.bot is None and not info.claimed]
        raise WebError(
            409,
            "waiting_for_players",
            f"the game has not started: seat{'s' if len(free) > 1 else ''} {', '.join(map(str, free))} "
            "still free (every player joins, or the host fills the free seats with bots)",
        )


def fill_with_bots(service: TableService, table: LiveTable, seat: int, bot: Any) -> FilledSeats:
    """The host gives every free human seat to ``bot``; the game starts at once."""
    if bot not in BOTS:
        raise WebError(422, "unknown_bot", f"unknown bot {bot!r} (bots: {', '.join(sorted(BOTS))})")
    if seat != table.host:
        raise WebError(403, "not_host", f"only the host (seat {table.host}) fills the free seats with bots")
    free = [info for info in table.seats if info.bot is None and not info.claimed]
    if not table.waiting or not free:
        raise WebError(409, "not_waiting", f"table {table.id} waits for nobody: every seat is taken")
    try:
        with storage_refused(), table.waiting_on_store():
            version = service.store.fill_seats(table.id, [info.seat for info in free], bot)
    except Conflict:
        service.refresh(table, force=True)
        raise WebError(
            409, "seat_taken", "a free seat was taken meanwhile; look at the table again"
        ) from None
    for info in free:
        info.bot, info.claimed = bot, True
    table.seats_version = version if version == table.seats_version + 1 else -1
    service.seats_changed(table, was_waiting=True)
    return {"seats": [info.seat for info in free], "bot": str(bot)}


def rematch(service: TableService, table: LiveTable, seat: int) -> RematchPlace:
    """The seat's place at the rematch of a finished table: the rematch is dealt by the first
    player who asks; the others take their own seat of it."""
    if not table.game.is_over():
        raise WebError(409, "not_over", "a rematch is offered once the game is over")
    if table.rematch is None:
        try:
            return deal_rematch(service, table, seat)
        except Conflict:  # another process dealt it first: take a seat of that one
            service.refresh(table, force=True)
    assert table.rematch is not None
    return join_rematch(service, table, seat)


def deal_rematch(service: TableService, table: LiveTable, seat: int) -> RematchPlace:
    """A new table like ``table`` (same configuration, deck, bots and names, a new secret deal)
    with ``seat`` taken by its asker, stored as ``table``'s rematch; its clients are told."""
    setup = table.game.setup
    assert setup is not None
    game = new_game_from_record(
        {**setup, "format": RECORD_FORMAT, "seed": secrets.randbelow(2**53), "actions": []}
    )
    table_id = secrets.token_urlsafe(9)
    token = new_token()
    seats = [
        SeatInfo(info.seat, info.bot, None, True)
        if info.bot is not None
        else SeatInfo(info.seat, None, token_digest(token) if info.seat == seat else None, info.seat == seat)
        for info in table.seats
    ]
    for new, old in zip(seats, table.seats, strict=True):
        new.name = old.name if old.bot is None else None
    time_rules = table.timing.rules if table.timing is not None else None  # the same clock again
    service.open_table(
        table_id,
        game,
        seats,
        False,
        False,
        seat,
        rematch_of=table.id,
        time_rules=time_rules,
        settings=table.settings,  # the same pace and chat
    )
    table.rematch = table_id
    table.seats_version = -1  # the store counted the link as a seat change
    service.seats_changed(table, was_waiting=False)
    return {"table_id": table_id, "seat": seat, "token": token}


def join_rematch(service: TableService, table: LiveTable, seat: int) -> RematchPlace:
    """``seat``'s own place at the rematch, with its name, while it is free."""
    assert table.rematch is not None
    new = service.get(table.rematch)
    info = new.seats[seat]
    if info.claimed:
        taken = f"the host gave it to a bot ({info.bot})" if info.bot else "it was taken already"
        raise WebError(
            409,
            "seat_taken",
            f"your seat {seat} at the rematch (table {new.id}) cannot be taken: {taken}; watch the rematch",
        )
    joined = service.claim(new, info, table.seats[seat].name, None)
    return {"table_id": new.id, "seat": joined["seat"], "token": joined["token"]}


def service_of(app: FastAPI) -> TableService:
    return cast(TableService, app.state.service)


def add_lobby_routes(app: FastAPI) -> None:
    """``POST /api/tables/{id}/bots`` (the host starts with bots) and
    ``POST /api/tables/{id}/rematch`` (a finished table's rematch, one click per player)."""

    @app.post(
        "/api/tables/{table_id}/bots",
        response_model=FilledSeats,
        responses=errors(400, 401, 403, 404, 409, 413, 422, 503),
        summary="The host fills the free human seats with a bot level and the game starts",
    )
    async def fill(
        table_id: str, request: FillRequest = FILL_BODY, authorization: str | None = AUTH_HEADER
    ) -> JSONResponse:
        service = service_of(app)

        def work(live: LiveTable) -> FilledSeats:
            return fill_with_bots(service, live, seat_for(live, authorization), request.bot)

        return JSONResponse(await service.on_table(table_id, work))

    @app.post(
        "/api/tables/{table_id}/rematch",
        response_model=RematchSeat,
        responses=errors(401, 403, 404, 409, 503),
        summary="A finished table's rematch: the same seats for the same people; answers the seat's place",
    )
    async def ask_rematch(table_id: str, authorization: str | None = AUTH_HEADER) -> RematchSeat:
        service = service_of(app)

        def work(live: LiveTable) -> RematchPlace:
            return rematch(service, live, seat_for(live, authorization))

        return RematchSeat(**await service.on_table(table_id, work))
