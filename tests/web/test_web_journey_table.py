"""A two-human table's whole life in the browser (issue 20, "Done means"): the host makes it in the
form with a clock and an absence limit, the guest opens the invitation, types a name and takes the
seat (a waiting room until then, names shown); both are online; the guest's page closes, a
stand-in bot plays the seat after the limit and everyone sees it; the guest opens the table again
and has the seat back; the game is played out through the API, the host offers the rematch and
the guest joins it with one click, keeping the name. At 1280x800 and 390x844, axe-core (WCAG 2.2
AA) clean, phone text >= 12 px and targets >= 24x24 CSS px in every state.

The server runs in its own process (no injectable clock): the absence limit is the API's
shortest, 5 s. The guest plays in another origin (``localhost``): another browser's storage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("axe_playwright_python", reason="the test extra (axe-playwright-python) is not installed")

from page_helpers import WIDTHS, ask_for_a_hint, call, pass_round, serious_violations, shoot, sync_api, view
from test_web_page_clocks import AWAY_WAIT_MS, pass_turn, seat_line
from test_web_page_lobby import guest_url, saved_token
from test_web_page_phone import SMALL_TARGETS, SMALL_TEXT
from web_server import ServerProcess

HOST, GUEST = "Ann", "Bo"
#: The form offers a minute at least; the API accepts 5 s (clocks.MIN_AWAY): the test adds it.
SHORTEST_AWAY = """() => document.querySelector('#away').add(new Option('after 5 seconds', '5'))"""


def check_state(page: sync_api.Page, width: str, shots: Path, name: str) -> None:
    """axe-core finds nothing serious, nothing scrolls sideways; on a phone no small text or target."""
    assert serious_violations(page) == [], (name, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"], (name, width)
    if width == "phone":
        assert page.evaluate(SMALL_TEXT) == [], (name, "text under 12 px")
        assert page.evaluate(SMALL_TARGETS) == [], (name, "targets under 24x24 px")
    shoot(page, shots, f"journey-table-{name}-{width}")


def host_a_table(page: sync_api.Page, server: ServerProcess, width: str, shots: Path) -> str:
    """The host's form: a second human seat, a name, a clock and an absence limit; the table's id."""
    page.goto(server.url + "/")
    page.wait_for_selector("#seat-choices select")
    page.fill("#player-name", HOST)
    page.select_option('#seat-choices select[data-seat="1"]', "human")
    page.fill("#seed", "5")
    page.select_option("#clock", "300/15")
    page.evaluate(SHORTEST_AWAY)
    page.select_option("#away", "5")
    page.select_option("#stand-in-level", "greedy")
    check_state(page, width, shots, "form")
    page.click("#new-table button[type=submit]")
    page.wait_for_selector("#lobby:not([hidden])")
    return str(page.evaluate("location.hash")).removeprefix("#/t/")


def open_the_invitation(guest: sync_api.Page, server: ServerProcess, link: str) -> None:
    guest.goto(guest_url(server, link.removeprefix(server.url)))
    guest.wait_for_selector("#invited:not([hidden])")
    guest.fill("#invited-name", GUEST)
    guest.click("#invited-take")
    guest.wait_for_selector("#bar .round")


def play_to_the_end(server: ServerProcess, table_id: str, tokens: dict[int, str]) -> None:
    for _ in range(20):
        if view(server, table_id, tokens[0])["phase"] == "over":
            return
        pass_round(server, table_id, tokens)
    raise AssertionError("the game did not end")


def guest_tab(context: sync_api.BrowserContext, width: str, errors: list[str]) -> sync_api.Page:
    tab = context.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.set_viewport_size(WIDTHS[width])
    return tab


def wait_for_presence(page: sync_api.Page, seat: int, presence: str) -> None:
    page.wait_for_function(
        f"""document.querySelector('h2.player-title[data-seat="{seat}"] .presence')?.textContent === '{presence}'""",
        timeout=AWAY_WAIT_MS,
    )


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_table_from_invitation_through_an_absence_to_the_rematch(
    server: ServerProcess,
    page: sync_api.Page,
    browser_context: sync_api.BrowserContext,
    shots: Path,
    width: str,
) -> None:
    page.set_viewport_size(WIDTHS[width])
    table_id = host_a_table(page, server, width, shots)
    assert page.locator("#bar .turn").inner_text() == "Waiting for players"
    assert f"You ({HOST}), host: here" in page.locator("#lobby").inner_text()
    link = page.locator("#invites input").first.input_value()
    check_state(page, width, shots, "waiting-room")
    live = call(server, "GET", f"/api/tables/{table_id}/live")
    assert live["away_seconds"] == 5 and live["clock"]["bank"] == 300 and live["stand_in"] == "greedy"

    errors: list[str] = []
    guest = guest_tab(browser_context, width, errors)
    open_the_invitation(guest, server, link)
    page.wait_for_selector("#lobby", state="hidden")
    page.wait_for_selector("#invites", state="hidden")
    assert GUEST in page.locator("#others .player-title").inner_text()
    assert guest.locator("#me .player-title").inner_text().startswith(f"Your hospital ({GUEST})")
    wait_for_presence(page, 1, "online")
    wait_for_presence(guest, 0, "online")
    check_state(page, width, shots, "both-online")
    check_state(guest, width, shots, "guest")
    tokens = {0: saved_token(page, table_id), 1: saved_token(guest, table_id)}

    guest.close()  # the guest's page closes: away, then a bot plays the seat
    wait_for_presence(page, 1, "away")
    if view(server, table_id, tokens[0])["turn"] == 0:
        pass_turn(page)  # the turn goes to the absent seat
    stand_in = seat_line(page, 1).locator(".badge.stand-in")
    stand_in.wait_for(timeout=AWAY_WAIT_MS)
    assert stand_in.inner_text() == "played by a bot while away"
    page.wait_for_function("document.title.startsWith('(Your turn)')", timeout=AWAY_WAIT_MS)
    assert call(server, "GET", f"/api/tables/{table_id}/live")["presence"][1]["stand_in"] == "greedy"
    check_state(page, width, shots, "played-by-a-bot")

    guest = guest_tab(browser_context, width, errors)  # the guest comes back
    guest.goto(guest_url(server, f"/#/t/{table_id}"))
    guest.wait_for_selector("#bar .round")
    assert guest.locator("#me .player-title").inner_text().startswith(f"Your hospital ({GUEST})")
    stand_in.wait_for(state="detached", timeout=10_000)
    wait_for_presence(page, 1, "online")
    check_state(guest, width, shots, "back")

    play_to_the_end(server, table_id, tokens)
    page.wait_for_selector("#over:not([hidden])")
    guest.wait_for_selector("#over:not([hidden])")
    check_state(page, width, shots, "over")
    page.click("[data-key='rematch']")
    page.wait_for_function(f"!location.hash.endsWith('{table_id}')")
    rematch_id = str(page.evaluate("location.hash")).split("/")[-1]
    page.wait_for_selector("#lobby:not([hidden])")
    assert f"{GUEST}: not here yet" in page.locator("#lobby").inner_text()
    guest.wait_for_function(
        "document.querySelector(\"[data-key='rematch']\")?.textContent === 'Join the rematch'"
    )
    check_state(guest, width, shots, "rematch-offer")
    guest.click("[data-key='rematch']")  # one click, the name kept
    guest.wait_for_function(f"location.hash === '#/t/{rematch_id}'")
    guest.wait_for_selector("#bar .round")
    page.wait_for_selector("#lobby", state="hidden")
    assert guest.locator("#me .player-title").inner_text().startswith(f"Your hospital ({GUEST})")
    facts = call(server, "GET", f"/api/tables/{rematch_id}")
    assert [seat["name"] for seat in facts["seats"]] == [HOST, GUEST] and not facts["waiting"]
    check_state(page, width, shots, "rematch")
    guest.close()
    assert errors == [], f"script errors in the guest's page: {errors}"


def test_the_readme_picture_of_a_table_shows_names_clocks_presence_undo_and_a_hint(
    server: ServerProcess,
    page: sync_api.Page,
    browser_context: sync_api.BrowserContext,
    shots: Path,
) -> None:
    """The README's picture of the table page (``journey-table-readme-*``): two named players online with
    their clocks, the one to move with an arrival admitted (Undo offered) and a hint shown."""
    created = call(
        server,
        "POST",
        "/api/tables",
        {
            "players": 2,
            "creator_seats": [0],
            "name": HOST,
            "seed": 5,
            "clock": {"bank": 600, "increment": 30},
        },
    )
    table_id, token = created["table_id"], created["seats"][0]["token"]
    page.set_viewport_size(WIDTHS["desktop"])
    page.goto(server.url + "/")
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [f"triage.seat.{table_id}", json.dumps({"seat": 0, "token": token})],
    )
    page.goto(f"{server.url}/#/t/{table_id}")
    errors: list[str] = []
    guest = guest_tab(browser_context, "desktop", errors)
    open_the_invitation(guest, server, created["invites"][0]["url"])
    pages = {0: page, 1: guest}
    mover = pages[view(server, table_id, token)["turn"]]
    wait_for_presence(mover, 0, "online")
    wait_for_presence(mover, 1, "online")
    mover.locator(
        "#me .pending button.card"
    ).first.click()  # an arrival, admitted in one tap: nothing revealed
    mover.wait_for_selector("#panel button.undo[aria-disabled='false']")
    ask_for_a_hint(mover)
    titles = (
        mover.locator("#me .player-title").inner_text() + mover.locator("#others .player-title").inner_text()
    )
    assert HOST in titles and GUEST in titles
    assert mover.locator(".seat-live .clock").count() == 2
    for width in ("desktop", "phone"):
        mover.set_viewport_size(WIDTHS[width])
        mover.evaluate("window.scrollTo(0, 0)")
        check_state(mover, width, shots, "readme")
    guest.close()
    assert errors == [], f"script errors in the guest's page: {errors}"
