"""What one request may ask of the server: body size, JSON shape, table sizes and request rates.

A game's cost grows with its holdings, its deck and its rounds; one table built to be expensive
could otherwise hold the whole server. Everything here refuses early with the documented
``{"code", "message"}`` JSON (docs/web.md, "Limits"):

- :class:`RequestBodyLimit` (ASGI middleware) reads a body only up to :data:`MAX_BODY_BYTES`
  (413 ``body_too_large``) and checks it is JSON of bounded shape (400 ``invalid_json``: not
  UTF-8, not JSON, an integer of more than :data:`MAX_INT_DIGITS` digits, nesting deeper than
  :data:`MAX_JSON_DEPTH`) before any route parses it;
- :func:`check_table_limits` bounds a new table's configuration and deck (422 ``limit_exceeded``);
- :func:`check_table_room` stops a table that holds :data:`MAX_TABLE_ACTIONS` actions (409
  ``action_limit``) or a record of :data:`MAX_RECORD_BYTES` (409 ``record_limit``);
- :class:`RateLimits` counts table creations, actions, spectators' records and hellos, hints
  and chat lines per client (429 ``rate_limited`` with ``Retry-After``) in moving windows: in this process
  (:class:`ProcessWindows`), or in a store every process shares (the ``limits`` library).
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from limits import RateLimitItem, parse_many
from limits.errors import ConfigurationError
from limits.errors import StorageError as LimitsStorageError
from limits.storage import MovingWindowSupport, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from triage.engine import DataError, load_standard_deck, make_config
from triage.engine.cards import CardSpec, parse_deck
from triage.engine.config import Config
from triage.engine.length import Unbounded, length_bound
from triage.web import (
    DEFAULT_ACT_RATE,
    DEFAULT_CHAT_RATE,
    DEFAULT_CREATE_RATE,
    DEFAULT_HINT_RATE,
    DEFAULT_LIMITS_STORAGE,
    DEFAULT_WATCH_RATE,
    waits,
)
from triage.web.errors import WebError

if TYPE_CHECKING:
    from triage.web.schemas import CardFields, ConfigFields

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The largest request body read (a table request with a 200-card deck is about 20 KB).
MAX_BODY_BYTES = 64 * 1024
#: The deepest nesting of arrays and objects in a body (a table request needs 4).
MAX_JSON_DEPTH = 16
#: The longest integer in a body, in digits (a seed up to 2**63 - 1 has 19).
MAX_INT_DIGITS = 20

#: The most cards in a table's deck (the standard deck has 40).
MAX_DECK_CARDS = 200
#: The largest number printed on a card, per field (K1).
MAX_CARD_VALUES: dict[str, int] = {"diagnosis": 8, "healing": 8, "credits": 10, "vp": 10}
#: The largest configuration values (scenario-format.md section 1), per key.
MAX_ROUNDS = 12
MAX_ARRIVALS = 4
MAX_INCOME = 6
MAX_START: dict[str, int] = {
    "quality": 30,
    "vp": 30,
    "credits": 30,
    "diagnostics": 10,
    "healing": 10,
    "staff": 5,
    "congress": 5,
    "helicopters": 5,
}
MAX_PRICE = 50
MAX_ITEM_LIMIT = 4
#: The most items a market may hold (T8; the defaults have 7) and the most of one supply an item
#: may give.
MAX_MARKET_ITEMS = 16
MAX_GIFT = 6

#: The largest WebSocket frame the server reads (a client sends only a token or a spectate flag).
MAX_WS_MESSAGE = 4096

#: The second line behind the engine's bounded rounds (T7, T8): a table takes no more actions
#: once it holds this many (a game at the table limits plays about 700 to 1,200)...
MAX_TABLE_ACTIONS = 5000
#: ... or once its all-seeing record (actions and events, as JSON) holds this many bytes; every
#: record and log sent is smaller (a game at the table limits holds about 250 KB).
MAX_RECORD_BYTES = 2 * 1024 * 1024
#: The most bytes the tables held in memory may take, by each table's estimate
#: (:meth:`~triage.web.live_table.LiveTable.memory_estimate`); the least recently used tables
#: nobody watches are let go beyond it (the store keeps them).
MAX_LIVE_BYTES = 512 * 1024 * 1024


# ---------------------------------------------------------------------- request bodies


async def send_error(send: Send, status: int, code: str, message: str) -> None:
    payload = json.dumps({"code": code, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


class BodyProblem(ValueError):
    """A body the server will not parse: its status, code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise BodyProblem(
            400, "invalid_json", f"an integer of {digits} digits; at most {MAX_INT_DIGITS} are read"
        )
    return int(text)


def _no_constant(name: str) -> Any:
    raise BodyProblem(400, "invalid_json", f"{name} is not a JSON number")


def json_depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for child in item)
    return deepest


def check_json(body: bytes) -> Any:
    """The parsed body, or :class:`BodyProblem` naming what is wrong with it."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyProblem(400, "invalid_json", f"the body is not UTF-8 (byte {error.start})") from None
    try:
        value = json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except RecursionError:
        raise BodyProblem(
            400, "invalid_json", f"the body nests deeper than {MAX_JSON_DEPTH} levels"
        ) from None
    except json.JSONDecodeError as error:
        raise BodyProblem(
            400,
            "invalid_json",
            f"the body is not JSON: {error.msg} (line {error.lineno}, column {error.colno})",
        ) from None
    # Each level opens a bracket: a body with few brackets needs no walk of its value.
    if body.count(b"[") + body.count(b"{") > MAX_JSON_DEPTH and json_depth(value) > MAX_JSON_DEPTH:
        raise BodyProblem(400, "invalid_json", f"the body nests deeper than {MAX_JSON_DEPTH} levels")
    return value


#: The scope key under which :class:`RequestBodyLimit` leaves the body it parsed (for
#: :mod:`triage.web.fast_lane`, which then need not parse it again).
PARSED_BODY = "triage.parsed_body"


class ClientGone(Exception):
    """The client went away before its whole body was read."""


class RequestBodyLimit:
    """ASGI middleware: an API request's body is read up to ``max_bytes`` and must be bounded
    JSON; otherwise the request is answered 413 or 400 before any route sees it."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES, prefix: str = "/api/") -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or not scope["path"].startswith(self.prefix)
            or scope["method"] in ("GET", "HEAD")
        ):
            if scope["type"] != "http":  # a socket's work is not bounded from its opening
                await self.app(scope, receive, send)
                return
            with waits.arriving():
                await self.app(scope, receive, send)
            return
        try:
            self._check_declared_size(scope)
            body = await self._read_body(receive)
            if body:
                scope[PARSED_BODY] = check_json(body)
        except BodyProblem as problem:
            await send_error(send, problem.status, problem.code, str(problem))
            return
        except ClientGone:
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        with waits.arriving():  # the bound on its database waits runs from here (triage.web.waits)
            await self.app(scope, replay, send)

    def _too_large(self) -> BodyProblem:
        return BodyProblem(
            413, "body_too_large", f"the body is larger than {self.max_bytes} bytes (docs/web.md, Limits)"
        )

    def _check_declared_size(self, scope: Scope) -> None:
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    raise BodyProblem(
                        400, "invalid_request", "the Content-Length header is not a number"
                    ) from None
                if declared > self.max_bytes:
                    raise self._too_large()

    async def _read_body(self, receive: Receive) -> bytes:
        """The whole body, read no further than ``max_bytes``."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                raise ClientGone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise self._too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


# ---------------------------------------------------------------------- tables


def _over(where: str, value: int, most: int) -> WebError:
    return WebError(
        422, "limit_exceeded", f"{where} is {value}; this server allows at most {most} (docs/web.md, Limits)"
    )


def check_config_limits(config: Config) -> None:
    """Refuse configuration values beyond the server's limits (each names its key)."""
    checks = [
        ("config.rounds", config.rounds, MAX_ROUNDS),
        ("config.arrivals", config.arrivals, MAX_ARRIVALS),
        ("config.income.diagnostics", config.income_diagnostics, MAX_INCOME),
        ("config.income.healing", config.income_healing, MAX_INCOME),
    ]
    checks += [(f"config.start.{name}", value, MAX_START[name]) for name, value in config.start.items()]
    checks += [
        (f"config.{name}.{count}[{seat}]", value, MAX_START[item])
        for name, table, item in (
            ("seat_credits", config.seat_credits, "credits"),
            ("seat_vp", config.seat_vp, "vp"),
        )
        for count, numbers in table.items()
        for seat, value in enumerate(numbers)
    ]
    checks.append(("the market's item count", len(config.market), MAX_MARKET_ITEMS))
    for name, item in config.market.items():
        where = f"config.market.{name}.price"
        checks += [(f"{where}.{count}", price, MAX_PRICE) for count, price in item.prices] or [
            (where, item.price, MAX_PRICE)
        ]
        checks += [
            (f"config.market.{name}.gives.{supply}", amount, MAX_GIFT) for supply, amount in item.gives
        ]
        if item.limit is not None:
            checks.append((f"config.market.{name}.limit", item.limit, MAX_ITEM_LIMIT))
        elif item.gives_of("spaces") or item.price == 0:
            # T8: an item that adds spaces grows a hospital; free items could be bought without end.
            raise WebError(
                422,
                "limit_exceeded",
                f"config.market.{name}.limit must be set (at most {MAX_ITEM_LIMIT}) on this server "
                "(docs/web.md, Limits)",
            )
    for where, value, most in checks:
        if value > most:
            raise _over(where, value, most)


def check_deck_limits(deck: list[CardSpec]) -> None:
    if len(deck) > MAX_DECK_CARDS:
        raise _over("the deck's card count", len(deck), MAX_DECK_CARDS)
    for index, card in enumerate(deck, start=1):
        for name, most in MAX_CARD_VALUES.items():
            value = getattr(card, name)
            if value is not None and value > most:
                raise _over(f"deck card {index} ({card.id}) field '{name}'", value, most)


def check_table_limits(
    config: ConfigFields | None, deck: list[CardFields] | None
) -> tuple[Config, list[CardSpec] | None]:
    """A table request's configuration and deck, validated and held to the limits."""
    if deck is not None and len(deck) > MAX_DECK_CARDS:
        raise _over("the deck's card count", len(deck), MAX_DECK_CARDS)
    try:
        game_config = make_config(config or None, source="config")
        cards = parse_deck({"cards": deck}, "deck") if deck is not None else None
    except DataError as error:
        raise WebError(422, "invalid_request", str(error)) from None
    check_config_limits(game_config)
    if cards is not None:
        check_deck_limits(cards)
    return game_config, cards


def check_table_length(config: Config, deck: list[CardSpec] | None, players: int) -> None:
    """Refuse a table whose game could take more actions than a table holds
    (:data:`MAX_TABLE_ACTIONS`), by the proven bound of :mod:`triage.engine.length` (422
    ``limit_exceeded``, naming the bound and what makes it): every table accepted ends before its
    action cap, whatever its players do, never one that can neither move nor end (issue 40)."""
    cards = deck if deck is not None else load_standard_deck()
    try:
        bound = length_bound(config, cards, players)
    except Unbounded as error:
        raise WebError(
            422,
            "limit_exceeded",
            f"this table's game has no bound on its length, so it could pass the {MAX_TABLE_ACTIONS:,} actions a table holds: {error}",
        ) from None
    if bound.actions > MAX_TABLE_ACTIONS:
        raise WebError(
            422,
            "limit_exceeded",
            f"this table's game could take up to {bound.actions:,} actions with {players} players (up to "
            f"{bound.flights:,} flights, {bound.draws:,} patients drawn and {bound.units:,} units paid by a player), "
            f"more than the {MAX_TABLE_ACTIONS:,} a table holds: lower the start holdings, the income or the "
            "rounds, raise the market's prices, or play with fewer players (T6-T8, R1, R2)",
        )


def check_table_room(actions: int, record_bytes: int) -> None:
    """Refuse to store more actions at a table that reached :data:`MAX_TABLE_ACTIONS` or
    :data:`MAX_RECORD_BYTES` (409: the table can take no more; the transaction that reaches a
    cap is stored whole, bot moves included)."""
    if actions >= MAX_TABLE_ACTIONS:
        raise WebError(
            409,
            "action_limit",
            f"this table holds {actions} actions, the most this server stores for one table "
            f"({MAX_TABLE_ACTIONS}; docs/web.md, Limits): it takes no more",
        )
    if record_bytes >= MAX_RECORD_BYTES:
        raise WebError(
            409,
            "record_limit",
            f"this table's record holds {record_bytes} bytes, the most this server stores for one "
            f"table ({MAX_RECORD_BYTES}; docs/web.md, Limits): it takes no more actions",
        )


# ---------------------------------------------------------------------- request rates


#: Seconds the rates are counted in this process alone after the shared store failed.
STORE_RETRY_SECONDS = 5.0
#: A shared store's connect and read timeouts, in seconds (a Redis call takes well under 1 ms).
STORE_TIMEOUT_SECONDS = 0.25
_TIMEOUT_SCHEMES = ("redis", "rediss", "valkey", "valkeys")

logger = logging.getLogger("triage.web")


def rate_storage(uri: str) -> Storage:
    """The ``limits`` storage at ``uri`` (``memory://``, ``redis://host:port``, ...), which must
    hold moving windows; ``ValueError`` otherwise."""
    scheme = uri.split("://", 1)[0]
    options: dict[str, float | str | bool] = {}
    if scheme != "memory":
        options["wrap_exceptions"] = True  # a failing store raises limits' StorageError
    if scheme in _TIMEOUT_SCHEMES:
        options.update(socket_timeout=STORE_TIMEOUT_SECONDS, socket_connect_timeout=STORE_TIMEOUT_SECONDS)
    try:
        storage = storage_from_string(uri, **options)
    except (ConfigurationError, ValueError) as error:
        raise ValueError(f"limits storage {uri!r}: {error}") from None
    if isinstance(storage, Storage) and isinstance(storage, MovingWindowSupport):
        return storage
    raise ValueError(f"limits storage {uri!r} cannot hold moving windows (use memory:// or redis://...)")


class Windows(Protocol):
    """Moving windows that count hits: :class:`ProcessWindows`, or the ``limits`` library's
    :class:`~limits.strategies.MovingWindowRateLimiter` over a shared store."""

    def hit(self, item: RateLimitItem, *identifiers: str) -> bool: ...

    def get_window_stats(self, item: RateLimitItem, *identifiers: str) -> Any: ...


#: Seconds between two sweeps of :class:`ProcessWindows` for clients whose windows are empty.
SWEEP_SECONDS = 60.0


class ProcessWindows:
    """Moving windows counted in this process: each client's hits of the last window, oldest
    first, one ``deque`` per rate. The ``limits`` library's memory storage does the same but
    starts a timer thread to expire its counters on nearly every hit (a thread start per
    request under load); here expiry is done by the hit itself, and a sweep now and then drops
    the clients whose windows are empty (memory stays bounded by the active clients)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._hits: dict[tuple[str, ...], deque[float]] = {}
        self._lock = threading.Lock()
        self._next_sweep = clock() + SWEEP_SECONDS

    def hit(self, item: RateLimitItem, *identifiers: str) -> bool:
        """Count one hit unless the window already holds ``item.amount`` of them."""
        now = self.clock()
        key = (str(item.amount), str(item.get_expiry()), *identifiers)
        with self._lock:
            if now >= self._next_sweep:
                self._sweep(now)
            hits = self._hits.get(key)
            if hits is None:
                hits = self._hits[key] = deque()
            self._expire(hits, now - item.get_expiry())
            if len(hits) >= item.amount:
                return False
            hits.append(now)
            return True

    def get_window_stats(self, item: RateLimitItem, *identifiers: str) -> tuple[float, int]:
        """When the window frees a hit (the oldest hit's time plus the window) and how many
        hits remain, as the ``limits`` library answers."""
        now = self.clock()
        key = (str(item.amount), str(item.get_expiry()), *identifiers)
        with self._lock:
            hits = self._hits.get(key, deque())
            self._expire(hits, now - item.get_expiry())
            reset = (hits[0] if hits else now) + item.get_expiry()
            return reset, max(0, item.amount - len(hits))

    @staticmethod
    def _expire(hits: deque[float], since: float) -> None:
        while hits and hits[0] <= since:
            hits.popleft()

    def _sweep(self, now: float) -> None:
        """Drop every window whose newest hit is older than its length (under the lock)."""
        self._next_sweep = now + SWEEP_SECONDS
        for key in [key for key, hits in self._hits.items() if not hits or hits[-1] <= now - float(key[1])]:
            del self._hits[key]

    def __len__(self) -> int:
        return len(self._hits)


@dataclass
class RateLimits:
    """Per-client request rates (moving windows).

    ``create`` and ``act`` are rate strings such as ``"20/minute"`` or ``"5/second;100/hour"``.
    ``storage`` is where the windows are counted: ``memory://`` (this process:
    :class:`ProcessWindows`), or a store every server process shares, such as
    ``redis://host:6379`` (the ``limits`` library). If the shared store fails, the rates are
    counted in this process for :data:`STORE_RETRY_SECONDS` (logged), then the store is tried again:
    a store outage neither refuses nor stalls requests.
    """

    create: str = DEFAULT_CREATE_RATE
    act: str = DEFAULT_ACT_RATE
    #: What a spectator (no token) may fetch of whole games: records and WebSocket hellos.
    watch: str = DEFAULT_WATCH_RATE
    #: The ``expert``'s suggestions a seat may ask for (counted per seat, not per address).
    hint: str = DEFAULT_HINT_RATE
    #: The chat lines and reactions a seat may post (counted per seat, :mod:`triage.web.chat`).
    chat: str = DEFAULT_CHAT_RATE
    storage: str = DEFAULT_LIMITS_STORAGE
    #: The time this process's windows count by (tests move it by hand).
    clock: Callable[[], float] = time.time
    _limiter: Windows = field(init=False, repr=False)
    _local: ProcessWindows = field(init=False, repr=False)
    _items: dict[str, list[RateLimitItem]] = field(init=False, repr=False)
    _store_down_until: float = field(init=False, repr=False, default=0.0)

    def __post_init__(self) -> None:
        self._local = ProcessWindows(self.clock)
        shared = self.storage.split("://", 1)[0] != "memory"
        self._limiter = MovingWindowRateLimiter(rate_storage(self.storage)) if shared else self._local
        self._items = {}
        kinds = (
            ("create", self.create),
            ("act", self.act),
            ("watch", self.watch),
            ("hint", self.hint),
            ("chat", self.chat),
        )
        for kind, text in kinds:
            try:
                self._items[kind] = parse_many(text)
            except ValueError:
                raise ValueError(f"rate {kind}: {text!r} is not a rate such as '20/minute'") from None

    def check_storage(self) -> None:
        """``ValueError`` unless the store answers (``triage serve`` checks it before starting)."""
        if isinstance(self._limiter, MovingWindowRateLimiter) and not self._limiter.storage.check():
            raise ValueError(f"the limits storage {self.storage!r} does not answer")

    def hit(self, kind: str, client: str) -> None:
        """Count one ``kind`` request of ``client``; 429 ``rate_limited`` when over a limit."""
        limiter = self._limiter
        if limiter is not self._local and time.monotonic() < self._store_down_until:
            limiter = self._local
        try:
            self._hit(limiter, kind, client)
        except LimitsStorageError as error:
            self._store_down_until = time.monotonic() + STORE_RETRY_SECONDS
            logger.warning(
                "limits storage %s failed (%s); counting in this process for %s s",
                self.storage,
                error.storage_error,
                STORE_RETRY_SECONDS,
            )
            self._hit(self._local, kind, client)

    def _hit(self, limiter: Windows, kind: str, client: str) -> None:
        for item in self._items[kind]:
            if not limiter.hit(item, kind, client):
                reset, _remaining = limiter.get_window_stats(item, kind, client)
                wait = max(1, math.ceil(reset - self.clock()))
                raise RateLimited(kind, str(item), wait)


class RateLimited(WebError):
    """429 with the seconds to wait (sent as ``Retry-After``)."""

    def __init__(self, kind: str, rate: str, retry_after: int) -> None:
        what = {
            "create": "tables created",
            "act": "actions",
            "watch": "records and hellos watched",
            "hint": "hints",
            "chat": "chat lines",
        }[kind]
        super().__init__(
            429, "rate_limited", f"too many {what} from this client (limit {rate}); retry in {retry_after} s"
        )
        self.retry_after = retry_after

    def headers(self) -> dict[str, str] | None:
        return {"Retry-After": str(self.retry_after)}
