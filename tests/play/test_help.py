"""The in-game help: it names every typed command, the app's keys, and cites real rule ids."""

import re
from pathlib import Path

import pytest

from triage.play.app import TriageApp
from triage.play.help import KEYS, RULES, help_lines
from triage.play.parse import USAGE

RULES_MD = Path(__file__).resolve().parents[3] / "shared" / "spec" / "rules.md"


def test_help_lists_every_command_and_every_shown_key():
    text = "\n".join(help_lines())
    for usage in USAGE.values():
        assert usage in text
    keys = " ".join(key for key, _ in KEYS)
    for binding in TriageApp.BINDINGS:
        shown = {
            "question_mark": "?",
            "colon": ":",
            "escape": "Escape",
            "f1": "F1",
            "f2": "F2",
            "f3": "F3",
        }.get(binding.key, binding.key)
        assert shown in keys, f"the help does not explain the key {binding.key!r}"
    assert "KEYS" not in "\n".join(help_lines(keys=False))


def test_every_rule_id_the_help_cites_is_a_rule_of_rules_md():
    if not RULES_MD.exists():
        pytest.skip("rules.md is not beside the repository")
    defined = set(re.findall(r"^- \*\*([A-Z]\d+)", RULES_MD.read_text(encoding="utf-8"), re.MULTILINE))
    cited = set()
    for ids, _ in RULES:
        for first, last in re.findall(r"([A-Z]\d+)(?:-([A-Z]\d+))?", ids):
            cited.add(first)
            if last:
                cited.add(last)
    assert cited and cited <= defined, sorted(cited - defined)
