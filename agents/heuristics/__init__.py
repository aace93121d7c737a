"""Hand-written players, one per game (`Heuristic` in `<game>.py`), built on `TunedHeuristic`."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

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
        """(B,) int64 actions: `_fill` writes each row's choice; rows whose logic picked an illegal
        action get a random legal one instead and are counted in `fallbacks`."""
        mask = game.legal_action_mask(state)
        B = mask.shape[0]
        out = np.empty(B, dtype=np.int64)
        fallback = np.empty(B, dtype=np.bool_)
        self._fill(game, state, mask, rng.random(B), out, fallback)
        self.fallbacks += int(fallback.sum())
        return out

    # the game's kernel: KERNEL(mask, u, out, fallback, params, *kernel_args(game), *scratch, *observed fields)
    # fills out (B,) with each row's action and fallback (B,) (`legal_or_random`); a class attribute read
    # through the class (a numba dispatcher read through an instance would be bound as a method)
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

    def _fill(self, game: Any, state: Any, mask: np.ndarray, u: np.ndarray, out: np.ndarray,
              fallback: np.ndarray) -> None:
        """Run the game's heuristic kernel: fill out (B,) and fallback (B,); u (B,) uniforms for fallbacks."""
        type(self).KERNEL(mask, u, out, fallback, self.params, *self.kernel_args(game), *self.scratch(game),
                          *self.observed(game, state))
