"""Where a batched random-play step goes, per game: the profile behind the core and core + observation rows.

    python benchmarks/profile_core.py                          # every game, B = 4096, 2 players
    python benchmarks/profile_core.py --games attika --batch 4096 --threads 1
    python benchmarks/profile_core.py --by-decision                            # and per decision kind

For each game it steps a batch of B games in random legal play (the loop of `throughput.py`'s core rows,
finished rows restarted in place) and times each part of a batch step separately, in ms per batch step
and in ns per row:

- sample:  drawing a random legal action per row from the mask (`sample_masked`, numpy);
- step:    the rules kernel(s): apply the actions, run the automatic steps, compute the next mask;
- encode:  the learner's observation: `observe` plus the default encoder's kernel into a reused buffer;
- restart: re-initialising finished rows.

With `--by-decision` it then takes positions from that random play, groups them by the decision the seat to
move faces (the game's `decision` field, named by its data module's DECISION_NAMES), and times one serial
kernel step (apply the sampled action, the automatic steps, the next mask) on `--rows-per-kind` positions of
one kind at a time, and the mask alone on the same positions; also the same number of positions of every
kind mixed as they occur. The share of each kind times its cost says which decisions bound the core row;
the mixed figure against that weighted sum says what the mix of paths (branches, cache) adds.

It also measures this machine's store bandwidth on a buffer the size of one batch's observations:
`fill(0)` (numpy's memset, which may use streaming stores) and a broadcast copy that writes every value once
with ordinary stores, as an encoder kernel does. Writing B observations
of N float32 values is 4 N B bytes per step, so that pass bounds the core + observation rate from above
whatever the encoder computes: steps/s <= bandwidth / (4 N).
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
    by_decision: bool = False
    """also time the step per decision kind (see `by_decision`): where the rules' time goes"""
    rows_per_kind: int = 1024
    """--by-decision: positions per decision kind (and for the mixed reference), drawn from the random play"""


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
    state = game.init(rng, B)
    out = np.empty((B, *encoder.shape), dtype=encoder.dtype)
    fused = game.mask_in_step(B)
    mask = game.legal_action_mask(state)
    parts = {"sample": 0.0, "step": 0.0, "encode": 0.0, "restart": 0.0}
    rows = 0
    for i in range(100 + args.steps):
        timed = i >= 100
        t0 = time.perf_counter()
        actions = sample_masked(mask, rng)
        t1 = time.perf_counter()
        live = B - int(np.count_nonzero(state.done))
        game.step_inplace(state, actions, rng, mask, next_mask=mask if fused else None)
        if not fused:
            mask = game.legal_action_mask(state)
        t2 = time.perf_counter()
        encoder.encode(game.observe(state, state.to_play), out=out)
        t3 = time.perf_counter()
        done = np.flatnonzero(state.done)
        if len(done) >= max(1, B // 64):
            fresh = game.init(rng, len(done))
            for f_new, f in zip(fresh, state):
                f[done] = f_new
            mask[done] = game.legal_action_mask(fresh)
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


def _snapshot(state: Any, rows: np.ndarray) -> Any:
    return type(state)(*(np.ascontiguousarray(f[rows]) for f in state))


def _kernel_step(game: Any) -> Callable[[np.ndarray, np.ndarray, np.ndarray, Any], None]:
    """One serial compiled step on checked input: apply + automatic steps + next mask into `mask`. The
    kernels are called directly, so no legality check or thread split is timed (the check is one gather
    in the real loop)."""
    kernels = game.kernels
    if hasattr(kernels, "apply_mask_nb"):
        fused_args = game.args_of("apply_mask_nb")
        return lambda a, u, mask, s: kernels.apply_mask_nb(a, u, mask, *fused_args, *s)
    apply_args, mask_args = game.args_of("apply_nb"), game.args_of("legal_action_mask_nb")

    def step(a: np.ndarray, u: np.ndarray, mask: np.ndarray, s: Any) -> None:
        kernels.apply_nb(a, u, *apply_args, *s)
        kernels.legal_action_mask_nb(mask, *mask_args, *s)
    return step


def by_decision(name: str, args: Args, repeats: int = 15) -> dict:
    """ns per row of one serial step and of the mask alone, per decision kind (see the module docstring)."""
    game = make(name, num_players=args.num_players)
    names = importlib.import_module(f"meeple.envs.{name}.data").DECISION_NAMES
    rng = np.random.default_rng(args.seed + 1)
    B = args.batch
    state = game.init(rng, B)
    mask = game.legal_action_mask(state)
    snaps = []
    for i in range(400):
        actions = sample_masked(mask, rng)
        if i >= 100 and i % 25 == 0:  # positions of games of every age
            live = np.flatnonzero(~state.done)
            snaps.append((_snapshot(state, live), actions[live]))
        game.step_inplace(state, actions, rng, mask)
        mask = game.legal_action_mask(state)
        done = np.flatnonzero(state.done)
        if len(done) >= max(1, B // 64):
            fresh = game.init(rng, len(done))
            for f_new, f in zip(fresh, state):
                f[done] = f_new
            mask = game.legal_action_mask(state)
    pool = type(state)(*(np.concatenate([snap[0][k] for snap in snaps]) for k in range(len(state))))
    acts = np.concatenate([snap[1] for snap in snaps])
    decision = pool.decision.astype(np.int64)
    step = _kernel_step(game)
    n = args.rows_per_kind

    def timed(rows: np.ndarray) -> tuple[float, float]:
        sub, a = _snapshot(pool, rows), acts[rows]
        u = rng.random((len(rows), game.uniforms_per_step))
        best_step = best_mask = float("inf")
        for _ in range(repeats):
            s = type(sub)(*(f.copy() for f in sub))
            out = np.zeros((len(rows), game.num_actions), dtype=bool)
            t = time.perf_counter()
            game.legal_action_mask(s)
            best_mask = min(best_mask, time.perf_counter() - t)
            t = time.perf_counter()
            step(a, u, out, s)
            best_step = min(best_step, time.perf_counter() - t)
        return best_step / len(rows) * 1e9, best_mask / len(rows) * 1e9

    threads_before = threads.get_num_threads()
    threads.set_num_threads(1)  # per-row costs of the serial kernel
    try:
        kinds = []
        for d in np.unique(decision):
            where = np.flatnonzero(decision == d)
            share = len(where) / len(decision)
            if len(where) < 64:
                continue  # too rare to time: its share is still shown in the sum's remainder
            rows = rng.choice(where, size=min(n, len(where)), replace=False)
            step_ns, mask_ns = timed(np.sort(rows))
            kinds.append({"decision": names[d], "share": round(share, 4), "step_ns": round(step_ns, 1),
                          "mask_ns": round(mask_ns, 1), "step_ns_weighted": round(share * step_ns, 1)})
        mixed_step, mixed_mask = timed(np.sort(rng.choice(len(decision), size=min(n, len(decision)), replace=False)))
    finally:
        threads.set_num_threads(threads_before)
    return {"game": name, "positions": int(len(decision)), "rows_per_kind": n, "kinds": kinds,
            "weighted_step_ns": round(sum(k["step_ns_weighted"] for k in kinds), 1),
            "mixed_step_ns": round(mixed_step, 1), "mixed_mask_ns": round(mixed_mask, 1)}


def print_by_decision(r: dict) -> None:
    print(f"\n{r['game']}: one serial step per decision kind ({r['rows_per_kind']} positions each, ns per row)")
    print(f"  {'decision':<20}{'share':>7}{'step':>8}{'mask':>8}{'share x step':>14}")
    for k in sorted(r["kinds"], key=lambda k: -k["step_ns_weighted"]):
        print(f"  {k['decision']:<20}{k['share']:>7.1%}{k['step_ns']:>8,.0f}{k['mask_ns']:>8,.0f}{k['step_ns_weighted']:>14,.0f}")
    print(f"  {'sum over kinds':<35}{'':>8}{r['weighted_step_ns']:>14,.0f}")
    print(f"  {'mixed as they occur':<20}{'':>7}{r['mixed_step_ns']:>8,.0f}{r['mixed_mask_ns']:>8,.0f}", flush=True)


def main(args: Args) -> int:
    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        print(f"error: unknown game(s) {unknown}; registered: {sorted(GAMES)}", file=sys.stderr)
        return 2
    if args.batch < 1 or args.steps < 1 or args.threads < 0 or args.rows_per_kind < 1:
        print("error: --batch, --steps and --rows-per-kind must be at least 1 and --threads at least 0", file=sys.stderr)
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
    if args.by_decision:
        for r in rows:
            r["by_decision"] = by_decision(r["game"], args)
            print_by_decision(r["by_decision"])
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(tyro.cli(Args)))
