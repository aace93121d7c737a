"""Hand-written players, one per game (`Heuristic` in `<game>.py`), built on `TunedHeuristic`."""

from __future__ import annotations

import numpy as np


class TunedHeuristic:
    """Base for heuristics whose weights live in a float array `DEFAULT_PARAMS` named by `PARAM_NAMES`.

    Keyword arguments override weights by name, e.g. `Heuristic(slot_cost=4.0)`.
    """

    name = "heuristic"
    DEFAULT_PARAMS: np.ndarray
    PARAM_NAMES: tuple[str, ...]

    def __init__(self, **params: float) -> None:
        self.params = self.DEFAULT_PARAMS.copy()
        for key, value in params.items():
            if key not in self.PARAM_NAMES:
                raise ValueError(f"unknown heuristic parameter {key!r}; known: {self.PARAM_NAMES}")
            self.params[self.PARAM_NAMES.index(key)] = float(value)
        self.fallbacks = 0  # rows where the logic picked an illegal action (should stay 0)
