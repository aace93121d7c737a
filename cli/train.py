"""Train a MaskablePPO agent on a meeple game by self-play (CleanRL-style: one file, top to bottom).

    meeple train --game roll_through_the_ages --num-players 2 --time-limit-minutes 29.5 \
        --total-timesteps 100_000_000 --eval-every 500_000 --eval-games 500   # the defaults: warm start, then PPO
    meeple train --algo exit --help    # expert iteration instead (meeple.cli.exit)
    meeple train --algo advantage --help   # an advantage head over the heuristic, offline (meeple.cli.advantage)
    tensorboard --logdir runs

`meeple train` (the installed command) and `python train.py` in a checkout (a thin wrapper) both run `run_cli`
here; the code lives in the package so that an installed meeple has it too.

The learner takes every seat in turn against a weighted pool of opponents (--opponents, then frozen
snapshots of itself every --snapshot-every steps) that play inside `SelfPlayVecEnv`; rewards are the
game's returns at the end. First (--imitation-steps, inside the time limit) the policy is warm-started from
--teacher: the teacher plays the learner's seat, its actions are cloned and the value head fit to the returns.
PPO then fine-tunes without further cloning unless asked for: --bc-coef > 0 adds a decaying cloning term on its
own states labelled by the teacher (--imitation-steps 0 gives plain self-play). Every --eval-every steps the
greedy policy plays --eval-games seeded games against each --eval-opponents (seats rotated); win rates go to
TensorBoard and runs/<name>/summary.json.

Every --checkpoint-minutes (or --checkpoint-rollouts) the model is saved to runs/<name>/checkpoint.zip. Ctrl-C or
SIGTERM stops training at the next safe point (a second one at once) and still saves model.zip and summary.json
(stopped_by "interrupt" / "sigterm"). Every file is written atomically: an interrupted save keeps the old file.
Arguments are checked before any work starts: a bad one exits with code 2 and a one-line message naming it.
"""

from __future__ import annotations

import json
import math
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import tyro
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import HParam, configure
from tqdm.auto import tqdm

from meeple.agents import make_agent
from meeple.agents.io import (ArgsError, atomic_write, atomic_write_text, check_agent_specs, check_at_least, check_game,
                              check_range, check_run_paths)
from meeple.agents.policy import FrozenPolicyAgent, evaluate_policy, imitation_steps, warm_start
from meeple.cli.console import Ticker, check_folder, interactive, wait_for_compile
from meeple.cli.trainers import TrainerArgs, check_seed, check_time_limit, make_run_folder, run_trainer
from meeple.envs.selfplay import SelfPlayVecEnv


@dataclass
class Args(TrainerArgs):  # inherits --game and --variant, listed around --num-players (TrainerArgs)
    algo: str = "ppo"
    """ppo (this trainer), exit (expert iteration: search + a policy-value net; `--algo exit --help`) or advantage
    (a hinted net that learns where to leave the heuristic, from paired playouts; `--algo advantage --help`)"""
    num_players: int = 2
    """players per game; the learner takes each seat in turn"""
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
    """progress bars: the imitation phases, PPO (sized to whichever of --total-timesteps and the time limit
    ends the run first) and each evaluation; when the output is not a terminal, a few plain lines instead"""
    checkpoint_minutes: float = 5.0
    """save <name>/checkpoint.zip at the first rollout end after every this many minutes (0 = not by time)"""
    checkpoint_rollouts: int = 0
    """also save it every this many rollouts (0 = not by count; both 0 = no checkpoints)"""

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
    bc_coef: float = 0.0
    """weight of cloning steps after each PPO update on the rollout's states labelled by --teacher (0 = none, the
    default: after the warm start PPO learns from its own games alone)"""
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

    run_name: tyro.conf.Suppress[str] = ""
    """(internal, not an option) the run's folder name: --exp-name, or the default; set when training starts"""


class Interrupted(KeyboardInterrupt):
    """Raised by `StopRequest.handler` where training cannot stop at a safe point; the message says why."""


class StopRequest:
    """Ctrl-C / SIGTERM while training: the first asks for a stop at the next safe point, a second stops at once.

    The learning loop polls `reason` (SelfPlayCallback._on_step). Where nothing polls it (setup, the imitation
    warm start, the final evaluation) `immediate` is set and the first signal raises `Interrupted` instead.
    """

    def __init__(self) -> None:
        self.reason: str | None = None  # "interrupt" or "sigterm" once a signal arrived
        self.immediate = True

    def handler(self, signum: int, frame: object) -> None:
        reason = "sigterm" if signum == signal.SIGTERM else "interrupt"
        if self.reason is None:
            self.reason = reason
            if not self.immediate:
                print(f"\n[{reason}] stopping at the next safe point (send it again to stop at once)", file=sys.stderr,
                      flush=True)
                return
        raise Interrupted(f"{reason}: stopped at once")

    def interruptible(self, work: Callable[[], object]) -> None:
        """`work()` (a trainer's last evaluation, after the save) with a signal stopping it at once: the Interrupted
        is caught, so what follows (the summary) still runs; then a first signal asks for a safe point again."""
        try:
            self.immediate = True
            work()
        except Interrupted:
            pass
        self.immediate = False


class SelfPlayCallback(BaseCallback):
    """Adds snapshots to the pool, evaluates, checkpoints, times rollouts vs updates, and stops on time or signal."""

    def __init__(self, args: Args, env: SelfPlayVecEnv, game: object, deadline: float, curve: list,
                 t_start: float, run: Path, stop: StopRequest) -> None:
        super().__init__()
        self.args, self.env, self.game, self.deadline, self.curve = args, env, game, deadline, curve
        self.run, self.stop, self.rollouts, self.last_checkpoint = run, stop, 0, t_start
        self.t_start, self.bc_coef, self.bc_s = t_start, args.bc_coef, 0.0
        self.bc_rng, self.bc_optimizer, self.rollout_data = np.random.default_rng(args.seed), None, None
        self.next_eval = 0
        self.next_snapshot = args.snapshot_every if args.snapshot_every > 0 else float("inf")
        self.snapshots: list[int] = []  # pool indices of the snapshots, oldest first
        self.eval_s = self.rollout_s = 0.0
        self.rollout_start = self.rollout_end = self.env_s_start = self.eval_at_rollout_start = 0.0
        self.stopped_by_time = False
        self.bar: RunBar | None = None

    def run_eval(self) -> None:
        t0 = time.perf_counter()
        a = self.args
        results = evaluate_policy(self.model.policy, self.game, a.game, a.eval_opponents, a.eval_games, a.seed,
                                  progress=a.progress_bar and interactive())
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
        # every argument beside the evaluation metrics, so TensorBoard's HPARAMS tab compares runs
        metrics = {f"eval/win_rate_vs_{spec}": 0.0 for spec in self.args.eval_opponents}
        self.logger.record("hparams", HParam(hyperparameters(self.args), metrics or {"rollout/ep_rew_mean": 0.0}),
                           exclude=("stdout", "log", "json", "csv"))
        self.run_eval()  # the untrained baseline at step 0
        self.bar = RunBar(self.args.total_timesteps, self.t_start, self.deadline, self.args.progress_bar)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()

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
        self.rollouts += 1
        a = self.args
        if ((a.checkpoint_rollouts > 0 and self.rollouts % a.checkpoint_rollouts == 0)
                or (a.checkpoint_minutes > 0 and self.rollout_end - self.last_checkpoint >= a.checkpoint_minutes * 60)):
            self.save_checkpoint()

    def save_checkpoint(self) -> None:
        """The policy between a rollout and its update: consistent, and what PPO would continue from."""
        save_model(self.model, self.run / "checkpoint.zip")
        self.last_checkpoint = time.perf_counter()
        print(f"[checkpoint] step {self.num_timesteps} -> {self.run / 'checkpoint.zip'}", flush=True)

    def _on_step(self) -> bool:
        if self.stop.reason is not None:  # a safe point: SB3 ends learn() cleanly when this returns False
            return False
        if self.num_timesteps >= self.next_snapshot:
            name = f"ppo:snapshot@{self.num_timesteps}"
            self.snapshots.append(self.env.add_opponent(FrozenPolicyAgent(self.model.policy, self.args.game, name),
                                                        self.args.snapshot_weight))
            if len(self.snapshots) > self.args.max_snapshots:
                self.env.set_opponent_weight(self.snapshots.pop(0), 0.0)
            self.next_snapshot += self.args.snapshot_every
        if self.num_timesteps >= self.next_eval:
            self.run_eval()
        now = time.perf_counter()  # one clock reading: a run stopped by time shows 100% as its last line
        if self.bar is not None:
            self.bar.update(self.num_timesteps, now)
        if now > self.deadline:
            self.stopped_by_time = True
            return False
        return True


class RunBar:
    """The learning phase's progress bar, sized to what ends the run: the share done is the larger of
    timesteps / --total-timesteps and elapsed / time limit, so the bar reaches 100% when the run ends,
    whichever limit ends it (SB3's own bar counts timesteps only, and sits at a few percent when the
    time limit stops a long --total-timesteps run). Shown in permille with both counts beside it.
    `label` and `unit` name the phase and what it counts (expert iteration: "exit", "rounds")."""

    def __init__(self, total_timesteps: int, t_start: float, deadline: float, enabled: bool, label: str = "ppo",
                 unit: str = "steps") -> None:
        self.total, self.t_start, self.deadline, self.unit = total_timesteps, t_start, deadline, unit
        # not a terminal (a log file, a pipe): a plain line every 10% instead of a bar redrawn in place
        self.ticker = Ticker(label, 1.0) if enabled and not interactive() else None
        self.bar = tqdm(total=1000, desc="", unit="‰", disable=not enabled or self.ticker is not None, leave=True,
                        bar_format=label + ": {percentage:3.0f}%|{bar}| {desc}")

    def update(self, timesteps: int, now: float | None = None) -> None:
        """`now`: the clock reading the caller also tests its deadline with, so the bar is at 100% whenever the
        caller stops by time."""
        now = time.perf_counter() if now is None else now
        by_steps = timesteps / self.total
        by_time = (now - self.t_start) / max(self.deadline - self.t_start, 1e-9) if self.deadline < float("inf") else 0.0
        done = min(1.0, max(by_steps, by_time))
        n = int(done * 1000)
        if n > self.bar.n:
            self.bar.update(n - self.bar.n)
        limit = "time" if by_time > by_steps else self.unit
        clock = _clock(now - self.t_start)
        if self.deadline < float("inf"):
            clock += f"/{_clock(self.deadline - self.t_start)}"
        self.bar.set_description_str(f"{timesteps:,}/{self.total:,} {self.unit}, {clock}, ends by {limit}",
                                     refresh=False)
        if self.ticker is not None:
            self.ticker.update(done, f"{timesteps:,}/{self.total:,} {self.unit}, ends by {limit}")

    def close(self) -> None:
        self.bar.close()


def _clock(seconds: float) -> str:
    """h:mm:ss or m:ss."""
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


def hyperparameters(args: Args) -> dict:
    """The run's arguments as TensorBoard hyperparameters (scalars and strings only)."""
    out = {}
    for key, value in asdict(args).items():
        out[key] = value if isinstance(value, (bool, int, float, str)) else " ".join(map(str, value)) \
            if isinstance(value, (list, tuple)) else str(value)
    return out


def save_model(model: MaskablePPO, path: Path) -> None:
    """`model.save`, atomically: an interrupted save keeps the previous file (SB3 writes into an open file as is)."""
    with atomic_write(path) as f:
        model.save(f)


def validate_args(args: Args) -> None:
    """Raises ArgsError naming the first invalid argument; builds nothing heavier than the game config and agents."""
    if args.algo != "ppo":  # run_cli sends --algo exit / advantage to their modules before parsing these Args
        raise ArgsError(f"--algo must be 'ppo', 'exit' or 'advantage', got {args.algo!r}")
    check_at_least(args, 1, "n_envs", "n_steps", "n_epochs", "total_timesteps", "eval_every", "eval_games",
                   "torch_threads", "imitation_epochs", "imitation_batch_size", "bc_batches")
    check_at_least(args, 0, "snapshot_every", "max_snapshots", "imitation_steps", "checkpoint_rollouts")
    check_seed(args)
    rollout = args.n_envs * args.n_steps
    if not 2 <= args.batch_size <= rollout:  # advantages are normalised per minibatch: one sample has no std
        raise ArgsError(f"--batch-size must be in [2, n_envs * n_steps = {rollout}], got {args.batch_size}")
    check_time_limit(args)
    check_range(args, "checkpoint_minutes", 0.0)
    for name in ("learning_rate", "imitation_lr", "clip_range", "max_grad_norm"):
        check_range(args, name, 0.0, lo_open=True)
    for name in ("ent_coef", "vf_coef", "bc_coef", "snapshot_weight"):
        check_range(args, name, 0.0)
    check_range(args, "gamma", 0.0, 1.0, lo_open=True)
    for name in ("gae_lambda", "bc_decay"):
        check_range(args, name, 0.0, 1.0)
    if not math.isfinite(args.shaping):
        raise ArgsError(f"--shaping must be a finite number, got {args.shaping}")
    if any(width < 1 for width in args.net_arch):
        raise ArgsError(f"--net-arch: every layer needs at least 1 unit, got {' '.join(map(str, args.net_arch))}")

    check_run_paths(args.exp_name, args.run_dir)
    check_folder("--run-dir", args.run_dir)
    variant = check_game(args.game, args.num_players, args.variant)
    if args.num_players > 1 and not args.opponents:
        raise ArgsError("--opponents needs at least one agent spec (the learner plays against them)")
    check_agent_specs("--opponents", args.opponents, args.game, args.num_players, variant, allow_human=False)
    if len(args.opponent_weights) != len(args.opponents):
        raise ArgsError(f"--opponent-weights needs {len(args.opponents)} values (one per --opponents), "
                        f"got {len(args.opponent_weights)}")
    if any(not 0 <= w < float("inf") for w in args.opponent_weights) or (args.opponents and sum(args.opponent_weights) <= 0):
        raise ArgsError(f"--opponent-weights must be finite, non-negative and not all 0, got {args.opponent_weights}")
    check_agent_specs("--eval-opponents", args.eval_opponents, args.game, args.num_players, variant, allow_human=False)
    if args.imitation_steps > 0 or args.bc_coef > 0:
        check_agent_specs("--teacher", [args.teacher], args.game, args.num_players, variant, allow_human=False)


def main(args: Args) -> dict:
    """Validates `args`, then trains with Ctrl-C and SIGTERM turned into a stop at the next safe point."""
    validate_args(args)
    return run_stoppable(train, args)


def run_stoppable(train: Any, args: Any) -> dict:
    """`train(args, stop)` with Ctrl-C and SIGTERM turned into a `StopRequest` (a stop at the next safe point),
    the previous handlers restored afterwards: every trainer's `main` (ppo, exit, advantage)."""
    stop = StopRequest()
    previous = {}
    if threading.current_thread() is threading.main_thread():  # signal.signal works only there
        for sig in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(sig) is not signal.SIG_IGN:  # e.g. `cmd &` in a script ignores SIGINT: keep it so
                previous[sig] = signal.signal(sig, stop.handler)
    try:
        return train(args, stop)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def train(args: Args, stop: StopRequest) -> dict:
    run = make_run_folder(args)
    variant = json.loads(args.variant)

    # --- seeding ---
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    # --- env setup (a signal here raises Interrupted: there is nothing to save yet) ---
    pool = [make_agent(spec, args.game) for spec in args.opponents]
    env = SelfPlayVecEnv(args.game, args.n_envs, num_players=args.num_players, opponents=pool, seed=args.seed,
                         opponent_weights=args.opponent_weights, shaping=args.shaping, **variant)
    game = env.game
    wait_for_compile()  # training at full speed from the first step (a line every few seconds meanwhile)
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

    # --- imitation warm start (counted in the time limit; a signal cuts it short, PPO is then skipped) ---
    curve: list[dict] = []
    t0 = time.perf_counter()  # the time limit and the curve's clock start here, before the warm start
    deadline = t0 + args.time_limit_minutes * 60 if args.time_limit_minutes > 0 else float("inf")
    callback = SelfPlayCallback(args, env, game, deadline, curve, t0, run, stop)
    imitation: dict = {}
    try:
        if args.imitation_steps > 0:
            print(f"[imitation] {args.imitation_steps:,} learner-seat moves of {args.teacher} to clone, then "
                  f"{args.imitation_epochs} epochs of training ...", flush=True)
            imitation = warm_start(model.policy, env, make_agent(args.teacher, args.game), args.imitation_steps,
                                   args.imitation_epochs, args.gamma, args.imitation_batch_size, args.imitation_lr,
                                   args.vf_coef, seed=args.seed, progress=args.progress_bar and interactive())
            print(f"[imitation] {imitation.get('transitions', 0):,} transitions cloned, accuracy "
                  f"{imitation.get('accuracy', float('nan')):.3f}, {_clock(imitation.get('total_s', 0.0))}", flush=True)
            env.timing.update({k: 0 for k in env.timing})  # the timings below are PPO's

        env.teacher = make_agent(args.teacher, args.game) if args.bc_coef > 0 else None  # labels for bc_step

        # --- learn (a first signal ends it at the next step, see SelfPlayCallback._on_step) ---
        stop.immediate = False
        model.learn(total_timesteps=args.total_timesteps, callback=callback)  # the bar is RunBar's
    except Interrupted:
        pass  # a second signal (or one during the warm start): save what there is
    learn_s = time.perf_counter() - t0 - imitation.get("total_s", 0.0) - callback.eval_s

    # --- save and final eval (a second signal during the save raises: atomic_write keeps the old file) ---
    stop.immediate = False
    save_model(model, run / "model.zip")
    if stop.reason is None and (not curve or curve[-1]["timesteps"] != model.num_timesteps):
        stop.interruptible(callback.run_eval)  # nothing to save but the summary: stop the evaluation at once
    stopped_by = stop.reason or ("time_limit" if callback.stopped_by_time else "total_timesteps")
    timing = env.timing
    summary = {
        "args": asdict(args), "game": game.info.name, "config": asdict(game.config),
        "timesteps": int(model.num_timesteps),
        "stopped_by": stopped_by,
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
        # the last evaluation: at the final step, except after a signal (its step is in "timesteps")
        "final": {k: v for k, v in curve[-1].items() if k not in ("wall_time_s", "train_time_s")} if curve else None,
        "curve": curve,
    }
    atomic_write_text(run / "summary.json", json.dumps(summary, indent=2))
    final = " ".join(f"{spec}={r['win_rate']}" for spec, r in (summary["final"] or {}).items() if isinstance(r, dict))
    print(f"done: {summary['timesteps']:,} learner steps in {_clock(summary['timings']['total_s'])} "
          f"(stopped by {stopped_by}), {summary['env_steps_per_s']:,.0f} steps/s; final win rate: {final or '-'}; "
          f"wrote {run / 'model.zip'} and {run / 'summary.json'}", flush=True)
    env.close()
    if stop.reason is not None:
        print(f"stopped by {stop.reason} at step {model.num_timesteps}: saved {run / 'model.zip'} and summary.json",
              file=sys.stderr, flush=True)
    return summary


def selected_algo(argv: list[str]) -> str:
    """The value of the last --algo in `argv` ("ppo" when absent)."""
    algo = "ppo"
    for i, arg in enumerate(argv):
        if arg == "--algo" and i + 1 < len(argv):
            algo = argv[i + 1]
        elif arg.startswith("--algo="):
            algo = arg.partition("=")[2]
    return algo


def run_cli(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Parses the command line (`argv`, default sys.argv[1:]) and trains; returns the exit code: 0, 2 for a bad
    argument (one `error:` line on stderr), 130 when stopped before anything could be saved. `--algo exit`
    hands the whole command line to expert iteration (`meeple.cli.exit.run_cli`), `--algo advantage` to the
    advantage trainer (`meeple.cli.advantage.run_cli`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if selected_algo(argv) == "exit":
        from meeple.cli import exit as expert_iteration

        return expert_iteration.run_cli(argv, prog)
    if selected_algo(argv) == "advantage":
        from meeple.cli import advantage

        return advantage.run_cli(argv, prog)
    # 130 for an Interrupted: before the model existed, or a second signal during the final save
    return run_trainer(Args, main, argv, prog, "nothing (more) saved, existing files left as they were")


if __name__ == "__main__":
    sys.exit(run_cli())
