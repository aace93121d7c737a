"""Uniformly random legal play."""

from __future__ import annotations

from typing import Any

import numpy as np
from meeple.envs import threads
from meeple.envs.jit import kernel


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


@kernel
def sample_masked_nb(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """out[b] = a uniformly random legal action of row b, decided by u[b]."""
    for b in range(mask.shape[0]):
        out[b] = pick_legal_nb(mask[b], u[b])


_SAMPLE_COST = threads.RowCost()


def sample_masked(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random legal action per row of a (B, A) bool mask."""
    B = mask.shape[0]
    out = np.empty(B, dtype=np.int64)
    u = rng.random(B)
    if B < threads.serial_below:
        sample_masked_nb(mask, u, out)
    else:
        _SAMPLE_COST.run(B, lambda: sample_masked_nb(mask, u, out),
                         lambda _t, lo, hi: sample_masked_nb(mask[lo:hi], u[lo:hi], out[lo:hi]))
    return out


class RandomAgent:
    """Samples uniformly among the legal actions."""

    name = "random"

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        return sample_masked(game.legal_action_mask(state), rng)
