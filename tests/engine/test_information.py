"""Hidden information (rules.md section 6) through every channel the engine offers: views,
events, records, error messages and the initial state."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from triage.engine import Game, RuleError, event_for, events_for, public_event, spectator_view, view
from triage.engine.records import make_record, record_for, replay
from triage.scenario import build_game

BACK_FIELDS = ("kind", "priority", "healing", "credits", "vp")


def played(seed: int, players: int = 2, steps: int = 400) -> tuple[Game, list[dict[str, Any]]]:
    game = Game.new(players=players, seed=seed)
    events = list(game.initial_events)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.turn is None:
            break
        events += game.apply(rng.choice(game.legal_actions()))
    return game, events


def cards_in_view(seen: dict[str, Any]) -> list[dict[str, Any]]:
    found = [dict(entry, card=card) for card, entry in seen["cards"].items()]
    if seen["deck_top"]:
        found.append(seen["deck_top"])
    for player in seen["players"]:
        found += [slot for slot in player["hospital"].values() if slot]
    return found


@pytest.mark.parametrize("seed", range(12))
def test_a_view_shows_a_back_only_to_who_knows_it(seed: int) -> None:
    """I1, I2: an unknown back is absent (not null) everywhere in the view."""
    game, _ = played(seed, players=1 + seed % 4, steps=30 + 20 * seed)
    for seat in range(game.num_players):
        seen = view(game, seat)
        for card in cards_in_view(seen):
            spec = game.cards[card["card"]]
            full = card["card"] in game.know_full[seat]
            prio = card["card"] in game.know_priority[seat] or spec.front != "standard"
            for field in ("credits", "vp"):
                assert (field in card) == full, (card, field)
            assert ("priority" in card) == (full or prio), card
            if "kind" in card:
                assert card["kind"] == spec.kind


def test_the_initial_state_reveals_neither_seed_nor_deck_order() -> None:
    game = Game.new(players=2, seed=123)
    for seat in range(2):
        seen = view(game, seat)
        text = json.dumps(seen)
        assert "seed" not in seen and "deck" not in seen and "123" not in text.replace("P123", "")
        assert seen["deck_known"][0] == game.deck[0]
        assert seen["deck_known"][1:] == [None] * (len(game.deck) - 1)
        # Deck-file ids (S1, C3 ...) never reach a player: only neutral handles do (K1).
        for origin in game.origins.values():
            assert f'"{origin}"' not in text


def test_a_check_shows_the_back_to_the_other_players_only() -> None:
    """C3 / I2 through the event channel and the view."""
    game, _ = build_game(
        {
            "players": 3,
            "cards": {
                "A": {"kind": "non_severe", "diagnosis": 2, "healing": 2, "credits": 1, "vp": 1},
                "X": {"kind": "chronic", "diagnosis": 1},
            },
            "deck": ["X"],
            "start": {"phase": "treatment"},
            "state": {"players": [{"hospital": {"1": {"card": "A", "time": 1}}}]},
        }
    )
    events = []
    for seat in range(3):
        events += game.apply({"type": "pass"}, seat)
    checked = next(event for event in events if event["type"] == "checked")
    assert "kind" not in event_for(checked, 0) and "secret" not in event_for(checked, 0)
    assert event_for(checked, 1)["kind"] == "non_severe" == event_for(checked, 2)["kind"]
    assert "kind" not in public_event(checked) and "secret" not in public_event(checked)
    owner = view(game, 0)["players"][0]["hospital"]["1"]
    other = view(game, 1)["players"][0]["hospital"]["1"]
    assert "kind" not in owner and other["kind"] == "non_severe" and other["healing"] == 2
    assert "A" in view(game, 0)["not_severe"]  # it lived with 2 Time (I4)


def test_filtered_events_never_carry_a_secret() -> None:
    for seed in range(6):
        game, events = played(seed, players=2 + seed % 3)
        for seat in range(game.num_players):
            for event in events_for(events, seat):
                assert "secret" not in event
                if event["type"] == "checked" and seat == event["player"] and game.num_players > 1:
                    assert "kind" not in event


def test_a_seat_record_hides_the_seed_the_deck_and_others_secrets_until_the_end() -> None:
    game, _ = played(4, players=2, steps=60)
    assert not game.is_over()
    record = make_record(game)
    for seat in range(2):
        filtered = record_for(record, seat)
        text = json.dumps(filtered)
        assert "seed" not in filtered and "deck" not in filtered and "secret" not in text
        assert filtered["actions"] == record["actions"]
    finished, _ = played(4, players=2)
    assert finished.is_over()
    full = make_record(finished)
    assert record_for(full, 0) == full  # after the end, everything is public


def test_replay_reproduces_the_game_exactly() -> None:
    """D1."""
    game, _ = played(9, players=3)
    again = replay(json.loads(json.dumps(make_record(game))))
    assert again.history == game.history
    assert [view(again, s) for s in range(3)] == [view(game, s) for s in range(3)]


def test_errors_about_unrevealed_patients_tell_nothing_of_their_back() -> None:
    game, _ = build_game(
        {
            "players": 2,
            "cards": {
                "A": {"kind": "severe", "diagnosis": 3, "healing": 4, "credits": 7, "vp": 9},
            },
            "start": {"phase": "treatment"},
            "state": {"players": [{"hospital": {"1": {"card": "A"}}, "diagnostics": 0}]},
        }
    )
    messages = []
    for action in (
        {"type": "heal", "patient": "A", "amount": 1},
        {"type": "treat", "patient": "A"},
        {"type": "diagnose", "patient": "A"},
    ):
        with pytest.raises(RuleError) as caught:
            game.apply(action)
        messages.append(str(caught.value))
    text = " ".join(messages)
    assert "severe" not in text and "4" not in text and "7" not in text and "9" not in text
    assert "costs 3" in messages[2]  # the diagnostic difficulty is public (K1)


def test_a_spectator_sees_a_back_only_where_every_player_knows_it() -> None:
    """I1: a spectator's view holds the public position only (C3 checks stay private)."""
    for seed in range(8):
        game, _ = played(seed, players=2 + seed % 3, steps=40 + 25 * seed)
        watched = spectator_view(game)
        assert watched["viewer"] is None
        public = frozenset.intersection(*game.know_full)
        for card in cards_in_view(watched):
            assert ("credits" in card) == (card["card"] in public)
        seen = [view(game, seat) for seat in range(game.num_players)]
        for key in ("players", "deck_count", "deck_known", "round", "phase", "turn"):
            if key != "players":
                assert all(watched[key] == other[key] for other in seen)
