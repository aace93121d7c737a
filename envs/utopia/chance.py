"""Utopia's chance inside one step (`RulesBase.chance_outcomes` / `chance_outcome`).

A step draws from two sources, both in kernels.py, and from nothing else:

* the guest draw (`_draw_guests`, run by `_begin_round` when a round ends and the next begins): 3 guests
  per player from the bag, which at that moment holds 2 guests of every civilization of every island in
  play. The displays that come out follow the multivariate hypergeometric law: a display with g[i, c]
  guests of each kind has probability  prod C(2, g[i, c]) / C(10 I, 3 P)  (I islands in play).
* the deal (`_draw_card`, run by `_begin_development` when Phase 1 ends): 5 cards to each player in
  ranking order, each drawn from the draw pile's composition; a draw that finds the pile empty first turns
  the discards into the new pile. So the deal is the first cards of a random order of the pile followed by
  a random order of the discards: each player's cards are a multiset, and the probability of the per-player
  multisets is a product of multinomial coefficients and falling factorials of the two sources.

What a step can chain (the automatic phases run inside it, `_settle`): a Phase 1 move that ends Phase 1
leads to the deal; a Phase 2 move that ends the round (and not the game) leads to Phase 3 and the next
round's guest draw; if nobody can take any of the guests drawn (every civilization on the displays is
out of every player's supply) and nobody can build, the whole of Phase 1 passes at once and the deal
follows in the same step. After a deal the step always stops in Phase 2: every player holds at least 5
cards (the pile and the discards hold at least 5 per player, since nobody keeps more than 5 between
rounds), so the first turn has a card action besides END.

An outcome says what chance put in front of the players: the guests on each island's display, or the
cards each player was dealt (a multiset per player: the order within a player's cards is irrelevant). The
guests of a Phase 1 that passes at once are not told: they go back to the bag unseen by any decision, and
every such draw leads to the same position. `chance_outcome` reads the outcome from the fields chance
sets (render.CHANCE_FIELDS: the displays; and the hands, undoing the rank discards that were forced
within the step). Where the hands before the deal are not those of `before` (a move that ends the round
changes the discards and the hands), they are found by playing the move once more on a copy whose draw
pile holds 10 cards of every civilization and dealing every player one card of each: the copy gives the
hands, the discards and the ranking order at the moment of the deal, which do not depend on the cards.
"""

from __future__ import annotations

import itertools
import math
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from meeple.envs import core
from meeple.envs.base import TooManyOutcomes
from meeple.envs.utopia.data import (
    CARDS_DEALT, CARDS_PER_CIV, CIV_NAMES, GUESTS_PER_KIND, ISLAND_IN_PLAY, ISLAND_NAMES, NUM_CIVS, NUM_ISLANDS,
    PICK_PASSES, PRINCES_PER_CIV, RANK_DISCARDS, U_STEP_DEAL, U_STEP_GUESTS, UNIFORMS_PER_STEP,
)

SKIPPED = "no guest drawn can be taken, Phase 1 passes"


# --- what a step involves ------------------------------------------------------------------------------

def _event(before: Any, after: Any) -> str | None:
    """The first chance event of the step before -> after (the kind does not depend on chance): "deal"
    (Phase 1 ended), "guests" (a new round began), None (no chance)."""
    if before.phase[0] == 0:
        left = after.phase[0] != 0 or after.round[0] != before.round[0] or after.done[0]
        return "deal" if left else None
    if after.round[0] != before.round[0] and not after.done[0]:
        return "guests"
    return None


def _kinds(P: int) -> list[tuple[int, int]]:
    """The guest kinds (island, civilization) in the bag, in the order `_draw_guests` visits them."""
    return [(i, c) for i in range(NUM_ISLANDS) if ISLAND_IN_PLAY[P, i] for c in range(NUM_CIVS)]


def _exhausted(state: Any) -> list[int]:
    """The civilizations no player has a prince of in supply (a guest of them cannot be taken)."""
    supply = np.asarray(state.princes[0], dtype=np.int64).sum(axis=2)  # (P, C) on the board
    return [c for c in range(NUM_CIVS) if (supply[:, c] >= PRINCES_PER_CIV).all()]


def _uniforms(P: int, guests: np.ndarray | None = None, deal: list[int] | None = None,
              pile: np.ndarray | None = None, discard: np.ndarray | None = None) -> np.ndarray:
    """A (1, UNIFORMS_PER_STEP) u under which the step draws the display `guests` (I, C) and deals the cards
    `deal` (civilizations in drawing order, from `pile` then `discard`); other columns 0.5."""
    u = np.full((1, UNIFORMS_PER_STEP), 0.5)
    if guests is not None:
        kinds = _kinds(P)
        left = {k: GUESTS_PER_KIND for k in kinds}
        draws = [k for k in kinds for _ in range(int(guests[k]))]
        for j, k in enumerate(draws):
            total = sum(left.values())
            offset = sum(left[q] for q in kinds[:kinds.index(k)])
            u[0, U_STEP_GUESTS + j] = (offset + 0.5) / total
            left[k] -= 1
    if deal is not None:
        src = np.array(pile, dtype=np.int64)
        rest = np.array(discard, dtype=np.int64)
        for j, c in enumerate(deal):
            if src.sum() == 0:
                src, rest = rest, np.zeros_like(rest)
            u[0, U_STEP_DEAL + j] = (src[:c].sum() + 0.5) / src.sum()
            src[c] -= 1
    return u


# --- the deal ---------------------------------------------------------------------------------------------

class Deal(NamedTuple):
    """The situation at the moment of a deal: seats in ranking order (the order of dealing), the hands, the
    draw pile and the discards just before it."""

    order: tuple[int, ...]
    hand: np.ndarray  # (P, C)
    pile: np.ndarray  # (C,)
    discard: np.ndarray  # (C,)

    def sizes(self) -> tuple[list[int], list[int]]:
        """Cards each position in `order` draws from the pile and (after it ran out) from the discards."""
        P = len(self.order)
        T, R = int(self.pile.sum()), int(self.discard.sum())
        from_pile = min(T, CARDS_DEALT * P)
        from_discard = min(R, CARDS_DEALT * P - from_pile) if T < CARDS_DEALT * P else 0
        a, b = [], []
        for k in range(P):
            lo, hi = CARDS_DEALT * k, CARDS_DEALT * (k + 1)
            a.append(max(0, min(hi, from_pile) - lo))
            b.append(max(0, min(hi, from_pile + from_discard) - max(lo, from_pile)))
        return a, b


def deal_context(game: Any, before: Any, action: int, guests: np.ndarray | None = None) -> Deal | None:
    """The `Deal` of the step before --action--> (a step that deals): the move played on a copy whose pile
    holds 10 cards of each civilization, dealing everybody one of each (no rank discard can then be forced).
    `guests`: for a step that begins a round, the display its guest draw gives; the result is None if Phase 1
    then does not pass at once (so no deal follows)."""
    P = game.num_players
    copy = core.clone(before)
    copy.pile[0] = CARDS_PER_CIV
    deal = list(range(NUM_CIVS)) * P
    u = _uniforms(P, guests, deal, copy.pile[0], copy.discard[0])
    after = game.apply(copy, np.array([action]), u)
    if after.phase[0] != 1:
        return None
    hand = after.hand[0].astype(np.int64) - 1
    if (hand < 0).any():
        raise RuntimeError("utopia chance: the probe deal did not give every player one card of each civilization")
    order = tuple(int(p) for p in game.ranking(after)[0])
    return Deal(order, hand, before.pile[0].astype(np.int64), after.discard[0].astype(np.int64))


@cache
def _compositions(n: int) -> tuple[tuple[int, ...], ...]:
    """Every multiset of n cards as counts per civilization."""
    return tuple(v for v in itertools.product(range(n + 1), repeat=NUM_CIVS) if sum(v) == n)


@cache
def _bounded(n: int, cap: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return tuple(v for v in _compositions(n) if all(x <= m for x, m in zip(v, cap)))


@cache
def _arrangements(v: tuple[int, ...]) -> int:
    """The orders in which a multiset can be drawn: sum(v)! / prod(v_c!)."""
    return math.factorial(sum(v)) // math.prod(math.factorial(x) for x in v)


def count_tuples(sizes: list[int], cap: np.ndarray) -> int:
    """How many tuples of multisets of the given sizes have a sum within `cap` (per civilization)."""
    shape = tuple(int(m) + 1 for m in cap)
    ways = np.zeros(shape, dtype=np.int64)
    ways[(0,) * NUM_CIVS] = 1
    for n in sizes:
        if n == 0:
            continue
        new = np.zeros_like(ways)
        for v in _bounded(n, tuple(int(m) for m in cap)):
            new[tuple(slice(x, None) for x in v)] += ways[tuple(slice(0, s - x) for x, s in zip(v, shape))]
        ways = new
    return int(ways.sum())


def _tuples(sizes: list[int], cap: tuple[int, ...]):
    """Every tuple of multisets of the given sizes with a sum within `cap`."""
    if not sizes:
        yield ()
        return
    for v in _bounded(sizes[0], cap):
        for rest in _tuples(sizes[1:], tuple(m - x for m, x in zip(cap, v))):
            yield (v,) + rest


def _draw_probability(parts: tuple[tuple[int, ...], ...], source: tuple[int, ...]) -> float:
    """Probability that successive draws without replacement from `source` give the multisets `parts` in
    turn (each part one segment of consecutive draws): exact integers, divided once."""
    taken = [sum(v[c] for v in parts) for c in range(NUM_CIVS)]
    ways = math.prod(_arrangements(v) for v in parts) * math.prod(math.perm(s, t) for s, t in zip(source, taken))
    return ways / math.perm(sum(source), sum(taken))


def deal_count(ctx: Deal) -> int:
    a, b = ctx.sizes()
    return count_tuples(a, ctx.pile) * count_tuples(b, ctx.discard)


def deal_outcomes(ctx: Deal) -> list[tuple[np.ndarray, float]]:
    """Every deal as (cards per seat (P, C), probability)."""
    a, b = ctx.sizes()
    pile = tuple(int(x) for x in ctx.pile)
    discard = tuple(int(x) for x in ctx.discard)
    from_pile = [(ctx.order[k], n) for k, n in enumerate(a) if n]
    from_discard = [(ctx.order[k], n) for k, n in enumerate(b) if n]
    pile_draws = [(ys, _draw_probability(ys, pile)) for ys in _tuples([n for _, n in from_pile], pile)]
    discard_draws = [(zs, _draw_probability(zs, discard)) for zs in _tuples([n for _, n in from_discard], discard)]
    out = []
    for ys, p_pile in pile_draws:
        for zs, p_discard in discard_draws:
            x = np.zeros((len(ctx.order), NUM_CIVS), dtype=np.int64)
            for (seat, _), v in zip(from_pile, ys):
                x[seat] += v
            for (seat, _), v in zip(from_discard, zs):
                x[seat] += v
            out.append((x, p_pile * p_discard))
    return out


def dealt(ctx: Deal, after: Any) -> np.ndarray:
    """The cards per seat (P, C) the deal gave, read from the position after the step: the hands, plus the
    rank discards forced within the step (a forced discard means a hand of one civilization)."""
    P = len(ctx.order)
    a, b = ctx.sizes()
    x = np.zeros((P, NUM_CIVS), dtype=np.int64)
    for k, p in enumerate(ctx.order):
        got = a[k] + b[k]
        now = after.hand[0, p].astype(np.int64)
        owed = min(int(RANK_DISCARDS[P, k]), int(ctx.hand[p].sum()) + got)
        forced = owed - int(after.owed[0, p])
        x[p] = now - ctx.hand[p]
        if forced:
            civs = np.flatnonzero(now)
            if forced < 0 or len(civs) != 1:
                raise ValueError("chance_outcome: `after` is not a position this move deals into")
            x[p, civs[0]] += forced
        if (x[p] < 0).any() or x[p].sum() != got:
            raise ValueError("chance_outcome: `after` is not a position this move deals into")
    return x


def deal_text(x: np.ndarray) -> str:
    """'cards dealt — player_0: MAY MAY PER EGY CHI; player_1: ...' (each player's cards by civilization)."""
    hands = ("player_{}: {}".format(p, " ".join(CIV_NAMES[c] for c in range(NUM_CIVS) for _ in range(int(x[p, c])))
                                    or "none")
             for p in range(x.shape[0]))
    return "cards dealt — " + "; ".join(hands)


# --- the guest draw ---------------------------------------------------------------------------------------

def guests_text(P: int, display: np.ndarray) -> str:
    """'guests drawn — Fire: MAY PER PER; Earth: GRE; Wind: -' (every island in play)."""
    islands = ("{}: {}".format(ISLAND_NAMES[i], " ".join(CIV_NAMES[c] for c in range(NUM_CIVS)
                                                       for _ in range(int(display[i, c]))) or "-")
               for i in range(NUM_ISLANDS) if ISLAND_IN_PLAY[P, i])
    return "guests drawn — " + "; ".join(islands)


def _coefficient(kinds: int, n: int) -> int:
    """Displays of n guests over `kinds` kinds of 2 guests each: the t^n coefficient of (1 + t + t^2)^kinds."""
    poly = [1]
    for _ in range(kinds):
        poly = [sum(poly[j - d] for d in range(3) if 0 <= j - d < len(poly)) for j in range(len(poly) + 2)]
    return poly[n] if n < len(poly) else 0


def _displays(P: int):
    """Every display of a guest draw as (display (I, C), probability)."""
    kinds = _kinds(P)
    n = PICK_PASSES * P
    total = math.comb(GUESTS_PER_KIND * len(kinds), n)

    def rec(j: int, left: int, counts: list[int]):
        if left == 0:
            yield counts + [0] * (len(kinds) - j)
            return
        if j == len(kinds) or left > GUESTS_PER_KIND * (len(kinds) - j):
            return
        for g in range(min(GUESTS_PER_KIND, left), -1, -1):
            yield from rec(j + 1, left - g, counts + [g])

    for counts in rec(0, n, []):
        display = np.zeros((NUM_ISLANDS, NUM_CIVS), dtype=np.int64)
        ways = 1
        for (i, c), g in zip(kinds, counts):
            display[i, c] = g
            ways *= math.comb(GUESTS_PER_KIND, g)
        yield display, ways / total


def _skipping_display(P: int, civs: list[int]) -> np.ndarray | None:
    """A display of only the civilizations `civs` (None if they have too few guests for a draw)."""
    display = np.zeros((NUM_ISLANDS, NUM_CIVS), dtype=np.int64)
    need = PICK_PASSES * P
    for i, c in _kinds(P):
        if c in civs and need:
            display[i, c] = min(GUESTS_PER_KIND, need)
            need -= display[i, c]
    return None if need else display


# --- the API ---------------------------------------------------------------------------------------------

def chance_outcomes(game: Any, state: Any, action: int, limit: int) -> list[tuple[str, float]]:
    """state: one row, not done; action legal there. The outcomes of the chance inside one
    `game.step(state, [action], rng)` (with every automatic phase and forced move it runs) as
    (description, probability) pairs summing to 1; [] if the step involves no chance. TooManyOutcomes if
    there are more than `limit`."""
    P = game.num_players
    probe = game.apply(state, np.array([action]), np.full((1, UNIFORMS_PER_STEP), 0.5))
    event = _event(state, probe)
    if event is None:
        return []
    if event == "deal":
        ctx = deal_context(game, state, action)
        count = deal_count(ctx)
        if count > limit:
            raise TooManyOutcomes(f"the deal of {CARDS_DEALT} cards to each of {P} players", count, limit)
        return [(deal_text(x), float(p)) for x, p in deal_outcomes(ctx)]
    # a new round: the guest draw, and the deal at once if its Phase 1 passes
    kinds = _kinds(P)
    n = PICK_PASSES * P
    out_of_supply = _exhausted(probe)
    skipping = _skipping_display(P, out_of_supply)
    ctx = None if skipping is None else deal_context(game, state, action, skipping)
    # displays of civilizations out of every supply only; with nobody able to build they all pass Phase 1
    passing = _coefficient(len(out_of_supply) * (len(kinds) // NUM_CIVS), n) if ctx is not None else 0
    count = _coefficient(len(kinds), n) - passing + (deal_count(ctx) if ctx is not None else 0)
    if count > limit:
        what = f"the draw of {n} guests" + (" (and the deal when none can be taken)" if ctx is not None else "")
        raise TooManyOutcomes(what, count, limit)
    out = []
    for display, p in _displays(P):
        if ctx is not None and all(c in out_of_supply for c in np.flatnonzero(display.sum(axis=0))):
            continue
        out.append((guests_text(P, display), float(p)))
    if ctx is not None:
        p_pass = (math.comb(GUESTS_PER_KIND * len(out_of_supply) * (len(kinds) // NUM_CIVS), n)
                  / math.comb(GUESTS_PER_KIND * len(kinds), n))
        out += [(f"{SKIPPED}; {deal_text(x)}", float(p_pass * p)) for x, p in deal_outcomes(ctx)]
    return out


def chance_outcome(game: Any, before: Any, action: int, after: Any) -> str | None:
    """The description (as chance_outcomes lists it) of what chance decided in the step before --action-->
    after (one-row states); None when the move involves no chance."""
    event = _event(before, after)
    if event is None:
        return None
    if event == "deal":
        ctx = deal_context(game, before, action)
        if ctx is None:
            raise ValueError("chance_outcome: this move does not deal")
        return deal_text(dealt(ctx, after))
    if after.phase[0] == 0:
        return guests_text(game.num_players, after.display[0])
    skipping = _skipping_display(game.num_players, _exhausted(after))
    ctx = None if skipping is None else deal_context(game, before, action, skipping)
    if ctx is None:
        raise ValueError("chance_outcome: `after` is not a position this move leads to")
    return f"{SKIPPED}; {deal_text(dealt(ctx, after))}"
