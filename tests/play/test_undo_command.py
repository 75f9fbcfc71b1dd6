"""Undo in the terminal game: ``undo`` / ``u`` within the seat's turn, never past a reveal
(engine/undo.py), in the session, ``--plain`` and the Textual app; the undone action leaves the
game, the log and the save file."""

import asyncio
import io

from triage.engine import state_dict
from triage.engine.records import load_record
from triage.play.app import TriageApp
from triage.play.plain import run_plain
from triage.play.session import Session


def solo_in_treatment(save_path=None) -> Session:
    """Solo, seed 0: both arrivals admitted, seat 0 in Treatment (P10 revealed, P21 not)."""
    session = Session.new(players=1, seats=["human"], seed=0, save_path=save_path)
    while session.game.in_admission(0):
        session.act(session.legal()[0])
    return session


def first_of(session: Session, kind: str) -> dict:
    return next(action for action in session.legal() if action["type"] == kind)


def test_the_session_undoes_a_heal_from_game_log_and_save(tmp_path):
    save = tmp_path / "game.json"
    session = solo_in_treatment(save)
    before, events_before = state_dict(session.game), list(session.events)
    session.act(first_of(session, "heal"))
    assert load_record(save)["actions"][-1]["do"]["type"] == "heal"
    assert "2 action(s) can be taken back" in session.undo_line()
    assert session.undo().startswith("heal P10")
    assert state_dict(session.game) == before
    assert session.events == events_before
    assert [entry["do"]["type"] for entry in load_record(save)["actions"]] == ["admit", "admit"]


def test_the_session_refuses_past_a_diagnosis_naming_it():
    session = solo_in_treatment()
    session.act(first_of(session, "diagnose"))
    assert "not past action 3 (diagnose P21) showed a treatment side (rule T1)" in session.undo_line()
    try:
        session.undo()
    except Exception as error:
        assert getattr(error, "code", None) == "undo_past_reveal"
    else:
        raise AssertionError("a diagnosis was undone")


def test_plain_undo_and_u_with_the_reveal_named():
    session = solo_in_treatment()
    heal = first_of(session, "heal")
    lines = [f"heal {heal['patient']} 1", "u", "diagnose P21", "undo", "quit", "y"]
    out = io.StringIO()
    assert run_plain(session, io.StringIO("\n".join(lines) + "\n"), out) == 1
    text = out.getvalue()
    assert "Player 0 (human): undone: heal P10" in text
    assert "refused: undo_past_reveal: action 3 (diagnose P21) showed a treatment side" in text
    assert "(rule T1)" in text
    assert [entry["do"]["type"] for entry in session.game.history] == ["admit", "admit", "diagnose"]


def test_plain_undo_with_nothing_to_undo_says_so():
    session = Session.new(players=2, seats=["greedy", "human"], seed=5)
    session.run_bots()
    assert session.turn == 1
    out = io.StringIO()
    run_plain(session, io.StringIO("undo\nquit\ny\n"), out)
    text = out.getvalue()
    assert "refused: " in text and ("nothing_to_undo" in text or "undo_past_reveal" in text)


def test_the_app_undoes_from_the_command_line(tmp_path):
    session = solo_in_treatment(tmp_path / "game.json")
    heal = first_of(session, "heal")
    before = state_dict(session.game)

    async def scenario() -> None:
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            await pilot.press("colon", *f"heal {heal['patient']} 1", "enter")
            await pilot.pause()
            assert session.game.history[-1]["do"]["type"] == "heal"
            assert "can be taken back" in str(app.query_one("#actions").border_subtitle)
            await pilot.press(*"undo", "enter")
            await pilot.pause()
            assert state_dict(session.game) == before
            assert "undone: heal P10" in str(app.query_one("#status").render())
            await pilot.press(*"diagnose P21", "enter")
            await pilot.pause()
            await pilot.press("u", "enter")
            await pilot.pause()
            status = str(app.query_one("#status").render())
            assert "undo_past_reveal" in status and "diagnose P21" in status

    asyncio.run(scenario())


def test_an_undo_drops_the_hints_asked_after_the_point_it_returns_to(tmp_path):
    """A hint asked in a position that held the undone action would tell of it: it leaves the
    session and the save file; the hint asked before stays."""
    save = tmp_path / "game.json"
    session = solo_in_treatment(save)
    at = len(session.game.history)
    session.hint()
    session.act(first_of(session, "heal"))
    session.hint()
    assert [hint["at"] for hint in session.hints] == [at, at + 1]
    session.undo()
    assert [hint["at"] for hint in session.hints] == [at]
    assert [hint["at"] for hint in load_record(save)["hints"]] == [at]
