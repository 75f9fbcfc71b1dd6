"""The web app (FastAPI): the HTTP API under ``/api``, live updates over a WebSocket, the page.

The routes are registered by area (:mod:`triage.web.routes`, :mod:`triage.web.review`). Errors
are JSON ``{"code", "message"}`` (and ``rule`` for a rules refusal), with the engine's error
codes for refused actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import TypeAdapter
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route

from triage.web import (
    DEFAULT_CHAT_RATE,
    DEFAULT_DB_URL,
    DEFAULT_HINT_RATE,
    DEFAULT_LIMITS_STORAGE,
    DEFAULT_WATCH_RATE,
    notify,
)
from triage.web.answers import MESSAGES
from triage.web.errors import WebError, error_response
from triage.web.fast_lane import SeatFastLane
from triage.web.hints import add_hint_routes
from triage.web.limits import RateLimits, RequestBodyLimit
from triage.web.live import FIRST_MESSAGE_SECONDS
from triage.web.lobby import add_lobby_routes
from triage.web.pagetypes import SchemaNode
from triage.web.review import add_review_routes
from triage.web.routes import (
    add_chat_routes,
    add_live_routes,
    add_seat_routes,
    add_table_routes,
    add_watch_routes,
)
from triage.web.schemas import ERROR_MEANINGS
from triage.web.storage import Store
from triage.web.tables import TableService
from triage.web.undo import add_undo_routes

STATIC = Path(__file__).parent / "static"

#: The code of each HTTP error the framework itself raises (docs/web.md lists every code).
HTTP_CODES = {400: "invalid_json", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}


#: Names a file to which each server process adds, when it stops, one JSON line counting the
#: statements it sent its database (``triage loadtest`` reads them: statements per action).
STATEMENTS_ENV = "TRIAGE_WEB_STATEMENTS"


def save_statement_count(path: Path, kinds: dict[str, int]) -> None:
    """Add this process's statement count to ``path`` (one line per process, appended whole)."""
    line = json.dumps({"pid": os.getpid(), "statements": kinds}) + "\n"
    with path.open("a", encoding="utf-8") as out:
        out.write(line)


def create_app_from_env() -> FastAPI:
    """The app of each process of ``triage serve --workers N``, configured by the environment
    that ``serve`` sets: TRIAGE_WEB_DB, TRIAGE_WEB_RATE_CREATE, TRIAGE_WEB_RATE_ACT,
    TRIAGE_WEB_RATE_WATCH, TRIAGE_WEB_RATE_HINT, TRIAGE_WEB_RATE_CHAT and TRIAGE_WEB_LIMITS_STORAGE."""
    rates = RateLimits(
        create=os.environ["TRIAGE_WEB_RATE_CREATE"],
        act=os.environ["TRIAGE_WEB_RATE_ACT"],
        watch=os.environ.get("TRIAGE_WEB_RATE_WATCH", DEFAULT_WATCH_RATE),
        hint=os.environ.get("TRIAGE_WEB_RATE_HINT", DEFAULT_HINT_RATE),
        chat=os.environ.get("TRIAGE_WEB_RATE_CHAT", DEFAULT_CHAT_RATE),
        storage=os.environ.get("TRIAGE_WEB_LIMITS_STORAGE", DEFAULT_LIMITS_STORAGE),
    )
    return create_app(os.environ["TRIAGE_WEB_DB"], rates)


def create_app(
    db_url: str = DEFAULT_DB_URL, rates: RateLimits | None = None, fast_lane: bool = True
) -> FastAPI:
    """The app, storing its tables at ``db_url`` (any SQLAlchemy URL), holding each client to
    ``rates`` (default :class:`~triage.web.limits.RateLimits`); ``fast_lane`` serves a seat's
    hottest requests without FastAPI's routing (:mod:`triage.web.fast_lane`; off only to
    compare)."""
    app = FastAPI(
        title="Triage",
        summary="Play Triage (Patients and Treatment) in the browser: solo against bots or at a table with friends.",
        lifespan=lifespan_of(db_url),
    )
    if fast_lane:
        app.add_middleware(SeatFastLane, api=app)  # inside the body limit: bodies come checked
    app.add_middleware(RequestBodyLimit)
    app.state.rates = rates or RateLimits()
    app.state.first_message_seconds = FIRST_MESSAGE_SECONDS
    add_error_handlers(app)
    add_table_routes(app)
    add_seat_routes(app)
    add_watch_routes(app)
    add_live_routes(app)  # presence, clocks, stand-in bots
    add_review_routes(app)  # the game-over summary and replay of the page
    add_hint_routes(app)  # the expert's suggested move for a seat (kept as a hint)
    add_lobby_routes(app)  # the waiting room's bots and the rematch
    add_undo_routes(app)  # a seat takes back actions of its turn (issue 20)
    add_chat_routes(app)  # what the players say: never a move (triage.web.chat)
    add_page_routes(app)
    declare_error_bodies(app)
    return app


def declare_error_bodies(app: FastAPI) -> None:
    """The schema's 422 answers are the ``{"code", "message"}`` body the server sends
    (``bad_request`` below), not FastAPI's default validation list."""
    build = app.openapi

    def openapi() -> SchemaNode:
        if app.openapi_schema is None:
            document = build()
            for operation in (op for path in document["paths"].values() for op in path.values()):
                refused = operation["responses"].get("422", {})
                if "HTTPValidationError" in json.dumps(refused):
                    operation["responses"]["422"] = {
                        "description": ERROR_MEANINGS[422],
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
                        },
                    }
            for unused in ("HTTPValidationError", "ValidationError"):
                document["components"]["schemas"].pop(unused, None)
            declare_messages(document["components"]["schemas"])
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]


def declare_messages(components: SchemaNode) -> None:
    """The WebSocket's messages, which no route answers with, among the schema's components
    (so that the page's types, generated from the schema, cover them too)."""
    for shape in MESSAGES:
        schema = TypeAdapter(shape).json_schema(ref_template="#/components/schemas/{model}")
        components.update(schema.pop("$defs", {}))
        components[shape.__name__] = schema


def lifespan_of(db_url: str) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's life: its store and table service, and (PostgreSQL) the listener that brings
    the other processes' updates."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        count_file = os.environ.get(STATEMENTS_ENV)
        store = Store(db_url, count_statements=bool(count_file))
        app.state.service = service = TableService(store)
        service.turns.loop = asyncio.get_running_loop()
        listener = await notify.start(service)
        service.timekeeper.start()
        if store.statements is not None:
            store.statements.reset()  # the statements of serving only, not of starting
        yield
        await service.timekeeper.stop()
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
        if count_file and store.statements is not None:
            save_statement_count(Path(count_file), dict(store.statements.kinds))
        service.close()

    return lifespan


def add_error_handlers(app: FastAPI) -> None:
    """Every error answers the JSON form ``{"code", "message"}``."""

    @app.exception_handler(WebError)
    async def web_error(_request: Request, error: WebError) -> JSONResponse:
        return error_response(error)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc'][1:]) or 'body'}: {issue['msg']}"
            for issue in error.errors()
        )
        return JSONResponse({"code": "invalid_request", "message": problems}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(error.status_code, "http_error")
        headers = dict(error.headers or {})
        if error.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(app, request))
        return JSONResponse(
            {"code": code, "message": str(error.detail)}, status_code=error.status_code, headers=headers
        )

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


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route answers at the request's path (405's ``Allow``; Starlette names
    only the first route's, though ``GET`` and ``POST /api/tables`` are two routes)."""
    methods: set[str] = set()
    for route in app.router.routes:
        if isinstance(route, Route | APIRoute) and route.methods:
            match, _scope = route.matches(request.scope)
            if match is not Match.NONE:
                methods |= route.methods
    return sorted(methods)


def add_page_routes(app: FastAPI) -> None:
    """The page and its static files."""

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
