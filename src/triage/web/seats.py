"""Seats and invitations: who sits where, and which token or invitation code names which seat.

Tokens and codes are random and stored as digests only (:func:`token_digest`); they are
compared in constant time.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from triage.bots import BOTS
from triage.web.answers import Invite, SeatToken
from triage.web.errors import WebError
from triage.web.live_table import LiveTable
from triage.web.storage import SeatInfo, token_digest


def new_token() -> str:
    return secrets.token_urlsafe(24)


def check_bot_names(bots: list[str | None], players: int) -> None:
    if len(bots) != players:
        raise WebError(
            422, "invalid_request", f"'bots' must have one entry per seat: {players} entries, got {len(bots)}"
        )
    for seat, name in enumerate(bots):
        if name is not None and name not in BOTS:
            raise WebError(
                422,
                "unknown_bot",
                f"seat {seat}: unknown bot {name!r} (bots: {', '.join(sorted(BOTS))}; null for a human)",
            )


def check_creator_seats(creator_seats: Any, bots: list[str | None]) -> list[int]:
    humans = [seat for seat, name in enumerate(bots) if name is None]
    if creator_seats is None:
        return humans
    if not isinstance(creator_seats, list) or any(type(seat) is not int for seat in creator_seats):
        raise WebError(422, "invalid_request", "'creator_seats' must be a list of seat numbers")
    if len(set(creator_seats)) != len(creator_seats) or not set(creator_seats) <= set(humans):
        raise WebError(
            422,
            "invalid_request",
            f"'creator_seats' must name distinct human seats (human seats: {humans}), got {creator_seats}",
        )
    return sorted(creator_seats)


def deal_seats(
    table_id: str, bots: list[str | None], mine: list[int], player_name: str | None = None
) -> tuple[list[SeatInfo], list[SeatToken], list[Invite]]:
    """The seats of a new table, with the token of each of the creator's seats (``mine``,
    taken at once, named ``player_name``) and an invitation for each other human seat."""
    seats: list[SeatInfo] = []
    tokens: list[SeatToken] = []
    invites: list[Invite] = []
    for seat, bot in enumerate(bots):
        if bot is not None:
            seats.append(SeatInfo(seat, bot, None, True))
        elif seat in mine:
            token = new_token()
            tokens.append({"seat": seat, "token": token})
            seats.append(SeatInfo(seat, None, token_digest(token), True, name=player_name))
        else:
            code = new_token()
            invites.append({"seat": seat, "url": f"/#/join/{table_id}/{code}", "code": code})
            seats.append(SeatInfo(seat, None, None, False, token_digest(code)))
    return seats, tokens, invites


def seat_for(table: LiveTable, authorization: str | None) -> int:
    """The seat whose token is in ``Authorization: Bearer TOKEN``; refuses anything else."""
    if not authorization:
        raise WebError(
            401, "unauthorized", "this request needs the seat's token: Authorization: Bearer TOKEN"
        )
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise WebError(401, "unauthorized", "the Authorization header must be 'Bearer TOKEN'")
    return seat_for_token(table, token.strip())


def seat_for_token(table: LiveTable, token: str) -> int:
    """The seat of ``token`` (tokens are given only with a seat that is taken)."""
    digest = token_digest(token)
    for info in table.seats:
        if info.token_hash is not None and hmac.compare_digest(info.token_hash, digest):
            return info.seat
    raise WebError(403, "forbidden", "this token is not a seat's token at this table")


def invited_seat(table: LiveTable, invite: Any) -> SeatInfo:
    """The seat an invitation code names, while it is free."""
    if not isinstance(invite, str) or not invite:
        raise WebError(422, "invalid_request", "'invite' must be the invitation's code (a string)")
    digest = token_digest(invite)
    for info in table.seats:
        if info.invite_hash is not None and hmac.compare_digest(info.invite_hash, digest):
            if info.claimed:
                raise WebError(
                    409,
                    "invite_used",
                    f"the invitation to seat {info.seat} has been used: "
                    + (f"the host gave the seat to a bot ({info.bot})" if info.bot else "the seat is taken"),
                )
            if table.game.is_over():
                raise WebError(
                    409, "invite_expired", f"the invitation to seat {info.seat} expired: the game is over"
                )
            return info
    raise WebError(403, "bad_invite", f"this is not an invitation to table {table.id}")


def open_seat(table: LiveTable, seat: Any) -> SeatInfo:
    """An open human seat of a public table: ``seat``, or the first one for None."""
    if not table.public:
        raise WebError(
            403,
            "private_table",
            f"table {table.id} is private: a seat is taken with its creator's invitation",
        )
    if seat is not None and (type(seat) is not int or not 0 <= seat < len(table.seats)):
        raise WebError(
            422, "invalid_request", f"'seat' must be a seat number from 0 to {len(table.seats) - 1}"
        )
    for info in table.seats:
        if info.bot is None and not info.claimed and seat in (None, info.seat):
            return info
    if seat is not None:
        raise WebError(409, "seat_taken", f"seat {seat} of table {table.id} is not an open human seat")
    raise WebError(409, "table_full", f"table {table.id} has no free seat; watch it as a spectator")
