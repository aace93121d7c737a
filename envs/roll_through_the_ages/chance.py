"""The chance inside one step of Roll Through the Ages (`RulesBase.chance_outcomes` / `chance_outcome`).

All chance is dice, each die drawn by `kernels._draw_face` (face int(6 * u), the six faces equally likely,
every die independent). A step draws dice in up to three places, in this order:

1. its own roll: `ROLL` rerolls the marked dice (in die order), a `LEADERSHIP_REROLL_i` rerolls die i
   (`kernels._apply_action`);
2. the first roll of the next turn, one die per city of the next seat, when the turn ends inside the step
   (`kernels._end_turn` -> `_start_turn`, run by `_advance` once no decision is left in the turn: after
   a roll that finishes the rolling, or after any move that ends the last phase with a decision);
3. more first rolls, when that turn passes without a decision too: outside the solo game a first roll
   of only skulls cannot be rerolled, so rolling is over at once, and if nothing else asks for a decision
   (Leadership, a building, a purchase, a discard) the next seat rolls in the same step.

The rules treat dice as interchangeable (a die is marked, decided or scored by its face, never by its
slot), so a roll is described by the multiset of faces it shows, e.g. "rolled 3 dice: 2 x food, 1 x
skull". When the step's own roll also ends the turn, its faces are gone from the state that follows
(the next seat's dice replace them) and different faces may leave the same sheets (a food die on a full
food track, a goods die on full tracks, coins that buy nothing): that roll is then described by what it
did, the net changes of every sheet in the step ("net changes: player_0 food +2, wood +1"; they include
the resolution of a next first roll of only skulls, which is immediate), so outcomes that leave the
same position share one description and outcomes that do not never do. Every
description is computed from (before, action, after) by `chance_outcome`; `chance_outcomes` enumerates
the faces, runs the rules' kernels on each and names the results with that same function, summing the
exact probabilities of the faces that share a name.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from meeple.envs.base import TooManyOutcomes
from meeple.envs.core import concatenate, take
from meeple.envs.roll_through_the_ages.data import (
    ACTION_LEADERSHIP_REROLL, ACTION_ROLL, CITY_THRESHOLDS, DEC_LEADERSHIP, DEC_ROLL, GOOD1, GOOD_NAMES, MAX_DICE,
    NUM_FACES, SKULL, START_CITIES,
)

# what each face (data.GOOD1, FOOD3, SKULL, FW2, COINS7, WORKERS3) is called in a description
FACE_WORDS = ("good", "food", "skull", "food/workers", "coins", "workers")
FILL = GOOD1  # the face of every die past the ones being enumerated: not a skull, so a new turn stops at once


def dice_count(n: int) -> str:
    return "1 die" if n == 1 else f"{n} dice"


def faces_text(faces: Any) -> str:
    """'2 x food, 1 x skull': the multiset of faces, in face order."""
    counts = np.bincount(np.asarray(faces, dtype=np.int64), minlength=NUM_FACES)
    return ", ".join(f"{int(c)} x {FACE_WORDS[f]}" for f, c in enumerate(counts) if c)


def cities(city_workers: int) -> int:
    return START_CITIES + int((int(city_workers) >= CITY_THRESHOLDS).sum())


def own_dice(state: Any, action: int) -> tuple[np.ndarray, str]:
    """The dice slots `action` itself rolls in `state` (one row) and the verb for them (none: an empty array)."""
    decision = int(state.decision[0])
    if action == ACTION_ROLL and decision == DEC_ROLL:
        return np.flatnonzero(state.marked[0]), "rolled"
    if ACTION_LEADERSHIP_REROLL <= action < ACTION_LEADERSHIP_REROLL + MAX_DICE and decision == DEC_LEADERSHIP:
        return np.array([action - ACTION_LEADERSHIP_REROLL]), "Leadership rerolled"
    return np.zeros(0, dtype=np.int64), ""


def turns_started(game: Any, before: Any, after: Any) -> int:
    """How many turns began inside the step (each with a first roll): the difference of the turn counters
    round * P + the active seat's place after the start player (the round does not advance at the end)."""
    P = game.num_players

    def turn(s: Any) -> int:
        return int(s.round[0]) * P + (int(s.active[0]) - int(s.start_player[0])) % P

    return turn(after) - turn(before)


def sheet_changes(game: Any, before: Any, after: Any) -> str:
    """'player_0 food +2, wood +1 / player_1 disasters +3': every food, goods and disaster count the step
    changed (the only parts of a sheet that the automatic phases change), or 'none'."""
    seats = []
    for p in range(game.num_players):
        items = [(name, int(after_n) - int(before_n)) for name, before_n, after_n in (
            ("food", before.food[0, p], after.food[0, p]),
            *zip(GOOD_NAMES, before.goods[0, p], after.goods[0, p]),
            ("disasters", before.disasters[0, p], after.disasters[0, p]))]
        text = ", ".join(f"{name} {delta:+d}" for name, delta in items if delta)
        if text:
            seats.append(f"player_{p} {text}")
    return " / ".join(seats) or "none"


def chance_outcome(game: Any, before: Any, action: int, after: Any) -> str | None:
    """What chance decided in the step before --action--> after (one-row states), as `chance_outcomes`
    names it; None when the step rolled no die (its own roll and no new turn)."""
    own, verb = own_dice(before, action)
    started = turns_started(game, before, after)
    done = bool(after.done[0])
    if not own.size and not started:
        return None
    parts = []
    if own.size:
        if started or done:  # the faces are gone: what they did is in the sheets (the last part)
            parts.append(f"{verb} {dice_count(own.size)}, ending the turn")
        else:
            parts.append(f"{verb} {dice_count(own.size)}: {faces_text(after.dice[0, own])}")
    seat = int(before.active[0])
    for j in range(started):
        seat = (seat + 1) % game.num_players
        n = cities(after.city_workers[0, seat])
        if j == started - 1 and not done:  # the turn that waits for a decision shows its first roll
            parts.append(f"player_{seat} rolled {dice_count(n)}: {faces_text(after.dice[0, :n])}")
        else:  # a turn that passed inside the step: only an all-skull first roll does (checked by chance_outcomes)
            parts.append(f"player_{seat} rolled {dice_count(n)}: {faces_text([SKULL] * n)}, a turn without a decision")
    if done:
        parts.append("game over")
    if own.size and (started or done):
        parts.append(f"net changes: {sheet_changes(game, before, after)}")
    return "; ".join(parts)


def multisets(n: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every multiset of n faces (as a sorted tuple) with its probability: n! / prod(count!) / 6^n."""
    out = []
    for faces in itertools.combinations_with_replacement(range(NUM_FACES), n):
        ways = math.factorial(n) // math.prod(math.factorial(faces.count(f)) for f in set(faces))
        out.append((faces, Fraction(ways, NUM_FACES ** n)))
    return out


def run(game: Any, state: Any, action: int, prefixes: list[tuple[int, ...]]) -> Any:
    """The states after `state` --action--> for each prefix of dice: its faces drawn first, then FILL dice."""
    width = max(len(p) for p in prefixes) + 2 * MAX_DICE
    u = np.full((len(prefixes), width), (FILL + 0.5) / NUM_FACES)
    for r, prefix in enumerate(prefixes):
        u[r, :len(prefix)] = (np.asarray(prefix, dtype=np.float64) + 0.5) / NUM_FACES
    return game.apply(concatenate([state] * len(prefixes)), np.full(len(prefixes), action), u)


def row_key(state: Any, r: int) -> bytes:
    return b"".join(np.ascontiguousarray(field[r]).tobytes() for field in state)


def chance_outcomes(game: Any, state: Any, action: int, limit: int) -> list[tuple[str, float]]:
    """Every outcome of the dice the step rolls (module docstring), with its exact probability; [] if the
    step rolls none; TooManyOutcomes above `limit`.

    Level 0 is the move's own roll (every multiset of its faces, or nothing). A row of a level whose step
    began a new turn (its first roll shows FILL dice, so that turn waits for a decision) is grouped with
    the rows that left the very same state; each group's new first roll is the next level, every multiset
    of its dice, and so on while a first roll lets its turn pass. Each row that ends its level is an
    outcome named by `chance_outcome` on the state the kernels produced."""
    own, _ = own_dice(state, action)
    # (faces drawn so far, their probability, how many of them the level's own roll drew)
    level = [(faces, p, own.size) for faces, p in multisets(own.size)] if own.size else [((), Fraction(1), 0)]
    outcomes: dict[str, Fraction] = {}
    depth = 0  # turns the level's rows begin before their FILL dice
    while level:
        afters = run(game, state, action, [faces for faces, _, _ in level])
        groups: dict[bytes, tuple[tuple[int, ...], Fraction, int]] = {}
        for r, (faces, p, n) in enumerate(level):
            after = take(afters, [r])
            started, done = turns_started(game, state, after), bool(after.done[0])
            if depth and (started > depth or done) and set(faces[len(faces) - n:]) != {SKULL}:
                raise RuntimeError("a turn passed without a decision after a first roll that was not all skulls")
            if started > depth and not done:  # a new turn waits with FILL dice: its first roll is the next level
                if started != depth + 1:
                    raise RuntimeError("a turn passed without a decision after a first roll without skulls")
                key = row_key(afters, r)
                first, total, dice = groups.get(key, (faces, Fraction(0), int((after.dice[0] >= 0).sum())))
                groups[key] = (first, total + p, dice)
                continue
            name = chance_outcome(game, state, action, after)
            if name is None:  # the move rolls nothing and begins no turn
                return []
            outcomes[name] = outcomes.get(name, Fraction(0)) + p
        depth += 1
        level = []
        for faces, p, n in groups.values():  # (n: one die per city of the seat whose turn began)
            level += [(faces + roll, p * q, n) for roll, q in multisets(n)]
        # a lower bound of the count: the next level's rows with a die other than a skull are outcomes of their
        # own (different dice, or different sheets), those of only skulls at least one more
        certain = len(outcomes) + sum(set(faces[len(faces) - n:]) != {SKULL} for faces, _, n in level) + bool(level)
        if certain > limit:
            raise TooManyOutcomes(f"{game.action_names[action]} with the first roll of the next turn (at least)",
                                  certain, limit)
    if len(outcomes) > limit:
        raise TooManyOutcomes(game.action_names[action], len(outcomes), limit)
    return [(name, float(p)) for name, p in outcomes.items()]
