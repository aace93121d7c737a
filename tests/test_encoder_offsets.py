"""Encoder kernels place every block by name: offsets come from the block table (`block_offsets`),
and each kernel's source names every block of its table at least once."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from meeple.encoders.base import block_offsets, seat_of, unwritten_blocks
from meeple.envs import GAMES, encoder_kinds, make, make_encoder

# every encoder kind of every registered game (a game's `info.encoder_kinds` says the same: test_api)
KINDS = [pytest.param(name, kind, id=f"{name}-{kind or 'default'}")
         for name in GAMES for kind in (encoder_kinds(name) or (None,))]


def _encoder_class(name, kind):
    return type(make_encoder(name, make(name), kind))


@pytest.mark.parametrize("name, kind", KINDS)
def test_every_block_is_written_by_name(name, kind):
    """The kind's row kernel names every block of its table (`Encoder.unwritten`), or a shared helper it
    declares (`Encoder.helpers`) does."""
    assert _encoder_class(name, kind).unwritten() == []


@pytest.mark.parametrize("name, kind", KINDS)
def test_offsets_follow_the_block_table(name, kind):
    cls = _encoder_class(name, kind)
    offsets = getattr(sys.modules[cls.__module__], cls.offsets)
    starts = np.cumsum([0] + [int(np.prod(shape)) for _, shape, _ in cls.blocks])[:-1]
    assert offsets._fields == tuple(name for name, _, _ in cls.blocks)
    assert list(offsets) == starts.tolist()
    assert offsets == block_offsets(cls.blocks)


def test_unwritten_blocks_names_the_missing_block():
    offsets = block_offsets([("a", (2,), ""), ("b", (3,), ""), ("c", (1,), "")])
    assert offsets == (0, 2, 5)

    def writer(row):
        row[AT.a] = 1.0  # noqa: F821  (only read as source)
        row[AT.c] = 1.0  # noqa: F821

    assert unwritten_blocks(offsets, "AT", writer) == ["b"]


def test_seat_of_is_the_clockwise_seat():
    for P in range(1, 6):
        for me in range(P):
            for slot in range(P + 1):
                assert seat_of(me, slot, P) == (me + slot) % P
