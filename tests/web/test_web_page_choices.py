"""Honest choices in the page (issue 20): every action says what it achieves, from the engine's
forecast; a heal that cannot save a patient dying tonight is never the primary button, and the
panel and the Pass dialog name what could still save it."""

from __future__ import annotations

from pathlib import Path

from page_helpers import create, deck_of, log_length, open_seat, shoot, sync_api, view
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
        "buy 1 Healing token (2 Credits of your 2), then heal it by 5: that saves it",
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


def test_a_typed_amount_heals_with_one_click(server: ServerProcess, page: sync_api.Page) -> None:
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical", healing=4))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    patient = my_cards(page)[0]
    card(page, patient).click()
    page.fill("#heal-amount", "2")  # typed, not yet confirmed: the click itself blurs the field
    before = log_length(page)
    page.locator("[data-key='do:heal']").click()
    page.wait_for_function(f"document.querySelectorAll('#log li').length > {before}", timeout=10_000)
    mine = view(server, table, tokens[0])["players"][0]
    healed = next(slot for slot in mine["hospital"].values() if slot and slot["card"] == patient)
    assert healed["placed"] == 2 and mine["healing"] == 1


def test_the_full_legal_list_counts_what_it_lists_pass_included(
    server: ServerProcess, page: sync_api.Page
) -> None:
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical"))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    summary = page.locator("#panel .all-actions summary")
    summary.click()
    listed = page.locator("#panel .all-actions button")
    count = int(summary.inner_text().split("(")[1].split(")")[0])
    assert count == listed.count()
    texts = listed.all_inner_texts()
    # Each removal of the Helicopter (alone and with everyone drawing), each heal with what it
    # does, and Pass (which asks first).
    removals = [text for text in texts if text.startswith("Helicopter: remove ")]
    assert len(removals) == 4 and sum(text.endswith(", everyone draws") for text in removals) == 2
    assert any(text.startswith("Heal ") and text.endswith("cures it: +3 VP, +2 Credits") for text in texts)
    listed.filter(has_text="Pass: end your Treatment").click()
    page.wait_for_selector("#confirm-pass[open]")
    page.click("#confirm-cancel")


def test_tonight_and_later_deadlines_look_different(server: ServerProcess, page: sync_api.Page) -> None:
    table, tokens = create(server, players=1, seed=1, deck=deck_of("severe", diagnosis=1))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    for patient in my_cards(page):
        card(page, patient).click()
        page.locator("#panel [data-key='do:diagnose']").click()
        page.wait_for_selector(f"#me .card[data-card='{patient}'] .kind:not(.unknown)")
    later = page.locator("#me .deadline", has_text="dies at the next Cleanup").first
    assert "later" in (later.get_attribute("class") or "") and "tonight" not in (
        later.get_attribute("class") or ""
    )
    assert page.locator("#me .time.tonight").count() == 0  # Time 0 is not drawn as a danger
