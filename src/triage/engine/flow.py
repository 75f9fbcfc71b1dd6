"""The flow of a round (R1, R2, T9): Income, Arrival's draws, Treatment's turns, Cleanup."""

from __future__ import annotations

from triage.engine.arrival import draw_for
from triage.engine.cleanup import add_time, deaths, finish, game_ends
from triage.engine.position import ORDERS, Event, Position


def start_round(game: Position, number: int, events: list[Event]) -> None:
    """R1, R2: a new round starts with Income, then Arrival."""
    game.round = number
    game.first_player = round_first_player(game, number)
    events.append({"type": "round_started", "round": number, "first_player": game.first_player})
    income_d = game.config.income_diagnostics
    income_h = game.config.income_healing
    order = game.order()
    for seat in order:
        player = game.players[seat]
        player.diagnostics += income_d
        player.healing += income_h
        player.staff_available = player.staff
        player.passed = False
        for patient in player.terminals:
            patient.treated = False
        events.append({"type": "income", "player": seat, "diagnostics": income_d, "healing": income_h})
    game.phase = "arrival"
    game.active_pos = 0
    game.extra_turn = None
    game.reopened.clear()
    game.queue = [[seat, game.config.arrivals] for seat in order]


def round_first_player(game: Position, number: int) -> int:
    """R1: the first player moves one seat each round. With ``final_round_order =
    "trailing_last"`` the last round starts after the trailing player (lowest score, then
    fewest treated, then fewest Credits, as R4 ranks; among equals the one the rotation puts
    last), so that the player behind acts last."""
    count = len(game.players)
    rotated = (number - 1) % count
    if number < game.config.rounds or game.config.final_round_order == "rotate" or count == 1:
        return rotated
    order = ORDERS[count][rotated]
    players = game.players
    trailing = min(
        reversed(order),
        key=lambda seat: (
            players[seat].vp + players[seat].quality,
            players[seat].treated,
            players[seat].credits,
        ),
    )
    return (trailing + 1) % count


def run(game: Position, events: list[Event]) -> None:
    """Play on by itself until some player must decide, or the game ends."""
    while True:
        if game.phase == "over":
            game.turn = None
            return
        resolving = game.resolving
        if resolving is not None:
            if game.players[resolving].pending:
                game.turn = resolving
                return
            game.resolving = None
        if game.queue:
            seat, count = game.queue.pop(0)
            for _ in range(count):
                draw_for(game, seat, events)
            game.resolving = seat
            continue
        if game.phase == "arrival":
            game.phase = "treatment"
            game.active_pos = 0
        if game.phase == "treatment" and _next_in_treatment(game):
            return
        cleanup(game, events)


def _next_in_treatment(game: Position) -> bool:
    """T9, R1: give the turn to the player who acts next in Treatment; False once all
    have passed. With V2 ``reopen``, players reopened by a Helicopter draw take their
    extra turn, in turn order, as soon as the acting player passes."""
    players = game.players
    if game.extra_turn is not None:
        if not players[game.extra_turn].passed:
            game.turn = game.extra_turn
            return True
        game.extra_turn = None
    order = ORDERS[len(players)][game.first_player]
    if game.active_pos < len(order) and not players[order[game.active_pos]].passed:
        game.turn = order[game.active_pos]
        return True
    if game.reopened:
        seat = next(seat for seat in order if seat in game.reopened)
        game.reopened.discard(seat)
        players[seat].passed = False
        machinery = game.machinery
        machinery.stamps[seat] = next(machinery.count)
        game.extra_turn = seat
        game.turn = seat
        return True
    while game.active_pos < len(order) and players[order[game.active_pos]].passed:
        game.active_pos += 1
    if game.active_pos < len(order):
        game.turn = order[game.active_pos]
        return True
    return False


def cleanup(game: Position, events: list[Event]) -> None:
    """C1-C5: Time, checks and deaths, then the end test (R4) or the next round."""
    game.phase = "cleanup"
    game.turn = None
    game.machinery.stamp_all()  # C1-C5 and Income touch every board
    order = game.order()
    for seat in order:
        add_time(game, seat, events)
    for seat in order:
        deaths(game, seat, events)
    if game_ends(game):
        finish(game, events)
    else:
        start_round(game, game.round + 1, events)
