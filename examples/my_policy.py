"""Your own policy in a meeple tournament: a CleanRL-style torch agent rated against meeple's baselines.

    meeple evaluate --game roll_through_the_ages --agents py:examples.my_policy:policy heuristic --games 200
    python examples/my_policy.py --games 24            # against heuristic, mcts:32 and the shipped net

What it shows: `meeple evaluate --agents py:<module>:<name>` imports a policy from your own code (run from
the folder that holds the module, as `python -m` would find it) and plays it in the same seeded, seat-rotated
tournament as every other agent. The policy sees what a learner sees in the Gymnasium envs: a batch of
observations (the game's default encoding, for the seat to move) and legal-action masks, and answers
one action per row (`meeple.agents.external.Policy`: `act(observation, mask) -> actions`).

`policy` below is the agent of examples/cleanrl_masked_ppo.py (an `actor` head giving logits) behind
`meeple.agents.external.TorchPolicy`, which masks the illegal logits and takes the best legal move. Its
weights are a seeded initialisation, as a stand-in for yours: load trained ones in `build_policy` (with
`torch.load(path, weights_only=True)` or `safetensors.torch.load_file`, never a pickle you did not write).
The `main` below runs the same tournament from Python, with the policy object in place of its spec.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
import tyro

from meeple.agents.external import TorchPolicy
from meeple.envs import make, make_encoder

GAME = "roll_through_the_ages"


class Agent(nn.Module):
    """The shape of a CleanRL PPO agent: an actor (logits over the actions) and a critic (a value)."""

    def __init__(self, obs_dim: int, num_actions: int, hidden: int = 64) -> None:
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, num_actions))
        self.critic = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))


def build_policy(seed: int = 0) -> TorchPolicy:
    """The policy: an `Agent` sized for the game's observation and actions (load your weights here)."""
    game = make(GAME, num_players=2)
    torch.manual_seed(seed)
    agent = Agent(make_encoder(GAME, game).size, game.num_actions)
    return TorchPolicy(agent, name="my_policy")


policy = build_policy()  # what `py:examples.my_policy:policy` names


@dataclass
class Args:
    games: int = 24
    """games per tournament, rounded up to whole deals (every seating of each line-up)"""
    opponents: tuple[str, ...] = ("heuristic", "mcts:32", "net:roll_through_the_ages-2p")
    """the agents to rate the policy against (any `meeple evaluate` spec)"""
    seed: int = 0


def main(args: Args) -> None:
    from meeple.agents.external import PythonPolicyAgent
    from meeple.agents.tournament import run_tournament

    torch.set_num_threads(1)  # a small net: more threads only fight the rules kernels for the cores
    # the object itself (what the spec py:examples.my_policy:policy loads), so this runs from any folder
    agents = [PythonPolicyAgent(policy, GAME, name="my_policy"), *args.opponents]
    result = run_tournament(GAME, agents, 2, args.games, args.seed, {}, False)
    print(f"{GAME}, 2 players, {result['games']} games, seed {args.seed}")
    for agent in result["agents"]:
        lo, hi = agent["win_ci95"]
        print(f"{agent['name']:<29} win rate {agent['win_rate']:6.1%} [{lo:.1%}, {hi:.1%}]  mean score {agent['mean_score']:.1f}")


if __name__ == "__main__":
    main(tyro.cli(Args))
