"""The help the terminal game shows in the app (``?``) and ``--plain`` shows on ``help``: keys,
typed commands and the rules in a few lines, each with its rule id (rules.md) for looking it up.

Plain text only, so both front ends and the tests share it.
"""

from __future__ import annotations

from triage.play.parse import USAGE

KEYS = [
    ("?  or  F1", "this help (Escape closes it)"),
    (":", "go to the command line (inside it, : is just a colon)"),
    ("Escape", "leave the command line for the list of legal actions"),
    ("Tab", "switch between the list and the command line"),
    ("Up, Down, PgUp, PgDn", "in the list: point at an action (a click points too)"),
    ("digits", "in the list: point at an action by its number (1 then 2 points at 12)"),
    ("Enter", "in the list: take the action pointed at (or click it once more)"),
    ("a letter", "in the list: starts a typed command on the command line"),
    ("F2", "a hint: the Expert bot's move for you and why, pointed at in the list (kept as a hint)"),
    ("F3  or  skip", "skip to your turn: the bots' actions are shown at once, not one by one"),
    ("v", "in the list, watching bots only: look from the next seat"),
    ("undo  or  u", "on the command line: take back your last action this turn (never past a reveal)"),
    ("q  (Ctrl+Q anywhere)", "quit; only with --save FILE is the game saved (after every action)"),
]

TYPING = [
    "On the command line every key is text: no letter or digit there is a shortcut, and",
    "Enter sends the line. The cursor stays on the command line after your action.",
    "Nothing is highlighted in a fresh list, so a stray Enter never takes an action.",
    "A number sent from the command line picks from the list as shown; if the list changed",
    "after you started typing, the game names the action now at that number and waits for",
    "Enter again.",
]

RULES = [
    ("R4", "Score = VP + QoC after the last round; ties go to the treated-patient track, then Credits."),
    ("R4", "Alone, QoC at 0 or below is a loss. Any Cleanup leaving a QoC at 0 or below ends the game."),
    ("R1", "Each round: Income, Arrival, Treatment, Cleanup; the first player moves on each round."),
    ("R1 R3", "To even out the seat order, some seats start with Credits: with 3 players the first"),
    ("", "    and third seats 1 each, with 4 players the fourth seat 1 (by default)."),
    ("R2", "Income: Diagnostics and Healing tokens (2 and 3 by default); Staff are ready again."),
    ("A1-A5", "Arrival: draw 2 patients (default); put each into a free space. Only when no space is free"),
    ("", "    may you reject one: -1 QoC, and it goes back on top of the deck."),
    ("A3 A7", "Terminal patients wait beside the board; critical patients arrive revealed."),
    ("T1", "Diagnose: pay the difficulty printed on a standard front (d1-d3) to reveal its kind."),
    ("T2 T4", "Heal: place healing; when it reaches the patient's need it is cured: Credits + VP."),
    ("T3", "A chronic patient needs as much healing as it has Time tokens."),
    ("T5", "Treat a terminal patient: 1 healing, once a round, for its reward each time."),
    ("T6", "Pay each unit with a token, a ready Staff or a Congress Doctor (tokens first)."),
    ("T7", "Helicopter (one use): remove one of your patients at no cost, make everyone draw"),
    ("", "    one more patient, or both."),
    ("T8", "Market: spend Credits on tokens, Staff, Congress Doctors, Helicopters and spaces."),
    ("T9", "Pass ends your Treatment for this round."),
    ("C1", "Cleanup: every patient gains 1 Time, except revealed non-severe ones and terminal"),
    ("", "    patients treated this round."),
    ("C2 C4", "Then deaths: critical at 1 Time, severe at 2, terminal at 1 (chronic and non-severe"),
    ("", "    never die). A death costs 2 QoC (1 for a terminal patient)."),
    ("C3", "An unrevealed patient with 2 Time is checked: the others see its kind, its owner does"),
    ("", "    not (alone, you learn its kind)."),
]

CARD = [
    "Reading a patient: 'P03 SEV d1 heal 0/2 reward 2c/2vp time 0' is card P03, severe, diagnostic",
    "difficulty 1, 0 of 2 healing placed, 2 Credits and 2 VP when cured, no Time yet. A '?' is",
    "something you do not know. Kinds: CRIT critical, SEV severe, CHR chronic, NON non-severe,",
    "TERM terminal.",
]


def command_lines() -> list[str]:
    """The typed commands, as :mod:`triage.play.parse` reads them."""
    return [
        *(f"  {usage}" for usage in USAGE.values()),
        "  A payment part may be partial: heal P01 2 staff=1 pays one Staff and the rest in tokens.",
        "  help (or ?) shows this help; a number picks that action from the list.",
        "  hint asks the Expert bot for your move and why (the record keeps it as a hint, not a move).",
    ]


def rule_lines() -> list[str]:
    """The rules in short, each line led by the rule ids it sums up."""
    return [f"  {rule:<6} {text}" if rule else f"         {text.strip()}" for rule, text in RULES]


def help_lines(keys: bool = True) -> list[str]:
    """The whole help; ``keys=False`` leaves out the full-screen keys (for ``--plain``)."""
    lines: list[str] = []
    if keys:
        lines += ["KEYS", *(f"  {key:<22} {meaning}" for key, meaning in KEYS), "", *TYPING, ""]
    lines += ["TYPED COMMANDS", *command_lines(), "", "THE RULES IN SHORT (rule ids as in rules.md)"]
    lines += [*rule_lines(), "", *CARD]
    return lines
