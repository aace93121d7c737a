"""Attika invariants over many random games, checked with independent numpy code (not the kernels):
MEEPLE_SWEEP_GAMES games per player count (1,500 by default, what CI runs, `tests/helpers.py`; `benchmarks/soak.py` plays a
million per game with `validate` after every step), played to the end in one batch each.

Every step: landscape cards and amphorae conserved, a game that ends this step ends by a win or the
round cap. Every 10 steps and at the end: every player's 30 buildings accounted for (display, map,
stacks, the one in hand), buildings only on fields, fields exactly the footprints of the placed tiles (no
two tiles overlap). Every 20 steps on a sample of 500 games, and at the end on all: settlements (labels,
shrine contacts, counts) equal a fresh label propagation over the map, nobody meets a win condition in a
running game and every winner meets one. At the end every game has ended by a win or by the round cap.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs.attika import data
from meeple.envs.attika.rules import Attika
from meeple.envs.core import take

from helpers import SWEEP_GAMES as GAMES

MAP_CHECK_EVERY = 10
FULL_CHECK_EVERY = 20
SAMPLE = 500
NEIGHBOURS = data.NEIGHBOURS.astype(np.int64)


def settlements_numpy(owner: np.ndarray, land: np.ndarray, chunk: int = 500) -> tuple[np.ndarray, np.ndarray]:
    """(labels (B, S), shrine bits (B, S)) by label propagation: every building starts with its own slot
    as label and takes the smallest label of a same-owner neighbour until nothing changes (in chunks of
    rows, so the (rows, S, 6) temporaries stay small)."""
    if owner.shape[0] > chunk:
        parts = [settlements_numpy(owner[i:i + chunk], land[i:i + chunk]) for i in range(0, owner.shape[0], chunk)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    B, S = owner.shape
    big = np.int64(1 << 20)
    label = np.where(owner >= 0, np.arange(S)[None, :], big)
    nb = np.where(NEIGHBOURS >= 0, NEIGHBOURS, S)  # S = a padding slot
    owner_pad = np.concatenate([owner, np.full((B, 1), -2, owner.dtype)], axis=1)
    same = (owner_pad[:, nb] == owner[:, :, None]) & (owner[:, :, None] >= 0)  # (B, S, 6)
    rows = np.arange(B)[:, None]
    while True:  # min over same-owner neighbours, then pointer jumping (a label is a slot of the same group)
        label_pad = np.concatenate([label, np.full((B, 1), big)], axis=1)
        new = np.minimum(label, np.where(same, label_pad[:, nb], big).min(axis=2))
        new = np.where(owner >= 0, new[rows, np.minimum(new, S - 1)], big)
        if (new == label).all():
            break
        label = new
    # shrines next to each building, then OR over its settlement
    land_pad = np.concatenate([land, np.zeros((B, 1), land.dtype)], axis=1)
    nland = land_pad[:, nb].astype(np.int64)  # (B, S, 6)
    touch = np.where(nland >= data.LAND_SHRINE, 1 << np.clip(nland - data.LAND_SHRINE, 0, 3), 0)
    touch = np.bitwise_or.reduce(touch, axis=2) * (owner >= 0)
    per_label = np.zeros((B, S + 1), dtype=np.int64)
    rows = np.repeat(np.arange(B), S)
    lab = np.where(label >= big, S, label).reshape(-1)
    np.bitwise_or.at(per_label, (rows, lab), touch.reshape(-1))
    bits = np.where(owner >= 0, per_label[np.arange(B)[:, None], np.minimum(label, S)], 0)
    return np.where(owner >= 0, label, -1), bits


def popcount(x: np.ndarray) -> np.ndarray:
    return sum((x >> k) & 1 for k in range(4))


def meets_win(state, P: int, bits: np.ndarray) -> np.ndarray:
    """(B, P): the player has placed 30 buildings or owns a building whose settlement touches 2 shrines."""
    placed = np.stack([(state.owner == p).sum(axis=1) for p in range(P)], axis=1)
    shrine = np.stack([((state.owner == p) & (popcount(bits) >= 2)).any(axis=1) for p in range(P)], axis=1)
    return (placed >= data.BUILDINGS_PER_PLAYER) | shrine


def check_step(state, prev_done: np.ndarray, P: int) -> None:
    """The cheap checks, every step: cards and amphorae conserved, a game that ended ended by a win."""
    cards = state.hand.sum(axis=1) + state.draw_pile + state.discard
    assert (cards == data.CARDS_PER_LANDSCAPE).all()
    assert (state.amphora_supply + state.amphorae.sum(axis=1) == data.AMPHORAE).all()
    ended = state.done & ~prev_done
    assert (state.truncated[ended] | (state.winner[ended] >= 0)).all()


def check_map(state, P: int) -> None:
    """Buildings on fields and accounted for, fields exactly the placed tiles' footprints."""
    B = state.done.shape[0]
    S = data.NUM_SLOTS
    assert ((state.owner >= 0) == (state.building >= 0)).all()
    on = state.owner >= 0
    assert ((state.land[on] >= data.LAND_BLANK) & (state.land[on] < data.LAND_SHRINE)).all()
    # every player's 30 buildings: display + map + stacks + the one revealed or being paid for
    in_hand = ((state.decision == data.DEC_PENDING_REVEAL) | (state.decision == data.DEC_PAY)) & ~state.done
    on_map = np.bincount((np.arange(B)[:, None] * P + state.owner)[on], minlength=B * P).reshape(B, P)
    total = (state.display.sum(axis=2) + on_map + state.stack_size.sum(axis=2)
             + (in_hand[:, None] & (state.to_play[:, None] == np.arange(P)[None, :])))
    assert (total == data.BUILDINGS_PER_PLAYER).all()
    # fields are exactly the placed tiles' footprints, which never overlap
    rows, tiles = np.nonzero(state.tile_state == data.TILE_PLACED)
    slots = data.FLOWER[state.tile_centre[rows, tiles]].astype(np.int64)
    cover = np.bincount((rows[:, None] * S + slots).ravel(), minlength=B * S).reshape(B, S)
    assert cover.max() <= 1
    field = (state.land >= data.LAND_BLANK) & (state.land < data.LAND_SHRINE)
    assert (field == (cover == 1)).all()
    assert ((state.land >= data.LAND_SHRINE).sum(axis=1) == P).all()


def check_full(state, P: int) -> None:
    label, bits = settlements_numpy(state.owner, state.land)
    assert (state.settlement == label).all()
    assert (state.settlement_shrines == bits).all()
    for p in range(P):
        count = ((state.owner == p) & (label == np.arange(data.NUM_SLOTS)[None, :])).sum(axis=1)
        assert (state.settlements[:, p] == count).all()
    wins = meets_win(state, P, bits)
    running = ~state.done
    assert not wins[running].any(), "a running game where a player meets a win condition"
    won = state.done & ~state.truncated
    assert wins[np.flatnonzero(won), state.winner[won]].all(), "a winner without a win condition"


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_keep_the_invariants(num_players: int) -> None:
    game = Attika(num_players)
    rng = np.random.default_rng(100 + num_players)
    state = game.init(rng, GAMES)
    sample = rng.choice(GAMES, SAMPLE, replace=False)
    step = 0
    while not state.done.all():
        prev_done = state.done.copy()
        mask = game.legal_action_mask(state)
        assert mask.any(axis=1).all(), "a position with no legal action"
        game.step_inplace(state, sample_masked(mask, rng), rng)
        check_step(state, prev_done, num_players)
        step += 1
        if step % MAP_CHECK_EVERY == 0:
            check_map(state, num_players)
        if step % FULL_CHECK_EVERY == 0:  # settlements on a sample of rows
            check_full(take(state, sample), num_players)
        assert step < 5000, "games do not end"
    check_map(state, num_players)
    check_full(state, num_players)
    assert (state.truncated | (state.winner >= 0)).all()
