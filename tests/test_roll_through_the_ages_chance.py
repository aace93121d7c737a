"""Roll Through the Ages: the chance outcomes of a move (`chance_outcomes` / `chance_outcome`,
envs/roll_through_the_ages/chance.py) worked out by hand on built positions, checked against the kernels
for every face, and sampled in every test configuration.

Dice are forced as in tests/test_roll_through_the_ages.py: `apply` draws die k of a step from u[:, k],
face int(6 * u).
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core, make
from meeple.envs.base import TooManyOutcomes
from meeple.envs.roll_through_the_ages import chance
from meeple.envs.roll_through_the_ages.data import (
    ACTION_LEADERSHIP_REROLL, ACTION_MARK_REROLL, ACTION_PASS, ACTION_ROLL, COINS7, DEC_LEADERSHIP, DEC_ROLL,
    FOOD3, GOOD1, LEADERSHIP, MAX_DICE, NO_DIE, SKULL, UNIFORMS_PER_STEP, WORKERS3,
)

GAME = "roll_through_the_ages"


def forced(faces, width: int = UNIFORMS_PER_STEP) -> np.ndarray:
    """(1, width) uniforms: the k-th die drawn in the step shows faces[k], later ones a good."""
    u = np.full((1, width), (GOOD1 + 0.5) / 6)
    u[0, :len(faces)] = (np.asarray(faces) + 0.5) / 6
    return u


def built(game, dice, *, start: int = 0, rolls_used: int = 1, food=None, city_workers=None, devs=None,
          final_round: bool = False):
    """Seat 0 to decide in round 1 with `dice` showing after `rolls_used` rolls; `start` is the start
    player; the per-seat dicts override the setup (3 food, 3 cities, nothing else)."""
    u = np.full((1, UNIFORMS_PER_STEP), (FOOD3 + 0.5) / 6)
    u[0, 0] = (start + 0.5) / game.num_players
    s = core.clone(game.init_from_uniforms(u))
    s.active[0] = s.to_play[0] = 0
    s.final_round[0] = final_round
    for p, v in (food or {}).items():
        s.food[0, p] = v
    for p, v in (city_workers or {}).items():
        s.city_workers[0, p] = v
    for p, owned in (devs or {}).items():
        s.developments[0, p, list(owned)] = True
    s.dice[0] = list(dice) + [NO_DIE] * (MAX_DICE - len(dice))
    s.rolls_used[0] = rolls_used
    game.validate(s)
    return game.advance(s)  # (rolls_used 3: the automatic phases up to the first decision)


def multinomial(*counts: int) -> Fraction:
    return Fraction(math.factorial(sum(counts)) // math.prod(math.factorial(c) for c in counts), 6 ** sum(counts))


@pytest.fixture
def two():
    return make(GAME, num_players=2)


def test_a_roll_of_three_dice_lists_the_56_multisets_with_their_multinomial_probabilities(two):
    state = built(two, [FOOD3, GOOD1, COINS7])
    for i in range(3):
        state = two.step(state, np.array([ACTION_MARK_REROLL + i]), np.random.default_rng(0))
    outcomes = dict(two.chance_outcomes(state, ACTION_ROLL))
    assert len(outcomes) == math.comb(6 + 3 - 1, 3) == 56
    assert sum(outcomes.values()) == pytest.approx(1.0, abs=1e-12)
    # all three dice the same: 6 faces x (1/6)^3; three different faces: 3! / 216 each; a pair: 3 / 216
    same = [outcomes[f"rolled 3 dice: 3 x {word}"] for word in chance.FACE_WORDS]
    assert same == [pytest.approx(1 / 216)] * 6 and sum(same) == pytest.approx(6 / 216)
    assert outcomes["rolled 3 dice: 1 x good, 1 x skull, 1 x workers"] == pytest.approx(float(multinomial(1, 1, 1)))
    assert outcomes["rolled 3 dice: 2 x food, 1 x workers"] == pytest.approx(3 / 216)
    # the step that rolls those faces (in any order) is named the same
    for faces in ([FOOD3, WORKERS3, FOOD3], [WORKERS3, FOOD3, FOOD3]):
        after = two.apply(state, np.array([ACTION_ROLL]), forced(faces))
        assert two.chance_outcome(state, ACTION_ROLL, after) == "rolled 3 dice: 2 x food, 1 x workers"
    # the rules never reroll a kept die: two marked dice of three are a roll of two
    state = built(two, [FOOD3, GOOD1, COINS7])
    for i in (0, 2):
        state = two.step(state, np.array([ACTION_MARK_REROLL + i]), np.random.default_rng(0))
    outcomes = dict(two.chance_outcomes(state, ACTION_ROLL))
    assert len(outcomes) == 21 and outcomes["rolled 2 dice: 1 x food, 1 x coins"] == pytest.approx(2 / 36)


def test_moves_without_dice_list_nothing_and_their_steps_name_none(two):
    state = built(two, [FOOD3, GOOD1, COINS7])
    rng = np.random.default_rng(1)
    for action in (ACTION_MARK_REROLL, ACTION_MARK_REROLL + 2):
        assert two.chance_outcomes(state, action) == []
        batch = core.concatenate([state] * 20)
        after = two.step(batch, np.full(20, action), rng)
        assert {two.chance_outcome(batch, action, after, r) for r in range(20)} == {None}


def test_a_leadership_reroll_is_one_die_of_six_faces(two):
    state = built(two, [WORKERS3, WORKERS3, FOOD3], rolls_used=3, devs={0: [LEADERSHIP]})
    assert state.decision[0] == DEC_LEADERSHIP
    outcomes = two.chance_outcomes(state, ACTION_LEADERSHIP_REROLL + 2)
    # two workers dice keep the turn going whatever the third die shows (a building decision follows)
    assert sorted(outcomes) == sorted((f"Leadership rerolled 1 die: 1 x {w}", pytest.approx(1 / 6)) for w in chance.FACE_WORDS)
    after = two.apply(state, np.array([ACTION_LEADERSHIP_REROLL + 2]), forced([SKULL]))
    assert two.chance_outcome(state, ACTION_LEADERSHIP_REROLL + 2, after) == "Leadership rerolled 1 die: 1 x skull"


def test_a_last_roll_that_ends_the_turn_is_named_by_its_effect_and_faces_with_one_effect_share_it(two):
    """The last roll of die 2 with food 15: a food die is lost to the cap, 7 coins buy nothing, so both end
    the turn with the same sheets (food 15 -> 12 after feeding). A good or a skull ends it with other
    sheets; workers or food/workers leave a decision in the turn. After an end, seat 1 rolls its 3 dice."""
    state = built(two, [FOOD3, FOOD3, GOOD1], rolls_used=2, food={0: 15})
    state = two.step(state, np.array([ACTION_MARK_REROLL + 2]), np.random.default_rng(0))
    outcomes = dict(two.chance_outcomes(state, ACTION_ROLL))
    assert len(outcomes) == 2 + 3 * 56
    assert outcomes["rolled 1 die: 1 x workers"] == outcomes["rolled 1 die: 1 x food/workers"] == pytest.approx(1 / 6)
    ended, food = "rolled 1 die, ending the turn; player_1 rolled 3 dice: ", "; net changes: player_0 food -3"
    assert outcomes[ended + "3 x food" + food] == pytest.approx(2 / 6 / 216)
    assert outcomes[ended + "1 x good, 1 x skull, 1 x coins" + food] == pytest.approx(2 / 6 * 6 / 216)
    skull = "; net changes: player_0 food -3, wood +1, stone +1"
    assert outcomes[ended + "2 x good, 1 x food" + skull] == pytest.approx(1 / 6 * 3 / 216)
    # three skulls of seat 1 resolve at once (its goods and feeding, pestilence for seat 0): net changes too
    pestilence = ("; net changes: player_0 food -3, disasters +3 / player_1 food -3, wood +2, stone +1, pottery +1, "
                  "cloth +1, spearheads +1")
    assert outcomes[ended + "3 x skull" + pestilence] == pytest.approx(2 / 6 / 216)
    assert sum(p for d, p in outcomes.items() if d.endswith(food) or d.endswith(pestilence)) == pytest.approx(2 / 6)
    for face in (FOOD3, COINS7):
        after = two.apply(state, np.array([ACTION_ROLL]), forced([face, FOOD3, FOOD3, FOOD3]))
        assert two.chance_outcome(state, ACTION_ROLL, after) == ended + "3 x food" + food


def test_a_last_roll_that_ends_the_game(two):
    """As above, in the final round with seat 0 the last to play: an end of the turn is the end of the game."""
    state = built(two, [FOOD3, FOOD3, GOOD1], start=1, rolls_used=2, food={0: 15}, final_round=True)
    state = two.step(state, np.array([ACTION_MARK_REROLL + 2]), np.random.default_rng(0))
    ended = "rolled 1 die, ending the turn; game over; net changes: player_0 food -3"
    assert dict(two.chance_outcomes(state, ACTION_ROLL)) == pytest.approx({
        ended: 2 / 6, ended + ", wood +1": 1 / 6, ended + ", wood +1, stone +1": 1 / 6,
        "rolled 1 die: 1 x workers": 1 / 6, "rolled 1 die: 1 x food/workers": 1 / 6})
    after = two.apply(state, np.array([ACTION_ROLL]), forced([COINS7]))
    assert after.done[0] and two.chance_outcome(state, ACTION_ROLL, after) == ended


def test_a_first_roll_of_only_skulls_can_pass_a_whole_turn_inside_the_step(two):
    """Seat 1 has 5 cities and nothing else: 5 skulls are a revolt that takes the 10 goods they give, and
    with no coins, goods or workers its turn has no decision, so seat 0 rolls its next turn in the same step."""
    state = built(two, [FOOD3, FOOD3, GOOD1], city_workers={1: 7})
    outcomes = dict(two.chance_outcomes(state, ACTION_PASS))
    assert len(outcomes) == (math.comb(10, 5) - 1) + 56
    assert outcomes["player_1 rolled 5 dice: 4 x food, 1 x skull"] == pytest.approx(5 / 6 ** 5)
    chain = "player_1 rolled 5 dice: 5 x skull, a turn without a decision; player_0 rolled 3 dice: "
    assert outcomes[chain + "3 x workers"] == pytest.approx(1 / 6 ** 5 / 216)
    assert sum(p for d, p in outcomes.items() if d.startswith(chain)) == pytest.approx(1 / 6 ** 5)
    after = two.apply(state, np.array([ACTION_PASS]), forced([SKULL] * 5 + [WORKERS3] * 3))
    assert (int(after.round[0]), int(after.active[0]), int(after.decision[0])) == (2, 0, DEC_ROLL)
    assert two.chance_outcome(state, ACTION_PASS, after) == chain + "3 x workers"


def test_more_outcomes_than_the_limit_raise(two):
    state = built(two, [FOOD3, GOOD1, COINS7])
    for i in range(3):
        state = two.step(state, np.array([ACTION_MARK_REROLL + i]), np.random.default_rng(0))
    with pytest.raises(TooManyOutcomes, match="56 chance outcomes") as error:
        two.chance_outcomes(state, ACTION_ROLL, limit=55)
    assert error.value.count == 56
    assert len(two.chance_outcomes(state, ACTION_ROLL, limit=56)) == 56
    # a last roll that may end the turn (170 outcomes, above): the count is known to be above the limit once
    # the next first roll is reached, a lower bound from the rolls it will list
    state = built(two, [FOOD3, FOOD3, GOOD1], rolls_used=2, food={0: 15})
    state = two.step(state, np.array([ACTION_MARK_REROLL + 2]), np.random.default_rng(0))
    with pytest.raises(TooManyOutcomes, match="at least") as error:
        two.chance_outcomes(state, ACTION_ROLL, limit=100)
    assert 100 < error.value.count <= 170
    assert len(two.chance_outcomes(state, ACTION_ROLL, limit=170)) == 170


def canonical(state, r: int) -> bytes:
    """A position up to the order of its dice (the rules treat dice alike): every field, the dice sorted."""
    return b"".join(np.ascontiguousarray(np.sort(f[r]) if name == "dice" else f[r]).tobytes()
                    for name, f in zip(state._fields, state))


def test_descriptions_name_positions_one_to_one():
    """Over random positions and moves: every own roll and every next first roll through the kernels, one
    row per pair of multisets. Rows with one description reach one position (up to the order of the dice)
    and rows reaching one position have one description; the summed probabilities are those listed."""
    game = make(GAME, num_players=2)
    rng = np.random.default_rng(5)
    state, checked = game.init(rng, 1), 0
    while not state.done[0] and checked < 40:
        for action in np.flatnonzero(game.legal_action_mask(state)[0]):
            action = int(action)
            own, _ = chance.own_dice(state, action)
            if not own.size and rng.random() < 0.8:
                continue
            first = chance.multisets(own.size) if own.size else [((), Fraction(1))]
            afters = chance.run(game, state, action, [faces for faces, _ in first])
            rows = []
            for r, (faces, p) in enumerate(first):
                after = core.take(afters, [r])
                if chance.turns_started(game, state, after) and not after.done[0]:
                    n = int((after.dice[0] >= 0).sum())
                    rows += [(faces + more, p * q) for more, q in chance.multisets(n)]
                else:
                    rows.append((faces, p))
            afters = chance.run(game, state, action, [faces for faces, _ in rows])
            named, reached, total = {}, {}, Counter()
            for r, (_, p) in enumerate(rows):
                name = game.chance_outcome(state, action, core.take(afters, [r]))
                key = canonical(afters, r)
                assert named.setdefault(name, key) == key, name
                assert reached.setdefault(key, name) == name, (name, reached[key])
                total[name] += p
            listed = dict(game.chance_outcomes(state, action))
            assert (listed == {}) if set(total) == {None} else (set(listed) == set(total))
            for name, p in listed.items():
                assert p == pytest.approx(float(total[name]), abs=1e-15)
            checked += 1
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    assert checked >= 40


@pytest.mark.parametrize("config", GAMES[GAME].test_configs, ids=str)
def test_sampled_steps_follow_the_listed_outcomes_in_every_configuration(config):
    """As tests/test_chance.py (which runs the first configuration) on fewer positions of every test
    configuration: rerolls of a random choice of dice, the last roll, and random moves (a turn's end and
    the next first roll among them). Each listed distribution sums to 1, every sampled step's outcome is
    listed, and each frequency is within 5 standard errors of its probability."""
    game = make(GAME, **config)
    rng = np.random.default_rng(11)
    samples, with_dice, without = 300, 0, 0
    state = game.init(rng, 1)
    trail = []
    while not state.done[0]:
        trail.append(state)
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    rolling = [k for k, s in enumerate(trail) if s.decision[0] == DEC_ROLL and s.rolls_used[0] < 3]
    picks = [*rng.choice(rolling, size=min(3, len(rolling)), replace=False), *rng.choice(len(trail), size=3)]
    for k in picks:
        state = trail[int(k)]
        legal = np.flatnonzero(game.legal_action_mask(state)[0])
        moves = [(state, int(rng.choice(legal)))]
        marks = [int(a) for a in legal if a < ACTION_ROLL]
        if state.decision[0] == DEC_ROLL and marks:  # mark some dice, then roll them
            for a in rng.choice(marks, size=int(rng.integers(1, len(marks) + 1)), replace=False):
                state = game.step(state, np.array([a]), rng)
            moves.append((state, ACTION_ROLL))
        for state, action in moves:
            outcomes = dict(game.chance_outcomes(state, action))
            batch = core.concatenate([state] * samples)
            after = game.step(batch, np.full(samples, action), rng)
            seen = Counter(game.chance_outcome(batch, action, after, r) for r in range(samples))
            if not outcomes:
                without += 1
                assert set(seen) == {None}
                continue
            with_dice += 1
            assert sum(outcomes.values()) == pytest.approx(1.0, abs=1e-12)
            assert set(seen) <= set(outcomes), set(seen) - set(outcomes)
            for name, p in outcomes.items():
                assert abs(seen[name] / samples - p) <= 5 * math.sqrt(p * (1 - p) / samples) + 2 / samples, (name, p)
    assert with_dice >= 3 and without >= 1, (with_dice, without)
