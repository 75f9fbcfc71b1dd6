"""Arrival (A1-A8): patients drawn, then admitted to a free space or rejected."""

from __future__ import annotations

from triage.engine.errors import RuleError
from triage.engine.memory import Memory
from triage.engine.position import Action, Event
from triage.engine.state import Patient
from triage.engine.vocabulary import STANDARD_FRONT


class Arrival(Memory):
    """The Arrival rules: draws (A1-A3, A8), admissions (A4, A6, A7) and rejections (A5)."""

    __slots__ = ()

    def _draw_for(self, seat: int, events: list[Event]) -> None:
        """A1, A2, A3, A8: draw one patient; a terminal one is admitted beside the board."""
        card = self._draw(events)
        if card is None:
            events.append({"type": "deck_empty", "player": seat})
            return
        player = self.players[seat]
        self.stamps[seat] = next(self._stamp_count)
        if self.phase == "treatment" and player.passed and self.config.helicopter_draws == "reopen":
            # V2: a passed player made to draw by a Helicopter gets one more Treatment turn.
            self.reopened.add(seat)
        spec = self.cards[card]
        self.see_front(card)
        events.append(
            {
                "type": "drawn",
                "player": seat,
                "card": card,
                "front": spec.front,
                "diagnosis": spec.diagnosis,
                "round": self.round,
            }
        )
        if spec.kind == "terminal":
            self.players[seat].terminals.append(Patient(card, revealed=True))
            self._reveal(card)
            events.append(
                {
                    "type": "admitted",
                    "player": seat,
                    "card": card,
                    "space": None,
                    "kind": "terminal",
                    "credits": spec.credits,
                    "vp": spec.vp,
                }
            )
        else:
            self.players[seat].pending.append(card)

    def _pending_card(self, seat: int, action: Action) -> str:
        card: str = action["card"]
        if card not in self.players[seat].pending:
            raise RuleError(
                "unknown_patient", f"{card!r} is not a patient waiting for player {seat}'s admission", "A4"
            )
        return card

    def _do_admit(self, seat: int, action: Action, events: list[Event]) -> Action:
        card = self._pending_card(seat, action)
        player = self.players[seat]
        space = action["space"]
        if not 1 <= space <= len(player.hospital):
            raise RuleError(
                "no_such_space",
                f"space {space} does not exist: player {seat}'s hospital has spaces 1-{len(player.hospital)}",
                "K4",
            )
        occupant = player.hospital[space - 1]
        if occupant is not None:
            raise RuleError(
                "space_occupied",
                f"space {space} already holds {occupant.card}; patients never move (A6)",
                "A4",
            )
        return self._admit(seat, card, space, events)

    def _admit(self, seat: int, card: str, space: int, events: list[Event]) -> Action:
        """A4, A7: the effect of a validated admission."""
        player = self.players[seat]
        player.pending.remove(card)
        spec = self.cards[card]
        # A7: a critical patient, whose front shows its kind (K2), is revealed on admission.
        shown = spec.front != STANDARD_FRONT
        player.hospital[space - 1] = Patient(card, revealed=shown)
        event: Event = {"type": "admitted", "player": seat, "card": card, "space": space}
        if shown:
            self._reveal(card)
            event.update(kind=spec.kind, healing=spec.healing, credits=spec.credits, vp=spec.vp)
        events.append(event)
        return {"type": "admit", "card": card, "space": space}

    def _do_reject(self, seat: int, action: Action, events: list[Event]) -> Action:
        card = self._pending_card(seat, action)
        player = self.players[seat]
        free = [index + 1 for index, slot in enumerate(player.hospital) if slot is None]
        if free:
            raise RuleError(
                "space_available",
                f"{card} cannot be rejected while space {free[0]} is free",
                "A4",
            )
        return self._reject(seat, card, events)

    def _reject(self, seat: int, card: str, events: list[Event]) -> Action:
        """A5: the effect of a validated rejection."""
        player = self.players[seat]
        player.pending.remove(card)
        lost = self._lose_quality(seat, 1)
        where = self._return_card(card, "rejected")
        events.append({"type": "rejected", "player": seat, "card": card, "quality_lost": lost, "to": where})
        return {"type": "reject", "card": card}
