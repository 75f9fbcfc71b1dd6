"""A designer's market item through the web API (T8): a table created with configuration overrides
offers it, sells it, sends its label, and refuses an item beyond the server's limits."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from web_helpers import auth, create, legal_actions, tokens_of

NIGHT_SHIFT = {"price": 1, "limit": 2, "gives": {"healing": 2}, "label": "Night shift", "help": "two Healing"}


def test_a_table_with_a_designer_item_offers_sells_and_names_it(client: TestClient) -> None:
    created = create(
        client,
        players=1,
        seed=3,
        config={"start": {"credits": 3}, "market": {"night_shift": NIGHT_SHIFT}},
    )
    table, token = created["table_id"], tokens_of(created)[0]
    view = client.get(f"/api/tables/{table}/view", headers=auth(token)).json()
    assert view["config"]["market"]["night_shift"] == {**NIGHT_SHIFT}
    assert view["kinds"]["non_severe"]["label"] == "non-severe"
    legal = legal_actions(client, table, token)
    while {"type": "buy", "item": "night_shift"} not in legal:  # admit the arrivals first (A4)
        answer = client.post(f"/api/tables/{table}/actions", headers=auth(token), json=legal[0])
        assert answer.status_code == 200, answer.json()
        legal = legal_actions(client, table, token)
    healing = client.get(f"/api/tables/{table}/view", headers=auth(token)).json()["players"][0]["healing"]
    answer = client.post(
        f"/api/tables/{table}/actions", headers=auth(token), json={"type": "buy", "item": "night_shift"}
    )
    assert answer.status_code == 200, answer.json()
    assert {"type": "bought", "player": 0, "item": "night_shift", "price": 1} in answer.json()["events"]
    player = client.get(f"/api/tables/{table}/view", headers=auth(token)).json()["players"][0]
    assert (player["healing"], player["credits"], player["items"]["night_shift"]) == (healing + 2, 2, 1)


def post_table(client: TestClient, market: dict[str, Any]) -> Any:
    return client.post("/api/tables", json={"players": 1, "config": {"market": market}})


def test_a_designer_item_beyond_the_server_s_limits_is_refused_by_name(client: TestClient) -> None:
    answer = post_table(client, {"night_shift": {"price": 1, "gives": {"spaces": 1}}})
    assert answer.status_code == 422
    assert "config.market.night_shift.limit must be set" in answer.json()["message"]
    answer = post_table(client, {"night_shift": {"price": 1, "limit": 1, "gives": {"healing": 9}}})
    assert answer.status_code == 422
    answer = post_table(client, {"night_shift": {"price": 1, "gives": {"sleep": 1}}})
    assert answer.status_code == 422
    answer = post_table(
        client, {f"item_{n}": {"price": 1, "limit": 1, "gives": {"healing": 1}} for n in range(20)}
    )
    assert answer.status_code == 422
    answer = post_table(client, {"night_shift": {"gives": {"healing": 1}}})
    assert answer.status_code == 422 and "market.night_shift needs 'price'" in answer.json()["message"]
