"""Compile (and cache) the numba kernels of the given games once, before tests or a first run.

    python scripts/warm_cache.py                      # every registered game
    python scripts/warm_cache.py attika hadara        # some games, in this order

What it compiles is `meeple.envs.warm` (envs/warm.py): every kernel of every test configuration of a game.
It prints a line when each game starts, its elapsed time every 30 s while it compiles (a game takes one to
a few minutes on 2 cores) and when it is done, so the wait never looks hung. Without this step every process
(and every pytest worker) would compile a game on its first use; scripts/setup.sh runs it so that later
processes only load the cache.
"""

from __future__ import annotations

import sys
import threading
import time

from meeple.cli.console import clock, interactive
from meeple.envs import GAMES
from meeple.envs.warm import warm


def compile_games(names: list[str], every: float = 30.0) -> int:
    unknown = [n for n in names if n not in GAMES]
    if unknown:
        print(f"error: unknown game(s) {' '.join(unknown)}; registered: {' '.join(GAMES)}", file=sys.stderr)
        return 2
    tty = interactive()
    for name in names or list(GAMES):
        start = time.perf_counter()
        done = threading.Event()
        print(f"[compile] {name}: compiling the kernels ...", flush=True)

        def tick(name: str = name, start: float = start, done: threading.Event = done) -> None:
            while not done.wait(every):
                line = f"[compile] {name}: still compiling, {clock(time.perf_counter() - start)}"
                print(("\r" + line) if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)

        thread = threading.Thread(target=tick, daemon=True)
        thread.start()
        try:
            warm(name)
        finally:
            done.set()
            thread.join()
        if tty and time.perf_counter() - start >= every:
            print(file=sys.stderr)
        print(f"[compile] {name}: done in {clock(time.perf_counter() - start)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(compile_games(sys.argv[1:]))
