"""Live tables: games in memory, kept in step with the store, with seats, bots and subscribers.

Everything a client receives goes through this module's ``*_for`` methods, which use only the
engine's filters (``view``, ``events_for``, ``record_for``, ``public_event``): a seat never gets
what it cannot know, and a spectator gets only what every player knows.

Write, then remember: a change is worked out on a copy of the game, committed to the store, and
only then made in memory, so memory never holds anything the database does not. A storage
failure answers 503 ``storage_error`` and leaves memory as it was. Several processes may serve
one database: each request first checks the table's stored version and reads what other
processes stored meanwhile (see :mod:`triage.web.storage`).

The service is used from one asyncio event loop: each request's game work is synchronous and
short, so two requests never interleave inside a table and no lock is needed.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import random
import secrets
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from triage.bots import BOTS, make_bot
from triage.engine import (
    DataError,
    Game,
    RuleError,
    events_for,
    make_config,
    public_event,
    spectator_view,
    view,
)
from triage.engine.cards import parse_deck
from triage.engine.choices import action_choices
from triage.engine.forecast import forecast
from triage.engine.records import make_record, record_for, replay_steps
from triage.web.storage import (
    Conflict,
    SeatInfo,
    StorageError,
    Store,
    StoredTable,
    canonical,
    seat_facts,
    token_digest,
)

Event = dict[str, Any]
Action = dict[str, Any]

MAX_SEED = 2**63 - 1
#: Seconds of bot moves worked out within one request (more follow in later steps of the loop).
BOT_BUDGET = 0.005
#: At most this many actions in one transaction.
MAX_BATCH = 200

log = logging.getLogger("triage.web")


class WebError(Exception):
    """A refusal with an HTTP status and the ``{"code", "message"}`` body clients get."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        rule: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.rule = rule
        self.extra = extra or {}

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.rule:
            body["rule"] = self.rule
        body.update(self.extra)
        return body


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


def stale(current: int, expected: Any) -> WebError:
    return WebError(
        409,
        "stale_action",
        f"the table has {current} actions, not {expected}: look at the table again and choose from there",
        extra={"actions": current},
    )


#: The most messages waiting for one WebSocket client; beyond it the client is too slow.
QUEUE_LIMIT = 64


@dataclass
class Subscriber:
    """One WebSocket: its seat (None for a spectator) and the bounded queue its writer task
    drains. A message is a dict, or its JSON text when it is shared by several subscribers."""

    seat: int | None
    limit: int = field(default_factory=lambda: QUEUE_LIMIT)
    queue: asyncio.Queue[dict[str, Any] | str] = field(default_factory=asyncio.Queue)
    #: Set when the socket must close: too slow, or asked to reconnect.
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    close_code: int = 1000
    close_reason: str = ""

    def deliver(self, message: dict[str, Any] | str) -> None:
        if self.closing.is_set():
            return
        if self.queue.qsize() >= self.limit:
            self.close(1013, f"too slow: {self.limit} messages were waiting; reconnect for the current view")
            return
        self.queue.put_nowait(message)

    def close(self, code: int, reason: str) -> None:
        """Ask the socket to close with ``code`` (1013: reconnect) and ``reason``."""
        if not self.closing.is_set():
            self.close_code, self.close_reason = code, reason
            self.closing.set()


@dataclass
class LiveTable:
    """A table in memory. The object of a table id stays the same while it is in memory (a
    rebuild replaces its game, events and seats in place), so its subscribers survive."""

    id: str
    game: Game
    seats: list[SeatInfo]
    seed_chosen: bool
    #: The all-seeing events of the whole game, in order (never sent unfiltered).
    events: list[Event]
    public: bool = False
    seats_version: int = 0
    subscribers: list[Subscriber] = field(default_factory=list)
    bots_scheduled: bool = False

    @property
    def actions(self) -> int:
        return len(self.game.history)

    def seat_kind(self, seat: int) -> str:
        info = self.seats[seat]
        return "bot" if info.bot else "human"

    def bots_to_move(self, game: Game | None = None) -> bool:
        game = game or self.game
        return game.turn is not None and self.seats[game.turn].bot is not None


@dataclass
class Step:
    """One action worked out on a copy of the game, waiting to be committed."""

    number: int
    entry: dict[str, Any]
    events: list[Event]
    messages: list[tuple[Subscriber, str]]


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


def facts(game: Game) -> dict[str, Any]:
    """The public facts of a position, stored with each commit for the lobby."""
    over = game.is_over()
    return {
        "players": game.num_players,
        "round": game.round,
        "phase": game.phase,
        "turn": game.turn,
        "over": over,
        "winner": game.winner,
        "scores": game.scores() if over else None,
        "actions": len(game.history),
    }


class TableService:
    """Creates, loads, plays and watches tables; the store is the source of truth."""

    def __init__(self, store: Store, max_live: int = 5000, bot_budget: float = BOT_BUDGET) -> None:
        self.store = store
        #: Tables in memory, least recently used first; the store keeps them all.
        self.live: OrderedDict[str, LiveTable] = OrderedDict()
        self.max_live = max_live
        self.bot_budget = bot_budget
        #: Tables whose bots are waiting to move, served round robin, one batch a loop step.
        self.bot_queue: deque[LiveTable] = deque()
        self.bot_runner_scheduled = False
        #: Running bot batches (kept so the loop does not drop them).
        self.bot_tasks: set[asyncio.Task[None]] = set()

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
        public: bool = False,
        creator_seats: list[int] | None = None,
    ) -> tuple[LiveTable, list[dict[str, Any]], list[dict[str, Any]]]:
        """Deal a new table and store it; returns it with the token of each of the creator's
        seats (taken at once) and an invitation for each other human seat."""
        if type(players) is not int or not 1 <= players <= 4:
            raise WebError(422, "invalid_request", f"'players' must be 1 to 4 (R1), got {players!r}")
        bots = list(bots) if bots is not None else [None] * players
        check_bot_names(bots, players)
        mine = check_creator_seats(creator_seats, bots)
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
        table_id = secrets.token_urlsafe(9)
        tokens: list[dict[str, Any]] = []
        invites: list[dict[str, Any]] = []
        seats: list[SeatInfo] = []
        for seat, name in enumerate(bots):
            if name is not None:
                seats.append(SeatInfo(seat, name, None, True))
            elif seat in mine:
                token = new_token()
                tokens.append({"seat": seat, "token": token})
                seats.append(SeatInfo(seat, None, token_digest(token), True))
            else:
                code = new_token()
                invites.append({"seat": seat, "url": f"/#/join/{table_id}/{code}", "code": code})
                seats.append(SeatInfo(seat, None, None, False, token_digest(code)))
        assert game.setup is not None
        try:
            self.store.create_table(table_id, game.setup, chosen, bool(public), seats, facts(game))
        except (StorageError, Conflict) as error:
            raise storage_refusal(StorageError(str(error))) from None
        table = LiveTable(table_id, game, seats, chosen, list(game.initial_events), bool(public))
        self._keep(table)
        self.move_bots(table)
        return table, tokens, invites

    def get(self, table_id: str) -> LiveTable:
        """The live table at its committed position: replayed from the store the first time it
        is asked for, brought up to date with the store (other processes) on each request."""
        table = self.live.get(table_id)
        if table is not None:
            self.live.move_to_end(table_id)
            self.refresh(table)
            return table
        try:
            stored = self.store.load_table(table_id)
        except StorageError as error:
            raise storage_refusal(error) from None
        if stored is None:
            raise WebError(404, "unknown_table", f"no table {table_id!r}")
        table = self._replay(stored)
        self._keep(table)
        self.move_bots(table)
        return table

    async def load(self, table_id: str) -> LiveTable:
        """:meth:`get` for the event loop: a table's first load (reading the database and
        replaying its actions) runs in a thread, so a long replay never holds the loop."""
        if table_id in self.live:
            return self.get(table_id)
        try:
            stored = await asyncio.to_thread(self.store.load_table, table_id)
        except StorageError as error:
            raise storage_refusal(error) from None
        if stored is None:
            raise WebError(404, "unknown_table", f"no table {table_id!r}")
        game, events = await asyncio.to_thread(self._replayed, stored)
        if table_id in self.live:  # another request loaded it meanwhile: one object per table
            return self.get(table_id)
        table = LiveTable(
            stored.id, game, stored.seats, stored.seed_chosen, events, stored.public, stored.seats_version
        )
        self._keep(table)
        self.refresh(table)  # anything stored while it was replayed
        self.move_bots(table)
        return table

    @staticmethod
    def _replay(stored: StoredTable) -> LiveTable:
        game, events = TableService._replayed(stored)
        return LiveTable(
            stored.id, game, stored.seats, stored.seed_chosen, events, stored.public, stored.seats_version
        )

    @staticmethod
    def _replayed(stored: StoredTable) -> tuple[Game, list[Event]]:
        events: list[Event] = []
        game: Game | None = None
        for game, step_events, _ in replay_steps(stored.record(), f"table {stored.id}"):
            events.extend(step_events)
        assert game is not None
        return game, events

    def refresh(self, table: LiveTable) -> None:
        """The version check: take in what the store holds beyond memory (actions and seat
        changes made by other processes), telling this process's subscribers."""
        try:
            version = self.store.version(table.id)
        except StorageError as error:
            raise storage_refusal(error) from None
        if version is None:
            raise WebError(404, "unknown_table", f"no table {table.id!r}")
        actions, seats_version = version
        if actions > table.actions:
            self.catch_up(table)
        if seats_version != table.seats_version:
            try:
                table.seats, table.seats_version = self.store.seats(table.id)
            except StorageError as error:
                raise storage_refusal(error) from None

    def take_in(self, table: LiveTable, start: int, count: int, entries: list[dict[str, Any]] | None) -> None:
        """Another process stored actions ``start`` to ``count - 1`` (``entries``, when the
        notification could carry them): apply them, reading the database only if needed."""
        if count <= table.actions:
            return
        if entries is not None and start == table.actions and start + len(entries) == count:
            self.catch_up(table, entries)
        else:
            self.catch_up(table)

    def catch_up(self, table: LiveTable, entries: list[dict[str, Any]] | None = None) -> None:
        """Apply the stored actions memory has not seen yet (read from the store unless given,
        numbered from the table's count), in order, and send them on."""
        if entries is None:
            try:
                entries = self.store.actions_from(table.id, table.actions)
            except StorageError as error:
                raise storage_refusal(error) from None
        for entry in entries:
            number = table.actions
            try:
                events = table.game.apply(entry["do"], entry["by"])
            except RuleError:
                # Memory does not follow the store (it never should): replay it all, in place.
                log.error("table %s: stored action %d does not apply; replaying the table", table.id, number)
                self.rebuild(table)
                return
            table.events.extend(events)
            step = Step(
                number,
                table.game.history[-1],
                events,
                self._updates(table, table.game, number, table.game.history[-1], events),
            )
            self._deliver(step)
        if entries and table.bots_to_move():
            self.move_bots(table)

    def rebuild(self, table: LiveTable) -> None:
        """Replay ``table`` from the store in place; its subscribers get a fresh hello."""
        try:
            stored = self.store.load_table(table.id)
        except StorageError as error:
            raise storage_refusal(error) from None
        if stored is None:
            raise WebError(404, "unknown_table", f"no table {table.id!r}")
        table.game, table.events = self._replayed(stored)
        table.seats, table.seats_version = stored.seats, stored.seats_version
        for subscriber in list(table.subscribers):
            subscriber.deliver(self.hello(table, subscriber.seat))

    def lobby(self, limit: int) -> list[dict[str, Any]]:
        """The latest public tables (stored facts: nothing is replayed)."""
        try:
            return self.store.lobby(limit)
        except StorageError as error:
            raise storage_refusal(error) from None

    # ------------------------------------------------------------------ seats

    def seat_for(self, table: LiveTable, authorization: str | None) -> int:
        """The seat whose token is in ``Authorization: Bearer TOKEN``; refuses anything else."""
        if not authorization:
            raise WebError(
                401, "unauthorized", "this request needs the seat's token: Authorization: Bearer TOKEN"
            )
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise WebError(401, "unauthorized", "the Authorization header must be 'Bearer TOKEN'")
        return self.seat_for_token(table, token.strip())

    def seat_for_token(self, table: LiveTable, token: str) -> int:
        """The seat of ``token`` (tokens are given only with a seat that is taken)."""
        digest = token_digest(token)
        for info in table.seats:
            if info.token_hash is not None and hmac.compare_digest(info.token_hash, digest):
                return info.seat
        raise WebError(403, "forbidden", "this token is not a seat's token at this table")

    def join(self, table: LiveTable, invite: Any = None, seat: Any = None) -> dict[str, Any]:
        """Take a human seat: the invitation's seat, or (a public table only) an open seat.
        The seat is taken in the store first; a seat is never given twice."""
        if invite is not None:
            info = self._invited_seat(table, invite)
        else:
            info = self._open_seat(table, seat)
        token = new_token()
        try:
            version = self.store.claim_seat(
                table.id, info.seat, token_digest(token), info.invite_hash if invite is not None else None
            )
        except StorageError as error:
            raise storage_refusal(error) from None
        except Conflict:
            self.refresh(table)
            raise WebError(
                409, "seat_taken", f"seat {info.seat} of table {table.id} was taken meanwhile"
            ) from None
        info.token_hash, info.claimed = token_digest(token), True
        # Another process's seat change in between: read the seats again on the next request.
        table.seats_version = version if version == table.seats_version + 1 else -1
        return {"seat": info.seat, "token": token}

    @staticmethod
    def _invited_seat(table: LiveTable, invite: Any) -> SeatInfo:
        if not isinstance(invite, str) or not invite:
            raise WebError(422, "invalid_request", "'invite' must be the invitation's code (a string)")
        digest = token_digest(invite)
        for info in table.seats:
            if info.invite_hash is not None and hmac.compare_digest(info.invite_hash, digest):
                if info.claimed:
                    raise WebError(
                        409,
                        "invite_used",
                        f"the invitation to seat {info.seat} has been used: the seat is taken",
                    )
                return info
        raise WebError(403, "bad_invite", f"this is not an invitation to table {table.id}")

    @staticmethod
    def _open_seat(table: LiveTable, seat: Any) -> SeatInfo:
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

    # ------------------------------------------------------------------ playing

    def act(self, table: LiveTable, seat: int, action: Any, expected: Any = None) -> dict[str, Any]:
        """Take ``action`` for ``seat``, with the bot moves that follow it, in one transaction.

        With ``expected`` (the action number the client saw) the request is idempotent: a
        repeat of a stored request gets the stored answer, any other stale number 409."""
        number = table.actions
        request = None
        if expected is not None:
            if type(expected) is not int or expected < 0:
                raise WebError(
                    422,
                    "invalid_request",
                    f"'expected' must be an action number (0 or more), got {expected!r}",
                )
            request = canonical(action)
            if expected < number:
                return self._repeat(table, seat, request, expected, number)
            if expected > number:
                raise stale(number, expected)
        game = table.game.copy()
        try:
            events = game.apply(action, seat)
        except RuleError as error:
            raise rule_refusal(error) from None
        steps = [
            Step(
                number, game.history[-1], events, self._updates(table, game, number, game.history[-1], events)
            )
        ]
        self._bot_steps(table, game, steps, time.perf_counter() + self.bot_budget)
        seen = [event for step in steps for event in step.events]
        answer = {
            "number": number,
            "actions": len(game.history),
            "events": events_for(seen, seat),
            "turn": game.turn,
            "phase": game.phase,
        }
        stored = self._commit(table, game, steps, request, answer)
        self.move_bots(table)
        return stored or answer

    def _repeat(
        self, table: LiveTable, seat: int, request: str, expected: int, current: int
    ) -> dict[str, Any]:
        try:
            stored = self.store.answer_for(table.id, expected)
        except StorageError as error:
            raise storage_refusal(error) from None
        if (
            stored is not None
            and stored.by == seat
            and stored.request == request
            and stored.answer is not None
        ):
            return stored.answer
        raise stale(current, expected)

    def _commit(
        self,
        table: LiveTable,
        game: Game,
        steps: list[Step],
        request: str | None = None,
        answer: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """Store ``steps`` in one transaction, then make ``game`` the table's game and send the
        steps to the subscribers. On failure memory stays as it was. Returns the stored answer
        when this very request turns out to be stored already: by another process at the same
        moment, or by this commit though the database failed to confirm it."""
        start = steps[0].number
        try:
            self.store.add_actions(
                table.id, start, [step.entry for step in steps], facts(game), request, answer
            )
        except Conflict:
            # Another process acted first: take in what it stored; the client looks again.
            self.catch_up(table)
            same = self._stored_already(table, steps[0], request)
            if same is None:
                raise stale(table.actions, start) from None
            return same
        except StorageError as error:
            try:
                same = self._stored_already(table, steps[0], request)
            except WebError:
                raise WebError(
                    503,
                    "storage_error",
                    "the database failed and could not tell whether the action was stored; send the same "
                    "request again (with its expected number it is taken at most once)",
                ) from None
            if same is None:
                raise storage_refusal(error) from None
            self.catch_up(table)  # stored after all: memory takes it from the store
            return same
        table.game = game
        for step in steps:
            table.events.extend(step.events)
            self._deliver(step)
        return None

    def _stored_already(self, table: LiveTable, first: Step, request: str | None) -> dict[str, Any] | None:
        """The stored answer (``{}`` if none was stored) when the store's action number
        ``first.number`` is this very action (and request), else None."""
        try:
            stored = self.store.answer_for(table.id, first.number)
        except StorageError as error:
            raise storage_refusal(error) from None
        if stored is None or stored.by != first.entry["by"] or stored.action != first.entry["do"]:
            return None
        if request is not None and stored.request != request:
            return None
        return stored.answer or {}

    def _bot_steps(self, table: LiveTable, game: Game, steps: list[Step], deadline: float) -> None:
        """Quick bots move on ``game`` (a copy) within a request, while the time budget lasts;
        a bot that searches is left to the background runner, which thinks in a thread."""
        steps.extend(self._steps(table, self._bot_moves(table, game, len(steps), deadline, quick_only=True)))

    def _steps(
        self, table: LiveTable, moves: list[tuple[int, dict[str, Any], list[Event], Game]]
    ) -> list[Step]:
        """The moves with each subscriber's message, built from the position after each."""
        return [
            Step(number, entry, events, self._updates(table, after, number, entry, events))
            for number, entry, events, after in moves
        ]

    @staticmethod
    def _bot_moves(
        table: LiveTable, game: Game, done: int, deadline: float, quick_only: bool = False
    ) -> list[tuple[int, dict[str, Any], list[Event], Game]]:
        """Bots move on ``game`` (a copy) whenever it is their decision, each from its own view,
        until a human's decision, the end, the time budget or (``quick_only``) a bot that
        searches. Each move comes with a copy of the position just after it, for the
        subscribers' messages. Reads nothing the event loop changes, so it may run in a thread."""
        moves: list[tuple[int, dict[str, Any], list[Event], Game]] = []
        while (
            table.bots_to_move(game)
            and done + len(moves) < MAX_BATCH
            and (done + len(moves) == 0 or time.perf_counter() < deadline)
        ):
            seat = game.turn
            assert seat is not None
            bot = make_bot(table.seats[seat].bot or "")
            if quick_only and getattr(bot, "searches", False):
                break
            number = len(game.history)
            rng = random.Random(f"{table.id}:{game.setup['seed'] if game.setup else 0}:{number}")
            action = bot.choose(view(game, seat), game.legal_actions(seat), rng)
            events = game.apply(action, seat)
            moves.append((number, game.history[-1], events, game.copy()))
        return moves

    def move_bots(self, table: LiveTable) -> None:
        """Let the bots move: within a running event loop the table joins the round robin of
        tables whose bots move, one batch a loop step (other requests are served between any
        two batches, however many tables play); without a loop (scripts, tests), to the end now."""
        if not table.bots_to_move():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            while table.bots_to_move():
                self.bot_batch(table)
            return
        if not table.bots_scheduled:
            table.bots_scheduled = True
            self.bot_queue.append(table)
            self._wake_bot_runner(loop)

    def _wake_bot_runner(self, loop: asyncio.AbstractEventLoop, pause: float = 0.0) -> None:
        # The next batch runs in a later loop step, after the loop has looked at the sockets.
        if not self.bot_runner_scheduled and self.bot_queue:
            self.bot_runner_scheduled = True
            loop.call_later(pause, self._run_bot_batch)

    def _run_bot_batch(self) -> None:
        """Start one batch of the next table in the round robin (the runner stays busy until
        it ends: one batch at a time)."""
        table = self.bot_queue.popleft()
        table.bots_scheduled = False
        task = asyncio.get_running_loop().create_task(self._bot_batch_task(table))
        self.bot_tasks.add(task)
        task.add_done_callback(self.bot_tasks.discard)

    async def _bot_batch_task(self, table: LiveTable) -> None:
        """One batch of bot moves. The bots think in a worker thread on a copy of the game, so
        the event loop goes on serving requests (a searching bot thinks for tenths of a
        second); the moves are then stored and remembered on the loop. The table rejoins the
        round robin, and the runner rests as long as the batch took."""
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        pause = 0.0
        try:
            self.refresh(table)
            if table.bots_to_move():
                game = table.game.copy()
                moves = await asyncio.to_thread(
                    self._bot_moves, table, game, 0, time.perf_counter() + self.bot_budget
                )
                self._commit(table, game, self._steps(table, moves))
            pause = time.perf_counter() - started
        except WebError as error:
            if error.status == 503:  # the database is down: try again in a while
                log.warning("table %s: bots wait for the database (%s)", table.id, error.message)
                table.bots_scheduled = True
                loop.call_later(1.0, self._requeue, table)
            elif error.code != "stale_action":  # another process moved first: go on from there
                log.error("table %s: bots stopped: %s", table.id, error.message)
            else:
                self.move_bots(table)
        else:
            self.move_bots(table)
        finally:
            self.bot_runner_scheduled = False
            self._wake_bot_runner(loop, pause)

    def _requeue(self, table: LiveTable) -> None:
        self.bot_queue.append(table)
        self._wake_bot_runner(asyncio.get_running_loop())

    def bot_batch(self, table: LiveTable) -> None:
        """One transaction of bot moves, within the time budget (outside an event loop)."""
        if not table.bots_to_move():
            return
        game = table.game.copy()
        moves = self._bot_moves(table, game, 0, time.perf_counter() + self.bot_budget)
        self._commit(table, game, self._steps(table, moves))

    # ------------------------------------------------------------------ what each one sees

    @staticmethod
    def view_for(table: LiveTable, seat: int | None, game: Game | None = None) -> dict[str, Any]:
        game = game or table.game
        return spectator_view(game) if seat is None else view(game, seat)

    @staticmethod
    def legal_for(table: LiveTable, seat: int | None, game: Game | None = None) -> list[Action]:
        game = game or table.game
        return [] if seat is None else game.legal_actions(seat)

    @staticmethod
    def events_for(table: LiveTable, seat: int | None, events: list[Event]) -> list[Event]:
        if seat is None:
            return [public_event(event) for event in events]
        return events_for(events, seat)

    def view_answer(self, table: LiveTable, seat: int) -> dict[str, Any]:
        """The seat's view with the table's action number (``actions``) for idempotent actions."""
        return {**self.view_for(table, seat), "actions": table.actions}

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
        return {
            "table_id": table.id,
            **facts(table.game),
            "seats": seat_facts(table.seats),
            "public": table.public,
            # A creator who chose the seed could work out the deal: a practice table.
            "seed_chosen": table.seed_chosen,
        }

    # ------------------------------------------------------------------ live updates

    def message_for(
        self, table: LiveTable, seat: int | None, kind: str, game: Game | None = None, **extra: Any
    ) -> dict[str, Any]:
        game = game or table.game
        seen, choices = self.view_for(table, seat, game), [] if seat is None else action_choices(game, seat)
        message = {
            "type": kind,
            "table_id": table.id,
            "seat": seat,
            "view": seen,
            "actions": len(game.history),
            "choices": choices,
        }
        if seat is not None:  # deadlines, effects and payments, from what the seat sees alone
            message["forecast"] = forecast(seen, choices)
        message.update(extra)
        return message

    def hello(self, table: LiveTable, seat: int | None) -> dict[str, Any]:
        """The first message of a (re)connected client: its current view and its log so far."""
        return self.message_for(table, seat, "hello", log=self.events_for(table, seat, table.events))

    def subscribe(self, table: LiveTable, seat: int | None) -> Subscriber:
        subscriber = Subscriber(seat)
        table.subscribers.append(subscriber)
        return subscriber

    @staticmethod
    def unsubscribe(table: LiveTable, subscriber: Subscriber) -> None:
        if subscriber in table.subscribers:
            table.subscribers.remove(subscriber)

    def _updates(
        self, table: LiveTable, game: Game, number: int, entry: dict[str, Any], events: list[Event]
    ) -> list[tuple[Subscriber, str]]:
        """Each subscriber's ``update`` message for one action, built from ``game`` just after
        it (sent only once the action is stored): built and encoded once per seat, and once for
        all spectators."""
        updates = []
        built: dict[int | None, str] = {}
        for subscriber in table.subscribers:
            if subscriber.seat not in built:
                built[subscriber.seat] = json.dumps(
                    self.message_for(
                        table,
                        subscriber.seat,
                        "update",
                        game,
                        number=number,
                        by=entry["by"],
                        action=entry["do"],
                        events=self.events_for(table, subscriber.seat, events),
                    )
                )
            updates.append((subscriber, built[subscriber.seat]))
        return updates

    @staticmethod
    def _deliver(step: Step) -> None:
        for subscriber, message in step.messages:
            subscriber.deliver(message)
