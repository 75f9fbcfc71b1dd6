"""``POST /api/tables/{id}/hint`` (issue 20, point 2): the expert's move for the asking seat,
with one line why, kept as a hint in the record and never as a move; refusals with codes; the
per-seat rate; and secrecy: a hint depends only on the seat's view (I1-I4) and reaches no
other seat or spectator while the game runs."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import auth, create, legal_actions, play_random, tokens_of

from triage.bots.expert import LEVELS, ExpertBot
from triage.bots.hints import HINT_BOT, hint_reason
from triage.engine import Game, view
from triage.engine.choices import action_choices
from triage.engine.determinize import determinize
from triage.engine.records import new_game_from_record, replay
from triage.web.app import create_app
from triage.web.limits import RateLimits

UNLIMITED = "100000/second"


def hint(client: TestClient, table_id: str, token: str | None, body: object = None) -> tuple[int, dict]:
    headers = auth(token) if token else {}
    response = client.post(f"/api/tables/{table_id}/hint", headers=headers, json=body)
    return response.status_code, response.json()


def test_a_hint_is_a_legal_move_with_a_reason_and_changes_nothing(client: TestClient) -> None:
    created = create(client, players=2, seed=5)
    table, tokens = created["table_id"], tokens_of(created)
    turn = client.get(f"/api/tables/{table}/view", headers=auth(tokens[0])).json()["turn"]
    status, answer = hint(client, table, tokens[turn], {"expected": 0})
    assert status == 200, answer
    assert answer["action"] in legal_actions(client, table, tokens[turn])
    assert answer["seat"] == turn and answer["at"] == 0 and answer["bot"] == HINT_BOT
    assert answer["reason"].startswith(("admits", "rejects")), answer["reason"]
    # Never a move: the table still holds no action, and the seat's own record lists the hint.
    assert client.get(f"/api/tables/{table}").json()["actions"] == 0
    record = client.get(f"/api/tables/{table}/record", headers=auth(tokens[turn])).json()
    assert record["actions"] == []
    assert record["hints"] == [{"by": turn, "at": 0, "do": answer["action"]}]


def test_hints_reach_no_other_seat_or_spectator_until_the_game_is_over(client: TestClient) -> None:
    created = create(client, players=2, seed=8)
    table, tokens = created["table_id"], tokens_of(created)
    turn = client.get(f"/api/tables/{table}/view", headers=auth(tokens[0])).json()["turn"]
    status, answer = hint(client, table, tokens[turn])
    assert status == 200
    other = client.get(f"/api/tables/{table}/record", headers=auth(tokens[1 - turn])).json()
    spectators = client.get(f"/api/tables/{table}/record").json()
    for record in (other, spectators):
        assert "hints" not in record
        assert json.dumps(answer["action"]) not in json.dumps(record.get("hints", []))
    play_random(client, table, tokens, steps=3000, seed=2)
    assert client.get(f"/api/tables/{table}").json()["over"]
    final = client.get(f"/api/tables/{table}/record").json()
    assert final["hints"] == [{"by": turn, "at": 0, "do": answer["action"]}]
    # The record with its hints stays a valid record that replays exactly (D1).
    new_game_from_record(final)
    assert replay(final).scores() == final["result"]["scores"]


@pytest.mark.parametrize(
    ("body", "token_kind", "status", "code"),
    [
        ({"expected": 3}, "turn", 409, "stale_action"),
        ({"expected": "0"}, "turn", 422, "invalid_request"),
        ({"seat": 0}, "turn", 422, "invalid_request"),
        (None, "other", 409, "not_your_turn"),
        (None, "none", 401, None),
        (None, "wrong", 403, None),
    ],
)
def test_bad_hint_requests_are_refused_with_a_code_and_change_nothing(
    client: TestClient, body: object, token_kind: str, status: int, code: str | None
) -> None:
    created = create(client, players=2, seed=5)
    table, tokens = created["table_id"], tokens_of(created)
    turn = client.get(f"/api/tables/{table}/view", headers=auth(tokens[0])).json()["turn"]
    token = {"turn": tokens[turn], "other": tokens[1 - turn], "none": None, "wrong": "not-a-token"}[
        token_kind
    ]
    got, answer = hint(client, table, token, body)
    assert got == status, answer
    assert code is None or answer["code"] == code
    assert "message" in answer
    record = client.get(f"/api/tables/{table}/record", headers=auth(tokens[turn])).json()
    assert "hints" not in record and record["actions"] == []


def test_an_unknown_table_and_a_finished_game_are_refused(client: TestClient) -> None:
    assert hint(client, "no-such-table", "x")[1]["code"] == "unknown_table"
    created = create(client, players=1, seed=3)
    table, tokens = created["table_id"], tokens_of(created)
    play_random(client, table, tokens, steps=3000, seed=1)
    status, answer = hint(client, table, tokens[0])
    assert (status, answer["code"]) == (409, "game_over")


def test_hints_are_limited_per_seat(tmp_path: Path) -> None:
    rates = RateLimits(create=UNLIMITED, act=UNLIMITED, watch=UNLIMITED, hint="2/minute")
    with TestClient(create_app(f"sqlite:///{tmp_path / 't.db'}", rates)) as client:
        created = create(client, players=1, seed=5)
        table, token = created["table_id"], tokens_of(created)[0]
        assert hint(client, table, token)[0] == 200
        assert hint(client, table, token)[0] == 200
        status, answer = hint(client, table, token)
        assert (status, answer["code"]) == (429, "rate_limited")
        assert "hints" in answer["message"]
        # Another seat (another table's seat 0) has its own count.
        other = create(client, players=1, seed=6)
        assert hint(client, other["table_id"], tokens_of(other)[0])[0] == 200


def test_a_hint_depends_only_on_what_the_seat_knows() -> None:
    """I4: in a world drawn to fit the seat's view, the hint (move and reason) is the same."""
    game = Game.new(players=2, seed=12)
    rng = random.Random(4)
    while game.round < 2 or game.phase != "treatment":
        seat = game.turn
        assert seat is not None
        game.apply(rng.choice(game.legal_actions(seat)), seat)
    seat = game.turn
    assert seat is not None
    seen = view(game, seat)
    world = determinize(seen, random.Random(9))
    assert view(world, seat) == seen
    # The hint bot's playouts without its CPU-time cap: a busy machine must not change them.
    assert HINT_BOT == "expert"
    bot = ExpertBot(playouts=LEVELS["expert"].playouts)
    for position in (game, world):
        move = bot.choose(view(position, seat), position.legal_actions(seat), random.Random("hint:t:0"))
        reason = hint_reason(view(position, seat), action_choices(position, seat), move)
        if position is game:
            first = (move, reason)
    assert (move, reason) == first


def test_a_hint_that_misses_its_deadline_is_refused_and_nothing_is_kept(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import triage.web.hint_queue as hints

    created = create(client, players=1, seed=5)
    table, token = created["table_id"], tokens_of(created)[0]
    monkeypatch.setattr(hints, "hint_deadline", lambda: 0.0)
    status, answer = hint(client, table, token)
    assert (status, answer["code"]) == (503, "hint_unavailable")
    assert "ask again" in answer["message"]
    record = client.get(f"/api/tables/{table}/record", headers=auth(token)).json()
    assert "hints" not in record and record["actions"] == []


def test_no_hint_while_the_table_waits_for_its_players(client: TestClient) -> None:
    created = create(client, players=2, bots=[None, None], creator_seats=[0], name="Ann")
    table, token = created["table_id"], tokens_of(created)[0]
    status, answer = hint(client, table, token)
    assert (status, answer["code"]) == (409, "waiting_for_players")


def test_a_hint_that_thought_long_is_still_kept(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write's bound (5 s) runs from its request's arrival, but a hint's search waits on no
    database: the hint's own write is bounded from the moment its answer is ready, so a search
    that took longer than the bound (here 10 s on an injected clock) is still kept and answered.
    Formerly (with the bound from arrival alone) its write had expired: 503."""
    from triage.web import waits
    from triage.web.hint_queue import HintQueue

    skew = [0.0]
    monkeypatch.setattr(waits, "now", lambda: time.monotonic() + skew[0])
    asked = HintQueue.ask

    async def slow_ask(self: HintQueue, *args: Any) -> Any:
        action = await asked(self, *args)
        skew[0] += 10.0  # the search took 10 s
        return action

    monkeypatch.setattr(HintQueue, "ask", slow_ask)
    created = create(client, players=1, seed=5)
    table, token = created["table_id"], tokens_of(created)[0]
    status, answer = hint(client, table, token, {"expected": 0})
    assert status == 200, answer
    record = client.get(f"/api/tables/{table}/record", headers=auth(token)).json()
    assert record["hints"] == [{"by": 0, "at": 0, "do": answer["action"]}]
