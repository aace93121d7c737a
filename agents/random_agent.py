"""Uniformly random legal play."""

from __future__ import annotations

from typing import Any

import numpy as np
from meeple.envs.jit import kernel


@kernel
def sample_masked_nb(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """out[b] = the floor(u[b] * n_b)-th legal action of row b (n_b = legal actions in row b)."""
    for b in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[b, a]
        if n == 0:
            out[b] = 0
            continue
        k = int(u[b] * n)
        if k >= n:
            k = n - 1
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


def sample_masked(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random legal action per row of a (B, A) bool mask."""
    out = np.empty(mask.shape[0], dtype=np.int64)
    sample_masked_nb(mask, rng.random(mask.shape[0]), out)
    return out


class RandomAgent:
    """Samples uniformly among the legal actions."""

    name = "random"

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        return sample_masked(game.legal_action_mask(state), rng)
