"""Attika encoders, both kinds: the compact channels and the planes against the state and the action mask,
the vectors by name, and no hidden information (the generic encoder tests cover layout, space, seat order
and the fused AEC step of every kind once Attika is registered)."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.encoders import attika as enc
from meeple.encoders.attika import AT, AT_PLANES, CHANNEL_NAMES, NUM_CHANNELS, NUM_PLANES, PLANE_NAMES, PLANES, make_encoder
from meeple.envs import encoder_kinds, make_encoder as make_any_encoder
from meeple.envs.attika import data
from meeple.envs.attika.rules import Attika

from helpers import random_positions
from test_attika import BLUE, MAP_TILES, QUARRY, RED, ROAD, S1, S2, VINEYARD, cards, position

S = data.NUM_SLOTS
C_LAND, C_SYMBOL, C_OWN, C_OTHER, C_TYPE, C_LINKED, C_SIGMA, C_SITE, C_TARGET = range(NUM_CHANNELS)


@pytest.fixture(scope="module", params=[2, 3, 4], ids=lambda p: f"P={p}")
def case(request):
    """Random positions with flat actions (START offers every build) seen by the seat to play, both kinds."""
    P = request.param
    game = Attika(num_players=P, actions="flat")
    positions = random_positions(game, seed=P, games=48, per_game=4)
    view = game.observe(positions, positions.to_play)
    planes = make_encoder(game, "planes")
    compact = make_encoder(game)
    return game, positions, planes, planes.encode(view), compact, compact.encode(view)


def channels(encoder, obs):
    """(B, C, S): the encoder's planes by slot."""
    return encoder.planes(obs).reshape(obs.shape[0], -1, S)


def test_kinds():
    game = Attika(num_players=2)
    assert encoder_kinds("attika") == ("compact", "planes") == tuple(enc.ENCODERS)
    assert type(make_encoder(game)) is enc.DEFAULT is enc.CompactEncoder
    assert type(make_any_encoder("attika", game, "planes")) is enc.PlanesEncoder
    with pytest.raises(ValueError, match="unknown Attika encoder kind"):
        make_encoder(game, "full")
    assert make_encoder(game).size == NUM_CHANNELS * S + 473 == 6098 < 6500
    assert make_encoder(game, "planes").size == NUM_PLANES * S + 473 == 29223


def test_aec_env_encoder_kinds():
    from meeple.envs import attika_v0

    for kind, size in ((None, 6098), ("compact", 6098), ("planes", 29223)):
        env = attika_v0.env(num_players=2, encoder=kind)
        env.reset(seed=0)
        obs, *_ = env.last()
        assert obs["observation"].shape == (size,)


# --- the planes kind ---------------------------------------------------------------------------------

def test_plane_layout():
    assert len(PLANE_NAMES) == NUM_PLANES == 46
    assert PLANES == slice(AT_PLANES.valid, AT_PLANES.pending_slot + S)
    encoder = make_encoder(Attika(num_players=2), "planes")
    assert encoder.plane_names == PLANE_NAMES
    obs = np.arange(2 * encoder.size, dtype=np.float32).reshape(2, -1)
    planes = encoder.planes(obs)
    assert planes.shape == (2, NUM_PLANES, 25, 25)
    q, r = -3, 5  # pixel [q + 12, r + 12] is hex (q, r)
    assert planes[1, PLANE_NAMES.index("sigma_H"), q + 12, r + 12] == obs[1, AT_PLANES.sigma + 2 * S + data.slot(q, r)]


def _sigma_counts(st):
    """(B, S, 4): landscape symbols W, F, H, M on each field and on its neighbouring fields without a building."""
    land, owner = st.land.astype(np.int64), st.owner.astype(np.int64)
    flower = data.FLOWER.astype(np.int64)
    ok = flower >= 0
    out = np.zeros((*land.shape, 4), dtype=np.int64)
    for k in range(4):
        sym = land == data.LAND_SYMBOL + k
        for j in range(7):
            n = np.where(ok[:, j], flower[:, j], 0)
            out[..., k] += np.where(ok[None, :, j], sym[:, n] & (owner[:, n] < 0 if j else True), 0)
    return out


def test_planes_match_the_state(case):
    game, st, encoder, obs, _, _ = case
    planes = channels(encoder, obs)
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
    count = _sigma_counts(st)
    for k in range(4):
        np.testing.assert_allclose(planes[:, 37 + k], np.where(empty, np.minimum(count[..., k] / 4, 1), 0), rtol=1e-6)


def test_cost_planes_agree_with_the_action_mask(case):
    """With flat actions, START offers BUILD(t, h) exactly where t waits on the display and the hand pays:
    the buildable plane is their union; PLACE_TILE's centres are the tile_centre plane."""
    game, st, encoder, obs, _, _ = case
    planes = channels(encoder, obs)
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


# --- the compact kind --------------------------------------------------------------------------------

def test_compact_layout():
    assert CHANNEL_NAMES == ("land", "symbol", "own", "other", "type", "linked", "sigma", "site", "target")
    encoder = make_encoder(Attika(num_players=3))
    assert encoder.plane_names == CHANNEL_NAMES and encoder.planes_shape == (NUM_CHANNELS, 25, 25)
    obs = np.arange(2 * encoder.size, dtype=np.float32).reshape(2, -1)
    planes = encoder.planes(obs)
    assert planes.shape == (2, NUM_CHANNELS, 25, 25)
    q, r = 4, -7
    assert planes[1, C_SITE, q + 12, r + 12] == obs[1, AT.site + data.slot(q, r)]
    # the vectors are the planes kind's, block for block
    planes_kind = make_encoder(Attika(num_players=3), "planes")
    assert encoder.blocks[NUM_CHANNELS:] == planes_kind.blocks[len(enc.PLANE_BLOCKS):] == enc.VECTOR_BLOCKS


def test_compact_channels_on_a_hand_built_position():
    """The printed fixture map: Red (the viewer) has a Quarry on (0,-2), Blue a Road on (-1,-2) next to shrine S1;
    Red has a Vineyard and a Road on the display and W + H in hand."""
    game, st = position(blank=False, buildings=[(RED, QUARRY, (0, -2)), (BLUE, ROAD, (-1, -2))],
                        display={RED: {VINEYARD: 1, ROAD: 1}}, hands={RED: cards(w=1, h=1)})
    obs = make_encoder(game).encode(game.observe(st, RED))
    ch = channels(make_encoder(game), obs)[0]
    fields = {int(h) for _, (q, r) in MAP_TILES for h in data.FLOWER[data.slot(q, r)]}
    for h in range(S):
        expected = 1.0 if h in fields else 0.5 if h in (data.slot(*S1), data.slot(*S2)) else 0.0
        assert ch[C_LAND, h] == expected
        k = int(st.land[0, h]) - data.LAND_SYMBOL
        assert ch[C_SYMBOL, h] == ((k + 1) / 4 if 0 <= k < 4 else 0.0)
    quarry, road = data.slot(0, -2), data.slot(-1, -2)
    assert ch[C_OWN, quarry] == 1 and ch[C_OTHER, quarry] == 0
    assert ch[C_OWN, road] == 0 and ch[C_OTHER, road] == 1  # Blue is 1 seat after Red: (4 - 1) / 3
    assert ch[C_TYPE, quarry] == pytest.approx((QUARRY + 1) / 25) and ch[C_TYPE, road] == 1.0
    assert np.count_nonzero(ch[C_OWN]) == 1 and np.count_nonzero(ch[C_OTHER]) == 1
    assert np.count_nonzero(ch[C_TYPE]) == 2
    # Blue's Road touches shrine S1 at (-1,-3); Red's Quarry does not
    assert ch[C_LINKED, road] == 0.5 and np.count_nonzero(ch[C_LINKED]) == 1
    # sigma: the symbols of the field's flower, less those under a building, / 7
    count = _sigma_counts(st)[0].sum(axis=1)
    empty = (st.land[0] >= 1) & (st.land[0] < data.LAND_SHRINE) & (st.owner[0] < 0)
    np.testing.assert_allclose(ch[C_SIGMA], np.where(empty, count / 7, 0), rtol=1e-6)
    assert ch[C_SIGMA].max() > 0
    # site: neither display building is free anywhere (a Road is free next to an own Road); where Red affords one
    # is where SELECT_TYPE then SLOT builds it
    mask = game.legal_action_mask(st)[0]
    union = np.zeros(S, dtype=bool)
    for t in (VINEYARD, ROAD):
        if mask[data.ACTION_SELECT + t]:
            chosen = game.apply(st, np.array([data.ACTION_SELECT + t]), np.array([[0.5]]))
            union |= game.legal_action_mask(chosen)[0, data.ACTION_SLOT:data.ACTION_SLOT + S]
    assert union.any() and not union.all()
    np.testing.assert_array_equal(ch[C_SITE], np.where(union, 0.5, 0.0))
    assert not ch[C_TARGET].any()


def test_compact_site_is_one_where_a_display_building_is_free():
    """Red's Fortress waits on the display; its predecessor, the Quarry, stands on (0,-2): the Fortress is free
    on the Quarry's empty neighbours (site 1), and affordable nowhere else with an empty hand (site 0)."""
    from test_attika import FORTRESS

    game, st = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1}})
    ch = channels(make_encoder(game), make_encoder(game).encode(game.observe(st, RED)))[0]
    quarry = data.slot(0, -2)
    nbrs = {int(n) for n in data.NEIGHBOURS[quarry] if n >= 0 and 1 <= st.land[0, n] < data.LAND_SHRINE}
    assert nbrs and {int(h) for h in np.flatnonzero(ch[C_SITE] == 1)} == nbrs
    assert not (ch[C_SITE] == 0.5).any()
    # Blue sees Red's Quarry as another seat's (1 seat after Blue in 2 players) and has no building to place
    ch_blue = channels(make_encoder(game), make_encoder(game).encode(game.observe(st, BLUE)))[0]
    assert ch_blue[C_OTHER, quarry] == 1 and not ch_blue[C_OWN].any() and not ch_blue[C_SITE].any()


def test_compact_channels_match_the_state(case):
    """Channels 0-6 recomputed with numpy from the state, for the seat to play."""
    game, st, _, _, encoder, obs = case
    ch = channels(encoder, obs)
    P = game.num_players
    land, owner, building = st.land.astype(np.int64), st.owner.astype(np.int64), st.building.astype(np.int64)
    field = (land >= data.LAND_BLANK) & (land < data.LAND_SHRINE)
    shrine = land >= data.LAND_SHRINE
    np.testing.assert_array_equal(ch[:, C_LAND], np.where(field, 1.0, np.where(shrine, 0.5, 0.0)))
    k = land - data.LAND_SYMBOL
    np.testing.assert_array_equal(ch[:, C_SYMBOL], np.where(field & (k >= 0), (k + 1) / 4, 0.0))
    rel = (owner - st.to_play[:, None].astype(np.int64)) % P
    np.testing.assert_array_equal(ch[:, C_OWN], (owner >= 0) & (rel == 0))
    np.testing.assert_allclose(ch[:, C_OTHER], np.where((owner >= 0) & (rel > 0), (4 - rel) / 3, 0.0), rtol=1e-6)
    np.testing.assert_allclose(ch[:, C_TYPE], np.where(owner >= 0, (building + 1) / 25, 0.0), rtol=1e-6)
    shrines = np.zeros_like(land)
    for i in range(4):
        shrines += (st.settlement_shrines.astype(np.int64) >> i) & 1
    np.testing.assert_allclose(ch[:, C_LINKED], np.where(owner >= 0, np.minimum(shrines / 2, 1), 0.0), rtol=1e-6)
    empty = field & (owner < 0)
    np.testing.assert_allclose(ch[:, C_SIGMA], np.where(empty, _sigma_counts(st).sum(axis=2) / 7, 0.0), rtol=1e-6)
    assert 0 < ch[:, C_SIGMA].max() <= 1


def test_compact_site_and_target_agree_with_the_planes_kind(case):
    """site is 1 exactly on free_display, > 0 exactly on buildable; target is tile_centre + pending_slot."""
    _, _, planes_encoder, planes_obs, encoder, obs = case
    ch = channels(encoder, obs)
    planes = channels(planes_encoder, planes_obs)
    np.testing.assert_array_equal(ch[:, C_SITE] == 1, planes[:, 42] == 1)
    np.testing.assert_array_equal(ch[:, C_SITE] > 0, planes[:, 43] == 1)
    assert set(np.unique(ch[:, C_SITE])) <= {0.0, 0.5, 1.0} and (ch[:, C_SITE] == 0.5).any()
    np.testing.assert_array_equal(ch[:, C_TARGET], np.maximum(planes[:, 44], planes[:, 45]))


@pytest.mark.parametrize("P", [2, 4])
def test_compact_site_restricted_to_the_chosen_type_is_the_choose_field_mask(P):
    """With the viewer's display cut down to the selected building (CHOOSE_FIELD) or emptied (PENDING_REVEAL:
    the revealed one), `site > 0` is exactly where the mask offers SLOT."""
    game = Attika(num_players=P)
    st = random_positions(game, seed=20 + P, games=96, per_game=8)
    encoder = make_encoder(game)
    view = game.observe(st, st.to_play)
    view = view._replace(display=view.display.copy())
    rows = np.flatnonzero(np.isin(st.decision, (data.DEC_CHOOSE_FIELD, data.DEC_PENDING_REVEAL)))
    choose = np.flatnonzero(st.decision == data.DEC_CHOOSE_FIELD)
    assert choose.size >= 5 and rows.size > choose.size
    for b in rows:
        p = st.to_play[b]
        view.display[b, p] = 0
        if st.decision[b] == data.DEC_CHOOSE_FIELD:
            view.display[b, p, st.pending_type[b]] = 1
    site = channels(encoder, encoder.encode(view))[:, C_SITE]
    slots = game.legal_action_mask(st)[:, data.ACTION_SLOT:data.ACTION_SLOT + S]
    np.testing.assert_array_equal(site[rows] > 0, slots[rows])
    assert slots[rows].any(axis=1).all()


def test_compact_target_is_the_tile_being_placed():
    game = Attika(num_players=3)
    st = random_positions(game, seed=5, games=96, per_game=8)
    encoder = make_encoder(game)
    target = channels(encoder, encoder.encode(game.observe(st, st.to_play)))[:, C_TARGET]
    mask = game.legal_action_mask(st)
    placing = np.flatnonzero(st.decision == data.DEC_PLACE_TILE)
    assert placing.size > 0
    np.testing.assert_array_equal(target[placing] > 0, mask[placing, data.ACTION_SLOT:data.ACTION_SLOT + S])
    pending = np.flatnonzero(np.isin(st.decision, (data.DEC_CHOOSE_ROTATION, data.DEC_PAY)) & ~st.done)
    for b in pending:
        assert np.flatnonzero(target[b]).tolist() == [st.pending_slot[b]]
    others = np.setdiff1d(np.arange(st.done.shape[0]), np.concatenate([placing, pending]))
    assert not target[others].any()
    # another seat than the one placing sees no centres
    other_seat = (st.to_play.astype(np.int64) + 1) % 3
    target_other = channels(encoder, encoder.encode(game.observe(st, other_seat)))[:, C_TARGET]
    assert not target_other[placing].any()


def test_compact_nothing_off_the_map_and_values_in_range(case):
    """Every channel but `target` (legal centres lie off the map) is 0 where the map has nothing; every value
    of the row lies in [0, 1]."""
    game, st, _, _, encoder, obs = case
    ch = channels(encoder, obs)
    off = st.land == data.LAND_NONE
    for c in range(NUM_CHANNELS - 1):
        assert not ch[:, c][off].any(), CHANNEL_NAMES[c]
    assert not ch[:, C_TARGET][~off & (st.land < data.LAND_SHRINE) & (st.decision == data.DEC_PLACE_TILE)[:, None]].any()
    assert (obs >= 0).all() and (obs <= 1).all()


def test_compact_seats_rotate_with_the_viewer():
    game = Attika(num_players=4)
    st = random_positions(game, seed=9, games=32, per_game=6)
    encoder = make_encoder(game)
    owner = st.owner.astype(np.int64)
    assert (owner >= 0).sum() > 100
    for viewer in range(4):
        ch = channels(encoder, encoder.encode(game.observe(st, viewer)))
        np.testing.assert_array_equal(ch[:, C_OWN], owner == viewer)
        rel = (owner - viewer) % 4
        np.testing.assert_allclose(ch[:, C_OTHER], np.where((owner >= 0) & (rel > 0), (4 - rel) / 3, 0), rtol=1e-6)
        np.testing.assert_array_equal(ch[:, C_TYPE] > 0, owner >= 0)


@pytest.mark.parametrize("kind", ["compact", "planes"])
def test_batch_row_equals_the_row_alone(kind):
    game = Attika(num_players=3, payment="explicit")
    st = random_positions(game, seed=3, games=32, per_game=8)
    encoder = make_encoder(game, kind)
    view = game.observe(st, st.to_play)
    obs = encoder.encode(view)
    for b in range(0, st.done.shape[0], 7):
        single = encoder.encode(type(view)(*[f[b:b + 1] for f in view]))
        np.testing.assert_array_equal(single[0], obs[b])


# --- both kinds --------------------------------------------------------------------------------------

def test_vectors_by_name(case):
    game, st, planes_encoder, planes_obs, encoder, obs = case
    for parts in (planes_encoder.split(planes_obs), encoder.split(obs)):
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
            best = np.zeros(rows.size)
            for b in rows:
                bits = st.settlement_shrines[b][st.owner[b] == q[b]].astype(np.int64)
                best[b] = max([min(bin(x).count("1") / 2, 1) for x in bits], default=0.0)
            np.testing.assert_allclose(parts["shrines_touched"][:, k], best, rtol=1e-6)
        np.testing.assert_array_equal(parts["decision"].argmax(axis=1), st.decision)
        assert (parts["present"][:, :P] == 1).all() and (parts["present"][:, P:] == 0).all()
    np.testing.assert_array_equal(obs[:, AT.present:], planes_obs[:, AT_PLANES.present:])


@pytest.mark.parametrize("kind", ["compact", "planes"])
def test_no_hidden_information(case, kind):
    """Resampling what a viewer cannot see (other hands, the draw pile) leaves their encoding unchanged."""
    game, st, _, _, _, _ = case
    encoder = make_encoder(game, kind)
    for viewer in range(game.num_players):
        obs = encoder.encode(game.observe(st, viewer))
        for seed in (1, 2):
            other = game.determinize(st, viewer, np.random.default_rng(seed))
            assert (other.hand != st.hand).any()
            np.testing.assert_array_equal(encoder.encode(game.observe(other, viewer)), obs)


@pytest.mark.parametrize("offsets, alias, kernel", [
    (AT, "AT", enc.encode_compact_row), (AT_PLANES, "AT_PLANES", enc.encode_planes_row)])
def test_kinds_write_the_vectors_with_the_shared_helper_at_their_offset(offsets, alias, kernel):
    """Both kinds end with VECTOR_BLOCKS, which `_vectors` writes from the kind's offset of its first block."""
    import inspect

    assert f"_vectors(v, b, row, {alias}.present," in inspect.getsource(getattr(kernel, "py_func", kernel))
    for name in enc.VEC._fields:
        assert getattr(offsets, name) == offsets.present + getattr(enc.VEC, name)
