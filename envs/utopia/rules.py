"""Utopia (Ludovic Vialla and Arnaud Urbon, Matagot 2007), 2-5 players, as a batched rules core.

Rules in brief (docs/utopia.md has them in full): ministers settle princes of five civilizations in
the 24 districts of a city on four islands (three with 2 players). Each round, Phase 1 draws 3 guests
per player onto the islands' displays and, in three passes, every player turns a guest into an own
prince of its civilization on any district of its island. Phase 2 deals 5 action cards to everybody
(the leader discards 2, the last player none, the others 1); on his turn a player spends cards of a
civilization to move its princes over alleys, bridges and sea routes, add or remove princes at its
monuments, move it on the prestige scale or place a special guest, and may use a privilege token to
count a card as another civilization. At any time of his turn a player builds a monument with three
own princes of one civilization in a district (he controls the district; a wonder's owner on that
island gains its printed value) or a wonder with one own prince of every civilization on an island
(+6). Phase 3 pays every monument its civilization's value on the scale. The game ends after the round
in which somebody reached 50; the most points win, ties going to who reached the score first. The
next actor is always the best-ranked player who has not yet acted in the pass or phase.

Hidden information: the composition of hands and of the draw pile (their sizes are public). The
state is a struct of numpy arrays with batch axis B declared once in the field table of `state.py`;
the rules live in numba kernels (`kernels.py`; what a consistent state keeps, in `invariants.py`); the
lifecycle is `envs.base.RulesBase`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np

from meeple.envs import base
from meeple.envs.utopia import data
from meeple.envs.utopia.state import State, View  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class Config(base.GameConfig):
    """Variant flags (all JSON-serialisable)."""

    num_players: Annotated[int, base.Range(data.MIN_PLAYERS, data.MAX_PLAYERS)] = 2
    """2-5 players (with 2 the Water island is out of play)."""
    auto_forced: bool = True
    """Decisions with exactly one legal action are applied without asking."""
    reward: Literal["rank", "score_diff"] = "rank"
    """"rank": core.rank_returns by (score, arrival on the track) in [-1, 1]; "score_diff": (own - best other) / 100."""


class Utopia(base.FixedActions, base.RulesBase):
    """The rules core for one configuration; see `meeple.envs.core.Game` for the protocol."""

    def tiebreak_key(self, state: State) -> np.ndarray:
        """(B, P) int64, higher wins a score tie: who reached the score first (the lower arrival stamp)."""
        return -state.stamp.astype(np.int64)

    def ranking(self, state: State) -> np.ndarray:
        """(B, P) seats in ranking order (score descending, then arrival on the track)."""
        key = state.score.astype(np.int64) * (1 << 32) - state.stamp.astype(np.int64)
        return np.argsort(-key, axis=1, kind="stable").astype(np.int8)
