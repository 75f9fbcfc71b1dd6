"""The Textual game, driven headlessly by Textual's pilot (``run_test``)."""

import asyncio

from triage.engine import make_config
from triage.engine.records import load_record
from triage.play.app import GameOverScreen, PassDeviceScreen, TriageApp
from triage.play.session import Session

SHORT = make_config({"rounds": 1})


def run(coroutine):
    return asyncio.run(coroutine)


def board_text(app):
    return str(app.query_one("#board").render())


def status_text(app):
    return str(app.query_one("#status").render())


async def play_out(app, pilot, session, limit=300):
    """Press Enter on the highlighted (first) legal action until the game ends."""
    for _ in range(limit):
        if session.game.is_over():
            break
        if session.human_to_move():
            app.query_one("#actions").focus()
            await pilot.press("enter")
        await pilot.pause()


def test_a_whole_short_game_against_greedy(tmp_path):
    save = tmp_path / "game.json"
    session = Session.new(players=2, seats=["human", "greedy"], seed=1, config=SHORT, save_path=save)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            assert "Player 0 (human) - you" in board_text(app)
            first = session.legal()[0]
            # A typed command, then the list by key.
            await pilot.press("colon")
            await pilot.press(*f"admit {first['card']} {first['space']}")
            await pilot.press("enter")
            await pilot.pause()
            assert session.game.history[0] == {"by": 0, "do": first}
            await play_out(app, pilot, session)
            assert session.game.is_over()
            assert isinstance(app.screen, GameOverScreen)
            final = str(app.screen.query_one("#final").render())
            for line in session.final_lines():
                assert line.strip() in final
        return app

    run(scenario())
    assert load_record(save)["actions"] == session.record()["actions"]


def test_number_keys_pick_actions_and_refusals_show_code_and_rule():
    session = Session.new(players=2, seats=["human", "greedy"], seed=2, config=SHORT)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            legal = session.legal()
            await pilot.press("2")
            await pilot.pause()
            assert session.game.history[0]["do"] == legal[1]
            before = len(session.game.history)
            await pilot.press("colon", *"heal ZZZ 1", "enter")
            await pilot.pause()
            assert "wrong_phase" in status_text(app) or "unknown_patient" in status_text(app)
            assert "(rule " in status_text(app)
            assert len(session.game.history) == before
            await pilot.press(*"frobnicate", "enter")
            await pilot.pause()
            assert "unknown command 'frobnicate'" in status_text(app)

    run(scenario())


def test_hot_seat_hides_the_board_between_seats():
    session = Session.new(players=2, seats=["human", "human"], seed=3, config=SHORT)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, PassDeviceScreen)
            assert "Player 0" in str(app.screen.query_one("#pass-message").render())
            assert board_text(app).strip() == ""
            await pilot.press("enter")
            await pilot.pause()
            assert "Player 0 (human) - you" in board_text(app)
            changes = 0
            for _ in range(400):
                if session.game.is_over():
                    break
                if isinstance(app.screen, PassDeviceScreen):
                    seat = session.turn
                    assert f"Player {seat}" in str(app.screen.query_one("#pass-message").render())
                    assert board_text(app).strip() == ""
                    changes += 1
                    await pilot.press("enter")
                    await pilot.pause()
                    assert f"Player {seat} (human) - you" in board_text(app)
                    continue
                app.query_one("#actions").focus()
                await pilot.press("enter")
                await pilot.pause()
            assert session.game.is_over() and changes >= 1
            assert isinstance(app.screen, GameOverScreen)

    run(scenario())


def test_watching_bots_play_to_the_end():
    session = Session.new(players=3, seats=["greedy", "random", "greedy"], seed=4, config=make_config({"rounds": 2}))

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            for _ in range(500):
                if isinstance(app.screen, GameOverScreen):
                    break
                await pilot.pause()
            assert session.game.is_over() and isinstance(app.screen, GameOverScreen)

    run(scenario())


def test_the_log_shows_checks_as_this_seat_may_see_them():
    """C3: a check shows the back to the other players only. The human at seat 1 must read the
    kind of seat 0's checked patients and nothing of its own."""
    session = Session.new(players=2, seats=["random", "human"], seed=5, config=make_config({"rounds": 3}))

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            for _ in range(300):
                if session.game.is_over():
                    break
                if session.human_to_move():
                    if session.legal()[0]["type"] in ("admit", "reject"):
                        app.query_one("#actions").focus()
                        await pilot.press("enter")
                    else:
                        await pilot.press("colon", *"pass", "enter")
                await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            lines = [strip.text.rstrip() for strip in app.query_one("#log").lines]
            assert lines == session.log_for(1)
            checks = [e for e in session.events if e["type"] == "checked"]
            assert {e["player"] for e in checks} == {0, 1}, "this seed must check patients of both seats"
            for event in checks:
                shown = [line for line in lines if f"{event['card']} of player {event['player']} is checked" in line]
                assert shown
                if event["player"] == 1:
                    assert all(line.endswith("is checked") for line in shown)
                else:
                    assert all(line.endswith(f"is checked: {event['secret']['kind']}") for line in shown)

    run(scenario())
