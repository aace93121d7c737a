"""Roll Through the Ages: the rules' worked examples 1-9 and rule edge cases, through the public API.

The rules are summarised in docs/roll_through_the_ages.md. Dice are forced
through the uniforms handed to `init_from_uniforms` / `apply` / `advance`: a die shows int(6 * u), and
every `apply` call draws its dice from column 0 on (the first roll at `init` from column 1).
Positions the examples start from are built by editing a fresh state (`position`) and running
`advance`, which resolves the automatic phases exactly as a real turn would.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pytest

from meeple.envs import make
from meeple.envs.roll_through_the_ages.data import (
    ACTION_ACCEPT, ACTION_BUILD_CITY, ACTION_BUILD_MONUMENT, ACTION_BUY_DEV, ACTION_DECLINE,
    ACTION_DISCARD, ACTION_ENGINEERING, ACTION_FW_FOOD, ACTION_FW_WORKERS, ACTION_LEADERSHIP_REROLL,
    ACTION_MARK_REROLL, ACTION_OFFER_GIVE, ACTION_OFFER_TAKE, ACTION_PASS, ACTION_PAY_FOOD,
    ACTION_PAY_GOOD, ACTION_PROPOSE, ACTION_ROLL, ACTION_TRADE_WITH, AGRICULTURE, ARCHITECTURE,
    CARAVANS, CITY_THRESHOLDS, CLOTH, COINAGE, COINS7, DEVELOPMENT_NAMES, EMPIRE, ENGINEERING, FOOD3,
    FW2, GOOD1, GRANARIES, GREAT_WALL, IRRIGATION, LEADERSHIP, MASONRY, MAX_DICE, MEDICINE,
    MONUMENT_FIRST, MONUMENT_NAMES, MONUMENT_WORKERS, NO_DIE, DEC_BUILD, DEC_BUY,
    DEC_CHOOSE_FW, DEC_DISCARD, DEC_GAME_OVER, DEC_LEADERSHIP, DEC_ROLL, DEC_TRADE,
    DEC_TRADE_OFFER, DEC_TRADE_RESPOND, POTTERY, QUARRYING, RELIGION, SKULL, SPEARHEADS, STONE,
    TRADE_FOOD, UNIFORMS_PER_STEP, WOOD, WORKERS3,
)

GAME = "roll_through_the_ages"
STEP_PYRAMID, STONE_CIRCLE, TEMPLE, OBELISK, HANGING_GARDENS, GREAT_PYRAMID = 0, 1, 2, 3, 4, 6


# --- helpers --------------------------------------------------------------------------------

def forced(faces: Iterable[int] = (), fill: int = FOOD3) -> np.ndarray:
    """(1, K) uniforms for `apply`/`advance`: the k-th die drawn in the call shows faces[k], later ones `fill`."""
    u = np.full((1, UNIFORMS_PER_STEP), (fill + 0.5) / 6)
    for k, face in enumerate(faces):
        u[0, k] = (face + 0.5) / 6
    return u


def forced_init(faces: Iterable[int], start: int = 0, num_players: int = 2) -> np.ndarray:
    """(1, K) uniforms for `init_from_uniforms`: u[0, 0] picks `start`, then the first roll shows `faces`."""
    u = np.empty((1, UNIFORMS_PER_STEP))
    u[0, 0] = (start + 0.5) / num_players
    u[0, 1:] = forced(faces)[0, :-1]
    return u


def cities(state, p: int) -> int:
    """Cities: 3 + the city thresholds {3, 7, 12, 18} reached by city_workers."""
    return 3 + int((state.city_workers[0, p] >= CITY_THRESHOLDS).sum())


def legal(game, state) -> set[int]:
    return set(np.flatnonzero(game.legal_action_mask(state)[0]).tolist())


def act(game, state, *actions: int, dice: Iterable[int] = ()):
    """Apply `actions` in order, each checked legal first; every step draws its dice from `dice`."""
    u = forced(dice)
    for a in actions:
        assert game.legal_action_mask(state)[0, a], f"{game.action_names[a]} is not legal here"
        state = game.apply(state, np.array([a]), u)
        game.validate(state)
    return state


def position(game, dice: list[int], *, active: int = 0, start: int = 0, rolls_used: int = 3,
             food: Mapping[int, int] | None = None, goods: Mapping[int, list[int]] | None = None,
             city_workers: Mapping[int, int] | None = None,
             monuments: Mapping[int, Mapping[int, int]] | None = None,
             points: Mapping[int, Mapping[int, int]] | None = None,
             devs: Mapping[int, Iterable[int]] | None = None, disasters: Mapping[int, int] | None = None,
             final_round: bool = False, next_dice: Iterable[int] = ()):
    """A hand-built position: seat `active` has rolled `dice` (rolls_used of 3) and the automatic
    phases run from there (`advance`). Per-seat dicts override the setup values.

    A monument set to its full size is recorded with the "first" value unless `points` says otherwise,
    and marked completed_by_anyone. `next_dice` are the faces drawn if a turn ends inside `advance`.
    """
    P = game.num_players
    s = game.init_from_uniforms(forced_init([FOOD3] * 3, start, P))
    s = s._replace(**{name: np.copy(value) for name, value in s._asdict().items()})
    for p, v in (food or {}).items():
        s.food[0, p] = v
    for p, v in (goods or {}).items():
        s.goods[0, p] = v
    for p, v in (city_workers or {}).items():
        s.city_workers[0, p] = v
    for p, per_monument in (monuments or {}).items():
        for m, v in per_monument.items():
            s.monument_progress[0, p, m] = v
            if v == MONUMENT_WORKERS[m]:
                s.monument_points[0, p, m] = MONUMENT_FIRST[m]
                s.completed_by_anyone[0, m] = True
    for p, per_monument in (points or {}).items():
        for m, v in per_monument.items():
            s.monument_points[0, p, m] = v
    for p, owned in (devs or {}).items():
        for d in owned:
            s.developments[0, p, d] = True
    for p, v in (disasters or {}).items():
        s.disasters[0, p] = v
    assert len(dice) == cities(s, active), "one die per city"
    s.dice[0] = list(dice) + [NO_DIE] * (MAX_DICE - len(dice))
    s.marked[0] = False
    s.fw_choice[0] = 0
    s.rolls_used[0] = rolls_used
    s.decision[0] = DEC_ROLL
    s.active[0] = active
    s.to_play[0] = active
    s.final_round[0] = final_round
    game.validate(s)
    s = game.advance(s, forced(next_dice))
    game.validate(s)
    return s


def sheet(game, state, p: int) -> str:
    """One player's score sheet as a line of text, e.g.
    'food 2 | goods 0/0/0/0/0 (0) | cities 4 [3] | Obelisk 9/9 (3) | no developments | disasters 0 | score 3'.
    """
    goods = state.goods[0, p]
    monuments = [
        f"{MONUMENT_NAMES[m]} {state.monument_progress[0, p, m]}/{MONUMENT_WORKERS[m]}"
        + (f" ({state.monument_points[0, p, m]})" if state.monument_progress[0, p, m] == MONUMENT_WORKERS[m] else "")
        for m in range(7) if state.monument_progress[0, p, m] > 0
    ]
    devs = [DEVELOPMENT_NAMES[d] for d in range(13) if state.developments[0, p, d]]
    return " | ".join([
        f"food {state.food[0, p]}",
        "goods " + "/".join(str(int(n)) for n in goods) + f" ({game.goods_values(state)[0, p]})",
        f"cities {cities(state, p)} [{state.city_workers[0, p]}]",
        ", ".join(monuments) or "no monuments",
        ", ".join(devs) or "no developments",
        f"disasters {state.disasters[0, p]}",
        f"score {game.scores(state)[0, p]}",
    ])


def faces(state) -> list[int]:
    """The active player's dice, without the empty slots."""
    return [int(f) for f in state.dice[0] if f != NO_DIE]


def passive_play(game, state, u_fn, max_steps: int = 10_000):
    """Play on with PASS where legal, else the first legal action; return (final state, steps)."""
    steps = 0
    while not state.done[0]:
        mask = game.legal_action_mask(state)[0]
        a = ACTION_PASS if mask[ACTION_PASS] else int(np.flatnonzero(mask)[0])
        state = game.apply(state, np.array([a]), u_fn())
        steps += 1
        assert steps < max_steps
    return state, steps


@pytest.fixture
def two() -> object:
    return make(GAME, num_players=2)


@pytest.fixture
def three() -> object:
    return make(GAME, num_players=3)


@pytest.fixture
def solo() -> object:
    return make(GAME, num_players=1)


# --- worked examples of the rules ----------------------------------------------------------

def _play_ex1(game):
    """Rules example 1's moves; returns the state after every step for the checks."""
    s0 = game.init_from_uniforms(forced_init([FOOD3, WORKERS3, COINS7]))
    s1 = act(game, s0, ACTION_MARK_REROLL + 1, ACTION_MARK_REROLL + 2)
    s2 = act(game, s1, ACTION_ROLL, dice=[SKULL, GOOD1])  # marked dice reroll in index order
    s3 = act(game, s2, ACTION_MARK_REROLL + 0, ACTION_ROLL, dice=[WORKERS3])
    return s0, s1, s2, s3


def test_rtta_ex_1_rolling_skull_lock_and_rerolling_a_kept_die(two):
    """Rules example 1: a skull is locked, a die kept earlier may be rerolled, 3 rolls end the phase."""
    s0, s1, s2, s3 = _play_ex1(two)
    assert (s0.active[0], s0.decision[0], s0.rolls_used[0]) == (0, DEC_ROLL, 1)  # first roll is automatic
    assert faces(s0) == [FOOD3, WORKERS3, COINS7]
    assert faces(s2) == [FOOD3, SKULL, GOOD1] and s2.rolls_used[0] == 2
    mask = legal(two, s2)
    assert ACTION_MARK_REROLL + 1 not in mask  # skull lock
    assert ACTION_MARK_REROLL + 0 in mask  # the die kept for food may be rerolled
    assert ACTION_ROLL not in mask  # nothing marked yet: a reroll needs at least one die
    # three rolls used: the roll phase ended without PASS; no FW2 die, so CHOOSE_FW was skipped too
    assert s3.rolls_used[0] == 3
    assert faces(s3) == [WORKERS3, SKULL, GOOD1]
    assert s3.decision[0] == DEC_BUILD and s3.active[0] == 0
    assert (s3.fw_choice[0] == 0).all()
    assert s3.disasters[0].tolist() == [0, 0]  # one skull: no disaster


def test_rtta_ex_2_goods_collection_order(two):
    """Rules example 2: G = 3 goes wood, stone, pottery; food 3 + 0 - 3 = 0; 3 workers."""
    *_, s = _play_ex1(two)
    assert s.goods[0, 0].tolist() == [1, 1, 1, 0, 0]
    assert two.goods_values(s)[0, 0] == 1 + 2 + 3
    assert s.workers[0] == 3
    assert sheet(two, s, 0) == (
        "food 0 | goods 1/1/1/0/0 (6) | cities 3 [0] | no monuments | no developments | disasters 0 | score 0")
    # the same phase 3a from a hand-built position with the final dice
    h = position(two, [WORKERS3, SKULL, GOOD1])
    assert h.goods[0, 0].tolist() == [1, 1, 1, 0, 0] and h.food[0, 0] == 0 and h.workers[0] == 3


def test_rtta_ex_3_food_from_food3_and_fw2(two):
    """Rules example 3: FOOD3 + FW2 as food = 5 food; no workers, so BUILD is skipped."""
    # wood 2 (worth 3) + 7 coins make Leadership affordable, so the turn stops in BUY and can be inspected
    s = position(two, [FOOD3, FW2, COINS7], goods={0: [2, 0, 0, 0, 0]})
    assert s.decision[0] == DEC_CHOOSE_FW
    assert legal(two, s) == {ACTION_FW_FOOD, ACTION_FW_WORKERS}  # no PASS: a choice is required
    s = act(two, s, ACTION_FW_FOOD)
    assert s.food[0, 0] == 3 + 3 + 2 - 3
    assert s.workers[0] == 0 and s.coins[0] == 7
    assert s.decision[0] == DEC_BUY  # BUILD skipped (only PASS would be left)


def test_rtta_ex_4_feeding_and_famine(two):
    """Rules example 4: 3 cities eat 3 of 7 food; 5 cities with 2 food: 3 famine points."""
    # case A: food 4 + one FOOD3 = 7 after 3b
    a = position(two, [FOOD3, GOOD1, WORKERS3], food={0: 4})
    assert a.food[0, 0] == 4 and a.disasters[0, 0] == 0
    # case B: 5 cities (city_workers 7), food 2 after 3b, D = 4 disaster points already
    before = position(two, [GOOD1, GOOD1, COINS7, WORKERS3, WORKERS3], rolls_used=1,
                      city_workers={0: 7}, food={0: 2}, disasters={0: 4})
    assert before.decision[0] == DEC_ROLL and cities(before, 0) == 5
    b = act(two, before, ACTION_PASS)
    assert b.food[0, 0] == 0 and b.disasters[0, 0] == 4 + 3
    assert two.scores(b)[0, 0] == two.scores(before)[0, 0] - 3


@pytest.mark.parametrize("irrigation", [False, True])
def test_rtta_ex_5_drought(two, irrigation):
    """Rules example 5: two skulls: 4 goods, food 3, drought -2 unless Irrigation."""
    s = position(two, [SKULL, SKULL, FOOD3], devs={0: [IRRIGATION] if irrigation else []})
    assert s.goods[0, 0].tolist() == [1, 1, 1, 1, 0]
    assert s.food[0, 0] == 3 + 3 - 3
    if irrigation:
        assert s.disasters[0, 0] == 0 and two.scores(s)[0, 0] == 2  # Irrigation's own 2 points
    else:
        assert s.disasters[0, 0] == 2 and two.scores(s)[0, 0] == -2
    assert s.disasters[0, 1] == 0


def test_rtta_ex_6_later_obelisk_and_a_new_city(two):
    """Rules example 6: finishing a monument another player finished first scores the later
    value (strict time order: only the earliest completer scores first); 3 workers complete the 4th city,
    which rolls and eats from the next turn."""
    s = position(two, [WORKERS3, FW2, FW2], monuments={0: {OBELISK: 7}, 1: {OBELISK: 9}})
    assert s.completed_by_anyone[0, OBELISK] and s.monument_points[0, 1, OBELISK] == 6
    assert s.decision[0] == DEC_CHOOSE_FW
    s = act(two, s, ACTION_FW_FOOD, ACTION_FW_WORKERS)
    assert s.food[0, 0] == 3 + 2 - 3 and s.workers[0] == 3 + 2 and s.decision[0] == DEC_BUILD
    s = act(two, s, ACTION_BUILD_MONUMENT + OBELISK, ACTION_BUILD_MONUMENT + OBELISK)
    assert s.monument_points[0, 0, OBELISK] == 3 and two.scores(s)[0, 0] == 3
    assert ACTION_BUILD_MONUMENT + OBELISK not in legal(two, s)  # a finished structure takes no boxes
    s = act(two, s, ACTION_BUILD_CITY, ACTION_BUILD_CITY)
    assert s.decision[0] == DEC_BUILD and s.active[0] == 0
    # the last worker ends BUILD automatically; nothing to buy or discard, so the opponent's turn starts
    s = act(two, s, ACTION_BUILD_CITY, dice=[FOOD3, FOOD3, FOOD3])
    assert sheet(two, s, 0) == (
        "food 2 | goods 0/0/0/0/0 (0) | cities 4 [3] | Obelisk 9/9 (3) | no developments | disasters 0 | score 3")
    assert s.active[0] == 1 and len(faces(s)) == 3
    # the opponent stops at once; seat 0's next turn rolls 4 dice and feeds 4 cities
    s = act(two, s, ACTION_PASS, dice=[FOOD3, FOOD3, GOOD1, GOOD1])
    assert s.active[0] == 0 and s.round[0] == 2
    assert faces(s) == [FOOD3, FOOD3, GOOD1, GOOD1]
    s = act(two, s, ACTION_PASS)
    assert s.active[0] == 1 and s.food[0, 0] == 2 + 6 - 4


def _ex7_start(game):
    """Rules example 7's position: one COINS7, goods wood 5, stone 3, cloth 1, spearheads 1 (10 units)."""
    return position(game, [COINS7, FOOD3, FOOD3], goods={0: [5, 3, 0, 1, 1]})


def test_rtta_ex_7_buying_with_coins_and_whole_goods_types(two):
    """Rules example 7: coins plus whole goods tracks pay; no change; no partial tracks; surplus is lost."""
    start = _ex7_start(two)
    assert start.decision[0] == DEC_BUY and start.coins[0] == 7
    assert ACTION_PAY_FOOD not in legal(two, start)  # no Granaries
    # legality: spearheads only (12) or cloth only (11) cannot buy Agriculture; stone (19) or wood (22) can
    for track, ok in ((SPEARHEADS, False), (CLOTH, False), (STONE, True), (WOOD, True)):
        marked = act(two, start, ACTION_PAY_GOOD + track)
        assert (ACTION_BUY_DEV + AGRICULTURE in legal(two, marked)) is ok, track
    # the example's purchase: spearheads and cloth, 7 + 5 + 4 = 16 >= 15, the surplus 1 is lost
    s = act(two, start, ACTION_PAY_GOOD + SPEARHEADS, ACTION_PAY_GOOD + CLOTH, ACTION_BUY_DEV + AGRICULTURE)
    assert s.goods[0, 0].tolist() == [5, 3, 0, 0, 0]
    assert s.developments[0, 0, AGRICULTURE] and s.developments[0, 0].sum() == 1
    assert two.scores(s)[0, 0] == 3 and s.coins[0] == 0
    assert s.decision[0] == DEC_DISCARD  # 8 units > 6 (EX-8 continues here)
    # no sequence of BUY actions leaves wood anywhere but 5 (kept) or 0 (spent whole)
    wood_seen, seen, frontier = set(), set(), [start]
    while frontier:
        node = frontier.pop()
        if node.decision[0] != DEC_BUY:
            wood_seen.add(int(node.goods[0, 0, WOOD]))
            continue
        key = tuple(node.marked_goods[0].tolist())
        if key in seen:
            continue
        seen.add(key)
        wood_seen.add(int(node.goods[0, 0, WOOD]))
        frontier += [act(two, node, a) for a in legal(two, node)]
    assert wood_seen == {0, 5}


def test_rtta_ex_7_agriculture_applies_from_the_next_turn(two):
    """Rules example 7: after buying Agriculture each FOOD3 gives 4 food."""
    s = act(two, _ex7_start(two), ACTION_PAY_GOOD + SPEARHEADS, ACTION_PAY_GOOD + CLOTH,
            ACTION_BUY_DEV + AGRICULTURE, ACTION_DISCARD + WOOD, ACTION_DISCARD + WOOD)
    assert s.active[0] == 1 and s.food[0, 0] == 6
    s = act(two, s, ACTION_PASS, dice=[FOOD3, GOOD1, GOOD1])  # opponent stops; seat 0 rolls these
    s = act(two, s, ACTION_PASS)
    assert s.food[0, 0] == 6 + 4 - 3  # 4 food from the FOOD3 die, not 3


@pytest.mark.parametrize("discards, goods", [
    ((WOOD, WOOD), [3, 3, 0, 0, 0]),  # the example's choice
    ((STONE, STONE), [5, 1, 0, 0, 0]),
    ((WOOD, STONE), [4, 2, 0, 0, 0]),
])
def test_rtta_ex_8_discard_down_to_six(two, discards, goods):
    """Rules example 8: 8 units discard to exactly 6; PASS is illegal throughout (no voluntary discards)."""
    s = act(two, _ex7_start(two), ACTION_PAY_GOOD + SPEARHEADS, ACTION_PAY_GOOD + CLOTH,
            ACTION_BUY_DEV + AGRICULTURE)
    assert s.goods[0, 0].tolist() == [5, 3, 0, 0, 0] and s.decision[0] == DEC_DISCARD
    assert legal(two, s) == {ACTION_DISCARD + WOOD, ACTION_DISCARD + STONE}
    s = act(two, s, ACTION_DISCARD + discards[0])
    assert s.decision[0] == DEC_DISCARD and ACTION_PASS not in legal(two, s)
    s = act(two, s, ACTION_DISCARD + discards[1])
    assert s.goods[0, 0].tolist() == goods
    assert s.active[0] == 1 and s.decision[0] == DEC_ROLL  # the turn ended automatically at 6
    if discards == (WOOD, WOOD):
        assert two.goods_values(s)[0, 0] == 12 + 6


def test_rtta_ex_9_trade_variant(three):
    """Rules example 9: A trades 3 wood for 2 of B's stone, then 3 stone for 2 of C's pottery,
    through the offer/accept protocol. Masks forbid giving more than held, taking more than the partner
    holds, exceeding a track maximum, and any trade not involving the active player."""
    game = make(GAME, num_players=3, trade=True)
    A, B, C = 0, 1, 2
    s = position(game, [FOOD3, FOOD3, WORKERS3],
                 goods={A: [4, 1, 0, 0, 0], B: [0, 2, 0, 0, 0], C: [0, 0, 2, 0, 0]})
    # the trade step: after feeding and disasters (3a-3d), before building
    assert s.decision[0] == DEC_TRADE and s.to_play[0] == A
    assert s.food[0, A] == 3 + 6 - 3 and s.workers[0] == 3
    assert legal(game, s) == {ACTION_TRADE_WITH + 0, ACTION_TRADE_WITH + 1, ACTION_PASS}  # B or C, no 3rd seat
    # --- A and B: 3 wood for 2 stone
    s = act(game, s, ACTION_TRADE_WITH + 0)  # one seat after A
    assert s.decision[0] == DEC_TRADE_OFFER and s.trade_partner[0] == B and s.to_play[0] == A
    assert ACTION_PROPOSE not in legal(game, s)  # an offer needs both sides
    s = act(game, s, *[ACTION_OFFER_GIVE + WOOD] * 3, *[ACTION_OFFER_TAKE + STONE] * 2)
    mask = legal(game, s)
    assert ACTION_OFFER_GIVE + WOOD in mask  # A holds 4 wood, 3 offered
    assert ACTION_OFFER_TAKE + STONE not in mask  # B holds only 2 stone
    assert ACTION_OFFER_GIVE + STONE not in mask and ACTION_OFFER_TAKE + WOOD not in mask  # not both sides
    assert ACTION_OFFER_GIVE + POTTERY not in mask  # A holds no pottery
    assert ACTION_OFFER_TAKE + POTTERY not in mask  # B holds no pottery
    s = act(game, s, ACTION_PROPOSE)
    assert s.decision[0] == DEC_TRADE_RESPOND and s.to_play[0] == B  # B decides now
    assert legal(game, s) == {ACTION_ACCEPT, ACTION_DECLINE}
    s = act(game, s, ACTION_ACCEPT)
    assert s.decision[0] == DEC_TRADE and s.to_play[0] == A
    assert s.goods[0, A, :3].tolist() == [1, 3, 0] and s.goods[0, B, :2].tolist() == [3, 0]
    # --- A and C: 3 stone for 2 pottery
    s = act(game, s, ACTION_TRADE_WITH + 1)  # two seats after A
    assert s.trade_partner[0] == C
    s = act(game, s, *[ACTION_OFFER_GIVE + STONE] * 3)
    assert ACTION_OFFER_GIVE + STONE not in legal(game, s)  # nobody gives more than they hold
    s = act(game, s, *[ACTION_OFFER_TAKE + POTTERY] * 2, ACTION_PROPOSE)
    assert s.to_play[0] == C
    s = act(game, s, ACTION_ACCEPT)
    assert s.goods[0, A, :3].tolist() == [1, 0, 2]
    assert s.goods[0, B, :2].tolist() == [3, 0]
    assert s.goods[0, C, 1:3].tolist() == [3, 0]
    # every trade pairs A with one opponent: opening each partner never names a pair without A
    for k in range(2):
        opened = act(game, s, ACTION_TRADE_WITH + k)
        assert opened.active[0] == A and opened.trade_partner[0] == (A + 1 + k) % 3
    # trading ends with PASS and building follows
    s = act(game, s, ACTION_PASS)
    assert s.decision[0] == DEC_BUILD and s.to_play[0] == A and s.workers[0] == 3


# --- trade variant details ----------------------------------------------------------------

def test_trade_track_maximum_and_food():
    """Trade variant: no track may go above its maximum (goods 8/7/6/5/4, food 15); food is tradeable."""
    game = make(GAME, num_players=2, trade=True)
    s = position(game, [FOOD3, FOOD3, WORKERS3], goods={0: [3, 0, 0, 0, 0], 1: [7, 0, 0, 0, 2]}, food={1: 14})
    s = act(game, s, ACTION_TRADE_WITH + 0)
    s = act(game, s, ACTION_OFFER_GIVE + WOOD)
    assert ACTION_OFFER_GIVE + WOOD not in legal(game, s)  # B's wood would pass 8
    s = act(game, s, ACTION_OFFER_GIVE + TRADE_FOOD)  # A has 6 food after feeding, B 14
    assert ACTION_OFFER_GIVE + TRADE_FOOD not in legal(game, s)  # B's food would pass 15
    s = act(game, s, ACTION_OFFER_TAKE + SPEARHEADS, ACTION_OFFER_TAKE + SPEARHEADS, ACTION_PROPOSE)
    s = act(game, s, ACTION_ACCEPT)
    assert s.goods[0, 0].tolist() == [2, 0, 0, 0, 2] and s.goods[0, 1].tolist() == [8, 0, 0, 0, 0]
    assert s.food[0].tolist() == [5, 15]


def test_trade_decline_withdraw_and_offer_limit():
    """Trade protocol: a declined or withdrawn offer moves nothing; after max_trade_offers offers the
    trade step ends by itself."""
    game = make(GAME, num_players=2, trade=True, max_trade_offers=2)
    s = position(game, [FOOD3, FOOD3, WORKERS3], goods={0: [3, 0, 0, 0, 0], 1: [0, 2, 0, 0, 0]})
    before = (s.goods.copy(), s.food.copy())
    s = act(game, s, ACTION_TRADE_WITH + 0, ACTION_OFFER_GIVE + WOOD, ACTION_OFFER_TAKE + STONE, ACTION_PROPOSE)
    s = act(game, s, ACTION_DECLINE)
    assert s.decision[0] == DEC_TRADE and s.to_play[0] == 0 and s.trade_offers[0] == 1
    assert np.array_equal(s.goods, before[0]) and np.array_equal(s.food, before[1])
    s = act(game, s, ACTION_TRADE_WITH + 0, ACTION_OFFER_GIVE + WOOD, ACTION_PASS)  # withdraw: 2nd offer
    assert np.array_equal(s.goods, before[0])
    assert s.decision[0] == DEC_BUILD  # no offers left: the trade step is skipped


def test_trade_step_comes_after_disasters_and_before_build():
    """Goods, feeding and the drought are resolved before trading; workers wait for BUILD."""
    game = make(GAME, num_players=2, trade=True)
    s = position(game, [SKULL, SKULL, WORKERS3], goods={1: [2, 0, 0, 0, 0]})
    assert s.decision[0] == DEC_TRADE
    assert s.goods[0, 0].tolist() == [1, 1, 1, 1, 0] and s.food[0, 0] == 0 and s.disasters[0, 0] == 2
    assert s.workers[0] == 3 and s.monument_progress[0, 0].sum() == 0 and s.city_workers[0, 0] == 0


# --- solo variant -------------------------------------------------------------------------

def test_solo_lasts_ten_rounds_and_returns_the_score(solo):
    """A solo game is exactly 10 turns; `returns` is the final score."""
    rng = np.random.default_rng(7)
    s = solo.init(rng)
    turns = 0
    while not s.done[0]:
        mask = solo.legal_action_mask(s)[0]
        if s.decision[0] == DEC_ROLL:
            assert s.rolls_used[0] == 1 and s.round[0] == turns + 1
            turns += 1
        a = ACTION_PASS if mask[ACTION_PASS] else int(np.flatnonzero(mask)[0])
        s = solo.apply(s, np.array([a]), rng.random((1, UNIFORMS_PER_STEP)))
    assert turns == 10 and s.round[0] == 10
    assert s.decision[0] == DEC_GAME_OVER and not s.truncated[0]
    assert solo.returns(s)[0, 0] == solo.scores(s)[0, 0]


def test_solo_ignores_the_standard_end_triggers(solo):
    """The 5th development does not shorten a solo game (unless the config flag asks for it)."""
    s = position(solo, [COINS7, COINS7, COINS7], devs={0: [IRRIGATION, AGRICULTURE, QUARRYING, CARAVANS]})
    s = act(solo, s, ACTION_BUY_DEV + MEDICINE)
    assert not s.final_round[0] and not s.done[0] and s.round[0] == 2
    flagged = make(GAME, num_players=1, solo_standard_end_triggers=True)
    s = position(flagged, [COINS7, COINS7, COINS7], devs={0: [IRRIGATION, AGRICULTURE, QUARRYING, CARAVANS]})
    s = act(flagged, s, ACTION_BUY_DEV + MEDICINE)
    assert s.done[0] and s.round[0] == 1


def test_solo_skulls_can_be_rerolled(solo, two):
    """The skull lock does not apply in solo play."""
    s = solo.init_from_uniforms(forced_init([SKULL, SKULL, FOOD3], num_players=1))
    assert {ACTION_MARK_REROLL, ACTION_MARK_REROLL + 1} <= legal(solo, s)
    s = act(solo, s, ACTION_MARK_REROLL, ACTION_ROLL, dice=[GOOD1])
    assert faces(s) == [GOOD1, SKULL, FOOD3]
    m = two.init_from_uniforms(forced_init([SKULL, SKULL, FOOD3]))
    assert legal(two, m) == {ACTION_MARK_REROLL + 2, ACTION_PASS}


@pytest.mark.parametrize("medicine", [False, True])
def test_solo_pestilence_hits_the_player_unless_medicine(solo, medicine):
    """Three skulls give the solo player 3 disaster points unless they own Medicine."""
    s = position(solo, [SKULL, SKULL, SKULL], devs={0: [MEDICINE] if medicine else []})
    assert s.disasters[0, 0] == (0 if medicine else 3)


@pytest.mark.parametrize("religion", [False, True])
def test_solo_religion_cancels_revolt(solo, religion):
    """A Revolt costs the solo player all goods unless they own Religion."""
    s = position(solo, [SKULL] * 5, city_workers={0: 7}, food={0: 5}, goods={0: [1, 1, 0, 0, 0]},
                 devs={0: [RELIGION] if religion else []})
    if religion:
        assert s.goods[0, 0].tolist() == [3, 3, 2, 2, 2]  # kept, plus this turn's 10 units
    else:
        assert s.goods[0, 0].tolist() == [0, 0, 0, 0, 0]
    assert s.disasters[0, 0] == 0


def test_solo_always_records_the_first_monument_value(solo):
    """The solo player records the "first" value, even if completed_by_anyone is set."""
    s = position(solo, [WORKERS3, FOOD3, FOOD3], monuments={0: {STEP_PYRAMID: 2, STONE_CIRCLE: 4}})
    s = s._replace(completed_by_anyone=np.array([[False, True, False, False, False, False, False]]))
    s = act(solo, s, ACTION_BUILD_MONUMENT + STEP_PYRAMID, ACTION_BUILD_MONUMENT + STONE_CIRCLE)
    assert s.monument_points[0, 0, :2].tolist() == [1, 2]


# --- disasters ---------------------------------------------------------------------------

def test_pestilence_hits_opponents_without_medicine_only(three):
    """Three skulls cost every opponent without Medicine 3 points; the roller is unaffected."""
    s = position(three, [SKULL, SKULL, SKULL], devs={2: [MEDICINE]})
    assert s.disasters[0].tolist() == [0, 3, 0]


def test_revolt_loses_all_goods_including_this_turns(two):
    """Five skulls wipe the roller's goods, those collected in 3a included; nobody else is hit."""
    s = position(two, [SKULL] * 5, city_workers={0: 7}, food={0: 5},
                 goods={0: [2, 2, 0, 0, 0], 1: [1, 1, 1, 0, 0]})
    assert s.goods[0, 0].tolist() == [0, 0, 0, 0, 0]
    assert s.goods[0, 1].tolist() == [1, 1, 1, 0, 0]
    assert s.disasters[0].tolist() == [0, 0]


def test_revolt_with_religion_wipes_opponents_without_religion(three):
    """The roller with Religion keeps everything; opponents without Religion lose all goods."""
    s = position(three, [SKULL] * 6, city_workers={0: 12}, food={0: 6}, devs={0: [RELIGION], 2: [RELIGION]},
                 goods={0: [1, 0, 0, 0, 0], 1: [3, 2, 1, 0, 0], 2: [1, 1, 1, 1, 1]})
    assert s.goods[0, 0].tolist() == [4, 3, 2, 2, 2]  # kept, plus 12 new units: wood 3, stone 3, the rest 2
    assert s.goods[0, 1].tolist() == [0, 0, 0, 0, 0]
    assert s.goods[0, 2].tolist() == [1, 1, 1, 1, 1]
    assert s.disasters[0].tolist() == [0, 0, 0]


@pytest.mark.parametrize("wall", [False, True])
def test_great_wall_blocks_invasion_and_four_skulls_is_invasion_only(two, wall):
    """4 skulls is an Invasion only (no drought, no pestilence); a completed Great
    Wall makes its owner immune."""
    s = position(two, [SKULL] * 4, city_workers={0: 3}, food={0: 4},
                 monuments={0: {GREAT_WALL: 13 if wall else 12}})
    assert s.disasters[0].tolist() == [0 if wall else 4, 0]


def test_great_wall_completed_this_turn_protects_only_from_the_next_turn(two):
    """Disasters resolve before building, so a Great Wall finished now doesn't stop this Invasion."""
    s = position(two, [SKULL, SKULL, SKULL, SKULL, WORKERS3], city_workers={0: 7}, food={0: 5},
                 monuments={0: {GREAT_WALL: 12}})
    assert s.disasters[0, 0] == 4 and s.decision[0] == DEC_BUILD
    s = act(two, s, ACTION_BUILD_MONUMENT + GREAT_WALL)
    assert s.monument_points[0, 0, GREAT_WALL] == 10


@pytest.mark.parametrize("irrigation", [False, True])
def test_irrigation_blocks_drought(two, irrigation):
    """Irrigation cancels a Drought, and only the Drought (famine still counts)."""
    s = position(two, [SKULL, SKULL, COINS7], food={0: 1}, devs={0: [IRRIGATION] if irrigation else []})
    assert s.disasters[0, 0] == 2 + (0 if irrigation else 2)  # 2 unfed cities, then the drought


def test_only_one_skull_row_applies(three):
    """Three skulls are a Pestilence only (no drought for the roller); six a Revolt only."""
    s = position(three, [SKULL, SKULL, SKULL, FOOD3], city_workers={0: 3})
    assert s.disasters[0].tolist() == [0, 3, 3]
    s = position(three, [SKULL] * 6, city_workers={0: 12}, food={0: 6})
    assert s.disasters[0].tolist() == [0, 0, 0] and s.goods[0, 0].sum() == 0


# --- collection --------------------------------------------------------------------------

@pytest.mark.parametrize("dice, stone_before, stone_after, wood_after", [
    ([GOOD1, GOOD1, FOOD3], 0, 2, 1),  # G = 2 reaches stone: +1 more
    ([SKULL, SKULL, SKULL, GOOD1], 0, 3, 2),  # G = 7 gives stone twice: still one bonus (once per turn)
    ([GOOD1, FOOD3, FOOD3], 0, 0, 1),  # G = 1: wood only, no stone collected
    ([GOOD1, GOOD1, FOOD3], 6, 7, 1),  # the dice fill stone; the bonus is capped at 7
    ([GOOD1, GOOD1, FOOD3], 7, 7, 1),
])
def test_quarrying_adds_one_stone_once_capped(two, dice, stone_before, stone_after, wood_after):
    """Quarrying: +1 stone once per turn when dice give stone, never above 7; the
    wood-first sequence is unchanged."""
    s = position(two, dice, goods={0: [0, stone_before, 0, 0, 0]}, devs={0: [QUARRYING]},
                 city_workers={0: 3 if len(dice) == 4 else 0})
    assert s.goods[0, 0, STONE] == stone_after
    assert s.goods[0, 0, WOOD] == wood_after


def test_goods_for_a_full_track_are_lost(two):
    """A unit for a full track is lost and does not move on; the 6th unit goes to wood again."""
    s = position(two, [GOOD1, GOOD1, GOOD1], goods={0: [8, 0, 0, 0, 0]})
    assert s.goods[0, 0].tolist() == [8, 1, 1, 0, 0]
    s = position(two, [SKULL, SKULL, SKULL], goods={0: [8, 0, 0, 0, 4]})
    assert s.goods[0, 0].tolist() == [8, 1, 1, 1, 4]


def test_food_is_capped_at_15_before_feeding(two):
    """14 + 9 food is capped at 15 at collection, then 3 cities eat: 12, not 15."""
    s = position(two, [FOOD3, FOOD3, FOOD3], food={0: 14}, next_dice=[GOOD1] * 3)
    assert s.active[0] == 1 and s.food[0, 0] == 12


def test_agriculture_and_masonry_apply_to_fw2(two):
    """Agriculture +1 food per food die (FW2 as food 3), Masonry +1 worker (FW2 as workers 3)."""
    s = position(two, [FOOD3, FW2, FW2, WORKERS3], city_workers={0: 3}, food={0: 0},
                 devs={0: [AGRICULTURE, MASONRY]})
    s = act(two, s, ACTION_FW_FOOD, ACTION_FW_WORKERS)
    assert s.food[0, 0] == 4 + 3 - 4
    assert s.workers[0] == 3 + 4


def test_coinage_makes_coins_dice_worth_12(two):
    """Coinage: each COINS7 die is 12 coins."""
    s = position(two, [COINS7, COINS7, FOOD3], devs={0: [COINAGE]})
    assert s.decision[0] == DEC_BUY and s.coins[0] == 24
    s = position(two, [COINS7, COINS7, FOOD3])
    assert s.coins[0] == 14


# --- rolling and Leadership ---------------------------------------------------------------

def test_leadership_is_offered_after_three_rolls_and_may_reroll_a_skull(two):
    """After the final roll Leadership rerolls any one die, skulls included; the result is final."""
    # the COINS7 die keeps the turn in BUY afterwards, so the dice can still be inspected
    s = position(two, [SKULL, SKULL, COINS7], devs={0: [LEADERSHIP]})
    assert s.decision[0] == DEC_LEADERSHIP and s.rolls_used[0] == 3
    assert legal(two, s) == {ACTION_LEADERSHIP_REROLL + i for i in range(3)} | {ACTION_PASS}
    rerolled = act(two, s, ACTION_LEADERSHIP_REROLL + 0, dice=[FOOD3])
    assert rerolled.decision[0] == DEC_BUY and rerolled.leadership_used[0]
    assert faces(rerolled) == [FOOD3, SKULL, COINS7]
    assert rerolled.disasters[0, 0] == 0  # one skull left: no drought
    assert rerolled.food[0, 0] == 3 + 3 - 3 and rerolled.goods[0, 0].tolist() == [1, 1, 0, 0, 0]
    declined = act(two, s, ACTION_PASS)
    assert declined.decision[0] == DEC_BUY and declined.disasters[0, 0] == 2


def test_leadership_after_stopping_early(two):
    """Stopping with PASS before the third roll also leads to the Leadership reroll."""
    s = position(two, [GOOD1, COINS7, FOOD3], rolls_used=1, devs={0: [LEADERSHIP]})
    assert s.decision[0] == DEC_ROLL
    s = act(two, s, ACTION_PASS)
    assert s.decision[0] == DEC_LEADERSHIP and s.rolls_used[0] == 1
    s = act(two, s, ACTION_LEADERSHIP_REROLL + 2, dice=[FW2])
    assert faces(s) == [GOOD1, COINS7, FW2] and s.decision[0] == DEC_CHOOSE_FW  # the new face counts


def test_all_dice_skull_locked_ends_rolling(two):
    """When every die is a skull no reroll is possible, so rolling stops after the first roll."""
    s = two.init_from_uniforms(forced_init([SKULL, SKULL, SKULL]))
    assert s.rolls_used[0] == 1 and s.decision[0] == DEC_BUY  # 6 goods (value 16) buy Leadership
    assert s.disasters[0].tolist() == [0, 3]  # pestilence on the opponent
    led = position(two, [SKULL, SKULL, SKULL], rolls_used=1, devs={0: [LEADERSHIP]})
    assert led.decision[0] == DEC_LEADERSHIP and led.rolls_used[0] == 1  # Leadership is still offered


def test_roll_requires_a_mark_and_pass_drops_marks(two):
    """ROLL needs a marked die; PASS stops rolling and the marked die keeps its face."""
    s = two.init_from_uniforms(forced_init([GOOD1, COINS7, COINS7]))
    assert ACTION_ROLL not in legal(two, s)
    s = act(two, s, ACTION_MARK_REROLL + 1)
    assert ACTION_ROLL in legal(two, s) and ACTION_MARK_REROLL + 1 not in legal(two, s)
    s = act(two, s, ACTION_PASS)
    assert s.decision[0] == DEC_BUY and s.coins[0] == 14  # 14 coins: the turn waits in BUY
    assert faces(s) == [GOOD1, COINS7, COINS7] and not s.marked[0].any()


# --- building ----------------------------------------------------------------------------

def test_engineering_turns_stone_into_three_workers(two):
    """Engineering: one stone at a time becomes 3 workers, in BUILD only, if anything is buildable."""
    s = position(two, [FOOD3, FOOD3, COINS7], goods={0: [0, 2, 0, 0, 0]}, devs={0: [ENGINEERING]})
    assert s.decision[0] == DEC_BUILD and s.workers[0] == 0  # no worker dice, but stone to convert
    assert legal(two, s) == {ACTION_ENGINEERING, ACTION_PASS}
    s = act(two, s, ACTION_ENGINEERING)
    assert s.goods[0, 0, STONE] == 1 and s.workers[0] == 3
    s = act(two, s, ACTION_BUILD_CITY, ACTION_BUILD_CITY, ACTION_BUILD_CITY)
    assert s.decision[0] == DEC_BUILD and s.city_workers[0, 0] == 3  # one stone left to convert
    # nothing left to build: Engineering is masked (a move that cannot help) and BUILD is skipped
    done = {0: {m: int(MONUMENT_WORKERS[m]) for m in (0, 1, 3, 4, 5)}}
    s = position(two, [FOOD3, FOOD3] + [COINS7] * 5, city_workers={0: 18}, goods={0: [0, 2, 0, 0, 0]},
                 food={0: 7}, monuments=done, devs={0: [ENGINEERING]})
    assert s.decision[0] != DEC_BUILD and s.goods[0, 0, STONE] == 2


def test_city_boxes_fill_in_order_and_stop_at_seven(two):
    """Cities fill in order; a 7th city is the last (city_workers 18)."""
    s = position(two, [WORKERS3] * 6, city_workers={0: 12}, food={0: 6})
    assert s.workers[0] == 18
    s = act(two, s, *[ACTION_BUILD_CITY] * 6)
    assert cities(s, 0) == 7 and ACTION_BUILD_CITY not in legal(two, s)


@pytest.mark.parametrize("num_players, absent", [(1, []), (2, [TEMPLE, GREAT_PYRAMID]), (3, [HANGING_GARDENS]),
                                                 (4, [])])
def test_monuments_not_in_play_are_masked(num_players, absent):
    """2 players play without Temple and Great Pyramid, 3 without the Hanging Gardens."""
    game = make(GAME, num_players=num_players)
    s = position(game, [WORKERS3, FOOD3, FOOD3])
    assert s.decision[0] == DEC_BUILD
    mask = legal(game, s)
    for m in range(7):
        assert (ACTION_BUILD_MONUMENT + m in mask) is (m not in absent), MONUMENT_NAMES[m]


# --- buying and discarding --------------------------------------------------------------

def test_granaries_food_counts_only_with_a_purchase(two):
    """Granaries: food is 4 coins each, spent only as part of a purchase."""
    s = position(two, [FOOD3, FOOD3, FOOD3], food={0: 6}, devs={0: [GRANARIES]})
    assert s.decision[0] == DEC_BUY and s.food[0, 0] == 12 and s.coins[0] == 0  # BUY offered for food alone
    assert ACTION_PAY_FOOD in legal(two, s) and ACTION_BUY_DEV + LEADERSHIP not in legal(two, s)
    s2 = act(two, s, ACTION_PAY_FOOD, ACTION_PAY_FOOD)
    assert ACTION_BUY_DEV + LEADERSHIP not in legal(two, s2)  # 8 coins
    s3 = act(two, s2, ACTION_PAY_FOOD)
    assert ACTION_BUY_DEV + LEADERSHIP in legal(two, s3)  # 12 coins
    bought = act(two, s3, ACTION_BUY_DEV + LEADERSHIP, dice=[GOOD1] * 3)
    assert bought.developments[0, 0, LEADERSHIP] and bought.food[0, 0] == 12 - 3
    passed = act(two, s3, ACTION_PASS, dice=[GOOD1] * 3)
    assert passed.food[0, 0] == 12 and not passed.developments[0, 0, LEADERSHIP]
    # without Granaries food never pays, so the BUY phase is skipped
    plain = position(two, [FOOD3, FOOD3, FOOD3], food={0: 6}, next_dice=[GOOD1] * 3)
    assert plain.active[0] == 1


def test_caravans_bought_this_turn_cancels_the_discard(two):
    """A development works at once; Caravans bought now means no discard this turn."""
    s = position(two, [COINS7, COINS7, COINS7], food={0: 6}, goods={0: [4, 3, 2, 1, 0]})
    s = act(two, s, ACTION_BUY_DEV + CARAVANS, dice=[GOOD1] * 3)
    assert s.active[0] == 1 and s.goods[0, 0].tolist() == [4, 3, 2, 1, 0]  # 10 units kept
    other = position(two, [COINS7, COINS7, COINS7], food={0: 6}, goods={0: [4, 3, 2, 1, 0]})
    other = act(two, other, ACTION_BUY_DEV + COINAGE)
    assert other.decision[0] == DEC_DISCARD and other.active[0] == 0


def test_at_most_one_development_per_turn_and_never_twice(two):
    """A development is bought once per player, at most one per turn."""
    s = position(two, [COINS7, COINS7, COINS7], food={0: 6}, devs={0: [IRRIGATION]})
    mask = legal(two, s)
    assert ACTION_BUY_DEV + IRRIGATION not in mask and ACTION_BUY_DEV + LEADERSHIP in mask
    s = act(two, s, ACTION_BUY_DEV + LEADERSHIP, dice=[GOOD1] * 3)
    assert s.active[0] == 1  # no second purchase: BUY ended, nothing to discard


# --- end of the game and scoring ----------------------------------------------------------

def test_fifth_development_triggers_the_final_round(two):
    """The 5th development sets the final-round flag; the round is finished, then the game ends."""
    s = position(two, [COINS7, COINS7, COINS7], devs={0: [IRRIGATION, AGRICULTURE, QUARRYING, CARAVANS]})
    s = act(two, s, ACTION_BUY_DEV + MEDICINE, dice=[FOOD3] * 3)
    assert s.final_round[0] and not s.done[0] and s.active[0] == 1  # seat 1 still plays this round
    s = act(two, s, ACTION_PASS)
    assert s.done[0] and not s.truncated[0] and s.decision[0] == DEC_GAME_OVER and s.round[0] == 1
    assert two.scores(s)[0].tolist() == [2 + 3 + 3 + 4 + 3, 0]
    assert two.returns(s)[0].tolist() == [1.0, -1.0]


def test_trigger_in_the_last_seats_turn_ends_the_game_at_once(two):
    """A trigger during the turn of the seat before the start player ends the game after it."""
    s = position(two, [COINS7, COINS7, COINS7], active=1, start=0,
                 devs={1: [IRRIGATION, AGRICULTURE, QUARRYING, CARAVANS]})
    s = act(two, s, ACTION_BUY_DEV + MEDICINE)
    assert s.done[0] and s.round[0] == 1
    # start player 1: seat 0 is the last seat of the round
    s = position(two, [COINS7, COINS7, COINS7], active=0, start=1,
                 devs={0: [IRRIGATION, AGRICULTURE, QUARRYING, CARAVANS]})
    s = act(two, s, ACTION_BUY_DEV + MEDICINE)
    assert s.done[0]


def test_all_monuments_in_play_trigger_the_end_and_first_later_by_time(two):
    """The end triggers when every monument in play (2 players: 5) was completed by anyone;
    within one round the earlier turn scores "first", the later one "later"."""
    s = position(two, [WORKERS3, FOOD3, FOOD3], monuments={0: {OBELISK: 8}, 1: {
        STEP_PYRAMID: 3, STONE_CIRCLE: 5, HANGING_GARDENS: 11, GREAT_WALL: 12, OBELISK: 8}})
    assert not s.completed_by_anyone[0, OBELISK]
    s = act(two, s, ACTION_BUILD_MONUMENT + OBELISK)
    assert s.monument_points[0, 0, OBELISK] == 6 and not s.final_round[0]  # Great Wall still open
    s = act(two, s, ACTION_PASS, dice=[WORKERS3, WORKERS3, FOOD3])  # seat 0 stops building
    assert s.active[0] == 1 and s.decision[0] == DEC_ROLL
    s = act(two, s, ACTION_PASS)  # seat 1 keeps its first roll
    assert s.decision[0] == DEC_BUILD and s.workers[0] == 6
    s = act(two, s, ACTION_BUILD_MONUMENT + OBELISK)
    assert s.monument_points[0, 1, OBELISK] == 3  # the later value, in the same round
    assert not s.final_round[0]
    s = act(two, s, ACTION_BUILD_MONUMENT + GREAT_WALL)  # the last one in play (Temple/Great Pyramid absent)
    assert s.final_round[0] and not s.done[0]
    s = act(two, s, ACTION_PASS)  # seat 1 is the last seat of the round: the game ends with its turn
    assert s.done[0] and not s.truncated[0] and s.round[0] == 1
    assert two.scores(s)[0].tolist() == [6, 1 + 2 + 3 + 8 + 10]


def test_architecture_and_empire_bonuses(two):
    """Architecture +1 per completed monument (first or later), Empire +1 per city (3..7)."""
    s = position(two, [FOOD3] * 5, city_workers={0: 7}, food={0: 5}, devs={0: [ARCHITECTURE, EMPIRE]},
                 monuments={0: {STEP_PYRAMID: 3, OBELISK: 9, GREAT_WALL: 4}}, points={0: {OBELISK: 3}},
                 disasters={0: 2}, next_dice=[FOOD3] * 3)
    # 8 + 8 (developments) + 1 + 3 (monuments) + 2 (Architecture) + 5 (Empire) - 2 (disasters)
    assert two.scores(s)[0, 0] == 8 + 8 + 1 + 3 + 2 + 5 - 2
    assert sheet(two, s, 0) == (
        "food 10 | goods 0/0/0/0/0 (0) | cities 5 [7] | Step Pyramid 3/3 (1), Obelisk 9/9 (3), Great Wall 4/13 "
        "| Architecture, Empire | disasters 2 | score 25")


def test_tie_break_by_goods_value_and_shared_ranks(two, three):
    """Equal scores rank by goods value; a full tie is shared. `returns` is rank based."""
    s = position(two, [FOOD3] * 3, active=1, start=0, final_round=True, devs={0: [LEADERSHIP], 1: [IRRIGATION]},
                 goods={0: [3, 0, 0, 0, 0], 1: [0, 2, 0, 0, 0]})
    assert s.done[0] and two.scores(s)[0].tolist() == [2, 2]
    assert two.goods_values(s)[0].tolist() == [6, 6]
    assert two.returns(s)[0].tolist() == [0.0, 0.0]  # shared win
    s = position(two, [FOOD3] * 3, active=1, start=0, final_round=True, devs={0: [LEADERSHIP], 1: [IRRIGATION]},
                 goods={0: [2, 0, 0, 0, 0], 1: [0, 2, 0, 0, 0]})
    assert s.done[0] and two.goods_values(s)[0].tolist() == [3, 6]
    assert two.returns(s)[0].tolist() == [-1.0, 1.0]
    s = position(three, [FOOD3] * 3, active=2, start=0, final_round=True,
                 devs={0: [RELIGION], 1: [LEADERSHIP], 2: [IRRIGATION]},
                 goods={1: [1, 0, 0, 0, 0], 2: [1, 0, 0, 0, 0]})
    assert three.scores(s)[0].tolist() == [6, 2, 2]
    assert three.returns(s)[0].tolist() == [1.0, -0.5, -0.5]
    # before the end every return is 0
    running = position(two, [FOOD3] * 3, devs={0: [RELIGION]}, next_dice=[FOOD3] * 3)
    assert not running.done[0] and two.returns(running)[0].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("max_rounds", [1, 2])
def test_truncation_at_max_rounds(max_rounds):
    """The round limit ends the game as truncation, not termination."""
    game = make(GAME, num_players=2, max_rounds=max_rounds)
    s = game.init_from_uniforms(forced_init([FOOD3] * 3))
    for _ in range(2 * max_rounds - 1):
        s = act(game, s, ACTION_PASS)  # each turn: stop rolling, collect food, nothing else to do
        assert not s.done[0]
    s = act(game, s, ACTION_PASS)
    assert s.done[0] and s.truncated[0] and s.round[0] == max_rounds and s.decision[0] == DEC_GAME_OVER
    assert game.legal_action_mask(s)[0].all()  # done rows: all True
    assert game.returns(s)[0].tolist() == [0.0, 0.0]  # ranked on the scores reached: a tie here


def test_passive_multiplayer_game_runs_to_truncation():
    """With random dice, a game nobody advances still stops at the round limit."""
    rng = np.random.default_rng(3)
    game = make(GAME, num_players=3, max_rounds=5)
    s, steps = passive_play(game, game.init(rng), lambda: rng.random((1, UNIFORMS_PER_STEP)))
    assert s.done[0] and s.truncated[0] and s.round[0] == 5 and steps < game.info.max_game_length


def test_a_natural_end_in_the_last_allowed_round_is_not_truncation():
    """When the end trigger and the round limit meet, the game terminated by the rules."""
    game = make(GAME, num_players=2, max_rounds=1)
    s = position(game, [FOOD3] * 3, active=1, start=0, final_round=True)
    assert s.done[0] and not s.truncated[0]


def test_config_rejects_a_solo_trade_game():
    """Trading needs an opponent."""
    with pytest.raises(ValueError):
        make(GAME, num_players=1, trade=True)
