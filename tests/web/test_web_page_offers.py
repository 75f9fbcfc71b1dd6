"""Offers the engine accepts (issue 39, point 3): every stepper bound, "what could save it" entry
and buy on the page comes from the server's forecast of what the seat can pay now; a remedy is
listed only under the patient it saves; a payment that takes what another patient needs says
so; and the page keeps no copy of the engine's refusal codes."""

from __future__ import annotations

import re

from page_helpers import create, deck_of, open_seat, sync_api, view
from test_web_browser import admit_all, card, click_and_wait, my_cards
from web_server import ServerProcess

from triage.engine.errors import ERROR_CODES
from triage.web.app import STATIC


def test_the_stepper_never_shows_more_than_the_seat_can_pay(
    server: ServerProcess, page: sync_api.Page
) -> None:
    # Two criticals needing 5 each; 3 Healing + 1 Staff pay 4 (T6).
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical", healing=5))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    first, second = my_cards(page)
    card(page, first).click()
    page.click("[data-key='heal-minus']")
    page.click("[data-key='heal-plus']")  # 4 picked for the first patient
    assert page.locator("#heal-amount").input_value() == "4"
    card(page, second).click()
    page.fill("#heal-amount", "1")
    page.press("#heal-amount", "Enter")
    click_and_wait(page, page.locator("[data-key='do:heal']"))  # 3 units left now
    card(page, first).click()
    stepper = page.locator("#heal-amount")
    assert stepper.input_value() == "3" and stepper.get_attribute("max") == "3"
    heal = page.locator("[data-key='do:heal']")
    assert heal.inner_text().startswith("Heal 3 anyway")
    click_and_wait(page, heal)
    assert page.locator("#panel .refusal").count() == 0
    mine = view(server, table, tokens[0])["players"][0]
    assert mine["healing"] + mine["staff_available"] + mine["congress"] == 0


def test_what_could_save_it_names_no_purchase_the_seat_cannot_pay(
    server: ServerProcess, page: sync_api.Page
) -> None:
    # One Staff pays 1 of the 5 a critical needs; 4 Healing tokens would cost 8 Credits, not 3.
    config = {"start": {"credits": 3, "healing": 0, "staff": 1}, "income": {"healing": 0}}
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical", healing=5), config=config)
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    card(page, my_cards(page)[0]).click()
    ways = page.locator("#panel .rescue li").all_inner_texts()
    assert ways and not any("buy" in way.lower() for way in ways), ways


def test_a_remedy_is_listed_only_under_the_patient_it_saves(
    server: ServerProcess, page: sync_api.Page
) -> None:
    # Each critical needs 4; 3 Healing, 1 Staff and 1 Congress Doctor cure one of them (T4).
    table, tokens = create(
        server, players=1, seed=3, deck=deck_of("critical", healing=4), config={"start": {"congress": 1}}
    )
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    patients = my_cards(page)
    page.click("#bar button.pass")
    dialog = page.locator("#confirm-pass")
    dialog.wait_for()
    items = dialog.locator("ul.dying > li")
    assert items.count() == 2
    for index in range(2):
        text = items.nth(index).inner_text()
        own = next(patient for patient in patients if text.startswith(patient))
        others = [patient for patient in patients if patient != own]
        saves = items.nth(index).locator("ul.saves li").all_inner_texts()
        assert "heal it by 4: that saves it" in saves
        assert not any(other in way for way in saves for other in others), saves
    page.click("#confirm-cancel")


def test_a_payment_that_takes_what_another_patient_needs_says_so(
    server: ServerProcess, page: sync_api.Page
) -> None:
    # A critical needing 1 healing and an unrevealed severe patient costing 1 Diagnostics; no
    # tokens, one Staff (T6): diagnosing spends the Staff, and the critical dies tonight (C2).
    deck = [
        *({"id": f"C{n}", "kind": "critical", "healing": 1, "credits": 2, "vp": 3} for n in range(6)),
        *(
            {"id": f"S{n}", "kind": "severe", "diagnosis": 1, "healing": 3, "credits": 2, "vp": 3}
            for n in range(6)
        ),
    ]
    config = {
        "start": {"diagnostics": 0, "healing": 0, "staff": 1},
        "income": {"diagnostics": 0, "healing": 0},
    }
    table, tokens = create(server, players=1, seed=0, deck=deck, config=config)
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    slots = [slot for slot in view(server, table, tokens[0])["players"][0]["hospital"].values() if slot]
    critical = next(slot["card"] for slot in slots if slot["front"] == "critical")
    unrevealed = next(slot["card"] for slot in slots if slot["front"] == "standard")
    if card(page, unrevealed).get_attribute("aria-pressed") != "true":  # selected when admitted
        card(page, unrevealed).click()
    warning = page.locator("#panel .warn")
    assert (
        warning.inner_text()
        == f"Careful: then {critical} cannot be saved tonight: 1 healing needed, 0 would be left."
    )
    diagnose = page.locator("#panel [data-key='do:diagnose']")
    assert "primary" not in (diagnose.get_attribute("class") or "")


def test_an_item_the_seat_cannot_buy_is_shown_unavailable_with_why(
    server: ServerProcess, page: sync_api.Page
) -> None:
    table, tokens = create(
        server, players=1, seed=3, deck=deck_of("critical"), config={"start": {"credits": 2}}
    )
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    staff = page.locator("#market .item", has_text="Staff")
    assert staff.get_attribute("aria-disabled") == "true"
    assert re.fullmatch(r"costs \d+ Credits; you have 2", staff.locator(".why").inner_text())
    healing = page.locator("#market button.item[data-key='buy:healing']")
    assert healing.get_attribute("aria-disabled") is None


def test_the_page_keeps_no_copy_of_the_engines_refusal_codes() -> None:
    """The server's refusal says why in words; the page shows it and keeps no table of codes."""
    codes = set(ERROR_CODES) - {"game_over"}  # also the type of the game's last event (the log)
    found = {
        code: path.name
        for path in sorted((STATIC / "js").glob("*.js"))
        for code in codes
        if re.search(rf"\b{code}\b", path.read_text(encoding="utf-8"))
    }
    assert found == {}
