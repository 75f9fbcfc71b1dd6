"""The observer is the one place that reads what a seat may know (rules.md I1-I4, C3).

Boardgame.io's leaks came from secrets filtered in one place and forgotten in another; here the
structure holds it: a scan of the source fails if any module but the game (which keeps the
knowledge) and the observer (which answers from it) touches the knowledge fields or an event's
secret part.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from triage.engine import Game, RuleError, Seat, event_for, public_event, spectator_view, view
from triage.engine.observer import FRONT, FULL, PRIORITY, secret_audience

SOURCE = Path(__file__).resolve().parents[2] / "src" / "triage"
#: The game's memory of who knows what (I1-I4) and the hidden deck positions (I3).
KNOWLEDGE_FIELDS = frozenset({"know_full", "know_priority", "not_severe", "seen_fronts", "known_positions"})
#: The game's fields and its memory section keep the knowledge; the observer is the only reader.
KEEPERS = {"engine/position.py", "engine/memory.py", "engine/observer.py"}
#: Cleanup writes a check's secret part (C3); the observer decides who sees it.
SECRET_KEEPERS = {"engine/cleanup.py", "engine/observer.py"}


def play_until_checked(players: int) -> tuple[Game, dict[str, Any]]:
    """A game just after its first check of a patient that survives it (C3): every seat admits into its first free space and
    otherwise passes, so standard patients wait in hospital until Cleanup checks them."""
    for seed in range(50):
        game = Game.new(players=players, seed=seed)
        while not game.is_over():
            action = game.legal_actions()[0] if game.in_admission(game.turn or 0) else {"type": "pass"}
            events = game.apply(action)
            died = {event["card"] for event in events if event["type"] == "died"}
            checked = [event for event in events if event["type"] == "checked" and event["card"] not in died]
            if checked:
                return game, checked[0]
    raise AssertionError("no check in 50 games")


def knowledge_reads(path: Path, fields: bool = True, secrets: bool = True) -> list[str]:
    """Each place in ``path`` that touches a knowledge field or an event's ``secret`` key."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if fields and isinstance(node, ast.Attribute) and node.attr in KNOWLEDGE_FIELDS:
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif secrets and isinstance(node, ast.Constant) and node.value == "secret":
            found.append(f"{path.name}:{node.lineno} 'secret'")
    return found


def test_only_the_observer_reads_what_a_seat_knows() -> None:
    offenders = []
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        offenders += knowledge_reads(path, relative not in KEEPERS, relative not in SECRET_KEEPERS)
    assert offenders == [], "read the players' knowledge through triage.engine.observer.Seat"


def test_the_scan_finds_a_knowledge_read(tmp_path: Path) -> None:
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("def peek(game, seat):\n    return game.know_full[seat], event['secret']\n")
    assert knowledge_reads(sneaky) == ["sneaky.py:2 .know_full", "sneaky.py:2 'secret'"]


def test_a_check_shows_its_secret_to_the_other_players_only() -> None:
    """C3: the owner of a checked standard patient does not see its treatment side."""
    game, checked = play_until_checked(players=3)
    owner = checked["player"]
    others = [seat for seat in range(3) if seat != owner]
    assert secret_audience(checked) == others
    assert "kind" not in event_for(checked, owner)
    for seat in others:
        assert event_for(checked, seat)["kind"] == game.cards[checked["card"]].kind
    assert "kind" not in public_event(checked) and "kind" not in event_for(checked, None)
    assert Seat(game, owner).level(checked["card"]) == FRONT
    assert {Seat(game, seat).level(checked["card"]) for seat in others} == {FULL}


def test_solo_a_check_tells_its_owner_the_priority_only() -> None:
    """C3 solo: nobody else is there to see it; the owner learns the priority (I2)."""
    game, checked = play_until_checked(players=1)
    seat = Seat(game, 0)
    assert secret_audience(checked) == [0]
    assert set(event_for(checked, 0)) >= {"kind", "priority"}
    assert "healing" not in event_for(checked, 0)
    assert seat.level(checked["card"]) == PRIORITY
    assert seat.kind_of(checked["card"]) == game.cards[checked["card"]].kind


def test_a_spectator_knows_what_every_player_knows_and_no_more() -> None:
    game, checked = play_until_checked(players=2)
    spectator = Seat(game, None)
    assert checked["card"] not in spectator.full | spectator.priority  # the owner does not know it
    assert spectator.full == Seat(game, 0).full & Seat(game, 1).full
    assert spectator_view(game)["cards"][checked["card"]].get("kind") is None


def test_a_seat_is_told_the_need_only_where_it_knows_the_difficulty() -> None:
    """T2, T3: an unrevealed standard patient's difficulty is hidden from its owner."""
    game = Game.new(players=2, seed=5)
    while not game.is_over():
        seat = game.turn
        assert seat is not None
        knower = Seat(game, seat)
        for slot in game.players[seat].hospital:
            if slot is None:
                continue
            shown = view(game, seat)["players"][seat]["hospital"]
            entry = next(item for item in shown.values() if item and item["card"] == slot.card)
            need = knower.need(slot)
            assert (need is None) == ("healing" not in entry or entry["healing"] is None)
            if need is not None:
                assert need == max(0, entry["healing"] - entry["placed"])
        try:
            game.apply(game.legal_actions()[-1 if game.round % 2 else 0])
        except RuleError as error:  # pragma: no cover - a legal action is never refused
            pytest.fail(str(error))
