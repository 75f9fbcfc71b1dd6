"""Bots you can watch in the terminal (issue 39, point 1): each bot action, already made, is shown
as its own step (the board just after it, its card marked, its line), a pace apart; F3 skips to
the next human decision at once; a human's own action is never held back."""

from __future__ import annotations

import asyncio
import io

from triage.engine.text import describe_action
from triage.play.app import TriageApp
from triage.play.plain import PlainGame
from triage.play.session import Session


def marked_cards(app: TriageApp) -> set[str]:
    """The cards marked on the board (the acting card of the bot action on screen)."""
    board = app.board_screen.query_one("#board").render()  # a Text or Textual's Content
    return {board.plain[span.start : span.end] for span in board.spans if "reverse" in repr(span.style)}


def test_each_bot_action_is_its_own_step_and_f3_skips_to_the_decision() -> None:
    # Seat 0 (greedy) admits its two arrivals before seat 1 (the human) decides (A4). Each step
    # stays 600 s on screen, so the test sees the first one and nothing moves on by itself.
    session = Session.new(players=2, seats=["greedy", "human"], seed=11)

    async def scenario() -> None:
        app = TriageApp(session, bot_delay=600)
        async with app.run_test(size=(150, 50)) as pilot:
            for _ in range(1000):  # the bot's two admissions are made at once, not a pace apart
                if session.human_to_move():
                    break
                await pilot.pause(0.01)
            await pilot.pause()
            assert session.human_to_move()
            first, second = (entry["do"] for entry in session.game.history[:2])
            # Both actions are made; the screen shows the first, its card marked, no list yet.
            assert app.pace.busy and app.legal == []
            status = str(app.query_one("#status").render())
            assert status == f"{session.seat_name(0)}: {describe_action(first)}"
            assert marked_cards(app) == {first["card"]}
            await pilot.press("f3")
            await pilot.pause()
            assert not app.pace.busy and app.legal == session.legal()
            assert marked_cards(app) == {second["card"]}  # the last bot action, until you move
            app.query_one("#actions").focus()
            await pilot.press("1", "enter")
            await pilot.pause()
            assert session.game.history[2]["by"] == 1  # your own action: taken at once

    asyncio.run(scenario())


def test_the_pace_shows_steps_a_delay_apart() -> None:
    from triage.play.pacing import Pace, Step, acted_on

    pace = Pace(delay=0.8)
    for number in range(3):
        pace.add(Step(1, {"type": "heal", "patient": f"P0{number}", "amount": 1}, {}, number))
    shown = []
    now = 0.0
    while pace.busy:
        wait = pace.wait(now)
        assert wait is not None
        now += wait
        shown.append((now, acted_on(pace.take(now).action)))
    assert shown == [(0.0, "P00"), (0.8, "P01"), (1.6, "P02")]
    pace.add(Step(1, {"type": "pass"}, {}, 4))
    pace.skip()
    assert not pace.busy and pace.wait(now) is None


def test_plain_prints_each_bot_action_and_paces_them() -> None:
    session = Session.new(players=2, seats=["human", "greedy"], seed=4)
    waits: list[float] = []
    out = io.StringIO()
    game = PlainGame(session, io.StringIO("1\n" * 40 + "quit\ny\n"), out, delay=0.7, pause=waits.append)
    game.run()
    bot_actions = [entry["do"] for entry in session.game.history if entry["by"] == 1]
    assert bot_actions and waits == [0.7] * len(bot_actions)
    text = out.getvalue()
    for action in bot_actions:
        assert f"{session.seat_name(1)}: {describe_action(action)}" in text
