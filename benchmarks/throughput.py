"""Throughput of one meeple game under random legal play: AEC env, batched rules core, core + encoder, JIT time.

    python benchmarks/throughput.py --game roll_through_the_ages --num-players 2 --seconds 5 --json out.json

Rows (see benchmarks/README.md): (a) `aec`: the PettingZoo `env()` with observation and mask every step;
`gym`: the single-agent Gymnasium env (`gymnasium.make`), one learner seat against random opponents;
(b) `core`: the batched rules core at each batch size, no observations; (c) `core+encode`: (b) plus the
learner's encoded observation every step; (d) `compile`: numba compile time in a fresh process, cold (empty
cache dir) and cached (same dir again). Only the game protocol is used, so any registered game works.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import gymnasium
import numba
import numpy as np
import tyro

from meeple.agents.random_agent import sample_masked
from meeple.envs import default_encoder, make, make_env
from meeple.envs.single_agent import GYMNASIUM_IDS

os.environ.setdefault("MEEPLE_COMPILE", "wait")  # timed: compile before the first step, never run kernels as Python

# (row, batch size) -> steps/s the suite aims for (benchmarks/README.md)
TARGETS = {("aec", 1): 20_000, ("core", 4096): 1_000_000, ("core+encode", 4096): 300_000}


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    """registered game name (meeple.envs.GAMES)"""
    num_players: int = 2
    """seats in the game"""
    seconds: float = 5.0
    """wall-clock seconds per timed measurement (after a short warm-up)"""
    batch_sizes: tuple[int, ...] = (1, 256, 4096)
    """batch sizes B for the rules-core rows (b) and (c)"""
    json: str | None = None
    """also write the JSON result line to this file"""
    seed: int = 0
    """seed of the numpy Generator driving dice and the random players"""
    compile: bool = True
    """measure numba compile time (d) in subprocesses (--no-compile skips it)"""
    gym: bool = True
    """measure the single-agent Gymnasium env (--no-gym skips it)"""
    record: bool = True
    """write the figures into benchmarks/results.json as entry throughput/<game>/<P>p (--no-record leaves it)"""


# --- (a) AEC env ----------------------------------------------------------------------------------------

def bench_aec(args: Args, seconds: float) -> dict[str, Any]:
    """Random legal play through the standard agent_iter / last / step loop; steps = actions taken."""
    env = make_env(args.game, num_players=args.num_players)
    env.reset(seed=args.seed)
    u = np.random.default_rng(args.seed).random(1 << 16)  # precomputed floats: the sampler stays cheap
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = legal[int(u[steps & 0xFFFF] * len(legal))]
                steps += 1
            env.step(action)
        games += 1
        env.reset()
    return result("aec", 1, steps, games, time.perf_counter() - start)


def bench_gym(args: Args, seconds: float) -> dict[str, Any]:
    """The single-agent Gymnasium env (`gymnasium.make("meeple/<Game>-v0")`) with random opponents: a random
    legal learner action from `info["action_mask"]` per `step`; steps = learner steps (each also plays the
    opponents' moves up to the learner's next turn)."""
    env = gymnasium.make(GYMNASIUM_IDS[args.game], num_players=args.num_players, opponents="random")
    obs, info = env.reset(seed=args.seed)
    u = np.random.default_rng(args.seed).random(1 << 16)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(legal[int(u[steps & 0xFFFF] * len(legal))])
        steps += 1
        if terminated or truncated:
            games += 1
            obs, info = env.reset()
    return result("gym", 1, steps, games, time.perf_counter() - start)


# --- (b), (c) batched rules core --------------------------------------------------------------------------

def bench_core(game: Any, encoder: Any | None, state: Any, seconds: float, rng: np.random.Generator,
               min_games: int = 0) -> dict[str, Any]:
    """Batched random play for `seconds` (and until `min_games` finished), restarting finished rows in place.

    Steps = live rows stepped. `state` is advanced in place, so a warm-up run leaves the batch at steady state
    (games of mixed ages) rather than all rows starting together.
    """
    batch = state.done.shape[0]
    out = None if encoder is None else np.empty((batch, *encoder.shape), dtype=encoder.dtype)
    refill_at = max(1, batch // 64)  # restart done rows in chunks: one init call costs tens of µs
    steps = games = 0
    n_done = int(np.count_nonzero(state.done))
    start = time.perf_counter()
    # the state's owner (`Batch`): each step checks the actions on the mask the last step computed (in the
    # same compiled call where the game has one) and returns the new one
    owner = game.batch(rng, state=state, adopt=True)
    mask = owner.mask
    while time.perf_counter() - start < seconds or games < min_games:
        if out is not None:
            encoder.encode(game.observe(state, state.to_play), out=out)
        mask = owner.step(sample_masked(mask, rng))
        steps += batch - n_done
        now_done = int(np.count_nonzero(state.done))
        games += now_done - n_done
        n_done = now_done
        if n_done >= refill_at:
            owner.reset_rows(np.flatnonzero(state.done))
            n_done = 0
    name = "core" if encoder is None else "core+encode"
    return result(name, batch, steps, games, time.perf_counter() - start)


def result(name: str, batch: int, steps: int, games: int, elapsed: float) -> dict[str, Any]:
    """One row of the report, with the target from TARGETS if this row has one."""
    target = TARGETS.get((name, batch))
    rate = steps / elapsed
    return {"name": name, "batch": batch, "steps_per_s": round(rate, 1), "games_per_s": round(games / elapsed, 2),
            "steps": steps, "games": games, "seconds": round(elapsed, 3), "target": target,
            "meets_target": None if target is None else rate >= target}


# --- (d) numba compile time ----------------------------------------------------------------------------

COMPILE_SNIPPET = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from meeple.agents.random_agent import sample_masked
from meeple.envs import default_encoder, make
game = make(sys.argv[1], num_players=int(sys.argv[2]))
encoder = default_encoder(sys.argv[1], game)
t1 = time.perf_counter()
rng = np.random.default_rng(0)
state = game.init(rng, 2)
actions = sample_masked(game.legal_action_mask(state), rng)
game.apply_inplace(state, actions, rng.random((2, game.uniforms_per_step)))
encoder.encode(game.observe(state, state.to_play))
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_calls_s": t2 - t1}))
"""


def bench_compile(args: Args) -> dict[str, Any]:
    """First-call time of init / mask / sample / apply / encode in fresh processes sharing one cache dir."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="meeple-numba-cache-") as cache_dir:
        environ = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "MEEPLE_COMPILE": "wait"}  # compile here, timed
        for label in ("cold", "cached"):
            proc = subprocess.run([sys.executable, "-c", COMPILE_SNIPPET, args.game, str(args.num_players)],
                                  env=environ, capture_output=True, text=True, check=True)
            times = json.loads(proc.stdout.strip().splitlines()[-1])
            out[label] = {k: round(v, 3) for k, v in times.items()}
    return out


# --- report ---------------------------------------------------------------------------------------------

def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    return {"cpu_count": os.cpu_count(), "processor": platform.processor() or platform.machine(),
            "platform": platform.platform(), "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "numba_threads": numba.config.NUMBA_NUM_THREADS}


def print_table(report: dict[str, Any]) -> None:
    """The report as aligned plain text."""
    m = report["machine"]
    print(f"{report['game']}  P={report['num_players']}  {report['seconds_per_row']:g} s/row  "
          f"cpus={m['cpu_count']}  numpy {m['numpy']}  numba {m['numba']}")
    header = f"{'row':<13}{'B':>6}{'steps/s':>14}{'games/s':>12}{'target':>12}  ok"
    print(header)
    print("-" * len(header))
    for r in report["results"]:
        target = "" if r["target"] is None else f"{r['target']:,}"
        ok = {None: "", True: "yes", False: "MISS"}[r["meets_target"]]
        print(f"{r['name']:<13}{r['batch']:>6}{r['steps_per_s']:>14,.0f}{r['games_per_s']:>12,.1f}{target:>12}  {ok}")
    for label, c in report.get("compile", {}).items():
        print(f"{'compile ' + label:<19}{c['first_calls_s']:>14.2f} s first calls  (+{c['import_s']:.2f} s imports)")


def main(args: Args) -> dict[str, Any]:
    """Run every measurement, print the table and the JSON line, and return the report."""
    rng = np.random.default_rng(args.seed)
    game = make(args.game, num_players=args.num_players)
    encoder = default_encoder(args.game, game)
    warmup = min(0.5, args.seconds / 10)

    # --- (a) AEC env ---
    bench_aec(args, warmup)  # JIT warm-up and first-call overheads
    results = [bench_aec(args, args.seconds)]
    if args.gym:
        bench_gym(args, warmup)
        results.append(bench_gym(args, args.seconds))

    # --- (b), (c) rules core, then core + encoder, at each batch size ---
    for enc in (None, encoder):
        for batch in args.batch_sizes:
            state = game.init(rng, batch)
            bench_core(game, enc, state, warmup, rng, min_games=batch)  # ~one game per row: ages spread out
            results.append(bench_core(game, enc, state, args.seconds, rng))

    report = {"game": args.game, "num_players": args.num_players, "seconds_per_row": args.seconds,
              "num_actions": game.info.num_actions, "machine": machine(), "results": results}
    # --- (d) numba compile time ---
    if args.compile:
        report["compile"] = bench_compile(args)

    line = json.dumps(report)
    if args.json:  # before printing, so a closed stdout pipe can't lose the file
        with open(args.json, "w") as fh:
            fh.write(line + "\n")
    if args.record:
        from results import record  # benchmarks/results.py: the one results file

        figures = {"seconds_per_row": args.seconds, "rows": [{k: r[k] for k in ("name", "batch", "steps_per_s", "games_per_s")}
                                                             for r in report["results"]]}
        if "compile" in report:
            figures["compile"] = report["compile"]
        record(f"throughput/{args.game}/{args.num_players}p", "benchmarks/throughput.py", figures)
    print_table(report)
    return report


if __name__ == "__main__":
    main(tyro.cli(Args))
