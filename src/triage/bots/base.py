"""What a bot is: something that picks one of the legal actions from its seat's view.

A bot never sees the game itself, only what :func:`triage.engine.view` gives its seat, so it
cannot cheat; bots that search draw hidden worlds with :func:`triage.engine.determinize`.
"""

from __future__ import annotations

import random
from typing import Protocol, TypedDict

from triage.engine.shapes import Action as Action
from triage.engine.shapes import View


class Provenance(TypedDict, total=False):
    """Which data file a bot plays with, for a result file: the file and its SHA-256, and how
    it was made (a value's games and seed; a fast policy's players, decisions, games, seed and
    held-out agreement, and what its network reads)."""

    file: str
    sha256: str
    players: int | None
    decisions: int | None
    games: int | None
    seed: int | None
    agreement: float | None
    reads: str


#: What a bot is, exactly, in one game (``form``, :func:`triage.bots.bot_form`): the result files'
#: ``bot_forms``. Each bot says what applies to it: a searching bot its search, budget, playout
#: policy and data file; any other bot its name and class.
BotForm = TypedDict(
    "BotForm",
    {
        "bot": str,
        "class": str,
        "level": str,
        "slips": float,
        "search": str,
        "worlds": int,
        "playouts": int | None,
        "time_limit": float | None,
        "policy": str | Provenance,
        "value": str | Provenance,
        "trained on": str,
    },
    total=False,
)


class Bot(Protocol):
    name: str

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        """One of ``legal``, chosen from ``view`` (the bot's seat's view)."""
        ...
