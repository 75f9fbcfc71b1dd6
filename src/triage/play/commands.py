"""The ``triage play`` command (registered on the main Typer app by :func:`register`)."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import NoReturn

import typer

from triage.bots import PLAYER_LEVELS, simulator_bots
from triage.engine import DataError
from triage.play.pacing import DEFAULT_DELAY
from triage.play.session import HUMAN, Session, parse_seats


def _fail(message: str) -> NoReturn:
    typer.echo(f"triage play: {message}", err=True)
    raise typer.Exit(2)


#: The seats ``--bots`` accepts, read from the bot registry (triage.bots) so new bots show up.
SEATS_HELP = (
    f"Who sits at each seat, comma-separated: {', '.join([HUMAN, *(level.name for level in PLAYER_LEVELS)])}, "
    "or module:Class"
    "for your own bot (one name: every seat). Default: a human at seat 0, greedy bots elsewhere."
)


def bots_epilog() -> str:
    """The levels a player can choose, with their one-line descriptions, under ``triage play --help``;
    then the bots kept for balance testing (still accepted by name, not offered)."""
    levels = "; ".join(f"{level.name} ({level.label}): {level.description}" for level in PLAYER_LEVELS)
    testing = "; ".join(f"{name}: {line}" for name, line in simulator_bots().items())
    return f"Opponents, strongest first: {levels}. For balance testing (triage simulate): {testing}."


def play(
    players: int = typer.Option(2, min=1, max=4, help="Number of players (1-4)."),
    bots: str | None = typer.Option(None, help=SEATS_HELP),
    seed: int | None = typer.Option(
        None,
        help="Game seed: the same seed deals the same game. Default: a fresh secret seed, so no "
        "earlier game tells which card is which (K1); --games matches default to 0.",
    ),
    config: Path | None = typer.Option(
        None, help="Configuration file (TOML), or a built-in one by name: default, mini."
    ),
    deck: Path | None = typer.Option(
        None, help="Deck file (TOML), or a built-in one by name: standard, mini."
    ),
    set_: list[str] = typer.Option([], "--set", help="Override a configuration value: key=value."),
    save: Path | None = typer.Option(None, help="Game record (JSON), written after every action."),
    resume: Path | None = typer.Option(None, help="Go on with the game saved in this file."),
    plain: bool = typer.Option(False, help="Plain text lines on stdin/stdout instead of the full screen."),
    delay: float | None = typer.Option(
        None,
        min=0.0,
        help="Seconds each bot action stays on screen before the next is shown (0: at once). "
        f"Default {DEFAULT_DELAY} on the full screen, 0 with --plain.",
    ),
    games: int | None = typer.Option(
        None, min=1, help="Play this many bot-only games (seats rotating) and report win rates."
    ),
    json_output: bool = typer.Option(False, "--json", help="With --games: print one JSON object."),
) -> None:
    """Play Triage in the terminal: solo or hot-seat, any seat a bot; or watch bots play."""
    from triage.options import game_settings

    if games is not None:
        _match(players, bots, 0 if seed is None else seed, config, deck, set_, games, json_output)
        return
    try:
        if resume is not None:
            seats = parse_seats(bots, _record_players(resume)) if bots else None
            session = Session.resume(resume, seats=seats, save_path=save)
        else:
            game_config, game_deck = game_settings(config, deck, set_)
            if seed is None:
                seed = secrets.randbelow(2**53)
            session = Session.new(players, parse_seats(bots, players), seed, game_config, game_deck, save)
    except (DataError, ValueError, OSError) as error:
        _fail(str(error))
    if plain:
        from triage.play.plain import run_plain

        raise typer.Exit(run_plain(session, sys.stdin, sys.stdout, delay or 0.0))
    try:
        from triage.play.app import TriageApp
    except ImportError as error:  # pragma: no cover - depends on the installed extras
        _fail(f"the full-screen game needs Textual ({error}): pip install 'triage[play]', or use --plain")
    TriageApp(session, bot_delay=DEFAULT_DELAY if delay is None else delay).run()
    if session.game.is_over():
        typer.echo("\n".join(session.final_lines()))
    else:
        typer.echo(session.save_words())


def _record_players(path: Path) -> int:
    from triage.engine.records import load_record

    return int(load_record(path)["players"])


def _match(
    players: int,
    bots: str | None,
    seed: int,
    config: Path | None,
    deck: Path | None,
    settings: list[str],
    games: int,
    json_output: bool,
) -> None:
    from triage.options import game_settings
    from triage.play.match import play_match

    if not bots:
        _fail("--games needs --bots naming a bot for each seat, e.g. --bots greedy,random")
    try:
        seats = parse_seats(bots, players if "," not in bots else len(bots.split(",")))
    except ValueError as error:
        _fail(str(error))
    if "human" in seats:
        _fail("--games plays bots only: name no human seat")
    game_config, game_deck = game_settings(config, deck, settings)
    result = play_match(seats, games, seed=seed, config=game_config, deck=game_deck)
    if json_output:
        typer.echo(json.dumps(result.to_dict()))
    else:
        typer.echo("\n".join(result.lines()))


def register(app: typer.Typer) -> None:
    """Add ``play`` to the main ``triage`` command."""
    app.command("play", epilog=bots_epilog())(play)
