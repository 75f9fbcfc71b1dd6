"""Your games (issue 20): a table's address is in the address bar and survives reload and Back;
the home page lists this browser's seats with where each stands; a table that does not exist
says so without a reconnect loop; the rules page leads back to the game; a server that cannot
be reached is said in words."""

from __future__ import annotations

import json
import re

from page_helpers import DESKTOP, PHONE, create, deck_of, open_seat, sync_api
from test_web_browser import admit_all, card, my_cards
from web_server import ServerProcess


def table_in_address(page: sync_api.Page) -> str:
    found = re.search(r"#/t/([A-Za-z0-9_-]+)$", page.url)
    assert found, page.url
    return found.group(1)


def test_a_game_started_at_home_keeps_its_address_through_reload_and_back(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(server.url + "/")
    page.wait_for_selector("#solo-bot option", state="attached")
    page.locator("#alone").click()
    page.wait_for_selector("#bar .round")
    table = table_in_address(page)
    page.reload()
    page.wait_for_selector("#bar .round")
    assert table_in_address(page) == table
    assert page.locator("#bar .turn").inner_text() == "Your turn"  # the seat is still held
    page.go_back()
    page.wait_for_selector("#my-games li[data-state]")
    mine = page.locator("#my-games li", has_text=f"Table {table}")
    assert mine.get_attribute("data-state") == "turn"
    assert "your turn, round 1" in mine.inner_text()
    mine.locator("a").click()
    page.wait_for_selector("#bar .round")
    assert table_in_address(page) == table


def test_your_games_say_where_each_stands_and_a_gone_table_can_be_forgotten(
    server: ServerProcess, page: sync_api.Page
) -> None:
    waiting, tokens = create(server, players=2, creator_seats=[0])
    page.goto(server.url + "/")
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [f"triage.seat.{waiting}", json.dumps({"seat": 0, "token": tokens[0], "saved": 2})],
    )
    page.evaluate(
        "localStorage.setItem('triage.seat.nosuchtable', JSON.stringify({seat: 1, token: 'x', saved: 1}))"
    )
    page.reload()
    page.wait_for_selector("#my-games li[data-state='gone']")
    # (The browser keeps the seats of the tests before: this one's are found by their table.)
    item = page.locator("#my-games li", has_text=f"Table {waiting}")
    assert item.inner_text() == f"Table {waiting}: waiting for 1 player to join"
    gone = page.locator("#my-games li[data-state='gone']")
    assert "Table nosuchtable: table not found" in gone.inner_text()
    gone.locator("button", has_text="Forget it").click()
    page.wait_for_function("!document.querySelector(\"#my-games li[data-state='gone']\")")
    assert page.evaluate("localStorage.getItem('triage.seat.nosuchtable')") is None


def test_a_table_that_does_not_exist_says_so_and_stops_connecting(
    server: ServerProcess, page: sync_api.Page
) -> None:
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.goto(server.url + "/#/t/nosuchtable")
    page.wait_for_selector("#missing:not([hidden])")
    assert "There is no table nosuchtable." in page.locator("#missing").inner_text()
    assert page.title() == "Table not found - Triage"
    page.wait_for_timeout(2500)
    assert len(sockets) <= 1, sockets  # no reconnect loop
    assert "reconnecting" not in page.locator("#status").inner_text()
    page.locator("#missing a", has_text="Back to the home page").click()
    page.wait_for_selector("#home:not([hidden])")


def test_the_rules_page_leads_back_to_the_game(server: ServerProcess, page: sync_api.Page) -> None:
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical"))
    open_seat(page, server, table, 0, tokens[0])
    page.goto(server.url + "/static/rules.html")
    back = page.locator("#back-link")
    assert back.inner_text() == "Back to your game"
    back.click()
    page.wait_for_selector("#bar .round")
    assert table_in_address(page) == table


def test_a_server_that_cannot_be_reached_is_said_in_words(server: ServerProcess, page: sync_api.Page) -> None:
    page.set_viewport_size(PHONE)
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical"))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    card(page, my_cards(page)[0]).click()
    page.route("**/actions", lambda route: route.abort())
    page.locator("#panel button.primary").click()
    refusal = page.locator("#panel .refusal")
    refusal.wait_for()
    assert refusal.inner_text().startswith("Not sent: The server cannot be reached.")
    assert "Failed to fetch" not in refusal.inner_text()
    page.unroute("**/actions")
