"""Where a batched step's time goes, by the decision the rows are at: the profile behind a core row.

    python benchmarks/decisions.py --game attika                     # 2 players, rows of 256, one thread
    python benchmarks/decisions.py --game hadara --num-players 4 --rows 4096 --json hadara.json

It plays random legal games in a batch of `--batch` rows (finished rows restarted, as in `throughput.py`'s
core loop) and keeps snapshots of the batch, so the positions have the mix of game ages training sees.
Then, for every decision kind (the game's `data.DECISION_NAMES`), it builds a batch of `--rows` positions at
that decision and times, on one thread (so the figures are per row of work, not shared by cores):

- mask: `legal_action_mask` of those positions;
- step: `Batch.step` with one random legal action per row and the mask of the next position written
  in the same call (`Batch.step`, the core row's path); this includes the automatic steps and the mask
  of whatever decision comes next, so it is the cost of leaving this decision.

`share` is how often a live row is at that decision in random play, and the last line weighs the step
costs by it: the serial work of one core step per row, the figure that the 2-core `core` row divides.
The best of `--repeats` runs on fresh copies is kept. Figures are for this machine and random play.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import tyro

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, first_use, make, threads

os.environ.setdefault("MEEPLE_COMPILE", "wait")  # timed: compile before the first step, never run kernels as Python


@dataclass
class Args:
    game: str = "attika"
    """a registered game"""
    num_players: int = 2
    batch: int = 4096
    """rows played to collect positions"""
    rows: int = 256
    """positions per timed batch (256 fit the caches; 4096 show the memory cost of a large batch)"""
    steps: int = 400
    """batch steps played; snapshots every 25 steps from step 150 on"""
    repeats: int = 20
    seed: int = 0
    json: str | None = None
    """also write the figures to this JSON file"""


def decision_names(name: str) -> tuple[str, ...]:
    """The game's decision kinds by value: its data module's DECISION_NAMES (what the text views print)."""
    return importlib.import_module(f"meeple.envs.{name}.data").DECISION_NAMES


def collect(game, args: Args, rng: np.random.Generator):
    """Snapshots of a batch in random play, concatenated into one state."""
    owner = game.batch(rng, args.batch)
    state, mask = owner.state, owner.mask
    snapshots = []
    for i in range(args.steps):
        mask = owner.step(sample_masked(mask, rng))
        done = np.flatnonzero(state.done)
        if len(done) >= max(1, args.batch // 64):
            mask = owner.reset_rows(done)
        if i >= 150 and i % 25 == 0:
            snapshots.append(type(state)(*(np.copy(f) for f in state)))
    return type(state)(*(np.concatenate(fields) for fields in zip(*snapshots)))


def best_time(run, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = run()
        best = min(best, t)
    return best


def profile(args: Args) -> dict:
    game = make(args.game, num_players=args.num_players)
    first_use.wait_for_kernels()
    threads.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    pool = collect(game, args, rng)
    live = ~np.asarray(pool.done)
    decision = np.asarray(pool.decision)
    names = decision_names(args.game)
    rows = []
    for value in np.unique(decision[live]):
        where = np.flatnonzero(live & (decision == value))
        idx = np.resize(rng.permutation(where), args.rows)
        batch = type(pool)(*(np.ascontiguousarray(f[idx]) for f in pool))
        mask = game.legal_action_mask(batch)
        actions = sample_masked(mask, rng)

        def time_mask(batch=batch) -> float:
            t = time.perf_counter()
            game.legal_action_mask(batch)
            return time.perf_counter() - t

        def time_step(batch=batch, actions=actions) -> float:
            owner = game.batch(rng, state=batch)
            t = time.perf_counter()
            owner.step(actions)
            return time.perf_counter() - t

        rows.append({
            "decision": names[int(value)],
            "share": round(len(where) / int(live.sum()), 4),
            "legal": round(float(mask.sum(axis=1).mean()), 1),
            "mask_ns": round(best_time(time_mask, args.repeats) / args.rows * 1e9),
            "step_ns": round(best_time(time_step, args.repeats) / args.rows * 1e9),
        })
    weighted = sum(r["share"] * r["step_ns"] for r in rows)
    return {"game": args.game, "players": args.num_players, "rows": args.rows, "threads": 1,
            "decisions": rows, "weighted_step_ns": round(weighted)}


def main(args: Args) -> int:
    if args.game not in GAMES:
        print(f"error: unknown game {args.game!r}; registered: {sorted(GAMES)}", file=sys.stderr)
        return 2
    if args.batch < 64 or args.rows < 1 or args.steps < 200 or args.repeats < 1:
        print("error: --batch must be at least 64, --steps at least 200, --rows and --repeats at least 1",
              file=sys.stderr)
        return 2
    result = profile(args)
    print(f"{args.game}, {args.num_players} players, {args.rows} rows per timed batch, 1 thread")
    print(f"{'decision':<20}{'share':>7}{'legal':>7}{'mask ns/row':>13}{'step ns/row':>13}")
    for r in result["decisions"]:
        print(f"{r['decision']:<20}{r['share']:>7.3f}{r['legal']:>7}{r['mask_ns']:>13,}{r['step_ns']:>13,}")
    print(f"weighted by share: {result['weighted_step_ns']:,} ns of one core per row step "
          f"(about {1e9 / max(result['weighted_step_ns'], 1):,.0f} steps/s per core)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(tyro.cli(Args)))
