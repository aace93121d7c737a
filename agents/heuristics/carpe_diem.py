"""A hand-written Carpe Diem player: greedy one-placement lookahead on a VP scale, from its own View only.

The player never sees the State: `Heuristic.act` builds `game.observe(state, state.to_play)` (public
districts, depots, display, cards, tracks and its own fountain cards) and the kernel reads only that
View and the legal-action mask, so determinizing the hidden fountain cards never changes its choice.

**District model.** Per decision the acting district is analysed once (union-find over the 36 x 8
ports, as the rules do): every feature instance with its cells, chimneys, open ports and the empty
cells those ports face. Every empty cell gets its constraints (frame = meadow, the facing ports of
placed neighbours) and, through precomputed bitmasks over (tile, rotation) per side and port pair,
the tiles still obtainable (supply, depots, display) that fit there; a cell's fill chance is
`1 - (1 - fitting / obtainable) ** (fill_rate * own turns left)` (0 for a dead cell). An open
feature is worth `open_weight x` its completion value x the product of the fill chances of its open
cells x a time factor (fewer open cells than own turns left).

**Placements** are evaluated incrementally (no re-analysis): the new tile's segments merge the
components they touch; the value is the immediate effects (banderole cell, market/bakery/fountain,
chimneys for the C cards, completed landscapes/lodgings/villas with their goods, bread, steps,
coins, craftsman pick, villa VP, frame tasks, fountain cards held, counts for the scoring cards)
plus the change of the potential of every feature whose open cells it touches or constrains
(a port facing a cell no obtainable tile can fill kills the feature), minus `cell_cost`. A
fountain draw is worth 2 VP x the expected end count of the better of two random kinds (completed
items + open instances' chances + `fountain_rate` x own turns left x the share of obtainable tiles
showing the kind); a craftsman pick the value of the best display tile for the district now.

**Resource values** come from the scoring cards next to free circle spaces: a card is expected to be
resolved `card_weight x` (scoring rounds left) x (its free adjacent spaces / free spaces) times; a
green card gives each countable (completed kinds, chimneys, any lodging / landscape) its per-unit gain
per needed item (plus the avoided 4-VP loss while at 0 units); a red card gives its goods (VP per
good paid), coins are jokers. Leftover material is worth 1/2 VP.

**Decisions**: MOVE compares cw, ccw and bread moves by the best tile of the depot reached (minus a
bread); TAKE / DISPLAY_PICK the best tile (its best placement or storing); PLACE the best legal
placement or STORE. MOVE and TAKE add `deny_weight / (P - 1)` x how much more a tile is worth to
the opponent who wants it most than their average depot tile (their districts analysed the same
way, without their secret fountain cards). Scoring discs, card order, units and bread payments
are chosen by exhaustive search over both cards of the turn (bread or coins gained on the first
card count for the second) with the goods, coins and bread left valued for the scoring rounds
still to come; FOUNTAIN_RETURN returns the kind with the fewest expected completed items at the
end. The start space is the first free one (the depots are still face down).

All weights live in `DEFAULT_PARAMS` (`Heuristic(open_weight=1.0)` overrides one). The defaults come
from coordinate steps on the 2-player mean return against the previous best (1000 duplicate deals
x 2 seatings per step, the final values checked at 3 and 4 players); the largest gains over
hand-set values were a low fill rate (completion chances were far too optimistic), the fountain-draw
value and the denial term. Against `random` (one heuristic seat) it wins every one of 1000
evaluate.py games at 2, 3 and 4 players (~188 / 189 / 178 VP to ~5). The kernel falls back to a
random legal action (and flags the row) if its choice is ever illegal; the tests check that it never is.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from meeple.agents.heuristics import TunedHeuristic
from meeple.envs.carpe_diem.data import (
    ACTION_COUNT, ACTION_DISPLAY, ACTION_MOVE_CCW, ACTION_MOVE_CW, ACTION_ORDER_HIGH, ACTION_ORDER_LOW,
    ACTION_PLACE, ACTION_RETURN, ADMINISTRATOR_STEPS, BAKER_BREAD, FOUNTAIN_CARD_VP, MERCHANT_BONUS_COINS,
    MARKET_COINS, BAKERY_BREAD, ACTION_SCORE_SPACE, ACTION_SPACE, ACTION_STORE, ACTION_TAKE,
    ADMINISTRATOR, ANY_LANDSCAPE, ANY_LODGING, BAKER, BOARD_BANDEROLE, BOARD_SHOVEL, CARD_GAIN,
    CARD_HAVE, CARD_PAY, CARD_RED, CENTRE_BAKERY, CENTRE_FEATURE, CENTRE_FOUNTAIN, CENTRE_MARKET,
    CHIMNEYS, CIRCLE_SLOTS, DEC_CARD_ORDER, DEC_CARD_UNITS, DEC_DISPLAY_PICK,
    DEC_FOUNTAIN_RETURN, DEC_MOVE, DEC_PLACE, DEC_SCORE_SPACE, DEC_START_SPACE, DEC_TAKE, DEPOT_SLOTS,
    DISPLAY_SLOTS, FAIL_VP, FRAME_POSITION_VP, FRAME_TASKS, GAIN_BREAD, GAIN_COIN, GAIN_STEP, GAIN_VP,
    LABEL_FEATURE, MAX_CHIMNEYS, MAX_UNITS, MERCHANT, NUM_ACTIONS, NUM_CARD_SLOTS, NUM_CELLS,
    NUM_CIRCLE_SPACES, NUM_COUNTABLES, NUM_FEATURES, NUM_FOUNTAIN_KINDS, NUM_GOODS, NUM_PHASES,
    NUM_PORTS, NUM_SPACES, NUM_TILES, PORT_MATCH, PORT_SIDE, ROT_PORTS, ROUNDS_PER_PHASE, ROT_SEGMENT_ROOT,
    SPACE_USABLE, TASK_LINE, TILE_CENTRE, TILE_CHIMNEYS, VILLA, VILLA_VP,
)
from meeple.envs.carpe_diem.rules import LOC_DEPOT, LOC_DISPLAY, LOC_SUPPLY, View
from meeple.envs.base import I32, I64, Field
from meeple.envs.jit import best_legal, kernel
from meeple.envs.carpe_diem.kernels import (
    LINE_MASK, countable, district_components, green_units, neighbour, pay_goods, red_units_payable, walk,
)

# the View fields the kernels read, passed as *fields (fewer arguments per helper: less compile time)
_USED = ("viewer", "done", "decision", "phase", "round", "tile_pending", "cur_space", "card_seq", "first_high",
         "units", "patrician", "depot", "display", "tile_loc", "card_slot", "circle_owner", "board", "frame",
         "cell_tile", "cell_rot", "goods", "coins", "bread", "task_done", "completed", "chimneys", "own_hand")
_View = namedtuple("_View", _USED)
assert set(_USED) <= set(View._fields)

# --- weights (VP scale) --------------------------------------------------------------------------
PARAM_NAMES = (
    "coin_value",        # VP per coin at least (coins are jokers for red cards: the best good's value if higher)
    "bread_value",       # VP per bread (bread moves, 3 bread = a card unit)
    "step_value",        # VP per banderole step (1 at the end)
    "leftover_value",    # VP per leftover item (goods, coins, bread, stored tiles: 1/2 at the end)
    "card_weight",       # expected resolutions of a card = card_weight x rounds left x adjacent free / free spaces
    "nonlimit_share",    # share of a set card's gain credited to a component that does not limit it
    "open_weight",       # weight of the potential of open features
    "fill_rate",         # fill chance exponent per own turn left (tiles seen per turn, roughly)
    "chimneys_per_cell",  # chimneys expected per open villa cell (projected villa size)
    "craft_value",       # x the value of the best display tile: VP of a craftsman pick
    "fountain_value",    # x the expected VP of a fountain draw (the better of 2 random kinds at the end)
    "cell_cost",         # VP cost of using up a cell
    "fountain_rate",     # items of a kind completed per own turn left, per obtainable tile showing the kind
    "bread_move_cost",   # VP a bread move costs beyond the bread's value
    "deny_weight",       # / (P - 1): weight of a depot tile's value to the opponent who values it most (above their mean tile)
)
DEFAULT_PARAMS = np.array(
    [1.0, 2.0, 1.3, 0.5, 1.3, 0.25, 0.8, 0.14, 2.0, 1.0, 1.3, 0.3, 0.7, 0.0, 0.7],
    dtype=np.float64,
)
(_COIN_VALUE, _BREAD_VALUE, _STEP_VALUE, _LEFTOVER_VALUE, _CARD_WEIGHT, _NONLIMIT_SHARE, _OPEN_WEIGHT,
 _FILL_RATE, _CHIMNEYS_PER_CELL, _CRAFT_VALUE, _FOUNTAIN_VALUE, _CELL_COST, _FOUNTAIN_RATE,
 _BREAD_MOVE_COST, _DENY_WEIGHT) = range(len(PARAM_NAMES))
assert DEFAULT_PARAMS.shape == (len(PARAM_NAMES),)

NEVER = -1e18
NUM_NODES = NUM_CELLS * NUM_PORTS
WILD = 100  # side code: no constraint (the neighbour cell is empty)

# per-row context (float64)
(_X_COIN, _X_BREAD, _X_STEP, _X_LEFT, _X_T, _X_NAVAIL, _X_CRAFT, _X_OPENW, _X_FILL, _X_CHPC,
 _X_CELL, _X_FOUNTAIN) = range(12)
_X_GV = 12  # 4: value of one good per kind
_X_CNT = _X_GV + NUM_GOODS  # 15: value of +1 of each countable (scoring cards)
_X_END = _X_CNT + NUM_COUNTABLES  # 12: completed items of each kind expected at the end
_X_SIZE = _X_END + NUM_FEATURES


def _side_fit() -> np.ndarray:
    """SIDE_FIT[side, code, rot, word]: bit t of the 2 x 64-bit words is set when tile t turned rot
    shows the port pair `code` = 10 * label(2 side) + label(2 side + 1) on that side; code WILD: all tiles."""
    out = np.zeros((4, WILD + 1, 4, 2), dtype=np.uint64)
    for t in range(NUM_TILES):
        bit = np.uint64(1) << np.uint64(t % 64)
        for rot in range(4):
            for s in range(4):
                code = 10 * int(ROT_PORTS[t, rot, 2 * s]) + int(ROT_PORTS[t, rot, 2 * s + 1])
                out[s, code, rot, t // 64] |= bit
                out[s, WILD, rot, t // 64] |= bit
    return out


def _tile_kinds() -> np.ndarray:
    """TILE_KIND[t, k]: tile t shows feature kind k (a port label or its centre building)."""
    out = np.zeros((NUM_TILES, NUM_FEATURES), dtype=np.bool_)
    for t in range(NUM_TILES):
        for q in range(NUM_PORTS):
            if ROT_PORTS[t, 0, q] > 0:
                out[t, LABEL_FEATURE[ROT_PORTS[t, 0, q]]] = True
        if TILE_CENTRE[t] > 0:
            out[t, CENTRE_FEATURE[TILE_CENTRE[t]]] = True
    return out


SIDE_FIT = _side_fit()
TILE_KIND = _tile_kinds()

# one agent's scratch (kernels never allocate), built once per agent by `make_scratch`
F64, U64 = np.float64, np.uint64
SCRATCH = (
    Field("ctx", (_X_SIZE,), F64, doc="per-row context, the _X_* layout above"),
    Field("values", (NUM_ACTIONS,), F64, doc="value of each legal action of the decision (best_legal)"),
    Field("par", (NUM_NODES,), I32, doc="district union-find parents"),
    Field("root", (NUM_NODES,), I32, doc="component root of each placed port, -1"),
    Field("opn", (NUM_NODES,), I32, doc="open ports per component"),
    Field("chim", (NUM_NODES,), I32, doc="chimneys per component"),
    Field("ckind", (NUM_NODES,), I32, doc="feature kind per component"),
    Field("cells", (NUM_NODES,), I64, doc="cell mask per component"),
    Field("ocells", (NUM_NODES,), I64, doc="mask of the empty cells its open ports face"),
    Field("pot", (NUM_NODES,), F64, doc="potential per open component"),
    Field("prob", (NUM_NODES,), F64, doc="completion chance per open component"),
    Field("oroots", (NUM_NODES + 1,), I32, doc="the open components; count last"),
    Field("code", (NUM_CELLS, 4), I32, doc="side codes of each empty cell"),
    Field("fit", (NUM_CELLS, 4, 2), U64, doc="fitting tiles per empty cell and rotation (bit words)"),
    Field("q", (NUM_CELLS,), F64, doc="fill chance per empty cell"),
    Field("avail", (2,), U64, doc="obtainable tiles (bit words)"),
    Field("front", (NUM_CELLS + 1,), I32, doc="the frontier cells; count last"),
    Field("tinfo", (8, 3), I64, doc="frame tasks: kind or -1, line mask, VP"),
    Field("tval", (NUM_TILES,), F64, doc="memo: best value per tile"),
    Field("tact", (NUM_TILES,), I64, doc="memo: its action, -1 unknown"),
    Field("small", (32,), I32, doc="cells changed by a candidate (8..), merged components (16..)"),
    Field("smallf", (8,), F64, doc="fill chances of the changed cells"),
    Field("res", (3, 6), I64, doc="resources (goods x4, coins, bread) before / between / after two cards"),
    Field("deny", (NUM_TILES,), F64, doc="denial value per depot tile"),
)
_Scratch = namedtuple("_Scratch", [f.name for f in SCRATCH])
_NUM_SCRATCH = len(SCRATCH)


# --- small helpers ----------------------------------------------------------------------------------

def _popcount64_python(x):
    """`_popcount64` without the JIT: the multiply below relies on uint64 wrap-around, on which numpy warns."""
    return bin(int(x)).count("1")


@kernel(python=_popcount64_python)
def _popcount64(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@kernel
def _bits(m):
    """Set bits of an int64 cell mask."""
    return _popcount64(np.uint64(m))


@kernel
def _fill_chance(n_fit, ctx):
    """Chance that an empty cell with n_fit obtainable fitting tiles gets filled in the turns left."""
    T = ctx[_X_T]
    if n_fit <= 0 or T <= 0:
        return 0.0
    f = n_fit / max(1.0, ctx[_X_NAVAIL])
    if f >= 1.0:
        return 1.0
    return 1.0 - (1.0 - f) ** (ctx[_X_FILL] * T)


@kernel
def _n_fit(fit_row, avail):
    """Obtainable tiles that fit a cell in at least one rotation."""
    w0 = fit_row[0, 0] | fit_row[1, 0] | fit_row[2, 0] | fit_row[3, 0]
    w1 = fit_row[0, 1] | fit_row[1, 1] | fit_row[2, 1] | fit_row[3, 1]
    return _popcount64(w0 & avail[0]) + _popcount64(w1 & avail[1])


# --- values of resources and counts -------------------------------------------------------------------

@kernel
def _prepare_values(v, b, p, P, R, params, ctx):
    """ctx: VP per coin, bread, step, good and per +1 of each countable, for R scoring rounds to come."""
    left = params[_LEFTOVER_VALUE]
    ctx[_X_STEP] = params[_STEP_VALUE]
    ctx[_X_LEFT] = left
    for k in range(NUM_COUNTABLES):
        ctx[_X_CNT + k] = 0.0
    if R <= 0:
        ctx[_X_COIN] = left
        ctx[_X_BREAD] = left
        for g in range(NUM_GOODS):
            ctx[_X_GV + g] = left
        return
    coin0 = params[_COIN_VALUE]
    bread0 = params[_BREAD_VALUE]
    step0 = params[_STEP_VALUE]
    nfree = 0
    for sp in range(NUM_CIRCLE_SPACES):
        if SPACE_USABLE[P, sp] and v.circle_owner[b, sp] < 0:
            nfree += 1
    gacc0 = 0.0
    gacc1 = 0.0
    gacc2 = 0.0
    gacc3 = 0.0
    gmax0 = left
    gmax1 = left
    gmax2 = left
    gmax3 = left
    if nfree > 0:
        for slot in range(NUM_CARD_SLOTS):
            card = v.card_slot[b, slot]
            if card < 0:
                continue
            adj = 0
            for sp in range(NUM_CIRCLE_SPACES):
                if SPACE_USABLE[P, sp] and v.circle_owner[b, sp] < 0 and (
                        CIRCLE_SLOTS[sp, 0] == slot or CIRCLE_SLOTS[sp, 1] == slot):
                    adj += 1
            if adj == 0:
                continue
            w = params[_CARD_WEIGHT] * R * adj / nfree
            gain = (CARD_GAIN[card, GAIN_VP] + coin0 * CARD_GAIN[card, GAIN_COIN] + bread0 * CARD_GAIN[card, GAIN_BREAD]
                    + step0 * CARD_GAIN[card, GAIN_STEP])
            if CARD_RED[card]:
                total = 0
                for g in range(NUM_GOODS):
                    total += CARD_PAY[card, g]
                u_now = 1 << 30
                for g in range(NUM_GOODS):
                    if CARD_PAY[card, g] > 0:
                        u_now = min(u_now, (v.goods[b, p, g] + v.coins[b, p]) // CARD_PAY[card, g])
                pv = (gain + (FAIL_VP if u_now == 0 else 0.0)) / total
                wu = min(1.0, w)
                for g in range(NUM_GOODS):
                    if CARD_PAY[card, g] == 0 or pv <= left:
                        continue
                    if g == 0:
                        gacc0 += wu * (pv - left)
                        gmax0 = max(gmax0, pv)
                    elif g == 1:
                        gacc1 += wu * (pv - left)
                        gmax1 = max(gmax1, pv)
                    elif g == 2:
                        gacc2 += wu * (pv - left)
                        gmax2 = max(gmax2, pv)
                    else:
                        gacc3 += wu * (pv - left)
                        gmax3 = max(gmax3, pv)
            else:
                u_now = green_units(v, b, p, card)
                fmin = 1e9
                for k in range(NUM_COUNTABLES):
                    need = CARD_HAVE[card, k]
                    if need > 0:
                        fmin = min(fmin, countable(v, b, p, k) / need)
                for k in range(NUM_COUNTABLES):
                    need = CARD_HAVE[card, k]
                    if need == 0:
                        continue
                    m = (gain + (FAIL_VP if u_now == 0 else 0.0)) / need
                    if countable(v, b, p, k) / need > fmin + 1e-9:
                        m *= params[_NONLIMIT_SHARE]
                    ctx[_X_CNT + k] += w * m
    ctx[_X_GV + 0] = left + min(gacc0, gmax0 - left)
    ctx[_X_GV + 1] = left + min(gacc1, gmax1 - left)
    ctx[_X_GV + 2] = left + min(gacc2, gmax2 - left)
    ctx[_X_GV + 3] = left + min(gacc3, gmax3 - left)
    best_good = left
    for g in range(NUM_GOODS):
        best_good = max(best_good, ctx[_X_GV + g])
    ctx[_X_COIN] = max(coin0, best_good)
    ctx[_X_BREAD] = bread0


@kernel
def _prepare_tasks(v, b, p, tinfo):
    """tinfo[i] = (feature kind or -1 if satisfied, cell mask of its line, VP) per frame task."""
    for side in range(4):
        part = v.frame[b, p, side]
        for j in range(2):
            i = 2 * side + j
            kind = FRAME_TASKS[part, j, 0]
            pos = FRAME_TASKS[part, j, 1]
            tinfo[i, 0] = -1 if v.task_done[b, p, i] else kind
            tinfo[i, 1] = LINE_MASK[TASK_LINE[side, pos, 0], TASK_LINE[side, pos, 1]]
            tinfo[i, 2] = FRAME_POSITION_VP[pos]


@kernel
def _done_value(kind, cm, ch, v, b, p, ctx, tinfo):
    """VP of completing an instance of `kind` covering cells `cm` with `ch` chimneys (villas)."""
    val = ctx[_X_CNT + kind] + (FOUNTAIN_CARD_VP * v.own_hand[b, kind] if p == v.viewer[b] else 0.0)
    for i in range(8):
        if tinfo[i, 0] == kind and (tinfo[i, 1] & cm) != 0:
            val += tinfo[i, 2]
    if kind < NUM_GOODS:
        size = min(_bits(cm), 4)
        val += (size - 1) * ctx[_X_GV + kind] + ctx[_X_CNT + ANY_LANDSCAPE]
    elif kind == VILLA:
        val += VILLA_VP[min(max(ch, 0), MAX_CHIMNEYS)]
    else:
        val += ctx[_X_CNT + ANY_LODGING]
        if kind == BAKER:
            val += BAKER_BREAD * ctx[_X_BREAD]
        elif kind == ADMINISTRATOR:
            val += ADMINISTRATOR_STEPS * ctx[_X_STEP]
        elif kind == MERCHANT:
            n = MERCHANT_BONUS_COINS
            lost = 0.0
            for g in range(NUM_GOODS):
                n += v.goods[b, p, g]
                lost += v.goods[b, p, g] * ctx[_X_GV + g]
            val += n * ctx[_X_COIN] - lost
        else:
            val += ctx[_X_CRAFT]
    return val


@kernel
def _pot_value(kind, cm, ocm, ch, v, b, p, ctx, tinfo, w, nchg):
    """Potential of an open instance: completion value x product of its open cells' fill chances x
    a time factor. w.small[8:12] / w.smallf[0:4] hold nchg cells whose chance a candidate changed."""
    prob = 1.0
    n_oc = 0
    m = np.uint64(ocm)
    while m:
        low = m & (~m + np.uint64(1))
        cell = _popcount64(low - np.uint64(1))
        m ^= low
        qe = w.q[cell]
        for i in range(nchg):
            if w.small[8 + i] == cell:
                qe = w.smallf[i]
        prob *= qe
        n_oc += 1
        if prob <= 0.0:
            return 0.0
    T = ctx[_X_T]
    tf = (T + 1.0 - n_oc) / (T + 1.0)
    if tf <= 0.0:
        return 0.0
    chp = ch + int(ctx[_X_CHPC] * n_oc + 0.5) if kind == VILLA else 0
    return prob * tf * _done_value(kind, cm | ocm, chp, v, b, p, ctx, tinfo)


# --- the district --------------------------------------------------------------------------------------

@kernel
def _setup_district(v, b, p, ctx, w):
    """Analyse p's district: components (w.root, opn, chim, ckind, cells, ocells, pot, prob, the open
    ones in w.oroots), per empty cell its side codes, fitting tiles (w.fit) and fill chance (w.q),
    the frontier (w.front) and the obtainable tiles (w.avail)."""
    tiles = v.cell_tile[b, p]
    rots = v.cell_rot[b, p]
    par = w.par
    for n in range(NUM_NODES):
        w.root[n] = -1
        w.opn[n] = 0
        w.chim[n] = 0
        w.cells[n] = 0
        w.ocells[n] = 0
        w.pot[n] = 0.0
        w.prob[n] = 0.0
    # obtainable tiles
    w.avail[0] = np.uint64(0)
    w.avail[1] = np.uint64(0)
    for t in range(NUM_TILES):
        loc = v.tile_loc[b, t]
        if loc == LOC_SUPPLY or loc == LOC_DEPOT or loc == LOC_DISPLAY:
            w.avail[t // 64] |= np.uint64(1) << np.uint64(t % 64)
    ctx[_X_NAVAIL] = _popcount64(w.avail[0]) + _popcount64(w.avail[1])
    # the rules kernels' union-find and components (open ports: those facing an empty cell)
    district_components(tiles, rots, par, w.cells, w.opn, w.chim, False, w.root, w.ckind, w.ocells)
    # empty cells: side codes, fitting tiles, fill chances; the frontier
    shovel = BOARD_SHOVEL[v.board[b, p]]
    empty_district = tiles[shovel] < 0
    nf = 0
    for cell in range(NUM_CELLS):
        w.q[cell] = 0.0
        if tiles[cell] >= 0:
            continue
        touching = False
        for s in range(4):
            nb = neighbour(cell, s)
            if nb < 0:
                w.code[cell, s] = 0
            elif tiles[nb] >= 0:
                touching = True
                t2 = tiles[nb]
                r2 = rots[nb]
                w.code[cell, s] = 10 * ROT_PORTS[t2, r2, PORT_MATCH[2 * s]] + ROT_PORTS[t2, r2, PORT_MATCH[2 * s + 1]]
            else:
                w.code[cell, s] = WILD
        for rot in range(4):
            for k in range(2):
                w.fit[cell, rot, k] = (SIDE_FIT[0, w.code[cell, 0], rot, k] & SIDE_FIT[1, w.code[cell, 1], rot, k]
                                       & SIDE_FIT[2, w.code[cell, 2], rot, k] & SIDE_FIT[3, w.code[cell, 3], rot, k])
        w.q[cell] = _fill_chance(_n_fit(w.fit[cell], w.avail), ctx)
        if (touching and not empty_district) or (empty_district and cell == shovel):
            w.front[nf] = cell
            nf += 1
    w.front[NUM_CELLS] = nf
    no = 0
    for n in range(NUM_NODES):
        if w.root[n] == n and w.opn[n] > 0:
            w.oroots[no] = n
            no += 1
    w.oroots[NUM_NODES] = no
    _compute_pots(v, b, p, ctx, w)


@kernel
def _compute_pots(v, b, p, ctx, w):
    """w.pot / w.prob: potential and completion chance of every open component."""
    for i in range(w.oroots[NUM_NODES]):
        n = w.oroots[i]
        w.pot[n] = _pot_value(w.ckind[n], w.cells[n], w.ocells[n], w.chim[n], v, b, p, ctx, w.tinfo, w, 0)
        val = _done_value(w.ckind[n], w.cells[n] | w.ocells[n], w.chim[n], v, b, p, ctx, w.tinfo)
        w.prob[n] = w.pot[n] / val if val > 1e-9 else 0.0


@kernel
def _expected_counts(v, b, p, params, ctx, w):
    """ctx[_X_END + k]: completed items of kind k expected at the end (completed now, the open
    instances' completion chances, fountain_rate per own turn left x the share of obtainable tiles
    showing k); ctx[_X_FOUNTAIN]: fountain_value x 2 VP x the expected better of 2 random kinds."""
    for k in range(NUM_FEATURES):
        ctx[_X_END + k] = v.completed[b, p, k]
    for i in range(w.oroots[NUM_NODES]):
        r = w.oroots[i]
        ctx[_X_END + w.ckind[r]] += w.prob[r]
    n = max(1.0, ctx[_X_NAVAIL])
    for t in range(NUM_TILES):
        if (w.avail[t // 64] >> np.uint64(t % 64)) & np.uint64(1):
            for k in range(NUM_FEATURES):
                if TILE_KIND[t, k]:
                    ctx[_X_END + k] += params[_FOUNTAIN_RATE] * ctx[_X_T] / n
    tot = 0.0
    for k in range(NUM_FEATURES):
        for k2 in range(NUM_FEATURES):
            tot += max(ctx[_X_END + k], ctx[_X_END + k2])
    ctx[_X_FOUNTAIN] = params[_FOUNTAIN_VALUE] * FOUNTAIN_CARD_VP * tot / (NUM_FEATURES * NUM_FEATURES)


@kernel
def _eval_place(v, b, p, t, rot, cell, ctx, w):
    """VP change of building tile t turned rot on cell (assumed legal), from the analysed district."""
    tiles = v.cell_tile[b, p]
    val = -ctx[_X_CELL]
    if BOARD_BANDEROLE[v.board[b, p], cell]:
        val += ctx[_X_STEP]
    ctr = TILE_CENTRE[t]
    if ctr > 0:
        k = CENTRE_FEATURE[ctr]
        val += ctx[_X_CNT + k] + (FOUNTAIN_CARD_VP * v.own_hand[b, k] if p == v.viewer[b] else 0.0)
        if ctr == CENTRE_MARKET:
            val += MARKET_COINS * ctx[_X_COIN]
        elif ctr == CENTRE_BAKERY:
            val += BAKERY_BREAD * ctx[_X_BREAD]
        elif ctr == CENTRE_FOUNTAIN:
            val += ctx[_X_FOUNTAIN]
    val += TILE_CHIMNEYS[t] * ctx[_X_CNT + CHIMNEYS]
    # the empty neighbours get a new constraint on the side facing the new tile
    nchg = 0
    chg = np.int64(0)
    for s in range(4):
        nb = neighbour(cell, s)
        if nb >= 0 and tiles[nb] < 0:
            s2 = (s + 2) % 4
            code = 10 * ROT_PORTS[t, rot, PORT_MATCH[2 * s2]] + ROT_PORTS[t, rot, PORT_MATCH[2 * s2 + 1]]
            w0 = np.uint64(0)
            w1 = np.uint64(0)
            for r in range(4):
                w0 |= w.fit[nb, r, 0] & SIDE_FIT[s2, code, r, 0]
                w1 |= w.fit[nb, r, 1] & SIDE_FIT[s2, code, r, 1]
            n = _popcount64(w0 & w.avail[0]) + _popcount64(w1 & w.avail[1])
            w.small[8 + nchg] = nb
            w.smallf[nchg] = _fill_chance(n, ctx)
            nchg += 1
            chg |= np.int64(1) << np.int64(nb)
    # the new tile's segments merge the components they touch
    before = 0.0
    after = 0.0
    nmerged = 0
    cbit = np.int64(1) << np.int64(cell)
    for qq in range(NUM_PORTS):
        if ROT_SEGMENT_ROOT[t, rot, qq] != qq:
            continue
        kind = LABEL_FEATURE[ROT_PORTS[t, rot, qq]]
        first = nmerged
        closed = 0
        opened = 0
        ocm = np.int64(0)
        for q2 in range(NUM_PORTS):
            if ROT_SEGMENT_ROOT[t, rot, q2] != qq:
                continue
            nb = neighbour(cell, PORT_SIDE[q2])
            if nb < 0:
                continue
            if tiles[nb] >= 0:
                closed += 1
                r = w.root[NUM_PORTS * nb + PORT_MATCH[q2]]
                seen = False
                for i in range(first, nmerged):
                    if w.small[16 + i] == r:
                        seen = True
                if not seen and nmerged < 16:
                    w.small[16 + nmerged] = r
                    nmerged += 1
            else:
                opened += 1
                ocm |= np.int64(1) << np.int64(nb)
        n_open = opened - closed
        cm = cbit
        ch = TILE_CHIMNEYS[t] if kind == VILLA else 0
        for i in range(first, nmerged):
            r = w.small[16 + i]
            n_open += w.opn[r]
            cm |= w.cells[r]
            ocm |= w.ocells[r]
            ch += w.chim[r]
            before += w.pot[r]
        ocm &= ~cbit
        if n_open <= 0:
            val += _done_value(kind, cm, ch, v, b, p, ctx, w.tinfo)
        else:
            after += _pot_value(kind, cm, ocm, ch, v, b, p, ctx, w.tinfo, w, nchg)
    # open components whose open cells got a new constraint
    if nchg > 0:
        for i in range(w.oroots[NUM_NODES]):
            r = w.oroots[i]
            if (w.ocells[r] & chg) == 0:
                continue
            merged = False
            for j in range(nmerged):
                if w.small[16 + j] == r:
                    merged = True
            if merged:
                continue
            before += w.pot[r]
            after += _pot_value(w.ckind[r], w.cells[r], w.ocells[r], w.chim[r], v, b, p, ctx, w.tinfo, w, nchg)
    return val + ctx[_X_OPENW] * (after - before)


@kernel
def _tile_value(v, b, p, t, ctx, w, params):
    """Best value of tile t (its best legal placement, or storing) and the action achieving it."""
    best = params[_LEFTOVER_VALUE]
    best_a = ACTION_STORE
    shovel = BOARD_SHOVEL[v.board[b, p]]
    if v.cell_tile[b, p, shovel] < 0:
        best = NEVER  # the first tile must be built on the shovel cell
    word = t // 64
    bit = np.uint64(1) << np.uint64(t % 64)
    for i in range(w.front[NUM_CELLS]):
        cell = w.front[i]
        for rot in range(4):
            if (w.fit[cell, rot, word] & bit) == 0:
                continue
            val = _eval_place(v, b, p, t, rot, cell, ctx, w)
            if val > best:
                best = val
                best_a = ACTION_PLACE + 4 * cell + rot
    return best, best_a


@kernel
def _cached_tile_value(v, b, p, t, ctx, w, params):
    if w.tact[t] < 0:
        val, a = _tile_value(v, b, p, t, ctx, w, params)
        w.tval[t] = val
        w.tact[t] = a
    return w.tval[t]


@kernel
def _turns_after(v, b):
    """Own turns still to come after the current one."""
    rnd = v.round[b]
    if rnd >= ROUNDS_PER_PHASE:
        return (NUM_PHASES - 1 - v.phase[b]) * ROUNDS_PER_PHASE
    return (NUM_PHASES - 1 - v.phase[b]) * ROUNDS_PER_PHASE + ROUNDS_PER_PHASE - 1 - rnd


@kernel
def _prepare_turn(v, b, p, P, params, ctx, w, exact_craft):
    _prepare_values(v, b, p, P, NUM_PHASES - v.phase[b], params, ctx)
    ctx[_X_T] = _turns_after(v, b)
    ctx[_X_FILL] = params[_FILL_RATE]
    ctx[_X_OPENW] = params[_OPEN_WEIGHT]
    ctx[_X_CHPC] = params[_CHIMNEYS_PER_CELL]
    ctx[_X_CELL] = params[_CELL_COST]
    n_display = 0
    for i in range(DISPLAY_SLOTS):
        if v.display[b, i] >= 0:
            n_display += 1
    ctx[_X_CRAFT] = 0.0
    _prepare_tasks(v, b, p, w.tinfo)
    _setup_district(v, b, p, ctx, w)
    _expected_counts(v, b, p, params, ctx, w)
    for t in range(NUM_TILES):
        w.tact[t] = -1
    if n_display > 0 and not exact_craft:
        ctx[_X_CRAFT] = 3.0
        _compute_pots(v, b, p, ctx, w)
    elif n_display > 0:  # a craftsman pick: the best display tile for the district as it is now
        best = 0.0
        for i in range(DISPLAY_SLOTS):
            t = v.display[b, i]
            if t >= 0:
                best = max(best, _tile_value(v, b, p, t, ctx, w, params)[0])
        ctx[_X_CRAFT] = params[_CRAFT_VALUE] * best
        _compute_pots(v, b, p, ctx, w)


# --- turn decisions ----------------------------------------------------------------------------------

@kernel
def _depot_value(v, b, p, d, ctx, w, params):
    best = NEVER
    for j in range(DEPOT_SLOTS):
        t = v.depot[b, d, j]
        if t >= 0:
            best = max(best, _cached_tile_value(v, b, p, t, ctx, w, params) + params[_DENY_WEIGHT] * w.deny[t])
    return best


@kernel
def _prepare_deny(v, b, p, P, params, ctx, w):
    """w.deny[t] for the depot tiles: max over the opponents of (their value of t - the mean of their
    values of the depot tiles), at least 0, / (P - 1)."""
    for t in range(NUM_TILES):
        w.deny[t] = 0.0
    if params[_DENY_WEIGHT] == 0.0:
        return
    for q in range(P):
        if q == p:
            continue
        _prepare_turn(v, b, q, P, params, ctx, w, False)
        tot = 0.0
        n = 0
        for d in range(NUM_SPACES):
            for j in range(DEPOT_SLOTS):
                t = v.depot[b, d, j]
                if t >= 0:
                    tot += _cached_tile_value(v, b, q, t, ctx, w, params)
                    n += 1
        if n == 0:
            continue
        mean = tot / n
        for d in range(NUM_SPACES):
            for j in range(DEPOT_SLOTS):
                t = v.depot[b, d, j]
                if t >= 0:
                    w.deny[t] = max(w.deny[t], (w.tval[t] - mean) / (P - 1))


@kernel
def _move_action(v, b, p, mask_row, ctx, w, params):
    pos = v.patrician[b, p]
    best = NEVER
    best_a = -1
    for a in (ACTION_MOVE_CW, ACTION_MOVE_CCW):
        if not mask_row[a]:
            continue
        d = walk(v, b, pos, 1 if a == ACTION_MOVE_CW else NUM_SPACES - 1)
        val = _depot_value(v, b, p, d, ctx, w, params)
        if val > best:
            best = val
            best_a = a
    for k in range(NUM_SPACES):
        if not mask_row[ACTION_SPACE + k]:
            continue
        val = _depot_value(v, b, p, k, ctx, w, params) - ctx[_X_BREAD] - params[_BREAD_MOVE_COST]
        if val > best + 1e-9:
            best = val
            best_a = ACTION_SPACE + k
    return best_a


@kernel
def _take_action(v, b, p, mask_row, ctx, w, params):
    d = v.patrician[b, p]
    for j in range(DEPOT_SLOTS):
        if mask_row[ACTION_TAKE + j]:
            t = v.depot[b, d, j]
            w.values[ACTION_TAKE + j] = _cached_tile_value(v, b, p, t, ctx, w, params) + params[_DENY_WEIGHT] * w.deny[t]
    return best_legal(mask_row, w.values)


@kernel
def _display_action(v, b, p, mask_row, ctx, w, params):
    for i in range(DISPLAY_SLOTS):
        if mask_row[ACTION_DISPLAY + i]:
            w.values[ACTION_DISPLAY + i] = _cached_tile_value(v, b, p, v.display[b, i], ctx, w, params)
    return best_legal(mask_row, w.values)


@kernel
def _place_action(v, b, p, mask_row, ctx, w, params):
    t = v.tile_pending[b]
    best = NEVER
    best_a = -1
    if mask_row[ACTION_STORE]:  # storing wins ties, so not best_legal (lowest index: a placement)
        best = params[_LEFTOVER_VALUE]
        best_a = ACTION_STORE
    for a in range(ACTION_PLACE, ACTION_STORE):
        if not mask_row[a]:
            continue
        cell = (a - ACTION_PLACE) // 4
        rot = (a - ACTION_PLACE) % 4
        val = _eval_place(v, b, p, t, rot, cell, ctx, w)
        if val > best:
            best = val
            best_a = a
    return best_a


@kernel
def _fountain_action(v, b, p, mask_row, ctx, w, params):
    """Return the kind with the fewest completed items expected at the end (`_expected_counts`)."""
    for k in range(NUM_FOUNTAIN_KINDS):
        w.values[ACTION_RETURN + k] = -ctx[_X_END + k]
    return best_legal(mask_row, w.values)


# --- scoring ------------------------------------------------------------------------------------------

@kernel
def _apply_card(card, u, bp, res, src, dst):
    """res[dst] = res[src] after resolving `card` with u units and bp 3-bread payments;
    returns (VP, steps). res rows: goods x4, coins, bread."""
    for i in range(6):
        res[dst, i] = res[src, i]
    if CARD_RED[card]:
        res[dst, 4] -= pay_goods(card, u, res[dst])
    res[dst, 5] -= 3 * bp
    total = u + bp
    if total == 0:
        return -FAIL_VP, 0
    res[dst, 4] += CARD_GAIN[card, GAIN_COIN] * total
    res[dst, 5] += CARD_GAIN[card, GAIN_BREAD] * total
    return CARD_GAIN[card, GAIN_VP] * total, CARD_GAIN[card, GAIN_STEP] * total


@kernel
def _res_value(res, lvl, ctx):
    val = res[lvl, 4] * ctx[_X_COIN] + res[lvl, 5] * ctx[_X_BREAD]
    for g in range(NUM_GOODS):
        val += res[lvl, g] * ctx[_X_GV + g]
    return val


@kernel
def _card_range(v, b, p, card, fixed_u, res, src):
    """Units to try for `card` from res[src]: fixed_u if >= 0, 0..u_max for red cards, the natural units for green."""
    if fixed_u >= 0:
        return fixed_u, fixed_u
    if CARD_RED[card]:
        return 0, red_units_payable(card, res[src], res[src, 4])
    u = min(green_units(v, b, p, card), MAX_UNITS)
    return u, u


@kernel
def _best_last(v, b, p, card, res, src, dst, ctx):
    """Best value of resolving `card` last from res[src]: VP, steps and the resources left."""
    u_lo, u_hi = _card_range(v, b, p, card, -1, res, src)
    best = NEVER
    for u in range(u_lo, u_hi + 1):
        for bp in range(min(res[src, 5] // 3, MAX_UNITS) + 1):
            vp, steps = _apply_card(card, u, bp, res, src, dst)
            val = vp + steps * ctx[_X_STEP] + _res_value(res, dst, ctx)
            if val > best:
                best = val
    return best


@kernel
def _best_card(v, b, p, card, fixed_u, res, nxt, ctx):
    """Best value of resolving `card` from res[0] (units fixed_u if >= 0), then `nxt` (if >= 0)
    optimally; returns (value, units, bread payments) of the first card. The value counts VP, steps
    and the resources left."""
    u_lo, u_hi = _card_range(v, b, p, card, fixed_u, res, 0)
    best = NEVER
    best_u = u_lo
    best_bp = 0
    for u in range(u_lo, u_hi + 1):
        for bp in range(min(res[0, 5] // 3, MAX_UNITS) + 1):
            vp, steps = _apply_card(card, u, bp, res, 0, 1)
            val = vp + steps * ctx[_X_STEP]
            if nxt >= 0:
                val += _best_last(v, b, p, nxt, res, 1, 2, ctx)
            else:
                val += _res_value(res, 1, ctx)
            if val > best + 1e-9:
                best = val
                best_u = u
                best_bp = bp
    return best, best_u, best_bp


@kernel
def _load_res(v, b, p, res):
    for g in range(NUM_GOODS):
        res[0, g] = v.goods[b, p, g]
    res[0, 4] = v.coins[b, p]
    res[0, 5] = v.bread[b, p]


@kernel
def _pair_value(v, b, p, sp, ctx, res):
    """Best value of a scoring turn on circle space sp: (value, resolve the higher slot first)."""
    lo = v.card_slot[b, CIRCLE_SLOTS[sp, 0]]
    hi = v.card_slot[b, CIRCLE_SLOTS[sp, 1]]
    _load_res(v, b, p, res)
    a = _best_card(v, b, p, lo, -1, res, hi, ctx)[0]
    c = _best_card(v, b, p, hi, -1, res, lo, ctx)[0]
    if c > a + 1e-9:
        return c, True
    return a, False


@kernel
def _current_cards(v, b):
    a = v.card_slot[b, CIRCLE_SLOTS[v.cur_space[b], 0]]
    c = v.card_slot[b, CIRCLE_SLOTS[v.cur_space[b], 1]]
    first = c if v.first_high[b] else a
    second = a if v.first_high[b] else c
    if v.card_seq[b] == 0:
        return first, second
    return second, -1


@kernel
def _scoring_action(v, b, p, P, dec, mask_row, params, ctx, w):
    _prepare_values(v, b, p, P, NUM_PHASES - 1 - v.phase[b], params, ctx)
    res = w.res
    if dec == DEC_SCORE_SPACE:
        for sp in range(NUM_CIRCLE_SPACES):
            if mask_row[ACTION_SCORE_SPACE + sp]:
                w.values[ACTION_SCORE_SPACE + sp] = _pair_value(v, b, p, sp, ctx, res)[0]
        return best_legal(mask_row, w.values)
    if dec == DEC_CARD_ORDER:
        return ACTION_ORDER_HIGH if _pair_value(v, b, p, v.cur_space[b], ctx, res)[1] else ACTION_ORDER_LOW
    card, nxt = _current_cards(v, b)
    _load_res(v, b, p, res)
    if dec == DEC_CARD_UNITS:
        u = _best_card(v, b, p, card, -1, res, nxt, ctx)[1]
        return ACTION_COUNT + u
    # DEC_CARD_BREAD: the units are fixed (chosen for red cards, natural for green ones)
    bp = _best_card(v, b, p, card, v.units[b], res, nxt, ctx)[2]
    return ACTION_COUNT + bp


# --- entry point --------------------------------------------------------------------------------------

@kernel
def heuristic_actions_nb(mask, out, params, *arrays):
    """The `TunedHeuristic.KERNEL`: out[b] = the action for the seat to play in each live row b, from
    that seat's View. arrays: the `SCRATCH` arrays, then the `_USED` fields of the View."""
    w = _Scratch(*arrays[:_NUM_SCRATCH])
    v = _View(*arrays[_NUM_SCRATCH:])
    ctx = w.ctx  # the per-row context, passed on alone to the helpers that read nothing else
    P = v.coins.shape[1]
    for b in range(v.coins.shape[0]):
        if v.done[b]:
            continue
        p = int(v.viewer[b])
        dec = v.decision[b]
        a = -1
        if dec == DEC_START_SPACE:  # the depots are still face down: any free space
            for k in range(NUM_SPACES):
                if mask[b, ACTION_SPACE + k]:
                    a = ACTION_SPACE + k
                    break
        elif dec >= DEC_SCORE_SPACE:
            a = _scoring_action(v, b, p, P, dec, mask[b], params, ctx, w)
        else:
            if dec == DEC_MOVE or dec == DEC_TAKE:
                _prepare_deny(v, b, p, P, params, ctx, w)
            else:
                for t in range(NUM_TILES):
                    w.deny[t] = 0.0
            _prepare_turn(v, b, p, P, params, ctx, w, True)
            if dec == DEC_MOVE:
                a = _move_action(v, b, p, mask[b], ctx, w, params)
            elif dec == DEC_TAKE:
                a = _take_action(v, b, p, mask[b], ctx, w, params)
            elif dec == DEC_PLACE:
                a = _place_action(v, b, p, mask[b], ctx, w, params)
            elif dec == DEC_DISPLAY_PICK:
                a = _display_action(v, b, p, mask[b], ctx, w, params)
            elif dec == DEC_FOUNTAIN_RETURN:
                a = _fountain_action(v, b, p, mask[b], ctx, w, params)
        out[b] = a


class Heuristic(TunedHeuristic):
    """The hand-written Carpe Diem player (strategy in the module docstring); it reads only the acting
    seat's View.

    Keyword arguments override entries of `DEFAULT_PARAMS` by name, e.g. `Heuristic(open_weight=0.6)`.
    """

    DEFAULT_PARAMS = DEFAULT_PARAMS
    PARAM_NAMES = PARAM_NAMES
    SCRATCH = SCRATCH
    KERNEL = heuristic_actions_nb
    VIEW_FIELDS = _USED
