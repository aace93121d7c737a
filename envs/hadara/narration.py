"""What a step of Hadara did, in words (`game.narrate(before, action, after)`).

Secrets stay secret: a draft choice or a start-card side is a hidden commitment, so another seat (and
a spectator) reads only "commits"; it learns the outcome when the last player commits and every
commitment resolves (the discards go face up to the outer piles, the buys join the tableaus, a
face-down sale shows only its colour). A seat reads its own drawn pair, its own choice and the cards
of its own face-down sales. The rest is public and comes from comparing the two states: coins,
tracks, cards, colonies (an allied colony's back is public, a plundered one's never), busts, seals,
removed cards, and the epoch, section, round and player to move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.hadara import data, kernels, render
from meeple.envs.hadara.data import CARD_NAMES, COLOUR_NAMES, DECISION_NAMES, EPOCH_NAMES, TRACK_NAMES
from meeple.envs.textview import changes, join, move_line, player, player_lines, score_list, transition

# what another reader sees of a hidden commitment (state field `pending` is private)
SECRETS = {data.DEC_A_DRAFT: "commits a hidden draft choice", data.DEC_SETUP_SIDE: "commits a hidden start-card side"}


def _cards(values: np.ndarray) -> set[int]:
    return {int(c) for c in values if c >= 0}


def _player_changes(before: Any, after: Any, row: int, p: int, seat: int | None) -> str:
    """Everything public (and, for the seat itself, private) that changed on player p's board."""
    parts = [transition("coins", before.coins[row, p], after.coins[row, p])]
    parts += changes(before.tracks[row, p], after.tracks[row, p], TRACK_NAMES)
    gained = _cards(after.tableau[row, p]) - _cards(before.tableau[row, p])
    lost = _cards(before.tableau[row, p]) - _cards(after.tableau[row, p])
    parts += [f"takes {CARD_NAMES[c]}" for c in sorted(gained)]
    parts += [f"removes {CARD_NAMES[c]}" for c in sorted(lost)]
    for slot in np.flatnonzero((after.sold_a[row, p] >= 0) & (before.sold_a[row, p] < 0)):
        card = int(after.sold_a[row, p, slot])  # a new face-down sale: its colour is public, the card only to its seller
        parts.append(f"sells {CARD_NAMES[card]} face down" if p == seat
                     else f"sells a {COLOUR_NAMES[int(data.CARD_COLOUR[card])]} card face down")
    for t in np.flatnonzero(after.colony[row, p] != before.colony[row, p]):
        state = int(after.colony[row, p, t])
        if state == kernels.ALLIED:
            parts.append(f"allies with tier-{t} colony {data.COLONY_NAMES[int(after.colony_id[row, p, t])]}")
        elif state == kernels.PLUNDERED:
            parts.append(f"plunders a tier-{t} colony")
    for bu in np.flatnonzero(after.bust[row, p] != before.bust[row, p]):
        v = int(after.bust[row, p, bu])
        if v >= 0:
            parts.append(f"carves bust {bu} ({COLOUR_NAMES[v // 2]} tile on the {'back' if v % 2 else 'front'})")
    new_silver = [TRACK_NAMES[int(c)] for c, old in zip(after.silver[row, p], before.silver[row, p]) if c >= 0 and old < 0]
    parts += [f"buys a silver seal ({track})" for track in new_silver]
    if after.gold[row, p] > before.gold[row, p]:
        parts.append("buys a gold seal")
    for slot in np.flatnonzero((after.slot_tile[row, p] >= 0) & (before.slot_tile[row, p] < 0)):
        parts.append(f"puts a {COLOUR_NAMES[int(after.slot_tile[row, p, slot])]} tile on {CARD_NAMES[int(after.tableau[row, p, slot])]}")
    if after.start_side[row, p] >= 0 > before.start_side[row, p]:
        parts.append(f"plays initiative {int(after.start_card[row, p]) + 1} on side {'AB'[int(after.start_side[row, p])]}")
    return join(parts)


def narrate(game: Any, before: Any, action: int, after: Any, row: int = 0, seat: int | None = None) -> list[str]:
    """Lines describing the step `before` --action--> `after` in row `row` (module docstring)."""
    P = game.num_players
    actor = int(before.to_play[row])
    decision = int(before.decision[row])
    # action_to_str speaks to the mover ("you draw ..."); here others read it too
    lines = [move_line(before, row, seat, lambda: render.action_to_str(game, before, action, row, you=actor == seat), SECRETS)]
    if after.rotation[row] >= 0 and after.rotation[row] != before.rotation[row]:
        lines.append(f"the wheel is set to rotation {int(after.rotation[row])}")
    for c in range(data.NUM_COLOURS):
        old, new = int(before.outer_count[row, c]), int(after.outer_count[row, c])
        if new > old and before.epoch[row] == after.epoch[row]:
            discarded = ", ".join(CARD_NAMES[int(x)] for x in after.outer[row, c, old:new])
            lines.append(f"onto the {COLOUR_NAMES[c]} outer pile: {discarded}")
    lines += player_lines(P, seat, lambda p: _player_changes(before, after, row, p, seat))
    if seat is not None and after.drawn[row, seat, 0] >= 0 and not np.array_equal(after.drawn[row, seat], before.drawn[row, seat]):
        lines.append("you draw " + " and ".join(CARD_NAMES[int(c)] for c in after.drawn[row, seat] if c >= 0))
    if after.done[row]:
        lines.append("game over: " + score_list(game.scores(after)[row], seat,
                                                detail=lambda p: f" VP ({int(after.coins[row, p])} coins)"))
        return lines
    if after.epoch[row] != before.epoch[row]:
        lines.append(f"epoch {EPOCH_NAMES[int(after.epoch[row])]} begins; start player player_{int(after.start_player[row])}")
    section = int(after.decision[row])
    if section != decision or after.round[row] != before.round[row]:
        text = f"section {DECISION_NAMES[section]}"
        if section == data.DEC_A_DRAFT:
            text += f", round {int(after.round[row]) + 1}/5: every player draws 2 cards"
        lines.append(text)
    if int(after.to_play[row]) != actor or section != decision:
        lines.append(f"now {player(int(after.to_play[row]), seat)} to play")
    return lines
