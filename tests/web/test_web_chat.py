"""A table's chat and quick reactions (triage.web.chat, issue 39 point 4), tried as players and as
an attacker: what is said reaches the table in order, as plain text, within its limits, kept in
the record, the replay and the store, and never changes or reveals the game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_review import critical_deck, play_solo_to_the_end_by_passing
from web_helpers import auth, create, tokens_of

from triage.engine import state_dict
from triage.web import chat
from triage.web.app import create_app
from triage.web.chat import MAX_CHAT_TEXT, REACTIONS
from triage.web.limits import RateLimits

UNLIMITED = "100000/second"


def say(client: TestClient, table_id: str, token: str | None, body: Any) -> Any:
    return client.post(f"/api/tables/{table_id}/chat", headers=auth(token) if token else {}, json=body)


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    body = response.json()
    assert (response.status_code, body.get("code")) == (status, code), body
    return body


def two_players(client: TestClient, **settings: Any) -> tuple[str, dict[int, str]]:
    created = create(client, players=2, seed=5, **settings)
    return created["table_id"], tokens_of(created)


def everything_of(client: TestClient, table_id: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Every game document of the table, per seat and for spectators (the chat aside)."""
    seen: dict[str, Any] = {"public": client.get(f"/api/tables/{table_id}/public").json()}
    facts = client.get(f"/api/tables/{table_id}").json()
    seen["facts"] = facts
    for seat, token in tokens.items():
        for what in ("view", "legal"):
            seen[f"{what}:{seat}"] = client.get(f"/api/tables/{table_id}/{what}", headers=auth(token)).json()
        record = client.get(f"/api/tables/{table_id}/record", headers=auth(token)).json()
        record.pop("chat", None)
        seen[f"record:{seat}"] = record
    return seen


def test_a_line_reaches_every_client_in_order_and_changes_nothing_of_the_game(client: TestClient) -> None:
    table_id, tokens = two_players(client)
    live = client.app.state.service.get(table_id)  # type: ignore[attr-defined]
    url = f"/api/tables/{table_id}/ws"
    before, state_before = everything_of(client, table_id, tokens), state_dict(live.game)
    with client.websocket_connect(url) as ws0, client.websocket_connect(url) as wss:
        ws0.send_json({"token": tokens[0]})
        wss.send_json({"spectate": True})
        hello0, hellos = ws0.receive_json(), wss.receive_json()
        assert hello0["chat"]["post"] and not hellos["chat"]["post"] and hellos["chat"]["readable"]
        assert [entry["name"] for entry in hello0["chat"]["reactions"]] == list(REACTIONS)
        said = [
            say(client, table_id, tokens[1], {"text": "  good luck\nboth  "}).json(),
            say(client, table_id, tokens[0], {"reaction": "thanks"}).json(),
            say(
                client,
                table_id,
                tokens[1],
                {"text": "<script>alert(1)</script> <b>bold</b> https://x.example"},
            ).json(),
        ]
        assert said[0] == {"by": 1, "at": 0, "kind": "say", "text": "good luck both"}  # trimmed, one line
        assert said[1] == {"by": 0, "at": 0, "kind": "react", "text": REACTIONS["thanks"]}
        assert said[2]["text"] == "<script>alert(1)</script> <b>bold</b> https://x.example"  # as typed
        for socket in (ws0, wss):
            heard = [socket.receive_json() for _ in said]
            assert heard == [{"type": "chat", "table_id": table_id, "line": line} for line in said]
    # Nothing of the game moved: the same action count, state and documents for every seat.
    assert live.actions == 0 and state_dict(live.game) == state_before
    assert everything_of(client, table_id, tokens) == before
    feed = client.get(f"/api/tables/{table_id}/chat", headers=auth(tokens[0])).json()
    assert feed["lines"] == said and client.get(f"/api/tables/{table_id}/chat").json()["lines"] == said
    record = client.get(f"/api/tables/{table_id}/record").json()
    assert record["chat"] == said and record["actions"] == []


def test_each_refusal_has_its_code_and_stores_nothing(client: TestClient) -> None:
    table_id, tokens = two_players(client)
    other_id, other_tokens = two_players(client)
    token = tokens[0]
    refused(say(client, table_id, token, {"text": "   \n\t "}), 422, "empty_chat")
    refused(say(client, table_id, token, {"text": "x" * (MAX_CHAT_TEXT + 1)}), 422, "chat_too_long")
    assert say(client, table_id, token, {"text": "x" * MAX_CHAT_TEXT}).status_code == 200
    refused(say(client, table_id, token, {"text": "ring \x07 bell"}), 422, "invalid_chat")
    refused(say(client, table_id, token, {"text": "abc\u202edcba"}), 422, "invalid_chat")  # a bidi override
    refused(say(client, table_id, token, {"text": "zero\u200bwidth"}), 422, "invalid_chat")
    refused(say(client, table_id, token, {"text": 5}), 422, "invalid_chat")
    refused(say(client, table_id, token, {"reaction": "boo"}), 422, "unknown_reaction")
    # A forged seat, or both kinds at once: the body holds one thing, the seat is the token's.
    refused(say(client, table_id, token, {"text": "as Bo", "by": 1}), 422, "invalid_request")
    refused(say(client, table_id, token, {"text": "hi", "reaction": "gg"}), 422, "invalid_request")
    refused(say(client, table_id, token, ["hi"]), 422, "invalid_request")
    # A spectator (no token) posts nothing; another table's token is no seat here.
    refused(say(client, table_id, None, {"text": "from the stands"}), 401, "unauthorized")
    refused(say(client, table_id, other_tokens[0], {"text": "hello"}), 403, "forbidden")
    refused(say(client, "nosuchtable", token, {"text": "hello"}), 404, "unknown_table")
    # A 10 MB message is refused by the body limit before anything parses it.
    huge = client.post(
        f"/api/tables/{table_id}/chat",
        headers={**auth(token), "Content-Type": "application/json"},
        content=b'{"text": "' + b"x" * (10 * 1024 * 1024) + b'"}',
    )
    refused(huge, 413, "body_too_large")
    assert [
        line["text"]
        for line in client.get(f"/api/tables/{table_id}/chat", headers=auth(token)).json()["lines"]
    ] == ["x" * MAX_CHAT_TEXT]
    assert client.get(f"/api/tables/{other_id}/chat").json()["lines"] == []


class Clock:
    """A clock the test moves by hand (the rate limits' windows count by it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_flood_is_refused_by_the_seats_rate_and_a_burst_is_not(db_url: str) -> None:
    clock = Clock()
    rates = RateLimits(create=UNLIMITED, act=UNLIMITED, chat="5/10seconds", clock=clock)
    with TestClient(create_app(db_url, rates)) as client:
        table_id, tokens = two_players(client)
        burst = [say(client, table_id, tokens[0], {"text": f"line {n}"}).status_code for n in range(5)]
        assert burst == [200] * 5  # a burst of five passes at once
        flood = refused(say(client, table_id, tokens[0], {"text": "one more"}), 429, "rate_limited")
        assert "chat lines" in flood["message"]
        assert refused(say(client, table_id, tokens[0], {"reaction": "gg"}), 429, "rate_limited")
        late = say(client, table_id, tokens[0], {"text": "x"})
        assert late.headers["Retry-After"] == "10"
        assert say(client, table_id, tokens[1], {"text": "my own budget"}).status_code == 200
        clock.now += 10.0  # the burst left the window
        assert say(client, table_id, tokens[0], {"text": "again"}).status_code == 200
        lines = client.get(f"/api/tables/{table_id}/chat", headers=auth(tokens[0])).json()["lines"]
        assert [line["text"] for line in lines] == [f"line {n}" for n in range(5)] + [
            "my own budget",
            "again",
        ]


def test_a_table_holds_at_most_its_cap_of_lines(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat, "MAX_CHAT_LINES", 3)
    table_id, tokens = two_players(client)
    for n in range(3):
        assert say(client, table_id, tokens[n % 2], {"text": f"line {n}"}).status_code == 200
    refused(say(client, table_id, tokens[0], {"text": "a fourth"}), 409, "chat_full")
    # The store refuses it too (several processes count in the insert itself).
    live = client.app.state.service.get(table_id)  # type: ignore[attr-defined]
    line = {"by": 0, "at": 0, "kind": "say", "text": "behind memory's back"}
    assert not client.app.state.service.store.add_chat(table_id, line, 3)  # type: ignore[attr-defined]
    assert len(live.chat) == 3


def test_spectators_read_the_chat_unless_the_table_keeps_them_off(client: TestClient) -> None:
    created = create(client, players=2, seed=5, creator_seats=[0], spectator_chat="off", pace="slow")
    table_id, tokens = created["table_id"], tokens_of(created)
    assert client.get(f"/api/tables/{table_id}").json()["settings"] == {
        "pace": "slow",
        "spectator_chat": "off",
    }
    url = f"/api/tables/{table_id}/ws"
    with client.websocket_connect(url) as wss, client.websocket_connect(url) as ws0:
        wss.send_json({"spectate": True})
        ws0.send_json({"token": tokens[0]})
        hello = wss.receive_json()
        ws0.receive_json()
        assert hello["chat"]["readable"] is False and hello["chat"]["lines"] == []
        line = say(client, table_id, tokens[0], {"text": "just between us"}).json()
        assert ws0.receive_json()["line"] == line
        # The guest takes the last seat: the game starts and every client gets a fresh hello; the
        # spectator's next message is that hello (no chat line came before it), still without lines.
        joined = client.post(f"/api/tables/{table_id}/join", json={"invite": created["invites"][0]["code"]})
        tokens[1] = joined.json()["token"]
        started = wss.receive_json()
        assert started["type"] == "hello" and started["chat"]["lines"] == []
        assert ws0.receive_json()["chat"]["lines"] == [line]
    refused(client.get(f"/api/tables/{table_id}/chat"), 403, "chat_hidden")
    assert "chat" not in client.get(f"/api/tables/{table_id}/record").json()
    assert client.get(f"/api/tables/{table_id}/record", headers=auth(tokens[1])).json()["chat"] == [line]
    refused(client.post("/api/tables", json={"players": 2, "pace": "glacial"}), 422, "invalid_request")
    refused(
        client.post("/api/tables", json={"players": 2, "spectator_chat": "write"}), 422, "invalid_request"
    )


def test_a_line_is_placed_at_what_every_player_could_see(client: TestClient) -> None:
    """A seat that may still undo does not show its undoable actions by chatting: its line is at
    the sealed point, and an undo leaves the chat as it was (nothing said is taken back)."""
    table_id, tokens = two_players(client)
    created = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[0])).json()
    seat = created["turn"]
    me = created["players"][seat]
    assert me["pending"], "round 1 starts with arrivals (A1)"
    free = [int(space) for space, slot in me["hospital"].items() if slot is None]
    admit = {"type": "admit", "card": me["pending"][0], "space": free[0]}
    taken = client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[seat]), json=admit).json()
    other = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[1 - seat])).json()
    line = say(client, table_id, tokens[seat], {"text": "admitted!"}).json()
    assert taken["actions"] > other["actions"] and line["at"] == other["actions"]
    undone = client.post(
        f"/api/tables/{table_id}/undo", headers=auth(tokens[seat]), json={"expected": taken["actions"]}
    )
    assert undone.status_code == 200, undone.json()
    assert client.get(f"/api/tables/{table_id}/chat").json()["lines"] == [line]


def test_the_record_and_the_replay_carry_the_chat_among_the_moves(client: TestClient) -> None:
    created = create(client, players=1, seed=8, deck=critical_deck())
    table_id, token = created["table_id"], tokens_of(created)[0]
    first = say(client, table_id, token, {"text": "here we go"}).json()
    play_solo_to_the_end_by_passing(client, table_id, token)
    last = say(client, table_id, token, {"reaction": "gg"}).json()  # after the end: still said
    record = client.get(f"/api/tables/{table_id}/record").json()
    steps = len(record["actions"])
    assert record["chat"] == [first, last] and (first["at"], last["at"]) == (0, steps)
    assert client.get(f"/api/tables/{table_id}/replay?step=0").json()["chat"] == [first]
    assert client.get(f"/api/tables/{table_id}/replay?step=1").json()["chat"] == []
    assert client.get(f"/api/tables/{table_id}/replay?step={steps}", headers=auth(token)).json()["chat"] == [
        last
    ]


def test_a_restart_keeps_the_chat_and_the_settings(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'tables.db'}"
    rates = RateLimits(create=UNLIMITED, act=UNLIMITED, chat=UNLIMITED)
    with TestClient(create_app(db_url, rates)) as client:
        table_id, tokens = two_players(client, pace="instant", spectator_chat="off")
        said = [
            say(client, table_id, tokens[0], {"text": "see you after the restart"}).json(),
            say(client, table_id, tokens[1], {"reaction": "nice"}).json(),
        ]
    with TestClient(create_app(db_url, rates)) as client:
        assert client.get(f"/api/tables/{table_id}").json()["settings"] == {
            "pace": "instant",
            "spectator_chat": "off",
        }
        assert client.get(f"/api/tables/{table_id}/chat", headers=auth(tokens[1])).json()["lines"] == said
        assert client.get(f"/api/tables/{table_id}/record", headers=auth(tokens[0])).json()["chat"] == said
        refused(client.get(f"/api/tables/{table_id}/chat"), 403, "chat_hidden")
        with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
            socket.send_json({"token": tokens[0]})
            assert socket.receive_json()["chat"]["lines"] == said
