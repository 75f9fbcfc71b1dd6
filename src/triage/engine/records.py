"""Game records (D1): configuration, deck, seed and actions, enough to replay a game exactly.

A record is plain JSON data::

    {"format": "triage.record/1", "players": 2, "config": {...}, "deck": [card, ...],
     "seed": 7, "actions": [{"by": 0, "do": {"type": "admit", ...}}, ...],
     "hints": [{"by": 0, "at": 3, "do": {"type": "heal", ...}}, ...],
     "chat": [{"by": 1, "at": 3, "kind": "say", "text": "nice heal"}, ...]}

``hints`` is optional: the moves a seat was suggested (``by`` the seat, ``at`` the number of
actions taken when it asked, ``do`` the move). They are never moves: a replay reads them only to
check their shape, so a record with hints replays exactly as one without. ``chat`` is optional
too: what the players said at a web table (``at`` the number of actions every player could see
then, ``kind`` ``"say"`` or ``"react"``); a replay reads it only to check its shape.

A record filtered for a seat (:func:`record_for`) leaves out what that seat cannot know while
the game is running: the seed and the deck (which together give the shuffle), and the hidden
parts of every event.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, cast

from triage.engine.cards import parse_deck
from triage.engine.config import make_config
from triage.engine.errors import DataError, RuleError
from triage.engine.files import read_json
from triage.engine.game import Event, Game
from triage.engine.observer import events_for
from triage.engine.shapes import Hint, Record, SeatRecord, Step

RECORD_FORMAT = "triage.record/1"


def make_record(game: Game, hints: list[Hint] | None = None) -> Record:
    """The record of ``game`` so far, with the ``hints`` asked (when there are any)."""
    if game.setup is None:
        raise ValueError("only a dealt game (Game.new) has a record; this one was set up by hand")
    setup = game.setup
    record: Record = {
        "format": RECORD_FORMAT,
        "players": setup["players"],
        "config": setup["config"],
        "deck": setup["deck"],
        "seed": setup["seed"],
        "actions": [entry.copy() for entry in game.history],
    }
    if hints:
        record["hints"] = [entry.copy() for entry in hints]
    if game.is_over():
        record["result"] = {"scores": game.scores(), "winner": game.winner}
    return record


def _check_by_at(entry: dict[str, Any], players: int, where: str) -> None:
    """``DataError`` unless ``entry``'s ``by`` is a seat and its ``at`` an action number."""
    seat, at = entry["by"], entry["at"]
    if type(seat) is not int or not 0 <= seat < players:
        raise DataError(f"{where}: 'by' must be a seat 0 to {players - 1}, got {seat!r}")
    if type(at) is not int or at < 0:
        raise DataError(f"{where}: 'at' must be an action number (0 or more), got {at!r}")


def check_hints(hints: Any, players: int, source: str = "record") -> None:
    """``DataError`` unless ``hints`` is a list of ``{"by": SEAT, "at": N, "do": ACTION}``."""
    if not isinstance(hints, list):
        raise DataError(f"{source}: 'hints' must be a list")
    for number, entry in enumerate(hints, start=1):
        where = f"{source}: hint {number}"
        if not isinstance(entry, dict) or set(entry) != {"by", "at", "do"}:
            raise DataError(f"{where} must be an object with exactly 'by', 'at' and 'do'")
        _check_by_at(entry, players, where)
        if not isinstance(entry["do"], dict):
            raise DataError(f"{where}: 'do' must be an action object")


#: The kinds of a chat line: a line typed, or a quick reaction (in words).
CHAT_KINDS = ("say", "react")


def check_chat(chat: Any, players: int, source: str = "record") -> None:
    """``DataError`` unless ``chat`` is a list of ``{"by": SEAT, "at": N, "kind", "text"}``."""
    if not isinstance(chat, list):
        raise DataError(f"{source}: 'chat' must be a list")
    for number, entry in enumerate(chat, start=1):
        where = f"{source}: chat line {number}"
        if not isinstance(entry, dict) or set(entry) != {"by", "at", "kind", "text"}:
            raise DataError(f"{where} must be an object with exactly 'by', 'at', 'kind' and 'text'")
        _check_by_at(entry, players, where)
        if entry["kind"] not in CHAT_KINDS or not isinstance(entry["text"], str):
            raise DataError(f"{where}: 'kind' must be one of {', '.join(CHAT_KINDS)} and 'text' text")


def hints_for(hints: list[Hint], viewer: int | None) -> list[Hint]:
    """The hints seat ``viewer`` may see while the game runs: its own (a hint is read from the
    seat's view, so another seat's hint could tell what only that seat knows, I1-I4)."""
    return [entry.copy() for entry in hints if viewer is not None and entry["by"] == viewer]


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
    if "hints" in record:
        check_hints(record["hints"], players, source)
    if "chat" in record:
        check_chat(record["chat"], players, source)
    config = make_config(record["config"], source=f"{source}: config")
    deck = parse_deck({"cards": record["deck"]}, f"{source}: deck")
    return Game.new(players=players, deck=deck, seed=seed, config=config)


def replay_steps(record: Any, source: str = "record") -> Iterator[tuple[Game, list[Event], Step | None]]:
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
        yield game, events, cast(Step, entry)


def replay(record: Any, source: str = "record") -> Game:
    """Replay a whole record; the result equals the game it was made from (D1)."""
    game: Game | None = None
    for game, _, _ in replay_steps(record, source):
        pass
    assert game is not None
    return game


def record_for(record: Record, viewer: int | None) -> Record | SeatRecord:
    """The record as seat ``viewer`` (None: a spectator) may see it. Once the game is over, everything is public;
    before, the seed and deck order are withheld and each event is filtered for the seat."""
    events: list[Event] = []
    game: Game | None = None
    for game, step_events, _ in replay_steps(record):
        events.extend(events_for(step_events, viewer))
    assert game is not None
    if game.is_over():
        return record.copy()
    filtered: SeatRecord = {
        "format": RECORD_FORMAT,
        "players": record["players"],
        "config": record["config"],
        "viewer": viewer,
        "actions": [entry.copy() for entry in record["actions"]],
        "events": events,
    }
    own_hints = hints_for(record.get("hints", []), viewer)
    if own_hints:
        filtered["hints"] = own_hints
    if "chat" in record:  # said to the table: nothing of it is a seat's secret
        filtered["chat"] = [line.copy() for line in record["chat"]]
    return filtered


def save_record(game: Game, path: str | Path) -> None:
    Path(path).write_text(json.dumps(make_record(game), indent=1) + "\n", encoding="utf-8")


def load_record(path: str | Path) -> Record:
    data = read_json(path, "record")
    new_game_from_record(data, str(path))  # raises unless data is a record (a JSON object, ...)
    record: Record = data
    return record
