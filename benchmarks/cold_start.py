"""First use of each game, cold (empty numba cache) and cached: what a new user waits for.

    python benchmarks/cold_start.py                      # every game
    python benchmarks/cold_start.py --games hadara attika --json out.json

"First use" is what a user does first: import meeple, make the PettingZoo env, reset, take one step,
and ask the game's heuristic for a move. Each game runs in a fresh process twice with its own
temporary NUMBA_CACHE_DIR: once empty (cold: numba compiles every kernel that path calls) and once
more with the cache the first run wrote (cached: what every later run costs, and what a user sees
after scripts/setup.sh, which compiles every game ahead).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import tyro

from meeple.envs import GAMES

FIRST_USE = r"""
import importlib, json, sys, time
start = time.perf_counter()
import numpy as np
from meeple.envs import GAMES, make_env
imported = time.perf_counter()
name = sys.argv[1]
env = make_env(name, num_players=2)
env.reset(seed=0)
observation, _, _, _, _ = env.last()
env.step(int(np.flatnonzero(observation["action_mask"])[0]))
stepped = time.perf_counter()
heuristic = importlib.import_module(GAMES[name].heuristic).Heuristic()
heuristic.act(env.game, env.state, np.random.default_rng(0))
done = time.perf_counter()
print(json.dumps({"import_s": imported - start, "env_s": stepped - imported, "heuristic_s": done - stepped,
                  "total_s": done - start}))
"""


@dataclass
class Args:
    games: tuple[str, ...] = ()
    """games to measure (default: every registered game)"""
    json: str | None = None
    """also write the figures to this JSON file"""


def first_use(name: str, cache_dir: str) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "MEEPLE_QUIET": "1"}
    proc = subprocess.run([sys.executable, "-c", FIRST_USE, name], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"error: first use of {name} failed:\n{proc.stderr[-2000:]}")
    return {k: round(v, 2) for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items()}


def main(args: Args) -> int:
    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        print(f"error: unknown game(s) {unknown}; registered: {sorted(GAMES)}", file=sys.stderr)
        return 2
    rows = {}
    print(f"{'game':<23}{'cold s':>9}{'(env':>8}{'heur.)':>8}{'cached s':>10}")
    for name in args.games or tuple(GAMES):
        with tempfile.TemporaryDirectory(prefix="meeple-cold-") as cache_dir:
            cold = first_use(name, cache_dir)
            cached = first_use(name, cache_dir)
        rows[name] = {"cold": cold, "cached": cached}
        print(f"{name:<23}{cold['total_s']:>9.1f}{cold['env_s']:>8.1f}{cold['heuristic_s']:>8.1f}{cached['total_s']:>10.2f}",
              flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(tyro.cli(Args)))
