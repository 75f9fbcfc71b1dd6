"""The terminal game tells the truth (issue 39, point 8): it says a game is saved only when a save
file exists, and a pass the phase does not allow is refused at once, with no warning about
deaths and no question first (A4: the Arrival phase takes admissions only)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from typer.testing import CliRunner

from triage.cli import app
from triage.engine import parse_deck
from triage.engine.choices import action_choices
from triage.engine.forecast import forecast
from triage.engine import view
from triage.play.app import ConfirmScreen, TriageApp
from triage.play.plain import run_plain
from triage.play.session import Session

runner = CliRunner()

#: Every card critical with more healing than a seat holds: a patient admitted now dies tonight.
CRITICAL_DECK = parse_deck(
    {"cards": [{"id": f"X{n}", "kind": "critical", "healing": 5, "credits": 2, "vp": 3} for n in range(12)]},
    "test deck",
)


def arrival_with_one_admitted(save: Path | None = None) -> Session:
    """Round 1's Arrival (A4), one critical admitted and one still waiting for its space."""
    session = Session.new(players=1, seats=["human"], seed=3, deck=CRITICAL_DECK, save_path=save)
    session.act({"type": "admit", "card": session.game.players[0].pending[0], "space": 1})
    assert session.game.phase == "arrival" and session.game.players[0].pending
    return session


def test_plain_quit_without_a_save_says_the_game_is_not_saved() -> None:
    session = Session.new(players=2, seats=["human", "greedy"], seed=1)
    out = io.StringIO()
    assert run_plain(session, io.StringIO("quit\ny\n"), out) == 1
    text = out.getvalue()
    assert "saved" not in text.replace("not saved", "")
    assert "not saved" in text and "--save" in text


def test_plain_quit_with_a_save_names_the_file(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    session = Session.new(players=2, seats=["human", "greedy"], seed=1, save_path=save)
    out = io.StringIO()
    assert run_plain(session, io.StringIO("quit\ny\n"), out) == 1
    assert f"saved in {save}" in out.getvalue() and save.exists()


def test_the_full_screen_quit_question_without_a_save_says_it_is_not_saved() -> None:
    session = Session.new(players=2, seats=["human", "greedy"], seed=1)

    async def scenario() -> str:
        screen = TriageApp(session, bot_delay=0)
        async with screen.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(screen.screen, ConfirmScreen)
            return str(screen.screen.query_one("#question").render())

    question = asyncio.run(scenario())
    assert "not saved" in question and "is saved" not in question


def test_the_command_says_nothing_is_saved_without_save() -> None:
    result = runner.invoke(app, ["play", "--plain", "--seed", "2"], input="quit\ny\n")
    assert result.exit_code == 1
    assert "not saved" in result.output and "is saved" not in result.output


def test_plain_pass_in_arrival_is_refused_before_any_question() -> None:
    session = arrival_with_one_admitted()
    out = io.StringIO()
    run_plain(session, io.StringIO("pass\nquit\ny\n"), out)
    text = out.getvalue()
    assert "refused: wrong_phase" in text
    assert "Pass anyway" not in text and "nothing on offer can save it" not in text
    assert "at tonight's Cleanup" not in text


def test_full_screen_pass_in_arrival_is_refused_without_a_question() -> None:
    session = arrival_with_one_admitted()

    async def scenario() -> str:
        screen = TriageApp(session, bot_delay=0)
        async with screen.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            await pilot.press("colon", *"pass", "enter")
            await pilot.pause()
            assert not isinstance(screen.screen, ConfirmScreen)
            return str(screen.query_one("#status").render())

    status = asyncio.run(scenario())
    assert "wrong_phase" in status
    assert session.game.phase == "arrival"


def test_the_forecast_promises_no_pass_and_no_rescue_in_arrival() -> None:
    """A4: Arrival offers admissions only; what a pass would let die, and what could save a
    patient tonight, are Treatment's questions (the plain game's false warning came from here)."""
    session = arrival_with_one_admitted()
    found = forecast(view(session.game, 0), action_choices(session.game, 0))
    assert found["pass"] == {"dies": [], "may_die": []}
    assert found["rescue"] == {}
    assert found["patients"]  # the deadlines are still told
