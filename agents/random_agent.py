"""Uniformly random legal play."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from meeple.envs import threads
from meeple.envs.jit import kernel, load_word


@kernel
def pick_legal_nb(mask_row: np.ndarray, u: float) -> int:
    """The floor(u * n)-th legal action of one mask row (n = its legal actions); 0 if none."""
    n = 0
    for a in range(mask_row.shape[0]):
        n += mask_row[a]
    if n == 0:
        return 0
    k = min(int(u * n), n - 1)
    for a in range(mask_row.shape[0]):
        if mask_row[a]:
            if k == 0:
                return a
            k -= 1
    return 0


@kernel(inline="always")
def legal_or_random(mask_row: np.ndarray, a: int, u: float) -> int:
    """`a` if it is a legal action of the mask row, else a random legal one (`pick_legal_nb`): a heuristic's
    last line of defence, which callers count (the choice differs from `a` exactly when `a` was illegal)."""
    if 0 <= a < mask_row.shape[0] and mask_row[a]:
        return a
    return pick_legal_nb(mask_row, u)


_BYTE_ONES = np.uint64(0x0101010101010101)


@kernel(inline="always")
def _bytes_sum(x):
    """Sum of the eight bytes of x, each 0 or 1 (shifted adds: no product that could overflow)."""
    x = x + (x >> np.uint64(8))
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return int(x & np.uint64(0xFF))


@kernel
def sample_masked_words_nb(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """`sample_masked_nb` for masks read eight actions at a time: mask (B, A) uint8 is a bool mask's bytes
    (one per action, 0 or 1), read as words at any row width (`jit.load_word`), so a word's count of legal
    actions is the sum of its bytes (three shifted adds); the last A % 8 actions are read one at a time.
    The same action as `pick_legal_nb` in every row, ~3x faster at Attika's 668 and Utopia's 1,904 actions
    (B = 4096, 2% of actions legal)."""
    A = mask.shape[1]
    W = A // 8
    for b in range(mask.shape[0]):
        row = mask[b]
        out[b] = 0
        n = 0
        for w in range(W):
            x = load_word(row, 8 * w)
            if x:  # most words of a large mask hold no legal action
                n += _bytes_sum(x)
        for a in range(8 * W, A):
            n += np.int64(row[a])  # int64: a uint8 sum would wrap without the JIT
        if n == 0:
            continue
        k = min(int(u[b] * n), n - 1)
        in_words = False  # the k-th legal action lies in the words, not in the tail
        for w in range(W):
            x = load_word(row, 8 * w)
            if not x:
                continue
            c = _bytes_sum(x)
            if k < c:
                in_words = True
                for j in range(8):
                    if (x >> np.uint64(8 * j)) & np.uint64(1):
                        if k == 0:
                            out[b] = 8 * w + j
                            break
                        k -= 1
                break
            k -= c
        if not in_words:
            for a in range(8 * W, A):
                if row[a]:
                    if k == 0:
                        out[b] = a
                        break
                    k -= 1


@kernel
def sample_masked_nb(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """out[b] = a uniformly random legal action of row b, decided by u[b]."""
    for b in range(mask.shape[0]):
        out[b] = pick_legal_nb(mask[b], u[b])


_SAMPLE_COST = threads.RowCost()
_LITTLE_ENDIAN = sys.byteorder == "little"  # the word reading takes byte j of a word as action 8w + j


def sample_masked(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random legal action per row of a (B, A) bool mask."""
    B = mask.shape[0]
    out = np.empty(B, dtype=np.int64)
    u = rng.random(B)
    # large masks only (Attika's 668 actions, Utopia's 1,904): for a hundred actions the word reads cost more
    # than they save
    if _LITTLE_ENDIAN and mask.ndim == 2 and mask.shape[1] >= 512 and mask.dtype == np.bool_ and mask.flags.c_contiguous:
        mask = mask.view(np.uint8)  # eight actions per read (sample_masked_words_nb); same results
        kernel = sample_masked_words_nb
    else:
        kernel = sample_masked_nb
    if B < threads.serial_below:
        kernel(mask, u, out)
    else:
        _SAMPLE_COST.run(B, lambda: kernel(mask, u, out), lambda _t, lo, hi: kernel(mask[lo:hi], u[lo:hi], out[lo:hi]))
    return out


class RandomAgent:
    """Samples uniformly among the legal actions."""

    name = "random"

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        return sample_masked(game.legal_action_mask(state), rng)
