"""The Textual game, driven headlessly by Textual's pilot (``run_test``)."""

import asyncio

from textual import events

from triage.engine import make_config, parse_deck
from triage.engine.records import load_record
from triage.engine.text import describe_action
from triage.engine.vocabulary import KIND
from triage.play.app import ConfirmScreen, GameOverScreen, HelpScreen, PassDeviceScreen, TriageApp
from triage.play.session import Session

SHORT = make_config({"rounds": 1})


def run(coroutine):
    return asyncio.run(coroutine)


def board_text(app):
    return str(app.query_one("#board").render())


def status_text(app):
    return str(app.query_one("#status").render())


async def play_out(app, pilot, session, limit=300):
    """Point at the first legal action and take it with Enter, until the game ends."""
    for _ in range(limit):
        if session.game.is_over():
            break
        if session.human_to_move():
            app.query_one("#actions").focus()
            await pilot.press("1", "enter")
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
            await pilot.press("2", "enter")
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


def test_hot_seat_hides_the_board_between_seats(monkeypatch):
    monkeypatch.setattr(PassDeviceScreen, "GUARD_SECONDS", 0)
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
                await pilot.press("down", "enter")
                await pilot.pause()
            assert session.game.is_over() and changes >= 1
            assert isinstance(app.screen, GameOverScreen)

    run(scenario())


def test_watching_bots_play_to_the_end():
    session = Session.new(
        players=3, seats=["greedy", "random", "greedy"], seed=4, config=make_config({"rounds": 2})
    )

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
                        await pilot.press("1", "enter")
                    else:
                        await pilot.press("colon", *"pass", "enter")
                        if isinstance(app.screen, ConfirmScreen):  # patients die tonight: pass anyway
                            await pilot.press("y")
                        await pilot.press("escape")
                await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            lines = [strip.text.rstrip() for strip in app.query_one("#log").lines]
            assert lines == session.log_for(1)
            checks = [e for e in session.events if e["type"] == "checked"]
            assert {e["player"] for e in checks} == {0, 1}, "this seed must check patients of both seats"
            for event in checks:
                owner = "Your" if event["player"] == 1 else f"{session.seat_name(0)}'s"
                shown = [line for line in lines if f"{owner} {event['card']} is checked" in line]
                assert shown
                if event["player"] == 1:
                    assert all(line.endswith(f"seen by {session.seat_name(0)}") for line in shown)
                else:
                    kind = KIND[event["secret"]["kind"]].label
                    assert all(line.endswith(f"seen by you ({kind})") for line in shown)

    run(scenario())


def command_text(app):
    return app.query_one("#command").value


def test_the_helicopter_accident_of_seed_11_cannot_happen():
    """The accident: with --seed 11, after the typed command `heal P29 4` was accepted, focus had
    left the command line, so typing `pass` + Enter went to the list (letters as shortcuts, Enter
    on the first action) and flew the Helicopter. The player typed each command after `:`, as the
    game then asked; now the focus stays on the command line, where `:` is a character that the
    command reader skips, and the typed line stays typed text."""
    session = Session.new(players=2, seats=["human", "greedy"], seed=11)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            for command in ("admit P20 1", "admit P29 2", "heal P29 4"):
                await pilot.press("colon", *command)
                assert command_text(app) == (":" if command != "admit P20 1" else "") + command
                await pilot.press("enter")
                await pilot.pause()
                assert app.focused is app.query_one("#command"), (
                    f"focus left the command line after {command!r}"
                )
            assert session.game.history[-1]["do"]["type"] == "heal"
            # The position of the accident: the first listed action is the Helicopter.
            assert session.legal()[0]["type"] == "helicopter"
            await pilot.press(*"pass", "enter")
            await pilot.pause()
            mine = [entry["do"] for entry in session.game.history if entry["by"] == 0]
            assert [action["type"] for action in mine] == ["admit", "admit", "heal", "pass"]
            assert not [e for e in session.events if e["type"] == "helicopter" and e["player"] == 0]
            assert session.view_for(0)["players"][0]["helicopters"] == 1
            assert "You pass" in session.log_for(0)
            assert app.focused is app.query_one("#command") and command_text(app) == ""

    run(scenario())


def test_digits_only_point_and_a_renumbered_list_takes_nothing_without_a_new_pick():
    """Digits used to act at once, and the list renumbers after every action, so a second `2`
    took whatever had become number 2. Now a digit points at an action (the status line names
    it), Enter takes it, and a fresh list has nothing pointed at."""
    session = Session.new(players=2, seats=["human", "greedy"], seed=11)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            first_list = session.legal()
            await pilot.press("2")
            await pilot.pause()
            assert session.game.history == []
            assert f"2. {describe_action(first_list[1])}: Enter takes it" in status_text(app)
            await pilot.press("enter")
            await pilot.pause()
            assert session.game.history[0]["do"] == first_list[1]  # admit P20 2
            renumbered = session.legal()
            assert renumbered[1] != first_list[1]
            # The same keys again: `2` only points at the new number 2, and Enter after a
            # fresh list (nothing pointed at) takes nothing.
            await pilot.press("2")
            await pilot.pause()
            assert len(session.game.history) == 1
            assert f"2. {describe_action(renumbered[1])}: Enter takes it" in status_text(app)
            await pilot.press("escape", "colon", "escape")  # leaving and coming back keeps the pick
            app.query_one("#actions").focus()
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert session.game.history[1]["do"] == renumbered[1]
            await pilot.press("enter", "enter")
            await pilot.pause()
            assert len(session.game.history) == 2 or session.game.history[2]["by"] != 0
            # Two digits make one number while that action exists.
            while not session.human_to_move() or len(session.legal()) < 12:
                if session.human_to_move():
                    await pilot.press("1", "enter")
                await pilot.pause()
            await pilot.press("1", "2")
            await pilot.pause()
            assert app.query_one("#actions").highlighted == 11
            await pilot.press("9")
            await pilot.pause()
            assert app.query_one("#actions").highlighted == 8

    run(scenario())


def test_letters_typed_in_the_list_go_to_the_command_line_and_shortcuts_stay_text_there():
    session = Session.new(players=2, seats=["human", "greedy"], seed=11)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            assert app.focused is app.query_one("#actions")
            # "admit P29 4" typed on the list: its digits must not pick actions 2, 9 or 4.
            await pilot.press(*"admit P29 4")
            await pilot.pause()
            assert app.focused is app.query_one("#command")
            assert command_text(app) == "admit P29 4"
            assert session.game.history == []
            # q, v, a, ? and : are plain text on the command line.
            await pilot.press(*" q:v?a")
            await pilot.pause()
            assert command_text(app) == "admit P29 4 q:v?a" and app.is_running
            assert not isinstance(app.screen, HelpScreen)
            await pilot.press(*["backspace"] * 6, "enter")
            await pilot.pause()
            assert session.game.history[0]["do"] == {"type": "admit", "card": "P29", "space": 4}

    run(scenario())


def test_a_number_sent_after_the_list_changed_is_refused_once_naming_the_new_action():
    """A number typed while the bots' actions were shown meant the list the player saw before.
    (Each bot action stays 600 s on screen here and the test skips to the decision, so the
    timing is fixed.)"""
    session = Session.new(players=2, seats=["greedy", "human"], seed=11)

    async def scenario():
        app = TriageApp(session, bot_delay=600)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.press("colon", "2")
            while not session.human_to_move():
                await pilot.pause(0.01)
            await pilot.pause()
            assert app.pace.busy and not app.legal and command_text(app) == "2"
            await pilot.press("f3")
            await pilot.pause()
            legal = session.legal()
            assert app.legal == legal
            await pilot.press("enter")
            await pilot.pause()
            assert not [entry for entry in session.game.history if entry["by"] == 1]
            assert f"action 2 is now: {describe_action(legal[1])}. Enter again" in status_text(app)
            assert command_text(app) == "2"
            await pilot.press("enter")
            await pilot.pause()
            assert [entry["do"] for entry in session.game.history if entry["by"] == 1][0] == legal[1]

    run(scenario())


def test_help_opens_from_the_list_and_from_the_command_line():
    session = Session.new(players=2, seats=["human", "greedy"], seed=11, config=SHORT)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            text = str(app.screen.query_one("#help").render())
            for part in ("KEYS", "heal CARD AMOUNT", "T7 ", "C2 C4", "Enter"):
                assert part in text
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen) and app.focused is app.query_one("#actions")
            await pilot.press("colon", *"help", "enter")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert app.focused is app.query_one("#command")
            # F1 opens help from the command line too, and closing it keeps the typed text.
            await pilot.press(*"admit P20 1", "enter", *"admit P29 2", "enter", *"pass", "f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape", "enter")
            await pilot.pause()
            # A patient of it dies tonight: the pass is asked about first.
            assert isinstance(app.screen, ConfirmScreen)
            assert "dies tonight" in str(app.screen.query_one("#question").render())
            await pilot.press("y")
            await pilot.pause()
            mine = [entry["do"] for entry in session.game.history if entry["by"] == 0]
            assert mine[2] == {"type": "pass"}

    run(scenario())


def test_bots_play_on_under_the_help_screen():
    """The board underneath keeps showing the bots' actions while help covers it, and the end
    still shows once they have all been shown."""
    session = Session.new(players=2, seats=["greedy", "random"], seed=11, config=SHORT)

    async def scenario():
        app = TriageApp(session, bot_delay=600)  # one action on screen until the test skips
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen) and not app.finished
            shown = str(app.board_screen.query_one("#board").render())
            for _ in range(600):
                if session.game.is_over():
                    break
                await pilot.pause(0.05)
            assert app.pace.busy and str(app.board_screen.query_one("#board").render()) == shown
            app.action_skip()
            await pilot.pause()
            await pilot.pause()
            assert session.game.is_over()
            assert [type(screen) for screen in app.screen_stack[1:]] == [HelpScreen, GameOverScreen]
            assert "Game over." in str(app.board_screen.query_one("#board").render())
            await pilot.press("escape", "escape")
            await pilot.pause()
            assert app.screen is app.board_screen

    run(scenario())


def burst(app, text):
    """Keys as a fast typist or a paste sends them: all queued before the app handles any."""
    names = {" ": "space", ":": "colon", "?": "question_mark", "\n": "enter"}
    for character in text:
        app.post_message(
            events.Key(names.get(character, character), "\r" if character == "\n" else character)
        )


def test_commands_typed_fast_arrive_whole_and_one_at_a_time():
    """The focus moves to the command line a moment after the first letter typed in the list; the
    keys already on their way (digits, Enter, the next command) must go there in order, and each
    Enter must send one command, on the list or on the command line."""
    session = Session.new(players=2, seats=["human", "greedy"], seed=11, config=SHORT)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            burst(app, "admit P20 1\nadmit P29 2\n")
            for _ in range(3):
                await pilot.pause()
            mine = [entry["do"] for entry in session.game.history if entry["by"] == 0]
            assert mine == [
                {"type": "admit", "card": "P20", "space": 1},
                {"type": "admit", "card": "P29", "space": 2},
            ]
            assert app.focused is app.query_one("#command") and command_text(app) == ""
            # On the command line itself: two commands in one burst, then the start of a third.
            while not session.human_to_move():
                await pilot.pause()
            burst(app, "heal P29 4\nbuy healing\npa")
            for _ in range(3):
                await pilot.pause()
            mine = [entry["do"]["type"] for entry in session.game.history if entry["by"] == 0]
            assert mine == ["admit", "admit", "heal", "buy"] and command_text(app) == "pa"
            # ':' in the list, then a number and Enter at once: typed, not pointed at.
            await pilot.press(*["backspace"] * 2, "escape")
            while not session.human_to_move():
                await pilot.pause()
            legal = session.legal()
            burst(app, ":2\n")
            for _ in range(3):
                await pilot.pause()
            assert [entry["do"] for entry in session.game.history if entry["by"] == 0][-1] == legal[1]

    run(scenario())


def test_the_end_of_a_solo_game_shows_its_tier():
    session = Session.new(players=1, seats=["greedy"], seed=2, config=SHORT)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            for _ in range(200):
                if isinstance(app.screen, GameOverScreen):
                    break
                await pilot.pause()
            final = str(app.screen.query_one("#final").render())
            assert session.solo_tier_line() in final and "Solo tier:" in final

    run(scenario())


def test_a_click_points_and_a_second_click_takes_so_a_double_click_takes_one_action():
    session = Session.new(players=2, seats=["human", "greedy"], seed=11)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause()
            legal = session.legal()
            await pilot.click("#actions", offset=(5, 2))  # the second line: action 2
            await pilot.pause()
            assert session.game.history == [] and app.query_one("#actions").highlighted == 1
            assert f"2. {describe_action(legal[1])}: Enter takes it" in status_text(app)
            await pilot.click("#actions", offset=(5, 2))
            await pilot.pause()
            assert [entry["do"] for entry in session.game.history] == [legal[1]]
            renumbered = session.legal()
            await pilot.double_click("#actions", offset=(5, 3))
            await pilot.pause()
            mine = [entry["do"] for entry in session.game.history if entry["by"] == 0]
            assert mine == [legal[1], renumbered[2]]

    run(scenario())


def test_an_enter_typed_a_beat_too_fast_does_not_uncover_the_next_seat():
    """Hot seat: the last player's extra Enter (and the start of another command) reach the
    pass-the-device screen, which ignores keys at first; the next seat's command line is empty."""
    session = Session.new(players=2, seats=["human", "human"], seed=3, config=SHORT)

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            await pilot.pause(PassDeviceScreen.GUARD_SECONDS)
            await pilot.press("enter")
            await pilot.pause()
            assert session.turn == 0 and not isinstance(app.screen, PassDeviceScreen)
            await pilot.press("colon")
            burst(app, describe_action(session.legal()[0]) + "\n")
            for _ in range(3):
                await pilot.pause()
            assert session.turn == 0 and len(session.game.history) == 1
            # Player 0's last admission, then (a beat too fast) an Enter and a command meant for
            # nobody: the command must not act for player 1, nor stay on player 1's line.
            first_of_seat_1 = "admit P38 1"
            burst(app, describe_action(session.legal()[0]) + f"\n\n{first_of_seat_1}\n\n")
            for _ in range(3):
                await pilot.pause()
            assert session.turn == 1 and len(session.game.history) == 2
            assert isinstance(app.screen, PassDeviceScreen) and board_text(app).strip() == ""
            await pilot.pause(PassDeviceScreen.GUARD_SECONDS)
            await pilot.press("enter")
            await pilot.pause()
            assert "Player 1 (human) - you" in board_text(app) and command_text(app) == ""

    run(scenario())


def test_a_pass_that_lets_a_patient_die_and_q_are_asked_about_first(tmp_path):
    """The heal trap: two critical patients need 5 healing each, the seat can pay 4 (C2)."""
    deck = parse_deck(
        {
            "cards": [
                {"id": f"X{n}", "kind": "critical", "healing": 5, "credits": 2, "vp": 3} for n in range(12)
            ]
        },
        "test deck",
    )
    session = Session.new(players=1, seats=["human"], seed=3, deck=deck, save_path=tmp_path / "game.json")

    async def scenario():
        app = TriageApp(session, bot_delay=0)
        async with app.run_test(size=(150, 50)) as pilot:
            for space, card in enumerate(list(session.game.players[0].pending), start=1):
                session.act({"type": "admit", "card": card, "space": space})
            app.refresh_board()
            await pilot.press("colon")
            await pilot.press(*"pass", "enter")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            question = str(app.screen.query_one("#question").render())
            assert "dies tonight" in question and "fly it out with a Helicopter" in question
            await pilot.press("n")
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmScreen) and session.game.round == 1
            assert not session.game.players[0].passed
            await pilot.press("escape", "q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "saved in" in str(app.screen.query_one("#question").render())
            await pilot.press("escape")
            await pilot.pause()
            assert app.is_running and not isinstance(app.screen, ConfirmScreen)
            await pilot.press("q", "y")
            await pilot.pause()
        assert not app.is_running

    run(scenario())
