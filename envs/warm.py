"""Compile (and cache) every numba kernel of a game: `python -m meeple.envs.warm [game ...]`.

Numba compiles a kernel the first time it is called and caches the machine code next to the source (or
in NUMBA_CACHE_DIR). This runs every entry point a game has, in every test configuration: the rules core
(init, step, mask, advance, scores, observe, determinize, validate, save/load), the default encoder, the
AEC env's one-call step and the heuristic. `scripts/setup.sh` runs it for every game (scripts/warm_cache.py),
and `meeple.envs.first_use` runs it in the background on a cold cache.
"""

from __future__ import annotations

import importlib
import os
import sys
import time

os.environ.setdefault("MEEPLE_QUIET", "1")  # the caller says what is compiling
os.environ["MEEPLE_COMPILE"] = "wait"  # this process is the compile

import numpy as np

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, default_encoder, make, make_env
from meeple.envs.batch import step_own


def warm(name: str) -> float:
    """Compile every kernel of game `name` (all its test configurations); returns the seconds taken."""
    start = time.perf_counter()
    heuristic = importlib.import_module(GAMES[name].heuristic).Heuristic()
    for config in GAMES[name].test_configs:
        # the AEC env's one-call step first (the encoder's fused kernel): what a first user runs most, and
        # what a process running the kernels as Python meanwhile picks up from the cache first (first_use)
        env = make_env(name, **config)
        env.reset(seed=0)
        for _ in range(4):
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
        game = make(name, **config)
        encoder = default_encoder(name, game)
        rng = np.random.default_rng(0)
        state = game.init(rng, 2)
        for step in range(12):
            mask = game.legal_action_mask(state)
            actions = heuristic.act(game, state, rng) if step % 2 else sample_masked(mask, rng)
            state = step_own(game, state, actions, mask, rng=rng)
        # the one-row step that returns the next mask (apply_mask_nb: Batch, search)
        one = game.batch(rng, 1)
        for _ in range(4):
            one.step(sample_masked(one.mask, rng))
        view = game.observe(state, state.to_play)
        encoder.encode(view)
        game.validate(game.from_dict(game.to_dict(state)))
        game.validate(game.determinize(state, 0, rng))
        game.advance(state)
        game.returns(state)
        game.render_text(state)
    return time.perf_counter() - start


def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in GAMES]
    if unknown:
        print(f"error: unknown game(s) {unknown}; registered: {sorted(GAMES)}", file=sys.stderr)
        return 2
    for name in names or sorted(GAMES):
        print(f"warm: {name} {warm(name):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
