"""The MCTS agent: legal and deterministic on every configuration, beats random, and in games with
hidden information searches only determinized states."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest

from meeple.agents import make_agent
from meeple.agents.mcts import Evaluator, MCTSAgent, RolloutAgent, ScoreEvaluator
from meeple.agents.random_agent import RandomAgent, sample_masked
from meeple.envs import core, make

from helpers import random_steps

RTTA = "roll_through_the_ages"
CONFIGS = [
    pytest.param({"num_players": p}, id=f"P={p}") for p in (1, 2, 3, 4)
] + [pytest.param({"num_players": 3, "trade": True}, id="P=3-trade")]


def midgame_states(game: Any, batch: int, seed: int, steps: int = 40) -> Any:
    """`batch` positions after `steps` random moves, plus one finished game as the last row."""
    rng = np.random.default_rng(seed)
    state = random_steps(game, rng, batch + 1, steps)
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

    def _step_owned(self, state: Any, actions: Any, u: Any, rng: Any, mask: np.ndarray, next_mask: Any = None) -> None:
        self.applied.append(state)
        self.game._step_owned(state, actions, u, rng, mask, next_mask)

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


# --- rollout mode (`mcts:N:mode=rollout`): rollout-based improvement of a base policy ---------------

class CoinGame:
    """A one-decision toy game for behavioural tests (2 players, perfect information).

    Seat 0 picks action a in {0, 1, 2}; one uniform u then decides: action 0 wins iff u < 0.3,
    action 1 wins iff u < 0.7, action 2 always loses. Then the game ends (seat 1 never moves).
    """

    class State(NamedTuple):
        done: np.ndarray
        to_play: np.ndarray
        won: np.ndarray

    num_players = 2
    num_actions = 3
    uniforms_per_step = 1
    info = core.GameInfo("coin", 2, 3, 1, True, False)

    def init(self, batch: int) -> Any:
        return self.State(np.zeros(batch, bool), np.zeros(batch, np.int8), np.zeros(batch, bool))

    def legal_action_mask(self, state: Any) -> np.ndarray:
        return np.ones((state.done.shape[0], 3), dtype=bool)

    def apply(self, state: Any, actions: np.ndarray, u: np.ndarray, mask: np.ndarray | None = None) -> Any:
        threshold = np.array([0.3, 0.7, 0.0])[np.asarray(actions)]
        won = np.where(state.done, state.won, u[:, 0] < threshold)
        return self.State(np.ones_like(state.done), state.to_play.copy(), won)

    def scores(self, state: Any) -> np.ndarray:
        return np.stack([state.won, ~state.won], axis=1).astype(np.int32)

    def returns(self, state: Any) -> np.ndarray:
        out = np.where(state.won[:, None], [1.0, -1.0], [-1.0, 1.0]).astype(np.float32)
        return np.where(state.done[:, None], out, 0.0).astype(np.float32)

    def determinize(self, state: Any, player: Any, rng: np.random.Generator) -> Any:
        return core.clone(state)


class FirstLegal:
    name = "first"

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        return np.argmax(game.legal_action_mask(state), axis=1).astype(np.int64)


def test_rollout_mode_improves_on_its_base_policy():
    """The base policy plays action 0 (wins 30%); playouts show action 1 (70%) is better. With common
    random numbers action 1 wins in every playout where action 0 does, so the paired test is decisive."""
    game = CoinGame()
    agent = RolloutAgent(simulations=30, rollout_agent=FirstLegal())
    np.testing.assert_array_equal(agent.act(game, game.init(5), np.random.default_rng(0)), [1] * 5)
    # a gain below the margin (at most 2 + 2 tanh(0.1) here) keeps the base move
    timid = RolloutAgent(simulations=30, rollout_agent=FirstLegal(), margin=2.5)
    np.testing.assert_array_equal(timid.act(game, game.init(5), np.random.default_rng(0)), [0] * 5)


class DelayGame(CoinGame):
    """Seat 0 rolls a die now (action 1) or first waits one step without chance (action 0, then the
    only legal action is 0); a 4, 5 or 6 wins."""

    class State(NamedTuple):
        done: np.ndarray
        to_play: np.ndarray
        waiting: np.ndarray
        won: np.ndarray

    num_actions = 2
    info = core.GameInfo("delay", 2, 2, 2, True, False)

    def init(self, batch: int) -> Any:
        return self.State(*(np.zeros(batch, dt) for dt in (bool, np.int8, bool, bool)))

    def legal_action_mask(self, state: Any) -> np.ndarray:
        return np.stack([np.ones_like(state.done), ~state.waiting | state.done], axis=1)

    def apply(self, state: Any, actions: np.ndarray, u: np.ndarray, mask: np.ndarray | None = None) -> Any:
        wait = ~state.done & ~state.waiting & (np.asarray(actions) == 0)
        roll = ~state.done & ~wait
        won = np.where(roll, np.floor(6 * u[:, 0]) >= 3, state.won)
        return self.State(state.done | roll, state.to_play.copy(), wait, won)


def test_rollout_mode_common_random_numbers_align_chance():
    """Playout k rolls the same die whether the roll comes at the first or the second step, so two
    equivalent moves get identical values and the base move stays."""
    game = DelayGame()
    agent = RolloutAgent(simulations=40, rollout_agent=FirstLegal())
    n = 20
    start = game.init(2 * n)
    values = agent._playouts(game, start, np.repeat([0, 1], n), np.zeros(2 * n, dtype=np.int64),
                             np.tile(np.arange(n), 2), 12345, np.random.default_rng(0))
    np.testing.assert_array_equal(values[:n], values[n:])
    assert 0 < (values > 0).sum() < 2 * n  # the die does vary between playouts
    np.testing.assert_array_equal(agent.act(game, game.init(3), np.random.default_rng(0)), [0, 0, 0])


def test_rollout_mode_legal_deterministic_and_pure():
    game = make(RTTA, num_players=2)
    state = midgame_states(game, batch=6, seed=3, steps=30)
    before = core.clone(state)
    agent = make_agent("mcts:16:mode=rollout,rollout=heuristic,max_steps=40", RTTA)
    assert isinstance(agent, RolloutAgent)
    actions = agent.act(game, state, np.random.default_rng(4))
    mask = game.legal_action_mask(state)
    assert actions.shape == (7,) and mask[np.arange(7), actions][~state.done].all()
    assert core.states_equal(state, before), "act must not modify the root state"
    np.testing.assert_array_equal(actions, agent.act(game, state, np.random.default_rng(4)))


class SpyEvaluator:
    """Seat p's value is `values[p]` in every row; records the states it was asked about."""

    def __init__(self, values: list[float]) -> None:
        self.values = np.asarray(values, dtype=np.float64)
        self.seen: list[Any] = []

    def __call__(self, game: Any, state: Any) -> np.ndarray:
        self.seen.append(core.clone(state))
        return np.tile(self.values, (state.done.shape[0], 1))


def test_rollout_mode_cut_playouts_are_valued_by_the_leaf_evaluator():
    """A playout stopped by max_steps gets the leaf evaluator's value for the root's seat plus the score
    term (the rest of the game it did not play); finished playouts never reach the evaluator."""
    game = make(RTTA, num_players=2)
    state = midgame_states(game, batch=4, seed=5, steps=20)
    spy = SpyEvaluator([0.25, -0.5])
    agent = RolloutAgent(simulations=8, rollout_agent=make_agent("heuristic", RTTA), max_steps=2, leaf_evaluator=spy)
    actions = agent.act(game, state, np.random.default_rng(1))
    assert game.legal_action_mask(state)[np.arange(5), actions][~state.done].all()
    assert spy.seen and not any(seen.done.any() for seen in spy.seen)
    seat = np.array([0, 1, 1, 0])
    unfinished = core.take(state, np.arange(4))
    score = ScoreEvaluator()(game, unfinished)[np.arange(4), seat]
    np.testing.assert_allclose(agent._value(game, unfinished, seat, finished=False),
                               np.where(seat == 0, 0.25, -0.5) + score)
    plain = RolloutAgent(simulations=8, max_steps=2)  # no evaluator: the score term stands in for the returns
    np.testing.assert_allclose(plain._value(game, unfinished, seat, finished=False), 2 * score)


def test_rollout_mode_hidden_information_hadara():
    """Hadara (hidden cards): legal and deterministic with a small budget; every playout starts from a
    determinization of the searched roots, never from the roots themselves."""
    game = make("hadara", num_players=2)
    state = midgame_states(game, batch=3, seed=1, steps=30)
    spy = CountingGame(game, hidden=True)
    agent = make_agent("mcts:4:mode=rollout,rollout=heuristic,max_steps=30", "hadara")
    actions = agent.act(spy, state, np.random.default_rng(0))
    mask = game.legal_action_mask(state)
    assert mask[np.arange(4), actions][~state.done].all()
    np.testing.assert_array_equal(actions, agent.act(game, state, np.random.default_rng(0)))
    assert spy.determinized
    for given, player, _ in spy.determinized:  # always for the seat to move in the searched root
        np.testing.assert_array_equal(player, given.to_play)
    for applied in spy.applied:
        assert not any(np.shares_memory(a, r) for a, r in zip(applied, state))


def test_rollout_mode_spec_round_trip():
    spec = "mcts:200:mode=rollout,rollout=heuristic"
    agent = MCTSAgent.from_spec(spec, RTTA)
    assert isinstance(agent, RolloutAgent) and agent.name == spec and agent.simulations == 200
    spec = "mcts:50:mode=rollout,rollout=random,z=2,margin=0.1,score_weight=0,scale=5,halving=0,max_steps=9"
    agent = MCTSAgent.from_spec(spec)
    assert agent.name == spec
    assert (agent.z, agent.margin, agent.score_weight, agent.evaluator.scale, agent.halving, agent.max_steps) == (
        2.0, 0.1, 0.0, 5.0, False, 9)
    for bad in ("mcts:10:mode=tree", "mcts:10:mode=rollout,depth=3", "mcts:10:mode=rollout,halving=2",
                "mcts:10:mode=rollout,rollout=heuristic", "mcts:0:mode=rollout", "mcts:10:mode=rollout,z=-1"):
        with pytest.raises(ValueError):
            MCTSAgent.from_spec(bad)
