"""Presence, clocks and stand-in bots in the page (issue 20, point 6): a two-human table whose
seat goes away is played by a bot, which everyone sees, until its player comes back; a seat out
of time is played by a bot until its player takes it back; turn alerts are off until ticked. At
1280x800 and 390x844, with axe-core finding nothing serious while the clocks are shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("axe_playwright_python", reason="the test extra (axe-playwright-python) is not installed")

from page_helpers import WIDTHS, call, create, open_seat, serious_violations, shoot, sync_api, view
from test_web_browser import admit_all
from test_web_page_phone import SMALL_TARGETS, SMALL_TEXT
from web_server import ServerProcess

#: The server's grace (clocks.GRACE_SECONDS) and the shortest absence limit, plus a margin.
AWAY_WAIT_MS = 25_000


def seat_line(page: sync_api.Page, seat: int) -> sync_api.Locator:
    return page.locator(f'h2.player-title[data-seat="{seat}"] .seat-live')


def pass_turn(page: sync_api.Page) -> None:
    """Admit what arrived and pass (confirming, when the page asks because a patient is at risk)."""
    admit_all(page)
    page.click("#bar button.pass")
    page.wait_for_timeout(300)
    if page.locator("#confirm-pass").is_visible():
        page.click("#confirm-ok")


def seconds(clock: str) -> int:
    minutes, secs = clock.split(":")
    return int(minutes) * 60 + int(secs)


def scan(page: sync_api.Page, shots: Path, name: str) -> None:
    """axe-core at both widths, no sideways scroll, a screenshot of each."""
    for width, size in WIDTHS.items():
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        assert serious_violations(page) == [], (name, width)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"], (name, width)
        if width == "phone":  # no text under 12 px, no target under 24x24 CSS px (WCAG 2.2)
            assert page.evaluate(SMALL_TEXT) == [] and page.evaluate(SMALL_TARGETS) == [], name
        shoot(page, shots, f"clocks-{name}-{width}")


def test_an_away_seat_is_played_by_a_bot_everyone_sees_it_and_the_player_comes_back(
    server: ServerProcess, page: sync_api.Page, browser_context: sync_api.BrowserContext, shots: Path
) -> None:
    table, tokens = create(
        server, players=2, seed=5, clock={"bank": 600, "increment": 30}, away_seconds=5, stand_in="greedy"
    )
    first = view(server, table, tokens[0])["turn"]
    staying, leaving = first, 1 - first  # the one to move stays; the other leaves and is waited for
    other_tab = browser_context.new_page()
    open_seat(other_tab, server, table, leaving, tokens[leaving])
    open_seat(page, server, table, staying, tokens[staying])
    mine, theirs = seat_line(page, staying), seat_line(page, leaving)
    page.wait_for_function(
        f"""document.querySelector('h2.player-title[data-seat="{leaving}"] .presence')?.textContent === 'online'"""
    )
    assert mine.locator(".presence").inner_text() == "online"
    assert mine.locator(".clock.running").count() == 1  # the active clock is highlighted
    assert theirs.locator(".clock").inner_text() == "10:00"
    before = seconds(mine.locator(".clock").inner_text())
    page.wait_for_timeout(2100)
    assert seconds(mine.locator(".clock").inner_text()) < before  # it ticks in the page
    scan(page, shots, "both-online")
    page.set_viewport_size(WIDTHS["desktop"])

    other_tab.close()  # the other player leaves
    theirs.locator(".presence.away").wait_for(timeout=AWAY_WAIT_MS)
    pass_turn(page)  # the turn goes to the absent seat
    stand_in = theirs.locator(".badge.stand-in")
    stand_in.wait_for(timeout=AWAY_WAIT_MS)
    assert stand_in.inner_text() == "played by a bot while away"
    assert page.locator("#stand-in").is_hidden()  # not this seat's
    page.wait_for_function("document.title.startsWith('(Your turn)')", timeout=AWAY_WAIT_MS)
    scan(page, shots, "played-by-a-bot")
    page.set_viewport_size(WIDTHS["desktop"])

    back_tab = browser_context.new_page()  # the player comes back
    open_seat(back_tab, server, table, leaving, tokens[leaving])
    stand_in.wait_for(state="detached", timeout=10_000)
    assert theirs.locator(".presence").inner_text() == "online"
    back_tab.close()


def test_a_seat_out_of_time_is_played_by_a_bot_until_its_player_takes_it_back(
    server: ServerProcess, page: sync_api.Page, browser_context: sync_api.BrowserContext, shots: Path
) -> None:
    # Two seats with one bank each: once seat 0's bank is empty, its stand-in plays seat 0's moves
    # and seat 1 (a player who never comes) is to move for its own 10 seconds. The stand-in waits
    # then, so the page is looked at and the seat taken back however fast the bot plays.
    table, tokens = create(server, players=2, seed=8, clock={"bank": 10}, stand_in="expert")
    assert view(server, table, tokens[0])["turn"] == 0  # R1: seat 0 moves first in round 1
    open_seat(page, server, table, 0, tokens[0])
    assert re.fullmatch(r"0:(10|0\d)", seat_line(page, 0).locator(".clock.running").inner_text())
    box = page.locator("#stand-in")
    box.wait_for(timeout=25_000)
    assert box.inner_text().startswith("Your time ran out: a bot plays for you")
    assert seat_line(page, 0).locator(".badge.stand-in").inner_text() == "played by a bot while out of time"
    scan(page, shots, "out-of-time")
    page.set_viewport_size(WIDTHS["phone"])
    take_back = box.locator("button", has_text="Take my seat back")
    held = take_back.element_handle()
    other_tab = browser_context.new_page()  # news for the page (seat 1 comes online): it redraws
    open_seat(other_tab, server, table, 1, tokens[1])
    page.wait_for_function(
        """document.querySelector('h2.player-title[data-seat="1"] .presence')?.textContent === 'online'"""
    )
    assert held.evaluate("button => button.isConnected")  # the button is not redrawn under the pointer
    take_back.click()
    box.wait_for(state="hidden", timeout=10_000)
    assert seat_line(page, 0).locator(".badge.stand-in").count() == 0
    assert re.fullmatch(r"0:1[0-5]", seat_line(page, 0).locator(".clock").inner_text())
    other_tab.close()


def test_turn_alerts_are_off_until_ticked_and_notifications_ask_permission_only_then(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.add_init_script(
        """
        window.asked = 0; window.shown = []; window.chimes = 0;
        window.Notification = class { constructor(title) { window.shown.push(title); } };
        window.Notification.permission = "default";
        window.Notification.requestPermission = async () => { window.asked += 1; window.Notification.permission = "granted"; return "granted"; };
        window.AudioContext = class {
          constructor() { window.chimes += 1; this.currentTime = 0; this.destination = {}; }
          createOscillator() { return { frequency: {}, connect: (n) => n, start() {}, stop() {} }; }
          createGain() { return { gain: {}, connect: (n) => n }; }
        };
        document.hasFocus = () => false;
        """
    )
    page.set_viewport_size(WIDTHS["phone"])
    table, tokens = create(server, players=2, bots=[None, "random"], seed=3)
    open_seat(page, server, table, 0, tokens[0])
    sound, notify = page.locator("#alert-sound"), page.locator("#alert-notify")
    assert not sound.is_checked() and not notify.is_checked()
    assert page.evaluate("window.asked") == 0  # nothing asked on arrival
    notify.check()
    page.wait_for_function("window.asked === 1")
    sound.check()
    assert page.evaluate(
        "[localStorage.getItem('triage.alert.sound'), localStorage.getItem('triage.alert.notify')]"
    ) == [
        "on",
        "on",
    ]
    chimes = page.evaluate("window.chimes")  # one when ticked, as a sample
    pass_turn(page)  # the bot plays, then the turn comes back
    page.wait_for_function("window.shown.length >= 1", timeout=20_000)
    assert page.evaluate("window.shown")[0] == "Triage: your turn"
    assert page.evaluate("window.chimes") > chimes
    page.reload()
    page.wait_for_selector("#alert-sound")
    assert page.locator("#alert-sound").is_checked()  # remembered


def test_the_new_table_form_sets_a_clock_and_a_stand_in(server: ServerProcess, page: sync_api.Page) -> None:
    page.set_viewport_size(WIDTHS["phone"])
    page.goto(server.url + "/")
    page.wait_for_selector("#seat-choices select")
    page.select_option('#seat-choices select[data-seat="1"]', "human")
    page.select_option("#clock", "300/15")
    page.select_option("#away", "60")
    page.select_option("#stand-in-level", "greedy")
    assert serious_violations(page) == []
    assert page.evaluate(SMALL_TEXT) == [] and page.evaluate(SMALL_TARGETS) == []
    page.click("#new-table button[type=submit]")
    page.wait_for_selector(".seat-live .clock")
    table = page.evaluate("location.hash").removeprefix("#/t/")
    live = call(server, "GET", f"/api/tables/{table}/live")
    assert live["clock"]["bank"] == 300 and live["clock"]["increment"] == 15
    assert live["away_seconds"] == 60 and live["stand_in"] == "greedy"
    assert page.locator(".seat-live .clock").first.inner_text() in ("5:00", "4:59", "4:58")
