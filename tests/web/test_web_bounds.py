"""Every table bounded (docs/web.md, Limits): the engine refuses decks whose rounds could go on
forever, a table takes no more actions past its caps, records and hellos come from the table's
journal (never a replay per request), spectators' whole games are rate-limited, the table cache is
bounded in bytes, and a WebSocket never subscribes to a copy of its table that left memory."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import assert_worded, auth, create, service_of, tokens_of

from triage.engine import Game, events_for, make_config, public_event
from triage.engine.choices import expand
from triage.engine.records import make_record, record_for
from triage.web import journal as journal_module
from triage.web import limits, payloads, tables
from triage.web.app import create_app
from triage.web.chat import chat_feed
from triage.web.limits import RateLimits
from triage.web.live_table import LiveTable
from triage.web.sealing import sealed
from triage.web.storage import SeatInfo, seat_facts

UNLIMITED = "100000/second"
PROFITABLE_DECK = [
    {"id": "cheap", "kind": "chronic", "diagnosis": 0, "credits": 2, "vp": 0},
    {"id": "S", "kind": "severe", "diagnosis": 1, "healing": 2, "credits": 8, "vp": 0},
]


def refused(response: Any, status: int, code: str, fragment: str = "") -> dict[str, Any]:
    body = response.json()
    assert (response.status_code, body.get("code")) == (status, code), body
    assert fragment in body["message"], body
    return body


def act_first(client: TestClient, table_id: str, token: str) -> Any:
    """The seat's first listed action (a pass when listed first is fine: any legal action)."""
    legal = client.get(f"/api/tables/{table_id}/legal", headers=auth(token)).json()
    action = next(iter(expand(legal["choices"][0])))
    return client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action)


# ---------------------------------------------------------------------- the first line: the engine


def test_a_table_whose_helicopter_pays_for_itself_is_refused(client: TestClient) -> None:
    """The engine refuses 3 players (each flight pays for itself, T7, T8); with 2 a flight loses a
    Credit but its rewards with Staff can fund hundreds of flights: the web's length check
    refuses it for its cap (issue 40); alone, the game is short enough."""
    body = {"players": 3, "config": {"market": {"helicopter": {"price": 5}}}, "deck": PROFITABLE_DECK}
    refused(client.post("/api/tables", json=body), 422, "invalid_request", "go on forever (T7, T8)")
    refused(
        client.post("/api/tables", json={**body, "players": 2}), 422, "limit_exceeded", "more than the 5,000"
    )
    assert client.post("/api/tables", json={**body, "players": 1}).status_code == 201


# ---------------------------------------------------------------------- the second line: caps


def test_a_table_takes_no_actions_past_its_action_cap(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_TABLE_ACTIONS", 3)
    monkeypatch.setattr(tables, "check_table_length", lambda *_args: None)  # the cap: a second line
    created = create(client, players=1, seed=2)
    table_id, token = created["table_id"], tokens_of(created)[0]
    for _ in range(3):
        assert act_first(client, table_id, token).status_code == 200
    before = client.get(f"/api/tables/{table_id}/record", headers=auth(token)).json()
    refused(act_first(client, table_id, token), 409, "action_limit", "holds 3 actions")
    after = client.get(f"/api/tables/{table_id}/record", headers=auth(token)).json()
    assert after == before and len(after["actions"]) == 3


def test_a_table_takes_no_actions_past_its_record_cap(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = create(client, players=1, seed=2)
    table_id, token = created["table_id"], tokens_of(created)[0]
    assert act_first(client, table_id, token).status_code == 200
    record = client.get(f"/api/tables/{table_id}/record", headers=auth(token)).json()
    size = sum(len(json.dumps(entry)) for entry in record["actions"])
    assert size > 0
    monkeypatch.setattr(limits, "MAX_RECORD_BYTES", size + 10)  # the events take it over the cap
    refused(act_first(client, table_id, token), 409, "record_limit", "this table's record holds")
    assert service_of(client).live[table_id].actions == 1
    assert len(client.get(f"/api/tables/{table_id}/record", headers=auth(token)).json()["actions"]) == 1


def test_the_bots_of_a_capped_table_stop(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """An all-bot table stops at the cap (plus at most the one batch that reached it); the
    runner logs it and moves on, and the service still answers."""
    monkeypatch.setattr(limits, "MAX_TABLE_ACTIONS", 5)
    monkeypatch.setattr(tables, "check_table_length", lambda *_args: None)  # the cap: a second line
    config = {"rounds": 12, "arrivals": 4, "end_on_zero_quality": False}
    created = create(client, players=2, bots=["random", "random"], seed=3, config=config)
    turns = service_of(client).turns
    deadline = time.monotonic() + 10
    time.sleep(0.2)
    while turns.bot_queue or turns.human_queue or turns.bot_tasks:
        assert time.monotonic() < deadline, "the bots of a capped table never stop"
        time.sleep(0.05)
    facts = client.get(f"/api/tables/{created['table_id']}").json()
    assert 5 <= facts["actions"] < 5 + 200 and not facts["over"]
    assert client.get("/api/bots").status_code == 200


# ---------------------------------------------------------------------- records and hellos


def long_table(actions: int, rounds: int = 60, players: int = 4, seed: int = 5) -> LiveTable:
    """A live table (not stored) of ``rounds`` rounds whose seats took ``actions`` random
    actions (fewer if the game ended first)."""
    config = make_config({"rounds": rounds, "arrivals": 4, "end_on_zero_quality": False})
    game = Game.new(players=players, seed=seed, config=config)
    events = list(game.initial_events)
    rng = random.Random(seed)
    while len(game.history) < actions and not game.is_over():
        legal = game.legal_action_ids()
        keep_going = legal[:-1] if len(legal) > 1 and rng.random() < 0.8 else legal
        events.extend(game.apply_id(rng.choice(keep_going)))
    # Bot seats: nothing is held back (a human seat's undoable actions are: test_web_undo.py).
    seats = [SeatInfo(seat, "random", None, True) for seat in range(players)]
    return LiveTable("long", game, seats, False, events)


def engine_record(table: LiveTable, seat: int | None) -> dict[str, Any]:
    """The record as the engine makes it: ``record_for`` replays the game to filter its events."""
    return record_for(make_record(table.game), seat)


def test_records_and_hellos_from_the_journal_are_the_engines() -> None:
    """The journal's text is the engine's record (``make_record``, ``record_for``) and the hello
    its log (``events_for``, ``public_event``, each worded for the viewer), for every viewer, while the game runs, as it
    grows, and once it is over."""
    table = long_table(60, rounds=8)
    for grown in (60, 61, 200, 100_000):
        while table.actions < grown and not table.game.is_over():
            table.events.extend(table.game.apply(table.game.legal_actions()[-1]))
        for seat in (None, 0, 1, 2):
            record = json.loads(payloads.table_record(table, seat))
            if table.game.is_over():
                assert record == make_record(table.game)
            else:
                assert record == engine_record(table, seat)
            hello = json.loads(payloads.hello(table, seat))
            seen = (
                [public_event(event) for event in table.events]
                if seat is None
                else events_for(table.events, seat)
            )
            lobby = {"seats": seat_facts(table.seats), **payloads.lobby_facts(table)}  # public facts
            assert_worded(hello.pop("log"), seen, seat, table)
            said = chat_feed(table, seat)  # the chat so far (triage.web.chat)
            assert hello == {**payloads.message_for(table, seat, "hello"), **lobby, "chat": said}
    assert table.game.is_over()


def test_a_record_request_replays_nothing(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GET /record`` for a seat used to replay the whole game (``record_for``) on the event
    loop for each request: it applies no action now."""
    created = create(client, players=2, seed=4)
    table_id, tokens = created["table_id"], tokens_of(created)
    for _ in range(6):
        seat = service_of(client).live[table_id].game.turn
        assert act_first(client, table_id, tokens[seat]).status_code == 200
    applied: list[int] = []
    original = Game.apply

    def counted(self: Game, *args: Any, **kwargs: Any) -> Any:
        applied.append(1)
        return original(self, *args, **kwargs)

    live = service_of(client).live[table_id]
    point = sealed(live)  # the others are shown the actions a human seat can no longer undo
    shown = {None: point.actions, 0: point.actions, 1: point.actions}
    if point.holder is not None:
        shown[point.holder] = 6
    monkeypatch.setattr(Game, "apply", counted)
    for seat, token in ((None, None), (0, tokens[0]), (1, tokens[1])):
        response = client.get(f"/api/tables/{table_id}/record", headers=auth(token) if token else {})
        assert response.status_code == 200 and len(response.json()["actions"]) == shown[seat]
    assert applied == []


def test_each_request_encodes_only_what_is_new(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    created = create(client, players=1, seed=6)
    table_id, token = created["table_id"], tokens_of(created)[0]
    for _ in range(5):
        act_first(client, table_id, token)
    client.get(f"/api/tables/{table_id}/record")
    encoded: list[Any] = []
    original = journal_module.event_for

    def counted(event: Any, viewer: int | None) -> Any:
        encoded.append(event)
        return original(event, viewer)

    monkeypatch.setattr(journal_module, "event_for", counted)
    before = len(service_of(client).live[table_id].events)
    act_first(client, table_id, token)
    new = len(service_of(client).live[table_id].events) - before
    assert client.get(f"/api/tables/{table_id}/record").status_code == 200
    assert len(encoded) == new
    client.get(f"/api/tables/{table_id}/record")
    assert len(encoded) == new


def test_a_long_record_is_served_far_faster_than_a_replay() -> None:
    """The figure of docs/web.md: a seat's record of a long game, from the journal (after its
    first request) against the replay each request used to make, in one run."""
    table = long_table(2000)
    assert table.actions == 2000 and not table.game.is_over()
    payloads.table_record(table, 0)  # the journal catches up once
    journal = timed(lambda: payloads.table_record(table, 0))
    replay = timed(lambda: json.dumps(engine_record(table, 0)))
    assert journal * 5 < replay, (journal, replay)


def timed(work: Any, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def test_spectators_whole_games_are_rate_limited(db_url: str) -> None:
    rates = RateLimits(create=UNLIMITED, act=UNLIMITED, watch="2/minute")
    with TestClient(create_app(db_url, rates)) as client:
        created = create(client, players=1, seed=1)
        table_id, token = created["table_id"], tokens_of(created)[0]
        assert client.get(f"/api/tables/{table_id}/record").status_code == 200
        with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
            socket.send_json({"spectate": True})
            assert socket.receive_json()["type"] == "hello"
        response = client.get(f"/api/tables/{table_id}/record")
        refused(response, 429, "rate_limited", "records and hellos watched")
        assert int(response.headers["Retry-After"]) >= 1
        with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
            socket.send_json({"spectate": True})
            assert socket.receive_json()["code"] == "rate_limited"
            assert socket.receive()["code"] == 4429
        # a seat's own record and hello are not a spectator's
        assert client.get(f"/api/tables/{table_id}/record", headers=auth(token)).status_code == 200
        with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
            socket.send_json({"token": token})
            assert socket.receive_json()["type"] == "hello"


# ---------------------------------------------------------------------- the table cache


def test_the_table_cache_is_bounded_in_bytes(client: TestClient) -> None:
    service = service_of(client)
    created = [create(client, players=1, seed=seed)["table_id"] for seed in range(3)]
    one = service.live[created[0]].memory_estimate()
    service.max_live_bytes = 2 * one + one // 2  # room for two such tables, not three
    newest = create(client, players=1, seed=9)["table_id"]
    assert list(service.live) == [created[2], newest]
    assert service.live_bytes == sum(table.memory_estimate() for table in service.live.values())
    # a table grows as it plays: the cache counts it again at each commit
    playing = create(client, players=1, seed=10)
    grown, token = playing["table_id"], tokens_of(playing)[0]
    for _ in range(30):
        act_first(client, grown, token)
    assert service.live_bytes == sum(table.memory_estimate() for table in service.live.values())
    assert service.live_bytes <= service.max_live_bytes or list(service.live) == [grown]
    # an evicted table is read again from the store, whole
    assert client.get(f"/api/tables/{created[0]}").json()["actions"] == 0


def test_a_table_estimate_grows_with_its_record() -> None:
    short, long = long_table(10), long_table(1500)
    assert long.memory_estimate() > short.memory_estimate() + 5 * (long.follow().record_bytes // 2)


# ---------------------------------------------------------------------- WebSockets and eviction


def test_a_socket_whose_table_leaves_memory_before_its_first_message_follows_the_live_table(
    client: TestClient,
) -> None:
    """A table evicted while a new socket has not sent its first message yet: the socket
    subscribes to the table in memory when the message comes, and gets the next update."""
    service = service_of(client)
    service.max_live = 1
    created = create(client, players=1, seed=3)
    table_id, token = created["table_id"], tokens_of(created)[0]
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
        create(client, players=1, seed=4)  # the first table leaves memory (nobody watches it yet)
        assert table_id not in service.live
        socket.send_json({"spectate": True})
        assert socket.receive_json()["type"] == "hello"
        assert act_first(client, table_id, token).status_code == 200
        assert service.live[table_id].subscribers, "the socket subscribed to a copy that left memory"
        update = socket.receive_json()
        assert (update["type"], update["number"]) == ("update", 0)
