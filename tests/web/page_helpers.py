"""Helpers of the page's browser tests: a real server, Debian's Chromium, tables set up through
the API, and screenshots at the two widths the page is designed for.

The fixtures are registered in conftest.py; without Chromium or Playwright they skip.
Screenshots go to a temporary folder, or to ``TRIAGE_SCREENSHOTS`` when it is set (the README's
images are refreshed with ``TRIAGE_SCREENSHOTS=docs/screenshots``).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright import sync_api
except ImportError:  # the test extra is not installed: the fixtures skip
    sync_api = None  # type: ignore[assignment]

from web_server import ServerProcess

CHROMIUM = Path("/usr/bin/chromium")

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
WIDTHS = {"phone": PHONE, "desktop": DESKTOP}
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def need_browser() -> None:
    if not CHROMIUM.exists():
        pytest.skip("browser tests need Debian's Chromium at /usr/bin/chromium (apt-get install chromium)")
    if sync_api is None:
        pytest.skip("the test extra (playwright) is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("web") / "tables.db").start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def browser_context() -> Iterator[sync_api.BrowserContext]:
    need_browser()
    profile = tempfile.mkdtemp(prefix="triage-chromium-")
    try:
        with sync_api.sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True, viewport=PHONE
            )
            yield context
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


#: Others' moves drawn at once (the pace "instant") from a tab's first page on: the tests of
#: everything but the pace itself (tests/web/test_web_page_pace.py) see each position as soon as
#: the server sends it. A test may choose another pace after the first page; it then stays.
INSTANT_PACE = """try {
  if (!sessionStorage.getItem('triage.test-pace')) {
    sessionStorage.setItem('triage.test-pace', 'set');
    localStorage.setItem('triage.pace', 'instant');
  }
} catch (e) { /* about:blank has no storage */ }"""


@pytest.fixture
def page(browser_context: sync_api.BrowserContext) -> Iterator[sync_api.Page]:
    """A fresh tab that fails the test on any script error (others' moves drawn at once)."""
    tab = browser_context.new_page()
    tab.add_init_script(INSTANT_PACE)
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    tab.close()
    assert errors == [], f"script errors in the page: {errors}"


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("TRIAGE_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


# ------------------------------------------------------------------ the API, for setting tables up


def call(server: ServerProcess, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path}: {error.code} {error.read().decode()}") from None


def create(server: ServerProcess, **body: Any) -> tuple[str, dict[int, str]]:
    """A table made through the API: its id and the token of each human seat."""
    created = call(server, "POST", "/api/tables", body)
    return created["table_id"], {entry["seat"]: entry["token"] for entry in created["seats"]}


def act(server: ServerProcess, table_id: str, token: str, action: dict[str, Any]) -> Any:
    return call(server, "POST", f"/api/tables/{table_id}/actions", action, token)


def view(server: ServerProcess, table_id: str, token: str) -> dict[str, Any]:
    return call(server, "GET", f"/api/tables/{table_id}/view", token=token)


def pass_round(server: ServerProcess, table_id: str, tokens: dict[int, str], admit: bool = True) -> None:
    """Every human seat admits what it drew (first free space) and passes, until the round ends."""
    start = None
    for _ in range(200):
        state = view(server, table_id, next(iter(tokens.values())))
        if start is None:
            start = state["round"]
        if state["phase"] == "over" or state["round"] != start:
            return
        seat = state["turn"]
        # The seat's own view: another seat's shows the table before the seat's undoable actions.
        state = view(server, table_id, tokens[seat])
        player = state["players"][seat]
        if player["pending"]:
            card = player["pending"][0]
            free = [int(space) for space, slot in player["hospital"].items() if slot is None]
            act(
                server,
                table_id,
                tokens[seat],
                {"type": "admit", "card": card, "space": free[0]}
                if free
                else {"type": "reject", "card": card},
            )
        else:
            act(server, table_id, tokens[seat], {"type": "pass"})
    raise AssertionError("the round did not end")


def deck_of(kind: str, count: int = 12, **fields: Any) -> list[dict[str, Any]]:
    """A deck of one kind of card (ids X1..), for positions with known patients."""
    defaults: dict[str, dict[str, Any]] = {
        "critical": {"healing": 4, "credits": 2, "vp": 3},
        "severe": {"diagnosis": 1, "healing": 3, "credits": 2, "vp": 3},
        "chronic": {"diagnosis": 1, "credits": 1, "vp": 2},
        "non_severe": {"diagnosis": 1, "healing": 2, "credits": 1, "vp": 1},
        "terminal": {"credits": 1, "vp": 0},
    }
    card = dict(defaults[kind], **fields)
    return [dict(card, id=f"X{n}", kind=kind) for n in range(1, count + 1)]


# ------------------------------------------------------------------ the page


def open_seat(page: sync_api.Page, server: ServerProcess, table_id: str, seat: int, token: str) -> None:
    """Open a table in the page as ``seat`` (the page keeps a seat's token in localStorage)."""
    page.goto(server.url + "/")
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [f"triage.seat.{table_id}", json.dumps({"seat": seat, "token": token})],
    )
    page.goto(f"{server.url}/#/t/{table_id}")
    page.wait_for_selector("#bar .round")


#: How long a page waits for the server's answer to "Suggest a move": the hint's queue and its
#: thinking are each bounded at 10 s by the server (src/triage/web/hint_queue.py); the rest is
#: room for a loaded machine, so the wait ends on the answer (an event), not on this bound.
HINT_WAIT_MS = 60_000


def ask_for_a_hint(page: sync_api.Page, ask: str = "#panel [data-key='hint']") -> str:
    """Press "Suggest a move" and wait for the server's answer; the words said, which must be a
    suggestion (a refusal fails here, naming its reason, instead of timing out later)."""
    page.click(ask)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.hint-said')].some(node => node.textContent)",
        timeout=HINT_WAIT_MS,
    )
    said = page.locator(".hint-said").first.inner_text()
    assert said.startswith("Suggested: "), f"the hint was refused: {said}"
    return said


def log_length(page: sync_api.Page) -> int:
    return page.locator("#log li").count()


def settle(page: sync_api.Page) -> None:
    """Wait until live updates stop arriving (the log stays the same for 0.3 s and no move waits
    to be shown)."""
    previous = -1
    while log_length(page) != previous or page.locator("#bar button.skip").count():
        previous = log_length(page)
        page.wait_for_timeout(300)


def shoot(page: sync_api.Page, shots: Path, name: str) -> Path:
    path = shots / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def serious_violations(page: sync_api.Page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    found = []
    for violation in results.response["violations"]:
        if violation.get("impact") in ("serious", "critical"):
            targets = [node["target"] for node in violation["nodes"]][:3]
            found.append(f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}")
    return found
