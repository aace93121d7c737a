"""A meeple PettingZoo AEC env trained with sb3-contrib's MaskablePPO, the way PettingZoo's SB3 tutorial does it.

    python examples/pettingzoo_sb3_action_mask.py --total-timesteps 20_000 --eval-games 100

What it shows: a meeple game is a standard PettingZoo AEC env (`meeple.envs.make_env`), so PettingZoo's
documented recipe for action-masked PPO works on it: a `pettingzoo.utils.BaseWrapper` subclass turns the AEC
env into a single-agent Gymnasium env whose observation is the `"observation"` entry of the AEC observation
and whose `action_masks()` method returns the `"action_mask"` entry (the method name MaskablePPO looks for,
so no `ActionMasker` is needed); MaskablePPO trains on it; then the trained policy plays games against
random legal play through the plain AEC loop (`agent_iter` / `last` / `step`) and the win rate is printed,
next to the untrained policy's on the same games.

Where this wrapper differs from the tutorial's, and why:

- **One learner seat, opponents inside `step`.** The tutorial lets the one policy play every seat and
  returns the reward of the agent that just moved together with the observation of the agent to move
  next. For a game whose only reward is the result at the end, that puts both seats' positions into one
  trajectory with one value function, and only the last mover's result is ever seen. Here each episode
  seats the learner (rotating by episode) and the wrapper plays the other seats with an opponent policy
  (random legal moves by default) until it is the learner's turn again, so every transition is the
  learner's own and the reward is its own result when the game ends. (For training at speed, the
  batched `meeple.envs.vector.BoardGameVectorEnv` does the same for many games at once; see
  examples/cleanrl_masked_ppo.py.)
- **Also a `gymnasium.Env`.** Stable-Baselines3 wraps any env it is given in `Monitor`, a Gymnasium
  wrapper, which only accepts `gymnasium.Env` instances; a plain `BaseWrapper` is not one (which is why
  the tutorial pins gymnasium 0.29), so the wrapper subclasses both.
- **Spaces are set once in `__init__`** rather than in `reset`: every seat has the same spaces, and SB3
  reads them when the model is built.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
import pettingzoo.utils
import torch
import tyro
from sb3_contrib import MaskablePPO

from meeple.envs import make_env

torch.set_num_threads(1)  # a small network on a small machine: one thread avoids oversubscribing the cores

Policy = Callable[[np.ndarray, np.ndarray], int]  # (observation, action mask) -> action


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    """registered game (meeple.envs.GAMES)"""
    num_players: int = 2
    """players per game; the learner's seat rotates by episode"""
    total_timesteps: int = 20_000
    """learner steps to train for (the budget)"""
    n_steps: int = 1024
    """MaskablePPO rollout length"""
    batch_size: int = 256
    """MaskablePPO minibatch size"""
    gamma: float = 0.995
    """discount: close to 1, the only reward comes at the end of the game"""
    eval_games: int = 100
    """games against random play, before and after training (the learner's seat rotates)"""
    seed: int = 0
    """seeds the model, the training env and the evaluation games"""


def random_policy(rng: np.random.Generator) -> Policy:
    """Uniformly random legal moves."""
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """A PettingZoo AEC env as a single-agent Gymnasium env for MaskablePPO: one learner seat, the other seats
    played by `opponent` inside `reset` and `step`; see the module docstring."""

    def __init__(self, env: Any, opponent: Policy) -> None:
        super().__init__(env)
        first = env.possible_agents[0]
        self.observation_space = env.observation_space(first)["observation"]  # the mask goes to action_masks()
        self.action_space = env.action_space(first)
        self.opponent = opponent
        self.learner = first
        self.episodes = 0

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new game with the learner in the next seat, played up to the learner's first decision."""
        super().reset(seed=seed, options=options)
        self.learner = self.possible_agents[self.episodes % len(self.possible_agents)]
        self.episodes += 1
        self._play_opponents()
        return self.observe(self.learner), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's move, then the opponents' until the learner's turn or the end of the game. The reward
        is what the learner collected since its last move: its result in the step that ends the game."""
        super().step(int(action))
        self._play_opponents()
        learner = self.learner
        return (self.observe(learner), float(self._cumulative_rewards[learner]), bool(self.terminations[learner]),
                bool(self.truncations[learner]), dict(self.infos[learner]))

    def observe(self, agent: str) -> np.ndarray:
        """The observation alone (the action mask is left to `action_masks`)."""
        return super().observe(agent)["observation"]

    def action_masks(self) -> np.ndarray:
        """The learner's legal moves as a bool array (MaskablePPO calls this before every action)."""
        return super().observe(self.learner)["action_mask"].astype(bool)

    def _play_opponents(self) -> None:
        while not self._game_over() and self.agent_selection != self.learner:
            full = super().observe(self.agent_selection)
            super().step(self.opponent(full["observation"], full["action_mask"]))

    def _game_over(self) -> bool:
        return self.terminations[self.learner] or self.truncations[self.learner]


def play(env: Any, policy: Policy, opponent: Policy, games: int, seed: int) -> dict:
    """`games` AEC games of `policy` against `opponent`, the policy's seat rotating; wins count 1, a shared
    first place 1/k. PettingZoo's own loop: every agent, `last()`, `step()`; each agent's result is the
    reward `last()` shows it once the game is over (the dead step that follows removes it from `rewards`)."""
    score = 0.0
    for g in range(games):
        env.reset(seed=seed + g)
        me = env.possible_agents[g % len(env.possible_agents)]
        result = {}
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                result[agent] = reward
                action = None
            else:
                action = (policy if agent == me else opponent)(obs["observation"], obs["action_mask"])
            env.step(action)
        best = max(result.values())
        if result[me] == best:
            score += 1.0 / sum(r == best for r in result.values())
    return {"games": games, "win_rate": score / games}


def main(args: Args) -> dict:
    rng = np.random.default_rng(args.seed)
    env = SB3ActionMaskWrapper(make_env(args.game, num_players=args.num_players), random_policy(rng))
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size, gamma=args.gamma,
                        seed=args.seed, device="cpu", verbose=0)

    def trained(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(model.predict(observation, action_masks=mask.astype(bool), deterministic=True)[0])

    eval_env = make_env(args.game, num_players=args.num_players)
    eval_opponent = random_policy(np.random.default_rng(args.seed + 1))
    before = play(eval_env, trained, eval_opponent, args.eval_games, seed=10_000)

    start = time.perf_counter()
    model.learn(total_timesteps=args.total_timesteps)
    seconds = time.perf_counter() - start
    steps = int(model.num_timesteps)
    print(f"trained: {steps} steps in {seconds:.1f} s ({steps / seconds:,.0f} steps/s)", flush=True)

    eval_opponent = random_policy(np.random.default_rng(args.seed + 1))  # the same opponent moves as before
    after = play(eval_env, trained, eval_opponent, args.eval_games, seed=10_000)
    print(f"win rate against random over {args.eval_games} games: {after['win_rate']:.1%} "
          f"(untrained: {before['win_rate']:.1%})", flush=True)
    return {"steps": steps, "seconds": round(seconds, 2), "steps_per_s": round(steps / seconds, 1),
            "win_rate": after["win_rate"], "win_rate_untrained": before["win_rate"]}


if __name__ == "__main__":
    main(tyro.cli(Args))
