"""Self-play through PettingZoo without glue: one MaskablePPO plays against itself.

    python examples/selfplay_pettingzoo.py --config mini --seeds 2 --steps 8192 --out docs/baselines

The PettingZoo AEC environment goes through :class:`triage.envs.selfplay.SelfPlayEnv`: one
Gymnasium environment whose learner takes each seat in turn, episode by episode, while the
model itself (``set_opponent(model)``) plays the other seat; ``action_masks()`` is what
sb3-contrib's ``MaskablePPO`` asks for, and the reward is the learner seat's own
(``returns="margin"``). Each seed trains for ``--steps`` environment steps. The agent is then
measured in seat 0 against greedy on fixed deals, beside greedy against greedy on the same
deals. Results: ``<out>/selfplay_<config>.json`` (margins with 95% intervals) and
``<out>/selfplay_<config>.png``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SEEDS, Budget, interval, plot_curves, write_results

from triage.bots import make_bot
from triage.engine import view
from triage.envs.pettingzoo import env as pettingzoo_env
from triage.envs.selfplay import SelfPlayEnv

EVAL_SEED = 20000


def self_play(config: str) -> SelfPlayEnv:
    """The training environment: both seats in turn, the other one played by the opponent set."""
    return SelfPlayEnv(pettingzoo_env(players=2, normalize=True, returns="margin", config=config))


def margins(config: str, seat0: Any, games: int) -> list[float]:
    """Seat 0's final margin against greedy in seat 1 (played inside the PettingZoo environment,
    ``opponents``) on the evaluation deals; ``seat0`` is a model (masked, deterministic) or a bot."""
    environment = SelfPlayEnv(
        pettingzoo_env(players=2, normalize=True, returns="margin", config=config, opponents="greedy")
    )
    raw = environment.aec.unwrapped
    results = []
    for game in range(games):
        observation, _ = environment.reset(seed=EVAL_SEED + game)
        rng = random.Random(game)
        done = False
        while not done:
            if isinstance(seat0, MaskablePPO):
                action = int(
                    seat0.predict(observation, action_masks=environment.action_masks(), deterministic=True)[0]
                )
            else:
                table = raw.table  # type: ignore[attr-defined]
                choice = seat0.choose(view(table.game, 0), table.game.legal_actions(), rng)
                action = table.layout.encode(table.view(0), choice)
            observation, _, done, _, _ = environment.step(action)
        scores = raw.table.game.scores()  # type: ignore[attr-defined]
        results.append(float(scores[0] - scores[1]))
    return results


class Curve(BaseCallback):
    def __init__(self, budget: Budget, every: int, config: str, games: int) -> None:
        super().__init__()
        self.budget, self.every, self.config, self.games = budget, every, config, games
        self.points: list[tuple[int, float]] = []

    def _on_step(self) -> bool:
        if self.num_timesteps % self.every == 0:
            self.points.append(
                (self.num_timesteps, float(np.mean(margins(self.config, self.model, self.games))))
            )
        return not self.budget.spent(self.num_timesteps)


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="mini", help="a built-in configuration: mini or default")
    parser.add_argument("--seeds", type=int, default=2, help="how many of the fixed seeds to train")
    parser.add_argument("--steps", type=int, default=8192, help="environment steps per seed")
    parser.add_argument("--eval-every", type=int, default=4096)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--n-steps", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=Path("runs"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    curves, finals, cpu = {}, [], []
    for seed in SEEDS[: args.seeds]:
        training = self_play(args.config)
        model = MaskablePPO(
            "MlpPolicy",
            training,
            n_steps=args.n_steps,
            batch_size=256,
            seed=seed,
            device="cpu",
            verbose=0,
        )
        training.set_opponent(model)  # self-play: the model plays the other seat
        budget = Budget(args.steps)
        curve = Curve(budget, args.eval_every, args.config, args.eval_games)
        model.learn(total_timesteps=10**9, callback=curve)
        cpu.append(round(budget.cpu_seconds(), 1))
        final = margins(args.config, model, args.eval_games)
        curve.points.append((model.num_timesteps, float(np.mean(final))))
        curves[f"self-play PPO seed {seed}"] = curve.points
        finals += final
    greedy = margins(args.config, make_bot("greedy"), args.eval_games)
    results = {
        "config": args.config,
        "seeds": list(SEEDS[: args.seeds]),
        "steps_per_seed": args.steps,
        "cpu_seconds": cpu,
        "eval_games": args.eval_games,
        "ppo_margin_vs_greedy": interval(finals),
        "greedy_margin_vs_greedy": interval(greedy),
        "curves": curves,
    }
    write_results(args.out, f"selfplay_{args.config}", results)
    plot_curves(
        args.out,
        f"selfplay_{args.config}",
        curves,
        "environment steps",
        "seat 0 margin vs greedy",
        f"Self-play MaskablePPO (PettingZoo, SelfPlayEnv, SB3), config {args.config}",
        lines={"greedy vs greedy": results["greedy_margin_vs_greedy"]["mean"]},
    )
    print(
        f"self-play {results['ppo_margin_vs_greedy']}, greedy {results['greedy_margin_vs_greedy']}",
        flush=True,
    )
    return results


if __name__ == "__main__":
    main()
