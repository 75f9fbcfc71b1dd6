"""The page in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

CI installs it with ``apt-get install -y chromium``; without it these tests skip. Positions
with known patients are set up through the API with one-kind decks, then shown in the page.
"""

from __future__ import annotations

import json
import re

from page_helpers import (
    DESKTOP,
    PHONE,
    act,
    call,
    create,
    deck_of,
    log_length,
    open_seat,
    pass_round,
    settle,
    sync_api,
    view,
)
from web_server import ServerProcess

from triage.engine.config import make_config


def click_and_wait(page: sync_api.Page, button: sync_api.Locator) -> None:
    """Click an action and wait until its events reach the log (every action has some) and the
    page takes taps again (its answer came: ``data-busy`` gone)."""
    before = log_length(page)
    button.click()
    page.wait_for_function(
        f"document.querySelectorAll('#log li').length > {before} && !document.body.hasAttribute('data-busy')",
        timeout=10_000,
    )


def card(page: sync_api.Page, card_id: str) -> sync_api.Locator:
    return page.locator(f"#me .card[data-card='{card_id}']")


def my_cards(page: sync_api.Page) -> list[str]:
    return [c.get_attribute("data-card") or "" for c in page.locator("#me .spaces .card[data-card]").all()]


def open_card(page: sync_api.Page, card_id: str) -> None:
    """Select one of the seat's cards, so that the panel shows its actions (a click on a card
    already selected would put it away)."""
    if card(page, card_id).get_attribute("aria-pressed") != "true":
        card(page, card_id).click()
    page.wait_for_selector("#panel #panel-title")


def refuse_next_action(page: sync_api.Page, **change: object) -> None:
    """Rewrite the page's next action on its way to the server (``change`` merged into it), as
    a client that knows less than the server would send it; the server's refusal comes back."""

    def rewrite(route: sync_api.Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        body["action"].update(change)
        route.continue_(post_data=json.dumps(body))

    page.route("**/actions", rewrite, times=1)


def admit_all(page: sync_api.Page) -> None:
    """Admit every arrival with one tap each: to the first free space (issue 39, point 7)."""
    for _ in range(6):
        arrived = page.locator("#me .pending button.card")
        if not arrived.count():
            return
        click_and_wait(page, arrived.first)
    raise AssertionError("arrivals left")


# ------------------------------------------------------------------ 1. board first


def test_solo_against_a_bot_from_the_home_page_your_hospital_first_on_a_phone(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.set_viewport_size(PHONE)
    page.goto(server.url + "/")
    page.wait_for_selector("#solo-bot option", state="attached")
    levels = [o.get_attribute("value") for o in page.locator("#solo-bot option").all()]
    offered = call(server, "GET", "/api/bots")
    names = [bot if isinstance(bot, str) else bot["name"] for bot in offered]
    assert sorted(levels) == sorted(names)  # every bot of GET /api/bots, the expert levels first
    # The levels by friendly name, gentlest first and chosen by default, each saying how it plays.
    order = [name for name in ("expert-novice", "expert-club", "expert", "greedy", "random") if name in names]
    assert levels[: len(order)] == order
    assert page.locator("#solo-bot").input_value() == order[0]
    assert page.locator("#solo-bot option").first.inner_text().startswith("Gentle: ")
    # The names and lines are the server's levels (triage.bots.PLAYER_LEVELS), as in the terminal game.
    for level in call(server, "GET", "/api/levels"):
        option = page.locator(f'#solo-bot option[value="{level["name"]}"]')
        assert option.inner_text() == f"{level['label']}: {level['description']}"
        stand_in = page.locator(f'#stand-in-level option[value="{level["name"]}"]')
        assert stand_in.inner_text() == f"{level['label']}: {level['description']}"
    page.click("#solo")  # one click from the home page
    page.wait_for_selector("#me .card[data-card]")  # the first two patients (arrived, or terminal beside)
    admit_all(page)
    settle(page)
    # Your hospital is the first thing under the status bar, wholly on screen without scrolling.
    assert page.evaluate("window.scrollY") == 0
    bar = page.locator("#bar").bounding_box()
    hospital = page.locator("#me").bounding_box()
    assert bar and hospital and hospital["y"] >= bar["y"] + bar["height"] - 1
    for box in [c.bounding_box() for c in page.locator("#me .card").all()]:
        assert box and box["y"] + box["height"] <= PHONE["height"], box
    for other in ("#panel", "#others", "#deck", "#market", "#log-box"):
        other_box = page.locator(other).bounding_box()
        assert other_box and other_box["y"] > hospital["y"], other
    # Opponents are named by their bot's level, as the menu names it.
    assert re.search(r"(Gentle|Club|Expert|Quick|Random) bot", page.locator("#others").inner_text())
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scrolling

    # Desktop: the same hospital is at the top of the main column; the panel beside it.
    page.set_viewport_size(DESKTOP)
    hospital = page.locator("#me").bounding_box()
    panel = page.locator("#panel").bounding_box()
    assert hospital and panel and panel["x"] > hospital["x"] + hospital["width"] - 1
    for box in [c.bounding_box() for c in page.locator("#me .card").all()]:
        assert box and box["y"] + box["height"] <= DESKTOP["height"]

    # Reload: the seat is kept in the browser and the game continues where it was.
    board = page.locator("#me").inner_text()
    page.reload()
    page.wait_for_selector("#me .spaces .card")
    assert page.locator("#me").inner_text() == board


# ------------------------------------------------------------------ 2. act on the thing


def test_heal_from_the_card_with_an_amount_stepper_and_the_default_payment(
    server: ServerProcess, page: sync_api.Page
) -> None:
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical", healing=4))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    patient = my_cards(page)[0]
    card(page, patient).click()
    panel = page.locator("#panel")
    # One primary button; costs named by what is spent; T6 default: tokens, then Staff.
    assert panel.locator("button.primary").count() == 1
    # 3 Healing + 1 Staff place the 4 it needs.
    assert panel.locator("#heal-amount").input_value() == "4"
    assert panel.locator("button.primary").inner_text() == "Heal 4 — pay 3 Healing + 1 Staff"
    panel.locator("[data-key='heal-minus']").click()
    # One less does not save it: the button says so and is no longer the primary one (C2).
    heal = panel.locator("[data-key='do:heal']")
    assert heal.inner_text() == "Heal 3 anyway (still dies tonight) — pay 3 Healing"
    assert "primary" not in (heal.get_attribute("class") or "")
    # Another mix is one step away.
    panel.locator("summary", has_text="Pay differently").click()
    panel.locator("label", has_text="2 Healing + 1 Staff").click()
    assert heal.inner_text() == "Heal 3 anyway (still dies tonight) — pay 2 Healing + 1 Staff"
    click_and_wait(page, heal)
    state = view(server, table, tokens[0])
    mine = state["players"][0]
    assert (mine["healing"], mine["staff_available"]) == (1, 0)
    healed = next(slot for slot in mine["hospital"].values() if slot and slot["card"] == patient)
    assert healed["placed"] == 3
    # The full legal list stays reachable as a secondary list.
    page.locator("#panel summary", has_text="All legal actions").click()
    assert page.locator("#panel .all-actions button").count() >= 1


def test_market_and_helicopter_are_things_to_select(server: ServerProcess, page: sync_api.Page) -> None:
    table, tokens = create(
        server, players=1, seed=5, deck=deck_of("critical"), config={"start": {"credits": 2}}
    )
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    page.click("#market button.item[data-key='buy:healing']")
    assert page.locator("#panel button.primary").inner_text() == "Buy 1 Healing token for 2 Credits"
    click_and_wait(page, page.locator("#panel button.primary"))
    assert view(server, table, tokens[0])["players"][0]["healing"] == 4
    page.click("#me button.heli")
    assert page.locator("#panel fieldset.heli-form").count() == 1


# ------------------------------------------------------------------ 3. deadlines and Pass


def label_of(page: sync_api.Page, card_id: str) -> str:
    return card(page, card_id).locator(".deadline").inner_text()


def test_deadline_labels_for_each_kind(server: ServerProcess, page: sync_api.Page) -> None:
    # Critical: dies tonight unless cured (C2).
    table, tokens = create(server, players=1, seed=1, deck=deck_of("critical"))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    assert {label_of(page, c) for c in my_cards(page)} == {"dies at Cleanup tonight"}

    # Terminal: beside the board, dies tonight unless treated; treated, safe tonight (C1, T5).
    table, tokens = create(server, players=1, seed=1, deck=deck_of("terminal"))
    open_seat(page, server, table, 0, tokens[0])
    terminals = [c.get_attribute("data-card") for c in page.locator("#me .card.k-terminal").all()]
    assert len(terminals) == 2
    assert label_of(page, terminals[0]) == "dies at Cleanup tonight unless treated"
    card(page, terminals[0]).click()
    click_and_wait(page, page.locator("#panel button.primary"))
    assert label_of(page, terminals[0]) == "treated: safe tonight"

    # Unrevealed standard: may die at the next Cleanup if severe; once diagnosed severe with
    # no Time, it dies at the next Cleanup; with 1 Time, tonight (C2, C3).
    table, tokens = create(server, players=1, seed=1, deck=deck_of("severe", diagnosis=2))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    first, second = my_cards(page)
    assert label_of(page, first) == "dies at the next Cleanup if severe"
    card(page, first).click()
    click_and_wait(page, page.locator("#panel button.primary"))  # Diagnose: 2 Diagnostics
    assert card(page, first).locator(".kind").inner_text() == "severe"
    assert label_of(page, first) == "dies at the next Cleanup"
    pass_round(server, table, tokens)
    page.wait_for_selector("#bar[data-round='2']")
    assert label_of(page, first) == "dies at Cleanup tonight"
    assert label_of(page, second) == "checked at Cleanup tonight: dies if severe"

    # Chronic and non-severe never die (C2).
    for kind, text in (
        ("chronic", "safe: never dies (each Time adds 1 to its healing)"),
        ("non_severe", "safe: never dies"),
    ):
        table, tokens = create(server, players=1, seed=1, deck=deck_of(kind))
        pass_round(server, table, tokens)  # one Time, so a chronic patient is not cured on diagnosis
        open_seat(page, server, table, 0, tokens[0])
        admit_all(page)
        patient = next(c for c in my_cards(page) if card(page, c).locator(".time").inner_text() == "Time 1")
        card(page, patient).click()
        click_and_wait(page, page.locator("#panel button.primary"))
        assert label_of(page, patient) == text


def test_pass_asks_for_confirmation_naming_every_patient_that_will_die(
    server: ServerProcess, page: sync_api.Page
) -> None:
    table, tokens = create(server, players=1, seed=2, deck=deck_of("critical"))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    dying = set(my_cards(page))
    page.click("#bar button.pass")
    dialog = page.locator("#confirm-pass")
    assert dialog.is_visible()
    text = dialog.inner_text()
    assert all(card_id in text for card_id in dying) and "will die at this Cleanup" in text
    page.click("#confirm-cancel")  # keep playing: nothing happened
    assert not dialog.is_visible()
    assert view(server, table, tokens[0])["phase"] == "treatment"
    page.click("#bar button.pass")
    page.click("#confirm-ok")
    page.wait_for_selector("#bar[data-round='2']")
    assert "dies" in page.locator("#log").inner_text()


def test_pass_without_danger_needs_no_confirmation(server: ServerProcess, page: sync_api.Page) -> None:
    table, tokens = create(server, players=1, seed=2, deck=deck_of("non_severe"))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    for patient in my_cards(page):  # diagnosed non-severe patients get no Time: safe
        card(page, patient).click()
        click_and_wait(page, page.locator("#panel button.primary"))
    page.click("#bar button.pass")
    page.wait_for_selector("#bar[data-round='2']")
    assert not page.locator("#confirm-pass").is_visible()


# ------------------------------------------------------------------ 4. what the seat knows


def test_checked_survivors_read_not_severe_and_known_deck_positions_form_a_strip(
    server: ServerProcess, page: sync_api.Page
) -> None:
    # Two humans, chronic patients never diagnosed: after 2 Time each is checked (C3), seen by
    # the other player, and known by all not to be severe (I4).
    table, tokens = create(server, players=2, seed=4, deck=deck_of("chronic", count=16))
    for _ in range(2):
        pass_round(server, table, tokens)
    open_seat(page, server, table, 0, tokens[0])
    checked = [c for c in my_cards(page) if card(page, c).locator(".time").inner_text() == "Time 2"]
    assert checked
    for patient in checked:
        assert card(page, patient).locator(".kind").inner_text() == "not severe"
        assert label_of(page, patient) == "safe: not severe (survived a check)"
        assert "back seen by Player 2" in card(page, patient).inner_text()  # seat 1, counted from 1
    # The dead go under the deck (V1 bottom): their positions are known (I3), drawn after the
    # unknown ones.
    table, tokens = create(
        server, players=1, seed=4, deck=deck_of("critical"), config={"return_to": "bottom"}
    )
    pass_round(server, table, tokens)
    open_seat(page, server, table, 0, tokens[0])
    strip = page.locator("#deck .strip")
    assert strip.locator("li.mini").count() == 3  # the top card and the two dead at the bottom
    count = view(server, table, tokens[0])["deck_count"]
    assert f"#{count - 1}" in strip.inner_text() and f"#{count}" in strip.inner_text()
    assert strip.locator("li.gap").inner_text() == f"{count - 3} unknown cards"


# ------------------------------------------------------------------ 5. help and refusals


def test_rules_page_reachable_from_every_screen_and_a_refusal_links_its_rule(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.goto(server.url + "/")
    assert page.locator("header a[href='/static/rules.html']").is_visible()
    table, tokens = create(server, players=1, seed=6, deck=deck_of("critical", healing=5))
    open_seat(page, server, table, 0, tokens[0])
    assert page.locator("header a[href='/static/rules.html']").is_visible()
    assert page.locator("#me .counter[title]").count() >= 8  # tooltips on the counters
    admit_all(page)
    card(page, my_cards(page)[0]).click()
    # The page offers only what the engine accepts: a typed amount past the range is held to it.
    page.fill("#heal-amount", "9")
    page.press("#heal-amount", "Enter")
    assert page.locator("#heal-amount").input_value() == page.locator("#heal-amount").get_attribute("max")

    # A client that knows less than the server (here its request rewritten on the way) is
    # refused, and the panel says why in the server's words with a link to the rule (T2).
    refuse_next_action(page, amount=9, pay={"tokens": 9, "staff": 0, "congress": 0})
    page.locator("#panel [data-key='do:heal']").click()
    refusal = page.locator("#panel .refusal")
    refusal.wait_for()
    assert "too_much_healing" not in refusal.inner_text() and "needs" in refusal.inner_text()
    assert refusal.locator("a").get_attribute("href") == "/static/rules.html#T2"
    # The rules page has an anchor for every rule id.
    page.goto(server.url + "/static/rules.html")
    ids = set(page.eval_on_selector_all("dt[id]", "nodes => nodes.map(n => n.id)"))
    expected = (
        {f"K{n}" for n in range(1, 6)}
        | {f"R{n}" for n in range(1, 5)}
        | {f"A{n}" for n in range(1, 9)}
        | {f"T{n}" for n in range(1, 10)}
        | {f"C{n}" for n in range(1, 6)}
        | {f"I{n}" for n in range(1, 5)}
        | {"V1", "V2", "V3", "V4", "D1"}
    )
    assert expected <= ids


# ------------------------------------------------------------------ 6. game over and replay


def test_game_over_summary_with_breakdown_replay_and_ways_on(
    server: ServerProcess, page: sync_api.Page
) -> None:
    # Critical patients only, never healed: 4 QoC lost a round, the game ends at 0 QoC (R4).
    table, tokens = create(server, players=1, seed=8, deck=deck_of("critical"))
    for _ in range(3):
        pass_round(server, table, tokens)
    state = view(server, table, tokens[0])
    assert state["phase"] == "over"
    open_seat(page, server, table, 0, tokens[0])
    over = page.locator("#over")
    over.wait_for()
    assert "Quality of Care fell to 0" in over.locator("h2").inner_text()
    headers = over.locator("th[scope=col]").all_inner_texts()
    assert headers == ["Player", "Score", "VP", "QoC", "Treated", "Credits", "Cured", "Dead", "Rejected"]
    row = over.locator("tbody tr").first.locator("td").all_inner_texts()
    assert row[0] == str(state["players"][0]["score"]) and row[2] == str(state["players"][0]["quality"])
    assert row[6] == "6 (6 critical)"  # dead by kind
    assert "loss" in over.inner_text()
    assert over.locator("a[href='#/']").is_visible()
    assert over.locator("button", has_text="Rematch").is_visible()
    over.locator("button", has_text="Replay").click()
    replay = page.locator("#replay")
    replay.wait_for()
    assert "step 0 of" in replay.locator("h2").inner_text()
    assert replay.locator(".replay-player .card").count() == 4  # the deal: four free spaces
    replay.locator("[data-key='replay-next']").click()
    page.wait_for_function("document.querySelector('#replay h2').textContent.includes('step 1 of')")
    assert "Action 1: You admit" in replay.inner_text()
    # After the first admission the board shows the admitted patient, back and all (the game is over).
    assert replay.locator(".replay-player .card.k-critical").count() == 1
    assert page.evaluate("document.activeElement.dataset.key") == "replay-next"  # the focus stays
    # The rematch (same seat, same deck and configuration, a new deal) starts at once.
    over.locator("button", has_text="Rematch").click()
    page.wait_for_function(f"location.hash.startsWith('#/t/') && !location.hash.endsWith('{table}')")
    page.wait_for_selector("#bar[data-round='1']")
    # Two patients drawn: waiting for a space, or beside the board if terminal (A3).
    assert page.locator("#over").is_hidden() and page.locator("#me .card[data-card]").count() == 2


def test_a_two_bot_table_watched_to_the_end_names_the_winner_and_tie_break(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.goto(server.url + "/")
    page.select_option("#players", "2")
    page.select_option("#seat-choices select[data-seat='0']", "random")
    page.select_option("#seat-choices select[data-seat='1']", "greedy")
    page.click("#new-table button[type=submit]")
    page.wait_for_selector("#bar[data-phase='over']", timeout=120_000)  # the bots play on the server
    text = page.locator("#over").inner_text()
    assert re.search(r"(Random|Quick) bot wins|a full tie", text)
    assert re.search(r"tie-break|treated-patient track decided|Credits decided|full tie", text)
    assert page.locator("#panel button.act").count() == 0
    # 7. The log: rounds and phases as headings, bots named by their level as the menu names it.
    log = page.locator("#log")
    headings = log.locator("h3").all_inner_texts()
    last = page.locator("#bar").get_attribute("data-round")  # 6, or earlier at 0 QoC (R4)
    assert headings[0].startswith(f"Round {last}") and headings[-1].startswith("Round 1")  # newest first
    assert "Cleanup" in log.locator("h4").all_inner_texts()
    assert "Quick bot" in log.inner_text() and "greedy" not in log.inner_text()


def test_the_log_spells_numbers_in_full_and_plurals_right(server: ServerProcess, page: sync_api.Page) -> None:
    table, tokens = create(server, players=1, seed=9, deck=deck_of("critical", healing=3, credits=1))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    card(page, my_cards(page)[0]).click()
    click_and_wait(page, page.locator("#panel button.primary"))  # heal 3: cured, 1 Credit
    log = page.locator("#log").inner_text()
    assert "gain 1 Credit and 3 VP" in log
    assert not re.search(r"\b1 Credits\b|\b1 credits\b", log)
    # Many entries: nothing is numbered or cut.
    for _ in range(4):
        pass_round(server, table, tokens)
    page.reload()
    page.wait_for_selector("#bar .round")
    assert page.locator("#log ol").count() == 0 and log_length(page) > 20


# ------------------------------------------------------------------ 8. keyboard only


def focused_key(page: sync_api.Page) -> str:
    return page.evaluate(
        "document.activeElement && document.activeElement.dataset ? (document.activeElement.dataset.key || document.activeElement.id || document.activeElement.tagName) : ''"
    )


def tab_to(page: sync_api.Page, wanted: str, limit: int = 60) -> bool:
    """Press Tab until the focused element's key matches the regular expression ``wanted``."""
    for _ in range(limit):
        if re.fullmatch(wanted, focused_key(page)):
            return True
        page.keyboard.press("Tab")
    return False


def test_a_whole_solo_game_with_the_keyboard_alone(server: ServerProcess, page: sync_api.Page) -> None:
    page.set_viewport_size(PHONE)
    page.goto(server.url + "/")
    page.wait_for_selector("#alone")
    assert tab_to(page, "alone")
    page.keyboard.press("Enter")
    page.wait_for_selector("#bar .round")
    skipped: set[str] = set()
    for _ in range(400):
        phase = page.locator("#bar").get_attribute("data-phase")
        if phase == "over":
            break
        settle_focus = focused_key(page)
        assert settle_focus not in ("BODY", ""), "the focus was lost"
        cards = [
            k
            for k in page.eval_on_selector_all(
                "#me button.card:not(.target)", "ns => ns.map(n => n.dataset.key)"
            )
            if k not in skipped
        ]
        if cards:
            # Tab to the next card to act on; Enter opens its panel with the focus on the
            # panel's primary action; Enter again takes it.
            assert tab_to(page, "|".join(re.escape(k) for k in cards), limit=120)
            chosen = focused_key(page)
            if chosen.startswith("quick:"):  # an arrival: Enter admits it to the first free space
                before = log_length(page)
                page.keyboard.press("Enter")
                page.wait_for_function(
                    f"document.querySelectorAll('#log li').length > {before}", timeout=10_000
                )
                continue
            page.keyboard.press("Enter")
            if "primary" not in (page.evaluate("document.activeElement.className") or ""):
                page.keyboard.press("Escape")  # only a Helicopter removal here: not this time
                assert focused_key(page) == chosen  # Escape gives the focus back to the card
                skipped.add(chosen)
                continue
            before = log_length(page)
            acting = focused_key(page)
            page.keyboard.press("Enter")
            try:
                page.wait_for_function(
                    f"document.querySelectorAll('#log li').length > {before}", timeout=10_000
                )
            except sync_api.TimeoutError:
                raise AssertionError(
                    f"Enter on {acting} did nothing: {page.locator('#panel').inner_text()}"
                ) from None
            continue
        skipped.clear()
        assert tab_to(page, "pass", limit=120), (
            page.locator("#bar").inner_text()
            + " | "
            + page.locator("#panel").inner_html()
            + page.locator("#me").inner_html()
        )
        before = log_length(page)
        page.keyboard.press("Enter")
        if page.locator("#confirm-pass").is_visible():
            assert focused_key(page) == "confirm-cancel"
            page.keyboard.press("Tab")
            assert focused_key(page) == "confirm-ok"
            page.keyboard.press("Enter")
        page.wait_for_function(f"document.querySelectorAll('#log li').length > {before}")
    assert page.locator("#bar").get_attribute("data-phase") == "over"
    assert page.locator("#over").is_visible()


# ------------------------------------------------------------------ lobby


def open_a_public_table_of_two(page: sync_api.Page, server: ServerProcess, *fields: tuple[str, str]) -> str:
    """Create a public table for two people from the home page's form, with the form's other
    ``fields`` (selector, value: a select's option or a text); its id, this page at the table."""
    page.goto(server.url + "/")
    page.select_option("#players", "2")
    for seat in (0, 1):
        page.select_option(f"#seat-choices select[data-seat='{seat}']", "human")
    for selector, value in fields:
        if selector == "#seed":
            page.fill(selector, value)
        else:
            page.select_option(selector, value)
    page.check("#public")  # the lobby lists public tables only
    page.click("#new-table button[type=submit]")
    page.wait_for_selector("#bar .round")
    return str(page.evaluate("location.hash")).rsplit("/", 1)[-1]


def listed_table(page: sync_api.Page, server: ServerProcess, table: str) -> sync_api.Locator:
    """The table's item in the home page's lobby list."""
    page.goto(server.url + "/")
    item = page.locator("#tables li", has_text=table)
    item.wait_for()
    return item


def test_the_lobby_warns_that_a_chosen_seed_is_a_practice_deal(
    server: ServerProcess, page: sync_api.Page
) -> None:
    """A table created with a seed can be dealt again by its creator: joiners are told (K1)."""
    table = open_a_public_table_of_two(page, server, ("#seed", "4242"))
    assert "creator chose the seed" in listed_table(page, server, table).locator(".practice").inner_text()


def test_the_lobby_says_each_tables_pace_and_who_reads_its_chat(
    server: ServerProcess, page: sync_api.Page
) -> None:
    """Issue 39: a joiner learns the creator's settings from the list, before joining."""
    table = open_a_public_table_of_two(page, server, ("#table-pace", "slow"), ("#spectator-chat", "off"))
    settings = listed_table(page, server, table).locator(".table-settings").inner_text()
    assert settings.strip() == "slow pace, the chat is for the players alone"


def test_a_refused_action_from_a_stale_page_changes_nothing_and_reads_well(
    server: ServerProcess, page: sync_api.Page
) -> None:
    table, tokens = create(server, players=1, seed=10, deck=deck_of("critical"))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    patient = my_cards(page)[0]
    card(page, patient).click()
    # Meanwhile the same seat passes from elsewhere: the page's heal is now out of turn.
    act(server, table, tokens[0], {"type": "pass"})
    page.locator("#panel button.primary").click()
    page.wait_for_function(
        "!!document.querySelector('#panel .refusal, #panel .notice') || document.querySelector('#bar').dataset.round === '2'"
    )
    assert view(server, table, tokens[0])["round"] == 2


def test_a_solo_game_won_shows_its_tier(server: ServerProcess, page: sync_api.Page) -> None:
    # Chronic patients with no Time are cured as soon as they are diagnosed (T4): two a round.
    table, tokens = create(server, players=1, seed=12, deck=deck_of("chronic", credits=1, vp=3))
    for _ in range(100):
        state = view(server, table, tokens[0])
        if state["phase"] == "over":
            break
        me = state["players"][0]
        if me["pending"]:
            free = [int(space) for space, slot in me["hospital"].items() if slot is None]
            act(server, table, tokens[0], {"type": "admit", "card": me["pending"][0], "space": free[0]})
            continue
        waiting = [slot["card"] for slot in me["hospital"].values() if slot and not slot["revealed"]]
        if waiting and me["diagnostics"]:
            act(server, table, tokens[0], {"type": "diagnose", "patient": waiting[0]})
        else:
            act(server, table, tokens[0], {"type": "pass"})
    score = view(server, table, tokens[0])["players"][0]["score"]
    assert score == 10 + 12 * 3
    open_seat(page, server, table, 0, tokens[0])
    over = page.locator("#over")
    over.wait_for()
    assert over.locator("h2").inner_text() == f"Your hospital held: score {score}, gold tier"
    tiers = ", ".join(f"{name} from {lowest}" for name, lowest in make_config().solo_tiers)
    assert tiers in over.inner_text()  # the default configuration's [solo] tiers, best first
    assert over.locator("td[data-label='Cured']").inner_text() == "12 (12 chronic)"


def test_an_invitation_link_is_shown_to_copy_and_gives_its_seat(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.goto(server.url + "/")
    page.select_option("#players", "2")
    page.select_option("#seat-choices select[data-seat='0']", "human")
    page.select_option("#seat-choices select[data-seat='1']", "human")
    page.click("#new-table button[type=submit]")
    page.wait_for_selector("#invites:not([hidden])")
    link = page.locator("#invites input").input_value()
    table_id = page.evaluate("location.hash").split("/")[-1]
    assert re.fullmatch(rf"{re.escape(server.url)}/#/join/{table_id}/[A-Za-z0-9_-]+", link)
    # Opening one's own invitation again keeps one's seat and leaves the invitation alone.
    page.goto(link)
    page.wait_for_selector("#bar .round")
    assert page.evaluate(f"JSON.parse(localStorage.getItem('triage.seat.{table_id}')).seat") == 0
    # A friend's browser (nothing stored) opening the link takes seat 1.
    page.evaluate(f"localStorage.removeItem('triage.seat.{table_id}')")
    page.goto(server.url + "/")
    page.goto(link)
    page.click("#invited-take")  # the invitation page: a name (left empty) and the seat
    page.wait_for_selector("#me .player-title")
    assert "Player 2" in page.locator("#me .player-title").inner_text()  # seat 1, counted from 1
    assert page.evaluate(f"JSON.parse(localStorage.getItem('triage.seat.{table_id}')).seat") == 1


def test_an_arrival_is_admitted_by_choosing_its_free_space(
    server: ServerProcess, page: sync_api.Page
) -> None:
    """Issue 39, point 7: a free space is a target for the first arrival, one tap admits it
    there; tapping an arrival itself admits it to the first free space."""
    table, tokens = create(server, players=1, seed=13, deck=deck_of("critical"))
    open_seat(page, server, table, 0, tokens[0])
    first, second = (
        node.get_attribute("data-card") for node in page.locator("#me .pending button.card").all()
    )
    target = page.locator("#me button.card.target[data-key='space:3']")
    assert target.inner_text() == f"Admit {first} to space 3"
    click_and_wait(page, target)
    assert view(server, table, tokens[0])["players"][0]["hospital"]["3"]["card"] == first
    # The focus moves on to the next arrival, which one tap admits to the first free space.
    assert page.evaluate("document.activeElement.dataset.card") == second
    arrival = page.locator(f"#me .pending button.card[data-card='{second}']")
    assert "Tap: admit to space 1" in arrival.inner_text()
    click_and_wait(page, arrival)
    assert view(server, table, tokens[0])["players"][0]["hospital"]["1"]["card"] == second


def test_a_newcomer_plays_a_whole_solo_game_by_tapping_on_a_phone(
    server: ServerProcess, page: sync_api.Page
) -> None:
    """Tap a card, tap the action the panel offers, Pass when nothing is left: to the end,
    with every offered action on screen when the panel opens."""
    page.set_viewport_size(PHONE)
    page.goto(server.url + "/")
    page.click("#alone")
    page.wait_for_selector("#bar .round")
    for _ in range(400):
        if page.locator("#bar").get_attribute("data-phase") == "over":
            break
        arrived = page.locator("#me .pending button.card")
        if arrived.count():
            if page.locator("#me .spaces .card.empty").count():  # one tap admits it (A4)
                click_and_wait(page, arrived.first)
            else:  # no space is free: the tap selects it, and the panel offers to reject it (A5)
                arrived.first.click()
                click_and_wait(page, page.locator("#panel button.primary"))
            continue
        cards = page.locator("#me button.card:not(.target)")
        if cards.count():
            cards.first.click()
            primary = page.locator("#panel button.primary")
            if primary.count():
                sync_api.expect(primary).to_be_in_viewport(ratio=1)  # no scrolling needed
                click_and_wait(page, primary)
                continue
            page.keyboard.press("Escape")
        before = log_length(page)
        page.locator("#bar button.pass").click()
        if page.locator("#confirm-pass").is_visible():
            page.click("#confirm-ok")
        page.wait_for_function(f"document.querySelectorAll('#log li').length > {before}")
    over = page.locator("#over")
    assert over.is_visible() and "score" in over.locator("h2").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_back_once_seen_is_remembered_when_the_card_arrives_again(
    server: ServerProcess, page: sync_api.Page
) -> None:
    # Chronic patients with no Time are cured on diagnosis and go back on top of the deck (T4):
    # the next round draws them again, their backs known (I2).
    table, tokens = create(server, players=1, seed=14, deck=deck_of("chronic", credits=1, vp=3))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    cured = my_cards(page)
    for patient in cured:
        card(page, patient).click()
        click_and_wait(page, page.locator("#panel button.primary"))
    strip = page.locator("#deck .strip").inner_text()
    assert all(patient in strip for patient in cured)  # known positions on top of the deck (I3)
    page.click("#bar button.pass")
    page.wait_for_selector("#bar[data-round='2']")
    arrived = page.locator("#me .pending .card")
    assert sorted(arrived.evaluate_all("ns => ns.map(n => n.dataset.card)")) == sorted(cured)
    for index in range(arrived.count()):
        assert arrived.nth(index).locator(".kind").inner_text() == "chronic"
        assert arrived.nth(index).locator(".reward").inner_text() == "reward 1 Cr · 3 VP"


def test_a_terminal_patient_treated_once_is_safe_for_good_with_the_reward_variant(
    server: ServerProcess, page: sync_api.Page
) -> None:
    # V3 terminal_upkeep "reward": treated in its arrival round, it never gets Time again.
    table, tokens = create(
        server, players=1, seed=15, deck=deck_of("terminal"), config={"terminal_upkeep": "reward"}
    )
    state = view(server, table, tokens[0])
    for patient in state["players"][0]["terminals"]:
        act(server, table, tokens[0], {"type": "treat", "patient": patient["card"]})
    pass_round(server, table, tokens)
    open_seat(page, server, table, 0, tokens[0])
    first_ones = [p["card"] for p in state["players"][0]["terminals"]]
    for patient in first_ones:
        assert label_of(page, patient) == "safe: treated in an earlier round"
    newcomers = [
        c
        for c in page.locator("#me .card.k-terminal").evaluate_all("ns => ns.map(n => n.dataset.card)")
        if c not in first_ones
    ]
    assert newcomers and all(label_of(page, c) == "dies at Cleanup tonight unless treated" for c in newcomers)


def test_the_discard_pile_is_shown_with_the_discard_variant(
    server: ServerProcess, page: sync_api.Page
) -> None:
    table, tokens = create(
        server, players=1, seed=16, deck=deck_of("critical"), config={"return_to": "discard"}
    )
    pass_round(server, table, tokens)  # two critical patients die and go to the discard pile (V1)
    open_seat(page, server, table, 0, tokens[0])
    discard = view(server, table, tokens[0])["discard"]
    assert len(discard) == 2
    assert page.locator("#deck .discard").inner_text() == f"Discard pile: 2 cards ({', '.join(discard)})"
