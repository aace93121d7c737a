"""numba kernels for Attika: what one row of the batch does (the row functions of envs/codegen.py, from
which the batch entry points in entries.py are generated) and the rule helpers they share.

A row function works on row b of the State `s` in place (`apply` hands it a copy). Kernels never allocate:
scratch arrays are named in state.SCRATCH.

The map lives in the 25 x 25 window array (data.NUM_SLOTS); adjacency is the window's neighbour table
(data.NEIGHBOURS), a tile's footprint the 7-slot flower around its centre (data.FLOWER). The rule
helpers without a leading underscore (`requirement`, `affordable`, `can_build`, `tile_centre_ok`,
`unrevealed`) read only public fields and the hand passed in, so the encoder, the heuristic and the
render call them on a View with the same results the rules use.

Settlements are kept canonical and incrementally: every building carries the lowest slot of its
connected own group as its label and the set of shrines that group touches; a placement joins the
groups next to it (one pass over the window) and the connection victory is a look at the new
group's shrine bits.

Randomness: one uniform per row seeds a splitmix64 stream (`stream`), and every chance event of the
step (the building revealed, the tile drawn, each landscape card drawn) is the next draw from it.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.attika.data import (
    ACTION_AMPHORA_CARD, ACTION_END_TURN, ACTION_PAY, ACTION_REVEAL, ACTION_ROTATE, ACTION_SELECT,
    ACTION_SLOT, ACTION_STORE, ACTION_SUBSTITUTE, AMPHORAE, BUILDING_GROUP, BUILDINGS_PER_PLAYER,
    BUILDS_PER_TURN, CARDS_FOR_PASSING, CARDS_PER_LANDSCAPE, COPIES, COST, DEC_BUILD_MODE, DEC_CHOOSE_FIELD,
    DEC_CHOOSE_ROTATION, DEC_DRAW, DEC_GAME_OVER, DEC_PAY, DEC_PENDING_REVEAL, DEC_PLACE_TILE, DEC_REVEAL_MODE,
    DEC_START, FIRST_HAND, FLAT_PLACE, FLAT_TAIL, FLOWER, FLOWER_OK, GROUP_SIZE, IS_MAIN, LAND_BLANK,
    LAND_NONE, LAND_SHRINE, LAND_SYMBOL, MODE_BUILD, MODE_NONE, MODE_REVEAL, NEIGHBOURS, NUM_GROUPS,
    NUM_LANDSCAPES, NUM_SLOTS, NUM_STACKS, NUM_TILES, NUM_TYPES, PREDECESSOR, REVEALS_PER_TURN, RING2, ROAD,
    ROAD_COST, ROTATED_FACE, ROTATIONS, SETUP_CENTRES, SETUP_TILES, SHRINE_SLOTS, STACK_SIZE, TILE_PLACED,
    TILE_REMOVED, TILE_STACK, TILE_UP, WINDOW_SIDE,
)
from meeple.envs.jit import count_equal, kernel, lowest_bit, prefetch_row, set_item4, splitmix_uniform, uniform_index


# --- chance --------------------------------------------------------------------------------------------

@kernel(inline="always")
def _seed(stream, x):
    """Seed the row's stream from its uniform x in [0, 1) (53 bits)."""
    stream[0] = np.uint64(x * 9007199254740992.0)


@kernel(inline="always")
def _draw_index(stream, n):
    """A uniform index 0..n-1 from the stream."""
    return uniform_index(splitmix_uniform(stream), n)


@kernel(inline="always")
def _refill_draw_pile(s, b):
    """The discard pile, shuffled, becomes the draw pile; returns the new draw pile's size."""
    total = 0
    for k in range(NUM_LANDSCAPES):
        s.draw_pile[b, k] += s.discard[b, k]
        s.discard[b, k] = 0
        total += s.draw_pile[b, k]
    return total


@kernel
def _draw_card(s, b, p, stream):
    """Player p draws one landscape card (rules: draw pile). The pile's order is unknowable, so the card
    is a uniform draw from its contents. The moment the draw pile runs out, the discard pile is shuffled
    into a new one (the rules say at once, so cards paid later stay on the discard pile); if it was
    empty then, the next draw tries again, and with both piles empty a draw is lost."""
    total = 0
    for k in range(NUM_LANDSCAPES):
        total += s.draw_pile[b, k]
    if total == 0:
        total = _refill_draw_pile(s, b)
        if total == 0:
            return
    x = _draw_index(stream, total)
    for k in range(NUM_LANDSCAPES):
        x -= s.draw_pile[b, k]
        if x < 0:
            s.draw_pile[b, k] -= 1
            s.hand[b, p, k] += 1
            break
    if total == 1:
        _refill_draw_pile(s, b)


# --- rule helpers (public fields only: the encoder, heuristic and render share them) ---------------------

@kernel(inline="always")
def is_field(land):
    """A hex of a map tile (blank or with a symbol): the only places buildings stand."""
    return land >= LAND_BLANK and land < LAND_SHRINE


@kernel(inline="always")
def symbol_of(land):
    """The landscape symbol (0..3) of a field, -1 for blank fields, shrines and empty hexes."""
    if land >= LAND_SYMBOL and land < LAND_SHRINE:
        return land - LAND_SYMBOL
    return -1


@kernel(inline="always")
def buildable(s, b, h):
    """Any building may go on any field without a building (rules: building fields)."""
    return is_field(s.land[b, h]) and s.owner[b, h] < 0


@kernel(inline="always")
def own_adjacent(s, b, p, h):
    """Some field next to h holds a building of p (the new building joins a settlement)."""
    for d in range(6):
        n = NEIGHBOURS[h, d]
        if n >= 0 and s.owner[b, n] == p:
            return True
    return False


@kernel(inline="always")
def free_by_order(s, b, p, t, h):
    """The sensible building order waives the whole cost: an own predecessor of t stands next to h (a
    road: an own road). Other colours' buildings, reversed order and skipped steps do not count."""
    pred = PREDECESSOR[t]
    if pred < 0:
        return False
    for d in range(6):
        n = NEIGHBOURS[h, d]
        if n >= 0 and s.owner[b, n] == p and s.building[b, n] == pred:
            return True
    return False


@kernel
def requirement(s, b, p, t, h):
    """What building t on field h costs p: (W, F, H, M specific cards, any cards).

    Free by the building order, else the base cost less the landscape symbols on h and on the
    neighbouring fields without a building (a symbol only cancels a cost symbol of its own type;
    for a road every symbol cancels one of its 5 any cards), plus one any card per own settlement
    when the building founds a new one (rules: building costs, settlements)."""
    if free_by_order(s, b, p, t, h):
        return 0, 0, 0, 0, 0
    sw, sf, sh, sm = symbols_around(s, b, h)
    return cost_less_symbols(s, b, p, t, sw, sf, sh, sm, own_adjacent(s, b, p, h))


@kernel(inline="always")
def symbols_around(s, b, h):
    """The landscape symbols (W, F, H, M counts) on field h and on its neighbours without a building:
    those that cancel cost symbols of a building on h (`requirement`)."""
    sw = 0
    sf = 0
    sh = 0
    sm = 0
    for j in range(7):
        n = FLOWER[h, j]
        if n < 0 or (j > 0 and s.owner[b, n] >= 0):
            continue
        k = symbol_of(s.land[b, n])
        if k == 0:
            sw += 1
        elif k == 1:
            sf += 1
        elif k == 2:
            sh += 1
        elif k == 3:
            sm += 1
    return sw, sf, sh, sm


@kernel(inline="always")
def cost_less_symbols(s, b, p, t, sw, sf, sh, sm, adjacent):
    """`requirement` of t where the building order does not waive it, from the field's parts: its symbols
    (`symbols_around`) and whether it touches p's buildings (`own_adjacent`; if not, one any card per own
    settlement). A caller weighing every type on one field works the parts out once."""
    any_cards = 0
    if not adjacent:
        any_cards += s.settlements[b, p]
    if t == ROAD:
        return 0, 0, 0, 0, any_cards + max(0, ROAD_COST - (sw + sf + sh + sm))
    return (max(0, COST[t, 0] - sw), max(0, COST[t, 1] - sf), max(0, COST[t, 2] - sh), max(0, COST[t, 3] - sm),
            any_cards)


@kernel(inline="always")
def affordable(n0, n1, n2, n3, r0, r1, r2, r3, g):
    """Can hand (n0..n3) pay specific cards (r0..r3) and g any cards? Every missing specific card is
    replaced by two any cards (rules: costs, two for one), so the hand must hold the specific cards
    plus one extra per missing card plus g."""
    missing = max(0, r0 - n0) + max(0, r1 - n1) + max(0, r2 - n2) + max(0, r3 - n3)
    return n0 + n1 + n2 + n3 >= r0 + r1 + r2 + r3 + missing + g


@kernel
def can_build(s, b, p, t, h, hand):
    """Building t on slot h is allowed for p holding `hand` (4 counts): an empty field, affordable."""
    if not buildable(s, b, h):
        return False
    r0, r1, r2, r3, g = requirement(s, b, p, t, h)
    return affordable(hand[0], hand[1], hand[2], hand[3], r0, r1, r2, r3, g)


@kernel
def any_site(s, b, p, t, hand):
    """Some slot where p may build t."""
    for h in range(NUM_SLOTS):
        if can_build(s, b, p, t, h, hand):
            return True
    return False


# Masks ask "where can p build t" for every display type at once. The answer depends on a field only
# through the landscape symbols counted there (`sigma`), whether an own building is next to it (no new
# settlement, so no surcharge) and whether an own predecessor of t is next to it (free). The symbols
# decide most fields alone: a field the hand pays for even with the surcharge takes t, one it cannot pay
# for even without the surcharge takes t only if free. The six neighbours are read only for the fields in
# between, and "free" is found from the other side: the own buildings whose successors are wanted look
# for an empty field next to them.
SITE_ADJ = 12  # bit of a packed site (the encoder's): an own building is next to the field
SITE_PRED = 13  # bits 13..37: own building types next to the field

# the types each type is the predecessor of (bit set): an own building of type x next to an empty field
# makes every type of SUCCESSORS[x] free there
SUCCESSORS = np.zeros(NUM_TYPES, dtype=np.int64)
for _t in range(NUM_TYPES):
    if PREDECESSOR[_t] >= 0:
        SUCCESSORS[PREDECESSOR[_t]] |= 1 << _t
# the symbols a field needs at least for the hand to pay for t there: every cost symbol not cancelled by a
# symbol costs at least one card, so a hand of N cards pays for t only on a field with at least
# CARDS_NEEDED[t] - N symbols (a road: 5 any cards less one per symbol). A cheap first test per field.
CARDS_NEEDED = COST.sum(axis=1).astype(np.int64)
CARDS_NEEDED[ROAD] = ROAD_COST


@kernel(inline="always")
def symbols_of(sig):
    """The number of symbols in a packed `sigma` value."""
    return (sig & 7) + ((sig >> 3) & 7) + ((sig >> 6) & 7) + ((sig >> 9) & 7)


@kernel(inline="always")
def site_cost_ok(sig, t, n0, n1, n2, n3, g):
    """Hand (n0..n3) pays for t on a field whose uncovered symbols are `sig` (packed like `sigma`: 3 bits
    per type W F H M), plus g any cards (the new-settlement surcharge); the building order aside."""
    sw = sig & 7
    sf = (sig >> 3) & 7
    sh = (sig >> 6) & 7
    sm = (sig >> 9) & 7
    if t == ROAD:
        return affordable(n0, n1, n2, n3, 0, 0, 0, 0, g + max(0, ROAD_COST - (sw + sf + sh + sm)))
    return affordable(n0, n1, n2, n3, max(0, COST[t, 0] - sw), max(0, COST[t, 1] - sf), max(0, COST[t, 2] - sh),
                      max(0, COST[t, 3] - sm), g)


@kernel(inline="always")
def site_ok(info, t, n0, n1, n2, n3, settlements):
    """can_build for a packed site: `sigma` in bits 0..11, SITE_ADJ, and the own building types next to
    the field from bit SITE_PRED on. The same rules as `requirement`."""
    pred = PREDECESSOR[t]
    if pred >= 0 and (info >> (SITE_PRED + pred)) & 1:
        return True
    return site_cost_ok(info & 4095, t, n0, n1, n2, n3, 0 if (info >> SITE_ADJ) & 1 else settlements)


# Many types at one field in one test ("cost lanes"). What a hand of N cards (n0..n3) pays for a non-road
# type t at a field whose uncovered symbols are s (W F H M) is, by `affordable`, the specific cards the
# symbols leave, r_k = max(0, COST[t, k] - s_k), plus one more card per such card the hand lacks (two for
# one): cost = sum_k r_k + max(0, r_k - n_k), payable when cost + surcharge <= N. Landscape k's part depends
# only on s_k clipped to 2 (no building costs more than 2 of a kind), so for one hand it is three numbers
# per landscape and type. Packed 4 bits per type ("lane") into an int64, 15 types per word, one field then
# tests them all with four table picks and an add: lane cost x <= budget exactly when bit 3 of
# x + 7 - budget is clear (for budgets 0..7; every cost is at most 8, so a budget of 8 pays for any type).
# The road (5 any cards less one per symbol of any kind) is not a sum over landscapes: `road_paid`.
# Other cost data keeps the per-type tests (COST_LANES_FIT is a compile-time constant).
COST_LANES = 15
COST_LANES_FIT = bool(COST.max() <= 2 and 2 * np.delete(COST, ROAD, axis=0).sum(axis=1).max() <= 8)
LANE_ONES = sum(1 << (4 * i) for i in range(COST_LANES))  # 1 in every lane


@kernel(inline="always")
def _lane_part(c, s, n):
    """Cards one landscape's part of a cost takes: c specific cards, s symbols cancel some, each card the
    hand's n lacks is two any cards."""
    r = max(0, c - s)
    return np.int64(r + max(0, r - n))


@kernel(inline="always")
def _add_lane(x0, x1, x2, c, n, at):
    """One landscape's three table words (0, 1, 2+ symbols) with a type's part (c specific cards, the
    hand holding n) put into the lane at bit `at`."""
    return x0 | _lane_part(c, 0, n) << at, x1 | _lane_part(c, 1, n) << at, x2 | _lane_part(c, 2, n) << at


@kernel(inline="always")
def cost_lanes(types, n0, n1, n2, n3):
    """(lanes, table, complete): the non-road types of bit set `types` in ascending order as lanes (see
    "cost lanes" above): `lanes` has bit 3 of every lane in use, `table` is 12 words, the lane costs for
    0, 1 and 2+ symbols of W, then F, H, M. `complete` is False when more than COST_LANES types were
    given: those past the first COST_LANES have no lane."""
    c00 = c01 = c02 = c10 = c11 = c12 = c20 = c21 = c22 = c30 = c31 = c32 = lanes = np.int64(0)
    rest = types & ~(np.int64(1) << ROAD)
    i = 0
    while rest != 0 and i < COST_LANES:
        t = lowest_bit(rest)
        rest &= rest - 1
        at = 4 * i
        c00, c01, c02 = _add_lane(c00, c01, c02, COST[t, 0], n0, at)
        c10, c11, c12 = _add_lane(c10, c11, c12, COST[t, 1], n1, at)
        c20, c21, c22 = _add_lane(c20, c21, c22, COST[t, 2], n2, at)
        c30, c31, c32 = _add_lane(c30, c31, c32, COST[t, 3], n3, at)
        lanes |= np.int64(8) << at
        i += 1
    return lanes, (c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32), rest == 0


@kernel(inline="always")
def _pick3(s, x0, x1, x2):
    return x0 if s == 0 else (x1 if s == 1 else x2)


@kernel(inline="always")
def lanes_paid(sig, budget, lanes, table):
    """The lanes of `cost_lanes` (bit 3 of each) whose type `budget` cards pay for at a field whose
    uncovered symbols are `sig` (packed like `sigma`): the same answer as `site_cost_ok` per type, with
    the surcharge taken off the budget."""
    if budget >= 8:
        return lanes
    if budget < 0:
        return np.int64(0)
    s0, s1, s2, s3 = min(sig & 7, 2), min((sig >> 3) & 7, 2), min((sig >> 6) & 7, 2), min((sig >> 9) & 7, 2)
    cost = (_pick3(s0, table[0], table[1], table[2]) + _pick3(s1, table[3], table[4], table[5])
            + _pick3(s2, table[6], table[7], table[8]) + _pick3(s3, table[9], table[10], table[11]))
    return ~(cost + LANE_ONES * (7 - budget)) & lanes


@kernel(inline="always")
def road_paid(sig, hand_size, g):
    """A hand of hand_size cards pays for the road, plus g any cards, at a field with symbols `sig`."""
    return hand_size >= g + max(0, ROAD_COST - symbols_of(sig))


@kernel(inline="always")
def worst_case_ok(s, b, p, t):
    """p can pay for t on any empty field: the full cost with no symbol counted and the new-settlement
    surcharge (symbols, a neighbour and the building order only ever lower the cost). The quick accept
    that spares most masks the scan of the fields."""
    return site_cost_ok(np.int64(0), t, s.hand[b, p, 0], s.hand[b, p, 1], s.hand[b, p, 2], s.hand[b, p, 3],
                        s.settlements[b, p])


@kernel(inline="always")
def empty_fields(s, b):
    """Fields without a building: 7 per placed tile less every building on the map."""
    n = 0
    for tile in range(NUM_TILES):
        if s.tile_state[b, tile] == TILE_PLACED:
            n += 7
    for p in range(s.placed.shape[1]):
        n -= np.int64(s.placed[b, p])  # int64: without the JIT an int8 would overflow
    return n


@kernel(inline="always")
def _field_takes(s, b, p, t, h, pred, n0, n1, n2, n3, g):
    """can_build(t on the empty field h) for p holding n0..n3 with g = own settlements, where pred is t's
    predecessor if p has built one (else -1): the symbols first, the neighbours only if they can matter."""
    sig = np.int64(s.sigma[b, h])
    if symbols_of(sig) + n0 + n1 + n2 + n3 < CARDS_NEEDED[t]:  # not payable here: free or nothing
        lift = False
    else:
        if site_cost_ok(sig, t, n0, n1, n2, n3, g):
            return True
        lift = g > 0 and site_cost_ok(sig, t, n0, n1, n2, n3, 0)  # payable once an own neighbour lifts the surcharge
    if not lift and pred < 0:
        return False
    for d in range(6):
        x = NEIGHBOURS[h, d]
        if x >= 0 and s.owner[b, x] == p and (lift or s.building[b, x] == pred):
            return True
    return False


@kernel
def _count_sites(s, b, p, t, row, base, first_only):
    """(how many empty fields take t for p, one of them): fields in the placed tiles' order, each written
    to the mask row's row[base + h] unless row is None; first_only stops at the first."""
    n0, n1, n2, n3 = s.hand[b, p, 0], s.hand[b, p, 1], s.hand[b, p, 2], s.hand[b, p, 3]
    g = s.settlements[b, p]
    everywhere = worst_case_ok(s, b, p, t)
    pred = PREDECESSOR[t]
    if pred >= 0 and s.built[b, p, pred] == 0:
        pred = -1
    count = 0
    last = -1
    for tile in range(NUM_TILES):  # the fields are the footprints of the placed tiles (fewer than the window)
        if s.tile_state[b, tile] != TILE_PLACED:
            continue
        c = s.tile_centre[b, tile]
        for f in range(7):
            h = FLOWER[c, f]
            if s.owner[b, h] < 0 and (everywhere or _field_takes(s, b, p, t, h, pred, n0, n1, n2, n3, g)):
                if row is not None:
                    row[base + h] = True
                count += 1
                last = h
                if first_only:
                    return count, last
    return count, last


@kernel  # (a call: inlined into the mask, the one-pass step and `_forced`, it made "play" compile 40% longer)
def _selectable(s, b, p):
    """Bit set of the display types p may select now (some field takes them).

    Types the hand pays for on any field are accepted at once. The others are looked for in one pass over
    the fields that stops once every type is found: each empty field tested for all of them at once by
    their cost lanes (`cost_lanes`), and empty fields next to own predecessors (free). A type whose
    predecessor p has not built cannot be free. Cost data that does not fit the lanes is tested type by
    type, after a first pass over the empty fields finds the most symbols of each kind any field offers:
    a type the hand cannot pay for even with those (and no surcharge) can only be free."""
    if empty_fields(s, b) <= 0:
        return np.int64(0)
    out = np.int64(0)
    pending = np.int64(0)
    for t in range(NUM_TYPES):
        if s.display[b, p, t] > 0:
            if worst_case_ok(s, b, p, t):
                out |= np.int64(1) << t
            else:
                pending |= np.int64(1) << t
    if pending == 0:
        return out
    n0, n1, n2, n3 = s.hand[b, p, 0], s.hand[b, p, 1], s.hand[b, p, 2], s.hand[b, p, 3]
    lanes, table, complete = cost_lanes(pending, n0, n1, n2, n3)
    by_lanes = COST_LANES_FIT and complete
    m0 = m1 = m2 = m3 = m_all = np.int64(0)  # the most symbols of each kind, and in all, on one empty field
    if not by_lanes:  # (the lanes test every field cheaply: no first pass for them)
        for tile in range(NUM_TILES):
            if s.tile_state[b, tile] != TILE_PLACED:
                continue
            c = s.tile_centre[b, tile]
            for f in range(7):
                h = FLOWER[c, f]
                if s.owner[b, h] < 0:
                    sig = np.int64(s.sigma[b, h])
                    k0, k1, k2, k3 = sig & 7, (sig >> 3) & 7, (sig >> 6) & 7, (sig >> 9) & 7
                    m0, m1, m2, m3 = max(m0, k0), max(m1, k1), max(m2, k2), max(m3, k3)
                    m_all = max(m_all, k0 + k1 + k2 + k3)
    by_cost = np.int64(0)  # may be payable on some field
    by_order = np.int64(0)  # may be free next to an own predecessor
    rest = pending
    while rest != 0:
        t = lowest_bit(rest)
        rest &= rest - 1
        if by_lanes:
            best = True
        elif t == ROAD:
            best = affordable(n0, n1, n2, n3, 0, 0, 0, 0, max(0, ROAD_COST - m_all))
        else:
            best = affordable(n0, n1, n2, n3, max(0, COST[t, 0] - m0), max(0, COST[t, 1] - m1),
                              max(0, COST[t, 2] - m2), max(0, COST[t, 3] - m3), 0)
        if best:
            by_cost |= np.int64(1) << t
        pred = PREDECESSOR[t]
        if pred >= 0 and s.built[b, p, pred] > 0:
            by_order |= np.int64(1) << t
    pending = by_cost | by_order
    if pending == 0:
        return out
    g = np.int64(s.settlements[b, p])
    hand_size = np.int64(n0) + n1 + n2 + n3
    road = np.int64(1) << ROAD
    for tile in range(NUM_TILES):
        if s.tile_state[b, tile] != TILE_PLACED:
            continue
        c = s.tile_centre[b, tile]
        for f in range(7):
            h = FLOWER[c, f]
            o = s.owner[b, h]
            found = np.int64(0)
            if o < 0 and by_lanes:  # an empty field: the types its symbols pay for (free ones are found below)
                if (pending & by_cost) == 0:
                    continue
                sig = np.int64(s.sigma[b, h])
                paid = lanes_paid(sig, hand_size - g, lanes, table)
                road_here = (pending & by_cost & road) != 0 and road_paid(sig, hand_size, g)
                if g > 0:  # payable without the new-settlement surcharge: next to an own building
                    lift = lanes_paid(sig, hand_size, lanes, table) & ~paid
                    road_lift = (pending & by_cost & road) != 0 and not road_here and road_paid(sig, hand_size, 0)
                    if (lift != 0 or road_lift) and own_adjacent(s, b, p, h):
                        paid |= lift
                        road_here = road_here or road_lift
                if road_here:
                    found |= road
                if paid != 0:  # lanes back to types: lane i is the i-th non-road type of by_cost
                    rest = by_cost & ~road
                    i = 0
                    while rest != 0:
                        t = lowest_bit(rest)
                        rest &= rest - 1
                        if (paid >> (4 * i + 3)) & 1:
                            found |= np.int64(1) << t
                        i += 1
                    lanes &= ~paid  # found: no need to test them again
                found &= pending
            elif o < 0:
                rest = pending & by_cost
                while rest != 0:
                    t = lowest_bit(rest)
                    rest &= rest - 1
                    if _field_takes(s, b, p, t, h, -1, n0, n1, n2, n3, g):
                        found |= np.int64(1) << t
            elif o == p:  # an own building: its successors are free on an empty field next to it
                free = pending & by_order & SUCCESSORS[s.building[b, h]]
                if free != 0:
                    for d in range(6):
                        x = NEIGHBOURS[h, d]
                        if x >= 0 and is_field(s.land[b, x]) and s.owner[b, x] < 0:
                            found |= free
                            break
            if found != 0:
                out |= found
                pending &= ~found
                if pending == 0:
                    return out
    return out


@kernel(inline="always")
def tile_centre_ok(s, b, h):
    """A tile may be centred on h (rules: map extension): its 7 hexes inside the window and uncovered,
    one of them next to a placed field or a shrine. The footprint does not depend on the rotation."""
    if not FLOWER_OK[h]:
        return False
    for j in range(7):
        if s.land[b, FLOWER[h, j]] != LAND_NONE:
            return False
    for j in range(12):  # a hex next to the footprint is at distance 2 from the centre
        x = RING2[h, j]
        if x >= 0 and s.land[b, x] != LAND_NONE:
            return True
    return False


@kernel(inline="always")
def unrevealed(s, b, p, t):
    """Copies of type t p has not revealed yet (still in a face-down stack): all copies less those on
    the display, on the map, and the one revealed or being paid for right now."""
    n = COPIES[t] - s.display[b, p, t] - s.built[b, p, t]
    if (s.to_play[b] == p and s.pending_type[b] == t and not s.done[b]
            and (s.decision[b] == DEC_PENDING_REVEAL or s.decision[b] == DEC_PAY)):
        n -= 1
    return n


@kernel(inline="always")
def popcount4(x):
    return (x & 1) + ((x >> 1) & 1) + ((x >> 2) & 1) + ((x >> 3) & 1)


@kernel(inline="always")
def shrine_bits_next_to(s, b, h):
    """Bit set of the shrines next to slot h."""
    bits = 0
    for d in range(6):
        n = NEIGHBOURS[h, d]
        if n >= 0 and s.land[b, n] >= LAND_SHRINE:
            bits |= np.int64(1) << (s.land[b, n] - LAND_SHRINE)
    return bits


# --- placing a building ----------------------------------------------------------------------------------

@kernel
def _join_settlement(s, b, p, h):
    """Give the building just put on h its settlement: the groups of p next to it merge into one
    labelled by the lowest slot, touching the union of their shrines (buildings next to the same
    shrine are not joined through it)."""
    label = np.int16(h)
    shrines = shrine_bits_next_to(s, b, h)
    n_labels = 0
    l0 = l1 = l2 = l3 = l4 = l5 = np.int16(-1)
    old_shrines = 0  # the shrines of the first group joined
    for d in range(6):
        n = NEIGHBOURS[h, d]
        if n < 0 or s.owner[b, n] != p:
            continue
        lab = s.settlement[b, n]
        if lab == l0 or lab == l1 or lab == l2 or lab == l3 or lab == l4 or lab == l5:
            continue
        if n_labels == 0:
            l0 = lab
            old_shrines = s.settlement_shrines[b, n]
        elif n_labels == 1:
            l1 = lab
        elif n_labels == 2:
            l2 = lab
        elif n_labels == 3:
            l3 = lab
        elif n_labels == 4:
            l4 = lab
        else:
            l5 = lab
        n_labels += 1
        shrines |= s.settlement_shrines[b, n]
        if lab < label:
            label = lab
    s.settlements[b, p] += 1 - n_labels
    # joining one settlement that keeps its label and gains no shrine changes none of its buildings
    if n_labels > 1 or (n_labels == 1 and (label != l0 or shrines != old_shrines)):
        for tile in range(NUM_TILES):  # buildings stand only on the placed tiles' fields
            if s.tile_state[b, tile] != TILE_PLACED:
                continue
            for f in range(7):
                x = FLOWER[s.tile_centre[b, tile], f]
                if s.owner[b, x] == p:
                    lab = s.settlement[b, x]
                    if lab == l0 or lab == l1 or lab == l2 or lab == l3 or lab == l4 or lab == l5:
                        s.settlement[b, x] = label
                        s.settlement_shrines[b, x] = shrines
    s.settlement[b, h] = label
    s.settlement_shrines[b, h] = shrines


@kernel
def group_connected(s, b, p, g, queue, label):
    """Every member of p's group g on the map forms one connected set among themselves (the strict
    reading of "connected": other buildings do not link them). Flood fill from one member."""
    n = 0
    start = -1
    for tile in range(NUM_TILES):  # buildings stand only on the placed tiles' fields; only they are marked
        if s.tile_state[b, tile] != TILE_PLACED:
            continue
        for f in range(7):
            x = FLOWER[s.tile_centre[b, tile], f]
            label[x] = 0
            if s.owner[b, x] == p and BUILDING_GROUP[s.building[b, x]] == g:
                n += 1
                if start < 0:
                    start = x
    if start < 0:
        return False
    label[start] = 1
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        x = queue[head]
        head += 1
        for d in range(6):
            y = NEIGHBOURS[x, d]
            if y >= 0 and s.owner[b, y] == p and BUILDING_GROUP[s.building[b, y]] == g and label[y] == 0:
                label[y] = 1
                queue[tail] = y
                tail += 1
    return tail == n


@kernel
def _group_complete(s, b, p, g, group_settlement, queue, label):
    """All of p's group g is on the map and connected (strict: among themselves; with
    group_settlement: in one settlement)."""
    n = 0
    for t in range(NUM_TYPES):
        if BUILDING_GROUP[t] == g:
            n += s.built[b, p, t]
    if n < GROUP_SIZE[g]:
        return False
    if not group_settlement:
        return group_connected(s, b, p, g, queue, label)
    lab = -1
    for tile in range(NUM_TILES):
        if s.tile_state[b, tile] != TILE_PLACED:
            continue
        for f in range(7):
            x = FLOWER[s.tile_centre[b, tile], f]
            if s.owner[b, x] == p and BUILDING_GROUP[s.building[b, x]] == g:
                if lab >= 0 and s.settlement[b, x] != lab:
                    return False
                lab = s.settlement[b, x]
    return True


@kernel
def _reward_groups(s, b, p, t, group_settlement, stream, queue, label):
    """A group placed complete and connected earns one amphora from the supply, once per group; with
    the supply empty a landscape card instead, which does not end the acting part of the turn. With
    the strict reading only the group of the new building can have become complete; with the
    settlement reading a merge can complete any group, so all are checked."""
    for g in range(NUM_GROUPS):
        if s.rewarded[b, p, g] or (not group_settlement and g != BUILDING_GROUP[t]):
            continue
        if _group_complete(s, b, p, g, group_settlement, queue, label):
            s.rewarded[b, p, g] = True
            if s.amphora_supply[b] > 0:
                s.amphora_supply[b] -= 1
                s.amphorae[b, p] += 1
            else:
                _draw_card(s, b, p, stream)


@kernel(inline="always")
def _sigma_add(s, b, x, k, delta):
    """Field x's symbol k starts (delta 1) or stops (delta -1) counting for every hex of its flower."""
    for j in range(7):
        y = FLOWER[x, j]
        if y >= 0:
            s.sigma[b, y] += delta << (3 * np.int64(k))  # int64 shift: k may be an int8 without the JIT


@kernel
def _complete_placement(s, b, p, t, h, group_settlement, stream, queue, label):
    """The building stands: settlements, the group reward, then the win check (rules: end of game):
    all 30 buildings placed, or one settlement touching two different shrines."""
    k = symbol_of(s.land[b, h])
    if k >= 0:  # a symbol under a building no longer lowers costs around it
        _sigma_add(s, b, h, k, -1)
    s.owner[b, h] = p
    s.building[b, h] = t
    s.built[b, p, t] += 1
    s.placed[b, p] += 1
    _join_settlement(s, b, p, h)
    _reward_groups(s, b, p, t, group_settlement, stream, queue, label)
    if s.placed[b, p] >= BUILDINGS_PER_PLAYER or popcount4(s.settlement_shrines[b, h]) >= 2:
        s.extend_pending[b] = False  # a winning reveal pre-empts the map extension
        s.done[b] = True
        s.winner[b] = p
        s.decision[b] = DEC_GAME_OVER


@kernel
def _auto_pay(s, b, p, r0, r1, r2, r3, g):
    """The automatic payment (the project's default): every specific card the hand holds is paid with
    itself; each missing one costs two any cards; the any cards come one at a time from the type the
    hand holds most of (ties W, F, H, M). This spends the fewest cards and keeps the hand balanced."""
    any_cards = g
    for k in range(NUM_LANDSCAPES):
        r = r0 if k == 0 else r1 if k == 1 else r2 if k == 2 else r3
        m = min(r, s.hand[b, p, k])
        s.hand[b, p, k] -= m
        s.discard[b, k] += m
        any_cards += 2 * (r - m)
    for _ in range(any_cards):
        best = 0
        for k in range(1, NUM_LANDSCAPES):
            if s.hand[b, p, k] > s.hand[b, p, best]:
                best = k
        s.hand[b, p, best] -= 1
        s.discard[b, best] += 1


@kernel
def _place(s, b, p, t, h, explicit_pay, group_settlement, stream, queue, label):
    """Build t on h for p: pay automatically and complete, or queue the explicit payment (decision PAY).
    Returns True when the placement is complete (False: a PAY decision is pending)."""
    r0, r1, r2, r3, g = requirement(s, b, p, t, h)
    if explicit_pay and r0 + r1 + r2 + r3 + g > 0:
        s.pay_spec[b, 0] = r0
        s.pay_spec[b, 1] = r1
        s.pay_spec[b, 2] = r2
        s.pay_spec[b, 3] = r3
        s.pay_any[b] = g
        s.pay_front[b] = 0
        s.pending_type[b] = t
        s.pending_slot[b] = h
        s.decision[b] = DEC_PAY
        return False
    _auto_pay(s, b, p, r0, r1, r2, r3, g)
    _complete_placement(s, b, p, t, h, group_settlement, stream, queue, label)
    return True


# --- tiles -------------------------------------------------------------------------------------------------

@kernel
def _lay_tile(s, b, x, h, k):
    """Tile x covers the flower around h turned k times."""
    for j in range(7):
        y = FLOWER[h, j]
        s.land[b, y] = ROTATED_FACE[x, k, j]
        symbol = symbol_of(s.land[b, y])
        if symbol >= 0:
            _sigma_add(s, b, y, symbol, 1)
    s.tile_state[b, x] = TILE_PLACED
    s.tile_centre[b, x] = h
    s.tile_rot[b, x] = k


@kernel
def _draw_tile(s, b, stream):
    """Turn over the top tile of the tile stack (a uniform draw: its order is unknowable); -1 if the
    stack is empty."""
    n = count_equal(s.tile_state[b], TILE_STACK)
    if n == 0:
        return -1
    i = _draw_index(stream, n)
    for x in range(NUM_TILES):
        if s.tile_state[b, x] == TILE_STACK:
            if i == 0:
                return x
            i -= 1
    return -1


@kernel
def _after_reveal(s, b, stream):
    """The revealed building is resolved. If its reveal emptied a stack, the map grows (rules: map
    extension): the top tile is turned over and must be placed; a tile that fits nowhere leaves the
    game, and with the tile stack empty the turn simply goes on."""
    s.decision[b] = DEC_REVEAL_MODE
    if not s.extend_pending[b]:
        return
    s.extend_pending[b] = False
    x = _draw_tile(s, b, stream)
    if x < 0:
        return
    i0, i1, j0, j1 = tile_search_box(s, b)
    for i in range(i0, i1 + 1):
        for j in range(j0, j1 + 1):
            if tile_centre_ok(s, b, i * WINDOW_SIDE + j):
                s.tile_state[b, x] = TILE_UP
                s.tile_up[b] = x
                s.decision[b] = DEC_PLACE_TILE
                return
    s.tile_state[b, x] = TILE_REMOVED


# --- the turn ------------------------------------------------------------------------------------------------

@kernel(inline="always")
def _use_action(s, b, p, mode, allowance):
    """Take one reveal or build: the first fixes the mode and its allowance; beyond the allowance the
    action spends an amphora (rules: amphorae extend the turn)."""
    if s.mode[b] != mode:
        s.mode[b] = mode
        s.actions_left[b] = allowance
    if s.actions_left[b] > 0:
        s.actions_left[b] -= 1
    else:
        s.amphorae[b, p] -= 1
        s.amphora_supply[b] += 1


@kernel(inline="always")
def _draw_unrevealed(s, b, p, main, stream):
    """The type of the building on top of one of p's stacks: the main stack (main) or any of stacks 1-3.
    Their order is unknowable, so it is a uniform draw from the unrevealed buildings of that kind,
    weighted by copies (the setup's first reveals and every later reveal)."""
    n = 0
    for t in range(NUM_TYPES):
        if IS_MAIN[t] == main:
            n += unrevealed(s, b, p, t)
    i = _draw_index(stream, n)
    for t in range(NUM_TYPES):
        if IS_MAIN[t] == main:
            i -= unrevealed(s, b, p, t)
            if i < 0:
                return t
    return 0  # not reached: the caller draws only from a stack that holds a building


@kernel
def _reveal(s, b, p, stack, stream):
    """Reveal the top building of own stack `stack` (rules: reveal). Stack 0 holds the unrevealed main
    buildings, stacks 1-3 together the other unrevealed buildings in an order nobody knows, so the
    building is a uniform draw from that union (weighted by copies)."""
    _use_action(s, b, p, MODE_REVEAL, REVEALS_PER_TURN)
    s.pending_type[b] = _draw_unrevealed(s, b, p, stack == 0, stream)
    s.stack_size[b, p, stack] -= 1
    if s.stack_size[b, p, stack] == 0:
        s.extend_pending[b] = True
    s.decision[b] = DEC_PENDING_REVEAL


@kernel
def _next_turn(s, b, max_rounds):
    """The next seat clockwise starts its turn; a full round done at the start player; the round cap
    ends the game as a draw (truncation)."""
    P = s.hand.shape[1]
    s.to_play[b] = (s.to_play[b] + 1) % P
    s.mode[b] = MODE_NONE
    s.actions_left[b] = 0
    s.decision[b] = DEC_START
    if s.to_play[b] == s.start_player[b]:
        s.round[b] += 1
        if s.round[b] >= max_rounds:
            s.done[b] = True
            s.truncated[b] = True
            s.decision[b] = DEC_GAME_OVER


@kernel
def _end_turn(s, b, p, max_rounds, stream):
    """Cards for unused actions (rules: drawing): 3 if neither revealed nor built, otherwise one per
    unused action of the base allowance; then the next player."""
    n = CARDS_FOR_PASSING if s.mode[b] == MODE_NONE else s.actions_left[b]
    for _ in range(n):
        _draw_card(s, b, p, stream)
    _next_turn(s, b, max_rounds)


@kernel
def _after_build(s, b, stream, complete):
    """Where play goes once a placement has completed: back to building, or on with the reveal."""
    if s.done[b] or not complete:
        return
    if s.mode[b] == MODE_REVEAL:
        _after_reveal(s, b, stream)
    else:
        s.decision[b] = DEC_BUILD_MODE


@kernel(inline="always")
def _pay_unit(s, b):
    """The unit of the explicit payment queue to pay now: -1 for an any card, else its landscape type.
    Substitutes (pay_front) come first, then the specific units in the order W, F, H, M, then the rest."""
    if s.pay_front[b] > 0:
        return -1
    for k in range(NUM_LANDSCAPES):
        if s.pay_spec[b, k] > 0:
            return k
    return -1


@kernel(inline="always")
def _pay_feasible(s, b, p, paid, substitute):
    """The payment queue stays payable after paying one card of type `paid` (-1: none) for the current
    unit, or substituting it (rules: feasibility of a payment)."""
    unit = _pay_unit(s, b)
    n0, n1, n2, n3 = s.hand[b, p, 0], s.hand[b, p, 1], s.hand[b, p, 2], s.hand[b, p, 3]
    r0, r1, r2, r3 = s.pay_spec[b, 0], s.pay_spec[b, 1], s.pay_spec[b, 2], s.pay_spec[b, 3]
    g = s.pay_front[b] + s.pay_any[b]
    if paid >= 0:
        n0, n1, n2, n3 = set_item4(paid, s.hand[b, p, paid] - 1, n0, n1, n2, n3)
        if min(n0, n1, n2, n3) < 0:
            return False
    if unit < 0:
        if paid >= 0 or substitute:
            g -= 1
        if substitute:
            return False
    else:
        if paid >= 0 and paid != unit:
            return False
        r0, r1, r2, r3 = set_item4(unit, s.pay_spec[b, unit] - 1, r0, r1, r2, r3)
        if substitute:
            g += 2
    return affordable(n0, n1, n2, n3, r0, r1, r2, r3, g)


@kernel
def _pay(s, b, p, paid, substitute, group_settlement, stream, queue, label):
    """One explicit payment step; the placement completes when the queue is empty."""
    unit = _pay_unit(s, b)
    if substitute:
        s.pay_spec[b, unit] -= 1
        s.pay_front[b] += 2
    else:
        s.hand[b, p, paid] -= 1
        s.discard[b, paid] += 1
        if unit >= 0:
            s.pay_spec[b, unit] -= 1
        elif s.pay_front[b] > 0:
            s.pay_front[b] -= 1
        else:
            s.pay_any[b] -= 1
    left = s.pay_front[b] + s.pay_any[b]
    for k in range(NUM_LANDSCAPES):
        left += s.pay_spec[b, k]
    if left > 0:
        return
    t = s.pending_type[b]
    h = s.pending_slot[b]
    s.pending_type[b] = -1
    s.pending_slot[b] = -1
    _complete_placement(s, b, p, t, h, group_settlement, stream, queue, label)
    _after_build(s, b, stream, True)


@kernel
def _act(s, b, a, explicit_pay, group_settlement, max_rounds, stream, queue, label):
    """Apply one action of the factored encoding (a legal one: the caller checked)."""
    p = s.to_play[b]
    dec = s.decision[b]
    if a < ACTION_SLOT:  # SELECT_TYPE: choose the display building, then its field
        s.pending_type[b] = a - ACTION_SELECT
        s.decision[b] = DEC_CHOOSE_FIELD
    elif a < ACTION_ROTATE:
        h = a - ACTION_SLOT
        if dec == DEC_CHOOSE_FIELD:  # build from the display (rules: build action)
            t = s.pending_type[b]
            s.pending_type[b] = -1
            _use_action(s, b, p, MODE_BUILD, BUILDS_PER_TURN)
            s.display[b, p, t] -= 1
            _after_build(s, b, stream, _place(s, b, p, t, h, explicit_pay, group_settlement, stream, queue, label))
        elif dec == DEC_PENDING_REVEAL:  # build the revealed building at once (part of the reveal)
            t = s.pending_type[b]
            s.pending_type[b] = -1
            _after_build(s, b, stream, _place(s, b, p, t, h, explicit_pay, group_settlement, stream, queue, label))
        else:  # PLACE_TILE: the centre; the rotation follows
            s.pending_slot[b] = h
            s.decision[b] = DEC_CHOOSE_ROTATION
    elif a < ACTION_REVEAL:
        _lay_tile(s, b, s.tile_up[b], s.pending_slot[b], a - ACTION_ROTATE)
        s.tile_up[b] = -1
        s.pending_slot[b] = -1
        s.decision[b] = DEC_REVEAL_MODE
    elif a < ACTION_STORE:
        _reveal(s, b, p, a - ACTION_REVEAL, stream)
    elif a == ACTION_STORE:  # the revealed building waits on its display slot
        s.display[b, p, s.pending_type[b]] += 1
        s.pending_type[b] = -1
        _after_reveal(s, b, stream)
    elif a == ACTION_AMPHORA_CARD:  # a card now; no reveal or build after it
        s.amphorae[b, p] -= 1
        s.amphora_supply[b] += 1
        _draw_card(s, b, p, stream)
        s.decision[b] = DEC_DRAW
    elif a == ACTION_END_TURN:
        _end_turn(s, b, p, max_rounds, stream)
    elif a < ACTION_SUBSTITUTE:
        _pay(s, b, p, a - ACTION_PAY, False, group_settlement, stream, queue, label)
    else:
        _pay(s, b, p, -1, True, group_settlement, stream, queue, label)


# --- legality ------------------------------------------------------------------------------------------------

@kernel(inline="always")
def _may_act(s, b, p):
    """Another reveal or build is allowed: allowance left, or an amphora to extend the turn (the mode is
    fixed; before it, START offers the full allowance)."""
    return s.decision[b] == DEC_START or s.actions_left[b] > 0 or s.amphorae[b, p] > 0


@kernel(inline="always")
def _may_select(s, b, p, t):
    """SELECT_TYPE(t) is legal: t waits on p's display and some field takes it."""
    return s.display[b, p, t] > 0 and any_site(s, b, p, t, s.hand[b, p])


@kernel(inline="always")
def _may_reveal(s, b, p, stack):
    return s.stack_size[b, p, stack] > 0 and _may_act(s, b, p)


@kernel(inline="always")
def tile_search_box(s, b):
    """(i0, i1, j0, j1): the window rows i0..i1 and columns j0..j1 (slot = i * WINDOW_SIDE + j) that hold
    every slot a tile may be centred on. Such a centre is two hexes from the map's land (see
    tile_centre_ok), so at most 3 rows and columns from a placed tile's centre and 2 from a shrine: the
    searches test this box instead of the whole window. `s` is a State or a View (the encoder's
    `target` plane tests the same box)."""
    i0 = j0 = WINDOW_SIDE
    i1 = j1 = -1
    for tile in range(NUM_TILES):
        if s.tile_state[b, tile] == TILE_PLACED:
            c = np.int64(s.tile_centre[b, tile])
            i, j = c // WINDOW_SIDE, c % WINDOW_SIDE
            i0, i1, j0, j1 = min(i0, i - 3), max(i1, i + 3), min(j0, j - 3), max(j1, j + 3)
    P = s.display.shape[1]
    for k in range(P):
        c = np.int64(SHRINE_SLOTS[P, k])
        i, j = c // WINDOW_SIDE, c % WINDOW_SIDE
        i0, i1, j0, j1 = min(i0, i - 2), max(i1, i + 2), min(j0, j - 2), max(j1, j + 2)
    return max(i0, 0), min(i1, WINDOW_SIDE - 1), max(j0, 0), min(j1, WINDOW_SIDE - 1)


@kernel(inline="always")  # inlined into the step: ~10% at B = 4096 for ~30 s more compile
def _mask_row(s, b, row, flat):
    """Write the legal actions of row b into its mask row `row` (factored or flat encoding; the row starts
    all False). Returns (how many are legal, one of them): the only one when there is one."""
    p = s.to_play[b]
    dec = s.decision[b]
    tail = FLAT_TAIL - ACTION_REVEAL if flat else 0
    count = 0
    last = -1
    if dec == DEC_START or dec == DEC_BUILD_MODE:
        if _may_act(s, b, p):
            if flat:
                for t in range(NUM_TYPES):
                    if s.display[b, p, t] > 0:
                        base = np.int64(t) * NUM_SLOTS
                        n, h = _count_sites(s, b, p, t, row, base, False)
                        if n > 0:
                            count += n
                            last = base + h
            else:
                selectable = _selectable(s, b, p)
                while selectable != 0:
                    t = lowest_bit(selectable)
                    selectable &= selectable - 1
                    row[ACTION_SELECT + t] = True
                    count += 1
                    last = ACTION_SELECT + t
    if dec == DEC_START or dec == DEC_REVEAL_MODE:
        for stack in range(NUM_STACKS):
            if _may_reveal(s, b, p, stack):
                row[tail + ACTION_REVEAL + stack] = True
                count += 1
                last = tail + ACTION_REVEAL + stack
    if dec == DEC_START or dec == DEC_REVEAL_MODE or dec == DEC_BUILD_MODE or dec == DEC_DRAW:
        if s.amphorae[b, p] > 0:
            row[tail + ACTION_AMPHORA_CARD] = True
            count += 1
        row[tail + ACTION_END_TURN] = True
        count += 1
        last = tail + ACTION_END_TURN
    elif dec == DEC_CHOOSE_FIELD or dec == DEC_PENDING_REVEAL:
        t = s.pending_type[b]
        base = np.int64(t) * NUM_SLOTS if flat else ACTION_SLOT  # int64: t is an int8 without the JIT
        n, h = _count_sites(s, b, p, t, row, base, False)
        if n > 0:
            count += n
            last = base + h
        if dec == DEC_PENDING_REVEAL:
            row[tail + ACTION_STORE] = True
            count += 1
            last = tail + ACTION_STORE
    elif dec == DEC_PLACE_TILE:
        i0, i1, j0, j1 = tile_search_box(s, b)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                h = i * WINDOW_SIDE + j
                if tile_centre_ok(s, b, h):
                    if flat:
                        for k in range(ROTATIONS):
                            row[FLAT_PLACE + k * NUM_SLOTS + h] = True
                        count += ROTATIONS
                        last = FLAT_PLACE + h
                    else:
                        row[ACTION_SLOT + h] = True
                        count += 1
                        last = ACTION_SLOT + h
    elif dec == DEC_CHOOSE_ROTATION:
        for k in range(ROTATIONS):
            row[ACTION_ROTATE + k] = True
        count += ROTATIONS
        last = ACTION_ROTATE
    elif dec == DEC_PAY:
        for k in range(NUM_LANDSCAPES):
            if _pay_feasible(s, b, p, k, False):
                row[tail + ACTION_PAY + k] = True
                count += 1
                last = tail + ACTION_PAY + k
        if _pay_unit(s, b) >= 0 and _pay_feasible(s, b, p, -1, True):
            row[tail + ACTION_SUBSTITUTE] = True
            count += 1
            last = tail + ACTION_SUBSTITUTE
    return count, last


@kernel
def _forced(s, b, flat):
    """The only legal action of row b (factored encoding), or -1 if there is a choice. Each decision
    stops counting at the second legal action; most are decided by a cheap test."""
    p = s.to_play[b]
    dec = s.decision[b]
    if dec == DEC_START or dec == DEC_BUILD_MODE or dec == DEC_REVEAL_MODE or dec == DEC_DRAW:
        if s.amphorae[b, p] > 0:
            return -1  # END_TURN and AMPHORA_CARD
        if dec == DEC_START or dec == DEC_REVEAL_MODE:
            for stack in range(NUM_STACKS):
                if _may_reveal(s, b, p, stack):
                    return -1
        if (dec == DEC_START or dec == DEC_BUILD_MODE) and _may_act(s, b, p):
            if _selectable(s, b, p) != 0:
                return -1
        return ACTION_END_TURN
    if dec == DEC_PENDING_REVEAL or (dec == DEC_CHOOSE_FIELD and not flat):
        if empty_fields(s, b) > 1 and worst_case_ok(s, b, p, s.pending_type[b]):
            return -1
        count, last = _count_sites(s, b, p, s.pending_type[b], None, 0, dec == DEC_PENDING_REVEAL)
        if dec == DEC_PENDING_REVEAL:
            return -1 if count > 0 else ACTION_STORE
        return ACTION_SLOT + last if count == 1 else -1
    only = -1
    if dec == DEC_PLACE_TILE and not flat:
        i0, i1, j0, j1 = tile_search_box(s, b)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                h = i * WINDOW_SIDE + j
                if tile_centre_ok(s, b, h):
                    if only >= 0:
                        return -1
                    only = ACTION_SLOT + h
        return only
    if dec == DEC_PAY:
        for k in range(NUM_LANDSCAPES):
            if _pay_feasible(s, b, p, k, False):
                if only >= 0:
                    return -1
                only = ACTION_PAY + k
        if _pay_unit(s, b) >= 0 and _pay_feasible(s, b, p, -1, True):
            if only >= 0:
                return -1
            only = ACTION_SUBSTITUTE
        return only
    return -1


@kernel
def _advance(s, b, auto_forced, flat, explicit_pay, group_settlement, max_rounds, stream, queue, label):
    """Apply decisions with exactly one legal action (when auto_forced) until a real choice or the end."""
    while auto_forced and not s.done[b]:
        a = _forced(s, b, flat)
        if a < 0:
            return
        _act(s, b, a, explicit_pay, group_settlement, max_rounds, stream, queue, label)


@kernel
def _apply_flat(s, b, a, explicit_pay, group_settlement, max_rounds, stream, queue, label):
    """A flat action as the one or two factored actions it stands for (the intermediate decision never
    reaches the player)."""
    if a < FLAT_PLACE:
        t, h = divmod(a, NUM_SLOTS)
        if s.decision[b] != DEC_PENDING_REVEAL:
            _act(s, b, ACTION_SELECT + t, explicit_pay, group_settlement, max_rounds, stream, queue, label)
        _act(s, b, ACTION_SLOT + h, explicit_pay, group_settlement, max_rounds, stream, queue, label)
    elif a < FLAT_TAIL:
        k, h = divmod(a - FLAT_PLACE, NUM_SLOTS)
        _act(s, b, ACTION_SLOT + h, explicit_pay, group_settlement, max_rounds, stream, queue, label)
        _act(s, b, ACTION_ROTATE + k, explicit_pay, group_settlement, max_rounds, stream, queue, label)
    else:
        _act(s, b, a - FLAT_TAIL + ACTION_REVEAL, explicit_pay, group_settlement, max_rounds, stream, queue, label)


# --- derived fields ------------------------------------------------------------------------------------------

@kernel
def _settlement_labels(s, b, out_label, out_bits, queue):
    """Recompute every building's settlement label (lowest slot of its connected own group) and the
    group's shrine bits from the map alone; returns nothing, fills out_label / out_bits."""
    for x in range(NUM_SLOTS):
        out_label[x] = -1
        out_bits[x] = 0
    for x in range(NUM_SLOTS):  # ascending, so the first slot reached is the group's lowest
        if s.owner[b, x] < 0 or out_label[x] >= 0:
            continue
        p = s.owner[b, x]
        out_label[x] = x
        queue[0] = x
        head = 0
        tail = 1
        bits = 0
        while head < tail:
            y = queue[head]
            head += 1
            bits |= shrine_bits_next_to(s, b, y)
            for d in range(6):
                n = NEIGHBOURS[y, d]
                if n >= 0 and s.owner[b, n] == p and out_label[n] < 0:
                    out_label[n] = x
                    queue[tail] = n
                    tail += 1
        for i in range(tail):
            out_bits[queue[i]] = bits


@kernel
def sigma_of(s, b, x):
    """The `sigma` field of hex x recomputed from the map: symbols on x and its neighbours without a
    building, 3 bits per type."""
    out = 0
    for j in range(7):
        y = FLOWER[x, j]
        if y >= 0 and s.owner[b, y] < 0:
            k = symbol_of(s.land[b, y])
            if k >= 0:
                out += np.int64(1) << (3 * k)
    return out


@kernel
def _derive(s, b, queue, label, bits):
    """Recompute the DERIVED fields of row b (settlements, built, placed) from the map."""
    P = s.hand.shape[1]
    _settlement_labels(s, b, label, bits, queue)
    for p in range(P):
        s.settlements[b, p] = 0
        s.placed[b, p] = 0
        for t in range(NUM_TYPES):
            s.built[b, p, t] = 0
    for x in range(NUM_SLOTS):
        s.sigma[b, x] = sigma_of(s, b, x)
    for x in range(NUM_SLOTS):
        s.settlement[b, x] = label[x]
        s.settlement_shrines[b, x] = bits[x]
        p = s.owner[b, x]
        if p >= 0:
            s.built[b, p, s.building[b, x]] += 1
            s.placed[b, p] += 1
            if label[x] == x:
                s.settlements[b, p] += 1


# --- row functions (the batch entry points are generated from them: envs/codegen.py) -----------------------

@kernel
def init_row(s, b, u, stream):
    """Set up a new game in row b (rules: setup): the tiles of the layout drawn and turned at random, the
    shrines, each player's four first buildings revealed from the four stacks, the start player, the hands
    of 4, 5, 6, 7 cards in turn order."""
    P = s.hand.shape[1]
    _seed(stream, u[b, 0])
    s.to_play[b] = 0
    s.done[b] = False
    s.truncated[b] = False
    s.winner[b] = -1
    s.round[b] = 0
    s.mode[b] = MODE_NONE
    s.actions_left[b] = 0
    s.pending_type[b] = -1
    s.pending_slot[b] = -1
    s.tile_up[b] = -1
    s.extend_pending[b] = False
    s.pay_front[b] = 0
    s.pay_any[b] = 0
    for k in range(NUM_LANDSCAPES):
        s.pay_spec[b, k] = 0
        s.draw_pile[b, k] = CARDS_PER_LANDSCAPE
        s.discard[b, k] = 0
    for x in range(NUM_SLOTS):
        s.land[b, x] = LAND_NONE
        s.owner[b, x] = -1
        s.building[b, x] = -1
        s.settlement[b, x] = -1
        s.settlement_shrines[b, x] = 0
        s.sigma[b, x] = 0
    for x in range(NUM_TILES):
        s.tile_state[b, x] = TILE_STACK
        s.tile_centre[b, x] = -1
        s.tile_rot[b, x] = 0
    for i in range(SETUP_TILES[P]):
        x = _draw_tile(s, b, stream)
        _lay_tile(s, b, x, SETUP_CENTRES[P, i], _draw_index(stream, ROTATIONS))
    for i in range(P):
        s.land[b, SHRINE_SLOTS[P, i]] = LAND_SHRINE + i
    s.amphora_supply[b] = AMPHORAE
    for p in range(P):
        s.amphorae[b, p] = 0
        s.settlements[b, p] = 0
        s.placed[b, p] = 0
        for g in range(NUM_GROUPS):
            s.rewarded[b, p, g] = False
        for t in range(NUM_TYPES):
            s.display[b, p, t] = 0
            s.built[b, p, t] = 0
        for k in range(NUM_LANDSCAPES):
            s.hand[b, p, k] = 0
        for stack in range(NUM_STACKS):
            s.stack_size[b, p, stack] = STACK_SIZE[stack]
        # the top building of every stack goes face up onto the display
        s.decision[b] = DEC_START
        s.to_play[b] = p
        for stack in range(NUM_STACKS):
            s.display[b, p, _draw_unrevealed(s, b, p, stack == 0, stream)] += 1
            s.stack_size[b, p, stack] -= 1
    s.start_player[b] = _draw_index(stream, P)
    for n in range(P):
        p = (s.start_player[b] + n) % P
        for _ in range(FIRST_HAND + n):
            _draw_card(s, b, p, stream)
    s.to_play[b] = s.start_player[b]
    s.decision[b] = DEC_START


@kernel
def apply_row(s, b, a, u, auto_forced, flat, explicit_pay, group_settlement, max_rounds, stream, queue, label):
    """Apply the (checked, legal) action a to live row b, then the forced decisions."""
    _seed(stream, u[b, 0])
    if flat:
        _apply_flat(s, b, a, explicit_pay, group_settlement, max_rounds, stream, queue, label)
    else:
        _act(s, b, a, explicit_pay, group_settlement, max_rounds, stream, queue, label)
    _advance(s, b, auto_forced, flat, explicit_pay, group_settlement, max_rounds, stream, queue, label)


@kernel(inline="always")
def prefetch(s, b):
    """Start loading row b's map arrays (rows of a large batch do not fit the caches)."""
    prefetch_row(s.owner, b)
    prefetch_row(s.land, b)
    prefetch_row(s.building, b)
    prefetch_row(s.sigma, b)
    prefetch_row(s.settlement, b)
    prefetch_row(s.settlement_shrines, b)


@kernel
def apply_mask_row(s, b, a, u, mask, auto_forced, flat, explicit_pay, group_settlement, max_rounds, stream, queue,
                   label):
    """`apply_row`, then the legal actions of the new position into mask[b], in one pass: each forced
    decision is found by the mask itself (one legal action) rather than by a separate search."""
    _seed(stream, u[b, 0])
    a = np.int64(a)
    row = mask[b]
    first = True
    while True:  # the action, then each forced one
        if flat and first:
            _apply_flat(s, b, a, explicit_pay, group_settlement, max_rounds, stream, queue, label)
            _advance(s, b, auto_forced, flat, explicit_pay, group_settlement, max_rounds, stream, queue, label)
        else:
            _act(s, b, a, explicit_pay, group_settlement, max_rounds, stream, queue, label)
        first = False
        if s.done[b]:
            row[:] = True
            break
        row[:] = False
        count, a = _mask_row(s, b, row, flat)
        if flat or not auto_forced or count != 1:
            break


@kernel
def advance_row(s, b, u, auto_forced, flat, explicit_pay, group_settlement, max_rounds, stream, queue, label, bits):
    """Recompute the derived fields of row b, then apply its forced decisions (hand-built positions)."""
    _derive(s, b, queue, label, bits)
    if not s.done[b]:
        _seed(stream, u[b, 0])
        _advance(s, b, auto_forced, flat, explicit_pay, group_settlement, max_rounds, stream, queue, label)


@kernel
def fill_mask(s, b, row, flat):
    """The legal actions of live row b's actor into its (cleared) mask row."""
    _mask_row(s, b, row, flat)


@kernel(inline="always")
def score_of(s, b, p):
    """1 for the winner, 0 for everyone else (and for everyone in a truncated game or before the end)."""
    return 1 if s.winner[b] == p else 0


@kernel
def observe_row(s, b, me, own_hand, hand_size, draw_size):
    """Seat me's own cards and everyone's card counts in row b (rules: hidden information)."""
    P = s.hand.shape[1]
    for k in range(NUM_LANDSCAPES):
        own_hand[b, k] = s.hand[b, me, k]
    for p in range(P):
        n = 0
        for k in range(NUM_LANDSCAPES):
            n += s.hand[b, p, k]
        hand_size[b, p] = n
    n = 0
    for k in range(NUM_LANDSCAPES):
        n += s.draw_pile[b, k]
    draw_size[b] = n


@kernel
def _deal_hidden(s, b, me, counts, stream):
    """Deal every hand but the viewer's (same sizes) and the draw pile from the pooled cards in counts[0:4]."""
    P = s.hand.shape[1]
    total = counts[0] + counts[1] + counts[2] + counts[3]
    for p in range(P):
        if p == me:
            continue
        n = 0
        for k in range(NUM_LANDSCAPES):
            n += s.hand[b, p, k]
            s.hand[b, p, k] = 0
        for _ in range(n):
            x = _draw_index(stream, total)
            for k in range(NUM_LANDSCAPES):
                x -= counts[k]
                if x < 0:
                    counts[k] -= 1
                    s.hand[b, p, k] += 1
                    break
            total -= 1
    for k in range(NUM_LANDSCAPES):
        s.draw_pile[b, k] = counts[k]


@kernel
def _hand_fits_decision(s, b):
    """The player to move can still finish the decision in progress with the hand it holds: a selected
    display building has a field it can pay for, an explicit payment queue stays payable. (Both were
    true of the real hand, so a resampled world must keep them.)"""
    p = s.to_play[b]
    if s.decision[b] == DEC_CHOOSE_FIELD:
        return _count_sites(s, b, p, s.pending_type[b], None, 0, True)[0] > 0
    if s.decision[b] == DEC_PAY:
        return affordable(s.hand[b, p, 0], s.hand[b, p, 1], s.hand[b, p, 2], s.hand[b, p, 3], s.pay_spec[b, 0],
                          s.pay_spec[b, 1], s.pay_spec[b, 2], s.pay_spec[b, 3], s.pay_front[b] + s.pay_any[b])
    return True


DETERMINIZE_TRIES = 64


@kernel
def determinize_row(s, b, me, seed, stream, counts):
    """Deal the cards seat me cannot see in row b again: every other hand (same size) and the draw pile
    (same size) from their pooled contents. The discard pile and the viewer's hand are seen; buildings and
    tiles keep no hidden order (their next draw is uniform from what is known), so nothing else is
    hidden. If another player is midway through a build (a type selected, or paying explicitly), the
    deal is repeated until that player's hand can still finish it, as the real hand could; after
    DETERMINIZE_TRIES failed deals (very unlikely) the real hands are kept."""
    P = s.hand.shape[1]
    stream[0] = np.uint64(seed)
    for k in range(NUM_LANDSCAPES):  # counts[4 + 4p + k]: the real hands, counts[20 + k] the real pile
        counts[20 + k] = s.draw_pile[b, k]
        for p in range(P):
            counts[4 + 4 * p + k] = s.hand[b, p, k]
    constrained = (s.to_play[b] != me and not s.done[b]
                   and (s.decision[b] == DEC_CHOOSE_FIELD or s.decision[b] == DEC_PAY))
    for attempt in range(DETERMINIZE_TRIES + 1):
        for k in range(NUM_LANDSCAPES):
            s.draw_pile[b, k] = counts[20 + k]
            counts[k] = counts[20 + k]
            for p in range(P):
                s.hand[b, p, k] = counts[4 + 4 * p + k]
                if p != me:
                    counts[k] += counts[4 + 4 * p + k]
        if attempt == DETERMINIZE_TRIES:  # give up: the real hands and pile
            break
        _deal_hidden(s, b, me, counts, stream)
        if not constrained or _hand_fits_decision(s, b):
            break
