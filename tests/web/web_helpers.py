"""Helpers of the web tests: seat headers, table creation, random play through the API."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import httpx
from fastapi.testclient import TestClient

from triage.engine.choices import expand
from triage.engine.text import PHASE_HEADINGS, event_words
from triage.web.words import seat_names


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def reads_of(client: TestClient, table_id: str, token: str) -> dict[str, Callable[[], httpx.Response]]:
    """Every kind of read of a table, by name: a seat's view and choices, the spectators' view,
    the table's facts, presence and the lobby."""
    return {
        "view": lambda: client.get(f"/api/tables/{table_id}/view", headers=auth(token)),
        "legal": lambda: client.get(f"/api/tables/{table_id}/legal", headers=auth(token)),
        "public": lambda: client.get(f"/api/tables/{table_id}/public"),
        "facts": lambda: client.get(f"/api/tables/{table_id}"),
        "live": lambda: client.get(f"/api/tables/{table_id}/live"),
        "lobby": lambda: client.get("/api/tables"),
    }


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.json()
    return response.json()


def tokens_of(created: dict[str, Any]) -> dict[int, str]:
    return {entry["seat"]: entry["token"] for entry in created["seats"]}


def legal_actions(client: TestClient, table_id: str, token: str) -> list[dict[str, Any]]:
    """The seat's legal actions, every payment mix listed: /legal's choices expanded."""
    answer = client.get(f"/api/tables/{table_id}/legal", headers=auth(token)).json()
    return [action for choice in answer["choices"] for action in expand(choice)]


def service_of(client: TestClient) -> Any:
    return client.app.state.service


def play_random(client: TestClient, table_id: str, tokens: dict[int, str], steps: int, seed: int = 0) -> int:
    """Play up to ``steps`` random legal actions through the API, whoever's turn; returns how many."""
    rng = random.Random(seed)
    played = 0
    for _ in range(steps):
        for token in tokens.values():
            legal = legal_actions(client, table_id, token)
            if legal:
                response = client.post(
                    f"/api/tables/{table_id}/actions", headers=auth(token), json=rng.choice(legal)
                )
                assert response.status_code == 200, response.json()
                played += 1
                break
        else:
            return played
    return played


def summary_when_over(get: Any, url: str, seconds: float = 120.0) -> dict[str, Any]:
    """A table's summary once its game is over: bots play in the server's background, so an
    all-bot table ends a little after its creation was answered."""
    import time

    deadline = time.monotonic() + seconds
    while True:
        summary: dict[str, Any] = get(url).json()
        if summary["over"] or time.monotonic() > deadline:
            return summary
        time.sleep(0.02)


def assert_worded(sent: list[dict[str, Any]], expected: list[Any], viewer: int | None, live: Any) -> None:
    """``sent`` (events as the web sent them to ``viewer``) are ``expected`` (the engine's copies for
    that viewer), each with the engine's words for that copy (the table's names, "You" for the
    viewer) and a phase heading: words built from anything else (the all-seeing event, an event
    past the sealed point) fail here."""
    names = seat_names(live.seats)
    assert [
        {key: value for key, value in event.items() if key not in ("text", "phase")} for event in sent
    ] == expected
    words = [event_words(event, viewer, names, live.game.config.market) for event in expected]
    assert [event["text"] for event in sent] == words
    assert {event["phase"] for event in sent} <= set(PHASE_HEADINGS.values())
