"""The page's Undo button (issue 20, point 3): a whole game against a bot at both widths, an
action taken in the page and taken back with Undo, the button unavailable with the reveal named
after a diagnosis, and axe-core clean in the undo state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_helpers import WIDTHS, act, call, create, open_seat, serious_violations, settle, shoot, sync_api
from test_web_browser import admit_all
from web_server import ServerProcess

from triage.engine import Game, make_config
from triage.engine.undo import undo_reach

SEED, ROUNDS = 5, 2


def local_game(server: ServerProcess, table: str, token: str) -> Game:
    """The table's game, replayed here from the seat's record and the seed this test chose."""
    record = call(server, "GET", f"/api/tables/{table}/record", token=token)
    game = Game.new(players=2, seed=SEED, config=make_config({"rounds": ROUNDS}))
    for entry in record["actions"]:
        game.apply(entry["do"], entry["by"])
    return game


def quiet_button(page: sync_api.Page, game: Game) -> sync_api.Locator | None:
    """A button of the full legal list whose action reveals nothing (so it may be undone)."""
    summary = page.locator("#panel .all-actions summary")
    if summary.count() and not page.locator("#panel .all-actions[open]").count():
        summary.click()
    for button in page.locator("#panel .all-actions button[data-action]").all():
        action = json.loads(button.get_attribute("data-action") or "{}")
        trial = game.copy()
        trial.apply(action, 0)
        if undo_reach(trial, 0).steps:
            return button
    return None


def shown_box(page: sync_api.Page, locator: sync_api.Locator) -> dict[str, float]:
    """The element's box once it is drawn: the panel is redrawn when the bot moves, and a box
    asked for during the redraw is None."""
    for _ in range(40):
        box = locator.bounding_box()
        if box is not None:
            return dict(box)
        page.wait_for_timeout(50)
    raise AssertionError("the element was not drawn within 2 s")


def reveals(game: Game, action: dict[str, object]) -> bool:
    """Whether ``action`` reveals something (a diagnosis of a card nobody knew, T1)."""
    trial = game.copy()
    trial.apply(action, 0)
    return undo_reach(trial, 0).steps == 0


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_whole_game_against_a_bot_with_undo(
    server: ServerProcess, page: sync_api.Page, shots: Path, width: str
) -> None:
    page.set_viewport_size(WIDTHS[width])
    table, tokens = create(server, players=2, bots=[None, "random"], seed=SEED, config={"rounds": ROUNDS})
    open_seat(page, server, table, 0, tokens[0])
    undo = page.locator("#panel button.undo")
    undone = False
    for _ in range(60):
        settle(page)
        game = local_game(server, table, tokens[0])
        if game.is_over():
            break
        if game.turn != 0:
            continue
        if game.in_admission(0):
            admit_all(page)
            continue
        if not undone and (button := quiet_button(page, game)) is not None:
            before = len(game.history)
            button.click()
            page.wait_for_selector("#panel button.undo[aria-disabled='false']")
            assert "can be taken back" in undo.inner_text()
            box = shown_box(page, undo)  # the bot's move may redraw the panel in between
            assert box["height"] >= 24 and box["width"] >= 24
            assert serious_violations(page) == []
            shoot(page, shots, f"undo-available-{width}")
            undo.focus()
            page.keyboard.press("Enter")  # keyboard reachable
            page.wait_for_selector("#panel .notice:has-text('taken back')")
            assert len(local_game(server, table, tokens[0]).history) == before
            undone = True
            continue
        diagnose = next(
            (a for a in game.legal_actions(0) if a["type"] == "diagnose" and reveals(game, a)), None
        )
        if diagnose is not None and not undone:  # a reveal first: a heal after it is quiet
            act(server, table, tokens[0], diagnose)
            continue
        if diagnose is not None and undone:
            act(server, table, tokens[0], diagnose)
            page.wait_for_selector("#panel button.undo[aria-disabled='true']")
            page.wait_for_selector("#undo-reason:has-text('diagnosing')")
            assert serious_violations(page) == []
            shoot(page, shots, f"undo-after-reveal-{width}")
            continue
        act(server, table, tokens[0], {"type": "pass"})
    assert undone, "the game offered an action to undo"
    assert local_game(server, table, tokens[0]).is_over()
