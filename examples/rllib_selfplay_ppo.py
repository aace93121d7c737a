"""RLlib multi-agent self-play PPO with action masking on a meeple game, on a Ray cluster.

    pip install -e ".[rllib]"                                        # CPU torch first, see docs/install.md
    python examples/rllib_selfplay_ppo.py --iterations 20            # a local Ray (this machine only)
    ray start --head --port 6379 --num-cpus 2                        # or a cluster: the head ...
    ray start --address HEAD_IP:6379 --num-cpus 2                    # ... and a worker on each other machine
    python examples/rllib_selfplay_ppo.py --address HEAD_IP:6379 --env-runners 4

Every seat plays with one shared policy (self-play: the learner is every player), so the policy learns
from all seats' moves. The env is `meeple.envs.rllib.MeepleMultiAgentEnv`: only the seat to move
observes, its observation carries the legal-action mask, and RLlib's action-masking PPO module
(`ActionMaskingTorchRLModule`) adds log(mask) to the logits, so an illegal move is never sampled. Env
runners (the rollout workers) are Ray actors with one CPU each: on a cluster they spread over the nodes,
each building its own env from the plain-data `env_config`; the learner runs in this process. Going
from one machine to many changes only `--address`.

Prints one line per training iteration (env steps sampled, steps/s, mean episode length, the return of
seat player_0) and a last line with the totals; writes nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import ray
import tyro
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from meeple.envs.rllib import MeepleMultiAgentEnv


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    num_players: int = 2
    iterations: int = 10
    """training iterations (each samples --batch env steps, then updates)"""
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


def main(args: Args) -> None:
    ray.init(address=args.address, include_dashboard=False, log_to_driver=True)
    register_env("meeple", lambda config: MeepleMultiAgentEnv(config))
    env_config = {"game": args.game, "num_players": args.num_players}
    config = (
        PPOConfig()
        .environment("meeple", env_config=env_config)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"fcnet_hiddens": list(args.hidden), "head_fcnet_hiddens": []})}))
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch, num_epochs=args.epochs,
                  lr=3e-4)
        .debugging(seed=args.seed, log_level="ERROR")
    )
    algo = config.build_algo()
    nodes = sum(1 for node in ray.nodes() if node["Alive"])
    runner_nodes = set(algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id(),
                                                                local_env_runner=False)) if args.env_runners else set()
    print(f"{args.game}, {args.num_players} players, shared policy, {args.env_runners} env runners on "
          f"{len(runner_nodes)} of the Ray cluster's {nodes} node(s)", flush=True)
    start, steps = time.perf_counter(), 0
    for i in range(1, args.iterations + 1):
        t0 = time.perf_counter()
        result = algo.train()
        runners = result.get("env_runners", {})
        sampled = runners.get("num_env_steps_sampled", 0)
        # NaN when no env runner reported yet (e.g. while a fresh node compiles the kernels): none counted
        sampled = int(sampled) if sampled == sampled else 0
        steps += sampled
        length = runners.get("episode_len_mean", float("nan"))
        ret = runners.get("agent_episode_returns_mean", {}).get("player_0", float("nan"))
        print(f"iteration {i}/{args.iterations}  {sampled:,} steps  {sampled / (time.perf_counter() - t0):,.0f} steps/s  "
              f"episode length {length:.1f}  player_0 return {ret:+.3f}", flush=True)
    seconds = time.perf_counter() - start
    print(f"done: {steps:,} steps in {seconds:.1f} s ({steps / seconds:,.0f} steps/s), {nodes} node(s)", flush=True)
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main(tyro.cli(Args))
