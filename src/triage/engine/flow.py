"""The flow of a round (R1, R2, T9): Income, Arrival's draws, Treatment's turns, Cleanup."""

from __future__ import annotations

from triage.engine.arrival import Arrival
from triage.engine.cleanup import Cleanup
from triage.engine.position import _ORDERS, Event
from triage.engine.treatment import Treatment


class Flow(Arrival, Treatment, Cleanup):
    """Plays on by itself between decisions: rounds, phases and whose turn it is."""

    __slots__ = ()

    def _start_round(self, number: int, events: list[Event]) -> None:
        """R1, R2: a new round starts with Income, then Arrival."""
        self.round = number
        self.first_player = self.round_first_player(number)
        events.append({"type": "round_started", "round": number, "first_player": self.first_player})
        income_d = self.config.income_diagnostics
        income_h = self.config.income_healing
        order = self.order()
        for seat in order:
            player = self.players[seat]
            player.diagnostics += income_d
            player.healing += income_h
            player.staff_available = player.staff
            player.passed = False
            for patient in player.terminals:
                patient.treated = False
            events.append({"type": "income", "player": seat, "diagnostics": income_d, "healing": income_h})
        self.phase = "arrival"
        self.active_pos = 0
        self.extra_turn = None
        self.reopened.clear()
        self.queue = [[seat, self.config.arrivals] for seat in order]

    def round_first_player(self, number: int) -> int:
        """R1: the first player moves one seat each round. With ``final_round_order =
        "trailing_last"`` the last round starts after the trailing player (lowest score, then
        fewest treated, then fewest Credits, as R4 ranks; among equals the one the rotation puts
        last), so that the player behind acts last."""
        count = len(self.players)
        rotated = (number - 1) % count
        if number < self.config.rounds or self.config.final_round_order == "rotate" or count == 1:
            return rotated
        order = _ORDERS[count][rotated]
        players = self.players
        trailing = min(
            reversed(order),
            key=lambda seat: (
                players[seat].vp + players[seat].quality,
                players[seat].treated,
                players[seat].credits,
            ),
        )
        return (trailing + 1) % count

    def _run(self, events: list[Event]) -> None:
        """Play on by itself until some player must decide, or the game ends."""
        while True:
            if self.phase == "over":
                self.turn = None
                return
            resolving = self.resolving
            if resolving is not None:
                if self.players[resolving].pending:
                    self.turn = resolving
                    return
                self.resolving = None
            if self.queue:
                seat, count = self.queue.pop(0)
                for _ in range(count):
                    self._draw_for(seat, events)
                self.resolving = seat
                continue
            if self.phase == "arrival":
                self.phase = "treatment"
                self.active_pos = 0
            if self.phase == "treatment" and self._next_in_treatment():
                return
            self._cleanup(events)

    def _next_in_treatment(self) -> bool:
        """T9, R1: give the turn to the player who acts next in Treatment; False once all
        have passed. With V2 ``reopen``, players reopened by a Helicopter draw take their
        extra turn, in turn order, as soon as the acting player passes."""
        players = self.players
        if self.extra_turn is not None:
            if not players[self.extra_turn].passed:
                self.turn = self.extra_turn
                return True
            self.extra_turn = None
        order = _ORDERS[len(players)][self.first_player]
        if self.active_pos < len(order) and not players[order[self.active_pos]].passed:
            self.turn = order[self.active_pos]
            return True
        if self.reopened:
            seat = next(seat for seat in order if seat in self.reopened)
            self.reopened.discard(seat)
            players[seat].passed = False
            self.stamps[seat] = next(self._stamp_count)
            self.extra_turn = seat
            self.turn = seat
            return True
        while self.active_pos < len(order) and players[order[self.active_pos]].passed:
            self.active_pos += 1
        if self.active_pos < len(order):
            self.turn = order[self.active_pos]
            return True
        return False

    def _cleanup(self, events: list[Event]) -> None:
        """C1-C5: Time, checks and deaths, then the end test (R4) or the next round."""
        self.phase = "cleanup"
        self.turn = None
        self.stamp_all()  # C1-C5 and Income touch every board
        order = self.order()
        for seat in order:
            self._add_time(seat, events)
        for seat in order:
            self._deaths(seat, events)
        if self._game_ends():
            self._finish(events)
        else:
            self._start_round(self.round + 1, events)
