"""Encoder kernels place every block by name: offsets come from the block table (`block_offsets`),
and each kernel's source names every block of its table at least once."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.encoders import attika, carpe_diem, hadara, roll_through_the_ages, utopia
from meeple.encoders.base import block_offsets, seat_of, unwritten_blocks


def _without(offsets, shared):
    """The blocks of `offsets` other than those of `shared` (written by a shared helper, checked on its own)."""
    return block_offsets([(name, (0,), "") for name in offsets._fields if name not in shared._fields])


_ATTIKA_SHARED = block_offsets([(name, (0,), "") for name in attika.VEC._fields if name != "shrines_touched"])
KERNELS = [
    pytest.param(hadara.AT, "AT", (hadara.encode_row,), id="hadara"),
    pytest.param(roll_through_the_ages.AT, "AT", (roll_through_the_ages.encode_row,), id="roll_through_the_ages"),
    pytest.param(carpe_diem.AT, "AT", (carpe_diem.encode_compact_row,), id="carpe_diem-compact"),
    pytest.param(carpe_diem.AT_FULL, "AT_FULL", (carpe_diem.encode_full_row,), id="carpe_diem-full"),
    # Attika's two kinds write their planes (and shrines_touched, from their map loops) by name and the other
    # vectors through one helper (`_vectors`)
    pytest.param(_without(attika.AT, _ATTIKA_SHARED), "AT", (attika.encode_compact_row,), id="attika-compact"),
    pytest.param(_without(attika.AT_PLANES, _ATTIKA_SHARED), "AT_PLANES", (attika.encode_planes_row,),
                 id="attika-planes"),
    pytest.param(_ATTIKA_SHARED, "VEC", (attika._vectors,), id="attika-vectors"),
    pytest.param(utopia.AT, "AT", (utopia.encode_row,), id="utopia"),
]


@pytest.mark.parametrize("offsets, alias, kernels", KERNELS)
def test_every_block_is_written_by_name(offsets, alias, kernels):
    assert unwritten_blocks(offsets, alias, *kernels) == []


@pytest.mark.parametrize("offsets, blocks", [
    (hadara.AT, hadara.BLOCKS),
    (roll_through_the_ages.AT, roll_through_the_ages.BLOCKS),
    (carpe_diem.AT, carpe_diem.COMPACT_BLOCKS),
    (carpe_diem.AT_FULL, carpe_diem.FULL_BLOCKS),
    pytest.param(attika.AT, attika.COMPACT_BLOCKS, id="attika-compact"),
    pytest.param(attika.AT_PLANES, attika.PLANES_BLOCKS, id="attika-planes"),
    pytest.param(attika.VEC, attika.VECTOR_BLOCKS, id="attika-vectors"),
    pytest.param(utopia.AT, utopia.BLOCKS, id="utopia"),
])
def test_offsets_follow_the_block_table(offsets, blocks):
    starts = np.cumsum([0] + [int(np.prod(shape)) for _, shape, _ in blocks])[:-1]
    assert offsets._fields == tuple(name for name, _, _ in blocks)
    assert list(offsets) == starts.tolist()


@pytest.mark.parametrize("offsets, alias, kernel", [
    (attika.AT, "AT", attika.encode_compact_row), (attika.AT_PLANES, "AT_PLANES", attika.encode_planes_row)])
def test_attika_kinds_write_the_vectors_with_the_shared_helper_at_their_offset(offsets, alias, kernel):
    """Both kinds end with VECTOR_BLOCKS, which `_vectors` writes from the kind's offset of its first block."""
    import inspect

    assert f"_vectors(v, b, row, {alias}.present," in inspect.getsource(getattr(kernel, "py_func", kernel))
    for name in attika.VEC._fields:
        assert getattr(offsets, name) == offsets.present + getattr(attika.VEC, name)


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
