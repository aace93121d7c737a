"""Utopia invariants over many random games in the batched core, checked with independent numpy code.

Every step of every game (auto_forced=False, so each step is exactly one action) is checked for:
princes conserved (only the actor's princes change, by what the action says; a wonder takes exactly
one prince of each civilization of its island), monuments permanent and within their limits
(controlled districts are exactly the districts with a monument, at most 7 per civilization and 8
constructions per player), action cards conserved (hands + draw pile + discards + a converted card =
10 per civilization), the score change equal to the gains the action and Phase 3 give (recomputed
here from the action and the board, and equal to the recorded gains), arrival stamps (a player who
scores arrives after everybody), turn order following the track (a new picker or turn is always the
best-ranked player who has not acted), and every game ending within max_game_length.

    python tests/test_utopia_invariants.py --games 100000    # a longer sweep

The test runs GAMES_PER_COUNT games per player count (MEEPLE_SWEEP_GAMES: 1,500 by default, what CI runs;
`tests/helpers.py`); the script runs as many as asked, and `benchmarks/soak.py` plays a million games with `validate` after every step.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs.utopia import Utopia
from meeple.envs.utopia import data as D

from helpers import SWEEP_GAMES as GAMES_PER_COUNT

BATCH = 2000


def _prestige(state) -> np.ndarray:
    """(B, P) what every player's monuments pay at the current scale."""
    B, P = state.score.shape
    civ = np.maximum(state.mon_civ, 0)
    pay = np.take_along_axis(state.scale.astype(np.int64), civ, axis=1) * (state.mon_civ >= 0)
    return np.stack([(pay * (state.mon_owner == p)).sum(axis=1) for p in range(P)], axis=1)


def _check_step(before, after, actions, pending) -> None:
    """Every invariant between two consecutive states of a batch (live rows of `before`)."""
    B, P = before.score.shape
    live = ~before.done
    rows = np.arange(B)
    actor = before.to_play.astype(np.int64)
    a = actions
    # --- princes: only the actor's change, by what the action says ---
    tot_b = before.princes.sum(axis=3).astype(np.int64)  # (B, P, 5)
    tot_a = after.princes.sum(axis=3).astype(np.int64)
    delta = tot_a - tot_b
    others = np.ones((B, P), dtype=bool)
    others[rows, actor] = False
    assert (delta[others & live[:, None]] == 0).all(), "another player's princes changed"
    own = delta[rows, actor].sum(axis=1)
    expect = np.zeros(B, dtype=np.int64)
    expect[a < D.ACTION_MONUMENT] = 1
    expect[(a >= D.ACTION_MONUMENT) & (a < D.ACTION_WONDER)] = -3
    expect[(a >= D.ACTION_ADD) & (a < D.ACTION_REMOVE)] = 1
    expect[(a >= D.ACTION_REMOVE) & (a < D.ACTION_RAISE)] = -1
    expect[(a >= D.ACTION_SPECIAL) & (a < D.ACTION_PRIVILEGE)] = 1
    wonder_steps = (a >= D.ACTION_WONDER) & (a < D.ACTION_LAND)
    fixed = live & ~wonder_steps
    assert (own[fixed] == expect[fixed]).all(), "princes not conserved"
    assert (after.princes >= 0).all() and (after.princes.sum(axis=3) <= D.PRINCES_PER_CIV).all()
    # a wonder removes exactly one prince of every civilization on its island, over the WONDER step and the
    # SELECT steps that follow it
    island_of = np.asarray(D.DISTRICT_ISLAND)
    started = live & (a >= D.ACTION_WONDER) & (a < D.ACTION_SELECT)
    for b in np.flatnonzero(started):
        i = a[b] - D.ACTION_WONDER
        pending[b] = (i, before.princes[b, actor[b]][:, island_of == i].sum(axis=1).copy())
    for b in np.flatnonzero(live & (after.decision != D.DEC_WONDER)):
        if b in pending:
            i, counts = pending.pop(b)
            now = after.princes[b, actor[b]][:, island_of == i].sum(axis=1)
            assert (now == counts - 1).all(), "a wonder must take one prince of each civilization"
    # --- monuments: permanent, consistent with control, within the limits ---
    had = before.mon_civ >= 0
    assert (after.mon_civ[had] == before.mon_civ[had]).all() and (after.mon_owner[had] == before.mon_owner[had]).all()
    assert ((after.mon_civ >= 0) == (after.mon_owner >= 0)).all()
    new = (after.mon_civ >= 0).sum(axis=1) - had.sum(axis=1)
    built = live & (a >= D.ACTION_MONUMENT) & (a < D.ACTION_WONDER)
    assert (new == built).all(), "a monument appears exactly when one is built"
    for c in range(D.NUM_CIVS):
        assert ((after.mon_civ == c).sum(axis=1) <= D.MONUMENTS_PER_CIV).all()
    for p in range(P):
        assert ((after.mon_owner == p).sum(axis=1) + (after.wonder_owner == p).sum(axis=1) <= D.BASES).all()
    # --- cards ---
    conv = np.zeros((B, D.NUM_CIVS), dtype=np.int64)
    has = after.convert_from >= 0
    conv[np.flatnonzero(has), after.convert_from[has]] = 1
    total = after.hand.sum(axis=1).astype(np.int64) + after.pile + after.discard + conv
    assert (total == D.CARDS_PER_CIV).all(), "action cards not conserved"
    # --- scores: the action's gains, then Phase 3 when the round ended ---
    gain = np.zeros((B, P), dtype=np.int64)
    rem = live & (a >= D.ACTION_REMOVE) & (a < D.ACTION_RAISE)
    gain[np.flatnonzero(rem), actor[rem]] += D.REMOVE_VP
    won = live & (a >= D.ACTION_WONDER) & (a < D.ACTION_SELECT)
    gain[np.flatnonzero(won), actor[won]] += D.WONDER_VP
    add = np.flatnonzero(live & (a >= D.ACTION_ADD) & (a < D.ACTION_REMOVE))
    for b in add:
        owner = before.mon_owner[b, (a[b] - D.ACTION_ADD) % D.NUM_DISTRICTS]
        if owner != actor[b]:
            gain[b, owner] += D.ADD_VP
    for b in np.flatnonzero(built):
        d = (a[b] - D.ACTION_MONUMENT) % D.NUM_DISTRICTS
        w = before.wonder_owner[b, D.DISTRICT_ISLAND[d]]
        if w >= 0:
            gain[b, w] += D.DISTRICT_VALUE[d]
    round_over = live & ((after.round != before.round) | after.done)
    gain[round_over] += _prestige(after)[round_over]
    assert (after.score.astype(np.int64) == before.score + gain).all(), "score != sum of the gains"
    assert (after.gains.sum(axis=2) == after.score).all()
    # a player who scores arrives after everybody else
    up = after.score > before.score
    latest = after.stamp.max(axis=1)
    for b, p in zip(*np.nonzero(up)):
        assert after.stamp[b, p] > before.stamp[b].max()
    assert (after.stamp_counter == latest + 1).all()
    # --- turn order follows the track ---
    tp = after.to_play.astype(np.int64)
    fresh = ~before.acted[rows, tp] | (before.phase != after.phase) | (before.round != after.round)
    started_turn = live & ~after.done & ((after.decision == D.DEC_PICK) | ((after.decision == D.DEC_TURN) & fresh))
    sc, st = after.score, after.stamp
    for q in range(P):
        behind = started_turn & ~after.acted[:, q]
        ahead = (sc[rows, tp] > sc[:, q]) | ((sc[rows, tp] == sc[:, q]) & (st[rows, tp] < st[:, q]))
        assert ahead[behind].all(), "a player acted before a better-ranked one"


def sweep(num_players: int, games: int, batch: int = BATCH, seed: int = 0) -> dict:
    """Play `games` random games (auto_forced off) checking every step; returns counts."""
    game = Utopia(num_players=num_players, auto_forced=False)
    rng = np.random.default_rng([seed, num_players])
    played = steps = truncated = 0
    wonders = monuments = 0
    while played < games:
        n = min(batch, games - played)
        state = game.init(rng, n)
        pending: dict = {}
        for _ in range(game.info.max_game_length):
            if state.done.all():
                break
            mask = game.legal_action_mask(state)
            assert mask.any(axis=1).all()
            actions = sample_masked(mask, rng)
            after = game.apply(state, actions, rng.random((n, game.uniforms_per_step)))
            _check_step(state, after, actions, pending)
            steps += int((~state.done).sum())
            state = after
        assert state.done.all(), "every game ends within max_game_length"
        assert not pending
        played += n
        truncated += int(state.truncated.sum())
        wonders += int((state.wonder_owner >= 0).sum())
        monuments += int((state.mon_civ >= 0).sum())
        finished = state.done & ~state.truncated
        assert (state.score.max(axis=1)[finished] >= D.END_SCORE).all()
    return {"games": played, "steps": steps, "truncated": truncated, "wonders": wonders, "monuments": monuments}


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_game_sweep(num_players):
    result = sweep(num_players, GAMES_PER_COUNT)
    assert result["games"] == GAMES_PER_COUNT
    assert result["wonders"] > 0 and result["monuments"] > 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Utopia invariant sweep")
    parser.add_argument("--games", type=int, default=10_000, help="games per player count")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5])
    args = parser.parse_args()
    for P in args.players:
        start = time.perf_counter()
        out = sweep(P, args.games)
        print(f"{P} players: {out} in {time.perf_counter() - start:.1f} s")
