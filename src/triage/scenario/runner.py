"""Scenario files (scenario-format.md): set up a position, play actions, check what follows.

This module reads scenario data and runs it against the engine; it prints nothing (the CLI does).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from triage.engine.cards import parse_card
from triage.engine.config import TomlTable, check_bounded_rounds, make_config
from triage.engine.errors import DataError, RuleError
from triage.engine.files import read_json
from triage.engine.flow import cleanup, round_first_player, run
from triage.engine.game import Event, Game
from triage.engine.memory import reveal, see_front, touch_top
from triage.engine.state import BASE_SPACES, COUNTERS, Patient
from triage.engine.treatment import check_cures
from triage.engine.views import state_dict, view
from triage.engine.vocabulary import ITEM_COUNT_FIELDS, KIND, STANDARD_FRONT, counted_items

STEP_KINDS = ("do", "expect", "expect_view", "expect_events", "expect_legal")
START_PHASES = ("arrival", "treatment", "cleanup")
PLAYER_FIELDS = frozenset(
    {"quality", *COUNTERS, *(field for field, _ in ITEM_COUNT_FIELDS), "items", "hospital", "terminals"}
    | {"pending", "passed"}
)
#: Section 3 fields that follow from others: accepted in ``state`` when they agree.
DERIVED_FIELDS = frozenset({"spaces", "score"})
ABSENT = "<absent>"


@dataclass
class ScenarioResult:
    name: str
    passed: bool
    message: str = ""
    game: Game | None = None
    events: list[Event] = field(default_factory=list)

    def line(self) -> str:
        return f"PASS {self.name}" if self.passed else f"FAIL {self.name}: {self.message}"


class StepFailure(Exception):
    """A step whose expectation did not hold."""


# ---------------------------------------------------------------------- set-up


def _whole(value: Any, where: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise DataError(f"{where}: expected a whole number >= {minimum}, got {value!r}")
    return value


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise DataError(f"{where}: must be true or false")
    return value


#: Puts a card id in one place of the scenario (deck, discard, a hospital space...) and returns
#: it, checking that it is in 'cards' and in no other place.
Placer = Callable[[object, str], str]


def build_game(data: Any, source: str = "scenario") -> tuple[Game, list[Event]]:
    """The game a scenario starts from, and the events of its start (its draws, say)."""
    if not isinstance(data, dict):
        raise DataError(f"{source}: a scenario must be a JSON object")
    players = data.get("players")
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 4:
        raise DataError(f"{source}: 'players' must be 1 to 4 (R1), got {players!r}")
    config = make_config(data.get("config") or {}, source=f"{source}: config")
    raw_cards = data.get("cards")
    if not isinstance(raw_cards, dict) or not raw_cards:
        raise DataError(f"{source}: 'cards' must be an object of card id -> card")
    cards = {
        cid: parse_card(raw, f"{source}: cards.{cid}", cid, defaults=True) for cid, raw in raw_cards.items()
    }
    seed = _whole(data.get("seed", 0), f"{source}: seed")
    check_bounded_rounds(config, cards.values(), players, f"{source}: config")
    game = Game(config, cards, players, random.Random(seed))
    game.initialise_players()
    for player in game.players:
        player.diagnostics += config.income_diagnostics
        player.healing += config.income_healing
    placed: dict[str, str] = {}

    def place(card: object, where: str) -> str:
        if not isinstance(card, str) or card not in cards:
            raise DataError(f"{source}: {where}: card {card!r} is not in 'cards'")
        if card in placed:
            raise DataError(f"{source}: {where}: card {card} is already in {placed[card]}")
        placed[card] = where
        return card

    deck = data.get("deck", [])
    if not isinstance(deck, list):
        raise DataError(f"{source}: 'deck' must be a list of card ids, top first")
    game.deck = [place(card, f"deck.{index}") for index, card in enumerate(deck)]
    state = data.get("state") or {}
    if not isinstance(state, dict):
        raise DataError(f"{source}: 'state' must be an object")
    unknown = sorted(set(state) - {"players", "discard"})
    if unknown:
        raise DataError(f"{source}: state has no field {unknown[0]!r} (fields: players, discard)")
    game.discard = [place(card, f"discard.{i}") for i, card in enumerate(state.get("discard", []))]
    player_states = state.get("players", [])
    if not isinstance(player_states, list) or len(player_states) > players:
        raise DataError(f"{source}: state.players must be a list of at most {players} objects")
    for seat, values in enumerate(player_states):
        _set_player(game, seat, values, f"{source}: state.players.{seat}", place)
    missing = sorted(set(cards) - set(placed))
    if missing:
        raise DataError(f"{source}: card {missing[0]} is in 'cards' but in no place (deck or state)")
    _set_knowledge(game)
    events: list[Event] = []
    _start(game, data.get("start") or {}, source, events)
    return game, events


def _items(game: Game, values: TomlTable, where: str) -> dict[str, int]:
    """T8, K4: the market items the player owns, from ``items`` and section 3's own names for
    two of them (``outpatient_clinics``, ``clinical_trials``), which must agree."""
    counted = counted_items(game.config.market)
    table = values.get("items", {})
    if not isinstance(table, dict):
        raise DataError(f"{where}.items: must be an object of market item -> how many bought")
    items: dict[str, int] = {}
    for name, count in table.items():
        if name not in counted:
            raise DataError(
                f"{where}.items: no counted market item {name!r} (items: {', '.join(counted)}, T8)"
            )
        items[name] = _whole(count, f"{where}.items.{name}")
    for field, name in ITEM_COUNT_FIELDS:
        if field in values:
            count = _whole(values[field], f"{where}.{field}")
            if items.setdefault(name, count) != count:
                raise DataError(f"{where}.{field}: {count} disagrees with items.{name} ({items[name]})")
    return {name: items.get(name, 0) for name in counted}


def _set_player(game: Game, seat: int, values: Any, where: str, place: Placer) -> None:
    if not isinstance(values, dict):
        raise DataError(f"{where}: must be an object")
    unknown = sorted(set(values) - PLAYER_FIELDS - DERIVED_FIELDS)
    if unknown:
        raise DataError(f"{where}: unknown field {unknown[0]!r}")
    player = game.players[seat]
    for name in ("quality", *COUNTERS):
        if name in values:
            minimum = -1000 if name == "quality" else 0
            setattr(player, name, _whole(values[name], f"{where}.{name}", minimum))
    if "staff_available" not in values:
        player.staff_available = player.staff
    player.items = _items(game, values, where)
    player.hospital = [None] * (
        BASE_SPACES
        + sum(game.config.market[name].gives_of("spaces") * count for name, count in player.items.items())
    )
    hospital = values.get("hospital", {})
    if not isinstance(hospital, dict):
        raise DataError(f"{where}.hospital: must be an object of space number -> patient")
    for space, slot in hospital.items():
        number = int(space) if str(space).isdigit() else 0
        if not 1 <= number <= len(player.hospital):
            raise DataError(f"{where}.hospital: no space {space!r} (spaces 1-{len(player.hospital)}, K4)")
        if slot is None:
            continue
        player.hospital[number - 1] = _patient(game, slot, f"{where}.hospital.{space}", place, terminal=False)
    terminals = values.get("terminals", [])
    if not isinstance(terminals, list):
        raise DataError(f"{where}.terminals: must be a list")
    player.terminals = [
        _patient(game, entry, f"{where}.terminals.{i}", place, terminal=True)
        for i, entry in enumerate(terminals)
    ]
    pending = values.get("pending", [])
    if not isinstance(pending, list):
        raise DataError(f"{where}.pending: must be a list of card ids")
    for index, card in enumerate(pending):
        place(card, f"{where}.pending.{index}")
        if KIND[game.cards[card].kind].beside:
            raise DataError(f"{where}.pending.{index}: a terminal patient is never pending (A3)")
    player.pending = list(pending)
    derived = {"spaces": player.spaces, "score": player.score}
    for name, value in derived.items():
        if name in values and values[name] != value:
            raise DataError(
                f"{where}.{name}: {values[name]!r} disagrees with the other fields, which give {value}"
                + (
                    " (4 + the spaces of the items bought, K4, T8)"
                    if name == "spaces"
                    else " (vp + quality, R4)"
                )
            )
    if "passed" in values:
        if not isinstance(values["passed"], bool):
            raise DataError(f"{where}.passed: must be true or false")
        player.passed = values["passed"]


def _patient(game: Game, entry: Any, where: str, place: Placer, terminal: bool) -> Patient:
    if not isinstance(entry, dict) or "card" not in entry:
        raise DataError(f"{where}: must be an object with a 'card'")
    allowed = (
        {"card", "time", "treated", "ever_treated"} if terminal else {"card", "time", "revealed", "placed"}
    )
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise DataError(f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(sorted(allowed))})")
    card = place(entry["card"], where)
    kind = game.cards[card].kind
    if terminal != KIND[kind].beside:
        rule = "A3"
        raise DataError(
            f"{where}: {card} is a {kind} card; terminal patients go in 'terminals', others in 'hospital' ({rule})"
        )
    time = _whole(entry.get("time", 0), f"{where}.time")
    if terminal:
        treated = _flag(entry.get("treated", False), f"{where}.treated")
        ever_treated = _flag(entry.get("ever_treated", treated), f"{where}.ever_treated")
        if treated and not ever_treated:
            raise DataError(f"{where}: a patient treated this round has been treated in this stay (V3)")
        return Patient(card, time, True, 0, treated, ever_treated)
    shown = KIND[kind].front != STANDARD_FRONT  # A7: a patient whose front tells its kind
    revealed = _flag(entry.get("revealed", shown), f"{where}.revealed")
    if shown and not revealed:
        raise DataError(f"{where}: a {KIND[kind].label} patient is revealed once admitted (A7)")
    placed = _whole(entry.get("placed", 0), f"{where}.placed")
    return Patient(card, time, revealed, placed)


def _set_knowledge(game: Game) -> None:
    """What the players know at the start: every revealed card (I1) and every front in view."""
    for player in game.players:
        for slot in player.hospital:
            if slot is not None:
                see_front(game, slot.card)
                if slot.revealed:
                    reveal(game, slot.card)
        for patient in player.terminals:
            see_front(game, patient.card)
            reveal(game, patient.card)
        for card in player.pending:
            see_front(game, card)
    for card in game.discard:
        see_front(game, card)
    touch_top(game)


def _start(game: Game, start: Any, source: str, events: list[Event]) -> None:
    if not isinstance(start, dict):
        raise DataError(f"{source}: 'start' must be an object")
    unknown = sorted(set(start) - {"round", "phase", "turn"})
    if unknown:
        raise DataError(f"{source}: start has no field {unknown[0]!r} (fields: round, phase, turn)")
    number = _whole(start.get("round", 1), f"{source}: start.round", 1)
    if number > game.config.rounds:
        raise DataError(f"{source}: start.round {number} is past the last round ({game.config.rounds}, R1)")
    phase = start.get("phase", "arrival")
    if phase not in START_PHASES:
        raise DataError(f"{source}: start.phase must be one of {', '.join(START_PHASES)}, got {phase!r}")
    game.round = number
    game.first_player = round_first_player(game, number)  # R1, after the players are set up
    order = game.order()
    turn = start.get("turn", order[0])
    if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn < game.num_players:
        raise DataError(f"{source}: start.turn must be a seat from 0 to {game.num_players - 1}, got {turn!r}")
    position = order.index(turn)
    for seat in range(game.num_players):
        check_cures(game, seat, events)
    if phase == "arrival":
        game.phase = "arrival"
        game.queue = [[seat, game.config.arrivals] for seat in order[position:]]
    elif phase == "treatment":
        game.phase = "treatment"
        for seat in order[:position]:
            game.players[seat].passed = True
        game.active_pos = position
    else:
        cleanup(game, events)
    game.machinery.stamp_all()  # the boards were set by hand, not by the game's own methods
    run(game, events)


# ---------------------------------------------------------------------- steps


def _same(expected: Any, actual: Any) -> bool:
    """JSON equality that tells true from 1."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(_same(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(_same(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def _matches(expected: Any, actual: Any) -> bool:
    """``actual`` agrees with ``expected`` on every field ``expected`` gives."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and _matches(value, actual[key]) for key, value in expected.items()
        )
    return _same(expected, actual)


_MISSING = object()
_INSIDE_EMPTY = object()


def resolve(document: Any, path: str) -> Any:
    """Follow a dot-separated path of keys and list indexes; ``_MISSING`` if it leads nowhere,
    ``_INSIDE_EMPTY`` if it goes on into an empty space (null)."""
    node = document
    for part in str(path).split("."):
        if node is None:
            return _INSIDE_EMPTY
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.lstrip("-").isdigit() and -len(node) <= int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def _check_paths(document: Mapping[str, Any], paths: Any, what: str) -> None:
    if not isinstance(paths, dict):
        raise DataError(f"{what} must be an object of path -> value")
    for path, expected in paths.items():
        actual = resolve(document, path)
        if expected == ABSENT:
            if actual is not _MISSING and actual is not _INSIDE_EMPTY:
                raise StepFailure(f"{what} {path}: expected absent, got {json.dumps(actual)}")
            continue
        if actual is _INSIDE_EMPTY:
            if expected is None:
                continue  # a null value also matches an empty space (scenario-format.md section 2)
            raise StepFailure(f"{what} {path}: expected {json.dumps(expected)}, but that space is empty")
        if actual is _MISSING:
            raise StepFailure(f"{what} {path}: expected {json.dumps(expected)}, but the path does not exist")
        if not _same(expected, actual):
            raise StepFailure(f"{what} {path}: expected {json.dumps(expected)}, got {json.dumps(actual)}")


def _snapshot(game: Game) -> Any:
    return (state_dict(game), [view(game, seat) for seat in range(game.num_players)], list(game.history))


def _do_step(game: Game, step: TomlTable, events: list[Event]) -> None:
    by = step.get("by")
    action = step["do"]
    expected_error = step.get("error")
    if expected_error is None:
        try:
            events.extend(game.apply(action, by))
        except RuleError as error:
            raise StepFailure(f"action {json.dumps(action)} by {by} was refused: {error}") from None
        return
    before = _snapshot(game)
    try:
        game.apply(action, by)
    except RuleError as error:
        if error.code != expected_error:
            raise StepFailure(
                f"expected error {expected_error}, got {error.code} ({error.message})"
            ) from None
        if _snapshot(game) != before:
            raise StepFailure(f"the refused action changed the game (error {error.code})") from None
        return
    raise StepFailure(f"expected error {expected_error}, but the action was accepted")


def _expect_events(expected: Any, events: list[Event]) -> None:
    if not isinstance(expected, list):
        raise DataError("expect_events must be a list of events")
    position = 0
    for wanted in expected:
        while position < len(events) and not _matches(wanted, events[position]):
            position += 1
        if position == len(events):
            seen = ", ".join(event["type"] for event in events) or "none"
            raise StepFailure(f"expected event {json.dumps(wanted)} (in order); events were: {seen}")
        position += 1


def _expect_legal(game: Game, spec: Any) -> None:
    if not isinstance(spec, dict) or "by" not in spec:
        raise DataError("expect_legal needs 'by' and 'includes' and/or 'excludes'")
    legal = game.legal_actions(spec["by"])
    for wanted in spec.get("includes", []):
        if not any(_matches(wanted, action) for action in legal):
            raise StepFailure(
                f"expected legal for {spec['by']}: {json.dumps(wanted)}; not among {len(legal)} legal actions"
            )
    for unwanted in spec.get("excludes", []):
        hit = next((action for action in legal if _matches(unwanted, action)), None)
        if hit is not None:
            raise StepFailure(
                f"expected not legal for {spec['by']}: {json.dumps(unwanted)}, but {json.dumps(hit)} is"
            )


def run_scenario(data: Any, source: str = "scenario") -> ScenarioResult:
    """Run one scenario document. Never raises for a bad scenario: it fails with a message."""
    name = data.get("name", source) if isinstance(data, dict) else source
    try:
        game, events = build_game(data, source)
    except (DataError, RuleError) as error:
        return ScenarioResult(name, False, f"set-up: {error}")
    steps = data.get("steps", [])
    if not isinstance(steps, list):
        return ScenarioResult(name, False, "set-up: 'steps' must be a list")
    all_events = list(events)
    for number, step in enumerate(steps, start=1):
        try:
            if not isinstance(step, dict) or not any(kind in step for kind in STEP_KINDS):
                raise DataError(f"a step must have one of {', '.join(STEP_KINDS)}")
            if "do" in step:
                before = len(events)
                _do_step(game, step, events)
                all_events.extend(events[before:])
            elif "expect" in step:
                _check_paths(state_dict(game), step["expect"], "state")
            elif "expect_view" in step:
                spec = step["expect_view"]
                _check_paths(view(game, spec["player"]), spec["paths"], f"view of player {spec['player']}:")
            elif "expect_events" in step:
                _expect_events(step["expect_events"], events)
                events = []
            else:
                _expect_legal(game, step["expect_legal"])
        except StepFailure as failure:
            return ScenarioResult(name, False, f"step {number}: {failure}", game, all_events)
        except (DataError, KeyError, TypeError, ValueError) as error:
            return ScenarioResult(name, False, f"step {number}: malformed step ({error})", game, all_events)
    return ScenarioResult(name, True, "", game, all_events)


def load_scenario(path: str | Path) -> Any:
    return read_json(path, "scenario")


def run_file(path: str | Path) -> ScenarioResult:
    try:
        data = load_scenario(path)
    except DataError as error:
        return ScenarioResult(str(path), False, f"set-up: {error}")
    return run_scenario(data, str(path))
