"""Compile (and cache) every numba kernel of a game: `python -m meeple.envs.warm [game ...]`.

Numba compiles a kernel the first time it is called and caches the machine code next to the source (or
in NUMBA_CACHE_DIR). This runs every entry point a game has, in every test configuration, in two parts
that share no entry point, so two processes compile one game at once on two cores:

- "play": the rules core (init, step, mask, advance, scores, observe, save/load), the default encoder,
  the AEC env's one-call step (first: what a first user runs most, and what a process running the kernels
  as Python meanwhile picks up from the cache first, `first_use`) and the owner's one-row step;
- "agents": the heuristic, `validate` and `determinize`. It runs the rules' entry points as Python
  (`numba_hooks.compile_only`) to reach its positions, so that it compiles only its own entry points and
  the helpers they call.

`python -m meeple.envs.warm hadara` runs the two parts side by side (one after the other on one core);
`--part play|agents` runs one. `scripts/setup.sh` compiles every game (scripts/warm_cache.py, which
schedules the parts of all games on every core), and `meeple.envs.first_use` runs this in the background
on a cold cache.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time

os.environ.setdefault("MEEPLE_QUIET", "1")  # the caller says what is compiling
os.environ["MEEPLE_COMPILE"] = "wait"  # this process is the compile

import numpy as np

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, default_encoder, make, make_env, numba_hooks
from meeple.envs.batch import step_own

PARTS = ("play", "agents")


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on every platform)
        return os.cpu_count() or 1


def _play(name: str) -> None:
    for config in GAMES[name].test_configs:
        env = make_env(name, **config)
        env.reset(seed=0)
        for _ in range(4):
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
        game = make(name, **config)
        encoder = default_encoder(name, game)
        rng = np.random.default_rng(0)
        state = game.init(rng, 2)
        for _ in range(12):
            mask = game.legal_action_mask(state)
            state = step_own(game, state, sample_masked(mask, rng), mask, rng=rng)
        one = game.batch(rng, 1)  # the one-row step that returns the next mask (step_nb with both: Batch, search)
        for _ in range(4):
            one.step(sample_masked(one.mask, rng))
        encoder.encode(game.observe(state, state.to_play))
        game.advance(state)
        game.returns(state)
        game.render_text(state)


def _agents(name: str) -> None:
    heuristic = importlib.import_module(GAMES[name].heuristic).Heuristic()
    for config in GAMES[name].test_configs:
        game = make(name, **config)
        numba_hooks.compile_only(type(heuristic).KERNEL, *[getattr(game.entries, entry) for entry in
                                                           ("validate_nb", "determinize_nb")
                                                           if hasattr(game.entries, entry)])
        rng = np.random.default_rng(0)
        state = game.init(rng, 2)
        for _ in range(12):
            mask = game.legal_action_mask(state)
            state = step_own(game, state, heuristic.act(game, state, rng), mask, rng=rng)
        game.validate(game.from_dict(game.to_dict(state)))
        game.validate(game.determinize(state, 0, rng))


def warm(name: str, part: str | None = None) -> float:
    """Compile every kernel of game `name` (all its test configurations), or one part of them (PARTS), in
    this process; returns the seconds taken."""
    start = time.perf_counter()
    try:
        for p in PARTS if part is None else (part,):
            (_play if p == "play" else _agents)(name)
    finally:
        numba_hooks.compile_only(None)
    return time.perf_counter() - start


def part_command(name: str, part: str) -> list[str]:
    return [sys.executable, "-m", "meeple.envs.warm", "--part", part, name]


def warm_side_by_side(name: str) -> float:
    """Both parts of game `name`: "agents" in a child process while this one compiles "play" (in this
    process alone on one core); returns the seconds taken."""
    if usable_cores() < 2:
        return warm(name)
    start = time.perf_counter()
    child = subprocess.Popen(part_command(name, "agents"), stdin=subprocess.DEVNULL)
    try:
        warm(name, "play")
    finally:
        code = child.wait()
    if code != 0:
        raise RuntimeError(f"compiling the {name} agents part failed (exit code {code}; its output is above)")
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    part = None
    if argv[:1] == ["--part"]:
        if len(argv) < 2 or argv[1] not in PARTS:
            print(f"error: --part takes one of {list(PARTS)}", file=sys.stderr)
            return 2
        part, argv = argv[1], argv[2:]
    unknown = [n for n in argv if n not in GAMES]
    if unknown:
        print(f"error: unknown game(s) {unknown}; registered: {sorted(GAMES)}", file=sys.stderr)
        return 2
    for name in argv or sorted(GAMES):
        seconds = warm(name, part) if part else warm_side_by_side(name)
        print(f"warm: {name}{f' ({part})' if part else ''} {seconds:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
