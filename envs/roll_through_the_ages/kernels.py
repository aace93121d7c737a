"""numba kernels for Roll Through the Ages: what one row of the batch does (the row functions of
envs/codegen.py, from which the batch entry points in entries.py are generated) and their helpers.

A row function works on row b of the State `s` in place (`apply` hands it a copy); the per-row helpers
(`_name`) hold the rules. Kernels never allocate: scratch arrays are named in state.SCRATCH.

Dice come from `u`, a (B, K) block of uniforms in [0, 1): draw k of row b is face int(6 * u[b, k]).
A row that needs more than K draws in one call (only when whole turns pass without any decision)
continues with a splitmix64 stream seeded from its last uniform, so `apply` stays a pure function of
(state, actions, u).
"""

from __future__ import annotations

import numpy as np

from meeple.envs.jit import SPLITMIX_GOLDEN, kernel, splitmix_uniform, uniform_index
from meeple.envs.roll_through_the_ages.state import State as _State

from meeple.envs.roll_through_the_ages.data import (
    ACTION_ACCEPT, ACTION_BUILD_CITY, ACTION_BUILD_MONUMENT, ACTION_BUY_DEV, ACTION_DECLINE,
    ACTION_DISCARD, ACTION_ENGINEERING, ACTION_FW_FOOD, ACTION_FW_WORKERS, ACTION_LEADERSHIP_REROLL,
    ACTION_MARK_REROLL, ACTION_OFFER_GIVE, ACTION_OFFER_TAKE, ACTION_PASS, ACTION_PAY_FOOD,
    ACTION_PAY_GOOD, ACTION_PROPOSE, ACTION_ROLL, ACTION_TRADE_WITH, AGRICULTURE, ARCHITECTURE,
    CARAVANS, CITY_THRESHOLDS, CITY_WORKERS_MAX, COINAGE, COINS7, DEVELOPMENT_COST,
    DEVELOPMENT_POINTS, DEVELOPMENTS_TO_END, DROUGHT_POINTS, DROUGHT_SKULLS, EMPIRE, ENGINEERING,
    ENGINEERING_WORKERS_PER_STONE, FOOD3, FOOD_MAX, FW2, FW_FOOD_CHOSEN, FW_UNDECIDED,
    FW_WORKERS_CHOSEN, GOOD1, GOODS_LIMIT, GOODS_MAX, GOODS_VALUE, GRANARIES,
    GRANARIES_COINS_PER_FOOD, GREAT_WALL, INVASION_POINTS, INVASION_SKULLS, IRRIGATION, LEADERSHIP,
    MASONRY, MAX_DICE, MAX_ROLLS, MEDICINE, MONUMENT_FIRST, MONUMENT_LATER, MONUMENT_WORKERS,
    NO_DIE, NUM_DEVELOPMENTS, NUM_GOODS, NUM_MONUMENTS, NUM_TRADE_TYPES, PESTILENCE_POINTS,
    PESTILENCE_SKULLS, DEC_BUILD, DEC_BUY, DEC_CHOOSE_FW, DEC_DISCARD, DEC_GAME_OVER,
    DEC_LEADERSHIP, DEC_ROLL, DEC_TRADE, DEC_TRADE_OFFER, DEC_TRADE_RESPOND, QUARRYING,
    RELIGION, REVOLT_SKULLS, SKULL, SOLO_ROUNDS, START_CITIES, STONE, TRADE_FOOD, TRADE_MAX,
    WORKERS3,
)


# --- chance ---------------------------------------------------------------------------------

@kernel(inline="always")
def _draw_face(u, b, cursor, stream):
    """Next die face for row b; cursor[0] = next column of u, stream[0] = fallback stream state."""
    k = cursor[0]
    if k < u.shape[1]:
        cursor[0] = k + 1
        x = u[b, k]
    else:
        if stream[0] == 0:
            stream[0] = np.uint64(u[b, u.shape[1] - 1] * 9007199254740992.0) ^ SPLITMIX_GOLDEN
        x = splitmix_uniform(stream)
    face = int(x * 6.0)
    return 5 if face > 5 else (0 if face < 0 else face)


# --- derived quantities ---------------------------------------------------------------------

@kernel(inline="always")
def cities_of(city_workers):
    n = START_CITIES
    for t in range(CITY_THRESHOLDS.shape[0]):
        if city_workers >= CITY_THRESHOLDS[t]:
            n += 1
    return n


@kernel
def goods_value(goods):
    """Coins the goods (5,) pay (rules: paying for a development): each track's value at its count."""
    v = 0
    for g in range(NUM_GOODS):
        v += GOODS_VALUE[g, goods[g]]
    return v


@kernel
def goods_value_of(s, b, p):
    return goods_value(s.goods[b, p])


@kernel
def goods_count_of(s, b, p):
    n = 0
    for g in range(NUM_GOODS):
        n += s.goods[b, p, g]
    return n


@kernel
def monument_done(s, b, p, m):
    return s.monument_progress[b, p, m] >= MONUMENT_WORKERS[m]


@kernel
def completed_monuments_of(s, b, p):
    n = 0
    for m in range(NUM_MONUMENTS):
        if monument_done(s, b, p, m):
            n += 1
    return n


@kernel
def score_of(s, b, p):
    """The score: developments + monuments + Architecture/Empire bonuses - disaster points."""
    total = 0
    for d in range(NUM_DEVELOPMENTS):
        if s.developments[b, p, d]:
            total += DEVELOPMENT_POINTS[d]
    for m in range(NUM_MONUMENTS):
        if monument_done(s, b, p, m):
            total += s.monument_points[b, p, m]
    if s.developments[b, p, ARCHITECTURE]:
        total += completed_monuments_of(s, b, p)
    if s.developments[b, p, EMPIRE]:
        total += cities_of(s.city_workers[b, p])
    return total - s.disasters[b, p]


@kernel
def _can_build_anything(s, b, p, in_play):
    if s.city_workers[b, p] < CITY_WORKERS_MAX:
        return True
    for m in range(NUM_MONUMENTS):
        if in_play[m] and not monument_done(s, b, p, m):
            return True
    return False


@kernel
def _max_payment(s, b, p):
    """Coins available if every goods track (and, with Granaries, every food) were paid."""
    pay = s.coins[b] + goods_value_of(s, b, p)
    if s.developments[b, p, GRANARIES]:
        pay += GRANARIES_COINS_PER_FOOD * s.food[b, p]
    return pay


@kernel
def marked_payment(s, b, p):
    pay = s.coins[b] + GRANARIES_COINS_PER_FOOD * s.marked_food[b]
    for g in range(NUM_GOODS):
        if s.marked_goods[b, g]:
            pay += GOODS_VALUE[g, s.goods[b, p, g]]
    return pay


@kernel
def _can_buy(s, b, p):
    if s.bought[b] >= 0:
        return False
    budget = _max_payment(s, b, p)
    for d in range(NUM_DEVELOPMENTS):
        if not s.developments[b, p, d] and DEVELOPMENT_COST[d] <= budget:
            return True
    return False


@kernel
def _can_mark_or_roll(s, b, solo):
    """Rolling continues while a die is marked or can be marked (so it stops at once when every die is a
    locked skull, even before the third roll)."""
    if s.rolls_used[b] >= MAX_ROLLS:
        return False
    for i in range(MAX_DICE):
        if s.dice[b, i] == NO_DIE:
            continue
        if s.marked[b, i]:
            return True
        if solo or s.dice[b, i] != SKULL:
            return True
    return False


@kernel
def _trade_feasible(s, b, a, q):
    """Some one-unit-for-one-unit exchange of two different types fits both players' tracks."""
    for t in range(NUM_TRADE_TYPES):
        if _holding(s, b, a, t) > 0 and _holding(s, b, q, t) < TRADE_MAX[t]:
            for t2 in range(NUM_TRADE_TYPES):
                if t2 != t and _holding(s, b, q, t2) > 0 and _holding(s, b, a, t2) < TRADE_MAX[t2]:
                    return True
    return False


@kernel(inline="always")
def _holding(s, b, p, t):
    if t == TRADE_FOOD:
        return np.int64(s.food[b, p])
    return np.int64(s.goods[b, p, t])


@kernel
def _add_holding(s, b, p, t, delta):
    if t == TRADE_FOOD:
        s.food[b, p] += delta
    else:
        s.goods[b, p, t] += delta


@kernel
def _can_trade(s, b, max_trade_offers):
    if s.trade_offers[b] >= max_trade_offers:
        return False
    P = s.food.shape[1]
    a = s.active[b]
    for k in range(1, P):
        if _trade_feasible(s, b, a, (a + k) % P):
            return True
    return False


# --- turn flow ------------------------------------------------------------------------------

@kernel
def _start_turn(s, b, p, u, cursor, stream):
    """A new turn begins with the automatic first roll of one die per city."""
    s.active[b] = p
    s.to_play[b] = p
    n = cities_of(s.city_workers[b, p])
    for i in range(MAX_DICE):
        s.dice[b, i] = _draw_face(u, b, cursor, stream) if i < n else NO_DIE
        s.marked[b, i] = False
        s.fw_choice[b, i] = FW_UNDECIDED
    s.rolls_used[b] = 1
    s.leadership_used[b] = False
    s.workers[b] = 0
    s.coins[b] = 0
    for g in range(NUM_GOODS):
        s.marked_goods[b, g] = False
    s.marked_food[b] = 0
    s.bought[b] = -1
    s.trade_partner[b] = -1
    s.trade_offers[b] = 0
    for t in range(NUM_TRADE_TYPES):
        s.offer_give[b, t] = 0
        s.offer_take[b, t] = 0
    s.decision[b] = DEC_ROLL


@kernel
def collect_goods(goods, n_units, quarrying):
    """Goods collection on a goods row (5,): units one at a time from wood, a unit for a full track is lost
    (the sequence does not skip to the next track); Quarrying adds one stone once per turn for 2+ units,
    capped at the stone maximum."""
    for i in range(n_units):
        g = i % NUM_GOODS
        if goods[g] < GOODS_MAX[g]:
            goods[g] += 1
    if quarrying and n_units >= 2:
        if goods[STONE] < GOODS_MAX[STONE]:
            goods[STONE] += 1


@kernel(inline="always")
def dice_yield(n_three, n_two, bonus):
    """Food (or workers) of n_three FOOD3 (WORKERS3) dice and n_two FW2 dice taken as food (workers),
    each +bonus with Agriculture (Masonry)."""
    return n_three * (3 + bonus) + n_two * (2 + bonus)


@kernel(inline="always")
def coins_per_die(coinage):
    """Coins of one COINS7 die: 7, or 12 with Coinage."""
    return 12 if coinage else 7


@kernel(inline="always")
def dice_faces(s, b):
    """Row b's dice by face: (GOOD1, FOOD3, SKULL, COINS7, WORKERS3 dice, FW2 dice chosen as food, FW2 dice
    chosen as workers, FW2 dice not chosen yet). Shared with the heuristic."""
    n_good = 0
    n_food = 0
    n_skull = 0
    n_coins = 0
    n_workers = 0
    fw_food = 0
    fw_workers = 0
    fw_open = 0
    for i in range(MAX_DICE):
        f = s.dice[b, i]
        if f == GOOD1:
            n_good += 1
        elif f == FOOD3:
            n_food += 1
        elif f == SKULL:
            n_skull += 1
        elif f == COINS7:
            n_coins += 1
        elif f == WORKERS3:
            n_workers += 1
        elif f == FW2:
            if s.fw_choice[b, i] == FW_FOOD_CHOSEN:
                fw_food += 1
            elif s.fw_choice[b, i] == FW_WORKERS_CHOSEN:
                fw_workers += 1
            else:
                fw_open += 1
    return n_good, n_food, n_skull, n_coins, n_workers, fw_food, fw_workers, fw_open


@kernel
def _collect_and_disasters(s, b, p):
    """Automatic resolution (3a goods, 3b food, 3c feeding, 3d disasters) and the worker and coin totals
    for building and buying, once the dice are final."""
    P = s.food.shape[1]
    solo = P == 1
    n_good, n_food, n_skull, n_coins, n_workers, fw_food, fw_workers, fw_open = dice_faces(s, b)
    fw_workers += fw_open  # every FW2 die not taken as food gives workers
    devs = s.developments[b, p]
    collect_goods(s.goods[b, p], n_good + 2 * n_skull, devs[QUARRYING])  # 3a
    # 3b: food, capped at 15 at collection, before feeding; Agriculture +1 per food die, FW2 food included
    agri = 1 if devs[AGRICULTURE] else 0
    food = s.food[b, p] + dice_yield(n_food, fw_food, agri)
    if food > FOOD_MAX:
        food = FOOD_MAX
    # 3c: feed one food per city; each unfed city is one disaster point (famine)
    cities = cities_of(s.city_workers[b, p])
    if food >= cities:
        food -= cities
    else:
        s.disasters[b, p] += cities - food
        food = 0
    s.food[b, p] = food
    # 3d: exactly one skull row applies (disasters are not cumulative)
    if n_skull == DROUGHT_SKULLS:
        if not devs[IRRIGATION]:
            s.disasters[b, p] += DROUGHT_POINTS
    elif n_skull == PESTILENCE_SKULLS:
        if solo:  # solo variant: pestilence hits the solo player
            if not devs[MEDICINE]:
                s.disasters[b, p] += PESTILENCE_POINTS
        else:  # the roller is never hit; opponents without Medicine are
            for q in range(P):
                if q != p and not s.developments[b, q, MEDICINE]:
                    s.disasters[b, q] += PESTILENCE_POINTS
    elif n_skull == INVASION_SKULLS:
        if not monument_done(s, b, p, GREAT_WALL):
            s.disasters[b, p] += INVASION_POINTS
    elif n_skull >= REVOLT_SKULLS:
        if devs[RELIGION]:
            if not solo:  # opponents without Religion lose all goods; owners of Religion keep theirs
                for q in range(P):
                    if q != p and not s.developments[b, q, RELIGION]:
                        for g in range(NUM_GOODS):
                            s.goods[b, q, g] = 0
        else:  # including the goods collected this turn
            for g in range(NUM_GOODS):
                s.goods[b, p, g] = 0
    masonry = 1 if devs[MASONRY] else 0
    s.workers[b] = dice_yield(n_workers, fw_workers, masonry)
    s.coins[b] = n_coins * coins_per_die(devs[COINAGE])


@kernel
def _trigger_final_round(s, b, solo, solo_standard_end_triggers):
    if not solo or solo_standard_end_triggers:  # a solo game is 10 rounds unless the flag is set
        s.final_round[b] = True


@kernel
def _end_turn(s, b, u, cursor, stream, max_rounds, solo_standard_end_triggers):
    """End of turn: next seat, or the end of the round and possibly of the game."""
    P = s.food.shape[1]
    p = s.active[b]
    last_seat = (s.start_player[b] + P - 1) % P
    if p == last_seat:
        if P == 1:
            over = s.round[b] >= SOLO_ROUNDS or (solo_standard_end_triggers and s.final_round[b])
        else:
            over = s.final_round[b]
        if over:
            s.done[b] = True
        elif s.round[b] >= max_rounds and P > 1:  # round limit: truncation, reported separately
            s.done[b] = True
            s.truncated[b] = True
        else:
            s.round[b] += 1
    if s.done[b]:
        s.decision[b] = DEC_GAME_OVER
        for i in range(MAX_DICE):
            s.dice[b, i] = NO_DIE
            s.marked[b, i] = False
            s.fw_choice[b, i] = FW_UNDECIDED
        s.workers[b] = 0
        s.coins[b] = 0
        return
    _start_turn(s, b, (p + 1) % P, u, cursor, stream)


@kernel
def _advance(s, b, u,
        cursor, stream, in_play, trade, max_trade_offers, max_rounds, solo_standard_end_triggers):
    """Run automatic phases until a player has a real decision or the game is over (phases that offer only PASS are skipped)."""
    P = s.food.shape[1]
    solo = P == 1
    while not s.done[b]:
        decision = s.decision[b]
        p = s.active[b]
        if decision == DEC_ROLL:
            if _can_mark_or_roll(s, b, solo):
                return
            for i in range(MAX_DICE):
                s.marked[b, i] = False
            s.decision[b] = DEC_LEADERSHIP
        elif decision == DEC_LEADERSHIP:
            if s.developments[b, p, LEADERSHIP] and not s.leadership_used[b]:
                return
            s.decision[b] = DEC_CHOOSE_FW
        elif decision == DEC_CHOOSE_FW:
            for i in range(MAX_DICE):
                if s.dice[b, i] == FW2 and s.fw_choice[b, i] == FW_UNDECIDED:
                    return
            _collect_and_disasters(s, b, p)
            s.decision[b] = DEC_TRADE if (trade and not solo) else DEC_BUILD
        elif decision == DEC_TRADE:
            if _can_trade(s, b, max_trade_offers):
                return
            s.decision[b] = DEC_BUILD
        elif decision == DEC_TRADE_OFFER or decision == DEC_TRADE_RESPOND:
            return
        elif decision == DEC_BUILD:
            if _can_build_anything(s, b, p, in_play):
                if s.workers[b] > 0:
                    return
                if s.developments[b, p, ENGINEERING] and s.goods[b, p, STONE] > 0:
                    return
            s.workers[b] = 0  # unused workers are lost; a player may stop placing any time
            s.decision[b] = DEC_BUY
        elif decision == DEC_BUY:
            if _can_buy(s, b, p):
                return
            s.decision[b] = DEC_DISCARD
        elif decision == DEC_DISCARD:
            if not s.developments[b, p, CARAVANS] and goods_count_of(s, b, p) > GOODS_LIMIT:
                return
            s.coins[b] = 0
            _end_turn(s, b, u, cursor, stream, max_rounds, solo_standard_end_triggers)
        else:
            return


@kernel
def _complete_monument_if_full(s, b, p, m, in_play, solo, solo_standard_end_triggers):
    """Record first/later points when the last box is filled; check the end trigger."""
    if s.monument_progress[b, p, m] < MONUMENT_WORKERS[m]:
        return
    first = solo or not s.completed_by_anyone[b, m]  # strict time order: only the earliest completer scores first; solo always first
    s.monument_points[b, p, m] = MONUMENT_FIRST[m] if first else MONUMENT_LATER[m]
    s.completed_by_anyone[b, m] = True
    for k in range(NUM_MONUMENTS):
        if in_play[k] and not s.completed_by_anyone[b, k]:
            return
    _trigger_final_round(s, b, solo, solo_standard_end_triggers)


@kernel
def _apply_action(s, b, a, u, cursor, stream, in_play, solo_standard_end_triggers):
    """One decision of the acting seat; the caller then runs `_advance`."""
    P = s.food.shape[1]
    solo = P == 1
    p = s.active[b]
    decision = s.decision[b]
    if decision == DEC_ROLL:
        if a < ACTION_ROLL:
            s.marked[b, a - ACTION_MARK_REROLL] = True
        elif a == ACTION_ROLL:
            for i in range(MAX_DICE):
                if s.marked[b, i]:
                    s.dice[b, i] = _draw_face(u, b, cursor, stream)
                    s.marked[b, i] = False
            s.rolls_used[b] += 1
        else:  # PASS: stop rolling, drop the marks
            for i in range(MAX_DICE):
                s.marked[b, i] = False
            s.decision[b] = DEC_LEADERSHIP
    elif decision == DEC_LEADERSHIP:
        if a != ACTION_PASS:  # any one die, skulls included; the new face is final
            s.dice[b, a - ACTION_LEADERSHIP_REROLL] = _draw_face(u, b, cursor, stream)
            s.leadership_used[b] = True
        s.decision[b] = DEC_CHOOSE_FW
    elif decision == DEC_CHOOSE_FW:
        for i in range(MAX_DICE):  # dice are interchangeable: decide the lowest undecided one
            if s.dice[b, i] == FW2 and s.fw_choice[b, i] == FW_UNDECIDED:
                s.fw_choice[b, i] = FW_FOOD_CHOSEN if a == ACTION_FW_FOOD else FW_WORKERS_CHOSEN
                break
    elif decision == DEC_TRADE:
        if a == ACTION_PASS:
            s.decision[b] = DEC_BUILD
        else:
            s.trade_partner[b] = (p + 1 + a - ACTION_TRADE_WITH) % P
            s.decision[b] = DEC_TRADE_OFFER
    elif decision == DEC_TRADE_OFFER:
        if a == ACTION_PASS:  # withdraw; counts towards the offer limit
            s.trade_offers[b] += 1
            _clear_offer(s, b)
            s.decision[b] = DEC_TRADE
        elif a == ACTION_PROPOSE:
            s.trade_offers[b] += 1
            s.to_play[b] = s.trade_partner[b]
            s.decision[b] = DEC_TRADE_RESPOND
        elif a < ACTION_OFFER_TAKE:
            s.offer_give[b, a - ACTION_OFFER_GIVE] += 1
        else:
            s.offer_take[b, a - ACTION_OFFER_TAKE] += 1
    elif decision == DEC_TRADE_RESPOND:
        if a == ACTION_ACCEPT:  # trade variant: both sides transfer at once
            q = s.trade_partner[b]
            for t in range(NUM_TRADE_TYPES):
                moved = s.offer_give[b, t] - s.offer_take[b, t]
                _add_holding(s, b, p, t, -moved)
                _add_holding(s, b, q, t, moved)
        _clear_offer(s, b)
        s.to_play[b] = p
        s.decision[b] = DEC_TRADE
    elif decision == DEC_BUILD:
        if a == ACTION_PASS:
            s.workers[b] = 0
            s.decision[b] = DEC_BUY
        elif a == ACTION_ENGINEERING:
            s.goods[b, p, STONE] -= 1
            s.workers[b] += ENGINEERING_WORKERS_PER_STONE
        elif a == ACTION_BUILD_CITY:  # cities fill in order (4th, 5th, 6th, 7th); all are worth the same
            s.workers[b] -= 1
            s.city_workers[b, p] += 1
        else:
            m = a - ACTION_BUILD_MONUMENT
            s.workers[b] -= 1
            s.monument_progress[b, p, m] += 1
            _complete_monument_if_full(s, b, p, m, in_play, solo, solo_standard_end_triggers)
    elif decision == DEC_BUY:
        if a == ACTION_PASS:  # nothing is spent; coins expire at the end of the turn
            for g in range(NUM_GOODS):
                s.marked_goods[b, g] = False
            s.marked_food[b] = 0
            s.decision[b] = DEC_DISCARD
        elif a == ACTION_PAY_FOOD:
            s.marked_food[b] += 1
        elif a < ACTION_PAY_FOOD:
            s.marked_goods[b, a - ACTION_PAY_GOOD] = True
        else:  # whole goods tracks, coins and Granaries food; no change given
            d = a - ACTION_BUY_DEV
            for g in range(NUM_GOODS):
                if s.marked_goods[b, g]:
                    s.goods[b, p, g] = 0
                    s.marked_goods[b, g] = False
            s.food[b, p] -= s.marked_food[b]
            s.marked_food[b] = 0
            s.coins[b] = 0
            s.developments[b, p, d] = True
            s.bought[b] = d
            owned = 0
            for k in range(NUM_DEVELOPMENTS):
                if s.developments[b, p, k]:
                    owned += 1
            if owned == DEVELOPMENTS_TO_END:
                _trigger_final_round(s, b, solo, solo_standard_end_triggers)
            s.decision[b] = DEC_DISCARD
    elif decision == DEC_DISCARD:
        s.goods[b, p, a - ACTION_DISCARD] -= 1


@kernel
def _clear_offer(s, b):
    s.trade_partner[b] = -1
    for t in range(NUM_TRADE_TYPES):
        s.offer_give[b, t] = 0
        s.offer_take[b, t] = 0


# --- row functions (the batch entry points are generated from them: envs/codegen.py) ---------------

@kernel
def init_row(s, b, u, in_play, trade, max_trade_offers, max_rounds, solo_standard_end_triggers, cursor, stream):
    """Fill row b of a zeroed state: start player from u[b, 0] (chosen at random), then the first turn's roll."""
    P = s.food.shape[1]
    cursor[0] = 1
    stream[0] = 0
    start = uniform_index(u[b, 0], P)  # clamped: a NaN or out-of-range uniform still names a seat
    s.start_player[b] = start
    s.round[b] = 1
    for p in range(P):
        s.food[b, p] = 3
    _start_turn(s, b, start, u, cursor, stream)
    _advance(s, b, u, cursor, stream, in_play, trade, max_trade_offers, max_rounds, solo_standard_end_triggers)


@kernel
def apply_row(s, b, a, u, in_play, trade, max_trade_offers, max_rounds, solo_standard_end_triggers, cursor, stream):
    """Apply legal action a to live row b, then run the automatic phases."""
    cursor[0] = 0
    stream[0] = 0
    _apply_action(s, b, a, u, cursor, stream, in_play, solo_standard_end_triggers)
    _advance(s, b, u, cursor, stream, in_play, trade, max_trade_offers, max_rounds, solo_standard_end_triggers)


@kernel
def advance_row(s, b, u, in_play, trade, max_trade_offers, max_rounds, solo_standard_end_triggers, cursor, stream):
    """Run only the automatic phases (for positions built by hand in tests and tools)."""
    cursor[0] = 0
    stream[0] = 0
    _advance(s, b, u, cursor, stream, in_play, trade, max_trade_offers, max_rounds, solo_standard_end_triggers)


@kernel
def fill_mask(s, b, row, in_play, max_trade_offers):
    """Set the legal actions of live row b's deciding seat in row (cleared before)."""
    P = s.food.shape[1]
    solo = P == 1
    p = s.active[b]
    decision = s.decision[b]
    if decision == DEC_ROLL:
        if s.rolls_used[b] < MAX_ROLLS:
            any_marked = False
            for i in range(MAX_DICE):
                f = s.dice[b, i]
                if f == NO_DIE:
                    continue
                if s.marked[b, i]:
                    any_marked = True
                elif solo or f != SKULL:
                    row[ACTION_MARK_REROLL + i] = True
            row[ACTION_ROLL] = any_marked
        row[ACTION_PASS] = True
    elif decision == DEC_LEADERSHIP:
        for i in range(MAX_DICE):
            row[ACTION_LEADERSHIP_REROLL + i] = s.dice[b, i] != NO_DIE
        row[ACTION_PASS] = True
    elif decision == DEC_CHOOSE_FW:
        row[ACTION_FW_FOOD] = True
        row[ACTION_FW_WORKERS] = True
    elif decision == DEC_TRADE:
        if s.trade_offers[b] < max_trade_offers:
            for k in range(1, P):
                row[ACTION_TRADE_WITH + k - 1] = _trade_feasible(s, b, p, (p + k) % P)
        row[ACTION_PASS] = True
    elif decision == DEC_TRADE_OFFER:
        q = s.trade_partner[b]
        gives = 0
        takes = 0
        for t in range(NUM_TRADE_TYPES):
            give = s.offer_give[b, t]
            take = s.offer_take[b, t]
            gives += give
            takes += take
            # nobody gives more than they hold; no track above its maximum (trade variant)
            row[ACTION_OFFER_GIVE + t] = (take == 0 and _holding(s, b, p, t) > give
                                          and _holding(s, b, q, t) + give < TRADE_MAX[t])
            row[ACTION_OFFER_TAKE + t] = (give == 0 and _holding(s, b, q, t) > take
                                          and _holding(s, b, p, t) + take < TRADE_MAX[t])
        row[ACTION_PROPOSE] = gives > 0 and takes > 0
        row[ACTION_PASS] = True
    elif decision == DEC_TRADE_RESPOND:
        row[ACTION_ACCEPT] = True
        row[ACTION_DECLINE] = True
    elif decision == DEC_BUILD:
        if s.workers[b] > 0:
            row[ACTION_BUILD_CITY] = s.city_workers[b, p] < CITY_WORKERS_MAX
            for m in range(NUM_MONUMENTS):
                row[ACTION_BUILD_MONUMENT + m] = in_play[m] and not monument_done(s, b, p, m)
        row[ACTION_ENGINEERING] = (s.developments[b, p, ENGINEERING] and s.goods[b, p, STONE] > 0
                                   and _can_build_anything(s, b, p, in_play))
        row[ACTION_PASS] = True
    elif decision == DEC_BUY:
        if s.bought[b] < 0:
            for g in range(NUM_GOODS):
                row[ACTION_PAY_GOOD + g] = s.goods[b, p, g] > 0 and not s.marked_goods[b, g]
            row[ACTION_PAY_FOOD] = s.developments[b, p, GRANARIES] and s.marked_food[b] < s.food[b, p]
            pay = marked_payment(s, b, p)
            for d in range(NUM_DEVELOPMENTS):
                row[ACTION_BUY_DEV + d] = not s.developments[b, p, d] and DEVELOPMENT_COST[d] <= pay
        row[ACTION_PASS] = True
    elif decision == DEC_DISCARD:
        for g in range(NUM_GOODS):
            row[ACTION_DISCARD + g] = s.goods[b, p, g] > 0


# --- game-specific batch kernels (not generated) --------------------------------------------

@kernel
def goods_values_nb(out, *fields):
    """out (B, P): the value of every player's goods (`rules.goods_values`, the tie-break)."""
    s = _State(*fields)
    for b in range(s.food.shape[0]):
        for p in range(s.food.shape[1]):
            out[b, p] = goods_value_of(s, b, p)
