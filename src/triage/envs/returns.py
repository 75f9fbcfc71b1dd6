"""What a player gets out of a game: its score, its margin over the others, or a win in [-1, 1].

Every adapter takes ``returns`` with one of :data:`RETURNS`:

* ``score``: the final score (VP + QoC, R4). General-sum; its range is the proven one of
  :mod:`triage.envs.bounds`.
* ``margin``: the score less the mean score of the other players, so the values add up to 0
  (zero-sum for 2-4 players). Solo: the score less the starting score.
* ``win``: 1 for the winner (R4 with its tie-breaks) and ``-1/(n-1)`` for each other player, so
  the values add up to 0; 0 for all in a full tie. Solo: 1 for a win (QoC above 0, R4), -1 for a
  loss.

Step rewards (PettingZoo, Gymnasium) are the change of that value at each step, so an agent's
rewards add up to its final value less its value at the deal (``score``: the start score, 10;
the others: 0). With ``win`` the whole reward comes at the end.

>>> final_values([31, 25], winner=0, returns="margin")
[6.0, -6.0]
>>> final_values([31, 25, 25], winner=0, returns="win")
[1.0, -0.5, -0.5]
"""

from __future__ import annotations

from collections.abc import Sequence

from triage.envs.bounds import GameBounds

RETURNS: tuple[str, ...] = ("score", "margin", "win")


def check_returns(returns: str) -> str:
    if returns not in RETURNS:
        raise ValueError(f"returns must be one of {', '.join(RETURNS)}, got {returns!r}")
    return returns


def values(scores: Sequence[int], returns: str, start: int) -> list[float]:
    """The value of a position that is not over yet (``win``: 0 for everybody)."""
    count = len(scores)
    if returns == "score":
        return [float(score) for score in scores]
    if returns == "win":
        return [0.0] * count
    if count == 1:
        return [float(scores[0] - start)]
    total = sum(scores)
    return [score - (total - score) / (count - 1) for score in scores]


def final_values(scores: Sequence[int], winner: int | None, returns: str, start: int = 10) -> list[float]:
    """The value of a finished game for each seat (``start``: a player's score at the deal)."""
    count = len(scores)
    if returns != "win":
        return values(scores, returns, start)
    if count == 1:
        return [1.0 if winner == 0 else -1.0]
    if winner is None:
        return [0.0] * count
    return [1.0 if seat == winner else -1.0 / (count - 1) for seat in range(count)]


def value_range(returns: str, bounds: GameBounds, players: int, start: int = 10) -> tuple[float, float]:
    """The least and the greatest value a seat can end with."""
    if returns == "win":
        return -1.0, 1.0
    if returns == "score":
        return float(bounds.min_score), float(bounds.max_score)
    if players == 1:
        return float(bounds.min_score - start), float(bounds.max_score - start)
    spread = bounds.max_score - bounds.min_score
    return -float(spread), float(spread)
