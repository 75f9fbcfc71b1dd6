"""Delivering a commit's messages while a seat holds undoable actions (:mod:`triage.web.sealing`):
the holding seat gets every message; every other seat and spectator gets only sealed steps, or a
fresh ``hello`` at the new sealed point once actions it never saw are sealed."""

from __future__ import annotations

from typing import Any

from triage.web.live_table import LiveTable, Step
from triage.web.payloads import hello
from triage.web.sealing import Sealed, keep_sealed, seal


def commit_point(table: LiveTable, game: Any, steps: list[Step]) -> Sealed:
    """The sealed point ``game`` will have once ``steps`` are committed to ``table``."""
    return seal(table, game, len(table.events) + sum(len(step.events) for step in steps))


def remember(table: LiveTable, point: Sealed) -> None:
    """Keep ``point`` as the table's sealed point (it was worked out for the table's game)."""
    keep_sealed(table, point)


def deliver_steps(table: LiveTable, steps: list[Step], before: Sealed, after: Sealed) -> None:
    """Send the steps' messages: the seat that holds undoable actions gets them all; every
    other subscriber gets only sealed steps, or a fresh ``hello`` when actions it never saw
    were sealed now (call once the table holds the new position)."""
    own = after.holder if after.holding else before.holder if before.holding else None
    resealed = before.holding and after.actions > before.actions
    for step in steps:
        for subscriber, message in step.messages:
            if subscriber.seat is not None and subscriber.seat == own:
                subscriber.deliver(message)
            elif not resealed and step.number < after.actions:
                subscriber.deliver(message)
    if resealed:
        built: dict[int | None, str] = {}
        for subscriber in table.subscribers:
            if subscriber.seat is None or subscriber.seat != own:
                if subscriber.seat not in built:
                    built[subscriber.seat] = hello(table, subscriber.seat)
                subscriber.deliver(built[subscriber.seat])
