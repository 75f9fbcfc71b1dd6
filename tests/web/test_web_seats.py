"""Owned seats and invitations, and idempotent actions (issue reproductions: a stranger took
a seat from the lobby; retried requests were applied twice)."""

from __future__ import annotations

import random
from pathlib import Path

from fastapi.testclient import TestClient
from web_helpers import auth, create, service_of, tokens_of

from triage.web.errors import WebError
from triage.web.seats import seat_for_token
from triage.web.storage import Store
from triage.web.tables import TableService


def join(client: TestClient, table_id: str, **body: object) -> tuple[int, dict]:
    response = client.post(f"/api/tables/{table_id}/join", json=body or None)
    return response.status_code, response.json()


def test_the_creator_holds_every_human_seat_of_a_solo_game_from_the_start(client: TestClient) -> None:
    everyone = create(client, players=3)  # without creator_seats the creator holds every human seat
    assert [entry["seat"] for entry in everyone["seats"]] == [0, 1, 2] and everyone["invites"] == []
    created = create(client, players=2, bots=[None, "random"])
    assert [entry["seat"] for entry in created["seats"]] == [0] and created["invites"] == []
    status, body = join(client, created["table_id"])
    assert (status, body["code"]) == (403, "private_table")
    public = create(client, players=2, bots=[None, "random"], public=True)
    status, body = join(client, public["table_id"])
    assert (status, body["code"]) == (409, "table_full")
    summary = client.get(f"/api/tables/{created['table_id']}").json()
    assert summary["seats"][0]["taken"] and summary["public"] is False


def test_other_human_seats_are_taken_only_by_invitation(client: TestClient) -> None:
    created = create(client, players=3, bots=[None, None, "random"], creator_seats=[0])
    table_id = created["table_id"]
    assert [entry["seat"] for entry in created["seats"]] == [0]
    (invite,) = created["invites"]
    assert invite["seat"] == 1 and invite["url"] == f"/#/join/{table_id}/{invite['code']}"
    assert join(client, table_id)[1]["code"] == "private_table"
    assert join(client, table_id, invite="not-the-code")[1]["code"] == "bad_invite"
    other = create(client, players=2)
    assert join(client, other["table_id"], invite=invite["code"])[1]["code"] == "bad_invite"
    status, joined = join(client, table_id, invite=invite["code"])
    assert status == 200 and joined["seat"] == 1
    assert client.get(f"/api/tables/{table_id}/view", headers=auth(joined["token"])).json()["viewer"] == 1
    status, again = join(client, table_id, invite=invite["code"])
    assert (status, again["code"]) == (409, "invite_used")


def test_the_creator_can_keep_only_some_seats(client: TestClient) -> None:
    created = create(client, players=3, creator_seats=[1])
    assert [entry["seat"] for entry in created["seats"]] == [1]
    assert [entry["seat"] for entry in created["invites"]] == [0, 2]
    for seats in ([3], [1, 1], [-1]):
        response = client.post("/api/tables", json={"players": 3, "creator_seats": seats})
        assert response.status_code == 422, seats


def test_the_lobby_lists_public_tables_only_and_anyone_may_join_their_open_seats(client: TestClient) -> None:
    private = create(client, players=2)
    public = create(client, players=3, bots=[None, None, "random"], public=True, creator_seats=[0])
    listed = [entry["table_id"] for entry in client.get("/api/tables").json()]
    assert public["table_id"] in listed and private["table_id"] not in listed
    status, joined = join(client, public["table_id"])
    assert status == 200 and joined["seat"] == 1
    (entry,) = [
        entry for entry in client.get("/api/tables").json() if entry["table_id"] == public["table_id"]
    ]
    assert [seat["taken"] for seat in entry["seats"]] == [True, True, True]
    assert join(client, public["table_id"])[1]["code"] == "table_full"


def test_a_seat_is_never_given_twice_by_two_processes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    first, second = TableService(Store(url)), TableService(Store(url))
    table, _tokens, invites = first.create(2, None, None, None, None, public=True, creator_seats=[0])
    seen_by_second = second.get(table.id)  # both processes hold the seat as open
    taken = first.join(table, invite=invites[0]["code"])
    try:
        second.join(seen_by_second)
        raise AssertionError("the seat was given twice")
    except WebError as error:
        assert error.status == 409 and error.code in {"seat_taken", "table_full"}
    assert seat_for_token(second.get(table.id), taken["token"]) == 1


def act(client: TestClient, table_id: str, token: str, body: object):
    return client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body)


def test_a_repeated_action_gets_the_original_answer_and_is_applied_once(client: TestClient) -> None:
    created = create(client, players=2, bots=[None, "random"], seed=21)
    table_id, token = created["table_id"], tokens_of(created)[0]
    seen = client.get(f"/api/tables/{table_id}/view", headers=auth(token)).json()["actions"]
    admit = next(
        {"type": "admit", "card": choice["card"], "space": choice["spaces"][0]}
        for choice in _choices(client, table_id, token)
        if choice["type"] == "admit"
    )
    first = act(client, table_id, token, {"action": admit, "expected": seen})
    assert first.status_code == 200 and first.json()["number"] == seen
    stored = service_of(client).store.version(table_id)
    for _ in range(3):  # a client retrying after a lost answer
        again = act(client, table_id, token, {"action": admit, "expected": seen})
        assert again.status_code == 200 and again.json() == first.json()
    assert service_of(client).store.version(table_id) == stored
    other = act(client, table_id, token, {"action": {"type": "pass"}, "expected": seen})
    assert other.status_code == 409 and other.json()["code"] == "stale_action"
    assert other.json()["actions"] == first.json()["actions"] == stored[0]
    ahead = act(client, table_id, token, {"action": {"type": "pass"}, "expected": stored[0] + 5})
    assert ahead.status_code == 409 and ahead.json()["actions"] == stored[0]


def test_the_expected_number_must_be_an_action_number(client: TestClient) -> None:
    created = create(client, players=1)
    table_id, token = created["table_id"], tokens_of(created)[0]
    for expected in ("0", 0.0, True, -1, None):
        response = act(client, table_id, token, {"action": {"type": "pass"}, "expected": expected})
        assert response.status_code == 422 and response.json()["code"] == "invalid_request", expected
    assert (
        act(client, table_id, token, {"action": {"type": "pass"}, "expected": 0, "x": 1}).status_code == 422
    )


def _choices(client: TestClient, table_id: str, token: str) -> list[dict]:
    """The seat's legal actions in either form of /legal (list, or {"actions", "choices"})."""
    legal = client.get(f"/api/tables/{table_id}/legal", headers=auth(token)).json()
    if isinstance(legal, dict):
        return legal["choices"]
    return [{**entry, "spaces": [entry["space"]]} if entry["type"] == "admit" else entry for entry in legal]


def test_a_burst_of_retries_applies_the_action_once(tmp_path: Path) -> None:
    """The reproduction: in bursts, a heal and a buy were each applied twice. Twenty copies of
    one request sent at once to a real server: one action, twenty identical answers; and of
    different requests made on the same position, only one is taken."""
    import threading

    import httpx
    from web_server import ServerProcess

    from triage.engine.choices import sample

    server = ServerProcess(tmp_path / "tables.db").start()
    try:
        created = httpx.post(f"{server.url}/api/tables", json={"players": 1, "seed": 61}).json()
        table_id, token = created["table_id"], created["seats"][0]["token"]
        url = f"{server.url}/api/tables/{table_id}"
        for round_ in range(3):
            legal = httpx.get(f"{url}/legal", headers=auth(token)).json()
            rng = random.Random(round_)
            same = {"action": sample(legal["choices"][0], rng), "expected": legal["actions"]}
            bodies = (
                [same] * 20
                if round_ < 2
                else [
                    {"action": sample(choice, rng), "expected": legal["actions"]}
                    for choice in legal["choices"]
                ]
            )
            answers: list[tuple[int, dict]] = []
            start = threading.Barrier(len(bodies))

            def send(body: dict, start: threading.Barrier = start, answers: list = answers) -> None:
                start.wait()
                response = httpx.post(f"{url}/actions", headers=auth(token), json=body, timeout=30)
                answers.append((response.status_code, response.json()))

            threads = [threading.Thread(target=send, args=(body,)) for body in bodies]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            taken = [answer for status, answer in answers if status == 200]
            if round_ < 2:
                assert len(taken) == 20 and all(answer == taken[0] for answer in taken)
            else:
                assert len({answer["number"] for answer in taken}) == 1
                assert all(answer["code"] == "stale_action" for status, answer in answers if status != 200)
            record = httpx.get(f"{url}/record", headers=auth(token)).json()
            assert len(record["actions"]) == legal["actions"] + 1
    finally:
        server.stop()
