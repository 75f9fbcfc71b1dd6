"""``triage simulate`` and ``triage report``: the simulator's shell (registered by
:func:`register` from ``triage.cli``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

if TYPE_CHECKING:  # the commands import their machinery when they run, keeping --help fast
    import pandas as pd

    from triage.bots.fast import Measured
    from triage.engine import CardSpec, Config
    from triage.sim.games import SimJob
    from triage.sim.ladder import LadderJob
    from triage.sim.provenance import FormsByCount
    from triage.sim.runner import RunLimits, SimResult


#: The game a command plays, as every simulator command takes it.
CONFIG_OPTION = typer.Option(
    None, help="Configuration file (TOML), or a built-in one by name: default, mini."
)
DECK_OPTION = typer.Option(
    None, help="Deck file (TOML), or standard or mini; default the standard deck (mini with --config mini)."
)
SET_OPTION = typer.Option([], "--set", help="Override a configuration value: key=value.")
FIT_VALUES_OPTION = typer.Option(
    False,
    "--fit-values",
    help="Fit the expert's value for this game now (progress bar) when none is fitted, instead of refusing.",
)
VALUES_DIR_OPTION = typer.Option(
    Path("values"), "--values-dir", help="Where --fit-values writes the values it fits (then read first)."
)


class GamesPerSecond(ProgressColumn):
    """The games-per-second rate of the progress bar."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- games/s" if speed is None else f"{speed:,.1f} games/s")


def _fail(message: str) -> NoReturn:
    typer.echo(f"triage: {message}", err=True)
    raise typer.Exit(2)


def simulate(
    games: int = typer.Option(1000, min=1, help="How many games to play."),
    players: int = typer.Option(2, min=1, max=4, help="Players per game (1-4)."),
    bots: str = typer.Option(
        "random",
        help="Bot names, one per seat, comma-separated (one name: all seats); "
        "a designer's bot as module:Class.",
    ),
    seed: int = typer.Option(0, help="Master seed: each game's seed derives from it and the game's index."),
    config: Path | None = CONFIG_OPTION,
    deck: Path | None = DECK_OPTION,
    set_: list[str] = SET_OPTION,
    workers: int | None = typer.Option(None, min=1, help="Local worker processes (default: all cores)."),
    ray: str | None = typer.Option(
        None, "--ray", help="Run on Ray: 'auto' (RAY_ADDRESS or a new local instance), 'local', or HOST:PORT."
    ),
    rotate: bool = typer.Option(False, help="Shift the bots one seat each game, so each plays every seat."),
    duplicate: bool = typer.Option(
        False,
        help="Play each deal once per seat rotation of the bots "
        "(--games counts games: a multiple of --players).",
    ),
    out: Path = typer.Option(
        Path("results.parquet"), help="Player rows (Parquet); card rows go to NAME.cards.parquet."
    ),
    quiet: bool = typer.Option(False, help="No progress bar."),
    time_budget: float | None = typer.Option(
        None,
        "--time-budget",
        min=0.0,
        help="Stop starting games after this many seconds; the games played are written.",
    ),
    checkpoint: float = typer.Option(
        5.0, min=0.0, help="Seconds between the partial result files written as the run goes."
    ),
    fit_values: bool = FIT_VALUES_OPTION,
    values_dir: Path = VALUES_DIR_OPTION,
) -> None:
    """Play many games between bots and write one row per player per game and one per card per game."""
    from triage.bots import make_bot, seat_names
    from triage.options import game_settings
    from triage.sim.games import SimJob
    from triage.sim.runner import RunLimits, default_workers, job_metadata, write_results

    game_config, game_deck = game_settings(config, deck, set_)
    if not out.name.endswith(".parquet"):
        _fail(f"--out {out}: the result file name must end in .parquet")
    try:
        names = tuple(seat_names(bots, players))
        for name in set(names):
            make_bot(name)
    except (ValueError, ImportError, AttributeError, TypeError) as error:
        _fail(f"--bots: {error}")
    options = game_options(config, deck, set_)
    check_values(names, (players,), (game_config, game_deck), options, fit_values, values_dir)
    try:
        cards = tuple(game_deck) if game_deck else None
        job = SimJob(players, names, seed, game_config, cards, rotate, duplicate)
        job.check_games(games)
    except ValueError as error:
        _fail(str(error))

    def write_partial(partial: SimResult) -> None:
        write_results(partial, out, job_metadata(job, games, set_, partial.games))

    limits = RunLimits(time_budget, write_partial, checkpoint)
    start = time.perf_counter()
    result = _play_with_progress(job, games, ray, workers, quiet, limits)
    seconds = time.perf_counter() - start
    played = result.games
    files = write_results(result, out, job_metadata(job, games, set_, played))
    where = f"Ray ({ray})" if ray is not None else f"{workers or default_workers()} local worker(s)"
    stopped = "" if result.complete else f" (time budget reached: {played} of {games} games)"
    typer.echo(
        f"{played} games in {seconds:.1f} s ({played / seconds:,.1f} games/s) on {where}{stopped}; "
        f"wrote {files[0]} and its side files"
    )
    _print_summary(result)


def game_options(config: Path | None, deck: Path | None, settings: list[str]) -> list[str]:
    """The options naming a run's game, as the user gave them, for a command line to copy."""
    import shlex

    options = [f"--config {shlex.quote(str(config))}"] if config is not None else []
    options += [f"--deck {shlex.quote(str(deck))}"] if deck is not None else []
    return options + [f"--set {shlex.quote(text)}" for text in settings]


def check_values(
    names: tuple[str, ...],
    counts: tuple[int, ...],
    game: tuple[Config, list[CardSpec] | None],
    options: list[str],
    fit: bool,
    directory: Path,
) -> None:
    """Before any game: every expert of the run has its fitted value at every player count, or
    the run is refused with the command that fits it, or (``fit``) the value is fitted now."""
    from triage.bots.value import FIT_GAMES
    from triage.sim.provenance import (
        borrowed,
        fit_command,
        fit_values,
        forms_by_count,
        missing_values,
        untrained,
        value_path,
    )

    game_config, game_deck = game
    forms = forms_by_count(names, counts, game_config, game_deck)

    def train_command(count: int) -> str:
        return " ".join(
            [
                "triage train-fast",
                f"--players {count}",
                *options,
                f"--out {directory}/fast-mine-{count}p.json",
            ]
        )

    for count in untrained(forms):
        _fail(
            f"expert-fast has no trained policy at {count} players: train one with `{train_command(count)}` "
            f"(about an hour of the expert's games on one core) and run with TRIAGE_VALUES={directory}"
        )
    for count in borrowed(forms):
        typer.echo(
            f"triage: note: expert-fast has no policy trained on this game at {count} players; it plays the one "
            f"trained on another configuration, whose market it learned. For a question about this game's "
            f"market ask the expert, or train one with `{train_command(count)}` and run with "
            f"TRIAGE_VALUES={directory}",
            err=True,
        )
    missing = missing_values(forms)
    if not missing:
        return
    if not fit:
        commands = "\n".join(
            "  " + fit_command(count, options, value_path(directory, count, game_config, game_deck))
            for count in missing
        )
        _fail(
            f"the expert's fitted value for this game is missing at {', '.join(map(str, missing))} players, and "
            f"without it {_without_value(forms, missing)}. Fit it (about 2 to 9 "
            f"minutes a player count on one core):\n{commands}\nthen run again with TRIAGE_VALUES={directory}; "
            "or add --fit-values to fit it now; or name expert-whole to search with whole playouts"
        )
    typer.echo(
        f"fitting the expert's value at {', '.join(map(str, missing))} players: {FIT_GAMES:,} games of its "
        f"playout policy each (about 2 to 9 minutes a player count on one core), into {directory}",
        err=True,
    )
    with _bar("fitting", FIT_GAMES * len(missing), quiet=False) as advance:
        written = fit_values(missing, game_config, game_deck, directory, FIT_GAMES, advance)
    typer.echo(f"wrote {', '.join(map(str, written))}; TRIAGE_VALUES={directory} uses them again", err=True)


def _without_value(forms: FormsByCount, counts: list[int]) -> str:
    """What the run's bots that need the game's fitted value (their forms say none is fitted)
    would do without it: another algorithm each, the reason a run is refused rather than played."""
    needing = {
        name
        for count in counts
        for name, form in forms[count].items()
        if form.get("value") == "none fitted for this game"
    }
    searching = sorted(needing - {"expert-fast"})
    said = (
        [f"{', '.join(searching)} would search with whole playouts (another algorithm)"] if searching else []
    )
    if "expert-fast" in needing:
        said.append("expert-fast would play its network's first choice without playouts")
    return " and ".join(said)


@contextmanager
def _bar(what: str, total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on standard error (games done, rate, time left); yields its advance."""
    progress = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        GamesPerSecond(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=quiet,
    )
    with progress:
        task = progress.add_task("games", total=total)
        yield lambda count: progress.advance(task, count)


def _print_summary(result: SimResult) -> None:
    """The run's summary, with its round table and decision times."""
    from triage.sim.report import summary_text

    times = None if result.times is None else result.times.to_pandas()
    rounds = None if result.rounds is None else result.rounds.to_pandas()
    typer.echo(summary_text(result.players.to_pandas(), times=times, rounds=rounds))


def _play_with_progress(
    job: SimJob, games: int, ray: str | None, workers: int | None, quiet: bool, limits: RunLimits
) -> SimResult:
    """Play the job locally or on Ray, with a progress bar on standard error."""
    from triage.sim.runner import default_workers, run_local, run_ray

    with _bar("simulating", games, quiet) as advance:
        if ray is None:
            return run_local(job, games, workers or default_workers(), advance, limits)
        try:
            return run_ray(job, games, ray, workers, advance, limits)
        except ImportError:
            _fail("--ray: Ray is not installed (pip install 'triage[sim]')")
        except (ConnectionError, RuntimeError, ValueError) as error:
            _fail(f"--ray {ray}: cannot use this Ray cluster ({error})")


def report(
    files: list[Path] = typer.Argument(
        ..., help="Result files of triage simulate (several: compared side by side)."
    ),
    output: Path = typer.Option(Path("report.html"), "-o", "--output", help="The HTML report to write."),
    compare: bool = typer.Option(
        False, "--compare", help="Compare the files side by side (needs two or more)."
    ),
    label: list[str] = typer.Option(
        [], "--label", help="A name for each file, in order (default: file names)."
    ),
    title: str = typer.Option("Triage simulation report", help="The report's title."),
    pool: bool = typer.Option(
        False,
        "--pool",
        help="Pool the files into one sample (runs of one experiment with different seeds).",
    ),
) -> None:
    """A self-contained HTML balance report (plots embedded) from simulation results."""
    from triage.sim.report import (
        ReportError,
        build_report,
        checks_text,
        load_results,
        paired_text,
        pool_results,
        summary_text,
    )

    if compare and len(files) < 2:
        _fail("--compare needs two or more result files")
    if compare and pool:
        _fail("--compare and --pool exclude each other: compare runs side by side, or pool them into one")
    if pool and len(files) < 2:
        _fail("--pool needs two or more result files")
    if pool and len(label) > 1:
        _fail(f"--label given {len(label)} times for one pooled run: give one or none")
    if label and not pool and len(label) != len(files):
        _fail(f"--label given {len(label)} times for {len(files)} files: give one per file or none")
    try:
        if pool:
            runs = [pool_results([load_results(path) for path in files], label[0] if label else None)]
        else:
            runs = [load_results(path, label[number] if label else None) for number, path in enumerate(files)]
        page = build_report(runs, title)
    except ReportError as error:
        _fail(str(error))
    output.write_text(page, encoding="utf-8")
    for run in runs:
        games = run.players["game"].nunique()
        details = summary_text(run.players, run.times, run.rounds) if pool else checks_text(run)
        typer.echo(f"{run.label}: {games} games, {len(run.players)} player rows\n{details}")
    for run in runs[1:]:
        typer.echo(paired_text(runs[0], run))
    typer.echo(f"report written to {output}")


def ladder(
    bots: str = typer.Option(..., help="The bots to rate, comma-separated (at least two different)."),
    players: str = typer.Option("2", help="Player counts, comma-separated, e.g. 2,3,4."),
    deals: int = typer.Option(50, min=1, help="Deals each line-up plays (each from every seat rotation)."),
    seed: int = typer.Option(0, help="Master seed: every line-up plays the same deals."),
    config: Path | None = CONFIG_OPTION,
    deck: Path | None = DECK_OPTION,
    set_: list[str] = SET_OPTION,
    workers: int | None = typer.Option(None, min=1, help="Local worker processes (default: all cores)."),
    out: Path = typer.Option(Path("ladder.parquet"), help="The ladder's player rows (Parquet)."),
    html_out: Path = typer.Option(Path("ladder.html"), "--html", help="The HTML report to write."),
    quiet: bool = typer.Option(False, help="No progress bar."),
    deals_for: list[str] = typer.Option(
        [],
        "--deals-for",
        help="BOT=N: the line-ups with BOT play N deals (the fewest of their bots'); repeatable.",
    ),
    time_budget: float | None = typer.Option(
        None,
        "--time-budget",
        min=0.0,
        help="Wall seconds for the whole ladder, shared out line-up by line-up.",
    ),
    fit_values: bool = FIT_VALUES_OPTION,
    values_dir: Path = VALUES_DIR_OPTION,
) -> None:
    """Rate bots against each other on duplicate deals: a rating per bot with its interval, the
    head-to-head table and each bot's decision time, at every player count asked."""
    from triage.options import game_settings
    from triage.sim.ladder import LadderJob, ladder_text, run_ladder
    from triage.sim.runner import default_workers

    game_config, game_deck = game_settings(config, deck, set_)
    if not out.name.endswith(".parquet"):
        _fail(f"--out {out}: the result file name must end in .parquet")
    try:
        counts = tuple(int(count) for count in players.split(","))
        names = tuple(name.strip() for name in bots.split(","))
        per_bot = tuple(_bot_deals(text) for text in deals_for)
        job = LadderJob(
            names,
            counts,
            deals,
            seed,
            game_config,
            tuple(game_deck) if game_deck else None,
            per_bot,
            time_budget,
        )
        games = job.games()
    except ValueError as error:
        _fail(f"--bots/--players/--deals-for: {error}")
    options = game_options(config, deck, set_)
    check_values(names, counts, (game_config, game_deck), options, fit_values, values_dir)
    with _bar("ladder", games, quiet) as advance:
        rows, times = run_ladder(job, workers or default_workers(), advance)
    _write_ladder(job, rows, times, out, html_out, set_)
    typer.echo(ladder_text(rows, times))
    typer.echo(f"{rows['game'].nunique()} games; wrote {out} and {html_out}")


def _bot_deals(text: str) -> tuple[str, int]:
    """``expert=40`` as (bot, deals)."""
    bot, equals, count = text.partition("=")
    if not equals or not count.strip().isdigit():
        raise ValueError(f"--deals-for {text!r}: expected BOT=N, e.g. expert=40")
    return bot.strip(), int(count)


def _write_ladder(
    job: LadderJob, rows: pd.DataFrame, times: pd.DataFrame, out: Path, html_out: Path, settings: list[str]
) -> None:
    """The rows to Parquet (the job in its metadata), the decision times beside them, and the
    HTML report with the ladder's tables."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from triage.sim.ladder import format_lineups, ladder_schema
    from triage.sim.provenance import LadderMetadata, bot_forms, software
    from triage.sim.report import Results, build_report
    from triage.sim.runner import METADATA_KEY, side_path

    metadata: LadderMetadata = {
        "format": "triage.ladder/1",
        "games": int(rows["game"].nunique()),
        "players": list(job.players),
        "bots": list(job.bots),
        "deals": job.deals,
        "seed": job.seed,
        "duplicate": True,
        "set": list(settings),
        "lineups": list(format_lineups(job)),
        "config": job.config.to_dict(),
        "deck": None if job.deck is None else [card.to_dict() for card in job.deck],
        "deals_for": dict(job.bot_deals),
        "time_budget": job.time_budget,
        "bot_forms_by_players": {
            str(count): bot_forms(job.bots, count, job.config, job.deck) for count in job.players
        },
        "software": software(),
    }
    table = pa.Table.from_pandas(rows, schema=ladder_schema(job.config.market), preserve_index=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {METADATA_KEY: json.dumps(metadata).encode()}
    pq.write_table(table.replace_schema_metadata(meta), out)
    if not times.empty:
        pq.write_table(
            pa.Table.from_pandas(times, preserve_index=False).replace_schema_metadata(meta),
            side_path(out, "times"),
        )
    page = build_report(
        [Results("ladder", out, rows, None, metadata, None, times if not times.empty else None)],
        "Triage ladder",
    )
    html_out.write_text(page, encoding="utf-8")


def fit_value(
    players: int = typer.Option(2, min=1, max=4, help="Players per game (1-4)."),
    games: int = typer.Option(20_000, min=10, help="Games of the farming policy to fit on."),
    seed: int = typer.Option(1_000_000, help="Seed of the first game (the next ones count up from it)."),
    config: Path | None = CONFIG_OPTION,
    deck: Path | None = DECK_OPTION,
    set_: list[str] = SET_OPTION,
    out: Path = typer.Option(..., help="The value file to write (JSON)."),
    time_budget: float | None = typer.Option(
        None, "--time-budget", min=1.0, help="Start no new game after this many seconds; fit on those played."
    ),
    quiet: bool = typer.Option(False, help="No progress bar."),
) -> None:
    """Fit the expert's value for one game (players, configuration, deck): its playouts then stop
    two rounds ahead and score the position with it. Put the file's directory in TRIAGE_VALUES."""
    from triage.bots.value import fit_value as fit
    from triage.options import game_settings

    if not out.name.endswith(".json"):
        _fail(f"--out {out}: the value file name must end in .json")
    if not out.parent.is_dir():
        _fail(f"--out {out}: the folder {out.parent} does not exist")
    game_config, game_deck = game_settings(config, deck, set_)
    try:
        with _bar("fitting", games, quiet) as advance:
            value = fit(players, games, seed, game_config, game_deck, advance, time_budget)
    except ValueError as error:  # a configuration or deck that cannot be dealt at this count
        _fail(str(error))
    out.write_text(value.to_json() + "\n")
    shares = ", ".join(f"round {number} {share:.0%}" for number, share in sorted(value.explained.items()))
    stopped = f" (time budget: {value.games} of {games})" if value.games < games else ""
    typer.echo(
        f"wrote {out}: {value.games} games{stopped}; the final margin explained on held-out games: {shares}"
    )


def train_fast(
    players: int = typer.Option(2, min=2, max=4, help="Players per game (2-4)."),
    games: int = typer.Option(400, min=5, help="Games of the expert in every seat to learn from."),
    seed: int = typer.Option(2_000_000, help="Seed of the first game (the next ones count up from it)."),
    config: Path | None = CONFIG_OPTION,
    deck: Path | None = DECK_OPTION,
    set_: list[str] = SET_OPTION,
    workers: int = typer.Option(1, min=1, help="Processes playing the expert's games."),
    time_budget: float | None = typer.Option(
        None,
        "--time-budget",
        min=1.0,
        help="Start no new game after this many seconds; learn from those played.",
    ),
    data: Path | None = typer.Option(
        None,
        help="Keep the expert's decisions in this .npz file; if it exists, learn from it without playing.",
    ),
    out: Path = typer.Option(..., help="The policy file to write (JSON; its name must start with fast-)."),
    quiet: bool = typer.Option(False, help="No progress bar."),
    playouts: int | None = typer.Option(
        None,
        min=1,
        help="The expert's playouts a decision while it teaches (default: the expert level's own).",
    ),
) -> None:
    """Train expert-fast for one game: play the expert in every seat, keep its searches, fit a
    small network to its candidates' search means. Put the file's directory in TRIAGE_VALUES."""
    from triage.bots.fast import Decisions, Training, fit_policy, make_policy, record_decisions
    from triage.bots.value import fingerprint
    from triage.options import game_settings
    from triage.sim.provenance import first_view

    if not (out.name.startswith("fast-") and out.name.endswith(".json")):
        _fail(
            f"--out {out}: a fast policy file is named fast-NAME.json (so that it is found beside the values)"
        )
    if not out.parent.is_dir():
        _fail(f"--out {out}: the folder {out.parent} does not exist")
    game_config, game_deck = game_settings(config, deck, set_)
    check_values(
        ("expert",), (players,), (game_config, game_deck), game_options(config, deck, set_), False, out.parent
    )
    if data is not None and data.is_file():
        decisions = Decisions.load(data)
        typer.echo(
            f"read {len(decisions.chosen)} decisions of {len(set(decisions.game.tolist()))} games from {data}"
        )
    else:
        with _bar("expert games", games, quiet) as advance:
            decisions = record_decisions(
                players, games, seed, game_config, game_deck, workers, advance, time_budget, playouts
            )
        if data is not None:
            decisions.save(data)
    weights, measured = fit_policy(decisions)
    played = len(set(decisions.game.tolist()))
    trained: Training = {
        "players": players,
        "games": played,
        "decisions": len(decisions.chosen),
        "seed": seed,
        "agreement": measured["agreement"],
        "club_agreement": measured["club_agreement"],
        "held_out_decisions": measured["held_out_decisions"],
    }
    policy = make_policy(weights, fingerprint(first_view(players, game_config, game_deck)), trained)
    out.write_text(policy.to_json() + "\n")
    typer.echo(
        f"wrote {out}: {played} games, {trained['decisions']} decisions; on the fifth held out it picks the "
        f"expert's move in {measured['agreement']:.1%} of decisions (the club level's move: "
        f"{measured['club_agreement']:.1%})"
    )
    if (caution := untaught(measured)) is not None:
        typer.echo(caution)


def untaught(measured: Measured) -> str | None:
    """What to say of a fast policy that picks the expert's move on held-out games no more often
    than the club level's priorities do (it has learned nothing of the search), else None."""
    if measured["agreement"] > measured["club_agreement"]:
        return None
    return (
        "it agrees with the expert no more than the club level's priorities do: it has learned nothing "
        "of the expert's search yet; train on more games (--data keeps them) and measure it against "
        "the expert before reading its figures as the expert's (docs/bots.md, expert-fast)"
    )


def sweep(
    over: list[str] = typer.Option(
        ..., "--over", help="A key and its values, e.g. market.staff.price=3,4,5,6 (once or twice: a grid)."
    ),
    games: int = typer.Option(400, min=1, help="Games at each value (the same deals at every value)."),
    players: int = typer.Option(2, min=1, max=4, help="Players per game (1-4)."),
    bots: str = typer.Option(
        "greedy", help="Bot names, one per seat, comma-separated (one name: all seats)."
    ),
    seed: int = typer.Option(0, help="Master seed: every value plays the same deals."),
    config: Path | None = CONFIG_OPTION,
    deck: Path | None = DECK_OPTION,
    set_: list[str] = SET_OPTION,
    duplicate: bool = typer.Option(False, help="Play each deal once per seat rotation of the bots."),
    workers: int | None = typer.Option(None, min=1, help="Local worker processes (default: all cores)."),
    out_dir: Path = typer.Option(
        Path("sweep"), "--out-dir", help="Where the runs, sweep.csv and sweep.html go."
    ),
    time_budget: float | None = typer.Option(
        None, "--time-budget", min=0.0, help="Seconds each value may take (its games played are kept)."
    ),
    fit_values: bool = FIT_VALUES_OPTION,
    values_dir: Path = VALUES_DIR_OPTION,
    quiet: bool = typer.Option(False, help="No progress bar."),
) -> None:
    """Simulate one or two configuration keys over their values on the same deals: a table and a
    plot of each outcome (seat win rates and scores, purchases per player, deaths, cures, rounds)
    against the value, with 95% intervals."""
    from triage.bots import make_bot, seat_names
    from triage.options import game_settings
    from triage.sim.games import SimJob
    from triage.sim.runner import RunLimits, default_workers, job_metadata, write_results
    from triage.sim.sweep import Axis, grid, point_label, sweep_table

    try:
        axes = [Axis.parse(text) for text in over]
        names = tuple(seat_names(bots, players))
        for name in set(names):
            make_bot(name)
    except ValueError as error:
        _fail(str(error))
    if len(axes) > 2:
        _fail(f"--over given {len(axes)} times: a sweep takes one or two keys")
    points = grid(axes)
    settings = [(point, game_settings(config, deck, [*set_, *point])) for point in points]
    for point, game in settings:
        check_values(
            names, (players,), game, game_options(config, deck, [*set_, *point]), fit_values, values_dir
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    played = []
    for point, (game_config, game_deck) in settings:
        try:
            job = SimJob(
                players, names, seed, game_config, tuple(game_deck) if game_deck else None, False, duplicate
            )
            job.check_games(games)
        except ValueError as error:
            _fail(str(error))
        typer.echo(f"{', '.join(point)}: {games} games", err=True)
        result = _play_with_progress(
            job, games, None, workers or default_workers(), quiet, RunLimits(time_budget)
        )
        out = out_dir / f"{point_label(point)}.parquet"
        write_results(result, out, job_metadata(job, games, [*set_, *point], result.games))
        played.append((point, result.players.to_pandas()))
    table = sweep_table(played)
    keys = [axis.key for axis in axes]
    table.to_csv(out_dir / "sweep.csv", index=False)
    (out_dir / "sweep.html").write_text(_sweep_page(table, keys, axes), encoding="utf-8")
    typer.echo(_sweep_text(table, keys))
    typer.echo(_sweep_pairs(played))
    typer.echo(f"wrote {len(points)} runs, sweep.csv and sweep.html to {out_dir}")


def _sweep_pairs(played: list[tuple[tuple[str, ...], pd.DataFrame]]) -> str:
    """Each value against the first, paired deal by deal (the same deals): seats, purchases,
    deaths, cures and game length, B - A with 95% intervals."""
    from triage.sim.balance import paired_differences

    (first_point, first), lines = played[0], []
    for point, players in played[1:]:
        table = paired_differences(first, players)
        table = table[
            ~table["figure"].str.contains(": win rate$|: margin$", regex=True)
            | table["figure"].str.startswith("seat")
        ]
        lines.append(f"{', '.join(point)} - {', '.join(first_point)}, paired over the same deals (95%):")
        lines += [
            f"  {row['figure']}: {row['B - A']:+.3f} +-{row['ci95']:.3f} ({row['deals paired']} deals)"
            for row in table.to_dict("records")
        ]
    return "\n".join(lines)


def _sweep_text(table: pd.DataFrame, keys: list[str]) -> str:
    """The sweep as a grid: one row per outcome, one column per value, ``0.317 +-0.020``."""
    cells = table.assign(
        cell=[f"{value:.3f} +-{half:.3f}" for value, half in zip(table["value"], table["ci95"])],
        point=[", ".join(f"{key}={row[key]}" for key in keys) for _, row in table.iterrows()],
    )
    grid_table = cells.pivot(index="outcome", columns="point", values="cell")
    order = list(dict.fromkeys(table["outcome"]))
    return grid_table.reindex(order).to_string()


def _sweep_page(table: pd.DataFrame, keys: list[str], axes: list[Any]) -> str:
    """sweep.html: the table, then one plot per outcome against the first key."""
    import html

    from triage.sim.report import STYLE, _png, _table_html
    from triage.sim.sweep import sweep_plots

    title = "Triage sweep: " + "; ".join(f"{axis.key} over {', '.join(axis.values)}" for axis in axes)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{STYLE}</style></head><body>',
        f"<h1>{html.escape(title)}</h1>",
        "<p>Every value played the same deals; intervals are 95%, clustered by deal.</p>",
        '<div class="row">',
    ]
    for name, figure in sweep_plots(table, keys):
        parts.append(
            f'<figure data-figure="{html.escape(name)}"><img alt="{html.escape(name)} against {html.escape(keys[0])}" '
            f'src="data:image/png;base64,{_png(figure)}"></figure>'
        )
    parts += ["</div>", "<h2>Outcomes by value</h2>", _table_html(table, "sweep"), "</body></html>"]
    return "\n".join(parts) + "\n"


def plan(
    file: Path = typer.Argument(..., help="A pilot run of triage simulate."),
    within: float = typer.Option(0.02, min=0.0001, help="The 95% half-width wanted on each outcome."),
    outcome: str | None = typer.Option(None, help="Only the outcomes whose name contains this text."),
) -> None:
    """How many deals each outcome needs for a given 95% half-width, read from a pilot run (its
    interval now and its deals), with the CPU time at the pilot's pace."""
    from triage.sim.report import ReportError, load_results
    from triage.sim.sweep import plan_table

    try:
        run = load_results(file)
    except ReportError as error:
        _fail(str(error))
    deals = run.players["deal"].nunique()
    seconds = float(run.times["seconds"].sum()) / deals if run.times is not None and deals else None
    table = plan_table(run.players, within, seconds)
    if outcome is not None:
        table = table[table["outcome"].str.contains(outcome, regex=False)]
        if table.empty:
            _fail(f"--outcome {outcome!r}: no outcome of {file} contains it")
    typer.echo(f"{file}: {deals} deals; deals needed for +-{within:g} (95%):")
    for row in table.to_dict("records"):
        cost = f", about {row['CPU hours']:.2f} CPU hours" if row["CPU hours"] == row["CPU hours"] else ""
        needed = "-" if row["deals needed"] != row["deals needed"] else f"{row['deals needed']:,.0f}"
        typer.echo(f"  {row['outcome']}: {row['value']:.3f} +-{row['ci95']:.3f} now; {needed} deals{cost}")


def register(app: typer.Typer) -> None:
    """Add ``simulate``, ``report``, ``ladder`` and ``fit-value`` to the ``triage`` command."""
    app.command("simulate")(simulate)
    app.command("report")(report)
    app.command("ladder")(ladder)
    app.command("fit-value")(fit_value)
    app.command("train-fast")(train_fast)
    app.command("sweep")(sweep)
    app.command("plan")(plan)
