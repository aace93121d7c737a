"""Attika's chance, outcome by outcome: what `RulesBase.chance_outcomes` and `chance_outcome` (envs/base.py)
list and name for one step.

Where the rules draw at random (kernels.py; every draw is the next number of the row's splitmix64 stream,
seeded by the step's uniform):

- REVEAL (`_reveal` -> `_draw_unrevealed`): the building turned over. A stack is stored as what it still
  holds, not in an order, so the building is uniform over the player's unrevealed buildings of that kind,
  weighted by copies: the main buildings for the main stack, all the other unrevealed buildings for any of
  stacks 1-3 (nobody knows which of them holds which).
- the map extension (`_after_reveal` -> `_draw_tile`): once the revealed building whose reveal emptied a
  stack is resolved (stored or built), the tile turned up is uniform over the tile stack. Whether it can be
  placed (else it leaves the game) does not depend on which tile it is.
- landscape cards (`_draw_card`): END_TURN (`_end_turn`: 3 cards after neither a reveal nor a build, else
  one per unused action), AMPHORA_CARD (1 card) and the reward of a completed group when the amphora supply
  is empty (`_reward_groups`, one card per such group). Each card is uniform over the draw pile's cards
  (type k with probability pile[k] / pile size), without replacement; the moment the pile runs out the
  discard pile becomes the new draw pile, and with both empty a draw is lost.

One step also runs the decisions that have a single legal action (`_advance`, with the default
`auto_forced`): a revealed building that fits nowhere is stored (which may turn up a tile), the only tile
centre is taken (factored actions), and END_TURN is played for a player who can do nothing else, the next players included,
each drawing 3 cards. So one step may reveal a building, turn up a tile and deal cards to several players.

An outcome is described by what chance decided, read from the positions before and after the step:
the building revealed, the tile turned up and, per player, the multiset of cards drawn (their order is
irrelevant to the rules), e.g. "player_0 reveals Tower; map tile T05 (H.F.F..) drawn; player_0 draws W1 H1".
Cards a step pays (a build) go before any of its draws, so a player's draws are its hand after the step
less its hand once the payment is made. The position a step ends in follows from its description (the
listing checks it: two outcomes with the same description are the same position).

How the outcomes are found: the step is walked one decision at a time with a copy of the game that applies
no automatic steps (`apply` of one decision), with the same forced decisions the rules apply. A decision
that draws is applied once, and its other outcomes are that result with the drawn values replaced (the
revealed type, the tile, the cards): nothing else a single decision does depends on them. The continuation
after a card draw can depend on the cards (a player who can now build is not forced to end the turn), so
it is worked out for each hand, and positions that differ only in their cards share the rest of the work.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict, defaultdict
from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.attika.data import (
    ACTION_AMPHORA_CARD, ACTION_END_TURN, ACTION_REVEAL, ACTION_STORE, AMPHORAE, BUILDING_NAMES, COPIES,
    DEC_PAY, DEC_PENDING_REVEAL, FLAT_TAIL, IS_MAIN, LAND_BLANK, LAND_SYMBOL, LANDSCAPES, NUM_LANDSCAPES,
    ROTATED_FACE, TILE_STACK, UNIFORMS_PER_STEP,
)
from meeple.envs.base import CHANCE_LIMIT, TooManyOutcomes
from meeple.envs.textview import player

# the uniforms of every single decision applied here: what it draws is replaced by each outcome in turn
_U = np.zeros((1, UNIFORMS_PER_STEP))
# The walk stops once it has met this many times `limit` card positions (and at least _CAP_MIN): only a step
# whose forced turns go round the table again and again (every player unable to do anything but end the
# turn) gets there, and its outcomes could then not be counted in reasonable time; TooManyOutcomes reports
# the positions met so far. Below it the count is exact.
_CAP_FACTOR, _CAP_MIN = 20, 100_000

# a card position: (hands, one (W, F, H, M) tuple per seat; draw pile; discard pile)
Cards = tuple


# --- descriptions --------------------------------------------------------------------------------------

def _tile_name(x: int) -> str:
    """'T05 (H.F.F..)': the tile's name and printed fields (centre, then the ring), as the render writes it."""
    code = "".join("." if v == LAND_BLANK else LANDSCAPES[int(v) - LAND_SYMBOL] for v in ROTATED_FACE[x, 0])
    return f"T{x + 1:02d} ({code})"


def _unrevealed(s: Any, p: int) -> np.ndarray:
    """Player p's buildings per type still in a face-down stack (kernels.unrevealed, for row 0)."""
    n = COPIES.astype(np.int64) - s.display[0, p] - s.built[0, p]
    t = int(s.pending_type[0])
    if (t >= 0 and int(s.to_play[0]) == p and not bool(s.done[0])
            and int(s.decision[0]) in (DEC_PENDING_REVEAL, DEC_PAY)):
        n[t] -= 1
    return n


def _drawn_by_chance(before: Any, after: Any) -> list[str]:
    """The building revealed and the tile turned up in the step before -> after, in words (the cards apart:
    `_cards_drawn`)."""
    parts = []
    p = int(before.to_play[0])
    for t in np.flatnonzero(_unrevealed(before, p) > _unrevealed(after, p)):
        parts.append(f"{player(p)} reveals {BUILDING_NAMES[t]}")
    for x in np.flatnonzero((before.tile_state[0] == TILE_STACK) & (after.tile_state[0] != TILE_STACK)):
        parts.append(f"map tile {_tile_name(int(x))} drawn")
    return parts


def _cards_drawn(ref: tuple, hands: tuple) -> list[str]:
    """The cards each player drew in a step, in words: the players held `ref` once the step's payment was
    made and hold `hands` at its end (both a (W, F, H, M) tuple per seat)."""
    parts = []
    for q, (old, new) in enumerate(zip(ref, hands)):
        if old != new:
            drawn = [b - a for a, b in zip(old, new)]
            if min(drawn) < 0:
                raise ValueError("the position after the step holds fewer cards than the rules leave after its "
                                 "payment: it does not follow from the position before and this action")
            parts.append(f"{player(q)} draws " + " ".join(f"{LANDSCAPES[k]}{n}" for k, n in enumerate(drawn) if n))
    return parts


# --- the pieces of a step -------------------------------------------------------------------------------

_twins: dict = {}


def _twin(game: Any) -> Any:
    """The same game without automatic steps: each `apply` is one decision."""
    twin = _twins.get(game.config)
    if twin is None:
        twin = type(game)(**{**dataclasses.asdict(game.config), "auto_forced": False})
        _twins[game.config] = twin
    return twin


def _cards(s: Any) -> Cards:
    return (tuple(tuple(int(v) for v in h) for h in s.hand[0]), tuple(int(v) for v in s.draw_pile[0]),
            tuple(int(v) for v in s.discard[0]))


def _with_cards(s: Any, cards: Cards) -> Any:
    if _cards(s) == cards:
        return s
    new = core.clone(s)
    new.hand[0] = cards[0]
    new.draw_pile[0] = cards[1]
    new.discard[0] = cards[2]
    return new


@functools.lru_cache(maxsize=4096)
def _draws(pile: tuple, discard: tuple, n: int) -> tuple:
    """The cards of n draws in a row (each uniform over the draw pile, which the discard pile replaces the
    moment it runs out; n never exceeds the cards of both): ((drawn per type, probability, pile after,
    discard after), ...), one entry per multiset drawn."""
    states = {(pile, discard, (0,) * NUM_LANDSCAPES): 1.0}
    for _ in range(n):
        new: dict = defaultdict(float)
        for (pl, dc, drawn), pr in states.items():
            total = sum(pl)
            if total == 0:  # ran out earlier with the discard pile empty; cards paid since then
                pl, dc, total = tuple(a + b for a, b in zip(pl, dc)), (0,) * NUM_LANDSCAPES, sum(pl) + sum(dc)
            for k in range(NUM_LANDSCAPES):
                if pl[k] == 0:
                    continue
                pl2 = pl[:k] + (pl[k] - 1,) + pl[k + 1:]
                dc2 = dc
                if total == 1:  # the last card: the discard pile becomes the draw pile at once
                    pl2, dc2 = tuple(a + b for a, b in zip(pl2, dc)), (0,) * NUM_LANDSCAPES
                new[(pl2, dc2, drawn[:k] + (drawn[k] + 1,) + drawn[k + 1:])] += pr * pl[k] / total
        states = new
    by_drawn: dict = {}
    for (pl, dc, drawn), pr in states.items():
        assert drawn not in by_drawn, "the piles after a draw follow from the cards drawn"
        by_drawn[drawn] = (drawn, pr, pl, dc)
    return tuple(by_drawn.values())


def _factored(game: Any, a: int) -> int:
    """The factored action a flat tail action stands for (-1 for a flat build or tile placement)."""
    if game.config.actions == "flat":
        return a - FLAT_TAIL + ACTION_REVEAL if a >= FLAT_TAIL else -1
    return a


@dataclasses.dataclass
class _Decision:
    """One decision applied to a node: whether it drew, the hands once its payment was made and before its
    draws (its first card position's), and the nodes it leads to."""

    chance: bool
    ref: tuple
    nodes: list  # [(representative state, {card position: probability})]


def _apply(game: Any, rep: Any, members: dict, a: int) -> _Decision:
    """Decision a in every card position of a node: `rep` is the position (in one of the node's card
    positions) and `members` the card positions with their probabilities. Every position but the cards
    is the same across a node, and so is what a decision does besides drawing cards."""
    twin = _twin(game)
    p = int(rep.to_play[0])
    base = twin.apply(rep, np.array([a]), _U)
    f = _factored(game, a)
    chance = False
    branches = [(base, 1.0)]  # (state, probability) by the building revealed and the tile drawn
    if ACTION_REVEAL <= f < ACTION_STORE:
        unrevealed = _unrevealed(rep, p)
        weights = np.where(IS_MAIN == (f == ACTION_REVEAL), unrevealed, 0)
        total = int(weights.sum())
        branches = []
        for t in np.flatnonzero(weights > 0):
            s = core.clone(base)
            s.pending_type[0] = t
            branches.append((s, int(weights[t]) / total))
        chance = True
    turned = np.flatnonzero((rep.tile_state[0] == TILE_STACK) & (base.tile_state[0] != TILE_STACK))
    if turned.size:
        assert turned.size == 1, "one decision turns up at most one tile"
        y = int(turned[0])
        stack = np.flatnonzero(rep.tile_state[0] == TILE_STACK)
        new = []
        for s, w in branches:
            for x in stack:
                s2 = core.clone(s)
                s2.tile_state[0, y] = TILE_STACK
                s2.tile_state[0, x] = base.tile_state[0, y]
                if int(base.tile_up[0]) == y:
                    s2.tile_up[0] = x
                new.append((s2, w / stack.size))
        branches = new
        chance = True
    # the cards: END_TURN and AMPHORA_CARD draw and do nothing else with cards; a build pays first and may
    # then draw for a completed group (the supply being empty): `probe` is the same build with amphorae to
    # hand out, so it shows the payment alone
    if f in (ACTION_END_TURN, ACTION_AMPHORA_CARD):
        mids = members
        n = int(base.hand[0, p].sum()) - int(rep.hand[0, p].sum())
    elif (base.rewarded[0] & ~rep.rewarded[0]).any():
        assert len(members) == 1, "a build comes before any draw of its step"
        probe = core.clone(rep)
        probe.amphora_supply[0] = AMPHORAE
        paid = twin.apply(probe, np.array([a]), _U)
        mids = {_cards(paid): next(iter(members.values()))}
        n = int(base.hand[0, p].sum()) - int(paid.hand[0, p].sum())
    else:
        mids = members if len(members) > 1 else {_cards(base): next(iter(members.values()))}
        n = 0
    ref = next(iter(mids))[0]
    if n > 0:
        chance = True
        out: dict = defaultdict(float)
        for (hands, pile, discard), pr in mids.items():
            for drawn, q, pile2, discard2 in _draws(pile, discard, n):
                hand = tuple(a + b for a, b in zip(hands[p], drawn))
                out[(hands[:p] + (hand,) + hands[p + 1:], pile2, discard2)] += pr * q
        mids = out
    elif len(members) > 1:
        assert _cards(base) == _cards(rep), "a decision after a draw moves no card unless it draws"
    first = next(iter(mids))
    nodes = [(_with_cards(s, first), {k: pr * w for k, pr in mids.items()}) for s, w in branches]
    return _Decision(chance, ref, nodes)


def _forced(game: Any, rep: Any, members: dict) -> dict:
    """The node's card positions by the decision the step applies next in them (None: the step ends there):
    the only legal action when there is one (with `auto_forced`). It depends on the cards only through the
    hand of the player to move."""
    if not game.config.auto_forced or bool(rep.done[0]):
        return {None: members}
    p = int(rep.to_play[0])
    memo: dict = {}
    groups: dict = defaultdict(dict)
    for cards, pr in members.items():
        hand = cards[0][p]
        if hand not in memo:
            legal = np.flatnonzero(game.legal_action_mask(_with_cards(rep, cards))[0])
            memo[hand] = int(legal[0]) if legal.size == 1 else None
        groups[memo[hand]][cards] = pr
    return groups


def _prefix(game: Any, state: Any, action: int) -> _Decision | None:
    """The step up to its first decision that draws (every decision before it is certain): what that
    decision does, or None when the step draws nothing."""
    rep, members, a = state, {_cards(state): 1.0}, action
    while True:
        decision = _apply(game, rep, members, a)
        if decision.chance:
            return decision
        (rep, members), = decision.nodes
        (a, members), = _forced(game, rep, members).items()
        if a is None:
            return None


def _explore(game: Any, state: Any, action: int, limit: int) -> tuple[tuple, list] | None:
    """(ref, leaves): the hands once the step's payment is made (those of its first draw) and the positions
    the step can end in, as nodes (representative state, {card position: probability}); None when the step
    draws nothing."""
    first = _prefix(game, state, action)
    if first is None:
        return None
    leaves = []
    todo = [first]
    cap, held = max(_CAP_FACTOR * limit, _CAP_MIN), 0  # card positions met (a guard on the work, see _CAP_FACTOR)
    while todo:
        for rep, members in todo.pop().nodes:
            held += len(members)
            if held > cap:
                raise TooManyOutcomes(f"{game.action_names[action]} here (counting stopped; forced turns run on)",
                                      held, limit)
            for a, group in _forced(game, rep, members).items():
                if a is None:
                    leaves.append((rep, group))
                else:
                    todo.append(_apply(game, _with_cards(rep, next(iter(group))), group, a))
    return first.ref, leaves


# --- the API (RulesBase.chance_outcomes / chance_outcome) -------------------------------------------------

def _outcomes(game: Any, state: Any, action: int, limit: int, positions: bool) -> dict:
    """{description: (probability, the position it leads to if `positions`, else None)}; {} without chance."""
    found = _explore(game, state, action, limit)
    if found is None:
        return {}
    ref, leaves = found
    if sum(len(members) for _, members in leaves) > limit:  # count the positions before naming them
        ends = {(key, cards) for key, members in ((_position_key(rep), m) for rep, m in leaves) for cards in members}
        if len(ends) > limit:
            raise TooManyOutcomes(f"{game.action_names[action]} here", len(ends), limit)
    out: dict = {}
    where: dict = {}
    for rep, members in leaves:
        fixed = _drawn_by_chance(state, rep)
        for cards, pr in members.items():
            description = "; ".join(fixed + _cards_drawn(ref, cards[0]))
            seen_rep, seen_cards = where.setdefault(description, (rep, cards))
            if (seen_rep is not rep or seen_cards != cards) and not (
                    seen_cards == cards and core.states_equal(_with_cards(seen_rep, cards), _with_cards(rep, cards))):
                raise RuntimeError(f"two different positions share the outcome {description!r}")
            old = out.get(description)
            if old is None:
                out[description] = (pr, core.clone(_with_cards(rep, cards)) if positions else None)
            else:
                out[description] = (old[0] + pr, old[1])
    if len(out) > limit:
        raise TooManyOutcomes(f"{game.action_names[action]} here", len(out), limit)
    return out


def _position_key(s: Any) -> bytes:
    """Everything of a position but its cards, as bytes (a card position completes it)."""
    return b"".join(field.tobytes() for name, field in zip(s._fields, s) if name not in ("hand", "draw_pile", "discard"))


def outcome_positions(game: Any, state: Any, action: int, limit: int = CHANCE_LIMIT) -> dict[str, tuple[float, Any]]:
    """Every outcome of the step `state` --action--> (a one-row state, not done, the action legal there) with
    its probability and the one-row position it leads to, by description as `chance_outcomes` lists them:
    what an expectimax search or a test of the rules needs. {} when the step involves no chance (then
    `game.apply` with any uniforms gives its only result). ValueError for a state of another batch size
    or a finished one, or an action not legal there."""
    if game.check_state(state) != 1 or bool(state.done[0]):
        raise ValueError("outcome_positions takes one row (batch size 1) of a game not over")
    action = game.check_action(action)
    if not game.legal_action_mask(state)[0, action]:
        raise ValueError(f"action {action} ({game.action_names[action]}) is not legal here")
    return _outcomes(game, state, action, limit, True)


def chance_outcomes(game: Any, state: Any, action: int, limit: int) -> list[tuple[str, float]]:
    """state: one row (batch size 1), not done; action legal there. The outcomes of all the chance inside
    one `game.step(state, [action], rng)` call (including every automatic step it runs: with the default
    config, forced decisions are applied inside the same step), as (description, probability) pairs with
    probabilities summing to 1 (exactly, up to float rounding); [] if the step involves no chance. Raise
    `meeple.envs.base.TooManyOutcomes(what, count, limit)` if there are more than `limit` outcomes."""
    return [(description, pr) for description, (pr, _) in _outcomes(game, state, action, limit, False).items()]


_refs: OrderedDict = OrderedDict()  # (config, action, position) -> the hands of its first draw, or None


def _ref(game: Any, before: Any, action: int) -> tuple | None:
    """The hands once the step's payment is made (those of its first draw), None if the step draws nothing;
    the last few are kept, as a batch of one position stepped many times asks again and again."""
    key = (game.config, action, b"".join(np.ascontiguousarray(f).tobytes() for f in before))
    if key in _refs:
        _refs.move_to_end(key)
        return _refs[key]
    first = _prefix(game, before, action)
    ref = None if first is None else first.ref
    _refs[key] = ref
    if len(_refs) > 64:
        _refs.popitem(last=False)
    return ref


def chance_outcome(game: Any, before: Any, action: int, after: Any) -> str | None:
    """The description (identical string to one chance_outcomes(before, action) lists) of what chance
    decided in the step before --action--> after (both one-row states); None when the move involves no chance."""
    ref = _ref(game, before, action)
    if ref is None:
        return None
    description = "; ".join(_drawn_by_chance(before, after) + _cards_drawn(ref, _cards(after)[0]))
    if not description:
        raise ValueError("the step draws at random, but the position after it shows no draw: it does not "
                         "follow from the position before and this action")
    return description
