"""The API's request and answer bodies (pydantic): the OpenAPI schema clients read.

Requests are strict (an integer is a JSON integer, never "2", 2.0 or true); the game documents
themselves are plain JSON data, sent as they are built (:mod:`triage.web.payloads`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from triage.web.limits import MAX_DECK_CARDS


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
