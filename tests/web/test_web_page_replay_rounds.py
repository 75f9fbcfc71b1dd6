"""Issue 20, point 7's leftovers: the replay steps a whole round and each step shows its own deck
and holdings (not the final ones); the "All legal actions" list is the full list (every action
but its payment mix) and counts it right."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient
from page_helpers import (
    WIDTHS,
    call,
    create,
    deck_of,
    open_seat,
    pass_round,
    serious_violations,
    shoot,
    sync_api,
)
from test_web_browser import admit_all
from web_helpers import auth, tokens_of
from web_helpers import create as create_in
from web_server import ServerProcess

from triage.engine.choices import expand


def without_pay(action: dict) -> tuple:
    return tuple(sorted((key, str(value)) for key, value in action.items() if key != "pay"))


def test_the_replay_names_the_step_each_round_starts_at(client: TestClient) -> None:
    created = create_in(client, players=1, seed=2, config={"rounds": 3})
    table, token = created["table_id"], tokens_of(created)[0]
    while not client.get(f"/api/tables/{table}").json()["over"]:
        choices = client.get(f"/api/tables/{table}/legal", headers=auth(token)).json()["choices"]
        client.post(f"/api/tables/{table}/actions", headers=auth(token), json=list(expand(choices[-1]))[0])
    steps = client.get(f"/api/tables/{table}/replay?step=0").json()
    rounds = steps["rounds"]
    assert [entry["round"] for entry in rounds] == list(range(1, len(rounds) + 1))
    assert rounds[0] == {"round": 1, "step": 0}
    for entry in rounds[1:]:
        before = client.get(f"/api/tables/{table}/replay?step={entry['step'] - 1}").json()["state"]
        start = client.get(f"/api/tables/{table}/replay?step={entry['step']}").json()["state"]
        assert (before["round"], start["round"]) == (entry["round"] - 1, entry["round"])


def test_the_page_replays_by_round_with_each_steps_own_deck(
    server: ServerProcess, page: sync_api.Page, shots: Path
) -> None:
    page.set_viewport_size(WIDTHS["phone"])
    table, tokens = create(server, players=1, seed=6, config={"rounds": 3})
    for _ in range(3):
        pass_round(server, table, tokens)
    open_seat(page, server, table, 0, tokens[0])
    page.click("[data-key='replay']")
    page.wait_for_selector("#replay h2")
    first = call(server, "GET", f"/api/tables/{table}/replay?step=0")
    second_round = first["rounds"][1]
    page.click("[data-key='replay-round-next']")
    page.wait_for_function(
        f"document.querySelector('#replay h2').textContent.startsWith('Replay: step {second_round['step']} ')"
    )
    at_step = call(server, "GET", f"/api/tables/{table}/replay?step={second_round['step']}")["state"]
    final = call(server, "GET", f"/api/tables/{table}/replay?step={first['steps']}")["state"]
    deck = page.locator("#replay .replay-deck")
    assert f"Deck at this step: {len(at_step['deck'])} cards" in deck.inner_text()
    assert page.locator("#replay .replay-deck li.mini").all_inner_texts() == at_step["deck"][:12]
    assert at_step["deck"] != final["deck"]  # the final deck is not what a mid-game step shows
    holdings = page.locator("#replay .replay-holdings").first.inner_text()
    assert f"Healing {at_step['players'][0]['healing']}" in holdings
    # Issue 39 point 6: the always-visible scoreboard follows the replay, not the game's end.
    scores = page.locator("#scores table.scoreboard")
    assert scores.get_attribute("data-caption") == f"Scores at step {second_round['step']}"
    row = scores.locator("tbody tr").first.locator("td").all_inner_texts()
    player = at_step["players"][0]
    assert row == [str(player[key]) for key in ("score", "vp", "quality", "credits")]
    assert (player["score"], player["quality"]) != (
        final["players"][0]["score"],
        final["players"][0]["quality"],
    )
    assert page.locator("#deck h2").inner_text().startswith("Deck at the end of the game: ")
    assert serious_violations(page) == []
    shoot(page, shots, "replay-by-round-phone")
    page.click("[data-key='replay-round-back']")
    page.wait_for_function("document.querySelector('#replay h2').textContent.startsWith('Replay: step 0 ')")


def test_all_legal_actions_is_the_full_list_counted_right(server: ServerProcess, page: sync_api.Page) -> None:
    table, tokens = create(server, players=1, seed=3, deck=deck_of("critical", healing=3))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    summary = page.locator("#panel .all-actions summary")
    summary.click()
    listed = page.locator("#panel .all-actions button")
    count = int(summary.inner_text().split("(")[1].split(")")[0])
    choices = call(server, "GET", f"/api/tables/{table}/legal", token=tokens[0])["choices"]
    engine = {without_pay(action) for choice in choices for action in expand(choice)}
    shown = set()
    for node in listed.all():
        action = node.get_attribute("data-action")
        shown.add(without_pay(json.loads(action)) if action else without_pay({"type": "pass"}))
    assert count == listed.count() == len(engine)
    assert shown == engine
    texts = listed.all_inner_texts()
    assert any(text.endswith("everyone draws") and "remove" in text for text in texts)
    assert sum(text.startswith("Heal ") for text in texts) > len(
        [c for c in choices if c["type"] == "heal"]
    )  # every amount, not only the largest
