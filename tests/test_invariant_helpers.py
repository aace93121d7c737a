"""The shared invariant checks (envs/invariant_helpers.py) against their plain definitions."""

from __future__ import annotations

import numpy as np

from meeple.envs.invariant_helpers import cards_conserved, counts_within, distinct, filled_to, is_permutation, tally


def ids(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int8)


def test_filled_to():
    assert filled_to(ids(3, 1, -1, -1), 2)
    assert filled_to(ids(-1, -1), 0)
    assert filled_to(ids(0, 4), 2)
    assert not filled_to(ids(3, -1, 1, -1), 2)  # a gap below the count
    assert not filled_to(ids(3, 1, 2, -1), 2)  # a card beyond it
    assert not filled_to(ids(3, -1, -1, -1), 2)


def test_tally_and_counts_within():
    counts = np.zeros(5, dtype=np.int8)
    tally(ids(0, -1, 3), counts)
    tally(ids(-1, 3, 4), counts)
    assert counts.tolist() == [1, 0, 0, 2, 1]
    assert counts_within(counts, 0, 2)
    assert not counts_within(counts, 0, 1)
    assert not counts_within(counts, 1, 2)


def test_distinct():
    assert distinct(ids(2, 0, 4))
    assert distinct(ids())
    assert not distinct(ids(2, 0, 2))
    assert not distinct(ids(-1, -1))


def test_is_permutation():
    assert is_permutation(ids(2, 0, 1), 0)
    assert is_permutation(ids(3, 1, 5, 2, 4), 1)
    assert not is_permutation(ids(0, 0, 1), 0)
    assert not is_permutation(ids(0, 3, 1), 0)
    assert not is_permutation(ids(0, 1, 2), 1)


def test_cards_conserved():
    pile, discard = ids(5, 6), ids(2, 0)
    hands = np.array([[1, 2], [2, 1]], dtype=np.int8)
    # kind 0: 5 + 2 + 1 + 2 = 10; kind 1: 6 + 0 + 2 + 1 = 9, + 1 set aside = 10
    assert cards_conserved(pile, discard, hands, 10, 1)
    assert not cards_conserved(pile, discard, hands, 10, -1)
    assert not cards_conserved(pile, discard, hands, 10, 0)
