"""The chance inside one step of Carpe Diem (`RulesBase.chance_outcomes` / `chance_outcome`).

A step reads its uniforms in two places of kernels.py, and nowhere else:

- the fountain draw (`_fountain_draw`, from `_place` when the tile built has a fountain in its centre;
  columns data.U_STEP_FOUNTAIN): two cards drawn without replacement from the undrawn deck, whose
  composition per kind is FOUNTAIN_COPIES minus every player's held and returned cards (returned cards
  lie under the deck and are never redrawn). Which of the two is card 0 does not matter (both go to the
  hand, then one of hand + draw is returned), so an outcome is the unordered pair of kinds: {a, a} has
  probability c_a (c_a - 1) / (n (n - 1)), {a, b} has 2 c_a c_b / (n (n - 1)). At most 78 outcomes.
- the depot deal (`_deal_depots`, from `_apply_action` when the last start space is chosen, and from
  `_settle` when a scoring round of phases 1-3 ends; columns data.U_STEP_DEAL): min(n, 28) tiles drawn
  in order out of the n tiles of the phase's supply (light tiles for phases 1-3, dark ones for phase 4),
  4 per depot from depot 0 on. The order inside a depot does not matter (a player takes any of its
  tiles), the depot a tile lands in does, so an outcome is the set of tiles of each depot. Every one is
  equally likely: n! / (n - k)! ordered draws, prod(c_d!) of them per outcome (c_d tiles in depot d).
  A real deal is 28 tiles out of 84, 56 or 28, far more outcomes than any practical `limit`.

Nothing else a step does is random: the fountain return, craftsman picks and scoring are decisions or
follow from the state. The two never happen in the same step (a fountain tile is built on a turn, and
the turn after the last scoring turn of a phase begins with a move, never forced), but the outcomes of
one step are the combinations of its events all the same.

An outcome is described in words: "fountain cards drawn: FC03 (...) and FC10 (...)" (kinds in
increasing order) and "phase 2 deal: depot 0 [L05 L17 L33 L60], depot 1 [...], ..." (tile codes in
increasing order inside each depot).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from meeple.envs.base import TooManyOutcomes
from meeple.envs.carpe_diem.data import (
    ACTION_STORE, CENTRE_FOUNTAIN, DEC_PLACE, DEC_START_SPACE, DEPOT_SLOTS, FOUNTAIN_COPIES, LIGHT_PER_PHASE,
    NUM_FOUNTAIN_KINDS, NUM_LIGHT, NUM_PHASES, NUM_SPACES, NUM_TILES, TILE_CENTRE, TILE_NAMES,
)
from meeple.envs.carpe_diem.render import FOUNTAIN_TEXT
from meeple.envs.carpe_diem.state import LOC_DEPOT, LOC_SUPPLY

Outcomes = list[tuple[str, Fraction]]


# --- the fountain draw --------------------------------------------------------------------------------

def fountain_deck(state: Any) -> np.ndarray:
    """(12,) int: the cards of each kind in the drawable deck of row 0, as `_fountain_draw` counts them."""
    held = state.fountain_hand[0].astype(np.int64).sum(axis=0) + state.fountain_returned[0].astype(np.int64).sum(axis=0)
    return FOUNTAIN_COPIES - held


def draws_fountain(state: Any, action: int) -> bool:
    """Whether the action builds (not stores) a tile with a fountain in its centre: a fountain draw."""
    return (int(state.decision[0]) == DEC_PLACE and action != ACTION_STORE
            and int(TILE_CENTRE[int(state.tile_pending[0])]) == CENTRE_FOUNTAIN)


def describe_fountain(kinds: list[int]) -> str:
    a, b = sorted(kinds)
    return f"fountain cards drawn: FC{a:02d} ({FOUNTAIN_TEXT[a]}) and FC{b:02d} ({FOUNTAIN_TEXT[b]})"


def fountain_outcomes(deck: np.ndarray) -> Outcomes:
    """Every unordered pair of kinds two cards drawn without replacement from `deck` can show."""
    n = int(deck.sum())
    if n < 2:
        raise ValueError(f"the fountain deck holds {n} card(s), fewer than a draw takes: not a reachable position")
    out = []
    for a in range(NUM_FOUNTAIN_KINDS):
        for b in range(a, NUM_FOUNTAIN_KINDS):
            ways = int(deck[a]) * (int(deck[a]) - 1) if a == b else 2 * int(deck[a]) * int(deck[b])
            if ways > 0:
                out.append((describe_fountain([a, b]), Fraction(ways, n * (n - 1))))
    return out


def fountain_drawn(before: Any, after: Any) -> list[int]:
    """The kinds drawn between the two states: every card a player holds, returned or is drawing, after
    minus before (a draw is the only thing that adds any; returning one only moves it)."""
    def totals(s: Any) -> np.ndarray:
        drawn = np.bincount(s.fountain_drawn[0][s.fountain_drawn[0] >= 0].astype(np.int64), minlength=NUM_FOUNTAIN_KINDS)
        return (s.fountain_hand[0].astype(np.int64).sum(axis=0) + s.fountain_returned[0].astype(np.int64).sum(axis=0)
                + drawn)
    gain = totals(after) - totals(before)
    return [int(k) for k in np.repeat(np.arange(NUM_FOUNTAIN_KINDS), np.maximum(gain, 0))]


# --- the depot deal -----------------------------------------------------------------------------------

def dealt_phase(game: Any, state: Any, action: int) -> int | None:
    """The phase whose depots the step `state` --action--> deals, None if it deals none.

    Whether a step reaches the deal does not depend on its uniforms (the deal comes last: the next
    decision, a move, is never forced, and nothing random comes before it on that path), so one step
    with any uniforms tells."""
    after = game.apply(state, np.array([action]), np.zeros((1, game.uniforms_per_step)))
    return _deal_in(state, after)


def _deal_in(before: Any, after: Any) -> int | None:
    setup = int(before.decision[0]) == DEC_START_SPACE and int(after.decision[0]) != DEC_START_SPACE
    if setup or int(after.phase[0]) != int(before.phase[0]):
        return int(after.phase[0])
    return None


def deal_supply(state: Any, phase: int) -> list[int]:
    """The tiles the deal of `phase` draws from (increasing ids, like `_deal_depots`): the supply's light
    tiles for phases 0-2, its dark ones for phase 3."""
    lo, hi = (NUM_LIGHT, NUM_TILES) if phase == NUM_PHASES - 1 else (0, NUM_LIGHT)
    return [t for t in range(lo, hi) if int(state.tile_loc[0, t]) == LOC_SUPPLY]


def depot_sizes(k: int) -> list[int]:
    """Tiles per depot when k tiles are dealt: 4 per depot from depot 0 on."""
    return [min(DEPOT_SLOTS, max(0, k - DEPOT_SLOTS * d)) for d in range(NUM_SPACES)]


def deal_count(n: int) -> int:
    """The number of distinct deals (the tile set of each depot) out of a supply of n tiles."""
    k = min(n, LIGHT_PER_PHASE)
    return math.perm(n, k) // math.prod(math.factorial(c) for c in depot_sizes(k))


def describe_deal(phase: int, depots: list[list[int]]) -> str:
    return f"phase {phase + 1} deal: " + ", ".join(
        f"depot {d} [{' '.join(TILE_NAMES[t] for t in sorted(tiles))}]" for d, tiles in enumerate(depots) if tiles)


def deal_outcomes(phase: int, supply: list[int]) -> Outcomes:
    """Every deal out of `supply`, each equally likely (call only when `deal_count` is small)."""
    k = min(len(supply), LIGHT_PER_PHASE)
    p = Fraction(1, deal_count(len(supply)))
    sizes = [c for c in depot_sizes(k) if c]
    out = []

    def fill(left: list[int], depots: list[list[int]]) -> None:
        if len(depots) == len(sizes):
            out.append((describe_deal(phase, depots), p))
            return
        for tiles in itertools.combinations(left, sizes[len(depots)]):
            fill([t for t in left if t not in tiles], depots + [list(tiles)])

    fill(supply, [])
    return out


# --- the API ----------------------------------------------------------------------------------------------

def chance_outcomes(game: Any, state: Any, action: int, limit: int) -> list[tuple[str, float]]:
    """The outcomes of the fountain draw and / or the depot deal the step involves, else []."""
    events: list[tuple[str, int, Any]] = []  # (what, number of outcomes, their list on demand)
    if draws_fountain(state, action):
        deck = fountain_deck(state)
        pairs = fountain_outcomes(deck)
        events.append(("the fountain draw", len(pairs), lambda pairs=pairs: pairs))
    phase = dealt_phase(game, state, action)
    if phase is not None:
        supply = deal_supply(state, phase)
        if supply:  # (an empty supply deals nothing: no chance)
            k = min(len(supply), LIGHT_PER_PHASE)
            events.append((f"the phase {phase + 1} deal ({k} tiles out of a supply of {len(supply)}, the set "
                           f"of each depot)", deal_count(len(supply)),
                           lambda phase=phase, supply=supply: deal_outcomes(phase, supply)))
    if not events:
        return []
    count = math.prod(n for _, n, _ in events)
    if count > limit:
        raise TooManyOutcomes(" with ".join(what for what, _, _ in events), count, limit)
    out = []
    for combo in itertools.product(*(listing() for _, _, listing in events)):
        out.append(("; ".join(d for d, _ in combo), float(math.prod(p for _, p in combo))))
    return out


def chance_outcome(game: Any, before: Any, action: int, after: Any) -> str | None:
    """The fountain cards drawn and / or the depots dealt in the step before --action--> after."""
    parts = []
    kinds = fountain_drawn(before, after)
    if kinds:
        parts.append(describe_fountain(kinds))
    phase = _deal_in(before, after)
    dealt = (after.tile_loc[0] == LOC_DEPOT) & (before.tile_loc[0] != LOC_DEPOT)
    if phase is not None and dealt.any():
        parts.append(describe_deal(phase, [[int(t) for t in after.depot[0, d] if t >= 0] for d in range(NUM_SPACES)]))
    return "; ".join(parts) or None
