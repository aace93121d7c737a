"""The MCTS agent: legal and deterministic on every configuration, beats random, and in games with
hidden information searches only determinized states."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from meeple.agents import make_agent
from meeple.agents.mcts import Evaluator, MCTSAgent, ScoreEvaluator
from meeple.agents.random_agent import RandomAgent, sample_masked
from meeple.envs import core, make

RTTA = "roll_through_the_ages"
CONFIGS = [
    pytest.param({"num_players": p}, id=f"P={p}") for p in (1, 2, 3, 4)
] + [pytest.param({"num_players": 3, "trade": True}, id="P=3-trade")]


def midgame_states(game: Any, batch: int, seed: int, steps: int = 40) -> Any:
    """`batch` positions after `steps` random moves, plus one finished game as the last row."""
    rng = np.random.default_rng(seed)
    state = game.init(rng, batch + 1)
    for _ in range(steps):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    last = core.take(state, [batch])
    while not last.done.all():
        last = game.step(last, sample_masked(game.legal_action_mask(last), rng), rng)
    return core.concatenate([core.take(state, np.arange(batch)), last])


@pytest.mark.parametrize("config", CONFIGS)
def test_legal_deterministic_and_pure(config):
    game = make(RTTA, **config)
    state = midgame_states(game, batch=8, seed=7)
    before = core.clone(state)
    agent = MCTSAgent(simulations=12, rollout_depth=10)
    actions = agent.act(game, state, np.random.default_rng(3))
    assert actions.shape == (9,) and actions.dtype == np.int64
    mask = game.legal_action_mask(state)
    live = ~state.done
    assert mask[np.arange(9), actions][live].all()
    assert core.states_equal(state, before), "act must not modify the root state"
    again = agent.act(game, state, np.random.default_rng(3))
    np.testing.assert_array_equal(actions, again)


def test_full_rollouts_rollout_agent_and_prior():
    game = make(RTTA, num_players=2)
    state = midgame_states(game, batch=6, seed=11, steps=25)
    mask = game.legal_action_mask(state)
    heuristic = make_agent("heuristic", RTTA)
    for agent in (MCTSAgent(simulations=6),
                  MCTSAgent(simulations=6, rollout_depth=8, rollout_agent=heuristic),
                  MCTSAgent(simulations=6, rollout_depth=8, prior_agent=heuristic)):
        actions = agent.act(game, state, np.random.default_rng(0))
        assert mask[np.arange(7), actions][~state.done].all()
        np.testing.assert_array_equal(actions, agent.act(game, state, np.random.default_rng(0)))


def test_prior_agent_steers_the_search():
    """All prior mass on the prior agent's move and a huge c_uct: every root visit goes there."""
    game = make(RTTA, num_players=2)
    state = midgame_states(game, batch=8, seed=13)
    heuristic = make_agent("heuristic", RTTA)
    agent = MCTSAgent(simulations=8, c_uct=1e6, rollout_depth=4, prior_agent=heuristic, prior_weight=1.0)
    live = ~state.done
    np.testing.assert_array_equal(agent.act(game, state, np.random.default_rng(0))[live],
                                  heuristic.act(game, state, np.random.default_rng(0))[live])


class CountingGame:
    """Delegates to a rules core; counts `apply` calls and optionally claims hidden information."""

    def __init__(self, game: Any, hidden: bool = False) -> None:
        self.game = game
        self.info = game.info._replace(has_hidden_information=hidden)
        self.applied: list[Any] = []
        self.determinized: list[tuple[Any, np.ndarray, Any]] = []  # (state in, player, state out)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def apply(self, state: Any, actions: np.ndarray, u: np.ndarray) -> Any:
        self.applied.append(state)
        return self.game.apply(state, actions, u)

    def apply_inplace(self, state: Any, actions: np.ndarray, u: np.ndarray) -> None:
        self.applied.append(state)
        self.game.apply_inplace(state, actions, u)

    def determinize(self, state: Any, player: Any, rng: np.random.Generator) -> Any:
        out = self.game.determinize(state, player, rng)
        self.determinized.append((state, np.array(player, copy=True), out))
        return out


def test_single_legal_action_needs_no_search():
    game = make(RTTA, num_players=2)
    state = midgame_states(game, batch=6, seed=5)
    spy = CountingGame(game)
    real_mask = game.legal_action_mask(state)
    forced = np.zeros_like(real_mask)
    forced[np.arange(7), np.argmax(real_mask[:, ::-1], axis=1) * -1 + real_mask.shape[1] - 1] = True
    spy.legal_action_mask = lambda s: forced.copy()  # every row: one legal action (its highest)
    actions = MCTSAgent(simulations=20).act(spy, state, np.random.default_rng(0))
    assert spy.applied == [], "no search when the move is forced"
    np.testing.assert_array_equal(actions, np.argmax(forced, axis=1))


def test_hidden_information_searches_determinized_states():
    game = make(RTTA, num_players=3)
    state = midgame_states(game, batch=5, seed=2)
    spy = CountingGame(game, hidden=True)
    sims = 9
    actions = MCTSAgent(simulations=sims, rollout_depth=5).act(spy, state, np.random.default_rng(1))
    assert game.legal_action_mask(state)[np.arange(6), actions][~state.done].all()
    searched = ~state.done & (game.legal_action_mask(state).sum(axis=1) > 1)
    assert len(spy.determinized) == sims, "one determinization per simulation"
    for given, player, _ in spy.determinized:
        assert core.states_equal(given, core.take(state, np.flatnonzero(searched)))
        np.testing.assert_array_equal(player, state.to_play[searched])
    roots = [given for given, _, _ in spy.determinized]
    assert spy.applied
    for applied in spy.applied:  # never the true root (or the caller's state): only sampled states
        for root in roots + [state]:
            assert not any(np.shares_memory(a, r) for a, r in zip(applied, root))


def test_perfect_information_skips_determinize():
    game = make(RTTA, num_players=2)
    spy = CountingGame(game)
    MCTSAgent(simulations=4, rollout_depth=3).act(spy, midgame_states(game, 3, seed=4), np.random.default_rng(0))
    assert spy.determinized == []


def test_score_evaluator():
    class Fixed:
        num_players = 3

        def __init__(self, scores: list[list[int]]) -> None:
            self._scores = np.array(scores)

        def scores(self, state: Any) -> np.ndarray:
            return self._scores

    values = ScoreEvaluator(scale=10)(Fixed([[10, 0, 5], [3, 3, 1]]), None)
    expected = np.tanh(np.array([[10 - 5, 0 - 10, 5 - 10], [0, 0, 1 - 3]]) / 10)
    np.testing.assert_allclose(values, expected)
    solo = ScoreEvaluator(solo_scale=5)(Fixed([[10]]), None)
    np.testing.assert_allclose(solo, np.tanh([[2.0]]))
    assert isinstance(ScoreEvaluator(), Evaluator)


def test_from_spec_and_name():
    assert MCTSAgent.from_spec("mcts:200").name == "mcts:200"
    assert MCTSAgent.from_spec("mcts").simulations == 400
    agent = MCTSAgent.from_spec("mcts:50:rollout_depth=30,c_uct=1.0,scale=5")
    assert (agent.simulations, agent.rollout_depth, agent.c_uct, agent.evaluator.scale) == (50, 30, 1.0, 5.0)
    assert MCTSAgent.from_spec(agent.name).name == agent.name
    spec = "mcts:200:rollout_depth=30,rollout=heuristic,prior=heuristic,prior_weight=0.8"
    agent = MCTSAgent.from_spec(spec, RTTA)
    assert agent.name == spec and agent.prior_weight == 0.8
    assert agent.rollout_agent.name == agent.prior_agent.name == "heuristic"
    for bad in ("mcts:x", "mcts:10:depth=3", "random", "mcts:10:rollout=heuristic", "mcts:10:c_uct"):
        with pytest.raises(ValueError):
            MCTSAgent.from_spec(bad)


def test_mcts_beats_random():
    """Small budget, 2 players, seats alternating: MCTS must win clearly."""
    game = make(RTTA, num_players=2)
    n = 24
    env_rng = np.random.default_rng(2024)
    mcts_rng, random_rng = np.random.default_rng(1), np.random.default_rng(2)
    mcts, rand = MCTSAgent(simulations=24, rollout_depth=20), RandomAgent()
    mcts_seat = np.arange(n) % 2
    state = game.init(env_rng, n)
    while not state.done.all():
        mine = ~state.done & (state.to_play == mcts_seat)
        actions = rand.act(game, state, random_rng)
        if mine.any():
            rows = np.flatnonzero(mine)
            actions[rows] = mcts.act(game, core.take(state, rows), mcts_rng)
        state = game.step(state, actions, env_rng)
    returns = game.returns(state)[np.arange(n), mcts_seat]
    win_rate = float((returns > 0).mean())
    assert win_rate >= 0.8, f"MCTS won only {win_rate:.2f} of {n} games against random"
