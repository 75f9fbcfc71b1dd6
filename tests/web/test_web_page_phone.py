"""The page on a phone (issues 20 and 39): at 390x844 no text is under 12 CSS px and every target
is at least 24x24 CSS px (links in a sentence and checkboxes included), measured in every state a
player meets; the board comes first for players and spectators alike; the selected card's actions
are in a sheet at the bottom of the screen, always in view: no scrolling to reach a primary
action, and a suggested move is scrolled to."""

from __future__ import annotations

from typing import Any

from page_helpers import PHONE, ask_for_a_hint, create, deck_of, open_seat, sync_api
from test_web_browser import admit_all, card, my_cards
from web_server import ServerProcess

#: Every visible element with text of its own: its computed font size.
SMALL_TEXT = """() => {
  const found = [];
  for (const node of document.querySelectorAll('body *')) {
    const own = [...node.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
    if (!own || !node.getClientRects().length) continue;
    const style = getComputedStyle(node);
    if (style.visibility === 'hidden' || node.closest('[hidden], .sr-only, option')) continue;
    const size = parseFloat(style.fontSize);
    if (size < 12) found.push(`${node.tagName}.${node.className}: ${size}px "${node.textContent.trim().slice(0, 30)}"`);
  }
  return found;
}"""

#: Every visible target under 24x24 CSS px: buttons, links (those inside a sentence too), fields,
#: and the boxes of checkboxes and radio buttons themselves (issue 39: no exemption).
SMALL_TARGETS = """() => {
  const found = [];
  for (const node of document.querySelectorAll('button, a, input, select, summary')) {
    if (!node.getClientRects().length || node.closest('[hidden]') || node.type === 'hidden') continue;
    const target = node;
    const box = target.getBoundingClientRect();
    if (box.width < 24 || box.height < 24) {
      found.push(`${node.tagName}.${node.className} ${Math.round(box.width)}x${Math.round(box.height)} "${(node.textContent || node.value || '').trim().slice(0, 30)}"`);
    }
  }
  return found;
}"""


def measure(page: sync_api.Page, where: str, found: dict[str, Any]) -> None:
    found[where] = {"text": page.evaluate(SMALL_TEXT), "targets": page.evaluate(SMALL_TARGETS)}


def test_no_small_text_and_no_small_target_on_a_phone(server: ServerProcess, page: sync_api.Page) -> None:
    page.set_viewport_size(PHONE)
    found: dict[str, Any] = {}
    page.goto(server.url + "/")
    page.wait_for_selector("#solo-bot option", state="attached")
    measure(page, "home", found)
    table, tokens = create(
        server,
        players=2,
        bots=[None, "random"],
        seed=3,
        deck=deck_of("critical", healing=5),
        config={"start": {"credits": 6}},
    )
    open_seat(page, server, table, 0, tokens[0])
    measure(page, "arrivals", found)
    admit_all(page)
    page.wait_for_selector("#me button.card[data-card]")
    card(page, my_cards(page)[0]).click()
    page.click("[data-key='heal-minus']")
    page.locator("#panel summary", has_text="Pay differently").click()
    page.locator("#panel summary", has_text="All legal actions").click()
    measure(page, "heal", found)
    page.click("[data-key='heli']")
    measure(page, "helicopter", found)
    page.click("#bar button.pass")
    page.wait_for_selector("#confirm-pass[open]")
    measure(page, "pass", found)
    page.click("#confirm-cancel")
    page.goto(server.url + "/static/rules.html")
    measure(page, "rules", found)
    problems = {where: seen for where, seen in found.items() if seen["text"] or seen["targets"]}
    assert problems == {}, "\n".join(
        f"{w}: {k}: {x}" for w, s in problems.items() for k, v in s.items() for x in v
    )


def test_the_board_comes_first_for_a_spectator_and_hospitals_before_the_market(
    server: ServerProcess, page: sync_api.Page
) -> None:
    page.set_viewport_size(PHONE)
    table, tokens = create(server, players=2, bots=[None, "random"], seed=4, deck=deck_of("critical"))
    open_seat(page, server, table, 0, tokens[0])
    others = page.locator("#others").bounding_box()
    market = page.locator("#market").bounding_box()
    assert others and market and others["y"] < market["y"]
    # A human seat nobody takes keeps the game running (an all-bot table may be over at once).
    watched, _ = create(server, players=2, bots=[None, "greedy"], seed=5)  # no seat here: watching
    page.goto(f"{server.url}/#/t/{watched}")
    page.wait_for_selector("#others .player")
    boxes = {name: page.locator(name).bounding_box() for name in ("#others", "#panel", "#market", "#deck")}
    assert all(boxes.values())
    assert boxes["#others"]["y"] < min(boxes[n]["y"] for n in ("#panel", "#market", "#deck"))  # type: ignore[index]


#: Whether the element's whole box is inside the viewport.
IN_VIEW = """(node) => {
  const box = node.getBoundingClientRect();
  return box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
}"""


def test_the_selected_cards_actions_are_always_in_view_on_a_phone(
    server: ServerProcess, page: sync_api.Page
) -> None:
    """Issue 39: mid-game the suggested button sat at y=959 in an 844-px viewport, under the
    hospital. Wherever the board is scrolled, selecting a patient brings its primary action into
    view without the page scrolling; asking for a suggestion shows the suggested move."""
    page.set_viewport_size(PHONE)
    # Four patients in a 2-player game: the board is taller than the screen.
    table, tokens = create(server, players=2, bots=[None, "greedy"], seed=3, deck=deck_of("severe", 20))
    open_seat(page, server, table, 0, tokens[0])
    admit_all(page)
    page.click("#bar button.pass")
    if page.locator("#confirm-pass[open]").count():
        page.click("#confirm-ok")
    page.wait_for_selector("#bar[data-round='2'] .yours", timeout=60_000)
    page.wait_for_selector("#me .pending button.card")
    admit_all(page)
    assert page.locator("#me .spaces .card[data-card]").count() >= 3
    assert page.evaluate("document.documentElement.scrollHeight") > PHONE["height"]
    target = page.locator("#me .spaces button.card").last
    # The board at the top, then scrolled so that the card sits at the top of the screen: a tap
    # (a click of the element itself: no scrolling by the test's driver) selects it in place.
    to_card = (
        "[...document.querySelectorAll('#me .spaces button.card')].pop().scrollIntoView({block: 'start'})"
    )
    for scroll in ("window.scrollTo(0, 0)", to_card):
        page.evaluate(scroll)
        if target.get_attribute("aria-pressed") == "true":
            target.evaluate("node => node.click()")  # put it away: the next tap selects it
        scrolled = page.evaluate("window.scrollY")
        target.evaluate("node => node.click()")
        primary = page.locator("#panel button.primary").first
        primary.wait_for()
        assert page.evaluate("window.scrollY") == scrolled  # the page did not scroll to reach it
        assert primary.evaluate(IN_VIEW), f"the primary action is out of view ({scroll})"
    page.click("#panel [data-key='panel-close']")
    page.evaluate("window.scrollTo(0, 0)")
    ask_for_a_hint(page)
    page.wait_for_selector(".suggested")
    assert any(node.evaluate(IN_VIEW) for node in page.locator(".suggested").all())
    assert page.locator("#panel button.suggested, #me button.suggested").first.evaluate(IN_VIEW)
