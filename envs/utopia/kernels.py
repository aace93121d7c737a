"""numba kernels for Utopia: what one row of the batch does (the row functions of envs/codegen.py, from
which the batch entry points in entries.py are generated) and their helpers.

A row function works on row b of the State `s` in place (`apply` hands it a copy). Kernels never allocate
(envs/jit.py): scratch arrays are named in state.SCRATCH.

Flow. A round is Phase 1 (three passes of picks, each pick followed by an optional build window),
Phase 2 (the deal, rank discards, one turn per player, hand-limit discards) and Phase 3 (prestige).
The next actor is always the best-ranked player who has not yet acted in the pass or phase, the
ranking being score descending, then arrival stamp ascending (who reached the score first). `acted`
is set when a player's pick or turn begins, so the player in `to_play` has always acted. The
automatic steps (skipped picks and empty build windows, the clean-up, the deal, Phase 3, the end of
the round and of the game, the start-space rule, the guest draw) run in `_settle` (decision -1 means
"find the next actor");
`_advance` then applies single-legal-action decisions when `auto_forced`.

Randomness: the prestige scale and the first player come from the init uniforms; each round's guest
draw and each deal read the step uniforms (data.U_STEP_*) at the moment they happen; determinize
uses a splitmix64 stream seeded per row by the caller.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.jit import (
    append_copies, count_equal, kernel, lowest_bit, shuffle_prefix, shuffle_stream, tally_items, uniform_at, uniform_index,
)
from meeple.envs.utopia.data import (
    ACTION_ADD, ACTION_DISCARD, ACTION_DROP, ACTION_END, ACTION_LAND, ACTION_MONUMENT, ACTION_PLACE,
    ACTION_PRIVILEGE, ACTION_RAISE, ACTION_REMOVE, ACTION_SEA, ACTION_SELECT, ACTION_SPECIAL, ACTION_WONDER,
    ADD_VP, BASES, CARDS_DEALT, CARDS_PER_CIV, COST_DROP, COST_SPECIAL, DEC_BUILD, DEC_CONVERT,
    DEC_DISCARD, DEC_GAME_OVER, DEC_PICK, DEC_TURN, DEC_WONDER, DISTRICT_IN_PLAY, DISTRICT_ISLAND,
    DISTRICT_VALUE, END_SCORE, GAIN_ADDED, GAIN_BONUS, GAIN_PRESTIGE, GAIN_REMOVE, GAIN_WONDER,
    GUESTS_PER_KIND, HAND_LIMIT, ISLAND_FIRST, ISLAND_IN_PLAY, LAND_EDGES, MAX_ROUNDS, MONUMENTS_PER_CIV,
    NUM_ACTIONS, NUM_CIVS, NUM_DISTRICTS, NUM_GAIN_KINDS, NUM_ISLANDS, NUM_LAND_EDGES, NUM_SEA_ROUTES,
    PICK_PASSES, PRINCES_PER_CIV, PRIVILEGE_DST, PRIVILEGE_SRC, PRIVILEGES, RANK_DISCARDS, REMOVE_VP,
    SCALE_MAX, SEA_ROUTES, U_INIT_FIRST, U_INIT_SCALE, U_INIT_STEP, U_STEP_DEAL, U_STEP_GUESTS, WONDER_VP,
)
from meeple.envs.utopia.state import W_LIST, W_ORDER, W_SAVE


# --- ranking and scoring ---------------------------------------------------------------------------------

@kernel(inline="always")
def ahead(s, b, p, q):
    """True if seat p ranks ahead of seat q: more points, or the same points reached first."""
    return s.score[b, p] > s.score[b, q] or (s.score[b, p] == s.score[b, q] and s.stamp[b, p] < s.stamp[b, q])


@kernel
def rank_order(s, b, out):
    """out[0:P]: the seats in ranking order (the leader first)."""
    P = s.score.shape[1]
    for p in range(P):
        out[p] = p
    for i in range(1, P):  # insertion sort: P <= 5
        j = i
        while j > 0 and ahead(s, b, out[j], out[j - 1]):
            tmp = out[j]
            out[j] = out[j - 1]
            out[j - 1] = tmp
            j -= 1


@kernel
def rank_position(s, b, p):
    """0 for the leader .. P-1 for the last player."""
    n = 0
    for q in range(s.score.shape[1]):
        if q != p and ahead(s, b, q, p):
            n += 1
    return n


@kernel
def _best_unacted(s, b):
    """The best-ranked seat that has not acted in this pass / phase, -1 if everybody has."""
    best = -1
    for p in range(s.score.shape[1]):
        if not s.acted[b, p] and (best < 0 or ahead(s, b, p, best)):
            best = p
    return best


@kernel
def _gain(s, b, p, n, kind):
    """p scores n points from source `kind`; a positive move gives p a fresh arrival stamp (he arrives
    on the new space after everybody already there)."""
    if n > 0:
        s.score[b, p] += n
        s.gains[b, p, kind] += n
        s.stamp[b, p] = s.stamp_counter[b]
        s.stamp_counter[b] += 1


@kernel
def prestige_of(s, b, p):
    """What p's monuments pay at the current prestige scale (Phase 3)."""
    n = 0
    for d in range(NUM_DISTRICTS):
        if s.mon_owner[b, d] == p:
            n += s.scale[b, s.mon_civ[b, d]]
    return n


# --- pieces --------------------------------------------------------------------------------------------

@kernel(inline="always")
def supply(s, b, p, c):
    """Princes of civilization c that p has off the board."""
    n = 0
    for d in range(NUM_DISTRICTS):
        n += s.princes[b, p, c, d]
    return PRINCES_PER_CIV - n


@kernel
def bases_used(s, b, p):
    """p's constructions (monuments and wonders): one base each."""
    return count_equal(s.mon_owner[b], p) + count_equal(s.wonder_owner[b], p)


@kernel
def monuments_built(s, b, c):
    return count_equal(s.mon_civ[b], c)


@kernel(inline="always")
def in_play(s, d):
    return DISTRICT_IN_PLAY[s.score.shape[1], d]


@kernel
def civs_on_island(s, b, p, i):
    """How many civilizations p has at least one prince of anywhere on island i."""
    n = 0
    for c in range(NUM_CIVS):
        for d in range(ISLAND_FIRST[i], ISLAND_FIRST[i + 1]):
            if s.princes[b, p, c, d] > 0:
                n += 1
                break
    return n


@kernel(inline="always")
def _civs_with_monuments_left(s, b):
    """Bit set of the civilizations with a monument left to build: one pass over the districts, the
    counts 8 bits per civilization."""
    built = np.int64(0)
    for d in range(NUM_DISTRICTS):
        c = np.int64(s.mon_civ[b, d])
        if c >= 0:
            built += np.int64(1) << (8 * c)
    left = np.int64(0)
    for c in range(NUM_CIVS):
        if (built >> (8 * c)) & 255 < MONUMENTS_PER_CIV:
            left |= np.int64(1) << c
    return left


@kernel
def _build_mask(s, b, p, row):
    """The legal builds of p: a monument of c on a district without one where p has three princes of c
    (a monument of c left), a wonder on an island in play without one where p has a prince of every
    civilization; either needs a free base. Written into row unless it is None (then it stops at the
    first). True if there is one."""
    if bases_used(s, b, p) >= BASES:
        return False
    found = False
    left = _civs_with_monuments_left(s, b)
    for c in range(NUM_CIVS):
        if (left >> c) & 1 == 0:
            continue
        for d in range(NUM_DISTRICTS):
            if s.princes[b, p, c, d] >= 3 and s.mon_civ[b, d] < 0:
                if row is None:
                    return True
                row[ACTION_MONUMENT + NUM_DISTRICTS * c + d] = True
                found = True
    P = s.score.shape[1]
    for i in range(NUM_ISLANDS):
        if ISLAND_IN_PLAY[P, i] and s.wonder_owner[b, i] < 0 and civs_on_island(s, b, p, i) == NUM_CIVS:
            if row is None:
                return True
            row[ACTION_WONDER + i] = True
            found = True
    return found


@kernel
def any_build(s, b, p):
    """p has a legal build (`_build_mask` without writing a mask)."""
    return _build_mask(s, b, p, None)


# --- card actions -------------------------------------------------------------------------------------

# A civilization's moves along land edges and sea routes start from the districts where p has at least one
# (or two) of its princes and end in a district in play. So the mask needs, per district, the edges leaving
# it towards districts in play at this player count: bit sets of 32 edges per word (`lowest_bit` reads
# 32-bit words), one table per player count. The mask then visits the 24 districts once and writes the
# edges leaving those with princes, instead of testing every edge twice per civilization (the TURN
# decision is half of Utopia's steps, and its mask most of their time). Every edge leaves one district,
# so no edge is written twice. Built from data.LAND_EDGES / SEA_ROUTES, replaceable like them.
EDGE_WORD_BITS = 32


def _edges_leaving(edges: np.ndarray) -> np.ndarray:
    """(players + 1, districts, words) int64: bit e % 32 of word e // 32 is set in [P, d] when edge e
    leaves d for a district in play at P players."""
    words = -(-len(edges) // EDGE_WORD_BITS)
    out = np.zeros((DISTRICT_IN_PLAY.shape[0], NUM_DISTRICTS, words), dtype=np.int64)
    for P in range(DISTRICT_IN_PLAY.shape[0]):
        for e, (src, dst) in enumerate(edges):
            if DISTRICT_IN_PLAY[P, dst]:
                out[P, src, e // EDGE_WORD_BITS] |= 1 << (e % EDGE_WORD_BITS)
    return out


LAND_LEAVING = _edges_leaving(LAND_EDGES)
SEA_LEAVING = _edges_leaving(SEA_ROUTES)
# some land edge or sea route leaves d for a district in play (any_card_action's quick answer)
ANY_LEAVING = (LAND_LEAVING != 0).any(axis=2) | (SEA_LEAVING != 0).any(axis=2)


@kernel(inline="always")
def _mark_leaving(row, base, leaving, P, d):
    """row[base + e] = True for every edge e of `leaving[P, d]`; True if there is one."""
    found = False
    for w in range(leaving.shape[2]):
        x = leaving[P, d, w]
        if x != 0:
            found = True
            while x != 0:
                row[base + EDGE_WORD_BITS * w + lowest_bit(x)] = True
                x &= x - 1
    return found


@kernel
def _card_mask(s, b, p, c, avail, row):
    """Write the card actions of civilization c that `avail` usable cards pay for; True if there is one."""
    if avail < 1:
        return False
    c = np.int64(c)  # an int8 civilization (convert_to) would overflow ACTION_* + c without the JIT
    P = s.score.shape[1]
    found = False
    sup = supply(s, b, p, c)
    land = ACTION_LAND + 2 * c * NUM_LAND_EDGES  # then the moves of two princes at land + NUM_LAND_EDGES
    sea = ACTION_SEA + 2 * c * NUM_SEA_ROUTES
    for d in range(NUM_DISTRICTS):
        n = s.princes[b, p, c, d]
        if n >= 1:
            found |= _mark_leaving(row, land, LAND_LEAVING, P, d)
            found |= _mark_leaving(row, sea, SEA_LEAVING, P, d)
            if n >= 2:
                _mark_leaving(row, land + NUM_LAND_EDGES, LAND_LEAVING, P, d)
                _mark_leaving(row, sea + NUM_SEA_ROUTES, SEA_LEAVING, P, d)
        if s.mon_civ[b, d] == c:
            if sup >= 1:
                row[ACTION_ADD + NUM_DISTRICTS * c + d] = True
                found = True
            if n >= 1:
                row[ACTION_REMOVE + NUM_DISTRICTS * c + d] = True
                found = True
        if avail >= COST_SPECIAL and sup >= 1 and in_play(s, d):
            row[ACTION_SPECIAL + NUM_DISTRICTS * c + d] = True
            found = True
    if s.scale[b, c] < SCALE_MAX:
        row[ACTION_RAISE + c] = True
        found = True
    if avail >= COST_DROP and s.scale[b, c] > 1:
        row[ACTION_DROP + c] = True
        found = True
    return found


@kernel
def any_card_action(s, b, p, c, avail):
    """Whether some card action of civilization c is legal with `avail` usable cards (no mask written)."""
    if avail < 1:
        return False
    if s.scale[b, c] < SCALE_MAX or (avail >= COST_DROP and s.scale[b, c] > 1):
        return True
    sup = supply(s, b, p, c)
    if avail >= COST_SPECIAL and sup >= 1:
        return True
    P = s.score.shape[1]
    for d in range(NUM_DISTRICTS):
        n = s.princes[b, p, c, d]
        if (s.mon_civ[b, d] == c and (sup >= 1 or n >= 1)) or (n >= 1 and ANY_LEAVING[P, d]):
            return True
    return False


@kernel
def can_convert(s, b, p, src, dst):
    """PRIVILEGE(src -> dst): a token, a src card, and some action of dst payable once the card counts as dst."""
    return (src != dst and s.privileges[b, p] >= 1 and s.hand[b, p, src] >= 1
            and any_card_action(s, b, p, dst, s.hand[b, p, dst] + 1))


# --- legality -------------------------------------------------------------------------------------------

@kernel
def has_pick(s, b, p):
    """Whether p can take a guest: one on some island's display whose civilization p still has in supply."""
    for i in range(NUM_ISLANDS):
        for c in range(NUM_CIVS):
            if s.display[b, i, c] > 0 and supply(s, b, p, c) >= 1:
                return True
    return False


@kernel
def fill_mask(s, b, row):
    """Set the legal actions of the actor of live row b in row (A,) bool, cleared by the caller."""
    p = s.to_play[b]
    dec = s.decision[b]
    if dec == DEC_PICK:
        for c in range(NUM_CIVS):
            if supply(s, b, p, c) < 1:
                continue
            for d in range(NUM_DISTRICTS):
                if in_play(s, d) and s.display[b, DISTRICT_ISLAND[d], c] > 0:
                    row[ACTION_PLACE + NUM_DISTRICTS * c + d] = True
    elif dec == DEC_BUILD:
        _build_mask(s, b, p, row)
        row[ACTION_END] = True
    elif dec == DEC_WONDER:
        i = s.wonder_island[b]
        c = s.wonder_civ[b]
        if i >= 0 and c >= 0:
            for d in range(ISLAND_FIRST[i], ISLAND_FIRST[i + 1]):
                row[ACTION_SELECT + d] = s.princes[b, p, c, d] > 0
    elif dec == DEC_DISCARD:
        for c in range(NUM_CIVS):
            row[ACTION_DISCARD + c] = s.hand[b, p, c] > 0
    elif dec == DEC_TURN:
        for c in range(NUM_CIVS):
            _card_mask(s, b, p, c, s.hand[b, p, c], row)
        if s.privileges[b, p] >= 1:
            for j in range(PRIVILEGE_SRC.shape[0]):
                row[ACTION_PRIVILEGE + j] = can_convert(s, b, p, PRIVILEGE_SRC[j], PRIVILEGE_DST[j])
        _build_mask(s, b, p, row)
        row[ACTION_END] = True
    elif dec == DEC_CONVERT:
        t = s.convert_to[b]
        if t >= 0:
            _card_mask(s, b, p, t, s.hand[b, p, t] + 1, row)


@kernel
def _forced_action(s, b, actor_mask):
    """The single legal action of row b if there is exactly one, else -1.

    It runs after every decision, so the common cases use the legality predicates directly instead of a
    full mask (1,904 entries): a pick always offers every district of the guest's island (5 or more),
    END is always legal in a build window and a turn, so those are forced only when nothing else is
    (any_build, any_card_action, can_convert: the same predicates fill_mask uses). The rare privilege
    conversion fills the mask and counts."""
    p = s.to_play[b]
    dec = s.decision[b]
    if dec == DEC_PICK:
        return -1
    if dec == DEC_BUILD:
        return -1 if any_build(s, b, p) else ACTION_END
    if dec == DEC_TURN:
        for c in range(NUM_CIVS):
            if any_card_action(s, b, p, c, s.hand[b, p, c]):
                return -1
        if s.privileges[b, p] >= 1:
            for j in range(PRIVILEGE_SRC.shape[0]):
                if can_convert(s, b, p, PRIVILEGE_SRC[j], PRIVILEGE_DST[j]):
                    return -1
        return -1 if any_build(s, b, p) else ACTION_END
    if dec == DEC_DISCARD:
        only = -1
        for c in range(NUM_CIVS):
            if s.hand[b, p, c] > 0:
                if only >= 0:
                    return -1
                only = ACTION_DISCARD + c
        return only
    actor_mask[:] = False
    fill_mask(s, b, actor_mask)
    only = -1
    for a in range(NUM_ACTIONS):
        if actor_mask[a]:
            if only >= 0:
                return -1
            only = a
    return only


# --- automatic steps ----------------------------------------------------------------------------------------

@kernel
def _draw_guests(s, b, u, col):
    """Draw 3 guests per player from the bag onto the displays of their islands. Every guest is back in
    the bag at this moment (all return at the end of Phase 1), so the bag holds GUESTS_PER_KIND of each
    (island, civilization) of the islands in play."""
    P = s.score.shape[1]
    for i in range(NUM_ISLANDS):
        for c in range(NUM_CIVS):
            s.display[b, i, c] = 0
    left = 0
    for i in range(NUM_ISLANDS):
        if ISLAND_IN_PLAY[P, i]:
            left += GUESTS_PER_KIND * NUM_CIVS
    for j in range(PICK_PASSES * P):
        k = uniform_index(uniform_at(u, b, col + U_STEP_GUESTS + j), left)
        for i in range(NUM_ISLANDS):
            if not ISLAND_IN_PLAY[P, i]:
                continue
            for c in range(NUM_CIVS):
                n = GUESTS_PER_KIND - s.display[b, i, c]
                if k >= 0 and k < n:
                    s.display[b, i, c] += 1
                k -= n
        left -= 1


@kernel
def _draw_card(s, b, x):
    """One card from the draw pile to nobody yet: its civilization, drawn from the pile's composition
    with uniform x. An empty pile is replaced by the shuffled discards first; -1 if both are empty."""
    total = 0
    for c in range(NUM_CIVS):
        total += s.pile[b, c]
    if total == 0:
        for c in range(NUM_CIVS):
            s.pile[b, c] = s.discard[b, c]
            s.discard[b, c] = 0
            total += s.pile[b, c]
        if total == 0:
            return -1
    k = uniform_index(x, total)
    for c in range(NUM_CIVS):
        if k < s.pile[b, c]:
            s.pile[b, c] -= 1
            return c
        k -= s.pile[b, c]
    return -1


@kernel
def _begin_round(s, b, u, col, work):
    s.phase[b] = 0
    s.pick_pass[b] = 0
    for p in range(s.score.shape[1]):
        s.acted[b, p] = False
    _draw_guests(s, b, u, col)
    s.decision[b] = -1


@kernel
def _next_pick(s, b, u, col, work):
    """Hand Phase 1 to the next picker: the best-ranked player who has not picked in this pass. A player
    without a legal guest is skipped, but his build window is still offered if he can build. After the
    third pass every guest goes back to the bag and Phase 2 begins."""
    P = s.score.shape[1]
    while True:
        p = _best_unacted(s, b)
        if p < 0:
            if s.pick_pass[b] == PICK_PASSES - 1:
                _begin_development(s, b, u, col, work)
                return
            s.pick_pass[b] += 1
            for q in range(P):
                s.acted[b, q] = False
            continue
        first = s.pick_pass[b] == 0
        for q in range(P):
            if s.acted[b, q]:
                first = False
        if first:
            s.start_player[b] = p
        s.acted[b, p] = True
        s.to_play[b] = p
        if has_pick(s, b, p):
            s.decision[b] = DEC_PICK
            return
        if any_build(s, b, p):
            s.decision[b] = DEC_BUILD
            return


@kernel
def _begin_development(s, b, u, col, work):
    """Phase 2: guests back to the bag, 5 cards to each player in ranking order, rank discards owed
    (leader 2, last player 0, the others 1), then the discards in ranking order and the turns."""
    P = s.score.shape[1]
    for i in range(NUM_ISLANDS):
        for c in range(NUM_CIVS):
            s.display[b, i, c] = 0
    s.phase[b] = 1
    for p in range(P):
        s.acted[b, p] = False
    rank_order(s, b, work[W_ORDER:])
    for k in range(P):
        p = work[W_ORDER + k]
        for j in range(CARDS_DEALT):
            c = _draw_card(s, b, uniform_at(u, b, col + U_STEP_DEAL + CARDS_DEALT * k + j))
            if c >= 0:
                s.hand[b, p, c] += 1
                s.hand_size[b, p] += 1
    for k in range(P):
        p = work[W_ORDER + k]
        s.owed[b, p] = min(RANK_DISCARDS[P, k], s.hand_size[b, p])
    s.decision[b] = -1


@kernel
def _next_in_development(s, b, u, col, work):
    """The best-ranked player still owing discards decides; otherwise the next turn begins; after the
    last turn, Phase 3 and the end of the round."""
    best = -1
    for p in range(s.score.shape[1]):
        if s.owed[b, p] > 0 and (best < 0 or ahead(s, b, p, best)):
            best = p
    if best >= 0:
        s.to_play[b] = best
        s.decision[b] = DEC_DISCARD
        return
    p = _best_unacted(s, b)
    if p >= 0:
        s.acted[b, p] = True
        s.to_play[b] = p
        s.decision[b] = DEC_TURN
        return
    _prestige_and_round_end(s, b, u, col, work)


@kernel
def _settle(s, b, u, col, work):
    """Run the automatic steps until somebody has a decision (decision -1 = "find the next actor")."""
    while not s.done[b] and s.decision[b] < 0:
        if s.phase[b] == 0:
            _next_pick(s, b, u, col, work)
        else:
            _next_in_development(s, b, u, col, work)


@kernel
def _prestige_and_round_end(s, b, u, col, work):
    """Phase 3 in the ranking order fixed at its start (each player one score move), then the end of
    the game if somebody has 50, the safety cap after round 40, or the next round."""
    P = s.score.shape[1]
    s.phase[b] = 2
    rank_order(s, b, work[W_ORDER:])
    top = 0
    for k in range(P):
        p = work[W_ORDER + k]
        _gain(s, b, p, prestige_of(s, b, p), GAIN_PRESTIGE)
    for p in range(P):
        top = max(top, s.score[b, p])
    if top >= END_SCORE or s.round[b] >= MAX_ROUNDS:
        s.done[b] = True
        s.truncated[b] = top < END_SCORE
        s.decision[b] = DEC_GAME_OVER
        for p in range(P):
            s.acted[b, p] = False
        return
    s.round[b] += 1
    # start-space rule: the previous round's first player, still on 0, moves behind everybody on 0
    first = s.start_player[b]
    if s.score[b, first] == 0:
        s.stamp[b, first] = s.stamp_counter[b]
        s.stamp_counter[b] += 1
    _begin_round(s, b, u, col, work)


# --- actions --------------------------------------------------------------------------------------------

@kernel
def _after_build(s, b):
    """Back to the build window or the turn the build was made in."""
    s.decision[b] = DEC_BUILD if s.phase[b] == 0 else DEC_TURN


@kernel
def _wonder_removals(s, b, p, i, c0):
    """Remove one of p's princes of every civilization from c0 on from island i: automatically where
    they stand in one district, by p's choice (decision WONDER) where they stand in several."""
    for c in range(c0, NUM_CIVS):
        n = 0
        where = -1
        for d in range(ISLAND_FIRST[i], ISLAND_FIRST[i + 1]):
            if s.princes[b, p, c, d] > 0:
                n += 1
                where = d
        if n >= 2:
            s.wonder_island[b] = i
            s.wonder_civ[b] = c
            s.decision[b] = DEC_WONDER
            return
        if where >= 0:
            s.princes[b, p, c, where] -= 1
    s.wonder_island[b] = -1
    s.wonder_civ[b] = -1
    _after_build(s, b)


@kernel
def _pay(s, b, p, c, n):
    """Pay n cards of civilization c; a pending converted card is one of them (it goes face up as the
    civilization it really is)."""
    if s.decision[b] == DEC_CONVERT:
        s.discard[b, s.convert_from[b]] += 1
        s.convert_from[b] = -1
        s.convert_to[b] = -1
        s.decision[b] = DEC_TURN
        n -= 1
    s.hand[b, p, c] -= n
    s.hand_size[b, p] -= n
    s.discard[b, c] += n


@kernel(inline="always")
def _move_princes(s, b, p, ck, edges, e):
    """LAND_MOVE / SEA_MOVE: pay one card of civilization c and move k1 + 1 of p's princes of c from the first
    district of edges[e] to the second (ck = 2 c + k1)."""
    c, k1 = divmod(ck, 2)
    _pay(s, b, p, c, 1)
    s.princes[b, p, c, edges[e, 0]] -= k1 + 1
    s.princes[b, p, c, edges[e, 1]] += k1 + 1


@kernel
def _apply_action(s, b, a, u, col, work):
    p = s.to_play[b]
    if a < ACTION_MONUMENT:  # PLACE_GUEST
        c, d = divmod(a - ACTION_PLACE, NUM_DISTRICTS)
        s.display[b, DISTRICT_ISLAND[d], c] -= 1
        s.princes[b, p, c, d] += 1
        s.decision[b] = DEC_BUILD if any_build(s, b, p) else -1
    elif a < ACTION_WONDER:  # BUILD_MONUMENT: no points now; the wonder's owner gains the printed value
        c, d = divmod(a - ACTION_MONUMENT, NUM_DISTRICTS)
        s.princes[b, p, c, d] -= 3
        s.mon_civ[b, d] = c
        s.mon_owner[b, d] = p
        w = s.wonder_owner[b, DISTRICT_ISLAND[d]]
        if w >= 0:
            _gain(s, b, w, DISTRICT_VALUE[d], GAIN_BONUS)
    elif a < ACTION_SELECT:  # BUILD_WONDER
        i = a - ACTION_WONDER
        s.wonder_owner[b, i] = p
        _gain(s, b, p, WONDER_VP, GAIN_WONDER)
        _wonder_removals(s, b, p, i, 0)
    elif a < ACTION_LAND:  # SELECT_DISTRICT (wonder removal)
        c = s.wonder_civ[b]
        s.princes[b, p, c, a - ACTION_SELECT] -= 1
        _wonder_removals(s, b, p, s.wonder_island[b], c + 1)
    elif a < ACTION_SEA:  # LAND_MOVE
        ck, e = divmod(a - ACTION_LAND, NUM_LAND_EDGES)
        _move_princes(s, b, p, ck, LAND_EDGES, e)
    elif a < ACTION_ADD:  # SEA_MOVE
        ck, r = divmod(a - ACTION_SEA, NUM_SEA_ROUTES)
        _move_princes(s, b, p, ck, SEA_ROUTES, r)
    elif a < ACTION_REMOVE:  # ADD_PRINCE: the monument's owner gains 1 unless he adds it himself
        c, d = divmod(a - ACTION_ADD, NUM_DISTRICTS)
        _pay(s, b, p, c, 1)
        s.princes[b, p, c, d] += 1
        owner = s.mon_owner[b, d]
        if owner != p:
            _gain(s, b, owner, ADD_VP, GAIN_ADDED)
    elif a < ACTION_RAISE:  # REMOVE_PRINCE
        c, d = divmod(a - ACTION_REMOVE, NUM_DISTRICTS)
        _pay(s, b, p, c, 1)
        s.princes[b, p, c, d] -= 1
        _gain(s, b, p, REMOVE_VP, GAIN_REMOVE)
    elif a < ACTION_DROP:  # RAISE: swap places with the civilization directly above
        c = a - ACTION_RAISE
        _pay(s, b, p, c, 1)
        v = s.scale[b, c]
        for o in range(NUM_CIVS):
            if s.scale[b, o] == v + 1:
                s.scale[b, o] = v
        s.scale[b, c] = v + 1
    elif a < ACTION_SPECIAL:  # DROP: to 1, everything below moves up one
        c = a - ACTION_DROP
        _pay(s, b, p, c, COST_DROP)
        v = s.scale[b, c]
        for o in range(NUM_CIVS):
            if s.scale[b, o] < v:
                s.scale[b, o] += 1
        s.scale[b, c] = 1
    elif a < ACTION_PRIVILEGE:  # SPECIAL_GUEST
        c, d = divmod(a - ACTION_SPECIAL, NUM_DISTRICTS)
        _pay(s, b, p, c, COST_SPECIAL)
        s.princes[b, p, c, d] += 1
    elif a < ACTION_DISCARD:  # PRIVILEGE: the card leaves the hand and counts as the target civilization
        j = a - ACTION_PRIVILEGE
        src = PRIVILEGE_SRC[j]
        s.privileges[b, p] -= 1
        s.hand[b, p, src] -= 1
        s.hand_size[b, p] -= 1
        s.convert_from[b] = src
        s.convert_to[b] = PRIVILEGE_DST[j]
        s.decision[b] = DEC_CONVERT
    elif a < ACTION_END:  # DISCARD
        c = a - ACTION_DISCARD
        s.hand[b, p, c] -= 1
        s.hand_size[b, p] -= 1
        s.discard[b, c] += 1
        s.owed[b, p] -= 1
        if s.owed[b, p] == 0:
            s.decision[b] = -1
    else:  # END of a build window or of a turn (then the hand limit)
        if s.decision[b] == DEC_TURN and s.hand_size[b, p] > HAND_LIMIT:
            s.owed[b, p] = s.hand_size[b, p] - HAND_LIMIT
            s.decision[b] = DEC_DISCARD
        else:
            s.decision[b] = -1
    _settle(s, b, u, col, work)


@kernel
def _advance(s, b, u, col, auto_forced, work, actor_mask):
    """Apply single-legal-action decisions while auto_forced."""
    while auto_forced and not s.done[b]:
        a = _forced_action(s, b, actor_mask)
        if a < 0:
            return
        _apply_action(s, b, a, u, col, work)


# --- row functions (the batch entry points are generated from them: envs/codegen.py) -----------------------

@kernel
def init_row(s, b, u, auto_forced, work, actor_mask):
    """Fill row b of an empty state from u (B, UNIFORMS_AT_INIT); see data.U_INIT_* for the column layout."""
    P = s.score.shape[1]
    for c in range(NUM_CIVS):  # the prestige scale in a random order
        work[W_LIST + c] = c + 1
    shuffle_prefix(work, W_LIST, NUM_CIVS, NUM_CIVS - 1, u, b, U_INIT_SCALE)
    for c in range(NUM_CIVS):
        s.scale[b, c] = work[W_LIST + c]
        s.pile[b, c] = CARDS_PER_CIV
        s.discard[b, c] = 0
    first = uniform_index(u[b, U_INIT_FIRST], P)
    for k in range(P):  # everybody on 0, stacked in seating order from the first player
        p = (first + k) % P
        s.stamp[b, p] = k
        s.score[b, p] = 0
        s.privileges[b, p] = PRIVILEGES
        s.hand_size[b, p] = 0
        s.owed[b, p] = 0
        for g in range(NUM_GAIN_KINDS):
            s.gains[b, p, g] = 0
        for c in range(NUM_CIVS):
            s.hand[b, p, c] = 0
            for d in range(NUM_DISTRICTS):
                s.princes[b, p, c, d] = 0
    s.stamp_counter[b] = P
    for d in range(NUM_DISTRICTS):
        s.mon_civ[b, d] = -1
        s.mon_owner[b, d] = -1
    for i in range(NUM_ISLANDS):
        s.wonder_owner[b, i] = -1
    s.wonder_island[b] = -1
    s.wonder_civ[b] = -1
    s.convert_from[b] = -1
    s.convert_to[b] = -1
    s.done[b] = False
    s.truncated[b] = False
    s.round[b] = 1
    s.start_player[b] = first
    _begin_round(s, b, u, U_INIT_STEP, work)
    _settle(s, b, u, U_INIT_STEP, work)
    _advance(s, b, u, U_INIT_STEP, auto_forced, work, actor_mask)


@kernel
def apply_row(s, b, a, u, auto_forced, work, actor_mask):
    """Apply legal action a to live row b, then the forced moves."""
    _apply_action(s, b, a, u, 0, work)
    _advance(s, b, u, 0, auto_forced, work, actor_mask)


@kernel
def advance_row(s, b, u, auto_forced, work, actor_mask):
    """Recompute the public hand sizes, then apply the forced moves (hand-built positions)."""
    for p in range(s.score.shape[1]):
        n = 0
        for c in range(NUM_CIVS):
            n += s.hand[b, p, c]
        s.hand_size[b, p] = n
    if not s.done[b]:
        _advance(s, b, u, 0, auto_forced, work, actor_mask)


@kernel(inline="always")
def score_of(s, b, p):
    """The score track (final once done)."""
    return s.score[b, p]


@kernel
def observe_row(s, b, me, own_hand, pile_size, unseen):
    """Seat me's own hand, the draw-pile size and the cards me cannot see per civilization in row b
    (everything that is neither in his hand, nor face up, nor his pending converted card)."""
    n = 0
    for c in range(NUM_CIVS):
        own_hand[b, c] = s.hand[b, me, c]
        n += s.pile[b, c]
        unseen[b, c] = CARDS_PER_CIV - s.hand[b, me, c] - s.discard[b, c] - (1 if s.convert_from[b] == c else 0)
    pile_size[b] = n


@kernel
def _deal_unseen(s, b, me, work, stream):
    """Shuffle the cards `me` cannot see and hand them out again: the other hands keep their sizes, the
    draw pile its size."""
    P = s.score.shape[1]
    n = 0
    for c in range(NUM_CIVS):
        k = CARDS_PER_CIV - s.hand[b, me, c] - s.discard[b, c] - (1 if s.convert_from[b] == c else 0)
        n = append_copies(work, W_LIST, n, c, k)
    shuffle_stream(work, W_LIST, n, stream)
    i = 0
    for q in range(P):
        if q == me:
            continue
        for c in range(NUM_CIVS):
            s.hand[b, q, c] = 0
        i = tally_items(s.hand[b, q], work, W_LIST, i, s.hand_size[b, q])
    for c in range(NUM_CIVS):
        s.pile[b, c] = 0
    tally_items(s.pile[b], work, W_LIST, i, n - i)


@kernel
def determinize_row(s, b, me, seed, work, stream):
    """Resample every card seat me cannot see in row b (the other hands and the draw pile), keeping every
    count me knows. Another player's pending privilege conversion must stay usable: worlds in which it
    is not are drawn again (after 32 tries the true cards are kept)."""
    P = s.score.shape[1]
    stream[0] = np.uint64(seed)
    k = 0
    for q in range(P):
        for c in range(NUM_CIVS):
            work[W_SAVE + k] = s.hand[b, q, c]
            k += 1
    for c in range(NUM_CIVS):
        work[W_SAVE + k + c] = s.pile[b, c]
    actor = s.to_play[b]
    check = not s.done[b] and s.decision[b] == DEC_CONVERT and actor != me and s.convert_to[b] >= 0
    ok = False
    for _ in range(32):
        _deal_unseen(s, b, me, work, stream)
        t = s.convert_to[b]
        if not check or any_card_action(s, b, actor, t, s.hand[b, actor, t] + 1):
            ok = True
            break
    if not ok:
        k = 0
        for q in range(P):
            for c in range(NUM_CIVS):
                s.hand[b, q, c] = work[W_SAVE + k]
                k += 1
        for c in range(NUM_CIVS):
            s.pile[b, c] = work[W_SAVE + k + c]
