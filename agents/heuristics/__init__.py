"""Hand-written players, one per game (`Heuristic` in `<game>.py`), built on `TunedHeuristic`."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from meeple.agents.random_agent import legal_or_random
from meeple.envs.base import Field, make_scratch


class TunedHeuristic:
    """Base for heuristics whose weights live in a float array `DEFAULT_PARAMS` named by `PARAM_NAMES`.

    Keyword arguments override weights by name, e.g. `Heuristic(slot_cost=4.0)`.

    Scratch: a heuristic declares its kernels' scratch arrays as `SCRATCH` (a tuple of `Field`s, like
    a game's); `scratch(game)` builds them once per player count and returns them as a NamedTuple of
    those names, which `_fill` passes to its kernel as `*scratch` and the kernel rebuilds into one
    named `w` for its helpers.
    """

    name = "heuristic"
    DEFAULT_PARAMS: np.ndarray
    PARAM_NAMES: tuple[str, ...]
    SCRATCH: tuple[Field, ...] = ()

    def __init__(self, **params: float) -> None:
        self.params = self.DEFAULT_PARAMS.copy()
        for key, value in params.items():
            if key not in self.PARAM_NAMES:
                raise ValueError(f"unknown heuristic parameter {key!r}; known: {self.PARAM_NAMES}")
            self.params[self.PARAM_NAMES.index(key)] = float(value)
        self.fallbacks = 0  # rows where the logic picked an illegal action (should stay 0)
        self._scratch: dict[int, Any] = {}

    def scratch(self, game: Any) -> Any:
        """This agent's scratch arrays for `game`'s player count (built on first use, then reused)."""
        P = game.num_players
        if P not in self._scratch:
            cls = namedtuple(f"{type(self).__name__}Scratch", [f.name for f in self.SCRATCH])
            self._scratch[P] = make_scratch(cls, self.SCRATCH, P)
        return self._scratch[P]

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        """(B,) int64 actions: `_fill` writes each live row's choice (done rows play 0); a row whose
        logic picked an illegal action gets a random legal one instead (`legal_or_random`) and is
        counted in `fallbacks`."""
        mask = game.legal_action_mask(state)
        B, A = mask.shape
        u = rng.random(B)  # drawn on every call, whether a fallback needs it or not
        out = np.zeros(B, dtype=np.int64)
        self._fill(game, state, mask, out)
        legal = (out >= 0) & (out < A)
        legal[legal] = mask[np.flatnonzero(legal), out[legal]]
        for b in np.flatnonzero(~legal & ~np.asarray(state.done, dtype=np.bool_)):
            a = int(out[b])
            out[b] = legal_or_random(mask[b], a, u[b])
            self.fallbacks += int(out[b] != a)
        return out

    # the game's kernel: KERNEL(mask, out, params, *kernel_args(game), *scratch, *observed fields) writes
    # out[b] (B,), the logic's action, for each row b not done (it leaves done rows alone); a class
    # attribute read through the class (a numba dispatcher read through an instance would be bound as a method)
    KERNEL: Any = None
    VIEW_FIELDS: tuple[str, ...] | None = None  # the View fields KERNEL reads, in order (None: the whole View)

    def kernel_args(self, game: Any) -> tuple:
        """The configuration values KERNEL takes after `params` (none by default)."""
        return ()

    def observed(self, game: Any, state: Any) -> tuple:
        """The arrays KERNEL reads after its scratch: what the seat to play may see (its View), or the
        VIEW_FIELDS of it."""
        view = game.observe(state, state.to_play)
        return view if self.VIEW_FIELDS is None else tuple(getattr(view, name) for name in self.VIEW_FIELDS)

    def _fill(self, game: Any, state: Any, mask: np.ndarray, out: np.ndarray) -> None:
        """Run the game's heuristic kernel: out[b] (B,) the logic's action in each row not done."""
        type(self).KERNEL(mask, out, self.params, *self.kernel_args(game), *self.scratch(game),
                          *self.observed(game, state))
