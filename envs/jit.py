"""The numba decorator every rules kernel, encoder and heuristic kernel uses.

Kernels never allocate: callers pass every output and scratch array in. That lets us
compile them without numba's reference-counting runtime (NRT). With NRT, every call from one
kernel helper to another increfs and decrefs each array of the ~30-field State tuple; measured on
Roll Through the Ages at B=4096 that was ~70% of `apply` (4.8 ms -> 0.6 ms per step without it),
with identical results. A kernel that needs to allocate must use plain `numba.njit` instead.

It is also the kernel library every game shares, so no game keeps its own copy of a mechanism:
random draws (uniform columns, splitmix64 streams, deal shuffles, determinize resampling), union-find,
square and hex board adjacency and the masked argmax, plus the numpy splitmix64 used outside kernels.
"""

from __future__ import annotations

import platform
import sys
from typing import Any

import numpy as np
from llvmlite import ir
from numba import config as numba_config
from numba import literal_unroll, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from meeple.envs.numba_hooks import adopt

# nogil: a kernel releases the GIL while it runs, so `envs.threads` can run row chunks of one batch on
# every core from a small thread pool. boundscheck: every array index is checked, and one outside its
# array raises IndexError (a ValueError at the rules base) instead of reading or writing another row's
# memory or the heap. Kernels trust nothing they index with: a state edited by hand into an unreachable
# position, however inconsistent, cannot crash the process (docs/performance.md has its cost).
# NUMBA_BOUNDSCHECK=0 in the environment turns the checks off (numba's own switch, for measuring them).
KERNEL_OPTIONS: dict[str, Any] = {"cache": True, "_nrt": False, "nogil": True, "boundscheck": True}


def bounds_checked() -> bool:
    """Whether the kernels compiled in this process check their indices (numba's NUMBA_BOUNDSCHECK, when
    set, overrides the option above)."""
    forced = numba_config.BOUNDSCHECK
    return bool(KERNEL_OPTIONS["boundscheck"] if forced is None else forced)


def kernel(fn: Any = None, *, python: Any = None, **options: Any) -> Any:
    """`@kernel` or `@kernel(inline="always")`: numba njit with KERNEL_OPTIONS.

    `python=f`: the plain-Python version to run instead of the kernel's own source when the kernel is not
    compiled (NUMBA_DISABLE_JIT, or while `meeple.envs.compile` compiles it in the background), for a
    kernel whose source only means something compiled (an LLVM intrinsic, intended uint64 wrap-around).
    `cold=True`: a kernel that runs rarely (a validation), whose machine code LLVM optimizes at the level
    of a helper (`numba_hooks`: "helpers at a lower LLVM level").

    `inline="always"`: a helper every caller should have inlined. It is compiled once, as a function of its
    own that LLVM must inline into each caller (numba's `forceinline`), rather than inlined by numba into
    each caller's IR, which types and lowers the body again at every call site (Hadara's "play" compile
    part: 78 CPU seconds with numba's inlining, 43 with LLVM's). Like any kernel (compiled without numba's runtime) it cannot
    return a view of an array, only an array it was passed. Every other kernel sets `forceinline=False`,
    which numba would otherwise pass on from an inlined caller to the kernels it calls."""
    if fn is None:
        return lambda f: kernel(f, python=python, **options)
    if numba_config.DISABLE_JIT:
        return python or fn
    cold = options.pop("cold", False)
    if options.pop("inline", "never") == "always":
        options["forceinline"] = True
    options.setdefault("forceinline", False)
    dispatcher = njit(**KERNEL_OPTIONS, **options)(fn)
    adopt(dispatcher, python, cold)
    return dispatcher


def inline_copy(function: Any) -> Any:
    """A copy of kernel `function` that LLVM inlines into every kernel calling it (`kernel(inline="always")`)
    rather than calling it: the generated batch loops inline their cheap row functions this way
    (envs/codegen.py, INLINED). The original stays an ordinary kernel."""
    return kernel(getattr(function, "py_func", function), inline="always")


def invariant(fn: Any) -> Any:
    """`@invariant`: one rule of a game's `invariants.INVARIANTS`, a kernel `name(s, b, ...) -> bool` that the
    generated `validate_nb` calls in order. (Not inlined: numba typing fifty rules inlined into one function
    took 90 s against ~25 s as separate kernels, measured on Hadara.)"""
    return kernel(fn)


# --- memory ------------------------------------------------------------------------------------------

@intrinsic
def prefetch(typingctx: Any, arr: Any, index: Any) -> Any:
    """Hint the CPU to load the cache line of arr[index] (1-D array) for reading soon: LLVM's
    `llvm.prefetch`, which never faults and changes no value. Batched kernels use it to fetch the
    next row while they work on this one, so its cache misses overlap with work."""
    if not isinstance(arr, types.Array) or arr.ndim != 1 or not isinstance(index, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i32 = ir.IntType(32)
        byte_ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read, keep in every cache level, data cache
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, index), codegen


@intrinsic
def _load_word(typingctx: Any, arr: Any, index: Any) -> Any:
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.dtype == types.uint8
            and isinstance(index, types.Integer)):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)

    return types.uint64(arr, index), codegen


def _load_word_python(arr: np.ndarray, i: int) -> np.uint64:
    return np.uint64(int.from_bytes(arr[i:i + 8].tobytes(), sys.byteorder))


@kernel(inline="always", python=_load_word_python)
def load_word(arr, i):
    """The eight bytes arr[i..i+7] of a 1-D uint8 array as one uint64 in the machine's byte order, read at
    any alignment (one load; i + 8 <= len(arr) is the caller's to keep)."""
    return _load_word(arr, i)


def _prefetch_row_python(arr: np.ndarray, b: int) -> None:
    """Not compiled there is no cache line to hint at."""


@kernel(inline="always", python=_prefetch_row_python)
def prefetch_row(arr, b):
    """Prefetch every cache line of row b of a 2-D C-contiguous array (b must be a valid row)."""
    row = arr[b]
    step = max(1, 64 // row.itemsize)
    for i in range(0, row.shape[0], step):
        prefetch(row, i)


# Streaming stores, for encoders writing a batch larger than the caches. An ordinary store first reads its
# cache line from memory (to own it), then writes it back later: two transfers per line. A non-temporal
# ("streaming") store writes the line straight to memory in one. An encoder builds each row in a small
# scratch row that stays in the cache, then streams it out (`stream_row`); on the 2-core machine that
# made Attika's 4,096-row encode 1.13x faster, and a plain copy of 100 MB ran at 17.8 GB/s streamed
# against 12.8 GB/s stored on two threads. Only x86-64 gets the intrinsics (SFENCE is an x86
# instruction); elsewhere, and without the JIT, `stream_row` is a plain copy.
STREAMING_STORES = platform.machine().lower() in ("x86_64", "amd64")
_STREAM_FLOATS = 8  # one 32-byte store of float32 (AVX; LLVM splits it into two 16-byte ones without AVX)


@intrinsic
def _stream_store8(typingctx: Any, dst: Any, i: Any, src: Any, j: Any) -> Any:
    """dst[i:i + 8] = src[j:j + 8] (1-D float32) as one non-temporal store; dst's element i must lie on a
    32-byte boundary (the caller's to keep), src needs no alignment."""
    if not (isinstance(dst, types.Array) and dst.ndim == 1 and dst.dtype == types.float32
            and isinstance(src, types.Array) and src.ndim == 1 and src.dtype == types.float32
            and isinstance(i, types.Integer) and isinstance(j, types.Integer)):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        dty, sty = signature.args[0], signature.args[2]
        d = context.make_array(dty)(context, builder, args[0])
        s = context.make_array(sty)(context, builder, args[2])
        dp = cgutils.get_item_pointer(context, builder, dty, d, [args[1]], wraparound=False)
        sp = cgutils.get_item_pointer(context, builder, sty, s, [args[3]], wraparound=False)
        vec = ir.VectorType(ir.FloatType(), _STREAM_FLOATS)
        value = builder.load(builder.bitcast(sp, vec.as_pointer()), align=4)
        store = builder.store(value, builder.bitcast(dp, vec.as_pointer()), align=4 * _STREAM_FLOATS)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return types.void(dst, i, src, j), codegen


@intrinsic
def _sfence(typingctx: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse.sfence")
        builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


def _stream_row_python(dst: np.ndarray, src: np.ndarray) -> None:
    n = min(dst.shape[0], src.shape[0])
    dst[:n] = src[:n]


def _store_fence_python() -> None:
    """Not compiled, nothing was streamed."""


if STREAMING_STORES:
    @kernel(inline="always", python=_stream_row_python)
    def stream_row(dst, src):
        """dst[:] = src (1-D float32 of one length; of unequal lengths, only the shorter one's) with
        streaming stores: the bytes go to memory without reading dst's cache lines first and without
        keeping them in the cache. For output larger than the caches that nobody reads before the call
        returns; end the kernel with `store_fence()`."""
        n = min(dst.shape[0], src.shape[0])
        address = dst.ctypes.data
        if address & 3:  # not on a float boundary: no element would reach a 32-byte one (a plain copy)
            for i in range(n):
                dst[i] = src[i]
            return
        head = ((-address) & (4 * _STREAM_FLOATS - 1)) // 4  # elements before a 32-byte boundary
        if head > n:
            head = n
        for i in range(head):
            dst[i] = src[i]
        i = head
        while i + _STREAM_FLOATS <= n:
            _stream_store8(dst, i, src, i)
            i += _STREAM_FLOATS
        while i < n:
            dst[i] = src[i]
            i += 1

    @kernel(inline="always", python=_store_fence_python)
    def store_fence():
        """Order every streaming store before any later store (SFENCE), so another thread that learns this
        call has returned sees its output: streaming stores are not ordered by the usual rules."""
        _sfence()
else:
    @kernel(inline="always")
    def stream_row(dst, src):
        """dst[:] = src (of unequal lengths, the shorter one's): a plain copy where the streaming intrinsics
        are not built (not x86-64)."""
        for i in range(min(dst.shape[0], src.shape[0])):
            dst[i] = src[i]

    @kernel(inline="always")
    def store_fence():
        """Nothing to order where `stream_row` is a plain copy."""

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


_M64 = (1 << 64) - 1


def _splitmix_uniform_python(state: np.ndarray) -> float:
    """`splitmix_uniform` in wrapping Python-int arithmetic: numpy's uint64 scalars would warn on the
    intended overflow."""
    z = (int(state[0]) + int(SPLITMIX_GOLDEN)) & _M64
    state[0] = z
    z = ((z ^ (z >> 30)) * int(_MIX1)) & _M64
    z = ((z ^ (z >> 27)) * int(_MIX2)) & _M64
    z ^= z >> 31
    return float(z >> 11) / 9007199254740992.0


@kernel(inline="always", python=_splitmix_uniform_python)
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


def _uniform_at_python(u: np.ndarray, b: int, col: int) -> float:
    """`uniform_at` in wrapping Python-int arithmetic (see `_splitmix_uniform_python`)."""
    W = u.shape[1]
    if col < W:
        return u[b, col]
    z = int(np.uint64(u[b, W - 1] * 9007199254740992.0)) ^ int(SPLITMIX_GOLDEN)
    z = (z + (col - W + 1) * int(SPLITMIX_GOLDEN)) & _M64
    z = ((z ^ (z >> 30)) * int(_MIX1)) & _M64
    z = ((z ^ (z >> 27)) * int(_MIX2)) & _M64
    z ^= z >> 31
    return float(z >> 11) / 9007199254740992.0


@kernel(inline="always", python=_uniform_at_python)
def uniform_at(u, b, col):
    """Column `col` of row b's uniforms: u[b, col], or past u's last column the value `extend_uniforms`
    (envs/core.py) would put there, computed on the spot: output col - W + 1 of the splitmix64 stream
    seeded from the row's last uniform (W = u's width).

    So a step can draw one uniform per row and still read as many columns as a rare event needs (a deal of
    50 cards): apply(u) == apply(extend_uniforms(u, K)) for any width, and full-width u reads as before.
    Generating the unused columns was a fifth of Hadara's step at B = 4096."""
    W = u.shape[1]
    if col < W:
        return u[b, col]
    z = ((np.uint64(u[b, W - 1] * 9007199254740992.0) ^ SPLITMIX_GOLDEN)
         + np.uint64(col - W + 1) * SPLITMIX_GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) / 9007199254740992.0


@kernel(inline="always")
def shuffle_prefix(arr, off, n, k, u, b, col):
    """Fisher-Yates over arr[off:off+n] for its first k positions, draw i from column col + i of row b
    (`uniform_at`: past u's width, the row's extension stream).

    The one deal shuffle of every game: k = n - 1 is a full shuffle, a smaller k deals a uniform
    random k-prefix with only k uniform columns (the rest of arr stays "in the box"). Goldens pin
    the column order, so every deal must go through here."""
    for i in range(k):
        j = i + uniform_index(uniform_at(u, b, col + i), n - i)
        tmp = arr[off + i]
        arr[off + i] = arr[off + j]
        arr[off + j] = tmp


@kernel(inline="always")
def shuffle_stream(arr, off, n, stream):
    """Full Fisher-Yates over arr[off:off+n] drawing from the splitmix64 stream in stream[0].

    For determinize, which needs a data-dependent number of draws (no fixed uniform columns)."""
    for i in range(n - 1):
        j = i + uniform_index(splitmix_uniform(stream), n - i)
        tmp = arr[off + i]
        arr[off + i] = arr[off + j]
        arr[off + j] = tmp


@kernel(inline="always")
def resample_unseen(pool, off, items, count, seen, stream):
    """Gather items[:count] the viewer has not seen (seen[item] False) into pool[off:], shuffle them
    with the stream and return how many there are.

    The determinize pattern: the unseen items are exchangeable, so any consistent world hands them
    out in a fixed order (pool[off], pool[off + 1], ...) to the hidden slots it refills."""
    n = 0
    for i in range(count):
        item = items[i]
        if not seen[item]:
            pool[off + n] = item
            n += 1
    shuffle_stream(pool, off, n, stream)
    return n


# --- union-find ------------------------------------------------------------------------------------

@kernel(inline="always")
def find_root(parent, x):
    """Union-find root of node x (path halving); parent[x] == x marks a root.

    Feature instances on tile boards (connected segments of a kind) are union-find components."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@kernel(inline="always")
def union_roots(parent, x, y):
    """Join the components of x and y; the smaller root index becomes the root (deterministic roots)."""
    rx = find_root(parent, x)
    ry = find_root(parent, y)
    if rx != ry:
        if rx < ry:
            parent[ry] = rx
        else:
            parent[rx] = ry


# --- board adjacency -------------------------------------------------------------------------------

# square sides in the order N, E, S, W (clockwise): the side across is (side + 2) % 4
SQUARE_DR = np.array([-1, 0, 1, 0], dtype=np.int64)
SQUARE_DC = np.array([0, 1, 0, -1], dtype=np.int64)


@kernel(inline="always")
def square_neighbour(cell, side, width, height):
    """Cell across `side` (0 N, 1 E, 2 S, 3 W) of `cell` = row * width + column, -1 off the board."""
    # int64 throughout: with NUMBA_DISABLE_JIT an int8 cell would keep numpy's int8 type and
    # row * width + column (or 8 * cell + port in a caller) would overflow
    r = np.int64(cell) // width + SQUARE_DR[side]
    c = np.int64(cell) % width + SQUARE_DC[side]
    if r < 0 or r >= height or c < 0 or c >= width:
        return np.int64(-1)
    return r * width + c


# hex directions in axial coordinates (q, r), counter-clockwise from +q; the opposite of d is (d + 3) % 6
HEX_DQ = np.array([1, 1, 0, -1, -1, 0], dtype=np.int64)
HEX_DR = np.array([0, -1, -1, 0, 1, 1], dtype=np.int64)


def hex_lattice(coords) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tables of a hex board given its cells' axial (q, r), in cell-index order.

    Returns (index, cell_q, cell_r, neighbours): index[q, r] is the cell at lattice-local (q, r) or -1
    (coordinates shifted so the smallest q and r are 0), cell_q / cell_r the local coordinates of each
    cell, neighbours (N, 6) the cell in each HEX_D* direction or -1. Boards are irregular, so kernels
    look cells up in a table instead of computing an index."""
    qr = np.asarray(coords, dtype=np.int64).reshape(-1, 2)
    q = qr[:, 0] - qr[:, 0].min()
    r = qr[:, 1] - qr[:, 1].min()
    if np.unique(qr, axis=0).shape[0] != qr.shape[0]:
        raise ValueError("hex_lattice: duplicate cells")
    index = np.full((q.max() + 1, r.max() + 1), -1, dtype=np.int64)
    index[q, r] = np.arange(qr.shape[0])
    nq = q[:, None] + HEX_DQ[None, :]
    nr = r[:, None] + HEX_DR[None, :]
    inside = (nq >= 0) & (nr >= 0) & (nq < index.shape[0]) & (nr < index.shape[1])
    neighbours = np.where(inside, index[np.clip(nq, 0, index.shape[0] - 1), np.clip(nr, 0, index.shape[1] - 1)], -1)
    return index, q, r, neighbours


def hex_window(radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tables of the hexagonal window of `radius` around the origin in a (2R+1) x (2R+1) array.

    A hex (q, r) with |q|, |r| <= R is slot (q + R) * (2R + 1) + (r + R); slots at hex distance > R
    exist in the array but are never on the board. Returns (slot_q, slot_r, valid, neighbours): the
    axial coordinates of every slot, whether it lies in the window, and (S, 6) the slot in each
    HEX_D* direction (-1 outside the window). A fixed square array lets spatial encoders and
    convolutional policies see the board as planes."""
    side = 2 * radius + 1
    slot = np.arange(side * side)
    q = slot // side - radius
    r = slot % side - radius
    valid = hex_distance(q, r, 0, 0) <= radius
    nq = q[:, None] + HEX_DQ[None, :]
    nr = r[:, None] + HEX_DR[None, :]
    inside = (np.abs(nq) <= radius) & (np.abs(nr) <= radius) & (np.abs(nq + nr) <= radius) & valid[:, None]
    neighbours = np.where(inside, (nq + radius) * side + (nr + radius), -1)
    return q, r, valid, neighbours


def hex_distance(q1, r1, q2, r2):
    """Hex distance between axial coordinates (numpy arrays or ints): max(|dq|, |dr|, |dq + dr|)."""
    dq = np.subtract(q1, q2)
    dr = np.subtract(r1, r2)
    return np.maximum(np.maximum(np.abs(dq), np.abs(dr)), np.abs(dq + dr))


def hex_rotate(q, r, k: int):
    """Axial (q, r) turned k times 60 degrees counter-clockwise about the origin: each turn maps
    (q, r) to (q + r, -q), i.e. direction d to direction d + 1."""
    q, r = np.asarray(q), np.asarray(r)
    for _ in range(k % 6):
        q, r = q + r, -q
    return q, r


def hex_flowers(neighbours: np.ndarray) -> np.ndarray:
    """(S, 7) the 7-hex "flower" footprint around every slot: the centre, then the neighbour in each
    HEX_D* direction; a flower with a hex outside the board has -1 there (it cannot be placed).
    A piece printed with fields (centre, E, NE, NW, W, SW, SE) and turned k times 60 degrees puts
    its ring field i on footprint position 1 + (i + k) % 6."""
    return np.concatenate([np.arange(neighbours.shape[0])[:, None], neighbours], axis=1)


@kernel(inline="always")
def hex_cell(index, q, r):
    """The cell at lattice-local axial (q, r) of a `hex_lattice` index table, -1 off the board."""
    if q < 0 or r < 0 or q >= index.shape[0] or r >= index.shape[1]:
        return np.int64(-1)
    return np.int64(index[q, r])


@kernel(inline="always")
def hex_neighbour(index, cell_q, cell_r, cell, d):
    """The cell in direction d (HEX_DQ / HEX_DR) of `cell`, -1 off the board."""
    return hex_cell(index, cell_q[cell] + HEX_DQ[d], cell_r[cell] + HEX_DR[d])


# --- bit sets ------------------------------------------------------------------------------------

# de Bruijn sequence B(2, 5) and the bit index each of its 5-bit windows stands for: (x & -x) * DEBRUIJN32
# puts a unique pattern in the top 5 of 32 bits for every single-bit x below 2**32
DEBRUIJN32 = 0x077CB531
DEBRUIJN32_INDEX = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                             31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], dtype=np.int8)


@kernel(inline="always")
def lowest_bit(x):
    """Index of the lowest set bit of 0 < x < 2**32 (a bit set of at most 32 items), in a few operations:
    loops over set bits stay proportional to the bits set, not to the items there could be."""
    return np.int64(DEBRUIJN32_INDEX[(((x & -x) * DEBRUIJN32) & 0xFFFFFFFF) >> 27])


# --- counts, multisets and small tuples ----------------------------------------------------------------

@kernel(inline="always")
def count_equal(values, x):
    """How many items of the 1-D array `values` equal x (the seats owning something, the slots of a kind)."""
    n = 0
    for i in range(values.shape[0]):
        if values[i] == x:
            n += 1
    return n


@kernel(inline="always")
def count_at_least(values, x):
    """How many items of the 1-D array `values` are >= x (with x = 0: the filled slots of a row of ids, -1 empty)."""
    n = 0
    for i in range(values.shape[0]):
        if values[i] >= x:
            n += 1
    return n


@kernel(inline="always")
def append_copies(arr, off, n, item, count):
    """Write `count` copies of item at arr[off + n], arr[off + n + 1], ... and return the new length n: a
    multiset (per-kind counts) written out as a list, to shuffle and deal (`tally_items` reads it back)."""
    for _ in range(count):
        arr[off + n] = item
        n += 1
    return n


@kernel(inline="always")
def tally_items(counts, arr, off, i, count):
    """counts[item] += 1 for the `count` list items arr[off + i], arr[off + i + 1], ...; returns the position
    after them: a dealt list read back into per-kind counts (`append_copies` wrote it)."""
    for _ in range(count):
        counts[arr[off + i]] += 1
        i += 1
    return i


@kernel(inline="always")
def set_item4(k, value, x0, x1, x2, x3):
    """(x0, x1, x2, x3) with item k (0..2; any other k: item 3) replaced by value: four scalars a kernel keeps
    in registers (per side, per landscape) indexed at run time, where a small array would need memory."""
    if k == 0:
        return value, x1, x2, x3
    if k == 1:
        return x0, value, x2, x3
    if k == 2:
        return x0, x1, value, x3
    return x0, x1, x2, value


# --- action choice ---------------------------------------------------------------------------------

@kernel(inline="always")
def best_legal(mask_row, values):
    """Index of the highest value among the legal actions (lowest index on ties), -1 if none is legal.

    The argmax every greedy heuristic and policy needs; numpy's argmax over a masked copy would
    allocate, which kernels may not."""
    best = -1
    for a in range(mask_row.shape[0]):
        if mask_row[a] and (best < 0 or values[a] > values[best]):
            best = a
    return best


# --- numpy splitmix64 (outside kernels) ------------------------------------------------------------

def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 output function of x + golden on uint64 arrays (wrapping arithmetic).

    The same mixing as `splitmix_uniform`, vectorised for the numpy side: `extend_uniforms` and the
    MCTS common random numbers hash seeds with it."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = x + SPLITMIX_GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))


def bits_to_uniform(z: np.ndarray) -> np.ndarray:
    """The top 53 bits of uint64 values as floats in [0, 1) (exactly like `splitmix_uniform`)."""
    return (np.asarray(z, dtype=np.uint64) >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def splitmix_uniforms(state: np.ndarray, n: int) -> np.ndarray:
    """(len(state), n) uniforms: n steps of a splitmix64 stream per row, starting from uint64 `state`.

    Column k equals the k-th call of `splitmix_uniform` on a stream holding state[row]."""
    state = np.asarray(state, dtype=np.uint64).reshape(-1)
    with np.errstate(over="ignore"):
        steps = np.arange(n, dtype=np.uint64) * SPLITMIX_GOLDEN
        return bits_to_uniform(splitmix64(state[:, None] + steps[None, :]))


# --- input checks of the rules base (envs/base.py): one compiled pass instead of several numpy calls --------

@kernel
def first_out_of_range(actions, num_actions):
    """The first row whose action is outside 0..num_actions-1, or -1."""
    for b in range(actions.shape[0]):
        if actions[b] < 0 or actions[b] >= num_actions:
            return b
    return -1


@kernel
def first_illegal(mask, actions):
    """The first row b with mask[b, actions[b]] False, or -1 (actions already in range)."""
    for b in range(actions.shape[0]):
        if not mask[b, actions[b]]:
            return b
    return -1


@kernel
def first_field_outside(lo, hi, fields):
    """The position k in `fields` (a tuple of arrays of any shapes, dtypes and layouts) of the first array
    holding a value outside [lo[k], hi[k]], or -1. The cheap facts every kernel indexes with (seats,
    counters, card and cell ids) are such ranges, so a state that passes cannot send a kernel outside an
    array through them, whatever was written into it by hand (`RulesBase.check_values`)."""
    k = 0
    for field in literal_unroll(fields):
        low, high = lo[k], hi[k]
        bad = False
        for value in field.flat:  # (no early exit inside a field: the loop vectorises)
            bad |= (value < low) | (value > high)
        if bad:
            return k
        k += 1
    return -1
