"""Chat and reactions in the browser (issue 39, point 4): two players at one table, Ann at
1280x800 and Bo on a 390x844 phone, chat and react; a line with a script, markup and an address
shows as typed (never run, never a link); Bo's lines come to Ann's page while his chat is closed
(its toggle counts them); Ann mutes Bo in her browser; spectators read the chat, or not, as the
table was created; nothing said changes the game. axe-core finds nothing serious with the chat
open at either width, and the phone's action sheet stays in view.

Bo plays in another origin (``localhost`` against Ann's ``127.0.0.1``): another browser's
storage. The screenshots ``chat-table-desktop`` and ``chat-table-phone`` are docs/web.md's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("axe_playwright_python", reason="the test extra (axe-playwright-python) is not installed")

from page_helpers import DESKTOP, PHONE, call, create, pass_round, serious_violations, shoot, sync_api, view
from test_web_page_lobby import guest_url
from test_web_page_phone import SMALL_TARGETS, SMALL_TEXT
from web_server import ServerProcess

SCRIPTED = (
    "<script>window.pwned = 1</script> <b>hi</b> <img src=x onerror=window.pwned=2> https://example.com"
)


def seat_page(tab: sync_api.Page, origin: str, table_id: str, seat: int, token: str) -> None:
    """Open a table in ``tab`` as ``seat``, in the storage of ``origin``."""
    tab.goto(origin + "/")
    tab.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [f"triage.seat.{table_id}", json.dumps({"seat": seat, "token": token})],
    )
    tab.goto(f"{origin}/#/t/{table_id}")
    tab.wait_for_selector("#bar .round")


def chat_lines(tab: sync_api.Page) -> list[str]:
    return [text.strip() for text in tab.locator("#chat-lines li:not(.hint)").all_inner_texts()]


def wait_for_line(tab: sync_api.Page, text: str) -> None:
    tab.wait_for_function(
        "text => [...document.querySelectorAll('#chat-lines li')].some(li => li.textContent.includes(text))",
        arg=text,
    )


def say(tab: sync_api.Page, text: str) -> None:
    tab.fill("#chat-text", text)
    tab.press("#chat-text", "Enter")
    tab.wait_for_function("() => document.querySelector('#chat-text').value === ''")


def clean(tab: sync_api.Page, width: dict[str, int], what: str) -> None:
    """axe-core finds nothing serious, nothing scrolls sideways; on a phone no small text or target."""
    assert serious_violations(tab) == [], what
    assert tab.evaluate("document.documentElement.scrollWidth") <= width["width"], what
    if width == PHONE:
        assert tab.evaluate(SMALL_TEXT) == [], (what, "text under 12 px")
        assert tab.evaluate(SMALL_TARGETS) == [], (what, "targets under 24x24 px")


def test_two_players_chat_react_and_mute_and_the_game_never_moves(
    server: ServerProcess, page: sync_api.Page, browser_context: sync_api.BrowserContext, shots: Path
) -> None:
    created = call(
        server, "POST", "/api/tables", {"players": 2, "seed": 5, "creator_seats": [0], "name": "Ann"}
    )
    table_id, ann_token = created["table_id"], created["seats"][0]["token"]
    bo_token = call(
        server,
        "POST",
        f"/api/tables/{table_id}/join",
        {"invite": created["invites"][0]["code"], "name": "Bo"},
    )["token"]
    before = view(server, table_id, ann_token)

    page.set_viewport_size(DESKTOP)
    seat_page(page, server.url, table_id, 0, ann_token)
    errors: list[str] = []
    bo = browser_context.new_page()
    bo.on("pageerror", lambda error: errors.append(str(error)))
    bo.set_viewport_size(PHONE)
    seat_page(bo, guest_url(server, ""), table_id, 1, bo_token)

    # On a wide screen the chat is open beside the board; on the phone it waits behind its toggle.
    page.wait_for_selector("#chat:not([hidden]) #chat-text")
    assert bo.locator("#chat").is_hidden() and bo.locator("#chat-toggle").inner_text() == "Chat"

    say(page, SCRIPTED)
    bo.wait_for_function("() => document.querySelector('#chat-toggle').textContent === 'Chat (1 new)'")
    assert bo.locator("#chat-toggle").get_attribute("aria-expanded") == "false"
    bo.click("#chat-toggle")
    bo.wait_for_selector("#chat:not([hidden])")
    assert bo.locator("#chat-toggle").inner_text() == "Chat"
    assert chat_lines(bo) == [f"Ann: {SCRIPTED}"]  # shown as typed
    for tab in (page, bo):
        assert tab.locator("#chat-lines script, #chat-lines b, #chat-lines img, #chat-lines a").count() == 0
        assert tab.evaluate("window.pwned") is None
    assert chat_lines(page) == [f"You: {SCRIPTED}"]

    # Bo reacts and answers; Ann's page shows both in order.
    bo.get_by_role("button", name="React: Good game").click()
    wait_for_line(page, "Good game")
    say(bo, "hello Ann")
    wait_for_line(page, "hello Ann")
    assert chat_lines(page)[1:] == ["Bo: Good game", "Bo: hello Ann"]
    clean(page, DESKTOP, "desktop, chat open")
    clean(bo, PHONE, "phone, chat open")
    # The phone's action sheet stays in view with the chat open (the chat is in the page's flow).
    sheet = bo.locator("#panel").bounding_box()
    assert (
        sheet is not None
        and sheet["y"] + sheet["height"] <= PHONE["height"] + 1
        and sheet["y"] < PHONE["height"]
    )
    assert bo.locator("#chat-toggle").is_visible()
    shoot(page, shots, "chat-table-desktop")
    shoot(bo, shots, "chat-table-phone")

    # Ann mutes Bo in her browser: his lines go, counted; new ones stay hidden; Bo's page is as before.
    page.get_by_label("Mute Bo").check()
    page.wait_for_selector("#chat-muted:has-text('2 lines from muted players hidden')")
    assert chat_lines(page) == [f"You: {SCRIPTED}"]
    say(bo, "are you there?")
    page.wait_for_selector("#chat-muted:has-text('3 lines from muted players hidden')")
    assert chat_lines(page) == [f"You: {SCRIPTED}"]
    assert chat_lines(bo)[-1] == "You: are you there?"
    page.reload()
    page.wait_for_selector(
        "#chat-muted:has-text('3 lines from muted players hidden')"
    )  # kept in this browser
    page.get_by_label("Mute Bo").uncheck()
    wait_for_line(page, "are you there?")
    assert len(chat_lines(page)) == 4

    # Nothing said moved the game: the same view, action count and choices as before.
    assert view(server, table_id, ann_token) == before
    bo.close()
    assert errors == []


@pytest.mark.parametrize("spectators", ["read", "off"])
def test_spectators_read_the_chat_or_not_as_the_table_was_created(
    server: ServerProcess, page: sync_api.Page, spectators: str
) -> None:
    table_id, tokens = create(server, players=2, seed=3, spectator_chat=spectators)
    call(server, "POST", f"/api/tables/{table_id}/chat", {"text": "hello, spectators?"}, tokens[0])
    page.set_viewport_size(DESKTOP)
    page.goto(f"{server.url}/#/t/{table_id}")  # this origin holds no seat here: a spectator
    page.wait_for_selector("#bar .round")
    page.wait_for_selector("#chat:not([hidden]) #chat-lines")
    assert page.locator("#chat-text").count() == 0  # spectators write nothing
    if spectators == "read":
        wait_for_line(page, "hello, spectators?")
        assert "only the players write" in page.locator("#chat").inner_text()
        call(server, "POST", f"/api/tables/{table_id}/chat", {"reaction": "nice"}, tokens[1])
        wait_for_line(page, "Nice move")
    else:
        assert "spectators do not read it" in page.locator("#chat").inner_text()
        assert chat_lines(page) == []
        call(server, "POST", f"/api/tables/{table_id}/chat", {"reaction": "nice"}, tokens[1])
        page.wait_for_timeout(500)  # nothing comes (the server sends spectators no line)
        assert chat_lines(page) == []
    assert serious_violations(page) == []


def test_the_replay_shows_what_was_said_at_each_step_as_typed(
    server: ServerProcess, page: sync_api.Page
) -> None:
    """Issue 39 point 4: the chat is in the record and the replay; each line at the step it was
    said, by name, as plain text (the markup of a line never runs in the replay either)."""
    created = call(
        server,
        "POST",
        "/api/tables",
        {"players": 2, "seed": 3, "creator_seats": [0], "name": "Ann", "config": {"rounds": 2}},
    )
    table_id = created["table_id"]
    join = {"invite": created["invites"][0]["code"], "name": "Bo"}
    tokens = {
        0: created["seats"][0]["token"],
        1: call(server, "POST", f"/api/tables/{table_id}/join", join)["token"],
    }
    call(server, "POST", f"/api/tables/{table_id}/chat", {"text": "good luck"}, tokens[0])
    pass_round(server, table_id, tokens)
    call(server, "POST", f"/api/tables/{table_id}/chat", {"text": SCRIPTED}, tokens[1])
    while not call(server, "GET", f"/api/tables/{table_id}")["over"]:
        pass_round(server, table_id, tokens)
    said = {
        line["text"]: line["at"] for line in call(server, "GET", f"/api/tables/{table_id}/record")["chat"]
    }
    assert said["good luck"] == 0 < said[SCRIPTED]
    page.set_viewport_size(DESKTOP)
    seat_page(page, server.url, table_id, 0, tokens[0])
    page.click("[data-key='replay']")
    page.wait_for_selector("#replay h2")
    assert page.locator("#replay .replay-chat li").all_inner_texts() == [
        "You: good luck"
    ]  # Ann reads her own line as hers
    for step in range(1, said[SCRIPTED] + 1):
        page.click("[data-key='replay-next']")
        page.wait_for_function(
            f"document.querySelector('#replay h2').textContent.startsWith('Replay: step {step} ')"
        )
    assert page.locator("#replay .replay-chat li").all_inner_texts() == [f"Bo: {SCRIPTED}"]
    assert page.locator("#replay script, #replay img, #replay a[href^='https']").count() == 0
    assert page.evaluate("window.pwned") is None
    page.click("[data-key='replay-next']")
    page.wait_for_function(
        f"!document.querySelector('#replay h2').textContent.startsWith('Replay: step {said[SCRIPTED]} ')"
    )
    assert page.locator("#replay .replay-chat").count() == 0
    assert serious_violations(page) == []
