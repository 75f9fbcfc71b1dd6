"""Live tables: games in memory, kept in step with the store (the source of truth).

Write, then remember: a change is worked out on a copy of the game, committed to the store, and
only then made in memory, so memory never holds anything the database does not. A storage
failure answers 503 ``storage_error`` and leaves memory as it was. Several processes may serve
one database: each read first checks the table's stored version and reads what other
processes stored meanwhile; a write skips that read, its conditional write being the check
(see :mod:`triage.web.storage`). One process alone on its database reads nothing to serve.

The rooms around it: :mod:`~triage.web.turns` (actions and bot turns), :mod:`~triage.web.seats`
(tokens and invitations), :mod:`~triage.web.payloads` (what each one sees).

No store work runs on the event loop: every request's store and game work runs in a thread, so a
slow or locked database holds the requests that need it, never the loop (nor requests that need
no database). Writes (and bot moves) run in the writers' threads (:meth:`TableService.run`,
:meth:`TableService.on_table`), reads in threads of their own (:meth:`TableService.read`,
:meth:`TableService.read_table`) on connections of their own: a read never queues behind a
write. A short read of a table in memory that needs no database is done on the loop itself,
which spares it two thread hand-offs.

Each table has two locks (:mod:`triage.web.live_table`): writers of one table take turns
(:attr:`LiveTable.writing`) and let go of the table's memory lock while they wait for the store,
so a write waiting for a locked or silent database holds its own table's writers only; reads
never wait for it. Every write is bounded by one deadline (:mod:`triage.web.waits`), its wait
for a thread included: 503 ``storage_error`` within :data:`~triage.web.waits.WRITE_SECONDS`.
On a store that other processes share, a read checks the table's stored version on a readers'
connection (bounded to :data:`~triage.web.storage.READ_SECONDS`); when that check fails or the
database does not answer (:attr:`Store.answering`), the table is read as memory holds it.
Messages to WebSocket subscribers are handed to the loop (:meth:`Subscriber.deliver`), in the
order the table's lock gave them.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from triage.engine import DataError, Game, RuleError
from triage.engine.cards import CardSpec
from triage.engine.config import Config
from triage.engine.records import replay_steps
from triage.engine.shapes import Event
from triage.engine.shapes import Step as StepEntry
from triage.web import waits
from triage.web.answers import ActionResult, Invite, ListedTable, SeatToken, TableSettings
from triage.web.chat import keep_lines
from triage.web.clocks import Timekeeper, TimeRules
from triage.web.errors import WebError, stale, storage_refusal, storage_refused, unknown_table
from triage.web.hint_queue import HintQueue
from triage.web.journal import Journal
from triage.web.limits import MAX_LIVE_BYTES, check_table_length, check_table_limits, check_table_room
from triage.web.live_table import LiveTable, Step, facts
from triage.web.payloads import hello, lobby_message, update_messages
from triage.web.sealing import sealed
from triage.web.seats import (
    check_bot_names,
    check_creator_seats,
    deal_seats,
    invited_seat,
    new_token,
    open_seat,
    seat_for,
)
from triage.web.storage import (
    Conflict,
    DatabaseHeld,
    SeatInfo,
    StorageError,
    Store,
    StoredAnswer,
    StoredTable,
    WouldWait,
    token_digest,
)
from triage.web.turns import BOT_BUDGET, Turns
from triage.web.waits import Expired
from triage.web.withhold import commit_point, deliver_steps, remember
from triage.web.workers import Workers

if TYPE_CHECKING:
    from triage.web.schemas import CardFields, ConfigFields

MAX_SEED = 2**63 - 1
#: Threads doing the service's writes, bot moves and their game work (each holds at most one
#: database connection).
STORE_THREADS = 8
#: Threads doing the reads that need a thread (a database read, a table's lock held by a writer's
#: memory change), on the store's readers' connections.
READ_THREADS = 4

Result = TypeVar("Result")

log = logging.getLogger("triage.web")


def new_game(players: int, seed: int | None, config: Config, deck: list[CardSpec] | None) -> Game:
    """The deal of a new table (a secret random seed unless ``seed`` is given)."""
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise WebError(422, "invalid_request", f"'seed' must be from 0 to {MAX_SEED}, got {seed}")
    try:
        game_seed = seed if seed is not None else secrets.randbelow(2**53)
        return Game.new(players=players, deck=deck, seed=game_seed, config=config)
    except (ValueError, DataError) as error:
        raise WebError(422, "invalid_request", str(error)) from None


def deal(players: int, seed: int | None, config: ConfigFields | None, deck: list[CardFields] | None) -> Game:
    """A table request's game: its configuration and deck held to the server's limits, dealt by
    the engine (which refuses what it cannot play, T7, T8), and refused when its game could
    outlast the actions a table holds (:func:`check_table_length`, issue 40): every game dealt
    here ends before its table's cap, whatever its players do."""
    game_config, game_deck = check_table_limits(config, deck)
    game = new_game(players, seed, game_config, game_deck)
    check_table_length(game_config, game_deck, players)
    return game


def _unclocked(table: LiveTable) -> bool:
    """Whether the table runs without time rules (no clock, no stand-in bots)."""
    return table.timing is None or table.timing.rules is None


def replayed(stored: StoredTable) -> tuple[Game, list[Event]]:
    """The stored table's game and all-seeing events, replayed from its record."""
    events: list[Event] = []
    game: Game | None = None
    for game, step_events, _ in replay_steps(stored.record(), f"table {stored.id}"):
        events.extend(step_events)
    assert game is not None
    return game, events


class TableService:
    """Creates, loads and keeps tables in step with the store; its :attr:`turns` play them."""

    def __init__(
        self,
        store: Store,
        max_live: int = 5000,
        bot_budget: float = BOT_BUDGET,
        threads: int = STORE_THREADS,
        processes: int | None = None,
        max_live_bytes: int = MAX_LIVE_BYTES,
    ) -> None:
        """``threads`` do the store and game work of requests and bots; ``processes`` think for
        searching bots (None: one per core; 0: none, they think in the threads)."""
        self.store = store
        #: Tables in memory, least recently used first (the store keeps them all), guarded by
        #: :attr:`live_lock` (a table's own state is guarded by its lock).
        self.live: OrderedDict[str, LiveTable] = OrderedDict()
        self.live_lock = threading.Lock()
        self.max_live = max_live
        #: The most bytes the tables in memory may hold, by their estimates (docs/web.md, Limits).
        self.max_live_bytes = max_live_bytes
        self.live_bytes = 0  # the sum of the estimates counted for the tables in memory
        self.threads = Workers(threads, "triage-store")
        self.readers = Workers(READ_THREADS, "triage-read", readers=True)
        self.turns = Turns(self, bot_budget, processes)
        #: The hints' own queue and worker process, below the bots (:mod:`triage.web.hint_queue`).
        self.hints = HintQueue(processes)
        #: Presence, clocks and stand-in bots (its clock is injectable: tests set ``now``).
        self.timekeeper = Timekeeper(self)
        #: The last lobby read from the store, answered while the database cannot be read.
        self.last_lobby: list[ListedTable] | None = None
        self.reads_spare_store_until = 0.0  # until when reads answer from memory (store_held)

    async def run(self, work: Callable[..., Result], *args: Any) -> Result:
        """``work(*args)`` in a writers' thread: the event loop goes on meanwhile. Its waits for
        the database, its wait for a thread included, end at :func:`~triage.web.waits.job_deadline`
        (503 ``storage_error`` then), within the bound of its request's arrival."""
        self.turns.loop = asyncio.get_running_loop()
        return await self._bounded(self.threads, work, args)

    async def read(self, work: Callable[..., Result], *args: Any) -> Result:
        """``work(*args)`` in a readers' thread (reads only: the store serves it from its readers'
        connections), bounded as :meth:`run` is."""
        self.turns.loop = asyncio.get_running_loop()
        return await self._bounded(self.readers, work, args)

    @staticmethod
    async def _bounded(workers: Workers, work: Callable[..., Result], args: tuple[Any, ...]) -> Result:
        try:
            return await workers.run(work, *args, deadline=waits.job_deadline())
        except Expired:
            raise WebError(
                503,
                "storage_error",
                f"the server's work waited {waits.WRITE_SECONDS:g} s for a thread (the database is slow or "
                "held): nothing was stored and nothing changed; try again",
            ) from None

    async def on_table(
        self, table_id: str, work: Callable[[LiveTable], Result], check: bool = True
    ) -> Result:
        """``work(table)`` in a writers' thread, on the up-to-date table, in its write turn and
        under its lock."""
        return await self.run(self.with_table, table_id, work, check)

    async def write_table(self, table_id: str, work: Callable[[LiveTable], Result]) -> Result:
        """``work(table)``, a short commit: on the event loop when memory is the truth, the
        table is in memory and keeps no clock (whose bookkeeping writes again after the commit),
        its lock is free and the store can write without waiting
        (:meth:`Store.without_waiting`: a SQLite write, which does not sync to disk); in a
        thread as :meth:`on_table` does (without a version check) whenever any of these would
        wait. A hand-off to a thread and back costs more CPU than the commit, and under load
        each one waits for the interpreter's lock. ``work`` must change nothing before its
        store write, so that a :class:`WouldWait` leaves it free to run again in the thread
        (not tried on the loop when that is sure to happen: :func:`_writes_wait`)."""
        table = None if self.store.shared or _writes_wait(self) else self._live_table(table_id)
        if table is not None and _unclocked(table) and table.writing.acquire(blocking=False):
            try:
                if table.lock.acquire(blocking=False):
                    try:
                        with self.store.without_waiting():
                            self.turns.loop = asyncio.get_running_loop()
                            return work(table)
                    except WouldWait as refused:
                        spare_if_held(self, refused)
                    finally:
                        table.lock.release()
            finally:
                table.writing.release()
        return await self.on_table(table_id, work, check=False)

    async def read_table(
        self, table_id: str, work: Callable[[LiveTable], Result], on_loop: bool = True
    ) -> Result:
        """``work(table)`` for a read: on the event loop itself when memory is the truth
        (:attr:`Store.shared` false), the table is in memory, its lock is free and ``on_loop``
        (``work`` is then a short read of memory: it holds the loop while it runs); otherwise in
        a readers' thread (:func:`with_read`). Two thread hand-offs per request cost more CPU
        than the read itself (a seat's choices take a fraction of a millisecond). A read never
        waits for a write's database: writers let go of the table's lock meanwhile."""
        table = None if self.store.shared or not on_loop else self._live_table(table_id)
        if table is None or not table.lock.acquire(blocking=False):
            return await self.read(with_read, self, table_id, work)
        try:
            return work(table)
        finally:
            table.lock.release()

    def _live_table(self, table_id: str) -> LiveTable | None:
        """The table if it is in memory (marked most recently used), else None: no database."""
        with self.live_lock:
            table = self.live.get(table_id)
            if table is not None:
                self.live.move_to_end(table_id)
            return table

    def with_table(self, table_id: str, work: Callable[[LiveTable], Result], check: bool = True) -> Result:
        """``work(table)`` on the table (loaded if needed, brought up to date with the store
        unless ``check`` is False: a write's commit checks anyway) in its write turn and under its
        lock: a blocking call, for a writers' thread."""
        table = self._find(table_id)
        with table.writer():
            if check:
                self.refresh(table)
            return work(table)

    def close(self) -> None:
        """Stop the threads and the bots' processes, then the store."""
        self.turns.close()
        self.hints.close()
        self.threads.shutdown()
        self.readers.shutdown()
        self.store.close()

    def _keep(self, table: LiveTable) -> LiveTable:
        """Hold ``table`` in memory (unless another thread remembered the same table first: that
        one is returned, one object per table), letting go of the least recently used tables
        that nobody watches beyond ``max_live`` tables or ``max_live_bytes`` (they are replayed
        from the store when asked for again)."""
        with self.live_lock:
            kept = self.live.setdefault(table.id, table)
            self.live.move_to_end(table.id)
            if kept is table:
                table.counted_bytes = 0
                self._count(table)
        return kept

    def _recount(self, table: LiveTable) -> None:
        """Count ``table``'s estimate anew (after a commit), then trim the cache to its bounds."""
        with self.live_lock:
            if self.live.get(table.id) is table:
                self._count(table)

    def _count(self, table: LiveTable) -> None:
        """:meth:`_recount` under the cache's lock."""
        estimate = table.memory_estimate()
        self.live_bytes += estimate - table.counted_bytes
        table.counted_bytes = estimate
        if len(self.live) <= self.max_live and self.live_bytes <= self.max_live_bytes:
            return  # the usual case, once per commit: no walk over the cache
        for table_id in list(self.live):
            if len(self.live) <= self.max_live and self.live_bytes <= self.max_live_bytes:
                break
            other = self.live[table_id]
            if other is not table and not other.subscribers:
                del self.live[table_id]
                self.live_bytes -= other.counted_bytes

    def create(
        self,
        players: int,
        bots: list[str | None] | None,
        seed: int | None,
        config: ConfigFields | None,
        deck: list[CardFields] | None,
        public: bool = False,
        creator_seats: list[int] | None = None,
        name: str | None = None,
        time_rules: TimeRules | None = None,
        settings: TableSettings | None = None,
    ) -> tuple[LiveTable, list[SeatToken], list[Invite]]:
        """Deal a new table (its configuration and deck held to the server's limits) and store
        it; returns it with the token of each of the creator's seats (taken at once, with the
        creator's ``name``) and an invitation for each other human seat. The creator's first
        seat hosts the waiting room (see :mod:`triage.web.lobby`); ``time_rules``: its clock and
        stand-in bots (see :mod:`triage.web.clocks`); ``settings``: the bots' pace and what
        spectators read of the chat (default: normal, read)."""
        if type(players) is not int or not 1 <= players <= 4:
            raise WebError(422, "invalid_request", f"'players' must be 1 to 4 (R1), got {players!r}")
        bots = list(bots) if bots is not None else [None] * players
        check_bot_names(bots, players)
        mine = check_creator_seats(creator_seats, bots)
        game = deal(players, seed, config, deck)
        table_id = secrets.token_urlsafe(9)
        seats, tokens, invites = deal_seats(table_id, bots, mine, name)
        humans = [info.seat for info in seats if info.bot is None]
        host = mine[0] if mine else humans[0] if humans else None
        chosen = seed is not None
        table = self.open_table(
            table_id, game, seats, chosen, bool(public), host, time_rules=time_rules, settings=settings
        )
        return table, tokens, invites

    def open_table(
        self,
        table_id: str,
        game: Game,
        seats: list[SeatInfo],
        seed_chosen: bool,
        public: bool,
        host: int | None,
        rematch_of: str | None = None,
        time_rules: TimeRules | None = None,
        settings: TableSettings | None = None,
    ) -> LiveTable:
        """Store a dealt table (``rematch_of``'s rematch, if given; ``time_rules``, its clock;
        ``settings``, its pace and chat), remember it and let its quick bots move."""
        assert game.setup is not None
        table = LiveTable(table_id, game, seats, seed_chosen, list(game.initial_events), public)
        table.host = host
        table.settings = settings or table.settings
        self.timekeeper.created(table, time_rules)
        timing = self.timekeeper.stored(table)
        try:
            kept = (table_id, game.setup, seed_chosen, public, seats, facts(game), host, rematch_of, timing)
            self.store.create_table(*kept, table.settings)
        except (StorageError, Conflict) as error:
            if isinstance(error, Conflict) and rematch_of is not None:
                raise
            raise storage_refusal(StorageError(str(error))) from None
        self._keep(table)
        self.turns.quick_moves(table)
        return table

    def _load_stored(self, table_id: str) -> StoredTable:
        with storage_refused():
            stored = self.store.load_table(table_id)
        if stored is None:
            raise unknown_table(table_id)
        return stored

    def _remember(
        self, stored: StoredTable, game: Game, events: list[Event], journal: Journal | None = None
    ) -> LiveTable:
        table = LiveTable(
            stored.id, game, stored.seats, stored.seed_chosen, events, stored.public, stored.seats_version
        )
        table.host, table.rematch = stored.host, stored.rematch
        if stored.settings is not None:
            table.settings = stored.settings
        keep_lines(table, stored.chat)
        if journal is not None:
            table.journal = journal
        return self._keep(table)

    def _find(self, table_id: str) -> LiveTable:
        """The table in memory, or read and replayed from the store (outside any lock: a long
        replay holds no other table) and remembered; its bots are woken after a load (a restart
        resumes every table whose bots were to move)."""
        table = self._live_table(table_id)
        if table is not None:
            return table
        stored = self._load_stored(table_id)
        with storage_refused():
            timing = self.store.load_timing(table_id)
        table = self._remember(stored, *replayed(stored))
        if table.timing is None:
            self.timekeeper.restore(table, timing)
        self.turns.move_bots(table)
        return table

    def get(self, table_id: str, check: bool = True) -> LiveTable:
        """The live table at its committed position: replayed from the store the first time it
        is asked for, brought up to date with the store (other processes) on each request.
        ``check`` False skips that version check: for a write, whose commit checks anyway. A
        blocking call: the event loop uses :meth:`load` or :meth:`on_table`."""
        table = self._find(table_id)
        if check:
            self.refresh(table)
        return table

    async def load(self, table_id: str, check: bool = True) -> LiveTable:
        """:meth:`get` for the event loop, in a thread: reading the database and replaying a
        table never hold the loop."""
        return await self.run(self.get, table_id, check)

    def refresh(self, table: LiveTable, force: bool = False) -> None:
        """The version check: take in what the store holds beyond memory (actions and seat
        changes made by other processes), telling this process's subscribers. A store no other
        process writes needs none (memory is the truth) unless ``force``d."""
        if not (force or self.store.shared):
            return
        with table.writer():
            with storage_refused(), table.waiting_on_store():
                version = self.store.version(table.id)
            if version is None:
                raise unknown_table(table.id)
            actions, seats_version = version
            if actions > table.actions:
                self.catch_up(table)
            elif actions < table.actions:  # another process's undo took actions back
                self.rebuild(table)
            if seats_version != table.seats_version:
                with storage_refused(), table.waiting_on_store():
                    seats = self.store.seats(table.id)
                    links = self.store.links(table.id)
                table.seats, table.seats_version = seats
                table.host, table.rematch = links

    def take_in(self, table: LiveTable, start: int, count: int, entries: list[StepEntry] | None) -> None:
        """Another process stored actions ``start`` to ``count - 1`` (``entries``, when the
        notification could carry them): apply them, reading the database only if needed."""
        with table.writer():
            if count <= table.actions:
                return
            if entries is not None and start == table.actions and start + len(entries) == count:
                self.catch_up(table, entries)
            else:
                self.catch_up(table)

    def catch_up(self, table: LiveTable, entries: list[StepEntry] | None = None) -> None:
        """Apply the stored actions memory has not seen yet (read from the store unless given,
        numbered from the table's count), in order, and send them on."""
        with table.writer():
            self._catch_up(table, entries)

    def _catch_up(self, table: LiveTable, entries: list[StepEntry] | None) -> None:
        if entries is None:
            with storage_refused(), table.waiting_on_store():
                entries = self.store.actions_from(table.id, table.actions)
        before = sealed(table)
        for entry in entries:
            number, phase = table.actions, table.game.phase
            try:
                events = table.game.apply(entry["do"], entry["by"])
            except RuleError:
                # Memory does not follow the store (it never should): replay it all, in place.
                log.error("table %s: stored action %d does not apply; replaying the table", table.id, number)
                self.rebuild(table)
                return
            table.events.extend(events)
            applied = table.game.history[-1]
            step = Step(
                number, applied, events, update_messages(table, table.game, number, applied, events, phase)
            )
            deliver_steps(table, [step], before, sealed(table))
            before = sealed(table)
        if entries and table.bots_to_move():
            self.turns.move_bots(table)

    def rebuild(self, table: LiveTable) -> None:
        """Replay ``table`` from the store in place; its subscribers get a fresh hello."""
        with table.writer():
            with table.waiting_on_store():
                stored = self._load_stored(table.id)
            table.game, table.events = replayed(stored)
            table.seats, table.seats_version = stored.seats, stored.seats_version
            table.host, table.rematch = stored.host, stored.rematch
            keep_lines(table, [said for said in stored.chat if said[0] not in table.chat_ids])
            for subscriber in list(table.subscribers):  # the hello carries the chat too
                subscriber.deliver(hello(table, subscriber.seat))

    def seat_of(self, table: LiveTable, authorization: str | None) -> int:
        """The token's seat, for a table served without a version check: a token refused by
        memory is looked at again after reading the seats (another process may have given it)."""
        try:
            return seat_for(table, authorization)
        except WebError as error:
            if error.status != 403 or not self.store.shared:
                raise
        self.refresh(table)
        return seat_for(table, authorization)

    def join(
        self, table: LiveTable, invite: Any = None, seat: Any = None, name: str | None = None
    ) -> SeatToken:
        """Take a human seat: the invitation's seat, or (a public table only) an open seat.
        The seat is taken in the store first; a seat is never given twice."""
        with table.writer():
            info = invited_seat(table, invite) if invite is not None else open_seat(table, seat)
            return self.claim(table, info, name, info.invite_hash if invite is not None else None)

    def claim(self, table: LiveTable, info: SeatInfo, name: str | None, invite_hash: str | None) -> SeatToken:
        """Give the open seat ``info`` a new token and the player's ``name`` (stored first),
        then tell the table's clients who sits where."""
        token = new_token()
        with table.writer():
            was_waiting = table.waiting
            try:
                with table.waiting_on_store():
                    version = self.store.claim_seat(
                        table.id, info.seat, token_digest(token), invite_hash, name
                    )
            except StorageError as error:
                raise storage_refusal(error) from None
            except Conflict:
                self.refresh(table, force=True)
                raise WebError(
                    409, "seat_taken", f"seat {info.seat} of table {table.id} was taken meanwhile"
                ) from None
            info.token_hash, info.claimed, info.name = token_digest(token), True, name
            # Another process's seat change in between: read the seats again on the next request.
            table.seats_version = version if version == table.seats_version + 1 else -1
            self.seats_changed(table, was_waiting)
        return {"seat": info.seat, "token": token}

    def seats_changed(self, table: LiveTable, was_waiting: bool) -> None:
        """Tell the table's clients who sits where now; when the table just left its waiting
        room, each gets a fresh hello (its choices) and the bots start."""
        if was_waiting and not table.waiting:
            for subscriber in list(table.subscribers):
                subscriber.deliver(hello(table, subscriber.seat))
            self.timekeeper.play_began(table)
            self.turns.move_bots(table)
        else:
            message = lobby_message(table)
            for subscriber in list(table.subscribers):
                subscriber.deliver(message)

    def commit(
        self,
        table: LiveTable,
        game: Game,
        steps: list[Step],
        request: str | None = None,
        answer: ActionResult | None = None,
    ) -> ActionResult | None:
        """Store ``steps`` in one transaction, then make ``game`` the table's game and send the
        steps to the subscribers. On failure memory stays as it was. Returns the stored answer
        when this very request turns out to be stored already with one: by another process at
        the same moment, or by this commit though the database failed to confirm it (None
        otherwise: the caller's own answer stands)."""
        with table.writer():
            return self._commit(table, game, steps, request, answer)

    def _commit(
        self,
        table: LiveTable,
        game: Game,
        steps: list[Step],
        request: str | None,
        answer: ActionResult | None,
    ) -> ActionResult | None:
        start = steps[0].number
        check_table_room(table.actions, table.follow().record_bytes)
        before, after = sealed(table), commit_point(table, game, steps)
        try:
            with table.waiting_on_store():
                self.store.add_actions(
                    table.id, start, [step.entry for step in steps], facts(after.game), request, answer
                )
        except Conflict:
            # Another process acted first: take in what it stored; the client looks again.
            self.catch_up(table)
            same = self._stored_already(table, steps[0], request)
            if same is None:
                raise stale(table.actions, start) from None
            return same.answer
        except StorageError as error:
            return self._after_storage_error(table, steps[0], request, error)
        table.game = game
        for step in steps:
            table.events.extend(step.events)
        remember(table, after)
        deliver_steps(table, steps, before, after)  # another seat never gets undoable actions
        self.timekeeper.committed(table, steps)
        if self.live.get(table.id) is table:
            self._recount(table)
        return None

    def _after_storage_error(
        self, table: LiveTable, first: Step, request: str | None, error: StorageError
    ) -> ActionResult | None:
        """The database failed during a commit: the stored answer if the commit went through
        after all (memory then takes it from the store), else the 503 refusal."""
        try:
            same = self._stored_already(table, first, request)
        except WebError:
            raise WebError(
                503,
                "storage_error",
                "the database failed and could not tell whether the action was stored; send the same "
                "request again (with its expected number it is taken at most once)",
            ) from None
        if same is None:
            raise storage_refusal(error) from None
        self.catch_up(table)
        return same.answer

    def _stored_already(self, table: LiveTable, first: Step, request: str | None) -> StoredAnswer | None:
        """The store's action number ``first.number`` (with the answer stored with it, if any)
        when it is this very action (and request), else None."""
        with storage_refused(), table.waiting_on_store():
            stored = self.store.answer_for(table.id, first.number)
        if stored is None or stored.by != first.entry["by"] or stored.action != first.entry["do"]:
            return None
        if request is not None and stored.request != request:
            return None
        return stored


# ---------------------------------------------------------------------- reads


def with_read(service: TableService, table_id: str, work: Callable[[LiveTable], Result]) -> Result:
    """``work(table)`` on the table as this process can best know it without waiting for a
    write: loaded if needed, its stored version checked on a store other processes share
    (:meth:`refresh_for_read`), under its lock (never held across a database wait)."""
    table = service._live_table(table_id)
    if table is None:
        if service.store.shared and not service.store.answering:
            service.store.probe()
            raise WebError(
                503,
                "storage_error",
                f"table {table_id} is not in this server's memory and the database does not answer; "
                "try again",
            )
        table = service._find(table_id)
    else:
        refresh_for_read(service, table)
    with table.lock:
        return work(table)


#: Seconds reads answer from memory without asking the store, once a read found it held (a lock
#: it waited for in vain, a failure): each read would otherwise wait for the lock anew (20 ms
#: each on PostgreSQL), and while the store is held no write can move a table on.
HELD_READ_SECONDS = 1.0


def store_held(service: TableService) -> bool:
    """Whether a read found the store held within the last :data:`HELD_READ_SECONDS`."""
    return waits.now() < service.reads_spare_store_until


def note_store_held(service: TableService) -> None:
    service.reads_spare_store_until = waits.now() + HELD_READ_SECONDS


def spare_if_held(service: TableService, refused: WouldWait) -> None:
    """After a write on the event loop was refused: if another connection holds the database,
    reads and writes spare it :data:`HELD_READ_SECONDS`."""
    if isinstance(refused, DatabaseHeld):
        note_store_held(service)


def _writes_wait(service: TableService) -> bool:
    """Whether a write tried on the event loop now would find the store taken (this process's
    write turn, or the database held within :data:`HELD_READ_SECONDS`), having held the loop for
    its game's work in vain: 12 writes arriving at a held SQLite file held every read for 50 to
    250 ms so."""
    return store_held(service) or service.store.write_turn_taken()


def refresh_for_read(service: TableService, table: LiveTable) -> None:
    """A read's version check on a store other processes share, on a readers' connection: the
    actions other processes stored are taken in, unless a write of the table is under way
    (it takes them in itself) or the check fails (a lock on the store, a database that does
    not answer): the read then answers from memory, never waiting for the store, and so do the
    reads of the next :data:`HELD_READ_SECONDS` without asking it (:func:`store_held`)."""
    if not service.store.shared or store_held(service):
        return
    if not service.store.answering:
        service.store.probe()
        return
    try:
        version = service.store.version(table.id)
    except StorageError as error:
        note_store_held(service)
        log.info("table %s: read from memory (the version check failed: %s)", table.id, error)
        return
    if version is None:
        raise unknown_table(table.id)
    if version == (table.actions, table.seats_version) or not table.writing.acquire(blocking=False):
        return
    try:
        with table.lock:
            service.refresh(table)
    except WebError as error:
        log.info("table %s: read from memory (%s)", table.id, error.message)
    finally:
        table.writing.release()


def read_lobby(service: TableService, limit: int) -> list[ListedTable]:
    """The latest public tables (stored facts: nothing is replayed); the last list read when
    the database cannot be read now (held by a lock, silent), so that the lobby answers at once:
    for :data:`HELD_READ_SECONDS` after a read found it held, without asking it."""
    if service.last_lobby is not None and store_held(service):
        return service.last_lobby
    if service.last_lobby is not None and service.store.shared and not service.store.answering:
        service.store.probe()
        return service.last_lobby
    try:
        service.last_lobby = service.store.lobby(limit)
    except StorageError as error:
        note_store_held(service)
        if service.last_lobby is None:
            raise storage_refusal(error) from None
        log.info("the lobby as last read (%s)", error)
    return service.last_lobby
