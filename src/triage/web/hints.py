"""``POST /api/tables/{id}/hint``: the ``expert``'s move for the asking seat, with one line why.

The question is the seat's own view and legal actions (what every bot is given), so the answer
cannot tell more than the seat knows (I1-I4). The search runs in the hints' own queue and worker
process, below the tables' bots (:mod:`triage.web.hint_queue`: one hint in flight per seat, a
budget per client across tables, clients in turn): never on the event loop. Each seat may ask
:attr:`RateLimits.hint` times a minute (counted per seat).

A hint is kept in the store's ``hints`` table and shown in the game record's ``hints`` list
(:mod:`triage.engine.records`): to its own seat while the game runs, to everyone once it is
over; never to another seat or to spectators before, since the expert's choice reflects what
only the asking seat may know. A hint is never a move: the record's actions and replays are
unchanged by it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from fastapi import Body, FastAPI, Header, Request
from fastapi.responses import JSONResponse

from triage.bots.hints import HINT_BOT, hint_reason
from triage.engine import view
from triage.engine.choices import action_choices
from triage.engine.records import hints_for
from triage.engine.shapes import Action, View
from triage.web import waits
from triage.web.answers import HintAnswer
from triage.web.errors import WebError, stale, storage_refused
from triage.web.limits import RateLimits
from triage.web.live_table import LiveTable
from triage.web.lobby import check_playing
from triage.web.schemas import errors
from triage.web.tables import TableService
from triage.engine.shapes import Action
from triage.web.thinking import bot_deadline, decide

HINT_BODY = Body(None, examples=[{"expected": 12}, {}])
AUTH_HEADER = Header(None, description="Bearer TOKEN: the seat's token.")


@dataclass(frozen=True)
class Question:
    """What the expert is asked for one seat: its view, its legal actions, the seed."""

    seat: int
    at: int
    view: View
    legal: list[Action]
    seed: str


def check_hint_body(body: Any) -> int | None:
    """The action number the client saw (None: the table's current one); 422 otherwise."""
    if body is None:
        return None
    if not isinstance(body, dict) or set(body) - {"expected"}:
        raise WebError(422, "invalid_request", 'the body is {"expected": N} (or empty)')
    expected = body.get("expected")
    if expected is not None and (type(expected) is not int or expected < 0):
        raise WebError(
            422, "invalid_request", f"'expected' must be an action number (0 or more), got {expected!r}"
        )
    return None if expected is None else int(expected)


def question(
    service: TableService, live: LiveTable, authorization: str | None, expected: int | None
) -> Question:
    """The seat's question, refused unless the game has started and it is the seat's decision
    now (R1, T9)."""
    seat = service.seat_of(live, authorization)
    check_playing(service, live)
    game = live.game
    if expected is not None and expected != live.actions:
        raise stale(live.actions, expected)
    if game.is_over():
        raise WebError(409, "game_over", "the game is over: there is no move to suggest")
    if game.turn != seat:
        raise WebError(
            409, "not_your_turn", f"a hint is for the seat whose decision it is (seat {game.turn})"
        )
    at = live.actions
    return Question(seat, at, view(game, seat), game.legal_actions(seat), f"hint:{live.id}:{seat}:{at}")


async def think(service: TableService, table_id: str, client: str, asked: Question) -> Action:
    """The expert's move, thought in the hints' own queue (:mod:`triage.web.hint_queue`: below the
    bots, one per seat, a budget per ``client``) within its deadline; 503 ``hint_unavailable`` if
    it fails or runs out of time (a hint is never a random move)."""
    return await service.hints.ask(
        client, table_id, asked.seat, asked.at, (asked.view, asked.legal, asked.seed)
    )


def answer(service: TableService, live: LiveTable, asked: Question, action: Action) -> HintAnswer:
    """Keep the hint and answer it with its reason, unless the table moved while the expert
    thought (409 ``stale_action``: the suggestion is for a position that is gone)."""
    if live.actions != asked.at:
        raise stale(live.actions, asked.at)
    reason = hint_reason(asked.view, action_choices(live.game, asked.seat), action)
    with storage_refused(), live.waiting_on_store():
        service.store.add_hint(live.id, asked.seat, asked.at, action)
    return {"seat": asked.seat, "at": asked.at, "action": action, "reason": reason, "bot": HINT_BOT}


def record_with_hints(service: TableService, live: LiveTable, text: str, seat: int | None) -> str:
    """The record's JSON ``text`` with the hints ``seat`` may see (all once the game is over;
    a spectator's record asks the store nothing before)."""
    if seat is None and not live.game.is_over():
        return text
    with storage_refused():
        stored = service.store.hints(live.id)
    shown = stored if live.game.is_over() else hints_for(stored, seat)
    if not shown:
        return text
    return f'{text[:-1]}, "hints": {json.dumps(shown)}}}'


def add_hint_routes(app: FastAPI) -> None:
    """``POST /api/tables/{table_id}/hint``."""

    @app.post(
        "/api/tables/{table_id}/hint",
        response_model=HintAnswer,
        responses=errors(400, 401, 403, 404, 409, 413, 422, 429, 503),
        summary="The expert's suggested move for the seat, with one line saying why (kept as a hint, never a move)",
    )
    async def hint(
        table_id: str, http: Request, body: Any = HINT_BODY, authorization: str | None = AUTH_HEADER
    ) -> JSONResponse:
        service = cast(TableService, app.state.service)
        expected = check_hint_body(body)
        client = http.client.host if http.client else "unknown"  # as rate limits count clients
        service.hints.check_budget(client)  # before any work for a client over its budget
        asked = await service.on_table(
            table_id, lambda live: question(service, live, authorization, expected)
        )
        cast(RateLimits, app.state.rates).hit("hint", f"{table_id}:{asked.seat}")
        action = await think(service, table_id, client, asked)
        with waits.arriving():  # the answer's write is bounded from here: the search waits on no database
            return JSONResponse(
                await service.on_table(table_id, lambda live: answer(service, live, asked, action))
            )
