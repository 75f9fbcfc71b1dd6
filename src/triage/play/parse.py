"""Typed commands: what a person types at the prompt, turned into an engine action.

Pure functions, no game and no I/O, so the Textual command line, ``--plain`` and tests share
them. The grammar follows :func:`triage.engine.text.describe_action`, so any action the game
lists can be typed back exactly as it is shown::

    admit P04 2                 reject P04
    diagnose P03                diagnose P03 staff=1
    heal P01 2                  heal P01 2 staff=1 congress=0
    treat P09                   helicopter remove=P01 draw   (or: helicopter draw)
    buy staff                   pass

A payment part (``tokens=``, ``staff=``, ``congress=``) may be partial: :func:`resolve` fills it
in from the legal actions (tokens first, T6). Card ids match without regard to case.
"""

from __future__ import annotations

from typing import Any, cast

from triage.engine.shapes import Action, Payment

PAY_KEYS = ("tokens", "staff", "congress")
USAGE = {
    "admit": "admit CARD SPACE",
    "reject": "reject CARD",
    "diagnose": "diagnose CARD [tokens=N] [staff=N] [congress=N]",
    "heal": "heal CARD AMOUNT [tokens=N] [staff=N] [congress=N]",
    "treat": "treat CARD [tokens=N] [staff=N] [congress=N]",
    "helicopter": "helicopter [remove=CARD] [draw]",
    "buy": "buy ITEM",
    "pass": "pass",
}
ALIASES = {
    "h": "heal",
    "d": "diagnose",
    "a": "admit",
    "r": "reject",
    "t": "treat",
    "heli": "helicopter",
    "p": "pass",
}


class CommandError(ValueError):
    """A typed command that is not an action; the message says what was wrong and the usage."""


def _whole(text: str, what: str, usage: str) -> int:
    if not text.isdigit():
        raise CommandError(f"{what} must be a whole number, got {text!r} (usage: {usage})")
    return int(text)


def _split_pay(words: list[str], usage: str) -> tuple[list[str], Payment]:
    """Separate ``key=N`` payment words from the positional words."""
    positional: list[str] = []
    pay: dict[str, int] = {}
    for word in words:
        if "=" in word:
            key, _, value = word.partition("=")
            key = key.lower()
            if key not in PAY_KEYS:
                raise CommandError(
                    f"unknown payment {key!r} (payments: {', '.join(PAY_KEYS)}; usage: {usage})"
                )
            if key in pay:
                raise CommandError(f"payment {key!r} is given twice")
            pay[key] = _whole(value, f"payment {key}", usage)
        else:
            positional.append(word)
    return positional, cast(Payment, pay)  # its keys checked above: tokens, staff, congress


def _expect(positional: list[str], names: list[str], usage: str) -> list[str]:
    if len(positional) != len(names):
        wanted = " ".join(names) if names else "nothing more"
        raise CommandError(
            f"expected {wanted} after the command, got {' '.join(positional) or 'nothing'} (usage: {usage})"
        )
    return positional


def parse_command(text: str) -> Action:
    """One typed command as an action dict (``pay`` partial or absent).

    >>> parse_command("heal P01 2 staff=1")
    {'type': 'heal', 'patient': 'P01', 'amount': 2, 'pay': {'staff': 1}}
    >>> parse_command("helicopter remove=P01 draw")
    {'type': 'helicopter', 'remove': 'P01', 'draw_all': True}
    >>> parse_command("buy outpatient clinic")
    {'type': 'buy', 'item': 'outpatient_clinic'}
    """
    words = text.split()
    if not words:
        raise CommandError("empty command (try: pass, admit P04 2, heal P01 2, help)")
    verb = ALIASES.get(words[0].lower(), words[0].lower())
    rest = words[1:]
    if verb not in USAGE:
        raise CommandError(f"unknown command {words[0]!r} (commands: {', '.join(USAGE)})")
    usage = USAGE[verb]
    if verb == "helicopter":
        return _parse_helicopter(rest, usage)
    if verb == "buy":
        if not rest:
            raise CommandError(f"buy what? (usage: {usage})")
        return {"type": "buy", "item": "_".join(word.lower() for word in rest).replace("-", "_")}
    positional, pay = _split_pay(rest, usage)
    if pay and verb not in ("diagnose", "heal", "treat"):
        raise CommandError(f"{verb} takes no payment (usage: {usage})")
    action: Action
    if verb == "pass":
        _expect(positional, [], usage)
        action = {"type": "pass"}
    elif verb == "admit":
        card, space = _expect(positional, ["CARD", "SPACE"], usage)
        action = {"type": "admit", "card": card, "space": _whole(space, "the space", usage)}
    elif verb == "reject":
        (card,) = _expect(positional, ["CARD"], usage)
        action = {"type": "reject", "card": card}
    elif verb == "heal":
        card, amount = _expect(positional, ["CARD", "AMOUNT"], usage)
        number = _whole(amount, "the amount", usage)
        if number < 1:
            raise CommandError(f"the amount must be at least 1 (usage: {usage})")
        action = {"type": "heal", "patient": card, "amount": number}
    else:
        (card,) = _expect(positional, ["CARD"], usage)
        action = {"type": verb, "patient": card}
    if pay:
        action["pay"] = pay
    return action


def _parse_helicopter(words: list[str], usage: str) -> Action:
    remove: str | None = None
    draw = False
    for word in words:
        key, equals, value = word.partition("=")
        if key.lower() == "remove" and equals and value:
            if remove is not None:
                raise CommandError(f"remove is given twice (usage: {usage})")
            remove = value
        elif word.lower() in ("draw", "draw_all", "draw=yes", "draw_all=true"):
            draw = True
        else:
            raise CommandError(f"unexpected {word!r} (usage: {usage})")
    if remove is None and not draw:
        raise CommandError(f"a Helicopter must remove a patient, make all draw, or both (T7; usage: {usage})")
    return {"type": "helicopter", "remove": remove, "draw_all": draw}


def _same_card(typed: Any, listed: Any) -> bool:
    return isinstance(typed, str) and isinstance(listed, str) and typed.upper() == listed.upper()


def _matches(typed: Action, listed: Action) -> bool:
    """Whether a listed legal action is what the typed one asks for (a partial pay matches any
    listed mix that agrees on the keys given)."""
    if typed["type"] != listed["type"]:
        return False
    for key, value in typed.items():
        if key in ("type", "pay"):
            continue
        if key in ("card", "patient", "remove"):
            if value is None or listed.get(key) is None:
                if value != listed.get(key):
                    return False
            elif not _same_card(value, listed.get(key)):
                return False
        elif listed.get(key) != value:
            return False
    pay = typed.get("pay") or {}
    listed_pay = listed.get("pay") or {}
    return all(listed_pay.get(key, 0) == count for key, count in pay.items())


def resolve(typed: Action, legal: list[Action]) -> Action:
    """The legal action a typed one means: the first listed match (tokens-first mix, T6).

    With no match, the typed action itself is returned (card ids spelt as listed where known) so
    the engine refuses it with its own error code and rule id.

    >>> legal = [{"type": "heal", "patient": "P01", "amount": 2, "pay": {"tokens": 2, "staff": 0, "congress": 0}},
    ...          {"type": "heal", "patient": "P01", "amount": 2, "pay": {"tokens": 1, "staff": 1, "congress": 0}}]
    >>> resolve({"type": "heal", "patient": "p01", "amount": 2, "pay": {"staff": 1}}, legal)["pay"]
    {'tokens': 1, 'staff': 1, 'congress': 0}
    """
    for action in legal:
        if _matches(typed, action):
            return action
    ids = {
        value.upper(): value
        for action in legal
        for key, value in action.items()
        if key in ("card", "patient", "remove") and isinstance(value, str)
    }
    return cast(
        Action,
        {
            key: ids.get(value.upper(), value)
            if key in ("card", "patient", "remove") and isinstance(value, str)
            else value
            for key, value in typed.items()
        },
    )


def choose(text: str, legal: list[Action]) -> Action:
    """A typed line as an action: a number picks from ``legal`` (counted from 1), anything
    else is parsed as a command and resolved against ``legal``. A leading ``:`` (typed out of
    habit on the full screen's command line, where ``:`` is just a character) is ignored.

    >>> choose("2", [{"type": "pass"}, {"type": "buy", "item": "staff"}])
    {'type': 'buy', 'item': 'staff'}
    >>> choose(":pass", [{"type": "pass"}])
    {'type': 'pass'}
    """
    text = text.strip().removeprefix(":").strip()
    if text.isdigit():
        number = int(text)
        if not 1 <= number <= len(legal):
            raise CommandError(f"no action number {number}: choose 1 to {len(legal)}")
        return legal[number - 1]
    return resolve(parse_command(text), legal)
