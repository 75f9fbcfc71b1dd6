"""The play session: seats, saving after every action, resuming to the identical game, the
end-of-game summary, and seat logs that never show another seat's secrets (I4)."""

import json

import pytest

from triage.engine import DataError, make_config, state_dict
from triage.engine.records import load_record, replay
from triage.engine.vocabulary import KIND
from triage.play.session import Session, parse_seats


def test_seats_option():
    assert parse_seats(None, 3) == ["human", "greedy", "greedy"]
    assert parse_seats("Human, random", 2) == ["human", "random"]
    with pytest.raises(ValueError, match="names 3 seats but the game has 2 players"):
        parse_seats("human,random,greedy", 2)
    with pytest.raises(
        ValueError, match="unknown seat .clever.*human, expert-novice, expert-club, expert, greedy, random"
    ):
        parse_seats("clever", 2)
    assert parse_seats("EXPERT,expert-novice", 2) == ["expert", "expert-novice"]
    # A designer's bot, spelt as its module and class are.
    assert parse_seats("human,triage.bots.greedy:GreedyBot", 2) == ["human", "triage.bots.greedy:GreedyBot"]
    with pytest.raises(ValueError, match="seat 1: bot 'nowhere:Bot': cannot import module 'nowhere'"):
        parse_seats("human,nowhere:Bot", 2)


def test_the_save_file_is_written_after_every_action_and_replays_to_the_game(tmp_path):
    path = tmp_path / "game.json"
    session = Session.new(players=2, seats=["greedy", "random"], seed=11, save_path=path)
    assert load_record(path)["actions"] == []
    for step, _ in enumerate(session.bot_steps(), start=1):
        record = json.loads(path.read_text())
        assert len(record["actions"]) == step
        if step == 5:
            break
    session.run_bots()
    record = load_record(path)
    assert record["seats"] == ["greedy", "random"]
    assert state_dict(replay(record)) == state_dict(session.game)
    assert not (tmp_path / "game.json.tmp").exists()


def uninterrupted(seed, seats, config=None):
    session = Session.new(players=len(seats), seats=seats, seed=seed, config=config)
    session.run_bots()
    return session


@pytest.mark.parametrize("stop_after", [0, 1, 17, 40])
def test_resume_gives_the_identical_game(tmp_path, stop_after):
    seats = ["greedy", "random", "greedy"]
    whole = uninterrupted(4, seats)
    path = tmp_path / "save.json"
    first = Session.new(players=3, seats=seats, seed=4, save_path=path)
    steps = first.bot_steps()
    for _ in range(stop_after):
        next(steps)
    resumed = Session.resume(path)
    assert resumed.seats == seats
    assert len(resumed.game.history) == stop_after
    assert resumed.events == first.events
    resumed.run_bots()
    assert resumed.game.history == whole.game.history
    assert state_dict(resumed.game) == state_dict(whole.game)
    assert load_record(path)["actions"] == whole.record()["actions"]


def test_resume_may_change_who_sits_where_and_where_to_save(tmp_path):
    path = tmp_path / "save.json"
    Session.new(players=2, seats=["human", "greedy"], seed=2, save_path=path)
    other = tmp_path / "other.json"
    resumed = Session.resume(path, seats=["random", "random"], save_path=other)
    resumed.run_bots()
    assert resumed.game.is_over()
    assert load_record(other)["seats"] == ["random", "random"]
    assert load_record(path)["actions"] == []


def test_resume_refuses_a_bad_file_with_a_clear_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "triage.record/1", "players": 2}')
    with pytest.raises(DataError, match="bad.json: the record has no 'config'"):
        Session.resume(path)
    session = Session.new(players=2, seats=["greedy", "greedy"], seed=1, save_path=path)
    record = session.record()
    record["seats"] = ["human", "wizard"]
    path.write_text(json.dumps(record))
    with pytest.raises(DataError, match="'seats': unknown seat 'wizard'"):
        Session.resume(path)


def test_summary_counts_what_happened_to_each_patient():
    session = uninterrupted(9, ["random", "greedy"])
    rows = session.summary()
    game = session.game
    for seat, row in enumerate(rows):
        assert row["score"] == game.players[seat].score
        assert sum(row["cured"].values()) == game.players[seat].treated  # T4: one track step per cure
        deaths = [e for e in session.events if e["type"] == "died" and e["player"] == seat]
        assert sum(row["dead"].values()) == len(deaths)
        lost = sum(
            e["quality_lost"] for e in session.events if e.get("player") == seat and "quality_lost" in e
        )
        assert game.config.start["quality"] - lost == game.players[seat].quality
    text = "\n".join(session.final_lines())
    assert f"score {rows[0]['score']}" in text and "cured:" in text and "rejected:" in text
    winner = game.winner
    assert (f"winner: Player {winner}" in text) if winner is not None else ("no winner" in text)


def test_no_summary_before_the_end():
    session = Session.new(players=2, seats=["human", "greedy"], seed=1)
    with pytest.raises(ValueError, match="only once the game is over"):
        session.summary()


def test_a_seat_log_never_shows_a_check_to_the_owner():
    """C3: a check shows the back to the other players only; the owner's log must not say it."""
    for seed in range(40):
        session = uninterrupted(seed, ["random", "random"], config=make_config({"rounds": 3}))
        checks = [e for e in session.events if e["type"] == "checked" and e.get("secret")]
        if not checks:
            continue
        owner = checks[0]["player"]
        other = 1 - owner
        owner_lines = [
            line for line in session.log_for(owner) if f"Your {checks[0]['card']} is checked" in line
        ]
        owner_name = session.seat_name(owner)
        other_lines = [
            line
            for line in session.log_for(other)
            if f"{owner_name}'s {checks[0]['card']} is checked" in line
        ]
        kind = KIND[checks[0]["secret"]["kind"]].label
        assert owner_lines and all(
            line.endswith(f"seen by {session.seat_name(other)}") for line in owner_lines
        )
        assert other_lines and all(line.endswith(f"seen by you ({kind})") for line in other_lines)
        return
    pytest.fail("no seed gave a check")


def test_bots_choose_from_their_own_view_only(monkeypatch):
    """A bot is handed view(game, its seat) and nothing else."""
    import triage.play.session as module

    seen = []
    real_view = module.view

    def spy(game, seat):
        seen.append(seat)
        return real_view(game, seat)

    monkeypatch.setattr(module, "view", spy)
    session = Session.new(players=2, seats=["greedy", "random"], seed=3)
    turns = []
    while session.turn is not None and len(turns) < 30:
        turns.append(session.turn)
        session.act(session.bot_action())
    assert seen == turns


SOLO = {
    "solo": {
        "tiers": [
            {"name": "gold", "score": 40},
            {"name": "silver", "score": 34},
            {"name": "bronze", "score": 28},
        ]
    }
}
TIERS = make_config(SOLO)


def test_a_solo_game_ends_with_its_tier_and_what_the_next_one_needs():
    """R4 solo: the end names the best tier reached (Game.solo_tier) and the next tier's score."""
    seen = set()
    for seed in range(12):
        session = uninterrupted(seed, ["greedy"], config=TIERS)
        score, tier = session.game.players[0].score, session.game.solo_tier()
        line = session.final_lines()[1]
        assert line == session.solo_tier_line() and line.startswith(
            f"Solo tier: {tier or 'none'} (score {score}"
        )
        higher = [(name, lowest) for name, lowest in TIERS.solo_tiers if lowest > score]
        assert line.endswith(f"; {higher[-1][0]} needs {higher[-1][1]})" if higher else ", the best tier)")
        seen.add(tier)
    assert {"gold", "silver", "bronze", None} <= seen, "these seeds must reach every tier and none"


def test_a_lost_solo_game_has_no_tier_and_other_games_no_tier_line():
    lost = uninterrupted(16, ["random"], config=make_config({"rounds": 2, **SOLO}))
    assert lost.game.winner is None and lost.game.solo_tier() is None
    assert "Solo tier: none (the game is lost; bronze needs 28 without a loss)" in lost.final_lines()
    assert not [line for line in uninterrupted(3, ["greedy", "random"]).final_lines() if "tier" in line]
    untiered = uninterrupted(3, ["greedy"], config=make_config({"solo": {"tiers": []}}))
    assert not [line for line in untiered.final_lines() if "tier" in line]
