"""The terminal game's layout for the terminal's size: wide, narrow (80x24) and tiny (40x12).

Wide terminals keep the board beside the action list and the log. Below :data:`WIDE_COLUMNS`
the side column would squeeze the board into wrapped lines, so the board takes the whole width
and the actions and the log sit under it, side by side. Below :data:`TINY_COLUMNS` columns or
:data:`TINY_ROWS` rows only the essential stays: the seat's own hospital (from its view), the
legal actions, the status and the command line; the header, the footer and the log give way.
The board never wraps there: a line longer than its box scrolls sideways. (On a tiny terminal
the own hospital's lines wrap rather than hide behind a sideways scroll.)
"""

from __future__ import annotations

from typing import Any

from triage.engine.shapes import View
from triage.engine.text import render_position
from triage.engine.views import seat_of

#: Columns from which the board keeps the side column beside it.
WIDE_COLUMNS = 120
#: Below these columns or rows, only the essential is shown.
TINY_COLUMNS = 60
TINY_ROWS = 16

#: The layout rules, added to the app's own CSS (the screen carries the class ``narrow`` or
#: ``tiny``; ``tiny`` screens are ``narrow`` too).
LAYOUT_CSS = """
#main { height: 1fr; }
#board { width: auto; }
#board-scroll { overflow-x: auto; }
.narrow #main { layout: vertical; }
.narrow #board-scroll { width: 100%; height: 1fr; }
.narrow #side { width: 100%; height: 9; layout: horizontal; }
.narrow #actions, .narrow #log { width: 1fr; height: 100%; }
.tiny Header, .tiny Footer, .tiny #log { display: none; }
.tiny #board-scroll { border: none; overflow-x: hidden; scrollbar-size-vertical: 1; }
.tiny #board { width: 100%; }
.tiny #status { height: 1; }
.tiny #side { height: 4; }
.tiny #actions { border: none; }
.tiny #command { border: none; height: 1; padding: 0; }
"""


def layout_classes(columns: int, rows: int) -> tuple[bool, bool]:
    """``(narrow, tiny)`` for a terminal of ``columns`` x ``rows``.

    >>> layout_classes(150, 50), layout_classes(80, 24), layout_classes(40, 12)
    ((False, False), (True, False), (True, True))
    """
    tiny = columns < TINY_COLUMNS or rows < TINY_ROWS
    return tiny or columns < WIDE_COLUMNS, tiny


def own_board(view: View, names: list[str]) -> str:
    """The seat's own hospital alone, for a tiny terminal: the round and its own board, read
    from its view as the whole board is."""
    seat = seat_of(view)
    own = {**view, "players": [view["players"][seat]]}
    lines = render_position(own, [names[seat]]).splitlines()
    return "\n".join(line for index, line in enumerate(lines) if index != 1)  # the deck line gives way
