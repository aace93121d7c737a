"""A game's first use without the wait: on a cold cache its kernels compile in a background process while
the game runs them as plain Python.

numba compiles a kernel the first time it is called and caches the machine code. For one game the rules,
encoder and heuristic kernels take 30-100 s to compile on a 2-core machine, which a new user would spend
looking at a frozen `make` / `reset`. Instead, when `make` finds a game's kernels missing from numba's
cache (`MEEPLE_COMPILE=background`, the default):

1. it starts `python -m meeple.envs.warm <game>` in the background, which compiles every kernel of the
   game into the same cache (what `scripts/warm_cache.py` does ahead of time);
2. until that process ends, a kernel call that finds no machine code runs the kernel's Python source
   instead of compiling (`envs.jit`: numba's own first-call hook), with the same results, a few hundred
   times slower (Carpe Diem's AEC env: 226 steps/s against ~60,000): enough to make, reset, step, watch
   or test a game at once;
3. every two seconds the kernels running as Python look in the cache again, so each one switches to its
   machine code soon after the background process has written it (`warm.py` compiles the AEC env's
   one-call step first); once that process ends, every call loads or compiles as numba does by itself,
   and the game runs at full speed with no restart.

One background compile runs per game and cache, whatever the number of processes: it holds a lock file,
and other processes that find it held interpret until it is released. Code that needs full speed from
its first step (training, tournaments, benchmarks) calls `wait_for_kernels()` after `make`, which
blocks until the compile is done and says what it waits for. `MEEPLE_COMPILE=wait` compiles in the
calling process instead, as numba does by itself; `MEEPLE_COMPILE=python` never compiles (kernels missing
from the cache run as Python: tests, debugging).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import numba

from meeple.envs import numba_hooks

try:
    import fcntl  # the lock file; without it (Windows) a cold cache compiles in the calling process
except ImportError:
    fcntl = None

MODES = ("background", "wait", "python")
POLL_SECONDS = 0.2  # how often a kernel call re-checks a running background compile
RETRY_SECONDS = 2.0  # how often kernels running as Python look in the cache again (the compile writes as it goes)


def compile_mode() -> str:
    """MEEPLE_COMPILE, checked: "background" (default), "wait" or "python" (never compile: a kernel missing
    from the cache runs as Python; for tests and debugging)."""
    mode = os.environ.get("MEEPLE_COMPILE", "background")
    if mode not in MODES:
        raise ValueError(f"MEEPLE_COMPILE must be one of {list(MODES)}, got {mode!r}")
    return mode


@dataclass
class _Compile:
    """One game's background compile as this process sees it: its own child, or a lock someone else holds."""

    game: str
    lock_path: str
    log_path: str | None
    proc: subprocess.Popen | None  # None: another process compiles (we wait for its lock)
    done: bool = False
    failed: bool = False


_compiles: dict[str, _Compile] = {}
_checked: set[str] = set()
_last_poll = _last_retry = 0.0


def cache_is_cold(entries: Any) -> bool:
    """Whether numba's cache has no machine code for the game's step kernel. warm.py compiles every kernel of
    a game together, so the step kernel stands for all of them."""
    return not numba_hooks.has_cached_code(entries.step_nb)


def _quiet() -> bool:
    return os.environ.get("MEEPLE_QUIET") == "1"


def _say(message: str) -> None:
    if not _quiet():
        print(f"meeple: {message}", file=sys.stderr, flush=True)


def _lock_path(entries: Any, game: str) -> str:
    """One lock per game and cache location (and kernel sources: a new version compiles anew)."""
    where = numba_hooks.cache_path(entries.step_nb)
    key = hashlib.sha256(where.encode() + numba_hooks.kernel_sources_fingerprint(game)).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), f"meeple-compile-{os.getuid()}-{key}-{game}.lock")


def _try_lock(path: str) -> int | None:
    """An open descriptor holding the lock at `path`, or None when another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _warm_command(game: str) -> list[str]:
    return [sys.executable, "-m", "meeple.envs.warm", game]


def start(entries: Any, game: str, label: str) -> None:
    """Called by every `make`: on a cold cache, compile the game in the background (or say that this
    process compiles it, with MEEPLE_COMPILE=wait). Once per game and process; nothing with the JIT off."""
    if numba.config.DISABLE_JIT or game in _checked:
        return
    mode = compile_mode()  # a bad value is refused at every make, before anything else
    _checked.add(game)
    if mode == "python":
        numba_hooks.INTERPRETING.on = True
        return
    if not cache_is_cold(entries):
        return
    where = numba_hooks.cache_path(entries.step_nb)
    if mode == "wait" or fcntl is None:
        _say(f"compiling the {label} kernels for first use (up to a minute or two, once; later runs load them "
             f"from {where}; scripts/warm_cache.py compiles every game ahead)")
        return
    lock_path = _lock_path(entries, game)
    try:
        fd = _try_lock(lock_path)
    except OSError as error:  # no lock file to be had: compile here, as numba does by itself
        _say(f"compiling the {label} kernels for first use (no background compile: {error})")
        return
    if fd is None:
        _compiles[game] = _Compile(game, lock_path, None, None)
        _say(f"the {label} kernels are compiling in another process; until they are ready they run as plain "
             "Python (slowly)")
    else:
        log = tempfile.NamedTemporaryFile("w", prefix=f"meeple-compile-{game}-", suffix=".log", delete=False)
        env = {**os.environ, "MEEPLE_COMPILE": "wait", "MEEPLE_QUIET": "1"}
        try:
            # the child inherits the locked descriptor and holds the lock until it exits; it outlives
            # this process if need be, so the compile is never wasted
            proc = subprocess.Popen(_warm_command(game), env=env, stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, pass_fds=(fd,),
                                    start_new_session=True)
        finally:
            os.close(fd)
            log.close()
        _compiles[game] = _Compile(game, lock_path, log.name, proc)
        _say(f"compiling the {label} kernels in the background (a minute or two, once; later runs load them "
             f"from {where}). Until they are ready the game runs as plain Python, a few hundred times slower. "
             "MEEPLE_COMPILE=wait compiles before the first step instead.")
    numba_hooks.INTERPRETING.on = True
    numba_hooks.INTERPRETING.refresh = refresh


def _finished(c: _Compile, block: bool) -> bool:
    """Whether c's compile has ended (waiting for it when `block`)."""
    if c.proc is not None:
        code = c.proc.wait() if block else c.proc.poll()
        if code is None:
            return False
        if code != 0:
            c.failed = True
            tail = ""
            if c.log_path and os.path.exists(c.log_path):
                with open(c.log_path) as fh:
                    tail = fh.read()[-1500:]
            _say(f"the background compile of {c.game} failed (exit code {code}); kernels now compile in this "
                 f"process. Its output ends:\n{tail}")
        if c.log_path and not c.failed:
            try:
                os.unlink(c.log_path)
            except OSError:
                pass
        return True
    try:
        fd = os.open(c.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # the lock file is gone or unreadable: stop waiting for it
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if block else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)  # closing releases a lock we got
    return True


def _update(block: bool) -> None:
    for c in _compiles.values():
        if not c.done and _finished(c, block):
            c.done = True
    if all(c.done for c in _compiles.values()):
        numba_hooks.INTERPRETING.on = False
        numba_hooks.INTERPRETING.refresh = None


def refresh() -> None:
    """From a kernel call: stop interpreting once every background compile has ended (checked at most
    every POLL_SECONDS)."""
    global _last_poll, _last_retry
    now = time.monotonic()
    if now - _last_poll < POLL_SECONDS:
        return
    _last_poll = now
    if now - _last_retry >= RETRY_SECONDS:  # a kernel the compile has cached by now loads at its next call
        _last_retry = now
        numba_hooks._interpreted.clear()
    _update(block=False)


def compiling() -> list[str]:
    """The games whose background compile this process still waits for."""
    _update(block=False)
    return sorted(g for g, c in _compiles.items() if not c.done)


def wait_for_kernels() -> float:
    """Block until every background compile this process started or found has ended; returns the seconds
    waited. For code that needs full speed from its first step (training, tournaments, benchmarks)."""
    pending = compiling()
    if not pending:
        return 0.0
    _say(f"waiting for the background compile of {', '.join(pending)} (once; later runs load it from the cache)")
    start_time = time.perf_counter()
    _update(block=True)
    return time.perf_counter() - start_time
