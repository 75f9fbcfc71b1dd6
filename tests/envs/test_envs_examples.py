"""Every baseline script in examples/ runs end to end on a tiny budget (issue 21 point 6): it
trains, evaluates, and writes its results (means with 95% intervals) and its learning-curve PNG."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _script(name: str) -> ModuleType:
    sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _written(out: Path, name: str) -> dict[str, object]:
    assert (out / f"{name}.png").stat().st_size > 1000
    results: dict[str, object] = json.loads((out / f"{name}.json").read_text())
    return results


def test_the_confidence_interval_is_the_normal_95_percent_one() -> None:
    common = _script("common")
    assert common.interval([1.0, 3.0]) == {"mean": 2.0, "ci95": pytest.approx(1.96), "n": 2}
    assert common.interval([5.0])["ci95"] == 0.0


def test_cfr_mini_runs_and_lowers_the_exploitability(tmp_path: Path) -> None:
    results = _script("cfr_mini").main(
        ["--iterations", "4", "--deal", "3", "--bots", "greedy", "--out", str(tmp_path)]
    )
    curve = results["nash_conv"]
    assert isinstance(curve, list) and curve[-1][1] < curve[0][1]
    assert _written(tmp_path, "cfr_mini")["bots_nash_conv"] == results["bots_nash_conv"]


@pytest.mark.parametrize("opponent", ["none", "greedy"])
def test_ppo_triage_runs_and_measures_greedy_on_the_same_deals(tmp_path: Path, opponent: str) -> None:
    arguments = ["--opponent", opponent, "--seeds", "1", "--steps", "256", "--n-steps", "128"]
    results = _script("ppo_triage").main(
        [*arguments, "--eval-every", "128", "--eval-games", "2", "--config", "mini", "--out", str(tmp_path)]
    )
    assert results["ppo_score"]["n"] == 2 and results["greedy_score"]["n"] == 2  # type: ignore[index]
    assert _written(tmp_path, f"ppo_{opponent}_mini")["steps"] == results["steps"] == [256]


@pytest.mark.parametrize("algo", ["nfsp", "dqn"])
def test_nfsp_and_dqn_run_on_the_mini_variant(tmp_path: Path, algo: str) -> None:
    results = _script("nfsp_dqn_mini").main(
        ["--algo", algo, "--seeds", "1", "--steps", "300", "--deal", "3", "--out", str(tmp_path)]
    )
    assert results["final_nash_conv"]["n"] == 1  # type: ignore[index]
    assert results["episodes"][0] > 0  # type: ignore[index]
    _written(tmp_path, f"{algo}_mini")


def test_the_pettingzoo_self_play_recipe_runs(tmp_path: Path) -> None:
    results = _script("selfplay_pettingzoo").main(
        [
            "--seeds",
            "1",
            "--steps",
            "256",
            "--n-steps",
            "128",
            "--eval-every",
            "128",
            "--eval-games",
            "2",
            "--out",
            str(tmp_path),
        ]
    )
    assert results["ppo_margin_vs_greedy"]["n"] == 2  # type: ignore[index]
    _written(tmp_path, "selfplay_mini")


def test_ppo_triage_with_no_seed_measures_greedy_alone(tmp_path: Path) -> None:
    results = _script("ppo_triage").main(["--seeds", "0", "--greedy-games", "3", "--out", str(tmp_path)])
    assert results["ppo_score"] is None and results["greedy_score"]["n"] == 3  # type: ignore[index]
    assert _written(tmp_path, "ppo_none_greedy_only")["curves"] == {}
