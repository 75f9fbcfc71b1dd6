"""NFSP and DQN (OpenSpiel's PyTorch agents) on the mini variant, measured by exact NashConv.

    python examples/nfsp_dqn_mini.py --algo nfsp --seeds 2 --steps 20000 --out docs/baselines
    python examples/nfsp_dqn_mini.py --algo dqn --seeds 2 --steps 20000 --out docs/baselines

Two agents, one per seat, learn in self-play on ``triage(config=mini, returns=margin)`` through
OpenSpiel's ``rl_environment`` (the perfect-recall ``information_state_tensor``), for each seed of
the fixed list for ``--steps`` environment steps. Every ``--eval-every`` episodes the joint policy
(NFSP: the average policy; DQN: the greedy one) is measured by ``exploitability.nash_conv`` on the
whole tree (the mini game is small enough for an exact number). Results: ``<out>/<algo>_mini.json``
(final NashConv, mean with a 95% interval over the seeds) and ``<out>/<algo>_mini.png``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pyspiel
import torch
from open_spiel.python import policy, rl_environment
from open_spiel.python.algorithms import exploitability
from open_spiel.python.pytorch import dqn, nfsp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SEEDS, Budget, interval, plot_curves, write_results

import triage.envs.openspiel  # noqa: F401 - registers the game


class JointPolicy(policy.Policy):
    """The agents' policies as one OpenSpiel policy (each answer kept per information state)."""

    def __init__(self, game: Any, agents: list[Any], algo: str) -> None:
        super().__init__(game, [0, 1])
        self.agents, self.algo = agents, algo
        self.answers: dict[str, dict[int, float]] = {}

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player()
        key = state.information_state_string(player)
        if key not in self.answers:
            legal = state.legal_actions(player)
            observations = {
                "info_state": [None, None],
                "legal_actions": [None, None],
                "current_player": player,
            }
            observations["info_state"][player] = state.information_state_tensor(player)
            observations["legal_actions"][player] = legal
            step = rl_environment.TimeStep(
                observations=observations, rewards=None, discounts=None, step_type=None
            )
            agent = self.agents[player]
            if self.algo == "nfsp":
                with agent.temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                    probs = agent.step(step, is_evaluation=True).probs
            else:
                probs = agent.step(step, is_evaluation=True).probs
            self.answers[key] = {action: float(probs[action]) for action in legal}
        return self.answers[key]


def make_agents(algo: str, size: int, actions: int, seed: int) -> list[Any]:
    if algo == "nfsp":
        return [
            nfsp.NFSP(
                player_id=p,
                state_representation_size=size,
                num_actions=actions,
                hidden_layers_sizes=[64],
                reservoir_buffer_capacity=100000,
                anticipatory_param=0.1,
                batch_size=64,
                min_buffer_size_to_learn=500,
                learn_every=32,
                seed=seed + p,
                replay_buffer_capacity=20000,
                epsilon_start=0.1,
                epsilon_end=0.0,
            )
            for p in range(2)
        ]
    return [
        dqn.DQN(
            player_id=p,
            state_representation_size=size,
            num_actions=actions,
            hidden_layers_sizes=[64],
            batch_size=64,
            min_buffer_size_to_learn=500,
            learn_every=8,
            epsilon_decay_duration=20000,
            update_target_network_every=500,
            seed=seed + p,
        )
        for p in range(2)
    ]


def train(
    algo: str, seed: int, budget: Budget, eval_every: int, deal: int
) -> tuple[list[tuple[int, float]], int]:
    game = pyspiel.load_game("triage", {"config": "mini", "returns": "margin", "seed": deal})
    env = rl_environment.Environment(game, seed=seed)
    size = env.observation_spec()["info_state"][0]
    agents = make_agents(algo, size, env.action_spec()["num_actions"], seed)
    curve = [(0, exploitability.nash_conv(game, JointPolicy(game, agents, algo)))]
    episode = steps = 0
    while not budget.spent(steps):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([agents[player].step(time_step).action])
            steps += 1
        for agent in agents:
            agent.step(time_step)
        episode += 1
        if episode % eval_every == 0:
            curve.append((episode, exploitability.nash_conv(game, JointPolicy(game, agents, algo))))
            print(f"{algo} seed {seed} episode {episode}: NashConv {curve[-1][1]:.4f}", flush=True)
    if curve[-1][0] != episode:
        curve.append((episode, exploitability.nash_conv(game, JointPolicy(game, agents, algo))))
    return curve, episode


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algo", choices=("nfsp", "dqn"), default="nfsp")
    parser.add_argument("--seeds", type=int, default=2, help="how many of the fixed seeds to train")
    parser.add_argument("--steps", type=int, default=20000, help="environment steps per seed")
    parser.add_argument("--eval-every", type=int, default=2000, help="episodes between NashConv measures")
    parser.add_argument(
        "--deal", type=int, default=-1, help="-1: every deal (the chance node); N: deal N only"
    )
    parser.add_argument("--out", type=Path, default=Path("runs"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    curves, finals, episodes = {}, [], []
    for seed in SEEDS[: args.seeds]:
        curve, done = train(args.algo, seed, Budget(args.steps), args.eval_every, args.deal)
        curves[f"{args.algo.upper()} seed {seed}"] = curve
        finals.append(curve[-1][1])
        episodes.append(done)
    results = {
        "algo": args.algo,
        "game": f"triage(config=mini,returns=margin,seed={args.deal})",
        "seeds": list(SEEDS[: args.seeds]),
        "steps_per_seed": args.steps,
        "episodes": episodes,
        "final_nash_conv": interval(finals),
        "curves": curves,
    }
    write_results(args.out, f"{args.algo}_mini", results)
    plot_curves(
        args.out,
        f"{args.algo}_mini",
        curves,
        "episodes",
        "NashConv",
        f"{args.algo.upper()} self-play on triage(config=mini)",
    )
    print(f"{args.algo}: final NashConv {results['final_nash_conv']}", flush=True)
    return results


if __name__ == "__main__":
    main()
