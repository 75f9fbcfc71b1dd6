"""One simulated game: its seed, its bots, and the rows its events give."""

from __future__ import annotations

from collections import Counter

import pytest

from triage.engine import CardSpec, Game, load_standard_deck, make_config
from triage.sim import games as sim_games
from triage.engine.config import make_config
from triage.sim.games import FATES, KINDS, GameStats, SimJob, derive_seed, kind_column, play_game

#: The default market's items (T8).
MARKET_ITEMS = tuple(make_config().market)


def job(**changes) -> SimJob:
    values = dict(players=2, bots=("random", "random"), seed=5, config=make_config())
    values.update(changes)
    return SimJob(**values)


def test_a_game_is_a_function_of_the_job_and_its_index():
    assert play_game(job(), 3) == play_game(job(), 3)
    assert play_game(job(), 3) != play_game(job(), 4)
    assert play_game(job(seed=6), 3) != play_game(job(), 3)


def test_game_seeds_differ_by_index_and_master_seed():
    seeds = {derive_seed(master, index) for master in range(5) for index in range(200)}
    assert len(seeds) == 1000
    assert all(0 <= seed < 2**63 for seed in seeds)


def test_the_game_seed_deals_the_same_game_as_game_new():
    players, _ = play_game(job(), 0)
    dealt = Game.new(players=2, seed=players[0]["game_seed"])
    assert dealt.deck == Game.new(players=2, seed=derive_seed(5, 0)).deck


def test_player_rows_match_the_final_position_and_r4_winner():
    players, _ = play_game(job(players=3, bots=("random",) * 3), 1)
    assert [row["seat"] for row in players] == [0, 1, 2]
    for row in players:
        assert row["score"] == row["vp"] + row["quality"]  # R4
        assert row["first_player"] == (row["seat"] == 0)  # R1
    best = max((row["score"], row["treated"], row["credits"]) for row in players)
    winners = [row["seat"] for row in players if row["won"]]
    keys = [(row["score"], row["treated"], row["credits"]) for row in players]
    assert winners == ([keys.index(best)] if keys.count(best) == 1 else [])


def test_counts_agree_with_the_events_of_the_game(monkeypatch):
    """Replaying the same game by hand, every fate counted in the rows is an event of that kind."""
    seen: list[dict] = []
    real_feed = GameStats.feed

    def recording_feed(self, events):
        events = list(events)
        seen.extend(events)
        real_feed(self, events)

    monkeypatch.setattr(GameStats, "feed", recording_feed)
    players, cards = play_game(job(), 2)
    by_fate = Counter(event["type"] for event in seen)
    for fate in FATES:
        assert sum(row[kind_column(fate, kind)] for row in players for kind in KINDS) == by_fate[fate]
        assert sum(card[fate] for card in cards) == by_fate[fate]
    for seat, row in enumerate(players):
        mine = [event for event in seen if event.get("player") == seat]
        bought = Counter(event["item"] for event in mine if event["type"] == "bought")
        assert {item: row[f"bought_{item}"] for item in MARKET_ITEMS} == {
            item: bought[item] for item in MARKET_ITEMS
        }
        assert row["credits_spent"] == sum(event["price"] for event in mine if event["type"] == "bought")
        flights = [event for event in mine if event["type"] == "helicopter"]
        assert row["flights"] == len(flights)
        assert row["flights_remove"] == sum(event["remove"] is not None for event in flights)
        assert row["flights_draw"] == sum(event["draw_all"] for event in flights)
    assert sum(row["flights"] for row in players) > 0 and sum(row["credits_spent"] for row in players) > 0
    best_other = [max(other["score"] for other in players if other is not row) for row in players]
    assert [row["margin"] for row in players] == [
        row["score"] - best for row, best in zip(players, best_other)
    ]


def test_card_rows_use_deck_file_ids_one_row_each():
    _, cards = play_game(job(), 0)
    deck = load_standard_deck()
    assert sorted(card["card"] for card in cards) == sorted(spec.id for spec in deck)
    kinds = {spec.id: spec.kind for spec in deck}
    assert all(card["kind"] == kinds[card["card"]] for card in cards)


def test_rounds_in_hospital_count_the_arrival_and_the_leaving_round():
    game = Game.new(players=1, seed=0)
    card = next(iter(game.cards))
    stats = GameStats(game)
    stats.feed(
        [
            {"type": "round_started", "round": 1},
            {"type": "drawn", "player": 0, "card": card},
            {"type": "admitted", "player": 0, "card": card, "space": 1},
            {"type": "round_started", "round": 2},
            {"type": "round_started", "round": 3},
            {"type": "cured", "player": 0, "card": card},
            {"type": "round_started", "round": 4},
            {"type": "drawn", "player": 0, "card": card},
            {"type": "admitted", "player": 0, "card": card, "space": 2},
            {"type": "round_started", "round": 5},
            {"type": "game_over", "round": 5},
        ]
    )
    counts = stats.per_card[card]
    assert (counts["drawn"], counts["admitted"], counts["cured"]) == (2, 2, 1)
    assert counts["rounds_in_hospital"] == 3 + 2  # rounds 1-3, then 4-5 until the end
    assert stats.per_player[0][kind_column("cured", game.cards[card].kind)] == 1


def test_bots_get_only_their_own_seats_view(monkeypatch):
    """Hidden information: what a bot is handed is exactly view(game, seat) of the deciding seat."""
    calls: list[tuple[int, int]] = []

    class SpyBot:
        name = "spy"

        def choose(self, seat_view, legal, rng):
            calls.append((seat_view["viewer"], seat_view["turn"]))
            assert "origins" not in seat_view
            return rng.choice(legal)

    monkeypatch.setitem(sim_games.make_bot.__globals__["BOTS"], "spy", SpyBot)
    play_game(job(bots=("spy", "spy")), 0)
    assert calls and all(viewer == turn for viewer, turn in calls)


def test_rotate_gives_every_bot_every_seat():
    rotating = job(players=3, bots=("greedy", "random", "random"), rotate=True)
    assert [rotating.seat_bots(index)[0] for index in range(3)] == ["greedy", "random", "random"]
    assert [rotating.seat_bots(index).index("greedy") for index in range(3)] == [0, 2, 1]
    assert job(bots=("greedy", "random")).seat_bots(1) == ["greedy", "random"]


def test_duplicate_plays_each_deal_in_every_seat_rotation():
    """Both seat orders for 2 players, every rotation for 3 or 4; the games of a deal share its cards."""
    two = job(bots=("greedy", "random"), duplicate=True)
    assert [two.seat_bots(index) for index in range(4)] == [
        ["greedy", "random"],
        ["random", "greedy"],
        ["greedy", "random"],
        ["random", "greedy"],
    ]
    assert [two.deal(index) for index in range(4)] == [0, 0, 1, 1]
    three = job(players=3, bots=("greedy", "random", "random"), duplicate=True)
    assert [three.seat_bots(index).index("greedy") for index in range(3)] == [0, 2, 1]
    rows = [play_game(three, index)[0] for index in range(4)]
    assert (
        len({row[0]["game_seed"] for row in rows[:3]}) == 1
        and rows[3][0]["game_seed"] != rows[0][0]["game_seed"]
    )
    assert [row[0]["deal"] for row in rows] == [0, 0, 0, 1]
    with pytest.raises(ValueError, match="multiple of 3"):
        three.check_games(10)
    three.check_games(9)


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(rotate=True, duplicate=True), "exclude each other"),
        (dict(bots=("random",)), "1 bots named for 2 players"),
        (dict(bots=("random", "nobody")), "unknown bot 'nobody'"),
        (dict(players=5, bots=("random",) * 5), "1 to 4 players"),
    ],
)
def test_a_bad_job_is_refused_with_a_clear_message(changes, message):
    with pytest.raises(ValueError, match=message):
        job(**changes)


def test_a_custom_deck_is_dealt():
    deck = tuple(
        CardSpec(f"X{number}", "non_severe", diagnosis=1, healing=1, credits=1, vp=1) for number in range(6)
    )
    _, cards = play_game(job(deck=deck), 0)
    assert sorted(card["card"] for card in cards) == sorted(spec.id for spec in deck)
    assert {card["kind"] for card in cards} == {"non_severe"}
