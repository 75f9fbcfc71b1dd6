"""Turn signals (issue 20): "(Your turn)" in the tab's title, a spoken status, and a summary of
last night's Cleanup, gone by itself with the seat's first move of the new round (issue 39: no tap
to put it away, and no stale summary of an older round)."""

from __future__ import annotations

from pathlib import Path

from page_helpers import PHONE, create, deck_of, open_seat, serious_violations, shoot, sync_api
from test_web_browser import admit_all
from web_server import ServerProcess


def test_the_title_and_a_live_status_say_your_turn_and_cleanup_is_summed_up(
    server: ServerProcess, page: sync_api.Page, shots: Path
) -> None:
    page.set_viewport_size(PHONE)
    table, tokens = create(
        server, players=1, seed=2, deck=deck_of("critical"), config={"start": {"helicopters": 0}}
    )
    open_seat(page, server, table, 0, tokens[0])
    assert page.title() == f"(Your turn) Triage table {table}"
    live = page.locator("#turn-live")
    assert live.get_attribute("aria-live") == "polite" and live.inner_text().startswith("Your turn, round 1")
    assert page.locator("#cleanup").is_hidden()  # no Cleanup yet
    admit_all(page)
    page.click("#bar button.pass")
    page.click("#confirm-ok")
    page.wait_for_selector("#cleanup:not([hidden])")
    summary = page.locator("#cleanup")
    assert summary.locator("h2").inner_text() == "Last night's Cleanup (round 1)"
    assert summary.locator("button").count() == 0  # nothing to tap
    assert "2 deaths:" in summary.inner_text()
    assert summary.locator("li.died").count() == 2
    assert all(
        text.startswith("Your ") and "dies: −2 QoC" in text
        for text in summary.locator("li.died").all_inner_texts()
    )
    assert live.inner_text().startswith("Your turn, round 2")
    assert serious_violations(page) == []
    shoot(page, shots, "cleanup-summary-phone")
    admit_all(page)  # the first move of round 2
    assert summary.is_hidden()
