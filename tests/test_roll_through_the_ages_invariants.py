"""Invariant sweep: thousands of random RTTA games per player count, checked after every step.

The number of games per configuration is MEEPLE_SWEEP_GAMES (1,500 by default, what CI runs, `tests/helpers.py`;
`benchmarks/soak.py` plays a million games per game with `validate` after every step).
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import make
from meeple.envs.roll_through_the_ages import data

from helpers import SWEEP_GAMES as GAMES



def reference_scores(s) -> np.ndarray:
    """The score recomputed from the score sheet with numpy, independently of the kernels."""
    completed = s.monument_progress == data.MONUMENT_WORKERS
    cities = 3 + (s.city_workers[..., None] >= data.CITY_THRESHOLDS).sum(axis=-1)
    dev_points = (s.developments * data.DEVELOPMENT_POINTS).sum(axis=-1)
    monument_points = np.where(completed, s.monument_points, 0).sum(axis=-1)
    bonus = s.developments[..., data.ARCHITECTURE] * completed.sum(axis=-1)
    bonus = bonus + s.developments[..., data.EMPIRE] * cities
    return dev_points + monument_points + bonus - s.disasters


def goods_counts(s) -> np.ndarray:
    return s.goods.astype(np.int64).sum(axis=-1)


MONOTONE = ("developments", "monument_progress", "city_workers", "disasters", "completed_by_anyone", "round")


@pytest.mark.slow
@pytest.mark.parametrize(
    "config",
    [{"num_players": 1}, {"num_players": 2}, {"num_players": 3}, {"num_players": 4},
     {"num_players": 3, "trade": True}],
    ids=["solo", "2p", "3p", "4p", "3p-trade"],
)
def test_random_games_keep_every_invariant(config):
    game = make("roll_through_the_ages", **config)
    n_games = GAMES if not config.get("trade") else max(GAMES // 5, 100)
    rng = np.random.default_rng(2024 + config["num_players"])
    state = game.init(rng, n_games)
    rows = np.arange(n_games)
    steps = 0
    while not state.done.all():
        mask = game.legal_action_mask(state)
        live = ~state.done
        assert mask[live].any(axis=1).all(), "a live game has no legal action"
        prev = state
        state = game.step(state, sample_masked(mask, rng), rng)
        steps += 1
        assert steps <= game.info.max_game_length
        game.validate(state)  # ranges: food 0..15, goods within track maxima, phases, points ...
        np.testing.assert_array_equal(game.scores(state), reference_scores(state), err_msg="score != sum of parts")
        for name in MONOTONE:
            assert (getattr(state, name) >= getattr(prev, name)).all(), f"{name} decreased"
        # a turn ends with at most 6 goods unless the player owns Caravans
        ended = live & ((state.active != prev.active) | (state.round != prev.round) | state.done)
        ended_seat = prev.active[ended]
        counts = goods_counts(state)[rows[ended], ended_seat]
        caravans = state.developments[rows[ended], ended_seat, data.CARAVANS]
        assert ((counts <= data.GOODS_LIMIT) | caravans).all(), "a turn ended with more than 6 goods"
        # trade variant: a trade moves units between two players and conserves every type (rows whose
        # turn ended in the same step may already have collected the next player's goods)
        traded = live & (prev.decision == data.DEC_TRADE_RESPOND) & (state.active == prev.active)
        traded &= (state.round == prev.round) & ~state.done
        np.testing.assert_array_equal(state.goods[traded].sum(axis=1), prev.goods[traded].sum(axis=1))
        np.testing.assert_array_equal(state.food[traded].sum(axis=1), prev.food[traded].sum(axis=1))
        # feeding happens every turn, so food never exceeds the cap and dice match the cities
        present = (state.dice >= 0).sum(axis=1)
        cities = 3 + (state.city_workers[rows, state.active][:, None] >= data.CITY_THRESHOLDS).sum(axis=1)
        assert ((present <= cities) | state.done).all()
    assert state.done.all()
    # every game ended by a rule, not by the round limit (random play still finishes)
    assert state.truncated.mean() < 0.001
    if config["num_players"] == 1:
        assert (state.round == data.SOLO_ROUNDS).all()
    else:
        devs = state.developments.sum(axis=-1).max(axis=-1) >= data.DEVELOPMENTS_TO_END
        monuments = state.completed_by_anyone[:, game.monuments_in_play].all(axis=-1)
        assert (devs | monuments | state.truncated).all(), "a game ended without an end trigger"
        # end of game: everyone had the same number of turns: the game ends after the last seat
        last_seat = (state.start_player + config["num_players"] - 1) % config["num_players"]
        assert (state.active[~state.truncated] == last_seat[~state.truncated]).all()
    returns = game.returns(state)
    assert np.isfinite(returns).all()
