"""A hand-written Roll Through the Ages player: greedy one-turn lookahead on a points scale.

Every decision compares options in one currency, "points", through a utility of the turn's outcome:

- **dice** (ROLL, LEADERSHIP, CHOOSE_FW): the utility of a set of final dice is
  famine (-1 per unfed city) + a concave value of the food left (worth most up to one turn of
  feeding) + the value of the workers (placed greedily, as in BUILD) + the value of the goods kept
  after discarding (GOODS_COIN_VALUE points per coin they could pay) + the best development the coins
  and goods buy + the skull row (drought/invasion hurt us, pestilence hurts the opponents, a revolt
  loses our goods). While rolling, dice are marked greedily: the face whose reroll gains most in
  expectation (the other rerolled dice counted as blanks) is marked next, until no reroll gains;
  identical faces are never all rerolled just because each one alone is surplus (e.g. the third coin
  die when two already pay for the target development). Leadership rerolls the single die, skulls
  included, with the largest expected gain. Food/worker dice take the best split.
- **BUILD**: each worker goes where it is worth most per worker: a city is worth CITY_DIE_VALUE points
  per remaining turn for its extra die (so cities come first early and stop late), a monument its
  first (or later) value plus the Architecture bonus, the Great Wall also the invasions it prevents.
  Boxes that cannot be finished this turn are discounted (an opponent may finish first; the game may
  end). Engineering turns a stone into 3 workers when those beat the stone's worth as payment.
- **BUY**: every development has a value (points + its effect per remaining turn; Architecture and
  Empire count their bonus); it is paid with the turn's coins plus the set of whole goods tracks (all
  32 subsets, plus Granaries food) that keeps the most goods value. In 2-4 players a development slot
  costs SLOT_COST (only 5 developments fit in a game) and the 5th, which ends the game, is bought only
  with a lead of END_MARGIN points (or very late, so games still end); likewise the last open monument.
- **DISCARD** keeps the most valuable 6 units (exact, by dynamic programming over the tracks).
- **trade variant**: never offers; as a partner, accepts when the goods value (plus 1 per food)
  received is at least the value given.

Remaining turns are estimated from the development race (TURNS_PER_DEV per development the leader
still needs) and are 10 - round in solo play. All weights live in `DEFAULT_PARAMS` so variants can be
compared; `Heuristic(city_die_value=0.6)` overrides one. The kernel falls back to a random legal
action (and flags the row) if its choice is ever illegal; the tests check that it never is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from meeple.envs.roll_through_the_ages.data import (
    ACTION_ACCEPT, ACTION_BUILD_CITY, ACTION_BUILD_MONUMENT, ACTION_BUY_DEV, ACTION_DECLINE,
    ACTION_DISCARD, ACTION_ENGINEERING, ACTION_FW_FOOD, ACTION_FW_WORKERS, ACTION_LEADERSHIP_REROLL,
    ACTION_MARK_REROLL, ACTION_PASS, ACTION_PAY_FOOD, ACTION_PAY_GOOD, ACTION_ROLL, AGRICULTURE,
    ARCHITECTURE, CARAVANS, CITY_THRESHOLDS, CITY_WORKERS_MAX, COINAGE, COINS7, DEVELOPMENT_COST,
    DEVELOPMENT_POINTS, DROUGHT_POINTS, DROUGHT_SKULLS, EMPIRE, ENGINEERING,
    ENGINEERING_WORKERS_PER_STONE, FOOD3, FOOD_MAX, FW2, FW_FOOD_CHOSEN, FW_UNDECIDED,
    FW_WORKERS_CHOSEN, GOOD1, GOODS_LIMIT, GOODS_MAX, GOODS_VALUE, GRANARIES, GRANARIES_COINS_PER_FOOD,
    GREAT_WALL, INVASION_POINTS, INVASION_SKULLS, IRRIGATION, LEADERSHIP, MASONRY, MAX_DICE, MAX_ROLLS,
    MEDICINE, MONUMENT_FIRST, MONUMENT_LATER, MONUMENT_WORKERS, NO_DIE, NUM_DEVELOPMENTS, NUM_FACES,
    NUM_GOODS, NUM_MONUMENTS, NUM_TRADE_TYPES, PESTILENCE_POINTS, PESTILENCE_SKULLS, PHASE_BUILD,
    PHASE_BUY, PHASE_CHOOSE_FW, PHASE_DISCARD, PHASE_LEADERSHIP, PHASE_ROLL, PHASE_TRADE,
    PHASE_TRADE_OFFER, PHASE_TRADE_RESPOND, QUARRYING, RELIGION, REVOLT_SKULLS, SKULL, SOLO_ROUNDS,
    START_CITIES, STONE, TRADE_FOOD, WORKERS3,
)

# --- weights (points scale) ----------------------------------------------------------------
PARAM_NAMES = (
    "goods_coin_value",    # points per coin of goods value kept (goods are future payment)
    "famine_weight",       # points lost per unfed city (a disaster point each)
    "food_reserve_value",  # points per food left, up to one turn of feeding
    "food_extra_value",    # points per food left beyond that, up to two turns of feeding
    "city_die_value",      # points per remaining turn that an extra die (city) is worth
    "partial_city",        # discount on city boxes that do not finish a city this turn
    "partial_monument",    # discount on monument boxes that do not finish it this turn
    "slot_cost",           # 2-4 players: points a development slot is worth (at most 5 per game)
    "opponent_weight",     # how much one disaster point of an opponent is worth to us
    "end_margin",          # lead (points) needed to end the game ourselves
    "roll_eps_early",      # least expected gain to reroll a die with two rolls left
    "roll_eps_late",       # ... with one roll left
    "leadership_eps",      # least expected gain for the Leadership reroll
    "turns_per_dev",       # remaining turns estimated per development the leader still needs
    "late_round",          # from this round on, end the game even without a lead
)
DEFAULT_PARAMS = np.array(
    [0.12, 1.0, 0.35, 0.1, 0.45, 0.9, 0.75, 3.0, 0.6, 2.0, 0.0, 0.05, 0.05, 3.0, 40.0],
    dtype=np.float64,
)
(_GOODS_COIN_VALUE, _FAMINE_WEIGHT, _FOOD_RESERVE_VALUE, _FOOD_EXTRA_VALUE, _CITY_DIE_VALUE,
 _PARTIAL_CITY, _PARTIAL_MONUMENT, _SLOT_COST, _OPPONENT_WEIGHT, _END_MARGIN, _ROLL_EPS_EARLY,
 _ROLL_EPS_LATE, _LEADERSHIP_EPS, _TURNS_PER_DEV, _LATE_ROUND) = range(len(PARAM_NAMES))
assert DEFAULT_PARAMS.shape == (len(PARAM_NAMES),)

# Points per remaining turn of each development's effect (spec 2.6), a rough guess per effect:
# Leadership, Irrigation, Agriculture, Quarrying, Medicine (per opponent), Coinage, Caravans,
# Religion, Granaries, Masonry, Engineering, Architecture, Empire (bonuses counted separately).
DEV_RATE = np.array([0.3, 0.3, 0.4, 0.25, 0.2, 0.5, 0.3, 0.1, 0.35, 0.5, 0.4, 0.0, 0.0], dtype=np.float64)
ARCHITECTURE_RATE = 0.2  # monuments completed per remaining turn, for the Architecture bonus
EMPIRE_RATE = 0.25  # cities built per remaining turn, for the Empire bonus
# chance per turn of rolling exactly 4 skulls, by number of dice (an Invasion; the Great Wall stops it)
INVASION_RISK = np.array([0.0, 0.0, 0.0, 0.0, 0.03, 0.06, 0.09, 0.12], dtype=np.float64)
END_BONUS = 5.0  # extra value of ending the game while ahead
NEVER = -1e9

# city and monument build targets: 0 = the next city, 1 + m = monument m
_NUM_TARGETS = 1 + NUM_MONUMENTS


# --- small helpers --------------------------------------------------------------------------

@njit(cache=True)
def _cities(city_workers):
    n = START_CITIES
    for t in range(CITY_THRESHOLDS.shape[0]):
        if city_workers >= CITY_THRESHOLDS[t]:
            n += 1
    return n


@njit(cache=True)
def _next_city_need(city_workers):
    """Workers still missing for the next city, 0 when all 7 are built."""
    for t in range(CITY_THRESHOLDS.shape[0]):
        if city_workers < CITY_THRESHOLDS[t]:
            return CITY_THRESHOLDS[t] - city_workers
    return 0


@njit(cache=True)
def _completed_monuments(s, b, p):
    n = 0
    for m in range(NUM_MONUMENTS):
        if s.monument_progress[b, p, m] >= MONUMENT_WORKERS[m]:
            n += 1
    return n


@njit(cache=True)
def _score(s, b, p):
    """The running score of spec 6.2."""
    total = 0
    for d in range(NUM_DEVELOPMENTS):
        if s.developments[b, p, d]:
            total += DEVELOPMENT_POINTS[d]
    for m in range(NUM_MONUMENTS):
        if s.monument_progress[b, p, m] >= MONUMENT_WORKERS[m]:
            total += s.monument_points[b, p, m]
    if s.developments[b, p, ARCHITECTURE]:
        total += _completed_monuments(s, b, p)
    if s.developments[b, p, EMPIRE]:
        total += _cities(s.city_workers[b, p])
    return total - s.disasters[b, p]


@njit(cache=True)
def _raw_goods_value(goods):
    v = 0
    for g in range(NUM_GOODS):
        v += GOODS_VALUE[g, goods[g]]
    return v


@njit(cache=True)
def _kept_goods(goods, limit, keep, dp, choice):
    """Most valuable way to keep at most `limit` units of `goods` (5,): writes `keep`, returns its value.

    Track values are convex, so greedy discarding can be wrong (wood 6 + pottery 2, two to go: drop
    the pottery); a knapsack over the five tracks is exact. dp[g, j] = best value of tracks g.. with
    at most j units.
    """
    total = 0
    for g in range(NUM_GOODS):
        total += goods[g]
    if total <= limit:
        for g in range(NUM_GOODS):
            keep[g] = goods[g]
        return _raw_goods_value(goods)
    for j in range(limit + 1):
        dp[NUM_GOODS, j] = 0
    for g in range(NUM_GOODS - 1, -1, -1):
        for j in range(limit + 1):
            best = -1
            arg = 0
            for k in range(min(goods[g], j) + 1):
                v = GOODS_VALUE[g, k] + dp[g + 1, j - k]
                if v > best:
                    best = v
                    arg = k
            dp[g, j] = best
            choice[g, j] = arg
    j = limit
    for g in range(NUM_GOODS):
        keep[g] = choice[g, j]
        j -= choice[g, j]
    return dp[0, limit]


@njit(cache=True)
def _goods_worth(s, b, p, goods, ws):
    """Value (coins) of the goods a player will still hold after the discard phase."""
    dp, choice, keep = ws[0], ws[1], ws[2]
    if s.developments[b, p, CARAVANS]:
        return _raw_goods_value(goods)
    return _kept_goods(goods, GOODS_LIMIT, keep, dp, choice)


@njit(cache=True)
def _food_value(food_left, cities, params):
    """Concave worth of food kept after feeding: it saves dice on the next turns."""
    first = min(food_left, cities)
    extra = min(food_left, 2 * cities) - first
    return params[_FOOD_RESERVE_VALUE] * first + params[_FOOD_EXTRA_VALUE] * extra


# --- context: remaining turns and development values ----------------------------------------

@njit(cache=True)
def _lead(s, b, p):
    """Our score minus the best opponent's (0 in solo)."""
    P = s.food.shape[1]
    mine = _score(s, b, p)
    best = -(1 << 30)
    for q in range(P):
        if q != p:
            best = max(best, _score(s, b, q))
    return 0 if P == 1 else mine - best


@njit(cache=True)
def _remaining_turns(s, b, p, in_play, params):
    """Estimated turns we still get after this one."""
    P = s.food.shape[1]
    if P == 1:
        return float(SOLO_ROUNDS - s.round[b])
    if s.final_round[b]:
        return 0.0
    most = 0
    for q in range(P):
        n = 0
        for d in range(NUM_DEVELOPMENTS):
            n += s.developments[b, q, d]
        most = max(most, n)
    r = params[_TURNS_PER_DEV] * (4 - min(most, 4)) + 2.0
    open_monuments = 0
    for m in range(NUM_MONUMENTS):
        if in_play[m] and not s.completed_by_anyone[b, m]:
            open_monuments += 1
    if open_monuments <= 1:
        r = min(r, 2.0)
    return r


@njit(cache=True)
def _may_end_game(s, b, p, gain, params):
    """Whether we may trigger the end now: ahead by the margin after gaining `gain`, or very late."""
    if s.food.shape[1] == 1 or s.final_round[b]:
        return True
    return _lead(s, b, p) + gain >= params[_END_MARGIN] or s.round[b] >= params[_LATE_ROUND]


@njit(cache=True)
def _dev_values(s, b, p, R, params, out):
    """out[d] = worth of buying development d now (NEVER if owned or not wanted)."""
    P = s.food.shape[1]
    solo = P == 1
    owned = 0
    for d in range(NUM_DEVELOPMENTS):
        owned += s.developments[b, p, d]
    completed = _completed_monuments(s, b, p)
    cities = _cities(s.city_workers[b, p])
    for d in range(NUM_DEVELOPMENTS):
        if s.developments[b, p, d]:
            out[d] = NEVER
            continue
        now = float(DEVELOPMENT_POINTS[d])  # points scored at once
        if d == ARCHITECTURE:
            now += completed
        elif d == EMPIRE:
            now += cities
        later = DEV_RATE[d] * R
        if d == MEDICINE and not solo:
            later *= P - 1
        elif d == ARCHITECTURE:
            later = ARCHITECTURE_RATE * R
        elif d == EMPIRE:
            later = min(7.0 - cities, EMPIRE_RATE * R)
        if solo:
            out[d] = now + later
        elif s.final_round[b]:
            out[d] = now
        elif owned >= 4:  # spec 6.1: the 5th development ends the game
            out[d] = now + END_BONUS if _may_end_game(s, b, p, now, params) else NEVER
        else:
            out[d] = now + later - params[_SLOT_COST]


# --- building -------------------------------------------------------------------------------

@njit(cache=True)
def _target_value(s, b, p, t, city_workers, progress, done_by_anyone, in_play, w_total, R, params):
    """Worth per worker of target t (0 = city, 1 + m = monument m) with w_total workers to place.

    Returns 0 or less when the target is closed or worthless.
    """
    solo = s.food.shape[1] == 1
    if t == 0:
        need = _next_city_need(city_workers)
        if need == 0:
            return 0.0
        value = params[_CITY_DIE_VALUE] * R + (1.0 if s.developments[b, p, EMPIRE] else 0.0)
        per = value / need
        if need > w_total:
            per *= params[_PARTIAL_CITY] if R > 0 else 0.0
        return per
    m = t - 1
    rem = MONUMENT_WORKERS[m] - progress[m]
    if not in_play[m] or rem <= 0:
        return 0.0
    first = solo or not done_by_anyone[m]
    value = float(MONUMENT_FIRST[m] if first else MONUMENT_LATER[m])
    if s.developments[b, p, ARCHITECTURE]:
        value += 1.0
    if m == GREAT_WALL:
        value += INVASION_POINTS * INVASION_RISK[_cities(city_workers)] * R
    if rem > w_total:
        return value / rem * (params[_PARTIAL_MONUMENT] if R > 0 else 0.0)
    if not solo and first:  # the last open monument ends the game (spec 6.1)
        last = True
        for k in range(NUM_MONUMENTS):
            if k != m and in_play[k] and not done_by_anyone[k]:
                last = False
        if last and not _may_end_game(s, b, p, value, params):
            return 0.0
    return value / rem


@njit(cache=True)
def _best_target(s, b, p, city_workers, progress, done_by_anyone, in_play, w_total, R, params):
    best_t = -1
    best_v = 1e-9
    for t in range(_NUM_TARGETS):
        v = _target_value(s, b, p, t, city_workers, progress, done_by_anyone, in_play, w_total, R, params)
        if v > best_v:
            best_v = v
            best_t = t
    return best_t, best_v


@njit(cache=True)
def _workers_value(s, b, p, workers, in_play, R, params, ws):
    """Worth of placing `workers` greedily now (BUILD's own rule, one target at a time)."""
    progress, done_by_anyone = ws[3], ws[4]
    for m in range(NUM_MONUMENTS):
        progress[m] = s.monument_progress[b, p, m]
        done_by_anyone[m] = s.completed_by_anyone[b, m]
    city_workers = np.int64(s.city_workers[b, p])
    total = 0.0
    w = workers
    while w > 0:
        t, v = _best_target(s, b, p, city_workers, progress, done_by_anyone, in_play, w, R, params)
        if t < 0:
            break
        # a target stays the best while workers go into it, so place a whole chunk at once
        if t == 0:
            k = min(w, _next_city_need(city_workers))
            city_workers += k
        else:
            m = t - 1
            k = min(w, MONUMENT_WORKERS[m] - progress[m])
            progress[m] += k
            if progress[m] >= MONUMENT_WORKERS[m]:
                done_by_anyone[m] = True
        total += v * k
        w -= k
    return total


# --- dice utility ---------------------------------------------------------------------------

@njit(cache=True)
def _buy_gain_estimate(goods, coins, dev_value, params, subset_value):
    """Best development worth minus the goods spent on it (cheapest covering set of whole tracks)."""
    for sm in range(1 << NUM_GOODS):
        v = 0
        for g in range(NUM_GOODS):
            if (sm >> g) & 1:
                v += GOODS_VALUE[g, goods[g]]
        subset_value[sm] = v
    best = 0.0
    for d in range(NUM_DEVELOPMENTS):
        if dev_value[d] <= 0.0:
            continue
        short = DEVELOPMENT_COST[d] - coins
        spent = 0
        if short > 0:
            spent = 1 << 30
            for sm in range(1 << NUM_GOODS):
                if short <= subset_value[sm] < spent:
                    spent = subset_value[sm]
            if spent == 1 << 30:
                continue
        best = max(best, dev_value[d] - params[_GOODS_COIN_VALUE] * spent)
    return best


@njit(cache=True)
def _goods_part(s, b, p, n_skull, n_good, n_coins, dev_value, params, ws):
    """Worth of the goods collected (kept after discarding) and of what the coins plus goods buy."""
    goods, subset_value = ws[5], ws[6]
    devs = s.developments[b, p]
    for g in range(NUM_GOODS):
        goods[g] = s.goods[b, p, g]
    if n_skull >= REVOLT_SKULLS and not devs[RELIGION]:
        for g in range(NUM_GOODS):
            goods[g] = 0
    else:
        n_units = n_good + 2 * n_skull
        for i in range(n_units):  # spec 5.3a: one unit at a time from wood
            g = i % NUM_GOODS
            if goods[g] < GOODS_MAX[g]:
                goods[g] += 1
        if devs[QUARRYING] and n_units >= 2 and goods[STONE] < GOODS_MAX[STONE]:
            goods[STONE] += 1
    coins = n_coins * (12 if devs[COINAGE] else 7)
    kept = _goods_worth(s, b, p, goods, ws)
    buy = _buy_gain_estimate(goods, coins, dev_value, params, subset_value)
    return params[_GOODS_COIN_VALUE] * kept + buy + 0.001 * coins


@njit(cache=True)
def _disaster_part(s, b, p, n_skull, params):
    """spec 2.7 / 8.1: worth of the skull row for us (negative) or against the opponents (positive)."""
    P = s.food.shape[1]
    devs = s.developments[b, p]
    if n_skull == DROUGHT_SKULLS:
        return 0.0 if devs[IRRIGATION] else -float(DROUGHT_POINTS)
    if n_skull == PESTILENCE_SKULLS:
        if P == 1:
            return 0.0 if devs[MEDICINE] else -float(PESTILENCE_POINTS)
        hit = 0
        for q in range(P):
            if q != p and not s.developments[b, q, MEDICINE]:
                hit += 1
        return params[_OPPONENT_WEIGHT] * PESTILENCE_POINTS * hit
    if n_skull == INVASION_SKULLS:
        return 0.0 if s.monument_progress[b, p, GREAT_WALL] >= MONUMENT_WORKERS[GREAT_WALL] else -float(INVASION_POINTS)
    if n_skull >= REVOLT_SKULLS and devs[RELIGION] and P > 1:  # our own goods loss is in _goods_part
        lost = 0
        for q in range(P):
            if q != p and not s.developments[b, q, RELIGION]:
                lost += _raw_goods_value(s.goods[b, q])
        return params[_OPPONENT_WEIGHT] * params[_GOODS_COIN_VALUE] * lost
    return 0.0


@njit(cache=True)
def _food_workers_part(s, b, p, n_food, fw_food, fw_workers, n_workers, in_play, R, params, ws, cache):
    """Worth of the food and workers from the dice (fw_* = FW2 dice taken as food / workers)."""
    wcache, wstamp, stamp = cache[0], cache[1], cache[2]
    devs = s.developments[b, p]
    agri = 1 if devs[AGRICULTURE] else 0
    mason = 1 if devs[MASONRY] else 0
    cities = _cities(s.city_workers[b, p])
    food = min(FOOD_MAX, s.food[b, p] + n_food * (3 + agri) + fw_food * (2 + agri))
    value = 0.0
    if food < cities:
        value -= params[_FAMINE_WEIGHT] * (cities - food)
    else:
        value += _food_value(food - cities, cities, params)
    workers = n_workers * (3 + mason) + fw_workers * (2 + mason)
    if wstamp[workers] != stamp[0]:
        wstamp[workers] = stamp[0]
        wcache[workers] = _workers_value(s, b, p, workers, in_play, R, params, ws)
    return value + wcache[workers]


@njit(cache=True)
def _dice_utility(s, b, p, counts, in_play, R, dev_value, params, ws, cache):
    """Utility of final dice with face counts `counts` (6,), FW2 dice split in the best way."""
    gcache, gstamp, stamp = cache[3], cache[4], cache[2]
    n_fw = counts[FW2]
    best = -1e18
    for k in range(n_fw + 1):  # k FW2 dice as food
        v = _food_workers_part(s, b, p, counts[FOOD3], k, n_fw - k, counts[WORKERS3], in_play, R, params, ws, cache)
        best = max(best, v)
    key_s, key_g, key_c = counts[SKULL], counts[GOOD1], counts[COINS7]
    if gstamp[key_s, key_g, key_c] != stamp[0]:
        gstamp[key_s, key_g, key_c] = stamp[0]
        gcache[key_s, key_g, key_c] = (_goods_part(s, b, p, key_s, key_g, key_c, dev_value, params, ws)
                                       + _disaster_part(s, b, p, key_s, params))
    return best + gcache[key_s, key_g, key_c]


@njit(cache=True)
def _reroll_gain(s, b, p, counts, face, base, in_play, R, dev_value, params, ws, cache):
    """Expected utility change from rerolling one die showing `face` (others as in `counts`)."""
    counts[face] -= 1
    ev = 0.0
    for f in range(NUM_FACES):
        counts[f] += 1
        ev += _dice_utility(s, b, p, counts, in_play, R, dev_value, params, ws, cache)
        counts[f] -= 1
    counts[face] += 1
    return ev / NUM_FACES - base


@njit(cache=True)
def _roll_action(s, b, p, in_play, R, dev_value, params, ws, cache):
    """ROLL: mark the next die of the greedy reroll set, roll once all are marked, else PASS."""
    solo = s.food.shape[1] == 1
    counts, avail, chosen = ws[7], ws[8], ws[9]
    for f in range(NUM_FACES):
        counts[f] = 0
        avail[f] = 0
        chosen[f] = 0
    for i in range(MAX_DICE):
        f = s.dice[b, i]
        if f != NO_DIE:
            counts[f] += 1
            if solo or f != SKULL:
                avail[f] += 1
    eps = params[_ROLL_EPS_EARLY] if s.rolls_used[b] + 1 < MAX_ROLLS else params[_ROLL_EPS_LATE]
    base = _dice_utility(s, b, p, counts, in_play, R, dev_value, params, ws, cache)
    while True:
        best_f = -1
        best_gain = eps
        for f in range(NUM_FACES):
            if avail[f] > chosen[f]:
                gain = _reroll_gain(s, b, p, counts, f, base, in_play, R, dev_value, params, ws, cache)
                if gain > best_gain:
                    best_gain = gain
                    best_f = f
        if best_f < 0:
            break
        # the chosen die now counts as a blank while the next reroll is considered
        chosen[best_f] += 1
        counts[best_f] -= 1
        base = _dice_utility(s, b, p, counts, in_play, R, dev_value, params, ws, cache)
    # the chosen dice are the first chosen[f] dice (by index) of each face that may be rerolled
    any_marked = False
    for f in range(NUM_FACES):
        counts[f] = 0
    for i in range(MAX_DICE):
        f = s.dice[b, i]
        if f == NO_DIE or not (solo or f != SKULL):
            continue
        if counts[f] < chosen[f]:
            counts[f] += 1
            if not s.marked[b, i]:
                return ACTION_MARK_REROLL + i
        any_marked = any_marked or s.marked[b, i]
    return ACTION_ROLL if any_marked else ACTION_PASS


@njit(cache=True)
def _leadership_action(s, b, p, in_play, R, dev_value, params, ws, cache):
    """LEADERSHIP: reroll the one die (skulls included) with the largest expected gain, if worth it."""
    counts = ws[7]
    for f in range(NUM_FACES):
        counts[f] = 0
    for i in range(MAX_DICE):
        if s.dice[b, i] != NO_DIE:
            counts[s.dice[b, i]] += 1
    base = _dice_utility(s, b, p, counts, in_play, R, dev_value, params, ws, cache)
    best_f = -1
    best_gain = params[_LEADERSHIP_EPS]
    for f in range(NUM_FACES):
        if counts[f] > 0:
            gain = _reroll_gain(s, b, p, counts, f, base, in_play, R, dev_value, params, ws, cache)
            if gain > best_gain:
                best_gain = gain
                best_f = f
    if best_f < 0:
        return ACTION_PASS
    for i in range(MAX_DICE):
        if s.dice[b, i] == best_f:
            return ACTION_LEADERSHIP_REROLL + i
    return ACTION_PASS


@njit(cache=True)
def _choose_fw_action(s, b, p, in_play, R, params, ws, cache):
    """CHOOSE_FW: the best food/worker split of the undecided FW2 dice; decide the next one."""
    n_food = 0
    n_workers = 0
    fw_food = 0
    fw_workers = 0
    undecided = 0
    for i in range(MAX_DICE):
        f = s.dice[b, i]
        if f == FOOD3:
            n_food += 1
        elif f == WORKERS3:
            n_workers += 1
        elif f == FW2:
            if s.fw_choice[b, i] == FW_FOOD_CHOSEN:
                fw_food += 1
            elif s.fw_choice[b, i] == FW_WORKERS_CHOSEN:
                fw_workers += 1
            else:
                undecided += 1
    best_k = 0
    best_v = -1e18
    for k in range(undecided + 1):  # the smallest best k, so later steps keep the same split
        v = _food_workers_part(s, b, p, n_food, fw_food + k, fw_workers + undecided - k, n_workers,
                               in_play, R, params, ws, cache)
        if v > best_v + 1e-9:
            best_v = v
            best_k = k
    return ACTION_FW_FOOD if best_k > 0 else ACTION_FW_WORKERS


# --- build, buy, discard, trade -------------------------------------------------------------

@njit(cache=True)
def _build_action(s, b, p, mask_row, in_play, R, params, ws):
    progress, done_by_anyone = ws[3], ws[4]
    for m in range(NUM_MONUMENTS):
        progress[m] = s.monument_progress[b, p, m]
        done_by_anyone[m] = s.completed_by_anyone[b, m]
    city_workers = np.int64(s.city_workers[b, p])
    stones = np.int64(s.goods[b, p, STONE])
    engineering = mask_row[ACTION_ENGINEERING]
    w = np.int64(s.workers[b])
    if w > 0:
        w_total = w + (ENGINEERING_WORKERS_PER_STONE * stones if engineering else 0)
        t, v = _best_target(s, b, p, city_workers, progress, done_by_anyone, in_play, w_total, R, params)
        if t < 0:
            return ACTION_PASS
        return ACTION_BUILD_CITY if t == 0 else ACTION_BUILD_MONUMENT + t - 1
    if not engineering:
        return ACTION_PASS
    # one stone -> 3 workers, if they are worth more than the stone as payment (its top unit)
    t, v = _best_target(s, b, p, city_workers, progress, done_by_anyone, in_play,
                        ENGINEERING_WORKERS_PER_STONE * stones, R, params)
    stone_worth = params[_GOODS_COIN_VALUE] * (GOODS_VALUE[STONE, stones] - GOODS_VALUE[STONE, stones - 1])
    if t >= 0 and ENGINEERING_WORKERS_PER_STONE * v > stone_worth:
        return ACTION_ENGINEERING
    return ACTION_PASS


@njit(cache=True)
def _buy_action(s, b, p, dev_value, params, ws):
    """BUY: the development and payment (coins + whole tracks + Granaries food) of largest gain."""
    goods, rest = ws[5], ws[10]
    for g in range(NUM_GOODS):
        goods[g] = s.goods[b, p, g]
    lam = params[_GOODS_COIN_VALUE]
    coins = np.int64(s.coins[b])
    food = np.int64(s.food[b, p])
    marked_food = np.int64(s.marked_food[b])
    granaries = s.developments[b, p, GRANARIES]
    cities = _cities(s.city_workers[b, p])
    marked = 0
    present = 0
    for g in range(NUM_GOODS):
        if s.marked_goods[b, g]:
            marked |= 1 << g
        if goods[g] > 0:
            present |= 1 << g
    best_u = lam * _goods_worth(s, b, p, goods, ws)  # passing keeps everything
    best_d = -1
    best_sm = 0
    best_k = 0
    for sm in range(1 << NUM_GOODS):
        if (sm & marked) != marked or (sm & ~present) != 0:
            continue
        paid = 0
        for g in range(NUM_GOODS):
            if (sm >> g) & 1:
                paid += GOODS_VALUE[g, goods[g]]
                rest[g] = 0
            else:
                rest[g] = goods[g]
        kept_u = lam * _goods_worth(s, b, p, rest, ws)
        for d in range(NUM_DEVELOPMENTS):
            if dev_value[d] <= 0.0:
                continue
            short = DEVELOPMENT_COST[d] - coins - paid
            k = 0
            if short > 0:
                k = (short + GRANARIES_COINS_PER_FOOD - 1) // GRANARIES_COINS_PER_FOOD
            k = max(k, marked_food)
            if k > 0 and (not granaries or k > food):
                continue
            u = kept_u + dev_value[d] - (_food_value(food, cities, params) - _food_value(food - k, cities, params))
            if u > best_u + 1e-9:
                best_u = u
                best_d = d
                best_sm = sm
                best_k = k
    if best_d < 0:
        return ACTION_PASS
    for g in range(NUM_GOODS):
        if (best_sm >> g) & 1 and not s.marked_goods[b, g]:
            return ACTION_PAY_GOOD + g
    if marked_food < best_k:
        return ACTION_PAY_FOOD
    return ACTION_BUY_DEV + best_d


@njit(cache=True)
def _discard_action(s, b, p, ws):
    """DISCARD: drop a unit the best kept set of 6 does not contain."""
    goods, keep, dp, choice = ws[5], ws[2], ws[0], ws[1]
    for g in range(NUM_GOODS):
        goods[g] = s.goods[b, p, g]
    _kept_goods(goods, GOODS_LIMIT, keep, dp, choice)
    for g in range(NUM_GOODS):
        if goods[g] > keep[g]:
            return ACTION_DISCARD + g
    return -1


@njit(cache=True)
def _holding_value(s, b, q, delta_sign, give, take):
    """Goods value plus 1 per food of seat q after receiving `give` and handing over `take`."""
    v = 0
    for t in range(NUM_TRADE_TYPES):
        n = (s.food[b, q] if t == TRADE_FOOD else s.goods[b, q, t]) + delta_sign * (give[t] - take[t])
        v += n if t == TRADE_FOOD else GOODS_VALUE[t, n]
    return v


@njit(cache=True)
def _respond_action(s, b):
    """TRADE_RESPOND: accept when what we receive is worth at least what we give."""
    q = s.to_play[b]
    before = _holding_value(s, b, q, 0, s.offer_give[b], s.offer_take[b])
    after = _holding_value(s, b, q, 1, s.offer_give[b], s.offer_take[b])
    return ACTION_ACCEPT if after >= before else ACTION_DECLINE


# --- entry point ----------------------------------------------------------------------------

@njit(cache=True)
def heuristic_actions_nb(s, mask, u, out, in_play, params, fallback):
    """out[b] = the heuristic's action for the seat to play in row b.

    Args:
        s: the batched State; mask: (B, A) legal actions; u: (B,) uniforms for the fallback.
        out: (B,) int64 written; in_play: (7,) monuments in play; params: DEFAULT_PARAMS layout.
        fallback: (B,) bool written: True where the logic chose an illegal action and a random
            legal one was taken instead (never expected; the tests check it).
    """
    B = s.done.shape[0]
    dp = np.zeros((NUM_GOODS + 1, GOODS_LIMIT + 1), dtype=np.int64)
    choice = np.zeros((NUM_GOODS, GOODS_LIMIT + 1), dtype=np.int64)
    keep = np.zeros(NUM_GOODS, dtype=np.int64)
    progress = np.zeros(NUM_MONUMENTS, dtype=np.int64)
    done_by_anyone = np.zeros(NUM_MONUMENTS, dtype=np.bool_)
    goods = np.zeros(NUM_GOODS, dtype=np.int64)
    subset_value = np.zeros(1 << NUM_GOODS, dtype=np.int64)
    counts = np.zeros(NUM_FACES, dtype=np.int64)
    avail = np.zeros(NUM_FACES, dtype=np.int64)
    chosen = np.zeros(NUM_FACES, dtype=np.int64)
    rest = np.zeros(NUM_GOODS, dtype=np.int64)
    ws = (dp, choice, keep, progress, done_by_anyone, goods, subset_value, counts, avail, chosen, rest)
    # per-row memo tables, valid where their stamp equals stamp[0] (no clearing between rows)
    max_workers = MAX_DICE * 4 + 1
    wcache = np.zeros(max_workers, dtype=np.float64)
    wstamp = np.zeros(max_workers, dtype=np.int64)
    stamp = np.zeros(1, dtype=np.int64)
    gcache = np.zeros((MAX_DICE + 1, MAX_DICE + 1, MAX_DICE + 1), dtype=np.float64)
    gstamp = np.zeros((MAX_DICE + 1, MAX_DICE + 1, MAX_DICE + 1), dtype=np.int64)
    cache = (wcache, wstamp, stamp, gcache, gstamp)
    dev_value = np.zeros(NUM_DEVELOPMENTS, dtype=np.float64)
    for b in range(B):
        fallback[b] = False
        if s.done[b]:
            out[b] = 0
            continue
        stamp[0] = b + 1
        p = np.int64(s.active[b])
        phase = s.phase[b]
        a = -1
        if phase == PHASE_TRADE_RESPOND:
            a = _respond_action(s, b)
        elif phase == PHASE_TRADE or phase == PHASE_TRADE_OFFER:
            a = ACTION_PASS  # never offer; withdraw an open offer
        elif phase == PHASE_DISCARD:
            a = _discard_action(s, b, p, ws)
        else:
            R = _remaining_turns(s, b, p, in_play, params)
            if phase == PHASE_BUILD:
                a = _build_action(s, b, p, mask[b], in_play, R, params, ws)
            elif phase == PHASE_CHOOSE_FW:
                a = _choose_fw_action(s, b, p, in_play, R, params, ws, cache)
            else:
                _dev_values(s, b, p, R, params, dev_value)
                if phase == PHASE_BUY:
                    a = _buy_action(s, b, p, dev_value, params, ws)
                elif phase == PHASE_ROLL:
                    a = _roll_action(s, b, p, in_play, R, dev_value, params, ws, cache)
                elif phase == PHASE_LEADERSHIP:
                    a = _leadership_action(s, b, p, in_play, R, dev_value, params, ws, cache)
        if a < 0 or a >= mask.shape[1] or not mask[b, a]:
            fallback[b] = True
            n = 0
            for k in range(mask.shape[1]):
                n += mask[b, k]
            pick = min(int(u[b] * n), n - 1)
            for k in range(mask.shape[1]):
                if mask[b, k]:
                    if pick == 0:
                        a = k
                        break
                    pick -= 1
        out[b] = a


class Heuristic:
    """The hand-written Roll Through the Ages player (strategy in the module docstring).

    Keyword arguments override entries of `DEFAULT_PARAMS` by name, e.g. `Heuristic(slot_cost=4.0)`.
    """

    name = "heuristic"

    def __init__(self, **params: float) -> None:
        self.params = DEFAULT_PARAMS.copy()
        for key, value in params.items():
            if key not in PARAM_NAMES:
                raise ValueError(f"unknown heuristic parameter {key!r}; known: {PARAM_NAMES}")
            self.params[PARAM_NAMES.index(key)] = float(value)
        self.fallbacks = 0  # rows where the logic picked an illegal action (should stay 0)

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        mask = game.legal_action_mask(state)
        B = mask.shape[0]
        out = np.empty(B, dtype=np.int64)
        fallback = np.empty(B, dtype=np.bool_)
        heuristic_actions_nb(state, mask, rng.random(B), out, game.monuments_in_play, self.params, fallback)
        self.fallbacks += int(fallback.sum())
        return out
