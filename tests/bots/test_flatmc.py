"""The independent reference searcher ``flatmc`` (issue 41, point 6): named by its CPU budget,
legal, blind to hidden state, its budget on an injected clock, and free of the expert's code."""

import ast
import random
from pathlib import Path

import pytest

from triage.bots import bot_names, flatmc, make_bot
from triage.bots.flatmc import PLAYOUTS, FlatMonteCarloBot, substantive_actions, triage_policy, trivial
from triage.engine import Game, view
from triage.engine.determinize import determinize
from triage.engine.rollout import rollout
from triage.scenario import build_game

FLATMC_SOURCE = Path(__file__).parents[2] / "src" / "triage" / "bots" / "flatmc.py"


def searched_position(seed: int, skip: int) -> Game:
    """A game at a decision the searcher searches (more than one candidate in substance), after
    at least ``skip`` moves of the ``triage`` playout."""
    game = Game.new(players=2, seed=seed)
    rng = random.Random(seed)
    moves = 0
    while True:
        legal = game.legal_actions()
        if moves >= skip and len(substantive_actions(legal)) > 1 and not trivial(legal):
            return game
        game.apply_id(triage_policy(game, game.legal_action_ids(), rng))
        moves += 1


def hidden_backs(game, seat):
    """What ``seat`` cannot know: the backs of the cards it has not seen."""
    return {card: spec.back() for card, spec in game.cards.items() if card not in game.know_full[seat]}


@pytest.mark.parametrize("seed", [3, 17, 29])
def test_never_reads_hidden_state(seed):
    """I4: two full games that differ only in what the seat cannot know get the same choice,
    and so does the real game (the same test as the expert's)."""
    game = searched_position(seed, 15 + seed % 9)
    seat = game.turn
    seen = view(game, seat)
    first, second = (determinize(seen, random.Random(draw)) for draw in (1, 2))
    assert hidden_backs(first, seat) != hidden_backs(second, seat) or first.deck != second.deck
    bot = FlatMonteCarloBot(worlds=6)
    choices = [
        bot.choose(view(world, seat), world.legal_actions(), random.Random(7))
        for world in (game, first, second)
    ]
    assert choices[0] == choices[1] == choices[2]


def test_shares_no_code_with_the_other_bots():
    """Independent: the module imports the engine and the bots' shared types only, never the
    expert's candidates, search or playout policies."""
    imported = set()
    for node in ast.walk(ast.parse(FLATMC_SOURCE.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    bots = {module for module in imported if module.startswith("triage.bots")}
    assert bots == {"triage.bots.base"}
    others = imported - bots - {"__future__", "collections.abc"}
    assert others and all(module.startswith("triage.engine") for module in others)


def test_named_by_its_cpu_milliseconds_a_decision():
    bot = make_bot("flatmc-42")
    assert isinstance(bot, FlatMonteCarloBot) and bot.time_limit == pytest.approx(0.042)
    assert bot.name == "flatmc-42" and bot.form(view(Game.new(players=2, seed=1), 0))["policy"] == "triage"
    assert make_bot("flatmc-7.5").time_limit == pytest.approx(0.0075)
    assert "flatmc" in bot_names() and make_bot("flatmc").worlds == 16
    for wrong in ("flatmc-0", "flatmc-x", "flatmc--3"):
        with pytest.raises(ValueError, match="unknown bot"):
            make_bot(wrong)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"time_limit": 0}, "time_limit"),
        ({"worlds": 0}, "worlds"),
        ({"worlds": True}, "worlds"),
        ({"worlds": 2, "time_limit": 0.1}, "not both"),
        ({"playout": "greedy"}, "unknown playout"),
        ({"score": "vp"}, "score"),
    ],
)
def test_a_wrong_setting_is_refused_by_name(arguments, message):
    with pytest.raises(ValueError, match=message):
        FlatMonteCarloBot(**arguments)


class Ticks:
    """A clock that moves one unit each time it is read: the budget without real time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.now += 1.0
        self.reads += 1
        return self.now


@pytest.mark.parametrize("allocation", ["halving", "uniform"])
def test_the_cpu_budget_stops_the_search_on_its_clock(allocation, monkeypatch):
    """The budget is read on the bot's clock (the process's CPU time; here one that ticks once
    a read): a budget spent by the first world stops there, the first world always played in
    full; a larger one plays on."""
    game = searched_position(5, 10)
    seat = game.turn
    candidates = substantive_actions(game.legal_actions())
    playouts = []

    def counted(world, policy, rng):
        playouts.append(world)
        return rollout(world, policy, rng)

    monkeypatch.setattr(flatmc, "rollout", counted)
    for budget in (1.0, 400.0):
        bot = FlatMonteCarloBot(time_limit=budget, clock=Ticks(), allocation=allocation)
        assert bot.choose(view(game, seat), game.legal_actions(), random.Random(1)) in candidates
    assert len(playouts) > 2 * len(candidates) and len(candidates) > 2
    short = len(playouts)
    playouts.clear()
    bot = FlatMonteCarloBot(time_limit=1.0, clock=Ticks(), allocation=allocation)
    bot.choose(view(game, seat), game.legal_actions(), random.Random(1))
    assert len(playouts) == len(candidates) < short


def test_the_same_worlds_give_the_same_choice():
    game = searched_position(11, 20)
    seat = game.turn
    bot = FlatMonteCarloBot(worlds=4)
    first = bot.choose(view(game, seat), game.legal_actions(), random.Random(3))
    assert first == bot.choose(view(game, seat), game.legal_actions(), random.Random(3))
    assert first in game.legal_actions()


def test_candidates_pay_staff_first_and_heal_as_far_as_the_means_reach():
    """T2, T6: one payment per step (Staff first, Congress Doctors last) and the largest heal."""
    legal = [
        {"type": "heal", "patient": "P1", "amount": 1, "pay": {"tokens": 1, "staff": 0, "congress": 0}},
        {"type": "heal", "patient": "P1", "amount": 2, "pay": {"tokens": 2, "staff": 0, "congress": 0}},
        {"type": "heal", "patient": "P1", "amount": 2, "pay": {"tokens": 1, "staff": 1, "congress": 0}},
        {"type": "heal", "patient": "P1", "amount": 2, "pay": {"tokens": 0, "staff": 1, "congress": 1}},
        {"type": "admit", "card": "P2", "space": 1},
        {"type": "admit", "card": "P2", "space": 2},
        {"type": "pass"},
    ]
    assert substantive_actions(legal) == [legal[2], legal[4], legal[6]]
    assert trivial([{"type": "admit", "card": "P2", "space": 1}, {"type": "admit", "card": "P2", "space": 2}])
    assert not trivial(
        [{"type": "admit", "card": "P2", "space": 1}, {"type": "admit", "card": "P3", "space": 1}]
    )


@pytest.mark.parametrize("playout", sorted(PLAYOUTS))
def test_each_playout_plays_a_game_to_its_end(playout):
    game = Game.new(players=3, seed=4)
    assert rollout(game, PLAYOUTS[playout], random.Random(0)) > 20 and game.is_over()


def test_cures_a_critical_patient_before_its_cleanup():
    """C2, C4: a critical patient dies at this Cleanup (-2 QoC) unless healed now; the searcher
    heals it rather than passing."""
    cards = {
        "C": {"kind": "critical", "healing": 3, "credits": 2, "vp": 3},
        **{
            f"F{n}": {"kind": "non_severe", "diagnosis": 1, "healing": 1, "credits": 1, "vp": 1}
            for n in range(1, 13)
        },
    }
    data = {
        "players": 2,
        "cards": cards,
        "deck": [f"F{n}" for n in range(1, 13)],
        "start": {"round": 1, "phase": "treatment", "turn": 0},
        "state": {
            "players": [
                {
                    "hospital": {"2": {"card": "C", "revealed": True}},
                    "healing": 3,
                    "staff": 0,
                    "staff_available": 0,
                    "diagnostics": 0,
                    "helicopters": 0,
                },
                {},
            ]
        },
    }
    game, _ = build_game(data)
    action = FlatMonteCarloBot(worlds=4).choose(view(game, 0), game.legal_actions(), random.Random(0))
    assert action["type"] == "heal" and action["patient"] == "C" and action["amount"] == 3
