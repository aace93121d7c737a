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

Remaining turns are estimated from the development race (turns_per_dev per development the leader
still needs, plus base_turns) and are 10 - round in solo play. All weights live in `DEFAULT_PARAMS`
so variants can be compared (`Heuristic(city_die_value=0.6)` overrides one); the defaults come from
coordinate ascent on the 2-player self-play win rate (each step a 6000-game match against the
current best) and also win against the untuned weights at 3 and 4 players and score more solo. The
kernel falls back to a random legal action (and flags the row) if its choice is ever illegal; the
tests check that it never is.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from meeple.agents.heuristics import TunedHeuristic
from meeple.envs.base import I64, Field
from meeple.envs.jit import kernel
from meeple.envs.roll_through_the_ages.state import State
from meeple.envs.roll_through_the_ages.kernels import (
    cities_of, coins_per_die, collect_goods, completed_monuments_of, dice_faces, dice_yield, goods_value, monument_done,
    score_of,
)
from meeple.envs.roll_through_the_ages.data import (
    ACTION_ACCEPT, ACTION_BUILD_CITY, ACTION_BUILD_MONUMENT, ACTION_BUY_DEV, ACTION_DECLINE,
    ACTION_DISCARD, ACTION_ENGINEERING, ACTION_FW_FOOD, ACTION_FW_WORKERS, ACTION_LEADERSHIP_REROLL,
    ACTION_MARK_REROLL, ACTION_PASS, ACTION_PAY_FOOD, ACTION_PAY_GOOD, ACTION_ROLL, AGRICULTURE,
    ARCHITECTURE, CARAVANS, CITY_THRESHOLDS, COINAGE, COINS7, DEVELOPMENT_COST, DEVELOPMENT_POINTS,
    DROUGHT_POINTS, DROUGHT_SKULLS, EMPIRE, ENGINEERING_WORKERS_PER_STONE, FOOD3, FOOD_MAX, FW2,
    GOOD1, GOODS_LIMIT, GOODS_VALUE, GRANARIES,
    GRANARIES_COINS_PER_FOOD, GREAT_WALL, INVASION_POINTS, INVASION_SKULLS, IRRIGATION, MASONRY,
    MAX_DICE, MAX_ROLLS, MEDICINE, MONUMENT_FIRST, MONUMENT_LATER, MONUMENT_WORKERS, NO_DIE,
    NUM_DEVELOPMENTS, NUM_FACES, NUM_GOODS, NUM_MONUMENTS, NUM_TRADE_TYPES, PESTILENCE_POINTS,
    PESTILENCE_SKULLS, DEC_BUILD, DEC_BUY, DEC_CHOOSE_FW, DEC_DISCARD, DEC_LEADERSHIP,
    DEC_ROLL, DEC_TRADE, DEC_TRADE_OFFER, DEC_TRADE_RESPOND, QUARRYING, RELIGION,
    REVOLT_SKULLS, SKULL, SOLO_ROUNDS, STONE, TRADE_FOOD, WORKERS3,
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
    "base_turns",          # remaining turns estimated once the leader has 4 developments
    "dev_effect_scale",    # multiplies DEV_RATE (worth of development effects per turn)
)
DEFAULT_PARAMS = np.array(
    [0.15, 1.0, 0.2, 0.1, 0.55, 0.9, 0.75, 3.0, 0.6, 2.0, -0.2, 0.05, 0.05, 3.0, 40.0, 2.0, 0.7],
    dtype=np.float64,
)
(_GOODS_COIN_VALUE, _FAMINE_WEIGHT, _FOOD_RESERVE_VALUE, _FOOD_EXTRA_VALUE, _CITY_DIE_VALUE,
 _PARTIAL_CITY, _PARTIAL_MONUMENT, _SLOT_COST, _OPPONENT_WEIGHT, _END_MARGIN, _ROLL_EPS_EARLY,
 _ROLL_EPS_LATE, _LEADERSHIP_EPS, _TURNS_PER_DEV, _LATE_ROUND, _BASE_TURNS, _DEV_EFFECT_SCALE) = range(
    len(PARAM_NAMES))
assert DEFAULT_PARAMS.shape == (len(PARAM_NAMES),)

# Points per remaining turn of each development's effect, a rough guess per effect:
# Leadership, Irrigation, Agriculture, Quarrying, Medicine (per opponent), Coinage, Caravans,
# Religion, Granaries, Masonry, Engineering, Architecture, Empire (bonuses counted separately).
DEV_RATE = np.array([0.3, 0.3, 0.4, 0.25, 0.2, 0.5, 0.3, 0.1, 0.35, 0.5, 0.4, 0.0, 0.0], dtype=np.float64)
ARCHITECTURE_RATE = 0.2  # monuments completed per remaining turn, for the Architecture bonus
EMPIRE_RATE = 0.25  # cities built per remaining turn, for the Empire bonus
# chance per turn of rolling exactly 4 skulls, by number of dice (an Invasion; the Great Wall stops it)
INVASION_RISK = np.array([0.0, 0.0, 0.0, 0.0, 0.03, 0.06, 0.09, 0.12], dtype=np.float64)
END_BONUS = 5.0  # extra value of ending the game while ahead
NEVER = -1e9

# Per-row context `w.ctx` (float64), filled once per row by `_prepare_row`: what the many dice-utility
# evaluations of one decision share, plus their memos (reset per row).
(_X_R, _X_CITY_VALUE, _X_CITY_WORKERS, _X_CITIES, _X_FOOD, _X_FOOD_BONUS, _X_WORKER_BONUS,
 _X_COIN_VALUE, _X_REVOLT_LOSES, _X_QUARRYING, _X_CARAVANS) = range(11)
_X_DISASTER = 11  # 8 entries: worth of the skull row for 0..7 skulls
_X_DEV = _X_DISASTER + MAX_DICE + 1  # 13 entries: worth of buying development d now
_X_MON_VALUE = _X_DEV + NUM_DEVELOPMENTS  # 7 entries: worth of completing monument m
_X_MON_REM = _X_MON_VALUE + NUM_MONUMENTS  # 7 entries: its open boxes (0: closed or not in play)
_X_GOODS = _X_MON_REM + NUM_MONUMENTS  # 5 entries: goods held
_MAX_WORKERS = MAX_DICE * 4  # 7 WORKERS3 dice with Masonry
_X_WMEMO = _X_GOODS + NUM_GOODS  # memo, NaN = unknown: worth of w workers, w = 0..28
_X_GMEMO = _X_WMEMO + _MAX_WORKERS + 1  # memo: worth of (skulls, goods, coins) dice, 8 x 8 x 8
_X_SIZE = _X_GMEMO + (MAX_DICE + 1) ** 3

# one agent's scratch (kernels never allocate), built once per agent by `make_scratch`
SCRATCH = (
    Field("ctx", (_X_SIZE,), np.float64, doc="per-row context, the _X_* layout above"),
    Field("counts", (NUM_FACES,), I64, doc="dice per face"),
    Field("avail", (NUM_FACES,), I64, doc="rerollable dice per face"),
    Field("chosen", (NUM_FACES,), I64, doc="dice per face chosen for the reroll"),
    Field("rem", (NUM_MONUMENTS,), I64, doc="open monument boxes while placing workers"),
    Field("goods", (NUM_GOODS,), I64, doc="goods"),
    Field("rest", (NUM_GOODS,), I64, doc="goods left after a payment"),
    Field("keep", (NUM_GOODS,), I64, doc="goods kept after discarding"),
    Field("subset", (1 << NUM_GOODS,), I64, doc="value of each set of whole tracks"),
    Field("dp", (NUM_GOODS + 1, GOODS_LIMIT + 1), I64, doc="discard knapsack values"),
    Field("choice", (NUM_GOODS, GOODS_LIMIT + 1), I64, doc="discard knapsack choices"),
)
_Scratch = namedtuple("_Scratch", [f.name for f in SCRATCH])
_NUM_SCRATCH = len(SCRATCH)

# build targets: 0 = the next city, 1 + m = monument m
_NUM_TARGETS = 1 + NUM_MONUMENTS


# --- small helpers --------------------------------------------------------------------------

@kernel
def _next_city_need(city_workers):
    """Workers still missing for the next city, 0 when all 7 are built."""
    for t in range(CITY_THRESHOLDS.shape[0]):
        if city_workers < CITY_THRESHOLDS[t]:
            return CITY_THRESHOLDS[t] - city_workers
    return 0


@kernel
def _kept_goods(goods, limit, keep, w):
    """Most valuable way to keep at most `limit` units of `goods` (5,): writes `keep`, returns its value.

    Track values are convex, so greedy discarding can be wrong (wood 6 + pottery 2, two to go: drop
    the pottery); a knapsack over the five tracks is exact. dp(g, j) = best value of tracks g.. with
    at most j units, in w.dp (and the best count of track g in w.choice).
    """
    total = 0
    for g in range(NUM_GOODS):
        total += goods[g]
    if total <= limit:
        for g in range(NUM_GOODS):
            keep[g] = goods[g]
        return goods_value(goods)
    for j in range(limit + 1):
        w.dp[NUM_GOODS, j] = 0
    for g in range(NUM_GOODS - 1, -1, -1):
        for j in range(limit + 1):
            best = -1
            arg = 0
            for k in range(min(goods[g], j) + 1):
                v = GOODS_VALUE[g, k] + w.dp[g + 1, j - k]
                if v > best:
                    best = v
                    arg = k
            w.dp[g, j] = best
            w.choice[g, j] = arg
    j = limit
    for g in range(NUM_GOODS):
        keep[g] = w.choice[g, j]
        j -= keep[g]
    return w.dp[0, limit]


@kernel
def _goods_worth(goods, caravans, w):
    """Value (coins) of the goods still held after the discard phase."""
    if caravans:
        return goods_value(goods)
    return _kept_goods(goods, GOODS_LIMIT, w.keep, w)


@kernel
def _food_value(food_left, cities, params):
    """Concave worth of food kept after feeding: it saves dice on the next turns."""
    first = min(food_left, cities)
    extra = min(food_left, 2 * cities) - first
    return params[_FOOD_RESERVE_VALUE] * first + params[_FOOD_EXTRA_VALUE] * extra


# --- per-row context ------------------------------------------------------------------------

@kernel
def _lead(s, b, p):
    """Our score minus the best opponent's (0 in solo)."""
    P = s.food.shape[1]
    if P == 1:
        return 0
    best = -(1 << 30)
    for q in range(P):
        if q != p:
            best = max(best, score_of(s, b, q))
    return score_of(s, b, p) - best


@kernel
def _remaining_turns(s, b, in_play, params):
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
    r = params[_TURNS_PER_DEV] * (4 - min(most, 4)) + params[_BASE_TURNS]
    open_monuments = 0
    for m in range(NUM_MONUMENTS):
        if in_play[m] and not s.completed_by_anyone[b, m]:
            open_monuments += 1
    if open_monuments <= 1:
        r = min(r, 2.0)
    return r


@kernel
def _may_end_game(s, b, lead_after, params):
    """Whether we may trigger the end now: `lead_after` (our lead then) reaches the margin, or late."""
    if s.food.shape[1] == 1 or s.final_round[b]:
        return True
    return lead_after >= params[_END_MARGIN] or s.round[b] >= params[_LATE_ROUND]


@kernel
def _dev_values(s, b, p, R, lead, params, w):
    """w.ctx[_X_DEV + d] = worth of buying development d now (NEVER if owned or not wanted)."""
    P = s.food.shape[1]
    solo = P == 1
    owned = 0
    for d in range(NUM_DEVELOPMENTS):
        owned += s.developments[b, p, d]
    completed = completed_monuments_of(s, b, p)
    cities = cities_of(s.city_workers[b, p])
    for d in range(NUM_DEVELOPMENTS):
        if s.developments[b, p, d]:
            w.ctx[_X_DEV + d] = NEVER
            continue
        now = float(DEVELOPMENT_POINTS[d])  # points scored at once
        if d == ARCHITECTURE:
            now += completed
        elif d == EMPIRE:
            now += cities
        later = DEV_RATE[d] * params[_DEV_EFFECT_SCALE] * R
        if d == MEDICINE and not solo:
            later *= P - 1
        elif d == ARCHITECTURE:
            later = ARCHITECTURE_RATE * R
        elif d == EMPIRE:
            later = min(7.0 - cities, EMPIRE_RATE * R)
        if solo:
            value = now + later
        elif s.final_round[b]:
            value = now
        elif owned >= 4:  # the 5th development ends the game
            value = now + END_BONUS if _may_end_game(s, b, lead + now, params) else NEVER
        else:
            value = now + later - params[_SLOT_COST]
        w.ctx[_X_DEV + d] = value


@kernel
def _monument_values(s, b, p, in_play, R, lead, params, w):
    """w.ctx[_X_MON_VALUE + m] = worth of completing monument m; w.ctx[_X_MON_REM + m] = its open boxes.

    Only our own completions change these, so they stay valid while workers are placed.
    """
    solo = s.food.shape[1] == 1
    n_open = 0
    for m in range(NUM_MONUMENTS):
        if in_play[m] and not s.completed_by_anyone[b, m]:
            n_open += 1
    cities = cities_of(s.city_workers[b, p])
    for m in range(NUM_MONUMENTS):
        rem = MONUMENT_WORKERS[m] - s.monument_progress[b, p, m]
        rem = rem if in_play[m] and rem > 0 else 0
        value = 0.0
        if rem > 0:
            first = solo or not s.completed_by_anyone[b, m]
            value = float(MONUMENT_FIRST[m] if first else MONUMENT_LATER[m])
            if s.developments[b, p, ARCHITECTURE]:
                value += 1.0
            if m == GREAT_WALL:
                value += INVASION_POINTS * INVASION_RISK[cities] * R
            if not solo and first and n_open == 1 and not _may_end_game(s, b, lead + value, params):
                value = 0.0  # the last open monument ends the game: not while behind
        w.ctx[_X_MON_VALUE + m] = value
        w.ctx[_X_MON_REM + m] = rem


@kernel
def _disaster_values(s, b, p, params, w):
    """w.ctx[_X_DISASTER + n] = worth of n skulls (solo rules included): < 0 hurts us, > 0 the others."""
    P = s.food.shape[1]
    devs = s.developments[b, p]
    lost = 0  # opponents' goods a Religion revolt wipes
    hit = 0  # opponents a pestilence hits
    for q in range(P):
        if q != p:
            hit += not s.developments[b, q, MEDICINE]
            if not s.developments[b, q, RELIGION]:
                lost += goods_value(s.goods[b, q])
    ow = params[_OPPONENT_WEIGHT]
    for n in range(MAX_DICE + 1):
        v = 0.0
        if n == DROUGHT_SKULLS and not devs[IRRIGATION]:
            v = -float(DROUGHT_POINTS)
        elif n == PESTILENCE_SKULLS:
            if P == 1:
                v = 0.0 if devs[MEDICINE] else -float(PESTILENCE_POINTS)
            else:
                v = ow * PESTILENCE_POINTS * hit
        elif n == INVASION_SKULLS and not monument_done(s, b, p, GREAT_WALL):
            v = -float(INVASION_POINTS)
        elif n >= REVOLT_SKULLS and devs[RELIGION] and P > 1:  # our own loss is in _goods_part
            v = ow * params[_GOODS_COIN_VALUE] * lost
        w.ctx[_X_DISASTER + n] = v


@kernel
def _prepare_row(s, b, p, in_play, params, w):
    """Fill the per-row context `w` for the active player p of row b."""
    devs = s.developments[b, p]
    R = _remaining_turns(s, b, in_play, params)
    lead = _lead(s, b, p)
    w.ctx[_X_R] = R
    w.ctx[_X_CITY_VALUE] = params[_CITY_DIE_VALUE] * R + (1.0 if devs[EMPIRE] else 0.0)
    w.ctx[_X_CITY_WORKERS] = s.city_workers[b, p]
    w.ctx[_X_CITIES] = cities_of(s.city_workers[b, p])
    w.ctx[_X_FOOD] = s.food[b, p]
    w.ctx[_X_FOOD_BONUS] = 1.0 if devs[AGRICULTURE] else 0.0
    w.ctx[_X_WORKER_BONUS] = 1.0 if devs[MASONRY] else 0.0
    w.ctx[_X_COIN_VALUE] = coins_per_die(devs[COINAGE])
    w.ctx[_X_REVOLT_LOSES] = 0.0 if devs[RELIGION] else 1.0
    w.ctx[_X_QUARRYING] = 1.0 if devs[QUARRYING] else 0.0
    w.ctx[_X_CARAVANS] = 1.0 if devs[CARAVANS] else 0.0
    for g in range(NUM_GOODS):
        w.ctx[_X_GOODS + g] = s.goods[b, p, g]
    _disaster_values(s, b, p, params, w)
    _dev_values(s, b, p, R, lead, params, w)
    _monument_values(s, b, p, in_play, R, lead, params, w)
    w.ctx[_X_WMEMO:] = np.nan  # the memos hold for this row only


# --- building -------------------------------------------------------------------------------

@kernel(inline="always")
def _target_value(t, city_workers, rem, w_total, w, params):
    """Worth per worker of target t (0 = the next city, 1 + m = monument m) with w_total workers.

    rem (7,) are the monuments' open boxes. Boxes that cannot be finished with w_total workers are
    discounted, and worthless when no turn is left to finish them.
    """
    R = w.ctx[_X_R]
    if t == 0:
        need = _next_city_need(city_workers)
        if need == 0:
            return 0.0
        per = w.ctx[_X_CITY_VALUE] / need
        if need > w_total:
            per *= params[_PARTIAL_CITY] if R > 0 else 0.0
        return per
    open_boxes = rem[t - 1]
    if open_boxes == 0:
        return 0.0
    per = w.ctx[_X_MON_VALUE + t - 1] / open_boxes
    if open_boxes > w_total:
        per *= params[_PARTIAL_MONUMENT] if R > 0 else 0.0
    return per


@kernel(inline="always")
def _best_target(city_workers, rem, w_total, w, params):
    best_t = -1
    best_v = 1e-9
    for t in range(_NUM_TARGETS):
        v = _target_value(t, city_workers, rem, w_total, w, params)
        if v > best_v:
            best_v = v
            best_t = t
    return best_t, best_v


@kernel
def _load_rem(w, rem):
    for m in range(NUM_MONUMENTS):
        rem[m] = int(w.ctx[_X_MON_REM + m])


@kernel
def _workers_value(workers, w, params):
    """Worth of placing `workers` greedily now (BUILD's own rule), in the scratch w.rem."""
    rem = w.rem
    _load_rem(w, rem)
    city_workers = int(w.ctx[_X_CITY_WORKERS])
    total = 0.0
    left = workers
    while left > 0:
        t, v = _best_target(city_workers, rem, left, w, params)
        if t < 0:
            break
        # a target stays the best while workers go into it, so place a whole chunk at once
        if t == 0:
            k = min(left, _next_city_need(city_workers))
            city_workers += k
        else:
            k = min(left, rem[t - 1])
            rem[t - 1] -= k
        total += v * k
        left -= k
    return total


# --- dice utility ---------------------------------------------------------------------------

@kernel
def _buy_gain_estimate(goods, coins, w, params):
    """Best development worth minus the goods spent on it (cheapest covering set of whole tracks)."""
    subset_value = w.subset
    subset_value[0] = 0
    for sm in range(1, 1 << NUM_GOODS):
        low = sm & -sm  # lowest track in the set
        g = 0
        while (1 << g) != low:
            g += 1
        subset_value[sm] = subset_value[sm ^ low] + GOODS_VALUE[g, goods[g]]
    best = 0.0
    for d in range(NUM_DEVELOPMENTS):
        value = w.ctx[_X_DEV + d]
        if value <= 0.0:
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
        best = max(best, value - params[_GOODS_COIN_VALUE] * spent)
    return best


@kernel
def _goods_part(n_skull, n_good, n_coins, w, params):
    """Worth of the goods after collection (kept after discarding), of what coins + goods buy, and
    of the skull row."""
    goods = w.goods
    for g in range(NUM_GOODS):
        goods[g] = int(w.ctx[_X_GOODS + g])
    if n_skull >= REVOLT_SKULLS and w.ctx[_X_REVOLT_LOSES] > 0:  # a revolt takes all goods
        for g in range(NUM_GOODS):
            goods[g] = 0
    else:
        collect_goods(goods, n_good + 2 * n_skull, w.ctx[_X_QUARRYING] > 0)
    coins = n_coins * int(w.ctx[_X_COIN_VALUE])
    kept = _goods_worth(goods, w.ctx[_X_CARAVANS] > 0, w)
    buy = _buy_gain_estimate(goods, coins, w, params)
    return params[_GOODS_COIN_VALUE] * kept + buy + 0.001 * coins + w.ctx[_X_DISASTER + n_skull]


@kernel(inline="always")
def _food_workers_part(n_food, fw_food, fw_workers, n_workers, w, params):
    """Worth of the food and workers from the dice (fw_* = FW2 dice taken as food / workers)."""
    cities = int(w.ctx[_X_CITIES])
    food_bonus = int(w.ctx[_X_FOOD_BONUS])
    worker_bonus = int(w.ctx[_X_WORKER_BONUS])
    food = min(FOOD_MAX, int(w.ctx[_X_FOOD]) + dice_yield(n_food, fw_food, food_bonus))
    if food < cities:  # famine
        value = -params[_FAMINE_WEIGHT] * (cities - food)
    else:
        value = _food_value(food - cities, cities, params)
    workers = dice_yield(n_workers, fw_workers, worker_bonus)
    if np.isnan(w.ctx[_X_WMEMO + workers]):
        w.ctx[_X_WMEMO + workers] = _workers_value(workers, w, params)
    return value + w.ctx[_X_WMEMO + workers]


@kernel(inline="always")
def _dice_utility(counts, w, params):
    """Utility of final dice with face counts `counts` (6,), FW2 dice split in the best way."""
    n_fw = counts[FW2]
    best = -1e18
    for k in range(n_fw + 1):  # k FW2 dice as food
        best = max(best, _food_workers_part(counts[FOOD3], k, n_fw - k, counts[WORKERS3], w, params))
    n_skull, n_good, n_coins = counts[SKULL], counts[GOOD1], counts[COINS7]
    key = _X_GMEMO + (n_skull * (MAX_DICE + 1) + n_good) * (MAX_DICE + 1) + n_coins
    if np.isnan(w.ctx[key]):
        w.ctx[key] = _goods_part(n_skull, n_good, n_coins, w, params)
    return best + w.ctx[key]


@kernel(inline="always")
def _reroll_gain(counts, face, base, w, params):
    """Expected utility change from rerolling one die showing `face` (others as in `counts`)."""
    counts[face] -= 1
    ev = 0.0
    for f in range(NUM_FACES):
        counts[f] += 1
        ev += _dice_utility(counts, w, params)
        counts[f] -= 1
    counts[face] += 1
    return ev / NUM_FACES - base


@kernel
def _roll_action(s, b, w, params):
    """ROLL: mark the next die of the greedy reroll set, roll once all are marked, else PASS."""
    solo = s.food.shape[1] == 1
    counts = w.counts
    avail = w.avail
    chosen = w.chosen
    for f in range(NUM_FACES):
        counts[f] = 0
        avail[f] = 0
        chosen[f] = 0
    for i in range(MAX_DICE):
        f = s.dice[b, i]
        if f != NO_DIE:
            counts[f] += 1
            if solo or f != SKULL:  # skulls stay, except in solo play
                avail[f] += 1
    eps = params[_ROLL_EPS_EARLY] if s.rolls_used[b] + 1 < MAX_ROLLS else params[_ROLL_EPS_LATE]
    base = _dice_utility(counts, w, params)
    while True:
        best_f = -1
        best_gain = eps
        for f in range(NUM_FACES):
            if avail[f] > chosen[f]:
                gain = _reroll_gain(counts, f, base, w, params)
                if gain > best_gain:
                    best_gain = gain
                    best_f = f
        if best_f < 0:
            break
        # the chosen die now counts as a blank while the next reroll is considered
        chosen[best_f] += 1
        counts[best_f] -= 1
        base = _dice_utility(counts, w, params)
    # the chosen dice are the first chosen[f] rerollable dice (by index) of each face
    any_marked = False
    for f in range(NUM_FACES):
        counts[f] = 0
    for i in range(MAX_DICE):
        f = s.dice[b, i]
        if f == NO_DIE or (f == SKULL and not solo):
            continue
        if counts[f] < chosen[f]:
            counts[f] += 1
            if not s.marked[b, i]:
                return ACTION_MARK_REROLL + i
        any_marked = any_marked or s.marked[b, i]
    return ACTION_ROLL if any_marked else ACTION_PASS


@kernel
def _leadership_action(s, b, w, params):
    """LEADERSHIP: reroll the one die (skulls included) with the largest expected gain, if worth it."""
    counts = w.counts
    for f in range(NUM_FACES):
        counts[f] = 0
    for i in range(MAX_DICE):
        if s.dice[b, i] != NO_DIE:
            counts[s.dice[b, i]] += 1
    base = _dice_utility(counts, w, params)
    best_f = -1
    best_gain = params[_LEADERSHIP_EPS]
    for f in range(NUM_FACES):
        if counts[f] > 0:
            gain = _reroll_gain(counts, f, base, w, params)
            if gain > best_gain:
                best_gain = gain
                best_f = f
    for i in range(MAX_DICE):
        if best_f >= 0 and s.dice[b, i] == best_f:
            return ACTION_LEADERSHIP_REROLL + i
    return ACTION_PASS


@kernel
def _choose_fw_action(s, b, w, params):
    """CHOOSE_FW: the best food/worker split of the undecided FW2 dice; decide the next one."""
    _, n_food, _, _, n_workers, fw_food, fw_workers, undecided = dice_faces(s, b)  # the rules' count
    best_k = 0
    best_v = -1e18
    for k in range(undecided + 1):  # the smallest best k, so later steps keep the same split
        v = _food_workers_part(n_food, fw_food + k, fw_workers + undecided - k, n_workers, w, params)
        if v > best_v + 1e-9:
            best_v = v
            best_k = k
    return ACTION_FW_FOOD if best_k > 0 else ACTION_FW_WORKERS


# --- build, buy, discard, trade -------------------------------------------------------------

@kernel
def _build_action(s, b, p, mask_row, w, params):
    """BUILD: one worker on the target worth most per worker; Engineering when it pays."""
    rem = w.rem
    _load_rem(w, rem)
    city_workers = int(s.city_workers[b, p])
    stones = int(s.goods[b, p, STONE])
    engineering = mask_row[ACTION_ENGINEERING]
    workers = int(s.workers[b])
    if workers > 0:
        w_total = workers + (ENGINEERING_WORKERS_PER_STONE * stones if engineering else 0)
        t, v = _best_target(city_workers, rem, w_total, w, params)
        if t < 0:
            return ACTION_PASS
        return ACTION_BUILD_CITY if t == 0 else ACTION_BUILD_MONUMENT + t - 1
    if not engineering:
        return ACTION_PASS
    # one stone -> 3 workers, if they are worth more than the stone as payment (its top unit)
    t, v = _best_target(city_workers, rem, ENGINEERING_WORKERS_PER_STONE * stones, w, params)
    stone_worth = params[_GOODS_COIN_VALUE] * (GOODS_VALUE[STONE, stones] - GOODS_VALUE[STONE, stones - 1])
    if t >= 0 and ENGINEERING_WORKERS_PER_STONE * v > stone_worth:
        return ACTION_ENGINEERING
    return ACTION_PASS


@kernel
def _buy_action(s, b, p, w, params):
    """BUY: the development and payment (coins + whole tracks + Granaries food) of largest gain."""
    goods = w.goods
    rest = w.rest
    for g in range(NUM_GOODS):
        goods[g] = s.goods[b, p, g]
    lam = params[_GOODS_COIN_VALUE]
    caravans = s.developments[b, p, CARAVANS]
    granaries = s.developments[b, p, GRANARIES]
    coins = int(s.coins[b])
    food = int(s.food[b, p])
    marked_food = int(s.marked_food[b])
    cities = cities_of(s.city_workers[b, p])
    marked = 0
    present = 0
    for g in range(NUM_GOODS):
        if s.marked_goods[b, g]:
            marked |= 1 << g
        if goods[g] > 0:
            present |= 1 << g
    best_u = lam * _goods_worth(goods, caravans, w)  # passing keeps everything
    best_d = -1
    best_sm = 0
    best_k = 0
    for sm in range(1 << NUM_GOODS):  # every set of whole tracks that contains the marked ones
        if (sm & marked) != marked or (sm & ~present) != 0:
            continue
        paid = 0
        for g in range(NUM_GOODS):
            if (sm >> g) & 1:
                paid += GOODS_VALUE[g, goods[g]]
                rest[g] = 0
            else:
                rest[g] = goods[g]
        kept_u = lam * _goods_worth(rest, caravans, w)
        for d in range(NUM_DEVELOPMENTS):
            value = w.ctx[_X_DEV + d]
            if value <= 0.0:
                continue
            short = DEVELOPMENT_COST[d] - coins - paid
            k = 0  # Granaries food (4 coins each)
            if short > 0:
                k = (short + GRANARIES_COINS_PER_FOOD - 1) // GRANARIES_COINS_PER_FOOD
            k = max(k, marked_food)
            if k > 0 and (not granaries or k > food):
                continue
            u = kept_u + value - (_food_value(food, cities, params) - _food_value(food - k, cities, params))
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


@kernel
def _discard_action(s, b, p, w):
    """DISCARD: drop a unit that the most valuable kept set of 6 does not contain."""
    goods = w.goods
    keep = w.keep
    for g in range(NUM_GOODS):
        goods[g] = s.goods[b, p, g]
    _kept_goods(goods, GOODS_LIMIT, keep, w)
    for g in range(NUM_GOODS):
        if goods[g] > keep[g]:
            return ACTION_DISCARD + g
    return -1


@kernel
def _respond_action(s, b):
    """TRADE_RESPOND: accept when what we receive is worth at least what we give (goods value,
    food 1 each)."""
    q = s.to_play[b]
    before = 0
    after = 0
    for t in range(NUM_TRADE_TYPES):
        held = int(s.food[b, q]) if t == TRADE_FOOD else int(s.goods[b, q, t])
        n = held + int(s.offer_give[b, t]) - int(s.offer_take[b, t])
        if t == TRADE_FOOD:
            before += held
            after += n
        else:
            before += GOODS_VALUE[t, held]
            after += GOODS_VALUE[t, n]
    return ACTION_ACCEPT if after >= before else ACTION_DECLINE


# --- entry point ----------------------------------------------------------------------------

@kernel
def heuristic_actions_nb(mask, out, params, in_play, *arrays):
    """The `TunedHeuristic.KERNEL`: out[b] = the action for the seat to play in each live row b.

    in_play: (7,) monuments in play. arrays: the `SCRATCH` arrays (kernels never allocate), rebuilt into
    the named `w`, then the batched State's arrays, rebuilt into `s`. Taking them as plain arrays rather
    than the NamedTuples keeps numba's on-disk cache usable: a signature naming the generated State class
    got a new cache key in every process, so every run recompiled (14 s).
    """
    w = _Scratch(*arrays[:_NUM_SCRATCH])
    s = State(*arrays[_NUM_SCRATCH:])
    for b in range(s.done.shape[0]):
        if s.done[b]:
            continue
        p = int(s.active[b])
        phase = s.decision[b]
        a = -1
        if phase == DEC_TRADE_RESPOND:
            a = _respond_action(s, b)
        elif phase == DEC_TRADE or phase == DEC_TRADE_OFFER:
            a = ACTION_PASS  # never offer; withdraw an open offer
        elif phase == DEC_DISCARD:
            a = _discard_action(s, b, p, w)
        else:
            _prepare_row(s, b, p, in_play, params, w)
            if phase == DEC_ROLL:
                a = _roll_action(s, b, w, params)
            elif phase == DEC_LEADERSHIP:
                a = _leadership_action(s, b, w, params)
            elif phase == DEC_CHOOSE_FW:
                a = _choose_fw_action(s, b, w, params)
            elif phase == DEC_BUILD:
                a = _build_action(s, b, p, mask[b], w, params)
            elif phase == DEC_BUY:
                a = _buy_action(s, b, p, w, params)
        out[b] = a


class Heuristic(TunedHeuristic):
    """The hand-written Roll Through the Ages player (strategy in the module docstring).

    Keyword arguments override entries of `DEFAULT_PARAMS` by name, e.g. `Heuristic(slot_cost=4.0)`.
    """

    DEFAULT_PARAMS = DEFAULT_PARAMS
    PARAM_NAMES = PARAM_NAMES
    SCRATCH = SCRATCH
    KERNEL = heuristic_actions_nb

    def kernel_args(self, game: Any) -> tuple:
        return (game.monuments_in_play,)

    def observed(self, game: Any, state: Any) -> tuple:
        """The whole state: nothing in Roll Through the Ages is hidden."""
        return state
