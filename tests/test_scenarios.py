"""Rules conformance: every scenario file passes, together they cover every rule id of rules.md
and every error code, and ``triage scenario run`` keeps its contract (scenario-format.md)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.engine.errors import ERROR_CODES
from triage.scenario import run_file, run_scenario

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"
SCENARIO_FILES = sorted(SCENARIOS.glob("*.json"))
RULES_MD = REPO.parent / "shared" / "spec" / "rules.md"

#: Every rule id of rules.md. Kept here so the check works without the spec folder beside the repo.
RULE_IDS: frozenset[str] = frozenset(
    [f"K{n}" for n in range(1, 6)]
    + [f"R{n}" for n in range(1, 5)]
    + [f"A{n}" for n in range(1, 9)]
    + [f"T{n}" for n in range(1, 10)]
    + [f"C{n}" for n in range(1, 6)]
    + [f"I{n}" for n in range(1, 5)]
    + ["V1", "V2", "V3", "V4", "D1"]
)
RETURN_TO_VALUES = ("top", "bottom", "discard")

cli = CliRunner()


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def error_steps(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for step in scenario.get("steps", []) if isinstance(step, dict) and "error" in step]


# ---------------------------------------------------------------------- every file passes


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[path.stem for path in SCENARIO_FILES])
def test_scenario_passes(path: Path) -> None:
    result = run_file(path)
    assert result.passed, result.line()


def test_there_are_scenarios() -> None:
    assert len(SCENARIO_FILES) >= 60


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[path.stem for path in SCENARIO_FILES])
def test_scenario_names_known_rules_and_codes(path: Path) -> None:
    """A typo in ``rules`` or ``error`` would silently weaken the coverage checks below."""
    scenario = load(path)
    assert isinstance(scenario.get("name"), str) and scenario["name"], f"{path.name}: no name"
    rules = scenario.get("rules")
    assert isinstance(rules, list) and rules, f"{path.name}: 'rules' must list the rule ids it exercises"
    unknown = sorted(set(rules) - RULE_IDS)
    assert not unknown, f"{path.name}: unknown rule ids {unknown}"
    codes = {step["error"] for step in error_steps(scenario)}
    assert codes <= set(ERROR_CODES), f"{path.name}: unknown error codes {sorted(codes - set(ERROR_CODES))}"


# ---------------------------------------------------------------------- coverage


def test_rule_id_list_matches_rules_md() -> None:
    if not RULES_MD.exists():
        pytest.skip(f"{RULES_MD} is not beside the repository")
    found = set(re.findall(r"^- \*\*([A-Z]\d+)\b", RULES_MD.read_text(encoding="utf-8"), re.MULTILINE))
    assert found == RULE_IDS, (
        f"rules.md ids differ: missing here {sorted(found - RULE_IDS)}, extra here {sorted(RULE_IDS - found)}"
    )


def test_every_rule_id_is_exercised() -> None:
    covered = {rule for path in SCENARIO_FILES for rule in load(path).get("rules", [])}
    assert not RULE_IDS - covered, f"no scenario exercises {sorted(RULE_IDS - covered)}"


def test_every_error_code_is_provoked() -> None:
    provoked = {step["error"] for path in SCENARIO_FILES for step in error_steps(load(path))}
    missing = sorted(set(ERROR_CODES) - provoked)
    assert not missing, f"no scenario has an error step for {missing}"


def variant_values(rule: str, key: str, default: Any) -> set[str]:
    """The values of configuration ``key`` that the scenarios citing ``rule`` use (the
    default counts when one leaves it unset); a V1 table counts as ``table``."""
    used = set()
    for path in SCENARIO_FILES:
        scenario = load(path)
        if rule in scenario.get("rules", []):
            value = (scenario.get("config") or {}).get(key, default)
            used.add("table" if isinstance(value, dict) else value)
    return used


@pytest.mark.parametrize(
    "rule, key, default, values",
    [
        ("V1", "return_to", "top", {*RETURN_TO_VALUES, "table"}),
        ("V2", "helicopter_draws", "wait", {"wait", "reopen"}),
        ("V3", "terminal_upkeep", "death", {"death", "reward"}),
        ("V4", "quality_floor", None, {None, 0}),
    ],
)
def test_every_variant_value_is_exercised(rule: str, key: str, default: Any, values: set[Any]) -> None:
    """Each variant has scenarios for its default and for every other value (V1-V4)."""
    assert variant_values(rule, key, default) == values


# ---------------------------------------------------------------------- the CLI contract

EXAMPLE = SCENARIOS / "c2_severe_dies_at_two_time.json"


def write_scenario(folder: Path, name: str, data: dict[str, Any]) -> Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def wrong_scenario(folder: Path) -> Path:
    """The example scenario with a deliberately wrong expectation in its third step."""
    data = load(EXAMPLE)
    data["name"] = "deliberately wrong"
    data["steps"][2]["expect"]["players.0.quality"] = 9
    return write_scenario(folder, "wrong.json", data)


def test_cli_prints_one_pass_line_per_file_and_exits_0() -> None:
    files = [SCENARIOS / "r4_full_tie_has_no_winner.json", EXAMPLE]
    result = cli.invoke(app, ["scenario", "run", *map(str, files)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "PASS a tie on score, treated patients and Credits has no winner",
        "PASS severe patient dies at two Time",
    ]


def test_cli_reports_the_failing_step_and_exits_nonzero(tmp_path: Path) -> None:
    result = cli.invoke(app, ["scenario", "run", str(EXAMPLE), str(wrong_scenario(tmp_path))])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == "PASS severe patient dies at two Time"
    assert lines[1].startswith("FAIL deliberately wrong: step 3: ")
    assert "players.0.quality" in lines[1] and "expected 9" in lines[1] and "got 8" in lines[1]
    assert len(lines) == 2


def test_cli_runs_a_folder_of_scenarios(tmp_path: Path) -> None:
    wrong_scenario(tmp_path)
    write_scenario(tmp_path, "right.json", load(EXAMPLE))
    result = cli.invoke(app, ["scenario", "run", str(tmp_path)])
    assert result.exit_code == 1
    assert sorted(line.split(":")[0] for line in result.output.splitlines()) == [
        "FAIL deliberately wrong",
        "PASS severe patient dies at two Time",
    ]


def test_cli_dump_view_prints_the_seat_s_view_as_json_last() -> None:
    """C3/I2 through the CLI channel: after a check the owner's view hides the back, another's shows it."""
    path = SCENARIOS / "c3_check_shows_back_to_others_only.json"
    views = {}
    for seat in (0, 1):
        result = cli.invoke(app, ["scenario", "run", str(path), "--dump-view", str(seat)])
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert lines[0].startswith("PASS ")
        views[seat] = json.loads(lines[-1])
    owner, other = views[0], views[1]
    assert owner["viewer"] == 0 and other["viewer"] == 1
    assert "deck" not in owner and owner["deck_count"] == 1
    assert "kind" not in owner["players"][0]["hospital"]["1"]
    assert "credits" not in owner["cards"]["H"]
    assert other["players"][0]["hospital"]["1"]["kind"] == "chronic"
    assert other["players"][0]["hospital"]["1"]["credits"] == 3


def test_cli_dump_view_refuses_a_seat_that_does_not_exist() -> None:
    result = cli.invoke(app, ["scenario", "run", str(EXAMPLE), "--dump-view", "5"])
    assert result.exit_code != 0
    assert "no player 5" in result.output


# ---------------------------------------------------------------------- malformed scenarios

PASS = {"type": "pass"}


def seen_by(player: int, path: str, value: Any) -> dict[str, Any]:
    return {"expect_view": {"player": player, "paths": {path: value}}}


def example_with(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(load(EXAMPLE))
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(players=5), "'players' must be 1 to 4"),
        (lambda d: d["cards"].update(Y1={"kind": "severe", "healing": 1}), "Y1 is in 'cards' but in no"),
        (lambda d: d["deck"].append("S1"), "card S1 is already in"),
        (lambda d: d["deck"].append("NOPE"), "card 'NOPE' is not in 'cards'"),
        (lambda d: d["cards"].update(X1={"kind": "ordinary"}), "field 'kind' must be one of"),
        (
            lambda d: d["cards"].update(X1={"kind": "critical", "diagnosis": 1, "healing": 1}),
            "does not apply to a critical card",
        ),
        (lambda d: d["start"].update(phase="lunch"), "start.phase must be one of"),
        (lambda d: d["start"].update(round=4), "past the last round"),
        (lambda d: d["state"]["players"][0].update(mood=3), "unknown field 'mood'"),
        (lambda d: d["state"]["players"][0]["hospital"].update({"9": {"card": "X1"}}), "no space '9'"),
        (lambda d: d["config"].update(return_to="sideways"), "return_to"),
    ],
    ids=[
        "players",
        "card-nowhere",
        "card-twice",
        "unknown-card",
        "bad-kind",
        "critical-diagnosis",
        "bad-phase",
        "round-past-end",
        "unknown-player-field",
        "no-such-space",
        "bad-config",
    ],
)
def test_runner_refuses_a_malformed_set_up(change: Any, message: str) -> None:
    result = run_scenario(example_with(change), "bad.json")
    assert not result.passed
    assert result.message.startswith("set-up: ")
    assert message in result.message, result.message


def test_runner_refuses_an_unrevealed_critical_patient() -> None:
    def change(data: dict[str, Any]) -> None:
        data["cards"]["S1"] = {"kind": "critical", "healing": 2}
        data["state"]["players"][0]["hospital"]["1"]["revealed"] = False

    result = run_scenario(example_with(change), "bad.json")
    assert not result.passed and "A7" in result.message


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"look": {"phase": "over"}}, "a step must have one of do, expect"),
        ({"expect_view": {"paths": {"phase": "over"}}}, "malformed step"),
        ({"expect_events": {"type": "died"}}, "expect_events must be a list"),
        ({"expect_legal": {"includes": []}}, "expect_legal needs 'by'"),
    ],
    ids=["unknown-kind", "view-without-player", "events-not-list", "legal-without-by"],
)
def test_runner_refuses_a_malformed_step(step: dict[str, Any], message: str) -> None:
    result = run_scenario(example_with(lambda d: d["steps"].insert(0, step)), "bad.json")
    assert not result.passed
    assert result.message.startswith("step 1: ") and message in result.message, result.message


def test_runner_reports_an_unreadable_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json", encoding="utf-8")
    assert "not valid JSON" in run_file(broken).message
    assert "cannot read the scenario" in run_file(tmp_path / "missing.json").message
    result = cli.invoke(app, ["scenario", "run", str(broken)])
    assert result.exit_code == 1 and result.output.startswith(f"FAIL {broken}: set-up: ")


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"by": 0, "do": PASS, "error": "not_your_turn"}, "expected error not_your_turn, but the action was"),
        ({"by": 1, "do": PASS, "error": "wrong_phase"}, "expected error wrong_phase, got not_your_turn"),
        ({"by": 1, "do": PASS}, "was refused: not_your_turn"),
        (seen_by(1, "players.0.hospital.1.kind", "severe"), "but the path does not exist"),
        (seen_by(1, "players.0.hospital.1.card", "<absent>"), "expected absent"),
        ({"expect_events": [{"type": "died"}]}, "expected event"),
        ({"expect_legal": {"by": 0, "excludes": [PASS]}}, "expected not legal for 0"),
        ({"expect_legal": {"by": 0, "includes": [{"type": "heal"}]}}, "expected legal for 0"),
    ],
    ids=[
        "error-accepted",
        "other-error",
        "action-refused",
        "view-path-missing",
        "view-not-absent",
        "event-missing",
        "legal-excluded",
        "legal-included",
    ],
)
def test_runner_fails_a_step_whose_expectation_does_not_hold(step: dict[str, Any], message: str) -> None:
    """The runner itself can fail: each kind of step reports what differed."""
    result = run_scenario(example_with(lambda d: d["steps"].insert(0, step)), "probe.json")
    assert not result.passed
    assert result.message.startswith("step 1: ") and message in result.message, result.message
