"""Train a MaskablePPO agent on a meeple game by self-play (CleanRL-style: one file, top to bottom).

    python train.py --game roll_through_the_ages --num-players 2 --time-limit-minutes 29.5 \
        --total-timesteps 100_000_000 --eval-every 500_000 --eval-games 500   # the defaults: warm start + kickstarting
    tensorboard --logdir runs

The learner takes every seat in turn against a weighted pool of opponents (--opponents, then frozen
snapshots of itself every --snapshot-every steps) that play inside `SelfPlayVecEnv`; rewards are the
game's returns at the end. First (--imitation-steps, inside the time limit) the policy is warm-started from
--teacher: the teacher plays the learner's seat, its actions are cloned and the value head fit to the returns.
PPO then fine-tunes with a decaying cloning term (--bc-coef) on its own states labelled by the teacher (set
--imitation-steps 0 --bc-coef 0 for plain self-play). Every --eval-every steps the greedy policy plays --eval-games
seeded games against each --eval-opponents (seats rotated); win rates go to TensorBoard and runs/<name>/summary.json.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import tyro
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure

from meeple.agents import make_agent
from meeple.agents.policy import FrozenPolicyAgent, evaluate_policy, imitation_steps, warm_start
from meeple.envs.selfplay import SelfPlayVecEnv


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    """registered game (a key of meeple.envs.GAMES)"""
    num_players: int = 2
    """players per game; the learner takes each seat in turn"""
    variant: str = "{}"
    """the game's variant flags as JSON, e.g. '{"trade": true}'"""
    exp_name: str = ""
    """run name; default <game>_<P>p_s<seed>_<date-time>"""
    run_dir: str = "runs"
    """parent folder of <name>/model.zip, <name>/summary.json and <name>/tb (TensorBoard + progress.csv)"""
    seed: int = 1
    """seeds python, numpy, torch, the env's streams and the evaluation games"""
    total_timesteps: int = 2_000_000
    """learner decisions to train for (opponent moves are not counted)"""
    time_limit_minutes: float = 0.0
    """stop learning after this wall-clock budget (0 = no limit); the final eval and save still run"""
    torch_threads: int = 1
    """torch intra-op threads: a small MLP gains little from more, and the env needs a core too"""
    progress_bar: bool = True
    """show SB3's progress bar (tqdm + rich)"""

    # --- PPO (sb3-contrib MaskablePPO, MlpPolicy) ---
    n_envs: int = 64
    """games in the self-play batch (VecEnv rows)"""
    n_steps: int = 128
    """learner steps per row per rollout; a rollout holds n_envs * n_steps transitions"""
    batch_size: int = 4096
    """minibatch size of the PPO update"""
    n_epochs: int = 4
    """passes over each rollout"""
    learning_rate: float = 1e-4
    """Adam step size (small: fine-tuning the warm-started policy)"""
    gamma: float = 0.995
    """discount; close to 1 because the only reward is the result at the end (~75 decisions later)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.1
    """PPO ratio clip"""
    ent_coef: float = 0.003
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    net_arch: tuple[int, ...] = (256, 256)
    """hidden layers of the policy and of the (separate) value network"""

    # --- opponents ---
    opponents: tuple[str, ...] = ("random", "heuristic")
    """initial opponent pool (make_agent specs)"""
    opponent_weights: tuple[float, ...] = (1.0, 4.0)
    """draw weights of --opponents (the heuristic's games teach most until the learner beats it)"""
    snapshot_every: int = 500_000
    """add a frozen copy of the learner to the pool every this many steps (0 = never)"""
    snapshot_weight: float = 1.0
    """draw weight of each snapshot"""
    max_snapshots: int = 2
    """snapshots drawn at once; older ones are retired (weight 0). Each one in play costs env time"""
    shaping: float = 0.0
    """coefficient of a potential-based score-margin bonus (0 = win/loss only)"""

    # --- imitation warm start (kickstarting from --teacher), inside the time limit ---
    imitation_steps: int = 1_200_000
    """learner-seat transitions played by --teacher in the self-play env, cloned before PPO (0 = off)"""
    teacher: str = "heuristic"
    """make_agent spec of the demonstrator"""
    imitation_epochs: int = 12
    """behaviour-cloning passes over the demonstrations (masked cross-entropy + value MSE on returns)"""
    imitation_lr: float = 1e-3
    """Adam step size of the warm start"""
    imitation_batch_size: int = 1024
    """minibatch of the warm start"""
    bc_coef: float = 1.0
    """weight of cloning steps after each PPO update on the rollout's states labelled by --teacher (0 = none)"""
    bc_decay: float = 0.999
    """bc_coef is multiplied by this after every rollout"""
    bc_batches: int = 16
    """BC minibatches (of --imitation-batch-size) per PPO update"""

    # --- evaluation ---
    eval_every: int = 250_000
    """evaluate every this many steps (and at the start and the end)"""
    eval_games: int = 200
    """games per evaluation opponent; the same seeds every time, so the curve compares like with like"""
    eval_opponents: tuple[str, ...] = ("random", "heuristic")
    """opponents to report a win rate against"""

    run_name: str = ""
    """computed at runtime: --exp-name, or the default"""


class SelfPlayCallback(BaseCallback):
    """Adds snapshots to the pool, evaluates, times rollouts vs updates, and enforces the time limit."""

    def __init__(self, args: Args, env: SelfPlayVecEnv, game: object, deadline: float, curve: list,
                 t_start: float) -> None:
        super().__init__()
        self.args, self.env, self.game, self.deadline, self.curve = args, env, game, deadline, curve
        self.t_start, self.bc_coef, self.bc_s = t_start, args.bc_coef, 0.0
        self.bc_rng, self.bc_optimizer, self.rollout_data = np.random.default_rng(args.seed), None, None
        self.next_eval = 0
        self.next_snapshot = args.snapshot_every if args.snapshot_every > 0 else float("inf")
        self.snapshots: list[int] = []  # pool indices of the snapshots, oldest first
        self.eval_s = self.rollout_s = 0.0
        self.rollout_start = self.rollout_end = self.env_s_start = self.eval_at_rollout_start = 0.0
        self.stopped_by_time = False

    def run_eval(self) -> None:
        t0 = time.perf_counter()
        a = self.args
        results = evaluate_policy(self.model.policy, self.game, a.game, a.eval_opponents, a.eval_games, a.seed)
        self.eval_s += time.perf_counter() - t0
        point = {"timesteps": self.num_timesteps, "wall_time_s": round(time.perf_counter() - self.t_start, 2),
                 "train_time_s": round(time.perf_counter() - self.t_start - self.eval_s, 2), **results}
        self.curve.append(point)
        for spec, r in results.items():
            for key in ("win_rate", "mean_score"):
                if r[key] is not None:
                    self.logger.record(f"eval/{key}_vs_{spec}", r[key])
        self.logger.dump(self.num_timesteps)
        self.next_eval = self.num_timesteps + self.args.eval_every
        rates = " ".join(f"{s}={r['win_rate']}" for s, r in results.items())
        print(f"[eval] step {self.num_timesteps} t={point['wall_time_s']}s win rate: {rates}", flush=True)

    def _on_training_start(self) -> None:
        self.run_eval()  # the untrained baseline at step 0

    def bc_step(self) -> None:
        """--bc-batches cloning steps (own Adam) on the last rollout's teacher labels, weighted by bc_coef."""
        t0, policy, a = time.perf_counter(), self.model.policy, self.args
        self.bc_optimizer = self.bc_optimizer or torch.optim.Adam(policy.parameters(), lr=a.learning_rate)
        parts = imitation_steps(policy, self.bc_optimizer, self.rollout_data, a.bc_batches, a.imitation_batch_size,
                                self.bc_coef, self.bc_rng, 0.0, a.max_grad_norm)
        self.logger.record("bc/coef", self.bc_coef)
        self.logger.record("bc/ce", parts["ce"])
        self.bc_coef *= a.bc_decay
        self.bc_s += time.perf_counter() - t0

    def _on_rollout_start(self) -> None:
        if self.rollout_start:  # the PPO update ran between the last rollout's end and now
            self.logger.record("time/train_s", time.perf_counter() - self.rollout_end)
            if self.bc_coef > 1e-4 and self.rollout_data is not None:
                self.bc_step()
        self.rollout_start = time.perf_counter()
        self.env.teacher_history = []  # the teacher's choices in this rollout's states
        self.eval_at_rollout_start = self.eval_s
        self.env_s_start = self.env.timing["step_s"]

    def _on_rollout_end(self) -> None:
        rollout = time.perf_counter() - self.rollout_start - (self.eval_s - self.eval_at_rollout_start)
        env_s = self.env.timing["step_s"] - self.env_s_start
        self.rollout_s += rollout
        if self.env.teacher is not None:  # the rollout's states with the teacher's actions, for bc_step
            buf = self.model.rollout_buffer
            self.rollout_data = {"obs": buf.observations.reshape(-1, buf.observations.shape[-1]),
                                 "mask": buf.action_masks.reshape(-1, buf.action_masks.shape[-1]) > 0.5,
                                 "action": np.concatenate(self.env.teacher_history)}
        self.rollout_end = time.perf_counter()
        self.logger.record("time/rollout_s", rollout)
        self.logger.record("time/env_step_share_of_rollout", env_s / max(rollout, 1e-9))
        self.logger.record("selfplay/active_pool", int((self.env.opponent_weights > 0).sum()))

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_snapshot:
            name = f"ppo:snapshot@{self.num_timesteps}"
            self.snapshots.append(self.env.add_opponent(FrozenPolicyAgent(self.model.policy, self.args.game, name),
                                                        self.args.snapshot_weight))
            if len(self.snapshots) > self.args.max_snapshots:
                self.env.set_opponent_weight(self.snapshots.pop(0), 0.0)
            self.next_snapshot += self.args.snapshot_every
        if self.num_timesteps >= self.next_eval:
            self.run_eval()
        if time.perf_counter() > self.deadline:
            self.stopped_by_time = True
            return False
        return True


def main(args: Args) -> None:
    args.run_name = args.exp_name or f"{args.game}_{args.num_players}p_s{args.seed}_{time.strftime('%Y%m%d-%H%M%S')}"
    run = Path(args.run_dir) / args.run_name
    run.mkdir(parents=True, exist_ok=True)
    variant = json.loads(args.variant)
    if len(args.opponent_weights) != len(args.opponents):
        raise SystemExit(f"--opponent-weights needs {len(args.opponents)} values, got {len(args.opponent_weights)}")

    # --- seeding ---
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    # --- env setup ---
    pool = [make_agent(spec, args.game) for spec in args.opponents]
    env = SelfPlayVecEnv(args.game, args.num_players, args.n_envs, pool, seed=args.seed,
                         opponent_weights=args.opponent_weights, shaping=args.shaping, **variant)
    game = env.game
    print(f"{game!r}: obs {env.observation_space.shape}, {env.action_space.n} actions, run {run}", flush=True)

    # --- model ---
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
        learning_rate=args.learning_rate, gamma=args.gamma, gae_lambda=args.gae_lambda, clip_range=args.clip_range,
        ent_coef=args.ent_coef, vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm,
        policy_kwargs={"net_arch": {"pi": list(args.net_arch), "vf": list(args.net_arch)}},
        seed=args.seed, device="cpu", verbose=0,
    )
    model.set_logger(configure(str(run / "tb"), ["tensorboard", "csv"]))

    # --- imitation warm start (counted in the time limit) ---
    curve: list[dict] = []
    t0 = time.perf_counter()  # the time limit and the curve's clock start here, before the warm start
    deadline = t0 + args.time_limit_minutes * 60 if args.time_limit_minutes > 0 else float("inf")
    imitation: dict = {}
    if args.imitation_steps > 0:
        imitation = warm_start(model.policy, env, make_agent(args.teacher, args.game), args.imitation_steps,
                               args.imitation_epochs, args.gamma, args.imitation_batch_size, args.imitation_lr,
                               args.vf_coef, seed=args.seed)
        print(f"[imitation] {imitation}", flush=True)
        env.timing.update({k: 0 for k in env.timing})  # the timings below are PPO's

    env.teacher = make_agent(args.teacher, args.game) if args.bc_coef > 0 else None  # labels for bc_step

    # --- learn ---
    callback = SelfPlayCallback(args, env, game, deadline, curve, t0)
    model.learn(total_timesteps=args.total_timesteps, callback=callback, progress_bar=args.progress_bar)
    learn_s = time.perf_counter() - t0 - imitation.get("total_s", 0.0) - callback.eval_s

    # --- save and final eval ---
    model.save(run / "model.zip")
    if not curve or curve[-1]["timesteps"] != model.num_timesteps:
        callback.run_eval()
    timing = env.timing
    summary = {
        "args": asdict(args), "game": game.info.name, "config": asdict(game.config),
        "timesteps": int(model.num_timesteps),
        "stopped_by": "time_limit" if callback.stopped_by_time else "total_timesteps",
        "timings": {
            "total_s": round(time.perf_counter() - t0, 2),
            "learn_s": round(learn_s, 2),  # model.learn minus the evaluations
            "eval_s": round(callback.eval_s, 2),
            "rollout_s": round(callback.rollout_s, 2),  # collecting: env + policy forward + SB3 bookkeeping
            "env_step_s": round(timing["step_s"], 2),  # SelfPlayVecEnv.step_wait (learner move, opponents, resets)
            "opponent_s": round(timing["opponent_s"], 2),  # of which the opponents' moves
            "teacher_s": round(timing["teacher_s"], 2),  # of which the teacher's labels (--bc-on rollout)
            "train_s": round(learn_s - callback.rollout_s - callback.bc_s, 2),  # PPO gradient updates
            "bc_s": round(callback.bc_s, 2),  # behaviour-cloning steps between PPO updates
            "env_share_of_learning": round(timing["step_s"] / max(learn_s, 1e-9), 3),
        },
        "env_steps_per_s": round(model.num_timesteps / max(learn_s, 1e-9), 1),  # learner decisions / learning time
        "game_steps_per_s": round(timing["game_steps"] / max(learn_s, 1e-9), 1),  # every seat's decisions
        "imitation": imitation,
        "snapshots": [env.opponent_names[i] for i in range(len(args.opponents), len(env.opponents))],
        "final": {k: v for k, v in curve[-1].items() if k not in ("wall_time_s", "train_time_s")},
        "curve": curve,
    }
    (run / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps({k: summary[k] for k in ("timesteps", "stopped_by", "env_steps_per_s", "timings", "final")}))
    env.close()


if __name__ == "__main__":
    main(tyro.cli(Args))
