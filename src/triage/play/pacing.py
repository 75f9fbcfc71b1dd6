"""Watching bots: their actions, already made, shown one by one at a pace.

A bot decides and its action is applied (and saved) at once; what the screen shows of it comes
after, one action at a time, ``delay`` seconds apart: the board as the seat on screen saw it just
after that action, the acting card marked, the action's line. The pace is a presentation only:
skipping shows the latest position at once, and a human's own action is never held back (the
queue is empty whenever a human decides).

>>> pace = Pace(delay=1.0)
>>> pace.add(Step(1, {"type": "pass"}, {}, 5))
>>> pace.wait(now=0.0), pace.take(now=0.0).events, pace.wait(now=0.5)
(0.0, 5, None)
>>> pace.add(Step(1, {"type": "pass"}, {}, 6))
>>> pace.wait(now=0.5)
0.5
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from triage.engine.shapes import Action, View

#: Seconds each bot action stays on screen by default (issue 39: about 0.6 to 1 s apiece).
DEFAULT_DELAY = 0.8


@dataclass(frozen=True)
class Step:
    """One bot action to show: who made it, the action, the view of the seat on screen just
    after it, and how many of the session's events there were then."""

    seat: int
    action: Action
    view: View
    events: int


def acted_on(action: Action) -> str | None:
    """The card (or market item) an action acts on, to mark on the board."""
    for key in ("patient", "card", "remove", "item"):
        if action.get(key):
            return str(action[key])
    return None


@dataclass
class Pace:
    """The bot actions made but not shown yet, and when the last one was shown."""

    delay: float = DEFAULT_DELAY
    queue: deque[Step] = field(default_factory=deque)
    shown_at: float = -math.inf

    def add(self, step: Step) -> None:
        self.queue.append(step)

    @property
    def busy(self) -> bool:
        """Whether actions wait to be shown."""
        return bool(self.queue)

    def wait(self, now: float) -> float | None:
        """Seconds until the next action may be shown (0: now); None when none waits."""
        if not self.queue:
            return None
        return max(0.0, self.shown_at + self.delay - now)

    def take(self, now: float) -> Step:
        """The next action to show, now."""
        self.shown_at = now
        return self.queue.popleft()

    def skip(self) -> Step | None:
        """Show nothing more of what waits (the latest position is drawn instead); the last
        action that waited, whose card stays marked."""
        last = self.queue[-1] if self.queue else None
        self.queue.clear()
        return last
