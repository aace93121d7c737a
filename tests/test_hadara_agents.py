"""Hadara agents: legal play in every configuration, the heuristic beats random, and the heuristic
decides from the acting seat's information only (determinizing the hidden part never changes it)."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents import make_agent
from meeple.agents.arena import play_games
from meeple.agents.heuristics.hadara import PARAM_NAMES, Heuristic
from meeple.agents.random_agent import RandomAgent
from meeple.envs import core, make
from meeple.envs.hadara import data

GAME = "hadara"
CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 5},
    {"num_players": 2, "advanced": True},
    {"num_players": 4, "advanced": True},
    {"num_players": 3, "pile_view": "top", "random_board_order": True, "auto_forced": False},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_agents_choose_legal_actions(config: dict) -> None:
    """90 games to the end: rows 0 mod 3 are heuristic self-play, rows 1 mod 3 put the heuristic in
    seat 0 against random players, rows 2 mod 3 are random self-play; in every live row both agents'
    choices must be legal, and the heuristic's own logic must never need its random fallback."""
    game = make(GAME, **config)
    rng = np.random.default_rng(7)
    heuristic, rand = Heuristic(), RandomAgent()
    B = 90
    kind = np.arange(B) % 3
    state = game.init(rng, B)
    rows = np.arange(B)
    sections = np.zeros(data.NUM_DECISIONS, dtype=np.int64)  # heuristic decisions per section
    for _ in range(game.info.max_game_length):
        if state.done.all():
            break
        mask = game.legal_action_mask(state)
        live = ~state.done
        h = heuristic.act(game, state, rng)
        r = rand.act(game, state, rng)
        assert mask[rows, h][live].all(), f"heuristic chose illegal actions in rows {np.flatnonzero(live & ~mask[rows, h])}"
        assert mask[rows, r][live].all()
        use_heuristic = (kind == 0) | ((kind == 1) & (state.to_play == 0))
        sections += np.bincount(state.decision[live & use_heuristic], minlength=data.NUM_DECISIONS)
        state = game.step(state, np.where(use_heuristic, h, r), rng)
    assert state.done.all()
    assert heuristic.fallbacks == 0
    # the heuristic met every kind of decision of this configuration
    expected = {data.DEC_WHEEL, data.DEC_A_DRAFT, data.DEC_A_COLONY, data.DEC_A_BUST,
                data.DEC_B_PICK, data.DEC_B_COLONY, data.DEC_B_BUST, data.DEC_B_SEALS}
    if config.get("advanced"):
        expected.add(data.DEC_SETUP_SIDE)
    assert all(sections[s] > 0 for s in expected), dict(zip(data.DECISION_NAMES, sections.tolist()))


def test_heuristic_beats_random() -> None:
    """Measured with evaluate.py over 1000 games (2 players): the heuristic wins all of them (Wilson
    interval [0.996, 1]) and scores ~150 VP to random's ~65; the thresholds leave a wide margin."""
    result = play_games(make(GAME, num_players=2), [Heuristic(), RandomAgent()], 200, seed=0)
    heuristic, rand = result["agents"]
    assert heuristic["games"] == heuristic["seats"] == rand["seats"] == 200
    assert heuristic["win_rate"] > 0.9
    assert heuristic["mean_score"] > rand["mean_score"] + 50


def _positions(config: dict, seed: int, steps: tuple[int, ...]) -> list:
    """Mid-game states of 16 games (heuristic vs random play), taken after the given step counts."""
    game = make(GAME, **config)
    rng = np.random.default_rng(seed)
    heuristic, rand = Heuristic(), RandomAgent()
    state = game.init(rng, 16)
    seat_h = np.arange(16) % game.num_players
    out = []
    for step in range(max(steps) + 1):
        if step in steps:
            live = np.flatnonzero(~state.done)
            out.append((game, core.take(state, live)))
        actions = np.where(state.to_play == seat_h, heuristic.act(game, state, rng), rand.act(game, state, rng))
        state = game.step(state, actions, rng)
    return out


def test_heuristic_never_reads_hidden_state() -> None:
    """Resample everything the seat to play cannot see (inner stacks, other players' pairs, pending
    commitments and face-down sales, unrevealed colony backs) twice: the heuristic's choices stay
    those it makes in the true state. The positions include many draft decisions after other seats
    have committed, so hidden commitments really differ."""
    checked = drafts = committed_others = 0
    differ = np.zeros(4, dtype=np.int64)  # rows where inner stacks / pairs / commitments / colony stacks changed
    cases = (({"num_players": 2}, 1, (3, 12, 40, 75)), ({"num_players": 3}, 2, (4, 20, 60, 110)),
             ({"num_players": 5}, 3, (6, 30, 90)), ({"num_players": 4, "advanced": True}, 4, (0, 2, 25, 70)))
    for config, seed, steps in cases:
        for game, state in _positions(config, seed, steps):
            me = state.to_play
            actions = []
            for det_seed in (None, 101, 202):
                s = state if det_seed is None else game.determinize(state, me, np.random.default_rng(det_seed))
                if det_seed is not None:
                    game.validate(s)
                    for i, field in enumerate(("inner", "drawn", "pending", "colony_stack")):
                        a, b = getattr(s, field), getattr(state, field)
                        differ[i] += int((a != b).reshape(len(me), -1).any(axis=1).sum())
                actions.append(Heuristic().act(game, s, np.random.default_rng(0)))
            np.testing.assert_array_equal(actions[1], actions[0])
            np.testing.assert_array_equal(actions[2], actions[0])
            checked += len(me)
            draft = state.decision == data.DEC_A_DRAFT
            drafts += int(draft.sum())
            others = state.committed.copy()
            others[np.arange(len(me)), me] = False
            committed_others += int((draft & others.any(axis=1)).sum())
    assert checked >= 200 and drafts >= 60 and committed_others >= 20, (checked, drafts, committed_others)
    assert (differ > 0).all(), differ


def test_make_agent() -> None:
    assert isinstance(make_agent("heuristic", GAME), Heuristic)
    assert Heuristic(buy_rate=0.5).params[PARAM_NAMES.index("buy_rate")] == 0.5
    with pytest.raises(ValueError, match="unknown heuristic parameter"):
        Heuristic(aggression=1.0)
