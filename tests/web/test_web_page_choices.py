"""Honest choices in the page (issue 20): every action says what it achieves, from the engine's
forecast; a heal that cannot save a patient dying tonight is never the primary button, and the
panel and the Pass dialog name what could still save it."""

from __future__ import annotations

from pathlib import Path

from page_helpers import create, deck_of, open_seat, shoot, sync_api
from test_web_browser import admit_all, card, my_cards
from web_server import ServerProcess


def test_the_heal_trap_says_it_dies_anyway_and_offers_what_would_save_it(
    server: ServerProcess, page: sync_api.Page, shots: Path
) -> None:
    # A critical patient needs 5; 3 Healing + 1 Staff pay 4 (C2: it dies tonight all the same).
    table, tokens = create(
        server, players=1, seed=3, deck=deck_of("critical", healing=5), config={"start": {"credits": 2}}
    )
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    patient = my_cards(page)[0]
    card(page, patient).click()
    panel = page.locator("#panel")
    heal = panel.locator("[data-key='do:heal']")
    assert heal.inner_text() == "Heal 4 anyway (still dies tonight) — pay 3 Healing + 1 Staff"
    assert "primary" not in (heal.get_attribute("class") or "")
    rescue = panel.locator(".rescue")
    assert rescue.locator("p").inner_text() == "No heal you can pay saves it tonight. What could:"
    ways = rescue.locator("li").all_inner_texts()
    assert ways[:2] == [
        "fly it out with a Helicopter: no QoC lost",
        "buy Healing tokens (2 Credits each, you have 2): 1 healing short",
    ]
    # The one primary button is the Helicopter that saves it.
    assert panel.locator("button.primary").all_inner_texts() == [f"Helicopter: remove {patient}"]
    shoot(page, shots, "heal-trap")
    # Passing names both patients and what could still save each.
    page.click("#bar button.pass")
    dialog = page.locator("#confirm-pass")
    assert dialog.locator("ul.dying > li").count() == 2
    assert "fly it out with a Helicopter" in dialog.locator("ul.saves").first.inner_text()
    page.click("#confirm-cancel")
