"""MaskablePPO on Triage-v0, solo or against greedy, for a budget of steps, with a learning curve.

    python examples/ppo_triage.py --opponent none --seeds 2 --steps 8192 --out docs/baselines
    python examples/ppo_triage.py --opponent greedy --seeds 2 --steps 8192 --out docs/baselines

Each seed of the fixed list (``common.SEEDS``) trains one agent (sb3-contrib ``MaskablePPO``,
``observation="flat"``, ``normalize=True``; the masks come from ``action_masks()``) for
``--steps`` environment steps, evaluating it every ``--eval-every`` steps on the same
``--eval-games`` deals (seeds 10000 on). The greedy bot plays those deals too: its mean is the
line to beat. Results: ``<out>/ppo_<opponent>.json`` (means with 95% intervals over the final
evaluations of all seeds' games) and ``<out>/ppo_<opponent>.png``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SEEDS, Budget, interval, plot_curves, write_results

from triage.envs.references import EVAL_SEED, bot_scores, make_env


def evaluate(model: MaskablePPO, opponent: str, config: str, games: int) -> list[float]:
    """The agent's score (seat 0) on the evaluation deals, masked and deterministic."""
    env = make_env(opponent, config)
    scores = []
    for game in range(games):
        observation, info = env.reset(seed=EVAL_SEED + game)
        done = False
        while not done:
            action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
            observation, _, done, _, info = env.step(int(action))
        scores.append(float(info["score"]))
    return scores


class Curve(BaseCallback):
    """Evaluates every ``every`` steps and stops training when the budget is spent."""

    def __init__(self, budget: Budget, every: int, evaluate_now: object) -> None:
        super().__init__()
        self.budget, self.every, self.evaluate_now = budget, every, evaluate_now
        self.points: list[tuple[int, float]] = []

    def _on_step(self) -> bool:
        if self.num_timesteps % self.every == 0:
            self.points.append((self.num_timesteps, float(np.mean(self.evaluate_now()))))  # type: ignore[operator]
        return not self.budget.spent(self.num_timesteps)


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="none", help="none (solo) or a bot name (two players)")
    parser.add_argument("--config", default="default", help="a built-in configuration: default or mini")
    parser.add_argument("--seeds", type=int, default=3, help="how many of the fixed seeds to train")
    parser.add_argument("--steps", type=int, default=8192, help="environment steps per seed")
    parser.add_argument("--eval-every", type=int, default=4096)
    parser.add_argument("--eval-games", type=int, default=50)
    parser.add_argument("--greedy-games", type=int, default=0, help="deals greedy plays (0: --eval-games)")
    parser.add_argument("--n-steps", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=Path("runs"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    curves: dict[str, list[tuple[int, float]]] = {}
    finals: list[float] = []
    steps, cpu = [], []
    for seed in SEEDS[: args.seeds]:
        budget = Budget(args.steps)
        model = MaskablePPO(
            "MlpPolicy",
            make_env(args.opponent, args.config),
            n_steps=args.n_steps,
            batch_size=256,
            seed=seed,
            device="cpu",
            verbose=0,
        )
        curve = Curve(
            budget, args.eval_every, lambda: evaluate(model, args.opponent, args.config, args.eval_games)
        )
        model.learn(total_timesteps=10**9, callback=curve)
        final = evaluate(model, args.opponent, args.config, args.eval_games)
        curve.points.append((model.num_timesteps, float(np.mean(final))))
        curves[f"PPO seed {seed}"] = curve.points
        finals += final
        steps.append(model.num_timesteps)
        cpu.append(round(budget.cpu_seconds(), 1))
        print(f"seed {seed}: {model.num_timesteps} steps, final mean {np.mean(final):.2f}", flush=True)
    greedy = bot_scores("greedy", args.opponent, args.config, args.greedy_games or args.eval_games)
    results = {
        "opponent": args.opponent,
        "config": args.config,
        "seeds": list(SEEDS[: args.seeds]),
        "steps_per_seed": args.steps,
        "steps": steps,
        "cpu_seconds": cpu,
        "eval_games": args.eval_games,
        "ppo_score": interval(finals) if finals else None,
        "greedy_score": interval(greedy),
        "curves": curves,
    }
    name = f"ppo_{args.opponent}" + ("" if args.config == "default" else f"_{args.config}")
    name += "" if args.seeds else "_greedy_only"
    write_results(args.out, name, results)
    who = "solo" if args.opponent == "none" else f"against {args.opponent}"
    plot_curves(
        args.out,
        name,
        curves,
        "environment steps",
        "mean score (seat 0)",
        f"MaskablePPO on Triage-v0 ({who})",
        lines={"greedy": results["greedy_score"]["mean"]},
    )
    print(f"PPO {results['ppo_score']}, greedy {results['greedy_score']}", flush=True)
    return results


if __name__ == "__main__":
    main()
