"""Text views of a Utopia position (public information only) and the actions in words.

`action_to_str` says what an action does (the engine's name of an action stays `game.action_names[action]`)
with the board's own codes: civilizations (`EGY`) and districts (`FIR-6`), as the picture shows them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.textview import fit_width
from meeple.envs.utopia import data
from meeple.envs.utopia.data import (
    ACTION_ADD, ACTION_DISCARD, ACTION_DROP, ACTION_END, ACTION_LAND, ACTION_MONUMENT, ACTION_PLACE,
    ACTION_PRIVILEGE, ACTION_RAISE, ACTION_REMOVE, ACTION_SEA, ACTION_SELECT, ACTION_SPECIAL, ACTION_WONDER,
    CIV_NAMES, DECISION_NAMES, DISTRICT_CODES, DISTRICT_ISLAND, DISTRICT_SEA, DISTRICT_SECTOR, DISTRICT_VALUE,
    ISLAND_NAMES, LAND_EDGES, NUM_CIVS, NUM_DISTRICTS, NUM_ISLANDS, NUM_LAND_EDGES, NUM_SEA_ROUTES, SEA_ROUTES,
    SECTOR_NAMES,
)


def describe(game: Any, s: Any, row: int, a: int) -> str:
    """What action `a` does in row `row` of state `s` (without the legality check of `action_to_str`)."""
    p = int(s.to_play[row])
    if a < ACTION_MONUMENT:
        c, d = divmod(a - ACTION_PLACE, NUM_DISTRICTS)
        return f"{CIV_NAMES[c]} guest from {ISLAND_NAMES[DISTRICT_ISLAND[d]]} becomes a prince on {DISTRICT_CODES[d]}"
    if a < ACTION_WONDER:
        c, d = divmod(a - ACTION_MONUMENT, NUM_DISTRICTS)
        w = int(s.wonder_owner[row, DISTRICT_ISLAND[d]])
        bonus = f"; player_{w} gains {int(DISTRICT_VALUE[d])} (wonder)" if w >= 0 else ""
        return f"{CIV_NAMES[c]} monument on {DISTRICT_CODES[d]} (value {int(DISTRICT_VALUE[d])}){bonus}"
    if a < ACTION_SELECT:
        return f"wonder of {ISLAND_NAMES[a - ACTION_WONDER]} (+6)"
    if a < ACTION_LAND:
        c = int(s.wonder_civ[row])
        return f"remove the {CIV_NAMES[c] if c >= 0 else '?'} prince from {DISTRICT_CODES[a - ACTION_SELECT]}"
    if a < ACTION_SEA:
        ck, e = divmod(a - ACTION_LAND, NUM_LAND_EDGES)
        return (f"1 {CIV_NAMES[ck // 2]} card: move {ck % 2 + 1} {CIV_NAMES[ck // 2]} from "
                f"{DISTRICT_CODES[LAND_EDGES[e, 0]]} to {DISTRICT_CODES[LAND_EDGES[e, 1]]} by land (edge {e})")
    if a < ACTION_ADD:
        ck, r = divmod(a - ACTION_SEA, NUM_SEA_ROUTES)
        return (f"1 {CIV_NAMES[ck // 2]} card: move {ck % 2 + 1} {CIV_NAMES[ck // 2]} from "
                f"{DISTRICT_CODES[SEA_ROUTES[r, 0]]} to {DISTRICT_CODES[SEA_ROUTES[r, 1]]} by sea (route {r})")
    if a < ACTION_REMOVE:
        c, d = divmod(a - ACTION_ADD, NUM_DISTRICTS)
        owner = int(s.mon_owner[row, d])
        gift = f"; player_{owner} +1" if owner >= 0 and owner != p else ""
        return f"1 {CIV_NAMES[c]} card: add a prince at the monument on {DISTRICT_CODES[d]}{gift}"
    if a < ACTION_RAISE:
        c, d = divmod(a - ACTION_REMOVE, NUM_DISTRICTS)
        return f"1 {CIV_NAMES[c]} card: remove a prince from the monument on {DISTRICT_CODES[d]} (+2)"
    if a < ACTION_DROP:
        c = a - ACTION_RAISE
        return f"1 {CIV_NAMES[c]} card: {CIV_NAMES[c]} {int(s.scale[row, c])} -> {int(s.scale[row, c]) + 1}"
    if a < ACTION_SPECIAL:
        c = a - ACTION_DROP
        return f"2 {CIV_NAMES[c]} cards: {CIV_NAMES[c]} {int(s.scale[row, c])} -> 1"
    if a < ACTION_PRIVILEGE:
        c, d = divmod(a - ACTION_SPECIAL, NUM_DISTRICTS)
        return f"3 {CIV_NAMES[c]} cards: special guest, a {CIV_NAMES[c]} prince on {DISTRICT_CODES[d]}"
    if a < ACTION_DISCARD:
        src, dst = data.privilege_pair(a - ACTION_PRIVILEGE)
        return f"privilege token: a {CIV_NAMES[src]} card counts as {CIV_NAMES[dst]}"
    if a < ACTION_END:
        return f"discard a {CIV_NAMES[a - ACTION_DISCARD]} card"
    return "end the build window" if s.decision[row] == data.DEC_BUILD else "end the turn"


def action_to_str(game: Any, state: Any, action: int, row: int = 0) -> str:
    """'EGY guest from Fire becomes a prince on FIR-6': what the action does, in words (the engine's name is
    `game.action_names[action]`); "[illegal now]" when masked, "[the game is over]" in a finished game."""
    if not 0 <= action < game.num_actions:
        return f"no action {action}"
    text = describe(game, state, row, action)
    if state.done[row]:
        return text + " [the game is over]"
    legal = bool(game.legal_action_mask(core.take(state, [row]))[0, action])
    return text if legal else text + " [illegal now]"


def _ranking(s: Any, row: int, P: int) -> list[int]:
    return sorted(range(P), key=lambda p: (-int(s.score[row, p]), int(s.stamp[row, p])))


def score_sheet(game: Any, state: Any, row: int = 0, seat: int | None = None, detail: bool = False) -> str:
    """Scale, ranking, players, displays and every district: public information only, plus with
    `seat=p` that player's own action cards.

    The default view fits a terminal: an island's districts share lines, princes are one letter each
    (the civilization's initial) and long lines are wrapped to `textview.TERMINAL_WIDTH`; `detail=True`
    gives one district per line with the points by source, unwrapped."""
    s = state
    P = game.num_players
    dec = int(s.decision[row])
    lines = [f"Utopia — {P} players, round {int(s.round[row])}, phase {int(s.phase[row]) + 1} "
             f"({data.PHASE_NAMES[int(s.phase[row])]})" + (f", pass {int(s.pick_pass[row]) + 1}/3" if s.phase[row] == 0 else "")]
    if s.done[row]:
        lines.append(("Truncated after round 40" if s.truncated[row] else "Game over") + "; final ranking "
                     + ", ".join(f"player_{p} {int(s.score[row, p])}" for p in _ranking(s, row, P)))
    else:
        extra = ""
        if dec == data.DEC_WONDER:
            extra = f" ({CIV_NAMES[int(s.wonder_civ[row])]} prince on {ISLAND_NAMES[int(s.wonder_island[row])]})"
        elif dec == data.DEC_CONVERT:
            extra = f" ({CIV_NAMES[int(s.convert_from[row])]} card counts as {CIV_NAMES[int(s.convert_to[row])]})"
        elif dec == data.DEC_DISCARD:
            extra = f" ({int(s.owed[row, s.to_play[row]])} owed)"
        lines.append(f"player_{int(s.to_play[row])} to play: {DECISION_NAMES[dec]}{extra}; "
                     f"first player of the round player_{int(s.start_player[row])}")
    order = sorted(range(NUM_CIVS), key=lambda c: int(s.scale[row, c]))
    lines.append("Prestige scale: " + " < ".join(f"{CIV_NAMES[c]} {int(s.scale[row, c])}" for c in order))
    lines.append("Ranking: " + ", ".join(f"player_{p} {int(s.score[row, p])} (stamp {int(s.stamp[row, p])})"
                                          for p in _ranking(s, row, P)))
    for p in range(P):
        supply = [8 - int(s.princes[row, p, c].sum()) for c in range(NUM_CIVS)]
        bases = int((s.mon_owner[row] == p).sum() + (s.wonder_owner[row] == p).sum())
        gains = ", ".join(f"{n} {int(s.gains[row, p, g])}" for g, n in enumerate(data.GAIN_NAMES) if s.gains[row, p, g])
        # the default view leaves out the points by source (the detail view has them) to keep one line per player
        points = f"{int(s.score[row, p])} points ({gains or 'none'})" if detail else f"{int(s.score[row, p])} points"
        lines.append(f"player_{p}: {points}; {int(s.hand_size[row, p])} cards; "
                     f"{int(s.privileges[row, p])} privileges; {8 - bases} bases free; supply "
                     + " ".join(f"{CIV_NAMES[c]} {supply[c]}" for c in range(NUM_CIVS))
                     + (" [acted]" if s.acted[row, p] else "") + (" (you)" if p == seat else ""))
        if p == seat:  # the seat's own cards are its private information
            lines.append("  your cards: " + (" ".join(f"{CIV_NAMES[c]} {int(n)}" for c, n in enumerate(s.hand[row, p]) if n) or "-"))
    discards = " ".join(f"{CIV_NAMES[c]} {int(s.discard[row, c])}" for c in range(NUM_CIVS))
    lines.append(f"Draw pile {int(s.pile[row].sum())} cards; discards {discards}")
    for i in range(NUM_ISLANDS):
        if not data.ISLAND_IN_PLAY[P, i]:
            continue
        w = int(s.wonder_owner[row, i])
        guests = " ".join(f"{CIV_NAMES[c]}x{int(s.display[row, i, c])}" for c in range(NUM_CIVS) if s.display[row, i, c])
        lines.append(f"{ISLAND_NAMES[i]}: wonder {'player_' + str(w) if w >= 0 else 'free'}; guests {guests or '-'}")
        districts = []
        for d in np.flatnonzero(DISTRICT_ISLAND == i):
            mon = ""
            if s.mon_civ[row, d] >= 0:
                mon = f" monument {CIV_NAMES[int(s.mon_civ[row, d])]} of player_{int(s.mon_owner[row, d])}"
            sea = f" ship {SECTOR_NAMES[int(DISTRICT_SECTOR[d])]}" if DISTRICT_SEA[d] else ""
            princes = " ".join(f"p{p}:{CIV_NAMES[c]}x{int(s.princes[row, p, c, d])}"
                               for p in range(P) for c in range(NUM_CIVS) if s.princes[row, p, c, d])
            if detail:
                lines.append(f"  {DISTRICT_CODES[d]} ({int(DISTRICT_VALUE[d])}{sea}){mon}: {princes or '-'}")
            else:  # one letter per prince (the civilization's initial), grouped by seat
                mon = f" monument {CIV_NAMES[int(s.mon_civ[row, d])]}/p{int(s.mon_owner[row, d])}" if s.mon_civ[row, d] >= 0 else ""
                short = " ".join(f"p{p}:" + "".join(CIV_NAMES[c][0] * int(s.princes[row, p, c, d]) for c in range(NUM_CIVS))
                                 for p in range(P) if s.princes[row, p, :, d].any())
                districts.append(f"{DISTRICT_CODES[d]}({int(DISTRICT_VALUE[d])}{sea[:6] and ' ship'}){mon}: {short or '-'}")
        if districts:
            lines.append("  " + "; ".join(districts))
    return "\n".join(lines if detail else fit_width(lines))


# chance outcomes narrated by golden playthroughs (envs/playthrough.py): the prestige scale and the
# first player at the start, and each round's guests on the displays (a pick takes one off)
CHANCE_FIELDS = {
    "scale": str,
    "start_player": lambda p: f"player_{p}",
    "display": str,
}
