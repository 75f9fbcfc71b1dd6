"""A table's chat and quick reactions: what the players say, never a move.

A seat posts a line (``POST /api/tables/{id}/chat`` with ``{"text": ...}``) or one of the
:data:`REACTIONS` (``{"reaction": NAME}``) with its token; the line is stored (the store's
``chat`` table, so a restart keeps it), then sent to the table's WebSocket clients as a ``chat``
message, in the order said. Spectators post nothing; they read the chat unless the table was
created with ``"spectator_chat": "off"``.

Nothing said can reveal or change the game: a line goes through its own route and message, never
the engine, and carries only who said it (``by``), what (``kind``, ``text``) and ``at``, the
number of actions every player could see then (the table's sealed point,
:mod:`triage.web.sealing`: a seat that can still undo does not show its undoable actions by
chatting). The record and the replay show the lines among the moves by ``at``.

Limits (docs/web.md, "Chat"): plain text of 1 to :data:`MAX_CHAT_TEXT` characters once trimmed
(line breaks and tabs become spaces; a control or invisible character is refused), a rate per
seat (:attr:`~triage.web.limits.RateLimits.chat`), at most :data:`MAX_CHAT_LINES` lines a table,
and the request body's own bound (:data:`~triage.web.limits.MAX_BODY_BYTES`, checked before the
body is parsed).
"""

from __future__ import annotations

import json
from typing import Any

from triage.engine.shapes import ChatLine
from triage.web.answers import ChatFeed, ChatMessage, Reaction
from triage.web.errors import WebError, storage_refused
from triage.web.live_table import LiveTable
from triage.web.names import refused_character
from triage.web.sealing import sealed
from triage.web.storage import Store

#: The longest line, in characters once trimmed.
MAX_CHAT_TEXT = 280
#: The most lines a table holds (its hello and record stay bounded); then 409 ``chat_full``.
MAX_CHAT_LINES = 500
#: The quick reactions: the name a client posts, and the words the table reads.
REACTIONS: dict[str, str] = {
    "nice": "Nice move",
    "ouch": "Ouch",
    "oops": "Oops",
    "thanks": "Thanks",
    "hurry": "Your move!",
    "gg": "Good game",
}
#: Whitespace that becomes a plain space (a pasted line break or tab).
SPACES = "\t\n\r\v\f\x85\u2028\u2029"


def check_chat_body(body: Any) -> tuple[str, str]:
    """The line's kind and text from a body ``{"text": TEXT}`` or ``{"reaction": NAME}``;
    refuses anything else, each with its code."""
    if not isinstance(body, dict) or len(body) != 1 or not set(body) <= {"text", "reaction"}:
        raise WebError(
            422,
            "invalid_request",
            'the body is {"text": TEXT} or {"reaction": NAME}, nothing else (the seat is the token\'s)',
        )
    if "reaction" in body:
        name = body["reaction"]
        if not isinstance(name, str) or name not in REACTIONS:
            raise WebError(
                422, "unknown_reaction", f"'reaction' must be one of {', '.join(REACTIONS)}, got {name!r}"
            )
        return "react", REACTIONS[name]
    return "say", check_chat_text(body["text"])


def check_chat_text(text: Any) -> str:
    """The line as stored: trimmed, its line breaks and tabs made spaces; 422 ``invalid_chat``
    (not text, or a control or invisible character), ``empty_chat`` or ``chat_too_long``."""
    if not isinstance(text, str):
        raise WebError(422, "invalid_chat", "'text' must be text")
    line = "".join(" " if character in SPACES else character for character in text).strip()
    if not line:
        raise WebError(422, "empty_chat", "'text' is empty once trimmed: there is nothing to say")
    if len(line) > MAX_CHAT_TEXT:
        raise WebError(
            422, "chat_too_long", f"'text' must be at most {MAX_CHAT_TEXT} characters, got {len(line)}"
        )
    refused = refused_character(line)
    if refused is not None:
        raise WebError(
            422, "invalid_chat", f"'text' must not hold the control or invisible character {refused}"
        )
    return line


def readable(table: LiveTable, seat: int | None) -> bool:
    """Whether ``seat`` (None: a spectator) reads the table's chat."""
    return seat is not None or table.settings["spectator_chat"] == "read"


def reactions() -> list[Reaction]:
    return [{"name": name, "words": words} for name, words in REACTIONS.items()]


def chat_feed(table: LiveTable, seat: int | None) -> ChatFeed:
    """The chat as ``seat`` (None: a spectator) may read it, for its ``hello``."""
    shown = readable(table, seat)
    return {
        "lines": [line.copy() for line in table.chat] if shown else [],
        "reactions": reactions(),
        "post": seat is not None,
        "readable": shown,
    }


def check_readable(table: LiveTable, seat: int | None) -> None:
    """403 ``chat_hidden`` for a spectator of a table whose spectators do not read the chat."""
    if not readable(table, seat):
        raise WebError(403, "chat_hidden", "this table's chat is for its players: spectators do not read it")


def post(store: Store, table: LiveTable, seat: int, kind: str, text: str) -> ChatLine:
    """Store the seat's line, then send it to the table's clients (under the table's write turn:
    lines are stored and sent in one order). 409 ``chat_full`` at :data:`MAX_CHAT_LINES`."""
    if len(table.chat) >= MAX_CHAT_LINES:
        raise chat_full()
    line: ChatLine = {"by": seat, "at": sealed(table).actions, "kind": kind, "text": text}
    with storage_refused(), table.waiting_on_store():
        line_id = store.add_chat(table.id, line, MAX_CHAT_LINES)
    if line_id is None:
        raise chat_full()
    said(table, line, line_id)
    return line


def chat_full() -> WebError:
    return WebError(
        409,
        "chat_full",
        f"this table's chat holds {MAX_CHAT_LINES} lines, the most this server keeps for one table",
    )


def keep_lines(table: LiveTable, lines: list[tuple[int, ChatLine]]) -> None:
    """Add ``lines`` (each with its store id) to the table's memory, counting their bytes (its
    memory estimate)."""
    for line_id, line in lines:
        table.chat.append(line)
        table.chat_ids.add(line_id)
        table.chat_bytes += len(line["text"]) + 32


def said(table: LiveTable, line: ChatLine, line_id: int) -> None:
    """Keep ``line`` in the table's memory and send it to every client that reads the chat
    (this process's; the store tells the others), unless it is held already."""
    if line_id in table.chat_ids:
        return
    keep_lines(table, [(line_id, line)])
    message: ChatMessage = {"type": "chat", "table_id": table.id, "line": line}
    text = json.dumps(message)
    for subscriber in table.subscribers:
        if readable(table, subscriber.seat):
            subscriber.deliver(text)


def catch_up_chat(store: Store, table: LiveTable) -> None:
    """Say the lines the store holds and memory does not (announced while this process was not
    listening), in the order said."""
    with table.writer():
        with storage_refused(), table.waiting_on_store():
            stored = store.chat(table.id)
        for line_id, line in stored:
            said(table, line, line_id)


def with_chat(table: LiveTable, text: str, seat: int | None) -> str:
    """The record's JSON ``text`` with the chat, for a reader of it (``seat`` None: a spectator)."""
    if not table.chat or not readable(table, seat):
        return text
    return f'{text[:-1]}, "chat": {json.dumps(table.chat)}}}'


def said_at(table: LiveTable, seat: int | None, step: int) -> list[ChatLine]:
    """The lines said while the position after ``step`` actions was the one every player saw,
    for a reader of the chat (none for a spectator the table keeps off)."""
    if not readable(table, seat):
        return []
    return [line.copy() for line in table.chat if line["at"] == step]
