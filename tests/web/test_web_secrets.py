"""Secrets (rules.md I1-I4): a seat never receives what it cannot know, through any channel.

Two kinds of test. *Indistinguishability* (I4): a game drawn to fit seat 0's view
(:func:`determinize`) differs from the real one only in what seat 0 cannot know, so every
channel must give seat 0 (and spectators) the same answer on both. *Scanning*: everything sent
while a real game is played (views, legal actions, action responses, WebSocket messages,
chat lines, records, error bodies, the creation response) is searched for a card's back, the deck order,
the seed or the deck file's card ids where the receiver cannot know them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from fastapi.testclient import TestClient
from web_helpers import auth, create, legal_actions, service_of, tokens_of

from triage.engine import Game, RuleError, spectator_view, state_dict
from triage.engine.choices import action_choices
from triage.engine.determinize import determinize
from triage.engine.text import event_words
from triage.engine.views import view
from triage.engine.vocabulary import KINDS
from triage.web.errors import rule_refusal
from triage.web.payloads import view_payload
from triage.web.sealing import visible_game

BACK_FIELDS = ("credits", "vp", "healing")
#: How an event's words name a card's kind (triage.engine.text.kind_words): "(severe)".
KIND_WORDS = tuple(f"({kind.label})" for kind in KINDS)


def probe_actions(game: Game) -> Iterator[dict[str, Any]]:
    """Actions on every card of the game, most of them refused: the error channel."""
    for card in sorted(game.cards):
        yield {"type": "admit", "card": card, "space": 1}
        yield {"type": "reject", "card": card}
        yield {"type": "diagnose", "patient": card}
        yield {"type": "heal", "patient": card, "amount": 1}
        yield {"type": "heal", "patient": card, "amount": 9}
        yield {"type": "treat", "patient": card}
        yield {"type": "helicopter", "remove": card, "draw_all": False}
    for item in ("staff", "helicopter", "clinical_trial"):
        yield {"type": "buy", "item": item}


def answers(game: Game, seat: int) -> dict[str, Any]:
    """What each channel gives ``seat`` on ``game``: view, legal actions, refusals."""
    outcome: dict[str, Any] = {
        "view": view_payload(game, seat),
        "legal": game.legal_actions(seat),
        "choices": action_choices(game, seat),
        "spectator": spectator_view(game),
        "probes": [],
    }
    for action in probe_actions(game):
        trial = game.copy()
        try:
            trial.apply(action, seat)
        except RuleError as error:
            outcome["probes"].append(rule_refusal(error).to_dict())
        else:
            # Whether it is accepted must not depend on hidden parts; its events may (a diagnosis
            # reveals the back), and the scan test below covers them.
            outcome["probes"].append("accepted")
    return outcome


def test_every_channel_is_the_same_on_games_the_seat_cannot_tell_apart(client: TestClient) -> None:
    created = create(client, players=3, seed=31)
    table_id, tokens = created["table_id"], tokens_of(created)
    rng = random.Random(5)
    for _ in range(25):  # into round 2, with patients revealed, unrevealed and checked
        live = service_of(client).get(table_id)
        seat = live.game.turn
        legal = legal_actions(client, table_id, tokens[seat])
        client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[seat]), json=rng.choice(legal))
    game = service_of(client).get(table_id).game
    seat = game.turn
    for draw in range(3):
        other = determinize(view(game, seat), random.Random(draw))
        assert state_dict(other) != state_dict(game), "the drawn game must differ in hidden parts"
        assert answers(other, seat) == answers(game, seat)


def known_backs(game: Game, seat: int | None) -> tuple[set[str], set[str]]:
    """Cards whose whole back / whose kind the receiver may know by now (knowledge only grows)."""
    if seat is None:
        full = frozenset.intersection(*game.know_full)
        priority = frozenset.intersection(*game.know_priority) | full
    else:
        full = set(game.know_full[seat])
        priority = set(game.know_priority[seat]) | full
    fronts = {card for card, spec in game.cards.items() if spec.front in ("critical", "terminal")}
    return full | {c for c in fronts if game.cards[c].front == "terminal"}, priority | fronts


def card_objects(payload: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every card-shaped object of a payload, with its card id."""
    if isinstance(payload, dict):
        card = payload.get("card") if isinstance(payload.get("card"), str) else None
        if card is not None:
            yield card, payload
        memory = payload.get("cards")
        if isinstance(memory, dict):
            for card_id, entry in memory.items():
                if isinstance(entry, dict):
                    yield card_id, entry
        for value in payload.values():
            yield from card_objects(value)
    elif isinstance(payload, list):
        for value in payload:
            yield from card_objects(value)


def strings(payload: Any) -> Iterator[str]:
    """Every key and string value, except rule ids (which look like deck-file ids: T1, C2)."""
    if isinstance(payload, dict):
        for key, value in payload.items():
            yield str(key)
            if key != "rule":
                yield from strings(value)
    elif isinstance(payload, list):
        for value in payload:
            yield from strings(value)
    elif isinstance(payload, str):
        yield payload


def leaks(payload: Any, game: Game, seat: int | None) -> list[str]:
    """What in ``payload`` the receiver cannot know; empty if nothing."""
    found = []
    full, priority = known_backs(game, seat)
    for card, data in card_objects(payload):
        if card not in game.cards:
            continue
        if ("kind" in data or "priority" in data) and card not in priority:
            found.append(f"{card}: kind/priority of an unknown back {data}")
        for field in BACK_FIELDS:
            if data.get(field) is not None and card not in full:
                chronic_time = field == "healing" and data.get("kind") == "chronic"
                if not chronic_time:
                    found.append(f"{card}: {field} of an unknown back {data}")
        # An event's words (the web's ``text``) name a kind only where the receiver knows it.
        text = data.get("text")
        if isinstance(text, str) and card not in priority and any(word in text for word in KIND_WORDS):
            found.append(f"{card}: its kind in the words {text!r}")
    text = set(strings(payload))
    for forbidden in ("secret", "seed", "deck", "origins"):
        if forbidden in text:
            found.append(f"key or value {forbidden!r}")
    deck_file_ids = set(game.origins.values()) - set(game.cards)
    if text & deck_file_ids:
        found.append(f"deck-file card ids {sorted(text & deck_file_ids)[:3]}")
    return found


def test_nothing_sent_to_a_seat_or_spectator_holds_what_it_cannot_know(client: TestClient) -> None:
    created = create(client, players=2, seed=41)
    table_id, tokens = created["table_id"], tokens_of(created)
    live = service_of(client).get(table_id)
    assert not leaks(created, live.game, None)
    received: dict[int | None, list[Any]] = {0: [], 1: [], None: []}
    url = f"/api/tables/{table_id}/ws"
    rng = random.Random(2)
    with (
        client.websocket_connect(url) as ws0,
        client.websocket_connect(url) as ws1,
        client.websocket_connect(url) as wss,
    ):
        sockets = {0: ws0, 1: ws1, None: wss}
        ws0.send_json({"token": tokens[0]})
        ws1.send_json({"token": tokens[1]})
        wss.send_json({"spectate": True})
        for seat, socket in sockets.items():
            received[seat].append(socket.receive_json())
        heard = {seat: received[seat][-1]["actions"] for seat in sockets}
        chat_heard, lines = dict.fromkeys(sockets, 0), 0
        for _ in range(80):
            if live.game.is_over():
                break
            seat = live.game.turn
            headers = auth(tokens[seat])
            for asker in (0, 1):
                for what in ("view", "legal", "record"):
                    received[asker].append(
                        client.get(f"/api/tables/{table_id}/{what}", headers=auth(tokens[asker])).json()
                    )
            for what in ("public", "record", ""):
                received[None].append(client.get(f"/api/tables/{table_id}/{what}".rstrip("/")).json())
            for probe in list(probe_actions(live.game))[::17]:
                answer = client.post(f"/api/tables/{table_id}/actions", headers=headers, json=probe)
                received[seat].append(answer.json())
                if answer.status_code == 200:
                    break
            legal = legal_actions(client, table_id, tokens[seat])
            if legal:
                received[seat].append(
                    client.post(
                        f"/api/tables/{table_id}/actions", headers=headers, json=rng.choice(legal)
                    ).json()
                )
            # The chat channel: the seat to move (maybe holding undoable actions) says a line.
            said = client.post(f"/api/tables/{table_id}/chat", headers=headers, json={"text": "my move"})
            received[seat].append(said.json())
            lines += 1
            # Each socket reads up to what it may see: a seat's undoable actions reach the others
            # once sealed (undo, issue 20), then in one hello; and every line said.
            for who, socket in sockets.items():
                while heard[who] != len(visible_game(live, who).history) or chat_heard[who] < lines:
                    message = socket.receive_json()
                    received[who].append(message)
                    if message["type"] == "chat":
                        chat_heard[who] += 1
                        # A line is placed where every player could see: never beyond what the
                        # receiver was shown, so it tells nothing of undoable actions.
                        assert message["line"]["at"] <= heard[who], (who, message, heard[who])
                    else:
                        heard[who] = message["actions"]
    # Knowledge only grows, so judging against the knowledge at the end is fair to early messages.
    assert any(event["type"] == "checked" for event in live.events), "the game must reach a check (C3)"
    for who, payloads in received.items():
        problems = [problem for payload in payloads for problem in leaks(payload, live.game, who)]
        assert problems == [], (who, problems[:5])
    assert sum(len(payloads) for payloads in received.values()) > 300
    assert min(chat_heard.values()) == lines > 20


def test_the_scan_finds_a_secret_when_there_is_one() -> None:
    """The scanner above must be able to fail: the all-seeing state and unfiltered events leak."""
    game = Game.new(players=2, seed=41)
    for _ in range(6):
        game.apply(game.legal_actions()[-1])
    assert leaks(state_dict(game), game, 0)
    assert leaks(game.initial_events, game, 0) or leaks({"deck": game.deck}, game, 0)
    assert (
        leaks({"card": "P01", "kind": "x", "credits": 1}, game, None) or game.cards["P01"].front == "terminal"
    )
    assert leaks({"record": {"seed": 41}}, game, 1)
    # Words built from an all-seeing check (its secret merged in) name a kind the others cannot know.
    standard = next(card for card, spec in game.cards.items() if spec.front == "standard")
    checked = {
        "type": "checked",
        "player": 0,
        "card": standard,
        "seen_by": [1],
        "kind": game.cards[standard].kind,
    }
    words = event_words(checked, 0, ["A", "B"])
    assert leaks({"type": "checked", "card": standard, "text": words}, game, 0)
    assert not leaks(view(game, 0), game, 0)
