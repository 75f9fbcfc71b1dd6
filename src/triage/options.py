"""Command-line options shared by every ``triage`` command that sets up a game.

``--config FILE``, ``--deck FILE`` and ``--set key=value`` mean the same thing to ``triage demo``,
``triage play`` and ``triage simulate``, so they are read here, in one place below all the shells'
commands (which import this module; it imports none of them).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import typer

from triage.engine import Config, DataError, load_config, load_deck
from triage.engine.cards import CardSpec, deck_names, named_deck_path
from triage.engine.config import config_names, named_config_path, parse_assignments


def load_settings(
    config: Path | None, deck: Path | None, settings: Iterable[str]
) -> tuple[Config, list[CardSpec] | None]:
    """The configuration (the file, then each ``--set`` on top, later ones winning) and the deck
    (None: the standard deck). Raises :class:`DataError` naming the file or setting at fault.

    ``config`` and ``deck`` may also name a built-in file (``--config mini``); a built-in
    configuration with a deck of the same name brings that deck unless ``deck`` is given.

    >>> config, deck = load_settings(None, None, ["rounds=2"])
    >>> config.rounds, deck
    (2, None)
    >>> config, deck = load_settings(Path("mini"), None, [])
    >>> config.rounds, len(deck or [])
    (1, 4)
    """
    overrides = parse_assignments(settings)
    if (
        deck is None
        and config is not None
        and _builtin(config, config_names())
        and str(config) in deck_names()
    ):
        deck = Path(str(config))
    if config is not None and _builtin(config, config_names()):
        config = named_config_path(str(config))
    if deck is not None and _builtin(deck, deck_names()):
        deck = named_deck_path(str(deck))
    game_config = load_config(config, overrides or None)
    game_deck = load_deck(deck) if deck is not None else None
    return game_config, game_deck


def _builtin(path: Path, names: list[str]) -> bool:
    """Whether ``path`` names a built-in file (a bare name with no such file beside us)."""
    return str(path) in names and not path.exists()


def game_settings(
    config: Path | None, deck: Path | None, settings: Iterable[str]
) -> tuple[Config, list[CardSpec] | None]:
    """:func:`load_settings` for a command: bad input ends the command with exit status 2 and a
    message naming what was wrong."""
    try:
        return load_settings(config, deck, settings)
    except DataError as error:
        typer.echo(f"triage: {error}", err=True)
        raise typer.Exit(2) from None
