"""RLlib self-play PPO steps/s on a Ray cluster of one node and of two nodes, same machine, same run.

    bash scripts/setup_rllib.sh
    .venv-rllib/bin/python benchmarks/rllib_scaling.py --iterations 10

Runs `examples/rllib_selfplay_ppo.py` twice against clusters started as a real one is (`ray start --head`,
then `ray start --address` for the second node): one node with --cpus CPUs, then two nodes with half
each, so the env runners (one CPU each) spread over the nodes. On one machine the second node adds no
hardware: the figure shows what the cluster path costs, and that the same code runs on many machines
by changing --address. Prints one line per configuration (nodes, env runners, steps, seconds, steps/s).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import tyro

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    iterations: int = 10
    batch: int = 4000
    cpus: int = 2
    """CPUs of the cluster in all: one node with all of them, or two nodes with half each"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args: Args, nodes: int) -> str:
    ray_cli = str(Path(sys.executable).with_name("ray"))
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_USAGE_STATS_ENABLED": "0"}
    port = free_port()
    address = f"127.0.0.1:{port}"
    per_node = max(1, args.cpus // nodes)

    def ray(*a: str) -> None:
        subprocess.run([ray_cli, *a], env=env, check=True, capture_output=True, timeout=180)

    try:
        ray("start", "--head", "--port", str(port), "--num-cpus", str(per_node), "--include-dashboard", "false")
        for _ in range(nodes - 1):
            ray("start", "--address", address, "--num-cpus", str(per_node))
        out = subprocess.run([sys.executable, str(ROOT / "examples" / "rllib_selfplay_ppo.py"), "--game", args.game,
                              "--address", address, "--env-runners", str(per_node * nodes), "--iterations",
                              str(args.iterations), "--batch", str(args.batch), "--minibatch", str(args.batch // 8)],
                             env=env, capture_output=True, text=True, timeout=3600, check=True).stdout
    finally:
        subprocess.run([ray_cli, "stop", "--force"], env=env, capture_output=True, timeout=180)
    head, done = out.splitlines()[0], out.strip().splitlines()[-1]
    m = re.match(r"done: ([\d,]+) steps in ([\d.]+) s \(([\d,]+) steps/s\)", done)
    return f"{nodes} node(s) x {per_node} CPU: {head.split(', ', 2)[-1]}; {m.group(1)} steps in {m.group(2)} s = {m.group(3)} steps/s"


def main(args: Args) -> None:
    for nodes in (1, 2):
        print(run(args, nodes), flush=True)


if __name__ == "__main__":
    main(tyro.cli(Args))
