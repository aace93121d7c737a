"""Attika's consistency rules, as named invariants: each a kernel `name(s, b, ...) -> bool` that holds for row
b of any position the rules can reach, checked by `validate` in the order of INVARIANTS (envs/codegen.py
generates the loop). Each relies only on what the earlier ones established, so no check indexes with an
unchecked value: the map first, then the buildings on it and the fields derived from it, the flow, the
face-up tile, the conservation of buildings, the explicit payment, cards, amphorae, and the winner.

What only a played game guarantees (every field shows its tile's printed symbol, every stack has lost its
first building to the setup) is checked by `Attika.validate` with history=True, not here: positions built
by hand (tests, tools) may break it.
"""

from __future__ import annotations

from meeple.envs.attika.data import (
    AMPHORAE, BUILDINGS_PER_PLAYER, BUILDS_PER_TURN, CARDS_PER_LANDSCAPE, DEC_BUILD_MODE, DEC_CHOOSE_FIELD,
    DEC_CHOOSE_ROTATION, DEC_DRAW, DEC_GAME_OVER, DEC_PAY, DEC_PENDING_REVEAL, DEC_PLACE_TILE, DEC_REVEAL_MODE,
    DEC_START, FLOWER, FLOWER_OK, IS_MAIN, LAND_NONE, LAND_SHRINE, MODE_BUILD, MODE_NONE, MODE_REVEAL, NUM_GROUPS,
    NUM_LANDSCAPES, NUM_SLOTS, NUM_TILES, NUM_TYPES, REVEALS_PER_TURN, SETUP_TILES, SHRINE_SLOTS, TILE_PLACED,
    TILE_UP,
)
from meeple.envs.attika.kernels import (
    _group_complete, _settlement_labels, affordable, any_site, buildable, is_field, popcount4, sigma_of,
    tile_centre_ok, unrevealed,
)
from meeple.envs.base import Invariant
from meeple.envs.invariant_helpers import cards_conserved
from meeple.envs.jit import invariant

# --- the map ----------------------------------------------------------------------------------------------


@invariant
def tiles_placed_on_valid_centres(s, b):
    """A placed tile is centred where its whole footprint lies in the window; any other tile has no centre
    and rotation 0; at least the layout's setup tiles are placed."""
    P = s.hand.shape[1]
    n_placed = 0
    for x in range(NUM_TILES):
        if s.tile_state[b, x] == TILE_PLACED:
            n_placed += 1
            h = s.tile_centre[b, x]
            if h < 0 or not FLOWER_OK[h]:
                return False
        elif s.tile_centre[b, x] != -1 or s.tile_rot[b, x] != 0:
            return False
    return n_placed >= SETUP_TILES[P]


@invariant
def fields_are_the_placed_tiles_footprints(s, b, queue):
    """No two placed tiles overlap, a hex is covered (a field) exactly when a placed tile's footprint holds
    it, and no tile covers a shrine (queue: the tiles covering each slot)."""
    for x in range(NUM_SLOTS):
        queue[x] = 0
    for x in range(NUM_TILES):
        if s.tile_state[b, x] == TILE_PLACED:
            for j in range(7):
                queue[FLOWER[s.tile_centre[b, x], j]] += 1
    for x in range(NUM_SLOTS):
        land = s.land[b, x]
        if queue[x] > 1:
            return False
        if land >= LAND_SHRINE:
            if queue[x] != 0:
                return False
        elif (land != LAND_NONE) != (queue[x] == 1):
            return False
    return True


@invariant
def shrines_on_their_layout_hexes(s, b):
    """Shrine i (of the P in play) stands exactly on the layout's hex for it, and nowhere else."""
    P = s.hand.shape[1]
    for x in range(NUM_SLOTS):
        land = s.land[b, x]
        if land >= LAND_SHRINE and (land - LAND_SHRINE >= P or SHRINE_SLOTS[P, land - LAND_SHRINE] != x):
            return False
    for i in range(P):
        if s.land[b, SHRINE_SLOTS[P, i]] != LAND_SHRINE + i:
            return False
    return True


# --- buildings and the fields derived from the map -----------------------------------------------------------


@invariant
def buildings_stand_on_fields(s, b):
    """Every building stands on a field, with an owner in play and a type, and nothing else has either."""
    P = s.hand.shape[1]
    for x in range(NUM_SLOTS):
        if (s.owner[b, x] >= 0) != (s.building[b, x] >= 0):
            return False
        if s.owner[b, x] >= 0 and not is_field(s.land[b, x]):
            return False
        if s.owner[b, x] >= P:
            return False
    return True


@invariant
def settlements_match_the_map(s, b, queue, label, bits):
    """Every building's settlement label and its shrine bits equal their recomputation from the map."""
    _settlement_labels(s, b, label, bits, queue)
    for x in range(NUM_SLOTS):
        if s.settlement[b, x] != label[x] or s.settlement_shrines[b, x] != bits[x]:
            return False
    return True


@invariant
def symbol_counts_match_the_map(s, b):
    """Every hex's `sigma` (symbols on it and its neighbours without a building) equals its recomputation."""
    for x in range(NUM_SLOTS):
        if s.sigma[b, x] != sigma_of(s, b, x):
            return False
    return True


@invariant
def building_counts_match_the_map(s, b, counts):
    """Every player's settlements, buildings placed and buildings per type equal the map's (counts: the
    per-type tally). A settlement is counted at its label, its lowest slot (labels are checked above)."""
    P = s.hand.shape[1]
    for p in range(P):
        for t in range(NUM_TYPES):
            counts[t] = 0
        n_settlements = 0
        n_placed = 0
        for x in range(NUM_SLOTS):
            if s.owner[b, x] == p:
                counts[s.building[b, x]] += 1
                n_placed += 1
                if s.settlement[b, x] == x:
                    n_settlements += 1
        if s.settlements[b, p] != n_settlements or s.placed[b, p] != n_placed:
            return False
        for t in range(NUM_TYPES):
            if s.built[b, p, t] != counts[t]:
                return False
    return True


# --- flow -------------------------------------------------------------------------------------------------------


@invariant
def game_end_consistent(s, b, max_rounds):
    """done exactly at GAME_OVER; a truncated game ended at the round cap without a winner; an ended game
    that is not truncated has a winner; a running one has none and is below the round cap."""
    dec = s.decision[b]
    if s.done[b] != (dec == DEC_GAME_OVER) or s.round[b] > max_rounds or s.round[b] < 0:
        return False
    if s.truncated[b] and (not s.done[b] or s.winner[b] >= 0 or s.round[b] != max_rounds):
        return False
    if s.done[b] and not s.truncated[b] and s.winner[b] < 0:
        return False
    return s.done[b] or (s.winner[b] < 0 and s.round[b] < max_rounds)


@invariant
def turn_mode_matches_decision(s, b):
    """The turn's mode allows the decision and its allowance left is below the mode's; a build selected in
    the build mode has an action or an amphora left to pay it with."""
    dec = s.decision[b]
    if s.mode[b] == MODE_NONE and (s.actions_left[b] != 0 or not (dec == DEC_START or dec == DEC_DRAW
                                                                  or dec == DEC_CHOOSE_FIELD or dec == DEC_GAME_OVER)):
        return False
    if s.mode[b] == MODE_REVEAL and (s.actions_left[b] > REVEALS_PER_TURN - 1 or dec == DEC_START
                                     or dec == DEC_BUILD_MODE or dec == DEC_CHOOSE_FIELD):
        return False
    if s.mode[b] == MODE_BUILD and (s.actions_left[b] > BUILDS_PER_TURN - 1 or dec == DEC_START
                                    or dec == DEC_REVEAL_MODE or dec == DEC_PENDING_REVEAL
                                    or dec == DEC_PLACE_TILE or dec == DEC_CHOOSE_ROTATION):
        return False
    return not (dec == DEC_CHOOSE_FIELD and s.mode[b] == MODE_BUILD and s.actions_left[b] == 0
                and s.amphorae[b, s.to_play[b]] == 0)


@invariant
def pending_building_and_slot_match_decision(s, b):
    """A pending building exactly while one is revealed, chosen or paid for; a pending slot exactly while a
    tile's rotation is chosen or a site is paid for."""
    dec = s.decision[b]
    has_type = dec == DEC_PENDING_REVEAL or dec == DEC_CHOOSE_FIELD or dec == DEC_PAY
    if has_type != (s.pending_type[b] >= 0):
        return False
    has_slot = dec == DEC_CHOOSE_ROTATION or dec == DEC_PAY
    return has_slot == (s.pending_slot[b] >= 0)


# --- the face-up tile -------------------------------------------------------------------------------------------


@invariant
def face_up_tile_matches_decision(s, b):
    """A face-up tile exactly while one is placed (PLACE_TILE, CHOOSE_ROTATION), and it is the one tile in
    the state TILE_UP."""
    dec = s.decision[b]
    has_tile = dec == DEC_PLACE_TILE or dec == DEC_CHOOSE_ROTATION
    if has_tile != (s.tile_up[b] >= 0):
        return False
    for x in range(NUM_TILES):
        if (s.tile_state[b, x] == TILE_UP) != (x == s.tile_up[b]):
            return False
    return True


@invariant
def map_extension_pending_only_in_a_reveal(s, b):
    """A map extension waits only on the revealed building's decision (or its explicit payment)."""
    dec = s.decision[b]
    return not s.extend_pending[b] or dec == DEC_PENDING_REVEAL or (dec == DEC_PAY and s.mode[b] == MODE_REVEAL)


@invariant
def face_up_tile_has_a_place(s, b):
    """The chosen centre of the face-up tile takes it, and a tile being placed has somewhere to go (one that
    has not is removed at once)."""
    dec = s.decision[b]
    if dec == DEC_CHOOSE_ROTATION and not tile_centre_ok(s, b, s.pending_slot[b]):
        return False
    if dec == DEC_PLACE_TILE:
        for h in range(NUM_SLOTS):
            if tile_centre_ok(s, b, h):
                return True
        return False
    return True


# --- buildings, payment, cards, amphorae, the winner ------------------------------------------------------------


@invariant
def buildings_conserved(s, b):
    """Every player's 30 buildings: display + map + the one in hand never exceed a type's copies, and the
    face-down stacks hold exactly the rest (the main stack the main buildings, stacks 1-3 the others)."""
    P = s.hand.shape[1]
    for p in range(P):
        main_left = 0
        other_left = 0
        for t in range(NUM_TYPES):
            n = unrevealed(s, b, p, t)
            if n < 0:
                return False
            if IS_MAIN[t]:
                main_left += n
            else:
                other_left += n
        if s.stack_size[b, p, 0] != main_left:
            return False
        if s.stack_size[b, p, 1] + s.stack_size[b, p, 2] + s.stack_size[b, p, 3] != other_left:
            return False
    return True


@invariant
def chosen_building_has_a_site(s, b):
    """A display building chosen for a build waits on the display and has a field the hand can pay for."""
    p = s.to_play[b]
    return not (s.decision[b] == DEC_CHOOSE_FIELD and (s.display[b, p, s.pending_type[b]] <= 0
                                                       or not any_site(s, b, p, s.pending_type[b], s.hand[b, p])))


@invariant
def payment_queue_only_while_paying(s, b, explicit_pay):
    """A payment queue only in PAY, which only the explicit payment variant has, for a site still empty."""
    if s.decision[b] == DEC_PAY:
        return explicit_pay and buildable(s, b, s.pending_slot[b])
    return not (s.pay_front[b] != 0 or s.pay_any[b] != 0 or s.pay_spec[b, 0] != 0 or s.pay_spec[b, 1] != 0
                or s.pay_spec[b, 2] != 0 or s.pay_spec[b, 3] != 0)


@invariant
def payment_queue_payable(s, b):
    """In PAY the queue is not empty and the payer's hand can still pay all of it."""
    if s.decision[b] != DEC_PAY:
        return True
    p = s.to_play[b]
    left = s.pay_front[b] + s.pay_any[b]
    for k in range(NUM_LANDSCAPES):
        left += s.pay_spec[b, k]
    return left != 0 and affordable(s.hand[b, p, 0], s.hand[b, p, 1], s.hand[b, p, 2], s.hand[b, p, 3],
                                    s.pay_spec[b, 0], s.pay_spec[b, 1], s.pay_spec[b, 2], s.pay_spec[b, 3],
                                    s.pay_front[b] + s.pay_any[b])


@invariant
def landscape_cards_conserved(s, b):
    """15 cards of each landscape between the hands, the draw pile and the discard pile."""
    return cards_conserved(s.draw_pile[b], s.discard[b], s.hand[b], CARDS_PER_LANDSCAPE, -1)


@invariant
def amphorae_conserved(s, b):
    """15 amphorae between the supply and the players."""
    n = s.amphora_supply[b]
    for q in range(s.hand.shape[1]):
        n += s.amphorae[b, q]
    return n == AMPHORAE


@invariant
def rewarded_groups_complete(s, b, group_settlement, queue, label):
    """A group that has earned its amphora is complete and connected on the map (in the configured reading)."""
    for q in range(s.hand.shape[1]):
        for g in range(NUM_GROUPS):
            if s.rewarded[b, q, g] and not _group_complete(s, b, q, g, group_settlement, queue, label):
                return False
    return True


@invariant
def winner_meets_a_win_condition(s, b):
    """A player has won exactly when they meet a win condition: 30 buildings placed, or a settlement
    touching two shrines."""
    for q in range(s.hand.shape[1]):
        wins = s.placed[b, q] >= BUILDINGS_PER_PLAYER
        for x in range(NUM_SLOTS):
            if s.owner[b, x] == q and popcount4(s.settlement_shrines[b, x]) >= 2:
                wins = True
        if wins != (s.winner[b] == q):
            return False
    return True


INVARIANTS = (
    Invariant(tiles_placed_on_valid_centres, "a placed tile off a window centre, a centre or rotation on a tile "
              "not placed, or fewer placed tiles than the setup lays"),
    Invariant(fields_are_the_placed_tiles_footprints, "fields are not exactly the footprints of the placed "
              "tiles (overlapping tiles, a field outside every tile, a tile hex uncovered, a tile over a shrine)"),
    Invariant(shrines_on_their_layout_hexes, "shrines not exactly at the layout's hexes"),
    Invariant(buildings_stand_on_fields, "a building off a field, or owner and building type disagree"),
    Invariant(settlements_match_the_map, "settlement labels or their shrines differ from their recomputation"),
    Invariant(symbol_counts_match_the_map, "symbol counts (sigma) differ from their recomputation"),
    Invariant(building_counts_match_the_map, "settlements, buildings placed or buildings placed per type differ "
              "from the map"),
    Invariant(game_end_consistent, "decision vs done / winner / truncation / round cap inconsistent"),
    Invariant(turn_mode_matches_decision, "the turn's mode or allowance does not fit the decision"),
    Invariant(pending_building_and_slot_match_decision, "a pending building or slot does not fit the decision"),
    Invariant(face_up_tile_matches_decision, "the face-up tile does not fit the decision or the tile states"),
    Invariant(map_extension_pending_only_in_a_reveal, "a pending map extension outside a reveal"),
    Invariant(face_up_tile_has_a_place, "a chosen centre or a face-up tile with nowhere to go"),
    Invariant(buildings_conserved, "buildings not conserved: display + map + the one in hand exceed the copies, "
              "or stack sizes do not match the unrevealed buildings"),
    Invariant(chosen_building_has_a_site, "a chosen display building not on the display or with no field to go to"),
    Invariant(payment_queue_only_while_paying, "a payment queue outside PAY, PAY without the explicit payment "
              "variant, or an occupied site"),
    Invariant(payment_queue_payable, "an empty or unpayable payment queue"),
    Invariant(landscape_cards_conserved, "landscape cards not conserved (15 of each type between hands, draw "
              "pile and discard pile)"),
    Invariant(amphorae_conserved, "amphorae not conserved (15 between supply and players)"),
    Invariant(rewarded_groups_complete, "a group rewarded that is not complete"),
    Invariant(winner_meets_a_win_condition, "winner inconsistent with the win conditions (30 buildings placed, a "
              "settlement touching two shrines)"),
)
