"""Invariant sweep: thousands of random Carpe Diem games per player count, checked after every step.

The number of games per configuration is MEEPLE_SWEEP_GAMES (1,500 by default, what CI runs, `tests/helpers.py`;
`benchmarks/soak.py` plays a million games per game with `validate` after every step): random
legal play with `game.step` on one large batch, every game played to its end. Checks, all recomputed
with numpy from the primary fields (tile ids, districts, tracks, cards), independently of the kernels:

* every step, every row: >= 2 legal actions in live rows (auto_forced), all True in finished rows;
  completed counts, track and storage never decrease; the game ends within max_game_length;
* every step, a rotating 1/STRIDE of the rows (so each row every STRIDE steps): tile conservation
  and the phase's supply / display / removals; the whole legal mask (PLACE on a sample); score
  parts; banderole stacks; fountain cards; the transition (one tile per step, edge contact, ports
  matching, the placement's rewards, tiles taken per player, deals, scoring order, discs);
* every DISTRICT_EVERY steps, a sample: the district analysis (instances by label propagation over
  the ports; completion, chimneys, villa VP, frame tasks); a pure-python union-find cross-checks a
  few rows; `game.validate` on the whole batch every VALIDATE_EVERY steps;
* every game when it ends: validate, the full district analysis and geometry, discs, tiles, the
  7 depot tiles per phase, rank returns and the winner.

The rules are summarised in docs/carpe_diem.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import core, make
from meeple.envs.carpe_diem import data
from meeple.envs.carpe_diem.rules import (
    LOC_DEPOT, LOC_DISPLAY, LOC_PENDING, LOC_PLACED, LOC_REMOVED, LOC_STORED, LOC_SUPPLY, SCORE_PART_NAMES,
)

from helpers import SWEEP_GAMES as GAMES

VALIDATE_EVERY = 50
DISTRICT_EVERY = 8  # recompute the districts of a subsample every this many steps
DISTRICT_SAMPLE = 128  # rows per district recomputation during play
PLACE_SAMPLE = 256  # PLACE rows whose placement mask is recomputed per step
STRIDE = 8  # the full per-step checks run on every STRIDE-th row, rotating
UF_ROWS = 2  # rows cross-checked with the pure-python union-find per validation checkpoint

NL, NT = data.NUM_LIGHT, data.NUM_TILES
R_PER_DEPOT = {2: 2, 3: 1, 4: 0}  # tiles removed from each depot per phase
START_VP = {2: (8, 9), 3: (8, 9, 13), 4: (8, 9, 10, 11)}  # by position after the start player
POSITION_VP = np.array([5, 4, 3, 3, 4, 5])  # frame task value by position
VILLA_TABLE = np.array([0, 0, 1, 3, 5, 7, 9, 11, 13, 15, 18, 20, 22, 24, 26]
                       + [26 + 2 * (k - 14) for k in range(15, 200)])  # villa VP by chimneys
IN_CONTAINER = np.isin(np.arange(7), (LOC_DEPOT, LOC_DISPLAY, LOC_PENDING, LOC_PLACED))
LODGINGS = slice(data.MERCHANT, data.CRAFTSMAN + 1)
LANDSCAPES = slice(0, 4)

# --- geometry, written out from the rules ----------------------------------------------------------
MATCH = np.array([(p + 5) % 8 if p % 2 == 0 else (p + 3) % 8 for p in range(8)])
SIDE_MATE = np.arange(8) ^ 1  # the other port of the same side
CORNER_MATE = np.array([7, 2, 1, 4, 3, 6, 5, 0])  # the other port of the same corner (NE {1,2}, SE {3,4}, ...)
NB = np.full((36, 4), -1)  # neighbour across side N, E, S, W; -1 = frame
for _c in range(36):
    for _s, (_dr, _dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
        _r, _cc = _c // 6 + _dr, _c % 6 + _dc
        if 0 <= _r < 6 and 0 <= _cc < 6:
            NB[_c, _s] = 6 * _r + _cc
NODE = np.arange(288)
PARTNER = np.array([8 * NB[n // 8, (n % 8) // 2] + MATCH[n % 8] if NB[n // 8, (n % 8) // 2] >= 0 else -1
                    for n in range(288)])  # node 8 * cell + port -> the facing node, -1 = frame
PARTNER_SAFE = np.maximum(PARTNER, 0)
SIDE_MATE_N = 8 * (NODE // 8) + SIDE_MATE[NODE % 8]
CORNER_MATE_N = 8 * (NODE // 8) + CORNER_MATE[NODE % 8]
# task line by frame side: N column k, E row k, S column 5 - k, W row 5 - k
TASK_IS_ROW = (False, True, False, True)
CENTRE_KIND = np.array([-1, data.MARKET, data.BAKERY, data.FOUNTAIN])


# --- independent district analysis ------------------------------------------------------------------

def reference_districts(tiles: np.ndarray, rots: np.ndarray, frames: np.ndarray, sizes: bool = False) -> dict:
    """Derived fields of D districts (tiles, rots (D, 36), frames (D, 4)) by min-label propagation
    over the 36 x 8 ports: ports of one segment (all villa ports of a tile; a lodging side; the
    landscape ports of one kind at one corner) and facing ports of placed neighbours are joined."""
    D = tiles.shape[0]
    placed = tiles >= 0
    t = np.where(placed, tiles, 0).astype(np.intp)
    lab = np.where(placed[..., None], data.ROT_PORTS[t, rots.astype(np.intp)], 0).reshape(D, 288)
    active = lab > 0
    villa = lab == 1
    cross = active & (PARTNER >= 0) & (lab[:, PARTNER_SAFE] == lab)
    side = active & (lab >= 2) & (lab <= 5) & (lab[:, SIDE_MATE_N] == lab)
    corner = active & (lab >= 6) & (lab[:, CORNER_MATE_N] == lab)
    placed_n = np.repeat(placed, 8, axis=1)
    open_ = active & ((PARTNER < 0) | ~placed_n[:, PARTNER_SAFE])
    L = np.tile(NODE.astype(np.int16), (D, 1))
    todo = np.arange(D)
    for _ in range(300):
        if not todo.size:
            break
        x = L[todo]
        old = x.copy()
        x = np.where(cross[todo], np.minimum(x, x[:, PARTNER_SAFE]), x)
        x = np.where(side[todo], np.minimum(x, x[:, SIDE_MATE_N]), x)
        x = np.where(corner[todo], np.minimum(x, x[:, CORNER_MATE_N]), x)
        v = villa[todo]
        vmin = np.where(v, x, 999).reshape(-1, 36, 8).min(axis=2)
        x = np.where(v, np.repeat(vmin, 8, axis=1), x)
        x = np.take_along_axis(x, x.astype(np.intp), axis=1)  # pointer jumping
        L[todo] = x
        todo = todo[(x != old).any(axis=1)]
    assert not todo.size, "label propagation did not converge"
    dd, nn = np.nonzero(active)
    comp = L[dd, nn].astype(np.intp)
    flat = dd * 288 + comp  # the instance of every active port
    n_open = np.bincount(flat[open_[dd, nn]], minlength=D * 288)
    node_done = n_open[flat] == 0  # the port's instance is completed
    kind = data.LABEL_FEATURE[lab[dd, nn]].astype(np.intp)
    root = node_done & (comp == nn)  # one port per completed instance
    completed = np.bincount(dd[root] * 12 + kind[root], minlength=D * 12).reshape(D, 12)
    centre = np.where(placed, data.TILE_CENTRE[t], 0)
    for c in (1, 2, 3):
        completed[:, CENTRE_KIND[c]] += (centre == c).sum(axis=1)
    chim = np.where(placed, data.TILE_CHIMNEYS[t], 0).astype(np.int64)
    # villa chimneys per instance: every villa tile has one villa segment, counted at its first port
    vcell = villa.reshape(D, 36, 8)
    vd, vc = np.nonzero(vcell.any(axis=2))
    vflat = vd * 288 + L[vd, 8 * vc + vcell[vd, vc].argmax(axis=1)]
    chim_comp = np.bincount(vflat, weights=chim[vd, vc], minlength=D * 288).astype(np.int64)
    vroot = root & (kind == data.VILLA)
    villa_vp = np.bincount(dd[vroot], weights=VILLA_TABLE[chim_comp[flat[vroot]]], minlength=D).astype(np.int64)
    # frame tasks: a completed instance of the kind with any cell on the task's line
    cover = np.zeros(D * 12 * 36, dtype=bool)
    cover[((dd * 12 + kind) * 36 + nn // 8)[node_done]] = True
    cover = cover.reshape(D, 12, 6, 6)
    rows_any, cols_any = cover.any(axis=3), cover.any(axis=2)
    task_done = np.zeros((D, 8), dtype=bool)
    d = np.arange(D)
    for s in range(4):
        part = frames[:, s].astype(np.intp)
        for j in range(2):
            k, pos = data.FRAME_TASKS[part, j, 0], data.FRAME_TASKS[part, j, 1].astype(np.intp)
            line = pos if s < 2 else 5 - pos
            task_done[:, 2 * s + j] = (rows_any if TASK_IS_ROW[s] else cols_any)[d, k, line]
    out = {"completed": completed, "chimneys": chim.sum(axis=1), "villa_vp": villa_vp, "task_done": task_done,
           "n_open_frame": (active & (PARTNER < 0)).sum(axis=1)}
    if sizes:  # distinct cells of every completed instance, with its kind
        key = np.unique(flat * 36 + nn // 8)
        size = np.bincount(key // 36, minlength=D * 288)
        out["done_kind"], out["done_size"] = kind[root], size[flat[root]]
    return out


def python_union_find(tiles, rots) -> tuple[list[int], int, int]:
    """completed counts per kind, chimneys, villa VP of one district with a plain union-find."""
    parent = list(range(288))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def label(cell, q):
        return int(data.ROT_PORTS[tiles[cell], rots[cell], q]) if tiles[cell] >= 0 else 0

    completed = [0] * 12
    for cell in range(36):
        if tiles[cell] < 0:
            continue
        if data.TILE_CENTRE[tiles[cell]]:
            completed[CENTRE_KIND[data.TILE_CENTRE[tiles[cell]]]] += 1
        for q in range(8):
            a = label(cell, q)
            if not a:
                continue
            for q2 in range(8):
                if label(cell, q2) == a and (a == 1 or (a <= 5 and q2 // 2 == q // 2)
                                             or (a >= 6 and (q2 + 1) % 8 // 2 == (q + 1) % 8 // 2)):
                    parent[find(8 * cell + q)] = find(8 * cell + q2)
            nb = NB[cell, q // 2]
            if nb >= 0 and label(nb, MATCH[q]) == a:
                parent[find(8 * cell + q)] = find(8 * nb + MATCH[q])
    is_open, chim, kind_of = {}, {}, {}
    for cell in range(36):
        first_villa = True
        for q in range(8):
            a = label(cell, q)
            if not a:
                continue
            r = find(8 * cell + q)
            kind_of[r] = int(data.LABEL_FEATURE[a])
            nb = NB[cell, q // 2]
            is_open[r] = is_open.get(r, False) or nb < 0 or tiles[nb] < 0
            if a == 1 and first_villa:
                chim[r] = chim.get(r, 0) + int(data.TILE_CHIMNEYS[tiles[cell]])
                first_villa = False
    villa_vp = 0
    for r, op in is_open.items():
        if not op:
            completed[kind_of[r]] += 1
            if kind_of[r] == data.VILLA:
                villa_vp += int(VILLA_TABLE[chim[r]])
    chimneys = sum(int(data.TILE_CHIMNEYS[t]) for t in tiles if t >= 0)
    return completed, chimneys, villa_vp


def check_districts(s, rows: np.ndarray, P: int, full: bool) -> None:
    """Derived fields of `rows` equal the recomputation; with `full`, also the port matching, the
    frame, connectivity via the shovel cell and the published instance sizes."""
    if not rows.size:
        return
    tiles = s.cell_tile[rows].reshape(-1, 36)
    rots = s.cell_rot[rows].reshape(-1, 36)
    ref = reference_districts(tiles, rots, s.frame[rows].reshape(-1, 4), sizes=full)
    np.testing.assert_array_equal(s.completed[rows].reshape(-1, 12), ref["completed"], err_msg="completed")
    np.testing.assert_array_equal(s.chimneys[rows].reshape(-1), ref["chimneys"], err_msg="chimneys")
    np.testing.assert_array_equal(s.villa_vp[rows].reshape(-1), ref["villa_vp"], err_msg="villa_vp")
    np.testing.assert_array_equal(s.task_done[rows].reshape(-1, 8), ref["task_done"], err_msg="task_done")
    if not full:
        return
    D = tiles.shape[0]
    placed = tiles >= 0
    t = np.where(placed, tiles, 0)
    ports = np.where(placed[..., None], data.ROT_PORTS[t, rots], -1)  # (D, 36, 8)
    # frame: ports facing the frame are meadow; neighbours match port by port
    assert ref["n_open_frame"].max(initial=0) == 0, "a placed tile shows a feature towards the frame"
    facing = np.where((PARTNER >= 0)[None], ports.reshape(D, 288)[:, PARTNER_SAFE], -1)
    own = ports.reshape(D, 288)
    bad = (own >= 0) & (facing >= 0) & (own != facing)
    assert not bad.any(), f"placed tiles do not match (district rows {np.flatnonzero(bad.any(1))[:5]})"
    # connectivity: flood fill from the shovel cell reaches every placed tile
    shovel = data.BOARD_SHOVEL[s.board[rows].reshape(-1)]
    d = np.arange(D)
    any_tile = placed.any(axis=1)
    assert placed[d, shovel][any_tile].all(), "a non-empty district without its shovel cell"
    reach = np.zeros((D, 36), dtype=bool)
    reach[d, shovel] = placed[d, shovel]
    for _ in range(36):
        grow = reach.copy()
        for side in range(4):
            ok = NB[:, side] >= 0
            grow[:, ok] |= reach[:, NB[ok, side]]
        grow &= placed
        if (grow == reach).all():
            break
        reach = grow
    assert (reach == placed).all(), "a district is not connected to its shovel cell"
    # completed landscapes 2-4 tiles, lodgings exactly 2, villas >= 2
    dk, size = ref["done_kind"], ref["done_size"]
    land = dk < 4
    assert ((size[land] >= 2) & (size[land] <= 4)).all(), "a completed landscape outside 2..4 tiles"
    lodge = (dk >= 4) & (dk < 8)
    assert (size[lodge] == 2).all(), "a completed lodging not of 2 tiles"
    assert (size[dk == data.VILLA] >= 2).all(), "a completed villa of one tile"


# --- legality recomputed --------------------------------------------------------------------------------

def current_card(s, rows):
    slots = data.CIRCLE_SLOTS[np.maximum(s.cur_space[rows], 0)]
    lo, hi = slots.min(axis=1), slots.max(axis=1)
    first = np.where(s.first_high[rows], hi, lo)
    second = np.where(s.first_high[rows], lo, hi)
    return s.card_slot[rows, np.where(s.card_seq[rows] == 0, first, second)]


def red_u_max(s, rows, actor, card):
    u = np.arange(1, data.MAX_UNITS + 1)
    need = data.CARD_PAY[card][:, None, :].astype(np.int64) * u[None, :, None]  # (n, 31, 4)
    short = np.maximum(0, need - s.goods[rows, actor][:, None, :]).sum(axis=2)
    return (short <= s.coins[rows, actor][:, None]).sum(axis=1)


def green_units(s, rows, actor, card):
    comp = s.completed[rows, actor].astype(np.int64)
    counts = np.concatenate([comp, s.chimneys[rows, actor][:, None], comp[:, LODGINGS].sum(1, keepdims=True),
                             comp[:, LANDSCAPES].sum(1, keepdims=True)], axis=1)
    need = data.CARD_HAVE[card].astype(np.int64)
    return np.where(need > 0, counts // np.maximum(need, 1), 1 << 30).min(axis=1)


def placement_mask(s, rows, actor) -> np.ndarray:
    """(n, 36, 4) legal (cell, rot) for the pending tile: empty cell; the shovel cell while it is
    empty; otherwise edge contact and every side matching (frame = meadow)."""
    n = rows.size
    tiles = s.cell_tile[rows, actor]
    placed = tiles >= 0
    ports = np.where(placed[..., None], data.ROT_PORTS[np.maximum(tiles, 0), s.cell_rot[rows, actor]], -1)
    # label each port of a cell would face: -1 empty neighbour, 0 frame (meadow), else the neighbour's port
    facing = np.where(PARTNER >= 0, ports.reshape(n, 288)[:, PARTNER_SAFE], 0).reshape(n, 36, 8)
    rot_ports = data.ROT_PORTS[s.tile_pending[rows]]  # (n, 4, 8)
    ok = ((facing[:, :, None, :] < 0) | (facing[:, :, None, :] == rot_ports[:, None, :, :])).all(axis=3)
    nb_placed = np.where(NB >= 0, placed[:, np.maximum(NB, 0)], False).any(axis=2)  # (n, 36)
    shovel = data.BOARD_SHOVEL[s.board[rows, actor]]
    shovel_full = placed[np.arange(n), shovel]
    normal = ok & (~placed & nb_placed)[..., None]
    first = np.zeros((n, 36, 4), dtype=bool)
    first[np.arange(n), shovel] = True
    return np.where(shovel_full[:, None, None], normal, first)


def check_mask(s, mask, P, rng) -> None:
    """The mask equals a recomputation (PLACE rows on a sample); done rows all True."""
    B = s.done.shape[0]
    rows = np.arange(B)
    a = s.to_play.astype(np.intp)
    dec = s.decision
    live = ~s.done
    assert mask[~live].all(), "a finished row's mask is not all True"
    n_legal = mask.sum(axis=1)
    # with auto_forced no seat ever faces a single legal action
    assert (n_legal[live] >= 2).all(), "a live row offers fewer than 2 actions"
    exp = np.zeros_like(mask)
    m = live & (dec == data.DEC_START_SPACE)
    occ = np.zeros((B, 7), dtype=bool)
    for p in range(P):
        on = s.patrician[:, p] >= 0
        occ[rows[on], s.patrician[on, p]] = True
    exp[m, 0:7] = ~occ[m]
    m = live & (dec == data.DEC_MOVE)
    full = (s.depot >= 0).any(axis=2)
    exp[m, 0:7] = full[m] & (s.bread[m, a[m]] >= 1)[:, None]
    exp[m, 7:9] = True
    m = live & (dec == data.DEC_TAKE)
    exp[m, 9:13] = s.depot[rows[m], s.patrician[m, a[m]]] >= 0
    m = live & (dec == data.DEC_DISPLAY_PICK)
    exp[m, 158:169] = s.display[m] >= 0
    m = live & (dec == data.DEC_FOUNTAIN_RETURN)
    kinds = np.arange(12)
    exp[m, 169:181] = ((s.fountain_hand[rows[m], a[m]] > 0) | (s.fountain_drawn[m, 0:1] == kinds)
                       | (s.fountain_drawn[m, 1:2] == kinds))
    m = live & (dec == data.DEC_SCORE_SPACE)
    exp[m, 181:198] = data.SPACE_USABLE[P][None] & (s.circle_owner[m] < 0)
    m = live & (dec == data.DEC_CARD_ORDER)
    exp[m, 198:200] = True
    counts = np.arange(data.MAX_UNITS + 1)
    m = live & (dec == data.DEC_CARD_UNITS)
    if m.any():
        card = current_card(s, rows[m])
        assert data.CARD_RED[card].all(), "CARD_UNITS on a green card"
        exp[m, 200:232] = counts <= red_u_max(s, rows[m], a[m], card)[:, None]
    m = live & (dec == data.DEC_CARD_BREAD)
    if m.any():
        exp[m, 200:232] = counts <= np.minimum(data.MAX_UNITS, s.bread[m, a[m]] // 3)[:, None]
        card = current_card(s, rows[m])
        red = data.CARD_RED[card]
        units = s.units[m].astype(np.int64)
        green = green_units(s, rows[m], a[m], card)
        np.testing.assert_array_equal(units[~red], np.minimum(green[~red], 127), err_msg="green card units")
        assert (units[red] <= red_u_max(s, rows[m], a[m], card)[red]).all(), "red card units not affordable"
    place = live & (dec == data.DEC_PLACE)
    other = ~place & live
    np.testing.assert_array_equal(mask[other], exp[other], err_msg="legal mask differs from its recomputation")
    assert not mask[place][:, np.r_[0:13, 158:232]].any(), "PLACE mask outside the placement actions"
    pr = rows[place]
    if pr.size:
        pr = rng.choice(pr, size=min(PLACE_SAMPLE, pr.size), replace=False)
        ref = placement_mask(s, pr, a[pr])
        np.testing.assert_array_equal(mask[pr, 13:157].reshape(-1, 36, 4), ref, err_msg="placement mask")
        shovel_full = s.cell_tile[pr, a[pr], data.BOARD_SHOVEL[s.board[pr, a[pr]]]] >= 0
        np.testing.assert_array_equal(mask[pr, data.ACTION_STORE], shovel_full, err_msg="STORE legality")


# --- per-step checks ------------------------------------------------------------------------------------

def check_tiles(s, P: int) -> None:
    """Every tile exactly once among depots, display, pending, districts, stored, removed, supply;
    supply, display and removed consistent with the phase."""
    B = s.done.shape[0]
    loc = s.tile_loc
    ids = np.concatenate([s.depot.reshape(B, -1), s.display, s.tile_pending[:, None],
                          s.cell_tile.reshape(B, -1)], axis=1).astype(np.intp)
    have = ids >= 0
    flat = (np.arange(B)[:, None] * NT + ids)[have]
    assert np.bincount(flat, minlength=B * NT).max(initial=0) <= 1, "a tile is in two places"
    codes = np.concatenate([np.full(28, LOC_DEPOT), np.full(11, LOC_DISPLAY), [LOC_PENDING], np.full(36 * P, LOC_PLACED)])
    np.testing.assert_array_equal(loc.reshape(-1)[flat], np.broadcast_to(codes, ids.shape)[have],
                                  err_msg="tile_loc differs from the tile's place")
    # with the ids unique and their tile_loc right, equal counts leave no tile claiming a container it is not in
    np.testing.assert_array_equal(IN_CONTAINER[loc].sum(axis=1), have.sum(axis=1), err_msg="tile_loc claims a container")
    np.testing.assert_array_equal((loc == LOC_STORED).sum(axis=1), s.stored.sum(axis=1).astype(np.int64),
                                  err_msg="stored tiles != state.stored")
    # phases: light tiles in the supply only for future phases, dark tiles until phase 4 is dealt
    started = s.decision != data.DEC_START_SPACE
    dealt = np.where(started, s.phase.astype(np.int64) + 1, 0)
    light_out = (loc[:, :NL] != LOC_SUPPLY).sum(axis=1)
    dark_out = (loc[:, NL:] != LOC_SUPPLY).sum(axis=1)
    np.testing.assert_array_equal(light_out, 28 * np.minimum(dealt, 3), err_msg="light tiles dealt")
    np.testing.assert_array_equal(dark_out, np.where(dealt == 4, 39, 11), err_msg="dark tiles dealt")
    assert (s.display[s.display >= 0] >= NL).all(), "a light tile on the display"
    dep = s.depot.reshape(B, -1)
    last = (s.phase == 3)[:, None]
    assert ((dep < 0) | ((dep >= NL) == last)).all(), "depot tiles from the wrong supply"
    # removal: depot sizes 2p {0, 3, 4}, 3p {0, 2, 3, 4}; removed tiles by phase
    size = (s.depot >= 0).sum(axis=2)
    if P == 2:
        assert ((size != 1) & (size != 2)).all(), "2p depot with 1 or 2 tiles"
    elif P == 3:
        assert (size != 1).all(), "3p depot with 1 tile"
    R = 7 * R_PER_DEPOT[P]
    removed = (loc == LOC_REMOVED).sum(axis=1)
    scoring = (s.round == data.ROUNDS_PER_PHASE) | s.done
    assert (size[scoring] == 0).all(), "tiles left in the depots at scoring"
    done_phases = s.phase.astype(np.int64) + scoring
    np.testing.assert_array_equal(removed[scoring], (R * done_phases)[scoring], err_msg="removed tiles")
    phase = s.phase.astype(np.int64)
    assert ((removed >= R * phase) & (removed <= R * (phase + 1))).all(), "removed tiles during a phase"
    assert ((loc[:, NL:] == LOC_REMOVED).sum(axis=1) <= R * (s.phase == 3)).all(), "dark tiles removed early"


def check_scores(game, s, P: int) -> None:
    parts = game.score_parts(s)
    assert tuple(parts) == SCORE_PART_NAMES
    B = s.done.shape[0]
    tasks = np.zeros((B, P), dtype=np.int64)
    for side in range(4):
        part = s.frame[:, :, side].astype(np.intp)
        for j in range(2):
            tasks += POSITION_VP[data.FRAME_TASKS[part, j, 1]] * s.task_done[:, :, 2 * side + j]
    left = (s.goods.astype(np.int64).sum(axis=2) + s.coins + s.bread + s.stored) // 2
    fountain = 2 * (s.fountain_hand.astype(np.int64) * s.completed).sum(axis=2)
    ref = {"vp_cards": s.vp, "track": s.track, "tasks": tasks, "villas": s.villa_vp, "leftovers": left,
           "fountain_cards": fountain}
    for name, value in ref.items():
        np.testing.assert_array_equal(parts[name], value, err_msg=f"score part {name}")
    public = parts["vp_cards"] + parts["track"] + parts["tasks"] + parts["villas"]
    np.testing.assert_array_equal(parts["public"], public, err_msg="public != vp_cards + track + tasks + villas")
    final = public + parts["leftovers"] + parts["fountain_cards"]
    np.testing.assert_array_equal(parts["final"], final, err_msg="final != public + leftovers + fountain")
    np.testing.assert_array_equal(game.scores(s), np.where(s.done[:, None], final, public), err_msg="game.scores")
    # banderole track: 0..35, the discs on a space form a stack 0..k-1
    assert ((s.track >= 0) & (s.track <= data.TRACK_END)).all()
    same = s.track[:, :, None] == s.track[:, None, :]
    k = same.sum(axis=2)
    assert (s.height < k).all(), "a disc above the top of its stack"
    assert ((same & (s.height[:, :, None] == s.height[:, None, :])).sum(axis=2) == 1).all(), "two discs at one height"


def check_fountains(s, P: int) -> None:
    """One card kept per fountain built (the actor's pending draw aside), <= 2 per kind overall."""
    held = s.fountain_hand.astype(np.int64).sum(axis=2)
    gave = s.fountain_returned.astype(np.int64).sum(axis=2)
    np.testing.assert_array_equal(held, gave, err_msg="fountain cards held != returned")
    pending = np.zeros_like(held)
    drawing = s.decision == data.DEC_FOUNTAIN_RETURN
    pending[np.flatnonzero(drawing), s.to_play[drawing]] = 1
    np.testing.assert_array_equal(held + pending, s.completed[:, :, data.FOUNTAIN], err_msg="cards != fountains")
    assert ((s.fountain_drawn >= 0).all(axis=1) == drawing).all()
    per_kind = (s.fountain_hand.astype(np.int64) + s.fountain_returned).sum(axis=1)
    for i in range(2):
        per_kind += s.fountain_drawn[:, i:i + 1] == np.arange(12)
    assert per_kind.max() <= 2, "more than 2 fountain cards of a kind"


def check_step(prev, s, actions: np.ndarray, P: int, picks: np.ndarray) -> None:
    """Transition invariants of one step (`prev` -> `s` by `actions`); picks (B, P): display tiles
    each player took."""
    B = s.done.shape[0]
    rows = np.arange(B)
    live = ~prev.done
    actor = prev.to_play.astype(np.intp)
    # finished rows never change
    assert core.states_equal(core.take(prev, np.flatnonzero(~live)), core.take(s, np.flatnonzero(~live)))
    # districts only grow, only the actor's, at most one tile per step, edge contact / shovel first
    was = prev.cell_tile >= 0
    np.testing.assert_array_equal(s.cell_tile[was], prev.cell_tile[was], err_msg="a placed tile changed")
    np.testing.assert_array_equal(s.cell_rot[was], prev.cell_rot[was], err_msg="a placed tile turned")
    new = (s.cell_tile >= 0) & ~was  # (B, P, 36)
    n_new = new.sum(axis=2)
    others = np.ones((B, P), dtype=bool)
    others[rows, actor] = False
    assert not n_new[others].any(), "a tile appeared in a district of a player who did not act"
    assert (n_new.sum(axis=1) <= 1).all(), "two tiles placed in one step"
    pl = np.flatnonzero(n_new.sum(axis=1) == 1)
    if pl.size:
        a = actor[pl]
        cell = new[pl, a].argmax(axis=1)
        shovel = data.BOARD_SHOVEL[s.board[pl, a]]
        first = ~was[pl, a].any(axis=1)
        assert (cell[first] == shovel[first]).all(), "the first tile is not on the shovel cell"
        touch = np.where(NB[cell] >= 0, was[pl, a][np.arange(pl.size)[:, None], np.maximum(NB[cell], 0)], False)
        assert touch.any(axis=1)[~first].all(), "a tile placed without edge contact"
        # the new tile's ports against the frame and its placed neighbours
        ports = data.ROT_PORTS[s.cell_tile[pl, a, cell], s.cell_rot[pl, a, cell]]  # (n, 8)
        for q in range(8):
            nb = NB[cell, q // 2]
            frame = nb < 0
            assert (ports[frame, q] == 0).all(), "a feature facing the frame"
            nbt = s.cell_tile[pl, a, np.maximum(nb, 0)]
            ok = ~frame & (nbt >= 0)
            other = data.ROT_PORTS[nbt[ok], s.cell_rot[pl, a, np.maximum(nb, 0)][ok], MATCH[q]]
            assert (ports[ok, q] == other).all(), "a placed tile does not match its neighbour"
        # immediate effects: one placement per step, resolved in the fixed order (banderole, centre,
        # landscapes, lodgings, villa)
        dC = s.completed[pl, a].astype(np.int64) - prev.completed[pl, a]
        band = data.BOARD_BANDEROLE[s.board[pl, a], cell].astype(np.int64)
        steps = (s.track[pl, a].astype(np.int64) + s.vp[pl, a]) - (prev.track[pl, a].astype(np.int64) + prev.vp[pl, a])
        np.testing.assert_array_equal(steps, band + 2 * dC[:, data.ADMINISTRATOR], err_msg="banderole steps")
        np.testing.assert_array_equal(s.bread[pl, a] - prev.bread[pl, a], dC[:, data.BAKERY] + 2 * dC[:, data.BAKER],
                                      err_msg="bread from bakery / baker lodging")
        dg = s.goods[pl, a].astype(np.int64) - prev.goods[pl, a]
        dcoins = s.coins[pl, a].astype(np.int64) - prev.coins[pl, a]
        merch = dC[:, data.MERCHANT] > 0
        land = dC[:, :4]
        assert ((dg[~merch] >= land[~merch]) & (dg[~merch] <= 3 * land[~merch])).all(), "landscape goods"
        np.testing.assert_array_equal(dcoins[~merch], dC[~merch, data.MARKET], err_msg="market coins")
        assert (s.goods[pl[merch], a[merch]] == 0).all(), "merchant lodging left goods"
        conv = dcoins[merch] - dC[merch, data.MARKET] - dC[merch, data.MERCHANT] - prev.goods[pl[merch], a[merch]].sum(1)
        assert ((conv >= land[merch].sum(1)) & (conv <= 3 * land[merch].sum(1))).all(), "merchant coins"
        # a completed craftsman lodging takes a display tile unless the display is empty
        crafted = dC[:, data.CRAFTSMAN] > 0
        turn_over = (s.to_play[pl] != a) | (s.round[pl] != prev.round[pl]) | s.done[pl]
        disp_before = (prev.display[pl] >= 0).sum(axis=1)
        disp_after = (s.display[pl] >= 0).sum(axis=1)
        chk = crafted & turn_over & (disp_before > 0)
        assert (disp_after[chk] < disp_before[chk]).all(), "a craftsman lodging without its display pick"
    check_move(prev, s, actions)
    check_card(prev, s, actions)
    # monotone: completed instances, track, stored tiles, scoring discs
    assert (s.completed >= prev.completed).all(), "completed counts decreased"
    assert (s.track >= prev.track).all(), "a disc moved backwards"
    assert (s.stored >= prev.stored).all()
    assert ((prev.circle_owner < 0) | (s.circle_owner == prev.circle_owner)).all(), "a scoring disc moved"
    assert ((s.goods >= 0).all() and (s.coins >= 0).all() and (s.bread >= 0).all())
    # stored tiles only after the shovel cell is built (the first tile must be built there)
    shovel_full = np.take_along_axis(s.cell_tile, data.BOARD_SHOVEL[s.board][..., None].astype(np.intp), axis=2)[..., 0] >= 0
    assert (shovel_full | (s.stored == 0)).all(), "a tile stored before the shovel cell was built"
    # tiles taken from the depots: 7 per phase, one per turn
    owned = (s.cell_tile >= 0).sum(axis=2) + s.stored.astype(np.int64)
    pend = s.tile_pending >= 0
    owned[np.flatnonzero(pend), s.to_play[pend]] += 1
    takes = owned - picks
    pos = (np.arange(P)[None, :] - s.start_player[:, None]) % P
    dec = s.decision[:, None]
    in_turn = (dec >= data.DEC_MOVE) & (dec <= data.DEC_DISPLAY_PICK)
    taken_now = (dec >= data.DEC_PLACE) & (dec <= data.DEC_DISPLAY_PICK) & (np.arange(P)[None, :] == s.to_play[:, None])
    expected = np.where(in_turn, 7 * s.phase[:, None].astype(np.int64) + s.round[:, None] + (pos < s.turn[:, None])
                        + taken_now, np.where(dec == data.DEC_START_SPACE, 0, 7 * (s.phase[:, None].astype(np.int64) + 1)))
    np.testing.assert_array_equal(takes, expected, err_msg="depot tiles taken per player")
    # a new phase: 28 tiles dealt, start player passes left, patricians and display stay
    dealt = live & ((s.phase != prev.phase) | ((prev.decision == data.DEC_START_SPACE) & (s.decision != data.DEC_START_SPACE)))
    if dealt.any():
        assert ((s.depot[dealt] >= 0).sum(axis=(1, 2)) == 28).all(), "not 28 tiles dealt"
        nxt = dealt & (s.phase != prev.phase)
        np.testing.assert_array_equal(s.start_player[nxt], (prev.start_player[nxt] + 1) % P)
        np.testing.assert_array_equal(s.patrician[nxt], prev.patrician[nxt])
        np.testing.assert_array_equal(s.display[nxt], prev.display[nxt])
        assert (s.decision[dealt] == data.DEC_MOVE).all() and (s.to_play[dealt] == s.start_player[dealt]).all()
        assert (s.patrician[dealt] >= 0).all()
        pats = np.sort(s.patrician[dealt & (s.phase == 0)], axis=1)
        assert (np.diff(pats, axis=1) != 0).all(), "two patricians start on one space"
    # a scoring round begins: order by track space, top of a stack first (scoring order fixed at the round's start)
    began = live & (prev.round < data.ROUNDS_PER_PHASE) & (s.round == data.ROUNDS_PER_PHASE) & ~s.done
    if began.any():
        key = (s.track.astype(np.int64) * 4 + s.height)[began]
        ordered = np.take_along_axis(key, s.score_order[began].astype(np.intp), axis=1)
        assert (np.diff(ordered, axis=1) < 0).all(), "scoring order is not the banderole-track order"
        assert (s.decision[began] == data.DEC_SCORE_SPACE).all()
        assert (s.to_play[began] == s.score_order[began, 0]).all()
    # scoring discs: on usable spaces, one per player per finished scoring turn
    own = s.circle_owner
    assert ((own < 0) | data.SPACE_USABLE[P][None]).all(), "a disc on an unusable space"
    assert ((own >= 0) == (s.circle_phase >= 0)).all()
    discs = (own[:, :, None] == np.arange(P)).sum(axis=1)
    assert (discs <= s.phase[:, None] + 1).all() and (discs >= s.phase[:, None]).all()


def check_move(prev, s, actions) -> None:
    """A normal move walks to the next non-empty depot in its direction (lapping back to
    its own space if only that depot has tiles); a bread move costs 1 bread and goes to the chosen non-empty depot."""
    m = np.flatnonzero(~prev.done & (prev.decision == data.DEC_MOVE))
    if not m.size:
        return
    a = prev.to_play[m].astype(np.intp)
    act = actions[m]
    start = prev.patrician[m, a].astype(np.int64)
    full = (prev.depot[m] >= 0).any(axis=2)  # (n, 7)
    step = np.where(act == data.ACTION_MOVE_CCW, -1, 1)
    order = (start[:, None] + step[:, None] * np.arange(1, 8)) % 7  # the 7th visit is the own space
    walk = np.take_along_axis(order, np.take_along_axis(full, order, axis=1).argmax(axis=1)[:, None], axis=1)[:, 0]
    bread_move = act < 7
    expected = np.where(bread_move, act, walk)
    np.testing.assert_array_equal(s.patrician[m, a], expected, err_msg="patrician move")
    assert full[np.arange(m.size), expected].all(), "a move ended on an empty depot"
    np.testing.assert_array_equal(s.bread[m, a] - prev.bread[m, a], -bread_move.astype(np.int64), err_msg="bread move")


def check_card(prev, s, actions) -> None:
    """On steps that resolve exactly one scoring card: red cards pay goods first, coins for
    the shortfall; 3 bread per extra unit; U = 0 costs 4 VP, else the gains x U (steps past 35 as VP)."""
    live = ~prev.done
    a = prev.to_play.astype(np.intp)
    rows = np.arange(s.done.shape[0])
    units_dec = prev.decision == data.DEC_CARD_UNITS
    carded = live & (units_dec | (prev.decision == data.DEC_CARD_BREAD))
    same_turn = (s.to_play == a) & (s.cur_space == prev.cur_space) & ~s.done
    waiting = units_dec & (s.decision == data.DEC_CARD_BREAD) & same_turn & (s.card_seq == prev.card_seq)
    one = carded & ~waiting & ((prev.card_seq == 1) | (same_turn & (s.card_seq == 1)))
    m = rows[one]
    if not m.size:
        return
    a = a[m]
    card = current_card(prev, m)
    act = actions[m] - data.ACTION_COUNT
    units = np.where(units_dec[m], act, prev.units[m]).astype(np.int64)
    k = np.where(units_dec[m], 0, act).astype(np.int64)
    goods = prev.goods[m, a].astype(np.int64)
    need = data.CARD_PAY[card].astype(np.int64) * units[:, None]
    paid = np.minimum(goods, need)
    U = units + k
    gain = data.CARD_GAIN[card].astype(np.int64) * U[:, None]
    fail = U == 0
    np.testing.assert_array_equal(s.goods[m, a], goods - paid, err_msg="goods paid for a card")
    np.testing.assert_array_equal(s.coins[m, a], prev.coins[m, a] - (need - paid).sum(axis=1) + gain[:, data.GAIN_COIN],
                                  err_msg="coins paid / gained for a card")
    np.testing.assert_array_equal(s.bread[m, a], prev.bread[m, a] - 3 * k + gain[:, data.GAIN_BREAD], err_msg="card bread")
    track = prev.track[m, a].astype(np.int64) + gain[:, data.GAIN_STEP]
    np.testing.assert_array_equal(s.track[m, a], np.minimum(track, data.TRACK_END), err_msg="card steps")
    vp = prev.vp[m, a] + np.where(fail, -data.FAIL_VP, gain[:, data.GAIN_VP] + np.maximum(0, track - data.TRACK_END))
    np.testing.assert_array_equal(s.vp[m, a], vp, err_msg="card VP")


def check_start(s, P: int) -> None:
    """Setup: start VP, stack order, frames, boards, scoring cards, display."""
    B = s.done.shape[0]
    order = (s.start_player[:, None] + np.arange(P)) % P
    vp = np.zeros((B, P), dtype=np.int64)
    np.put_along_axis(vp, order, np.array(START_VP[P]), axis=1)
    np.testing.assert_array_equal(s.vp, vp, err_msg="starting VP")
    hgt = np.zeros((B, P), dtype=np.int64)
    np.put_along_axis(hgt, order, np.arange(P), axis=1)
    np.testing.assert_array_equal(s.height, hgt, err_msg="start stack (start player at the bottom)")
    assert (s.track == 0).all() and (s.patrician == -1).all()
    frames = np.sort(s.frame.reshape(B, -1), axis=1)
    assert (np.diff(frames, axis=1) > 0).all(), "a frame part dealt twice"
    assert (np.diff(np.sort(s.board, axis=1), axis=1) > 0).all(), "a board dealt twice"
    used = s.card_slot >= 0
    np.testing.assert_array_equal(used, np.broadcast_to(data.SLOT_USED[P], used.shape))
    letters = data.CARD_LETTER[np.maximum(s.card_slot, 0)]
    for letter in range(4):
        assert (((letters == letter) & used).sum(axis=1) == data.CARDS_DRAWN[P, letter]).all(), "cards per letter"
    assert (np.diff(np.sort(np.where(used, s.card_slot, -1 - np.arange(12)), axis=1), axis=1) > 0).all()
    assert ((s.display >= NL) & (s.display < NT)).all(), "the display holds 11 dark tiles"
    assert (s.decision == data.DEC_START_SPACE).all() and (s.to_play == s.start_player).all()


def check_end(game, s, P: int, picks: np.ndarray) -> None:
    """Rows that just finished: 4 scoring rounds, discs, tiles, districts, returns."""
    B = s.done.shape[0]
    game.validate(s)
    owned = (s.cell_tile >= 0).sum(axis=2) + s.stored
    assert (owned - picks == 28).all(), "a player did not take 7 depot tiles per phase"
    assert (s.decision == data.DEC_GAME_OVER).all() and (s.phase == 3).all()
    own = s.circle_owner
    for p in range(P):
        for ph in range(4):
            n = ((own == p) & (s.circle_phase == ph)).sum(axis=1)
            assert (n == 1).all(), "not exactly one scoring disc per player and scoring round"
    assert ((own >= 0).sum(axis=1) == 4 * P).all()
    assert ((s.tile_loc == LOC_SUPPLY).sum(axis=1) == 0).all(), "tiles left in the supply"
    assert ((s.tile_loc == LOC_REMOVED).sum(axis=1) == 28 * R_PER_DEPOT[P]).all()
    check_districts(s, np.arange(B), P, full=True)
    # returns: rank by final VP, ties to the disc further back; every row sums to 0
    vp = game.scores(s).astype(np.int64)
    back = -(s.track.astype(np.int64) * 4 + s.height)
    key = vp * 1000 + (back + 1000)  # back in -143..0 -> 857..1000
    rank = (key[:, None, :] > key[:, :, None]).sum(axis=2)  # players ahead of each
    assert (np.sort(rank, axis=1) == np.arange(P)).all(), "the tie-break is not strict"
    ret = game.returns(s)
    np.testing.assert_allclose(ret.sum(axis=1), 0.0, atol=1e-5)
    np.testing.assert_allclose(ret, (P - 1 - 2 * rank) / (P - 1), atol=1e-6, err_msg="rank returns")
    winner = ret.argmax(axis=1)
    assert (vp[np.arange(B), winner] == vp.max(axis=1)).all(), "the winner does not have the most VP"


def rotating(step: int, B: int) -> np.ndarray:
    """Every STRIDE-th row, shifted by one each step (all rows when the batch is small)."""
    return np.arange(step % STRIDE, B, STRIDE) if B >= 8 * STRIDE else np.arange(B)


def test_reference_tables_follow_the_spec():
    assert (data.PORT_MATCH == MATCH).all()
    for rot in range(4):  # the pre-rotated table follows the rotation rule
        assert (data.ROT_PORTS[:, rot, (np.arange(8) + 2 * rot) % 8] == data.TILE_PORTS).all()
    np.testing.assert_array_equal(data.VILLA_VP, VILLA_TABLE[:data.VILLA_VP.size])
    np.testing.assert_array_equal(data.FRAME_POSITION_VP, POSITION_VP)
    assert (data.SPACE_USABLE[2:].sum(axis=1) == 4 * np.arange(2, 5) + 1).all()


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4], ids=["2p", "3p", "4p"])
def test_random_games_keep_every_invariant(num_players):
    sweep(num_players, GAMES, seed=2024)


@pytest.mark.parametrize("num_players", [2, 4])
def test_small_sweep(num_players):
    """The same checks on a small batch (quick runs with -m "not slow")."""
    sweep(num_players, 24, seed=99)


def sweep(P: int, games: int, seed: int) -> None:
    game = make("carpe_diem", num_players=P)
    rng = np.random.default_rng(seed + P)
    check_rng = np.random.default_rng(seed + 7 + P)
    state = game.init(rng, games)
    check_start(state, P)
    picks = np.zeros((games, P), dtype=np.int64)  # display tiles taken per player (craftsman)
    finished = steps = 0
    while True:
        B = state.done.shape[0]
        live = ~state.done
        if steps % VALIDATE_EVERY == 0:
            game.validate(state)
            for b in check_rng.choice(B, size=min(UF_ROWS, B), replace=False):
                for p in range(P):
                    comp, chim, vvp = python_union_find(state.cell_tile[b, p], state.cell_rot[b, p])
                    assert comp == state.completed[b, p].tolist() and chim == state.chimneys[b, p]
                    assert vvp == state.villa_vp[b, p]
        if steps % DISTRICT_EVERY == 0:
            sample = check_rng.choice(B, size=min(DISTRICT_SAMPLE, B), replace=False)
            check_districts(state, sample, P, full=steps % (4 * DISTRICT_EVERY) == 0)
        mask = game.legal_action_mask(state)
        # every row: a live row has >= 2 legal actions (auto_forced), a finished row all True
        n_legal = mask.sum(axis=1)
        assert (n_legal[live] >= 2).all() and (n_legal[~live] == data.NUM_ACTIONS).all()
        # a rotating 1/STRIDE of the rows: the full per-step checks (every row every STRIDE steps)
        sub = rotating(steps, B)
        before = core.take(state, sub)
        check_tiles(before, P)
        check_scores(game, before, P)
        check_fountains(before, P)
        check_mask(before, mask[sub], P, check_rng)
        if not live.any():
            break
        if live.mean() < 0.5:  # finished games were checked when they ended; drop them
            keep = np.flatnonzero(live)
            state, mask, picks = core.take(state, keep), mask[keep], picks[keep]
            B = keep.size
            sub = rotating(steps, B)
            before = core.take(state, sub)
        prev = state
        actions = sample_masked(mask, rng)
        state = game.step(state, actions, rng)
        steps += 1
        assert steps <= game.info.max_game_length, "a game ran past max_game_length"
        # every row: display picks go to the actor (a step never reaches another seat's forced
        # decision); derived counts, the track and storage only grow
        picks[np.arange(B), prev.to_play] += (prev.display >= 0).sum(axis=1) - (state.display >= 0).sum(axis=1)
        assert (state.completed >= prev.completed).all(), "completed counts decreased"
        assert (state.track >= prev.track).all() and (state.stored >= prev.stored).all()
        check_step(before, core.take(state, sub), actions[sub], P, picks[sub])
        ended = np.flatnonzero(state.done & ~prev.done)
        if ended.size:
            check_end(game, core.take(state, ended), P, picks[ended])
            finished += ended.size
    assert finished == games, "not every game ended"
