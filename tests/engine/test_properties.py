"""Property tests over long random legal games (Hypothesis).

Each example deals a game (1-4 players, any value of the variants V1-V4) and plays it to the end with
random legal actions, checking after every action the invariants the rules promise:

* every card lies in exactly one place (K3, A3-A5, T4, T7, C4);
* no counter goes below zero (K4; QoC alone may, R4) and Staff available never exceeds Staff;
* QoC moves only by the amounts of A5 (-1 a rejection) and C4 (-2 a death, -1 a terminal one),
  cut at the floor with V4 ``quality_floor``;
* a refused action changes nothing, in the state, in any view, in the history or the generator;
* the record replays to the identical game (D1);
* a view drawn again by ``determinize`` is the view it came from, and the drawn game offers the
  same legal actions (I4);
* a view, whose entries are shared between views, copies and deals, shows exactly what
  ``Seat.card`` gives with the seat's knowledge, in the same order (I1, I2).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.engine import Game, RuleError, make_config, state_dict, view
from triage.engine.determinize import determinize
from triage.engine.observer import Seat
from triage.engine.records import make_record, replay
from triage.engine.state import COUNTERS
from triage.engine.views import _flow
from triage.engine.vocabulary import counted_items

#: Markets with items none of the defaults has (T8): tokens in bulk under a limit of purchases,
#: spaces and Staff together, a Helicopter with Healing, and a default item given more.
DESIGNER_MARKETS: list[dict[str, Any]] = [
    {"night_shift": {"price": 1, "limit": 2, "gives": {"healing": 2}}},
    {"field_hospital": {"price": 3, "limit": 1, "gives": {"spaces": 2, "staff": 1}}},
    {
        "air_ambulance": {"price": 5, "gives": {"helicopters": 1, "healing": 1}},
        "clinical_trial": {"price": 2, "limit": 1, "gives": {"spaces": 2}},
        "locum": {"price": 1, "limit": 2, "gives": {"staff": 1}},
    },
]

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: A deal and the variants it is played under (V1-V4), the fields other property tests extend.
GAME_FIELDS = {
    "players": st.integers(1, 4),
    "seed": st.integers(0, 2**32),
    "return_to": st.sampled_from(
        ["top", "bottom", "discard", {"cured": "bottom", "died": "discard"}, {"rejected": "bottom"}]
    ),
    "helicopter_draws": st.sampled_from(["wait", "reopen"]),
    "terminal_upkeep": st.sampled_from(["death", "reward"]),
    "quality_floor": st.sampled_from([None, 0]),
    "final_round_order": st.sampled_from(["rotate", "trailing_last"]),  # R1
    # R1: one number, or a table by player count (a game plays its own count's).
    "rounds": st.one_of(
        st.integers(1, 8), st.fixed_dictionaries({str(count): st.integers(1, 8) for count in (1, 2, 3, 4)})
    ),
    "arrivals": st.integers(1, 3),
    # T8: the default market, or one with designer's items declared as data (K4 spaces among them).
    "market": st.sampled_from([{}, *DESIGNER_MARKETS]),
}
games = st.fixed_dictionaries(GAME_FIELDS)


def played_prefix(spec: dict[str, Any], rng: random.Random, steps: int) -> Game:
    """A dealt game after up to ``steps`` random legal actions (it may be over)."""
    game = deal(spec)
    for _ in range(steps):
        if game.turn is None:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def deal(spec: dict[str, Any]) -> Game:
    config = make_config(
        {
            key: spec[key]
            for key in (
                "return_to",
                "rounds",
                "arrivals",
                "helicopter_draws",
                "terminal_upkeep",
                "quality_floor",
                "final_round_order",
                "market",
            )
            if key in spec
        }
    )
    return Game.new(players=spec["players"], seed=spec["seed"], config=config)


def card_places(game: Game) -> list[str]:
    places = list(game.deck) + list(game.discard)
    for player in game.players:
        places.extend(slot.card for slot in player.hospital if slot is not None)
        places.extend(patient.card for patient in player.terminals)
        places.extend(player.pending)
    return places


def check_cards_in_one_place(game: Game) -> None:
    places = Counter(card_places(game))
    assert sorted(places) == sorted(game.cards), "a card is missing or unknown"
    assert max(places.values()) == 1, f"cards in two places: {[c for c, n in places.items() if n > 1]}"


def check_counters(game: Game) -> None:
    for seat, player in enumerate(game.players):
        for name in COUNTERS:
            assert getattr(player, name) >= 0, f"player {seat} {name} below zero"
        assert player.staff_available <= player.staff
        bought_spaces = sum(
            game.config.market[name].gives_of("spaces") * n for name, n in player.items.items()
        )
        assert player.spaces == 4 + bought_spaces, "K4: four spaces and one for each space bought"
        assert list(player.items) == list(counted_items(game.config.market))
        assert all(count >= 0 for count in player.items.values())
        for slot in player.hospital:
            if slot is not None:
                assert slot.time >= 0 and slot.placed >= 0


def expected_quality_loss(game: Game, before: list[int], events: list[dict[str, Any]]) -> list[int]:
    """A5 and C4: what each player's QoC should have dropped by, given the events (a
    rejection 1, a death 2, a terminal one 1), cut at the V4 floor."""
    floor = game.config.quality_floor
    quality = list(before)
    for event in events:
        if event["type"] == "rejected":
            cost = 1
        elif event["type"] == "died":
            cost = 1 if game.cards[event["card"]].kind == "terminal" else 2
        else:
            continue
        after = quality[event["player"]] - cost
        if floor is not None:
            after = max(after, min(floor, quality[event["player"]]))
        assert event["quality_lost"] == quality[event["player"]] - after, event
        quality[event["player"]] = after
    return [old - new for old, new in zip(before, quality)]


def snapshot(game: Game) -> Any:
    return (
        state_dict(game),
        [view(game, seat) for seat in range(game.num_players)],
        list(game.history),
        game.rng.getstate(),
        [sorted(known) for known in game.know_full],
    )


def broken_versions(action: dict[str, Any], game: Game, rng: random.Random) -> list[Any]:
    """Actions near a legal one that the rules must refuse (or at least not half-apply)."""
    broken: list[Any] = [
        {"type": "fly"},
        {**action, "unexpected": 1},
        "pass",
        None,
        {"type": "heal", "patient": "nobody", "amount": 1},
        {"type": "admit", "card": "nobody", "space": 1},
        {"type": "buy", "item": "hospital"},
        {"type": "helicopter", "remove": None, "draw_all": False},
        {"type": "diagnose", "patient": rng.choice(sorted(game.cards)), "pay": {"tokens": -1}},
    ]
    if "space" in action:
        broken.append({**action, "space": 99})
    if "amount" in action:
        broken.append({**action, "amount": action["amount"] + 50})
    if "pay" in action:
        pay = dict(action["pay"])
        pay["tokens"] += 1
        broken.append({**action, "pay": pay})
        broken.append({**action, "pay": {"tokens": 99}})
    return broken


PAYS = [
    {"tokens": 1, "staff": 0, "congress": 0},
    {"tokens": 0, "staff": 1, "congress": 0},
    {"tokens": 0, "staff": 0, "congress": 1},
    {"tokens": 2, "staff": 0, "congress": 0},
    {"tokens": 1, "staff": 1, "congress": 0},
    {"tokens": 2, "staff": 1, "congress": 0},
    {"tokens": 3, "staff": 0, "congress": 0},
]


def candidate_actions(game: Game) -> list[dict[str, Any]]:
    """Well-formed actions on every card, space, item and payment: legal or not."""
    cards = sorted(game.cards)
    spaces = range(1, max(p.spaces for p in game.players) + 2)
    found: list[dict[str, Any]] = [{"type": "pass"}]
    for card in cards:
        found += [{"type": "admit", "card": card, "space": space} for space in spaces]
        found.append({"type": "reject", "card": card})
        for pay in PAYS:
            found.append({"type": "diagnose", "patient": card, "pay": pay})
            found.append({"type": "treat", "patient": card, "pay": pay})
            found.append({"type": "heal", "patient": card, "amount": sum(pay.values()), "pay": pay})
        for draw_all in (False, True):
            found.append({"type": "helicopter", "remove": card, "draw_all": draw_all})
    found.append({"type": "helicopter", "remove": None, "draw_all": True})
    found += [{"type": "buy", "item": item} for item in game.config.market]
    return found


def check_legal_list_is_exact(game: Game) -> None:
    """An action is accepted exactly when legal_actions lists it; refusals change nothing."""
    legal = game.legal_actions()
    before = snapshot(game)
    plain = state_dict(game)
    for action in candidate_actions(game):
        trial = game.copy()
        try:
            trial.apply(action)
            accepted = True
        except RuleError:
            accepted = False
            assert state_dict(trial) == plain, f"refused {action} changed the game"
        assert accepted == (action in legal), f"{action} accepted={accepted} but listed={action in legal}"
    for action in legal:
        game.copy().apply(action)
    for seat in range(game.num_players):
        if seat != game.turn:
            assert game.legal_actions(seat) == []
            try:
                game.apply(legal[0], seat)
            except RuleError as error:
                assert error.code == "not_your_turn"
            else:
                raise AssertionError("a player acted out of turn")
    assert snapshot(game) == before


def play_checked(game: Game, rng: random.Random, refuse_every: int = 5) -> None:
    step = 0
    while game.turn is not None:
        legal = game.legal_actions()
        assert legal, "a player must decide but has no legal action"
        action = rng.choice(legal)
        if step % refuse_every == 0:
            before = snapshot(game)
            wrong_seat = (game.turn + 1) % game.num_players
            attempts = broken_versions(action, game, rng)
            if wrong_seat != game.turn:
                attempts.append(("seat", wrong_seat))
            for attempt in attempts:
                try:
                    if isinstance(attempt, tuple):
                        game.apply(action, attempt[1])
                    else:
                        game.apply(attempt)
                except RuleError:
                    pass
                else:
                    raise AssertionError(f"accepted a broken action {attempt!r}")
                assert snapshot(game) == before, f"refused {attempt!r} changed the game"
        if step % (refuse_every * 3) == 1:
            check_legal_list_is_exact(game)
        quality = [player.quality for player in game.players]
        events = game.apply(action)
        loss = expected_quality_loss(game, quality, events)
        assert [q - p.quality for q, p in zip(quality, game.players)] == loss
        check_cards_in_one_place(game)
        check_counters(game)
        step += 1
    assert game.phase == "over"


@SETTINGS
@given(spec=games, choices=st.integers(0, 2**32))
def test_random_games_keep_every_invariant(spec: dict[str, Any], choices: int) -> None:
    game = deal(spec)
    check_cards_in_one_place(game)
    check_counters(game)
    play_checked(game, random.Random(choices))
    final = replay(make_record(game))
    assert state_dict(final) == state_dict(game)
    for seat in range(game.num_players):
        assert view(final, seat) == view(game, seat)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=games, choices=st.integers(0, 2**32), stop=st.integers(0, 200))
def test_determinize_is_consistent_with_the_view(spec: dict[str, Any], choices: int, stop: int) -> None:
    """I4: the drawn game shows the player the very view it came from, and the same choices."""
    rng = random.Random(choices)
    game = played_prefix(spec, rng, stop)
    for seat in range(game.num_players):
        seen = view(game, seat)
        drawn = determinize(seen, random.Random(stop))
        assert view(drawn, seat) == seen
        assert drawn.legal_actions() == game.legal_actions()
        check_cards_in_one_place(drawn)
    if game.turn is not None:
        # The drawn world plays on to a legal end.
        drawn = determinize(view(game, game.turn), rng)
        while drawn.turn is not None:
            drawn.apply(rng.choice(drawn.legal_actions()))


@settings(max_examples=40, deadline=None)
@given(spec=games, choices=st.integers(0, 2**32))
def test_same_seed_and_actions_give_the_same_game(spec: dict[str, Any], choices: int) -> None:
    """D1: nothing but the configuration, deck, seed and actions decides the game."""
    first, second = deal(spec), deal(spec)
    rng = random.Random(choices)
    while first.turn is not None:
        action = rng.choice(first.legal_actions())
        assert first.apply(action) == second.apply(action)
    assert state_dict(first) == state_dict(second)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=games, choices=st.integers(0, 2**32), stop=st.integers(0, 150))
def test_refusals_and_legal_actions_depend_only_on_the_view(
    spec: dict[str, Any], choices: int, stop: int
) -> None:
    """I4 for the error channel: in two games that differ only in what the deciding player
    cannot know, every action gets the same answer, and every refusal the same message."""
    rng = random.Random(choices)
    game = played_prefix(spec, rng, stop)
    if game.turn is None:
        return
    other = determinize(view(game, game.turn), rng)
    for action in candidate_actions(game):
        answers = []
        for world in (game.copy(), other.copy()):
            try:
                world.apply(action)
                answers.append("accepted")
            except RuleError as error:
                answers.append(str(error))
        assert answers[0] == answers[1], f"{action}: {answers}"


def uncached_view_parts(game: Game, seat: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every hospital and the remembered cards of ``seat``'s view, from ``Seat.card`` alone."""
    knower = Seat(game, seat)
    hospitals = [
        {
            str(number): None
            if slot is None
            else {
                **knower.card(slot.card, slot.time),
                "time": slot.time,
                "revealed": slot.revealed,
                "placed": slot.placed,
            }
            for number, slot in enumerate(player.hospital, start=1)
        }
        for player in game.players
    ]
    memory = {}
    for card in sorted(knower.fronts_seen()):
        entry = knower.card(card)
        del entry["card"]
        memory[card] = entry
    return hospitals, memory


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=games, choices=st.integers(0, 2**32), stop=st.integers(0, 200))
def test_a_view_shows_what_card_view_shows_whatever_its_caches_hold(
    spec: dict[str, Any], choices: int, stop: int
) -> None:
    """I1-I3: a view's patients, remembered cards, card ids, catalogue, configuration, flow and
    deck equal (as JSON text or lists, so in the same order) what is built afresh for this
    position, after other deals of the same deck have filled the shared entries."""
    rng = random.Random(choices)
    for other_seed in (spec["seed"] + 1, spec["seed"] + 2):
        other = played_prefix({**spec, "seed": other_seed}, rng, stop)
        for seat in range(other.num_players):
            view(other, seat)
    game = played_prefix(spec, rng, stop)
    for seat in range(game.num_players):
        seen = view(game, seat)
        hospitals, memory = uncached_view_parts(game, seat)
        assert json.dumps([player["hospital"] for player in seen["players"]]) == json.dumps(hospitals)
        assert json.dumps(seen["cards"]) == json.dumps(memory)
        assert seen["card_ids"] == sorted(game.cards)
        assert Counter(map(tuple, seen["catalogue"])) == Counter(spec.back() for spec in game.cards.values())
        assert seen["config"] == game.config.to_dict()
        # The flow is the state's (same keys, same order), and
        # the deck shows exactly the cards whose position is public (I3).
        flow = list(_flow(game).items())
        assert list(seen.items())[2 : 2 + len(flow)] == flow
        assert seen["deck_known"] == [card if card in game.known_positions else None for card in game.deck]


class _MethodRandom(random.Random):
    """A generator subclass: determinize then draws through the generator's own methods."""


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=games, choices=st.integers(0, 2**32), stop=st.integers(0, 200))
def test_determinize_draws_what_the_generator_methods_draw(
    spec: dict[str, Any], choices: int, stop: int
) -> None:
    """determinize's own draws on a plain ``random.Random`` (its ``getrandbits`` step, without
    a method look-up per draw) are exactly those of the generator's ``_randbelow`` and
    ``shuffle``: the same world and the same generator state from one seed (I4's worlds stay
    reproducible)."""
    game = played_prefix(spec, random.Random(choices), stop)
    for seat in range(game.num_players):
        seen = view(game, seat)
        plain, methods = random.Random(choices), _MethodRandom(choices)
        drawn, expected = determinize(seen, plain), determinize(seen, methods)
        assert state_dict(drawn) == state_dict(expected)
        assert drawn.rng.getstate() == expected.rng.getstate() and plain.getstate() == methods.getstate()
