"""Checks the games' invariants share (envs/<game>/invariants.py): kernels on one row's arrays, each the one
copy of a rule several invariants state about their own fields.

An id array here is a 1-D view of one row's slots (a pile, a stack, a seat's cards, ...), -1 for an empty
slot. All are inlined into the invariant calling them (`inline="always"`), so they add no compiled kernel.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.jit import kernel


@kernel(inline="always")
def filled_to(ids, count):
    """ids (a pile or stack) holds an id (>= 0) in exactly its first `count` slots, -1 beyond."""
    for i in range(ids.shape[0]):
        if (ids[i] >= 0) != (i < count):
            return False
    return True


@kernel(inline="always")
def tally(ids, counts):
    """counts[id] += 1 for every id (>= 0) in ids: the places each id is found in, summed over calls."""
    for i in range(ids.shape[0]):
        if ids[i] >= 0:
            counts[ids[i]] += 1


@kernel(inline="always")
def counts_within(counts, lo, hi):
    """Every count is in lo..hi (as `tally` counts them: lo = hi = 1 for each id in exactly one place)."""
    for i in range(counts.shape[0]):
        if counts[i] < lo or counts[i] > hi:
            return False
    return True


@kernel(inline="always")
def distinct(ids):
    """No two entries of ids are equal."""
    for i in range(ids.shape[0]):
        for j in range(i):
            if ids[i] == ids[j]:
                return False
    return True


@kernel(inline="always")
def is_permutation(ids, first):
    """The n entries of ids are first, first + 1, ..., first + n - 1 in some order, each once (ids must lie
    in first..first + 62: one bit each)."""
    seen = np.int64(0)
    for i in range(ids.shape[0]):
        seen |= np.int64(1) << (np.int64(ids[i]) - first)
    return seen == (np.int64(1) << np.int64(ids.shape[0])) - 1


@kernel(inline="always")
def cards_conserved(pile, discard, hands, per_kind, pending_kind):
    """Every kind k of card has per_kind copies between the draw pile, the discard pile, the hands (hands[q, k])
    and one card of kind pending_kind set aside (-1: none)."""
    for k in range(pile.shape[0]):
        n = pile[k] + discard[k] + (1 if k == pending_kind else 0)
        for q in range(hands.shape[0]):
            n += hands[q, k]
        if n != per_kind:
            return False
    return True
