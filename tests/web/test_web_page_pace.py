"""Bots you can watch (issue 39, point 1): each move of another seat reaches the page as its own
step, a pace apart (a setting of the table page, from instant to slow), with its card marked and
its line under the status bar; "Skip to my turn" shows the present at once; your own move is
drawn at once; a page that (re)connects catches up at once. The pace only presents moves the
server has made already."""

from __future__ import annotations

import pytest
from page_helpers import DESKTOP, PHONE, call, create, deck_of, open_seat, serious_violations, sync_api
from test_web_browser import admit_all
from web_server import ServerProcess

#: Every text the move line under the status bar shows, in order (a MutationObserver's record).
WATCH_TICKER = """() => {
  window.tickerSeen = [];
  const ticker = document.querySelector('#ticker');
  new MutationObserver(() => {
    const text = ticker.textContent;
    if (text && window.tickerSeen[window.tickerSeen.length - 1] !== text) window.tickerSeen.push(text);
  }).observe(ticker, {childList: true, characterData: true, subtree: true});
}"""


def set_pace(page: sync_api.Page, pace: str) -> None:
    page.evaluate("pace => localStorage.setItem('triage.pace', pace)", pace)


def bot_actions(server: ServerProcess, table: str, token: str, after: int) -> list[dict[str, object]]:
    record = call(server, "GET", f"/api/tables/{table}/record", token=token)
    return [entry for entry in record["actions"][after:] if entry["by"] != 0]


#: Whether the page shows round ``round`` with the seat to play and no move left to show.
SETTLED_IN = """round => {
  const bar = document.querySelector('#bar');
  return bar.dataset.round === String(round) && !!bar.querySelector('.yours') && !bar.querySelector('button.skip');
}"""


def pass_turn(page: sync_api.Page) -> None:
    """Admit what arrived (one tap each), then Pass, confirmed if the page asks."""
    admit_all(page)
    page.click("#bar button.pass")
    if page.locator("#confirm-pass[open]").count():
        page.click("#confirm-ok")


def test_each_bot_move_is_its_own_step_and_skip_shows_the_present(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.set_viewport_size(DESKTOP)
    # Two quick bots: their moves come with the answer to yours, all made at once by the server.
    table, tokens = create(
        server, players=3, bots=[None, "greedy", "greedy"], seed=4, deck=deck_of("severe", 20)
    )
    open_seat(page, server, table, 0, tokens[0])
    set_pace(page, "quick")
    page.reload()
    page.wait_for_selector("#bar .round")
    admit_all(page)
    page.wait_for_function(SETTLED_IN, arg=1, timeout=60_000)
    before = call(server, "GET", f"/api/tables/{table}/view", token=tokens[0])["actions"]
    page.evaluate(WATCH_TICKER)
    pass_turn(page)
    page.wait_for_function(SETTLED_IN, arg=2, timeout=60_000)  # every step shown, a pace apart
    moves = bot_actions(server, table, tokens[0], before + 1)
    seen = page.evaluate("window.tickerSeen")
    # One line per bot move (a move whose line repeats the one before counts once).
    assert len(moves) >= 2 and len(seen) >= 2, (moves, seen)
    assert all(line.startswith("Quick bot") for line in seen), seen

    # Slow, then skip: the present at once.
    set_pace(page, "slow")
    before = call(server, "GET", f"/api/tables/{table}/view", token=tokens[0])["actions"]
    pass_turn(page)
    skip = page.locator("#bar button.skip")
    skip.wait_for()
    # Your pass stays a pace on screen, then the first bot move with its line.
    page.wait_for_function("document.querySelector('#ticker').textContent.startsWith('Quick bot')")
    assert page.locator("#bar button.skip").count() == 1
    assert page.locator(".card.acting").count() <= 1
    assert len(bot_actions(server, table, tokens[0], before + 1)) >= 2  # all made already
    skip.click()
    page.wait_for_function(SETTLED_IN, arg=3, timeout=5_000)
    assert page.locator(".card.acting").count() == 0 and page.locator("#ticker").inner_text() == ""


def test_your_own_move_is_drawn_at_once_and_a_reconnection_catches_up_at_once(
    server: ServerProcess, page: sync_api.Page
) -> None:
    pytest.importorskip(
        "axe_playwright_python", reason="the test extra (axe-playwright-python) is not installed"
    )
    page.set_viewport_size(PHONE)
    table, tokens = create(server, players=2, bots=[None, "greedy"], seed=7, deck=deck_of("critical", 12))
    open_seat(page, server, table, 0, tokens[0])
    set_pace(page, "slow")
    page.reload()
    page.wait_for_selector("#bar .round")
    admit_all(page)  # each admission drawn at once: no pace before your own move
    page.wait_for_selector("#bar .yours", timeout=60_000)
    page.click("#bar button.pass")
    if page.locator("#confirm-pass[open]").count():
        page.click("#confirm-ok")
    page.locator("#bar button.skip").wait_for()
    # Moves waiting to be shown, at 390x844: axe-core finds nothing serious (the skip button, the
    # move's line, the marked card).
    page.wait_for_function("document.querySelector('#ticker').textContent !== ''")
    assert serious_violations(page) == []
    # A reload while moves wait: the hello draws the present at once, nothing left to show.
    page.reload()
    page.wait_for_selector("#bar .round")
    assert page.locator("#bar button.skip").count() == 0
    turn = call(server, "GET", f"/api/tables/{table}/view", token=tokens[0])["turn"]
    if turn == 0:
        assert page.locator("#bar .yours").count() == 1


def test_the_pace_is_a_setting_of_the_table_page(server: ServerProcess, page: sync_api.Page) -> None:
    """The table's pace (its creator's choice) unless this browser chose its own (issue 39, 1)."""
    page.set_viewport_size(DESKTOP)
    table, tokens = create(server, players=2, bots=[None, "greedy"], seed=7, pace="slow")
    open_seat(page, server, table, 0, tokens[0])
    page.evaluate("localStorage.removeItem('triage.pace')")  # another test chose one
    page.reload()
    pace = page.locator("#settings select#pace")
    pace.wait_for()
    assert pace.locator("option").evaluate_all("nodes => nodes.map(n => n.value)") == [
        "",
        "instant",
        "quick",
        "normal",
        "slow",
    ]
    page.wait_for_function("() => document.querySelector('#pace option').textContent.includes('slow')")
    assert pace.input_value() == ""  # the table's own pace: slow
    pace.select_option("instant")
    assert page.evaluate("localStorage.getItem('triage.pace')") == "instant"
    pace.select_option("")  # back to the table's
    assert page.evaluate("localStorage.getItem('triage.pace')") is None
