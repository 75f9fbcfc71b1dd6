"""Live updates over the WebSocket: each seat gets its own filtered events; reconnecting gives
the current view."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_helpers import assert_worded, auth, create, legal_actions, service_of, tokens_of

from triage.engine import events_for, public_event, view
from triage.engine.choices import action_choices, expand
from triage.web.sealing import sealed


def test_each_seat_receives_only_its_own_filtered_events(client: TestClient) -> None:
    created = create(client, players=2, seed=21)
    table_id, tokens = created["table_id"], tokens_of(created)
    live = service_of(client).get(table_id)
    url = f"/api/tables/{table_id}/ws"
    with (
        client.websocket_connect(url) as seat0,
        client.websocket_connect(url) as seat1,
        client.websocket_connect(url) as spectator,
    ):
        seat0.send_json({"token": tokens[0]})
        seat1.send_json({"token": tokens[1]})
        spectator.send_json({"spectate": True})
        hello0, hello1, hello_spectator = seat0.receive_json(), seat1.receive_json(), spectator.receive_json()
        assert hello0["view"] == view(live.game, 0)
        assert_worded(hello0["log"], events_for(live.events, 0), 0, live)
        assert hello0["choices"] == action_choices(live.game, 0) and hello0["actions"] == 0
        assert hello1["view"] == view(live.game, 1) and hello1["choices"] == []
        assert hello_spectator["seat"] is None and hello_spectator["choices"] == []
        assert_worded(hello_spectator["log"], [public_event(event) for event in live.events], None, live)

        start = len(live.events)
        action = next(expand(hello0["choices"][0]))
        assert (
            client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=action).status_code
            == 200
        )
        update0 = seat0.receive_json()
        assert update0["type"] == "update"
        assert_worded(update0["events"], events_for(live.events[start:], 0), 0, live)
        assert update0["choices"] == action_choices(live.game, 0) and update0["actions"] == 1
        # Seat 0's actions that revealed nothing may be undone: the others hear of them once
        # they are sealed (issue 20), then in a fresh hello at the sealed point.
        held = sealed(live).holding
        while sealed(live).holding:
            action = next(expand(action_choices(live.game, 0)[0]))
            client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=action)
            assert seat0.receive_json()["type"] == "update"
        update1, update_spectator = seat1.receive_json(), spectator.receive_json()
        assert update1["view"] == view(live.game, 1)
        if held:
            assert update1["type"] == update_spectator["type"] == "hello"
            assert_worded(update1["log"], events_for(live.events, 1), 1, live)
            assert_worded(update_spectator["log"], [public_event(event) for event in live.events], None, live)
        else:
            everything = live.events[start:]
            assert update1["type"] == update_spectator["type"] == "update"
            assert_worded(update1["events"], events_for(everything, 1), 1, live)
            assert_worded(
                update_spectator["events"], [public_event(event) for event in everything], None, live
            )
        assert update1["actions"] == update_spectator["actions"] == live.actions
        assert update_spectator["choices"] == []


def test_a_reconnecting_client_gets_its_current_view(client: TestClient) -> None:
    created = create(client, players=2, bots=[None, "random"], seed=22)
    table_id, tokens = created["table_id"], tokens_of(created)
    url = f"/api/tables/{table_id}/ws"
    with client.websocket_connect(url) as socket:
        socket.send_json({"token": tokens[0]})
        first = socket.receive_json()
    for _ in range(3):
        legal = legal_actions(client, table_id, tokens[0])
        client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[0]), json=legal[-1])
    with client.websocket_connect(url) as socket:
        socket.send_json({"token": tokens[0]})
        again = socket.receive_json()
    current = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[0])).json()
    assert current.pop("actions") == again["actions"]
    assert current.pop("undo") == again["undo"]
    assert again["type"] == "hello" and again["view"] == current != first["view"]
    legal = client.get(f"/api/tables/{table_id}/legal", headers=auth(tokens[0])).json()
    assert {key: again[key] for key in ("actions", "choices", "forecast")} == legal
    assert len(again["log"]) > len(first["log"])


@pytest.mark.parametrize("hello", [{"token": "wrong"}, {}, {"spectate": "yes"}])
def test_a_socket_without_a_valid_token_is_refused(client: TestClient, hello: dict) -> None:
    created = create(client, players=2, seed=23)
    with client.websocket_connect(f"/api/tables/{created['table_id']}/ws") as socket:
        socket.send_json(hello)
        refusal = socket.receive_json()
        assert refusal["type"] == "error" and refusal["code"] in {"forbidden", "unauthorized"}
        assert "view" not in refusal
        with pytest.raises(WebSocketDisconnect):
            socket.receive_json()


def test_updates_and_a_later_hello_word_and_head_each_event_alike(client: TestClient) -> None:
    """An event's words and phase heading are the same whether it came in an update (headed from
    the phase before its action) or in a later hello's log (headed from the whole game)."""
    created = create(client, players=1, seed=23)
    table_id, token = created["table_id"], tokens_of(created)[0]
    live = service_of(client).get(table_id)
    url = f"/api/tables/{table_id}/ws"
    with client.websocket_connect(url) as socket:
        socket.send_json({"token": token})
        heard = socket.receive_json()["log"]
        for _ in range(40):
            if live.game.is_over():
                break
            legal = legal_actions(client, table_id, token)
            client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=legal[-1])
            heard += socket.receive_json()["events"]
    with client.websocket_connect(url) as socket:
        socket.send_json({"token": token})
        again = socket.receive_json()["log"]
    assert {event["phase"] for event in heard} >= {"Income and arrival", "Treatment", "Cleanup"}
    assert [(event["text"], event["phase"]) for event in heard] == [
        (event["text"], event["phase"]) for event in again
    ]
    assert_worded(again, events_for(live.events, 0), 0, live)
