"""First use of each game, cold (empty numba cache) and cached: what a new user waits for.

    python benchmarks/cold_start.py                      # every game
    python benchmarks/cold_start.py --games hadara attika --json out.json

"First use" is what a user does first: import meeple, make the PettingZoo env, reset, take one step,
and ask the game's heuristic for a move. Each game runs in fresh processes, each game with its own
temporary NUMBA_CACHE_DIR:

- cold, the default (MEEPLE_COMPILE=background, `meeple.envs.first_use`): an empty cache; `make` starts
  the background compile and the first use runs the kernels as Python. `ready` is when the background
  compile has ended (the process waits for it after its first use), from the process's start;
- cold, MEEPLE_COMPILE=wait: another empty cache; numba compiles every kernel that path calls, in the
  process, before the first step returns (what every first use cost before the background compile);
- cached: the first path again on the cache the background compile wrote: what every later run costs,
  and what a user sees after scripts/setup.sh, which compiles every game ahead.
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
heuristic.act(env.game, env.game_state, np.random.default_rng(0))
done = time.perf_counter()
from meeple.envs import first_use
first_use.wait_for_kernels()
ready = time.perf_counter()
print(json.dumps({"import_s": imported - start, "env_s": stepped - imported, "heuristic_s": done - stepped,
                  "total_s": done - start, "ready_s": ready - start}))
"""


@dataclass
class Args:
    games: tuple[str, ...] = ()
    """games to measure (default: every registered game)"""
    json: str | None = None
    """also write the figures to this JSON file"""
    wait_mode: bool = True
    """also measure the cold first use with MEEPLE_COMPILE=wait (--no-wait-mode skips it: minutes per game)"""
    record: bool = True
    """write the figures into benchmarks/results.json as entry `cold_start` (--no-record leaves it)"""


def first_use(name: str, cache_dir: str, mode: str = "background") -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "MEEPLE_QUIET": "1", "MEEPLE_COMPILE": mode}
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
    print(f"{'game':<23}{'cold s':>8}{'ready s':>9}{'cold, wait s':>14}{'(env':>7}{'heur.)':>8}{'cached s':>10}")
    for name in args.games or tuple(GAMES):
        with tempfile.TemporaryDirectory(prefix="meeple-cold-") as cache_dir:
            cold = first_use(name, cache_dir)
            cached = first_use(name, cache_dir)
        nan = float("nan")
        wait = {"total_s": nan, "env_s": nan, "heuristic_s": nan}
        if args.wait_mode:
            with tempfile.TemporaryDirectory(prefix="meeple-cold-") as cache_dir:
                wait = first_use(name, cache_dir, "wait")
        rows[name] = {"cold": cold, "cold_wait": wait if args.wait_mode else None, "cached": cached}
        print(f"{name:<23}{cold['total_s']:>8.2f}{cold['ready_s']:>9.1f}{wait['total_s']:>14.1f}{wait['env_s']:>7.1f}"
              f"{wait['heuristic_s']:>8.1f}{cached['total_s']:>10.2f}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    if args.record:
        from results import record  # benchmarks/results.py: the one results file

        record("cold_start", "benchmarks/cold_start.py" + ("" if args.wait_mode else " --no-wait-mode"),
               {"games": {name: {"cold_first_use_s": r["cold"]["total_s"], "compile_ready_s": r["cold"]["ready_s"],
                                 "cached_first_use_s": r["cached"]["total_s"],
                                 "cold_wait_first_use_s": (r["cold_wait"] or {}).get("total_s")}
                          for name, r in rows.items()}})
    return 0


if __name__ == "__main__":
    sys.exit(main(tyro.cli(Args)))
