"""Bots: players that choose from their seat's view only."""

from triage.bots.base import Bot
from triage.bots.greedy import GreedyBot
from triage.bots.random_bot import RandomBot

BOTS: dict[str, type] = {"random": RandomBot}
BOTS["greedy"] = GreedyBot  # triage.bots.greedy (issue 3)


def make_bot(name: str) -> Bot:
    """A bot by name (``random``; more as they are added to :data:`BOTS`)."""
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (bots: {', '.join(sorted(BOTS))})") from None


__all__ = ["BOTS", "Bot", "RandomBot", "make_bot"]
