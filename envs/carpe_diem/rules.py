"""Carpe Diem (Stefan Feld, alea 2018, 2nd edition; the Yucata.de rules), as a batched rules core.

Rules in brief (more in docs/carpe_diem.md): 2-4 players build a Roman district on a
6 x 6 board over 4 phases of 7 rounds. On a turn a player moves his patrician along a circle of 7
depots (skipping empty ones, or anywhere for 1 bread), takes one tile from the depot there and builds
it (the first on the shovel cell, then edge-adjacent, everything that touches must match, the frame
is meadow) or stores it face down. Completed landscapes give goods, lodgings give bread / banderole
steps / coins / a craftsman pick from the bottom display, markets coins, bakeries bread, fountains a
fountain card. After each phase every player, in banderole-track order, puts a disc between two
scoring cards and resolves both (green: have; red: pay goods, coins as jokers; 3 bread = one
fulfilment; -4 VP for a failed card). Final scoring: villas by chimneys, leftovers / 2, track
position, fountain cards and frame tasks. Most VP wins; ties go to the player further back on the
banderole track (the German Yucata rules text).

Hidden information: only fountain cards (others' hands, the cards they returned, a draw in
progress). The depot tiles are dealt when they are turned face up (after the start spaces and at each
phase start) and the fountain draw samples the undrawn deck when it happens, so the state stores no
hidden order at all. The state is a struct of numpy arrays with batch axis B, declared once in the
field table of `state.py`; the rules live in numba kernels (`kernels.py`); the lifecycle (init, apply,
observe, determinize, validate, save/load) is `envs.base.RulesBase`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np

from meeple.envs import base, core
from meeple.envs.carpe_diem import data, invariants, kernels
from meeple.envs.carpe_diem.state import LOC_NAMES, State, View  # noqa: F401  (re-exported)

LOC_SUPPLY, LOC_DEPOT, LOC_DISPLAY, LOC_PENDING, LOC_PLACED, LOC_STORED, LOC_REMOVED = range(7)
SCORE_PART_NAMES = ("vp_cards", "track", "tasks", "villas", "leftovers", "fountain_cards", "public", "final")


@dataclass(frozen=True)
class Config(base.GameConfig):
    """Variant flags (all JSON-serialisable)."""

    num_players: Annotated[int, base.Range(data.MIN_PLAYERS, data.MAX_PLAYERS)] = 2
    """2-4 players."""
    auto_forced: bool = True
    """Decisions with exactly one legal action are applied without asking."""
    tiebreak: Literal["banner_back", "banner_front"] = "banner_back"
    """VP ties: "banner_back" (the German rules: the tied player further back on the banderole track wins)
    or "banner_front"."""
    reward: Literal["rank", "score_diff"] = "rank"
    """"rank": core.rank_returns by (VP, tie-break) in [-1, 1]; "score_diff": (own VP - best opponent VP) / 100."""


class CarpeDiem(base.FixedActions, base.RulesBase):
    """The rules core for one configuration; see `meeple.envs.core.Game` for the protocol."""

    def validate(self, state: State, history: bool = True) -> None:
        """ValueError (`base.InvalidState`) unless `state` is a position the rules can reach: the base checks
        (fields, ranges), then the invariants (invariants.INVARIANTS): the snapshot ones (flow, tiles,
        districts, derived fields, fountain cards, discs, scoring turn, craftsman picks, patricians), then the
        history ones: whether a game can have led to it (tiles taken vs round and turn, the supply vs the
        phase, tiles held vs turns, discs vs scoring rounds, counters vs their sources, the setup).
        history=False ignores the rows whose first broken invariant is a history one: for positions built by
        hand (tests, tools), which are consistent snapshots no game reaches."""
        try:
            super().validate(state)
        except base.InvalidState:
            if history:
                raise
            # the generated kernel stops at a row's first broken invariant, and the history ones come last:
            # run it again for every row's first, and keep the rows that break a snapshot one
            err = np.zeros(state.done.shape[0], dtype=np.int32)
            self._zero_scratch()
            self.run_kernel("validate_nb", (err,), core.clone(state))
            rows = np.flatnonzero((err > 0) & (err <= len(invariants.SNAPSHOT)))
            if rows.size:
                invariant = invariants.INVARIANTS[int(err[rows[0]]) - 1]
                raise base.InvalidState(invariant.name, invariant.message, rows) from None

    # --- results -----------------------------------------------------------------------------

    def score_parts(self, state: State) -> dict[str, np.ndarray]:
        """(B, P) int32 per part of the score (SCORE_PART_NAMES): the VP cards (start VP +- scoring
        rounds + excess track steps), track space, frame tasks, completed villas, leftovers / 2,
        fountain cards, the public running score and the final score (their sum). Fountain-card VP
        is private: use it only for the viewer's own seat or at the end."""
        out = np.empty((*state.vp.shape, len(SCORE_PART_NAMES)), dtype=np.int32)
        self._kernel(kernels.score_parts_nb, "score_parts_nb", out, *state)
        return {name: out[..., i] for i, name in enumerate(SCORE_PART_NAMES)}

    def tiebreak_key(self, state: State) -> np.ndarray:
        """(B, P) int32, higher wins a VP tie: further back on the track (lower space; on a
        shared space lower in the stack) with tiebreak="banner_back", the reverse with "banner_front".
        With reward="rank" the banderole tie-break is strict, so nobody shares a rank."""
        pos = state.track.astype(np.int32) * data.MAX_PLAYERS + state.height.astype(np.int32)
        return -pos if self.config.tiebreak == "banner_back" else pos
