"""Scenario files: the rules-conformance format of scenario-format.md."""

from triage.scenario.runner import ScenarioResult, build_game, load_scenario, run_file, run_scenario

__all__ = ["ScenarioResult", "build_game", "load_scenario", "run_file", "run_scenario"]
