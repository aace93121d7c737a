"""Attika encoder: the window planes against the state and the action mask, the vectors by name, and no
hidden information (the generic encoder tests cover layout, space and seat order once Attika is registered)."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.encoders.attika import AT, NUM_PLANES, PLANE_NAMES, PLANES, make_encoder
from meeple.envs.attika import data
from meeple.envs.attika.rules import Attika

from helpers import random_positions

S = data.NUM_SLOTS


@pytest.fixture(scope="module", params=[2, 3, 4], ids=lambda p: f"P={p}")
def case(request):
    P = request.param
    game = Attika(num_players=P, actions="flat")
    positions = random_positions(game, seed=P, games=48, per_game=4)
    encoder = make_encoder(game)
    obs = encoder.encode(game.observe(positions, positions.to_play))
    return game, positions, encoder, obs


def test_plane_layout():
    assert len(PLANE_NAMES) == NUM_PLANES == 46
    assert PLANES == slice(AT.valid, AT.pending_slot + S)
    encoder = make_encoder(Attika(num_players=2))
    obs = np.arange(2 * encoder.size, dtype=np.float32).reshape(2, -1)
    planes = encoder.planes(obs)
    assert planes.shape == (2, NUM_PLANES, 25, 25)
    q, r = -3, 5  # pixel [q + 12, r + 12] is hex (q, r)
    assert planes[1, PLANE_NAMES.index("sigma_H"), q + 12, r + 12] == obs[1, AT.sigma + 2 * S + data.slot(q, r)]


def test_planes_match_the_state(case):
    game, st, encoder, obs = case
    planes = encoder.planes(obs).reshape(obs.shape[0], NUM_PLANES, S)
    P = game.num_players
    land, owner = st.land.astype(np.int64), st.owner.astype(np.int64)
    field = (land >= data.LAND_BLANK) & (land < data.LAND_SHRINE)
    np.testing.assert_array_equal(planes[:, 0], np.broadcast_to(data.SLOT_VALID, field.shape))
    np.testing.assert_array_equal(planes[:, 1], field)
    np.testing.assert_array_equal(planes[:, 2], land >= data.LAND_SHRINE)
    for k in range(4):
        np.testing.assert_array_equal(planes[:, 3 + k], land == data.LAND_SYMBOL + k)
    rel = (owner - st.to_play[:, None].astype(np.int64)) % P
    for k in range(4):
        np.testing.assert_array_equal(planes[:, 7 + k], (owner >= 0) & (rel == k))
    for t in range(data.NUM_TYPES):
        np.testing.assert_array_equal(planes[:, 11 + t], st.building == t)
    # sigma: symbols on the empty field and its neighbouring fields without a building
    empty = field & (owner < 0)
    flower = data.FLOWER.astype(np.int64)
    ok = flower >= 0
    for k in range(4):
        sym = (land == data.LAND_SYMBOL + k)
        count = np.zeros_like(land)
        for j in range(7):
            n = np.where(ok[:, j], flower[:, j], 0)
            count += np.where(ok[None, :, j], sym[:, n] & (owner[:, n] < 0 if j else True), 0)
        np.testing.assert_allclose(planes[:, 37 + k], np.where(empty, np.minimum(count / 4, 1), 0), rtol=1e-6)


def test_cost_planes_agree_with_the_action_mask(case):
    """With flat actions, START offers BUILD(t, h) exactly where t waits on the display and the hand pays:
    the buildable plane is their union; PLACE_TILE's centres are the tile_centre plane."""
    game, st, encoder, obs = case
    planes = encoder.planes(obs).reshape(obs.shape[0], NUM_PLANES, S)
    mask = game.legal_action_mask(st)
    start = np.flatnonzero(st.decision == data.DEC_START)
    assert start.size > 20
    builds = mask[start, :data.FLAT_PLACE].reshape(start.size, data.NUM_TYPES, S).any(axis=1)
    np.testing.assert_array_equal(planes[start, 43], builds)
    placing = st.decision == data.DEC_PLACE_TILE
    centres = mask[:, data.FLAT_PLACE:data.FLAT_PLACE + S]  # rotation 0; every rotation of a centre is legal
    np.testing.assert_array_equal(planes[placing, 44], centres[placing])
    assert not planes[~placing, 44].any()
    # free_display: an own predecessor of a display type next to the empty field
    for b in start[:40]:
        p = st.to_play[b]
        for h in range(S):
            if st.owner[b, h] >= 0 or not (1 <= st.land[b, h] < data.LAND_SHRINE):
                assert planes[b, 42, h] == 0
                continue
            nbrs = [n for n in data.NEIGHBOURS[h] if n >= 0 and st.owner[b, n] == p]
            free = any(st.display[b, p, t] > 0 and data.PREDECESSOR[t] >= 0
                       and any(st.building[b, n] == data.PREDECESSOR[t] for n in nbrs) for t in range(data.NUM_TYPES))
            assert planes[b, 42, h] == free
            assert planes[b, 41, h] == bool(nbrs)


def test_vectors_by_name(case):
    game, st, encoder, obs = case
    parts = encoder.split(obs)
    P = game.num_players
    rows = np.arange(st.done.shape[0])
    me = st.to_play.astype(np.int64)
    np.testing.assert_allclose(parts["own_hand"], np.minimum(st.hand[rows, me] / 10, 1), rtol=1e-6)
    for k in range(P):
        q = (me + k) % P
        np.testing.assert_allclose(parts["hand_size"][:, k], np.minimum(st.hand[rows, q].sum(axis=1) / 15, 1), rtol=1e-6)
        np.testing.assert_allclose(parts["display"][:, k], st.display[rows, q] / data.COPIES, rtol=1e-6)
        np.testing.assert_allclose(parts["stack_size"][:, k], st.stack_size[rows, q] / data.STACK_SIZE, rtol=1e-6)
        main = data.IS_MAIN
        left = data.COPIES[main] - st.display[rows, q][:, main] - st.built[rows, q][:, main]
        pending = (st.decision == data.DEC_PENDING_REVEAL) & (st.to_play == q)
        left[pending] -= (st.pending_type[pending, None] == np.flatnonzero(main)[None]).astype(left.dtype)
        np.testing.assert_array_equal(parts["unrevealed_main"][:, k], left)
        assert (parts["unrevealed_main"][:, k].sum(axis=1) == st.stack_size[rows, q, 0]).all()
    np.testing.assert_array_equal(parts["decision"].argmax(axis=1), st.decision)
    assert (parts["present"][:, :P] == 1).all() and (parts["present"][:, P:] == 0).all()


def test_no_hidden_information(case):
    """Resampling what a viewer cannot see (other hands, the draw pile) leaves their encoding unchanged."""
    game, st, encoder, _ = case
    for viewer in range(game.num_players):
        obs = encoder.encode(game.observe(st, viewer))
        for seed in (1, 2):
            other = game.determinize(st, viewer, np.random.default_rng(seed))
            assert (other.hand != st.hand).any()
            np.testing.assert_array_equal(encoder.encode(game.observe(other, viewer)), obs)
