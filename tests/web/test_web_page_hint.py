"""The page's "Suggest a move" (issue 20, point 2): a whole solo game against a bot played by
following the expert's hints at 1280x800 and 390x844, each hint with its one-line reason and its
controls marked, axe clean with a hint shown; the hints end in the record as hints, not moves,
and reach neither spectators nor the record's actions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_helpers import WIDTHS, ask_for_a_hint, call, create, open_seat, serious_violations, shoot, sync_api
from web_server import ServerProcess

#: A short game keeps the test's length reasonable; every decision of the seat follows a hint.
ROUNDS = 2


def follow_hint(page: sync_api.Page) -> dict[str, str]:
    """Ask for a hint, check it is shown and marked, then take the suggested move."""
    text = ask_for_a_hint(page)
    assert "Why: " in text, text
    marked = page.locator("#panel .suggested[data-action], #bar .suggested[data-key='pass']")
    assert marked.count() >= 1, text
    target = marked.first
    move = json.loads(target.get_attribute("data-action") or '{"type": "pass"}')
    target.click()
    if page.locator("#confirm-pass").is_visible():
        page.click("#confirm-ok")
    # The hint was for the position just left: it goes once the move is taken.
    page.wait_for_function("() => !document.querySelector('.hint-said strong')", timeout=30_000)
    return {"text": text, "type": move["type"]}


def wait_for_my_turn_or_the_end(page: sync_api.Page) -> bool:
    """True when the seat has a decision; False once the game is over."""
    page.wait_for_function(
        "() => document.querySelector(\"#panel [data-key='hint']\") || document.body.classList.contains('is-over')",
        timeout=60_000,
    )
    return not page.evaluate("document.body.classList.contains('is-over')")


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_solo_game_played_by_following_the_hints(
    server: ServerProcess, page: sync_api.Page, shots: Path, width: str
) -> None:
    page.set_viewport_size(WIDTHS[width])
    table, tokens = create(server, players=2, bots=[None, "greedy"], seed=31, config={"rounds": ROUNDS})
    open_seat(page, server, table, 0, tokens[0])
    followed = []
    while wait_for_my_turn_or_the_end(page):
        if not followed:  # the first hint: shown, marked, accessible
            ask_for_a_hint(page)
            assert serious_violations(page) == []
            shoot(page, shots, f"hint-{width}")
        followed.append(follow_hint(page))
        assert len(followed) < 150, "the game should be over"
    assert followed and any(move["type"] != "pass" for move in followed)
    record = call(server, "GET", f"/api/tables/{table}/record")
    assert "result" in record  # the game is over: the whole record, hints included
    hints = record["hints"]
    assert len(hints) == len(followed) + 1  # the first position was asked twice
    assert {hint["by"] for hint in hints} == {0}
    # Each hint is what seat 0 then played: hints are never moves, the moves are the record's.
    for hint in hints:
        assert hint["at"] < len(record["actions"])
        assert record["actions"][hint["at"]] == {"by": 0, "do": hint["do"]}
