"""numba kernels for Carpe Diem: what one row of the batch does (the row functions of envs/codegen.py, from
which the batch entry points in entries.py are generated) and their helpers.

A row function works on row b of the State `s` in place (`rules.apply` hands it a copy). Kernels never
allocate (envs/jit.py): scratch arrays are named in state.SCRATCH (`work` (WORK_SIZE,) int32 and
`cellmask` (NUM_NODES,) int64 among them).

District analysis: a union-find over the 36 x 8 ports of a district.
Ports of one segment are joined (ROT_SEGMENT_ROOT), ports facing each other across placed
neighbours are joined; a component is a feature instance, complete when none of its ports faces an
empty cell. `_analyze` recomputes every derived field of a player (completed counts, chimneys,
villa VP, satisfied frame tasks) from the district and reports what a new tile just completed.

Flow: `_settle` runs the automatic steps (end of turn, scoring order, card resolution, next phase,
final scoring) until a seat has a decision; `_advance` then applies single-legal-action decisions when
`auto_forced` and settles again. Randomness: `init_row` and the depot deal / fountain draw read the
uniforms `u`; determinize uses a splitmix64 stream seeded per row by the caller.
"""
from __future__ import annotations

import numpy as np

from meeple.envs.carpe_diem.data import (
    ACTION_COUNT, ACTION_DISPLAY, ACTION_MOVE_CCW, ACTION_MOVE_CW, ACTION_ORDER_HIGH, ACTION_ORDER_LOW,
    ACTION_PLACE, ACTION_RETURN, ACTION_SCORE_SPACE, ACTION_SPACE, ACTION_STORE, ACTION_TAKE,
    ADMINISTRATOR, ADMINISTRATOR_STEPS, ANY_LODGING, BAKER, BAKER_BREAD, BAKERY_BREAD, BOARD_BANDEROLE,
    BOARD_SHOVEL, BREAD_PER_FULFILMENT, CARD_GAIN, CARD_HAVE,
    CARD_LETTER_START, CARD_PAY, CARD_RED, CARDS_DRAWN, CENTRE_BAKERY, CENTRE_FEATURE, CENTRE_FOUNTAIN,
    CENTRE_MARKET, CHIMNEYS, CIRCLE_SLOTS, CRAFTSMAN, DEC_CARD_BREAD, DEC_CARD_ORDER, DEC_CARD_UNITS,
    DEC_DISPLAY_PICK, DEC_FOUNTAIN_RETURN, DEC_GAME_OVER, DEC_MOVE, DEC_PLACE, DEC_SCORE_SPACE,
    DEC_START_SPACE, DEC_TAKE, DEPOT_SLOTS, DISPLAY_SLOTS, FAIL_VP, FOUNTAIN_CARD_VP, FOUNTAIN_COPIES,
    FRAME_POSITION_VP, FRAME_TASKS, GAIN_BREAD, GAIN_COIN, GAIN_STEP, GAIN_VP, LABEL_FEATURE,
    LIGHT_PER_PHASE, MARKET_COINS, MAX_UNITS, MERCHANT, MERCHANT_BONUS_COINS,
    NUM_CARD_SLOTS, NUM_CELLS, NUM_CIRCLE_SPACES, NUM_COUNTABLES, NUM_FEATURES,
    NUM_FOUNTAIN_KINDS, NUM_GOODS, NUM_LIGHT, NUM_PHASES, NUM_PORTS, NUM_SPACES, NUM_TILES, PORT_MATCH,
    PORT_SIDE, ROT_PORTS, ROT_SEGMENT_ROOT, ROUNDS_PER_PHASE, SIDE_DC, SIDE_DR, SIDE_IN, SIDE_OUT, SLOT_USED,
    SPACE_USABLE,
    START_VP, TASK_LINE, TILE_CENTRE, TILE_CHIMNEYS, TRACK_END, U_INIT_BOARDS, U_INIT_CARD_SLOTS,
    U_INIT_CARDS, U_INIT_DISPLAY, U_INIT_FRAMES, U_INIT_START, U_STEP_DEAL, U_STEP_FOUNTAIN, VILLA,
    VILLA_VP,
)
from meeple.envs.jit import (
    SQUARE_DC, SQUARE_DR, append_copies, count_at_least, find_root, kernel, set_item4, shuffle_prefix, shuffle_stream,
    square_neighbour, tally_items, uniform_index, union_roots,
)

from meeple.envs.carpe_diem.state import (  # noqa: F401  (W_* offsets are used below)
    LOC_DEPOT, LOC_DISPLAY, LOC_PENDING, LOC_PLACED, LOC_REMOVED, LOC_STORED, LOC_SUPPLY, NUM_LOCS, NUM_NODES,
    W_CHIM, W_GEN, W_LIST, W_LIST2, W_NEW_GOODS, W_NEW_KIND, W_OPEN, W_PARENT, W_STACK, W_VISIT, WORK_SIZE,
)
from meeple.envs.carpe_diem.state import State as _State

# LINE_MASK[is_row, i]: bit mask of the cells of column i (is_row 0) or row i (is_row 1)
LINE_MASK = np.zeros((2, 6), dtype=np.int64)
for _i in range(6):
    for _j in range(6):
        LINE_MASK[0, _i] |= np.int64(1) << np.int64(6 * _j + _i)
        LINE_MASK[1, _i] |= np.int64(1) << np.int64(6 * _i + _j)


# --- small helpers --------------------------------------------------------------------------

@kernel(inline="always")
def _popcount(x):
    n = 0
    while x:
        x &= x - np.int64(1)
        n += 1
    return n


# the district's side order (data.SIDE_DR / SIDE_DC, also behind PORT_SIDE and SIDE_IN) is the library's
assert (SIDE_DR == SQUARE_DR).all() and (SIDE_DC == SQUARE_DC).all()


@kernel(inline="always")
def neighbour(cell, side):
    """Cell across `side` (N, E, S, W like data.SIDE_DR / SIDE_DC) of `cell` in the 6 x 6 district, -1
    for the frame; the encoder and heuristic import it from here (and find_root) with the district size fixed."""
    return square_neighbour(cell, side, 6, 6)


@kernel
def union_district(tiles, rots, parent):
    """Union-find over the (8 * cell + port) nodes of one district: the ports of one
    segment are joined, and so are ports facing each other across placed neighbours. Only the nodes
    of placed cells are reset and joined (nodes of empty cells are never read). The first pass of
    `district_components`."""
    for cell in range(NUM_CELLS):
        if tiles[cell] >= 0:
            for n in range(NUM_PORTS * cell, NUM_PORTS * cell + NUM_PORTS):
                parent[n] = n
    for cell in range(NUM_CELLS):
        t = tiles[cell]
        if t < 0:
            continue
        rot = rots[cell]
        for q in range(NUM_PORTS):
            if ROT_PORTS[t, rot, q] == 0:
                continue
            union_roots(parent, NUM_PORTS * cell + q, NUM_PORTS * cell + np.int64(ROT_SEGMENT_ROOT[t, rot, q]))
            nb = neighbour(cell, PORT_SIDE[q])
            if nb >= 0 and tiles[nb] >= 0:
                union_roots(parent, NUM_PORTS * cell + q, NUM_PORTS * nb + PORT_MATCH[q])


@kernel(inline="always")
def district_components(tiles, rots, parent, cells, open_ports, chimneys, frame_open, root, kind, open_cells):
    """The feature instances of one district: `union_district` into parent, then per instance, indexed by its
    root node r, the bit set of its cells into cells[r], its open ports into open_ports[r] (ports facing an
    empty cell, and with frame_open those facing the frame) and its villa chimneys into chimneys[r], added to
    what the caller zeroed. Unless None, also root[node] = r for every port with a feature, kind[r] the
    instance's feature kind and open_cells[r] the bit set of the empty cells its ports face. Shared by
    `_analyze` (an instance touching the frame is never complete) and the heuristic (on a View's district)."""
    union_district(tiles, rots, parent)
    for cell in range(NUM_CELLS):
        t = tiles[cell]
        if t < 0:
            continue
        rot = rots[cell]
        for q in range(NUM_PORTS):
            lab = ROT_PORTS[t, rot, q]
            if lab == 0:
                continue
            node = NUM_PORTS * cell + q
            r = find_root(parent, node)
            if root is not None:
                root[node] = r
            if kind is not None:
                kind[r] = LABEL_FEATURE[lab]
            cells[r] |= np.int64(1) << np.int64(cell)
            nb = neighbour(cell, PORT_SIDE[q])
            if nb < 0:
                if frame_open:
                    open_ports[r] += 1
            elif tiles[nb] < 0:
                open_ports[r] += 1
                if open_cells is not None:
                    open_cells[r] |= np.int64(1) << np.int64(nb)
            if lab == 1 and ROT_SEGMENT_ROOT[t, rot, q] == q:  # one villa segment per tile: its chimneys once
                chimneys[r] += TILE_CHIMNEYS[t]


# --- district analysis --------------------------------------------------------------------------

@kernel
def _analyze(s, b, p, work, cellmask, new_cell):
    """Recompute the derived fields of player p (completed, chimneys, villa_vp, task_done) and, if
    new_cell >= 0, write into work[W_NEW_*] what the tile on new_cell just completed (instances that
    are complete and contain new_cell: before this tile they were open towards it or did not exist).
    """
    tiles = s.cell_tile[b, p]
    rots = s.cell_rot[b, p]
    parent = work[W_PARENT:W_PARENT + NUM_NODES]
    for cell in range(NUM_CELLS):  # nodes of empty cells are never read
        if tiles[cell] >= 0:
            for n in range(NUM_PORTS * cell, NUM_PORTS * cell + NUM_PORTS):
                work[W_OPEN + n] = 0
                work[W_CHIM + n] = 0
                cellmask[n] = 0
    for k in range(NUM_FEATURES):
        work[W_NEW_KIND + k] = 0
        s.completed[b, p, k] = 0
    for g in range(NUM_GOODS):
        work[W_NEW_GOODS + g] = 0
    chim_total = np.int64(0)
    # np.int64 casts of table values below: with NUMBA_DISABLE_JIT, python int + int8 stays int8 and
    # overflows (e.g. W_NEW_KIND + kind, 8 * cell + port); the JIT computes in int64 anyway
    for cell in range(NUM_CELLS):
        t = tiles[cell]
        if t < 0:
            continue
        chim_total += TILE_CHIMNEYS[t]
        ctr = TILE_CENTRE[t]
        if ctr > 0:  # centre buildings are complete on placement
            k = np.int64(CENTRE_FEATURE[ctr])
            s.completed[b, p, k] += 1
            if cell == new_cell:
                work[W_NEW_KIND + k] += 1
    # the unions, then per component: cells, open ports (the frame too), chimneys
    district_components(tiles, rots, parent, cellmask, work[W_OPEN:W_OPEN + NUM_NODES], work[W_CHIM:W_CHIM + NUM_NODES],
                        True, None, None, None)
    villa_vp = 0
    for i in range(NUM_TASKS_PER_PLAYER):
        s.task_done[b, p, i] = False
    for n in range(NUM_NODES):
        cell = n // NUM_PORTS
        t = tiles[cell]
        if t < 0 or work[W_PARENT + n] != n or cellmask[n] == 0 or work[W_OPEN + n] != 0:
            continue
        kind = np.int64(LABEL_FEATURE[ROT_PORTS[t, rots[cell], n % NUM_PORTS]])
        s.completed[b, p, kind] += 1
        if kind == VILLA:
            villa_vp += VILLA_VP[work[W_CHIM + n]]
        if new_cell >= 0 and (cellmask[n] >> np.int64(new_cell)) & np.int64(1):
            work[W_NEW_KIND + kind] += 1
            if kind < NUM_GOODS:  # landscape: goods = tiles - 1
                work[W_NEW_GOODS + kind] += _popcount(cellmask[n]) - 1
        # frame tasks: a completed instance with any cell on the task's line satisfies it
        for side in range(4):
            part = s.frame[b, p, side]
            for j in range(2):
                if FRAME_TASKS[part, j, 0] != kind:
                    continue
                pos = FRAME_TASKS[part, j, 1]
                if cellmask[n] & LINE_MASK[TASK_LINE[side, pos, 0], TASK_LINE[side, pos, 1]]:
                    s.task_done[b, p, 2 * side + j] = True
    s.chimneys[b, p] = chim_total
    s.villa_vp[b, p] = villa_vp


NUM_TASKS_PER_PLAYER = 8


@kernel
def _complete_at(s, b, p, new_cell, work):
    """Incremental `_analyze` for a tile just placed on new_cell: only feature instances that contain
    it can change (any port facing new_cell now joins it), so flood-fill each of its segments'
    instances and update the derived fields for those that are now complete. Writes
    work[W_NEW_*] like `_analyze`; validate compares the result with the full recomputation."""
    tiles = s.cell_tile[b, p]
    rots = s.cell_rot[b, p]
    for k in range(NUM_FEATURES):
        work[W_NEW_KIND + k] = 0
    for g in range(NUM_GOODS):
        work[W_NEW_GOODS + g] = 0
    t = tiles[new_cell]
    rot = rots[new_cell]
    s.chimneys[b, p] += TILE_CHIMNEYS[t]
    ctr = TILE_CENTRE[t]
    if ctr > 0:  # centre buildings are complete on placement
        k = np.int64(CENTRE_FEATURE[ctr])
        s.completed[b, p, k] += 1
        work[W_NEW_KIND + k] += 1
    gen = work[W_GEN] + 1
    if gen > 1 << 30:  # restart the stamps long before int32 overflow
        for n in range(NUM_NODES):
            work[W_VISIT + n] = 0
        gen = 1
    work[W_GEN] = gen
    for q0 in range(NUM_PORTS):
        if ROT_PORTS[t, rot, q0] == 0 or work[W_VISIT + NUM_PORTS * new_cell + q0] == gen:
            continue
        kind = np.int64(LABEL_FEATURE[ROT_PORTS[t, rot, q0]])
        # flood fill over (cell, port) nodes of this instance
        n_open = 0
        chim = 0
        mask = np.int64(0)
        top = 0
        start = NUM_PORTS * new_cell + q0
        work[W_VISIT + start] = gen
        work[W_STACK] = start
        top = 1
        while top > 0:
            top -= 1
            node = work[W_STACK + top]
            cell = node // NUM_PORTS
            q = node % NUM_PORTS
            tc = tiles[cell]
            rc = rots[cell]
            mask |= np.int64(1) << np.int64(cell)
            root = ROT_SEGMENT_ROOT[tc, rc, q]
            if ROT_PORTS[tc, rc, q] == 1 and root == q:  # one villa segment per tile: chimneys once
                chim += TILE_CHIMNEYS[tc]
            for q2 in range(NUM_PORTS):  # the other ports of the same segment
                if q2 != q and ROT_PORTS[tc, rc, q2] != 0:
                    if ROT_SEGMENT_ROOT[tc, rc, q2] == root:
                        n2 = NUM_PORTS * cell + q2
                        if work[W_VISIT + n2] != gen:
                            work[W_VISIT + n2] = gen
                            work[W_STACK + top] = n2
                            top += 1
            nb = neighbour(cell, PORT_SIDE[q])
            if nb < 0 or tiles[nb] < 0:
                n_open += 1
            else:
                n2 = NUM_PORTS * nb + np.int64(PORT_MATCH[q])
                if work[W_VISIT + n2] != gen:
                    work[W_VISIT + n2] = gen
                    work[W_STACK + top] = n2
                    top += 1
        if n_open > 0:
            continue
        s.completed[b, p, kind] += 1
        work[W_NEW_KIND + kind] += 1
        if kind < NUM_GOODS:  # landscape: goods = tiles - 1
            work[W_NEW_GOODS + kind] += _popcount(mask) - 1
        if kind == VILLA:
            s.villa_vp[b, p] += VILLA_VP[chim]
        for side in range(4):  # frame tasks: any cell of a completed instance on the task's line
            part = s.frame[b, p, side]
            for j in range(2):
                if FRAME_TASKS[part, j, 0] == kind:
                    pos = FRAME_TASKS[part, j, 1]
                    if mask & LINE_MASK[TASK_LINE[side, pos, 0], TASK_LINE[side, pos, 1]]:
                        s.task_done[b, p, 2 * side + j] = True


@kernel(inline="always")
def task_vp(s, b, p):
    total = 0
    for side in range(4):
        part = s.frame[b, p, side]
        for j in range(2):
            if s.task_done[b, p, 2 * side + j]:
                total += FRAME_POSITION_VP[FRAME_TASKS[part, j, 1]]
    return total


@kernel(inline="always")
def public_score(s, b, p):
    """Yucata's running score: VP + track + satisfied tasks + completed villas (leftovers and fountain
    cards count only at the end)."""
    return s.vp[b, p] + s.track[b, p] + task_vp(s, b, p) + s.villa_vp[b, p]


@kernel(inline="always")
def leftover_vp(s, b, p):
    """Leftover material: floor((goods + coins + bread + stored tiles) / 2)."""
    n = s.coins[b, p] + s.bread[b, p] + s.stored[b, p]
    for g in range(NUM_GOODS):
        n += s.goods[b, p, g]
    return n // 2


@kernel(inline="always")
def fountain_vp(s, b, p):
    """Fountain cards: 2 VP per matching item per fountain card."""
    total = 0
    for k in range(NUM_FOUNTAIN_KINDS):
        # int64: an int8 product could wrap with NUMBA_DISABLE_JIT
        total += FOUNTAIN_CARD_VP * np.int64(s.fountain_hand[b, p, k]) * np.int64(s.completed[b, p, k])
    return total


@kernel(inline="always")
def final_score(s, b, p):
    """Final score: public score + leftover material + fountain cards."""
    return public_score(s, b, p) + leftover_vp(s, b, p) + fountain_vp(s, b, p)


# --- banderole track -----------------------------------------------------------------------------

@kernel
def _move_disc(s, b, p, steps):
    """Move p's disc `steps` forward; on top of the stack where it lands; +1 VP per step beyond 35."""
    if steps <= 0:
        return
    P = s.track.shape[1]
    old = s.track[b, p]
    h = s.height[b, p]
    for q in range(P):
        if q != p and s.track[b, q] == old and s.height[b, q] > h:
            s.height[b, q] -= 1
    new = old + steps
    if new > TRACK_END:
        s.vp[b, p] += new - TRACK_END
        new = TRACK_END
    top = 0
    for q in range(P):
        if q != p and s.track[b, q] == new:
            top += 1
    s.track[b, p] = new
    s.height[b, p] = top


# --- counts for the scoring cards -----------------------------------------------------------------

@kernel(inline="always")
def countable(s, b, p, k):
    if k < NUM_FEATURES:
        return np.int64(s.completed[b, p, k])
    if k == CHIMNEYS:
        return np.int64(s.chimneys[b, p])
    total = 0
    lo = MERCHANT if k == ANY_LODGING else 0
    for i in range(lo, lo + 4):
        total += s.completed[b, p, i]
    return np.int64(total)


@kernel
def green_units(s, b, p, card):
    """Natural units of a green card: min over its components of floor(count / needed)."""
    best = np.int64(1 << 30)
    for k in range(NUM_COUNTABLES):
        need = CARD_HAVE[card, k]
        if need > 0:
            u = countable(s, b, p, k) // need
            if u < best:
                best = u
    return best


@kernel
def red_units_payable(card, goods, coins):
    """Largest u payable with goods (a row indexed by good) and coins, coins replacing any good 1:1
    (goods before coins: coins are universal jokers). A pure function of the holdings, so the heuristic
    can ask it for would-be ones."""
    u = 0
    while u < MAX_UNITS:
        short = 0
        for g in range(NUM_GOODS):
            need = CARD_PAY[card, g] * (u + 1)
            if need > goods[g]:
                short += need - goods[g]
        if short > coins:
            break
        u += 1
    return u


@kernel
def red_max_units(s, b, p, card):
    """Largest u payable with p's goods and coins (`red_units_payable`)."""
    return red_units_payable(card, s.goods[b, p], s.coins[b, p])


@kernel(inline="always")
def pay_goods(card, units, goods):
    """Pay `units` of red card `card` from the goods row in place, goods first (coins only for the shortfall);
    returns the coins still owed for the shortfall."""
    owed = 0
    for g in range(NUM_GOODS):
        need = CARD_PAY[card, g] * units
        have = goods[g]
        if need > have:
            owed += need - have
            goods[g] = 0
        else:
            goods[g] = have - need
    return owed


@kernel(inline="always")
def current_card(s, b):
    """The card being resolved in the current scoring turn."""
    a = CIRCLE_SLOTS[s.cur_space[b], 0]
    c = CIRCLE_SLOTS[s.cur_space[b], 1]
    first = c if s.first_high[b] else a
    second = a if s.first_high[b] else c
    return s.card_slot[b, first if s.card_seq[b] == 0 else second]


# --- placement legality ---------------------------------------------------------------------------

@kernel(inline="always")
def _cell_requirements(s, b, p, cell):
    """What a tile on empty `cell` must show per side: the SIDE_OUT code the frame (0,
    meadow) or a placed neighbour demands, -1 where the neighbour cell is empty; and whether the cell
    touches a placed tile along a full side."""
    tiles = s.cell_tile[b, p]
    touching = False
    r0 = r1 = r2 = r3 = -1
    for side in range(4):
        nb = neighbour(cell, side)
        req = -1
        if nb < 0:
            req = 0
        elif tiles[nb] >= 0:
            touching = True
            req = SIDE_IN[tiles[nb], s.cell_rot[b, p, nb], (side + 2) % 4]
        r0, r1, r2, r3 = set_item4(side, req, r0, r1, r2, r3)
    return touching, r0, r1, r2, r3


@kernel(inline="always")
def _matches(t, rot, r0, r1, r2, r3):
    out = SIDE_OUT[t, rot]
    return ((r0 < 0 or out[0] == r0) and (r1 < 0 or out[1] == r1)
            and (r2 < 0 or out[2] == r2) and (r3 < 0 or out[3] == r3))


@kernel(inline="always")
def _fits(s, b, p, t, cell, rot):
    """Whether tile t turned rot may go on cell of p's district (empty cell, contact, matching)."""
    tiles = s.cell_tile[b, p]
    if tiles[cell] >= 0:
        return False
    shovel = BOARD_SHOVEL[s.board[b, p]]
    if tiles[shovel] < 0:
        return cell == shovel  # first-tile rule: any rotation, no further condition
    touching, r0, r1, r2, r3 = _cell_requirements(s, b, p, cell)
    return touching and _matches(t, rot, r0, r1, r2, r3)


@kernel
def _place_mask(s, b, p, t, row):
    """row[ACTION_PLACE + 4 cell + rot] for every placement of tile t; returns whether any is legal."""
    tiles = s.cell_tile[b, p]
    shovel = BOARD_SHOVEL[s.board[b, p]]
    any_legal = False
    for cell in range(NUM_CELLS):
        for rot in range(4):
            row[ACTION_PLACE + 4 * cell + rot] = False
    if tiles[shovel] < 0:  # first-tile rule: the shovel cell in any rotation
        for rot in range(4):
            row[ACTION_PLACE + 4 * shovel + rot] = True
        return True
    for cell in range(NUM_CELLS):
        if tiles[cell] >= 0:
            continue
        touching, r0, r1, r2, r3 = _cell_requirements(s, b, p, cell)
        if not touching:
            continue
        for rot in range(4):
            if _matches(t, rot, r0, r1, r2, r3):
                row[ACTION_PLACE + 4 * cell + rot] = True
                any_legal = True
    return any_legal


@kernel
def _any_placement(s, b, p, t):
    tiles = s.cell_tile[b, p]
    if tiles[BOARD_SHOVEL[s.board[b, p]]] < 0:
        return True
    for cell in range(NUM_CELLS):
        if tiles[cell] >= 0:
            continue
        touching, r0, r1, r2, r3 = _cell_requirements(s, b, p, cell)
        if touching:
            for rot in range(4):
                if _matches(t, rot, r0, r1, r2, r3):
                    return True
    return False


# --- effects of a placement --------------------------------------------------------------------

@kernel
def _fountain_draw(s, b, u, work):
    """Draw 2 cards from the undrawn part of the deck (uniform; returned cards lie
    below it, so they are never redrawn)."""
    P = s.track.shape[1]
    n = 0
    for k in range(NUM_FOUNTAIN_KINDS):
        left = FOUNTAIN_COPIES
        for q in range(P):
            left -= s.fountain_hand[b, q, k] + s.fountain_returned[b, q, k]
        n = append_copies(work, W_LIST, n, k, left)
    shuffle_prefix(work, W_LIST, n, 2, u, b, U_STEP_FOUNTAIN)
    s.fountain_drawn[b, 0] = work[W_LIST]
    s.fountain_drawn[b, 1] = work[W_LIST + 1]


@kernel
def _place(s, b, p, cell, rot, u, work, cellmask):
    """Build the pending tile and resolve its effects in a fixed order: banderole, centre building, landscapes,
    lodgings (baker, administrator, merchant, craftsman), villa."""
    t = s.tile_pending[b]
    s.cell_tile[b, p, cell] = t
    s.cell_rot[b, p, cell] = rot
    s.tile_loc[b, t] = LOC_PLACED
    s.tile_pending[b] = -1
    _complete_at(s, b, p, cell, work)
    # 1. banderole cell
    if BOARD_BANDEROLE[s.board[b, p], cell]:
        _move_disc(s, b, p, 1)
    # 2. centre building
    ctr = TILE_CENTRE[t]
    if ctr == CENTRE_MARKET:
        s.coins[b, p] += MARKET_COINS
    elif ctr == CENTRE_BAKERY:
        s.bread[b, p] += BAKERY_BREAD
    elif ctr == CENTRE_FOUNTAIN:
        _fountain_draw(s, b, u, work)
    # 3. landscapes: tiles - 1 goods each
    for g in range(NUM_GOODS):
        s.goods[b, p, g] += work[W_NEW_GOODS + g]
    # 4. lodgings: baker, administrator, merchant, craftsman
    s.bread[b, p] += BAKER_BREAD * work[W_NEW_KIND + BAKER]
    _move_disc(s, b, p, ADMINISTRATOR_STEPS * work[W_NEW_KIND + ADMINISTRATOR])
    for _ in range(work[W_NEW_KIND + MERCHANT]):
        total = 0
        for g in range(NUM_GOODS):
            total += s.goods[b, p, g]
            s.goods[b, p, g] = 0
        s.coins[b, p] += total + MERCHANT_BONUS_COINS
    s.craft_pending[b] += work[W_NEW_KIND + CRAFTSMAN]
    # 5. villas: their VP is derived (villa_vp) and already in the running score


@kernel
def _display_count(s, b):
    return count_at_least(s.display[b], 0)


@kernel
def _depot_count(s, b, d):
    return count_at_least(s.depot[b, d], 0)


# --- flow ---------------------------------------------------------------------------------------------

@kernel
def _deal_depots(s, b, u, work):
    """Fill the 7 depots with 28 tiles drawn from this phase's supply (light for phases 0-2, dark for 3)."""
    lo = NUM_LIGHT if s.phase[b] == NUM_PHASES - 1 else 0
    hi = NUM_TILES if s.phase[b] == NUM_PHASES - 1 else NUM_LIGHT
    n = 0
    for t in range(lo, hi):
        if s.tile_loc[b, t] == LOC_SUPPLY:
            work[W_LIST + n] = t
            n += 1
    k = min(n, LIGHT_PER_PHASE)
    shuffle_prefix(work, W_LIST, n, k, u, b, U_STEP_DEAL)
    for i in range(NUM_SPACES * DEPOT_SLOTS):
        d, j = divmod(i, DEPOT_SLOTS)
        if i < k:
            t = work[W_LIST + i]
            s.depot[b, d, j] = t
            s.tile_loc[b, t] = LOC_DEPOT
        else:
            s.depot[b, d, j] = -1


@kernel
def _begin_phase_turns(s, b):
    s.round[b] = 0
    s.turn[b] = 0
    s.decision[b] = DEC_MOVE
    s.to_play[b] = s.start_player[b]


@kernel
def _begin_scoring(s, b):
    """Scoring order by the banderole track: higher space first, top of a stack first, fixed at
    the start of the round."""
    P = s.track.shape[1]
    for i in range(P):
        s.score_order[b, i] = i
    for i in range(P):  # insertion sort by (track, height) descending
        j = i
        while j > 0:
            a = s.score_order[b, j - 1]
            c = s.score_order[b, j]
            if s.track[b, c] > s.track[b, a] or (s.track[b, c] == s.track[b, a] and s.height[b, c] > s.height[b, a]):
                s.score_order[b, j - 1] = c
                s.score_order[b, j] = a
                j -= 1
            else:
                break
    s.round[b] = ROUNDS_PER_PHASE
    s.turn[b] = 0
    s.decision[b] = DEC_SCORE_SPACE
    s.to_play[b] = s.score_order[b, 0]
    s.cur_space[b] = -1


@kernel
def _end_turn(s, b):
    P = s.track.shape[1]
    s.turn[b] += 1
    if s.turn[b] == P:
        s.turn[b] = 0
        s.round[b] += 1
        if s.round[b] == ROUNDS_PER_PHASE:
            _begin_scoring(s, b)
            return
    s.decision[b] = DEC_MOVE
    s.to_play[b] = (s.start_player[b] + s.turn[b]) % P


@kernel
def _after_tile(s, b):
    """After a tile was built or stored: pending fountain return, then craftsman picks."""
    if s.fountain_drawn[b, 0] >= 0:
        s.decision[b] = DEC_FOUNTAIN_RETURN
        return
    if s.craft_pending[b] > 0:
        if _display_count(s, b) > 0:
            s.decision[b] = DEC_DISPLAY_PICK
            return
        s.craft_pending[b] = 0  # an empty display gives nothing
    _end_turn(s, b)


@kernel
def _begin_card(s, b):
    """Units of the current card: red cards ask (CARD_UNITS), green take their natural units in full."""
    card = current_card(s, b)
    p = s.to_play[b]
    if CARD_RED[card]:
        s.units[b] = 0
        s.decision[b] = DEC_CARD_UNITS
    else:
        s.units[b] = min(green_units(s, b, p, card), 127)
        s.decision[b] = DEC_CARD_BREAD


@kernel
def _resolve_card(s, b, bread_payments):
    """Pay and gain for the current card: goods first, coins for the shortfall."""
    p = s.to_play[b]
    card = current_card(s, b)
    units = np.int64(s.units[b])
    if CARD_RED[card]:
        s.coins[b, p] -= pay_goods(card, units, s.goods[b, p])
    s.bread[b, p] -= BREAD_PER_FULFILMENT * bread_payments
    total = units + bread_payments
    if total == 0:
        s.vp[b, p] -= FAIL_VP
    else:
        s.vp[b, p] += CARD_GAIN[card, GAIN_VP] * total
        s.coins[b, p] += CARD_GAIN[card, GAIN_COIN] * total
        s.bread[b, p] += CARD_GAIN[card, GAIN_BREAD] * total
        _move_disc(s, b, p, CARD_GAIN[card, GAIN_STEP] * total)
    s.units[b] = 0
    if s.card_seq[b] == 0:
        s.card_seq[b] = 1
        _begin_card(s, b)
        return
    # scoring turn over
    s.card_seq[b] = 0
    s.cur_space[b] = -1
    P = s.track.shape[1]
    s.turn[b] += 1
    if s.turn[b] < P:
        s.decision[b] = DEC_SCORE_SPACE
        s.to_play[b] = s.score_order[b, s.turn[b]]
        return
    s.decision[b] = -1  # end of the scoring round: _settle begins the next phase or ends the game


@kernel
def _settle(s, b, u, work):
    """Automatic steps between decisions: the next phase (deal) or the end of the game."""
    if s.decision[b] == -1:
        P = s.track.shape[1]
        if s.phase[b] == NUM_PHASES - 1:
            s.decision[b] = DEC_GAME_OVER
            s.done[b] = True
            s.round[b] = ROUNDS_PER_PHASE
            s.turn[b] = 0
            return
        s.phase[b] += 1
        s.start_player[b] = (s.start_player[b] + 1) % P  # new phase: the marker passes to the left
        _deal_depots(s, b, u, work)
        _begin_phase_turns(s, b)


# --- legality ----------------------------------------------------------------------------------------

@kernel
def fill_mask(s, b, row):
    """row (A,) bool, cleared: the legal actions of the actor of row b."""
    p = s.to_play[b]
    dec = s.decision[b]
    if dec == DEC_START_SPACE:
        P = s.track.shape[1]
        for k in range(NUM_SPACES):
            free = True
            for q in range(P):
                if s.patrician[b, q] == k:
                    free = False
            row[ACTION_SPACE + k] = free
    elif dec == DEC_MOVE:
        row[ACTION_MOVE_CW] = True
        row[ACTION_MOVE_CCW] = True
        if s.bread[b, p] >= 1:
            for k in range(NUM_SPACES):
                row[ACTION_SPACE + k] = _depot_count(s, b, k) > 0
    elif dec == DEC_TAKE:
        d = s.patrician[b, p]
        for j in range(DEPOT_SLOTS):
            row[ACTION_TAKE + j] = s.depot[b, d, j] >= 0
    elif dec == DEC_PLACE:
        _place_mask(s, b, p, s.tile_pending[b], row)
        # the German rules ("Das erste Plaettchen ... muss er auf sein Feld mit der Schaufel legen"):
        # the first tile must be built on the shovel cell; storing is allowed from then on
        row[ACTION_STORE] = s.cell_tile[b, p, BOARD_SHOVEL[s.board[b, p]]] >= 0
    elif dec == DEC_DISPLAY_PICK:
        for i in range(DISPLAY_SLOTS):
            row[ACTION_DISPLAY + i] = s.display[b, i] >= 0
    elif dec == DEC_FOUNTAIN_RETURN:
        for k in range(NUM_FOUNTAIN_KINDS):
            row[ACTION_RETURN + k] = s.fountain_hand[b, p, k] > 0
        # int64: ACTION_RETURN + an int8 kind overflows with NUMBA_DISABLE_JIT
        row[ACTION_RETURN + np.int64(s.fountain_drawn[b, 0])] = True
        row[ACTION_RETURN + np.int64(s.fountain_drawn[b, 1])] = True
    elif dec == DEC_SCORE_SPACE:
        P = s.track.shape[1]
        for sp in range(NUM_CIRCLE_SPACES):
            row[ACTION_SCORE_SPACE + sp] = SPACE_USABLE[P, sp] and s.circle_owner[b, sp] < 0
    elif dec == DEC_CARD_ORDER:
        row[ACTION_ORDER_LOW] = True
        row[ACTION_ORDER_HIGH] = True
    elif dec == DEC_CARD_UNITS:
        hi = red_max_units(s, b, p, current_card(s, b))
        for k in range(hi + 1):
            row[ACTION_COUNT + k] = True
    elif dec == DEC_CARD_BREAD:
        hi = min(s.bread[b, p] // BREAD_PER_FULFILMENT, MAX_UNITS)
        for k in range(hi + 1):
            row[ACTION_COUNT + k] = True


@kernel
def forced_action(s, b):
    """The single legal action of row b if there is exactly one (cheap checks per decision), else -1.

    Kept as a second copy of the legality rules on purpose: deriving it from fill_mask into a scratch
    row and counting measured 22-24% fewer `apply` steps/s at B=2048-4096 (random play, 2 players,
    interleaved A/B; no difference at B=256): it runs after every decision, and for PLACE fill_mask
    checks all 144 placements where `_any_placement` stops at the first."""
    p = s.to_play[b]
    dec = s.decision[b]
    if dec == DEC_TAKE:
        d = s.patrician[b, p]
        only = -1
        for j in range(DEPOT_SLOTS):
            if s.depot[b, d, j] >= 0:
                if only >= 0:
                    return -1
                only = ACTION_TAKE + j
        return only
    if dec == DEC_PLACE:
        if _any_placement(s, b, p, s.tile_pending[b]):
            return -1
        return ACTION_STORE
    if dec == DEC_DISPLAY_PICK:
        only = -1
        for i in range(DISPLAY_SLOTS):
            if s.display[b, i] >= 0:
                if only >= 0:
                    return -1
                only = ACTION_DISPLAY + i
        return only
    if dec == DEC_FOUNTAIN_RETURN:
        only = -1
        for k in range(NUM_FOUNTAIN_KINDS):
            if s.fountain_hand[b, p, k] > 0 or s.fountain_drawn[b, 0] == k or s.fountain_drawn[b, 1] == k:
                if only >= 0:
                    return -1
                only = ACTION_RETURN + k
        return only
    if dec == DEC_SCORE_SPACE:
        P = s.track.shape[1]
        only = -1
        for sp in range(NUM_CIRCLE_SPACES):
            if SPACE_USABLE[P, sp] and s.circle_owner[b, sp] < 0:
                if only >= 0:
                    return -1
                only = ACTION_SCORE_SPACE + sp
        return only
    if dec == DEC_CARD_UNITS:
        if red_max_units(s, b, p, current_card(s, b)) == 0:
            return ACTION_COUNT
        return -1
    if dec == DEC_CARD_BREAD:
        if s.bread[b, p] < BREAD_PER_FULFILMENT:
            return ACTION_COUNT
        return -1
    return -1


# --- actions -------------------------------------------------------------------------------------------

@kernel
def walk(s, b, start, direction):
    """Normal move: next space in `direction`, skipping empty depots; laps the circle back to
    its own space if only that depot has tiles."""
    sp = start
    for _ in range(NUM_SPACES):
        sp = (sp + direction) % NUM_SPACES
        if _depot_count(s, b, sp) > 0:
            return sp
    return start


@kernel
def _apply_action(s, b, a, u, work, cellmask):
    P = s.track.shape[1]
    p = s.to_play[b]
    dec = s.decision[b]
    if dec == DEC_START_SPACE:
        s.patrician[b, p] = a - ACTION_SPACE
        s.turn[b] += 1
        if s.turn[b] < P:
            s.to_play[b] = (s.start_player[b] + s.turn[b]) % P
        else:  # setup: the depot tiles are turned face up now (dealt now: nobody saw them)
            _deal_depots(s, b, u, work)
            _begin_phase_turns(s, b)
    elif dec == DEC_MOVE:
        if a == ACTION_MOVE_CW:
            s.patrician[b, p] = walk(s, b, s.patrician[b, p], 1)
        elif a == ACTION_MOVE_CCW:
            s.patrician[b, p] = walk(s, b, s.patrician[b, p], NUM_SPACES - 1)
        else:  # bread move: to any space with a tile
            s.bread[b, p] -= 1
            s.patrician[b, p] = a - ACTION_SPACE
        s.decision[b] = DEC_TAKE
    elif dec == DEC_TAKE:
        d = s.patrician[b, p]
        j = a - ACTION_TAKE
        t = s.depot[b, d, j]
        s.depot[b, d, j] = -1
        s.tile_loc[b, t] = LOC_PENDING
        s.tile_pending[b] = t
        # depot removal with 2 and 3 players
        left = _depot_count(s, b, d)
        if (P == 2 and left == 2) or (P == 3 and left == 1):
            for i in range(DEPOT_SLOTS):
                if s.depot[b, d, i] >= 0:
                    s.tile_loc[b, s.depot[b, d, i]] = LOC_REMOVED
                    s.depot[b, d, i] = -1
        s.decision[b] = DEC_PLACE
    elif dec == DEC_PLACE:
        if a == ACTION_STORE:
            t = s.tile_pending[b]
            s.tile_loc[b, t] = LOC_STORED
            s.stored[b, p] += 1
            s.tile_pending[b] = -1
        else:
            cell, rot = divmod(a - ACTION_PLACE, 4)
            _place(s, b, p, cell, rot, u, work, cellmask)
        _after_tile(s, b)
    elif dec == DEC_FOUNTAIN_RETURN:
        for i in range(2):
            s.fountain_hand[b, p, s.fountain_drawn[b, i]] += 1
            s.fountain_drawn[b, i] = -1
        k = a - ACTION_RETURN
        s.fountain_hand[b, p, k] -= 1
        s.fountain_returned[b, p, k] += 1
        _after_tile(s, b)
    elif dec == DEC_DISPLAY_PICK:
        i = a - ACTION_DISPLAY
        t = s.display[b, i]
        s.display[b, i] = -1
        s.tile_loc[b, t] = LOC_PENDING
        s.tile_pending[b] = t
        s.craft_pending[b] -= 1
        s.decision[b] = DEC_PLACE
    elif dec == DEC_SCORE_SPACE:
        sp = a - ACTION_SCORE_SPACE
        s.circle_owner[b, sp] = p
        s.circle_phase[b, sp] = s.phase[b]
        s.cur_space[b] = sp
        s.decision[b] = DEC_CARD_ORDER
    elif dec == DEC_CARD_ORDER:
        s.first_high[b] = a == ACTION_ORDER_HIGH
        s.card_seq[b] = 0
        _begin_card(s, b)
    elif dec == DEC_CARD_UNITS:
        s.units[b] = a - ACTION_COUNT
        s.decision[b] = DEC_CARD_BREAD
    elif dec == DEC_CARD_BREAD:
        _resolve_card(s, b, np.int64(a - ACTION_COUNT))


@kernel
def _advance(s, b, u, auto_forced, work, cellmask):
    """Settle, then apply single-legal-action decisions while auto_forced."""
    while True:
        _settle(s, b, u, work)
        if s.done[b] or not auto_forced:
            return
        a = forced_action(s, b)
        if a < 0:
            return
        _apply_action(s, b, a, u, work, cellmask)


# --- row functions (the batch entry points are generated from them: envs/codegen.py) ---------------

@kernel
def init_row(s, b, u, auto_forced, work, cellmask):
    """Fill row b of an empty state from u (B, UNIFORMS_AT_INIT); see data.U_INIT_* for the column layout."""
    P = s.track.shape[1]
    start = uniform_index(u[b, U_INIT_START], P)
    s.start_player[b] = start
    # frames: shuffle the 16 parts; seat p gets parts 4p..4p+3 on N, E, S, W
    for i in range(16):
        work[W_LIST + i] = i
    shuffle_prefix(work, W_LIST, 16, 15, u, b, U_INIT_FRAMES)
    for p in range(P):
        for side in range(4):
            s.frame[b, p, side] = work[W_LIST + 4 * p + side]
    for i in range(4):
        work[W_LIST + i] = i
    shuffle_prefix(work, W_LIST, 4, 3, u, b, U_INIT_BOARDS)
    for p in range(P):
        s.board[b, p] = work[W_LIST + p]
    # scoring cards: draw per letter, shuffle together, lay into the used slots in order
    n = 0
    for letter in range(4):
        lo = CARD_LETTER_START[letter]
        size = CARD_LETTER_START[letter + 1] - lo
        k = CARDS_DRAWN[P, letter]
        for i in range(size):
            work[W_LIST2 + i] = lo + i
        shuffle_prefix(work, W_LIST2, size, k, u, b, U_INIT_CARDS + 4 * letter)
        for i in range(k):
            work[W_LIST + n] = work[W_LIST2 + i]
            n += 1
    shuffle_prefix(work, W_LIST, n, n - 1, u, b, U_INIT_CARD_SLOTS)
    i = 0
    for slot in range(NUM_CARD_SLOTS):
        if SLOT_USED[P, slot]:
            s.card_slot[b, slot] = work[W_LIST + i]
            i += 1
        else:
            s.card_slot[b, slot] = -1
    for sp in range(NUM_CIRCLE_SPACES):
        s.circle_owner[b, sp] = -1
        s.circle_phase[b, sp] = -1
    # tiles: 11 dark tiles onto the bottom display; depots are dealt at the reveal
    for t in range(NUM_TILES):
        s.tile_loc[b, t] = LOC_SUPPLY
    for i in range(NUM_TILES - NUM_LIGHT):
        work[W_LIST + i] = NUM_LIGHT + i
    shuffle_prefix(work, W_LIST, NUM_TILES - NUM_LIGHT, DISPLAY_SLOTS, u, b, U_INIT_DISPLAY)
    for i in range(DISPLAY_SLOTS):
        s.display[b, i] = work[W_LIST + i]
        s.tile_loc[b, work[W_LIST + i]] = LOC_DISPLAY
    for d in range(NUM_SPACES):
        for j in range(DEPOT_SLOTS):
            s.depot[b, d, j] = -1
    # players: starting VP and the stack on space 0, start player at the bottom
    for i in range(P):
        p = (start + i) % P
        s.vp[b, p] = START_VP[P, i]
        s.track[b, p] = 0
        s.height[b, p] = i
        s.patrician[b, p] = -1
        for cell in range(NUM_CELLS):
            s.cell_tile[b, p, cell] = -1
            s.cell_rot[b, p, cell] = 0
    s.tile_pending[b] = -1
    s.fountain_drawn[b, 0] = -1
    s.fountain_drawn[b, 1] = -1
    s.cur_space[b] = -1
    s.phase[b] = 0
    s.round[b] = 0
    s.turn[b] = 0
    s.decision[b] = DEC_START_SPACE
    s.to_play[b] = start
    for p in range(P):
        s.score_order[b, p] = p
        _analyze(s, b, p, work, cellmask, -1)
    _advance(s, b, u, auto_forced, work, cellmask)


@kernel
def apply_row(s, b, a, u, auto_forced, work, cellmask):
    """Apply legal action a to live row b, then run the automatic steps."""
    _apply_action(s, b, a, u, work, cellmask)
    _advance(s, b, u, auto_forced, work, cellmask)


@kernel
def advance_row(s, b, u, auto_forced, work, cellmask):
    """Recompute every player's derived fields, then run only the automatic steps (hand-built positions)."""
    for p in range(s.track.shape[1]):
        _analyze(s, b, p, work, cellmask, -1)
    if not s.done[b]:
        _advance(s, b, u, auto_forced, work, cellmask)


@kernel(inline="always")
def score_of(s, b, p):
    """The final score once row b is finished, else the public running score."""
    return final_score(s, b, p) if s.done[b] else public_score(s, b, p)


@kernel
def observe_row(s, b, me, own_hand, own_returned, own_drawn, fountain_count, score):
    """Write the hidden-information-filtered View fields of row b for seat me (docs/carpe_diem.md, "Hidden information")."""
    P = s.track.shape[1]
    for k in range(NUM_FOUNTAIN_KINDS):
        own_hand[b, k] = s.fountain_hand[b, me, k]
        own_returned[b, k] = s.fountain_returned[b, me, k]
    mine = s.to_play[b] == me and s.decision[b] == DEC_FOUNTAIN_RETURN
    own_drawn[b, 0] = s.fountain_drawn[b, 0] if mine else -1
    own_drawn[b, 1] = s.fountain_drawn[b, 1] if mine else -1
    for p in range(P):
        n = 0
        for k in range(NUM_FOUNTAIN_KINDS):
            n += s.fountain_hand[b, p, k]
        fountain_count[b, p] = n
        score[b, p] = public_score(s, b, p)


@kernel
def determinize_row(s, b, me, seed, work, stream):
    """Resample the fountain cards seat me has not seen in row b: other players' hands, the cards they
    returned, another player's pending draw, and (implicitly) the undrawn deck (see rules.determinize)."""
    P = s.track.shape[1]
    stream[0] = np.uint64(seed)
    other_draw = s.decision[b] == DEC_FOUNTAIN_RETURN and s.to_play[b] != me and s.fountain_drawn[b, 0] >= 0
    n = 0
    for k in range(NUM_FOUNTAIN_KINDS):
        unseen = FOUNTAIN_COPIES - s.fountain_hand[b, me, k] - s.fountain_returned[b, me, k]
        if s.decision[b] == DEC_FOUNTAIN_RETURN and s.to_play[b] == me:
            for i in range(2):
                if s.fountain_drawn[b, i] == k:
                    unseen -= 1
        n = append_copies(work, W_LIST, n, k, unseen)
    shuffle_stream(work, W_LIST, n, stream)
    i = 0
    for q in range(P):
        if q == me:
            continue
        held = 0
        gave = 0
        for k in range(NUM_FOUNTAIN_KINDS):
            held += s.fountain_hand[b, q, k]
            gave += s.fountain_returned[b, q, k]
            s.fountain_hand[b, q, k] = 0
            s.fountain_returned[b, q, k] = 0
        i = tally_items(s.fountain_hand[b, q], work, W_LIST, i, held)
        i = tally_items(s.fountain_returned[b, q], work, W_LIST, i, gave)
    if other_draw:
        s.fountain_drawn[b, 0] = work[W_LIST + i]
        s.fountain_drawn[b, 1] = work[W_LIST + i + 1]


# --- the score by part (rules.score_parts; not a generated entry point) ----------------------------

@kernel
def score_parts_nb(out, *fields):
    """out (B, P, 8): VP cards, track, tasks, villas, leftovers, fountain cards, public, final."""
    s = _State(*fields)
    for b in range(s.done.shape[0]):
        for p in range(s.track.shape[1]):
            out[b, p, 0] = s.vp[b, p]
            out[b, p, 1] = s.track[b, p]
            out[b, p, 2] = task_vp(s, b, p)
            out[b, p, 3] = s.villa_vp[b, p]
            out[b, p, 4] = leftover_vp(s, b, p)
            out[b, p, 5] = fountain_vp(s, b, p)
            out[b, p, 6] = public_score(s, b, p)
            out[b, p, 7] = final_score(s, b, p)
