"""The agent protocol: one action per batch row, for the seat in `state.to_play`."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Every agent: `act(game, state, rng) -> (B,) int64` legal actions.

    `game` is a rules core (`meeple.envs.core.Game`), `state` a batched state; the agent acts for
    each row's `to_play` seat and may only use what that seat may see (`game.observe`). Finished
    rows may get any action. An agent is deterministic given `rng`. It only reads `state`: callers may
    hand it their own (the one-row vector env does, for this package's agents), so anything it steps
    or edits must be its own copy (`core.clone`, pure `game.step`).
    """

    name: str

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray: ...
