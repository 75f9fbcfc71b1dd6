"""Players' names: chosen when a seat is taken, public, shown wherever the seat is.

A name is text for people: 1 to :data:`MAX_NAME` characters once the spaces around it are
trimmed, letters, digits, punctuation, symbols and single spaces, never a control, format or
private-use character nor a line break (so a name cannot hide text, reorder what follows it or
break a log line). The page writes names as text, never as HTML: ``<b>`` is shown as typed.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from triage.web.errors import WebError

MAX_NAME = 24
#: Unicode categories a name may not hold: controls, format (bidi overrides, zero-width
#: characters), surrogates, private use, unassigned, line and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def refused_character(text: str) -> str | None:
    """The first control or invisible character of ``text`` (as ``U+XXXX``), None if it has none."""
    for character in text:
        if unicodedata.category(character) in REFUSED_CATEGORIES:
            return f"U+{ord(character):04X}"
    return None


def check_name(name: Any) -> str | None:
    """The name as stored (trimmed), None when none was given; refuses anything else with
    422 ``invalid_name`` saying what is wrong."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise WebError(422, "invalid_name", "'name' must be text")
    trimmed = name.strip()
    if not trimmed:
        raise WebError(422, "invalid_name", "'name' must not be empty (leave it out to be 'Player N')")
    if len(trimmed) > MAX_NAME:
        raise WebError(
            422, "invalid_name", f"'name' must be at most {MAX_NAME} characters, got {len(trimmed)}"
        )
    refused = refused_character(trimmed)
    if refused is not None:
        raise WebError(
            422, "invalid_name", f"'name' must not hold the control or invisible character {refused}"
        )
    if "  " in trimmed or any(c.isspace() and c != " " for c in trimmed):
        raise WebError(422, "invalid_name", "'name' may hold single spaces only (no tabs or runs of spaces)")
    return trimmed
