"""The web app (FastAPI): the HTTP API under ``/api``, live updates over a WebSocket, the page.

Every response that shows a game goes through :class:`~triage.web.tables.TableService`, which
filters it for the asking seat (or for spectators). Errors are JSON ``{"code", "message"}``
(and ``rule`` for a rules refusal), with the engine's error codes for refused actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import Body, FastAPI, Header, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from triage.engine.choices import action_choices
from triage.web import notify
from triage.web.limits import MAX_DECK_CARDS, RateLimited, RateLimits, RequestBodyLimit, check_table_limits
from triage.web.live import FIRST_MESSAGE_SECONDS, serve_socket
from triage.web.review import add_review_routes
from triage.web.storage import DEFAULT_DB_URL, Store
from triage.web.tables import LiveTable, TableService, WebError

STATIC = Path(__file__).parent / "static"
# Game documents are plain JSON data already: the routes that send them return a JSONResponse,
# which skips FastAPI's response validation (a large share of each request's time).
LOBBY_SIZE = 30


class TableRequest(BaseModel):
    """A new table: how many seats, which are bots, and optionally the deal. Strict types: an
    integer is a JSON integer (never "2", 2.0 or true)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    players: int = Field(2, ge=1, le=4, description="Number of seats (1-4, R1).")
    bots: list[str | None] | None = Field(
        None,
        max_length=4,
        description="One entry per seat: a bot name (see /api/bots) or null for a human. Default: all human.",
    )
    seed: int | None = Field(
        None,
        ge=0,
        description="Deal seed (D1). Omit it for a secret random deal; whoever chooses it can work out the deal.",
    )
    config: dict[str, Any] | None = Field(
        None, description="Configuration overrides (scenario-format.md section 1)."
    )
    deck: list[dict[str, Any]] | None = Field(
        None,
        max_length=MAX_DECK_CARDS,
        description=f"Deck cards (deck-file format, at most {MAX_DECK_CARDS}); default the standard deck.",
    )
    public: bool = Field(
        False, description="List the table in the lobby, its open seats free for anyone to join."
    )
    creator_seats: list[int] | None = Field(
        None,
        description="The human seats the creator takes at once (default: all); the others get invitations.",
    )


class SeatToken(BaseModel):
    seat: int
    token: str


class Invite(BaseModel):
    seat: int
    url: str = Field(description="The invitation link (relative to the server root) to send to a friend.")
    code: str = Field(description='The invitation code: POST /api/tables/{id}/join with {"invite": code}.')


class CreatedTable(BaseModel):
    table_id: str
    seats: list[SeatToken] = Field(description="The token of each of the creator's seats; bots need none.")
    invites: list[Invite] = Field(description="An invitation for each other human seat.")


class JoinRequest(BaseModel):
    """An invitation's code, or (a public table only) the open seat wanted (default: the first)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    invite: str | None = None
    seat: int | None = None


class ActionResult(BaseModel):
    number: int = Field(description="The number of the accepted action in the table's record (from 0).")
    actions: int = Field(
        description="The table's action count once this action and the bot moves after it were stored."
    )
    events: list[dict[str, Any]] = Field(
        description="This seat's events of the action and of the bot moves that followed it."
    )
    turn: int | None
    phase: str


class ErrorBody(BaseModel):
    code: str
    message: str
    rule: str | None = None


ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody} for status in (400, 401, 403, 404, 409, 413, 422, 429, 503)
}
#: The code of each HTTP error the framework itself raises (docs/web.md lists every code).
HTTP_CODES = {400: "invalid_json", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}

ACTION_BODY = Body(
    ...,
    examples=[{"action": {"type": "pass"}, "expected": 12}, {"type": "admit", "card": "P07", "space": 2}],
)
AUTH_HEADER = Header(None, description="Bearer TOKEN: the seat's token.")


def create_app_from_env() -> FastAPI:
    """The app of each process of ``triage serve --workers N``, configured by the environment
    that ``serve`` sets: TRIAGE_WEB_DB, TRIAGE_WEB_RATE_CREATE, TRIAGE_WEB_RATE_ACT."""
    rates = RateLimits(create=os.environ["TRIAGE_WEB_RATE_CREATE"], act=os.environ["TRIAGE_WEB_RATE_ACT"])
    return create_app(os.environ["TRIAGE_WEB_DB"], rates)


def create_app(db_url: str = DEFAULT_DB_URL, rates: RateLimits | None = None) -> FastAPI:
    """The app, storing its tables at ``db_url`` (any SQLAlchemy URL), holding each client to
    ``rates`` (default :class:`~triage.web.limits.RateLimits`)."""
    rate_limits = rates or RateLimits()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(db_url)
        app.state.service = TableService(store)
        listener = await notify.start(app.state.service)  # PostgreSQL: updates from the other processes
        yield
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
        store.close()

    app = FastAPI(
        title="Triage",
        summary="Play Triage (Patients and Treatment) in the browser: solo against bots or at a table with friends.",
        lifespan=lifespan,
    )

    app.add_middleware(RequestBodyLimit)
    app.state.rates = rate_limits
    app.state.first_message_seconds = FIRST_MESSAGE_SECONDS

    @app.exception_handler(WebError)
    async def web_error(_request: Request, error: WebError) -> JSONResponse:
        headers = {"Retry-After": str(error.retry_after)} if isinstance(error, RateLimited) else None
        return JSONResponse(error.to_dict(), status_code=error.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc'][1:]) or 'body'}: {issue['msg']}"
            for issue in error.errors()
        )
        return JSONResponse({"code": "invalid_request", "message": problems}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(error.status_code, "http_error")
        return JSONResponse({"code": code, "message": str(error.detail)}, status_code=error.status_code)

    @app.exception_handler(Exception)
    async def internal_error(_request: Request, error: Exception) -> JSONResponse:
        # A fault of the server (logged with its traceback): the client still gets the JSON form,
        # naming nothing of the game.
        return JSONResponse(
            {
                "code": "internal_error",
                "message": f"the server failed ({type(error).__name__}); look at the table again",
            },
            status_code=500,
        )

    def service() -> TableService:
        return app.state.service

    async def table(table_id: str) -> LiveTable:
        """The table, loaded (read and replayed in threads) if it is not in memory yet."""
        return await service().load(table_id)

    def client_of(request: Request) -> str:
        """The client a rate limit counts: its address (uvicorn takes it from trusted proxies)."""
        return request.client.host if request.client else "unknown"

    # ------------------------------------------------------------------ tables

    @app.get("/api/bots", summary="The bot names a seat can take")
    async def bots() -> list[str]:
        from triage.bots import BOTS

        return sorted(BOTS)

    @app.post(
        "/api/tables",
        status_code=201,
        response_model=CreatedTable,
        responses=ERRORS,
        summary="Create a table",
    )
    async def create_table(request: TableRequest, http: Request) -> CreatedTable:
        rate_limits.hit("create", client_of(http))
        check_table_limits(request.config, request.deck)
        live, tokens, invites = service().create(
            request.players,
            request.bots,
            request.seed,
            request.config,
            request.deck,
            public=request.public,
            creator_seats=request.creator_seats,
        )
        return CreatedTable(
            table_id=live.id,
            seats=[SeatToken(**entry) for entry in tokens],
            invites=[Invite(**entry) for entry in invites],
        )

    @app.get("/api/tables", summary="The latest public tables (public facts only)")
    async def list_tables() -> list[dict[str, Any]]:
        return service().lobby(LOBBY_SIZE)

    @app.get("/api/tables/{table_id}", responses=ERRORS, summary="A table's public facts")
    async def table_summary(table_id: str) -> dict[str, Any]:
        return service().summary(await table(table_id))

    @app.post(
        "/api/tables/{table_id}/join",
        response_model=SeatToken,
        responses=ERRORS,
        summary="Take a seat: with an invitation, or an open seat of a public table",
    )
    async def join(table_id: str, request: JoinRequest | None = None) -> SeatToken:
        request = request or JoinRequest()
        return SeatToken(**service().join(await table(table_id), invite=request.invite, seat=request.seat))

    # ------------------------------------------------------------------ one seat

    @app.get(
        "/api/tables/{table_id}/view",
        responses=ERRORS,
        summary="The seat's view (scenario-format.md section 5)",
    )
    async def seat_view(table_id: str, authorization: str | None = AUTH_HEADER) -> JSONResponse:
        live = await table(table_id)
        return JSONResponse(service().view_answer(live, service().seat_for(live, authorization)))

    @app.get(
        "/api/tables/{table_id}/legal",
        responses=ERRORS,
        summary="The seat's legal actions, one choice per action and target (empty if not its decision)",
    )
    async def seat_legal(table_id: str, authorization: str | None = AUTH_HEADER) -> JSONResponse:
        live = await table(table_id)
        seat = service().seat_for(live, authorization)
        return JSONResponse({"actions": len(live.game.history), "choices": action_choices(live.game, seat)})

    @app.post(
        "/api/tables/{table_id}/actions",
        response_model=ActionResult,
        responses=ERRORS,
        summary="Take an action (scenario-format.md section 4) for the seat",
    )
    async def act(
        table_id: str,
        http: Request,
        action: Any = ACTION_BODY,
        authorization: str | None = AUTH_HEADER,
    ) -> JSONResponse:
        rate_limits.hit("act", client_of(http))
        live = await table(table_id)
        seat = service().seat_for(live, authorization)
        expected = None
        if isinstance(action, dict) and "action" in action and "type" not in action:
            # {"action": ACTION, "expected": N}: idempotent (a bare action is taken as it comes).
            if set(action) - {"action", "expected"}:
                raise WebError(
                    422, "invalid_request", 'the body is {"action": ACTION, "expected": N} (or a bare action)'
                )
            action, expected = action["action"], action.get("expected")
            if expected is None:
                raise WebError(
                    422, "invalid_request", "'expected' (the action number seen) goes with 'action'"
                )
        return JSONResponse(service().act(live, seat, action, expected))

    @app.get(
        "/api/tables/{table_id}/record",
        responses=ERRORS,
        summary="The game record: filtered for the seat (or for spectators, without a token) until the game is over",
    )
    async def record(table_id: str, authorization: str | None = AUTH_HEADER) -> JSONResponse:
        live = await table(table_id)
        seat = service().seat_for(live, authorization) if authorization else None
        return JSONResponse(service().record_for(live, seat))

    @app.get(
        "/api/tables/{table_id}/public",
        responses=ERRORS,
        summary="The spectators' view: what every player knows",
    )
    async def public_view(table_id: str) -> JSONResponse:
        return JSONResponse(service().view_for(await table(table_id), None))

    # ------------------------------------------------------------------ live updates

    @app.websocket("/api/tables/{table_id}/ws")
    async def live_updates(websocket: WebSocket, table_id: str) -> None:
        """First message from the client: ``{"token": TOKEN}`` for a seat or ``{"spectate": true}``.
        The server answers ``hello`` (view, choices, log so far), then one ``update`` per
        stored action with the seat's own filtered events and new view (see triage.web.live)."""
        await serve_socket(websocket, service(), table_id, app.state.first_message_seconds)

    # ------------------------------------------------------------------ the page

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    add_review_routes(app)  # the game-over summary and replay of the page (triage.web.review)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
