"""Compile (and cache) the numba kernels of the given games once, before tests or a first run.

    python scripts/warm_cache.py                      # every registered game
    python scripts/warm_cache.py attika hadara        # some games, the first ready first

What it compiles is `meeple.envs.warm` (envs/warm.py): every kernel of every test configuration of a game,
in two parts that share no entry point. The parts of all the games given run as separate processes, as
many at once as there are usable cores, in the order given, so the first game is ready soonest. It prints
a line when each game starts, the elapsed time every 30 s while anything compiles (a game takes about a
minute on 2 cores) and when each game is done, so the wait never looks hung. Without this step every
process (and every pytest worker) would compile a game on its first use; scripts/setup.sh runs it so
that later processes only load the cache.
"""

from __future__ import annotations

import subprocess
import sys
import time

from meeple.cli.console import clock, interactive
from meeple.envs import GAMES
from meeple.envs.warm import PARTS, part_command, usable_cores


def compile_games(names: list[str], every: float = 30.0, lanes: int | None = None) -> int:
    unknown = [n for n in names if n not in GAMES]
    if unknown:
        print(f"error: unknown game(s) {' '.join(unknown)}; registered: {' '.join(GAMES)}", file=sys.stderr)
        return 2
    names = names or list(GAMES)
    lanes = lanes or usable_cores()
    tty = interactive()
    todo = [(name, part) for name in names for part in PARTS]
    running: dict[tuple[str, str], subprocess.Popen] = {}
    parts_left = {name: len(PARTS) for name in names}
    started: dict[str, float] = {}
    start = last_tick = time.perf_counter()
    failed = []
    while todo or running:
        while todo and len(running) < lanes:
            name, part = todo.pop(0)
            if name not in started:
                started[name] = time.perf_counter()
                print(f"[compile] {name}: compiling the kernels ...", flush=True)
            running[name, part] = subprocess.Popen(part_command(name, part), stdin=subprocess.DEVNULL,
                                                   stdout=subprocess.DEVNULL)
        time.sleep(0.1)
        for (name, part), proc in list(running.items()):
            code = proc.poll()
            if code is None:
                continue
            del running[name, part]
            if code != 0:
                failed.append(f"{name} ({part}): exit code {code}")
            parts_left[name] -= 1
            if parts_left[name] == 0:
                if tty and time.perf_counter() - start >= every:
                    print(file=sys.stderr)
                print(f"[compile] {name}: done in {clock(time.perf_counter() - started[name])}", flush=True)
        now = time.perf_counter()
        if running and now - last_tick >= every:
            last_tick = now
            busy = ", ".join(sorted({name for name, _ in running}))
            line = f"[compile] still compiling {busy}, {clock(now - start)}"
            print(("\r" + line) if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)
    if failed:
        print(f"error: compiling failed for {'; '.join(failed)} (the output above says why)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(compile_games(sys.argv[1:]))
