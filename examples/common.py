"""What every baseline script shares: the seed list, the step budget, results with 95% intervals
and the learning-curve PNG (kept in one small file so that each script stays short)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from triage.envs.references import interval

__all__ = ["SEEDS", "Budget", "interval", "plot_curves", "write_results"]

#: The fixed seed list of every baseline: a run names how many of them it uses.
SEEDS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)


class Budget:
    """A budget in environment steps, so that a run buys the same experience on any machine at
    any load (CPU seconds bought 2-3x different numbers of steps); the CPU time it took is kept
    for the record only."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.start = time.process_time()

    def cpu_seconds(self) -> float:
        return time.process_time() - self.start

    def spent(self, steps: int) -> bool:
        return steps >= self.steps


def write_results(out: Path, name: str, results: dict[str, Any]) -> Path:
    """``<out>/<name>.json``: the run's settings, its figures and its curve."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return path


def plot_curves(
    out: Path,
    name: str,
    curves: dict[str, list[tuple[float, float]]],
    xlabel: str,
    ylabel: str,
    title: str,
    log: bool = False,
    lines: dict[str, float] | None = None,
) -> Path:
    """``<out>/<name>.png``: one line per curve, and horizontal reference lines (e.g. greedy)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.6))
    for label, points in curves.items():
        if points:
            xs, ys = zip(*points)
            axes.plot(xs, ys, marker=".", label=label)
    for label, value in (lines or {}).items():
        axes.axhline(value, linestyle="--", color="grey", label=label)
    if log:
        axes.set_xscale("log")
        axes.set_yscale("symlog", linthresh=1e-2)
        axes.set_ylim(bottom=0)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize=10)
    if any(curves.values()) or lines:
        axes.legend(fontsize=8)
    figure.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
