"""TunedHeuristic.act, the entry and fallback pass every game's heuristic shares: the game's KERNEL writes
each live row's choice; done rows play 0; an illegal choice becomes `legal_or_random`'s random legal action
and is counted in `fallbacks`; the generator advances by one uniform per row whether a fallback uses it or not.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from meeple.agents.heuristics import TunedHeuristic
from meeple.agents.random_agent import pick_legal_nb

_State = namedtuple("_State", ["done", "to_play", "choices"])


class _Game:
    """Just what `act` reads of a game: the mask, the player count and the acting seat's view."""

    num_players = 2

    def __init__(self, mask: np.ndarray) -> None:
        self.mask = mask

    def legal_action_mask(self, state: _State) -> np.ndarray:
        return self.mask

    def observe(self, state: _State, seat: np.ndarray) -> tuple:
        return (state.choices, state.done)


def _kernel(mask, out, params, choices, done):
    """A KERNEL that plays the planted choices in the rows not done."""
    for b in range(out.shape[0]):
        if not done[b]:
            out[b] = choices[b]


class _Planted(TunedHeuristic):
    DEFAULT_PARAMS = np.zeros(0)
    PARAM_NAMES = ()
    KERNEL = _kernel


def test_act_keeps_legal_choices_plays_zero_when_done_and_replaces_illegal_ones() -> None:
    mask = np.array([[0, 1, 1, 0],
                     [1, 0, 0, 1],
                     [0, 1, 1, 1],
                     [0, 0, 1, 0],
                     [1, 1, 0, 0],
                     [0, 0, 0, 0]], dtype=np.bool_)
    # legal, illegal (masked), out of range below, out of range above, done, done with no legal action
    choices = np.array([2, 1, -1, 4, 1, 3], dtype=np.int64)
    done = np.array([False, False, False, False, True, True])
    state = _State(done, np.zeros(6, dtype=np.int64), choices)
    agent = _Planted()

    actions = agent.act(_Game(mask), state, np.random.default_rng(5))

    u = np.random.default_rng(5).random(6)
    expected = [2] + [pick_legal_nb(mask[b], u[b]) for b in (1, 2, 3)] + [0, 0]
    assert actions.dtype == np.int64
    assert actions.tolist() == expected
    assert agent.fallbacks == 3
    assert all(mask[b, actions[b]] for b in range(4))


def test_act_draws_one_uniform_per_row_without_fallbacks() -> None:
    mask = np.ones((3, 5), dtype=np.bool_)
    state = _State(np.zeros(3, dtype=np.bool_), np.zeros(3, dtype=np.int64), np.array([4, 0, 2], dtype=np.int64))
    agent = _Planted()
    rng = np.random.default_rng(9)

    assert agent.act(_Game(mask), state, rng).tolist() == [4, 0, 2]
    assert agent.fallbacks == 0
    reference = np.random.default_rng(9)
    reference.random(3)
    assert rng.random() == reference.random()
