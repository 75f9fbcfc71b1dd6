"""A two-human table in the browser (issue 20, point 5): the invitation page with a name, the
waiting room with the host's invitation box, names on the board, the game over and the rematch
joined with one click, at both widths, axe-clean in the waiting room and rematch states.

The guest plays in another origin (``localhost`` against the host's ``127.0.0.1``): another
browser's storage, holding no seat of the host's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_helpers import WIDTHS, call, pass_round, serious_violations, shoot, sync_api
from web_server import ServerProcess

HOST_NAME = "Ann <i>x</i>"  # shown as typed, never as HTML


def guest_url(server: ServerProcess, path: str) -> str:
    return server.url.replace("127.0.0.1", "localhost") + path


def saved_token(page: sync_api.Page, table_id: str) -> str:
    return str(page.evaluate(f"JSON.parse(localStorage.getItem('triage.seat.{table_id}')).token"))


def axe_clean(page: sync_api.Page, what: str) -> None:
    found = serious_violations(page)
    assert found == [], f"{what}: {found}"


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_two_people_from_invitation_through_the_waiting_room_to_a_rematch(
    server: ServerProcess,
    page: sync_api.Page,
    browser_context: sync_api.BrowserContext,
    shots: Path,
    width: str,
) -> None:
    page.set_viewport_size(WIDTHS[width])
    created = call(
        server,
        "POST",
        "/api/tables",
        {"players": 2, "creator_seats": [0], "config": {"rounds": 1}, "name": HOST_NAME},
    )
    table_id, host_token = created["table_id"], created["seats"][0]["token"]
    invite = created["invites"][0]
    page.goto(server.url + "/")
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [f"triage.seat.{table_id}", json.dumps({"seat": 0, "token": host_token, "invites": [invite]})],
    )
    page.goto(f"{server.url}/#/t/{table_id}")

    # The waiting room: no "Your turn" with an empty seat, the invitation to send, the host's bots.
    page.wait_for_selector("#lobby:not([hidden])")
    assert page.locator("#bar .turn").inner_text() == "Waiting for players"
    assert "(Your turn)" not in page.title() and page.locator("#panel").is_hidden()
    assert "You (Ann <i>x</i>), host: here" in page.locator("#lobby").inner_text()
    assert "A free seat: waiting for a player" in page.locator("#lobby").inner_text()
    assert page.locator("#lobby i").count() == 0  # the name is text, not markup
    assert page.locator("#invites").is_visible() and page.locator("#lobby-bot").is_visible()
    axe_clean(page, "the host's waiting room")
    shoot(page, shots, f"issue20-waiting-room-{width}")

    guest = browser_context.new_page()
    errors: list[str] = []
    guest.on("pageerror", lambda error: errors.append(str(error)))
    try:
        guest.set_viewport_size(WIDTHS[width])
        guest.goto(guest_url(server, invite["url"]))
        guest.wait_for_selector("#invited:not([hidden])")
        axe_clean(guest, "the invitation page")
        guest.fill("#invited-name", "  ")
        guest.fill("#invited-name", "Bo\u200b")
        guest.click("#invited-take")
        guest.wait_for_selector("#invited-problem:not([hidden])")
        assert "That name cannot be used" in guest.locator("#invited-problem").inner_text()
        guest.fill("#invited-name", "Bo")
        guest.click("#invited-take")
        guest.wait_for_selector("#bar .round")
        guest_token = saved_token(guest, table_id)

        # Everyone is here: the waiting room and the host's invitation box are gone, names shown.
        page.wait_for_selector("#lobby", state="hidden")
        page.wait_for_selector("#invites", state="hidden")
        # Seat 0 decides first unless its arrivals needed no decision (a random deal): by name.
        first = call(server, "GET", f"/api/tables/{table_id}")["turn"]
        assert page.locator("#bar .turn").inner_text() == ("Your turn" if first == 0 else "Bo to play")
        assert page.locator("#me .player-title").inner_text().startswith("Your hospital (Ann <i>x</i>)")
        assert "Bo" in page.locator("#others .player-title").inner_text()
        assert guest.locator("#bar .turn").inner_text() == (
            "Ann <i>x</i> to play" if first == 0 else "Your turn"
        )
        assert guest.locator("#others .player-title").inner_text().startswith("Ann <i>x</i>")

        # Played out through the API (one round), then the game-over screens.
        pass_round(server, table_id, {0: host_token, 1: guest_token})
        page.wait_for_selector("#over:not([hidden])")
        guest.wait_for_selector("#over:not([hidden])")
        assert "Bo" in page.locator("#over table").inner_text()
        assert "Ann <i>x</i>" in guest.locator("#over table").inner_text()
        assert guest.locator("[data-key='rematch']").inner_text() == "Rematch"

        # The host asks for the rematch: a new table waits for the guest, who sees the offer.
        page.click("[data-key='rematch']")
        page.wait_for_function(f"!location.hash.endsWith('{table_id}')")
        rematch_id = page.evaluate("location.hash").split("/")[-1]
        page.wait_for_selector("#lobby:not([hidden])")
        assert "Bo: not here yet" in page.locator("#lobby").inner_text()
        axe_clean(page, "the rematch's waiting room")
        offer = guest.locator("[data-key='rematch']")
        guest.wait_for_function(
            "document.querySelector(\"[data-key='rematch']\")?.textContent === 'Join the rematch'"
        )
        assert "A rematch is offered" in guest.locator("#over").inner_text()
        axe_clean(guest, "the rematch offer")
        shoot(guest, shots, f"issue20-rematch-offer-{width}")
        offer.click()
        guest.wait_for_function(f"location.hash === '#/t/{rematch_id}'")
        guest.wait_for_selector("#bar .round")
        page.wait_for_selector("#lobby", state="hidden")
        assert "Bo" in page.locator("#others .player-title").inner_text()
        assert guest.locator("#me .player-title").inner_text().startswith("Your hospital (Bo)")
        facts = call(server, "GET", f"/api/tables/{rematch_id}")
        assert [seat["name"] for seat in facts["seats"]] == [HOST_NAME, "Bo"] and not facts["waiting"]
    finally:
        guest.close()
    assert errors == [], f"script errors in the guest's page: {errors}"


def test_a_used_or_wrong_invitation_says_so_and_offers_to_watch(
    server: ServerProcess, page: sync_api.Page
) -> None:
    created = call(server, "POST", "/api/tables", {"players": 2, "creator_seats": [0], "name": "Ann"})
    table_id, invite = created["table_id"], created["invites"][0]
    call(server, "POST", f"/api/tables/{table_id}/join", {"invite": invite["code"], "name": "Bo"})
    page.goto(guest_url(server, invite["url"]))
    page.click("#invited-take")
    page.wait_for_selector("#invited-problem:not([hidden])")
    assert page.locator("#invited-problem").inner_text().startswith("This invitation was used already")
    assert page.locator("#invited-form").is_hidden()
    page.click("#invited-watch")
    page.wait_for_selector("#bar .round")
    assert page.locator("#status").inner_text() == "Watching as a spectator"
    assert "Ann" in page.locator("#others").inner_text() and "Bo" in page.locator("#others").inner_text()
    page.goto(guest_url(server, f"/#/join/{table_id}/not-the-code"))
    page.click("#invited-take")
    page.wait_for_selector("#invited-problem:not([hidden])")
    assert "not one of this table" in page.locator("#invited-problem").inner_text()
    assert page.locator("#invited-watch").is_visible()


def test_the_host_starts_with_bots_from_the_waiting_room(server: ServerProcess, page: sync_api.Page) -> None:
    page.set_viewport_size(WIDTHS["phone"])
    page.goto(server.url + "/")
    page.fill("#player-name", "Ann")
    page.select_option("#players", "3")
    page.select_option("#seat-choices select[data-seat='1']", "human")
    page.select_option("#seat-choices select[data-seat='2']", "human")
    page.click("#new-table button[type=submit]")
    page.wait_for_selector("#lobby:not([hidden])")
    assert "1 seat" not in page.locator("#lobby p").first.inner_text()  # two seats are free
    assert "You (Ann), host: here" in page.locator("#lobby").inner_text()
    assert page.locator("#lobby-bot").input_value() == "expert-novice"  # the gentlest level first
    page.select_option("#lobby-bot", "random")
    page.click("[data-key='start-bots']")
    page.wait_for_selector("#lobby", state="hidden")
    page.wait_for_selector("#invites", state="hidden")
    table_id = page.evaluate("location.hash").split("/")[-1]
    facts = call(server, "GET", f"/api/tables/{table_id}")
    assert [seat["bot"] for seat in facts["seats"]] == [None, "random", "random"] and not facts["waiting"]
    assert facts["seats"][0]["name"] == "Ann"
    assert page.locator("#bar .turn").inner_text() in (
        "Your turn",
        "Random bot 1 to play",
        "Random bot 2 to play",
    )
