"""Where a batched random-play step goes, per game: the profile behind the core and core + observation rows.

    python benchmarks/profile_core.py                          # every game, B = 4096, 2 players
    python benchmarks/profile_core.py --games attika --batch 4096 --threads 1

For each game it steps a batch of B games in random legal play (the loop of `throughput.py`'s core rows,
finished rows restarted in place) and times each part of a batch step separately, in ms per batch step
and in ns per row:

- sample:  drawing a random legal action per row from the mask (`sample_masked`, numpy);
- step:    the rules kernel(s): apply the actions, run the automatic steps, compute the next mask;
- encode:  the learner's observation: `observe` plus the default encoder's kernel into a reused buffer;
- restart: re-initialising finished rows.

It also measures this machine's store bandwidth on a buffer the size of one batch's observations:
`fill(0)` (numpy's memset, which may use streaming stores) and a broadcast copy that writes every value once
with ordinary stores, as an encoder kernel does. Writing B observations
of N float32 values is 4 N B bytes per step, so that pass bounds the core + observation rate from above
whatever the encoder computes: steps/s <= bandwidth / (4 N).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass

import numpy as np
import tyro

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, default_encoder, first_use, make, threads


@dataclass
class Args:
    games: tuple[str, ...] = ()
    """games to profile (default: every registered game)"""
    batch: int = 4096
    """batch size B"""
    num_players: int = 2
    """seats in the game"""
    steps: int = 300
    """timed batch steps per game (after 100 warm-up steps)"""
    threads: int = 0
    """kernel threads (meeple.envs.threads; 0 = the default, every core)"""
    seed: int = 0
    """seed of the generator for the uniforms and the random actions"""
    json: str | None = None
    """also write the figures to this JSON file"""


def store_bandwidth(nbytes: int, repeats: int = 5) -> dict[str, float]:
    """GB/s of numpy's memset and of a plain element-wise write (a broadcast copy) over `nbytes`."""
    buf = np.ones(nbytes // 4, dtype=np.float32)
    src = np.ones(1, dtype=np.float32)
    best_fill = best_write = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        buf.fill(0.0)
        best_fill = min(best_fill, time.perf_counter() - t)
        t = time.perf_counter()
        np.copyto(buf, src)  # a broadcast write: an ordinary store per value, as an encoder makes
        best_write = min(best_write, time.perf_counter() - t)
    return {"memset_GBps": round(nbytes / best_fill / 1e9, 2), "write_GBps": round(nbytes / best_write / 1e9, 2)}


def profile(name: str, args: Args) -> dict:
    game = make(name, num_players=args.num_players)
    first_use.wait_for_kernels()
    encoder = default_encoder(name, game)
    rng = np.random.default_rng(args.seed)
    B = args.batch
    owner = game.batch(rng, B)
    state, mask = owner.state, owner.mask
    out = np.empty((B, *encoder.shape), dtype=encoder.dtype)
    parts = {"sample": 0.0, "step": 0.0, "encode": 0.0, "restart": 0.0}
    rows = 0
    for i in range(100 + args.steps):
        timed = i >= 100
        t0 = time.perf_counter()
        actions = sample_masked(mask, rng)
        t1 = time.perf_counter()
        live = B - int(np.count_nonzero(state.done))
        mask = owner.step(actions)
        t2 = time.perf_counter()
        encoder.encode(game.observe(state, state.to_play), out=out)
        t3 = time.perf_counter()
        done = np.flatnonzero(state.done)
        if len(done) >= max(1, B // 64):
            mask = owner.reset_rows(done)
        t4 = time.perf_counter()
        if timed:
            parts["sample"] += t1 - t0
            parts["step"] += t2 - t1
            parts["encode"] += t3 - t2
            parts["restart"] += t4 - t3
            rows += live
    n = args.steps
    core = parts["sample"] + parts["step"] + parts["restart"]
    obs_bytes = 4 * int(np.prod(encoder.shape)) * B
    bandwidth = store_bandwidth(obs_bytes)
    row = {
        "game": name, "batch": B, "players": args.num_players, "threads": threads.get_num_threads(),
        "ms_per_batch_step": {k: round(v / n * 1e3, 3) for k, v in parts.items()},
        "ns_per_row": {k: round(v / rows * 1e9, 1) for k, v in parts.items()},
        "core_steps_per_s": round(rows / core), "core_obs_steps_per_s": round(rows / (core + parts["encode"])),
        "obs_values": int(np.prod(encoder.shape)), "obs_MB_per_batch_step": round(obs_bytes / 1e6, 1),
        **bandwidth,
        "obs_bound_steps_per_s": round(bandwidth["write_GBps"] * 1e9 / (4 * int(np.prod(encoder.shape)))),
    }
    return row


def main(args: Args) -> int:
    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        print(f"error: unknown game(s) {unknown}; registered: {sorted(GAMES)}", file=sys.stderr)
        return 2
    if args.batch < 1 or args.steps < 1 or args.threads < 0:
        print("error: --batch and --steps must be at least 1 and --threads at least 0", file=sys.stderr)
        return 2
    if args.threads:
        threads.set_num_threads(args.threads)
    rows = []
    print(f"{'game':<23}{'sample':>8}{'step':>8}{'encode':>8}{'restart':>8}  ms/batch step   {'core/s':>10}{'core+obs/s':>11}"
          f"{'obs MB':>8}{'write GB/s':>11}{'obs bound/s':>12}")
    for name in args.games or tuple(GAMES):
        r = profile(name, args)
        rows.append(r)
        ms = r["ms_per_batch_step"]
        print(f"{name:<23}{ms['sample']:>8.2f}{ms['step']:>8.2f}{ms['encode']:>8.2f}{ms['restart']:>8.2f}{'':16}"
              f"{r['core_steps_per_s']:>10,}{r['core_obs_steps_per_s']:>11,}{r['obs_MB_per_batch_step']:>8}"
              f"{r['write_GBps']:>11}{r['obs_bound_steps_per_s']:>12,}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(tyro.cli(Args)))
