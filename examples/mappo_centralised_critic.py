"""MAPPO-style self-play in one file: decentralised actors, a centralised critic on PettingZoo's `state()`.

    python examples/mappo_centralised_critic.py --updates 50
    python examples/mappo_centralised_critic.py --game hadara --num-players 3

What it shows: the AEC env's `env.state()` is the global state a centralised critic reads (the joint
observation: every seat's encoded observation, seat 0 first; `env.state_space`), while each actor sees
only its own observation and mask, as in MAPPO (centralised training, decentralised execution).

- **One shared actor** for every seat: masked logits on `observe(agent)["observation"]`, so it never
  samples an illegal move.
- **The critic** maps `env.state()` to one value per seat. It may use every seat's private view because it
  is used in training only; playing needs the actor alone.
- **Returns.** The reward is the game's result at the end (rank-based in [-1, 1]), so the return of every
  decision is its seat's result (no discount), and the advantage is that result minus the critic's value
  of the position for that seat.
- **torch threads = 1**: the networks are small; on a small machine torch's default thread pool fights the
  env for the cores.

Every `--log-every` updates it prints the games played and the critic's loss; at the end, the actor alone
(seat rotating) against random legal play.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import tyro

from meeple.envs import make_env

torch.set_num_threads(1)  # before any torch work builds its thread pool: see the docstring


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    """registered game (meeple.envs.GAMES)"""
    num_players: int = 2
    """players per game, every seat played by the shared actor"""
    seed: int = 1
    """seeds torch, numpy and the env"""
    updates: int = 30
    """PPO updates to run"""
    games_per_update: int = 8
    """self-play games collected per update"""
    epochs: int = 4
    """passes over each update's decisions"""
    learning_rate: float = 3e-4
    clip: float = 0.2
    """PPO's clipping of the probability ratio"""
    eval_games: int = 50
    """games of the trained actor against random at the end"""
    log_every: int = 5


def mlp(inputs: int, outputs: int) -> nn.Module:
    return nn.Sequential(nn.Linear(inputs, 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh(), nn.Linear(128, outputs))


def masked_logits(actor: nn.Module, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return actor(obs).masked_fill(~mask, -1e9)


def play(env, actor: nn.Module, rng: np.random.Generator, learner_seats: set[int] | None = None) -> tuple[list, np.ndarray]:
    """One game. Seats in `learner_seats` (all when None) act with the actor, the others at random among
    the legal moves; returns the actor's decisions (seat, obs, mask, action, log-prob, global state) and
    the game's result per seat."""
    env.reset(seed=int(rng.integers(2**31)))
    decisions, result = [], np.zeros(env.game.num_players)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        seat = env.agent_name_mapping[agent]
        if terminated or truncated:
            result[seat] = reward  # the seat's result, handed over as it leaves
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        if learner_seats is None or seat in learner_seats:
            with torch.no_grad():
                logits = masked_logits(actor, torch.as_tensor(obs["observation"])[None], torch.as_tensor(mask)[None])
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
            decisions.append((seat, obs["observation"], mask, int(action), float(dist.log_prob(action)), env.state()))
            env.step(int(action))
        else:
            env.step(int(rng.choice(np.flatnonzero(mask))))
    return decisions, result


def main(args: Args) -> None:
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    env = make_env(args.game, num_players=args.num_players)
    env.reset(seed=args.seed)
    obs_size = env.observation_space(env.possible_agents[0])["observation"].shape[0]
    state_size, P = env.state_space.shape[0], env.game.num_players
    actor, critic = mlp(obs_size, env.game.num_actions), mlp(state_size, P)
    optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=args.learning_rate)
    print(f"{args.game}, {P} players, self-play: observation {obs_size}, global state {state_size}, "
          f"{env.game.num_actions} actions, {args.updates} updates")
    start, games, decisions_seen = time.perf_counter(), 0, 0
    for update in range(1, args.updates + 1):
        batch = []
        for _ in range(args.games_per_update):
            decisions, result = play(env, actor, rng)
            batch += [(*d, result[d[0]]) for d in decisions]
        games += args.games_per_update
        decisions_seen += len(batch)
        seat, obs, mask, action, logp, state, ret = (np.array(column) for column in zip(*batch))
        seat, action = torch.as_tensor(seat), torch.as_tensor(action)
        obs, mask, state = torch.as_tensor(obs), torch.as_tensor(mask), torch.as_tensor(state)
        logp, ret = torch.as_tensor(logp, dtype=torch.float32), torch.as_tensor(ret, dtype=torch.float32)
        for _ in range(args.epochs):
            value = critic(state).gather(1, seat[:, None])[:, 0]  # the critic's value for the seat that moved
            advantage = (ret - value).detach()
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            dist = torch.distributions.Categorical(logits=masked_logits(actor, obs, mask))
            ratio = torch.exp(dist.log_prob(action) - logp)
            policy_loss = -torch.min(ratio * advantage, ratio.clamp(1 - args.clip, 1 + args.clip) * advantage).mean()
            critic_loss = ((value - ret) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + 0.5 * critic_loss - 0.01 * dist.entropy().mean()).backward()
            nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], 0.5)
            optimizer.step()
        if update % args.log_every == 0 or update == args.updates:
            print(f"update {update}/{args.updates}  games {games}  decisions {decisions_seen}  "
                  f"critic loss {critic_loss.item():.3f}")
    wins = 0.0
    for i in range(args.eval_games):
        _, result = play(env, actor, rng, learner_seats={i % P})
        wins += float(result[i % P] == result.max()) / max(1, int((result == result.max()).sum()))
    print(f"done: {games} games in {time.perf_counter() - start:.1f} s; the actor alone against random: "
          f"{100 * wins / max(1, args.eval_games):.1f}% of {args.eval_games} games won")


if __name__ == "__main__":
    main(tyro.cli(Args))
