"""What a bot is: something that picks one of the legal actions from its seat's view.

A bot never sees the game itself, only what :func:`triage.engine.view` gives its seat, so it
cannot cheat; bots that search draw hidden worlds with :func:`triage.engine.determinize`.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from triage.engine.shapes import Action as Action
from triage.engine.shapes import View


class Bot(Protocol):
    name: str

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        """One of ``legal``, chosen from ``view`` (the bot's seat's view)."""
        ...
