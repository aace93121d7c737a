"""The chance inside one step of Hadara (`RulesBase.chance_outcomes` / `chance_outcome`).

A step reads its uniforms in one place only: the deal of a new epoch's inner stacks (`kernels._deal`,
from `_settle` when the last seat's Buy seals ends epoch I or II, columns data.U_STEP_DEAL). Per
colour it draws an ordered 2N cards out of that epoch's cards of the colour (a partial Fisher-Yates,
`jit.shuffle_prefix`); the rest of the colour goes to the box. Every ordered draw is equally likely and
gives a different state (the order decides which seat draws which pair in which round, and which card
of a pair is card 0), so the deal has prod over colours of n! / (n - 2N)! outcomes: billions of
billions, more than any practical `limit`.

Everything else a step does is decided by the state: the draft pairs come off the top of inner stacks
dealt earlier, colonies off colony stacks shuffled at `init`, phase B takes the top of face-up piles, and
the start cards, board order and colony stacks are set once at `init` (not a step). So every move that
does not end epoch I or II involves no chance, and the one that does has exactly the deal.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from meeple.envs.base import TooManyOutcomes
from meeple.envs.hadara.data import CARD_NAMES, COLOUR_NAMES, EPOCH_NAMES, NUM_COLOURS


def deal_count(game: Any, epoch: int) -> int:
    """The number of equally likely deals of `epoch`'s inner stacks: per colour an ordered 2N of its n cards."""
    k = 2 * game.num_players
    return math.prod(math.perm(int(game.deck_count[epoch, c]), k) for c in range(NUM_COLOURS))


def describe_deal(epoch: int, stacks: list[list[int]]) -> str:
    """The canonical words for a deal: each colour's inner stack from the top (the draw order) down."""
    return f"epoch {EPOCH_NAMES[epoch]} stacks, top first: " + "; ".join(
        f"{COLOUR_NAMES[c]} " + " ".join(CARD_NAMES[card] for card in reversed(stack))
        for c, stack in enumerate(stacks))


def deal_outcomes(game: Any, epoch: int) -> list[tuple[str, float]]:
    """Every deal of `epoch` (bottom -> top stacks, one ordered 2N-prefix per colour), each 1 / count."""
    k = 2 * game.num_players
    per_colour = [itertools.permutations([int(x) for x in game.deck_cards[epoch, c, :game.deck_count[epoch, c]]], k)
                  for c in range(NUM_COLOURS)]
    p = 1.0 / deal_count(game, epoch)
    return [(describe_deal(epoch, [list(stack) for stack in stacks]), p) for stacks in itertools.product(*per_colour)]


def dealt_epoch(game: Any, state: Any, action: int) -> int | None:
    """The epoch whose stacks the step `state` --action--> deals, None if it deals none.

    Whether the step reaches the deal does not depend on its uniforms (they are read only by the deal,
    after which the start player must set the wheel), so one step with any uniforms tells."""
    after = game.apply(state, np.array([action]), np.zeros((1, game.uniforms_per_step)))
    return int(after.epoch[0]) if int(after.epoch[0]) != int(state.epoch[0]) else None


def chance_outcomes(game: Any, state: Any, action: int, limit: int) -> list[tuple[str, float]]:
    """The deal's outcomes if the step ends epoch I or II (TooManyOutcomes above `limit`), else []."""
    epoch = dealt_epoch(game, state, action)
    if epoch is None:
        return []
    count = deal_count(game, epoch)
    if count > limit:
        raise TooManyOutcomes(f"the deal of the epoch {EPOCH_NAMES[epoch]} stacks ({2 * game.num_players} "
                              f"cards in order from each colour)", count, limit)
    return deal_outcomes(game, epoch)


def chance_outcome(game: Any, before: Any, action: int, after: Any) -> str | None:
    """The stacks dealt in the step before --action--> after, None if it began no epoch (no chance)."""
    epoch = int(after.epoch[0])
    if epoch == int(before.epoch[0]):
        return None
    stacks = [[int(x) for x in after.inner[0, c, :after.inner_count[0, c]]] for c in range(NUM_COLOURS)]
    return describe_deal(epoch, stacks)
