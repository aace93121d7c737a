"""First use: a second process loads every kernel from numba's cache (nothing recompiles), and a cold
cache is announced with one line instead of a silent minute-long pause (with MEEPLE_COMPILE=wait; the
default, a background compile, is tests/test_first_use.py's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from meeple.envs import GAMES

# A user's first game: make the AEC env, reset, let the heuristic play a few moves, then a small batch
# through the core with the encoder, determinize and validate. Prints the meeple kernels that were
# compiled rather than loaded from the cache.
FIRST_USE = r"""
import importlib, json, sys
import numba, numpy as np
from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, default_encoder, make_env
name = sys.argv[1]
heuristic = importlib.import_module(GAMES[name].heuristic).Heuristic()
env = make_env(name, num_players=2)
env.reset(seed=0)
for _ in range(20):
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        break
    env.step(int(heuristic.act(env.game, env.game_state, np.random.default_rng(0))[0]))
game = env.game
state = game.init(np.random.default_rng(0), 8)
for _ in range(4):
    mask = game.legal_action_mask(state)
    state = game.step(state, sample_masked(mask, np.random.default_rng(1)), np.random.default_rng(2))
default_encoder(name, game).encode(game.observe(state, state.to_play))
game.validate(game.determinize(state, 0, np.random.default_rng(3)))
compiled = sorted({f"{m}.{k}" for m, mod in list(sys.modules.items()) if m.startswith("meeple")
                   for k, v in vars(mod).items()
                   if isinstance(v, numba.core.registry.CPUDispatcher) and sum(v.stats.cache_misses.values())})
print(json.dumps(compiled))
"""


def _first_use(name: str) -> tuple[list[str], str]:
    proc = subprocess.run([sys.executable, "-c", FIRST_USE, name], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "MEEPLE_QUIET": "0", "MEEPLE_COMPILE": "wait"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.mark.parametrize("name", list(GAMES))
def test_a_second_process_loads_every_kernel_from_the_cache(name):
    _first_use(name)  # compiles whatever is not cached yet (nothing, after scripts/setup.sh)
    compiled, stderr = _first_use(name)
    # a kernel whose signature names a class generated at run time gets a new cache key in every
    # process and recompiles every time (the Roll Through the Ages heuristic did: 14 s per run)
    assert compiled == [], f"recompiled in a second process: {compiled}"
    assert "compiling" not in stderr


def test_a_cold_cache_is_announced_once(tmp_path):
    code = "from meeple.envs import make\nmake('hadara')\nmake('hadara', num_players=3)\n"
    # (MEEPLE_COMPILE=wait: the default would start compiling Hadara in the background; test_first_use.py
    # checks that announcement with a stand-in for the compile)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MEEPLE_QUIET": "0", "MEEPLE_COMPILE": "wait"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("meeple: compiling")]
    assert len(lines) == 1 and "Hadara" in lines[0]
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                           env={**env, "MEEPLE_QUIET": "1"})
    assert quiet.returncode == 0 and "compiling" not in quiet.stderr
