"""Soak and fuzz the rules cores: random play with `validate` after every step, and mutated saved states.

    python benchmarks/soak.py --games 1000000                  # every game, every test configuration
    python benchmarks/soak.py --game hadara --seconds 600
    python benchmarks/soak.py --game attika --config '{"num_players": 3}' --games 200000 --seed 5
    python benchmarks/soak.py --fuzz 100000                    # mutated saves per configuration instead
    python benchmarks/soak.py --memory 20000                   # hand edits of states in memory instead

Soak: per configuration, a batch of games plays random legal moves (finished games restart) until
`--games` games have finished or `--seconds` have passed; every step is followed by `game.validate`, and
the mask the step returned (`next_mask`) must equal `legal_action_mask` of the new state.
Fuzz: `meeple.envs.fuzz.fuzz_saves` (each mutated save is rejected or plays to the end cleanly).
Memory: `meeple.envs.fuzz.fuzz_memory` (random edits of states in memory, in and out of the fields'
ranges, then random in-range actions: every call returns or raises ValueError; docs/memory_safety.md).
The kernels check every index (the default), so a read outside an array is reported, never run.
Prints one line per configuration and exits 1 if anything failed.
"""

from __future__ import annotations

import os
import json
import sys
import time
from dataclasses import dataclass

import numpy as np
import tyro

from meeple.envs import GAMES, default_encoder, make
from meeple.envs.fuzz import fuzz_memory, fuzz_saves, soak

os.environ.setdefault("MEEPLE_COMPILE", "wait")  # timed: compile before the first step, never run kernels as Python


@dataclass
class Args:
    game: str | None = None
    """one registered game (default: all)"""
    games: int = 100_000
    """soak: stop a configuration after this many finished games"""
    seconds: float = 3600.0
    """soak: stop a configuration after this many seconds"""
    batch: int = 1024
    """soak: games played at once"""
    fuzz: int = 0
    """if > 0: fuzz this many mutated saves per configuration instead of soaking"""
    mutations: int = 1
    """fuzz: values changed per payload"""
    memory: int = 0
    """if > 0: this many hand edits of states in memory per configuration instead of soaking"""
    config: str | None = None
    """only this test configuration (JSON, e.g. '{"num_players": 3}'; default: every one of the game's)"""
    seed: int = 0
    json: str | None = None
    """write the figures to this JSON file"""


def main(args: Args) -> int:
    if args.game is not None and args.game not in GAMES:
        print(f"error: unknown game {args.game!r}; registered: {sorted(GAMES)}", file=sys.stderr)
        return 2
    if args.games <= 0 or args.seconds <= 0 or args.batch <= 0 or args.fuzz < 0 or args.mutations <= 0 \
            or args.memory < 0:
        print("error: --games, --seconds, --batch and --mutations must be positive, --fuzz and --memory >= 0",
              file=sys.stderr)
        return 2
    only = None
    if args.config is not None:
        try:
            only = json.loads(args.config)
        except json.JSONDecodeError:
            only = None
        if not isinstance(only, dict):
            print(f"error: --config must be a JSON object, got {args.config!r}", file=sys.stderr)
            return 2
    rng = np.random.default_rng(args.seed)
    results = []
    failed = False
    for name, entry in GAMES.items():
        if args.game is not None and name != args.game:
            continue
        for config in entry.test_configs:
            if only is not None and config != only:
                continue
            game = make(name, **config)
            start = time.perf_counter()
            if args.memory:
                m = fuzz_memory(game, args.memory, rng, encoder=default_encoder(name, game))
                row = {"game": name, "config": config, "edits": m.edits, "refused": m.refused, "stepped": m.stepped,
                       "failures": len(m.failures), "examples": m.failures[:5]}
            elif args.fuzz:
                r = fuzz_saves(game, args.fuzz, rng, mutations=args.mutations)
                row = {"game": name, "config": config, "payloads": r.payloads, "rejected": r.rejected,
                       "played": r.played, "steps": r.steps, "failures": len(r.failures), "examples": r.failures[:5]}
            else:
                total = soak(game, args.batch, rng, args.games, args.seconds)
                row = {"game": name, "config": config, "games": total.games, "steps": total.steps,
                       "failures": len(total.failures), "examples": total.failures[:5]}
            row["seconds"] = round(time.perf_counter() - start, 1)
            failed |= row["failures"] > 0
            results.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(tyro.cli(Args)))
