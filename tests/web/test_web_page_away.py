"""While you were away (issue 39, point 5): a player who leaves a two-human table and comes back
after the stand-in bot played for them reads what the bot did for them and what the other player
did, then the current panel; the summary goes with their first move, and no older Cleanup
summary is left on screen beside it. Before, the page said nothing of it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("axe_playwright_python", reason="the test extra (axe-playwright-python) is not installed")

from page_helpers import PHONE, call, create, open_seat, serious_violations, shoot, sync_api, view
from test_web_page_clocks import AWAY_WAIT_MS, pass_turn, seat_line
from test_web_page_phone import SMALL_TARGETS
from web_server import ServerProcess


def stand_in_moves(server: ServerProcess, table: str, token: str) -> list[int]:
    return list(call(server, "GET", f"/api/tables/{table}/record", token=token).get("stand_in_moves", []))


def test_a_returning_player_reads_what_the_bot_and_the_others_did(
    server: ServerProcess, page: sync_api.Page, browser_context: sync_api.BrowserContext, shots: Path
) -> None:
    table, tokens = create(server, players=2, seed=5, away_seconds=5, stand_in="greedy")
    first = view(server, table, tokens[0])["turn"]
    staying, leaving = first, 1 - first
    away_tab = browser_context.new_page()
    open_seat(away_tab, server, table, leaving, tokens[leaving])  # the player looks, then leaves
    away_tab.close()
    open_seat(page, server, table, staying, tokens[staying])
    seat_line(page, leaving).locator(".presence.away").wait_for(timeout=AWAY_WAIT_MS)
    pass_turn(page)  # the turn goes to the absent seat: its stand-in plays
    page.wait_for_function("document.title.startsWith('(Your turn)')", timeout=AWAY_WAIT_MS)
    assert stand_in_moves(server, table, tokens[staying])
    assert page.locator("#while-away").is_hidden()  # the one who stayed saw it all

    back = browser_context.new_page()
    back.set_viewport_size(PHONE)
    open_seat(back, server, table, leaving, tokens[leaving])
    summary = back.locator("#while-away")
    summary.wait_for()
    # The stand-in's level comes with the table's presence news, as the menu names it.
    back.wait_for_function(
        "document.querySelector('#while-away').textContent.includes('The Quick bot played for you')"
    )
    text = summary.inner_text()
    assert text.startswith("While you were away")
    assert "The Quick bot played for you" in text  # the menu's name of the stand-in's level
    assert "The others:" in text
    assert back.locator("#cleanup").is_hidden()  # one account, not two
    assert serious_violations(back) == [] and back.evaluate(SMALL_TARGETS) == []
    shoot(back, shots, "while-you-were-away-phone")
    # The current panel is there too, and the summary goes with the player's first move.
    assert back.locator("#panel").is_visible()
    if view(server, table, tokens[leaving])["turn"] == leaving:
        pass_turn(back)
        summary.wait_for(state="hidden")
    back.close()
    # A page opened again with nothing new since its last look has nothing to sum up.
    again = browser_context.new_page()
    open_seat(again, server, table, leaving, tokens[leaving])
    again.wait_for_timeout(300)
    assert again.locator("#while-away").is_hidden()
    again.close()
