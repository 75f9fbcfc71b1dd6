"""A whole solo game in the browser, as a new player plays it (issue 20, "Done means"): against a
gentle bot, the player asks "Suggest a move" and follows it, takes back a quiet action with Undo
and plays on, to the game-over screen. At 1280x800 and 390x844, with axe-core (WCAG 2.2 AA)
clean, phone text >= 12 px and targets >= 24x24 CSS px in every state.

A short game (the create request's ``rounds`` override) keeps the journey quick; its screenshots
are the README's picture of a solo table (``journey-solo-*``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("axe_playwright_python", reason="the test extra (axe-playwright-python) is not installed")

from page_helpers import (
    WIDTHS,
    ask_for_a_hint,
    call,
    create,
    open_seat,
    serious_violations,
    settle,
    shoot,
    sync_api,
)
from test_web_browser import admit_all
from test_web_page_clocks import pass_turn
from test_web_page_hint import follow_hint, wait_for_my_turn_or_the_end
from test_web_page_phone import SMALL_TARGETS, SMALL_TEXT
from test_web_page_undo import ROUNDS, SEED, local_game, quiet_button
from web_server import ServerProcess


def check_state(page: sync_api.Page, width: str, shots: Path, name: str) -> None:
    """axe-core finds nothing serious, nothing scrolls sideways; on a phone no small text or target."""
    assert serious_violations(page) == [], (name, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]["width"], (name, width)
    if width == "phone":
        assert page.evaluate(SMALL_TEXT) == [], (name, "text under 12 px")
        assert page.evaluate(SMALL_TARGETS) == [], (name, "targets under 24x24 px")
    shoot(page, shots, f"journey-solo-{name}-{width}")


def take_back_a_quiet_action(page: sync_api.Page, button: sync_api.Locator, width: str, shots: Path) -> None:
    """Take an action that reveals nothing, see Undo offered, and take it back."""
    button.click()
    undo = page.locator("#panel button.undo")
    page.wait_for_selector("#panel button.undo[aria-disabled='false']")
    assert "can be taken back" in undo.inner_text()
    check_state(page, width, shots, "undo")
    undo.click()
    page.wait_for_selector("#panel .notice:has-text('taken back')")
    check_state(page, width, shots, "taken-back")


def diagnose_button(page: sync_api.Page) -> sync_api.Locator | None:
    """A diagnosis in the full legal list (quiet_button has opened it), or None."""
    for button in page.locator("#panel .all-actions button[data-action]").all():
        if json.loads(button.get_attribute("data-action") or "{}").get("type") == "diagnose":
            return button
    return None


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_whole_solo_game_with_a_hint_and_an_undo(
    server: ServerProcess, page: sync_api.Page, shots: Path, width: str
) -> None:
    page.set_viewport_size(WIDTHS[width])
    table, tokens = create(
        server, players=2, bots=[None, "expert-novice"], seed=SEED, config={"rounds": ROUNDS}
    )
    open_seat(page, server, table, 0, tokens[0])
    check_state(page, width, shots, "start")
    hint, undone = None, False
    for _ in range(120):
        if not wait_for_my_turn_or_the_end(page):
            break
        settle(page)
        game = local_game(server, table, tokens[0])
        if game.is_over() or game.turn != 0:
            continue
        if hint is None:  # the first decision: ask for a hint, read why, and follow it
            ask_for_a_hint(page)
            check_state(page, width, shots, "hint")
            hint = follow_hint(page)
            continue
        if game.in_admission(0):
            admit_all(page)
            continue
        if not undone and (button := quiet_button(page, game)) is not None:
            before = len(game.history)
            take_back_a_quiet_action(page, button, width, shots)
            assert len(local_game(server, table, tokens[0]).history) == before  # the action is gone
            undone = True
            continue  # play on from the same position
        if not undone and (button := diagnose_button(page)) is not None:
            button.click()  # a reveal (T1); a heal after it is quiet, and may be taken back
            continue
        pass_turn(page)
    page.wait_for_selector("#over:not([hidden])")
    check_state(page, width, shots, "game-over")
    assert hint is not None and hint["text"].startswith("Suggested: ")
    assert undone, "the game offered a quiet action to take back"
    record = call(server, "GET", f"/api/tables/{table}/record")
    assert "result" in record
    # The hints asked are kept as hints; the move that followed the hint is the record's.
    hints = record["hints"]
    assert [entry["by"] for entry in hints] == [0, 0]  # asked twice at the first decision
    assert record["actions"][hints[0]["at"]] == {"by": 0, "do": hints[0]["do"]}
