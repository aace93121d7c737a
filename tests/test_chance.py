"""chance_outcomes: every game lists the chance outcomes of a move with the probabilities of its rules, and
what a sampled step does is one of them, about as often as listed (`RulesBase.chance_outcomes`, each game's
`envs/<game>/chance.py`)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core, make
from meeple.envs.base import TooManyOutcomes

SAMPLES = 400  # steps sampled per (position, move)
NAMES = sorted(GAMES)


def positions(game, rng: np.random.Generator, count: int, games: int = 4):
    """`count` one-row positions spread over `games` random games (every position is a live decision)."""
    out = []
    per_game = max(1, count // games)
    for _ in range(games):
        state = game.init(rng, 1)
        trail = []
        while not bool(state.done[0]) and len(trail) < 2000:
            trail.append(state)
            state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
        picks = rng.choice(len(trail), size=min(per_game, len(trail)), replace=False)
        out += [trail[int(k)] for k in sorted(picks)]
    return out


def check_outcomes(outcomes: list[tuple[str, float]]) -> None:
    names = [d for d, _ in outcomes]
    probs = np.array([p for _, p in outcomes])
    assert len(set(names)) == len(names) and all(isinstance(d, str) and d for d in names), names
    assert np.all(probs > 0) and abs(probs.sum() - 1.0) < 1e-9, probs.sum()
    assert np.all(np.diff(probs) <= 1e-15), "most likely first"


@pytest.mark.parametrize("name", NAMES)
def test_sampled_steps_follow_the_listed_outcomes(name):
    """Over random positions, every legal move is classified (no chance, listed chance, or too many outcomes to
    list) and up to two of each kind are sampled: each listed distribution is a distribution (distinct
    outcomes, positive probabilities summing to 1); every sampled step's outcome is listed, and None exactly
    for a move without chance; each outcome's sampled frequency is within five standard errors of its
    probability; a move with too many outcomes to list names its outcome all the same."""
    game = make(name, **dict(GAMES[name].test_configs[0]))
    rng = np.random.default_rng(sum(map(ord, name)))
    sampled = Counter()
    for state in positions(game, rng, 40):
        kinds: dict[str, list] = {"none": [], "listed": [], "too many": []}
        for action in np.flatnonzero(game.legal_action_mask(state)[0]):
            try:
                outcomes = game.chance_outcomes(state, int(action))
            except TooManyOutcomes:
                kinds["too many"].append((int(action), None))
                continue
            kinds["listed" if outcomes else "none"].append((int(action), outcomes))
        for kind, moves in kinds.items():
            for k in rng.permutation(len(moves))[:2]:
                action, outcomes = moves[int(k)]
                sampled[kind] += 1
                batch = core.concatenate([state] * SAMPLES)
                after = game.step(batch, np.full(SAMPLES, action), rng)
                seen = Counter(game.chance_outcome(batch, action, after, r) for r in range(SAMPLES))
                move = game.action_to_str(state, action)
                if kind == "none":
                    assert set(seen) == {None}, (move, seen.most_common(3))
                    continue
                assert None not in seen, (move, seen[None])
                if kind == "too many":
                    continue
                check_outcomes(outcomes)
                listed = dict(outcomes)
                assert set(seen) <= set(listed), (move, set(seen) - set(listed), list(listed)[:5])
                for description, p in listed.items():
                    frequency = seen[description] / SAMPLES
                    assert abs(frequency - p) <= 5 * math.sqrt(p * (1 - p) / SAMPLES) + 2 / SAMPLES, \
                        (move, description, p, frequency)
    # the sample met moves of both kinds (a game may have no chance small enough to list: Hadara's only chance
    # in a step is the deal of an epoch's stacks)
    assert sampled["listed"] + sampled["too many"] >= 1 and sampled["none"] >= 5, sampled


@pytest.mark.parametrize("name", NAMES)
def test_chance_outcomes_check_their_input_and_change_nothing(name):
    game = make(name, **dict(GAMES[name].test_configs[0]))
    rng = np.random.default_rng(3)
    state = positions(game, rng, 1, games=1)[0]
    copy = core.clone(state)
    mask = game.legal_action_mask(state)[0]
    legal, illegal = int(np.flatnonzero(mask)[0]), np.flatnonzero(~mask)
    game.chance_outcomes(state, legal)
    assert core.states_equal(state, copy)
    if illegal.size:
        with pytest.raises(ValueError, match="not legal"):
            game.chance_outcomes(state, int(illegal[0]))
    for bad in (-1, game.num_actions, 1.5, True):
        with pytest.raises(ValueError):
            game.chance_outcomes(state, bad)
    with pytest.raises(ValueError, match="row"):
        game.chance_outcomes(state, legal, row=1)
    done = core.clone(state)
    done.done[0] = True
    assert game.chance_outcomes(done, legal) == []


def test_the_aec_env_lists_the_chance_of_a_move():
    from meeple.envs import make_env

    env = make_env("roll_through_the_ages", num_players=2)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    for action in np.flatnonzero(mask):
        assert env.chance_outcomes(int(action)) == env.game.chance_outcomes(env.game_state, int(action))
