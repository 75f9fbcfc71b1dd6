"""Plain-text pictures of a position, from a player's view or from the all-seeing state.

Both have the same shape (scenario-format.md sections 3 and 5); a card field missing from a
view is drawn as ``?``, so what this prints for a seat is exactly what that seat may know.
The terminal game, the ``triage`` command and the research adapters' ``ansi`` render all draw
with it, so none of those shells imports another (standard library only, like the engine).

An event is put into words here once (:func:`event_words`), for a viewer and with the players'
names, with its phase heading (:func:`event_phases`): the terminal game, the ``triage`` command
and the web (which sends the words with each event, so the page keeps no wording of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from triage.engine.shapes import Action, CardShown, Event
from triage.engine.vocabulary import KIND, KINDS, STANDARD_FRONT, SUPPLY, MarketItem

#: Each card kind's short tag (the vocabulary's ``short``).
KIND_SHORT = {kind.name: kind.short for kind in KINDS}


def describe_card(card: CardShown | Mapping[str, Any]) -> str:
    """One patient as a short line: id, what is known of it, Time and healing placed.

    >>> describe_card({"card": "P07", "front": "standard", "diagnosis": 2, "time": 1,
    ...                "revealed": False, "placed": 0})
    'P07 standard d2 ? time 1'
    """
    parts = [card["card"]]
    kind = card.get("kind")
    if card.get("front") == "standard":
        parts.append(f"{KIND_SHORT.get(kind, 'standard') if kind else 'standard'} d{card.get('diagnosis')}")
    else:
        parts.append(KIND_SHORT.get(card.get("front", ""), str(card.get("front"))))
    if "healing" in card and card.get("front") != "terminal":
        parts.append(
            f"heal {card['placed'] if 'placed' in card else 0}/{card['healing']}"
            if card["healing"] is not None
            else "heal ?"
        )
    elif kind is None or "credits" not in card:
        parts.append("?")
    if "credits" in card and "vp" in card:
        parts.append(f"reward {card['credits']}c/{card['vp']}vp")
    if "time" in card:
        parts.append(f"time {card['time']}")
    if card.get("revealed") is False and kind is not None and card.get("front") == "standard":
        parts.append("(unrevealed)")
    return " ".join(parts)


def render_position(doc: Mapping[str, Any], names: list[str] | None = None) -> str:
    """The whole board as text lines."""
    lines = []
    turn = doc.get("turn")
    lines.append(
        f"Round {doc['round']}  phase {doc['phase']}  first player {doc['first_player']}  "
        f"decision: {'player ' + str(turn) if turn is not None else '-'}"
    )
    if "deck" in doc:
        top = doc["deck"][0] if doc["deck"] else "-"
        lines.append(f"Deck {len(doc['deck'])} cards, top {top}; discard {len(doc.get('discard', []))}")
    else:
        top = describe_card(doc["deck_top"]) if doc.get("deck_top") else "-"
        lines.append(f"Deck {doc['deck_count']} cards, top {top}; discard {len(doc.get('discard', []))}")
    for seat, player in enumerate(doc["players"]):
        name = names[seat] if names else f"Player {seat}"
        mark = " (passed)" if player.get("passed") else ""
        lines.append(
            f"{name}{mark}: QoC {player['quality']}  VP {player['vp']}  score {player['score']}  "
            f"credits {player['credits']}  treated {player['treated']}"
        )
        lines.append(
            f"  diagnostics {player['diagnostics']}  healing {player['healing']}  "
            f"staff {player['staff_available']}/{player['staff']}  congress {player['congress']}  "
            f"helicopters {player['helicopters']}  spaces {player['spaces']}"
            + "".join(f"  {item} {count}" for item, count in player.get("items", {}).items() if count)
        )
        for space, slot in player["hospital"].items():
            lines.append(f"  [{space}] {describe_card(slot) if slot else 'empty'}")
        for patient in player["terminals"]:
            treated = "treated" if patient["treated"] else "untreated"
            lines.append(
                f"  [T] {patient['card']} TERM reward {patient['credits']}c/{patient['vp']}vp "
                f"time {patient['time']} {treated}"
            )
        if player["pending"]:
            known = doc.get("cards", {})
            waiting = [
                describe_card({"card": card, **known[card]}) if card in known else card
                for card in player["pending"]
            ]
            lines.append(f"  waiting for admission: {'; '.join(waiting)}")
    if doc["phase"] == "over":
        winner = doc.get("winner")
        scores = ", ".join(f"player {seat}: {p['score']}" for seat, p in enumerate(doc["players"]))
        lines.append(
            f"Game over. Scores {scores}. Winner: {'player ' + str(winner) if winner is not None else 'none'}"
        )
    return "\n".join(lines)


def describe_action(action: Action | Mapping[str, Any]) -> str:
    """An action as the short command a person would type.

    >>> describe_action({"type": "heal", "patient": "P03", "amount": 2, "pay": {"tokens": 1, "staff": 1, "congress": 0}})
    'heal P03 2 tokens=1 staff=1'
    """
    kind = action["type"]
    if kind == "admit":
        text = f"admit {action['card']} {action['space']}"
    elif kind == "reject":
        text = f"reject {action['card']}"
    elif kind in ("diagnose", "treat"):
        text = f"{kind} {action['patient']}"
    elif kind == "heal":
        text = f"heal {action['patient']} {action['amount']}"
    elif kind == "helicopter":
        parts = ["helicopter"]
        if action.get("remove"):
            parts.append(f"remove={action['remove']}")
        if action.get("draw_all"):
            parts.append("draw")
        text = " ".join(parts)
    elif kind == "buy":
        text = f"buy {action['item']}"
    else:
        text = kind
    pay = action.get("pay")
    if pay:
        text += "".join(f" {key}={value}" for key, value in pay.items() if value)
    return text


#: The log's heading for each phase of a round (R1, R2: Income and Arrival, Treatment, Cleanup).
PHASE_HEADINGS: dict[str, str] = {
    "arrival": "Income and arrival",
    "treatment": "Treatment",
    "cleanup": "Cleanup",
    "over": "End of the game",
}

#: The phase each type of event belongs to. A draw, an admission, a rejection and what the deck
#: does are left out: they happen in Arrival (A1-A8) or after a Helicopter's draw in Treatment (T7),
#: so they belong to the phase of the events before them.
EVENT_PHASE: dict[str, str] = {
    "round_started": "arrival",
    "income": "arrival",
    "diagnosed": "treatment",
    "healed": "treatment",
    "cured": "treatment",
    "treated": "treatment",
    "helicopter": "treatment",
    "removed": "treatment",
    "bought": "treatment",
    "passed": "treatment",
    "time_added": "cleanup",
    "checked": "cleanup",
    "died": "cleanup",
    "game_over": "over",
}


def event_phases(events: Iterable[Event | Mapping[str, Any]], phase: str | None = None) -> list[str]:
    """Each event's heading in a log (:data:`PHASE_HEADINGS`), in order; ``phase`` is the game's
    phase (``Position.phase``) before the first of them (None: the deal, which starts in Arrival).

    >>> event_phases([{"type": "helicopter"}, {"type": "drawn"}, {"type": "passed"},
    ...               {"type": "died"}, {"type": "round_started"}, {"type": "drawn"}], "treatment")
    ['Treatment', 'Treatment', 'Treatment', 'Cleanup', 'Income and arrival', 'Income and arrival']
    """
    current = phase or DEAL_PHASE
    headings = []
    for event in events:
        current = event_phase(event, current)
        headings.append(PHASE_HEADINGS[current])
    return headings


#: The phase a game's first events (its deal: the first round's start) belong to.
DEAL_PHASE = "arrival"


def event_phase(event: Event | Mapping[str, Any], before: str) -> str:
    """The game's phase ``event`` belongs to, ``before`` being the phase of the event before it.

    >>> event_phase({"type": "drawn"}, "treatment"), event_phase({"type": "died"}, "treatment")
    ('treatment', 'cleanup')
    """
    return EVENT_PHASE.get(event["type"], before)


def default_names(players: int) -> list[str]:
    """Seats named by number, where no one chose a name (the terminal's ``triage game``).

    >>> default_names(2)
    ['Player 0', 'Player 1']
    """
    return [f"Player {seat}" for seat in range(players)]


def count_of(amount: int, one: str, many: str | None = None) -> str:
    """``amount`` things in words, singular or plural.

    >>> count_of(1, "Credit"), count_of(3, "Credit"), count_of(0, "patient")
    ('1 Credit', '3 Credits', '0 patients')
    """
    return f"{amount} {one if amount == 1 else many or one + 's'}"


class _Speaker:
    """The words around one event for one viewer: "You" for the viewer, names for the others."""

    def __init__(self, viewer: int | None, names: Sequence[str]) -> None:
        self.viewer = viewer
        self.names = names

    def name(self, seat: int) -> str:
        if seat == self.viewer:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"Player {seat}"

    def says(self, seat: int, verb: str, third: str | None = None) -> str:
        """ "You heal" / "Alice heals"."""
        return f"{self.name(seat)} {verb if seat == self.viewer else third or verb + 's'}"

    def whose(self, seat: int) -> str:
        """ "Your" / "Alice's", before a card."""
        return "Your" if seat == self.viewer else f"{self.name(seat)}'s"

    def listed(self, seats: Iterable[int]) -> str:
        return ", ".join("you" if seat == self.viewer else self.name(seat) for seat in seats)


def kind_words(event: Event | Mapping[str, Any]) -> str:
    """ " (severe)" where the event (as the viewer sees it) tells the patient's kind."""
    kind = event.get("kind")
    return f" ({KIND[kind].label if kind in KIND else kind})" if kind else ""


def item_label(item: str, market: Mapping[str, MarketItem] | None) -> str:
    """A market item's label, as the table's configuration declares it (T8)."""
    entry = market.get(item) if market else None
    return entry.label if entry is not None else MarketItem(item, 0, None, ()).label


def with_article(label: str) -> str:
    """ "a Helicopter", "an Outpatient Clinic"."""
    return f"{'an' if label[:1].lower() in 'aeiou' else 'a'} {label}"


def event_words(
    event: Event | Mapping[str, Any],
    viewer: int | None,
    names: Sequence[str],
    market: Mapping[str, MarketItem] | None = None,
) -> str:
    """One event in a player's words, for ``viewer`` (a seat, who reads "You"; None: a
    spectator), with each seat's player by ``names`` and the market's items by their labels.

    The event must be the viewer's copy (:func:`~triage.engine.observer.event_for`): the words
    say what it holds and nothing else (a secret part is never read).

    >>> names = ["Ann", "Bob"]
    >>> event_words({"type": "admitted", "player": 0, "card": "P03", "space": 2}, 0, names)
    'You admit P03 to space 2'
    >>> event_words({"type": "admitted", "player": 1, "card": "P09", "space": None}, 0, names)
    'Bob admits P09 beside the board'
    >>> event_words({"type": "checked", "player": 0, "card": "P04", "seen_by": [1]}, 1, names)
    "Ann's P04 is checked: seen by you"
    """
    words = _Speaker(viewer, names)
    kind = event["type"]
    wording = _WORDINGS.get(kind)
    return wording(event, words, market) if wording is not None else kind.replace("_", " ")


_Wording = Callable[[Mapping[str, Any], _Speaker, "Mapping[str, MarketItem] | None"], str]


def _drawn(e: Mapping[str, Any], w: _Speaker, market: Mapping[str, MarketItem] | None) -> str:
    front = e.get("front", "")
    seen = f", diagnosis {e.get('diagnosis')}" if front == STANDARD_FRONT else ""
    return f"{w.says(e['player'], 'draw')} {e['card']} ({front}{seen})"


def _admitted(e: Mapping[str, Any], w: _Speaker, market: Mapping[str, MarketItem] | None) -> str:
    where = f"to space {e['space']}" if e.get("space") else "beside the board"
    return f"{w.says(e['player'], 'admit')} {e['card']} {where}"


def _cured(e: Mapping[str, Any], w: _Speaker, market: Mapping[str, MarketItem] | None) -> str:
    gain = w.says(e["player"], "gain")
    return f"{e['card']} is cured: {gain} {count_of(e['credits'], 'Credit')} and {e['vp']} VP"


def _checked(e: Mapping[str, Any], w: _Speaker, market: Mapping[str, MarketItem] | None) -> str:
    saw = w.listed(e.get("seen_by") or [])
    return (
        f"{w.whose(e['player'])} {e['card']} is checked" + (f": seen by {saw}" if saw else "") + kind_words(e)
    )


def _bought(e: Mapping[str, Any], w: _Speaker, market: Mapping[str, MarketItem] | None) -> str:
    price = f" for {count_of(e['price'], 'Credit')}" if "price" in e else ""
    return f"{w.says(e['player'], 'buy')} {with_article(item_label(e['item'], market))}{price}"


def _game_over(e: Mapping[str, Any], w: _Speaker, market: Mapping[str, MarketItem] | None) -> str:
    scores = " / ".join(str(score) for score in e.get("scores", []))
    winner = e.get("winner")
    return f"Game over: scores {scores}" + (f"; {w.says(winner, 'win')}" if winner is not None else "")


_WORDINGS: dict[str, _Wording] = {
    "round_started": lambda e, w, m: f"Round {e['round']} \u00b7 {w.says(e['first_player'], 'start')}",
    "income": lambda e, w, m: (
        f"{w.says(e['player'], 'receive')} {SUPPLY['diagnostics'].count(e['diagnostics'])} "
        f"and {SUPPLY['healing'].count(e['healing'])}"
    ),
    "drawn": _drawn,
    "admitted": _admitted,
    "rejected": lambda e, w, m: f"{w.says(e['player'], 'reject')} {e['card']}: \u2212{e['quality_lost']} QoC",
    "diagnosed": lambda e, w, m: f"{w.says(e['player'], 'diagnose')} {e['card']}{kind_words(e)}",
    "healed": lambda e, w, m: f"{w.says(e['player'], 'place')} {e['amount']} healing on {e['card']}",
    "cured": _cured,
    "treated": lambda e, w, m: f"{w.says(e['player'], 'treat')} terminal {e['card']}",
    "time_added": lambda e, w, m: f"{w.whose(e['player'])} {e['card']} has {e['time']} Time now",
    "checked": _checked,
    "died": lambda e, w, m: f"{w.whose(e['player'])} {e['card']} dies: \u2212{e['quality_lost']} QoC",
    "removed": lambda e, w, m: f"{w.says(e['player'], 'remove')} {e['card']} by Helicopter",
    "helicopter": lambda e, w, m: f"{w.says(e['player'], 'fly', 'flies')} a Helicopter",
    "bought": _bought,
    "passed": lambda e, w, m: w.says(e["player"], "pass", "passes"),
    "deck_reshuffled": lambda e, w, m: (
        f"The discard pile is shuffled into a new deck of {count_of(e['cards'], 'card')}"
    ),
    "deck_empty": lambda e, w, m: f"The deck is empty: {w.says(e['player'], 'draw')} nothing",
    "game_over": _game_over,
}
