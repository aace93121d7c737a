"""Encoder checks: generic layout properties for every game, then RTTA blocks by name."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.encoders import base as encoder_base
from meeple.envs import default_encoder, encoder_kinds, make, make_encoder, threads
from meeple.envs.jit import store_fence, stream_row
from meeple.envs.roll_through_the_ages import data

from helpers import random_steps


def test_layout_and_space(game_case, rng):
    name, _, game = game_case
    encoder = default_encoder(name, game)
    state = random_steps(game, rng, 32, 80)
    obs = encoder.encode(game.observe(state, state.to_play))
    assert obs.shape == (32, encoder.size) and obs.dtype == np.float32
    assert sum(int(np.prod(shape)) for _, shape, _ in encoder.blocks) == encoder.size
    space = encoder.space()
    assert all(space.contains(row) for row in obs)
    parts = encoder.split(obs)
    assert list(parts) == [n for n, _, _ in encoder.blocks]
    assert encoder.layout_table().count("\n") == len(encoder.blocks) + 1


def test_every_encoder_kind(game_case, rng):
    """Each kind a game offers by name (encoder_kinds) has a consistent layout and writes every element."""
    name, _, game = game_case
    state = random_steps(game, rng, 32, 80)
    view = game.observe(state, state.to_play)
    for kind in encoder_kinds(name) or (None,):
        encoder = make_encoder(name, game, kind)
        assert sum(int(np.prod(shape)) for _, shape, _ in encoder.blocks) == encoder.size
        obs = encoder.encode(view)
        assert obs.shape == (32, encoder.size) and obs.dtype == np.float32 and np.isfinite(obs).all()
        assert all(encoder.space().contains(row) for row in obs)



@pytest.fixture
def stream_settings():
    """Restore the streaming threshold and the thread settings after a test changes them."""
    saved = (encoder_base.STREAM_BYTES, threads.get_num_threads(), threads.min_rows_per_thread(),
             threads.split_seconds())
    yield
    encoder_base.STREAM_BYTES = saved[0]
    threads.set_num_threads(*saved[1:])


def test_streamed_rows_equal_rows_written_in_place(game_case, rng, stream_settings):
    """A batch larger than STREAM_BYTES is built row by row in scratch rows and streamed out: the same
    values bit for bit as rows written in place, whatever `out` held before, serially and on 3 threads."""
    name, _, game = game_case
    state = random_steps(game, rng, 45, 80)
    view = game.observe(state, state.to_play)
    for kind in encoder_kinds(name) or (None,):
        encoder = make_encoder(name, game, kind)
        encoder_base.STREAM_BYTES = 1 << 62
        in_place = encoder.encode(view)
        encoder_base.STREAM_BYTES = 0
        for num_threads in (1, 3):
            threads.set_num_threads(num_threads, min_rows_per_thread=8, split_seconds=0.0)
            out = np.full((45, encoder.size), np.nan, dtype=np.float32)
            encoder.encode(view, out=out)
            np.testing.assert_array_equal(out, in_place, err_msg=f"{name} {kind}: {num_threads} thread(s)")


def test_stream_row_copies_exactly_its_row():
    """`jit.stream_row` at every alignment and length, including the unaligned head and the short tail:
    it writes dst and nothing around it."""
    src = np.arange(1, 64, dtype=np.float32)
    for start in range(9):
        for length in (0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 40):
            buf = np.full(80, -1.0, dtype=np.float32)
            stream_row(buf[start:start + length], src[:length])
            store_fence()
            expected = np.full(80, -1.0, dtype=np.float32)
            expected[start:start + length] = src[:length]
            np.testing.assert_array_equal(buf, expected, err_msg=f"start {start}, length {length}")



def _misaligned(shape: tuple[int, ...]) -> np.ndarray:
    """A C-contiguous float32 array that starts one byte past a float boundary."""
    n = int(np.prod(shape))
    raw = np.zeros(4 * n + 8, dtype=np.uint8)
    start = (1 - raw.ctypes.data) % 4  # raw.ctypes.data + start is 1 mod 4
    out = raw[start:start + 4 * n].view(np.float32).reshape(shape)
    assert not out.flags.aligned and out.flags.c_contiguous
    return out


def test_stream_row_of_unequal_lengths_copies_the_shorter():
    """A source shorter or longer than the row: the common length is copied, nothing read or written beyond."""
    src = np.arange(1, 41, dtype=np.float32)
    for n_dst, n_src in ((40, 17), (17, 40), (33, 0)):
        dst = np.full(n_dst + 8, -1.0, dtype=np.float32)
        stream_row(dst[:n_dst], src[:n_src])
        store_fence()
        n = min(n_dst, n_src)
        np.testing.assert_array_equal(dst[:n], src[:n])
        assert (dst[n:] == -1.0).all()


def test_stream_row_copies_into_a_misaligned_row():
    """A row off the float boundary cannot take the aligned streaming stores: copied plainly, not faulted."""
    src = np.arange(1, 41, dtype=np.float32)
    dst = _misaligned((40,))
    stream_row(dst, src)
    store_fence()
    np.testing.assert_array_equal(dst, src)


def test_encode_refuses_an_output_the_kernels_cannot_write(game_case, rng):
    """`out` must be a writeable, aligned, C-contiguous float32 array of the batch's shape: anything else is
    refused with a message naming what is wrong, before a kernel runs, and nothing is written."""
    name, _, game = game_case
    encoder = default_encoder(name, game)
    state = random_steps(game, rng, 3, 20)
    view = game.observe(state, state.to_play)
    readonly = np.zeros((3, encoder.size), dtype=np.float32)
    readonly.flags.writeable = False
    bad = {
        "not aligned": _misaligned((3, encoder.size)),
        "not writeable": readonly,
        "not C-contiguous": np.zeros((encoder.size, 3), dtype=np.float32).T,
        "float64": np.zeros((3, encoder.size)),
        "(2,": np.zeros((2, encoder.size), dtype=np.float32),
        "a list": [[0.0] * encoder.size] * 3,
    }
    for what, out in bad.items():
        before = np.array(out, copy=True)
        with pytest.raises(ValueError, match="out must be") as error:
            encoder.encode(view, out=out)
        assert what in str(error.value), (what, str(error.value))
        np.testing.assert_array_equal(np.asarray(out), before)


def test_seat_blocks_are_relative_to_the_viewer(game_case, rng):
    """Slot k of viewer v shows the same player as slot 0 of viewer (v + k) mod P; padding is 0 (every kind)."""
    name, _, game = game_case
    state = random_steps(game, rng, 32, 80)
    P = game.num_players
    for kind in encoder_kinds(name) or (None,):
        encoder = make_encoder(name, game, kind)
        views = [encoder.split(encoder.encode(game.observe(state, v))) for v in range(P)]
        for block in encoder.seat_blocks:
            for v in range(P):
                for k in range(P):
                    np.testing.assert_array_equal(views[v][block][:, k], views[(v + k) % P][block][:, 0],
                                                  err_msg=f"{kind}: {block}")
                assert (views[v][block][:, P:] == 0).all(), f"{kind}: padding of {block} must be zero"


def test_rtta_blocks_match_the_state(rng):
    game = make("roll_through_the_ages", num_players=3)
    encoder = default_encoder("roll_through_the_ages", game)
    state = random_steps(game, rng, 64, 150)
    viewer = 1
    parts = encoder.split(encoder.encode(game.observe(state, viewer)))
    order = [(viewer + k) % 3 for k in range(3)]
    np.testing.assert_allclose(parts["food"][:, :3], state.food[:, order] / 15, rtol=1e-6)
    np.testing.assert_allclose(parts["goods"][:, :3], state.goods[:, order] / data.GOODS_MAX, rtol=1e-6)
    np.testing.assert_array_equal(parts["developments"][:, :3], state.developments[:, order])
    np.testing.assert_allclose(parts["score"][:, :3], np.clip(game.scores(state)[:, order] / 60, -10, 2), rtol=1e-5)
    np.testing.assert_allclose(parts["goods_value"][:, :3], game.goods_values(state)[:, order] / 265, rtol=1e-5)
    np.testing.assert_array_equal(parts["monuments_in_play"][0], data.MONUMENTS_IN_PLAY[3])
    np.testing.assert_array_equal(parts["num_players"][0], [0, 0, 1, 0])
    np.testing.assert_array_equal(parts["decision"].argmax(axis=1), state.decision)
    present = state.dice >= 0
    np.testing.assert_array_equal(parts["die_present"], present)
    np.testing.assert_array_equal(parts["dice"].argmax(axis=2)[present], state.dice[present])
    np.testing.assert_array_equal(parts["is_active"][:, :3], state.active[:, None] == np.array(order)[None])
    np.testing.assert_allclose(parts["workers"][:, 0], np.minimum(state.workers / 28, 1), rtol=1e-6)
