"""Tabular CFR on a small variant, with its exploitability curve and the bots' NashConv.

    python examples/cfr_mini.py --config mini --iterations 32 --out docs/baselines

OpenSpiel's ``cfr.CFRSolver`` walks the whole tree of ``triage(config=...)`` (``mini`` or
another small variant; two players, ``returns=margin``: zero-sum) at every iteration, for
``--iterations`` iterations (the budget: CFR is deterministic, so it buys the same on any
machine); ``exploitability.nash_conv`` measures the
average policy at doubling iterations. The built-in bots are measured the same way, wrapped as
OpenSpiel policies (``triage.envs.openspiel.BotPolicy``). CFR is deterministic: no seed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pyspiel
from open_spiel.python.algorithms import cfr, exploitability

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage.envs.openspiel as triage_openspiel
from common import Budget, plot_curves, write_results


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="mini", help="a small built-in configuration")
    parser.add_argument("--iterations", type=int, default=32, help="the budget: CFR iterations")
    parser.add_argument("--bots", default="greedy,expert-novice", help="bots whose NashConv to measure")
    parser.add_argument("--returns", default="margin")
    parser.add_argument(
        "--deal", type=int, default=-1, help="-1: every deal (the chance node); N: deal N only"
    )
    parser.add_argument("--out", type=Path, default=Path("runs"))
    args = parser.parse_args(argv)
    game = pyspiel.load_game("triage", {"config": args.config, "returns": args.returns, "seed": args.deal})
    budget = Budget(args.iterations)
    solver = cfr.CFRSolver(game)
    curve: list[tuple[float, float]] = []
    checkpoints = {1, 2, 4, 8, 16, 32, 64, 128, 256, args.iterations}
    done = 0
    while not budget.spent(done):
        solver.evaluate_and_update_policy()
        done += 1
        if done in checkpoints:
            curve.append((done, exploitability.nash_conv(game, solver.average_policy())))
            print(
                f"iteration {done}: NashConv {curve[-1][1]:.5f} ({budget.cpu_seconds():.0f} CPU s)",
                flush=True,
            )
            report(args.out, args.config, game, done, budget, curve, {})
    if not curve or curve[-1][0] != done:
        curve.append((done, exploitability.nash_conv(game, solver.average_policy())))
    bots = {}
    for name in filter(None, args.bots.split(",")):
        started = time.process_time()
        bots[name] = exploitability.nash_conv(game, triage_openspiel.BotPolicy(game, name))
        print(f"{name}: NashConv {bots[name]:.5f} ({time.process_time() - started:.0f} CPU s)", flush=True)
    return report(args.out, args.config, game, done, budget, curve, bots)


def report(
    out: Path,
    config: str,
    game: object,
    done: int,
    budget: Budget,
    curve: list[tuple[float, float]],
    bots: dict[str, float],
) -> dict[str, object]:
    """Writes the results and the curve so far (after every checkpoint: a stopped run keeps them)."""
    results = {
        "game": str(game),
        "iterations": done,
        "cpu_seconds": round(budget.cpu_seconds(), 1),
        "nash_conv": curve,
        "bots_nash_conv": bots,
    }
    write_results(out, f"cfr_{config}", results)
    plot_curves(
        out,
        f"cfr_{config}",
        {"CFR average policy": curve},
        "CFR iterations",
        "NashConv",
        f"Tabular CFR on triage(config={config})",
        log=True,
        lines={f"{k}: {v:.3f}": v for k, v in bots.items()},
    )
    return results


if __name__ == "__main__":
    main()
