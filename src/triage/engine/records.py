"""Game records (D1): configuration, deck, seed and actions, enough to replay a game exactly.

A record is plain JSON data::

    {"format": "triage.record/1", "players": 2, "config": {...}, "deck": [card, ...],
     "seed": 7, "actions": [{"by": 0, "do": {"type": "admit", ...}}, ...]}

A record filtered for a seat (:func:`record_for`) leaves out what that seat cannot know while
the game is running: the seed and the deck (which together give the shuffle), and the hidden
parts of every event.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from triage.engine.cards import parse_deck
from triage.engine.config import make_config
from triage.engine.errors import DataError, RuleError
from triage.engine.files import read_json
from triage.engine.game import Event, Game
from triage.engine.observer import events_for

RECORD_FORMAT = "triage.record/1"


def make_record(game: Game) -> dict[str, Any]:
    """The record of ``game`` so far."""
    if game.setup is None:
        raise ValueError("only a dealt game (Game.new) has a record; this one was set up by hand")
    record: dict[str, Any] = {"format": RECORD_FORMAT}
    record.update(game.setup)
    record["actions"] = [dict(entry) for entry in game.history]
    if game.is_over():
        record["result"] = {"scores": game.scores(), "winner": game.winner}
    return record


def new_game_from_record(record: Any, source: str = "record") -> Game:
    """The game a record starts from, before any of its actions."""
    if not isinstance(record, dict):
        raise DataError(f"{source}: a record must be a JSON object")
    if record.get("format") != RECORD_FORMAT:
        raise DataError(f"{source}: 'format' must be {RECORD_FORMAT!r}, got {record.get('format')!r}")
    for field in ("players", "config", "deck", "seed", "actions"):
        if field not in record:
            raise DataError(f"{source}: the record has no {field!r}")
    players, seed = record["players"], record["seed"]
    if not isinstance(players, int) or isinstance(players, bool) or not 1 <= players <= 4:
        raise DataError(f"{source}: 'players' must be 1 to 4, got {players!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise DataError(f"{source}: 'seed' must be a whole number, got {seed!r}")
    if not isinstance(record["actions"], list):
        raise DataError(f"{source}: 'actions' must be a list")
    config = make_config(record["config"], source=f"{source}: config")
    deck = parse_deck({"cards": record["deck"]}, f"{source}: deck")
    return Game.new(players=players, deck=deck, seed=seed, config=config)


def replay_steps(
    record: Any, source: str = "record"
) -> Iterator[tuple[Game, list[Event], dict[str, Any] | None]]:
    """Yield the game after its start and after each action, with that action's events.

    The same :class:`Game` object is yielded each time, changed in place."""
    game = new_game_from_record(record, source)
    yield game, list(game.initial_events), None
    for number, entry in enumerate(record["actions"], start=1):
        if not isinstance(entry, dict) or "by" not in entry or "do" not in entry:
            raise DataError(f"{source}: action {number} must be an object with 'by' and 'do'")
        try:
            events = game.apply(entry["do"], entry["by"])
        except RuleError as error:
            raise DataError(f"{source}: action {number} is refused: {error}") from error
        yield game, events, entry


def replay(record: Any, source: str = "record") -> Game:
    """Replay a whole record; the result equals the game it was made from (D1)."""
    game: Game | None = None
    for game, _, _ in replay_steps(record, source):
        pass
    assert game is not None
    return game


def record_for(record: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """The record as seat ``viewer`` (None: a spectator) may see it. Once the game is over, everything is public;
    before, the seed and deck order are withheld and each event is filtered for the seat."""
    events: list[Event] = []
    game: Game | None = None
    for game, step_events, _ in replay_steps(record):
        events.extend(events_for(step_events, viewer))
    assert game is not None
    if game.is_over():
        return dict(record)
    return {
        "format": RECORD_FORMAT,
        "players": record["players"],
        "config": record["config"],
        "viewer": viewer,
        "actions": [dict(entry) for entry in record["actions"]],
        "events": events,
    }


def save_record(game: Game, path: str | Path) -> None:
    Path(path).write_text(json.dumps(make_record(game), indent=1) + "\n", encoding="utf-8")


def load_record(path: str | Path) -> dict[str, Any]:
    data = read_json(path, "record")
    new_game_from_record(data, str(path))  # raises unless data is a record (a JSON object, ...)
    record: dict[str, Any] = data
    return record
