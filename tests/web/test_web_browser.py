"""The page in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

CI installs it with ``apt-get install -y chromium chromium-driver``; without it these tests skip.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip("browser tests need Debian's Chromium at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the web extra (playwright) is not installed")

from web_server import ServerProcess

PHONE = {"width": 390, "height": 844}
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("web") / "tables.db").start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def browser_context() -> Iterator[sync_api.BrowserContext]:
    profile = tempfile.mkdtemp(prefix="triage-chromium-")
    try:
        with sync_api.sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True, viewport=PHONE
            )
            yield context
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def log_length(page: sync_api.Page) -> int:
    return page.locator("#log li").count()


def settle(page: sync_api.Page) -> None:
    """Wait until the live updates have stopped arriving (the log stays the same for 0.3 s)."""
    previous = -1
    while log_length(page) != previous:
        previous = log_length(page)
        page.wait_for_timeout(300)


def click_and_wait(page: sync_api.Page, button: sync_api.Locator) -> None:
    """Click an action and wait until its events reach the log (every action has some)."""
    before = log_length(page)
    button.click()
    page.wait_for_function(f"document.querySelectorAll('#log li').length > {before}", timeout=10_000)


def test_solo_from_the_home_page_a_full_round_by_clicking_then_reload_and_continue(
    server: ServerProcess, browser_context: sync_api.BrowserContext
) -> None:
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "/")
    page.click("#solo")  # one click from the home page
    page.wait_for_selector("#actions button.act")
    assert page.locator("#summary").get_attribute("data-round") == "1"
    assert page.locator(".player.me .card").count() >= 4  # the hospital's spaces, drawn as cards

    # A click on a card shows that card's actions.
    clickable = page.locator(".player.me .card.clickable").first
    card_id = clickable.get_attribute("data-card")
    clickable.click()
    shown = [button.get_attribute("data-action") for button in page.locator("#actions button.act").all()]
    assert shown and all(card_id in action or '"pass"' in action for action in shown)
    click_and_wait(page, page.locator("#actions button.act").first)

    # Play on by clicking until round 2 begins: the bot moves on the server meanwhile.
    for _ in range(80):
        if page.locator("#summary").get_attribute("data-round") == "2":
            break
        page.wait_for_selector("#actions button.act")
        click_and_wait(page, page.locator("#actions button.act").first)
    assert page.locator("#summary").get_attribute("data-round") == "2"
    log = page.locator("#log").inner_text()
    assert "passes" in log and "Round 2" in log  # the bot passed, Cleanup ran, round 2 started

    # Phone width: nothing sticks out sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    # Reload: the seat is kept in the browser, and the game continues where it was.
    page.wait_for_selector("#actions button.act")
    settle(page)
    summary, board, events = page.locator("#summary").inner_text(), page.locator("#board").inner_text(), log_length(page)
    page.reload()
    page.wait_for_selector("#actions button.act")
    assert page.locator("#summary").inner_text() == summary
    assert page.locator("#board").inner_text() == board
    assert log_length(page) == events
    click_and_wait(page, page.locator("#actions button.act").first)
    assert errors == []


def test_a_spectator_sees_the_table_without_actions(server: ServerProcess, browser_context: sync_api.BrowserContext) -> None:
    page = browser_context.new_page()
    page.goto(server.url + "/")
    page.select_option("#players", "2")
    page.select_option("#seat-choices select[data-seat='0']", "random")
    page.select_option("#seat-choices select[data-seat='1']", "random")
    page.click("#new-table button[type=submit]")
    page.wait_for_selector("#summary[data-phase='over']")
    assert "Game over" in page.locator("#summary").inner_text()
    assert page.locator("#actions button.act").count() == 0
    assert page.locator("#log li").count() > 20


def test_the_lobby_warns_that_a_chosen_seed_is_a_practice_deal(
    server: ServerProcess, browser_context: sync_api.BrowserContext
) -> None:
    """A table created with a seed can be dealt again by its creator: joiners are told (K1)."""
    # The lobby lists public tables only.
    body = {"players": 2, "seed": 4242, "public": True, "creator_seats": [0]}
    assert httpx.post(server.url + "/api/tables", json=body).status_code == 201
    page = browser_context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#tables li")
    practice = page.locator("#tables li", has=page.locator(".practice"))
    assert practice.count() >= 1
    assert "creator chose the seed" in practice.first.inner_text()
