"""Bots: players that choose from their seat's view only."""

from triage.bots.base import Bot
from triage.bots.greedy import GreedyBot
from triage.bots.random_bot import RandomBot

BOTS: dict[str, type] = {"random": RandomBot}
BOTS["greedy"] = GreedyBot  # triage.bots.greedy (issue 3)
from triage.bots.habits import HABIT_BOTS  # noqa: E402  greedy-<habit> bots for balance work

BOTS.update(HABIT_BOTS)


def make_bot(name: str) -> Bot:
    """A bot by name (``random``; more as they are added to :data:`BOTS`)."""
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (bots: {', '.join(sorted(BOTS))})") from None


def seat_names(text: str, players: int) -> list[str]:
    """A ``--bots`` option: one name per seat, comma-separated; a single name fills every seat.

    >>> seat_names("greedy, random", 2)
    ['greedy', 'random']
    >>> seat_names("random", 3)
    ['random', 'random', 'random']
    """
    names = [name.strip() for name in text.split(",")]
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise ValueError(f"--bots names {len(names)} seats but the game has {players} players")
    return names


__all__ = ["BOTS", "Bot", "RandomBot", "make_bot", "seat_names"]
