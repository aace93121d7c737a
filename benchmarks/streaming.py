"""Core + the learner's observation with the encoders' streaming stores off and on, in one process.

    python benchmarks/streaming.py                         # every game, B = 4096, 2 players
    python benchmarks/streaming.py --games hadara --batch 1024 --pairs 20

An encoder builds each row in a scratch row and streams it into the output when the output is larger
than `meeple.encoders.base.STREAM_BYTES`, and writes it in place otherwise. This script plays random
legal games at one batch size, as `throughput.py`'s core + encode loop does (sample, step with the next
mask, encode the learner's observation, restart finished rows), and switches streaming off (threshold
above any output) and on (threshold 0) between short bursts on the same state. It prints, per game, the
median encode time per batch step, the median core + observation steps/s of each setting and the median
of the paired ratios on / off with its quartiles. Alternating bursts cancel the slow swings of a shared
machine; the "on" column of a game whose output is below the threshold shows what streaming would cost
it (it is not used there).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np
import tyro

from meeple.agents.random_agent import sample_masked
from meeple.encoders import base as encoder_base
from meeple.envs import GAMES, default_encoder, first_use, make


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
    steps: int = 40
    """batch steps per burst (after 60 warm-up steps)"""
    seed: int = 0
    """seed of the generator for the uniforms and the random actions"""


def measure(name: str, args: Args) -> dict:
    game = make(name, num_players=args.num_players)
    first_use.wait_for_kernels()
    encoder = default_encoder(name, game)
    rng = np.random.default_rng(args.seed)
    B = args.batch
    state = game.init(rng, B)
    out = np.empty((B, *encoder.shape), dtype=encoder.dtype)
    fused = game.mask_in_step(B)
    mask = game.legal_action_mask(state)

    def burst(steps: int) -> tuple[float, float]:
        nonlocal mask
        encode_s = total_s = 0.0
        rows = 0
        for _ in range(steps):
            t0 = time.perf_counter()
            actions = sample_masked(mask, rng)
            rows += B - int(np.count_nonzero(state.done))
            game.step_inplace(state, actions, rng, mask, next_mask=mask if fused else None)
            if not fused:
                mask = game.legal_action_mask(state)
            t1 = time.perf_counter()
            encoder.encode(game.observe(state, state.to_play), out=out)
            t2 = time.perf_counter()
            done = np.flatnonzero(state.done)
            if len(done) >= max(1, B // 64):
                fresh = game.init(rng, len(done))
                for f_new, f in zip(fresh, state):
                    f[done] = f_new
                mask[done] = game.legal_action_mask(fresh)
            encode_s += t2 - t1
            total_s += time.perf_counter() - t0
        return encode_s / steps * 1e3, rows / total_s

    saved = encoder_base.STREAM_BYTES
    try:
        burst(60)
        results: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for _ in range(args.pairs):
            for on in (False, True):
                encoder_base.STREAM_BYTES = 0 if on else 1 << 62
                results[on].append(burst(args.steps))
    finally:
        encoder_base.STREAM_BYTES = saved
    ratios = [on[1] / off[1] for off, on in zip(results[False], results[True])]
    row = {"game": name, "batch": B, "obs_MB": round(out.nbytes / 1e6, 1), "streamed_by_default": out.nbytes > saved}
    for on, key in ((False, "off"), (True, "on")):
        row[f"encode_ms_{key}"] = round(statistics.median(r[0] for r in results[on]), 2)
        row[f"steps_per_s_{key}"] = round(statistics.median(r[1] for r in results[on]))
    row["ratio"] = round(statistics.median(ratios), 3)
    row["ratio_quartiles"] = [round(float(q), 3) for q in np.percentile(ratios, [25, 75])]
    return row


def main(args: Args) -> None:
    if args.batch < 1 or args.pairs < 1 or args.steps < 1:
        raise SystemExit("error: --batch, --pairs and --steps must be at least 1")
    names = args.games or tuple(GAMES)
    unknown = [n for n in names if n not in GAMES]
    if unknown:
        raise SystemExit(f"error: unknown game(s) {unknown}; choose from {list(GAMES)}")
    print(f"{'game':<23}{'obs MB':>8}{'default':>9}{'encode ms off':>15}{'on':>7}"
          f"{'core+obs/s off':>16}{'on':>11}{'on/off':>8}  quartiles")
    for name in names:
        r = measure(name, args)
        print(f"{name:<23}{r['obs_MB']:>8.1f}{'stream' if r['streamed_by_default'] else 'place':>9}"
              f"{r['encode_ms_off']:>15.2f}{r['encode_ms_on']:>7.2f}{r['steps_per_s_off']:>16,}{r['steps_per_s_on']:>11,}"
              f"{r['ratio']:>8.3f}  {r['ratio_quartiles'][0]:.3f}-{r['ratio_quartiles'][1]:.3f}", flush=True)


if __name__ == "__main__":
    main(tyro.cli(Args))
