"""The web app (FastAPI): the HTTP API under ``/api``, live updates over a WebSocket, the page.

The routes are registered by area (:mod:`triage.web.routes`, :mod:`triage.web.review`). Errors
are JSON ``{"code", "message"}`` (and ``rule`` for a rules refusal), with the engine's error
codes for refused actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from triage.web import DEFAULT_DB_URL, DEFAULT_WATCH_RATE, notify
from triage.web.errors import WebError
from triage.web.limits import RateLimited, RateLimits, RequestBodyLimit
from triage.web.live import FIRST_MESSAGE_SECONDS
from triage.web.review import add_review_routes
from triage.web.routes import add_seat_routes, add_table_routes, add_watch_routes
from triage.web.storage import Store
from triage.web.tables import TableService

STATIC = Path(__file__).parent / "static"

#: The code of each HTTP error the framework itself raises (docs/web.md lists every code).
HTTP_CODES = {400: "invalid_json", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}


def create_app_from_env() -> FastAPI:
    """The app of each process of ``triage serve --workers N``, configured by the environment
    that ``serve`` sets: TRIAGE_WEB_DB, TRIAGE_WEB_RATE_CREATE, TRIAGE_WEB_RATE_ACT,
    TRIAGE_WEB_RATE_WATCH."""
    rates = RateLimits(
        create=os.environ["TRIAGE_WEB_RATE_CREATE"],
        act=os.environ["TRIAGE_WEB_RATE_ACT"],
        watch=os.environ.get("TRIAGE_WEB_RATE_WATCH", DEFAULT_WATCH_RATE),
    )
    return create_app(os.environ["TRIAGE_WEB_DB"], rates)


def create_app(db_url: str = DEFAULT_DB_URL, rates: RateLimits | None = None) -> FastAPI:
    """The app, storing its tables at ``db_url`` (any SQLAlchemy URL), holding each client to
    ``rates`` (default :class:`~triage.web.limits.RateLimits`)."""
    app = FastAPI(
        title="Triage",
        summary="Play Triage (Patients and Treatment) in the browser: solo against bots or at a table with friends.",
        lifespan=lifespan_of(db_url),
    )
    app.add_middleware(RequestBodyLimit)
    app.state.rates = rates or RateLimits()
    app.state.first_message_seconds = FIRST_MESSAGE_SECONDS
    add_error_handlers(app)
    add_table_routes(app)
    add_seat_routes(app)
    add_watch_routes(app)
    add_review_routes(app)  # the game-over summary and replay of the page
    add_page_routes(app)
    return app


def lifespan_of(db_url: str) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's life: its store and table service, and (PostgreSQL) the listener that brings
    the other processes' updates."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(db_url)
        app.state.service = service = TableService(store)
        listener = await notify.start(service)
        yield
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
        store.close()

    return lifespan


def add_error_handlers(app: FastAPI) -> None:
    """Every error answers the JSON form ``{"code", "message"}``."""

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


def add_page_routes(app: FastAPI) -> None:
    """The page and its static files."""

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
