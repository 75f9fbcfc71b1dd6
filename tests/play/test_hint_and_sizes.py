"""The terminal game's hint (issue 20, point 2) and its layout at 80x24 and 40x12."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

from textual.widgets import Static

from triage.engine import make_config
from triage.engine.records import load_record, replay
from triage.engine.text import describe_action
from triage.play.app import TriageApp
from triage.play.plain import run_plain
from triage.play.session import Session

SHORT = make_config({"rounds": 1})


def board_lines(app: TriageApp) -> list[str]:
    return str(app.query_one("#board", Static).render()).splitlines()


def visible(app: TriageApp, selector: str) -> bool:
    widget = app.query_one(selector)
    return widget.display and widget.region.width > 0 and widget.region.height > 0


async def wait_for_status(app: TriageApp, pilot: Any, start: str) -> str:
    for _ in range(200):
        text = str(app.query_one("#status", Static).render())
        if text.startswith(start):
            return text
        await pilot.pause(0.05)
    raise AssertionError(f"no status starting {start!r}; last: {text!r}")


def test_the_session_hint_is_legal_saved_as_a_hint_and_never_a_move(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    session = Session.new(players=2, seats=["human", "greedy"], seed=4, config=SHORT, save_path=save)
    action, reason = session.hint()
    assert action in session.legal() and reason.startswith(("admits", "rejects"))
    record = load_record(save)
    assert record["hints"] == [{"by": 0, "at": 0, "do": action}] and record["actions"] == []
    # A resumed game keeps its hints; its replay is the game's.
    resumed = Session.resume(save)
    assert resumed.hints == session.hints
    assert replay(record).history == session.game.history


def test_plain_hint_names_the_move_its_number_and_why(tmp_path: Path) -> None:
    session = Session.new(players=2, seats=["human", "greedy"], seed=4, config=SHORT)
    out = io.StringIO()
    run_plain(session, io.StringIO("hint\n"), out)
    line = next(text for text in out.getvalue().splitlines() if "hint: " in text)
    hinted = session.hints[0]["do"]
    assert f"{session.legal().index(hinted) + 1}. {describe_action(hinted)} - " in line


def test_the_full_screen_hint_points_at_the_move_and_enter_takes_it(tmp_path: Path) -> None:
    session = Session.new(players=2, seats=["human", "greedy"], seed=4, config=SHORT)

    async def scenario() -> None:
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            await pilot.press("f2")
            text = await wait_for_status(app, pilot, "Hint: ")
            hinted = session.hints[0]["do"]
            assert describe_action(hinted) in text and " - " in text
            assert app.query_one("#actions").highlighted == session.legal().index(hinted)
            app.query_one("#actions").focus()
            await pilot.press("enter")
            await pilot.pause()
            assert session.game.history[0] == {"by": 0, "do": hinted}

    asyncio.run(scenario())


def test_at_80x24_the_board_takes_the_width_and_never_wraps() -> None:
    session = Session.new(players=2, seats=["human", "greedy"], seed=4, config=SHORT)

    async def scenario() -> None:
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            board = app.query_one("#board-scroll")
            assert board.region.width == 80
            # No board line is cut into two: each is one line of the rendered board, and the
            # longest fits the box (or scrolls sideways; it is never wrapped).
            lines = board_lines(app)
            assert any(line.startswith("Player 0 (human") for line in lines)
            assert app.query_one("#board").region.width >= max(len(line) for line in lines)
            for selector in ("#actions", "#log", "#command", "#status"):
                assert visible(app, selector), selector
            assert app.query_one("#actions").region.y > board.region.y

    asyncio.run(scenario())


def test_at_40x12_your_hospital_the_actions_and_the_prompt_stay() -> None:
    session = Session.new(players=2, seats=["human", "greedy"], seed=4, config=SHORT)

    async def scenario() -> None:
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.pause()
            lines = board_lines(app)
            assert lines[1].startswith("Player 0 (human")
            assert not any(line.startswith("Player 1") for line in lines)  # only your own hospital
            for selector in ("#board-scroll", "#actions", "#command", "#status"):
                assert visible(app, selector), selector
            assert app.query_one("#board-scroll").region.height >= 4
            assert not visible(app, "#log")
            # It still plays: a typed command acts.
            first = session.legal()[0]
            app.query_one("#command").focus()
            await pilot.press(*f"admit {first['card']} {first['space']}", "enter")
            await pilot.pause()
            assert session.game.history[0] == {"by": 0, "do": first}
            # Growing the terminal brings the whole board back.
            await pilot.resize_terminal(150, 50)
            await pilot.pause()
            assert any(line.startswith("Player 1") for line in board_lines(app))

    asyncio.run(scenario())
