"""RLlib multi-agent self-play PPO with action masking on a meeple game, on a Ray cluster: checkpoints,
resume, evaluation against the heuristic, and the numba kernels compiled on every worker first.

    pip install -e ".[rllib]"                                        # CPU torch first, see docs/install.md
    python examples/rllib_selfplay_ppo.py --iterations 20            # a local Ray (this machine only)
    ray start --head --port 6379 --num-cpus 2                        # or a cluster: the head ...
    ray start --address HEAD_IP:6379 --num-cpus 2                    # ... and a worker on each other machine
    python examples/rllib_selfplay_ppo.py --address HEAD_IP:6379 --env-runners 4 \\
        --iterations 100 --checkpoint-dir runs/rllib                 # later: the same line with --resume

What a real cluster needs besides `--address` (the same Python environment on every node, ports,
authentication, the numba cache): docs/scaling.md.

Every seat plays with one shared policy (self-play: the learner is every player), so the policy learns
from all seats' moves. The env is `meeple.envs.rllib.MeepleMultiAgentEnv`: only the seat to move
observes, its observation carries the legal-action mask, and RLlib's action-masking PPO module
(`ActionMaskingTorchRLModule`) adds log(mask) to the logits, so an illegal move is never sampled. Env
runners (the rollout workers) are Ray actors with one CPU each: on a cluster they spread over the nodes,
each building its own env from the plain-data `env_config`; the learner runs in this process.

The options beyond the PPO settings:

- `--checkpoint-dir DIR`: save RLlib checkpoints (`algo.save_to_path`) as DIR/iteration_000010/ ... every
  `--checkpoint-every` iterations and after the last one, and keep the evaluations in DIR/eval.json.
  Without it nothing is written. A folder that already holds checkpoints needs `--resume`.
- `--resume`: restore the latest checkpoint in `--checkpoint-dir` (`algo.restore_from_path`: weights,
  optimizer, connector state and the iteration count) and train on until iteration `--iterations`. With
  evaluations on, the restored policy first replays the evaluation games, to compare with the result
  recorded at the checkpoint's iteration (the same policy plays the same games).
- `--eval-every N`: every N iterations the current policy, greedy over its masked logits, plays
  `--eval-games` games against the game's heuristic (`meeple.agents.arena.play_games`, seats rotated, the
  same seeded games every time); prints the policy's win rate with its 95% Wilson interval and its mean
  score, and appends them to DIR/eval.json. 0 never evaluates. (The self-play return of player_0 stays
  near 0 by design: the opponent is the policy itself, so it cannot show progress; the heuristic can.)

Each env runner compiles the game's kernels before its first step (`CompileKernelsFirst`, an RLlib
callback run when the runner has built its env): on a node whose numba cache is cold it compiles them
once (a minute or more on 2 cores), on a warm one it loads them in seconds. Without it a fresh node
would compile in the middle of its first sample, past RLlib's sample timeout (60 s), or, with meeple's
default background compile, run the kernels as plain Python meanwhile, a few hundred times slower. After
the first iteration the example prints, per node, what that took and when the node took its first step.

Prints one line per training iteration (env steps sampled, steps/s, mean episode length, the return of
seat player_0), the start-up of each node, the evaluations, the checkpoints, and a last line with the
totals. A bad argument prints one `error:` line and exits with code 2, before Ray starts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import ray
import torch
import tyro
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from meeple.agents import make_agent
from meeple.agents.arena import play_games
from meeple.agents.external import PythonPolicyAgent
from meeple.agents.io import ArgsError, atomic_write_text, check_at_least, check_game
from meeple.envs import first_use, make
from meeple.envs.rllib import MeepleMultiAgentEnv

CHECKPOINT_NAME = re.compile(r"iteration_(\d{6})")
EVAL_FILE = "eval.json"


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    num_players: int = 2
    iterations: int = 10
    """train until this iteration; with --resume the checkpoint's iterations count too"""
    batch: int = 4000
    """env steps per iteration (all seats' moves)"""
    minibatch: int = 500
    epochs: int = 4
    env_runners: int = 2
    """rollout actors, one CPU each (0: sample in this process)"""
    address: str | None = None
    """Ray cluster to join (e.g. 127.0.0.1:6379 or "auto"); None starts a local Ray"""
    hidden: tuple[int, ...] = (128, 128)
    seed: int = 0
    """seeds RLlib and the evaluation games"""
    checkpoint_dir: str | None = None
    """folder for the checkpoints and eval.json (on the driver's machine); None writes nothing"""
    checkpoint_every: int = 10
    """iterations between checkpoints (the last iteration is always saved)"""
    resume: bool = False
    """continue from the latest checkpoint in --checkpoint-dir"""
    eval_every: int = 5
    """iterations between evaluations against the heuristic (0: never)"""
    eval_games: int = 100
    """games per evaluation (the same seeded games each time)"""


def latest_checkpoint(folder: Path) -> tuple[int, Path] | None:
    """(iteration, path) of the newest complete checkpoint in `folder`, or None. A checkpoint being written
    has another name until it is complete (`save_checkpoint`), so it is never picked up half-written."""
    if not folder.is_dir():
        return None
    found = [(int(match.group(1)), path) for path in folder.iterdir()
             if path.is_dir() and (match := CHECKPOINT_NAME.fullmatch(path.name))]
    return max(found) if found else None


def check_args(args: Args) -> None:
    """Raises ArgsError naming the first invalid argument (nothing has started yet)."""
    check_game(args.game, args.num_players, "{}")
    check_at_least(args, 1, "iterations", "batch", "minibatch", "epochs", "checkpoint_every", "eval_games")
    check_at_least(args, 0, "env_runners", "eval_every", "seed")
    if args.minibatch > args.batch:
        raise ArgsError(f"--minibatch ({args.minibatch}) cannot exceed --batch ({args.batch})")
    if not args.hidden or min(args.hidden) < 1:
        raise ArgsError(f"--hidden needs at least one layer and every layer at least 1 unit, got {list(args.hidden)}")
    if args.eval_every and args.num_players < 2:
        raise ArgsError("--eval-every: a solo game has no opponent to evaluate against; use --eval-every 0")
    if args.checkpoint_dir is None:
        if args.resume:
            raise ArgsError("--resume needs --checkpoint-dir: the folder of the run to continue")
        return
    folder = Path(args.checkpoint_dir)
    if folder.exists() and not folder.is_dir():
        raise ArgsError(f"--checkpoint-dir {args.checkpoint_dir!r} is not a folder")
    latest = latest_checkpoint(folder)
    if args.resume and latest is None:
        raise ArgsError(f"--resume: no checkpoint (iteration_NNNNNN folder) in {args.checkpoint_dir!r}")
    if not args.resume and latest is not None:
        raise ArgsError(f"--checkpoint-dir {args.checkpoint_dir!r} already holds checkpoints: add --resume to "
                        "continue that run, or choose another folder")
    if args.resume and latest[0] >= args.iterations:
        raise ArgsError(f"--iterations {args.iterations}: the checkpoint is already at iteration {latest[0]}; "
                        "ask for more iterations to continue")


class CompileKernelsFirst(RLlibCallback):
    """The worker set-up hook: RLlib calls `on_environment_created` in every env runner once it has built its
    env and before it steps it (also in a runner RLlib restarts after a failure, on whatever node).

    It compiles the game's kernels in the runner's process, or loads them from a warm numba cache
    (`meeple.envs.warm`, the "play" part: the rules, the encoder and the env's step), and records what
    that took on the env runner, where the driver reads it; `on_episode_step` adds the time of the first
    env step. MEEPLE_COMPILE=wait (set for every worker through Ray's runtime environment in `main`)
    keeps `make` from starting a background compile: this process compiles, and the hook times it."""

    def on_environment_created(self, *, env_runner, env_context, **kwargs) -> None:
        from meeple.envs import numba_hooks
        from meeple.envs.warm import warm

        game = make(env_context["game"], num_players=env_context["num_players"])
        cold = first_use.cache_is_cold(game.entries)
        seconds = warm(env_context["game"], "play")
        env_runner.meeple_start_up = {
            "node": ray.get_runtime_context().get_node_id(), "ip": ray.util.get_node_ip_address(),
            "cache": numba_hooks.cache_path(game.entries.step_nb), "cold": cold, "kernels_s": seconds,
            "ready_at": time.time(), "first_step_at": None,
        }

    def on_episode_step(self, *, env_runner, **kwargs) -> None:
        start_up = env_runner.meeple_start_up
        if start_up["first_step_at"] is None:
            start_up["first_step_at"] = time.time()


def print_start_up(reports: list[dict], start: float) -> None:
    """One line per node: kernels compiled (cold cache) or loaded (warm), and the seconds from the start of
    this run until its env runners were ready and took their first step (the slowest runner of the node).
    RLlib starts sampling once every runner is ready, so a cold node delays the first step everywhere."""
    by_node: dict[str, list[dict]] = {}
    for report in reports:
        by_node.setdefault(report["node"], []).append(report)
    for node, runners in by_node.items():
        cold = any(r["cold"] for r in runners)
        kernels = max(r["kernels_s"] for r in runners)
        ready = max(r["ready_at"] for r in runners) - start
        steps = [r["first_step_at"] for r in runners]
        first = f"{max(steps) - start:.1f} s" if None not in steps else "not yet"
        what = "compile the kernels into a cold" if cold else "load the kernels from a warm"
        print(f"time to first step, node {node[:8]} ({runners[0]['ip']}, {len(runners)} env runner(s)): "
              f"{kernels:.1f} s to {what} numba cache ({runners[0]['cache']}); ready {ready:.1f} s, "
              f"first step {first} after the start", flush=True)


class GreedyPolicy:
    """The shared RLModule as a meeple `Policy` (`meeple.agents.external`): the module's inference forward
    pass on a batch of observations and legal masks (it adds log(mask) to the logits, as in training),
    then each row's best action."""

    name = "rllib"

    def __init__(self, module) -> None:
        self.module = module

    def act(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch = {Columns.OBS: {"observations": torch.as_tensor(observation, dtype=torch.float32),
                               "action_mask": torch.as_tensor(mask, dtype=torch.float32)}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(dim=-1).numpy().astype(np.int64)


def evaluate(algo, args: Args, iteration: int, game, heuristic) -> dict:
    """The current policy against the heuristic in `--eval-games` seeded games (seats rotated): its win rate
    with the 95% Wilson interval, and its mean final score (the game's points). `PythonPolicyAgent` shows
    the policy the game's default encoding, the observation the env gives in training (env_config names no
    other encoder). The module is the driver's copy, which RLlib updates after every training step."""
    policy = PythonPolicyAgent(GreedyPolicy(algo.get_module("shared")), args.game, name="rllib")
    result = play_games(game, [policy, heuristic], args.eval_games, seed=args.seed)
    mine = result["agents"][0]
    return {"iteration": iteration, "games": mine["games"], "win_rate": mine["win_rate"], "win_ci95": mine["win_ci95"],
            "mean_score": mine["mean_score"]}


def describe(evaluation: dict) -> str:
    low, high = evaluation["win_ci95"]
    return (f"win rate {evaluation['win_rate']:.3f} against heuristic, 95% interval [{low:.3f}, {high:.3f}], "
            f"mean score {evaluation['mean_score']:.2f}, {evaluation['games']} games")


def read_evaluations(folder: Path, up_to: int) -> list[dict]:
    """The evaluations already in eval.json, up to iteration `up_to` (any later ones belong to a run that
    stopped before its next checkpoint: the resumed run plays those iterations again)."""
    path = folder / EVAL_FILE
    if not path.is_file():
        return []
    return [e for e in json.loads(path.read_text())["evaluations"] if e["iteration"] <= up_to]


def save_checkpoint(algo, folder: Path, iteration: int) -> Path:
    """RLlib's checkpoint of the whole algorithm, written under a temporary name and renamed when complete,
    so that an interrupted save never becomes the checkpoint --resume picks."""
    final = folder / f"iteration_{iteration:06d}"
    partial = folder / f".iteration_{iteration:06d}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    algo.save_to_path(str(partial.resolve()))  # (RLlib copies the parts held by actors on other nodes here)
    os.replace(partial, final)
    return final


def main(args: Args) -> None:
    check_args(args)
    start = time.time()
    folder = Path(args.checkpoint_dir) if args.checkpoint_dir else None
    # Ray's runtime environment reaches every worker of this job on every node
    ray.init(address=args.address, include_dashboard=False, log_to_driver=True,
             runtime_env={"env_vars": {"MEEPLE_COMPILE": "wait"}})
    register_env("meeple", lambda config: MeepleMultiAgentEnv(config))
    env_config = {"game": args.game, "num_players": args.num_players}
    config = (
        PPOConfig()
        # RLlib's env check steps random actions before the set-up hook (compiling in passing, so the hook
        # would not see the compile); tests/test_rllib.py runs that check on every game instead
        .environment("meeple", env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"fcnet_hiddens": list(args.hidden), "head_fcnet_hiddens": []})}))
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
        .callbacks(CompileKernelsFirst)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch, num_epochs=args.epochs,
                  lr=3e-4)
        .debugging(seed=args.seed, log_level="ERROR")
    )
    algo = config.build_algo()
    if args.eval_every:
        game = make(args.game, num_players=args.num_players)
        first_use.wait_for_kernels()  # the evaluation runs the kernels in this process: at full speed
        heuristic = make_agent("heuristic", args.game, args.num_players)
    evaluations = []
    if args.resume:
        saved, checkpoint = latest_checkpoint(folder)
        algo.restore_from_path(str(checkpoint.resolve()))
        if algo.iteration != saved:
            raise RuntimeError(f"{checkpoint} restored iteration {algo.iteration}, expected {saved}")
        print(f"resumed from {checkpoint} at iteration {algo.iteration}", flush=True)
        evaluations = read_evaluations(folder, algo.iteration)
        if args.eval_every:
            # the restored policy replays the evaluation's seeded games: the result recorded before the
            # checkpoint again shows that the checkpoint holds the policy that was evaluated
            recorded = next((e for e in evaluations if e["iteration"] == algo.iteration), None)
            print(f"evaluation of the restored policy: {describe(evaluate(algo, args, algo.iteration, game, heuristic))}"
                  f" (recorded at iteration {algo.iteration}: {describe(recorded) if recorded else 'none'})", flush=True)
    if folder:
        folder.mkdir(parents=True, exist_ok=True)

    nodes = sum(1 for node in ray.nodes() if node["Alive"])
    remote = args.env_runners > 0  # with no remote runners the driver's own runner samples (and ran the hook)
    runner_nodes = set(algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id(),
                                                                local_env_runner=not remote))
    print(f"{args.game}, {args.num_players} players, shared policy, {args.env_runners} env runners on "
          f"{len(runner_nodes)} of the Ray cluster's {nodes} node(s)", flush=True)
    train_seconds, steps = 0.0, 0
    first = algo.iteration + 1
    for i in range(first, args.iterations + 1):
        t0 = time.perf_counter()
        result = algo.train()
        train_seconds += time.perf_counter() - t0
        runners = result.get("env_runners", {})
        sampled = runners.get("num_env_steps_sampled", 0)
        # NaN when no env runner reported in time: none counted
        sampled = int(sampled) if sampled == sampled else 0
        steps += sampled
        length = runners.get("episode_len_mean", float("nan"))
        ret = runners.get("agent_episode_returns_mean", {}).get("player_0", float("nan"))
        print(f"iteration {i}/{args.iterations}  {sampled:,} steps  {sampled / (time.perf_counter() - t0):,.0f} steps/s  "
              f"episode length {length:.1f}  player_0 return {ret:+.3f}", flush=True)
        if i == first:
            print_start_up(algo.env_runner_group.foreach_env_runner(lambda runner: runner.meeple_start_up,
                                                                    local_env_runner=not remote), start)
        if args.eval_every and i % args.eval_every == 0:
            evaluation = evaluate(algo, args, i, game, heuristic)
            print(f"evaluation at iteration {i}: {describe(evaluation)}", flush=True)
            evaluations.append(evaluation)
            if folder:
                atomic_write_text(folder / EVAL_FILE, json.dumps(
                    {"game": args.game, "num_players": args.num_players, "opponent": "heuristic",
                     "seed": args.seed, "evaluations": evaluations}, indent=1) + "\n")
        if folder and (i % args.checkpoint_every == 0 or i == args.iterations):
            print(f"checkpoint: {save_checkpoint(algo, folder, i)}", flush=True)
    # (training only: the evaluations and checkpoints are not counted; benchmarks/rllib_scaling.py reads this line)
    print(f"done: {steps:,} steps in {train_seconds:.1f} s ({steps / train_seconds:,.0f} steps/s), {nodes} node(s)", flush=True)
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    try:
        main(tyro.cli(Args))
    except ArgsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
