"""The greedy bot: legal, deterministic, view-driven, and it triages as its docstring says."""

import random

import pytest

from triage.bots import BOTS, make_bot
from triage.bots.greedy import GreedyBot, greedy_action
from triage.bots.habits import HABIT_BOTS, FarmBot, FarmFirstBot
from triage.engine import Game, make_config, view
from triage.engine.determinize import determinize
from triage.play.match import play_match
from triage.scenario import build_game

FILLER = {
    f"F{n}": {"kind": "non_severe", "diagnosis": 1, "healing": 1, "credits": 1, "vp": 1} for n in range(1, 9)
}


def position(cards, hospital, deck=None, start=None, player=None, rounds=6, players=2, config=None):
    """A game in player 0's Treatment (or the given start) with these patients in its hospital."""
    cards = {**FILLER, **cards}
    me = {"hospital": hospital, **(player or {})}
    placed = {slot["card"] for slot in hospital.values()} | {
        entry["card"] for entry in me.get("terminals", [])
    }
    deck = deck if deck is not None else [card for card in cards if card not in placed]
    data = {
        "players": players,
        "config": {"rounds": rounds, **(config or {})},
        "cards": cards,
        "deck": deck,
        "start": start or {"round": 1, "phase": "treatment", "turn": 0},
        "state": {"players": [me] + [{}] * (players - 1)},
    }
    game, _ = build_game(data)
    return game


def decide(game, seat=0):
    return GreedyBot().choose(view(game, seat), game.legal_actions(seat), random.Random(0))


def test_registered_as_greedy():
    assert BOTS["greedy"] is GreedyBot and make_bot("greedy").name == "greedy"


def test_always_legal_and_deterministic_over_whole_games():
    bot = GreedyBot()
    for seed in range(8):
        game = Game.new(players=1 + seed % 4, seed=seed)
        while game.turn is not None:
            seen, legal = view(game, game.turn), game.legal_actions()
            rng = random.Random(seed)
            state = rng.getstate()
            action = bot.choose(seen, legal, rng)
            assert action in legal
            assert bot.choose(seen, legal, random.Random(99)) == action
            assert rng.getstate() == state
            game.apply(action)


def test_driven_by_the_view_only():
    """Worlds that differ only in what the seat cannot know give the same choice (I4)."""
    game = Game.new(players=2, seed=21)
    for _ in range(12):
        game.apply(decide_legal(game))
    seat = game.turn
    expected = decide(game, seat)
    for draw in range(5):
        world = determinize(view(game, seat), random.Random(draw))
        assert decide(world, seat) == expected


def test_every_world_a_view_allows_gives_the_same_decision():
    """The priorities ask only what the seat knows (I4): over many positions of varied games,
    the decision on the real game equals the decision on each of several worlds drawn from the
    seat's view, for greedy, the expert's playout priorities and each habit bot's."""
    turn_classes = [
        GreedyBot.turn_class,
        FarmFirstBot.turn_class,
        *(bot.turn_class for bot in HABIT_BOTS.values()),
    ]
    positions = 0
    for seed in range(40):
        # Several arrivals (A1) make admissions choose among pending patients, critical ones too.
        # Few means, so that whether a critical patient can be cured depends on its healing.
        start = {"healing": 2 + seed % 3, "staff": 0, "congress": 0, "helicopters": 1, "credits": 0}
        config = make_config({"arrivals": 1 + seed % 3, "start": start})
        game = Game.new(players=1 + seed % 4, seed=seed, config=config)
        rng = random.Random(seed)
        while game.turn is not None:
            seat = game.turn
            if game.in_admission(seat) or rng.random() < 0.3:
                positions += 1
                seen = view(game, seat)
                expected = [greedy_action(game, turn) for turn in turn_classes]
                for draw in range(4):
                    world = determinize(seen, random.Random(draw))
                    assert [greedy_action(world, turn) for turn in turn_classes] == expected
            game.apply(rng.choice(game.legal_actions()) if rng.random() < 0.3 else greedy_action(game))
    assert positions > 300


def decide_legal(game):
    return GreedyBot().choose(view(game, game.turn), game.legal_actions(), random.Random(0))


def test_heals_a_critical_patient_in_full_first():
    """C2: a critical patient dies at Cleanup; it comes before a cheap diagnosis."""
    game = position(
        {
            "C": {"kind": "critical", "healing": 3, "credits": 2, "vp": 3},
            "S": {"kind": "severe", "diagnosis": 1, "healing": 2, "credits": 2, "vp": 2},
        },
        {"1": {"card": "S"}, "2": {"card": "C"}},
    )
    action = decide(game)
    assert action["type"] == "heal" and action["patient"] == "C" and action["amount"] == 3


def test_spends_staff_and_congress_to_save_a_critical_patient():
    game = position(
        {"C": {"kind": "critical", "healing": 3, "credits": 2, "vp": 3}},
        {"1": {"card": "C"}},
        player={"healing": 1, "staff": 1, "staff_available": 1, "congress": 1},
    )
    assert decide(game) == {
        "type": "heal",
        "patient": "C",
        "amount": 3,
        "pay": {"tokens": 1, "staff": 1, "congress": 1},
    }


def test_flies_out_a_critical_patient_it_cannot_cure():
    """T7: removal costs no QoC, a death costs 2 (C4)."""
    game = position(
        {"C": {"kind": "critical", "healing": 3, "credits": 2, "vp": 3}},
        {"1": {"card": "C"}},
        player={"healing": 1, "staff": 0, "staff_available": 0, "credits": 1},
    )
    assert decide(game) == {"type": "helicopter", "remove": "C", "draw_all": False}


def test_buys_the_healing_that_saves_a_patient():
    game = position(
        {"C": {"kind": "critical", "healing": 3, "credits": 2, "vp": 3}},
        {"1": {"card": "C"}},
        player={"healing": 2, "staff": 0, "staff_available": 0, "credits": 2, "helicopters": 0},
    )
    assert decide(game) == {"type": "buy", "item": "healing"}


def test_diagnoses_a_fresh_patient_so_a_chronic_one_is_cured_at_once():
    """T4: a chronic patient with no Time is cured the moment it is diagnosed."""
    game = position(
        {"H": {"kind": "chronic", "diagnosis": 1, "credits": 2, "vp": 3}},
        {"3": {"card": "H"}},
    )
    action = decide(game)
    assert action["type"] == "diagnose" and action["patient"] == "H"
    events = game.apply(action)
    assert any(event["type"] == "cured" and event["card"] == "H" for event in events)


def test_saves_a_severe_patient_at_its_deadline_before_healing_a_fresh_one():
    game = position(
        {
            "S1": {"kind": "severe", "diagnosis": 1, "healing": 2, "credits": 2, "vp": 2},
            "S2": {"kind": "severe", "diagnosis": 1, "healing": 2, "credits": 3, "vp": 4},
        },
        {"1": {"card": "S2", "revealed": True}, "2": {"card": "S1", "revealed": True, "time": 1}},
        player={"healing": 2, "staff": 0, "staff_available": 0},
    )
    action = decide(game)
    assert action["type"] == "heal" and action["patient"] == "S1" and action["amount"] == 2


def test_treats_a_terminal_patient_that_pays_vp():
    game = position(
        {"T": {"kind": "terminal", "credits": 1, "vp": 1}},
        {},
        player={"terminals": [{"card": "T"}], "diagnostics": 0, "staff": 0, "staff_available": 0},
    )
    assert decide(game)["type"] == "treat"


def test_admits_a_curable_critical_before_a_standard_patient_when_space_is_short():
    cards = {
        "C": {"kind": "critical", "healing": 2, "credits": 2, "vp": 3},
        "X": {"kind": "severe", "diagnosis": 1, "healing": 2, "credits": 2, "vp": 2},
    }
    full = {str(space): {"card": f"F{space}"} for space in range(1, 4)}
    game = position(
        cards,
        full,
        deck=["X", "C"] + [f"F{n}" for n in range(4, 9)],
        start={"round": 1, "phase": "arrival", "turn": 0},
    )
    assert decide(game) == {"type": "admit", "card": "C", "space": 4}
    poor = position(
        cards,
        full,
        deck=["X", "C"] + [f"F{n}" for n in range(4, 9)],
        start={"round": 1, "phase": "arrival", "turn": 0},
        player={"healing": 0, "staff": 0, "staff_available": 0},
    )
    assert decide(poor) == {"type": "admit", "card": "X", "space": 4}


def test_uses_a_spare_helicopter_in_the_last_round_on_a_dying_patient():
    game = position(
        {"S": {"kind": "severe", "diagnosis": 1, "healing": 3, "credits": 2, "vp": 2}},
        {"1": {"card": "S", "revealed": True, "time": 1}},
        player={"healing": 0, "staff": 0, "staff_available": 0, "diagnostics": 0},
        rounds=1,
    )
    assert decide(game)["type"] == "helicopter" and decide(game)["remove"] == "S"


@pytest.mark.parametrize("helicopter_draws, flies", [("wait", True), ("reopen", False)])
def test_flies_for_draws_after_the_others_passed_only_when_they_cannot_answer(helicopter_draws, flies):
    """T7: once the others have passed, a draw for everyone is one-sided: they cannot act on
    theirs. Under V2 ``reopen`` each of them gets a turn for it, so greedy keeps its Helicopter."""
    game = position(
        {},
        {},
        player={"healing": 3, "diagnostics": 2, "staff": 0, "staff_available": 0, "helicopters": 1},
        start={"round": 2, "phase": "treatment", "turn": 0},  # R1: seat 1 went first and passed
        config={"helicopter_draws": helicopter_draws},
    )
    action = decide(game)
    assert (action == {"type": "helicopter", "remove": None, "draw_all": True}) is flies, action


def test_beats_random_by_far():
    result = play_match(["greedy", "random"], games=40, seed=1000)
    assert result.win_rate("greedy") >= 0.8


@pytest.mark.benchmark(group="bots")
def test_benchmark_greedy_decision(benchmark):
    """Speed target (well under a millisecond per decision): see `pytest --benchmark-enable`."""
    game = Game.new(players=2, seed=2)
    for _ in range(10):
        game.apply(decide_legal(game))
    seen, legal = view(game, game.turn), game.legal_actions()
    action = benchmark(GreedyBot().choose, seen, legal, random.Random(0))
    assert action in legal


def test_farming_first_flies_for_a_known_chronic_patient_before_diagnosing():
    """The expert's playout priorities (FarmFirstBot) farm a known chronic patient on top of the
    deck (T7, T4, V1) before any diagnosis, where the greedy-farm habit diagnoses first: over
    whole games, wherever the two decide differently, the first flies (or buys the Helicopter to
    fly) and the second diagnoses."""
    differ = 0
    for seed in range(30):
        game = Game.new(players=2, seed=seed)
        while game.turn is not None:
            first = greedy_action(game, FarmFirstBot.turn_class)
            farm = greedy_action(game, FarmBot.turn_class)
            if first != farm:
                differ += 1
                flight = first["type"] == "helicopter" and first["remove"] is None
                assert flight or first == {"type": "buy", "item": "helicopter"}, first
                assert farm["type"] == "diagnose", farm
            game.apply(first)
    assert differ >= 5


@pytest.mark.parametrize(
    "night_shift, bought",
    [
        ({"price": 3, "gives": {"healing": 2}}, "night_shift"),  # 1.5 a unit beats the token's 2
        ({"price": 4, "gives": {"healing": 2}}, "healing"),  # 2 a unit: the first in market order
        ({"price": 5, "gives": {"healing": 2}}, "healing"),  # 2.5 a unit
    ],
)
def test_buys_healing_where_it_is_cheapest_per_unit_the_first_in_market_order_among_equals(
    night_shift, bought
):
    """T8: the greedy buys a supply from the item that sells it cheapest per unit that the seat
    may buy now, a designer's item too, the first in market order among equals (exact prices per
    unit: 4 Credits for 2 ties the token's 2 for 1)."""
    game = position(
        {"C": {"kind": "critical", "healing": 3, "credits": 2, "vp": 3}},
        {"1": {"card": "C"}},
        player={"healing": 2, "staff": 0, "staff_available": 0, "credits": 5, "helicopters": 0},
        config={"market": {"night_shift": night_shift}},
    )
    assert decide(game) == {"type": "buy", "item": bought}
