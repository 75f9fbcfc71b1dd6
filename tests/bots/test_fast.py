"""``expert-fast`` (issue 41, point 1): trained by ``triage train-fast`` on the expert's own
searches, stored beside the values, found by the game's fingerprint, plain about what it is."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.bots import make_bot
from triage.bots.expert import MissingValueError, candidate_actions, order_only
from triage.bots.fast import (
    FEATURE_WIDTH,
    FORMAT,
    INPUT_WIDTH,
    PLAIN_FORMAT,
    FastBot,
    FastPolicy,
    MissingPolicyError,
    candidate_table,
    forget_policies,
    kept_moves,
    policy_for,
    with_rivals,
)
from triage.bots.value import VALUES_DIR, value_for
from triage.cli import app
from triage.engine import Game, make_config, view
from triage.sim.commands import untaught
from triage.sim.runner import read_metadata

cli = CliRunner()


@pytest.fixture
def no_policies(tmp_path, monkeypatch):
    """A TRIAGE_VALUES holding only this test's files (the shipped policies still count)."""
    folder = tmp_path / "values"
    folder.mkdir()
    monkeypatch.setenv("TRIAGE_VALUES", str(folder))
    monkeypatch.setattr("triage.bots.value.VALUES_DIR", tmp_path / "nothing-shipped")
    forget_policies()
    yield folder
    forget_policies()


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A policy trained on three games of a cheap expert (8 playouts a decision)."""
    folder = tmp_path_factory.mktemp("fast")
    out = folder / "fast-test-2p.json"
    args = ["train-fast", "--players", "2", "--games", "5", "--playouts", "8", "--seed", "7", "--quiet"]
    result = cli.invoke(app, [*args, "--data", str(folder / "d.npz"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "picks the expert's move in" in result.output and (folder / "d.npz").is_file()
    return out


def test_train_fast_says_when_its_policy_has_learned_no_more_than_the_club_level(tmp_path):
    """Five games teach the network less than the club's priorities already know: the command
    says so instead of leaving a designer to trust it."""
    assert untaught({"agreement": 0.44, "club_agreement": 0.52}) is not None
    assert untaught({"agreement": 0.52, "club_agreement": 0.52}) is not None
    assert untaught({"agreement": 0.75, "club_agreement": 0.69}) is None
    out = tmp_path / "fast-tiny-2p.json"
    args = ["train-fast", "--players", "2", "--games", "5", "--playouts", "4", "--seed", "7", "--quiet"]
    result = cli.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    said = untaught(FastPolicy.load(out).trained)
    assert (said is not None and said in result.output) or "no more than the club" not in result.output


def play_through(bot, game: Game) -> Game:
    rng = random.Random(0)
    while (seat := game.turn) is not None:
        game.apply(bot.choose(view(game, seat), game.legal_actions(), rng))
    return game


def test_the_trained_policy_is_data_that_names_its_game_and_its_training(trained):
    policy = FastPolicy.load(trained)
    assert len(policy.mean) == INPUT_WIDTH and policy.trained["players"] == 2
    assert policy.rivals and json.loads(trained.read_text())["format"] == FORMAT
    assert policy.provenance()["reads"] == "each move beside its rivals"
    assert policy.trained["games"] == 5 and policy.trained["decisions"] > 50
    assert 0 <= policy.trained["agreement"] <= 1


def test_expert_fast_plays_whole_games_with_the_policy_of_its_game_and_says_so(trained, monkeypatch):
    monkeypatch.setenv("TRIAGE_VALUES", str(trained.parent))
    forget_policies()
    try:
        game = play_through(make_bot("expert-fast"), Game.new(players=2, seed=3))
        assert game.is_over()
        assert value_for(view(Game.new(players=2, seed=3), 0)) is not None  # a policy file is no value
        form = make_bot("expert-fast").form(view(Game.new(players=2, seed=3), 0))
        assert form["policy"]["file"] == str(trained) and form["trained on"] == "this game"
        other = view(Game.new(players=2, seed=3, config=make_config({"market": {"staff": {"price": 7}}})), 0)
        assert (
            make_bot("expert-fast").form(other)["trained on"] == "another configuration at this player count"
        )
    finally:
        forget_policies()


def test_a_simulation_records_expert_fasts_policy(trained, tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_VALUES", str(trained.parent))
    forget_policies()
    out = tmp_path / "run.parquet"
    try:
        result = cli.invoke(
            app,
            [
                "simulate",
                "--games",
                "2",
                "--bots",
                "expert-fast,greedy",
                "--workers",
                "1",
                "--quiet",
                "--out",
                str(out),
            ],
        )
        assert result.exit_code == 0, result.output
        assert (
            read_metadata(out)["bot_forms"]["expert-fast"]["policy"]["sha256"]
            == FastPolicy.load(trained).sha256
        )
    finally:
        forget_policies()


def test_without_any_policy_at_its_player_count_a_strict_bot_refuses_and_names_the_command(no_policies):
    game = Game.new(players=3, seed=1)
    rng = random.Random(0)
    while game.phase != "treatment":
        game.apply(rng.choice(game.legal_actions()))
    seat_view, legal = view(game, game.turn), game.legal_actions()
    assert make_bot("expert-fast").form(seat_view)["policy"] == "none trained at this player count"
    if len(legal) > 1:
        with pytest.raises(MissingPolicyError, match="triage train-fast --players 3"):
            FastBot(strict=True).choose(seat_view, legal, random.Random(0))
    assert FastBot().choose(seat_view, legal, random.Random(0)) in legal  # not strict: the club's move


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_policy_is_found_for_the_standard_game_and_plays_it(monkeypatch, players):
    """The policies shipped in triage/data/values still read today's features and are the
    standard game's own at each player count: a change to the features or the fingerprint breaks
    them here, not at a designer's run."""
    monkeypatch.delenv("TRIAGE_VALUES", raising=False)
    forget_policies()
    try:
        shipped = FastPolicy.load(VALUES_DIR / f"fast-standard-{players}p.json")
        seat_view = view(Game.new(players=players, seed=11), 0)
        policy, own = policy_for(seat_view)
        assert own and policy is not None and policy.sha256 == shipped.sha256
        assert shipped.rivals == (players == 2)  # 3 and 4: the earlier form, kept (docs/bots.md)
        assert make_bot("expert-fast").form(seat_view)["trained on"] == "this game"
        game = play_through(FastBot(strict=True), Game.new(players=players, seed=11))
        assert game.is_over()
    finally:
        forget_policies()


def test_a_policy_file_for_another_feature_list_is_refused_by_name(trained, tmp_path):
    data = json.loads(trained.read_text())
    data["mean"] = data["mean"][:-1]
    data["scale"] = data["scale"][:-1]
    data["hidden"] = data["hidden"][:-1]
    bad = tmp_path / "fast-bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=rf"fast policy file {bad}: trained on {INPUT_WIDTH - 1} features"):
        FastPolicy.load(bad)
    plain = tmp_path / "fast-plain.json"  # the earlier form reads each move alone: half the inputs
    plain.write_text(json.dumps({**json.loads(trained.read_text()), "format": PLAIN_FORMAT}))
    with pytest.raises(ValueError, match=rf"trained on {INPUT_WIDTH} features, not today's {FEATURE_WIDTH}"):
        FastPolicy.load(plain)
    with pytest.raises(ValueError, match="not a trained policy"):
        (tmp_path / "fast-junk.json").write_text("{}")
        FastPolicy.load(tmp_path / "fast-junk.json")


def test_the_network_reads_a_decision_in_play_as_it_was_read_in_training():
    """Each candidate is read beside its difference from its decision's rivals: one decision alone
    (at play) and many stacked with their group numbers (in training) give the same inputs."""
    import numpy as np

    decisions = []
    for seed in (1, 2):
        game = Game.new(players=2, seed=seed)
        while game.turn is not None and len(candidate_actions(game.legal_actions())) < 3:
            game.apply(game.legal_actions()[0])
        seat_view = view(game, game.turn)
        candidates = candidate_actions(game.legal_actions())
        decisions.append(np.asarray(candidate_table(seat_view, candidates, 0, random.Random(seed))))
    group = np.concatenate([[number] * len(table) for number, table in enumerate(decisions)])
    stacked = with_rivals(np.vstack(decisions), group)
    alone = np.vstack([with_rivals(table) for table in decisions])
    assert stacked.shape == (len(group), INPUT_WIDTH)
    assert np.allclose(stacked, alone)
    first = decisions[0]
    assert np.allclose(alone[: len(first), INPUT_WIDTH // 2 :].sum(axis=0), 0)  # differences from the mean
    assert not np.allclose(alone[: len(first), INPUT_WIDTH // 2 :], 0)  # the candidates differ


def test_train_fast_refuses_a_bad_file_name(tmp_path):
    result = cli.invoke(app, ["train-fast", "--out", str(tmp_path / "policy.json")])
    assert result.exit_code == 2 and "fast-NAME.json" in result.output


def test_the_simulator_refuses_expert_fast_without_a_policy_at_its_player_count(no_policies, tmp_path):
    out = tmp_path / "run.parquet"
    result = cli.invoke(
        app, ["simulate", "--games", "3", "--players", "3", "--bots", "expert-fast", "--out", str(out)]
    )
    assert (
        result.exit_code == 2
        and "`triage train-fast --players 3 --out values/fast-mine-3p.json`" in result.output
    )
    assert not out.exists()


def test_its_playouts_are_scored_by_the_games_value_and_its_form_names_that_file(monkeypatch):
    """expert-fast searches a little (a few short playouts among the network's best moves): its
    form records the playouts and the value file with its SHA-256 (issue 41 point 2), and a game
    without a fitted value is refused by a strict bot with the command that fits one, never
    played another way without a word."""
    monkeypatch.delenv("TRIAGE_VALUES", raising=False)
    forget_policies()
    try:
        standard = view(Game.new(players=2, seed=5), 0)
        form = FastBot().form(standard)
        value = value_for(standard)
        assert value is not None and form["value"]["sha256"] == value.sha256
        assert form["playouts"] == FastBot().search_size(2)[1] > 0
        priced = Game.new(players=2, seed=5, config=make_config({"market": {"staff": {"price": 7}}}))
        priced = advance_to_a_choice(priced)
        seat_view = view(priced, priced.turn)
        assert FastBot().form(seat_view)["value"] == "none fitted for this game"
        with pytest.raises(MissingValueError, match="triage fit-value --players 2"):
            FastBot(strict=True).choose(seat_view, priced.legal_actions(), random.Random(0))
        assert FastBot().choose(seat_view, priced.legal_actions(), random.Random(0)) in priced.legal_actions()
    finally:
        forget_policies()


def advance_to_a_choice(game: Game) -> Game:
    """The game played by greedy up to a decision among moves that differ in substance."""
    greedy = make_bot("greedy")
    while True:
        legal = game.legal_actions()
        if len(candidate_actions(legal)) > 2 and not order_only(legal):
            return game
        game.apply(greedy.choose(view(game, game.turn), legal, random.Random(0)))


def test_at_three_and_four_players_it_searches_less_and_says_so():
    """A playout plays more moves with more players (at 4, about twice a 2-player one's): the
    search shares six playouts at 3 players, and keeps the network's two best moves with four
    playouts at 4 (issue 41 point 1: 2 ms a decision); the form a result file records says so,
    and a bot given its own sizes keeps them at every count."""
    four = view(Game.new(players=4, seed=5), 0)
    two = view(Game.new(players=2, seed=5), 0)
    assert FastBot().search_size(4) == (2, 4) and FastBot().search_size(2) == (3, 8)
    assert FastBot().search_size(3) == (3, 6)
    form = FastBot().form(four)
    assert form["playouts"] == 4 and "keeps its 2 best moves" in form["search"]
    assert FastBot().form(two)["playouts"] == 8
    assert FastBot(keep=3, playouts=8).form(four)["playouts"] == 8
    assert FastBot(keep=1).search_size(4) == (1, 4)
    three = view(Game.new(players=3, seed=5), 0)
    assert "a Helicopter making every player draw only among its 1 best" in FastBot().form(three)["search"]
    assert "Helicopter" not in FastBot().form(two)["search"] + FastBot().form(four)["search"]


def test_a_flight_that_makes_every_player_draw_is_searched_only_where_the_network_ranks_it_high():
    """The search tries the network's best moves and the club level's; a Helicopter that makes
    every player draw (T7) only when the network ranks it within the player count's limit (first
    at 3 players: the short search flew far more of them than the expert). A flight the club
    level plays is still tried, and a flight that only removes a patient is an ordinary move."""
    candidates = [
        {"type": "pass"},
        {"type": "helicopter", "remove": None, "draw_all": True},
        {"type": "buy", "item": "healing"},
        {"type": "helicopter", "remove": 7, "draw_all": False},
        {"type": "heal", "patient": 3, "amount": 1},
    ]
    flight_second = [2, 1, 3, 4, 0]
    assert kept_moves(flight_second, candidates, 0, keep=3, flight_rank=3) == [0, 1, 2, 3]
    assert kept_moves(flight_second, candidates, 0, keep=3, flight_rank=1) == [0, 2, 3]
    assert kept_moves(flight_second, candidates, 1, keep=3, flight_rank=1) == [1, 2, 3]  # the club's
    assert kept_moves([1, 2, 3, 4, 0], candidates, 0, keep=3, flight_rank=1) == [0, 1, 2, 3]


@pytest.mark.parametrize(("players", "flight_rank"), [(2, 3), (3, 1), (4, 2)])
def test_each_player_count_searches_draw_flights_by_its_own_limit(monkeypatch, players, flight_rank):
    """In play the bot asks :func:`kept_moves` with its player count's limit: the network's
    first at 3 players, any kept move at 2 and 4, where the bars were met without one."""
    from triage.bots import fast

    limits = set()

    def spy(ranked, candidates, club, keep, limit):
        limits.add((keep, limit))
        return kept_moves(ranked, candidates, club, keep, limit)

    monkeypatch.setattr(fast, "kept_moves", spy)
    game = Game.new(players=players, seed=3)
    bot = FastBot(strict=True)
    for _ in range(40):
        if game.is_over():
            break
        game.apply(bot.choose(view(game, game.turn), game.legal_actions(), random.Random(0)))
    assert limits == {(FastBot().search_size(players)[0], flight_rank)}


def test_the_simulator_says_when_expert_fast_plays_a_policy_trained_on_another_game():
    """A changed price has no policy of its own: expert-fast plays the one trained at its player
    count on the standard game, whose market it learned. The simulator says so, with the command
    that trains one for this game (issue 41: never a silent switch); on the game it was trained
    on, it says nothing."""
    priced = cli.invoke(
        app,
        [
            "simulate",
            "--games",
            "2",
            "--players",
            "2",
            "--bots",
            "expert-fast,greedy",
            "--set",
            "market.staff.price=7",
        ],
    )
    assert "note: expert-fast has no policy trained on this game at 2 players" in priced.output
    assert priced.exit_code == 2 and "expert-fast would play its network's first choice" in priced.output
    assert "whole playouts (another algorithm)" not in priced.output
    assert "`triage train-fast --players 2 --set market.staff.price=7 --out values/fast-mine-2p.json`" in (
        " ".join(priced.output.split())
    )
    standard = cli.invoke(app, ["simulate", "--games", "2", "--players", "2", "--bots", "expert-fast,greedy"])
    assert standard.exit_code == 0 and "no policy trained on this game" not in standard.output
