"""Live tables: games in memory, kept in step with the store, with seats, bots and subscribers.

Everything a client receives goes through this module's ``*_for`` methods, which use only the
engine's filters (``view``, ``events_for``, ``record_for``, ``public_event``): a seat never gets
what it cannot know, and a spectator gets only what every player knows.

The service is used from one asyncio event loop: each request's game work is synchronous and
short, so two requests never interleave inside a table and no lock is needed.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from triage.bots import BOTS, make_bot
from triage.engine import DataError, Game, RuleError, events_for, make_config, public_event, spectator_view, view
from triage.engine.cards import parse_deck
from triage.engine.records import make_record, record_for, replay_steps
from triage.web.storage import SeatInfo, Store, StoredTable, token_digest

Event = dict[str, Any]
Action = dict[str, Any]

MAX_SEED = 2**63 - 1


class WebError(Exception):
    """A refusal with an HTTP status and the ``{"code", "message"}`` body clients get."""

    def __init__(self, status: int, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.rule:
            body["rule"] = self.rule
        return body


#: HTTP status for each engine error code: who-and-when conflicts are 409, the rest 422.
CONFLICT_CODES = {"not_your_turn", "wrong_phase", "game_over"}


def rule_refusal(error: RuleError) -> WebError:
    status = 409 if error.code in CONFLICT_CODES else 422
    return WebError(status, error.code, error.message, error.rule)


@dataclass
class Subscriber:
    """One WebSocket: its seat (None for a spectator) and the queue its writer task drains."""

    seat: int | None
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)


@dataclass
class LiveTable:
    id: str
    game: Game
    seats: list[SeatInfo]
    seed_chosen: bool
    #: The all-seeing events of the whole game, in order (never sent unfiltered).
    events: list[Event]
    subscribers: list[Subscriber] = field(default_factory=list)

    def seat_kind(self, seat: int) -> str:
        info = self.seats[seat]
        return "bot" if info.bot else "human"


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


class TableService:
    """Creates, loads, plays and watches tables; the store is the source of truth."""

    def __init__(self, store: Store, max_live: int = 5000) -> None:
        self.store = store
        #: Tables in memory, least recently used first; the store keeps them all.
        self.live: OrderedDict[str, LiveTable] = OrderedDict()
        self.max_live = max_live

    def _keep(self, table: LiveTable) -> None:
        """Hold ``table`` in memory, letting go of the least recently used tables that nobody
        watches beyond ``max_live`` (they are replayed from the store when asked for again)."""
        self.live[table.id] = table
        self.live.move_to_end(table.id)
        for table_id in list(self.live):
            if len(self.live) <= self.max_live:
                break
            if not self.live[table_id].subscribers:
                del self.live[table_id]

    # ------------------------------------------------------------------ creation and loading

    def create(
        self,
        players: int,
        bots: list[str | None] | None,
        seed: int | None,
        config: dict[str, Any] | None,
        deck: list[dict[str, Any]] | None,
    ) -> tuple[LiveTable, list[dict[str, Any]]]:
        """Deal a new table; returns it with the token of each human seat."""
        if not isinstance(players, int) or not 1 <= players <= 4:
            raise WebError(422, "invalid_request", f"'players' must be 1 to 4 (R1), got {players!r}")
        bots = list(bots) if bots is not None else [None] * players
        check_bot_names(bots, players)
        if seed is not None and not 0 <= seed <= MAX_SEED:
            raise WebError(422, "invalid_request", f"'seed' must be from 0 to {MAX_SEED}, got {seed}")
        try:
            game_config = make_config(config or None, source="config")
            game_deck = parse_deck({"cards": deck}, "deck") if deck is not None else None
        except DataError as error:
            raise WebError(422, "invalid_request", str(error)) from None
        chosen = seed is not None
        game_seed = seed if seed is not None else secrets.randbelow(2**53)
        try:
            game = Game.new(players=players, deck=game_deck, seed=game_seed, config=game_config)
        except (ValueError, DataError) as error:
            raise WebError(422, "invalid_request", str(error)) from None
        tokens: list[dict[str, Any]] = []
        seats: list[SeatInfo] = []
        for seat, name in enumerate(bots):
            if name is None:
                token = new_token()
                tokens.append({"seat": seat, "token": token})
                seats.append(SeatInfo(seat, None, token_digest(token), False))
            else:
                seats.append(SeatInfo(seat, name, None, True))
        table_id = secrets.token_urlsafe(9)
        assert game.setup is not None
        self.store.create_table(table_id, game.setup, chosen, seats)
        table = LiveTable(table_id, game, seats, chosen, list(game.initial_events))
        self._keep(table)
        self.run_bots(table)
        return table, tokens

    def get(self, table_id: str) -> LiveTable:
        """The live table, replayed from the store the first time it is asked for."""
        table = self.live.get(table_id)
        if table is not None:
            self.live.move_to_end(table_id)
            return table
        stored = self.store.load_table(table_id)
        if stored is None:
            raise WebError(404, "unknown_table", f"no table {table_id!r}")
        table = self._replay(stored)
        self._keep(table)
        self.run_bots(table)
        return table

    @staticmethod
    def _replay(stored: StoredTable) -> LiveTable:
        events: list[Event] = []
        game: Game | None = None
        for game, step_events, _ in replay_steps(stored.record(), f"table {stored.id}"):
            events.extend(step_events)
        assert game is not None
        return LiveTable(stored.id, game, stored.seats, stored.seed_chosen, events)

    def table_ids(self) -> list[str]:
        return self.store.table_ids()

    # ------------------------------------------------------------------ seats

    def seat_for(self, table: LiveTable, authorization: str | None) -> int:
        """The seat whose token is in ``Authorization: Bearer TOKEN``; refuses anything else."""
        if not authorization:
            raise WebError(401, "unauthorized", "this request needs the seat's token: Authorization: Bearer TOKEN")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise WebError(401, "unauthorized", "the Authorization header must be 'Bearer TOKEN'")
        return self.seat_for_token(table, token.strip())

    def seat_for_token(self, table: LiveTable, token: str) -> int:
        """The seat of ``token``. A seat whose token is used is taken: nobody can join it."""
        digest = token_digest(token)
        for info in table.seats:
            if info.token_hash is not None and hmac.compare_digest(info.token_hash, digest):
                if not info.claimed:
                    info.claimed = True
                    self.store.update_seat(table.id, info.seat, info.token_hash, True)
                return info.seat
        raise WebError(403, "forbidden", "this token is not a seat's token at this table")

    def join(self, table: LiveTable) -> dict[str, Any]:
        """Give the first free human seat to a newcomer: a fresh token, the old one revoked."""
        for info in table.seats:
            if info.bot is None and not info.claimed:
                token = new_token()
                info.token_hash = token_digest(token)
                info.claimed = True
                self.store.update_seat(table.id, info.seat, info.token_hash, True)
                return {"seat": info.seat, "token": token}
        raise WebError(409, "table_full", f"table {table.id} has no free seat; watch it as a spectator")

    # ------------------------------------------------------------------ playing

    def act(self, table: LiveTable, seat: int, action: Any) -> list[Event]:
        """Take ``action`` for ``seat``; commit it, then let the bots move. Returns the seat's
        events of the action and of the bot moves that followed it."""
        start = len(table.events)
        self._apply(table, seat, action)
        self.run_bots(table)
        return events_for(table.events[start:], seat)

    def _apply(self, table: LiveTable, seat: int, action: Any) -> None:
        game = table.game
        number = len(game.history)
        try:
            events = game.apply(action, seat)
        except RuleError as error:
            raise rule_refusal(error) from None
        entry = game.history[-1]
        try:
            self.store.add_action(table.id, number, entry["by"], entry["do"])
        except SQLAlchemyError:
            # Not durable, so not accepted: forget the in-memory game; the next request
            # replays the table from the store as it really is.
            self.live.pop(table.id, None)
            raise WebError(503, "storage_error", "the action could not be stored; try again") from None
        table.events.extend(events)
        self._broadcast(table, number, entry, events)

    def run_bots(self, table: LiveTable) -> None:
        """Bots move on the server whenever it is their decision, each from its own view."""
        game = table.game
        while game.turn is not None and table.seats[game.turn].bot is not None:
            seat = game.turn
            bot = make_bot(table.seats[seat].bot or "")
            rng = random.Random(f"{table.id}:{game.setup['seed'] if game.setup else 0}:{len(game.history)}")
            action = bot.choose(view(game, seat), game.legal_actions(seat), rng)
            self._apply(table, seat, action)

    # ------------------------------------------------------------------ what each one sees

    @staticmethod
    def view_for(table: LiveTable, seat: int | None) -> dict[str, Any]:
        return spectator_view(table.game) if seat is None else view(table.game, seat)

    @staticmethod
    def legal_for(table: LiveTable, seat: int | None) -> list[Action]:
        return [] if seat is None else table.game.legal_actions(seat)

    @staticmethod
    def events_for(table: LiveTable, seat: int | None, events: list[Event]) -> list[Event]:
        if seat is None:
            return [public_event(event) for event in events]
        return events_for(events, seat)

    def record_for(self, table: LiveTable, seat: int | None) -> dict[str, Any]:
        """The record; until the game is over, filtered for the seat (or for spectators)."""
        record = make_record(table.game)
        if table.game.is_over():
            return record
        if seat is not None:
            return record_for(record, seat)
        return {
            "format": record["format"],
            "players": record["players"],
            "config": record["config"],
            "viewer": None,
            "actions": record["actions"],
            "events": [public_event(event) for event in table.events],
        }

    def summary(self, table: LiveTable) -> dict[str, Any]:
        """Public facts about a table, for the lobby."""
        game = table.game
        return {
            "table_id": table.id,
            "players": game.num_players,
            "seats": [
                {"seat": info.seat, "bot": info.bot, "human": info.bot is None, "taken": info.claimed}
                for info in table.seats
            ],
            "round": game.round,
            "phase": game.phase,
            "turn": game.turn,
            "over": game.is_over(),
            "winner": game.winner,
            "scores": game.scores() if game.is_over() else None,
            "actions": len(game.history),
            # A creator who chose the seed could work out the deal: a practice table.
            "seed_chosen": table.seed_chosen,
        }

    # ------------------------------------------------------------------ live updates

    def message_for(self, table: LiveTable, seat: int | None, kind: str, **extra: Any) -> dict[str, Any]:
        message = {
            "type": kind,
            "table_id": table.id,
            "seat": seat,
            "view": self.view_for(table, seat),
            "legal": self.legal_for(table, seat),
        }
        message.update(extra)
        return message

    def hello(self, table: LiveTable, seat: int | None) -> dict[str, Any]:
        """The first message of a (re)connected client: its current view and its log so far."""
        return self.message_for(
            table, seat, "hello", log=self.events_for(table, seat, table.events), actions=len(table.game.history)
        )

    def subscribe(self, table: LiveTable, seat: int | None) -> Subscriber:
        subscriber = Subscriber(seat)
        table.subscribers.append(subscriber)
        return subscriber

    @staticmethod
    def unsubscribe(table: LiveTable, subscriber: Subscriber) -> None:
        if subscriber in table.subscribers:
            table.subscribers.remove(subscriber)

    def _broadcast(self, table: LiveTable, number: int, entry: dict[str, Any], events: list[Event]) -> None:
        for subscriber in list(table.subscribers):
            message = self.message_for(
                table,
                subscriber.seat,
                "update",
                number=number,
                by=entry["by"],
                action=entry["do"],
                events=self.events_for(table, subscriber.seat, events),
            )
            subscriber.queue.put_nowait(message)

