"""Cleanup (C1-C5) and the end of the game (R4): Time, checks, deaths, the winner."""

from __future__ import annotations

from triage.engine.memory import learn_full, learn_not_severe, learn_priority, return_card
from triage.engine.position import Event, Position
from triage.engine.state import Patient
from triage.engine.vocabulary import DIES_AT, FRONT_OF, KIND, STANDARD_FRONT

#: C4: the Quality of Care a death costs: a patient in a space, a terminal patient.
DEATH_QUALITY = 2
TERMINAL_DEATH_QUALITY = 1
#: C3: the Time at which an unrevealed patient is checked.
CHECK_TIME = 2


def dies(kind: str, time: int) -> bool:
    """C2: whether a patient of ``kind`` holding ``time`` Time dies at Cleanup (checked after C1
    has added tonight's Time): a critical or terminal patient at 1, a severe one at 2; chronic
    and non-severe patients never.

    >>> dies("severe", 1), dies("severe", 2), dies("chronic", 9)
    (False, True, False)
    """
    threshold = DIES_AT[kind]
    return threshold is not None and time >= threshold


def cleanups_before_death(kind: str, time: int) -> int | None:
    """C1, C2: how many Cleanups after tonight's a patient of ``kind`` holding ``time`` Time now
    survives if nothing saves it (0: it dies tonight; None: it never dies). Each Cleanup adds one
    Time first (C1).

    >>> cleanups_before_death("critical", 0), cleanups_before_death("severe", 0), cleanups_before_death("non_severe", 0)
    (0, 1, None)
    """
    threshold = KIND[kind].dies_at
    if threshold is None:
        return None
    return max(0, threshold - 1 - time)


def add_time(game: Position, seat: int, events: list[Event]) -> None:
    """C1: one Time on every patient but revealed non-severe and treated terminal ones."""
    player = game.players[seat]
    for slot in player.hospital:
        if slot is None:
            continue
        if slot.revealed and not KIND[game.cards[slot.card].kind].takes_time_revealed:
            continue
        slot.time += 1
        events.append({"type": "time_added", "player": seat, "card": slot.card, "time": slot.time})
    keeps = game.config.terminal_upkeep == "reward"
    for patient in player.terminals:
        if patient.treated or (keeps and patient.ever_treated):
            # C1; V3 ``reward``: once treated, no more Time for the rest of this stay.
            continue
        patient.time += 1
        events.append({"type": "time_added", "player": seat, "card": patient.card, "time": patient.time})


def deaths(game: Position, seat: int, events: list[Event]) -> None:
    """C2, C3, C4: spaces in number order, then terminal patients in arrival order."""
    player = game.players[seat]
    cards = game.cards
    for index, slot in enumerate(player.hospital):
        if slot is None:
            continue
        kind = cards[slot.card].kind
        checked = False
        if not slot.revealed and FRONT_OF[kind] == STANDARD_FRONT and slot.time >= CHECK_TIME:
            _check(game, seat, slot.card, events)
            checked = True
        threshold = DIES_AT[kind]  # dies(kind, slot.time) written out: every patient, every Cleanup
        if threshold is not None and slot.time >= threshold:
            player.hospital[index] = None
            if not slot.revealed:
                # I2: a standard patient that dies is known by all to have been severe.
                for other in range(len(game.players)):
                    learn_priority(game, other, slot.card)
            _die(game, seat, slot, DEATH_QUALITY, events)
        elif checked:
            learn_not_severe(game, slot.card)
    for patient in list(player.terminals):
        threshold = DIES_AT[cards[patient.card].kind]  # as above
        if threshold is not None and patient.time >= threshold:
            player.terminals.remove(patient)
            _die(game, seat, patient, TERMINAL_DEATH_QUALITY, events)


def _check(game: Position, seat: int, card: str, events: list[Event]) -> None:
    """C3: the other players see the treatment side; solo, the owner learns the priority."""
    spec = game.cards[card]
    others = [other for other in range(len(game.players)) if other != seat]
    event: Event = {"type": "checked", "player": seat, "card": card, "seen_by": others}
    if others:
        for other in others:
            learn_full(game, other, card)
        # Who sees the secret part is the observer's decision (observer.secret_audience).
        event["secret"] = {
            "kind": spec.kind,
            "priority": spec.priority,
            "healing": spec.healing,
            "credits": spec.credits,
            "vp": spec.vp,
        }
    else:
        learn_priority(game, seat, card)
        event["secret"] = {"kind": spec.kind, "priority": spec.priority}
    events.append(event)


def _die(game: Position, seat: int, patient: Patient, cost: int, events: list[Event]) -> None:
    """C4: placed healing goes back to the supply, the card per V1, and QoC drops."""
    lost = game.lose_quality(seat, cost)
    where = return_card(game, patient.card, "died")
    events.append(
        {
            "type": "died",
            "player": seat,
            "card": patient.card,
            "quality_lost": lost,
            "to": where,
        }
    )


def game_ends(game: Position) -> bool:
    """R4: after the last round's Cleanup, or one that leaves a QoC at 0 or below."""
    if game.round >= game.config.rounds:
        return True
    return game.config.end_on_zero_quality and any(p.quality <= 0 for p in game.players)


def finish(game: Position, events: list[Event]) -> None:
    game.phase = "over"
    game.turn = None
    game.queue = []
    game.resolving = None
    game.winner = winner(game)
    events.append(
        {
            "type": "game_over",
            "round": game.round,
            "scores": game.scores(),
            "winner": game.winner,
        }
    )


def winner(game: Position) -> int | None:
    """R4: best VP + QoC, then treated-patient track, then Credits; a full tie has none.
    Solo: seat 0 unless its QoC ended at 0 or below."""
    if len(game.players) == 1:
        return 0 if game.players[0].quality > 0 else None
    keys = [(p.score, p.treated, p.credits) for p in game.players]
    best = max(keys)
    if keys.count(best) > 1:
        return None
    return keys.index(best)
