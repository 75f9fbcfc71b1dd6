"""One game seen through the integer interface: what the three adapters share.

A :class:`Table` holds an engine :class:`~triage.engine.Game` and answers, for one seat at a
time, with that seat's view only: its observation vector, its legal integers and mask, and
``play`` for an integer. An integer outside the mask is refused with
:class:`~triage.envs.encoding.IllegalActionError` and the game is left exactly as it was.

>>> table = Table.deal(players=2, seed=5)
>>> seat = table.game.turn
>>> ids = table.legal_ids(seat)
>>> events = table.play(seat, ids[0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from triage.engine import Config, Game, RuleError, events_for, make_config, view
from triage.envs.encoding import IllegalActionError, Layout, View


def make_game_config(rounds: int | None = None, return_to: str | None = None, **overrides: Any) -> Config:
    """A configuration from the few options the research interfaces expose."""
    changes: dict[str, Any] = dict(overrides)
    if rounds is not None:
        changes["rounds"] = rounds
    if return_to is not None:
        changes["return_to"] = return_to
    return make_config(changes)


class Table:
    """A game plus the integer encoding of its actions, seen seat by seat."""

    def __init__(self, game: Game, layout: Layout | None = None) -> None:
        self.game = game
        self.layout = layout or Layout.from_view(view(game, 0))

    @classmethod
    def deal(cls, players: int = 2, seed: int = 0, config: Config | None = None) -> Table:
        return cls(Game.new(players=players, seed=seed, config=config))

    def view(self, seat: int) -> View:
        return view(self.game, seat)

    def observation(self, seat: int) -> np.ndarray:
        return self.layout.observe(self.view(seat))

    def legal_ids(self, seat: int) -> list[int]:
        """The seat's legal integers, sorted; empty when it is not its decision."""
        legal = self.game.legal_actions(seat)
        if not legal:
            return []
        return self.layout.legal_ids(self.view(seat), legal)

    def mask(self, seat: int) -> np.ndarray:
        return self.layout.mask(self.legal_ids(seat))

    def play(self, seat: int, index: int) -> list[dict[str, Any]]:
        """Take integer ``index`` for ``seat``; refused clearly (and nothing changes) when it is
        not one of the seat's legal integers. Returns the events as the seat may see them."""
        if self.game.is_over():
            raise IllegalActionError(f"action {index}: the game is over; no more actions are taken (R4)")
        if seat != self.game.turn:
            raise IllegalActionError(
                f"action {index}: it is player {self.game.turn}'s decision, not player {seat}'s (R1)"
            )
        seat_view = self.view(seat)
        action = self.layout.decode(seat_view, index)
        legal = self.layout.legal_ids(seat_view, self.game.legal_actions(seat))
        if int(index) not in legal:
            reason = self._refusal(action, seat)
            raise IllegalActionError(
                f"action {int(index)} ({self.layout.describe(int(index))}) is not legal now: {reason}"
            )
        return events_for(self.game.apply(action, seat), seat)

    def _refusal(self, action: dict[str, Any], seat: int) -> str:
        """Why the engine would refuse the action (its error names the rule)."""
        try:
            self.game.copy().apply(action, seat)
        except RuleError as error:
            return str(error)
        return "that payment mix is not one the engine lists (T6)"

    def scores(self) -> list[int]:
        return self.game.scores()
