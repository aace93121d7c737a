"""Carpe Diem encoders ("compact", the default, and "full"): layout, ranges, blocks against the state,
no fountain-card leak, the compact tile code, spatial planes, selection by name."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.encoders import carpe_diem as enc_mod
from meeple.envs import core, default_encoder, encoder_kinds, make, make_encoder
from meeple.envs.aec import BoardGameAEC
from meeple.envs.carpe_diem import data

from helpers import random_steps

KINDS = ("compact", "full")


def _play_until(game, rng, state, decision, limit=400):
    """Advance every row (random play) until it reaches `decision`; rows that did are frozen."""
    for _ in range(limit):
        todo = state.decision != decision
        if not todo.any():
            return state
        actions = sample_masked(game.legal_action_mask(state), rng)
        stepped = game.step(state, actions, rng)
        state = type(state)(*(np.where(todo.reshape(-1, *([1] * (a.ndim - 1))), b, a) for a, b in zip(state, stepped)))
    raise AssertionError("decision not reached")


@pytest.fixture(scope="module")
def game3():
    return make("carpe_diem", num_players=3)


@pytest.fixture(scope="module")
def mixed3(game3):
    """40 rows of 3-player games at mixed stages: turns, a card being resolved (order, red units), finished games."""
    rng = np.random.default_rng(0)
    parts = [random_steps(game3, rng, 8, n) for n in (40, 200, 700)]
    parts += [_play_until(game3, rng, game3.init(rng, 8), d, limit=1500) for d in (data.DEC_CARD_ORDER, data.DEC_CARD_UNITS)]
    return core.concatenate(parts)


def test_kinds_and_default(game3):
    assert enc_mod.make_encoder(game3).name == "compact" and isinstance(default_encoder("carpe_diem", game3),
                                                                         enc_mod.CompactEncoder)
    assert encoder_kinds("carpe_diem") == KINDS and encoder_kinds("hadara") == ()
    assert isinstance(make_encoder("carpe_diem", game3, "full"), enc_mod.FullEncoder)
    assert isinstance(make_encoder("carpe_diem", game3), enc_mod.CompactEncoder)
    with pytest.raises(ValueError, match="unknown encoder kind 'tiny'"):
        make_encoder("carpe_diem", game3, "tiny")
    with pytest.raises(ValueError, match="unknown Carpe Diem encoder kind"):
        enc_mod.make_encoder(game3, "tiny")
    with pytest.raises(ValueError, match="only has its default"):
        make_encoder("hadara", make("hadara"), "full")
    assert make_encoder("hadara", make("hadara")).size == default_encoder("hadara", make("hadara")).size
    assert enc_mod.CompactEncoder().size < 3300 < 12000 < enc_mod.FullEncoder().size


def test_aec_env_picks_the_kind_by_name():
    sizes = {}
    for kind in (None, *KINDS):
        env = BoardGameAEC("carpe_diem", num_players=2, encoder=kind)
        env.reset(seed=1)
        obs = env.observe(env.agent_selection)["observation"]
        assert obs.shape == env.observation_space(env.agent_selection)["observation"].shape
        sizes[kind] = obs.shape[0]
    assert sizes[None] == sizes["compact"] == enc_mod.CompactEncoder().size
    assert sizes["full"] == enc_mod.FullEncoder().size
    with pytest.raises(ValueError, match="unknown encoder kind"):
        BoardGameAEC("carpe_diem", encoder="huge")
    with pytest.raises(ValueError, match="only has its default"):
        BoardGameAEC("roll_through_the_ages", encoder="compact")


@pytest.mark.parametrize("kind", KINDS)
def test_layout_sizes_split_and_range(game3, mixed3, kind):
    encoder = make_encoder("carpe_diem", game3, kind)
    state = mixed3
    B = state.done.shape[0]
    assert sum(int(np.prod(shape)) for _, shape, _ in encoder.blocks) == encoder.size
    out = np.full((B, encoder.size), np.nan, dtype=np.float32)  # every element must be written
    obs = encoder.encode(game3.observe(state, state.to_play), out=out)
    assert obs is out and np.isfinite(obs).all()
    assert obs.shape == (B, encoder.size) and obs.dtype == np.float32
    assert obs.min() >= encoder.low and obs.max() <= encoder.high
    assert all(encoder.space().contains(row) for row in obs)
    parts = encoder.split(obs)
    assert list(parts) == [name for name, _, _ in encoder.blocks]
    assert encoder.layout_table().count("\n") == len(encoder.blocks) + 1
    np.testing.assert_array_equal(parts["decision"].argmax(axis=1), state.decision)
    np.testing.assert_array_equal(parts["decision"].sum(axis=1), 1)
    np.testing.assert_array_equal(parts["phase"].argmax(axis=1), state.phase)
    np.testing.assert_array_equal(parts["round"].argmax(axis=1), state.round)
    np.testing.assert_array_equal(parts["num_players"], np.tile([0, 1, 0], (B, 1)))
    live = ~state.done
    assert (parts["is_to_play"][live, 0] == 1).all() and (parts["is_to_play"][~live] == 0).all()
    resolving = state.decision == data.DEC_CARD_UNITS
    assert resolving.any() and (parts["cur_card"][resolving].sum(axis=1) > 0).all()
    assert (parts["cur_card"][state.decision < data.DEC_CARD_ORDER] == 0).all()
    with pytest.raises(ValueError):
        encoder.encode(game3.observe(state, 0), out=np.empty((B, encoder.size + 1), dtype=np.float32))


@pytest.mark.parametrize("kind", KINDS)
def test_seat_blocks_match_the_state(game3, mixed3, kind):
    encoder = make_encoder("carpe_diem", game3, kind)
    state = mixed3
    viewer = 2
    parts = encoder.split(encoder.encode(game3.observe(state, viewer)))
    order = [(viewer + k) % 3 for k in range(3)]
    np.testing.assert_allclose(parts["goods"][:, :3], np.minimum(state.goods[:, order] / 10, 1), rtol=1e-6)
    np.testing.assert_allclose(parts["coins"][:, :3], np.minimum(state.coins[:, order] / 20, 1), rtol=1e-6)
    np.testing.assert_allclose(parts["track"][:, :3], state.track[:, order] / 35, rtol=1e-6)
    np.testing.assert_allclose(parts["completed"][:, :3], np.minimum(state.completed[:, order] / 5, 1), rtol=1e-6)
    np.testing.assert_array_equal(parts["board"][:, :3].argmax(axis=2), state.board[:, order])
    placed = state.patrician[:, order] >= 0
    np.testing.assert_array_equal(parts["patrician"][:, :3].argmax(axis=2)[placed], state.patrician[:, order][placed])
    assert (parts["district"][:, 3] == 0).all() and (parts["present"][:, 3] == 0).all()
    np.testing.assert_array_equal(parts["present"][:, :3], 1)
    if kind == "full":
        np.testing.assert_array_equal(parts["district"][:, :3, :, enc_mod.F_OCCUPIED], state.cell_tile[:, order] >= 0)
        np.testing.assert_array_equal(parts["tasks"][:, :3, :, -1], state.task_done[:, order])
        np.testing.assert_array_equal(parts["depot"][..., 0], state.depot >= 0)
        np.testing.assert_array_equal(parts["supply_tiles"], state.tile_loc == 0)
    else:
        np.testing.assert_array_equal(parts["district"][:, :3, :, enc_mod.C_TILE] > 0, state.cell_tile[:, order] >= 0)
        np.testing.assert_array_equal(parts["task_done"][:, :3], state.task_done[:, order])
        np.testing.assert_array_equal(parts["frame"][:, :3].argmax(axis=3), state.frame[:, order])
        np.testing.assert_array_equal(parts["frame"][:, :3].sum(axis=3), 1)
        np.testing.assert_array_equal(parts["depot"][..., enc_mod.C_TILE] > 0, state.depot >= 0)
        np.testing.assert_array_equal(parts["display"][..., enc_mod.C_TILE] > 0, state.display >= 0)


def test_compact_agrees_with_full(game3, mixed3):
    """The blocks both kinds share are equal; the compact codes are the full features re-coded."""
    compact, full = (make_encoder("carpe_diem", game3, kind) for kind in KINDS)
    state = mixed3
    for viewer in range(3):
        view = game3.observe(state, viewer)
        c, f = compact.split(compact.encode(view)), full.split(full.encode(view))
        for name in set(c) & set(f) - {"district", "depot", "display", "card_slots", "circle", "cur_card", "pending_tile"}:
            np.testing.assert_allclose(c[name], f[name], rtol=1e-5, atol=1e-6, err_msg=name)
        np.testing.assert_array_equal(c["pending_tile"], f["pending_tile"][:, 0])
        # the card code: red, requirement (green: have; red: pay), gain
        np.testing.assert_array_equal(c["card_slots"][..., 0], f["card_slots"][..., 1])
        need = f["card_slots"][..., 2 + 4:2 + 4 + 15].copy()
        need[..., :4] += f["card_slots"][..., 2:6]
        np.testing.assert_allclose(c["card_slots"][..., 1:16], need, rtol=1e-6)
        np.testing.assert_allclose(c["card_slots"][..., 16:], f["card_slots"][..., 21:], rtol=1e-6)
        np.testing.assert_allclose(c["cur_card"][:, 16:], f["cur_card"][:, 21:], rtol=1e-6)
        # circle: owner one-hot as the full kind's, phase as a scalar
        np.testing.assert_array_equal(c["circle"][..., :4], f["circle"][..., 2:6])
        phase = np.where(f["circle"][..., 2:6].any(axis=2), (f["circle"][..., 6:].argmax(axis=2) + 1) / 4, 0)
        np.testing.assert_allclose(c["circle"][..., 4], phase, rtol=1e-6)
        # district cells: labels, centre and chimneys from the full one-hot features
        occupied = f["district"][..., enc_mod.F_OCCUPIED] == 1
        np.testing.assert_array_equal(c["district"][..., 8:11], f["district"][..., 52:55])
        np.testing.assert_allclose(c["district"][..., enc_mod.C_TILE],
                                   np.where(occupied, (1 + 4 * f["district"][..., 55]) / 5, 0), rtol=1e-6)


def test_own_fountain_cards_only_in_own_observation(game3):
    """Changing another player's fountain cards (held, returned, a pending draw) changes nothing a viewer sees."""
    rng = np.random.default_rng(2)
    state = _play_until(game3, rng, game3.init(rng, 16), data.DEC_FOUNTAIN_RETURN)
    changed = core.clone(state)
    changed.fountain_hand[:] = (changed.fountain_hand + 1) % 3
    changed.fountain_returned[:] = (changed.fountain_returned + 1) % 3
    changed.fountain_drawn[:] = (changed.fountain_drawn + 5) % 12
    for kind in KINDS:
        encoder = make_encoder("carpe_diem", game3, kind)
        base = {v: encoder.encode(game3.observe(state, v)) for v in range(3)}
        parts = encoder.split(base[0])
        for b in range(16):
            if state.to_play[b] == 0:
                np.testing.assert_allclose(parts["own_hand"][b], state.fountain_hand[b, 0] / 2)
                drawn = np.zeros((2, 12))
                drawn[[0, 1], state.fountain_drawn[b]] = 1
                np.testing.assert_array_equal(parts["own_drawn"][b], drawn)
            else:
                assert parts["own_drawn"][b].sum() == 0
        own = [encoder.slices[n] for n in ("own_hand", "own_returned", "own_drawn")]
        for v in range(3):
            after = encoder.encode(game3.observe(changed, v))
            mask = np.ones(encoder.size, dtype=bool)
            for sl in own:
                mask[sl] = False
            mask[encoder.slices["fountain_count"]] = False  # the public hand count changes with the hands
            np.testing.assert_array_equal(after[:, mask], base[v][:, mask], err_msg=kind)
            np.testing.assert_allclose(encoder.split(after)["own_hand"], changed.fountain_hand[:, v] / 2)


def test_placed_tile_shows_up_in_its_cell(game3):
    """After PLACE_rc_Rk the compact district cell 6 r + c holds the pending tile's labels turned k times,
    its centre and chimneys; the full kind's cell equals its pending_tile in rotation k; the planes agree."""
    rng = np.random.default_rng(3)
    state = _play_until(game3, rng, random_steps(game3, rng, 8, 40), data.DEC_PLACE)
    mask = game3.legal_action_mask(state)
    mask[:, data.ACTION_STORE] = False
    assert mask.any(axis=1).all()
    actions = sample_masked(mask, rng)
    actor = state.to_play.copy()
    tiles = state.tile_pending.copy()
    after_state = game3.step(state, actions, rng)
    compact, full = (make_encoder("carpe_diem", game3, kind) for kind in KINDS)
    before_c = compact.split(compact.encode(game3.observe(state, actor)))
    before_f = full.split(full.encode(game3.observe(state, actor)))
    c = compact.split(compact.encode(game3.observe(after_state, actor)))
    f = full.split(full.encode(game3.observe(after_state, actor)))
    other = compact.split(compact.encode(game3.observe(after_state, (actor + 1) % 3)))
    for b in range(8):
        cell, rot = divmod(int(actions[b]) - data.ACTION_PLACE, 4)
        t = int(tiles[b])
        assert before_c["district"][b, 0, cell, enc_mod.C_TILE] == 0
        assert before_c["pending_flags"][b, 0] == 1
        np.testing.assert_array_equal(before_c["pending_tile"][b], enc_mod.RICH_TILE[t])
        code = c["district"][b, 0, cell]
        np.testing.assert_allclose(code[:8] * 9, data.ROT_PORTS[t, rot], atol=1e-5)
        centre = np.zeros(3)
        if data.TILE_CENTRE[t]:
            centre[data.TILE_CENTRE[t] - 1] = 1
        np.testing.assert_array_equal(code[8:11], centre)
        np.testing.assert_allclose(code[enc_mod.C_TILE], (1 + data.TILE_CHIMNEYS[t]) / 5, rtol=1e-6)
        # the seat to the actor's right sees the same cell in its slot 2 (3 players: actor = viewer + 2)
        np.testing.assert_array_equal(other["district"][b, 2, cell], code)
        np.testing.assert_array_equal(f["district"][b, 0, cell, :enc_mod.TILE_FEAT], before_f["pending_tile"][b, rot])


@pytest.mark.parametrize("kind", KINDS)
def test_planes(game3, kind):
    encoder = make_encoder("carpe_diem", game3, kind)
    full = make_encoder("carpe_diem", game3, "full")
    rng = np.random.default_rng(5)
    state = _play_until(game3, rng, random_steps(game3, rng, 8, 40), data.DEC_PLACE)
    actor = state.to_play.copy()
    view = game3.observe(state, actor)
    planes = encoder.planes(view)
    assert planes.shape == (8, *encoder.planes_shape) == (8, 4, len(enc_mod.PLANE_CHANNELS), 6, 6)
    assert planes.dtype == np.float32 and planes.min() >= 0 and planes.max() <= 1
    assert encoder.plane_space().contains(planes[0])
    np.testing.assert_array_equal(planes, enc_mod.planes(view))
    out = np.full_like(planes, np.nan)
    assert enc_mod.planes(view, out=out) is out and np.array_equal(out, planes)
    # the first 60 channels are the full kind's district cells of every seat
    flat = full.split(full.encode(view))["district"].reshape(8, 4, 6, 6, enc_mod.CELL_FEAT).transpose(0, 1, 4, 2, 3)
    np.testing.assert_array_equal(planes[:, :, :enc_mod.CELL_FEAT], flat)
    for b in range(8):  # the legality channels are the PLACE part of the action mask
        legal = game3.legal_action_mask(core.take(state, [b]))[0, data.ACTION_PLACE:data.ACTION_STORE].reshape(6, 6, 4)
        np.testing.assert_array_equal(planes[b, 0, enc_mod.P_LEGAL:enc_mod.P_LEGAL + 4], legal.transpose(2, 0, 1))
        assert (planes[b, 1:, enc_mod.P_LEGAL:] == 0).all()
    # task lines
    for b in range(8):
        for side in range(4):
            part = int(state.frame[b, actor[b], side])
            for j in range(2):
                task_kind, pos = (int(x) for x in data.FRAME_TASKS[part, j])
                is_row, idx = (int(x) for x in data.TASK_LINE[side, pos])
                done = state.task_done[b, actor[b], 2 * side + j]
                ch = enc_mod.P_TASK_DONE if done else enc_mod.P_TASK + int(enc_mod.TASK_KIND_INDEX[task_kind])
                line = planes[b, 0, ch, idx, :] if is_row else planes[b, 0, ch, :, idx]
                assert (line >= data.FRAME_POSITION_VP[pos] / 5 - 1e-6).all()
