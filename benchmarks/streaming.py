"""Core + the learner's observation with the encoders' streaming stores off and on, in one process.

    python benchmarks/streaming.py                         # every game, B = 4096, 2 players
    python benchmarks/streaming.py --games hadara --batch 1024 --pairs 20

An encoder builds each row in a scratch row and streams it into the output when the output is larger
than `meeple.encoders.base.STREAM_BYTES`, and writes it in place otherwise. This script runs
`throughput.py`'s core + encode loop (`bench_core`: random legal play, the learner's observation every
step, finished rows restarted) on one state, switching streaming off (threshold above any output) and on
(threshold 0) between short bursts. It prints, per game, the median core + observation steps/s of each
setting and the median of the paired ratios on / off with its quartiles. Alternating bursts cancel the
slow swings of a shared machine; the "on" column of a game whose output is below the threshold shows
what streaming would cost it (it is not used there).
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass

import numpy as np
import tyro

from meeple.envs import GAMES, default_encoder, first_use, make
from meeple.encoders import base as encoder_base  # (after meeple.envs, which it imports)

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from throughput import bench_core  # noqa: E402  (the same measured loop)


@dataclass
class Args:
    games: tuple[str, ...] = ()
    """games to measure (default: every registered game)"""
    batch: int = 4096
    """batch size B"""
    num_players: int = 2
    """seats in the game"""
    pairs: int = 12
    """off/on burst pairs"""
    burst: float = 0.5
    """seconds per burst (after a warm-up of about one game per row)"""
    seed: int = 0
    """seed of the generator for the uniforms and the random actions"""


def measure(name: str, args: Args) -> dict:
    game = make(name, num_players=args.num_players)
    first_use.wait_for_kernels()
    encoder = default_encoder(name, game)
    rng = np.random.default_rng(args.seed)
    state = game.init(rng, args.batch)
    saved = encoder_base.STREAM_BYTES
    rates: dict[bool, list[float]] = {False: [], True: []}
    try:
        bench_core(game, encoder, state, 0.5, rng, min_games=args.batch)  # games of mixed ages, as in training
        for _ in range(args.pairs):
            for on in (False, True):
                encoder_base.STREAM_BYTES = 0 if on else 1 << 62
                rates[on].append(bench_core(game, encoder, state, args.burst, rng)["steps_per_s"])
    finally:
        encoder_base.STREAM_BYTES = saved
    ratios = [on / off for off, on in zip(rates[False], rates[True])]
    obs_bytes = args.batch * encoder.size * np.dtype(encoder.dtype).itemsize
    return {"game": name, "batch": args.batch, "obs_MB": round(obs_bytes / 1e6, 1),
            "streamed_by_default": obs_bytes > saved,
            "steps_per_s_off": round(statistics.median(rates[False])),
            "steps_per_s_on": round(statistics.median(rates[True])),
            "ratio": round(statistics.median(ratios), 3),
            "ratio_quartiles": [round(float(q), 3) for q in np.percentile(ratios, [25, 75])]}


def main(args: Args) -> None:
    if args.batch < 1 or args.pairs < 1 or not args.burst > 0:
        raise SystemExit("error: --batch and --pairs must be at least 1 and --burst above 0")
    names = args.games or tuple(GAMES)
    unknown = [n for n in names if n not in GAMES]
    if unknown:
        raise SystemExit(f"error: unknown game(s) {unknown}; choose from {list(GAMES)}")
    print(f"{'game':<23}{'obs MB':>8}{'default':>9}{'core+obs/s off':>16}{'on':>11}{'on/off':>8}  quartiles")
    for name in names:
        r = measure(name, args)
        print(f"{name:<23}{r['obs_MB']:>8.1f}{'stream' if r['streamed_by_default'] else 'place':>9}"
              f"{r['steps_per_s_off']:>16,}{r['steps_per_s_on']:>11,}{r['ratio']:>8.3f}  "
              f"{r['ratio_quartiles'][0]:.3f}-{r['ratio_quartiles'][1]:.3f}", flush=True)


if __name__ == "__main__":
    main(tyro.cli(Args))
