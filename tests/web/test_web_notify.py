"""Notifications between server processes (the PostgreSQL listener's handling, without
PostgreSQL: two services on one SQLite file stand for two processes)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from triage.web import chat, notify
from triage.web.sealing import sealed
from triage.web.storage import MAX_NOTICE, Store, notice
from triage.web.tables import TableService


def test_a_notice_carries_the_actions_only_when_they_fit() -> None:
    small = json.loads(notice("t1", 3, 4, [{"by": 0, "do": {"type": "pass"}}]))
    assert small == {"table": "t1", "start": 3, "count": 4, "actions": [{"by": 0, "do": {"type": "pass"}}]}
    many = [{"by": 0, "do": {"type": "pass"}}] * 1000
    big = notice("t1", 3, 1003, many)
    assert len(big.encode()) <= MAX_NOTICE and json.loads(big)["actions"] is None


def test_a_notified_process_takes_in_the_actions_in_order_and_tells_its_subscribers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    acting, watching = TableService(Store(url)), TableService(Store(url))
    table, _tokens, _ = acting.create(2, None, 5, None, None)
    mirror = watching.get(table.id)
    subscriber = mirror.subscribe(None)
    rng = random.Random(0)
    for step in range(12):
        start = table.actions
        acting.turns.act(table, table.game.turn, rng.choice(table.game.legal_actions(table.game.turn)))
        entries = table.game.history[start:]
        carried = entries if step % 3 else None  # sometimes too big to carry: read from the store
        if step == 5:
            continue  # a lost notification: the next one finds the process behind and reads
        notify.on_notice(
            watching,
            json.dumps({"table": table.id, "start": start, "count": table.actions, "actions": carried}),
        )
        assert mirror.game.history == table.game.history
    # The spectator is shown every action once, in order: an update each, or one hello for the
    # actions a human seat held back while it could undo them (triage.web.sealing), up to the
    # sealed point (what every seat may see now).
    shown = 0
    while not subscriber.queue.empty():
        message = subscriber.queue.get_nowait()
        data = json.loads(message) if isinstance(message, str) else message
        if data["type"] == "update":
            assert data["number"] == shown
            shown += 1
        else:
            assert data["type"] == "hello" and data["actions"] >= shown
            shown = data["actions"]
    assert shown == sealed(mirror).actions and shown > 6
    notify.on_notice(watching, "not json")  # someone else's notification on the channel: ignored
    notify.on_notice(watching, json.dumps({"table": "nope", "start": 0, "count": 1, "actions": None}))


def test_a_rebuilt_table_keeps_its_subscribers_and_greets_them_again(tmp_path: Path) -> None:
    """When memory cannot follow the store (a stored action does not apply: catch_up calls
    rebuild), the table is replayed in place: the same object, its subscribers kept, each sent
    a fresh hello."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    acting, watching = TableService(Store(url)), TableService(Store(url))
    table, _tokens, _ = acting.create(2, None, 7, None, None)
    mirror = watching.get(table.id)
    subscriber = mirror.subscribe(0)
    mirror.game.apply(mirror.game.legal_actions(0)[-1], 0)  # memory strays from the store
    for _ in range(3):
        acting.turns.act(table, table.game.turn, table.game.legal_actions(table.game.turn)[0])
    assert mirror.game.history != table.game.history[: mirror.actions]
    watching.rebuild(mirror)
    assert watching.get(table.id) is mirror
    assert mirror.game.history == table.game.history and mirror.subscribers == [subscriber]
    messages = []
    while not subscriber.queue.empty():
        message = subscriber.queue.get_nowait()
        messages.append(json.loads(message) if isinstance(message, str) else message)
    assert messages[-1]["type"] == "hello" and messages[-1]["actions"] == table.actions


def test_a_chat_line_another_process_stored_reaches_this_ones_clients_once(tmp_path: Path) -> None:
    """PostgreSQL announces each chat line with the storing process's origin: every other process
    keeps it and sends it to its clients (those that read the chat); the storing process, which
    sent it already, skips its own announcement."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    acting, watching = TableService(Store(url)), TableService(Store(url))
    table, _tokens, _ = acting.create(2, None, 5, None, None)
    mirror = watching.get(table.id)
    seat, spectator = mirror.subscribe(1), mirror.subscribe(None)
    line = chat.post(acting.store, table, 0, "say", "from the other process")
    (line_id,) = table.chat_ids
    announced = json.dumps({"table": table.id, "chat": line, "id": line_id, "origin": acting.store.origin})
    notify.on_notice(watching, announced)
    notify.on_notice(acting, announced)  # its own: nothing again
    assert mirror.chat == table.chat == [line]
    for subscriber in (seat, spectator):
        assert json.loads(subscriber.queue.get_nowait()) == {
            "type": "chat",
            "table_id": table.id,
            "line": line,
        }
        assert subscriber.queue.empty()


def test_a_process_back_to_listening_says_the_lines_it_missed_once_each_in_order(tmp_path: Path) -> None:
    """Issue 39: chat lines announced while a process's listener was lost reached its clients
    only on a page reload. Back to listening, it reads the lines it does not hold and says them
    in order; an announcement of a line it holds already (one that came as it caught up, or a
    rebuild's read) says nothing again."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    acting, watching = TableService(Store(url)), TableService(Store(url))
    table, _tokens, _ = acting.create(2, None, 5, None, None)
    mirror = watching.get(table.id)
    spectator = mirror.subscribe(None)
    heard = chat.post(acting.store, table, 0, "say", "heard")
    (heard_id,) = table.chat_ids
    notify.on_notice(watching, json.dumps({"table": table.id, "chat": heard, "id": heard_id, "origin": "a"}))
    missed = [chat.post(acting.store, table, seat, "say", f"missed {seat}") for seat in (1, 0)]
    notify.catch_up_all(watching)
    assert mirror.chat == table.chat == [heard, *missed]
    notify.catch_up_all(watching)  # nothing new: nothing said
    for line_id, line in zip(sorted(table.chat_ids), table.chat):  # late announcements: all held
        notify.on_notice(
            watching, json.dumps({"table": table.id, "chat": line, "id": line_id, "origin": "a"})
        )
    assert mirror.chat == table.chat
    told = []
    while not spectator.queue.empty():
        told.append(json.loads(spectator.queue.get_nowait())["line"])
    assert told == [heard, *missed]
    watching.rebuild(mirror)  # a rebuild reads the chat again: still each line once
    assert mirror.chat == table.chat
