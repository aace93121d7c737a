"""Utopia: the legal moves and builds of the mask against a plain numpy reading of the rules, over many
positions of random play at every player count.

The kernels find a civilization's moves from per-district bit sets of the edges leaving each district
(see `kernels.LAND_LEAVING`); this test reads the rules edge by edge instead: a land or sea move of k
princes (k = 1, 2) of civilization c along an edge is legal when the player holds a card of c (or is
converting into c), has at least k princes of c on the edge's start district, and the far district is
in play at this player count. Builds: a free base; a monument of c on a district without one where the
player has three princes of c, while c has a monument left; a wonder on an island in play without one
where the player has a prince of every civilization.

The rules' worked examples of these actions run in tests/test_utopia.py: example 2 (a land move of two
princes over a bridge), example 3 (a sea move, at 2 to 5 players), example 7 (a monument, with the
wonder owner's bonus) and example 8 (a wonder and its removals), plus `test_monument_and_base_limits`.
This test adds breadth: every such position random play reaches.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs.utopia import Utopia
from meeple.envs.utopia import data as D

MOVES = slice(D.ACTION_LAND, D.ACTION_ADD)
BUILDS = slice(D.ACTION_MONUMENT, D.ACTION_SELECT)


def expected_moves(s, b: int, p: int, P: int, civs: np.ndarray) -> np.ndarray:
    """(ACTION_ADD - ACTION_LAND,) bool: the land and sea moves of the civilizations in `civs`."""
    princes = s.princes[b, p].astype(np.int64)  # (civilizations, districts)
    out = []
    for edges in (D.LAND_EDGES, D.SEA_ROUTES):
        far_in_play = D.DISTRICT_IN_PLAY[P, edges[:, 1]].astype(bool)
        on_start = princes[:, edges[:, 0]]  # (civilizations, edges)
        for c in range(D.NUM_CIVS):
            for k in (1, 2):
                out.append((on_start[c] >= k) & far_in_play & bool(civs[c]))
    return np.concatenate(out)


def expected_builds(s, b: int, p: int, P: int) -> np.ndarray:
    """(ACTION_SELECT - ACTION_MONUMENT,) bool: monuments by civilization and district, then wonders."""
    monuments = np.zeros((D.NUM_CIVS, D.NUM_DISTRICTS), dtype=bool)
    wonders = np.zeros(D.NUM_ISLANDS, dtype=bool)
    bases = int((s.mon_owner[b] == p).sum() + (s.wonder_owner[b] == p).sum())
    if bases < D.BASES:
        for c in range(D.NUM_CIVS):
            if int((s.mon_civ[b] == c).sum()) < D.MONUMENTS_PER_CIV:
                monuments[c] = (s.princes[b, p, c] >= 3) & (s.mon_civ[b] < 0)
        for i in range(D.NUM_ISLANDS):
            districts = slice(D.ISLAND_FIRST[i], D.ISLAND_FIRST[i + 1])
            every_civ = all((s.princes[b, p, c, districts] > 0).any() for c in range(D.NUM_CIVS))
            wonders[i] = bool(D.ISLAND_IN_PLAY[P, i]) and s.wonder_owner[b, i] < 0 and every_civ
    return np.concatenate([monuments.ravel(), wonders])


@pytest.mark.parametrize("P", [2, 3, 4, 5])
def test_moves_and_builds_in_the_mask_follow_the_rules_edge_by_edge(P):
    game = Utopia(num_players=P)
    rng = np.random.default_rng(100 + P)
    state = game.init(rng, 48)
    checked = {D.DEC_TURN: 0, D.DEC_CONVERT: 0, D.DEC_BUILD: 0}
    legal_moves = 0
    for _ in range(400):
        mask = game.legal_action_mask(state)
        for b in np.flatnonzero(~state.done):
            dec = int(state.decision[b])
            if dec not in checked:
                continue
            p = int(state.to_play[b])
            if dec == D.DEC_TURN:
                civs = state.hand[b, p] >= 1
            elif dec == D.DEC_CONVERT:
                civs = np.arange(D.NUM_CIVS) == state.convert_to[b]
            else:
                civs = np.zeros(D.NUM_CIVS, dtype=bool)
            want = expected_moves(state, b, p, P, civs)
            assert np.array_equal(mask[b, MOVES], want), (P, b, dec)
            legal_moves += int(want.sum())
            if dec != D.DEC_CONVERT:
                assert np.array_equal(mask[b, BUILDS], expected_builds(state, b, p, P)), (P, b, dec)
            checked[dec] += 1
        game.step_inplace(state, sample_masked(mask, rng), rng)
        done = np.flatnonzero(state.done)
        if len(done):
            fresh = game.init(rng, len(done))
            for f_new, f in zip(fresh, state):
                f[done] = f_new
    assert checked[D.DEC_TURN] > 500 and checked[D.DEC_BUILD] > 20 and legal_moves > 10_000, (checked, legal_moves)
