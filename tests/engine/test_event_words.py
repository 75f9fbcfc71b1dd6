"""The event wording (triage.engine.text.event_words): every event type of scenario-format.md
section 6 in a player's words, for its viewer, from the viewer's copy of the event alone."""

from __future__ import annotations

import random

import pytest

from triage.engine import Game, event_for, load_standard_deck, make_config
from triage.engine.text import EVENT_PHASE, PHASE_HEADINGS, event_phases, event_words
from triage.engine.vocabulary import KIND, KINDS

NAMES = ["Ann", "Gentle bot"]
MARKET = make_config({}).market

#: One event of each type (scenario-format.md section 6, and what the deck does), and its words
#: for seat 0 ("You") and for seat 1.
WORDED = [
    (
        {"type": "round_started", "round": 3, "first_player": 1},
        "Round 3 \u00b7 Gentle bot starts",
        "Round 3 \u00b7 You start",
    ),
    (
        {"type": "income", "player": 0, "diagnostics": 2, "healing": 1},
        "You receive 2 Diagnostics tokens and 1 Healing token",
        "Ann receives 2 Diagnostics tokens and 1 Healing token",
    ),
    (
        {"type": "drawn", "player": 1, "card": "P07", "front": "standard", "diagnosis": 2},
        "Gentle bot draws P07 (standard, diagnosis 2)",
        "You draw P07 (standard, diagnosis 2)",
    ),
    (
        {"type": "drawn", "player": 0, "card": "P02", "front": "critical", "diagnosis": None},
        "You draw P02 (critical)",
        "Ann draws P02 (critical)",
    ),
    (
        {"type": "admitted", "player": 0, "card": "P03", "space": 2},
        "You admit P03 to space 2",
        "Ann admits P03 to space 2",
    ),
    (
        {"type": "admitted", "player": 1, "card": "P40", "space": None},
        "Gentle bot admits P40 beside the board",
        "You admit P40 beside the board",
    ),
    (
        {"type": "rejected", "player": 0, "card": "P05", "quality_lost": 1, "to": "discard"},
        "You reject P05: \u22121 QoC",
        "Ann rejects P05: \u22121 QoC",
    ),
    (
        {"type": "diagnosed", "player": 1, "card": "P07", "space": 1, "kind": "non_severe", "healing": 2},
        f"Gentle bot diagnoses P07 ({KIND['non_severe'].label})",
        f"You diagnose P07 ({KIND['non_severe'].label})",
    ),
    (
        {"type": "healed", "player": 0, "card": "P03", "amount": 2},
        "You place 2 healing on P03",
        "Ann places 2 healing on P03",
    ),
    (
        {"type": "cured", "player": 0, "card": "P03", "credits": 1, "vp": 2, "to": "discard"},
        "P03 is cured: You gain 1 Credit and 2 VP",
        "P03 is cured: Ann gains 1 Credit and 2 VP",
    ),
    (
        {"type": "treated", "player": 1, "card": "P41"},
        "Gentle bot treats terminal P41",
        "You treat terminal P41",
    ),
    (
        {"type": "time_added", "player": 0, "card": "P03", "time": 2},
        "Your P03 has 2 Time now",
        "Ann's P03 has 2 Time now",
    ),
    (
        {"type": "checked", "player": 1, "card": "P08", "seen_by": [0], "kind": "severe"},
        f"Gentle bot's P08 is checked: seen by you ({KIND['severe'].label})",
        "Your P08 is checked: seen by Ann (severe)",
    ),
    (
        {"type": "died", "player": 1, "card": "P08", "quality_lost": 2, "to": "discard"},
        "Gentle bot's P08 dies: \u22122 QoC",
        "Your P08 dies: \u22122 QoC",
    ),
    (
        {"type": "helicopter", "player": 0, "remove": "P03", "draw_all": True},
        "You fly a Helicopter",
        "Ann flies a Helicopter",
    ),
    (
        {"type": "removed", "player": 0, "card": "P03", "space": 1},
        "You remove P03 by Helicopter",
        "Ann removes P03 by Helicopter",
    ),
    (
        {"type": "bought", "player": 1, "item": "outpatient_clinic", "price": 3},
        f"Gentle bot buys an {MARKET['outpatient_clinic'].label} for 3 Credits",
        f"You buy an {MARKET['outpatient_clinic'].label} for 3 Credits",
    ),
    ({"type": "passed", "player": 0}, "You pass", "Ann passes"),
    (
        {"type": "deck_reshuffled", "cards": 12},
        "The discard pile is shuffled into a new deck of 12 cards",
        "The discard pile is shuffled into a new deck of 12 cards",
    ),
    (
        {"type": "deck_empty", "player": 1},
        "The deck is empty: Gentle bot draws nothing",
        "The deck is empty: You draw nothing",
    ),
    (
        {"type": "game_over", "scores": [14, 9], "winner": 0},
        "Game over: scores 14 / 9; You win",
        "Game over: scores 14 / 9; Ann wins",
    ),
]


@pytest.mark.parametrize("event, for_seat_0, for_seat_1", WORDED, ids=[e[0]["type"] for e in WORDED])
def test_each_event_type_in_a_players_words(event, for_seat_0, for_seat_1):
    assert event_words(event, 0, NAMES, MARKET) == for_seat_0
    assert event_words(event, 1, NAMES, MARKET) == for_seat_1


def test_a_spectator_reads_every_player_by_name():
    assert event_words({"type": "passed", "player": 0}, None, NAMES) == "Ann passes"
    checked = {"type": "checked", "player": 0, "card": "P08", "seen_by": [1]}
    assert event_words(checked, None, NAMES) == "Ann's P08 is checked: seen by Gentle bot"


def test_a_designer_item_is_bought_by_its_label():
    market = make_config({"market": {"night_shift": {"price": 1, "gives": {"healing": 2}}}}).market
    bought = {"type": "bought", "player": 0, "item": "night_shift", "price": 1}
    assert event_words(bought, 0, NAMES, market) == "You buy a Night shift for 1 Credit"


def played_events(seed: int, players: int) -> list:
    """The all-seeing events of a whole game of random moves."""
    game = Game.new(players=players, deck=load_standard_deck(), seed=seed)
    rng = random.Random(seed)
    events = list(game.initial_events)
    while game.turn is not None:
        events.extend(game.apply(rng.choice(game.legal_actions())))
    return events


def test_every_type_of_a_played_game_is_worded_and_its_secret_never_read():
    """Whole games: each event has its own words (not the bare type), and a check's kind (C3)
    appears only in the words of a seat its secret was shown to."""
    seen_types = set()
    labels = [f"({kind.label})" for kind in KINDS]
    for seed in range(6):
        for event in played_events(seed, 2 + seed % 2):
            seen_types.add(event["type"])
            for viewer in (None, 0, 1):
                shown = event_for(event, viewer)
                words = event_words(shown, viewer, ["A", "B", "C"], MARKET)
                assert words and words != event["type"].replace("_", " ")
                if event["type"] == "checked" and "kind" not in shown:
                    assert not words.endswith(tuple(labels)), (viewer, words)
            # Worded from the all-seeing copy, the secret stays unread too.
            if event["type"] == "checked":
                assert "(" not in event_words(event, None, ["A", "B", "C"])
    assert {"round_started", "income", "drawn", "admitted", "passed", "died", "game_over"} <= seen_types
    assert seen_types <= set(EVENT_PHASE) | {"drawn", "admitted", "rejected", "deck_empty", "deck_reshuffled"}


def test_the_phase_of_draws_follows_the_events_before_them():
    """A draw belongs to Arrival (A1) or, after a Helicopter's draw, to Treatment (T7)."""
    deal = [{"type": "round_started"}, {"type": "income"}, {"type": "drawn"}, {"type": "admitted"}]
    assert event_phases(deal) == [PHASE_HEADINGS["arrival"]] * 4
    assert event_phases([{"type": "admitted"}], "treatment") == ["Treatment"]
    assert event_phases([{"type": "rejected"}], "arrival") == ["Income and arrival"]
    end = [{"type": "passed"}, {"type": "time_added"}, {"type": "game_over"}]
    assert event_phases(end, "treatment") == ["Treatment", "Cleanup", "End of the game"]


def test_a_played_game_phases_agree_with_the_positions_phase():
    """Each action's events, headed from the phase before the action, end in a heading the
    game's phase after it allows (the last admission of Arrival leads into Treatment)."""
    allowed = {
        "arrival": {"Income and arrival"},
        "treatment": {"Treatment", "Income and arrival"},
        "over": {"End of the game"},
    }
    for seed in range(4):
        game = Game.new(players=2, deck=load_standard_deck(), seed=seed)
        rng = random.Random(seed)
        while game.turn is not None:
            before = game.phase
            events = game.apply(rng.choice(game.legal_actions()))
            assert event_phases(events, before)[-1] in allowed[game.phase], (before, events[-1])
