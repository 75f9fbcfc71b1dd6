"""A finished game in figures, the same on every game-over screen (terminal and web page).

Only for a game that is over, when every card is public (``records.record_for``): the tallies by
kind read the cards' backs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from triage.engine.cards import KINDS
from triage.engine.game import Event, Game
from triage.engine.shapes import PlayerRow

#: Event type -> the name of its tally.
OUTCOMES: dict[str, str] = {"cured": "cured", "died": "dead", "rejected": "rejected"}


def player_rows(game: Game, events: Iterable[Event]) -> list[PlayerRow]:
    """Per player: seat, score (R4), VP, QoC, treated track, Credits, and the patients cured,
    dead and rejected by kind (kinds with none left out), from the game's all-seeing events."""
    if not game.is_over():
        raise ValueError("the summary exists only once the game is over")
    tallies: list[dict[str, Counter[str]]] = [
        {what: Counter() for what in OUTCOMES.values()} for _ in game.players
    ]
    for event in events:
        what = OUTCOMES.get(event["type"])
        if what is not None and "player" in event:
            tallies[event["player"]][what][game.cards[event["card"]].kind] += 1
    rows: list[PlayerRow] = []
    for seat, (player, tally) in enumerate(zip(game.players, tallies)):
        by_kind = {
            what: {kind: counts[kind] for kind in KINDS if counts[kind]} for what, counts in tally.items()
        }
        rows.append(
            {
                "seat": seat,
                "score": player.score,
                "vp": player.vp,
                "quality": player.quality,
                "treated": player.treated,
                "credits": player.credits,
                "cured": by_kind["cured"],
                "dead": by_kind["dead"],
                "rejected": by_kind["rejected"],
            }
        )
    return rows


def tie_break(game: Game) -> str | None:
    """R4: what decided between the two best players: None (the score), "treated", "credits",
    or "tie" (all three equal). None in a solo game.

    >>> tie_break(Game.new(players=1, seed=0)) is None
    True
    """
    if len(game.players) < 2:
        return None
    ranked = sorted(game.players, key=lambda p: (p.score, p.treated, p.credits), reverse=True)
    first, second = ranked[0], ranked[1]
    if first.score != second.score:
        return None
    if first.treated != second.treated:
        return "treated"
    if first.credits != second.credits:
        return "credits"
    return "tie"


#: R4's tie-breaks in words, by :func:`tie_break`'s answer.
DECIDED_BY: dict[str | None, str] = {
    None: "Decided on score (VP + QoC); no tie-break needed.",
    "treated": "Scores tied: the treated-patient track decided.",
    "credits": "Scores and treated tracks tied: Credits decided.",
    "tie": "A full tie: same score, treated track and Credits.",
}


def decided_by(game: Game) -> str | None:
    """What decided a finished game of several players, in words (R4); None solo.

    >>> decided_by(Game.new(players=1, seed=0)) is None
    True
    """
    return None if len(game.players) < 2 else DECIDED_BY[tie_break(game)]
