"""numba kernels for Hadara: what one row of the batch does (the row functions of envs/codegen.py, from
which the batch entry points in entries.py are generated) and their helpers.

A row function works on row b of the State `s` in place (`apply` hands it a copy). Kernels never allocate
(envs/jit.py): scratch arrays are named in state.SCRATCH.

Flow (epochs of phases A and B, walked as the sections DEC_*): `_settle` runs every automatic step
(reveals, income, wheel turns, draws, skips of decision points without a legal action, always) until a
seat has a decision; `_advance` then applies single-legal-action decisions when `auto_forced` and settles again.
Sequential sections walk the turn order with `s.turn` (0..P, actor = (start + turn) % P); phase B
picks count with `s.pick` (actor = (start + pick) % P).

Randomness: only `_deal` (an epoch begins) and `init_row` read the uniforms `u`; determinize uses a
splitmix64 stream seeded per row by the caller.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.jit import kernel, resample_unseen, shuffle_prefix, shuffle_stream, splitmix_uniform, uniform_index

from meeple.envs.hadara.data import (
    ABILITY_PER_COLOUR, ACTION_BUST, ACTION_COLONY, ACTION_DRAFT, ACTION_FEED_PAY, ACTION_GOLD,
    ACTION_PASS, ACTION_PICK, ACTION_REMOVE, ACTION_SIDE, ACTION_SILVER, ACTION_TILE, ACTION_WHEEL,
    BACK, BUST_BOOST, BUST_BOOST_STEPS, BUST_REQUIREMENT, BUST_REWARD, BUST_VP,
    BUY_REQUIREMENT, BUY_REQUIREMENT_COINS_PER_POINT, BUY_REQUIREMENT_MAX_COINS, CARD_ABILITY,
    CARD_COLOUR, CARD_EPOCH, CARD_PRICE, CARD_TRACKS, CARD_VP, CHEAP_GOLD_PRICE, CHEAP_SEALS,
    CHEAP_SILVER_PRICE, COINS_PER_VP, COLONIES_IN_TIER, COLONY_ALLY_COST, COLONY_BACK_TRACKS,
    COLONY_BACK_VP, COLONY_COINS, COLONY_COINS_AMOUNT, COLONY_FRONT_VP, COLONY_PLUNDER,
    COLONY_TIER_REQUIREMENT, CULTURE, DEAL_UNIFORMS_PER_COLOUR, DEFAULT_BOARD_ORDER, DOUBLE_SECTION,
    EXTRA_COIN_RANK, FEED_COINS, FEED_COINS_COST, FEED_COINS_MAX_CARDS, FOOD, FOOD_SURPLUS,
    FOOD_SURPLUS_MAX, FOOD_SURPLUS_PER_POINT, FRONT, GOLD_PRICE, GOLD_VP_PER_SET, GOLD_WILDCARD,
    INCOME, MAX_GOLD, MAX_SILVER, MAX_TABLEAU, MILITARY, NUM_ABILITIES, NUM_BUSTS,
    NUM_CARDS, NUM_COLOURS, NUM_EPOCHS, NUM_TIERS, NUM_TRACKS, PER_BLUE_CUL,
    PER_RED_MIL, REQ_MINUS, REQ_MINUS_4, ROUNDS_PER_PHASE_A, DEC_A_BUST, DEC_A_COLONY,
    DEC_A_DRAFT, DEC_A_TILE, DEC_B_BUST, DEC_B_COLONY, DEC_B_FEED,
    DEC_B_PICK, DEC_B_SEALS, DEC_B_TILE, DEC_GAME_OVER, DEC_SETUP_SIDE,
    DEC_WHEEL, SELL, SELL_BONUS, SELL_BONUS_COINS, SELL_VALUE, SET_POINTS, SET_POINTS_VP,
    SILVER_FULL, SILVER_PRICE, START_COINS, START_PLAYER_COINS, START_PLAYER_RANK, START_TRACKS,
    TILE_STEPS, TILE_STEPS_STEPS, TILES_PER_COLOUR, TRACK_INCOME, TRACK_INCOME_MAX,
    TRACK_INCOME_PER, U_INIT_BOARD, U_INIT_COLONIES, U_INIT_DEAL, U_INIT_START_CARDS, U_STEP_DEAL,
)

from meeple.envs.hadara.state import SOLD_SLOTS

NOT_TAKEN, PLUNDERED, ALLIED = 0, 1, 2  # s.colony values
PHASE_B_TURNS = 5  # picks per player in phase B


# --- small helpers --------------------------------------------------------------------------

@kernel(inline="always")
def actor_of(s, b):
    """The seat whose decision (or automatic step) is next in the current section."""
    P = s.coins.shape[1]
    sec = s.decision[b]
    if sec == DEC_B_PICK or sec == DEC_B_TILE:
        return np.int64((s.start_player[b] + s.pick[b]) % P)
    if sec == DEC_WHEEL:
        return np.int64(s.start_player[b])
    return np.int64((s.start_player[b] + s.turn[b]) % P)


@kernel(inline="always")
def eff_price(s, b, p, card):
    """Price of a card: printed price minus the buyer's cards of that colour, never below 0."""
    v = np.int64(CARD_PRICE[card]) - np.int64(s.colour_count[b, p, CARD_COLOUR[card]])
    return v if v > 0 else np.int64(0)


@kernel(inline="always")
def card_count(s, b, p):
    n = 0
    for c in range(NUM_COLOURS):
        n += s.colour_count[b, p, c]
    return n


@kernel(inline="always")
def seal_prices(s, b, p):
    """(silver, gold) price for p in the current epoch; CHEAP_SEALS pays min(normal, cheap)."""
    e = s.epoch[b]
    silver = np.int64(SILVER_PRICE[e])
    gold = np.int64(GOLD_PRICE[e])
    if s.ability_count[b, p, CHEAP_SEALS] > 0:
        if CHEAP_SILVER_PRICE[e] < silver:
            silver = np.int64(CHEAP_SILVER_PRICE[e])
        if CHEAP_GOLD_PRICE[e] < gold:
            gold = np.int64(CHEAP_GOLD_PRICE[e])
    return silver, gold


@kernel(inline="always")
def requirement_shortfall(requirement, req_minus, track_value):
    """Missing points of a track value against a requirement lowered by req_minus (never below 0).

    A pure function of the values, so the heuristic can ask it for would-be tracks and abilities."""
    req = requirement - req_minus
    if req < 0:
        req = 0
    short = req - track_value
    return short if short > 0 else req * 0  # a zero of the arguments' type (int or float)


@kernel(inline="always")
def shortfall(s, b, p, requirement, track):
    """Missing points against a colony (track = military) or bust (culture) requirement (less 4 with REQ_MINUS_4)."""
    req_minus = np.int64(REQ_MINUS) if s.ability_count[b, p, REQ_MINUS_4] > 0 else np.int64(0)
    return requirement_shortfall(np.int64(requirement), req_minus, np.int64(s.tracks[b, p, track]))


@kernel(inline="always")
def _requirement_cost(s, b, p, short):
    """Coins BUY_REQUIREMENT charges for `short` missing points, or -1 if it can't (the minimum, charged
    automatically; at most 30 per section)."""
    if short == 0:
        return np.int64(0)
    if s.ability_count[b, p, BUY_REQUIREMENT] == 0:
        return np.int64(-1)
    cost = BUY_REQUIREMENT_COINS_PER_POINT * short
    if cost > s.coins[b, p] or s.sect_bought[b] + cost > BUY_REQUIREMENT_MAX_COINS:
        return np.int64(-1)
    return np.int64(cost)


@kernel
def refresh_player(s, b, p):
    """Recompute p's derived caches (kept so that Feeding removals can be undone): colour and ability counts, free
    tiles and the four tracks = start card + cards + allied colony backs + front bust tiles
    + TILE_STEPS tiles + PER_* + BUST_BOOST. Called after every change, so removals are exact."""
    side = s.start_side[b, p]
    for k in range(NUM_TRACKS):
        s.tracks[b, p, k] = START_TRACKS[s.start_card[b, p], side, k] if side >= 0 else 0
        s.free_tiles[b, p, k] = TILES_PER_COLOUR
    for c in range(NUM_COLOURS):
        s.colour_count[b, p, c] = 0
    for a in range(NUM_ABILITIES):
        s.ability_count[b, p, a] = 0
    for slot in range(MAX_TABLEAU):
        card = s.tableau[b, p, slot]
        if card < 0:
            continue
        s.colour_count[b, p, CARD_COLOUR[card]] += 1
        ab = CARD_ABILITY[card]
        if ab >= 0:
            s.ability_count[b, p, ab] += 1
        for k in range(NUM_TRACKS):
            s.tracks[b, p, k] += CARD_TRACKS[card, k]
        tc = s.slot_tile[b, p, slot]
        if tc >= 0:
            s.tracks[b, p, tc] += TILE_STEPS_STEPS
            s.free_tiles[b, p, tc] -= 1
    for t in range(NUM_TIERS):
        if s.colony[b, p, t] == ALLIED:
            cid = s.colony_id[b, p, t]
            for k in range(NUM_TRACKS):
                s.tracks[b, p, k] += COLONY_BACK_TRACKS[cid, k]
    boost = s.ability_count[b, p, BUST_BOOST]
    for bu in range(NUM_BUSTS):
        v = s.bust[b, p, bu]
        if v >= 0:
            c = v // 2
            s.free_tiles[b, p, c] -= 1
            if v % 2 == FRONT:
                s.tracks[b, p, c] += BUST_REWARD[bu] + BUST_BOOST_STEPS * boost
    for i in range(MAX_SILVER):
        c = s.silver[b, p, i]
        if c >= 0:
            s.free_tiles[b, p, c] -= 1
    for a in range(PER_BLUE_CUL, PER_RED_MIL + 1):  # +1 on track c per card of colour c, per copy
        k = s.ability_count[b, p, a]
        if k > 0:
            col = ABILITY_PER_COLOUR[a]
            s.tracks[b, p, col] += k * s.colour_count[b, p, col]


# --- scoring ---------------------------------------------------------------------------------

@kernel(inline="always")
def sets_of(s, b, p):
    """(complete 5-colour sets, sets for gold seals with GOLD_WILDCARD)."""
    m = s.colour_count[b, p, 0]
    for c in range(1, NUM_COLOURS):
        if s.colour_count[b, p, c] < m:
            m = s.colour_count[b, p, c]
    z = 0
    for c in range(NUM_COLOURS):
        if s.colour_count[b, p, c] == m:
            z += 1
    gold_sets = np.int64(m)
    if s.ability_count[b, p, GOLD_WILDCARD] > 0 and z == 1:
        gold_sets += 1
    return np.int64(m), gold_sets


@kernel
def vp_of(s, b, p):
    """Final scoring: colonies + busts + silver + gold + cards + SET_POINTS + coins // 5 (public VP so far)."""
    total = 0
    for t in range(NUM_TIERS):
        st = s.colony[b, p, t]
        if st == PLUNDERED:
            total += COLONY_FRONT_VP[t]
        elif st == ALLIED:
            total += COLONY_BACK_VP[s.colony_id[b, p, t]]
    boost = s.ability_count[b, p, BUST_BOOST]
    for bu in range(NUM_BUSTS):
        v = s.bust[b, p, bu]
        if v >= 0:
            total += BUST_VP[bu]
            if v % 2 == BACK:
                total += BUST_REWARD[bu] + BUST_BOOST_STEPS * boost
    # silver: ceil(track / 2) each; SILVER_FULL upgrades one seal per copy, highest track first
    t0 = -1
    t1 = -1
    if s.silver[b, p, 0] >= 0:
        t0 = np.int64(s.tracks[b, p, s.silver[b, p, 0]])
    if s.silver[b, p, 1] >= 0:
        t1 = np.int64(s.tracks[b, p, s.silver[b, p, 1]])
    if t1 > t0:
        t0, t1 = t1, t0
    full = s.ability_count[b, p, SILVER_FULL]
    if t0 >= 0:
        total += t0 if full >= 1 else (t0 + 1) // 2
    if t1 >= 0:
        total += t1 if full >= 2 else (t1 + 1) // 2
    sets, gold_sets = sets_of(s, b, p)
    total += GOLD_VP_PER_SET * gold_sets * s.gold[b, p]
    total += SET_POINTS_VP * sets * s.ability_count[b, p, SET_POINTS]
    for slot in range(MAX_TABLEAU):
        card = s.tableau[b, p, slot]
        if card >= 0:
            total += CARD_VP[card]
    total += s.coins[b, p] // COINS_PER_VP
    return total


# --- automatic steps -------------------------------------------------------------------------

@kernel
def _deal(s, b, u, off, deck_cards, deck_count, scratch):
    """Setup: shuffle each colour of the epoch's card set, keep the top 2N as the inner stack
    (partial Fisher-Yates, 2N draws per colour from u[b, off + 10 c + i]); the rest stays in the box."""
    P = s.coins.shape[1]
    e = s.epoch[b]
    k = 2 * P
    for c in range(NUM_COLOURS):
        n = deck_count[e, c]
        for i in range(n):
            scratch[i] = deck_cards[e, c, i]
        shuffle_prefix(scratch, 0, n, k, u, b, off + DEAL_UNIFORMS_PER_COLOUR * c)
        for i in range(s.inner.shape[2]):
            s.inner[b, c, i] = scratch[i] if i < k else -1
        s.inner_count[b, c] = k
        for i in range(s.outer.shape[2]):
            s.outer[b, c, i] = -1
        s.outer_count[b, c] = 0


@kernel
def _rank_of(s, b, p):
    """0-based initiative rank of p (0 = lowest initiative)."""
    r = 0
    for q in range(s.coins.shape[1]):
        if s.start_card[b, q] < s.start_card[b, p]:
            r += 1
    return r


@kernel
def _begin_epoch(s, b):
    """Phase A1: the epoch's start player by initiative rank (2 players: 1/2/1); they set the wheel."""
    P = s.coins.shape[1]
    want = START_PLAYER_RANK[P, s.epoch[b]]
    for p in range(P):
        if _rank_of(s, b, p) == want:
            s.start_player[b] = p
    s.rotation[b] = -1
    s.round[b] = 0
    s.turn[b] = 0
    s.pick[b] = 0
    s.decision[b] = DEC_WHEEL


@kernel
def _reveal_sides(s, b):
    """Setup: sides are chosen in secret and revealed together; coins and tracks from the start card,
    then +1 coin for the ranks that never (2 players: only once) start."""
    P = s.coins.shape[1]
    for p in range(P):
        side = s.pending[b, p] if s.pending[b, p] >= 0 else 0
        s.start_side[b, p] = side
        s.pending[b, p] = -1
        s.committed[b, p] = False
        coins = START_COINS[s.start_card[b, p], side]
        if EXTRA_COIN_RANK[P, _rank_of(s, b, p)]:
            coins += START_PLAYER_COINS
        s.coins[b, p] = coins
        refresh_player(s, b, p)


@kernel
def _draw_pairs(s, b):
    """Draft: every seat draws the top 2 cards of the stack at board position (i + r + k) % 5."""
    P = s.coins.shape[1]
    for i in range(P):
        pos = (i + s.rotation[b] + s.round[b]) % NUM_COLOURS
        c = s.board_order[b, pos]
        n = s.inner_count[b, c]
        s.drawn[b, i, 0] = s.inner[b, c, n - 1]
        s.drawn[b, i, 1] = s.inner[b, c, n - 2]
        s.inner[b, c, n - 1] = -1
        s.inner[b, c, n - 2] = -1
        s.inner_count[b, c] = n - 2


@kernel(inline="always")
def _push_outer(s, b, card):
    c = CARD_COLOUR[card]
    s.outer[b, c, s.outer_count[b, c]] = card
    s.outer_count[b, c] += 1


@kernel
def _acquire(s, b, p, card):
    """Acquiring a card: pay the effective price, take the next tableau slot, apply values and abilities.
    Returns the slot; a TILE_STEPS card leaves tile_due set for its follow-up."""
    s.coins[b, p] -= eff_price(s, b, p, card)
    slot = s.n_slots[b, p]
    s.tableau[b, p, slot] = card
    s.slot_tile[b, p, slot] = -1
    s.n_slots[b, p] = slot + 1
    if CARD_ABILITY[card] == TILE_STEPS:
        s.tile_due[b, p] = slot
    refresh_player(s, b, p)
    return slot


@kernel(inline="always")
def sell_coins(s, b, p, card):
    """Sell value by epoch (card back) + 1 per SELL_BONUS held."""
    return SELL_VALUE[CARD_EPOCH[card]] + SELL_BONUS_COINS * s.ability_count[b, p, SELL_BONUS]


@kernel
def _resolve_round(s, b):
    """Draft: reveal every (hidden, sequential) commitment and resolve all at once; no interaction between
    players (different stacks, own coins), so the loop order does not matter."""
    P = s.coins.shape[1]
    e = s.epoch[b]
    for p in range(P):
        a = s.pending[b, p]
        keep = a // 2
        card = s.drawn[b, p, keep]
        _push_outer(s, b, s.drawn[b, p, 1 - keep])
        if a % 2 == SELL:
            s.coins[b, p] += sell_coins(s, b, p, card)
            s.sold_a[b, p, ROUNDS_PER_PHASE_A * e + s.round[b]] = card
        else:
            _acquire(s, b, p, card)
        s.drawn[b, p, 0] = -1
        s.drawn[b, p, 1] = -1
        s.pending[b, p] = -1
        s.committed[b, p] = False


@kernel
def _income(s, b):
    """Income: coins = income track (+ TRACK_INCOME: 2 per other track above income, max 6 per card)."""
    for p in range(s.coins.shape[1]):
        inc = s.tracks[b, p, INCOME]
        gain = np.int64(inc)
        k = s.ability_count[b, p, TRACK_INCOME]
        if k > 0:
            n = 0
            for t in range(MILITARY, NUM_TRACKS):
                if s.tracks[b, p, t] > inc:
                    n += 1
            bonus = TRACK_INCOME_PER * n
            if bonus > TRACK_INCOME_MAX:
                bonus = TRACK_INCOME_MAX
            gain += k * bonus
        s.coins[b, p] += gain


@kernel(inline="always")
def _next_player(s, b):
    s.turn[b] += 1
    s.sect_count[b] = 0
    s.sect_bought[b] = 0
    s.feed_paid[b] = 0


@kernel(inline="always")
def _start_section(s, b, section):
    s.decision[b] = section
    s.turn[b] = 0
    s.sect_count[b] = 0
    s.sect_bought[b] = 0
    s.feed_paid[b] = 0


@kernel
def _settle(s, b, u, deck_cards, deck_count, scratch):
    """Run automatic steps until a seat has a decision (to_play set) or the game is over."""
    P = s.coins.shape[1]
    while True:
        sec = s.decision[b]
        if sec == DEC_SETUP_SIDE:
            if s.turn[b] < P:
                s.to_play[b] = actor_of(s, b)
                return
            _reveal_sides(s, b)
            _begin_epoch(s, b)  # epoch I cards were dealt at init
        elif sec == DEC_WHEEL:
            s.to_play[b] = s.start_player[b]
            return
        elif sec == DEC_A_DRAFT:
            if s.turn[b] < P:
                s.to_play[b] = actor_of(s, b)
                return
            _resolve_round(s, b)
            _start_section(s, b, DEC_A_TILE)
        elif sec == DEC_A_TILE:
            if s.turn[b] < P:
                p = actor_of(s, b)
                if s.tile_due[b, p] >= 0 and _has_free_tile(s, b, p):
                    s.to_play[b] = p
                    return
                s.tile_due[b, p] = -1  # no free tile of any colour: no steps, no prompt
                _next_player(s, b)
                continue
            s.round[b] += 1  # end of a draft round: the wheel turns
            if s.round[b] < ROUNDS_PER_PHASE_A:
                _draw_pairs(s, b)
                _start_section(s, b, DEC_A_DRAFT)
            else:
                _income(s, b)
                _start_section(s, b, DEC_A_COLONY)
        elif sec == DEC_A_COLONY or sec == DEC_A_BUST or sec == DEC_B_COLONY or sec == DEC_B_BUST:
            if s.turn[b] < P:
                p = actor_of(s, b)
                limit = 2 if s.ability_count[b, p, DOUBLE_SECTION] > 0 else 1
                if s.sect_count[b] < limit:
                    s.to_play[b] = p
                    return
                _next_player(s, b)
                continue
            if sec == DEC_A_COLONY:
                _start_section(s, b, DEC_A_BUST)
            elif sec == DEC_A_BUST:
                _start_section(s, b, DEC_B_PICK)
                s.pick[b] = 0
            elif sec == DEC_B_COLONY:
                _start_section(s, b, DEC_B_BUST)
            else:
                _start_section(s, b, DEC_B_FEED)
        elif sec == DEC_B_PICK:
            if s.pick[b] < PHASE_B_TURNS * P:
                s.to_play[b] = actor_of(s, b)
                return
            _income(s, b)
            _start_section(s, b, DEC_B_COLONY)
        elif sec == DEC_B_TILE:
            p = actor_of(s, b)
            if s.tile_due[b, p] >= 0 and _has_free_tile(s, b, p):
                s.to_play[b] = p
                return
            s.tile_due[b, p] = -1
            s.pick[b] += 1
            s.decision[b] = DEC_B_PICK
        elif sec == DEC_B_FEED:
            if s.turn[b] < P:
                p = actor_of(s, b)
                food = np.int64(s.tracks[b, p, FOOD])
                count = card_count(s, b, p)
                if food + s.feed_paid[b] < count:
                    s.to_play[b] = p
                    return
                k = s.ability_count[b, p, FOOD_SURPLUS]  # FOOD_SURPLUS counts after the player's feeding
                if k > 0 and food > count:
                    bonus = FOOD_SURPLUS_PER_POINT * (food - count)
                    if bonus > FOOD_SURPLUS_MAX:
                        bonus = FOOD_SURPLUS_MAX
                    s.coins[b, p] += k * bonus
                _next_player(s, b)
                continue
            _start_section(s, b, DEC_B_SEALS)
        elif sec == DEC_B_SEALS:
            if s.turn[b] < P:
                s.to_play[b] = actor_of(s, b)
                return
            if s.epoch[b] + 1 < NUM_EPOCHS:
                s.epoch[b] += 1
                _deal(s, b, u, U_STEP_DEAL, deck_cards, deck_count, scratch)
                _begin_epoch(s, b)
            else:
                s.decision[b] = DEC_GAME_OVER
        else:  # GAME_OVER
            s.done[b] = True
            return


@kernel(inline="always")
def _has_free_tile(s, b, p):
    for c in range(NUM_TRACKS):
        if s.free_tiles[b, p, c] > 0:
            return True
    return False


# --- legal actions ---------------------------------------------------------------------------

@kernel
def fill_mask(s, b, row):
    """Set the legal actions of the row's actor in row (A,), which the caller has cleared."""
    p = actor_of(s, b)
    sec = s.decision[b]
    coins = np.int64(s.coins[b, p])
    if sec == DEC_SETUP_SIDE:
        row[ACTION_SIDE] = True
        row[ACTION_SIDE + 1] = True
    elif sec == DEC_WHEEL:
        for r in range(5):
            row[ACTION_WHEEL + r] = True
    elif sec == DEC_A_DRAFT:
        row[ACTION_DRAFT] = coins >= eff_price(s, b, p, s.drawn[b, p, 0])
        row[ACTION_DRAFT + 1] = True
        row[ACTION_DRAFT + 2] = coins >= eff_price(s, b, p, s.drawn[b, p, 1])
        row[ACTION_DRAFT + 3] = True
    elif sec == DEC_A_TILE or sec == DEC_B_TILE:
        for c in range(NUM_TRACKS):
            row[ACTION_TILE + c] = s.free_tiles[b, p, c] > 0
    elif sec == DEC_A_COLONY or sec == DEC_B_COLONY:
        cc = COLONY_COINS_AMOUNT * s.ability_count[b, p, COLONY_COINS]
        for t in range(NUM_TIERS):
            if s.colony[b, p, t] != NOT_TAKEN or s.colony_count[b, t] == 0:
                continue
            cost = _requirement_cost(s, b, p, shortfall(s, b, p, COLONY_TIER_REQUIREMENT[t], MILITARY))
            if cost < 0:
                continue
            row[ACTION_COLONY + 2 * t] = True
            row[ACTION_COLONY + 2 * t + 1] = coins - cost + cc >= COLONY_ALLY_COST[t]
        row[ACTION_PASS] = True
    elif sec == DEC_A_BUST or sec == DEC_B_BUST:
        for bu in range(NUM_BUSTS):
            if s.bust[b, p, bu] >= 0:
                continue
            cost = _requirement_cost(s, b, p, shortfall(s, b, p, BUST_REQUIREMENT[bu], CULTURE))
            if cost < 0:
                continue
            for c in range(NUM_TRACKS):
                if s.free_tiles[b, p, c] > 0:
                    row[ACTION_BUST + 8 * bu + 2 * c] = True
                    row[ACTION_BUST + 8 * bu + 2 * c + 1] = True
        row[ACTION_PASS] = True
    elif sec == DEC_B_PICK:
        for c in range(NUM_COLOURS):
            n = s.outer_count[b, c]
            if n > 0:
                row[ACTION_PICK + 2 * c] = coins >= eff_price(s, b, p, s.outer[b, c, n - 1])
                row[ACTION_PICK + 2 * c + 1] = True
    elif sec == DEC_B_FEED:
        for slot in range(MAX_TABLEAU):
            row[ACTION_REMOVE + slot] = s.tableau[b, p, slot] >= 0
        row[ACTION_FEED_PAY] = (s.ability_count[b, p, FEED_COINS] > 0 and coins >= FEED_COINS_COST
                                and s.feed_paid[b] < FEED_COINS_MAX_CARDS)
    elif sec == DEC_B_SEALS:
        silver, gold = seal_prices(s, b, p)
        if s.silver[b, p, MAX_SILVER - 1] < 0 and coins >= silver:
            for c in range(NUM_TRACKS):
                row[ACTION_SILVER + c] = s.free_tiles[b, p, c] > 0
        row[ACTION_GOLD] = s.gold[b, p] < MAX_GOLD and coins >= gold
        row[ACTION_PASS] = True


@kernel
def forced_action(s, b):
    """The actor's only legal action, or -1 if it has several (for auto_forced); mirrors fill_mask cheaply.
    tests/test_hadara_invariants.py checks that no decision with one legal action reaches an agent.

    Kept as a second copy of the legality rules on purpose: deriving it from fill_mask into a scratch
    row and counting measured 14-15% fewer `apply` steps/s (random play, 2 players, B=256 and
    4096, interleaved A/B), since it runs after every decision and fill_mask writes all 104 actions."""
    p = actor_of(s, b)
    sec = s.decision[b]
    coins = np.int64(s.coins[b, p])
    if sec == DEC_A_TILE or sec == DEC_B_TILE:
        n = 0
        last = -1
        for c in range(NUM_TRACKS):
            if s.free_tiles[b, p, c] > 0:
                n += 1
                last = ACTION_TILE + c
        return last if n == 1 else -1
    if sec == DEC_A_COLONY or sec == DEC_B_COLONY:
        for t in range(NUM_TIERS):
            if s.colony[b, p, t] == NOT_TAKEN and s.colony_count[b, t] > 0:
                if _requirement_cost(s, b, p, shortfall(s, b, p, COLONY_TIER_REQUIREMENT[t], MILITARY)) >= 0:
                    return -1
        return ACTION_PASS
    if sec == DEC_A_BUST or sec == DEC_B_BUST:
        if not _has_free_tile(s, b, p):
            return ACTION_PASS
        for bu in range(NUM_BUSTS):
            if s.bust[b, p, bu] < 0:
                if _requirement_cost(s, b, p, shortfall(s, b, p, BUST_REQUIREMENT[bu], CULTURE)) >= 0:
                    return -1
        return ACTION_PASS
    if sec == DEC_B_PICK:
        n = 0
        last = -1
        for c in range(NUM_COLOURS):
            m = s.outer_count[b, c]
            if m > 0:
                if coins >= eff_price(s, b, p, s.outer[b, c, m - 1]):
                    return -1
                n += 1
                last = ACTION_PICK + 2 * c + 1
        return last if n == 1 else -1
    if sec == DEC_B_FEED:
        n = 0
        last = -1
        if (s.ability_count[b, p, FEED_COINS] > 0 and coins >= FEED_COINS_COST
                and s.feed_paid[b] < FEED_COINS_MAX_CARDS):
            n = 1
            last = ACTION_FEED_PAY
        for slot in range(MAX_TABLEAU):
            if s.tableau[b, p, slot] >= 0:
                n += 1
                if n > 1:
                    return -1
                last = ACTION_REMOVE + slot
        return last if n == 1 else -1
    if sec == DEC_B_SEALS:
        silver, gold = seal_prices(s, b, p)
        if s.gold[b, p] < MAX_GOLD and coins >= gold:
            return -1
        if s.silver[b, p, MAX_SILVER - 1] < 0 and coins >= silver and _has_free_tile(s, b, p):
            return -1
        return ACTION_PASS
    return -1  # SETUP_SIDE, WHEEL and A_DRAFT always offer at least two choices


# --- decisions -------------------------------------------------------------------------------

@kernel
def _apply_action(s, b, a):
    """One decision of the actor; the caller settles afterwards."""
    p = actor_of(s, b)
    sec = s.decision[b]
    if sec == DEC_SETUP_SIDE:  # a hidden commitment, revealed when everyone has chosen
        s.pending[b, p] = a - ACTION_SIDE
        s.committed[b, p] = True
        s.turn[b] += 1
    elif sec == DEC_WHEEL:
        s.rotation[b] = a - ACTION_WHEEL
        s.round[b] = 0
        _draw_pairs(s, b)
        _start_section(s, b, DEC_A_DRAFT)
    elif sec == DEC_A_DRAFT:  # stored privately until the round is revealed
        s.pending[b, p] = a - ACTION_DRAFT
        s.committed[b, p] = True
        s.turn[b] += 1
    elif sec == DEC_A_TILE or sec == DEC_B_TILE:
        s.slot_tile[b, p, s.tile_due[b, p]] = a - ACTION_TILE
        s.tile_due[b, p] = -1
        refresh_player(s, b, p)
        if sec == DEC_A_TILE:
            _next_player(s, b)
        else:
            s.pick[b] += 1
            s.decision[b] = DEC_B_PICK
    elif sec == DEC_A_COLONY or sec == DEC_B_COLONY:
        if a == ACTION_PASS:
            _next_player(s, b)
            return
        t = (a - ACTION_COLONY) // 2
        ally = (a - ACTION_COLONY) % 2
        cost = _requirement_cost(s, b, p, shortfall(s, b, p, COLONY_TIER_REQUIREMENT[t], MILITARY))
        s.coins[b, p] -= cost  # BUY_REQUIREMENT: pay the shortfall, take, COLONY_COINS, then decide
        s.sect_bought[b] += cost
        n = s.colony_count[b, t] - 1
        s.colony_id[b, p, t] = s.colony_stack[b, t, n]
        s.colony_stack[b, t, n] = -1
        s.colony_count[b, t] = n
        s.coins[b, p] += COLONY_COINS_AMOUNT * s.ability_count[b, p, COLONY_COINS]
        if ally:
            s.coins[b, p] -= COLONY_ALLY_COST[t]
            s.colony[b, p, t] = ALLIED
            refresh_player(s, b, p)
        else:
            s.coins[b, p] += COLONY_PLUNDER[t]
            s.colony[b, p, t] = PLUNDERED
        s.sect_count[b] += 1
    elif sec == DEC_A_BUST or sec == DEC_B_BUST:
        if a == ACTION_PASS:
            _next_player(s, b)
            return
        k = a - ACTION_BUST
        bu = k // 8
        cost = _requirement_cost(s, b, p, shortfall(s, b, p, BUST_REQUIREMENT[bu], CULTURE))
        s.coins[b, p] -= cost
        s.sect_bought[b] += cost
        s.bust[b, p, bu] = k % 8  # 2 * tile colour + side
        refresh_player(s, b, p)
        s.sect_count[b] += 1
    elif sec == DEC_B_PICK:
        k = a - ACTION_PICK
        c = k // 2
        n = s.outer_count[b, c] - 1
        card = s.outer[b, c, n]
        s.outer[b, c, n] = -1
        s.outer_count[b, c] = n
        if k % 2 == SELL:  # a face-up card: its identity is public
            s.coins[b, p] += sell_coins(s, b, p, card)
            s.removed[b, card] = True
            s.pick[b] += 1
        else:
            _acquire(s, b, p, card)
            if s.tile_due[b, p] >= 0:
                s.decision[b] = DEC_B_TILE
            else:
                s.pick[b] += 1
    elif sec == DEC_B_FEED:
        if a == ACTION_FEED_PAY:
            s.coins[b, p] -= FEED_COINS_COST
            s.feed_paid[b] += 1
        else:  # Feeding: removal undoes everything through the derived tracks; no coins
            slot = a - ACTION_REMOVE
            s.removed[b, s.tableau[b, p, slot]] = True
            s.tableau[b, p, slot] = -1
            s.slot_tile[b, p, slot] = -1
            refresh_player(s, b, p)
    elif sec == DEC_B_SEALS:
        if a == ACTION_PASS:
            _next_player(s, b)
            return
        silver, gold = seal_prices(s, b, p)
        if a == ACTION_GOLD:
            s.coins[b, p] -= gold
            s.gold[b, p] += 1
        else:
            s.coins[b, p] -= silver
            i = 0 if s.silver[b, p, 0] < 0 else 1
            s.silver[b, p, i] = a - ACTION_SILVER
            refresh_player(s, b, p)


@kernel
def _advance(s, b, u, auto_forced, deck_cards, deck_count, scratch):
    """Settle, then apply single-legal-action decisions while auto_forced."""
    while True:
        _settle(s, b, u, deck_cards, deck_count, scratch)
        if s.done[b] or not auto_forced:
            return
        a = forced_action(s, b)
        if a < 0:
            return
        _apply_action(s, b, a)


# --- row functions (the batch entry points are generated from them: envs/codegen.py) ---------------

@kernel
def init_row(s, b, u, advanced, random_board, auto_forced, deck_cards, deck_count, scratch):
    """Fill row b of an empty state from u (B, UNIFORMS_AT_INIT); see data.U_INIT_* for the column layout."""
    P = s.coins.shape[1]
    # start cards: Fisher-Yates of the 5 initiatives, seat p gets entry p
    for i in range(5):
        scratch[i] = i
    shuffle_prefix(scratch, 0, 5, 4, u, b, U_INIT_START_CARDS)
    for p in range(P):
        s.start_card[b, p] = scratch[p]
    # board order (default clockwise Y, R, B, G, P; seat i at wheel position i)
    for i in range(NUM_COLOURS):
        scratch[i] = DEFAULT_BOARD_ORDER[i]
    if random_board:
        shuffle_prefix(scratch, 0, NUM_COLOURS, NUM_COLOURS - 1, u, b, U_INIT_BOARD)
    for i in range(NUM_COLOURS):
        s.board_order[b, i] = scratch[i]
    # colonies: shuffle each tier, keep N face-up; the rest go to the box
    for t in range(NUM_TIERS):
        for i in range(COLONIES_IN_TIER):
            scratch[i] = COLONIES_IN_TIER * t + i
        shuffle_prefix(scratch, 0, COLONIES_IN_TIER, COLONIES_IN_TIER - 1, u, b, U_INIT_COLONIES + 4 * t)
        for i in range(COLONIES_IN_TIER):
            s.colony_stack[b, t, i] = scratch[i] if i < P else -1
        s.colony_count[b, t] = P
    for p in range(P):
        s.start_side[b, p] = -1
        s.pending[b, p] = -1
        s.tile_due[b, p] = -1
        s.drawn[b, p, 0] = -1
        s.drawn[b, p, 1] = -1
        for slot in range(MAX_TABLEAU):
            s.tableau[b, p, slot] = -1
            s.slot_tile[b, p, slot] = -1
        for bu in range(NUM_BUSTS):
            s.bust[b, p, bu] = -1
        for t in range(NUM_TIERS):
            s.colony_id[b, p, t] = -1
        for i in range(MAX_SILVER):
            s.silver[b, p, i] = -1
        for i in range(s.sold_a.shape[2]):
            s.sold_a[b, p, i] = -1
        for k in range(NUM_TRACKS):
            s.free_tiles[b, p, k] = TILES_PER_COLOUR
    s.epoch[b] = 0
    _deal(s, b, u, U_INIT_DEAL, deck_cards, deck_count, scratch)
    s.rotation[b] = -1
    if advanced:  # sides chosen in seat order from the lowest initiative
        want = START_PLAYER_RANK[P, 0]
        for p in range(P):
            if _rank_of(s, b, p) == want:
                s.start_player[b] = p
        _start_section(s, b, DEC_SETUP_SIDE)
    else:
        _reveal_sides(s, b)
        _begin_epoch(s, b)
    _advance(s, b, u, auto_forced, deck_cards, deck_count, scratch)


@kernel
def apply_row(s, b, a, u, auto_forced, deck_cards, deck_count, scratch):
    """Apply legal action a to live row b, then run the automatic steps."""
    _apply_action(s, b, a)
    _advance(s, b, u, auto_forced, deck_cards, deck_count, scratch)


@kernel
def advance_row(s, b, u, auto_forced, deck_cards, deck_count, scratch):
    """Recompute every player's derived caches, then run only the automatic steps (positions built
    by hand in tests and tools: set the primary fields, and tracks etc. follow)."""
    for p in range(s.coins.shape[1]):
        refresh_player(s, b, p)
    if not s.done[b]:
        _advance(s, b, u, auto_forced, deck_cards, deck_count, scratch)


@kernel(inline="always")
def score_of(s, b, p):
    """Public VP so far (final scoring on the current position), final once done."""
    return vp_of(s, b, p)


@kernel
def observe_row(s, b, me, colony_back, sold_colour, own_sold, own_drawn, own_pending, outer, vp, pile_top):
    """Write the hidden-information-filtered View fields of row b for seat me (docs/hadara.md, "Hidden information")."""
    P = s.coins.shape[1]
    for p in range(P):
        for t in range(NUM_TIERS):  # only allied backs are revealed (a plundered back never is)
            colony_back[b, p, t] = s.colony_id[b, p, t] if s.colony[b, p, t] == ALLIED else -1
        for i in range(SOLD_SLOTS):  # face-down sales: colour public, identity only for the seller
            card = s.sold_a[b, p, i]
            sold_colour[b, p, i] = CARD_COLOUR[card] if card >= 0 else -1
        vp[b, p] = vp_of(s, b, p)
    for i in range(SOLD_SLOTS):
        own_sold[b, i] = s.sold_a[b, me, i]
    own_drawn[b, 0] = s.drawn[b, me, 0]
    own_drawn[b, 1] = s.drawn[b, me, 1]
    own_pending[b] = s.pending[b, me]
    for c in range(NUM_COLOURS):  # full ordered piles (all placed face-up), or only the top with pile_view="top"
        n = s.outer_count[b, c]
        for i in range(s.outer.shape[2]):
            outer[b, c, i] = s.outer[b, c, i] if (not pile_top or i == n - 1) else -1


@kernel
def determinize_row(s, b, me, seed, deck_cards, deck_count, seen, pool, stream):
    """Resample what seat me cannot see in row b, consistently with what it has seen (see rules.determinize)."""
    P = s.coins.shape[1]
    stream[0] = np.uint64(seed)
    e_now = s.epoch[b]
    # every card the viewer has seen: tableaux, outer piles, public discards, own pair and own sales
    for card in range(NUM_CARDS):
        seen[card] = s.removed[b, card]
    for p in range(P):
        for slot in range(MAX_TABLEAU):
            if s.tableau[b, p, slot] >= 0:
                seen[s.tableau[b, p, slot]] = True
    for c in range(NUM_COLOURS):
        for i in range(s.outer_count[b, c]):
            seen[s.outer[b, c, i]] = True
    for i in range(2):
        if s.drawn[b, me, i] >= 0:
            seen[s.drawn[b, me, i]] = True
    for i in range(SOLD_SLOTS):
        if s.sold_a[b, me, i] >= 0:
            seen[s.sold_a[b, me, i]] = True
    for e in range(e_now + 1):
        for c in range(NUM_COLOURS):
            # the unseen pool of (epoch, colour), handed out to the unseen slots in a fixed order
            resample_unseen(pool, 0, deck_cards[e, c], deck_count[e, c], seen, stream)
            k = 0
            if e == e_now:
                for i in range(s.inner_count[b, c]):
                    s.inner[b, c, i] = pool[k]
                    k += 1
                for q in range(P):
                    if q != me and s.drawn[b, q, 0] >= 0 and CARD_COLOUR[s.drawn[b, q, 0]] == c:
                        s.drawn[b, q, 0] = pool[k]
                        s.drawn[b, q, 1] = pool[k + 1]
                        k += 2
            for q in range(P):
                if q == me:
                    continue
                for r in range(ROUNDS_PER_PHASE_A):
                    i = ROUNDS_PER_PHASE_A * e + r
                    card = s.sold_a[b, q, i]
                    if card >= 0 and CARD_COLOUR[card] == c:
                        s.sold_a[b, q, i] = pool[k]
                        k += 1
    # other players' pending commitments: uniform among the options legal for the new pair
    for q in range(P):
        if q == me or not s.committed[b, q]:
            continue
        if s.decision[b] == DEC_SETUP_SIDE:
            s.pending[b, q] = uniform_index(splitmix_uniform(stream), 2)
        elif s.decision[b] == DEC_A_DRAFT:
            coins = s.coins[b, q]
            can0 = coins >= eff_price(s, b, q, s.drawn[b, q, 0])
            can1 = coins >= eff_price(s, b, q, s.drawn[b, q, 1])
            n_opts = 2 + (1 if can0 else 0) + (1 if can1 else 0)
            pick = uniform_index(splitmix_uniform(stream), n_opts)
            for a in range(4):
                legal = a % 2 == SELL or (can0 if a == 0 else can1)
                if legal:
                    if pick == 0:
                        s.pending[b, q] = a
                        break
                    pick -= 1
    # colonies: per tier, every back nobody has seen (stack and plundered) is reshuffled
    for t in range(NUM_TIERS):
        n = 0
        for i in range(COLONIES_IN_TIER):
            cid = COLONIES_IN_TIER * t + i
            allied = False
            for p in range(P):
                if s.colony[b, p, t] == ALLIED and s.colony_id[b, p, t] == cid:
                    allied = True
            if not allied:
                pool[n] = cid
                n += 1
        shuffle_stream(pool, 0, n, stream)
        k = 0
        for i in range(s.colony_count[b, t]):
            s.colony_stack[b, t, i] = pool[k]
            k += 1
        for p in range(P):
            if s.colony[b, p, t] == PLUNDERED:
                s.colony_id[b, p, t] = pool[k]
                k += 1

