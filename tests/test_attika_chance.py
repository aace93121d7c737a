"""Attika's chance outcomes (envs/attika/chance.py): worked examples with the probabilities computed by hand
(the cards drawn from a small known draw pile, the discard pile replacing it, a reveal from the main stack
and from stacks 1-3, the map tile, a group's card when the amphora supply is empty, forced END_TURNs of the
next players in the same step), and, over random play in every test configuration, every sampled step is
exactly the position listed for its outcome.

Positions are built by `position` of tests/test_attika.py (its docstring has the map); the examples use
`auto_forced=False` where the step should stop after the action, and the default where the forced
decisions that follow belong to it.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from math import comb, factorial

import numpy as np
import pytest
from helpers import case_id
from test_attika import (
    AMPHORA, BLUE, END, FORTRESS, MILL, QUARRY, RED, STORE, T05, TEMPLE, TOWER, at, cards, flat_build, pay, play,
    position, reveal, select,
)

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core, make
from meeple.envs.attika import data as D
from meeple.envs.attika.chance import outcome_positions
from meeple.envs.base import TooManyOutcomes

LANDSCAPES = "WFHM"


def drew(p: int, counts) -> str:
    """'player_0 draws W1 H2': the description of p's cards drawn in a step."""
    return f"player_{p} draws " + " ".join(f"{LANDSCAPES[k]}{n}" for k, n in enumerate(counts) if n)


def hypergeometric(pile, n: int) -> dict[tuple, Fraction]:
    """Every multiset of n cards drawn without replacement from a pile of counts W F H M, with its
    probability (the multivariate hypergeometric distribution)."""
    total = comb(sum(pile), n)
    out = {}
    for drawn in product(*(range(c + 1) for c in pile)):
        if sum(drawn) == n:
            out[drawn] = Fraction(np.prod([comb(c, d) for c, d in zip(pile, drawn)]), total)
    return out


def outcomes(game, state, action) -> dict[str, float]:
    listed = game.chance_outcomes(state, action)
    probs = [p for _, p in listed]
    assert probs == sorted(probs, reverse=True) and all(p > 0 for p in probs)
    assert len({d for d, _ in listed}) == len(listed)
    return dict(listed)


def assert_distribution(got: dict[str, float], expected: dict[str, Fraction]) -> None:
    assert set(got) == set(expected), (sorted(got), sorted(expected))
    for description, p in expected.items():
        assert got[description] == pytest.approx(float(p), abs=1e-12), description
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)


def sampled(game, state, action, n: int = 300, seed: int = 0) -> Counter:
    """What chance_outcome names in n sampled steps (each also the position listed for that outcome)."""
    batch = core.concatenate([state] * n)
    after = game.step(batch, np.full(n, action), np.random.default_rng(seed))
    listed = outcome_positions(game, state, action)
    seen = Counter()
    for r in range(n):
        description = game.chance_outcome(batch, action, after, r)
        seen[description] += 1
        if description is not None:
            assert core.states_equal(core.take(after, [r]), listed[description][1]), description
    return seen


def assert_frequencies(seen: Counter, expected: dict[str, Fraction]) -> None:
    n = sum(seen.values())
    assert set(seen) <= set(expected), set(seen) - set(expected)
    for description, p in expected.items():
        p = float(p)
        assert abs(seen[description] / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 2 / n, (description, p, seen)


# --- landscape cards --------------------------------------------------------------------------------------

@pytest.mark.parametrize("auto_forced", [False, True])
def test_passing_draws_three_cards_from_a_small_pile(auto_forced):
    """Blue holds every card but W2 F1 H1: passing draws 3 of those 4 cards, a hypergeometric draw:
    W1 F1 H1 with 2 * 1 * 1 / C(4, 3) = 1/2, W2 F1 and W2 H1 with 1/4 each. (Blue then has reveals left,
    so with auto_forced the step ends at Blue's turn all the same.)"""
    game, s = position(hands={BLUE: cards(13, 14, 14, 15)}, auto_forced=auto_forced)
    assert tuple(s.draw_pile[0]) == (2, 1, 1, 0)
    expected = {drew(RED, (1, 1, 1, 0)): Fraction(1, 2), drew(RED, (2, 1, 0, 0)): Fraction(1, 4),
                drew(RED, (2, 0, 1, 0)): Fraction(1, 4)}
    assert expected == {drew(RED, k): p for k, p in hypergeometric((2, 1, 1, 0), 3).items() if p}
    assert_distribution(outcomes(game, s, END), expected)
    assert_frequencies(sampled(game, s, END), expected)


def test_the_discard_pile_replaces_the_draw_pile_between_two_cards():
    """One card (W) in the draw pile, W3 F3 H2 M2 discarded: passing draws the W, then 2 of the 10 cards of
    the shuffled discard pile: each pair {a, b} with C(3,2)/C(10,2) = 3/45 for WW and FF, 1/45 for HH and
    MM, 9/45 for WF, 6/45 for WH, WM, FH, FM, 4/45 for HM; the W drawn first is added to every one. With
    the draw pile already empty (it ran out before those cards were paid) all 3 come from the discards."""
    game, s = position(hands={BLUE: cards(11, 12, 13, 13)}, discard=cards(3, 3, 2, 2))
    assert tuple(s.draw_pile[0]) == (1, 0, 0, 0)
    expected = {drew(RED, (1 + k[0],) + k[1:]): p for k, p in hypergeometric((3, 3, 2, 2), 2).items()}
    assert len(expected) == 10 and expected[drew(RED, (2, 1, 0, 0))] == Fraction(9, 45)
    assert expected[drew(RED, (3, 0, 0, 0))] == Fraction(3, 45) and expected[drew(RED, (1, 0, 1, 1))] == Fraction(4, 45)
    assert_distribution(outcomes(game, s, END), expected)
    assert_frequencies(sampled(game, s, END, n=400), expected)

    # an empty draw pile with cards discarded since it ran out: the discard pile is shuffled first
    game, s = position(hands={BLUE: cards(12, 12, 13, 13)}, discard=cards(3, 3, 2, 2))
    assert s.draw_pile[0].sum() == 0
    expected = {drew(RED, k): p for k, p in hypergeometric((3, 3, 2, 2), 3).items() if p}
    assert len(expected) == 18 and expected[drew(RED, (1, 1, 1, 0))] == Fraction(3 * 3 * 2, 120)
    assert_distribution(outcomes(game, s, END), expected)


@pytest.mark.parametrize("auto_forced", [False, True])
def test_a_card_bought_with_an_amphora(auto_forced):
    """AMPHORA_CARD draws one card of W2 F1 H1: W with 1/2, F and H with 1/4. With auto_forced Red, holding
    no amphora any more, can only end the turn: that END_TURN (3 cards, no reveal or build this turn) is
    part of the step and takes the rest of the pile, so the step has one certain outcome."""
    game, s = position(hands={BLUE: cards(13, 14, 14, 15)}, amphorae={RED: 1}, auto_forced=auto_forced)
    if auto_forced:
        expected = {drew(RED, (2, 1, 1, 0)): Fraction(1)}
    else:
        expected = {drew(RED, (1, 0, 0, 0)): Fraction(1, 2), drew(RED, (0, 1, 0, 0)): Fraction(1, 4),
                    drew(RED, (0, 0, 1, 0)): Fraction(1, 4)}
    assert_distribution(outcomes(game, s, AMPHORA), expected)
    assert_frequencies(sampled(game, s, AMPHORA, n=200), expected)


def _defence_completed(**options):
    """Red can complete the defence group with its second Tower next to the first, every amphora held by
    Blue (as rules example 18 in tests/test_attika.py): on (1,0), not next to the Fortress, the Tower costs
    F1 M2 of Red's F1 H1 M2, and the group's reward is a card."""
    game, s = position(buildings=[(RED, QUARRY, (0, -2)), (RED, FORTRESS, (0, -1)), (RED, TOWER, (0, 0))],
                       display={RED: {TOWER: 1, TEMPLE: 1}}, hands={RED: cards(f=1, h=1, m=2)}, amphorae={BLUE: 15},
                       decision=D.DEC_BUILD_MODE, mode=D.MODE_BUILD, actions_left=1, **options)
    return game, s


@pytest.mark.parametrize("auto_forced", [False, True])
def test_a_completed_group_draws_a_card_when_the_supply_is_empty(auto_forced):
    """The card is one of the 56 in the draw pile (W15 F14 H14 M13): W with 15/56, F and H 14/56, M 13/56.
    The cards paid (F1 M2) are not a draw: the outcome counts from the hand after the payment. With
    auto_forced Red's forced END_TURN (no build left, nothing drawn) hands the turn to Blue in the same step."""
    game, s = _defence_completed(auto_forced=auto_forced)
    s = play(game, s, select(TOWER))
    expected = {drew(RED, tuple(int(k == j) for k in range(4))): Fraction(n, 56) for j, n in enumerate((15, 14, 14, 13))}
    assert_distribution(outcomes(game, s, at(1, 0)), expected)
    seen = sampled(game, s, at(1, 0), n=300)
    assert_frequencies(seen, expected)
    after = game.apply(s, np.array([at(1, 0)]), np.array([[0.5]]))
    assert after.rewarded[0, RED, D.G_DEFENCE] and tuple(after.discard[0]) == (0, 1, 0, 2) and sum(after.hand[0, RED]) == 2
    assert int(after.to_play[0]) == (BLUE if auto_forced else RED)


def test_explicit_payment_draws_the_group_card_with_the_last_card_paid():
    """With explicit payment the build completes, and the group's card is drawn, with the last PAY; the
    payments before it are certain."""
    game, s = _defence_completed(payment="explicit")
    s = play(game, s, select(TOWER), at(1, 0))
    assert s.decision[0] == D.DEC_PAY
    s2 = play(game, s, pay(1), pay(3))
    assert game.chance_outcomes(s, pay(1)) == [] and sampled(game, s, pay(1), n=20) == Counter({None: 20})
    expected = {drew(RED, tuple(int(k == j) for k in range(4))): Fraction(n, 56) for j, n in enumerate((15, 14, 14, 13))}
    assert_distribution(outcomes(game, s2, pay(3)), expected)
    assert_frequencies(sampled(game, s2, pay(3), n=300), expected)


def test_flat_actions_draw_the_group_card_in_the_one_build_action():
    game, s = _defence_completed(actions="flat")
    a = flat_build(TOWER, 1, 0)
    expected = {drew(RED, tuple(int(k == j) for k in range(4))): Fraction(n, 56) for j, n in enumerate((15, 14, 14, 13))}
    assert_distribution(outcomes(game, s, a), expected)
    assert_frequencies(sampled(game, s, a, n=300), expected)
    end = D.FLAT_TAIL + D.ACTION_END_TURN - D.ACTION_REVEAL
    assert set(outcomes(game, s, end)) == {drew(RED, (1, 0, 0, 0)), drew(RED, (0, 1, 0, 0)), drew(RED, (0, 0, 1, 0)),
                                           drew(RED, (0, 0, 0, 1))}  # one unused build: one card


# --- forced END_TURNs of the next players -------------------------------------------------------------------

def _stuck(seats):
    """A display of every building (so no stack left) and no card: such a seat can only end its turn."""
    full = {t: int(D.COPIES[t]) for t in range(D.NUM_TYPES)}
    return {p: full for p in seats}


def test_a_stuck_next_player_draws_in_the_same_step():
    """Blue can do nothing but pass, so Red's END_TURN runs Blue's END_TURN too: Red draws 3 of the 6 cards
    W2 F2 H1 M1 and Blue the other 3. Each of the C(6,3) = 20 draws of Red is one outcome, e.g. Red W1 F1 H1
    and Blue W1 F1 M1 with 2 * 2 * 1 / 20 = 1/5."""
    game, s = position(display=_stuck([BLUE]), hands={RED: cards(13, 13, 14, 14)}, auto_forced=True)
    pile = (2, 2, 1, 1)
    assert tuple(s.draw_pile[0]) == pile
    expected = {f"{drew(RED, k)}; {drew(BLUE, tuple(c - d for c, d in zip(pile, k)))}": p
                for k, p in hypergeometric(pile, 3).items() if p}
    assert expected[f"{drew(RED, (1, 1, 1, 0))}; {drew(BLUE, (1, 1, 0, 1))}"] == Fraction(1, 5)
    assert_distribution(outcomes(game, s, END), expected)
    assert_frequencies(sampled(game, s, END, n=400), expected)
    after = game.apply(s, np.array([END]), np.array([[0.25]]))
    assert int(after.to_play[0]) == RED and after.hand[0].sum() == 6 + s.hand[0].sum()


def test_three_players_two_of_them_stuck():
    """Three players, seats 1 and 2 stuck: Red's END_TURN deals the 9 cards W3 F2 H2 M2 in three hands of 3
    (Red first, then seat 1, then seat 2). An outcome is the three multisets; its probability is the number
    of orders of the 9 cards giving it over 9! / (3! 3! 3!) orders of the three hands: the multinomial
    coefficients of each type over the 1680 ways."""
    game, s = position(P=3, display=_stuck([1, 2]), hands={RED: cards(12, 13, 13, 13)}, auto_forced=True)
    pile = (3, 2, 2, 2)
    assert tuple(s.draw_pile[0]) == pile
    ways = factorial(9) // factorial(3) ** 3
    expected = {}
    for first in product(*(range(c + 1) for c in pile)):
        for second in product(*(range(c + 1) for c in pile)):
            third = tuple(c - a - b for c, a, b in zip(pile, first, second))
            if sum(first) != 3 or sum(second) != 3 or min(third) < 0:
                continue
            n = np.prod([factorial(c) // (factorial(a) * factorial(b) * factorial(d))
                         for c, a, b, d in zip(pile, first, second, third)])
            expected[f"{drew(0, first)}; {drew(1, second)}; {drew(2, third)}"] = Fraction(int(n), ways)
    assert sum(expected.values()) == 1
    assert_distribution(outcomes(game, s, END), expected)
    with pytest.raises(TooManyOutcomes, match=f"{len(expected):,} chance outcomes"):
        game.chance_outcomes(s, END, limit=len(expected) - 1)
    assert len(game.chance_outcomes(s, END, limit=len(expected))) == len(expected)


def test_a_walk_too_long_to_count_stops_with_the_positions_met(monkeypatch):
    """Counting stops once the walk has met max(20 * limit, _CAP_MIN) card positions (a guard for forced
    turns that go round the table again and again); the error says so. Lowered here to reach it cheaply."""
    from meeple.envs.attika import chance

    monkeypatch.setattr(chance, "_CAP_MIN", 10)
    game, s = position(display=_stuck([BLUE]), auto_forced=True)  # 20 draws of Red, then 20 of Blue each
    with pytest.raises(TooManyOutcomes, match="counting stopped"):
        game.chance_outcomes(s, END, limit=1)
    assert len(game.chance_outcomes(s, END)) == 20 * 20


# --- buildings and tiles ------------------------------------------------------------------------------------

@pytest.mark.parametrize("auto_forced", [False, True])
def test_a_reveal_is_uniform_over_the_unrevealed_buildings_weighted_by_copies(auto_forced):
    """The main stack holds the 6 main buildings: 1/6 each. Stacks 1-3 hold the other 24 together, so any of
    them reveals a Road with 4/24, a Tower or a Ship with 2/24, every other type with 1/24; with the 2 Towers
    and 3 Roads on the display, a Road comes up with 1/19 and a Tower never. With auto_forced the building,
    which Red cannot pay for, is stored in the same step; the outcome is the same."""
    game, s = position(auto_forced=auto_forced)
    main = {f"player_0 reveals {D.BUILDING_NAMES[t]}": Fraction(1, 6) for t in np.flatnonzero(D.IS_MAIN)}
    assert_distribution(outcomes(game, s, reveal(0)), main)
    assert_frequencies(sampled(game, s, reveal(0), n=240), main)
    others = {f"player_0 reveals {D.BUILDING_NAMES[t]}": Fraction(int(D.COPIES[t]), 24) for t in np.flatnonzero(~D.IS_MAIN)}
    for stack in (1, 2, 3):
        assert_distribution(outcomes(game, s, reveal(stack)), others)
    game, s = position(display={RED: {TOWER: 2, D.ROAD: 3}}, auto_forced=auto_forced)
    got = outcomes(game, s, reveal(3))
    assert got["player_0 reveals Road"] == pytest.approx(1 / 19) and "player_0 reveals Tower" not in got
    assert got["player_0 reveals Ship"] == pytest.approx(2 / 19) and len(got) == 18
    if auto_forced:
        after = game.apply(s, np.array([reveal(3)]), np.array([[0.3]]))
        assert after.decision[0] == D.DEC_REVEAL_MODE  # stored at once
        assert game.chance_outcome(s, reveal(3), after) in got


def _last_mill(auto_forced, tile_stack):
    others = {t: int(D.COPIES[t]) for t in range(D.NUM_TYPES) if not D.IS_MAIN[t] and t != MILL}
    return position(display={RED: others}, stacks={RED: (6, 0, 1, 0)}, tile_stack=tile_stack, auto_forced=auto_forced)


def test_the_map_tile_is_uniform_over_the_tile_stack():
    """Red's last non-main building is the Mill in stack 2 (rules example 19): revealing it is certain (one
    outcome); storing it empties the stack and turns up a tile, each of the 3 left with 1/3. With
    auto_forced the Mill, which Red cannot pay for, is stored in the same step as the reveal."""
    tiles = [T05, 7, 12]
    names = ["T05 (H.F.F..)", "T08 (...HM.W)", "T13 (H.WF..W)"]
    game, s = _last_mill(False, tiles)
    assert outcomes(game, s, reveal(2)) == {"player_0 reveals Mill": 1.0}
    s = play(game, s, reveal(2))
    expected = {f"map tile {name} drawn": Fraction(1, 3) for name in names}
    assert_distribution(outcomes(game, s, STORE), expected)
    assert_frequencies(sampled(game, s, STORE, n=240), expected)

    game, s = _last_mill(True, tiles)
    expected = {f"player_0 reveals Mill; map tile {name} drawn": Fraction(1, 3) for name in names}
    assert_distribution(outcomes(game, s, reveal(2)), expected)
    assert_frequencies(sampled(game, s, reveal(2), n=240), expected)

    game, s = _last_mill(True, [])  # no tile left: the reveal alone
    assert outcomes(game, s, reveal(2)) == {"player_0 reveals Mill": 1.0}


# --- moves without chance, and the input ----------------------------------------------------------------------

def test_moves_without_chance_list_nothing_and_name_nothing():
    game, s = _defence_completed()
    for action in (select(TOWER), select(TEMPLE)):
        assert game.chance_outcomes(s, action) == []
        assert outcome_positions(game, s, action) == {}
        assert sampled(game, s, action, n=20) == Counter({None: 20})
    game, s = position(buildings=[(RED, QUARRY, (0, -2))], display={RED: {FORTRESS: 1}})
    s = play(game, s, select(FORTRESS))
    assert game.chance_outcomes(s, at(0, -1)) == []  # free next to the Quarry, nothing completed
    game, s = position(mode=D.MODE_BUILD, decision=D.DEC_BUILD_MODE, actions_left=0, amphorae={RED: 1})
    assert game.chance_outcomes(s, END) == []  # every build used: END_TURN draws nothing


def test_an_after_that_does_not_follow_is_refused():
    game, s = position(hands={BLUE: cards(13, 14, 14, 15)})
    with pytest.raises(ValueError, match="does not follow"):
        game.chance_outcome(s, END, s)
    with pytest.raises(ValueError, match="not legal"):
        outcome_positions(game, s, STORE)


# --- random play in every test configuration ----------------------------------------------------------------

CONFIGS = [pytest.param(config, id=case_id("attika", config)) for config in GAMES["attika"].test_configs]


@pytest.mark.parametrize("config", CONFIGS)
def test_every_sampled_step_is_the_position_listed_for_its_outcome(config):
    """Over random positions and moves: chance_outcomes and outcome_positions agree, the probabilities sum to
    1, and each sampled step ends in exactly the position listed for the outcome chance_outcome names (None
    and the one certain position for a move without chance)."""
    game = make("attika", **config)
    rng = np.random.default_rng(sum(map(ord, case_id("attika", config))))
    counts = Counter()
    for _ in range(2):
        state = game.init(rng, 1)
        trail = []
        while not state.done[0] and len(trail) < 600:
            trail.append(state)
            state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
        for k in sorted(rng.choice(len(trail), size=min(12, len(trail)), replace=False)):
            state = trail[int(k)]
            legal = np.flatnonzero(game.legal_action_mask(state)[0])
            for action in rng.choice(legal, size=min(3, len(legal)), replace=False):
                action = int(action)
                listed = outcome_positions(game, state, action)
                assert dict(game.chance_outcomes(state, action)) == pytest.approx({d: p for d, (p, _) in listed.items()})
                if listed:
                    assert sum(p for p, _ in listed.values()) == pytest.approx(1.0, abs=1e-12)
                n = 30
                batch = core.concatenate([state] * n)
                after = game.step(batch, np.full(n, action), rng)
                certain = game.apply(state, np.array([action]), np.array([[0.5]]))
                for r in range(n):
                    description = game.chance_outcome(batch, action, after, r)
                    row = core.take(after, [r])
                    if listed:
                        assert core.states_equal(row, listed[description][1]), (game.action_names[action], description)
                    else:
                        assert description is None and core.states_equal(row, certain), game.action_names[action]
                counts["chance" if listed else "none"] += 1
    assert counts["chance"] >= 5 and counts["none"] >= 5, counts
