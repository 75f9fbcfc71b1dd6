"""The web shell's commands: ``triage serve`` and ``triage loadtest``."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, NoReturn, TypedDict

import typer

from triage.web import (
    DEFAULT_ACT_RATE,
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_CHAT_RATE,
    DEFAULT_CREATE_RATE,
    DEFAULT_DB_URL,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_HINT_RATE,
    DEFAULT_LIMITS_STORAGE,
    DEFAULT_WATCH_RATE,
)

if TYPE_CHECKING:
    from triage.web.limits import RateLimits
    from triage.web.loadtest import LoadResult


class ServeOptions(TypedDict):
    """What ``triage serve`` hands uvicorn's configuration (:class:`triage.web.server.ServerConfig`)."""

    host: str
    port: int
    log_level: str
    ws: str
    ws_max_size: int
    proxy_headers: bool
    forwarded_allow_ips: str | None
    header_timeout: float
    body_timeout: float
    workers: int


def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    db: str = typer.Option(
        DEFAULT_DB_URL, help="SQLAlchemy database URL (e.g. postgresql+psycopg://user@host/triage)."
    ),
    log_level: str = typer.Option("info", help="Uvicorn log level (warning keeps it quiet)."),
    rate_create: str = typer.Option(
        DEFAULT_CREATE_RATE,
        help="Tables one client address may create, e.g. 20/minute ('5/second;100/hour': several).",
    ),
    rate_act: str = typer.Option(
        DEFAULT_ACT_RATE, help="Actions one client address may take, e.g. 30/second."
    ),
    rate_watch: str = typer.Option(
        DEFAULT_WATCH_RATE,
        help="Spectators' records and WebSocket hellos one client address may fetch, e.g. 60/minute.",
    ),
    rate_hint: str = typer.Option(
        DEFAULT_HINT_RATE, help="Hints (the expert's suggested move) one seat may ask for, e.g. 12/minute."
    ),
    rate_chat: str = typer.Option(
        DEFAULT_CHAT_RATE, help="Chat lines and reactions one seat may post, e.g. 5/10seconds."
    ),
    limits_storage: str = typer.Option(
        DEFAULT_LIMITS_STORAGE,
        help="Where the rate limits are counted: memory:// (each process) or redis://host:6379 (shared by every process).",
    ),
    workers: int = typer.Option(
        1, min=1, help="Server processes over one database (more than one needs PostgreSQL)."
    ),
    forwarded_allow_ips: str = typer.Option(
        "",
        help="Proxy addresses whose X-Forwarded-For/-Proto are trusted, comma-separated ('*': any); default none.",
    ),
    header_timeout: float = typer.Option(
        DEFAULT_HEADER_TIMEOUT, min=0.1, help="Seconds a client has to send a request's headers."
    ),
    body_timeout: float = typer.Option(
        DEFAULT_BODY_TIMEOUT,
        min=0.1,
        help="Seconds a client has to send a request's body, once its headers are in.",
    ),
) -> None:
    """Start the web app: play in the browser, solo against bots or with friends."""
    from triage.web.app import create_app
    from triage.web.limits import MAX_WS_MESSAGE
    from triage.web.server import ServerConfig, run

    rates = _rates(rate_create, rate_act, rate_watch, limits_storage, rate_hint, rate_chat)
    _check_database(db)
    if workers > 1 and not db.startswith("postgresql"):
        _refuse(
            f"--workers {workers} needs PostgreSQL (--db postgresql+psycopg://...): the processes tell "
            "each other about new actions through PostgreSQL's LISTEN/NOTIFY, which SQLite does not have, and SQLite "
            "lets one process write at a time; with SQLite run one process"
        )
    typer.echo(
        f"Triage at http://{host}:{port}/ (tables stored in {db}, {workers} process{'es' if workers > 1 else ''}, "
        f"rate limits counted in {limits_storage})"
    )
    options: ServeOptions = {
        "host": host,
        "port": port,
        "log_level": log_level,
        "ws": "websockets-sansio",
        "ws_max_size": MAX_WS_MESSAGE,
        # Proxy headers only from the proxies named: otherwise any client could claim any address.
        "proxy_headers": bool(forwarded_allow_ips),
        "forwarded_allow_ips": forwarded_allow_ips or None,
        "header_timeout": header_timeout,
        "body_timeout": body_timeout,
        "workers": workers,
    }
    if workers > 1:
        # Each worker process builds its own app (uvicorn needs an import string for that).
        os.environ.update(worker_environment(db, rates))
        run(ServerConfig("triage.web.app:create_app_from_env", factory=True, **options))
    else:
        run(ServerConfig(create_app(db, rates), **options))


def worker_environment(db: str, rates: RateLimits) -> dict[str, str]:
    """The settings each worker process reads (``triage.web.app.create_app_from_env``)."""
    return {
        "TRIAGE_WEB_DB": db,
        "TRIAGE_WEB_RATE_CREATE": rates.create,
        "TRIAGE_WEB_RATE_ACT": rates.act,
        "TRIAGE_WEB_LIMITS_STORAGE": rates.storage,
        "TRIAGE_WEB_RATE_WATCH": rates.watch,
        "TRIAGE_WEB_RATE_HINT": rates.hint,
        "TRIAGE_WEB_RATE_CHAT": rates.chat,
    }


def _rates(
    rate_create: str,
    rate_act: str,
    rate_watch: str,
    storage: str,
    rate_hint: str = DEFAULT_HINT_RATE,
    rate_chat: str = DEFAULT_CHAT_RATE,
) -> RateLimits:
    """The rate limits of the options, their store checked now rather than inside the server."""
    from triage.web.limits import RateLimits

    try:
        rates = RateLimits(
            create=rate_create,
            act=rate_act,
            watch=rate_watch,
            storage=storage,
            hint=rate_hint,
            chat=rate_chat,
        )
        rates.check_storage()
    except ValueError as error:
        _refuse(str(error))
    return rates


def _refuse(message: str) -> NoReturn:
    typer.echo(f"triage serve: {message}", err=True)
    raise typer.Exit(2)


def _check_database(db: str) -> None:
    """Open the database now, failing with a clear message rather than inside the server."""
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from triage.web.storage import StorageError, Store

    try:
        Store(db).close()
    except ArgumentError as error:
        _refuse(f"--db {db!r} is not a database URL ({error})")
    except ImportError as error:
        _refuse(f"no driver for {db!r} ({error}); for PostgreSQL: pip install 'psycopg[binary]'")
    except (SQLAlchemyError, StorageError) as error:
        _refuse(f"cannot open the database {db!r}: {error}")


def loadtest(
    tables: str = typer.Option(
        "200", help="Concurrent tables, each played by random bots over HTTP; '200,1000' runs each."
    ),
    players: str = typer.Option(
        "2", help="Seats per table played by clients over HTTP; '1,2,4': a mix, table by table."
    ),
    bots: str = typer.Option(
        "none",
        help="A server bot seat per table, its level taken in turn table by table from this list "
        "('none': no bot seat), e.g. 'none,random,greedy,expert-novice'.",
    ),
    spectators: int = typer.Option(0, min=0, help="WebSocket spectators per table."),
    think: float = typer.Option(
        1.0, help="Mean seconds each client waits before each action (0: as fast as possible)."
    ),
    ramp: float = typer.Option(2.0, help="The tables arrive evenly over this many seconds at the start."),
    seconds: float = typer.Option(30.0, help="How long to run (each run)."),
    db: str | None = typer.Option(None, help="Database URL for the server (default: a fresh SQLite file)."),
    workers: str = typer.Option(
        "1",
        help="Server processes; '1,2' runs each and reports the ratios to the first (PostgreSQL for more than 1).",
    ),
    json_output: bool = typer.Option(
        False, "--json", help="Print one JSON object (a list for several runs)."
    ),
) -> None:
    """Load benchmark: start a server on loopback, play many tables at once, report action
    latency (median, p99) and the server's memory."""
    from triage.web.loadtest import run_loadtest

    table_counts, worker_counts = _counts(tables, "--tables"), _counts(workers, "--workers")
    bot_mix = _bot_mix(bots)
    seat_mix = _counts(players, "--players")
    if max(seat_mix) + any(bot_mix) > 4:
        raise typer.BadParameter("a table has at most 4 seats: --players and a --bots seat together")
    results = []
    for count in table_counts:
        for processes in worker_counts:
            result = run_loadtest(
                tables=count,
                players=seat_mix,
                think=think,
                seconds=seconds,
                db=db,
                ramp=ramp,
                workers=processes,
                bots=bot_mix,
                spectators=spectators,
            )
            results.append(result)
            if not json_output:
                typer.echo(_describe(result, think))
    if json_output:
        typer.echo(json.dumps(results[0] if len(results) == 1 else results))
        return
    for count in table_counts:
        runs = [result for result in results if result["tables"] == count]
        for result in runs[1:]:
            typer.echo(
                f"{count} tables, {result['workers']} workers against {runs[0]['workers']}: actions/s x"
                f"{result['actions_per_s'] / runs[0]['actions_per_s']:.2f}, p99 x{result['p99_ms'] / runs[0]['p99_ms']:.2f}, "
                f"server CPU per action x{result['server_cpu_ms_per_action'] / runs[0]['server_cpu_ms_per_action']:.2f}"
            )


def _counts(text: str, option: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise typer.BadParameter(f"{option} takes whole numbers separated by commas, got {text!r}") from None
    if not counts or min(counts) < 1:
        raise typer.BadParameter(f"{option} takes numbers of 1 or more, got {text!r}")
    return counts


def _bot_mix(text: str) -> list[str | None]:
    from triage.bots import BOTS

    levels = [None if part.strip() in ("", "none") else part.strip() for part in text.split(",")]
    unknown = [level for level in levels if level is not None and level not in BOTS]
    if unknown:
        raise typer.BadParameter(
            f"--bots: unknown bot {unknown[0]!r} (bots: {', '.join(sorted(BOTS))}, none)"
        )
    return levels


def _describe(result: LoadResult, think: float) -> str:
    line = (
        f"{result['tables']} tables, {result['workers']} worker(s), {result['actions']} actions in "
        f"{result['seconds']:.1f} s ({result['actions_per_s']:.0f} actions/s, think {think} s): action latency median "
        f"{result['median_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms; "
        f"server memory {result['server_rss_mb']:.0f} MB (peak {result['server_peak_mb']:.0f} MB); "
        f"legal listing median {result['legal_median_ms']:.1f} ms, p99 {result['legal_p99_ms']:.1f} ms; "
        f"server CPU {result['server_cpu_ms_per_action']:.2f} ms per action; "
        f"worst table p99 {result['worst_table_p99_ms']:.1f} ms (median {result['worst_table_median_ms']:.1f} ms, "
        f"{result['worst_table_actions']} actions); "
        f"errors {result['errors']}, retries {result['retries']} (load average {result['load_average']:.1f})"
    )
    by_kind = result["db_statements_by_kind"]
    if result["db_statements_per_action"] is not None and by_kind is not None:
        kinds = ", ".join(f"{kind} {count:.2f}" for kind, count in by_kind.items())
        line += f"\ndatabase statements per action {result['db_statements_per_action']:.2f} ({kinds})"
    if result["spectators"]:
        line += f"\n{result['spectators']} spectators per table got {result['spectator_updates']} updates"
    if result["errors"]:
        line += f"\nlast error: {result['last_error']}"
    return line


def register(app: typer.Typer) -> None:
    """Add the web commands to the ``triage`` command."""
    app.command()(serve)
    app.command()(loadtest)
