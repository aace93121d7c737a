"""Agents: legal play in every configuration, the heuristic beats random, seeded arenas repeat."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents import make_agent
from meeple.agents.arena import play_games, seat_agents, wilson_interval
from meeple.agents.heuristics.roll_through_the_ages import Heuristic
from meeple.agents.random_agent import RandomAgent
from meeple.envs import make
from meeple.envs.roll_through_the_ages import data

GAME = "roll_through_the_ages"
CONFIGS = [
    {"num_players": 1},
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 2, "trade": True},
    {"num_players": 4, "trade": True},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_agents_choose_legal_actions(config: dict) -> None:
    """200 games to the end: rows 0 mod 3 are heuristic self-play, rows 1 mod 3 put the heuristic in
    seat 0 against random players (so it answers random trade offers), rows 2 mod 3 are random
    self-play; in every live row both agents' choices must be legal, and the heuristic's own logic
    must never need its random fallback."""
    game = make(GAME, **config)
    rng = np.random.default_rng(7)
    heuristic, rand = Heuristic(), RandomAgent()
    B = 200
    kind = np.arange(B) % 3
    state = game.init(rng, B)
    rows = np.arange(B)
    answered = 0  # trade offers the heuristic had to answer
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
        answered += int((live & use_heuristic & (state.decision == data.DEC_TRADE_RESPOND)).sum())
        state = game.step(state, np.where(use_heuristic, h, r), rng)
    assert state.done.all()
    assert heuristic.fallbacks == 0
    assert (answered > 0) == bool(config.get("trade"))


def test_heuristic_beats_random() -> None:
    """Measured over 1000 seeded games: the heuristic wins all of them (interval [0.996, 1]) and
    scores ~29 to random's ~-4; the thresholds leave a wide margin."""
    game = make(GAME, num_players=2)
    result = play_games(game, [Heuristic(), RandomAgent()], 200, seed=0)
    heuristic, rand = result["agents"]
    assert heuristic["games"] == heuristic["seats"] == rand["seats"] == 200
    assert heuristic["win_rate"] > 0.95
    assert heuristic["mean_score"] > 20 > rand["mean_score"] + 10


def test_heuristic_solo_score() -> None:
    """Solo (10 rounds): the heuristic averages ~47 points (measured over 1000 games)."""
    result = play_games(make(GAME, num_players=1), [Heuristic()], 100, seed=0)
    assert result["agents"][0]["win_rate"] is None
    assert result["agents"][0]["mean_score"] > 35


def test_play_games_is_deterministic() -> None:
    game = make(GAME, num_players=3)
    first = play_games(game, [Heuristic(), RandomAgent()], 30, seed=5)
    again = play_games(game, [Heuristic(), RandomAgent()], 30, seed=5)
    other = play_games(game, [Heuristic(), RandomAgent()], 30, seed=6)
    assert first == again
    assert first["per_game"]["scores"] != other["per_game"]["scores"]


def test_seats_rotate_and_wins_are_shared() -> None:
    seats = seat_agents(6, 3, 2)  # fewer agents than seats: cycled, one step per game
    assert seats[0].tolist() == [0, 1, 0] and seats[1].tolist() == [1, 0, 1]
    for seat in range(3):
        assert np.bincount(seats[:, seat], minlength=2).tolist() == [3, 3]
    game = make(GAME, num_players=3)
    result = play_games(game, [Heuristic(), RandomAgent()], 40, seed=1)
    a, b = result["agents"]
    assert result["games"] == 40
    assert (a["games"], a["seats"], b["games"], b["seats"]) == (40, 60, 40, 60)
    assert a["wins"] + b["wins"] == pytest.approx(40)  # a game's win is shared among its seats
    assert a["win_rate"] + b["win_rate"] == pytest.approx(1.0)
    result = play_games(make(GAME, num_players=2), [Heuristic(), Heuristic()], 40, seed=1)
    assert [x["name"] for x in result["agents"]] == ["heuristic#0", "heuristic#1"]
    result = play_games(make(GAME, num_players=1), [Heuristic(), RandomAgent()], 10, seed=1)
    assert result["games"] == 10 and [x["games"] for x in result["agents"]] == [5, 5]  # solo: alternate games
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)


def test_arena_rejects_illegal_actions() -> None:
    class AlwaysZero:
        name = "zero"

        def act(self, game, state, rng):
            return np.zeros(state.done.shape[0], dtype=np.int64)

    with pytest.raises(RuntimeError, match="zero"):
        play_games(make(GAME, num_players=2), [AlwaysZero(), RandomAgent()], 8, seed=0)


def test_make_agent() -> None:
    assert isinstance(make_agent("random", GAME), RandomAgent)
    assert isinstance(make_agent("heuristic", GAME), Heuristic)
    with pytest.raises(ValueError, match="known specs"):
        make_agent("alphago", GAME)
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("random", "chess")
    with pytest.raises(ValueError, match="unknown heuristic parameter"):
        Heuristic(aggression=1.0)
