"""What produced a result: the software's version and each bot's exact form, and the expert's
fitted values checked (or fitted) before a run starts, so that no bot changes algorithm without
a word (issue 41, point 2).

A result file records :func:`software` and :func:`bot_forms`; ``triage report --pool`` refuses
to pool runs whose forms differ. The simulator's shells call :func:`missing_values` before any
game: an expert without a fitted value for a game of several players would search with whole
playouts, another algorithm, so the run is refused with the command that fits the value, or the
value is fitted on the spot (``--fit-values``).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

import triage
from triage.bots import bot_form, make_bot
from triage.bots.base import BotForm
from triage.engine import CardSpec, Config, Game, view
from triage.engine.shapes import ConfigFile, DeckEntry, View

#: The keys of a bot's form that name a place on one machine, not what the bot is: left out when
#: two runs' forms are compared.
LOCAL_KEYS = ("file",)


class Software(TypedDict):
    """Triage's version; the git commit it ran from and whether the checkout had changes (None
    when not known)."""

    triage: str
    commit: str | None
    modified: bool | None


class Produced(TypedDict, total=False):
    """What produced a result file, as its Parquet metadata holds it (under
    :data:`triage.sim.runner.METADATA_KEY`): what a run and a ladder both say. Files of older
    versions may lack keys, so readers ask with ``get``; a pooled report's ``seed`` lists the
    seed of each run pooled."""

    format: str
    games: int
    bots: list[str]
    seed: int | list[int | None]
    duplicate: bool
    #: The ``--set`` overrides as given.
    set: list[str]
    #: The configuration as its file holds it (:meth:`triage.engine.Config.to_dict`).
    config: ConfigFile
    deck: list[DeckEntry] | None
    software: Software


class RunMetadata(Produced, total=False):
    """A simulation's (:func:`triage.sim.runner.job_metadata`): the games asked for and whether
    all were played, the seats' bots and how they were dealt, each bot's exact form."""

    planned_games: int
    complete: bool
    players: int
    rotate: bool
    #: Each bot name's exact form (:func:`triage.bots.bot_form`).
    bot_forms: dict[str, BotForm]


class LadderMetadata(Produced, total=False):
    """A ladder's (``triage ladder``): the player counts, the deals of a line-up and of each bot
    named, the line-ups played, each bot's form per player count."""

    players: list[int]
    deals: int
    deals_for: dict[str, int]
    time_budget: float | None
    lineups: list[str]
    #: Player count (as text) -> each bot name's form, as a run's ``bot_forms``.
    bot_forms_by_players: dict[str, dict[str, BotForm]]


@cache
def software() -> Software:
    """Triage's version and, when it runs from a git checkout, the commit and whether the
    checkout had changes."""
    found: Software = {"triage": triage.__version__, "commit": None, "modified": None}
    source = Path(triage.__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if commit.returncode != 0:
            return found
        status = subprocess.run(
            ["git", "-C", str(source), "status", "--porcelain", "--untracked-files=no", "--", "."],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):  # no git here: the version alone
        return found
    found["commit"] = commit.stdout.strip()
    found["modified"] = bool(status.stdout.strip()) if status.returncode == 0 else None
    return found


def first_view(players: int, config: Config, deck: Sequence[CardSpec] | None) -> View:
    """Seat 0's view of a deal of this game: what a bot's form depends on (player count,
    configuration, deck), the same for every deal."""
    return view(Game.new(players=players, deck=deck, seed=0, config=config), 0)


def bot_forms(
    names: Sequence[str], players: int, config: Config, deck: Sequence[CardSpec] | None
) -> dict[str, BotForm]:
    """Each distinct bot name's exact form in this game (:func:`triage.bots.bot_form`)."""
    seen = first_view(players, config, deck)
    return {name: bot_form(make_bot(name), seen) for name in dict.fromkeys(names)}


def comparable(forms: Any) -> Any:
    """Forms without the keys that name a place on one machine (:data:`LOCAL_KEYS`)."""
    if isinstance(forms, dict):
        return {key: comparable(value) for key, value in forms.items() if key not in LOCAL_KEYS}
    return forms


#: Each player count's bot forms (:func:`bot_forms`), worked out once for the checks below.
FormsByCount = Mapping[int, Mapping[str, BotForm]]


def forms_by_count(
    names: Sequence[str], counts: Sequence[int], config: Config, deck: Sequence[CardSpec] | None
) -> dict[int, dict[str, BotForm]]:
    """Each distinct player count's :func:`bot_forms`."""
    return {count: bot_forms(names, count, config, deck) for count in dict.fromkeys(counts)}


def missing_values(forms: FormsByCount) -> list[int]:
    """The player counts at which a bot would search without its fitted value."""
    return _counts_where(forms, ("value", "none fitted for this game"))


def untrained(forms: FormsByCount) -> list[int]:
    """The player counts at which ``expert-fast`` has no trained policy."""
    return _counts_where(forms, ("policy", "none trained at this player count"))


def borrowed(forms: FormsByCount) -> list[int]:
    """The player counts at which ``expert-fast`` plays a policy trained on another
    configuration: it plays on, but the market it learned is that game's."""
    return _counts_where(forms, ("trained on", "another configuration at this player count"))


def _counts_where(forms: FormsByCount, said: tuple[str, str]) -> list[int]:
    """The player counts at which some bot's form says ``said`` (a key and its text)."""
    key, text = said
    return [count for count, named in forms.items() if any(form.get(key) == text for form in named.values())]


def fit_command(players: int, options: Sequence[str], out: Path) -> str:
    """The ``triage fit-value`` command line for a game, with the run's own game options."""
    return " ".join(["triage fit-value", f"--players {players}", *options, f"--out {out}"])


def value_path(directory: Path, players: int, config: Config, deck: Sequence[CardSpec] | None) -> Path:
    """Where a value fitted on demand goes: named by the player count and the game's fingerprint."""
    import hashlib

    from triage.bots.value import fingerprint

    digest = hashlib.sha256(fingerprint(first_view(players, config, deck)).encode()).hexdigest()[:12]
    return directory / f"fitted-{players}p-{digest}.json"


def fit_values(
    counts: Sequence[int],
    config: Config,
    deck: Sequence[CardSpec] | None,
    directory: Path,
    games: int,
    progress: Callable[[int], None] | None = None,
) -> list[Path]:
    """Fit the value of each player count into ``directory`` and put the directory first in
    ``TRIAGE_VALUES`` (worker processes inherit it), so the run that follows uses them."""
    from triage.bots.value import fit_value

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for count in counts:
        value = fit_value(count, games, config=config, deck=deck, progress=progress)
        path = value_path(directory, count, config, deck)
        path.write_text(value.to_json() + "\n")
        written.append(path)
    use_values_from(directory)
    return written


def use_values_from(directory: Path) -> None:
    """Look for values in ``directory`` first, in this process and the workers it starts."""
    from triage.bots.value import forget_values

    present = [part for part in os.environ.get("TRIAGE_VALUES", "").split(os.pathsep) if part]
    os.environ["TRIAGE_VALUES"] = os.pathsep.join([str(directory.resolve()), *present])
    forget_values()
