"""A table's life around the game (issue 20, point 5): the waiting room, the host's bots,
players' names, invitation refusals that say why, and the rematch, through the API and the
WebSocket; and a database of the version before them, which gains their columns."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import auth, create, play_random, service_of, tokens_of

from triage.web.storage import Store

SHORT = {"rounds": 1}


def join(client: TestClient, table_id: str, **body: Any) -> tuple[int, dict[str, Any]]:
    response = client.post(f"/api/tables/{table_id}/join", json=body)
    return response.status_code, response.json()


def two_humans(client: TestClient, **body: Any) -> tuple[str, str, str]:
    """A table of two human seats and a random bot: the creator's token and seat 1's invitation."""
    created = create(
        client, players=3, bots=[None, None, "random"], creator_seats=[0], config=SHORT, name="Ann", **body
    )
    return created["table_id"], tokens_of(created)[0], created["invites"][0]["code"]


def summary(client: TestClient, table_id: str) -> dict[str, Any]:
    return client.get(f"/api/tables/{table_id}").json()


def play_out(client: TestClient, table_id: str, tokens: dict[int, str]) -> None:
    play_random(client, table_id, tokens, 2000)
    assert summary(client, table_id)["over"]


def test_a_table_waits_for_every_human_seat_and_nobody_moves_meanwhile(client: TestClient) -> None:
    # A fixed deal in which seat 0 has an admission to decide first (A4): a random deal can hand
    # it two terminal patients, which need no decision, and the turn would start at seat 1.
    created = create(client, players=3, bots=["random", None, None], creator_seats=[1], name="Ann", seed=0)
    table_id, token = created["table_id"], tokens_of(created)[1]
    facts = summary(client, table_id)
    assert facts["waiting"] is True and facts["host"] == 1 and facts["rematch"] is None
    assert facts["turn"] == 0 and facts["actions"] == 0  # the bot of seat 0, to move first, waits
    assert [seat["name"] for seat in facts["seats"]] == [None, "Ann", None]
    assert client.get(f"/api/tables/{table_id}/legal", headers=auth(token)).json()["choices"] == []
    legal = service_of(client).get(table_id).game.legal_actions(1) or [{"type": "pass"}]
    refused = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=legal[0])
    assert refused.status_code == 409 and refused.json()["code"] == "waiting_for_players"
    assert "seat 2 still free" in refused.json()["message"]
    status, joined = join(client, table_id, invite=created["invites"][0]["code"], name="Bo")
    assert status == 200 and joined["seat"] == 2
    facts = summary(client, table_id)
    assert facts["waiting"] is False and [seat["name"] for seat in facts["seats"]] == [None, "Ann", "Bo"]
    deadline = time.monotonic() + 30
    while summary(client, table_id)["actions"] == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert summary(client, table_id)["actions"] > 0  # the bot moved once the last player sat down


def test_a_solo_table_and_a_table_the_creator_fills_never_wait(client: TestClient) -> None:
    solo = create(client, players=2, bots=[None, "random"])
    assert summary(client, solo["table_id"])["waiting"] is False
    hot_seat = create(client, players=2)
    assert summary(client, hot_seat["table_id"])["waiting"] is False


def test_the_host_fills_the_free_seats_with_a_bot_level(client: TestClient) -> None:
    table_id, token, invite = two_humans(client)
    url = f"/api/tables/{table_id}/bots"
    unknown = client.post(url, headers=auth(token), json={"bot": "nobody"})
    assert unknown.status_code == 422 and unknown.json()["code"] == "unknown_bot"
    assert summary(client, table_id)["waiting"] is True  # refused: nothing changed
    assert client.post(url, json={"bot": "random"}).json()["code"] == "unauthorized"
    other_id, _, other_invite = two_humans(client)
    _, other_guest = join(client, other_id, invite=other_invite, name="Bo")
    other_seat = client.post(url, headers=auth(other_guest["token"]), json={"bot": "random"})
    assert other_seat.status_code == 403 and other_seat.json()["code"] == "forbidden"
    filled = client.post(url, headers=auth(token), json={"bot": "greedy"})
    assert filled.status_code == 200 and filled.json() == {"seats": [1], "bot": "greedy"}
    facts = summary(client, table_id)
    assert facts["waiting"] is False and facts["seats"][1]["bot"] == "greedy"
    again = client.post(url, headers=auth(token), json={"bot": "greedy"})
    assert again.status_code == 409 and again.json()["code"] == "not_waiting"
    status, used = join(client, table_id, invite=invite)
    assert (status, used["code"]) == (409, "invite_used") and "gave the seat to a bot (greedy)" in used[
        "message"
    ]


def test_only_the_host_fills_seats(client: TestClient) -> None:
    created = create(client, players=3, creator_seats=[0], name="Ann")
    table_id, token = created["table_id"], tokens_of(created)[0]
    _, guest = join(client, table_id, invite=created["invites"][0]["code"], name="Bo")
    refused = client.post(
        f"/api/tables/{table_id}/bots", headers=auth(guest["token"]), json={"bot": "random"}
    )
    assert refused.status_code == 403 and refused.json()["code"] == "not_host"
    assert summary(client, table_id)["waiting"] is True
    wrong = client.post(f"/api/tables/{table_id}/bots", headers=auth("a" * 32), json={"bot": "random"})
    assert wrong.status_code == 403 and wrong.json()["code"] == "forbidden"
    filled = client.post(f"/api/tables/{table_id}/bots", headers=auth(token), json={"bot": "random"})
    assert filled.status_code == 200 and filled.json()["seats"] == [2]


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        ("x" * 25, "at most 24 characters"),
        ("Ann\x07", "U+0007"),
        ("An\u202en", "U+202E"),
        ("Ann\u200b", "U+200B"),
        ("An\nn", "U+000A"),
        ("An  n", "single spaces"),
        ("An\tn", "U+0009"),
    ],
)
def test_a_bad_name_is_refused_saying_why_and_changes_nothing(
    client: TestClient, name: str, problem: str
) -> None:
    before = len(service_of(client).store.table_ids())
    response = client.post("/api/tables", json={"players": 2, "creator_seats": [0], "name": name})
    assert response.status_code == 422 and response.json()["code"] == "invalid_name"
    assert problem in response.json()["message"]
    assert len(service_of(client).store.table_ids()) == before
    created = create(client, players=2, creator_seats=[0])
    status, refused = join(client, created["table_id"], invite=created["invites"][0]["code"], name=name)
    assert (status, refused["code"]) == (422, "invalid_name")
    assert summary(client, created["table_id"])["seats"][1]["taken"] is False


def test_names_are_trimmed_public_and_kept_as_typed(client: TestClient) -> None:
    created = create(client, players=2, creator_seats=[0], name="  <b>Zoë</b> & co  ", public=True)
    table_id = created["table_id"]
    assert summary(client, table_id)["seats"][0]["name"] == "<b>Zoë</b> & co"
    listed = next(table for table in client.get("/api/tables").json() if table["table_id"] == table_id)
    assert listed["seats"][0]["name"] == "<b>Zoë</b> & co"
    wrong_type = client.post("/api/tables", json={"players": 1, "name": 5})
    assert wrong_type.status_code == 422


def test_the_lobby_message_tells_every_client_who_sits_where(client: TestClient) -> None:
    table_id, token, invite = two_humans(client)
    url = f"/api/tables/{table_id}/ws"
    with client.websocket_connect(url) as host, client.websocket_connect(url) as spectator:
        host.send_json({"token": token})
        spectator.send_json({"spectate": True})
        hello, watching = host.receive_json(), spectator.receive_json()
        assert hello["waiting"] is True and hello["choices"] == [] and hello["host"] == 0
        assert [seat["name"] for seat in hello["seats"]] == ["Ann", None, None]
        assert watching["waiting"] is True
        public = ("seats", "waiting", "host", "rematch")  # the same for every seat and spectator
        assert {key: hello[key] for key in public} == {key: watching[key] for key in public}
        assert set(hello["seats"][0]) == {"seat", "bot", "human", "taken", "name"}  # no token, no code
        join(client, table_id, invite=invite, name="Bo")
        started = host.receive_json()
        assert started["type"] == "hello" and started["waiting"] is False
        assert [seat["name"] for seat in started["seats"]] == ["Ann", "Bo", None]
        assert started["choices"] or started["view"]["turn"] != 0
        assert spectator.receive_json()["type"] == "hello"


def test_a_seat_change_short_of_the_start_is_a_lobby_message(client: TestClient) -> None:
    created = create(client, players=3, creator_seats=[0], name="Ann")
    table_id = created["table_id"]
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as spectator:
        spectator.send_json({"spectate": True})
        assert spectator.receive_json()["type"] == "hello"
        join(client, table_id, invite=created["invites"][0]["code"], name="Bo")
        message = spectator.receive_json()
        assert message["type"] == "lobby" and message["waiting"] is True
        assert [seat["name"] for seat in message["seats"]] == ["Ann", "Bo", None]
        assert "token" not in str(message) and "invite" not in str(message)


def test_invitation_refusals_say_what_happened(client: TestClient) -> None:
    table_id, _, invite = two_humans(client)
    status, wrong = join(client, table_id, invite="not-the-code")
    assert (status, wrong["code"]) == (403, "bad_invite")
    status, missing = join(client, "no-such-table", invite=invite)
    assert (status, missing["code"]) == (404, "unknown_table")
    assert join(client, table_id, invite=invite, name="Bo")[0] == 200
    status, used = join(client, table_id, invite=invite)
    assert (status, used["code"]) == (409, "invite_used") and "the seat is taken" in used["message"]


def test_an_invitation_to_a_finished_table_has_expired(client: TestClient, db_url: str) -> None:
    """A table of the version before the waiting room (no host) played to its end, seat 1's
    moves made by the server itself (nobody took the seat)."""
    created = create(client, players=2, creator_seats=[0], config=SHORT)
    table_id = created["table_id"]
    service = service_of(client)
    live = service.get(table_id)
    live.host = None
    with sqlite3.connect(db_url.removeprefix("sqlite:///")) as connection:
        connection.execute("UPDATE tables SET host = NULL WHERE id = ?", (table_id,))
    rng = random.Random(3)
    while not live.game.is_over():
        seat = live.game.turn
        service.turns.act(live, seat, rng.choice(live.game.legal_actions(seat)))
    status, expired = join(client, table_id, invite=created["invites"][0]["code"])
    assert (status, expired["code"]) == (409, "invite_expired") and "the game is over" in expired["message"]
    assert summary(client, table_id)["seats"][1]["taken"] is False


def test_a_rematch_offers_the_same_seats_to_the_same_people(client: TestClient) -> None:
    table_id, host_token, invite = two_humans(client)
    _, guest = join(client, table_id, invite=invite, name="Bo")
    tokens = {0: host_token, 1: guest["token"]}
    early = client.post(f"/api/tables/{table_id}/rematch", headers=auth(host_token))
    assert early.status_code == 409 and early.json()["code"] == "not_over"
    assert client.post(f"/api/tables/{table_id}/rematch").json()["code"] == "unauthorized"
    play_out(client, table_id, tokens)
    final = client.get(f"/api/tables/{table_id}/final").json()
    assert [player["name"] for player in final["players"]] == ["Ann", "Bo", None]
    url = f"/api/tables/{table_id}/ws"
    with client.websocket_connect(url) as guest_socket:
        guest_socket.send_json({"token": guest["token"]})
        assert guest_socket.receive_json()["rematch"] is None
        asked = client.post(f"/api/tables/{table_id}/rematch", headers=auth(host_token))
        assert asked.status_code == 200, asked.text
        rematch = asked.json()
        assert rematch["seat"] == 0 and rematch["table_id"] != table_id
        offer = guest_socket.receive_json()
        assert offer["type"] == "lobby" and offer["rematch"] == rematch["table_id"]
    new_id = rematch["table_id"]
    facts = summary(client, new_id)
    assert facts["waiting"] is True and facts["host"] == 0 and facts["actions"] == 0
    assert [(seat["bot"], seat["name"], seat["taken"]) for seat in facts["seats"]] == [
        (None, "Ann", True),
        (None, "Bo", False),
        ("random", None, True),
    ]
    assert summary(client, table_id)["rematch"] == new_id
    old_game = service_of(client).get(table_id).game
    new_game = service_of(client).get(new_id).game
    assert (
        new_game.setup["config"] == old_game.setup["config"]
        and new_game.setup["deck"] == old_game.setup["deck"]
    )
    joined = client.post(f"/api/tables/{table_id}/rematch", headers=auth(guest["token"]))
    assert joined.status_code == 200 and joined.json()["table_id"] == new_id and joined.json()["seat"] == 1
    view = client.get(f"/api/tables/{new_id}/view", headers=auth(joined.json()["token"]))
    assert view.status_code == 200
    facts = summary(client, new_id)
    assert facts["waiting"] is False and facts["seats"][1]["name"] == "Bo"
    twice = client.post(f"/api/tables/{table_id}/rematch", headers=auth(guest["token"]))
    assert twice.status_code == 409 and twice.json()["code"] == "seat_taken"
    host_again = client.post(f"/api/tables/{table_id}/rematch", headers=auth(host_token))
    assert host_again.json()["code"] == "seat_taken"  # one table per rematch, one seat per player
    old_tokens_at_new = client.get(f"/api/tables/{new_id}/view", headers=auth(host_token))
    assert old_tokens_at_new.status_code == 403  # an old token is no seat of the rematch


def test_the_rematch_link_survives_a_restart(db_url: str) -> None:
    from triage.web.app import create_app
    from triage.web.limits import RateLimits

    rates = RateLimits(create="1000/second", act="100000/second", watch="1000/second")
    with TestClient(create_app(db_url, rates)) as client:
        created = create(client, players=2, bots=[None, "random"], config=SHORT, name="Ann")
        table_id, token = created["table_id"], tokens_of(created)[0]
        play_out(client, table_id, {0: token})
        new_id = client.post(f"/api/tables/{table_id}/rematch", headers=auth(token)).json()["table_id"]
    with TestClient(create_app(db_url, rates)) as client:
        assert summary(client, table_id)["rematch"] == new_id
        facts = summary(client, new_id)
        assert facts["seats"][0]["name"] == "Ann" and facts["seats"][1]["bot"] == "random"
        assert facts["waiting"] is False and facts["host"] == 0


def test_a_database_of_the_version_before_gains_the_new_columns(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    from triage.web.tables import TableService

    service = TableService(Store(url), processes=0)
    table, _, invites = service.create(2, None, 5, None, None, creator_seats=[0])
    service.close()
    with sqlite3.connect(tmp_path / "old.db") as connection:
        for table_name, column in (("seats", "name"), ("tables", "host"), ("tables", "rematch")):
            connection.execute(f"ALTER TABLE {table_name} DROP COLUMN {column}")
    store = Store(url)
    stored = store.load_table(table.id)
    assert stored is not None and stored.host is None and stored.rematch is None
    assert [seat.name for seat in stored.seats] == [None, None]
    service = TableService(store, processes=0)
    live = service.get(table.id)
    assert live.waiting is False  # a table of before the waiting room plays as it did
    joined = service.join(live, invite=invites[0]["code"], name="Bo")
    assert Store(url).load_table(table.id).seats[joined["seat"]].name == "Bo"  # type: ignore[union-attr]
    service.close()
