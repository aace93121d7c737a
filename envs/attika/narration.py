"""What a step of Attika did, in words (`game.narrate(before, action, after)`).

The landscape cards in a hand are secret: a seat reads the types of the cards it draws, everyone else
only how many ("cards 3 -> 5"); the cards paid go face up to the discard pile, so their types are
public ("to the discard: W1 H0 ..."). Another seat reads the move in its public words (`render.action_to_str`
with `public=True`: no cards handed over, no two-for-one, no effects found by applying it, as they depend on
the hand); the effects follow from the public board.
The rest is public and comes from comparing the two states: reveals, buildings built or stored,
map tiles drawn and placed, settlements, amphorae, completed groups, the round, the player to move,
and the winner.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.attika import data, render
from meeple.envs.attika.data import BUILDING_NAMES, DECISION_NAMES, GROUP_NAMES, LANDSCAPES
from meeple.envs.attika.render import TILE_NAMES, hex_text
from meeple.envs.textview import changes, join, move_line, player, player_lines, transition


def _player_changes(before: Any, after: Any, row: int, p: int, seat: int | None) -> str:
    """Everything p's seat may show about player p: buildings, display, cards, amphorae, groups."""
    parts = []
    for h in np.flatnonzero((after.owner[row] == p) & (after.building[row] != before.building[row])):
        parts.append(f"builds {BUILDING_NAMES[int(after.building[row, h])]} on {hex_text(int(h))}")
    stored = np.flatnonzero(after.display[row, p] > before.display[row, p])
    parts += [f"stores {BUILDING_NAMES[t]} on the display" for t in stored]
    if p == seat:  # the seat's own cards by type
        gained = np.maximum(after.hand[row, p].astype(int) - before.hand[row, p], 0)
        if gained.sum():
            parts.append("you draw " + " ".join(f"{LANDSCAPES[k]}{int(n)}" for k, n in enumerate(gained) if n))
    parts.append(transition("cards", before.hand[row, p].sum(), after.hand[row, p].sum()))
    parts.append(transition("amphorae", before.amphorae[row, p], after.amphorae[row, p]))
    parts.append(transition("settlements", before.settlements[row, p], after.settlements[row, p]))
    parts += [f"completes {GROUP_NAMES[g]}" for g in np.flatnonzero(after.rewarded[row, p] & ~before.rewarded[row, p])]
    return join(parts)


def narrate(game: Any, before: Any, action: int, after: Any, row: int = 0, seat: int | None = None) -> list[str]:
    """Lines describing the step `before` --action--> `after` in row `row` (module docstring)."""
    P = game.num_players
    actor = int(before.to_play[row])
    # another seat reads the move without what depends on the actor's secret hand
    lines = [move_line(before, row, seat, lambda: render.action_to_str(game, before, action, row, public=actor != seat))]
    t = int(after.pending_type[row])
    if t >= 0 and after.decision[row] == data.DEC_PENDING_REVEAL and t != int(before.pending_type[row]):
        lines.append(f"{player(int(after.to_play[row]), seat)} reveals {BUILDING_NAMES[t]}")
    x = int(after.tile_up[row])
    if x >= 0 and x != int(before.tile_up[row]):
        lines.append(f"map tile {TILE_NAMES[x]} is turned up")
    for tile in np.flatnonzero((after.tile_state[row] == data.TILE_PLACED) & (before.tile_state[row] != data.TILE_PLACED)):
        lines.append(f"map tile {TILE_NAMES[tile]} placed with its centre on {hex_text(int(after.tile_centre[row, tile]))}")
    paid = changes(before.discard[row], after.discard[row], LANDSCAPES)
    if paid and after.discard[row].sum() > before.discard[row].sum():
        lines.append("to the discard: " + ", ".join(paid))
    lines += player_lines(P, seat, lambda p: _player_changes(before, after, row, p, seat))
    if after.done[row]:
        if after.truncated[row]:
            lines.append(f"game over: round cap {game.config.max_rounds} reached, a draw")
        else:
            lines.append(f"game over: {player(int(after.winner[row]), seat)} wins")
        return lines
    if after.round[row] != before.round[row]:
        lines.append(f"round {int(after.round[row]) + 1} begins")
    if int(after.to_play[row]) != actor:
        lines.append(f"now {player(int(after.to_play[row]), seat)} to play: {DECISION_NAMES[int(after.decision[row])]}")
    elif after.decision[row] != before.decision[row]:
        lines.append(f"next: {DECISION_NAMES[int(after.decision[row])]}")
    return lines
