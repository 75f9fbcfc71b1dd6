"""The seat's fast lane (triage.web.fast_lane) answers exactly as the FastAPI routes do.

Two apps deal the same table (same seed); one serves a seat's ``legal``, ``view`` and
``actions`` through the fast lane, the other through FastAPI alone. The same requests, good and
bad, get the same status, body and headers from both, all through a game; and requests the lane
must leave to FastAPI (no JSON body, another content type, a repeated header, a trailing slash,
HEAD) are left to it.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from conftest import UNLIMITED
from triage.engine.choices import sample
from triage.web import fast_lane
from triage.web.app import create_app
from triage.web.limits import RateLimits

SEED = 11


@pytest.fixture
def apps(tmp_path: Path) -> Iterator[tuple[TestClient, TestClient]]:
    yield from two_apps(tmp_path, UNLIMITED)


@pytest.fixture
def limited_apps(tmp_path: Path) -> Iterator[tuple[TestClient, TestClient]]:
    yield from two_apps(tmp_path, "40/minute")


def two_apps(tmp_path: Path, act_rate: str) -> Iterator[tuple[TestClient, TestClient]]:
    """The app with the fast lane and without it, each on its own database."""

    def rates() -> RateLimits:  # each app counts its own clients
        return RateLimits(create=UNLIMITED, act=act_rate, watch=UNLIMITED)

    with (
        TestClient(create_app(f"sqlite:///{tmp_path / 'fast.db'}", rates(), fast_lane=True)) as fast,
        TestClient(create_app(f"sqlite:///{tmp_path / 'slow.db'}", rates(), fast_lane=False)) as slow,
    ):
        yield fast, slow


class Table:
    """One seeded 2-player table on an app: its id and seat tokens."""

    def __init__(self, client: TestClient) -> None:
        created = client.post("/api/tables", json={"players": 2, "bots": [None, None], "seed": SEED}).json()
        self.client, self.id = client, created["table_id"]
        self.tokens = {entry["seat"]: entry["token"] for entry in created["seats"]}

    def ask(
        self, method: str, last: str, seat: int | None, **options: Any
    ) -> tuple[int, Any, dict[str, str]]:
        """One request at the table (``seat``'s token, or none); its status, body and the
        headers a client reads."""
        headers = dict(options.pop("headers", {}))
        if seat is not None:
            headers["Authorization"] = f"Bearer {self.tokens[seat]}"
        answer = self.client.request(method, f"/api/tables/{self.id}/{last}", headers=headers, **options)
        kept = {
            name: answer.headers[name]
            for name in ("content-type", "retry-after", "allow")
            if name in answer.headers
        }
        body = answer.json() if answer.content else None
        return answer.status_code, body, kept


def same(fast: Table, slow: Table, method: str, last: str, seat: int | None, **options: Any) -> Any:
    """Ask both tables the same; assert equal answers; the fast one's body."""
    quick = fast.ask(method, last, seat, **dict(options))
    reference = slow.ask(method, last, seat, **dict(options))
    assert quick == reference, (method, last, options)
    return quick[1]


BAD_BODIES: list[dict[str, Any]] = [
    {"json": {"action": {"type": "pass"}}},  # 'expected' missing
    {"json": {"action": {"type": "pass"}, "expected": 0, "extra": 1}},
    {"json": {"type": "fly"}},  # not an action (engine's shape check)
    {"json": {"type": "heal", "patient": "P99", "amount": 1}},
    {"json": {"action": {"type": "pass"}, "expected": 999}},  # stale
    {"json": [1, 2]},
    {"json": "pass"},
    {"content": b"null", "headers": {"Content-Type": "application/json"}},
    {"content": b"", "headers": {"Content-Type": "application/json"}},
    {"content": b"{bad", "headers": {"Content-Type": "application/json"}},
    {"content": b'{"type": "pass"}', "headers": {"Content-Type": "text/plain"}},
    {"content": b'{"type": "pass"}'},
]


def test_every_answer_through_a_game_is_the_same(apps: tuple[TestClient, TestClient]) -> None:
    fast, slow = Table(apps[0]), Table(apps[1])
    rng = random.Random(SEED)
    for step in range(25):
        turn = same(fast, slow, "GET", "view", 0)["turn"]
        if turn is None:
            break
        other = 1 - turn
        for seat in (None, other, turn):
            same(fast, slow, "GET", "legal", seat)
            same(fast, slow, "GET", "view", seat)
        same(fast, slow, "GET", "legal", None, headers={"Authorization": "Basic abc"})
        same(fast, slow, "GET", "legal", None, headers={"Authorization": "Bearer not-a-token"})
        same(fast, slow, "POST", "actions", other, json={"type": "pass"})  # R1: not its turn
        if step % 5 == 0:
            for bad in BAD_BODIES:
                same(fast, slow, "POST", "actions", turn, **bad)
        legal = same(fast, slow, "GET", "legal", turn)
        action = sample(rng.choice(legal["choices"]), rng)
        done = same(
            fast, slow, "POST", "actions", turn, json={"action": action, "expected": legal["actions"]}
        )
        assert done.get("number") == legal["actions"], done
    assert step > 10  # the game went on (and both apps' tables with it)


def test_unknown_tables_and_rate_limits_answer_the_same(limited_apps: tuple[TestClient, TestClient]) -> None:
    apps = limited_apps
    fast, slow = Table(apps[0]), Table(apps[1])
    for table in (fast, slow):
        table.id = "no-such-table"
    same(fast, slow, "GET", "legal", None, headers={"Authorization": "Bearer x"})
    same(fast, slow, "POST", "actions", None, json={"type": "pass"})
    fast, slow = Table(apps[0]), Table(apps[1])
    answers = [same(fast, slow, "POST", "actions", 1, json={"type": "pass"}) for _ in range(45)]
    assert answers[-1]["code"] == "rate_limited"  # 40 actions a minute (Retry-After compared too)


@pytest.mark.parametrize(
    ("method", "path", "headers", "served"),
    [
        ("GET", "/api/tables/T/legal", [], True),
        ("GET", "/api/tables/T/view", [(b"authorization", b"Bearer x")], True),
        ("POST", "/api/tables/T/actions", [(b"content-type", b"application/json")], True),
        ("POST", "/api/tables/T/actions", [(b"content-type", b"text/plain")], False),
        ("POST", "/api/tables/T/actions", [], False),
        ("GET", "/api/tables/T/legal", [(b"authorization", b"a"), (b"authorization", b"b")], False),
        ("GET", "/api/tables/T/legal/", [], False),
        ("HEAD", "/api/tables/T/legal", [], False),
        ("GET", "/api/tables//legal", [], False),
        ("GET", "/api/tables/T/record", [], False),
        ("POST", "/api/tables/T/legal", [], False),
    ],
)
def test_the_lane_takes_only_the_requests_it_answers_as_the_routes_do(
    method: str, path: str, headers: list[tuple[bytes, bytes]], served: bool
) -> None:
    scope: dict[str, Any] = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": headers,
        "root_path": "",
    }
    if method == "POST":
        scope[fast_lane.PARSED_BODY] = {"type": "pass"}
    assert (fast_lane.hot_request(scope) is not None) is served
