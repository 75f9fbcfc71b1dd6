"""The HTTP API under ``/api`` and its WebSocket, one registration function per area.

Every route that shows a game answers with what :mod:`triage.web.payloads` builds for the asking
seat (or for spectators). Game documents are plain JSON data already: the routes that send them
return a JSONResponse, which skips FastAPI's response validation (a large share of each
request's time).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, TypeVar, cast

import orjson
from fastapi import Body, FastAPI, Header, Request, WebSocket
from fastapi.responses import JSONResponse, Response

from triage.bots import PLAYER_LEVELS, player_levels
from triage.engine.shapes import ChatLine, Record, SeatRecord
from triage.web import payloads
from triage.web.answers import (
    ActionResult,
    ChatFeed,
    CreatedTable,
    LegalAnswer,
    ListedTable,
    LiveFacts,
    PublicView,
    SeatToken,
    SeatView,
    TableFacts,
)
from triage.web.chat import chat_feed, check_chat_body, check_readable, post, with_chat
from triage.web.clocks import note_stand_ins, time_rules
from triage.web.errors import WebError
from triage.web.hints import record_with_hints
from triage.web.limits import RateLimits
from triage.web.live import serve_socket
from triage.web.live_table import LiveTable
from triage.web.lobby import check_playing
from triage.web.names import check_name
from triage.web.schemas import JoinRequest, TableRequest, errors
from triage.web.seats import seat_for
from triage.web.tables import TableService, read_lobby

LOBBY_SIZE = 30

Result = TypeVar("Result")

ACTION_BODY = Body(
    ...,
    examples=[{"action": {"type": "pass"}, "expected": 12}, {"type": "admit", "card": "P07", "space": 2}],
)
AUTH_HEADER = Header(None, description="Bearer TOKEN: the seat's token.")


class GameJSON(JSONResponse):
    """A game document as JSON, encoded by orjson: the same text as :class:`JSONResponse` (UTF-8,
    no spaces), in a tenth of the time; the hot routes send one per request."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


def service_of(app: FastAPI) -> TableService:
    return cast(TableService, app.state.service)


async def table_of(app: FastAPI, table_id: str) -> LiveTable:
    """The table, loaded (read and replayed in a thread) if it is not in memory yet."""
    return await service_of(app).load(table_id)


async def on_table(app: FastAPI, table_id: str, work: Callable[[LiveTable], Result]) -> Result:
    """``work(table)`` in a thread of the service, under the table's lock: the store and the
    game never hold the event loop."""
    return await service_of(app).on_table(table_id, work)


async def read_table(
    app: FastAPI, table_id: str, work: Callable[[LiveTable], Result], on_loop: bool = True
) -> Result:
    """``work(table)``, a read: on the loop when it is a short read of memory and no database is
    needed, else in a readers' thread (:meth:`TableService.read_table`); never behind a write."""
    return await service_of(app).read_table(table_id, work, on_loop)


async def seat_answer(
    app: FastAPI,
    table_id: str,
    authorization: str | None,
    build: Callable[[LiveTable, int], Mapping[str, object]],
) -> JSONResponse:
    """What ``build`` answers for the token's seat, worked out on the table (:func:`read_table`)."""
    return GameJSON(await read_table(app, table_id, lambda live: build(live, seat_for(live, authorization))))


def count_request(app: FastAPI, kind: str, request: Request) -> None:
    """Hold the client to its rate of ``kind`` requests; the client a rate limit counts is its
    address (uvicorn takes it from trusted proxies)."""
    count_client(app, kind, client_host(request))


def client_host(request: Request) -> str:
    """The client's address, as rate limits count it."""
    return request.client.host if request.client else "unknown"


def count_client(app: FastAPI, kind: str, host: str) -> None:
    """Hold the client at ``host`` to its rate of ``kind`` requests."""
    cast(RateLimits, app.state.rates).hit(kind, host)


# The seat's three hottest requests, shared by their routes and the fast lane
# (triage.web.fast_lane), which serves them without FastAPI's routing and parameter parsing.


async def answer_view(app: FastAPI, table_id: str, authorization: str | None) -> JSONResponse:
    """``GET /api/tables/{table_id}/view``: the seat's view."""
    return await seat_answer(app, table_id, authorization, payloads.view_answer)


async def answer_legal(app: FastAPI, table_id: str, authorization: str | None) -> JSONResponse:
    """``GET /api/tables/{table_id}/legal``: the seat's choices with their forecast."""
    return await seat_answer(app, table_id, authorization, payloads.legal_answer)


async def answer_act(
    app: FastAPI, table_id: str, host: str, body: Any, authorization: str | None
) -> JSONResponse:
    """``POST /api/tables/{table_id}/actions``: the seat's action (``body``), from the client
    at ``host`` (rate-limited per address)."""
    count_client(app, "act", host)
    service = service_of(app)

    def take(live: LiveTable) -> ActionResult:
        seat = service.seat_of(live, authorization)
        check_playing(service, live)
        taken, expected = split_action_body(body)
        service.timekeeper.back(live, seat)  # an action of the seat's player: no stand-in now
        return service.turns.act(live, seat, taken, expected)

    # No version check first: the commit's conditional write is the check (Turns.act). Before
    # its store write ``take`` changes nothing (the seat is already back on an unclocked table).
    return GameJSON(await service.write_table(table_id, take))


def split_action_body(body: Any) -> tuple[Any, Any]:
    """The action and its expected number: ``{"action": ACTION, "expected": N}`` is idempotent;
    a bare action (expected None) is taken as it comes."""
    if not (isinstance(body, dict) and "action" in body and "type" not in body):
        return body, None
    if set(body) - {"action", "expected"}:
        raise WebError(
            422, "invalid_request", 'the body is {"action": ACTION, "expected": N} (or a bare action)'
        )
    if body.get("expected") is None:
        raise WebError(422, "invalid_request", "'expected' (the action number seen) goes with 'action'")
    return body["action"], body["expected"]


def add_table_routes(app: FastAPI) -> None:
    """The lobby and the tables: bots, creating, listing, a table's facts, taking a seat."""

    @app.get("/api/bots", summary="The bot levels offered to players (balance-testing bots are not)")
    async def bots() -> list[str]:
        return sorted(level.name for level in PLAYER_LEVELS)

    @app.get(
        "/api/levels",
        summary="The bot levels as players meet them, gentlest first: name, friendly label, how it plays",
    )
    async def levels() -> list[dict[str, str]]:
        return player_levels()

    @app.post(
        "/api/tables",
        status_code=201,
        response_model=CreatedTable,
        responses=errors(400, 413, 422, 429, 503),
        summary="Create a table",
    )
    async def create_table(request: TableRequest, http: Request) -> CreatedTable:
        count_request(app, "create", http)
        timing = time_rules(request.clock_settings(), request.away_seconds, request.stand_in)
        live, tokens, invites = await service_of(app).run(
            partial(
                service_of(app).create,
                request.players,
                request.bots,
                request.seed,
                request.config_overrides(),
                request.deck_cards(),
                public=request.public,
                creator_seats=request.creator_seats,
                name=check_name(request.name),
                time_rules=timing,
                settings=request.settings(),
            )
        )
        return {"table_id": live.id, "seats": tokens, "invites": invites}

    @app.get(
        "/api/tables",
        response_model=list[ListedTable],
        responses=errors(503),
        summary="The latest public tables (public facts only)",
    )
    async def list_tables() -> JSONResponse:
        # Sent as stored (no validation on the way out), as the game documents are.
        return JSONResponse(await service_of(app).read(read_lobby, service_of(app), LOBBY_SIZE))

    @app.get("/api/tables/{table_id}", responses=errors(404, 503), summary="A table's public facts")
    async def table_summary(table_id: str) -> TableFacts:
        return await read_table(app, table_id, payloads.summary)

    @app.post(
        "/api/tables/{table_id}/join",
        response_model=SeatToken,
        responses=errors(400, 403, 404, 409, 413, 422, 503),
        summary="Take a seat: with an invitation, or an open seat of a public table",
    )
    async def join(table_id: str, request: JoinRequest | None = None) -> SeatToken:
        asked = request or JoinRequest()
        service = service_of(app)
        name = check_name(asked.name)
        joined = await on_table(
            app, table_id, lambda live: service.join(live, asked.invite, asked.seat, name)
        )
        return joined


def add_seat_routes(app: FastAPI) -> None:
    """One seat's requests, with its token: its view, its choices, its actions."""

    @app.get(
        "/api/tables/{table_id}/view",
        response_model=SeatView,
        responses=errors(401, 403, 404, 503),
        summary="The seat's view (scenario-format.md section 5)",
    )
    async def seat_view(table_id: str, authorization: str | None = AUTH_HEADER) -> JSONResponse:
        return await answer_view(app, table_id, authorization)

    @app.get(
        "/api/tables/{table_id}/legal",
        response_model=LegalAnswer,
        responses=errors(401, 403, 404, 503),
        summary="The seat's legal actions, one choice per action and target (empty if not its decision)",
    )
    async def seat_legal(table_id: str, authorization: str | None = AUTH_HEADER) -> JSONResponse:
        return await answer_legal(app, table_id, authorization)

    @app.post(
        "/api/tables/{table_id}/actions",
        response_model=ActionResult,
        responses=errors(400, 401, 403, 404, 409, 413, 422, 429, 503),
        summary="Take an action (scenario-format.md section 4) for the seat",
    )
    async def act(
        table_id: str, http: Request, action: Any = ACTION_BODY, authorization: str | None = AUTH_HEADER
    ) -> JSONResponse:
        return await answer_act(app, table_id, client_host(http), action, authorization)


def add_live_routes(app: FastAPI) -> None:
    """Presence, clocks and stand-in bots (:mod:`triage.web.clocks`): public, like the lobby."""

    @app.get(
        "/api/tables/{table_id}/live",
        response_model=LiveFacts,
        responses=errors(404, 503),
        summary="Who is online or away, each seat's clock, and the bots standing in for absent seats",
    )
    async def live_state(table_id: str) -> JSONResponse:
        service = service_of(app)
        return JSONResponse(await read_table(app, table_id, service.timekeeper.state))

    @app.post(
        "/api/tables/{table_id}/back",
        response_model=LiveFacts,
        responses=errors(401, 403, 404, 503),
        summary="The seat's player is back: the bot standing in for the seat stops",
    )
    async def seat_back(table_id: str, authorization: str | None = AUTH_HEADER) -> JSONResponse:
        service = service_of(app)

        def back(live: LiveTable) -> LiveFacts:
            service.timekeeper.back(live, seat_for(live, authorization))
            return service.timekeeper.state(live)

        return JSONResponse(await on_table(app, table_id, back))


def add_watch_routes(app: FastAPI) -> None:
    """What anyone may follow: the record, the spectators' view and the live updates."""

    @app.get(
        "/api/tables/{table_id}/record",
        response_model=Record | SeatRecord,
        responses=errors(401, 403, 404, 503),
        summary="The game record: filtered for the seat (or for spectators, without a token) until the game is over",
    )
    async def record(table_id: str, http: Request, authorization: str | None = AUTH_HEADER) -> Response:
        if not authorization:  # a spectator's whole game: rate-limited per address
            count_request(app, "watch", http)

        def record_of(live: LiveTable) -> str:
            seat = seat_for(live, authorization) if authorization else None
            text = record_with_hints(service_of(app), live, payloads.table_record(live, seat), seat)
            return with_chat(live, note_stand_ins(live, text), seat)

        return Response(
            await read_table(app, table_id, record_of, on_loop=False), media_type="application/json"
        )

    @app.get(
        "/api/tables/{table_id}/public",
        response_model=PublicView,
        responses=errors(404, 503),
        summary="The spectators' view (what every player knows) with the table's action number",
    )
    async def public_view(table_id: str) -> JSONResponse:
        return GameJSON(await read_table(app, table_id, payloads.public_answer))

    @app.websocket("/api/tables/{table_id}/ws")
    async def live_updates(websocket: WebSocket, table_id: str) -> None:
        """First message from the client: ``{"token": TOKEN}`` for a seat or ``{"spectate": true}``.
        The server answers ``hello`` (view, choices, log so far), then one ``update`` per
        stored action with the seat's own filtered events and new view (see triage.web.live)."""
        await serve_socket(
            websocket, service_of(app), table_id, app.state.first_message_seconds, app.state.rates
        )


CHAT_BODY = Body(..., examples=[{"text": "good luck!"}, {"reaction": "gg"}])


def add_chat_routes(app: FastAPI) -> None:
    """A table's chat (:mod:`triage.web.chat`): a seat says a line or reacts; its players (and
    its spectators, unless the table keeps them off) read it. Never a move."""

    @app.post(
        "/api/tables/{table_id}/chat",
        response_model=ChatLine,
        responses=errors(400, 401, 403, 404, 409, 413, 422, 429, 503),
        summary="Say a line of plain text, or a quick reaction, to the table (a seat's token; never a move)",
    )
    async def say(table_id: str, body: Any = CHAT_BODY, authorization: str | None = AUTH_HEADER) -> ChatLine:
        service = service_of(app)

        def work(live: LiveTable) -> ChatLine:
            seat = service.seat_of(live, authorization)
            count_client(app, "chat", f"{live.id}:{seat}")  # every post counts, refused or not
            kind, text = check_chat_body(body)
            return post(service.store, live, seat, kind, text)

        return await on_table(app, table_id, work)

    @app.get(
        "/api/tables/{table_id}/chat",
        response_model=ChatFeed,
        responses=errors(401, 403, 404, 503),
        summary="The table's chat so far, the quick reactions, and whether the asker may post",
    )
    async def chat(table_id: str, authorization: str | None = AUTH_HEADER) -> ChatFeed:
        def read(live: LiveTable) -> ChatFeed:
            seat = seat_for(live, authorization) if authorization else None
            check_readable(live, seat)
            return chat_feed(live, seat)

        return await read_table(app, table_id, read)
