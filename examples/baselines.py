"""Re-measure every published baseline and its references, and write the tables of docs/research.md.

    nice -n 10 python examples/baselines.py --out docs/baselines --docs docs/research.md

Runs each baseline script of this folder with the published settings (budgets in environment
steps or CFR iterations, so that a run buys the same experience on any machine at any load), the
greedy references on the same deals, and rewrites the two tables between their markers in the
manual (``<!-- baselines -->`` ... ``<!-- /baselines -->`` and ``<!-- references -->`` ...
``<!-- /references -->``). ``--quick`` runs every script on a tiny budget (the test of this
command); ``--only NAME,...`` runs some of them (the tables then keep the other rows as
``docs/baselines/<name>.json`` holds them).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import interval, write_results  # noqa: E402

from triage.envs.references import EVAL_SEED, bot_scores  # noqa: E402

#: name -> (script, published arguments, quick arguments). The name is the results file's.
RUNS: dict[str, tuple[str, list[str], list[str]]] = {
    "ppo_none": (
        "ppo_triage",
        ["--opponent", "none", "--seeds", "2", "--steps", "8192", "--eval-every", "4096", "--eval-games", "40"],
        ["--opponent", "none", "--seeds", "1", "--steps", "256", "--n-steps", "128", "--eval-every", "128",
         "--eval-games", "2"],
    ),
    "ppo_greedy": (
        "ppo_triage",
        ["--opponent", "greedy", "--seeds", "2", "--steps", "8192", "--eval-every", "4096", "--eval-games", "40"],
        ["--opponent", "greedy", "--seeds", "1", "--steps", "256", "--n-steps", "128", "--eval-every", "128",
         "--eval-games", "2"],
    ),
    "nfsp_mini": (
        "nfsp_dqn_mini",
        ["--algo", "nfsp", "--seeds", "2", "--steps", "10000", "--eval-every", "1000"],
        ["--algo", "nfsp", "--seeds", "1", "--steps", "200", "--deal", "3"],
    ),
    "dqn_mini": (
        "nfsp_dqn_mini",
        ["--algo", "dqn", "--seeds", "2", "--steps", "10000", "--eval-every", "1000"],
        ["--algo", "dqn", "--seeds", "1", "--steps", "200", "--deal", "3"],
    ),
    "selfplay_mini": (
        "selfplay_pettingzoo",
        ["--config", "mini", "--seeds", "2", "--steps", "8192", "--eval-every", "4096", "--eval-games", "40"],
        ["--config", "mini", "--seeds", "1", "--steps", "256", "--n-steps", "128", "--eval-every", "128",
         "--eval-games", "2"],
    ),
    "cfr_mini": (
        "cfr_mini",
        ["--config", "mini", "--iterations", "32", "--bots", "greedy,expert-novice"],
        ["--config", "mini", "--iterations", "2", "--deal", "3", "--bots", "greedy"],
    ),
    "cfr_duel": (
        "cfr_mini",
        ["--config", "duel", "--iterations", "64", "--bots", "greedy,expert-novice"],
        ["--config", "duel", "--iterations", "2", "--deal", "3", "--bots", "greedy"],
    ),
}  # fmt: skip

#: The greedy references: (label, opponent in seat 1, deals).
REFERENCES: tuple[tuple[str, str, int], ...] = (
    ("solo", "none", 400),
    ("against greedy, seat 0", "greedy", 400),
)


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"baseline_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ci(value: dict[str, float] | None) -> str:
    return "-" if value is None else f"**{value['mean']:.2f} +-{value['ci95']:.2f}** (n = {value['n']})"


def _row(name: str, results: dict[str, Any]) -> str:
    """One line of the baselines table from a script's results."""
    seeds = len(results.get("seeds", [])) or 1
    if name.startswith("ppo_"):
        who = "solo" if results["opponent"] == "none" else f"against {results['opponent']}, seat 0"
        return (
            f"| MaskablePPO {who}, Triage-v0 | {results['steps_per_seed']:,} steps x {seeds} seeds "
            f"| {_cpu(results)} | score {_ci(results['ppo_score'])} | greedy {_ci(results['greedy_score'])} |"
        )
    if name in ("nfsp_mini", "dqn_mini"):
        return (
            f"| {results['algo'].upper()} self-play on mini | {results['steps_per_seed']:,} steps x {seeds} "
            f"seeds | {sum(results['episodes']):,} episodes | NashConv {_ci(results['final_nash_conv'])} "
            "| CFR and greedy below |"
        )
    if name == "selfplay_mini":
        return (
            f"| self-play MaskablePPO via PettingZoo -> SelfPlayEnv -> SB3, mini, seat 0 against greedy "
            f"| {results['steps_per_seed']:,} steps x {seeds} seeds | {_cpu(results)} "
            f"| margin {_ci(results['ppo_margin_vs_greedy'])} | greedy vs greedy {_ci(results['greedy_margin_vs_greedy'])} |"
        )
    bots = ", ".join(f"{bot} {value:.3f}" for bot, value in results["bots_nash_conv"].items())
    config = re.search(r"config=(\w+)", results["game"])
    return (
        f"| CFR on {config.group(1) if config else results['game']} | {results['iterations']} iterations "
        f"| {results['cpu_seconds']:.0f} CPU s | NashConv **{results['nash_conv'][-1][1]:.4f}** | {bots} |"
    )


def _cpu(results: dict[str, Any]) -> str:
    return " and ".join(f"{seconds:.0f}" for seconds in results.get("cpu_seconds", [])) + " CPU s"


BASELINES_HEAD = (
    "| baseline | budget | what it took | result (95% interval) | reference on the same deals |\n"
    "| --- | --- | --- | --- | --- |"
)
REFERENCES_HEAD = "| greedy in seat 0 | deals (seeds) | score (95% interval) |\n| --- | --- | --- |"


def reference_row(label: str, games: int, value: dict[str, float]) -> str:
    """One line of the references table (the test re-measures and looks for it verbatim)."""
    return (
        f"| {label} | {games} ({EVAL_SEED}-{EVAL_SEED + games - 1}) "
        f"| **{value['mean']:.2f} +-{value['ci95']:.2f}** |"
    )


def measure_references(quick: bool) -> list[str]:
    rows = []
    for label, opponent, games in REFERENCES:
        count = 3 if quick else games
        rows.append(reference_row(label, count, interval(bot_scores("greedy", opponent, "default", count))))
    return rows


def write_table(docs: Path, marker: str, head: str, rows: list[str]) -> None:
    """Replace the table between ``<!-- marker -->`` and ``<!-- /marker -->`` in ``docs``."""
    text = docs.read_text(encoding="utf-8")
    pattern = re.compile(rf"(<!-- {marker} -->\n).*?(<!-- /{marker} -->)", re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"{docs} has no <!-- {marker} --> ... <!-- /{marker} --> markers to write between")
    table = "\n".join([head, *rows]) + "\n"
    docs.write_text(
        pattern.sub(lambda match: match.group(1) + table + match.group(2), text), encoding="utf-8"
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs"))
    parser.add_argument("--docs", type=Path, default=None, help="the manual whose tables to rewrite")
    parser.add_argument("--only", default="", help="comma-separated run names (default: all)")
    parser.add_argument("--quick", action="store_true", help="tiny budgets: checks the command runs")
    parser.add_argument("--tables", action="store_true", help="run nothing: the tables from --out's results")
    args = parser.parse_args(argv)
    chosen = [name for name in args.only.split(",") if name] or list(RUNS)
    unknown = sorted(set(chosen) - set(RUNS))
    if unknown:
        raise SystemExit(f"unknown run {unknown[0]!r} (known: {', '.join(RUNS)})")
    for name in [] if args.tables else chosen:
        script, published, quick = RUNS[name]
        print(f"== {name}: python examples/{script}.py {' '.join(published)}", flush=True)
        _script(script).main([*(quick if args.quick else published), "--out", str(args.out)])
    results = {
        name: json.loads((args.out / f"{name}.json").read_text(encoding="utf-8"))
        for name in RUNS
        if (args.out / f"{name}.json").exists()
    }
    rows = [_row(name, value) for name, value in results.items()]
    references = measure_references(args.quick)
    write_results(args.out, "summary", {"rows": rows, "references": references, "quick": args.quick})
    if args.docs is not None:
        write_table(args.docs, "baselines", BASELINES_HEAD, rows)
        write_table(args.docs, "references", REFERENCES_HEAD, references)
    print("\n".join([BASELINES_HEAD, *rows, "", REFERENCES_HEAD, *references]), flush=True)
    return {"rows": rows, "references": references}


if __name__ == "__main__":
    main()
