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
chunk. The cost is the Python hand-off per call (submitting a chunk and slicing the arguments, about
20-40 microseconds), which is why small batches stay serial: a chunk must have at least
`min_rows_per_thread()` rows (measured with benchmarks/threads.py: below ~128 rows per chunk the
hand-off costs more than the second core saves).

Settings: `set_num_threads(n)` (or the environment variable MEEPLE_NUM_THREADS before import); the
default is the number of cores this process may use. One rules object keeps one scratch set per chunk,
so one game object must not be stepped from two user threads at the same time (use one per thread).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

DEFAULT_MIN_ROWS_PER_THREAD = 128


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


_settings = {"threads": _from_environment(), "min_rows": DEFAULT_MIN_ROWS_PER_THREAD}
# batches smaller than this run serially without looking at chunks (callers test it first: the check
# must cost nothing at B = 1, where one AEC step makes several kernel calls)
serial_below = 2 * DEFAULT_MIN_ROWS_PER_THREAD if _settings["threads"] > 1 else 1 << 62
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_lock = threading.Lock()


def set_num_threads(n: int, min_rows_per_thread: int | None = None) -> None:
    """Use up to `n` threads per batched kernel call (1 = serial); optionally change the smallest chunk."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"number of threads must be a positive integer, got {n!r}")
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
