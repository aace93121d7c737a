"""Attika's legal-action masks against a plain-Python reading of the building and map rules.

The kernels decide "where may this building go" from packed symbol counts, quick accepts and rejects and
early exits (envs/attika/kernels.py, `_selectable` and `_count_sites`). This test recomputes every such
decision the slow, obvious way from the public state of random positions, independently of those
helpers, and asks for exactly the same masks:

* a field takes building t iff it is empty and either an own building of t's predecessor stands next to
  it (free), or the hand pays the cost: each cost symbol cancelled by a matching symbol on the field or a
  neighbouring field without a building (a road: 5 any cards less one per symbol), one any card per own
  settlement if no own building is next to the field, and every missing specific card replaced by two
  cards of any kind;
* START / BUILD_MODE offer SELECT t for every display type some field takes (while an action is left);
* CHOOSE_FIELD / PENDING_REVEAL offer exactly the fields that take the pending building;
* PLACE_TILE offers every centre whose 7 hexes are inside the window and uncovered and touch the map.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs.attika import data as D
from meeple.envs.attika.rules import Attika

NEIGHBOURS = D.NEIGHBOURS.astype(np.int64)
FLOWER = D.FLOWER.astype(np.int64)


def symbols_around(s, b: int, h: int) -> np.ndarray:
    """Symbols W, F, H, M on field h and on its neighbouring fields that hold no building."""
    out = np.zeros(D.NUM_LANDSCAPES, dtype=np.int64)
    for x in [h, *NEIGHBOURS[h]]:
        if x < 0 or (x != h and s.owner[b, x] >= 0):
            continue
        land = int(s.land[b, x])
        if D.LAND_SYMBOL <= land < D.LAND_SHRINE:
            out[land - D.LAND_SYMBOL] += 1
    return out


def takes(s, b: int, p: int, t: int, h: int) -> bool:
    """Field h takes building t for seat p (the rules, read directly)."""
    land = int(s.land[b, h])
    if not D.LAND_BLANK <= land < D.LAND_SHRINE or s.owner[b, h] >= 0:
        return False
    own = [x for x in NEIGHBOURS[h] if x >= 0 and s.owner[b, x] == p]
    if D.PREDECESSOR[t] >= 0 and any(s.building[b, x] == D.PREDECESSOR[t] for x in own):
        return True
    symbols = symbols_around(s, b, h)
    surcharge = 0 if own else int(s.settlements[b, p])
    hand = s.hand[b, p].astype(np.int64)
    if t == D.ROAD:
        specific = np.zeros(D.NUM_LANDSCAPES, dtype=np.int64)
        any_cards = surcharge + max(0, D.ROAD_COST - int(symbols.sum()))
    else:
        specific = np.maximum(0, D.COST[t].astype(np.int64) - symbols)
        any_cards = surcharge
    missing = np.maximum(0, specific - hand).sum()
    return int(hand.sum()) >= int(specific.sum() + missing + any_cards)


def centre_ok(s, b: int, h: int) -> bool:
    flower = FLOWER[h]
    if not D.SLOT_VALID[h] or (flower < 0).any() or (s.land[b, flower] != D.LAND_NONE).any():
        return False
    ring = {int(y) for x in flower for y in NEIGHBOURS[x] if y >= 0} - set(flower.tolist())
    return any(s.land[b, y] != D.LAND_NONE for y in ring)


def reference_targets(s, b: int) -> tuple[set[int], set[int]] | None:
    """(legal SELECT types, legal slots) of row b for the decisions this test covers, else None."""
    p = int(s.to_play[b])
    dec = int(s.decision[b])
    fields = [h for h in range(D.NUM_SLOTS) if D.LAND_BLANK <= s.land[b, h] < D.LAND_SHRINE]
    if dec in (D.DEC_START, D.DEC_BUILD_MODE):
        may_act = dec == D.DEC_START or s.actions_left[b] > 0 or s.amphorae[b, p] > 0
        types = {t for t in range(D.NUM_TYPES)
                 if may_act and s.display[b, p, t] > 0 and any(takes(s, b, p, t, h) for h in fields)}
        return types, set()
    if dec in (D.DEC_CHOOSE_FIELD, D.DEC_PENDING_REVEAL):
        return set(), {h for h in fields if takes(s, b, p, int(s.pending_type[b]), h)}
    if dec == D.DEC_PLACE_TILE:
        return set(), {h for h in range(D.NUM_SLOTS) if centre_ok(s, b, h)}
    return None


@pytest.mark.parametrize("num_players", [2, 4])
def test_masks_equal_the_rules_read_directly(num_players: int) -> None:
    game = Attika(num_players)
    rng = np.random.default_rng(20261126 + num_players)
    state = game.init(rng, 12)
    checked = {D.DEC_START: 0, D.DEC_BUILD_MODE: 0, D.DEC_CHOOSE_FIELD: 0, D.DEC_PENDING_REVEAL: 0,
               D.DEC_PLACE_TILE: 0}
    for _ in range(240):
        mask = game.legal_action_mask(state)
        for b in range(state.done.shape[0]):
            if state.done[b]:
                continue
            ref = reference_targets(state, b)
            if ref is None:
                continue
            types, slots = ref
            got_types = set(np.flatnonzero(mask[b, D.ACTION_SELECT:D.ACTION_SLOT]).tolist())
            got_slots = set(np.flatnonzero(mask[b, D.ACTION_SLOT:D.ACTION_ROTATE]).tolist())
            assert got_types == types and got_slots == slots, (
                f"row {b}, decision {int(state.decision[b])}: types {sorted(got_types ^ types)}, "
                f"slots {sorted(got_slots ^ slots)} differ from the rules")
            checked[int(state.decision[b])] += 1
        if state.done.all():
            break
        state = game.step(state, sample_masked(mask, rng), rng)
    # the random games reached every covered decision many times
    assert min(checked.values()) >= 20, checked


def test_cost_lanes_pay_exactly_what_each_type_test_pays() -> None:
    """`cost_lanes` / `lanes_paid` / `road_paid` (every type of a set tested at a field at once) answer as
    `site_cost_ok` does type by type: every packed symbol count up to 3 of a kind (more never lowers a
    cost further), random hands, type sets and surcharges."""
    from meeple.envs.attika import kernels as K

    assert K.COST_LANES_FIT  # the shipped costs fit the lanes (else the encoder keeps the per-type tests)
    rng = np.random.default_rng(7)
    sigs = [w | f << 3 | h << 6 | m << 9 for w in range(4) for f in range(4) for h in range(4) for m in range(4)]
    sigs += [7 | 7 << 3 | 7 << 6 | 7 << 9, 5 << 3 | 6 << 9]
    for case in range(60):
        hand = [int(x) for x in rng.integers(0, 7 if case % 3 else 3, size=4)]
        types = int(rng.integers(1, 1 << D.NUM_TYPES)) & int(rng.integers(1, 1 << D.NUM_TYPES))
        if case == 0:
            types = (1 << D.NUM_TYPES) - 1  # more types than lanes: the first COST_LANES get one
        lanes, table, complete = K.cost_lanes(np.int64(types), *hand)
        in_lanes = [t for t in range(D.NUM_TYPES) if types >> t & 1 and t != D.ROAD][:K.COST_LANES]
        assert complete == (len([t for t in range(D.NUM_TYPES) if types >> t & 1 and t != D.ROAD]) <= K.COST_LANES)
        assert int(lanes) == sum(8 << (4 * i) for i in range(len(in_lanes)))
        for sig in sigs:
            for g in range(4):
                paid = int(K.lanes_paid(np.int64(sig), np.int64(sum(hand) - g), lanes, table))
                for i, t in enumerate(in_lanes):
                    assert bool(paid >> (4 * i + 3) & 1) == K.site_cost_ok(np.int64(sig), t, *hand, g), (hand, t, sig, g)
                assert K.road_paid(np.int64(sig), sum(hand), g) == K.site_cost_ok(np.int64(sig), D.ROAD, *hand, g)
