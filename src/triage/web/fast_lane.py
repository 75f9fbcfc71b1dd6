"""The seat's hottest requests served without FastAPI's routing and parameter parsing.

A seat plays by asking ``GET /api/tables/{id}/legal`` (or ``/view``) and posting ``POST
/api/tables/{id}/actions``: under load these are nearly every request the server gets. FastAPI
walks every route's pattern, solves each endpoint's parameters by inspecting their types and
wraps the call in several layers, which together cost the server more CPU than the game's own
work (docs/web.md, "CPU per action"). :class:`SeatFastLane` recognises exactly these three
requests, takes the token and the body as the routes do, and calls the very functions the
routes call (:func:`triage.web.routes.answer_legal` and its peers), answering refusals with the
same JSON (:func:`triage.web.errors.error_response`). Anything else, and any request whose form
the routes would have to judge (no JSON body, another content type, a repeated header), goes on
to FastAPI unchanged. The routes stay declared for the OpenAPI schema and as the reference: a
test holds both paths to the same answers.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from triage.web.errors import WebError, error_response
from triage.web.limits import PARSED_BODY
from triage.web.routes import answer_act, answer_legal, answer_view

#: The path's prefix and the three last parts the lane serves, with their methods.
PREFIX = "/api/tables/"
HOT = {("GET", "legal"), ("GET", "view"), ("POST", "actions")}


class SeatFastLane:
    """ASGI middleware (inside :class:`~triage.web.limits.RequestBodyLimit`, so a body has
    already been bounded and parsed) serving a seat's ``legal``, ``view`` and ``actions``."""

    def __init__(self, app: ASGIApp, api: FastAPI) -> None:
        self.app = app
        self.api = api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = hot_request(scope) if scope["type"] == "http" else None
        if request is None:
            await self.app(scope, receive, send)
            return
        table_id, last, authorization = request
        try:
            if last == "legal":
                response = await answer_legal(self.api, table_id, authorization)
            elif last == "view":
                response = await answer_view(self.api, table_id, authorization)
            else:
                client = scope.get("client")
                host = client[0] if client else "unknown"
                response = await answer_act(self.api, table_id, host, scope[PARSED_BODY], authorization)
        except WebError as error:
            response = error_response(error)
        await response(scope, receive, send)


def hot_request(scope: Scope) -> tuple[str, str, str | None] | None:
    """(table id, ``legal``/``view``/``actions``, the Authorization header) for a request the
    lane serves, else None (FastAPI answers it)."""
    path: str = scope["path"]
    if not path.startswith(PREFIX) or scope.get("root_path"):
        return None
    table_id, slash, last = path[len(PREFIX) :].partition("/")
    if not slash or not table_id or (scope["method"], last) not in HOT:
        return None
    authorization = _single_header(scope, b"authorization")
    if authorization is _REPEATED:
        return None
    if scope["method"] == "POST" and not _json_body(scope):
        return None
    return table_id, last, authorization if isinstance(authorization, str) else None


_REPEATED = object()


def _single_header(scope: Scope, name: bytes) -> Any:
    """The header's value (None when absent), or ``_REPEATED`` when it comes more than once."""
    found: str | None = None
    for key, value in scope["headers"]:
        if key.lower() == name:
            if found is not None:
                return _REPEATED
            found = value.decode("latin-1")
    return found


def _json_body(scope: Scope) -> bool:
    """Whether the request carries a JSON body the routes would read as the action (a JSON
    content type and a value that is not null), already parsed into the scope."""
    content_type = _single_header(scope, b"content-type")
    if not isinstance(content_type, str) or content_type.split(";")[0].strip().lower() != "application/json":
        return False
    return scope.get(PARSED_BODY) is not None
