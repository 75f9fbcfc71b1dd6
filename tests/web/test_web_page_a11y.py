"""Accessibility of the page: axe-core (axe-playwright-python) on Debian's Chromium finds no
serious or critical violation at any moment of a game, at desktop and phone width; the page
never scrolls sideways. Each state is saved as a screenshot (see page_helpers.shots).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("axe_playwright_python", reason="the test extra (axe-playwright-python) is not installed")

from page_helpers import (
    WIDTHS,
    create,
    deck_of,
    open_seat,
    pass_round,
    serious_violations,
    shoot,
    sync_api,
)
from test_web_browser import admit_all, my_cards, open_card, refuse_next_action
from web_server import ServerProcess


def check(page: sync_api.Page, shots: Path, name: str, width: str, found: dict[str, list[str]]) -> None:
    """Scan the page as it is now, note what axe finds, check for sideways scrolling, save it."""
    page.wait_for_timeout(150)
    found[name] = serious_violations(page)
    if page.evaluate("document.documentElement.scrollWidth") > WIDTHS[width]["width"]:
        found[name].append("the page scrolls sideways")
    shoot(page, shots, f"{name}-{width}")


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_no_serious_accessibility_violation_at_any_moment(
    server: ServerProcess, page: sync_api.Page, shots: Path, width: str
) -> None:
    page.set_viewport_size(WIDTHS[width])
    found: dict[str, list[str]] = {}

    page.goto(server.url + "/")
    page.wait_for_selector("#solo-bot option", state="attached")
    check(page, shots, "home", width, found)

    # A game against a bot: arrivals, then Treatment with a patient's panel open.
    page.click("#solo")
    page.wait_for_selector("#me .card[data-card]")  # the first two patients (arrived, or terminal beside)
    check(page, shots, "arrival", width, found)
    admit_all(page)
    page.wait_for_selector(
        "#bar button.pass", timeout=60_000
    )  # the Treatment, your turn (the bot may go first)
    open_card(page, my_cards(page)[0])
    # Its actions drawn (the deal is random: a patient no heal saves tonight has no primary button, C2).
    page.wait_for_selector("#panel button.act:visible")
    check(page, shots, "treatment", width, found)

    # Healing with the stepper and the other payments open.
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical", healing=5))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    open_card(page, my_cards(page)[0])
    page.click("[data-key='heal-minus']")
    page.locator("#panel summary", has_text="Pay differently").click()
    check(page, shots, "heal", width, found)

    # A refusal next to the action (T2: a client that knew less), then the Pass confirmation.
    refuse_next_action(page, amount=9, pay={"tokens": 9, "staff": 0, "congress": 0})
    page.locator("#panel [data-key='do:heal']").click()
    page.wait_for_selector("#panel .refusal")
    check(page, shots, "refusal", width, found)
    page.click("#bar button.pass")
    page.wait_for_selector("#confirm-pass[open]")
    check(page, shots, "pass-confirmation", width, found)
    page.click("#confirm-cancel")

    # Later in a game: checked patients and known deck positions, at a two-human table.
    table, tokens = create(
        server, players=2, seed=4, deck=deck_of("chronic", count=16), config={"return_to": "bottom"}
    )
    for _ in range(2):
        pass_round(server, table, tokens)
    open_seat(page, server, table, 0, tokens[0])
    check(page, shots, "round-3", width, found)

    # Game over with its summary, then the replay.
    table, tokens = create(server, players=1, seed=8, deck=deck_of("critical"))
    for _ in range(3):
        pass_round(server, table, tokens)
    open_seat(page, server, table, 0, tokens[0])
    page.wait_for_selector("#over:not([hidden])")
    check(page, shots, "game-over", width, found)
    page.locator("#over button", has_text="Replay").click()
    page.wait_for_selector("#replay:not([hidden])")
    check(page, shots, "replay", width, found)

    # A spectator, and the rules page.
    watched, _ = create(server, players=2, bots=["random", "greedy"], public=True)
    page.goto(server.url + "/")
    page.wait_for_selector("#tables li button")
    page.locator("#tables li", has_text=watched).locator("button", has_text="Watch").click()
    page.wait_for_selector("#bar .round")
    check(page, shots, "spectator", width, found)
    page.goto(server.url + "/static/rules.html#T6")
    check(page, shots, "rules", width, found)

    # A table for two people: the invitation link to copy.
    page.goto(server.url + "/")
    page.select_option("#players", "2")
    page.select_option("#seat-choices select[data-seat='1']", "human")
    page.click("#new-table button[type=submit]")
    page.wait_for_selector("#invites:not([hidden])")
    check(page, shots, "invitation", width, found)

    assert {name: problems for name, problems in found.items() if problems} == {}
    assert len(found) == 12
