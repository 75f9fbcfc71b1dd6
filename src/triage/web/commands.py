"""The web shell's commands: ``triage serve`` and ``triage loadtest``."""

from __future__ import annotations

import json

import typer

from triage.web import DEFAULT_ACT_RATE, DEFAULT_CREATE_RATE, DEFAULT_DB_URL


def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="Port to listen on."),
    db: str = typer.Option(DEFAULT_DB_URL, help="SQLAlchemy database URL (e.g. postgresql+psycopg://user@host/triage)."),
    log_level: str = typer.Option("info", help="Uvicorn log level (warning keeps it quiet)."),
    rate_create: str = typer.Option(
        DEFAULT_CREATE_RATE, help="Tables one client address may create, e.g. 20/minute ('5/second;100/hour': several)."
    ),
    rate_act: str = typer.Option(DEFAULT_ACT_RATE, help="Actions one client address may take, e.g. 30/second."),
) -> None:
    """Start the web app: play in the browser, solo against bots or with friends."""
    import uvicorn
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from triage.web.app import create_app
    from triage.web.limits import MAX_WS_MESSAGE, RateLimits
    from triage.web.storage import Store

    try:
        rates = RateLimits(create=rate_create, act=rate_act)
    except ValueError as error:
        typer.echo(f"triage serve: {error}", err=True)
        raise typer.Exit(2)

    try:
        Store(db).close()  # fail now, with a clear message, rather than inside the server
    except ArgumentError as error:
        typer.echo(f"triage serve: --db {db!r} is not a database URL ({error})", err=True)
        raise typer.Exit(2)
    except ImportError as error:
        typer.echo(
            f"triage serve: no driver for {db!r} ({error}); for PostgreSQL: pip install 'psycopg[binary]'", err=True
        )
        raise typer.Exit(2)
    except SQLAlchemyError as error:
        typer.echo(f"triage serve: cannot open the database {db!r}: {error}", err=True)
        raise typer.Exit(2)

    typer.echo(f"Triage at http://{host}:{port}/ (tables stored in {db})")
    uvicorn.run(
        create_app(db, rates),
        host=host,
        port=port,
        log_level=log_level,
        ws="websockets-sansio",
        ws_max_size=MAX_WS_MESSAGE,
    )


def loadtest(
    tables: int = typer.Option(200, help="Concurrent tables, each played by random bots over HTTP."),
    players: int = typer.Option(2, min=1, max=4, help="Seats per table."),
    think: float = typer.Option(1.0, help="Mean seconds each client waits before each action (0: as fast as possible)."),
    ramp: float = typer.Option(2.0, help="The tables arrive evenly over this many seconds at the start."),
    seconds: float = typer.Option(30.0, help="How long to run."),
    db: str | None = typer.Option(None, help="Database URL for the server (default: a fresh SQLite file)."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Load benchmark: start a server on loopback, play many tables at once, report action
    latency (median, p99) and the server's memory."""
    from triage.web.loadtest import run_loadtest

    result = run_loadtest(tables=tables, players=players, think=think, seconds=seconds, db=db, ramp=ramp)
    if json_output:
        typer.echo(json.dumps(result))
    else:
        typer.echo(
            f"{result['tables']} tables, {result['actions']} actions in {result['seconds']:.1f} s "
            f"({result['actions_per_s']:.0f} actions/s, think {think} s): action latency median "
            f"{result['median_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms; "
            f"server memory {result['server_rss_mb']:.0f} MB (peak {result['server_peak_mb']:.0f} MB); "
            f"legal listing median {result['legal_median_ms']:.1f} ms, p99 {result['legal_p99_ms']:.1f} ms; "
            f"errors {result['errors']}"
        )
        if result["errors"]:
            typer.echo(f"last error: {result['last_error']}")


def register(app: typer.Typer) -> None:
    """Add the web commands to the ``triage`` command."""
    app.command()(serve)
    app.command()(loadtest)
