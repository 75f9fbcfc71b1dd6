"""Limits of the web service (docs/web.md, "Limits"): what a request may ask, in what shape, and
how often. Each reproduction of an expensive or malformed request gets a clear JSON 4xx."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from limits import parse
from web_helpers import auth, create, tokens_of

from triage.engine.choices import expand
from triage.web import payloads
from triage.web.app import create_app
from triage.web.limits import (
    MAX_BODY_BYTES,
    MAX_CARD_VALUES,
    MAX_DECK_CARDS,
    MAX_JSON_DEPTH,
    MAX_START,
    SWEEP_SECONDS,
    ProcessWindows,
    RateLimited,
    RateLimits,
    RequestBodyLimit,
)

ROOT = Path(__file__).resolve().parents[2]
WEB_DOC = (ROOT / "docs" / "web.md").read_text()


def refused(response: Any, status: int, code: str, fragment: str = "") -> dict[str, Any]:
    body = response.json()
    assert (response.status_code, body.get("code")) == (status, code), body
    assert set(body) >= {"code", "message"} and fragment in body["message"], body
    return body


def critical_deck(count: int, healing: int) -> list[dict[str, Any]]:
    return [
        {"id": f"C{number}", "kind": "critical", "healing": healing, "credits": 1, "vp": 1}
        for number in range(count)
    ]


# ---------------------------------------------------------------------- the big table of the report


def test_the_big_configuration_is_refused_at_creation(client: TestClient) -> None:
    big = {"staff": 300, "congress": 300, "healing": 300, "diagnostics": 300}
    refused(
        client.post("/api/tables", json={"players": 1, "config": {"start": big}}),
        422,
        "limit_exceeded",
        "config.start.",
    )
    deck = critical_deck(40, 300)
    refused(
        client.post("/api/tables", json={"players": 1, "deck": deck}),
        422,
        "limit_exceeded",
        "'healing' is 300",
    )
    refused(
        client.post("/api/tables", json={"players": 2, "config": {"rounds": 1000}}),
        422,
        "limit_exceeded",
        "config.rounds",
    )
    refused(
        client.post("/api/tables", json={"players": 2, "config": {"arrivals": 50}}),
        422,
        "limit_exceeded",
        "arrivals",
    )
    credits = {"seat_credits": {"3": [0, 500, 0]}}
    refused(
        client.post("/api/tables", json={"players": 3, "config": credits}),
        422,
        "limit_exceeded",
        "config.seat_credits.3[1] is 500",
    )
    refused(
        client.post("/api/tables", json={"players": 4, "config": {"seat_vp": {"4": [0, 0, 0, 500]}}}),
        422,
        "limit_exceeded",
        "config.seat_vp.4[3] is 500",
    )
    prices = {"market": {"staff": {"price": 10**6}}}
    refused(client.post("/api/tables", json={"players": 2, "config": prices}), 422, "limit_exceeded", "price")
    by_count = {"market": {"staff": {"price": {"4": 10**6}}}}  # T8: every count's price is bounded
    refused(
        client.post("/api/tables", json={"players": 2, "config": by_count}),
        422,
        "limit_exceeded",
        "config.market.staff.price.4 is 1000000",
    )
    open_ended = {"market": {"outpatient_clinic": {"price": 2, "limit": None}}}
    refused(
        client.post("/api/tables", json={"players": 2, "config": open_ended}),
        422,
        "limit_exceeded",
        "limit must be set",
    )
    free = {"market": {"healing": {"price": 0}}}  # refused by the engine already (T8)
    refused(client.post("/api/tables", json={"players": 2, "config": free}), 422, "invalid_request", "(T8)")
    assert client.get("/api/tables").json() == []  # nothing was created


def test_a_huge_body_or_deck_is_refused_before_it_is_parsed(client: TestClient) -> None:
    huge = json.dumps({"players": 2, "deck": critical_deck(200_000, 3)}).encode()
    assert len(huge) > 10_000_000
    refused(
        client.post("/api/tables", content=huge, headers={"content-type": "application/json"}),
        413,
        "body_too_large",
        str(MAX_BODY_BYTES),
    )
    refused(
        client.post("/api/tables", json={"players": 2, "deck": critical_deck(MAX_DECK_CARDS + 1, 3)}),
        422,
        "invalid_request",
        str(MAX_DECK_CARDS),
    )


def test_a_streamed_body_is_cut_off_at_the_limit() -> None:
    """Without Content-Length the middleware counts what it reads and stops past the limit."""
    reached: list[str] = []
    sent: list[dict[str, Any]] = []
    chunk = b"x" * 4096
    reads = 0

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    async def receive() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "path": "/api/tables", "method": "POST", "headers": []}
    asyncio.run(RequestBodyLimit(app, max_bytes=10_000)(scope, receive, send))
    assert reached == [] and reads == 3
    assert sent[0]["status"] == 413 and json.loads(sent[1]["body"])["code"] == "body_too_large"


def test_the_largest_allowed_table_answers_legal_at_once(client: TestClient) -> None:
    """At the limits, the listing is a few choices with the payment inside, not one per mix."""
    deck = critical_deck(60, MAX_CARD_VALUES["healing"])
    created = create(client, players=1, seed=1, config={"start": dict(MAX_START)}, deck=deck)
    table_id, token = created["table_id"], tokens_of(created)[0]
    while (legal := client.get(f"/api/tables/{table_id}/legal", headers=auth(token)).json())["choices"][0][
        "type"
    ] == "admit":
        action = next(expand(legal["choices"][0]))
        assert (
            client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action).status_code
            == 200
        )
    heals = [choice for choice in legal["choices"] if choice["type"] == "heal"]
    assert heals and all(choice["amount"]["max"] == MAX_CARD_VALUES["healing"] for choice in heals)
    assert len(legal["choices"]) < 20 and len(json.dumps(legal["choices"])) < 5_000
    # The forecast lists the payment mixes on offer per amount, and every action in words with
    # its default payment (one per target and amount): bounded by the table limits.
    assert len(json.dumps(legal["forecast"])) < 25_000


# ---------------------------------------------------------------------- strict types and JSON


@pytest.mark.parametrize(
    "body",
    [
        {"players": "2"},
        {"players": 2.0},
        {"players": True},
        {"players": 2, "seed": 7.0},
        {"players": 2, "seed": "7"},
        {"players": 2, "seed": True},
        {"players": 2, "bots": [None, 1]},
        {"players": 2, "public": "yes"},
        {"players": 2, "creator_seats": ["0"]},
        {"players": 2, "config": {"rounds": 3.0}},
        {"players": 2, "config": {"rounds": True}},
    ],
)
def test_numbers_and_flags_must_have_their_json_type(client: TestClient, body: dict[str, Any]) -> None:
    refused(client.post("/api/tables", json=body), 422, "invalid_request")


def test_join_requests_are_strict_too(client: TestClient) -> None:
    table_id = create(client, players=2, seed=3, public=True, creator_seats=[0])["table_id"]
    for body in ({"seat": "1"}, {"seat": 1.0}, {"seat": True}, {"invite": 5}):
        refused(client.post(f"/api/tables/{table_id}/join", json=body), 422, "invalid_request")
    assert client.post(f"/api/tables/{table_id}/join", json={"seat": 1}).status_code == 200


def test_action_fields_and_the_expected_number_are_strict_too(client: TestClient) -> None:
    created = create(client, players=2, seed=3)
    table_id, token = created["table_id"], tokens_of(created)[0]
    card = client.get(f"/api/tables/{table_id}/legal", headers=auth(token)).json()["choices"][0]["card"]
    for space in (1.0, "1", True):
        action = {"type": "admit", "card": card, "space": space}
        refused(
            client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action),
            422,
            "invalid_action",
        )
    for expected in ("0", 0.0, True):
        body = {"action": {"type": "admit", "card": card, "space": 1}, "expected": expected}
        refused(
            client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=body),
            422,
            "invalid_request",
        )


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b'{"players": "\xff\xfe"}', "not UTF-8"),
        (b'{"players": ' + b"7" * 4301 + b"}", "4301 digits"),
        (b'{"players": 2, "config": ' + b"[" * 1000 + b"]" * 1000 + b"}", f"deeper than {MAX_JSON_DEPTH}"),
        (b"[" * 30_000 + b"]" * 30_000, f"deeper than {MAX_JSON_DEPTH}"),
        (b'{"players": NaN}', "NaN"),
        (b'{"players": 2', "not JSON"),
    ],
)
def test_malformed_bodies_answer_invalid_json(client: TestClient, content: bytes, fragment: str) -> None:
    response = client.post("/api/tables", content=content, headers={"content-type": "application/json"})
    refused(response, 400, "invalid_json", fragment)


def test_framework_errors_have_codes_too(client: TestClient) -> None:
    refused(client.delete("/api/tables"), 405, "method_not_allowed")
    refused(client.get("/api/nothing-here"), 404, "not_found")


def test_a_server_fault_still_answers_the_json_form(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with TestClient(create_app(db_url), raise_server_exceptions=False) as client:
        table_id = create(client, players=2, seed=1)["table_id"]

        def broken(_table: Any) -> None:
            raise RuntimeError("a bug")

        monkeypatch.setattr(payloads, "summary", broken)
        answer = refused(client.get(f"/api/tables/{table_id}"), 500, "internal_error", "RuntimeError")
        assert "a bug" not in answer["message"]


# ---------------------------------------------------------------------- request rates


def test_creating_and_acting_are_rate_limited_per_client(db_url: str) -> None:
    rates = RateLimits(create="2/minute", act="3/minute")
    with TestClient(create_app(db_url, rates)) as client:
        created = [client.post("/api/tables", json={"players": 2, "seed": 1}) for _ in range(2)]
        assert [response.status_code for response in created] == [201, 201]
        third = client.post("/api/tables", json={"players": 2})
        refused(third, 429, "rate_limited", "tables created")
        assert 1 <= int(third.headers["Retry-After"]) <= 60
        table_id, token = created[0].json()["table_id"], tokens_of(created[0].json())[0]
        answers = [
            client.post(
                f"/api/tables/{table_id}/actions", headers=auth(token), json={"type": "pass"}
            ).status_code
            for _ in range(4)
        ]
        # Refused actions count too: the limit is on requests, whatever they ask.
        assert answers[:3] == [409, 409, 409] and answers[3] == 429
        # Reading is not limited.
        assert client.get(f"/api/tables/{table_id}/legal", headers=auth(token)).status_code == 200


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_process_windows_move_as_the_limits_library_does() -> None:
    """A moving window: the fourth hit of "3/minute" is refused until the first hit is a
    minute old, and the answer says when a hit is free again."""
    clock = Clock()
    windows = ProcessWindows(clock)
    rate = parse("3/minute")
    for second in (0.0, 10.0, 20.0):
        clock.now = 1000.0 + second
        assert windows.hit(rate, "act", "198.51.100.7")
    clock.now = 1059.0
    assert not windows.hit(rate, "act", "198.51.100.7")
    assert windows.hit(rate, "act", "203.0.113.9")  # another client has its own window
    assert windows.get_window_stats(rate, "act", "198.51.100.7") == (1060.0, 0)
    clock.now = 1060.0  # the first hit left the window
    assert windows.hit(rate, "act", "198.51.100.7")
    assert not windows.hit(rate, "act", "198.51.100.7")
    assert windows.get_window_stats(rate, "act", "198.51.100.7") == (1070.0, 0)


def test_the_process_windows_forget_idle_clients_and_start_no_thread() -> None:
    clock = Clock()
    windows = ProcessWindows(clock)
    rate = parse("2/second")
    threads = threading.active_count()
    for client in range(100):
        assert windows.hit(rate, "act", f"client-{client}")
    assert threading.active_count() == threads  # no timer thread per hit
    assert len(windows) == 100
    clock.now += SWEEP_SECONDS
    assert windows.hit(rate, "act", "client-0")  # the sweep keeps only the active window
    assert len(windows) == 1


def test_rate_limits_in_memory_count_in_this_process() -> None:
    rates = RateLimits(create="2/minute")
    assert isinstance(rates._limiter, ProcessWindows)
    rates.check_storage()
    rates.hit("create", "198.51.100.7")
    rates.hit("create", "198.51.100.7")
    with pytest.raises(RateLimited) as refusal:
        rates.hit("create", "198.51.100.7")
    assert 1 <= refusal.value.retry_after <= 60


def test_serve_refuses_a_malformed_rate() -> None:
    from typer.testing import CliRunner

    from triage.cli import app

    result = CliRunner().invoke(app, ["serve", "--rate-act", "lots"])
    assert result.exit_code == 2 and "'lots' is not a rate" in result.output


# ---------------------------------------------------------------------- documentation


def error_codes_in_source() -> set[str]:
    """Every error code the web service itself can answer with, read from its source."""
    codes: set[str] = set()
    for path in (ROOT / "src" / "triage" / "web").glob("*.py"):
        text = path.read_text()
        codes |= set(re.findall(r'WebError\(\s*\d{3},\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'BodyProblem\(\s*\d{3},\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'send_error\(\s*send,\s*\d{3},\s*"([a-z_]+)"', text))
    from triage.web.app import HTTP_CODES

    return codes | set(HTTP_CODES.values()) | {"rate_limited", "http_error"}


def test_every_error_code_is_documented() -> None:
    codes = error_codes_in_source()
    assert {"invalid_json", "body_too_large", "limit_exceeded", "invalid_request", "unknown_table"} <= codes
    missing = sorted(code for code in codes if f"`{code}`" not in WEB_DOC)
    assert missing == [], f"docs/web.md does not list: {missing}"
