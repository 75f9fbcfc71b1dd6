"""A player's words (issue 39, point 6): bots named as the menu names their level, players by
name (never "seat 1" or "player 0"), rule ids only in help links, phases and prompts that match
what is offered, an invitation that says who invited you and the table's settings, a replay
header that follows the replay, and a compact scoreboard always in view."""

from __future__ import annotations

import re
from pathlib import Path

from page_helpers import DESKTOP, PHONE, call, create, deck_of, open_seat, pass_round, sync_api
from test_web_browser import admit_all, my_cards, open_card, refuse_next_action
from web_server import ServerProcess

from triage.engine import make_config
from triage.engine.text import PHASE_HEADINGS, event_words

#: Words a player never reads on the table page: seat numbers, zero-based players, bots' code
#: names, rule ids outside a link.
ENGINE_WORDS = re.compile(r"\b[Ss]eat \d|\b[Pp]layer 0\b|expert-novice|\bgreedy\b|\(rule [A-Z]\d")

#: The page's text outside links (a rule id may stand in a help link).
TEXT_OUTSIDE_LINKS = """() => {
  const walker = document.createTreeWalker(document.querySelector('#table'), NodeFilter.SHOW_TEXT);
  const parts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('a, [hidden], option') || !parent.getClientRects().length) continue;
    parts.push(node.textContent);
  }
  return parts.join(' ');
}"""


def engine_words(page: sync_api.Page) -> list[str]:
    return ENGINE_WORDS.findall(page.evaluate(TEXT_OUTSIDE_LINKS))


def test_players_are_named_and_bots_by_their_menu_level(server: ServerProcess, page: sync_api.Page) -> None:
    page.set_viewport_size(DESKTOP)
    table, tokens = create(server, players=3, bots=[None, "expert-novice", "greedy"], seed=5, name="Ann")
    open_seat(page, server, table, 0, tokens[0])
    page.wait_for_selector("#others .player")
    titles = page.locator("#others h2.player-title").all_inner_texts()
    assert titles[0].startswith("Gentle bot") and titles[1].startswith("Quick bot"), titles
    rows = page.locator("#scores th[scope=row]").all_inner_texts()
    assert rows[0].startswith("You (Ann)") and rows[1].startswith("Gentle bot"), rows
    assert "Gentle bot receives" in page.locator("#log").inner_text()
    admit_all(page)
    assert engine_words(page) == []
    page.goto(server.url + "/")
    page.wait_for_selector("#my-games li")
    mine = page.locator("#my-games li", has_text=table).inner_text()
    assert not ENGINE_WORDS.search(mine), mine


def test_prompts_match_what_is_offered_and_refusals_name_players(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.set_viewport_size(PHONE)
    table, tokens = create(server, players=2, bots=[None, "greedy"], seed=3, deck=deck_of("severe", 20))
    open_seat(page, server, table, 0, tokens[0])
    page.wait_for_selector("#me .pending")
    label = page.locator("#me .row-label").first.inner_text()
    assert "reject" not in label.lower() and "tap one to admit" in label  # a space is free (A4, A5)
    admit_all(page)
    page.wait_for_selector("#bar button.pass", timeout=60_000)  # the Treatment: your turn
    patient = my_cards(page)[0]
    open_card(page, patient)
    # A payment the server refuses (a client that knew less) is told with names, not "player 0".
    refuse_next_action(page, pay={"tokens": 9, "staff": 0, "congress": 0})
    page.locator("#panel [data-key='do:diagnose']").click()
    refusal = page.locator("#panel .refusal")
    refusal.wait_for()
    assert "player 0" not in refusal.inner_text().lower()
    # A diagnosis shows a treatment side: Undo says why it cannot go back, in words (T1).
    page.locator("#panel [data-key='do:diagnose']").click()
    reason = page.locator("#undo-reason")
    # The reason before the diagnosis ("nothing of yours...") is replaced once its position comes.
    sync_api.expect(reason).to_contain_text(
        f"Undo is not possible: diagnosing {patient} showed a treatment side.", timeout=30_000
    )
    assert "action " not in reason.inner_text() and reason.locator("a.rule").get_attribute("href").endswith(
        "#T1"
    )
    assert engine_words(page) == []


def test_the_scoreboard_stays_in_view(server: ServerProcess, page: sync_api.Page) -> None:
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        table, tokens = create(server, players=2, bots=[None, "greedy"], seed=6, name="Bo")
        open_seat(page, server, table, 0, tokens[0])
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        board = page.locator("#scores table.scoreboard")
        box = board.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= size["height"]
        assert board.locator("thead th").all_inner_texts() == ["Player", "Score", "VP", "QoC", "Credits"]


def test_the_replay_header_follows_the_replay(server: ServerProcess, page: sync_api.Page) -> None:
    table, tokens = create(server, players=1, seed=8, deck=deck_of("critical"))
    for _ in range(3):
        pass_round(server, table, tokens)
    open_seat(page, server, table, 0, tokens[0])
    page.wait_for_selector("#over:not([hidden])")
    assert "game over" in page.locator("#bar").inner_text()
    page.locator("#over button", has_text="Replay").click()
    page.wait_for_selector("#replay:not([hidden])")
    bar = page.locator("#bar")
    assert bar.locator(".round").inner_text().startswith("Round 1 of") and "game over" not in bar.inner_text()
    assert "step 0 of" in bar.inner_text()
    page.click("[data-key='replay-end']")
    page.wait_for_function("document.querySelector('#bar').textContent.includes('game over')")


def test_an_invitation_says_who_invites_and_the_tables_settings(
    server: ServerProcess, page: sync_api.Page
) -> None:
    created = call(
        server,
        "POST",
        "/api/tables",
        {
            "players": 2,
            "bots": [None, None],
            "creator_seats": [0],
            "name": "Ann",
            "clock": {"bank": 300, "increment": 15},
            "away_seconds": 180,
            "stand_in": "expert-club",
            "pace": "slow",
            "spectator_chat": "off",
        },
    )
    page.goto(server.url + created["invites"][0]["url"])
    text = page.locator("#invited-text")
    text.wait_for()
    page.wait_for_function("document.querySelector('#invited-text').textContent.includes('Ann')")
    words = text.inner_text()
    for part in (
        "Ann invites you",
        "2 players",
        "5 minutes",
        "15 seconds",
        "3 minutes",
        "Club bot",
        "slow (1.6 seconds) pace",
        "The chat is for the players alone",
    ):
        assert part in words, (part, words)
    assert not ENGINE_WORDS.search(words)


#: The page's modules (types.js is generated from the server's schema).
PAGE_MODULES = sorted(
    path
    for path in (Path(__file__).parents[2] / "src/triage/web/static/js").glob("*.js")
    if path.name != "types.js"
)


def test_the_page_words_no_event_itself() -> None:
    """Issue 38 point 3: the server words each event and heads it with its phase
    (triage.engine.text); no module of the page keeps a wording or a table of phases."""
    phrases = (
        "eventText",
        "PHASE_OF",
        " is cured:",
        " is checked",
        "by Helicopter",
        "Time now",
        "Income and arrival",
    )
    assert PAGE_MODULES
    for path in PAGE_MODULES:
        source = path.read_text(encoding="utf-8")
        assert [phrase for phrase in phrases if phrase in source] == [], path.name


def test_the_log_shows_the_servers_words_and_phases(server: ServerProcess, page: sync_api.Page) -> None:
    page.set_viewport_size(DESKTOP)
    table, tokens = create(server, players=2, bots=[None, "greedy"], seed=5, name="Ann")
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    shown = page.locator("#log li").all_inner_texts()
    rounds = page.locator("#log h3").all_inner_texts()
    phases = page.locator("#log h4").all_inner_texts()
    # The seat's events so far (a record only grows), in the engine's words for seat 0.
    events = call(server, "GET", f"/api/tables/{table}/record", token=tokens[0])["events"]
    market = make_config({}).market
    words = [event_words(event, 0, ["Ann", "Quick bot"], market) for event in events]
    starts = [text for text, event in zip(words, events) if event["type"] == "round_started"]
    assert len(shown) >= 4 and set(shown) <= set(words) - set(starts), set(shown) - set(words)
    assert any(text.startswith("You admit ") for text in shown) and any(
        t.startswith("Quick bot ") for t in shown
    )
    assert rounds and set(rounds) <= set(starts) and rounds[-1] == "Round 1 \u00b7 You start"
    assert phases and set(phases) <= set(PHASE_HEADINGS.values())
