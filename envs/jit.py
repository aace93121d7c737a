"""The numba decorator every rules kernel, encoder and heuristic kernel uses.

Kernels never allocate (STYLE.md): callers pass every output and scratch array in. That lets us
compile them without numba's reference-counting runtime (NRT). With NRT, every call from one
kernel helper to another increfs and decrefs each array of the ~30-field State tuple; measured on
Roll Through the Ages at B=4096 that was ~70% of `apply` (4.8 ms -> 0.6 ms per step without it),
with identical results. A kernel that needs to allocate must use plain `numba.njit` instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

KERNEL_OPTIONS: dict[str, Any] = {"cache": True, "_nrt": False}


def kernel(fn: Any = None, **options: Any) -> Any:
    """`@kernel` or `@kernel(inline="always")`: numba njit with KERNEL_OPTIONS."""
    if fn is None:
        return lambda f: njit(**KERNEL_OPTIONS, **options)(f)
    return njit(**KERNEL_OPTIONS)(fn)


# --- shared random helpers for the rules kernels ----------------------------------------------------

SPLITMIX_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@kernel(inline="always")
def uniform_index(x, n):
    """int(x * n) clamped to 0..n-1 for a uniform x in [0, 1)."""
    j = int(x * n)
    if j >= n:
        j = n - 1
    if j < 0:
        j = 0
    return j


@kernel(inline="always")
def splitmix_uniform(state):
    """Advance a splitmix64 stream held in state[0] (uint64 array); returns a uniform in [0, 1).

    Used where a kernel needs more randomness than its uniforms carry (determinize, dice beyond the
    step's columns): the stream is seeded by the caller, so results stay functions of the inputs."""
    z = state[0] + SPLITMIX_GOLDEN
    state[0] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) / 9007199254740992.0
