"""Presence, clocks and stand-in bots (issue 20, point 6; triage.web.clocks).

Time is the service's injectable clock, moved by hand; the ticker's look is
``Timekeeper.check``: nothing here sleeps to make time pass."""

from __future__ import annotations

import json
import time
import warnings
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from conftest import UNLIMITED
from web_helpers import auth, create, legal_actions, service_of, tokens_of

from triage.web.app import create_app
from triage.web.clocks import RETURN_SECONDS
from triage.web.limits import RateLimits


class FakeClock:
    """Monotonic seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.seconds = 1000.0

    def __call__(self) -> float:
        return self.seconds

    def advance(self, seconds: float) -> None:
        self.seconds += seconds


@pytest.fixture
def clock(client: TestClient) -> FakeClock:
    fake = FakeClock()
    service_of(client).timekeeper.now = fake
    return fake


def two_humans(client: TestClient, **extra: Any) -> tuple[str, dict[int, str]]:
    created = create(client, players=2, seed=3, stand_in="greedy", **extra)
    return created["table_id"], tokens_of(created)


def live(client: TestClient, table_id: str) -> dict[str, Any]:
    response = client.get(f"/api/tables/{table_id}/live")
    assert response.status_code == 200, response.text
    return response.json()


def turn_of(client: TestClient, table_id: str) -> int:
    return int(client.get(f"/api/tables/{table_id}").json()["turn"])


def act_once(client: TestClient, table_id: str, tokens: dict[int, str]) -> int:
    """The seat to move plays its first legal action; returns that seat."""
    seat = turn_of(client, table_id)
    action = legal_actions(client, table_id, tokens[seat])[0]
    response = client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[seat]), json=action)
    assert response.status_code == 200, response.text
    return seat


def check(client: TestClient, table_id: str) -> None:
    service = service_of(client)
    service.timekeeper.check(service.get(table_id))


def wait_for(condition: Any, seconds: float = 30.0) -> None:
    """Wait for the bot runner (in the server's loop) to have done something."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the bots did not move in time"
        time.sleep(0.02)


@pytest.mark.parametrize(
    ("body", "code", "named"),
    [
        ({"clock": {"bank": 0}}, "invalid_clock", "clock.bank"),
        ({"clock": {"bank": 10**6}}, "invalid_clock", "clock.bank"),
        ({"clock": {"bank": 60, "increment": -1}}, "invalid_clock", "clock.increment"),
        ({"clock": {"bank": 60, "increment": 4000}}, "invalid_clock", "clock.increment"),
        ({"away_seconds": 1}, "invalid_clock", "away_seconds"),
        ({"clock": {"bank": 60}, "stand_in": "montecarlo"}, "unknown_bot", "stand_in"),
        ({"stand_in": "greedy"}, "invalid_clock", "stand_in"),
        ({"clock": {"bank": "60"}}, "invalid_request", "clock.bank"),
        ({"clock": {"bank": 60, "hours": 1}}, "invalid_request", "clock.hours"),
        ({"clock": {"bank": 60, "increment": None}}, "invalid_request", "increment"),
    ],
)
def test_bad_time_rules_are_refused_with_a_code_naming_the_field(
    client: TestClient, body: dict[str, Any], code: str, named: str
) -> None:
    store = service_of(client).store
    before = len(store.table_ids())
    response = client.post("/api/tables", json={"players": 2, **body})
    assert response.status_code == 422, response.text
    assert response.json()["code"] == code and named in response.json()["message"], response.json()
    assert len(store.table_ids()) == before  # nothing was created


def test_a_table_without_time_rules_has_presence_but_no_clock(client: TestClient, clock: FakeClock) -> None:
    created = create(client, players=3, bots=[None, "random", None], creator_seats=[0])
    state = live(client, created["table_id"])
    assert state["clock"] is None and state["away_seconds"] is None
    # The creator counts as there for the grace period, as after a reload; seat 2 is not taken.
    assert [seat["status"] for seat in state["presence"]] == ["online", "bot", "open"]
    clock.advance(service_of(client).timekeeper.grace)
    assert [seat["status"] for seat in live(client, created["table_id"])["presence"]] == [
        "away",
        "bot",
        "open",
    ]


def test_the_bank_of_the_seat_to_move_runs_and_each_round_adds_the_increment(
    client: TestClient, clock: FakeClock
) -> None:
    table_id, tokens = two_humans(client, clock={"bank": 300, "increment": 20})
    first = turn_of(client, table_id)
    state = live(client, table_id)
    assert state["clock"] == {"bank": 300, "increment": 20, "remaining": [300.0, 300.0], "running": first}
    clock.advance(42)
    assert live(client, table_id)["clock"]["remaining"][first] == 258.0
    assert live(client, table_id)["clock"]["remaining"][1 - first] == 300.0  # only the one to move
    start = client.get(f"/api/tables/{table_id}").json()["round"]
    while client.get(f"/api/tables/{table_id}").json()["round"] == start:
        act_once(client, table_id, tokens)
    remaining = live(client, table_id)["clock"]["remaining"]
    assert remaining == [258.0 + 20, 300.0 + 20] if first == 0 else [300.0 + 20, 258.0 + 20]


def test_the_banks_survive_a_restart(db_url: str) -> None:
    rates = RateLimits(create=UNLIMITED, act=UNLIMITED, watch=UNLIMITED)
    fake = FakeClock()
    with TestClient(create_app(db_url, rates)) as client:
        service_of(client).timekeeper.now = fake
        table_id, _tokens = two_humans(client, clock={"bank": 120})
        first = turn_of(client, table_id)
        fake.advance(30)  # the server stops: the banks are stored as they are
    with TestClient(create_app(db_url, rates)) as client:
        service_of(client).timekeeper.now = fake
        state = live(client, table_id)
        assert state["clock"]["remaining"][first] == 90.0
        assert state["clock"]["running"] == first
        service = service_of(client)
        table = service.get(table_id)
        with table.lock:  # the stand-in stays through a restart too
            fake.advance(90)
            service.timekeeper.take_over(table, first, "time")
            service.timekeeper.save(table)
    with TestClient(create_app(db_url, rates)) as client:
        service_of(client).timekeeper.now = fake
        state = live(client, table_id)
        assert state["presence"][first]["stand_in"] == "greedy"
        assert state["presence"][first]["stand_in_reason"] == "time"


def test_a_seat_out_of_time_is_played_by_a_bot_until_its_player_comes_back(
    client: TestClient, clock: FakeClock
) -> None:
    table_id, tokens = two_humans(client, clock={"bank": 30})
    seat = turn_of(client, table_id)
    clock.advance(29)
    check(client, table_id)
    assert live(client, table_id)["presence"][seat]["stand_in"] is None
    clock.advance(2)
    check(client, table_id)
    state = live(client, table_id)
    assert state["presence"][seat]["stand_in"] == "greedy"
    assert state["presence"][seat]["stand_in_reason"] == "time"
    assert state["clock"]["remaining"][seat] == 0.0
    wait_for(lambda: turn_of(client, table_id) != seat)  # the stand-in played the seat's turn
    record = client.get(f"/api/tables/{table_id}/record", headers=auth(tokens[seat])).json()
    moves = record["stand_in_moves"]
    assert moves and all(record["actions"][number]["by"] == seat for number in moves)
    answer = client.post(f"/api/tables/{table_id}/back", headers=auth(tokens[seat]))
    assert answer.status_code == 200
    assert answer.json()["presence"][seat]["stand_in"] is None
    assert answer.json()["clock"]["remaining"][seat] == RETURN_SECONDS


def test_back_needs_the_seats_token(client: TestClient) -> None:
    table_id, _tokens = two_humans(client, clock={"bank": 30})
    assert client.post(f"/api/tables/{table_id}/back").json()["code"] == "unauthorized"
    refused = client.post(f"/api/tables/{table_id}/back", headers=auth("nope"))
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert client.post("/api/tables/nothing/back", headers=auth("x")).json()["code"] == "unknown_table"


def test_an_action_of_the_player_takes_the_seat_back(
    client: TestClient, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, tokens = two_humans(client, clock={"bank": 30})
    seat = turn_of(client, table_id)
    service = service_of(client)
    monkeypatch.setattr(service.turns, "move_bots", lambda table: None)  # the runner waits
    clock.advance(31)
    check(client, table_id)
    assert service.get(table_id).bot_of(seat) == "greedy"
    assert act_once(client, table_id, tokens) == seat  # the player acts before the stand-in
    state = live(client, table_id)
    assert state["presence"][seat]["stand_in"] is None
    record = client.get(f"/api/tables/{table_id}/record", headers=auth(tokens[seat])).json()
    assert "stand_in_moves" not in record  # the move was the player's own


def test_presence_goes_over_the_websocket_and_an_away_seat_is_played_by_a_bot(
    client: TestClient, clock: FakeClock
) -> None:
    table_id, tokens = two_humans(client, away_seconds=60)
    seat = turn_of(client, table_id)
    other = 1 - seat
    url = f"/api/tables/{table_id}/ws"
    clock.advance(service_of(client).timekeeper.grace)  # nobody came since the creation
    with client.websocket_connect(url) as watcher:
        watcher.send_json({"token": tokens[other], "live": True})
        assert watcher.receive_json()["type"] == "hello"
        first = watcher.receive_json()
        assert first["type"] == "live"
        assert first["live"]["presence"][other]["status"] == "online"
        assert first["live"]["presence"][seat]["status"] == "away"
        with client.websocket_connect(url) as mover:
            mover.send_json({"token": tokens[seat], "live": True})
            assert mover.receive_json()["type"] == "hello"
            joined = watcher.receive_json()
            assert joined["type"] == "live" and joined["live"]["presence"][seat]["status"] == "online"
        wait_for(lambda: service_of(client).get(table_id).timing.seats[seat].left_at is not None)
        clock.advance(service_of(client).timekeeper.grace + 1)
        check(client, table_id)
        gone = watcher.receive_json()
        assert gone["type"] == "live" and gone["live"]["presence"][seat]["status"] == "away"
        assert gone["live"]["presence"][seat]["stand_in"] is None  # not yet: 60 s away
        clock.advance(60)
        check(client, table_id)
        taken = watcher.receive_json()
        assert taken["live"]["presence"][seat]["stand_in"] == "greedy"
        assert taken["live"]["presence"][seat]["stand_in_reason"] == "away"
        wait_for(lambda: turn_of(client, table_id) != seat)
        with client.websocket_connect(url) as mover:  # the player is back
            mover.send_json({"token": tokens[seat], "live": True})
            assert mover.receive_json()["type"] == "hello"
            back = mover.receive_json()
            assert back["type"] == "live" and back["live"]["presence"][seat]["stand_in"] is None
            assert back["live"]["presence"][seat]["status"] == "online"


def test_the_live_state_is_public_and_the_same_for_everyone(client: TestClient, clock: FakeClock) -> None:
    table_id, tokens = two_humans(client, clock={"bank": 100}, away_seconds=30)
    url = f"/api/tables/{table_id}/ws"
    seen = []
    for first in ({"token": tokens[0]}, {"token": tokens[1]}, {"spectate": True}):
        first["live"] = True
        with client.websocket_connect(url) as socket:
            socket.send_json(first)
            socket.receive_json()
            message = socket.receive_json()
            assert message["type"] == "live"
            seen.append(message["live"]["clock"])
            assert set(message) == {"type", "table_id", "live"}
            assert set(message["live"]) == {"presence", "clock", "away_seconds", "stand_in"}
            for seat in message["live"]["presence"]:
                assert set(seat) == {"seat", "status", "stand_in", "stand_in_reason"}
    assert seen[0] == seen[1] == seen[2]
    text = json.dumps(live(client, table_id))
    for card in (entry["id"] for entry in service_of(client).get(table_id).game.setup["deck"]):
        assert f'"{card}"' not in text  # no card id at all


def test_openapi_declares_the_time_rules_and_their_refusals(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    request = document["components"]["schemas"]["TableRequest"]["properties"]
    assert {"clock", "away_seconds", "stand_in"} <= set(request)
    assert "invalid_clock" in json.dumps(document["paths"]["/api/tables"]["post"]["responses"]["422"])
    assert "/api/tables/{table_id}/live" in document["paths"]
    assert "/api/tables/{table_id}/back" in document["paths"]


def test_each_commit_sends_the_clocks_with_the_seat_now_running(client: TestClient, clock: FakeClock) -> None:
    table_id, tokens = two_humans(client, clock={"bank": 200})
    first = turn_of(client, table_id)
    with client.websocket_connect(f"/api/tables/{table_id}/ws") as socket:
        socket.send_json({"spectate": True, "live": True})
        assert socket.receive_json()["type"] == "hello"
        assert socket.receive_json()["live"]["clock"]["running"] == first
        clock.advance(7)
        while turn_of(client, table_id) == first:
            act_once(client, table_id, tokens)
        running = None
        while running != 1 - first:
            message = socket.receive_json()
            if message["type"] == "live":
                running = message["live"]["clock"]["running"]
        assert message["live"]["clock"]["remaining"][first] == 193.0


def test_no_bank_runs_in_the_waiting_room_and_the_first_seat_s_starts_with_play(
    client: TestClient, clock: FakeClock
) -> None:
    """Nobody may act while a table waits for its players (issue 20 point 5), so no clock runs and
    no stand-in comes, however long the wait; the bank of the seat to move starts with play."""
    created = create(
        client, players=2, seed=3, stand_in="greedy", clock={"bank": 60}, away_seconds=5, creator_seats=[0]
    )
    table_id, invite = created["table_id"], created["invites"][0]["code"]
    clock.advance(600)
    check(client, table_id)
    waiting = live(client, table_id)
    assert waiting["clock"]["running"] is None and waiting["clock"]["remaining"] == [60, 60]
    assert all(seat["stand_in"] is None for seat in waiting["presence"])
    assert client.post(f"/api/tables/{table_id}/join", json={"invite": invite}).status_code == 200
    clock.advance(10)
    started = live(client, table_id)
    turn = turn_of(client, table_id)
    assert started["clock"]["running"] == turn and started["clock"]["remaining"][turn] == pytest.approx(50)


def test_a_stand_in_makes_the_absent_players_held_actions_everyones(
    client: TestClient, clock: FakeClock
) -> None:
    """While a seat can still undo, its actions are held back from the others (triage.web.sealing);
    once a stand-in bot plays for it, nothing will undo them: a spectator is shown them at once."""
    from triage.engine.undo import undo_reach
    from triage.web.sealing import sealed

    created = create(client, players=1, seed=0, stand_in="greedy", clock={"bank": 60})
    table_id, tokens = created["table_id"], tokens_of(created)
    service = service_of(client)
    live = service.get(table_id)
    for _ in range(40):  # the seat plays until one of its actions is held back
        if sealed(live).actions < live.actions:
            break
        seat = live.game.turn
        action = next(
            (a for a in live.game.legal_actions(seat) if undo_reach(_after(live.game, a, seat), seat).steps),
            live.game.legal_actions(seat)[0],
        )
        assert (
            client.post(
                f"/api/tables/{table_id}/actions", headers=auth(tokens[seat]), json=action
            ).status_code
            == 200
        )
    assert sealed(live).actions < live.actions, "no action was held back"
    watcher = live.subscribe(None)
    with live.lock:
        service.timekeeper.take_over(live, live.game.turn, "time")
    shown = [json.loads(m) if isinstance(m, str) else m for m in _drain(watcher)]
    assert any(m["type"] == "hello" and m["actions"] >= live.actions - 1 for m in shown), shown


def _after(game: Any, action: dict[str, Any], seat: int) -> Any:
    trial = game.copy()
    trial.apply(action, seat)
    return trial


def _drain(subscriber: Any) -> list[Any]:
    out = []
    while not subscriber.queue.empty():
        out.append(subscriber.queue.get_nowait())
    return out
