"""The ``triage`` command: a shell around the engine (Typer)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, List, NoReturn, Optional

import typer

from triage.bots import make_bot, seat_names
from triage.engine import DataError, Game, events_for, state_dict, view
from triage.engine.records import load_record, make_record, replay, replay_steps
from triage.engine.shapes import Action, Event
from triage.engine.text import default_names, describe_action, event_words, render_position
from triage.options import game_settings
from triage.play import commands as play_commands
from triage.scenario import run_file
from triage.sim import commands as sim_commands
from triage.sim.bench import PATHS, PLAYERS, run_bench, run_paths_bench
from triage.web import commands as web_commands

app = typer.Typer(
    help="Triage: admit patients, diagnose them and heal them before Time runs out.",
    no_args_is_help=True,
    add_completion=False,
)
scenario_app = typer.Typer(help="Rules-conformance scenarios (scenario-format.md).", no_args_is_help=True)
app.add_typer(scenario_app, name="scenario")


def fail(message: str) -> NoReturn:
    typer.echo(f"triage: {message}", err=True)
    raise typer.Exit(2)


@app.command()
def demo(
    players: int = typer.Option(2, min=1, max=4, help="Number of players (1-4)."),
    seed: int = typer.Option(0, help="Game seed: the same seed deals the same game."),
    bots: str = typer.Option(
        "random", help="Bot names, one per seat, comma-separated (one name: all seats)."
    ),
    seat: Optional[int] = typer.Option(
        None, help="Show the game as this seat sees it (default: the referee's view)."
    ),
    config: Optional[Path] = typer.Option(
        None, help="Configuration file (TOML), or a built-in one by name: default, mini."
    ),
    deck: Optional[Path] = typer.Option(
        None, help="Deck file (TOML), or a built-in one by name: standard, mini."
    ),
    set_: List[str] = typer.Option([], "--set", help="Override a configuration value: key=value."),
    record: Optional[Path] = typer.Option(None, help="Write the game record (JSON) here at the end."),
    quiet: bool = typer.Option(False, help="Print only the final position."),
) -> None:
    """Play a whole game between bots and show it position by position."""
    game_config, game_deck = game_settings(config, deck, set_)
    if seat is not None and not 0 <= seat < players:
        fail(f"--seat must be a seat from 0 to {players - 1}")
    try:
        seat_bots = [make_bot(name) for name in seat_names(bots, players)]
    except ValueError as error:
        fail(str(error))
    game = Game.new(players=players, deck=game_deck, seed=seed, config=game_config)
    names = default_names(players)
    rng = random.Random(seed)

    def show(events: list[Event], action: Action | None, by: int | None) -> None:
        if quiet:
            return
        if action is not None:
            typer.echo(f"\n>>> player {by}: {describe_action(action)}")
        for event in events_for(events, seat):
            typer.echo(f"  . {event_words(event, seat, names, game.config.market)}")
        doc = state_dict(game) if seat is None else view(game, seat)
        typer.echo(render_position(doc))

    show(game.initial_events, None, None)
    while game.turn is not None:
        by = game.turn
        legal = game.legal_actions()
        action = seat_bots[by].choose(view(game, by), legal, rng)
        events = game.apply(action)
        show(events, action, by)
    if quiet:
        typer.echo(render_position(state_dict(game)))
    if record is not None:
        record.write_text(json.dumps(make_record(game), indent=1) + "\n", encoding="utf-8")
        typer.echo(f"record written to {record}")


@app.command("replay")
def replay_command(
    file: Path = typer.Argument(..., help="A game record (JSON)."),
    seat: Optional[int] = typer.Option(None, help="Show the game as this seat saw it."),
    step: bool = typer.Option(False, help="Wait for Enter after each position."),
    referee: bool = typer.Option(
        False, help="Show everything of a game that is not over yet (never in front of its players)."
    ),
) -> None:
    """Step through a game record, showing each position.

    A finished game is shown whole. A game still running is shown as one seat saw it
    (``--seat``): its hidden cards stay hidden unless ``--referee`` is given."""
    try:
        record = load_record(file)
        players = record["players"]
        if seat is not None and not 0 <= seat < players:
            fail(f"--seat must be a seat from 0 to {players - 1}")
        if seat is None and not referee and not replay(record, str(file)).is_over():
            fail(
                f"{file}: this game is not over, so its record holds cards its players have not seen: "
                "show it as one seat saw it (--seat P), or pass --referee"
            )
        names = default_names(players)
        for number, (game, events, entry) in enumerate(replay_steps(record, str(file))):
            if entry is not None:
                typer.echo(f"\n>>> action {number}: player {entry['by']}: {describe_action(entry['do'])}")
            for event in events_for(events, seat):
                typer.echo(f"  . {event_words(event, seat, names, game.config.market)}")
            typer.echo(render_position(state_dict(game) if seat is None else view(game, seat)))
            if step and sys.stdin.isatty():
                input("-- Enter for the next position --")
    except DataError as error:
        fail(str(error))


@scenario_app.command("run")
def scenario_run(
    files: List[Path] = typer.Argument(..., help="Scenario files, or folders of them."),
    dump_view: Optional[int] = typer.Option(
        None, "--dump-view", help="After the last step, print this player's view as JSON."
    ),
) -> None:
    """Run scenario files: one PASS/FAIL line each; exit status 0 only if all pass."""
    paths: list[Path] = []
    for path in files:
        paths.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    failed = 0
    last_game = None
    for path in paths:
        result = run_file(path)
        typer.echo(result.line())
        failed += not result.passed
        last_game = result.game
    if dump_view is not None:
        if last_game is None:
            fail("--dump-view: the scenario did not set up a game")
        if not 0 <= dump_view < last_game.num_players:
            fail(f"--dump-view: no player {dump_view} in this scenario")
        typer.echo(json.dumps(view(last_game, dump_view), sort_keys=True))
    raise typer.Exit(1 if failed else 0)


@app.command()
def bench(
    players: int = typer.Option(2, min=1, max=4, help="Players per game."),
    seconds: float = typer.Option(5.0, help="How long to play (CPU seconds in all with --table/--search)."),
    games: Optional[int] = typer.Option(None, help="Play exactly this many games instead."),
    seed: int = typer.Option(0, help="Seed of the first game."),
    path: str = typer.Option("dict", help="dict: legal_actions + apply; ids: legal_action_ids + apply_id."),
    search: bool = typer.Option(
        False, "--search", help="Search iterations/s (determinize + copy + rollout) against the dict path."
    ),
    table: bool = typer.Option(
        False, "--table", help="Every fast path in one run, as ratios to the dict path."
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Random legal games on one core: actions per second (legal listing + apply) and games per second."""
    if path not in PLAYERS:
        fail(f"--path must be one of {', '.join(PLAYERS)}, got {path!r}")
    if table or search:
        paths = tuple(PATHS) if table else ("dict", "search")
        measured = run_paths_bench(players=players, seconds=seconds, seed=seed, paths=paths)
        if json_output:
            typer.echo(json.dumps(measured.to_dict()))
        else:
            typer.echo(measured.table())
            typer.echo(f"({players} players, {measured.rounds} interleaved rounds, process CPU time)")
        return
    result = run_bench(players=players, seconds=seconds, games=games, seed=seed, path=path)
    if json_output:
        typer.echo(json.dumps(result.to_dict()))
    else:
        typer.echo(
            f"{result.games} games, {result.actions} actions in {result.seconds:.2f} s: "
            f"{result.actions_per_s:,.0f} actions/s, {result.games_per_s:,.1f} games/s ({players} players, {path} path)"
        )


# Commands of the other shells register here, one line each, after this module's own (the order
# of ``triage --help``). Each shell's commands module imports its heavy libraries inside the
# command, so these imports stay cheap.
play_commands.register(app)  # play (terminal game)
web_commands.register(app)  # serve, loadtest
sim_commands.register(app)  # simulate, report


def main() -> None:
    app()


if __name__ == "__main__":
    main()
