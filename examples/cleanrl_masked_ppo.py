"""Masked PPO in one file, CleanRL style, on meeple's Gymnasium vector env (torch only; no Stable-Baselines3).

    python examples/cleanrl_masked_ppo.py --total-timesteps 200_000
    python examples/cleanrl_masked_ppo.py --game hadara --num-players 3 --num-envs 32

What it shows: `BoardGameVectorEnv` is an ordinary `gymnasium.vector.VectorEnv`, so a CleanRL-shaped PPO
loop trains on it unchanged except for one thing board games need, the action mask. The learner plays one
seat of `num_envs` games against `--opponents` (random legal play by default), which move inside `step`;
the reward is the game's result at the end (+1 win, -1 loss, 0 a shared first place at 2 players).

- **Masking.** Every row is always at a live decision of the learner (autoreset is SAME_STEP: a finished
  game's row starts its next game within the same step), so `infos["action_mask"]` is the legal moves of
  the position each observation shows. Illegal logits are set to a large negative number before the
  softmax, both when acting and when the update recomputes log-probabilities (the masks are stored with
  the rollout), so the policy never samples, and is never pushed towards, an illegal move; the entropy
  counts legal moves only. (Masking beats penalising illegal moves: no transition is wasted on them.)
- **Episode boundaries.** With SAME_STEP autoreset `next_obs` after a finished game is already the next
  game's first observation, and `done` says so; GAE stops bootstrapping there (truncation, which only
  Attika's round cap produces, is treated as the end too: the reward is the game's result either way).
- **torch threads = 1**, set first: the network is small, and on a small machine (2 cores here) torch's
  default of one thread per core fights the env for the same cores and makes each update several times
  slower. Raise it on a big machine with a big network.

It prints learner steps/s (the opponents' moves are inside each step, not counted) and the mean return of
the episodes finished since the last report, every `--log-every` updates, and a last line with the totals.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import tyro

from meeple.envs.vector import BoardGameVectorEnv

torch.set_num_threads(1)  # first thing, before any torch work builds its thread pool: see the docstring


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    """registered game (meeple.envs.GAMES)"""
    num_players: int = 2
    """players per game; the learner's seat rotates by episode"""
    opponents: str = "random"
    """opponent agent spec: random, heuristic, mcts:N, ppo:<path>"""
    seed: int = 1
    """seeds torch, numpy and the env's streams"""
    total_timesteps: int = 200_000
    """learner steps to train for (the budget)"""
    num_envs: int = 16
    """games in the batch"""
    num_steps: int = 128
    """steps per game per rollout (a rollout is num_envs * num_steps transitions)"""
    learning_rate: float = 2.5e-4
    """Adam step size, annealed linearly to 0"""
    gamma: float = 0.995
    """discount: close to 1, the only reward comes at the end of the game (tens of decisions later)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """passes over each rollout"""
    clip_coef: float = 0.2
    """PPO's ratio clip"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    hidden: int = 128
    """units in each of the two hidden layers of the actor and of the critic"""
    log_every: int = 5
    """print a report every this many updates"""


def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    """A linear layer with CleanRL's orthogonal initialisation."""
    linear = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    """Separate actor and critic MLPs; the actor's logits are masked to the legal actions."""

    def __init__(self, obs_dim: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0))
        self.actor = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, num_actions, 0.01))

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        """(action, its log-probability, the policy's entropy over the legal moves, value) for observations x."""
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))  # illegal moves get probability 0
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        p_log_p = torch.where(mask, dist.probs * dist.logits, torch.tensor(0.0))  # 0 * -1e8 stays out of it
        return action, dist.log_prob(action), -p_log_p.sum(-1), self.critic(x).squeeze(-1)


def main(args: Args) -> dict:
    # --- seeding and env ---
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    envs = BoardGameVectorEnv(args.game, num_envs=args.num_envs, num_players=args.num_players, opponents=args.opponents)
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    num_actions = int(envs.single_action_space.n)
    agent = Agent(obs_dim, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_updates = max(1, args.total_timesteps // batch_size)
    print(f"{args.game}, {envs.num_players} players vs {args.opponents}: obs {obs_dim}, {num_actions} actions, "
          f"{num_updates} updates of {batch_size} steps", flush=True)

    # --- rollout storage (the masks too: the update recomputes log-probabilities under the same masks) ---
    obs = torch.zeros((args.num_steps, args.num_envs, obs_dim))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    next_obs_np, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs_np)
    next_mask = torch.as_tensor(infos["action_mask"])
    next_done = torch.zeros(args.num_envs)
    recent: deque[float] = deque(maxlen=1000)  # returns of the episodes finished since the last report
    episodes = global_step = 0
    start = time.perf_counter()

    for update in range(1, num_updates + 1):
        for group in optimizer.param_groups:  # linear learning-rate annealing
            group["lr"] = (1.0 - (update - 1.0) / num_updates) * args.learning_rate

        # --- collect a rollout ---
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step], actions[step], logprobs[step] = value, action, logprob
            next_obs_np, reward, terminated, truncated, infos = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs_np)
            next_mask = torch.as_tensor(infos["action_mask"])
            next_done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            if "final_info" in infos:  # the finished games' statistics (their rows have started the next game)
                finished = infos["final_info"]["_episode"]
                recent.extend(infos["final_info"]["episode"]["r"][finished].tolist())
                episodes += int(finished.sum())

        # --- generalized advantage estimation (a done at t + 1 means obs t + 1 began a new game) ---
        with torch.no_grad():
            next_value = agent.get_value(next_obs).squeeze(-1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                nextnonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values

        # --- PPO update: clipped surrogate, value loss, entropy bonus ---
        b_obs, b_masks = obs.reshape(-1, obs_dim), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.update_epochs):
            order = torch.randperm(batch_size)
            for lo in range(0, batch_size, minibatch_size):
                mb = order[lo:lo + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        if update % args.log_every == 0 or update == num_updates:
            sps = global_step / (time.perf_counter() - start)
            mean = f"{np.mean(recent):+.3f} over {len(recent)} episodes" if recent else "no episode finished yet"
            print(f"update {update}/{num_updates}  step {global_step}  {sps:,.0f} steps/s  mean episode return {mean}",
                  flush=True)
            recent.clear()

    seconds = time.perf_counter() - start
    envs.close()
    result = {"steps": global_step, "seconds": round(seconds, 2), "steps_per_s": round(global_step / seconds, 1),
              "episodes": episodes}
    print(f"done: {global_step} steps in {seconds:.1f} s ({result['steps_per_s']:,.0f} steps/s), {episodes} episodes",
          flush=True)
    return result


if __name__ == "__main__":
    main(tyro.cli(Args))
