"""A finished table looked back on: its final summary and its replay, step by step.

Both exist only once the game is over, when the whole record (deck and seed included) is public
anyway (``payloads.table_record``): nothing here can tell a player what it could not know.
The page shows them on its game-over screen.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Query
from fastapi.responses import JSONResponse

from triage.engine.observer import whole_event
from triage.engine.records import make_record, replay_steps
from triage.engine.shapes import ChatLine, Record
from triage.engine.summary import decided_by, player_rows, tie_break
from triage.engine.views import state_dict
from triage.web.answers import FinalRow, FinalSummary, ReplayStep, RoundStart
from triage.web.chat import said_at
from triage.web.errors import WebError
from triage.web.live_table import LiveTable
from triage.web.routes import AUTH_HEADER, read_table, service_of
from triage.web.seats import seat_for
from triage.web.schemas import errors
from triage.web.words import seat_names, worded_events


def final_summary(table: LiveTable) -> FinalSummary:
    """Per player: score, VP, QoC, treated track, Credits and the patients cured, dead and
    rejected by kind; the winner, the tie-break used and (solo) the score tier reached."""
    game = table.game
    if not game.is_over():
        raise WebError(409, "not_over", "the summary exists once the game is over")
    players: list[FinalRow] = [
        {**row, "bot": table.seats[row["seat"]].bot, "name": table.seats[row["seat"]].name}
        for row in player_rows(game, table.events)
    ]
    return {
        "players": players,
        "winner": game.winner,
        "tie_break": tie_break(game),
        "decided_by": decided_by(game),
        "solo_tier": game.solo_tier(),
        "rounds": game.round,
    }


def replay_step(
    record: Record, step: int, names: list[str], viewer: int | None = None, chat: list[ChatLine] | None = None
) -> ReplayStep:
    """The all-seeing position after ``step`` actions of a finished game's record, with that
    action and its events (step 0: the deal), worded for ``viewer`` (who reads "You"; the game is
    over, so every event is whole) with the players' ``names``, the ``chat`` lines said at it, and
    ``rounds``: the step each round starts at (``[{"round", "step"}, ...]``), for stepping a whole
    round at a time."""
    total = len(record["actions"])
    if not 0 <= step <= total:
        raise WebError(422, "invalid_request", f"'step' must be from 0 to {total}, got {step}")
    answer: ReplayStep | None = None
    rounds: list[RoundStart] = []
    phase: str | None = None  # the game's phase before the step (None: the deal)
    for number, (game, events, entry) in enumerate(replay_steps(record, "record")):
        if not rounds or rounds[-1]["round"] != game.round:
            rounds.append({"round": game.round, "step": number})
        if number == step:
            answer = {
                "step": step,
                "steps": total,
                "action": entry,
                "events": worded_events(
                    [whole_event(event) for event in events], viewer, names, game.config.market, phase
                ),
                "state": state_dict(game),
                "rounds": rounds,  # filled on to the last round
                "chat": chat or [],
            }
        phase = game.phase
    if answer is None:
        raise WebError(422, "invalid_request", f"'step' must be from 0 to {total}, got {step}")
    return answer


def add_review_routes(app: FastAPI) -> None:
    """``GET /api/tables/{id}/final`` and ``GET /api/tables/{id}/replay?step=N`` (409 ``not_over``
    while the game runs; with a seat's token, or for spectators of a table they read the chat
    of, a replay step carries the chat said at it)."""

    def finished(live: LiveTable) -> LiveTable:
        if not live.game.is_over():
            raise WebError(409, "not_over", "a table is reviewed once its game is over")
        return live

    @app.get(
        "/api/tables/{table_id}/final",
        response_model=FinalSummary,
        responses=errors(404, 409, 503),
        summary="A finished game's summary per player",
    )
    async def final(table_id: str) -> JSONResponse:
        summary = await read_table(app, table_id, lambda live: final_summary(finished(live)), on_loop=False)
        return JSONResponse(summary)

    @app.get(
        "/api/tables/{table_id}/replay",
        response_model=ReplayStep,
        responses=errors(401, 403, 404, 409, 422, 503),
        summary="A finished game's position after a number of actions",
    )
    async def replay(
        table_id: str,
        step: int = Query(0, description="Actions played (0: the deal)."),
        seat: int | None = Query(None, description="The seat whose player reads 'You' in the events' words."),
        authorization: str | None = AUTH_HEADER,
    ) -> JSONResponse:
        def replayed(live: LiveTable) -> tuple[Record, list[str], list[ChatLine]]:
            reader = seat_for(live, authorization) if authorization else None  # the chat's reader
            return make_record(finished(live).game), seat_names(live.seats), said_at(live, reader, step)

        record, names, chat = await read_table(app, table_id, replayed, on_loop=False)
        if seat is not None and not 0 <= seat < len(names):
            raise WebError(
                422, "invalid_request", f"'seat' must be a seat from 0 to {len(names) - 1}, got {seat}"
            )
        # Replaying runs in a thread, outside the table's lock: a long game holds nothing.
        return JSONResponse(await service_of(app).read(replay_step, record, step, names, seat, chat))
