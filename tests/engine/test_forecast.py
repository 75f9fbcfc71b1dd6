"""The seat's forecast (triage.engine.forecast): deadlines (C1-C4), what each choice does (T1-T9),
its payments (T6, the engine's own default), and that it tells no more than the view (I1-I4)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.engine import CardSpec, Game, make_config, parse_deck, view
from triage.engine.choices import action_choices, default_pay, expand, sample
from triage.engine.determinize import determinize
from triage.engine.forecast import deadline, forecast, terminal_deadline


def one_kind(kind: str, count: int = 12, **fields: Any) -> list[CardSpec]:
    """A deck of one kind of card, for positions with known patients."""
    defaults: dict[str, dict[str, Any]] = {
        "critical": {"healing": 4, "credits": 2, "vp": 3},
        "severe": {"diagnosis": 1, "healing": 3, "credits": 2, "vp": 3},
        "chronic": {"diagnosis": 1, "credits": 1, "vp": 2},
        "non_severe": {"diagnosis": 1, "healing": 2, "credits": 1, "vp": 1},
        "terminal": {"credits": 1, "vp": 2},
    }
    cards = [dict(defaults[kind], **fields, id=f"X{n}", kind=kind) for n in range(1, count + 1)]
    deck: list[CardSpec] = parse_deck({"cards": cards}, "test deck")
    return deck


def admit_all(game: Game) -> None:
    """Seat 0 admits its arrivals, each to the first free space (A4)."""
    while game.in_admission(0):
        choice = action_choices(game, 0)[0]
        game.apply({"type": "admit", "card": choice["card"], "space": choice["spaces"][0]}, 0)


def solo(
    kind: str, start: dict[str, int] | None = None, income: dict[str, int] | None = None, **fields: Any
) -> Game:
    """A one-player game of one kind of card, its arrivals admitted."""
    config = make_config({"start": start or {}, "income": income or {}})
    game = Game.new(players=1, seed=1, deck=one_kind(kind, **fields), config=config)
    admit_all(game)
    return game


def seen(game: Game, seat: int = 0) -> dict[str, Any]:
    return forecast(view(game, seat), action_choices(game, seat))


def entry(found: dict[str, Any], kind: str, patient: str | None = None) -> dict[str, Any]:
    found_entry: dict[str, Any] = next(
        e for e in found["choices"] if e["type"] == kind and patient in (None, e.get("patient"))
    )
    return found_entry


# ---------------------------------------------------------------------- deadlines


POSITION = {"round": 2, "config": {"rounds": 6, "terminal_upkeep": "death"}, "not_severe": ["S9"]}


def test_deadlines_by_kind_and_time() -> None:
    def text(**slot: Any) -> str:
        return str(deadline(POSITION, {"card": "S1", "front": "standard", "diagnosis": 2, **slot})["text"])

    assert text(kind="critical", front="critical", time=0) == "dies at Cleanup tonight"
    assert text(kind="severe", time=0) == "dies at the next Cleanup"
    assert text(kind="severe", time=1) == "dies at Cleanup tonight"
    assert text(time=0) == "dies at the next Cleanup if severe"
    assert text(time=1) == "checked at Cleanup tonight: dies if severe"
    assert text(kind="chronic", time=4) == "safe: never dies (each Time adds 1 to its healing)"
    assert text(kind="non_severe", time=0) == "safe: never dies"
    assert deadline(POSITION, {"card": "S9", "front": "standard", "time": 2})["rule"] == "I4"


def test_a_death_after_the_last_round_is_no_deadline() -> None:
    last = {**POSITION, "round": 6}
    severe = deadline(last, {"card": "S1", "front": "standard", "kind": "severe", "time": 0})
    assert (severe["level"], severe["rounds"], severe["quality_lost"]) == ("safe", None, 0)
    # Tonight's Cleanup still happens in the last round (R4 comes after C2).
    assert deadline(last, {"card": "C1", "front": "critical", "time": 0})["rounds"] == 0


def test_terminal_deadlines_with_each_upkeep_variant() -> None:
    untreated = {"card": "T1", "time": 0, "treated": False, "ever_treated": True}
    dies = terminal_deadline(POSITION, untreated)
    assert (dies["text"], dies["quality_lost"], dies["rule"]) == (
        "dies at Cleanup tonight unless treated",
        1,
        "C2",
    )
    assert terminal_deadline(POSITION, {**untreated, "treated": True})["text"] == "treated: safe tonight"
    reward = {**POSITION, "config": {**POSITION["config"], "terminal_upkeep": "reward"}}  # type: ignore[dict-item]
    assert terminal_deadline(reward, untreated)["rule"] == "V3"
    assert terminal_deadline(reward, {**untreated, "ever_treated": False})["level"] == "danger"


# ---------------------------------------------------------------------- choices and payments


def test_each_heal_amount_says_what_it_does_and_lists_its_payments() -> None:
    game = solo("critical", start={"staff": 1, "congress": 1})
    found = seen(game)
    heal = entry(found, "heal")
    effects = [amount["effect"] for amount in heal["amounts"]]
    # 3 Healing + 1 Staff + 1 Congress Doctor pay up to 4; the patient needs 4 (T2, T4).
    assert effects == [
        "still dies tonight: needs 3 more",
        "still dies tonight: needs 2 more",
        "still dies tonight: needs 1 more",
        "cures it: +3 VP, +2 Credits",
    ]
    choice = next(c for c in action_choices(game, 0) if c["type"] == "heal")
    for amount in heal["amounts"]:
        mixes = [a["pay"] for a in expand(choice) if a["amount"] == amount["amount"]]
        assert amount["default_pay"] == default_pay(amount["amount"], choice["budget"]) == amount["pays"][0]
        assert sorted(map(json.dumps, amount["pays"])) == sorted(map(json.dumps, mixes))


def test_the_heal_trap_says_the_patient_dies_anyway_and_what_could_save_it() -> None:
    # Two criticals needing 5 each; 3 Healing + 1 Staff pay 4: no heal saves either (C2).
    game = solo("critical", start={"credits": 4}, healing=5)
    found = seen(game)
    heals = [e for e in found["choices"] if e["type"] == "heal"]
    assert len(heals) == 2
    assert {amount["outcome"] for heal in heals for amount in heal["amounts"]} == {"dies_tonight"}
    assert heals[0]["amounts"][-1]["effect"] == "still dies tonight: needs 1 more"
    first = heals[0]["patient"]
    # T6, T8: one Healing token (2 Credits of the 4) closes the gap; the market is named as a plan.
    assert found["rescue"][first] == [
        "fly it out with a Helicopter: no QoC lost",
        "buy 1 Healing token (2 Credits of your 4), then heal it by 5: that saves it",
    ]
    assert set(found["rescue"]) == {d["card"] for d in found["pass"]["dies"]} == {h["patient"] for h in heals}


def test_a_purchase_the_seat_cannot_pay_for_is_no_rescue() -> None:
    """Issue 39: "buy Healing tokens (2 Credits each, you have 3): 4 healing short" was listed
    though 4 tokens cost 8 Credits (T8): a purchase is a remedy only when the Credits pay for
    every unit the cure still lacks."""
    poor = {"credits": 3, "healing": 0, "staff": 1}
    game = solo("critical", start=poor, income={"healing": 0}, healing=5)
    found = seen(game)
    assert found["rescue"]
    for ways in found["rescue"].values():
        assert not any(way.startswith("buy") for way in ways), ways
    rich = seen(solo("critical", start={**poor, "credits": 9}, income={"healing": 0}, healing=5))
    first = next(iter(rich["rescue"]))
    assert (
        "buy 4 Healing tokens (8 Credits of your 9), then heal it by 5: that saves it"
        in rich["rescue"][first]
    )


def test_a_remedy_is_listed_only_under_the_patient_it_saves() -> None:
    """Issue 39: the Pass dialog listed "or cure P17 instead" under P04, which curing P17 does
    not save (T4 cures P17 only): no patient's rescue names another patient."""
    game = solo("critical", start={"congress": 1})
    found = seen(game)
    heal = entry(found, "heal")
    assert [amount["outcome"] for amount in heal["amounts"]][-1] == "cures"
    assert found["rescue"][heal["patient"]][0] == "heal it by 4: that saves it"
    others = {e["patient"] for e in found["choices"] if e["type"] == "heal"} - {heal["patient"]}
    for card, ways in found["rescue"].items():
        assert not any(other in way for way in ways for other in others - {card}), ways


def test_a_payment_that_takes_what_another_patient_needs_says_so() -> None:
    """Issue 39: Diagnose spent the Staff that was the only way to save P08, and said nothing.
    One critical needing 1 healing (no tokens, one Staff: T6) and one unrevealed severe patient
    costing 1 Diagnostics (none held): diagnosing it spends the Staff, and the critical then dies
    tonight (C2)."""
    cards = [{"id": f"C{n}", "kind": "critical", "healing": 1, "credits": 2, "vp": 3} for n in range(6)]
    cards += [
        {"id": f"S{n}", "kind": "severe", "diagnosis": 1, "healing": 3, "credits": 2, "vp": 3}
        for n in range(6)
    ]
    deck = parse_deck({"cards": cards}, "test deck")
    config = make_config(
        {"start": {"diagnostics": 0, "healing": 0, "staff": 1}, "income": {"diagnostics": 0, "healing": 0}}
    )
    game = Game.new(players=1, seed=0, deck=deck, config=config)  # seed 0 deals a critical and a severe
    admit_all(game)
    shown = view(game, 0)
    ids = {slot["card"]: slot for slot in shown["players"][0]["hospital"].values() if slot}
    critical = next(card for card, slot in ids.items() if slot.get("front") == "critical")
    found = seen(game)
    diagnose = entry(found, "diagnose")
    assert diagnose["default_pay"] == {"tokens": 0, "staff": 1, "congress": 0}
    assert diagnose["warnings"] == [
        (0, f"then {critical} cannot be saved tonight: 1 healing needed, 0 would be left")
    ]
    cure = entry(found, "heal", critical)
    assert cure["amounts"][0]["warnings"] == []  # curing the critical itself is no loss
    assert critical not in found["quick"] or found["quick"][critical]["do"]["type"] == "heal"
    assert diagnose["patient"] not in found["quick"]  # a warned payment is never one tap


def test_the_market_says_why_an_item_cannot_be_bought() -> None:
    """T8: each item's price, and why the seat cannot buy it now (no Credits, its limit, or not
    its Treatment), for the page to show it disabled with the reason."""
    game = solo("critical", start={"credits": 2})
    market = seen(game)["market"]
    assert market["healing"] == {"price": 2, "why": None}
    assert market["staff"]["why"] == f"costs {market['staff']['price']} Credits; you have 2"
    assert market["staff"]["price"] > 2
    arriving = Game.new(
        players=1, seed=1, deck=one_kind("critical"), config=make_config({"start": {"credits": 9}})
    )
    assert seen(arriving)["market"]["healing"]["why"] == "the market is open in your Treatment"


def test_diagnose_treat_admit_and_helicopter_effects() -> None:
    game = solo("severe", diagnosis=2)
    diagnose = entry(seen(game), "diagnose")
    assert (diagnose["effect"], diagnose["rule"]) == ("reveals its kind, reward and healing need", "T1")
    assert diagnose["default_pay"] == {"tokens": 2, "staff": 0, "congress": 0}

    terminal = solo("terminal")
    found = seen(terminal)
    treat = entry(found, "treat")
    assert treat["effect"] == "+2 VP, +1 Credits now; saves it until the next Cleanup"
    removal = entry(found, "helicopter")["remove"][treat["patient"]]
    assert removal == "removes it: no QoC lost, instead of 1 when it dies tonight"

    arriving = Game.new(players=1, seed=1, deck=one_kind("critical"))
    admit = entry(seen(arriving), "admit")
    assert admit["effect"] == "takes a space; then dies at Cleanup tonight"


def test_pass_names_the_seats_patients_that_will_or_may_die_tonight() -> None:
    game = solo("critical")
    dying = seen(game)["pass"]["dies"]
    assert {d["card"] for d in dying} == {
        s["card"] for s in view(game, 0)["players"][0]["hospital"].values() if s
    }
    assert all(d["quality_lost"] == 2 and "critical, Time 0" in d["text"] for d in dying)

    game = solo("severe")
    game.apply({"type": "pass"}, 0)  # one Time each, still unrevealed: checked tonight (C3)
    admit_all(game)
    passing = seen(game)["pass"]
    assert passing["dies"] == [] and len(passing["may_die"]) == 2
    assert entry(seen(game), "pass")["effect"].startswith("ends your Treatment; at risk tonight: ")


def test_no_forecast_of_deadlines_once_the_game_is_over() -> None:
    game = Game.new(players=1, seed=2, deck=one_kind("non_severe"), config=make_config({"rounds": 1}))
    admit_all(game)
    game.apply({"type": "pass"}, 0)
    assert game.is_over()
    found = seen(game)
    assert {key: found[key] for key in ("patients", "choices", "pass", "rescue", "actions", "quick")} == {
        "patients": {},
        "choices": [],
        "pass": {"dies": [], "may_die": []},
        "rescue": {},
        "actions": [],
        "quick": {},
    }


# ---------------------------------------------------------------------- what the seat knows (I4)


def played(players: int, seed: int, steps: int) -> Game:
    config = make_config({"start": {"staff": 1, "congress": 1, "helicopters": 1, "credits": 4}})
    game = Game.new(players=players, seed=seed, config=config)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over():
            break
        seat = game.turn
        assert seat is not None
        choices = action_choices(game, seat)
        game.apply(sample(rng.choice(choices), rng), seat)
    return game


def cards_seen(seat_view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each patient card as the view shows it: in a space, beside the board, or arrived."""
    cards = {card: {"card": card, **fields} for card, fields in seat_view["cards"].items()}
    for player in seat_view["players"]:
        cards.update({slot["card"]: slot for slot in player["hospital"].values() if slot})
        cards.update({patient["card"]: patient for patient in player["terminals"]})
    return cards


def texts_about(found: dict[str, Any], card: str) -> list[str]:
    """Every text of the forecast that speaks of ``card``."""
    texts = [found["patients"][card]["text"]] if card in found["patients"] else []
    for choice in found["choices"]:
        if card in (choice.get("patient"), choice.get("card")):
            texts += [choice.get("effect", "")] + [amount["effect"] for amount in choice.get("amounts", [])]
        if card in choice.get("remove", {}):
            texts.append(choice["remove"][card])
    texts += [d["text"] for d in found["pass"]["dies"] + found["pass"]["may_die"] if d["card"] == card]
    # What could save it, except the other patients it names ("or cure P2 instead": P2's own texts).
    texts += found["rescue"].get(card, [])
    return texts


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 4), st.integers(0, 2**32), st.integers(0, 120), st.integers(0, 2**16))
def test_equal_views_give_equal_forecasts_that_tell_nothing_hidden(
    players: int, seed: int, steps: int, draw: int
) -> None:
    game = played(players, seed, steps)
    for seat in range(players):
        seat_view, choices = view(game, seat), action_choices(game, seat)
        found = forecast(seat_view, choices)
        json.dumps(found)  # plain JSON data
        # Another game the view allows (I4): the same view, so the same forecast.
        other = determinize(seat_view, random.Random(draw))
        assert view(other, seat) == seat_view
        assert forecast(view(other, seat), action_choices(other, seat)) == found
        assert forecast(json.loads(json.dumps(seat_view)), json.loads(json.dumps(choices))) == found
        for card, shown in cards_seen(seat_view).items():
            texts = " / ".join(texts_about(found, card))
            if "vp" not in shown:
                assert "VP" not in texts and "Credits" not in texts, (card, texts)
            if "kind" not in shown and shown.get("front") == "standard":
                hidden = ("critical", "chronic", "non-severe", "(severe", "cures")
                assert not any(word in texts for word in hidden), (card, texts)
            if "healing" not in shown:
                assert "more" not in texts, (card, texts)
