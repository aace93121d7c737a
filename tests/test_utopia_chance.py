"""Utopia's chance outcomes (`envs/utopia/chance.py`): worked deals and guest draws with probabilities
computed by hand, every listed outcome replayed through the rules with uniforms that produce it, exact
outcome counts, and sampled steps in every test configuration."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core
from meeple.envs.base import CHANCE_LIMIT, TooManyOutcomes
from meeple.envs.utopia import Utopia, chance
from meeple.envs.utopia import data as D

from test_utopia import CODE, FIRE, MAY, PER, position

DEALT = "cards dealt — "
PASSES = chance.SKIPPED + "; "


def sample(game, state, action: int, n: int, seed: int = 0) -> Counter:
    """The chance outcomes of n sampled steps of `action` from the one-row `state`."""
    batch = core.concatenate([state] * n)
    after = game.step(batch, np.full(n, action), np.random.default_rng(seed))
    return Counter(game.chance_outcome(core.take(batch, r), action, core.take(after, r)) for r in range(n))


def replay_every_outcome(game, state, action: int, outcomes, guests=None) -> None:
    """Each listed deal, played with uniforms that deal exactly those cards (in ranking order, the pile
    first, then the reshuffled discards), is read back as the same description."""
    ctx = chance.deal_context(game, state, action, guests)
    a, b = ctx.sizes()
    for x, _ in chance.deal_outcomes(ctx):
        rest = ctx.pile.copy()
        cards = []
        for k, seat in enumerate(ctx.order):
            from_pile = x[seat] if b[k] == 0 else rest.copy()  # a player reaching the reshuffle takes the rest
            rest -= from_pile
            for part in (from_pile, x[seat] - from_pile):
                cards += [c for c in range(5) for _ in range(int(part[c]))]
        u = chance._uniforms(game.num_players, guests, cards, ctx.pile, ctx.discard)
        after = game.apply(state, np.array([action]), u)
        text = game.chance_outcome(state, action, after)
        assert text.endswith(chance.deal_text(x)), (text, x)
        assert text in dict(outcomes)


def reshuffle_deal():
    """2 players, last pick of round 1; the draw pile holds 5 MAY and 4 PER, the discards MAY 5, PER 6 and
    10 of the other three. player_0 (ahead on the stamp) draws 5 of the 9; player_1 the other 4, then the
    pile is empty and the discards (41 cards) become the pile for his fifth card."""
    display = np.zeros((4, 5), dtype=np.int8)
    display[FIRE, MAY] = 1
    game, state = position(P=2, auto_forced=True, phase=0, decision=D.DEC_PICK, to_play=1, acted=[True, True],
                           pick_pass=2, display=display, discard=[5, 6, 10, 10, 10])
    return game, state, D.ACTION_PLACE + D.NUM_DISTRICTS * MAY + CODE["FIR-1"]


def deal(p0: list[int], p1: list[int]) -> str:
    names = [" ".join(D.CIV_NAMES[c] for c in sorted(cards)) for cards in (p0, p1)]
    return f"{DEALT}player_0: {names[0]}; player_1: {names[1]}"


def test_a_deal_with_a_reshuffle_has_its_hand_computed_probabilities():
    game, state, action = reshuffle_deal()
    assert state.pile[0].tolist() == [5, 4, 0, 0, 0]
    outcomes = dict(game.chance_outcomes(state, action))
    assert len(outcomes) == 25  # player_0's MAY count 1..5, times player_1's card from the discards
    GRE, CHI = 3, 4
    # player_0 draws k MAY of the 5 and 5-k PER of the 4: C(5,k) C(4,5-k) / C(9,5), C(9,5) = 126
    for k, ways in ((1, 5), (2, 40), (3, 60), (4, 20), (5, 1)):
        for extra, share in ((MAY, 5), (PER, 6), (GRE, 10), (CHI, 10)):
            text = deal([MAY] * k + [PER] * (5 - k), [MAY] * (5 - k) + [PER] * (k - 1) + [extra])
            assert outcomes[text] == pytest.approx(ways / 126 * share / 41, rel=1e-12)
    assert sum(outcomes.values()) == pytest.approx(1, abs=1e-12)
    # 5 MAY is a hand of one civilization: the leader's two rank discards are forced within the step, and
    # the outcome still names the five cards dealt
    five = deal([MAY] * 5, [PER] * 4 + [CHI])
    u = chance._uniforms(2, None, [MAY] * 5 + [PER] * 4 + [CHI], state.pile[0], [6, 6, 10, 10, 10])
    after = game.apply(state, np.array([action]), u)
    assert after.hand[0].tolist() == [[3, 0, 0, 0, 0], [0, 4, 0, 0, 1]] and after.discard[0, MAY] == 2
    assert game.chance_outcome(state, action, after) == five
    replay_every_outcome(game, state, action, outcomes.items())


def test_sampled_deals_follow_the_listed_probabilities():
    game, state, action = reshuffle_deal()
    outcomes = dict(game.chance_outcomes(state, action))
    n = 3000
    seen = sample(game, state, action, n)
    assert set(seen) <= set(outcomes)
    for text, p in outcomes.items():
        assert abs(seen[text] / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 2 / n, (text, p, seen[text])
    # player_0's MAY count, 1..5, is hypergeometric
    for k, ways in ((1, 5), (2, 40), (3, 60), (4, 20), (5, 1)):
        prefix = f"{DEALT}player_0: " + " ".join(["MAY"] * k + ["PER"] * (5 - k)) + ";"
        frequency = sum(count for text, count in seen.items() if text.startswith(prefix)) / n
        assert abs(frequency - ways / 126) <= 5 * math.sqrt(ways / 126 * (1 - ways / 126) / n), (k, frequency)


def test_a_move_without_chance():
    """A pick of the second pass with guests left: the third pass follows, nothing is drawn."""
    display = np.zeros((4, 5), dtype=np.int8)
    display[FIRE, MAY] = display[FIRE, PER] = 2
    game, state = position(P=2, auto_forced=True, phase=0, decision=D.DEC_PICK, to_play=1, acted=[True, True],
                           pick_pass=1, display=display)
    action = D.ACTION_PLACE + D.NUM_DISTRICTS * MAY + CODE["FIR-1"]
    assert game.chance_outcomes(state, action) == []
    assert set(sample(game, state, action, 50)) == {None}


def round_end(P: int = 2, princes=None, wonders=(-1, -1, -1, -1), discard=(0, 0, 0, 0, 0), **fields):
    """player_1's last turn of the round, holding one MAY card; its END (or a RAISE of MAY and the forced
    END) ends the round."""
    hands = np.zeros((P, 5), dtype=np.int8)
    hands[1, MAY] = 1
    return position(P=P, auto_forced=True, phase=1, decision=D.DEC_TURN, to_play=1, acted=[True] * P, hands=hands,
                    wonder_owner=list(wonders), discard=list(discard),
                    **({} if princes is None else {"princes": princes}), **fields)


def test_the_guest_draw_has_28665_displays_with_two_players():
    game, state = round_end()
    with pytest.raises(TooManyOutcomes) as error:
        game.chance_outcomes(state, D.ACTION_END)
    assert error.value.count == 28665  # (1 + t + t^2)^15 at t^6: 6 guests of 15 kinds, 2 of each
    outcomes = dict(game.chance_outcomes(state, D.ACTION_END, limit=30_000))
    assert len(outcomes) == 28665 and sum(outcomes.values()) == pytest.approx(1, abs=1e-9)
    draws = math.comb(30, 6)
    assert outcomes["guests drawn — Fire: MAY MAY PER PER EGY EGY; Earth: -; Wind: -"] == pytest.approx(1 / draws)
    assert outcomes["guests drawn — Fire: MAY PER; Earth: EGY GRE; Wind: CHI CHI"] == pytest.approx(16 / draws)
    # sampled draws are listed, and e.g. "some Fire MAY" comes up at 1 - C(28,6)/C(30,6)
    n = 2000
    seen = sample(game, state, D.ACTION_END, n)
    assert set(seen) <= set(outcomes)
    p = 1 - math.comb(28, 6) / draws
    assert sum(q for text, q in outcomes.items() if text.startswith("guests drawn — Fire: MAY")) == pytest.approx(p)
    frequency = sum(count for text, count in seen.items() if text.startswith("guests drawn — Fire: MAY")) / n
    assert abs(frequency - p) <= 5 * math.sqrt(p * (1 - p) / n)


def crowded(P: int, civs) -> np.ndarray:
    """Every prince of `civs` on the board, one per district and civilization (nobody can build a
    monument)."""
    districts = np.flatnonzero(D.DISTRICT_IN_PLAY[P])
    princes = np.zeros((P, 5, D.NUM_DISTRICTS), dtype=np.int8)
    for p in range(P):
        for c in civs:
            for j in range(D.PRINCES_PER_CIV):
                princes[p, c, districts[(3 * c + j + p) % len(districts)]] += 1
    return princes


def test_a_round_whose_guests_nobody_can_take_deals_in_the_same_step():
    """Every prince on the board and every wonder built: no guest can be taken, nobody can build, so the
    new round's Phase 1 passes and the deal follows. player_1 pays his last card (MAY) to raise MAY, his
    END is forced: the discards the deal reshuffles hold that card."""
    game, state = round_end(princes=crowded(2, range(5)), wonders=(0, 1, 0, -1), discard=(4, 6, 10, 10, 10))
    action = D.ACTION_RAISE + MAY
    outcomes = dict(game.chance_outcomes(state, action))
    assert len(outcomes) == 25 and all(text.startswith(PASSES) for text in outcomes)
    GRE = 3
    # player_0 leads (12 points of wonders to 6) and draws 5 of the pile's 5 MAY and 4 PER; player_1 gets the
    # other 4 and one card of the 41 discards, MAY 5 of them with the card he just paid
    for k, ways in ((1, 5), (3, 60), (5, 1)):
        for extra, share in ((MAY, 5), (PER, 6), (GRE, 10)):
            text = PASSES + deal([MAY] * k + [PER] * (5 - k), [MAY] * (5 - k) + [PER] * (k - 1) + [extra])
            assert outcomes[text] == pytest.approx(ways / 126 * share / 41, rel=1e-12)
    seen = sample(game, state, action, 400)
    assert set(seen) <= set(outcomes)
    replay_every_outcome(game, state, action, outcomes.items(), guests=chance._skipping_display(2, list(range(5))))


def test_when_only_some_displays_pass_phase_1():
    """MAY and PER out of every supply, nobody can build: a draw of MAY and PER guests only (C(12,6) of the
    C(30,6) draws) passes Phase 1 and deals; every other display is an outcome of its own."""
    game, state = round_end(princes=crowded(2, (MAY, PER)), wonders=(0, 1, 0, -1))
    deals = chance.deal_count(chance.deal_context(game, state, D.ACTION_END, chance._skipping_display(2, [MAY, PER])))
    with pytest.raises(TooManyOutcomes) as error:
        game.chance_outcomes(state, D.ACTION_END)
    passing = 141  # displays of 6 guests over the 6 kinds of MAY and PER: (1 + t + t^2)^6 at t^6
    assert error.value.count == 28665 - passing + deals
    outcomes = dict(game.chance_outcomes(state, D.ACTION_END, limit=error.value.count))
    assert len(outcomes) == error.value.count and sum(outcomes.values()) == pytest.approx(1, abs=1e-9)
    through = sum(p for text, p in outcomes.items() if text.startswith(PASSES))
    assert through == pytest.approx(math.comb(12, 6) / math.comb(30, 6))
    assert "guests drawn — Fire: MAY MAY PER PER EGY EGY; Earth: -; Wind: -" in outcomes
    assert "guests drawn — Fire: MAY MAY PER PER; Earth: MAY PER; Wind: -" not in outcomes


def test_outcome_counts_are_exact():
    """The count TooManyOutcomes reports is the length of the list a large enough limit gives."""
    game = Utopia(num_players=2)
    rng = np.random.default_rng(5)
    state = game.init(rng, 1)
    while state.phase[0] == 0:  # round 1: the full pile, 126^2 deals of 5 cards each
        mask = game.legal_action_mask(state)
        for a in np.flatnonzero(mask[0]):
            try:
                game.chance_outcomes(state, int(a))
            except TooManyOutcomes as error:
                assert error.count == 126 ** 2
                outcomes = game.chance_outcomes(state, int(a), limit=error.count)
                assert len(outcomes) == error.count and sum(p for _, p in outcomes) == pytest.approx(1)
                return
        state = game.step(state, sample_masked(mask, rng), rng)
    pytest.fail("no deal met")


def test_counting_matches_listing():
    ctx = chance.Deal((1, 0, 2), np.zeros((3, 5), dtype=np.int64), np.array([3, 0, 4, 2, 3]), np.array([2, 5, 0, 1, 0]))
    assert ctx.sizes() == ([5, 5, 2], [0, 0, 3])
    outcomes = chance.deal_outcomes(ctx)
    assert chance.deal_count(ctx) == len(outcomes) == len({chance.deal_text(x) for x, _ in outcomes})
    assert sum(p for _, p in outcomes) == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("config", [*GAMES["utopia"].test_configs, {"num_players": 3, "auto_forced": False}],
                         ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_sampled_steps_are_listed_in_every_configuration(config):
    """A random game: at every step with chance (and a few others) the move played and two other legal
    moves. A move lists no outcome exactly when its sampled steps give None; a listed distribution sums to
    1 and holds every sampled outcome; a move over the limit gives an outcome every time. Deals, guest
    draws and moves without chance are all met."""
    game = Utopia(**config)
    rng = np.random.default_rng(config["num_players"])
    kinds = Counter()
    state = game.init(rng, 1)
    while not state.done[0]:
        mask = game.legal_action_mask(state)
        played = sample_masked(mask, rng)
        after = game.step(state, played, rng)
        if state.phase[0] != after.phase[0] or state.round[0] != after.round[0] or rng.random() < 0.03:
            others = rng.choice(np.flatnonzero(mask[0]), size=min(2, int(mask[0].sum())), replace=False)
            for a in {int(played[0]), *map(int, others)}:
                try:
                    outcomes = dict(game.chance_outcomes(state, a))
                except TooManyOutcomes as error:
                    assert error.count > CHANCE_LIMIT
                    outcomes = None
                seen = sample(game, state, a, 24, seed=int(rng.integers(1 << 30)))
                if outcomes == {}:
                    assert set(seen) == {None}
                    kinds["none"] += 1
                    continue
                assert None not in seen
                if outcomes is not None:
                    assert sum(outcomes.values()) == pytest.approx(1, abs=1e-9) and set(seen) <= set(outcomes)
                for text in seen:
                    assert text.startswith((DEALT, PASSES, "guests drawn — ")), text
                    kinds["guests" if text.startswith("guests") else "deal"] += 1
        state = after
    assert kinds["deal"] and kinds["guests"] and kinds["none"], kinds
