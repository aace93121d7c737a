"""Rows on every core: the batched core (mask, random choice, step) and core + encoder, serial and split.

    python benchmarks/threads.py                                   # every game, 2 players, 2 s per row
    python benchmarks/threads.py --game hadara --batch-sizes 128 256 512 --threads 1 2

Each row runs the same loop as `benchmarks/throughput.py`'s core rows with `meeple.envs.threads`
set to 1 thread (serial) and then to each `--threads` count with chunks of at least `--min-rows` rows, so
the table shows from which batch size splitting pays (the default threshold in envs/threads.py was
chosen from it) and the speed-up at large batches.
"""

from __future__ import annotations

import os
import json
import sys
from dataclasses import dataclass

import numpy as np
import tyro

from meeple.envs import GAMES, default_encoder, make, threads

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from throughput import bench_core  # noqa: E402  (the same measured loop)

os.environ.setdefault("MEEPLE_COMPILE", "wait")  # timed: compile before the first step, never run kernels as Python


@dataclass
class Args:
    game: str | None = None
    """one registered game (default: every game)"""
    num_players: int = 2
    batch_sizes: tuple[int, ...] = (64, 128, 256, 512, 1024, 4096)
    threads: tuple[int, ...] = (2,)
    """thread counts compared with 1 (serial)"""
    min_rows: int = 16
    """smallest chunk while measuring (small, so every batch size above is split)"""
    split_seconds: float | None = 0.0
    """split calls estimated to take longer than this serially (0: every call; None: the library default)"""
    seconds: float = 2.0
    encode: bool = True
    """also measure core + the learner's encoded observation"""
    seed: int = 0
    json: str | None = None


def main(args: Args) -> int:
    if args.game is not None and args.game not in GAMES:
        print(f"error: unknown game {args.game!r}; registered: {sorted(GAMES)}", file=sys.stderr)
        return 2
    if args.seconds <= 0 or args.min_rows < 1 or min(args.batch_sizes) < 1 or min(args.threads) < 1:
        print("error: --seconds, --min-rows, --batch-sizes and --threads must be positive", file=sys.stderr)
        return 2
    rows = []
    print(f"{'game':<23}{'row':<13}{'B':>6}{'1 thread':>12}" + "".join(f"{f'{n} threads':>12}{'x':>6}" for n in args.threads))
    for name in GAMES:
        if args.game is not None and name != args.game:
            continue
        game = make(name, num_players=args.num_players)
        for encoder in (None, default_encoder(name, game)) if args.encode else (None,):
            for batch in args.batch_sizes:
                rates = {}
                for n in (1, *args.threads):
                    threads.set_num_threads(n, min_rows_per_thread=args.min_rows, split_seconds=args.split_seconds)
                    rng = np.random.default_rng(args.seed)
                    state = game.init(rng, batch)
                    bench_core(game, encoder, state, min(0.5, args.seconds / 4), rng, min_games=batch)
                    rates[n] = bench_core(game, encoder, state, args.seconds, rng)["steps_per_s"]
                label = "core" if encoder is None else "core+encode"
                rows.append({"game": name, "row": label, "batch": batch, "steps_per_s": rates})
                print(f"{name:<23}{label:<13}{batch:>6}{rates[1]:>12,.0f}"
                      + "".join(f"{rates[n]:>12,.0f}{rates[n] / rates[1]:>6.2f}" for n in args.threads), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(tyro.cli(Args)))
