"""``triage play --plain``: the game as text lines, driven through stdin."""

import io
import json

from typer.testing import CliRunner

from triage.cli import app
from triage.engine import make_config, parse_deck
from triage.engine.records import load_record
from triage.engine.vocabulary import KINDS
from triage.play.plain import run_plain
from triage.play.session import Session

runner = CliRunner()


def test_all_bot_seats_play_to_the_end_without_input(tmp_path):
    save = tmp_path / "watch.json"
    result = runner.invoke(
        app, ["play", "--plain", "--bots", "greedy,random", "--seed", "3", "--save", str(save)], input=""
    )
    assert result.exit_code == 0, result.output
    reference = Session.new(players=2, seats=["greedy", "random"], seed=3)
    reference.run_bots()
    assert result.output.rstrip().endswith(reference.final_lines()[-1])
    for line in reference.final_lines():
        assert line in result.output
    assert load_record(save)["actions"] == reference.record()["actions"]


def test_a_human_plays_a_whole_game_through_stdin(tmp_path):
    """Always typing 1 picks the first listed action: the same game as picking legal[0]."""
    config = make_config({"rounds": 2})
    save = tmp_path / "game.json"
    session = Session.new(players=2, seats=["human", "greedy"], seed=8, config=config, save_path=save)
    out = io.StringIO()
    assert run_plain(session, io.StringIO("1\n" * 500), out) == 0
    reference = Session.new(players=2, seats=["human", "greedy"], seed=8, config=config)
    while reference.turn is not None:
        reference.act(reference.legal()[0] if reference.human_to_move() else reference.bot_action())
    assert session.game.history == reference.game.history
    assert load_record(save)["actions"] == reference.record()["actions"]
    text = out.getvalue()
    assert "player 0> " in text and "Legal actions:" in text
    assert "Game over after round 2" in text


def test_typed_commands_errors_and_quitting(tmp_path):
    save = tmp_path / "game.json"
    session = Session.new(players=2, seats=["human", "greedy"], seed=1, save_path=save)
    pending = session.game.players[0].pending[0]
    lines = ["frobnicate", "heal ZZZ 1", "help", f"admit {pending.lower()} 9", f"admit {pending} 1", "quit"]
    out = io.StringIO()
    assert run_plain(session, io.StringIO("\n".join(lines) + "\n"), out) == 1
    text = out.getvalue()
    assert "error: unknown command 'frobnicate'" in text
    assert "refused: wrong_phase" in text and "(rule A4)" in text  # heal during admission
    assert "refused: no_such_space" in text and "(rule K4)" in text
    assert "heal CARD AMOUNT" in text and "T7     Helicopter" in text  # help: commands and rules
    assert f"Player 0 (human): admit {pending} 1" in text
    assert f"saved in {save}" in text
    assert load_record(save)["actions"][0] == {"by": 0, "do": {"type": "admit", "card": pending, "space": 1}}


def test_input_ending_stops_and_keeps_the_save(tmp_path):
    save = tmp_path / "game.json"
    result = runner.invoke(app, ["play", "--plain", "--save", str(save)], input="1\n")
    assert result.exit_code == 1
    assert "Stopped before the end" in result.output
    record = json.loads(save.read_text())
    assert len(record["actions"]) >= 1 and record["seats"] == ["human", "greedy"]
    resumed = runner.invoke(
        app, ["play", "--plain", "--resume", str(save), "--bots", "greedy,greedy"], input=""
    )
    assert resumed.exit_code == 0, resumed.output
    assert "Game over" in resumed.output


def test_hot_seat_hides_the_board_until_the_next_seat_is_ready():
    session = Session.new(players=2, seats=["human", "human"], seed=6, config=make_config({"rounds": 1}))
    out = io.StringIO()
    run_plain(session, io.StringIO("\n1\n" * 200), out)
    text = out.getvalue()
    blocks = text.split("=== Pass the device to ")
    assert len(blocks) > 2
    for block in blocks[1:]:
        seat = int(block.split("Player ", 1)[1][0])
        other = 1 - seat
        # Between two pass screens only one seat decides.
        assert f"player {other}> " not in block
        assert f"player {seat}> " in block or "Game over" in block


def test_bad_options_are_named():
    result = runner.invoke(app, ["play", "--plain", "--bots", "human,clever"])
    assert result.exit_code == 2
    assert "unknown seat 'clever'" in result.output
    result = runner.invoke(app, ["play", "--plain", "--resume", "/nonexistent/save.json"])
    assert result.exit_code == 2
    assert "cannot read the record" in result.output


def test_games_option_reports_win_rates():
    result = runner.invoke(app, ["play", "--games", "6", "--bots", "greedy,random", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["games"] == 6
    assert sum(data["wins"].values()) + data["ties"] == 6
    assert data["win_rate"]["greedy"] > data["win_rate"]["random"]
    result = runner.invoke(app, ["play", "--games", "2", "--bots", "human,random"])
    assert result.exit_code == 2 and "bots only" in result.output


def test_watching_bots_shows_only_public_events():
    """C3: a check's result is secret; a spectator's output must not name the kind checked."""
    for seed in range(40):
        session = Session.new(
            players=2, seats=["random", "random"], seed=seed, config=make_config({"rounds": 3})
        )
        out = io.StringIO()
        run_plain(session, io.StringIO(""), out)
        checked = [line for line in out.getvalue().splitlines() if " is checked" in line]
        if checked:
            kinds = tuple(f"({kind.label})" for kind in KINDS)
            assert not [line for line in checked if line.rstrip().endswith(kinds)]
            assert all("seen by you" not in line for line in checked)
            return
    raise AssertionError("no seed gave a check")


def test_play_names_every_registered_bot_in_its_help_and_seats_the_expert_levels(tmp_path):
    from triage.bots import bot_names

    shown = " ".join(runner.invoke(app, ["play", "--help"], terminal_width=300).output.split())
    for name, description in bot_names().items():
        assert name in shown and " ".join(description.split()) in shown
    save = tmp_path / "expert.json"
    result = runner.invoke(
        app,
        [
            "play",
            "--plain",
            "--bots",
            "human,expert-novice",
            "--seed",
            "11",
            "--set",
            "rounds=1",
            "--save",
            str(save),
        ],
        input="1\n" * 40,
    )
    assert result.exit_code == 0, result.output
    assert load_record(save)["seats"] == ["human", "expert-novice"]
    assert "Player 1 (expert-novice, Gentle)" in result.output
    result = runner.invoke(app, ["play", "--plain", "--bots", "human,clever"], input="")
    assert (
        result.exit_code == 2 and "unknown seat 'clever'" in result.output and "expert-club" in result.output
    )


def test_a_pass_that_lets_a_patient_die_and_quit_are_asked_about(tmp_path):
    """The heal trap: critical patients needing 5 healing each, 4 to pay with (C2)."""
    cards = [{"id": f"X{n}", "kind": "critical", "healing": 5, "credits": 2, "vp": 3} for n in range(12)]
    deck = parse_deck({"cards": cards}, "test deck")
    session = Session.new(players=1, seats=["human"], seed=3, deck=deck, save_path=tmp_path / "game.json")
    for space, card in enumerate(list(session.game.players[0].pending), start=1):
        session.act({"type": "admit", "card": card, "space": space})
    out = io.StringIO()
    assert run_plain(session, io.StringIO("pass\nn\nq\nn\nquit\ny\n"), out) == 1
    text = out.getvalue()
    assert "Passing now ends your Treatment; at tonight's Cleanup:" in text
    assert "dies tonight: " in text and "- fly it out with a Helicopter: no QoC lost" in text
    assert "Pass anyway? [y/N]" in text and text.count("Quit now?") == 2
    assert not session.game.players[0].passed  # "n" kept it playing; "q" then "n" too


def test_a_designer_market_item_is_listed_and_bought_by_its_words(tmp_path):
    """T8: an item declared in a configuration file alone is listed among the legal actions and
    bought with ``buy night shift``."""
    config = tmp_path / "night.toml"
    config.write_text("[market.night_shift]\nprice = 1\nlimit = 2\ngives = { healing = 2 }\n")
    lines = "1\n1\nbuy night shift\nquit\ny\n"
    args = [
        "play",
        "--plain",
        "--players",
        "1",
        "--seed",
        "3",
        "--config",
        str(config),
        "--set",
        "start.credits=3",
    ]
    result = runner.invoke(app, args, input=lines)
    assert "19. buy night_shift" in result.output
    assert "You buy a Night shift for 1 Credit" in result.output
    assert "healing 5" in result.output  # 3 of income and 2 of the night shift
