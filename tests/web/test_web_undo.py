"""Undo at a table (issue 20, point 3): ``POST /api/tables/{id}/undo`` within the seat's turn,
never past a reveal (engine/undo.py), and nothing of an undoable or undone action ever reaching
another seat or a spectator: views, legal actions, WebSocket messages, records, the lobby's
facts, the store after a restart, the replay."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import assert_worded, auth, create, service_of, tokens_of

from triage.engine import Game, events_for, spectator_view, view
from triage.engine.undo import undo_reach
from triage.web.app import create_app
from triage.web.limits import RateLimits
from triage.web.sealing import sealed
from triage.web.storage import Conflict

UNLIMITED = "100000/second"


def quiet_action(game: Game, seat: int) -> dict[str, Any] | None:
    """A legal action of ``seat`` that reveals nothing (so it may be undone), or None."""
    for action in game.legal_actions(seat):
        trial = game.copy()
        trial.apply(action, seat)
        if undo_reach(trial, seat).steps > 0:
            return action
    return None


def post(client: TestClient, table_id: str, token: str, what: str, body: Any) -> Any:
    return client.post(f"/api/tables/{table_id}/{what}", headers=auth(token), json=body)


def to_a_quiet_action(
    client: TestClient, table_id: str, tokens: dict[int, str]
) -> tuple[int, dict[str, Any]]:
    """Play (first legal actions) until the seat to move has an action that reveals nothing."""
    live = service_of(client).get(table_id)
    for _ in range(200):
        seat = live.game.turn
        assert seat is not None
        quiet = quiet_action(live.game, seat)
        if quiet is not None and not live.game.in_admission(seat):
            return seat, quiet
        action = live.game.legal_actions(seat)[0]
        assert post(client, table_id, tokens[seat], "actions", action).status_code == 200
    raise AssertionError("no quiet action in 200 actions")


def test_a_seat_undoes_its_heal_idempotently(client: TestClient) -> None:
    created = create(client, players=1, seed=0)
    table_id, tokens = created["table_id"], tokens_of(created)
    seat, quiet = to_a_quiet_action(client, table_id, tokens)
    live = service_of(client).get(table_id)
    before, number = view(live.game, seat), live.actions
    assert (
        post(client, table_id, tokens[seat], "actions", {"action": quiet, "expected": number}).status_code
        == 200
    )
    seen = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[seat])).json()
    assert seen["undo"]["steps"] >= 1 and seen["undo"]["reason"] is None
    answer = post(client, table_id, tokens[seat], "undo", {"expected": number + 1})
    assert answer.status_code == 200, answer.json()
    assert answer.json()["actions"] == number and answer.json()["undone"] == 1
    assert view(live.game, seat) == before
    again = post(client, table_id, tokens[seat], "undo", {"expected": number + 1})
    assert again.status_code == 200 and again.json() == answer.json(), "a retry gets the same answer"
    assert live.actions == number
    stale = post(client, table_id, tokens[seat], "undo", {"expected": number + 7})
    assert stale.status_code == 409 and stale.json()["code"] == "stale_action"


def test_undo_refusals_name_what_was_wrong(client: TestClient) -> None:
    created = create(client, players=2, seed=3)
    table_id, tokens = created["table_id"], tokens_of(created)
    live = service_of(client).get(table_id)
    number = live.actions
    other = 1 - (live.game.turn or 0)
    refused = post(client, table_id, tokens[other], "undo", {"expected": number})
    assert refused.status_code == 409 and refused.json()["code"] == "not_your_turn"
    refused = post(client, table_id, tokens[live.game.turn or 0], "undo", {"expected": number})
    assert refused.status_code == 409 and refused.json()["code"] == "nothing_to_undo"
    for body in ({}, {"expected": "1"}, {"expected": number, "steps": 0}, {"expected": 0, "more": 1}, [1]):
        bad = post(client, table_id, tokens[0], "undo", body)
        assert bad.status_code == 422 and bad.json()["code"] == "invalid_request", body
    assert client.post(f"/api/tables/{table_id}/undo", json={"expected": number}).status_code == 401
    assert live.actions == number


def test_undo_past_a_diagnosis_is_refused_naming_it(client: TestClient) -> None:
    created = create(client, players=1, seed=0)
    table_id, tokens = created["table_id"], tokens_of(created)
    live = service_of(client).get(table_id)
    while live.game.in_admission(0):
        post(client, table_id, tokens[0], "actions", live.game.legal_actions(0)[0])
    diagnose = next(action for action in live.game.legal_actions(0) if action["type"] == "diagnose")
    post(client, table_id, tokens[0], "actions", diagnose)
    seen = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[0])).json()
    assert seen["undo"]["steps"] == 0 and "diagnosing" in seen["undo"]["reason"]
    refused = post(client, table_id, tokens[0], "undo", {"expected": live.actions})
    assert refused.status_code == 409
    assert refused.json()["code"] == "undo_past_reveal" and refused.json()["rule"] == "T1"
    assert "diagnose" in refused.json()["message"]


def test_nothing_is_undone_after_the_end(client: TestClient) -> None:
    created = create(client, players=1, seed=2, config={"rounds": 1})
    table_id, tokens = created["table_id"], tokens_of(created)
    live = service_of(client).get(table_id)
    while not live.game.is_over():
        post(client, table_id, tokens[0], "actions", live.game.legal_actions(0)[-1])
    refused = post(client, table_id, tokens[0], "undo", {"expected": live.actions})
    assert refused.status_code == 409 and refused.json()["code"] == "game_over"


def test_no_channel_shows_another_seat_an_undoable_or_undone_action(client: TestClient, db_url: str) -> None:
    created = create(client, players=2, seed=11)
    table_id, tokens = created["table_id"], tokens_of(created)
    seat, quiet = to_a_quiet_action(client, table_id, tokens)
    other = 1 - seat
    live = service_of(client).get(table_id)
    sealed_game, number = live.game.copy(), live.actions
    url = f"/api/tables/{table_id}/ws"
    with client.websocket_connect(url) as watcher, client.websocket_connect(url) as spectator:
        watcher.send_json({"token": tokens[other]})
        spectator.send_json({"spectate": True})
        assert watcher.receive_json()["actions"] == spectator.receive_json()["actions"] == number
        assert (
            post(client, table_id, tokens[seat], "actions", {"action": quiet, "expected": number}).status_code
            == 200
        )
        undone = live.game.history[-1]

        def check_every_channel() -> None:
            seen = client.get(f"/api/tables/{table_id}/view", headers=auth(tokens[other])).json()
            assert seen.pop("actions") == number and seen.pop("undo") is None
            assert seen == view(sealed_game, other)
            legal = client.get(f"/api/tables/{table_id}/legal", headers=auth(tokens[other])).json()
            assert legal["actions"] == number and legal["choices"] == []
            public = client.get(f"/api/tables/{table_id}/public").json()
            assert public.pop("actions") == number and public == spectator_view(sealed_game)
            assert client.get(f"/api/tables/{table_id}").json()["actions"] == number
            for headers in (auth(tokens[other]), {}):
                record = client.get(f"/api/tables/{table_id}/record", headers=headers).json()
                assert record["actions"] == [dict(entry) for entry in sealed_game.history]
                assert len(record["events"]) == sealed(live).events
            # A fresh socket's log: the events up to the sealed point, worded from those alone.
            shown = live.events[: sealed(live).events]
            for hello, viewer in ((url, other), (url, None)):
                with client.websocket_connect(hello) as fresh:
                    fresh.send_json({"token": tokens[other]} if viewer is not None else {"spectate": True})
                    assert_worded(fresh.receive_json()["log"], events_for(shown, viewer), viewer, live)

        check_every_channel()  # held back while it may be undone
        assert post(client, table_id, tokens[seat], "undo", {"expected": number + 1}).status_code == 200
        check_every_channel()  # and gone once undone
        # The seat now seals its turn with a pass: the others hear of the pass, never of the undone action.
        while live.game.turn == seat:
            post(
                client,
                table_id,
                tokens[seat],
                "actions",
                {"action": {"type": "pass"}, "expected": live.actions},
            )
        for socket, viewer in ((watcher, other), (spectator, None)):
            message = socket.receive_json()
            text = json.dumps(message)
            assert message["actions"] == live.actions
            assert json.dumps(undone["do"]) not in text
            assert message["view"] == (
                view(live.game, viewer) if viewer is not None else spectator_view(live.game)
            )
    stored = service_of(client).store.actions_from(table_id, 0)
    assert stored == [dict(entry) for entry in live.game.history]
    # A restarted server (a new process on the same database) replays no undone action.
    with TestClient(
        create_app(db_url, RateLimits(create=UNLIMITED, act=UNLIMITED, watch=UNLIMITED))
    ) as again:
        record = again.get(f"/api/tables/{table_id}/record", headers=auth(tokens[seat])).json()
        assert record["actions"] == [dict(entry) for entry in live.game.history]


def test_a_finished_game_with_undos_replays_without_them(client: TestClient) -> None:
    created = create(client, players=1, seed=0, config={"rounds": 1})
    table_id, tokens = created["table_id"], tokens_of(created)
    live = service_of(client).get(table_id)
    undone: list[dict[str, Any]] = []
    while not live.game.is_over():
        quiet = quiet_action(live.game, 0) if not live.game.in_admission(0) else None
        if quiet is not None and quiet not in [entry["do"] for entry in undone]:
            post(client, table_id, tokens[0], "actions", {"action": quiet, "expected": live.actions})
            undone.append(live.game.history[-1])
            assert post(client, table_id, tokens[0], "undo", {"expected": live.actions}).status_code == 200
        post(client, table_id, tokens[0], "actions", live.game.legal_actions(0)[-1])
    assert undone, "the game had an action to undo"
    record = client.get(f"/api/tables/{table_id}/record").json()
    assert record["actions"] == [dict(entry) for entry in live.game.history]
    steps = client.get(f"/api/tables/{table_id}/replay", params={"step": len(record["actions"])}).json()
    assert steps["steps"] == len(live.game.history)


def test_the_store_deletes_undone_actions_in_one_conditional_write(client: TestClient) -> None:
    created = create(client, players=1, seed=0)
    table_id, tokens = created["table_id"], tokens_of(created)
    live = service_of(client).get(table_id)
    for _ in range(2):
        post(client, table_id, tokens[0], "actions", live.game.legal_actions(0)[0])
    store = service_of(client).store
    with pytest.raises(Conflict):  # the table no longer has 99 actions: nothing is deleted
        store.undo_actions(table_id, 1, 99, {})
    assert len(store.actions_from(table_id, 0)) == 2
    store.undo_actions(table_id, 1, 2, {"actions": 1})
    assert store.actions_from(table_id, 0) == [dict(live.game.history[0])]
    assert store.version(table_id) == (1, 0)


def test_an_undo_drops_the_hints_asked_after_the_point_it_returns_to(client: TestClient) -> None:
    """A hint asked in a position holding the undone action would tell of it once the game is
    over: the undo deletes it with the action, and keeps the hints asked before."""
    created = create(client, players=1, seed=0)
    table_id, tokens = created["table_id"], tokens_of(created)
    seat, quiet = to_a_quiet_action(client, table_id, tokens)
    number = service_of(client).get(table_id).actions
    assert post(client, table_id, tokens[seat], "hint", {"expected": number}).status_code == 200
    assert (
        post(client, table_id, tokens[seat], "actions", {"action": quiet, "expected": number}).status_code
        == 200
    )
    assert post(client, table_id, tokens[seat], "hint", {"expected": number + 1}).status_code == 200
    assert [hint["at"] for hint in service_of(client).store.hints(table_id)] == [number, number + 1]
    assert post(client, table_id, tokens[seat], "undo", {"expected": number + 1}).status_code == 200
    assert [hint["at"] for hint in service_of(client).store.hints(table_id)] == [number]
    record = client.get(f"/api/tables/{table_id}/record", headers=auth(tokens[seat])).json()
    assert [hint["at"] for hint in record["hints"]] == [number]


def test_a_stand_in_bots_moves_are_shown_at_once_and_never_undone(client: TestClient) -> None:
    """A stand-in bot (triage.web.clocks) plays for an absent seat where everyone sees it: while it
    stands in, nothing of the seat is held back, and the player back in the same turn cannot take
    its moves back (the move is noted as the stand-in's, as Timekeeper.committed notes it)."""
    created = create(client, players=1, seed=0, clock={"bank": 600}, stand_in="greedy")
    table_id, tokens = created["table_id"], tokens_of(created)
    seat, quiet = to_a_quiet_action(client, table_id, tokens)
    live = service_of(client).get(table_id)
    number = live.actions
    assert (
        post(client, table_id, tokens[seat], "actions", {"action": quiet, "expected": number}).status_code
        == 200
    )
    with live.lock:
        assert live.timing is not None and sealed(live).holder == seat
        live.timing.seats[seat].stand_in = "greedy"  # as Timekeeper.take_over leaves it
        assert sealed(live).holder is None, "a stand-in's seat holds nothing back"
        live.timing.stand_in_moves.append(number)
        live.timing.seats[seat].stand_in = None  # the player is back
    refused = post(client, table_id, tokens[seat], "undo", {"expected": number + 1})
    assert refused.status_code == 409 and refused.json()["code"] == "nothing_to_undo", refused.json()
    assert live.actions == number + 1


def test_a_commit_keeps_its_sealed_point_for_the_reads_after_it(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read of another seat works from the sealed point; the commit works it out once and
    keeps it on the table, so the reads after it replay nothing."""
    from triage.web import sealing

    created = create(client, players=1, seed=0)
    table_id, tokens = created["table_id"], tokens_of(created)
    seat, quiet = to_a_quiet_action(client, table_id, tokens)
    live = service_of(client).get(table_id)
    number = live.actions
    assert (
        post(client, table_id, tokens[seat], "actions", {"action": quiet, "expected": number}).status_code
        == 200
    )
    worked: list[int] = []
    original = sealing.seal
    monkeypatch.setattr(sealing, "seal", lambda *args: worked.append(1) or original(*args))
    assert sealed(live).holder == seat and sealed(live).actions <= number
    assert client.get(f"/api/tables/{table_id}/public").status_code == 200
    assert worked == []
