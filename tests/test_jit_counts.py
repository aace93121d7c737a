"""The small shared kernels of envs/jit.py that several games' rules call (counts, multisets, tuples of four):
what they return and write, compiled or as plain Python."""

from __future__ import annotations

import numpy as np

from meeple.envs.jit import append_copies, count_at_least, count_equal, set_item4, tally_items


def test_counts_of_a_row() -> None:
    row = np.array([-1, 3, 0, 3, -1, 2], dtype=np.int8)
    assert count_equal(row, 3) == 2
    assert count_equal(row, -1) == 2
    assert count_equal(row, 7) == 0
    assert count_at_least(row, 0) == 4
    assert count_at_least(row, 3) == 2


def test_a_multiset_written_out_and_read_back() -> None:
    arr = np.full(16, -9, dtype=np.int32)
    n = 0
    for item, count in ((0, 2), (1, 0), (2, 3), (3, -1)):  # a negative count writes nothing
        n = append_copies(arr, 4, n, item, count)
    assert n == 5
    assert arr.tolist() == [-9] * 4 + [0, 0, 2, 2, 2] + [-9] * 7
    counts = np.zeros(4, dtype=np.int8)
    i = tally_items(counts, arr, 4, 0, 3)
    assert i == 3 and counts.tolist() == [2, 0, 1, 0]
    assert tally_items(counts, arr, 4, i, -2) == i  # nothing read back
    assert tally_items(counts, arr, 4, i, 2) == 5 and counts.tolist() == [2, 0, 3, 0]


def test_set_item4() -> None:
    for k in range(4):
        expected = [10, 11, 12, 13]
        expected[k] = -1
        assert tuple(set_item4(k, -1, 10, 11, 12, 13)) == tuple(expected)
    assert tuple(set_item4(7, 5, 0, 0, 0, 0)) == (0, 0, 0, 5)  # any other index: the last item
