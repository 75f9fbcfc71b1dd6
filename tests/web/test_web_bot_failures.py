"""A bot that fails never sticks its table (issue 22, point 2): a bot that raises or answers an
action the rules refuse is replaced by ``random`` for that move, and logged."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import auth, create, legal_actions, service_of, tokens_of

from triage.bots import BOTS
from triage.web.app import create_app


class Failing:
    """A bot made to fail: it raises, or (``illegal``) answers an action the rules refuse."""

    def __init__(self, illegal: bool = False) -> None:
        self.name = "failing"
        self.illegal = illegal

    def choose(self, view: Any, legal: list[Any], rng: Any) -> Any:
        if self.illegal:
            return {"type": "admit", "card": "nothing", "space": 99}
        return 1 / 0


@pytest.mark.parametrize("illegal", [False, True])
def test_a_failing_bot_is_replaced_by_random_and_never_sticks_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, illegal: bool
) -> None:
    """The bot raises (or plays an illegal action) on every decision: each of its moves is
    random's instead (logged), the human's actions are answered, and the game goes on, also
    after a restart."""
    monkeypatch.setitem(BOTS, "failing", lambda: Failing(illegal))
    db_url = f"sqlite:///{tmp_path / 'tables.db'}"
    with caplog.at_level(logging.ERROR, logger="triage.web"), TestClient(create_app(db_url)) as client:
        created = create(client, players=2, bots=[None, "failing"], seed=3)
        table_id, token = created["table_id"], tokens_of(created)[0]
        for _ in range(3):
            legal = wait_for_turn(client, table_id, token)
            response = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=legal[0])
            assert response.status_code == 200, response.text
        wait_for_turn(client, table_id, token)
        history = service_of(client).get(table_id).game.history
        assert any(entry["by"] == 1 for entry in history), "the failing bot never moved"
    assert "bot failing failed" in caplog.text and "random moves instead" in caplog.text
    with TestClient(create_app(db_url)) as client:  # a restart: the table goes on
        legal = wait_for_turn(client, table_id, token)
        assert (
            client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=legal[0]).status_code
            == 200
        )


def wait_for_turn(client: TestClient, table_id: str, token: str, seconds: float = 20.0) -> list[Any]:
    """The seat's legal actions once it is its decision (bots move in the background)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        legal = legal_actions(client, table_id, token)
        if legal:
            return legal
        time.sleep(0.01)
    raise AssertionError(f"table {table_id}: still not the seat's decision after {seconds} s")
