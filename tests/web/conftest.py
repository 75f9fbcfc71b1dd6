"""Fixtures of the web tests: an in-process app on a fresh SQLite file, and helpers to play."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]'")

with warnings.catch_warnings():  # Starlette's notice about its test client's HTTP library
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from page_helpers import browser_context, page, server, shots  # noqa: F401 (the page's browser-test fixtures)

from triage.web.app import create_app
from triage.web.limits import RateLimits

#: The tests play far faster than a person: their clients are held to no practical rate limit
#: (tests/web/test_web_limits.py checks the limits themselves).
UNLIMITED = "100000/second"


@pytest.fixture(autouse=True)
def _apps_let_go() -> Iterator[None]:
    """After each test, FastAPI's caches of endpoint kinds are emptied: they keep up to 4,096
    endpoints each (``fastapi.dependencies.models``), and each endpoint is a closure holding its
    app, so every app a test made stayed alive with its service, its tables in memory and its
    store (about 190 apps, 1.7 MB each for a small one, far more for the tests of big tables)."""
    yield
    from fastapi.dependencies import models

    for cached in vars(models).values():
        clear = getattr(cached, "cache_clear", None)
        if callable(clear):
            clear()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'tables.db'}"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(
        create_app(db_url, RateLimits(create=UNLIMITED, act=UNLIMITED, watch=UNLIMITED, chat=UNLIMITED))
    ) as test_client:
        yield test_client
