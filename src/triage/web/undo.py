"""Undo at a table: ``POST /api/tables/{id}/undo``, and the delivery that holds a seat's
undoable actions back from everyone else.

A human seat may take back its latest actions within its turn, never past a reveal
(:mod:`triage.engine.undo`). Until those actions are sealed, nothing of them reaches another
seat or a spectator (:mod:`triage.web.sealing`): their messages go to the acting seat alone;
when the actions are sealed (a reveal, or the turn ends) the others get a fresh ``hello`` at the
new sealed point. An undo deletes the undone actions from the store and from memory in one
step, so a restart, a record or a replay never shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import Body, FastAPI, Request
from fastapi.responses import JSONResponse

from triage.engine.undo import UndoError, undo
from triage.web.answers import UndoAnswer
from triage.web.errors import WebError, stale, storage_refusal
from triage.web.live_table import LiveTable, facts
from triage.web.payloads import hello
from triage.web.routes import AUTH_HEADER, count_request, service_of
from triage.web.schemas import errors
from triage.web.sealing import sealed, undo_info
from triage.web.storage import Conflict, StorageError

if TYPE_CHECKING:
    from triage.web.tables import TableService

UNDO_BODY = Body(..., examples=[{"expected": 14}, {"expected": 14, "steps": 2}])


# ---------------------------------------------------------------------- undoing


def check_undo_body(body: Any) -> tuple[int, int]:
    """``{"expected": N, "steps": K}`` (K 1 by default): the action count seen, the steps."""
    if not isinstance(body, dict) or set(body) - {"expected", "steps"} or "expected" not in body:
        raise WebError(422, "invalid_request", 'the body is {"expected": N} or {"expected": N, "steps": K}')
    expected, steps = body["expected"], body.get("steps", 1)
    if type(expected) is not int or expected < 0:
        raise WebError(
            422, "invalid_request", f"'expected' must be an action number (0 or more), got {expected!r}"
        )
    if type(steps) is not int or steps < 1:
        raise WebError(422, "invalid_request", f"'steps' must be 1 or more, got {steps!r}")
    return expected, steps


def undo_refused(error: UndoError) -> WebError:
    """An undo the rules of undo refuse: a conflict with the table's state (409)."""
    if error.code == "undo_past_reveal":
        return WebError(409, "undo_past_reveal", error.message, error.rule)
    if error.code == "nothing_to_undo":
        return WebError(409, "nothing_to_undo", error.message, error.rule)
    return WebError(409, error.code, error.message, error.rule)  # not_your_turn, game_over (R1, R4)


def undo_at_table(service: TableService, table: LiveTable, seat: int, body: Any) -> UndoAnswer:
    """Take back ``seat``'s last ``steps`` actions (the table in its write turn). With the same
    ``expected`` a repeated request gets the same answer; any other stale number 409."""
    expected, steps = check_undo_body(body)
    with table.writer():
        number = table.actions
        if expected != number:
            repeat = table.last_undo
            if repeat is not None and repeat[:4] == (seat, expected, steps, number):
                answer: UndoAnswer = repeat[4]
                return answer
            raise stale(number, expected)
        point = sealed(table)
        if point.holder != seat and table.game.turn == seat and not table.game.is_over():
            raise WebError(
                409,
                "nothing_to_undo",
                "a bot moved for your seat this turn and everyone saw it: nothing to take back",
            )
        try:
            undone = undo(table.game, seat, steps)
        except UndoError as error:
            raise undo_refused(error) from None
        keep = len(undone.history)
        try:
            with table.waiting_on_store():
                service.store.undo_actions(table.id, keep, number, facts(point.game))
        except Conflict:
            service.catch_up(table)
            raise stale(table.actions, expected) from None
        except StorageError as error:
            raise storage_refusal(error) from None
        dropped = point.reach.events(steps)
        table.game, table.events = undone, table.events[: len(table.events) - dropped]
        if table.timing is not None:  # a stand-in's moves are never undone; numbers past the end go
            table.timing.stand_in_moves = [n for n in table.timing.stand_in_moves if n < keep]
        for subscriber in table.subscribers:
            if subscriber.seat == seat:
                subscriber.deliver(hello(table, seat))
        answer = {
            "actions": keep,
            "undone": steps,
            "turn": undone.turn,
            "phase": undone.phase,
            "undo": undo_info(table, seat),
        }
        table.last_undo = (seat, expected, steps, keep, answer)
        service._recount(table)  # the table's memory estimate, now smaller
        return answer


def add_undo_routes(app: FastAPI) -> None:
    """``POST /api/tables/{id}/undo`` with the seat's token."""

    @app.post(
        "/api/tables/{table_id}/undo",
        response_model=UndoAnswer,
        responses=errors(401, 403, 404, 409, 422, 429, 503),
        summary="Take back the seat's last action(s) of its turn, never past a reveal",
    )
    async def undo_route(
        table_id: str, http: Request, body: Any = UNDO_BODY, authorization: str | None = AUTH_HEADER
    ) -> JSONResponse:
        count_request(app, "act", http)
        service = service_of(app)

        def work(live: LiveTable) -> UndoAnswer:
            return undo_at_table(service, live, service.seat_of(live, authorization), body)

        return JSONResponse(await service.on_table(table_id, work))
