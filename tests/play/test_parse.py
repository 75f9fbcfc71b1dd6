"""The typed-command parser (triage.play.parse): every command form, and clear errors."""

import pytest

from triage.play.parse import CommandError, choose, parse_command, resolve


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("admit P04 2", {"type": "admit", "card": "P04", "space": 2}),
        ("reject P04", {"type": "reject", "card": "P04"}),
        ("diagnose P03", {"type": "diagnose", "patient": "P03"}),
        ("d P03 staff=1", {"type": "diagnose", "patient": "P03", "pay": {"staff": 1}}),
        ("heal P01 2 staff=1", {"type": "heal", "patient": "P01", "amount": 2, "pay": {"staff": 1}}),
        (
            "HEAL P01 3 tokens=1 staff=1 congress=1",
            {"type": "heal", "patient": "P01", "amount": 3, "pay": {"tokens": 1, "staff": 1, "congress": 1}},
        ),
        ("treat P09", {"type": "treat", "patient": "P09"}),
        ("helicopter remove=P01 draw", {"type": "helicopter", "remove": "P01", "draw_all": True}),
        ("helicopter remove=P01", {"type": "helicopter", "remove": "P01", "draw_all": False}),
        ("helicopter draw", {"type": "helicopter", "remove": None, "draw_all": True}),
        ("buy staff", {"type": "buy", "item": "staff"}),
        ("buy clinical_trial", {"type": "buy", "item": "clinical_trial"}),
        ("buy outpatient clinic", {"type": "buy", "item": "outpatient_clinic"}),
        ("  pass  ", {"type": "pass"}),
    ],
)
def test_commands_parse_to_engine_actions(text, action):
    assert parse_command(text) == action


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty command"),
        ("cure P01", "unknown command 'cure'"),
        ("admit P04", "expected CARD SPACE"),
        ("admit P04 two", "the space must be a whole number"),
        ("heal P01", "expected CARD AMOUNT"),
        ("heal P01 0", "at least 1"),
        ("heal P01 2 staf=1", "unknown payment 'staf'"),
        ("heal P01 2 staff=-1", "payment staff must be a whole number"),
        ("heal P01 2 staff=1 staff=1", "given twice"),
        ("admit P04 2 staff=1", "admit takes no payment"),
        ("helicopter", "T7"),
        ("helicopter fly", "unexpected 'fly'"),
        ("pass now", "expected nothing more"),
        ("buy", "buy what?"),
    ],
)
def test_bad_commands_say_what_is_wrong(text, fragment):
    with pytest.raises(CommandError, match=fragment):
        parse_command(text)


LEGAL = [
    {"type": "heal", "patient": "P01", "amount": 2, "pay": {"tokens": 2, "staff": 0, "congress": 0}},
    {"type": "heal", "patient": "P01", "amount": 2, "pay": {"tokens": 1, "staff": 1, "congress": 0}},
    {"type": "heal", "patient": "P01", "amount": 2, "pay": {"tokens": 0, "staff": 1, "congress": 1}},
    {"type": "helicopter", "remove": None, "draw_all": True},
    {"type": "helicopter", "remove": "P01", "draw_all": False},
    {"type": "helicopter", "remove": "P01", "draw_all": True},
    {"type": "pass"},
]


def test_partial_payment_resolves_to_the_listed_mix():
    assert resolve(parse_command("heal p01 2"), LEGAL) is LEGAL[0]  # tokens first (T6), any case
    assert resolve(parse_command("heal P01 2 staff=1"), LEGAL) is LEGAL[1]
    assert resolve(parse_command("heal P01 2 congress=1"), LEGAL) is LEGAL[2]
    assert resolve(parse_command("helicopter draw"), LEGAL) is LEGAL[3]
    assert resolve(parse_command("helicopter remove=P01"), LEGAL) is LEGAL[4]
    assert resolve(parse_command("helicopter remove=p01 draw"), LEGAL) is LEGAL[5]


def test_an_action_not_listed_is_left_for_the_engine_to_refuse():
    typed = parse_command("heal P01 3")
    assert resolve(typed, LEGAL) == typed


def test_numbers_pick_from_the_list():
    assert choose("7", LEGAL) is LEGAL[6]
    with pytest.raises(CommandError, match="choose 1 to 7"):
        choose("8", LEGAL)
    with pytest.raises(CommandError, match="choose 1 to 7"):
        choose("0", LEGAL)


def test_every_listed_action_can_be_typed_back_as_described():
    from triage.engine import Game
    from triage.engine.text import describe_action

    game = Game.new(players=2, seed=5)
    seen = 0
    while game.turn is not None and seen < 200:
        legal = game.legal_actions()
        for action in legal:
            assert choose(describe_action(action), legal) == action
        game.apply(legal[-1] if len(legal) > 1 and legal[-1]["type"] != "pass" else legal[0])
        seen += 1
