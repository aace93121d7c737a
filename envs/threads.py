"""Every core on the batch: the rows of one kernel call split into contiguous chunks, one per thread.

Rows of a batch never read each other (a row's randomness comes from its own uniforms or seed), so a
batched kernel can run on rows lo..hi of every array as well as on all of them. The kernels are
compiled with `nogil=True` (`envs.jit.KERNEL_OPTIONS`), so chunks handed to a small thread pool run
on separate cores while the calling thread runs the first chunk itself. Results are bit for bit those
of the serial call: the same per-row code runs on the same per-row inputs (tests/test_threads.py checks
apply, mask, observe, encode, determinize and validate at several thread counts).

Why threads around the existing kernels rather than `numba.prange` inside them: every entry point of
every game, and every encoder, gets the same split from one place; kernels keep plain `range` loops
(readable, and identical under NUMBA_DISABLE_JIT); per-thread scratch is simply one scratch set per
chunk. The cost is the hand-off per call: submitting a chunk, slicing the arguments and, above all, waking
the pool thread, measured at 50-100 microseconds on this 2-core machine (benchmarks/threads.py). So a call
is split only when it is worth it, decided per kernel entry from its own measured cost
(`RowCost`): a batch below `serial_below` rows never splits; above it, a serial call is timed, and
later calls split when the serial time per row times the batch exceeds `split_seconds()` (0.4 ms). The
estimate is refreshed by a timed serial call every `REMEASURE_EVERY` calls, as games age and rows get
cheaper or dearer. Which path runs never changes a result, only the time.

Settings: `set_num_threads(n)` (or the environment variable MEEPLE_NUM_THREADS before import); the
default is the number of cores this process may use. One rules object keeps one scratch set per chunk,
so one game object must not be stepped from two user threads at the same time (use one per thread).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

# a chunk smaller than this is not worth a thread: at B = 256 two threads measured 0.97-1.08x serial on 2 cores
# (benchmarks/README.md), while the run-time bookkeeping of a splittable call cost ~2% of Hadara's step
DEFAULT_MIN_ROWS_PER_THREAD = 256
SPLIT_SECONDS = 4e-4  # split a call whose serial run is estimated to take longer than this
REMEASURE_EVERY = 64  # one timed serial call in this many refreshes the estimate


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _from_environment() -> int:
    raw = os.environ.get("MEEPLE_NUM_THREADS", "")
    if not raw:
        return _cores()
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"MEEPLE_NUM_THREADS must be a positive integer, got {raw!r}") from None
    if value < 1:
        raise ValueError(f"MEEPLE_NUM_THREADS must be a positive integer, got {raw!r}")
    return value


_settings = {"threads": _from_environment(), "min_rows": DEFAULT_MIN_ROWS_PER_THREAD, "split": SPLIT_SECONDS}
# batches smaller than this run serially without looking at chunks (callers test it first: the check
# must cost nothing at B = 1, where one AEC step makes several kernel calls)
serial_below = 2 * DEFAULT_MIN_ROWS_PER_THREAD if _settings["threads"] > 1 else 1 << 62
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_lock = threading.Lock()


def set_num_threads(n: int, min_rows_per_thread: int | None = None, split_seconds: float | None = None) -> None:
    """Use up to `n` threads per batched kernel call (1 = serial); optionally change the smallest chunk
    and the estimated serial time above which a call is split (0: split every call of enough rows)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"number of threads must be a positive integer, got {n!r}")
    if split_seconds is not None:
        if isinstance(split_seconds, bool) or not isinstance(split_seconds, (int, float)) or not 0 <= split_seconds < 1e9:
            raise ValueError(f"split_seconds must be a number >= 0, got {split_seconds!r}")
        _settings["split"] = float(split_seconds)
    if min_rows_per_thread is not None:
        if not isinstance(min_rows_per_thread, int) or isinstance(min_rows_per_thread, bool) or min_rows_per_thread < 1:
            raise ValueError(f"min_rows_per_thread must be a positive integer, got {min_rows_per_thread!r}")
        _settings["min_rows"] = min_rows_per_thread
    _settings["threads"] = n
    global serial_below
    serial_below = 2 * _settings["min_rows"] if n > 1 else 1 << 62


def get_num_threads() -> int:
    """Threads a large batched call uses."""
    return _settings["threads"]


def min_rows_per_thread() -> int:
    """The smallest chunk worth a thread of its own."""
    return _settings["min_rows"]


def split_seconds() -> float:
    """Calls estimated to take longer than this serially are split."""
    return _settings["split"]


def chunk_bounds(batch: int) -> list[tuple[int, int]]:
    """Contiguous (lo, hi) row ranges, as equal as possible, each at least `min_rows_per_thread()` rows
    (one chunk, the whole batch, when it is too small to split)."""
    n = max(1, min(_settings["threads"], batch // _settings["min_rows"]))
    step, extra = divmod(batch, n)
    bounds, lo = [], 0
    for t in range(n):
        hi = lo + step + (1 if t < extra else 0)
        bounds.append((lo, hi))
        lo = hi
    return bounds


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < workers:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="meeple-rows")
            _pool_size = workers
        return _pool


def _forget_pool_in_child() -> None:
    """A forked child inherits the pool object but not its threads: work handed to it would never run.
    The child starts a pool of its own on first use instead."""
    global _pool, _pool_size, _lock
    _pool, _pool_size, _lock = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def run_chunks(batch: int, call: Callable[[int, int, int], None]) -> None:
    """call(chunk, lo, hi) for every chunk of `chunk_bounds(batch)`: chunk 0 in this thread, the others
    in the pool; returns when all are done and re-raises the first error."""
    bounds = chunk_bounds(batch) if batch >= serial_below else ((0, batch),)
    if len(bounds) == 1:
        call(0, 0, batch)
        return
    pool = _executor(len(bounds) - 1)
    futures = [pool.submit(call, t, lo, hi) for t, (lo, hi) in enumerate(bounds) if t]
    try:
        call(0, *bounds[0])
    finally:
        for future in futures:
            future.result()


def run_rows(batch: int, call: Callable[[int, int], None]) -> None:
    """call(lo, hi) over the chunks of the batch (for kernels without per-chunk scratch)."""
    run_chunks(batch, lambda _t, lo, hi: call(lo, hi))


class RowCost:
    """What one kernel entry costs per row when run serially: decides whether its calls are split."""

    __slots__ = ("per_row", "calls")

    def __init__(self) -> None:
        self.per_row = 0.0  # seconds per row of the last timed serial call (0: not timed yet)
        self.calls = 0

    def run(self, batch: int, serial: Callable[[], None], chunk: Callable[[int, int, int], None]) -> None:
        """serial() for the whole batch, or chunk(t, lo, hi) over the chunks when that pays off."""
        self.calls += 1
        if self.per_row * batch >= _settings["split"] and self.calls % REMEASURE_EVERY:
            run_chunks(batch, chunk)
            return
        start = time.perf_counter()
        serial()
        self.per_row = (time.perf_counter() - start) / batch
