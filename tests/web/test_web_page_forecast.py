"""The page holds no game rule: the server sends each seat a forecast with its view and choices
(triage.engine.forecast), the page shows it, and the page's native ES modules type-check."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import page_helpers
import pytest
from fastapi.testclient import TestClient
from web_helpers import create, service_of, tokens_of
from web_server import ServerProcess

from triage.engine import view
from triage.engine.choices import action_choices
from triage.engine.forecast import forecast

if TYPE_CHECKING:  # the browser tests skip where Playwright is missing (page_helpers)
    from playwright import sync_api

STATIC = Path(__file__).parents[2] / "src" / "triage" / "web" / "static"
MODULES = sorted((STATIC / "js").glob("*.js"))


def test_each_seat_gets_its_forecast_and_a_spectator_none(client: TestClient) -> None:
    created = create(client, players=2, seed=21)
    table_id, tokens = created["table_id"], tokens_of(created)
    url = f"/api/tables/{table_id}/ws"
    with client.websocket_connect(url) as seat0, client.websocket_connect(url) as spectator:
        seat0.send_json({"token": tokens[0]})
        spectator.send_json({"spectate": True})
        hello, watching = seat0.receive_json(), spectator.receive_json()
    assert hello["forecast"] == forecast(hello["view"], hello["choices"])
    assert hello["forecast"]["choices"] and "forecast" not in watching


def test_the_forecast_sent_is_the_engines_for_the_position(client: TestClient) -> None:
    created = create(client, players=2, bots=[None, "random"], seed=5)
    table_id, tokens = created["table_id"], tokens_of(created)
    live = service_of(client).get(table_id)
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
        socket.send_json({"token": tokens[0]})
        hello = socket.receive_json()
    assert hello["forecast"] == forecast(view(live.game, 0), action_choices(live.game, 0))


def test_the_panel_says_what_each_heal_amount_will_do(server: ServerProcess, page: sync_api.Page) -> None:
    deck = page_helpers.deck_of("critical", healing=4)
    table, tokens = page_helpers.create(server, players=1, seed=3, deck=deck)
    page_helpers.open_seat(page, server, table, 0, tokens[0])
    for _ in range(2):  # admit both arrivals (one tap each: to the first free space)
        before = page_helpers.log_length(page)
        page.locator("#me .pending button.card").first.click()
        page.wait_for_function(f"document.querySelectorAll('#log li').length > {before}")
    page.locator("#me .spaces button.card").first.click()
    panel = page.locator("#panel")
    # 3 Healing + 1 Staff place the 4 it needs: cured (T4); one less, it still dies tonight (C2).
    assert panel.locator("p.effect").first.inner_text().startswith("cures it: +3 VP, +2 Credits")
    panel.locator("[data-key='heal-minus']").click()
    assert panel.locator("p.effect").first.inner_text().startswith("still dies tonight: needs 1 more")
    page.click("#bar button.pass")
    assert "(critical, Time 0): −2 QoC" in page.locator("#confirm-pass").inner_text()
    page.click("#confirm-cancel")


def test_the_page_is_native_modules_that_each_check_their_types() -> None:
    page = (STATIC / "index.html").read_text()
    assert '<script type="module" src="/static/js/main.js"></script>' in page
    assert not (STATIC / "app.js").exists()
    assert MODULES and all(module.read_text().startswith("// @ts-check\n") for module in MODULES)


@pytest.mark.parametrize(
    "pattern",
    [
        r"choicesFromList",  # the full-list fallback of old servers
        r"function (payments|deadline|budgetFor|outcome|soloTier|tallies)\b",  # T6, C1-C4, R4 re-written
        r"arrivedThisRound|expectNumbers",  # guesses for payloads that no longer exist
    ],
)
def test_the_page_holds_no_game_rule(pattern: str) -> None:
    for module in MODULES:
        assert not re.search(pattern, module.read_text()), f"{module.name} matches {pattern}"


def tsc_command() -> list[str] | None:
    """TypeScript's checker: ``TRIAGE_TSC``, a ``tsc`` on the PATH, or None."""
    chosen = os.environ.get("TRIAGE_TSC") or shutil.which("tsc")
    return [chosen] if chosen else None


def test_the_modules_type_check() -> None:
    command = tsc_command()
    if command is None:
        pytest.skip("TypeScript's tsc is not installed (set TRIAGE_TSC to its path)")
    flags = ["--noEmit", "--allowJs", "--checkJs", "--strict", "--target", "es2022", "--module", "es2022"]
    flags += ["--lib", "es2022,dom,dom.iterable"]
    done = subprocess.run(
        [*command, *flags, *map(str, MODULES)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
