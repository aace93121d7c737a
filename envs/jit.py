"""The numba decorator every rules kernel, encoder and heuristic kernel uses.

Kernels never allocate (STYLE.md): callers pass every output and scratch array in. That lets us
compile them without numba's reference-counting runtime (NRT). With NRT, every call from one
kernel helper to another increfs and decrefs each array of the ~30-field State tuple; measured on
Roll Through the Ages at B=4096 that was ~70% of `apply` (4.8 ms -> 0.6 ms per step without it),
with identical results. A kernel that needs to allocate must use plain `numba.njit` instead.
"""

from __future__ import annotations

from typing import Any

from numba import njit

KERNEL_OPTIONS: dict[str, Any] = {"cache": True, "_nrt": False}


def kernel(fn: Any = None, **options: Any) -> Any:
    """`@kernel` or `@kernel(inline="always")`: numba njit with KERNEL_OPTIONS."""
    if fn is None:
        return lambda f: njit(**KERNEL_OPTIONS, **options)(f)
    return njit(**KERNEL_OPTIONS)(fn)
