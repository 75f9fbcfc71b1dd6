"""Refusals of the web service: an HTTP status with the ``{"code", "message"}`` body clients get.

docs/web.md lists every code; its test reads them from the ``WebError(status, "code"`` calls of
this package, so each code is written out where it is raised.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Required, TypedDict

from starlette.responses import JSONResponse

from triage.engine import RuleError
from triage.web.storage import StorageError


class ErrorExtras(TypedDict, total=False):
    """What a refusal may tell beyond its code: the table's action count (``stale_action``)."""

    actions: int


class ErrorAnswer(ErrorExtras, total=False):
    """A refusal's JSON body: its code and message, the rule behind a rule's refusal, and its
    extras (schemas.ErrorBody declares it in the API's schema)."""

    code: Required[str]
    message: Required[str]
    rule: str


class WebError(Exception):
    """A refusal with an HTTP status and the ``{"code", "message"}`` body clients get."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        rule: str | None = None,
        extra: ErrorExtras | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule
        self.extra: ErrorExtras = extra or {}

    def to_dict(self) -> ErrorAnswer:
        body: ErrorAnswer = {"code": self.code, "message": self.message}
        if self.rule:
            body["rule"] = self.rule
        return {**body, **self.extra}

    def headers(self) -> dict[str, str] | None:
        """Headers that go with the answer (a rate limit's ``Retry-After``)."""
        return None


def error_response(error: WebError) -> JSONResponse:
    """The answer to a refusal: its status, its JSON body and its headers."""
    return JSONResponse(error.to_dict(), status_code=error.status, headers=error.headers())


#: HTTP status for each engine error code: who-and-when conflicts are 409, the rest 422.
CONFLICT_CODES = {"not_your_turn", "wrong_phase", "game_over"}


def rule_refusal(error: RuleError) -> WebError:
    status = 409 if error.code in CONFLICT_CODES else 422
    return WebError(status, error.code, error.message, error.rule)


def storage_refusal(error: StorageError) -> WebError:
    return WebError(
        503,
        "storage_error",
        f"the database failed, nothing was stored and nothing changed; try again ({error})",
    )


@contextlib.contextmanager
def storage_refused() -> Iterator[None]:
    """Turn a :class:`StorageError` of the block into the 503 ``storage_error`` refusal."""
    try:
        yield
    except StorageError as error:
        raise storage_refusal(error) from None


def unknown_table(table_id: str) -> WebError:
    return WebError(404, "unknown_table", f"no table {table_id!r}")


def stale(current: int, expected: Any) -> WebError:
    return WebError(
        409,
        "stale_action",
        f"the table has {current} actions, not {expected}: look at the table again and choose from there",
        extra={"actions": current},
    )
