"""Corners of the scenario format (scenario-format.md sections 1 and 2) the rule scenarios do
not reach."""

from __future__ import annotations

from typing import Any

from triage.scenario import run_scenario

CARDS = {"N": {"kind": "non_severe", "diagnosis": 1, "healing": 1, "credits": 1, "vp": 2}}


def scenario(state: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": "runner corner",
        "players": 2,
        "cards": CARDS,
        "deck": ["N"],
        "start": {"phase": "treatment"},
        "state": {"players": [state, {}]},
        "steps": steps,
    }


def test_a_null_value_matches_a_path_into_an_empty_space() -> None:
    result = run_scenario(
        scenario({}, [{"expect": {"players.0.hospital.1": None, "players.0.hospital.1.card": None}}])
    )
    assert result.passed, result.message
    result = run_scenario(scenario({}, [{"expect": {"players.0.hospital.1.card": "N"}}]))
    assert not result.passed and "that space is empty" in result.message
    result = run_scenario(scenario({}, [{"expect": {"players.0.hospital.9": None}}]))
    assert not result.passed and "does not exist" in result.message


def test_state_takes_derived_fields_when_they_agree() -> None:
    """Section 1: ``state`` uses the names of section 3; spaces and score follow from others."""
    agreeing = {"outpatient_clinics": 1, "spaces": 5, "vp": 3, "quality": 9, "score": 12}
    assert run_scenario(scenario(agreeing, [{"expect": {"players.0.spaces": 5}}])).passed
    result = run_scenario(scenario({"spaces": 6}, []))
    assert not result.passed and "spaces: 6 disagrees" in result.message and "K4" in result.message
    result = run_scenario(scenario({"vp": 1, "score": 99}, []))
    assert not result.passed and "score: 99 disagrees" in result.message
