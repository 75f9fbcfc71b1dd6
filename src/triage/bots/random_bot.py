"""The random bot: uniform over the legal actions."""

from __future__ import annotations

import random
from typing import Any

from triage.bots.base import Action
from triage.engine.shapes import View


class RandomBot:
    """Picks uniformly among the legal actions (each payment mix counts as one action)."""

    name = "random"

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        return rng.choice(legal)
