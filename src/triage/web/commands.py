"""The web shell's commands: ``triage serve`` and ``triage loadtest``."""

from __future__ import annotations

import json
import os
from typing import Any, NoReturn

import typer

from triage.web import DEFAULT_ACT_RATE, DEFAULT_CREATE_RATE, DEFAULT_DB_URL, DEFAULT_WATCH_RATE


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
    workers: int = typer.Option(
        1,
        min=1,
        help="Server processes over one database (more than one needs PostgreSQL; rate limits count per process).",
    ),
) -> None:
    """Start the web app: play in the browser, solo against bots or with friends."""
    import uvicorn

    from triage.web.app import create_app
    from triage.web.limits import MAX_WS_MESSAGE, RateLimits

    try:
        rates = RateLimits(create=rate_create, act=rate_act, watch=rate_watch)
    except ValueError as error:
        _refuse(str(error))
    _check_database(db)
    if workers > 1 and not db.startswith("postgresql"):
        _refuse(
            f"--workers {workers} needs PostgreSQL (--db postgresql+psycopg://...): the processes tell "
            "each other about new actions through PostgreSQL's LISTEN/NOTIFY, which SQLite does not have, and SQLite "
            "lets one process write at a time; with SQLite run one process"
        )
    typer.echo(
        f"Triage at http://{host}:{port}/ (tables stored in {db}, {workers} process{'es' if workers > 1 else ''})"
    )
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": log_level,
        "ws": "websockets-sansio",
        "ws_max_size": MAX_WS_MESSAGE,
    }
    if workers > 1:
        # Each worker process builds its own app (uvicorn needs an import string for that).
        os.environ.update(
            TRIAGE_WEB_DB=db,
            TRIAGE_WEB_RATE_CREATE=rate_create,
            TRIAGE_WEB_RATE_ACT=rate_act,
            TRIAGE_WEB_RATE_WATCH=rate_watch,
        )
        uvicorn.run("triage.web.app:create_app_from_env", factory=True, workers=workers, **options)
    else:
        uvicorn.run(create_app(db, rates), **options)


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
    players: int = typer.Option(2, min=1, max=4, help="Seats per table."),
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
    results = []
    for count in table_counts:
        for processes in worker_counts:
            result = run_loadtest(
                tables=count,
                players=players,
                think=think,
                seconds=seconds,
                db=db,
                ramp=ramp,
                workers=processes,
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


def _describe(result: dict[str, Any], think: float) -> str:
    line = (
        f"{result['tables']} tables, {result['workers']} worker(s), {result['actions']} actions in "
        f"{result['seconds']:.1f} s ({result['actions_per_s']:.0f} actions/s, think {think} s): action latency median "
        f"{result['median_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms; "
        f"server memory {result['server_rss_mb']:.0f} MB (peak {result['server_peak_mb']:.0f} MB); "
        f"legal listing median {result['legal_median_ms']:.1f} ms, p99 {result['legal_p99_ms']:.1f} ms; "
        f"server CPU {result['server_cpu_ms_per_action']:.2f} ms per action; "
        f"errors {result['errors']}, retries {result['retries']} (load average {result['load_average']:.1f})"
    )
    if result["errors"]:
        line += f"\nlast error: {result['last_error']}"
    return line


def register(app: typer.Typer) -> None:
    """Add the web commands to the ``triage`` command."""
    app.command()(serve)
    app.command()(loadtest)
