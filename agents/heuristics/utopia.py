"""A hand-written Utopia player: greedy one-decision lookahead on a points scale, from its own View only.

The player never sees the State: `Heuristic.act` builds `game.observe(state, state.to_play)` (the
public board plus its own hand and the counts of the cards it cannot see) and the kernel reads only
that View and the legal-action mask, so determinizing the hidden cards never changes its choice.

Every legal action gets a value in points, and the best one is played:

- **the board potential**: own princes of one civilization in a district that can still take a
  monument are worth `stack_1`, `stack_2`, `stack_3` (+ `stack_scale` x the civilization's value on
  the scale) for 1, 2 and 3+ princes, so picks and moves gather toward monuments that can be
  completed; on every island without a wonder the number m of own civilizations present is worth
  `wonder_weight` x m^2, so picks and moves collect the five civilizations of a wonder. A pick, move
  or special guest is worth its change of the potential.
- **builds** come first (`build_value`; monuments by the civilization's value): a monument takes
  control for the rest of the game and a wonder pays 6 at once, so both are built as soon as they can
  be (a wonder before the monuments on its island would pay its owner nothing for them).
- **cards**: removing an own prince from a monument is worth its 2 points; adding one to an own
  monument is worth a later removal; adding to an opponent's gives him a point; raising or dropping a
  civilization is worth the change of what the monuments pay per round (own gain minus
  `opponent_weight` x the opponents' average), times `rounds_weight`. Each card paid costs
  `card_cost` unless the hand limit would discard it anyway (cards beyond 5 at the end of the turn
  are free to spend). A privilege token is worth spending when the best action it enables beats
  `privilege_cost`.
- **discards** drop the civilization whose cards are worth least (few own princes and monuments of
  it, low on the scale, many of it in hand); a wonder's removal takes the prince whose loss breaks
  the fewest stacks.

All weights live in `DEFAULT_PARAMS` (`Heuristic(card_cost=1.5)` overrides one); they are hand-set.
The kernel falls back to a random legal action (and flags the row) if its choice is ever illegal; the
tests check that it never is.
"""

from __future__ import annotations


import numpy as np

from meeple.agents.heuristics import TunedHeuristic
from meeple.envs.base import Field
from meeple.envs.jit import best_legal, kernel
from meeple.envs.utopia import kernels as K
from meeple.envs.utopia.data import (
    ACTION_ADD, ACTION_DISCARD, ACTION_DROP, ACTION_END, ACTION_LAND, ACTION_MONUMENT, ACTION_PLACE,
    ACTION_PRIVILEGE, ACTION_RAISE, ACTION_REMOVE, ACTION_SEA, ACTION_SELECT, ACTION_SPECIAL, ACTION_WONDER,
    COST_DROP, COST_SPECIAL, DISTRICT_ISLAND, HAND_LIMIT, ISLAND_FIRST, ISLAND_IN_PLAY,
    LAND_EDGES, MONUMENTS_PER_CIV, NUM_ACTIONS, NUM_CIVS, NUM_DISTRICTS, NUM_ISLANDS, NUM_LAND_EDGES, NUM_SEA_ROUTES,
    PRIVILEGE_DST, REMOVE_VP, SEA_ROUTES,
)
from meeple.envs.utopia.state import View

PARAM_NAMES = (
    "stack_1",          # one own prince of a civilization in a district that can take a monument
    "stack_2",          # two
    "stack_3",          # three or more (a monument ready to build)
    "stack_scale",      # extra per point of the civilization's value, for 3+
    "wonder_weight",    # x m^2 for m own civilizations on an island without a wonder
    "build_value",      # a build beats every other action
    "card_cost",        # a card kept for later rounds
    "rounds_weight",    # rounds over which a change of the scale is expected to pay
    "opponent_weight",  # weight of the opponents' average gain from a scale change
    "privilege_cost",   # a privilege token
    "fodder",           # an own prince on an own monument of its civilization (a later removal)
)
DEFAULT_PARAMS = np.array([0.8, 3.0, 9.0, 0.6, 0.35, 100.0, 1.0, 1.5, 0.6, 1.5, 0.8], dtype=np.float64)
(_STACK_1, _STACK_2, _STACK_3, _STACK_SCALE, _WONDER_WEIGHT, _BUILD_VALUE, _CARD_COST, _ROUNDS_WEIGHT,
 _OPPONENT_WEIGHT, _PRIVILEGE_COST, _FODDER) = range(len(PARAM_NAMES))
assert DEFAULT_PARAMS.shape == (len(PARAM_NAMES),)

SCRATCH = (
    Field("values", (NUM_ACTIONS,), np.float64, doc="value of each legal action (best_legal)"),
    Field("sub", (NUM_ACTIONS,), np.bool_, doc="the actions a privilege conversion would make legal"),
    Field("scale", (NUM_CIVS,), np.int64, doc="a prestige scale after a raise or drop"),
    Field("card_net", (NUM_ACTIONS,), np.float64,
          doc="each card action's value less its payment, worked out once per decision (NaN: not yet)"),
)


@kernel
def _stack(v, b, p, c, d, n, w):
    """Potential of n own princes of civilization c in district d."""
    if n <= 0 or v.mon_civ[b, d] >= 0 or K.monuments_built(v, b, c) >= MONUMENTS_PER_CIV:
        if v.mon_civ[b, d] == c and v.mon_owner[b, d] == p and n > 0:
            return w[_FODDER]
        return 0.0
    if n == 1:
        return w[_STACK_1]
    if n == 2:
        return w[_STACK_2]
    return w[_STACK_3] + w[_STACK_SCALE] * v.scale[b, c]


@kernel
def _island_civs(v, b, p, i, c, d1, n1, d2, n2):
    """Own civilizations on island i after n1 princes of c are added at d1 and n2 at d2."""
    m = 0
    for cc in range(NUM_CIVS):
        n = 0
        for d in range(ISLAND_FIRST[i], ISLAND_FIRST[i + 1]):
            n += v.princes[b, p, cc, d]
            if cc == c:
                if d == d1:
                    n += n1
                if d == d2:
                    n += n2
        if n > 0:
            m += 1
    return m


@kernel
def _change(v, b, p, c, d1, n1, d2, n2, w):
    """Change of the board potential when n1 princes of c are added at d1 and n2 at d2 (negative: taken)."""
    val = 0.0
    a1 = v.princes[b, p, c, d1]
    val += _stack(v, b, p, c, d1, a1 + n1, w) - _stack(v, b, p, c, d1, a1, w)
    if d2 >= 0:
        a2 = v.princes[b, p, c, d2]
        val += _stack(v, b, p, c, d2, a2 + n2, w) - _stack(v, b, p, c, d2, a2, w)
    P = v.score.shape[1]
    for i in range(NUM_ISLANDS):
        if not ISLAND_IN_PLAY[P, i] or v.wonder_owner[b, i] >= 0:
            continue
        if DISTRICT_ISLAND[d1] != i and (d2 < 0 or DISTRICT_ISLAND[d2] != i):
            continue
        before = _island_civs(v, b, p, i, c, d1, 0, d2, 0)
        after = _island_civs(v, b, p, i, c, d1, n1, d2, n2)
        val += w[_WONDER_WEIGHT] * (after * after - before * before)
    return val


@kernel
def _prestige_with(v, b, q, scale):
    n = 0
    for d in range(NUM_DISTRICTS):
        if v.mon_owner[b, d] == q:
            n += scale[v.mon_civ[b, d]]
    return n


@kernel
def _scale_value(v, b, p, scale, w):
    """Points per round the new scale is worth to p: own gain minus the opponents' average gain."""
    P = v.score.shape[1]
    mine = 0.0
    others = 0.0
    for q in range(P):
        delta = _prestige_with(v, b, q, scale) - K.prestige_of(v, b, q)
        if q == p:
            mine += delta
        else:
            others += delta
    return w[_ROUNDS_WEIGHT] * (mine - w[_OPPONENT_WEIGHT] * others / (P - 1))


@kernel
def _card_value(v, b, p, a, w, scale):
    """The value of card action a, before its payment."""
    if a < ACTION_SEA:
        ck, e = divmod(a - ACTION_LAND, NUM_LAND_EDGES)
        c, k1 = divmod(ck, 2)
        return _change(v, b, p, c, LAND_EDGES[e, 0], -(k1 + 1), LAND_EDGES[e, 1], k1 + 1, w)
    if a < ACTION_ADD:
        ck, r = divmod(a - ACTION_SEA, NUM_SEA_ROUTES)
        c, k1 = divmod(ck, 2)
        return _change(v, b, p, c, SEA_ROUTES[r, 0], -(k1 + 1), SEA_ROUTES[r, 1], k1 + 1, w)
    if a < ACTION_REMOVE:
        c, d = divmod(a - ACTION_ADD, NUM_DISTRICTS)
        if v.mon_owner[b, d] == p:
            return w[_FODDER]
        return -1.0
    if a < ACTION_RAISE:
        c, d = divmod(a - ACTION_REMOVE, NUM_DISTRICTS)
        return REMOVE_VP + _change(v, b, p, c, d, -1, -1, 0, w)
    if a < ACTION_DROP:
        c = a - ACTION_RAISE
        for o in range(NUM_CIVS):
            scale[o] = v.scale[b, o]
            if v.scale[b, o] == v.scale[b, c] + 1:
                scale[o] = v.scale[b, c]
        scale[c] = v.scale[b, c] + 1
        return _scale_value(v, b, p, scale, w)
    if a < ACTION_SPECIAL:
        c = a - ACTION_DROP
        for o in range(NUM_CIVS):
            scale[o] = v.scale[b, o] + (1 if v.scale[b, o] < v.scale[b, c] else 0)
        scale[c] = 1
        return _scale_value(v, b, p, scale, w)
    c, d = divmod(a - ACTION_SPECIAL, NUM_DISTRICTS)
    return _change(v, b, p, c, d, 1, -1, 0, w)


@kernel(inline="always")
def _card_civ_cost(a):
    """(civilization, cards) an action of the card blocks is paid with."""
    if a < ACTION_SEA:
        return (a - ACTION_LAND) // (2 * NUM_LAND_EDGES), 1
    if a < ACTION_ADD:
        return (a - ACTION_SEA) // (2 * NUM_SEA_ROUTES), 1
    if a < ACTION_REMOVE:
        return (a - ACTION_ADD) // NUM_DISTRICTS, 1
    if a < ACTION_RAISE:
        return (a - ACTION_REMOVE) // NUM_DISTRICTS, 1
    if a < ACTION_DROP:
        return a - ACTION_RAISE, 1
    if a < ACTION_SPECIAL:
        return a - ACTION_DROP, COST_DROP
    return (a - ACTION_SPECIAL) // NUM_DISTRICTS, COST_SPECIAL


@kernel(inline="always")
def _payment_cost(held, n, w):
    """Cards kept for later rounds that paying n of `held` cards loses (beyond 5 they are discarded anyway)."""
    before = min(held, HAND_LIMIT)
    after = min(max(held - n, 0), HAND_LIMIT)
    return w[_CARD_COST] * (before - after)


@kernel
def _keep_value(v, b, p, c, w):
    """How much p wants to keep a card of civilization c (discards drop the lowest)."""
    val = 0.2 * v.scale[b, c] - 0.3 * v.own_hand[b, c]
    for d in range(NUM_DISTRICTS):
        n = v.princes[b, p, c, d]
        if n > 0:
            val += 0.2
            if v.mon_civ[b, d] == c:
                val += 1.0
    return val


@kernel
def _card_net(v, b, p, a, w, scale, held, card_net):
    """Card action a's value less its payment. Every privilege conversion weighs most of the same card
    actions again, so each is worked out once per decision (card_net[a] NaN until then)."""
    if np.isnan(card_net[a]):
        _, n = _card_civ_cost(a)
        card_net[a] = _card_value(v, b, p, a, w, scale) - _payment_cost(held, n, w)
    return card_net[a]


@kernel
def _row_values(v, b, mask_row, w, values, sub, scale, card_net):
    p = v.to_play[b]
    held = v.hand_size[b, p]
    if v.convert_from[b] >= 0:
        held += 1
    card_net[ACTION_LAND:ACTION_PRIVILEGE] = np.nan
    for a in range(NUM_ACTIONS):
        if not mask_row[a]:
            continue
        if a < ACTION_MONUMENT:
            c, d = divmod(a - ACTION_PLACE, NUM_DISTRICTS)
            values[a] = _change(v, b, p, c, d, 1, -1, 0, w) + 0.05 * v.scale[b, c]
        elif a < ACTION_WONDER:
            c = (a - ACTION_MONUMENT) // NUM_DISTRICTS
            values[a] = w[_BUILD_VALUE] + v.scale[b, c]
        elif a < ACTION_SELECT:
            values[a] = w[_BUILD_VALUE] + 10.0
        elif a < ACTION_LAND:
            d = a - ACTION_SELECT
            n = v.princes[b, p, v.wonder_civ[b], d]
            values[a] = -_stack(v, b, p, v.wonder_civ[b], d, n, w) + _stack(v, b, p, v.wonder_civ[b], d, n - 1, w)
        elif a < ACTION_PRIVILEGE:
            values[a] = _card_net(v, b, p, a, w, scale, held, card_net)
        elif a < ACTION_DISCARD:
            t = PRIVILEGE_DST[a - ACTION_PRIVILEGE]
            for x in range(NUM_ACTIONS):
                sub[x] = False
            K._card_mask(v, b, p, t, v.own_hand[b, t] + 1, sub)
            best = -1e9
            for x in range(ACTION_LAND, ACTION_PRIVILEGE):
                if sub[x]:
                    best = max(best, _card_net(v, b, p, x, w, scale, held, card_net))
            values[a] = best - w[_PRIVILEGE_COST]
        elif a < ACTION_END:
            values[a] = -_keep_value(v, b, p, a - ACTION_DISCARD, w)
        else:
            values[a] = 0.0


@kernel
def heuristic_actions_nb(mask, out, params, values, sub, scale, card_net, *fields):
    """The `TunedHeuristic.KERNEL`: out[b] = the action in each live row b, from its View."""
    v = View(*fields)
    for b in range(mask.shape[0]):
        if v.done[b]:
            continue
        _row_values(v, b, mask[b], params, values, sub, scale, card_net)
        out[b] = best_legal(mask[b], values)


class Heuristic(TunedHeuristic):
    """The hand-written Utopia player (strategy in the module docstring); it reads only the acting
    seat's View."""

    DEFAULT_PARAMS = DEFAULT_PARAMS
    PARAM_NAMES = PARAM_NAMES
    SCRATCH = SCRATCH
    KERNEL = heuristic_actions_nb
