"""Self-play with the PettingZoo -> SuperSuit -> SB3 recipe: one MaskablePPO plays every seat.

    python examples/selfplay_pettingzoo.py --config mini --seeds 2 --cpu-seconds 60 --out docs/baselines

The PettingZoo AEC environment (``observation="flat"``, masks in ``info["action_mask"]``) goes
through SuperSuit's ``dtype_v0`` and ``flatten_v0`` (``normalize=True`` scales it to [0, 1]); :class:`SelfPlay` then shows the turn
-based game to SB3 as one Gymnasium environment whose observation is always the seat to decide
(so one policy plays both seats) and whose ``action_masks()`` sb3-contrib's ``MaskablePPO`` finds.
A step's reward is the deciding seat's own (``returns="margin"``). The agent is then measured in
seat 0 against greedy on fixed deals, beside greedy against greedy on the same deals. Results:
``<out>/selfplay_<config>.json`` (margins with 95% intervals) and ``<out>/selfplay_<config>.png``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from supersuit import dtype_v0, flatten_v0

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SEEDS, Budget, interval, plot_curves, write_results

from triage.bots import make_bot
from triage.envs.pettingzoo import env as pettingzoo_env

EVAL_SEED = 20000


class SelfPlay(gymnasium.Env):  # type: ignore[type-arg]
    """A SuperSuit-wrapped turn-based PettingZoo game as one Gymnasium environment."""

    def __init__(self, config: str) -> None:
        game = pettingzoo_env(players=2, observation="flat", normalize=True, returns="margin", config=config)
        self.zoo = flatten_v0(dtype_v0(game, np.float32))
        first = self.zoo.possible_agents[0]
        self.observation_space = self.zoo.observation_space(first)
        self.action_space = self.zoo.action_space(first)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        self.zoo.reset(seed=seed)
        observation, _, _, _, info = self.zoo.last()
        self._mask = info["action_mask"]
        return observation, {}

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        agent = self.zoo.agent_selection
        self.zoo.step(int(action))
        reward = float(self.zoo.rewards[agent])
        observation, _, termination, truncation, info = self.zoo.last()
        self._mask = info.get("action_mask", np.ones(self.action_space.n, np.int8))
        return observation, reward, bool(termination or truncation), False, {}


def margins(config: str, seat0: Any, games: int) -> list[float]:
    """Seat 0's final margin against greedy in seat 1 on the evaluation deals; ``seat0`` is a
    model (masked, deterministic) or a bot."""
    environment = SelfPlay(config)
    raw = environment.zoo.unwrapped
    greedy = make_bot("greedy")
    results = []
    for game in range(games):
        observation, _ = environment.reset(seed=EVAL_SEED + game)
        rng = random.Random(game)
        while not raw.table.game.is_over():
            seat = raw.table.game.turn
            if seat == 0 and isinstance(seat0, MaskablePPO):
                action = int(
                    seat0.predict(observation, action_masks=environment.action_masks(), deterministic=True)[0]
                )
            else:
                bot = greedy if seat == 1 else seat0
                table = raw.table
                action = table.layout.encode(
                    table.view(seat), bot.choose(table.view(seat), table.game.legal_actions(), rng)
                )
            observation, _, _, _, _ = environment.step(action)
        scores = raw.table.game.scores()
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
        return not self.budget.spent()


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="mini", help="a built-in configuration: mini or default")
    parser.add_argument("--seeds", type=int, default=2, help="how many of the fixed seeds to train")
    parser.add_argument("--cpu-seconds", type=float, default=60.0, help="CPU budget per seed")
    parser.add_argument("--eval-every", type=int, default=4096)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--n-steps", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=Path("runs"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    curves, finals = {}, []
    for seed in SEEDS[: args.seeds]:
        model = MaskablePPO(
            "MlpPolicy",
            SelfPlay(args.config),
            n_steps=args.n_steps,
            batch_size=256,
            seed=seed,
            device="cpu",
            verbose=0,
        )
        curve = Curve(Budget(args.cpu_seconds), args.eval_every, args.config, args.eval_games)
        model.learn(total_timesteps=10**9, callback=curve)
        final = margins(args.config, model, args.eval_games)
        curve.points.append((model.num_timesteps, float(np.mean(final))))
        curves[f"self-play PPO seed {seed}"] = curve.points
        finals += final
    greedy = margins(args.config, make_bot("greedy"), args.eval_games)
    results = {
        "config": args.config,
        "seeds": list(SEEDS[: args.seeds]),
        "cpu_seconds_per_seed": args.cpu_seconds,
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
        f"Self-play MaskablePPO (PettingZoo, SuperSuit, SB3), config {args.config}",
        lines={"greedy vs greedy": results["greedy_margin_vs_greedy"]["mean"]},
    )
    print(
        f"self-play {results['ppo_margin_vs_greedy']}, greedy {results['greedy_margin_vs_greedy']}",
        flush=True,
    )
    return results


if __name__ == "__main__":
    main()
