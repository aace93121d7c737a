"""Carpe Diem's consistency rules as named invariants: `validate` rejects a row that breaks one.

Each invariant is a kernel `name(s, b, ...) -> bool`, True when row b keeps it, checked in the order of
`INVARIANTS` (envs/codegen.py generates the batch loop, entries.validate_nb): an invariant may rely on the
ones before it. `validate` hands them a copy of the state, so the district checks may run `_analyze` on it.

Two groups, in this order:

- SNAPSHOT: what a position says about itself (flow, tiles, districts, derived fields, fountain cards,
  banderole stacks and discs, the scoring turn, craftsman picks, patricians). Every position built by hand
  (tests, tools) must keep them too.
- HISTORY: whether a game can have led to the position (tiles taken vs round and turn, the supply vs the
  phase, tiles held vs turns played, discs vs scoring rounds, counters vs their sources, fountain cards vs
  fountains built, the setup). `rules.validate(state, history=False)` ignores a row whose first broken
  invariant is one of these: hand-built positions are consistent snapshots no game reaches.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.base import Invariant
from meeple.envs.carpe_diem.data import (
    ADMINISTRATOR, ADMINISTRATOR_STEPS, BAKER, BAKER_BREAD, BAKERY, BAKERY_BREAD, BOARD_BANDEROLE, BOARD_SHOVEL,
    CARD_LETTER_START, CARD_RED, CARDS_DRAWN, CRAFTSMAN, DEC_CARD_BREAD, DEC_CARD_ORDER, DEC_CARD_UNITS,
    DEC_DISPLAY_PICK, DEC_FOUNTAIN_RETURN, DEC_GAME_OVER, DEC_MOVE, DEC_PLACE, DEC_SCORE_SPACE, DEC_START_SPACE,
    DEC_TAKE, DEPOT_SLOTS, DISPLAY_SLOTS, FAIL_VP, FOUNTAIN, FOUNTAIN_COPIES, GAIN_BREAD, GAIN_COIN, GAIN_STEP,
    LABEL_FEATURE, LIGHT_PER_PHASE, MARKET, MARKET_COINS, MERCHANT, MERCHANT_BONUS_COINS, NUM_CARD_SLOTS,
    NUM_CELLS, NUM_CIRCLE_SPACES, NUM_FEATURES, NUM_FOUNTAIN_KINDS, NUM_GOODS, NUM_LIGHT, NUM_PHASES, NUM_PORTS,
    NUM_SPACES, NUM_TILES, PORT_MATCH, ROT_PORTS, ROUNDS_PER_PHASE, SLOT_USED, SPACE_USABLE, START_VP,
)
from meeple.envs.carpe_diem.kernels import (
    NUM_TASKS_PER_PLAYER, _analyze, _depot_count, _display_count, _popcount, current_card, green_units,
    neighbour, red_max_units,
)
from meeple.envs.carpe_diem.state import (
    CARD_GAIN_MAX, CARD_VP_STEPS_MAX, LOC_DEPOT, LOC_DISPLAY, LOC_PENDING, LOC_PLACED, LOC_REMOVED, LOC_STORED,
    LOC_SUPPLY, NUM_NODES, W_LIST, W_LIST2, W_OPEN, W_PARENT,
)
from meeple.envs.invariant_helpers import counts_within, is_permutation, tally
from meeple.envs.jit import count_at_least, count_equal, invariant, kernel

# --- helpers ---------------------------------------------------------------------------------------


@kernel(inline="always")
def _in_turns(dec):
    """A decision of the turns of a phase (MOVE .. DISPLAY_PICK)."""
    return dec >= DEC_MOVE and dec <= DEC_DISPLAY_PICK


@kernel(inline="always")
def _in_scoring(dec):
    """A decision of a scoring round (SCORE_SPACE .. CARD_BREAD)."""
    return dec >= DEC_SCORE_SPACE and dec <= DEC_CARD_BREAD


@kernel(inline="always")
def _resolving(dec):
    """A decision while a scoring turn resolves its two cards (CARD_ORDER .. CARD_BREAD)."""
    return dec >= DEC_CARD_ORDER and dec <= DEC_CARD_BREAD


@kernel(inline="always")
def _after_take(dec):
    """A decision of a turn after its depot tile was taken."""
    return dec == DEC_PLACE or dec == DEC_FOUNTAIN_RETURN or dec == DEC_DISPLAY_PICK


@kernel(inline="always")
def _phases_over(s, b):
    """The phases whose 7 rounds of turns are over."""
    dec = s.decision[b]
    ph = np.int64(s.phase[b])
    return 0 if dec == DEC_START_SPACE else (ph if _in_turns(dec) else ph + 1)


@kernel(inline="always")
def _fountain_cards(s, b, p):
    """(cards p holds, cards p returned)."""
    held = 0
    gave = 0
    for k in range(NUM_FOUNTAIN_KINDS):
        held += s.fountain_hand[b, p, k]
        gave += s.fountain_returned[b, p, k]
    return held, gave


@invariant
def _count_tile_places(s, b, places):
    """places[t] (work[W_LIST + t]) = the places tile t is in: depot, display, pending, district slots, and its
    tile_loc if that is a place without a slot (stored, supply, removed)."""
    places[:] = 0
    for d in range(NUM_SPACES):
        tally(s.depot[b, d], places)
    tally(s.display[b], places)
    if s.tile_pending[b] >= 0:
        places[s.tile_pending[b]] += 1
    for p in range(s.track.shape[1]):
        tally(s.cell_tile[b, p], places)
    for t in range(NUM_TILES):
        loc = s.tile_loc[b, t]
        if loc == LOC_STORED or loc == LOC_SUPPLY or loc == LOC_REMOVED:
            places[t] += 1


@invariant
def _depot_takes(s, b):
    """(every depot holds a count a phase can leave, the takes of this phase the depots tell, the tiles removed
    from depots emptied this phase). A depot of 4 loses a tile per take and, with 2 / 3 players, its last
    2 / 1 tiles when it is down to them (depot removal): after k < P takes it holds 4 - k tiles, after P none."""
    P = s.track.shape[1]
    possible = True
    takes = 0
    removed_now = 0
    for d in range(NUM_SPACES):
        n = _depot_count(s, b, d)
        if n == 0:
            takes += P
            removed_now += DEPOT_SLOTS - P
        elif n > DEPOT_SLOTS - P:
            takes += DEPOT_SLOTS - n
        else:
            possible = False
    return possible, takes, removed_now


@invariant
def _landscape_goods(s, b, p, work, cellmask, out):
    """out[g] = sum over p's completed landscapes of kind g of (tiles - 1): every good p can have gained
    (landscape goods). Reads the union-find `_analyze` has just left in work / cellmask."""
    for g in range(NUM_GOODS):
        out[g] = 0
    tiles = s.cell_tile[b, p]
    for n in range(NUM_NODES):
        t = tiles[n // NUM_PORTS]
        if t < 0 or work[W_PARENT + n] != n or cellmask[n] == 0 or work[W_OPEN + n] != 0:
            continue
        kind = LABEL_FEATURE[ROT_PORTS[t, s.cell_rot[b, p, n // NUM_PORTS], n % NUM_PORTS]]
        if kind < NUM_GOODS:
            out[kind] += _popcount(cellmask[n]) - 1


@kernel(inline="always")
def _tiles_at(s, b, loc):
    """(light tiles, dark tiles) whose tile_loc is loc."""
    light = 0
    dark = 0
    for t in range(NUM_TILES):
        if s.tile_loc[b, t] == loc:
            if t >= NUM_LIGHT:
                dark += 1
            else:
                light += 1
    return light, dark


@kernel(inline="always")
def _cards_resolved(s, b, q):
    """The scoring cards q has resolved: two per disc it placed, less those of its scoring turn in progress."""
    resolved = 2 * count_equal(s.circle_owner[b], q)
    if q == s.to_play[b] and s.cur_space[b] >= 0:
        resolved -= 2 if s.decision[b] == DEC_CARD_ORDER else 2 - np.int64(s.card_seq[b])
    return resolved


@kernel(inline="always")
def _banderole_steps(s, b, q):
    """The banderole-track steps q's district has given: banderole cells built, 2 per administrator."""
    steps = ADMINISTRATOR_STEPS * np.int64(s.completed[b, q, ADMINISTRATOR])
    for cell in range(NUM_CELLS):
        if BOARD_BANDEROLE[s.board[b, q], cell] and s.cell_tile[b, q, cell] >= 0:
            steps += 1
    return steps


# --- snapshot: flow ------------------------------------------------------------------------------------


@invariant
def done_exactly_at_game_over(s, b):
    """A row is done exactly when its decision is GAME_OVER."""
    return s.done[b] == (s.decision[b] == DEC_GAME_OVER)


@invariant
def tile_pending_exactly_while_placing(s, b):
    """A tile is pending exactly while the decision is PLACE."""
    return (s.decision[b] == DEC_PLACE) == (s.tile_pending[b] >= 0)


@invariant
def fountain_draw_exactly_while_returning(s, b):
    """A fountain draw (both cards) is pending exactly while the decision is FOUNTAIN_RETURN."""
    drawn = s.fountain_drawn[b, 0] >= 0
    return (s.decision[b] == DEC_FOUNTAIN_RETURN) == drawn and drawn == (s.fountain_drawn[b, 1] >= 0)


@invariant
def start_spaces_chosen_in_seat_order(s, b):
    """The start spaces are chosen in phase 0 round 0, by the seat `turn` places after the start player."""
    P = s.track.shape[1]
    if s.decision[b] != DEC_START_SPACE:
        return True
    return s.phase[b] == 0 and s.round[b] == 0 and s.to_play[b] == (s.start_player[b] + s.turn[b]) % P


@invariant
def scoring_turns_in_score_order(s, b):
    """A scoring round is round 7, and its actor the seat `turn` places in the scoring order."""
    if not _in_scoring(s.decision[b]):
        return True
    return s.round[b] == ROUNDS_PER_PHASE and s.to_play[b] == s.score_order[b, s.turn[b]]


@invariant
def turns_in_seat_order(s, b):
    """A turn is in rounds 0..6, by the seat `turn` places after the start player, whose patrician stands."""
    P = s.track.shape[1]
    if not _in_turns(s.decision[b]):
        return True
    return (s.round[b] < ROUNDS_PER_PHASE and s.to_play[b] == (s.start_player[b] + s.turn[b]) % P
            and s.patrician[b, s.to_play[b]] >= 0)


@invariant
def cards_resolved_on_a_circle_space(s, b):
    """The cards of a scoring turn are resolved on a circle space (cur_space)."""
    return not _resolving(s.decision[b]) or s.cur_space[b] >= 0


# --- snapshot: tiles -----------------------------------------------------------------------------------


@invariant
def tiles_lie_where_tile_loc_says(s, b):
    """Every tile in a depot, on the display, pending or in a district has that place as its tile_loc."""
    P = s.track.shape[1]
    for d in range(NUM_SPACES):
        for j in range(DEPOT_SLOTS):
            t = s.depot[b, d, j]
            if t >= 0 and s.tile_loc[b, t] != LOC_DEPOT:
                return False
    for i in range(DISPLAY_SLOTS):
        t = s.display[b, i]
        if t >= 0 and s.tile_loc[b, t] != LOC_DISPLAY:
            return False
    t = s.tile_pending[b]
    if t >= 0 and s.tile_loc[b, t] != LOC_PENDING:
        return False
    for p in range(P):
        for cell in range(NUM_CELLS):
            t = s.cell_tile[b, p, cell]
            if t >= 0 and s.tile_loc[b, t] != LOC_PLACED:
                return False
    return True


@invariant
def display_holds_dark_tiles(s, b):
    """The bottom display holds only dark tiles (it is dealt from them at the setup)."""
    for i in range(DISPLAY_SLOTS):
        if s.display[b, i] >= 0 and s.display[b, i] < NUM_LIGHT:
            return False
    return True


@invariant
def every_tile_in_one_place(s, b, work):
    """Every tile is in exactly one place: one slot, or (stored, supply, removed) its tile_loc alone."""
    places = work[W_LIST:W_LIST + NUM_TILES]
    _count_tile_places(s, b, places)
    return counts_within(places, 1, 1)


@invariant
def stored_counts_match_stored_tiles(s, b):
    """The players' stored counts add up to the tiles whose tile_loc is stored."""
    P = s.track.shape[1]
    n_stored = 0
    for p in range(P):
        n_stored += np.int64(s.stored[b, p])  # (an int8 sum wraps with NUMBA_DISABLE_JIT)
    for t in range(NUM_TILES):
        if s.tile_loc[b, t] == LOC_STORED:
            n_stored -= 1
    return n_stored == 0


# --- snapshot: districts and derived fields ------------------------------------------------------------


@invariant
def placed_tiles_match_neighbours_and_frame(s, b):
    """Every placed tile matches its placed neighbours port by port, and shows meadow to the frame."""
    P = s.track.shape[1]
    for p in range(P):
        for cell in range(NUM_CELLS):
            t = np.int64(s.cell_tile[b, p, cell])
            if t < 0:
                continue
            rot = s.cell_rot[b, p, cell]
            for side in range(4):
                nb = neighbour(cell, side)
                for q in range(2 * side, 2 * side + 2):
                    if nb < 0:
                        if ROT_PORTS[t, rot, q] != 0:
                            return False
                    elif s.cell_tile[b, p, nb] >= 0:
                        if ROT_PORTS[t, rot, q] != ROT_PORTS[s.cell_tile[b, p, nb], s.cell_rot[b, p, nb], PORT_MATCH[q]]:
                            return False
    return True


@invariant
def districts_begin_on_the_shovel(s, b):
    """A district with a tile has one on its shovel cell (the first tile goes there)."""
    P = s.track.shape[1]
    for p in range(P):
        if count_at_least(s.cell_tile[b, p], 0) > 0 and s.cell_tile[b, p, BOARD_SHOVEL[s.board[b, p]]] < 0:
            return False
    return True


@invariant
def districts_connected_to_the_shovel(s, b, work):
    """Every placed tile is connected to the shovel cell through placed tiles (a flood fill from it)."""
    P = s.track.shape[1]
    for p in range(P):
        shovel = np.int64(BOARD_SHOVEL[s.board[b, p]])  # int64: W_LIST2 + int8 overflows without the JIT
        if s.cell_tile[b, p, shovel] < 0:
            continue  # an empty district (districts_begin_on_the_shovel)
        for cell in range(NUM_CELLS):
            work[W_LIST2 + cell] = 0
        work[W_LIST2 + shovel] = 1
        changed = True
        while changed:
            changed = False
            for cell in range(NUM_CELLS):
                if work[W_LIST2 + cell] == 1:
                    for side in range(4):
                        nb = neighbour(cell, side)
                        if nb >= 0 and s.cell_tile[b, p, nb] >= 0 and work[W_LIST2 + nb] == 0:
                            work[W_LIST2 + nb] = 1
                            changed = True
        for cell in range(NUM_CELLS):
            if s.cell_tile[b, p, cell] >= 0 and work[W_LIST2 + cell] == 0:
                return False
    return True


@invariant
def derived_fields_match_the_districts(s, b, work, cellmask, completed, task_done, chimneys, villa_vp):
    """completed, task_done, chimneys and villa_vp equal their recomputation from the district (`_analyze`);
    completed / task_done / chimneys / villa_vp are scratch copies of the stored values, put back after."""
    P = s.track.shape[1]
    for p in range(P):
        for k in range(NUM_FEATURES):
            completed[k] = s.completed[b, p, k]
        for i in range(NUM_TASKS_PER_PLAYER):
            task_done[i] = s.task_done[b, p, i]
        chimneys[0] = s.chimneys[b, p]
        villa_vp[0] = s.villa_vp[b, p]
        _analyze(s, b, p, work, cellmask, -1)
        same = chimneys[0] == s.chimneys[b, p] and villa_vp[0] == s.villa_vp[b, p]
        for k in range(NUM_FEATURES):
            if completed[k] != s.completed[b, p, k]:
                same = False
            s.completed[b, p, k] = completed[k]
        for i in range(NUM_TASKS_PER_PLAYER):
            if task_done[i] != s.task_done[b, p, i]:
                same = False
            s.task_done[b, p, i] = task_done[i]
        s.chimneys[b, p] = chimneys[0]
        s.villa_vp[b, p] = villa_vp[0]
        if not same:
            return False
    return True


# --- snapshot: fountain cards, banderole track, circle, card slots -------------------------------------


@invariant
def at_most_two_fountain_cards_of_a_kind(s, b):
    """Hands, returned cards and a pending draw hold at most FOUNTAIN_COPIES cards of each kind."""
    P = s.track.shape[1]
    for k in range(NUM_FOUNTAIN_KINDS):
        n = count_equal(s.fountain_drawn[b], k)
        for p in range(P):
            n += s.fountain_hand[b, p, k] + s.fountain_returned[b, p, k]
        if n > FOUNTAIN_COPIES:
            return False
    return True


@invariant
def one_fountain_card_returned_per_card_kept(s, b):
    """A player returned one card per card kept, and kept at most one per fountain built."""
    P = s.track.shape[1]
    for p in range(P):
        held, gave = _fountain_cards(s, b, p)
        if held != gave or held > s.completed[b, p, FOUNTAIN]:
            return False
    return True


@invariant
def banderole_stacks_consistent(s, b):
    """The discs on one banderole-track space have the distinct heights 0..k-1."""
    P = s.track.shape[1]
    for p in range(P):
        below = 0
        for q in range(P):
            if q != p and s.track[b, q] == s.track[b, p]:
                below += 1
                if s.height[b, q] == s.height[b, p]:
                    return False
        if s.height[b, p] > below:
            return False
    return True


@invariant
def scoring_discs_on_usable_spaces(s, b):
    """A scoring disc lies only on a space usable with this player count, with the phase (past or current)
    it was placed in; a space has an owner exactly when it has a phase."""
    P = s.track.shape[1]
    for sp in range(NUM_CIRCLE_SPACES):
        if s.circle_owner[b, sp] >= 0 and (not SPACE_USABLE[P, sp] or s.circle_phase[b, sp] > s.phase[b]
                                           or s.circle_phase[b, sp] < 0):
            return False
        if (s.circle_owner[b, sp] >= 0) != (s.circle_phase[b, sp] >= 0):
            return False
    return True


@invariant
def card_slots_used_for_the_player_count(s, b):
    """Exactly the scoring-card slots used with this player count hold a card."""
    P = s.track.shape[1]
    for slot in range(NUM_CARD_SLOTS):
        if SLOT_USED[P, slot] != (s.card_slot[b, slot] >= 0):
            return False
    return True


# --- snapshot: the scoring turn ------------------------------------------------------------------------


@invariant
def disc_on_cur_space_while_resolving(s, b):
    """While its two cards are resolved, to_play's disc of this phase lies on cur_space (a usable space);
    cur_space is -1 otherwise."""
    P = s.track.shape[1]
    sp = np.int64(s.cur_space[b])
    if _resolving(s.decision[b]) != (sp >= 0):
        return False
    return sp < 0 or (SPACE_USABLE[P, sp] and s.circle_owner[b, sp] == s.to_play[b]
                      and s.circle_phase[b, sp] == s.phase[b])


@invariant
def card_seq_set_only_while_counting(s, b):
    """The second card of a scoring turn is set only while its units or bread are chosen."""
    dec = s.decision[b]
    return s.card_seq[b] == 0 or dec == DEC_CARD_UNITS or dec == DEC_CARD_BREAD


@invariant
def units_match_the_current_card(s, b):
    """units are set only while a card's bread is chosen: a red card's payable with goods and coins, a green
    card's its natural units (capped at 127); 0 while a red card's units are chosen."""
    dec = s.decision[b]
    p = s.to_play[b]
    if dec == DEC_CARD_UNITS:
        return s.units[b] == 0 and CARD_RED[current_card(s, b)]
    if dec == DEC_CARD_BREAD:
        card = current_card(s, b)
        if CARD_RED[card]:
            return s.units[b] <= red_max_units(s, b, p, card)
        return s.units[b] == min(green_units(s, b, p, card), 127)
    return s.units[b] == 0


@invariant
def score_order_is_a_permutation(s, b):
    """score_order lists every seat once."""
    return is_permutation(s.score_order[b], 0)


# --- snapshot: craftsman picks, patricians, rotations --------------------------------------------------


@invariant
def craft_picks_owed_only_after_a_tile(s, b):
    """Craftsman picks are owed only between a turn's placement and its end (PLACE, FOUNTAIN_RETURN,
    DISPLAY_PICK)."""
    dec = s.decision[b]
    return s.craft_pending[b] == 0 or dec == DEC_PLACE or dec == DEC_FOUNTAIN_RETURN or dec == DEC_DISPLAY_PICK


@invariant
def craft_picks_within_completed_craftsmen(s, b):
    """At most one craftsman pick is owed per completed craftsman lodging of to_play."""
    return s.craft_pending[b] <= s.completed[b, s.to_play[b], CRAFTSMAN]


@invariant
def display_pick_owed_from_a_display_with_tiles(s, b):
    """DISPLAY_PICK only with a pick owed and a tile on the display."""
    return s.decision[b] != DEC_DISPLAY_PICK or (s.craft_pending[b] > 0 and _display_count(s, b) > 0)


@invariant
def depot_tile_built_before_craft_picks(s, b):
    """While picks are owed a PLACE builds a display (dark) tile: the turn's depot tile (any light one) is
    built before them."""
    return not (s.decision[b] == DEC_PLACE and s.craft_pending[b] > 0 and s.tile_pending[b] < NUM_LIGHT)


@invariant
def start_spaces_taken_by_the_seats_before(s, b):
    """While the start spaces are chosen, exactly the seats before to_play in turn order stand, on distinct
    spaces."""
    P = s.track.shape[1]
    if s.decision[b] != DEC_START_SPACE:
        return True
    for i in range(P):
        q = (s.start_player[b] + i) % P
        if (s.patrician[b, q] >= 0) != (i < s.turn[b]):
            return False
        for r in range(P):
            if r != q and s.patrician[b, q] >= 0 and s.patrician[b, r] == s.patrician[b, q]:
                return False
    return True


@invariant
def patricians_stand_after_the_start_placement(s, b):
    """After the start placement every patrician stands on a space."""
    P = s.track.shape[1]
    if s.decision[b] == DEC_START_SPACE:
        return True
    for q in range(P):
        if s.patrician[b, q] < 0:
            return False
    return True


@invariant
def take_at_a_depot_with_tiles(s, b):
    """A TAKE is at a depot with tiles (a normal move skips empty depots, a bread move goes only to one with
    tiles)."""
    return s.decision[b] != DEC_TAKE or _depot_count(s, b, s.patrician[b, s.to_play[b]]) > 0


@invariant
def empty_cells_unrotated(s, b):
    """An empty cell has rotation 0 (a rotation is set only with a tile)."""
    P = s.track.shape[1]
    for q in range(P):
        for cell in range(NUM_CELLS):
            if s.cell_tile[b, q, cell] < 0 and s.cell_rot[b, q, cell] != 0:
                return False
    return True


# --- history: tiles -----------------------------------------------------------------------------------


@invariant
def depots_hold_what_takes_leave(s, b):
    """Every depot holds 4 - k tiles after k < P takes of this phase, or none (depot removal)."""
    possible, _, _ = _depot_takes(s, b)
    return possible


@invariant
def depot_takes_match_round_and_turn(s, b):
    """The depots tell the takes of this phase, one per turn: round * P + turn (+ 1 once to_play has taken);
    none before the deal (the start spaces) and all 7 P once the turns are over."""
    P = s.track.shape[1]
    _, takes, _ = _depot_takes(s, b)
    dec = s.decision[b]
    if _in_turns(dec):
        return takes == np.int64(s.round[b]) * P + np.int64(s.turn[b]) + (1 if _after_take(dec) else 0)
    return takes == NUM_SPACES * P


@invariant
def depots_hold_tiles_of_the_phase(s, b):
    """The depots hold this phase's kind of tile: light in phases 1-3, dark in phase 4."""
    ph = np.int64(s.phase[b])
    for t in range(NUM_TILES):
        if s.tile_loc[b, t] == LOC_DEPOT and (t >= NUM_LIGHT) != (ph == NUM_PHASES - 1):
            return False
    return True


@invariant
def supply_matches_the_phase(s, b):
    """Phases 1-3 each deal 28 light tiles, phase 4 the 28 dark tiles not on the display: the rest are in
    the supply."""
    ph = np.int64(s.phase[b])
    light_supply, dark_supply = _tiles_at(s, b, LOC_SUPPLY)
    dealt_light = 0 if s.decision[b] == DEC_START_SPACE else min(ph + 1, NUM_PHASES - 1)
    if light_supply != NUM_LIGHT - LIGHT_PER_PHASE * dealt_light:
        return False
    return dark_supply == (0 if ph == NUM_PHASES - 1 else NUM_TILES - NUM_LIGHT - DISPLAY_SLOTS)


@invariant
def removed_tiles_match_the_phase(s, b):
    """The removed tiles are 4 - P per depot per phase whose turns are over, and those of the depots emptied
    in this phase's turns."""
    P = s.track.shape[1]
    ph = np.int64(s.phase[b])
    over = _phases_over(s, b)
    _, _, removed_now = _depot_takes(s, b)
    if not _in_turns(s.decision[b]):
        removed_now = 0  # counted with the phases that are over
    light_removed, dark_removed = _tiles_at(s, b, LOC_REMOVED)
    per_phase = (DEPOT_SLOTS - P) * NUM_SPACES
    if light_removed != per_phase * min(over, NUM_PHASES - 1) + (removed_now if ph < NUM_PHASES - 1 else 0):
        return False
    return dark_removed == per_phase * (1 if over == NUM_PHASES else 0) + (removed_now if ph == NUM_PHASES - 1 else 0)


@invariant
def tiles_held_match_turns_and_display_picks(s, b):
    """Every seat takes one depot tile per turn (7 per phase); the tiles it holds (built, stored, being built)
    beyond those are display picks, which together are the tiles gone from the display."""
    P = s.track.shape[1]
    dec = s.decision[b]
    turns = _in_turns(dec)
    over = _phases_over(s, b)
    extra = 0
    for q in range(P):
        pos = (np.int64(q) - np.int64(s.start_player[b])) % P
        taken = ROUNDS_PER_PHASE * over
        if turns:
            taken += np.int64(s.round[b]) + (1 if pos < s.turn[b] else 0) + (1 if pos == s.turn[b] and _after_take(dec) else 0)
        held = (np.int64(s.stored[b, q]) + (1 if s.tile_pending[b] >= 0 and s.to_play[b] == q else 0)
                + count_at_least(s.cell_tile[b, q], 0))
        if held < taken:
            return False
        extra += held - taken
    return extra == DISPLAY_SLOTS - _display_count(s, b)


@invariant
def nothing_stored_before_the_shovel_tile(s, b):
    """Nothing is stored before the first tile is on the shovel cell (the German rules' first-tile rule)."""
    P = s.track.shape[1]
    for q in range(P):
        if s.stored[b, q] > 0 and s.cell_tile[b, q, BOARD_SHOVEL[s.board[b, q]]] < 0:
            return False
    return True


# --- history: scoring rounds --------------------------------------------------------------------------


@kernel(inline="always")
def _has_scored(s, b, q):
    """In a scoring round: whether q has placed its disc (a seat before `turn` in the order, or to_play once
    its disc is down)."""
    scored = False
    for i in range(s.turn[b]):
        if s.score_order[b, i] == q:
            scored = True
    if q == s.to_play[b] and s.cur_space[b] >= 0:
        scored = True
    return scored


@invariant
def discs_match_scoring_rounds_played(s, b):
    """One disc per seat per scoring round played; in this phase's round for the seats that have scored."""
    P = s.track.shape[1]
    ph = np.int64(s.phase[b])
    scoring = _in_scoring(s.decision[b])
    over = _phases_over(s, b)
    for q in range(P):
        scored = scoring and _has_scored(s, b, q)
        for f in range(NUM_PHASES):
            n = 0
            for sp in range(NUM_CIRCLE_SPACES):
                if s.circle_owner[b, sp] == q and s.circle_phase[b, sp] == f:
                    n += 1
            want = 1 if f < over else 0
            if scoring and f == ph:
                want = 1 if scored else 0
            if n != want:
                return False
    return True


@invariant
def score_order_follows_the_track(s, b):
    """The scoring order is by the track, higher first: scored seats only move forward, so each still ranks
    above every seat yet to score, and those keep their order; before the first scoring round it is the
    initial 0..P-1."""
    P = s.track.shape[1]
    if _in_scoring(s.decision[b]):
        for j in range(s.turn[b] + (1 if s.cur_space[b] >= 0 else 0), P):
            c = s.score_order[b, j]
            for i in range(j):
                a = s.score_order[b, i]
                if s.track[b, c] > s.track[b, a] or (s.track[b, c] == s.track[b, a] and s.height[b, c] > s.height[b, a]):
                    return False
    elif s.phase[b] == 0:
        for i in range(P):
            if s.score_order[b, i] != i:
                return False
    return True


# --- history: counters against their sources ----------------------------------------------------------
# Each bound grows by at least what a step can add (a placement's goods, coins, bread and steps come with
# the completed features it counts; a card's gain with the card it resolves), so an accepted position keeps
# them.


@invariant
def goods_and_coins_within_their_sources(s, b, work, cellmask):
    """Goods of a kind <= its completed landscapes' tiles - 1; coins + goods <= those goods + 1 per merchant
    (merchants turn goods into coins + 1) + 1 per market + the coin gains of the cards resolved (red cards
    take both)."""
    P = s.track.shape[1]
    for q in range(P):
        _analyze(s, b, q, work, cellmask, -1)
        _landscape_goods(s, b, q, work, cellmask, work[W_LIST:W_LIST + NUM_GOODS])
        land = 0
        goods = 0
        for g in range(NUM_GOODS):
            if s.goods[b, q, g] > work[W_LIST + g]:
                return False
            land += work[W_LIST + g]
            goods += s.goods[b, q, g]
        comp = s.completed[b, q]
        if np.int64(s.coins[b, q]) + goods > (land + MERCHANT_BONUS_COINS * np.int64(comp[MERCHANT])
                                              + MARKET_COINS * np.int64(comp[MARKET])
                                              + _cards_resolved(s, b, q) * CARD_GAIN_MAX[GAIN_COIN]):
            return False
    return True


@invariant
def bread_within_its_sources(s, b):
    """Bread <= 1 per bakery + 2 per baker + the bread gains of the cards resolved."""
    P = s.track.shape[1]
    for q in range(P):
        comp = s.completed[b, q]
        if s.bread[b, q] > (BAKERY_BREAD * np.int64(comp[BAKERY]) + BAKER_BREAD * np.int64(comp[BAKER])
                            + _cards_resolved(s, b, q) * CARD_GAIN_MAX[GAIN_BREAD]):
            return False
    return True


@invariant
def track_and_vp_within_their_sources(s, b):
    """Track <= the district's steps (banderole cells, administrators) + the step gains of the cards
    resolved; VP + track <= the highest starting VP + those steps + the cards' VP and steps (a step past the
    end is a VP); VP >= the lowest starting VP - 4 per card resolved (all failed)."""
    P = s.track.shape[1]
    start_hi = 0
    start_lo = 1 << 30
    for i in range(P):
        start_hi = max(start_hi, np.int64(START_VP[P, i]))
        start_lo = min(start_lo, np.int64(START_VP[P, i]))
    for q in range(P):
        resolved = _cards_resolved(s, b, q)
        steps = _banderole_steps(s, b, q)
        if s.track[b, q] > steps + resolved * CARD_GAIN_MAX[GAIN_STEP]:
            return False
        if np.int64(s.vp[b, q]) + s.track[b, q] > start_hi + steps + resolved * CARD_VP_STEPS_MAX:
            return False
        if s.vp[b, q] < start_lo - FAIL_VP * resolved:
            return False
    return True


@invariant
def fountain_cards_match_fountains_built(s, b):
    """One fountain draw per fountain built, keeping one card and returning one; the draw of the fountain
    just built is still in to_play's hands while it chooses."""
    P = s.track.shape[1]
    for q in range(P):
        held, gave = _fountain_cards(s, b, q)
        pending = 1 if s.decision[b] == DEC_FOUNTAIN_RETURN and q == s.to_play[b] else 0
        draws = np.int64(s.completed[b, q, FOUNTAIN]) - pending
        if held != draws or gave != draws:
            return False
    return True


# --- history: the setup -------------------------------------------------------------------------------


@invariant
def boards_and_frame_parts_distinct(s, b):
    """Every seat has its own building board and four frame parts of its own."""
    P = s.track.shape[1]
    boards = np.int64(0)
    parts = np.int64(0)
    for q in range(P):
        boards |= np.int64(1) << np.int64(s.board[b, q])
        for side in range(4):
            parts |= np.int64(1) << np.int64(s.frame[b, q, side])
    return _popcount(boards) == P and _popcount(parts) == 4 * P


@invariant
def scoring_cards_as_drawn(s, b):
    """The used slots hold distinct scoring cards, CARDS_DRAWN of each letter."""
    P = s.track.shape[1]
    cards = np.int64(0)
    for slot in range(NUM_CARD_SLOTS):
        if s.card_slot[b, slot] >= 0:
            cards |= np.int64(1) << np.int64(s.card_slot[b, slot])
    for letter in range(4):
        n = 0
        for c in range(CARD_LETTER_START[letter], CARD_LETTER_START[letter + 1]):
            n += (cards >> np.int64(c)) & np.int64(1)
        if n != CARDS_DRAWN[P, letter]:
            return False
    return True


@invariant
def starting_vp_and_stack_by_seat_order(s, b):
    """During the start placement (setup steps 7-8): starting VP by position after the start player, every
    banderole disc on space 0, stacked in that order."""
    P = s.track.shape[1]
    if s.decision[b] != DEC_START_SPACE:
        return True
    for i in range(P):
        q = (s.start_player[b] + i) % P
        if s.vp[b, q] != START_VP[P, i] or s.track[b, q] != 0 or s.height[b, q] != i:
            return False
    return True


SNAPSHOT = (
    Invariant(done_exactly_at_game_over, "done is not exactly decision GAME_OVER"),
    Invariant(tile_pending_exactly_while_placing, "a pending tile without decision PLACE, or PLACE without one"),
    Invariant(fountain_draw_exactly_while_returning,
              "a fountain draw (two cards) pending without decision FOUNTAIN_RETURN, or FOUNTAIN_RETURN without one"),
    Invariant(start_spaces_chosen_in_seat_order,
              "start spaces chosen outside phase 0 round 0, or not by the seat `turn` places after the start player"),
    Invariant(scoring_turns_in_score_order, "a scoring decision outside round 7, or not by score_order[turn]"),
    Invariant(turns_in_seat_order,
              "a turn in round 7, not by the seat `turn` places after the start player, or by a patrician not placed"),
    Invariant(cards_resolved_on_a_circle_space, "cards resolved without a circle space (cur_space)"),
    Invariant(tiles_lie_where_tile_loc_says, "a tile in a depot, the display, pending or a district has another tile_loc"),
    Invariant(display_holds_dark_tiles, "a light tile on the bottom display"),
    Invariant(every_tile_in_one_place, "a tile is in two places or nowhere"),
    Invariant(stored_counts_match_stored_tiles, "the stored counts differ from the tiles stored"),
    Invariant(placed_tiles_match_neighbours_and_frame, "a placed tile does not match a neighbour or the frame"),
    Invariant(districts_begin_on_the_shovel, "a district has tiles but none on its shovel cell"),
    Invariant(districts_connected_to_the_shovel, "a district is not connected to its shovel cell"),
    Invariant(derived_fields_match_the_districts,
              "derived fields (completed, frame tasks, chimneys, villa VP) differ from their recomputation"),
    Invariant(at_most_two_fountain_cards_of_a_kind, "more than 2 fountain cards of a kind"),
    Invariant(one_fountain_card_returned_per_card_kept,
              "fountain cards kept differ from those returned, or exceed the fountains built"),
    Invariant(banderole_stacks_consistent, "banderole stacks inconsistent (heights not 0..k-1 on a space)"),
    Invariant(scoring_discs_on_usable_spaces,
              "a scoring disc on an unusable space, of a later phase, or owner and phase not set together"),
    Invariant(card_slots_used_for_the_player_count, "scoring-card slots not those used with this player count"),
    Invariant(disc_on_cur_space_while_resolving,
              "cur_space set outside the resolution of cards, or not to_play's disc of this phase"),
    Invariant(card_seq_set_only_while_counting, "card_seq set outside CARD_UNITS / CARD_BREAD"),
    Invariant(units_match_the_current_card, "units inconsistent with the decision and the current card"),
    Invariant(score_order_is_a_permutation, "score_order is not a permutation of the seats"),
    Invariant(craft_picks_owed_only_after_a_tile,
              "craftsman picks owed outside a turn's tile decisions (PLACE, FOUNTAIN_RETURN, DISPLAY_PICK)"),
    Invariant(craft_picks_within_completed_craftsmen, "more craftsman picks owed than completed craftsman lodgings"),
    Invariant(display_pick_owed_from_a_display_with_tiles, "DISPLAY_PICK with no pick owed or an empty display"),
    Invariant(depot_tile_built_before_craft_picks, "craftsman picks owed before the turn's depot tile is built"),
    Invariant(start_spaces_taken_by_the_seats_before,
              "start spaces not taken by exactly the seats before to_play, or shared"),
    Invariant(patricians_stand_after_the_start_placement, "a patrician missing after the start placement"),
    Invariant(take_at_a_depot_with_tiles, "TAKE at an empty depot"),
    Invariant(empty_cells_unrotated, "a rotation on an empty cell"),
)

HISTORY = (
    Invariant(depots_hold_what_takes_leave, "a depot holds a count of tiles no number of takes leaves"),
    Invariant(depot_takes_match_round_and_turn, "round / turn do not match the tiles taken from the depots this phase"),
    Invariant(depots_hold_tiles_of_the_phase, "a depot holds a tile of another phase (light / dark)"),
    Invariant(supply_matches_the_phase, "the tiles in the supply do not match the phase"),
    Invariant(removed_tiles_match_the_phase, "the removed tiles do not match the phases played"),
    Invariant(tiles_held_match_turns_and_display_picks,
              "tiles held per player do not match the turns played and the display picks"),
    Invariant(nothing_stored_before_the_shovel_tile, "a tile stored before the first tile is on the shovel cell"),
    Invariant(discs_match_scoring_rounds_played, "scoring discs do not match the scoring rounds played"),
    Invariant(score_order_follows_the_track, "the scoring order does not follow the banderole track"),
    Invariant(goods_and_coins_within_their_sources,
              "goods or coins exceed what the completed landscapes, lodgings, markets and cards can have given"),
    Invariant(bread_within_its_sources, "bread exceeds what the bakeries, bakers and cards can have given"),
    Invariant(track_and_vp_within_their_sources,
              "track or VP beyond what the district and the cards scored can have given"),
    Invariant(fountain_cards_match_fountains_built, "fountain cards do not match the fountains built (one draw each)"),
    Invariant(boards_and_frame_parts_distinct, "building boards or frame parts repeated"),
    Invariant(scoring_cards_as_drawn, "scoring cards repeated, or not the letters drawn"),
    Invariant(starting_vp_and_stack_by_seat_order, "starting VP or banderole stack not by seat order"),
)

INVARIANTS = SNAPSHOT + HISTORY
