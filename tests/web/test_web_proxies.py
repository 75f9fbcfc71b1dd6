"""Rate limits behind proxies and across processes (issue 22, point 6; docs/web.md, "Limits").

- ``X-Forwarded-For`` is believed only from the addresses of ``--forwarded-allow-ips`` (none by
  default): a client that names another address in it gets no fresh budget.
- With ``--limits-storage redis://...`` every server process counts in one store: an address
  gets its budget once, however many processes serve it. These tests need a scratch Redis server
  named by ``TRIAGE_TEST_REDIS_URL`` (``scripts/test`` starts one as root) and skip without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from web_server import serve, stop

from triage.web.limits import RateLimited, RateLimits, rate_storage

REDIS_URL = os.environ.get("TRIAGE_TEST_REDIS_URL")
needs_redis = pytest.mark.skipif(
    not REDIS_URL, reason="set TRIAGE_TEST_REDIS_URL to a scratch Redis server to run this"
)
#: Nothing listens there: a store that is down.
DEAD_REDIS = "redis://127.0.0.1:1"


def create(url: str, forwarded_for: str | None = None) -> int:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    return httpx.post(f"{url}/api/tables", json={"players": 1}, headers=headers, timeout=10).status_code


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        stop(process)


def start(servers: list[subprocess.Popen[bytes]], db: Path, *options: str) -> str:
    process, url = serve(db, *options)
    servers.append(process)
    return url


def test_a_spoofed_forwarded_for_buys_no_fresh_budget(
    servers: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    url = start(servers, tmp_path / "tables.db", "--rate-create", "2/minute")
    assert [create(url) for _ in range(3)] == [201, 201, 429]
    claimed = [create(url, forwarded_for=f"203.0.113.{number}") for number in range(1, 11)]
    assert claimed == [429] * 10


def test_the_configured_proxy_names_the_client(
    servers: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    options = ("--rate-create", "1/minute", "--forwarded-allow-ips", "127.0.0.1")
    url = start(servers, tmp_path / "tables.db", *options)
    assert [create(url, "203.0.113.1"), create(url, "203.0.113.1")] == [201, 429]
    assert create(url, "203.0.113.2") == 201
    # The proxy's own requests (no header) count for the proxy's address.
    assert [create(url), create(url)] == [201, 429]


@needs_redis
def test_processes_sharing_redis_give_an_address_its_budget_once(
    servers: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    rate_storage(REDIS_URL or "").reset()
    options = ("--rate-create", "3/minute", "--limits-storage", REDIS_URL or "")
    first = start(servers, tmp_path / "a.db", *options)
    second = start(servers, tmp_path / "b.db", *options)
    answers = [create(url) for url in (first, second) * 4]
    assert answers.count(201) == 3, answers
    assert answers[3:] == [429] * 5


def test_serve_refuses_a_store_that_does_not_answer(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "from triage.cli import main; main()", "serve"]
    command += ["--db", f"sqlite:///{tmp_path / 't.db'}", "--limits-storage", DEAD_REDIS]
    result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "limits storage" in result.stderr and "does not answer" in result.stderr
    command[-1] = "nosuchstore://x"
    result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "limits storage 'nosuchstore://x'" in result.stderr


def test_a_failing_store_falls_back_to_counting_in_the_process(caplog: pytest.LogCaptureFixture) -> None:
    """A store outage neither refuses requests nor lifts the limits: the process counts alone
    for a few seconds (logged), then tries the store again."""
    rates = RateLimits(create="2/minute", storage=DEAD_REDIS)
    rates.hit("create", "198.51.100.7")
    rates.hit("create", "198.51.100.7")
    with pytest.raises(RateLimited):
        rates.hit("create", "198.51.100.7")
    assert "counting in this process" in caplog.text
