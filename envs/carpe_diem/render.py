"""Views of Carpe Diem: readable action names and a text score sheet (the picture is
picture.py).

`action_to_str` says what an action does, in words (the engine's name of an action stays
`game.action_names[action]`); tiles, scoring cards and fountain cards keep their codes (`L37`, `B04`,
`FC03`), each followed by what it shows.

`score_sheet` shows only public information (what a spectator at the table sees):
fountain-card counts but never their kinds, the storage count, the running score (Yucata's; the
final score once the game is over). `action_to_str` describes an action for the seat to play, so it
may name that seat's own fountain cards; for a legal placement it lists the immediate effects
(banderole, centre building, completed features and their rewards, frame tasks, villa VP), found by
applying the action to a copy of the row without the automatic follow-ups.

District text grid: every cell is 4 x 4 characters with the tile's 8 ports on its rim (N side's
two halves on top, E on the right, S below, W on the left, in the board's frame after rotation),
the centre building (M / B / F) and the chimney count inside; `.` is meadow, `V` villa, `m b a c`
lodging halves, `W G H P` landscapes. Empty cells show `flag` (banderole still there) or `shov`
(the shovel cell). Frame tasks stand beside their row or column as kind letter + VP, with `*` once
satisfied.
"""

from __future__ import annotations

import inspect

from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.carpe_diem import data, kernels
from meeple.envs.textview import fit_width, seat_marks
from meeple.envs.carpe_diem.data import (
    ACTION_COUNT, ACTION_DISPLAY, ACTION_MOVE_CCW, ACTION_MOVE_CW, ACTION_ORDER_HIGH, ACTION_ORDER_LOW,
    ACTION_PLACE, ACTION_RETURN, ACTION_SCORE_SPACE, ACTION_SPACE, ACTION_STORE, ACTION_TAKE, CARD_GAIN,
    CARD_HAVE, CARD_NAMES, CARD_PAY, CARD_RED, CIRCLE_SLOTS, DECISION_NAMES, FEATURE_NAMES, FEATURE_SHORT,
    FRAME_POSITION_VP, FRAME_TASKS, GOOD_NAMES, LABEL_CHARS, NUM_FEATURES, NUM_GOODS, NUM_SPACES,
    ROT_PORTS, SPACE_USABLE, TASK_LINE, TILE_CENTRE, TILE_CHIMNEYS, TILE_NAMES,
)

GOOD_LETTERS = "WGHP"  # goods use their landscape's label: grapes W, herbs G, chickens H, fish P
COUNTABLE_NAMES = FEATURE_NAMES + ("chimneys", "lodgings (any)", "landscapes (any)")
COUNTABLE_SHORT = ("W", "G", "H", "P", "m", "b", "a", "c", "M", "B", "F", "villa", "ch", "lodg", "land")
GAIN_NAMES = ("VP", "coin", "bread", "step")
GAIN_SHORT = ("VP", "c", "b", "s")
# feature kind -> port label character (frame tasks)
KIND_CHAR = {int(k): LABEL_CHARS[lab] for lab, k in enumerate(data.LABEL_FEATURE) if k >= 0}
FOUNTAIN_TEXT = tuple(f"2 VP per {'completed ' if k not in (8, 9, 10) else ''}{FEATURE_NAMES[k]}" for k in range(12))
SIDE_NAMES = "NESW"
FEATURE_CHAR = "WGHPmbacMBFV"  # feature kind -> letter (port labels; M B F centre buildings)


# --- small texts ---------------------------------------------------------------------------------

def ports_text(t: int, rot: int = 0) -> str:
    """The 8 port labels of tile t turned rot, as 'N E S W' pairs: 'VV .W W. ..'."""
    chars = "".join(LABEL_CHARS[int(x)] for x in ROT_PORTS[t, rot])
    return " ".join(chars[i:i + 2] for i in range(0, 8, 2))


def tile_text(t: int, rot: int = 0) -> str:
    """'L37 (VV .W W. .., 1 ch)', 'D32 (.. .. .. .. market)'."""
    extra = ""
    if TILE_CENTRE[t]:
        extra += " " + ("", "market", "bakery", "fountain")[int(TILE_CENTRE[t])]
    if TILE_CHIMNEYS[t]:
        extra += f", {int(TILE_CHIMNEYS[t])} ch"
    return f"{TILE_NAMES[t]} ({ports_text(t, rot)}{extra})"


def _amounts(vec: np.ndarray, names: tuple[str, ...]) -> str:
    return " + ".join(f"{int(n)} {names[i]}" for i, n in enumerate(vec) if n)


def card_text(card: int, note: str = "") -> str:
    """'A05 (pay 2 herbs -> 4 VP)', 'D09 (have 1 merchant lodging + 1 baker lodging -> 7 VP)' (per unit)."""
    if CARD_RED[card]:
        need = "pay " + _amounts(CARD_PAY[card], GOOD_NAMES)
    else:
        need = "have " + _amounts(CARD_HAVE[card], COUNTABLE_NAMES)
    return f"{CARD_NAMES[card]} ({need} -> {_amounts(CARD_GAIN[card], GAIN_NAMES)}{'; ' + note if note else ''})"


def card_short(card: int) -> str:
    """At most 15 characters: 'A05 2G>4VP', 'D09 m+b>7VP', 'C01 3ch>1s1b'."""
    if CARD_RED[card]:
        parts = [(int(n), GOOD_LETTERS[g]) for g, n in enumerate(CARD_PAY[card]) if n]
    else:
        parts = [(int(n), COUNTABLE_SHORT[k]) for k, n in enumerate(CARD_HAVE[card]) if n]
    need = parts[0][1] if len(parts) == 1 and parts[0][0] == 1 and CARD_RED[card] else \
        "+".join(x for _, x in parts) if len(parts) > 1 else f"{parts[0][0]}{parts[0][1]}"
    gain = "".join(f"{int(n)}{GAIN_SHORT[i]}" for i, n in enumerate(CARD_GAIN[card]) if n)
    return f"{CARD_NAMES[card]} {need}>{gain}"


def task_text(part: int, j: int, side: int) -> str:
    """'baker lodging col 1 (4 VP)'."""
    kind, pos = int(FRAME_TASKS[part, j, 0]), int(FRAME_TASKS[part, j, 1])
    is_row, idx = (int(x) for x in TASK_LINE[side, pos])
    return f"{FEATURE_NAMES[kind]} {'row' if is_row else 'col'} {idx} ({int(FRAME_POSITION_VP[pos])} VP)"


def _cell_name(cell: int) -> str:
    return f"({cell // 6}, {cell % 6})"


def _units_available(state: Any, row: int, p: int, card: int) -> int:
    s = kernels._State(*(np.ascontiguousarray(f[row:row + 1]) for f in state))
    if CARD_RED[card]:
        return int(kernels.red_max_units(s, 0, p, card))
    return int(kernels.green_units(s, 0, p, card))


def _depot_text(state: Any, row: int, d: int) -> str:
    tiles = [tile_text(int(t)) for t in state.depot[row, d] if t >= 0]
    return ", ".join(tiles) if tiles else "empty"


# --- placement effects -----------------------------------------------------------------------------

def _simulate(game: Any, state: Any, row: int, action: int) -> Any:
    """The row after `action` without the automatic follow-ups (auto_forced off), or None."""
    one = core.clone(core.take(state, [row]))
    u = np.full((1, data.UNIFORMS_PER_STEP), 0.5)
    # step_nb with no mask: the step alone, its kernel arguments by name with auto_forced off
    step = game.entries.step_nb
    names = list(inspect.signature(getattr(step, "py_func", step)).parameters)[3:-1]  # (after actions, u, mask)
    args = [False if name == "auto_forced" else value for name, value in zip(names, game.args_of("step_nb"))]
    step(np.array([action], dtype=np.int64), u, np.empty((0, game.num_actions), dtype=np.bool_), *args, *one)
    return one


def _placement_effects(game: Any, state: Any, row: int, action: int) -> str:
    p = int(state.to_play[row])
    cell = (action - ACTION_PLACE) // 4
    after = _simulate(game, state, row, action)
    out = []
    gained = after.completed[0, p].astype(int) - state.completed[row, p].astype(int)
    for k in range(NUM_FEATURES):
        for _ in range(max(0, int(gained[k]))):
            out.append(("builds " if k in (8, 9, 10) else "completes ") + FEATURE_NAMES[k])
    deltas = []
    dgoods = after.goods[0, p].astype(int) - state.goods[row, p].astype(int)
    for g in range(NUM_GOODS):
        if dgoods[g]:
            deltas.append(f"{dgoods[g]:+d} {GOOD_NAMES[g]}")
    for label, field in (("coins", "coins"), ("bread", "bread"), ("VP", "vp")):
        d = int(getattr(after, field)[0, p]) - int(getattr(state, field)[row, p])
        if d:
            deltas.append(f"{d:+d} {label}")
    steps = int(after.track[0, p]) - int(state.track[row, p])
    banderole = bool(data.BOARD_BANDEROLE[int(state.board[row, p]), cell])
    if steps or banderole:
        deltas.append(("banderole: " if banderole else "") + f"track {int(state.track[row, p])} -> {int(after.track[0, p])}")
    dvilla = int(after.villa_vp[0, p]) - int(state.villa_vp[row, p])
    if dvilla:
        deltas.append(f"villas {dvilla:+d} VP")
    for i in range(data.TASKS_PER_PLAYER):
        if after.task_done[0, p, i] and not state.task_done[row, p, i]:
            side, j = divmod(i, 2)
            deltas.append(f"frame task {task_text(int(state.frame[row, p, side]), j, side)}")
    if int(after.decision[0]) == data.DEC_FOUNTAIN_RETURN and int(after.to_play[0]) == p:
        deltas.append("fountain draw")
    picks = int(after.craft_pending[0]) - int(state.craft_pending[row])
    if picks > 0 or (int(after.decision[0]) == data.DEC_DISPLAY_PICK and int(state.decision[row]) != data.DEC_DISPLAY_PICK):
        deltas.append("craftsman: display pick")
    return "; ".join(out + deltas)


# --- action_to_str ------------------------------------------------------------------------------------

def action_to_str(game: Any, state: Any, action: int, row: int = 0) -> str:
    """'build L37 (VV .W W. .., 1 ch) on (2, 2) turned 1 -> .. VV .W W.; banderole: track 3 -> 4': what the
    action does, in words (the engine's name is `game.action_names[action]`).

    Works for every index in every state (an illegal action is described as far as it means
    anything there and marked "[illegal now]"; in a finished game, "[the game is over]").
    """
    if not 0 <= action < game.num_actions:
        return f"no action {action}"
    if state.done[row]:
        return _detail(game, state, row, action, False) + " [the game is over]"
    legal = bool(game.legal_action_mask(core.take(state, [row]))[0, action])
    text = _detail(game, state, row, action, legal)
    return text if legal else text + " [illegal now]"


def _detail(game: Any, state: Any, row: int, action: int, legal: bool) -> str:
    s = state
    p = int(s.to_play[row])
    dec = int(s.decision[row])
    if action < ACTION_MOVE_CW:
        k = action - ACTION_SPACE
        if dec == data.DEC_START_SPACE:
            return f"start on space {k}"
        here = int(s.patrician[row, p])
        what = "stay on" if k == here else "bread move to"
        return f"{what} space {k} for 1 bread (depot {k}: {_depot_text(s, row, k)})"
    if action in (ACTION_MOVE_CW, ACTION_MOVE_CCW):
        way = "clockwise" if action == ACTION_MOVE_CW else "counter-clockwise"
        start = int(s.patrician[row, p])
        if start < 0:
            return f"normal move {way} (no patrician placed yet)"
        direction = 1 if action == ACTION_MOVE_CW else NUM_SPACES - 1
        dest = int(kernels.walk(kernels._State(*s), row, start, direction))
        skipped = (dest - start) % NUM_SPACES if action == ACTION_MOVE_CW else (start - dest) % NUM_SPACES
        skip = f", skipping {skipped - 1} empty" if skipped > 1 else (", round the circle" if dest == start else "")
        return f"move {way}: space {start} -> {dest}{skip} (depot {dest}: {_depot_text(s, row, dest)})"
    if action < ACTION_PLACE:
        j = action - ACTION_TAKE
        d = int(s.patrician[row, p])
        if d < 0:
            return f"take depot slot {j}"
        t = int(s.depot[row, d, j])
        return f"take {tile_text(t)} from depot {d}" if t >= 0 else f"depot {d} slot {j} is empty"
    if action < ACTION_STORE:
        cell, rot = divmod(action - ACTION_PLACE, 4)
        t = int(s.tile_pending[row])
        if t < 0:
            return f"build the pending tile on {_cell_name(cell)} turned {rot}"
        text = f"build {tile_text(t)} on {_cell_name(cell)} turned {rot} -> {ports_text(t, rot)}"
        if legal and dec == data.DEC_PLACE:
            effects = _placement_effects(game, s, row, action)
            if effects:
                text += "; " + effects
        return text
    if action == ACTION_STORE:
        t = int(s.tile_pending[row])
        what = tile_text(t) if t >= 0 else "the pending tile"
        return f"store {what} face down (stored {int(s.stored[row, p])} -> {int(s.stored[row, p]) + 1})"
    if action < ACTION_RETURN:
        i = action - ACTION_DISPLAY
        t = int(s.display[row, i])
        return f"craftsman: take {tile_text(t)} from the bottom display" if t >= 0 else f"display slot {i} is empty"
    if action < ACTION_SCORE_SPACE:
        k = action - ACTION_RETURN
        return f"return fountain card FC{k:02d} ({FOUNTAIN_TEXT[k]}) to the deck bottom"
    if action < ACTION_ORDER_LOW:
        sp = action - ACTION_SCORE_SPACE
        a, c = (int(x) for x in CIRCLE_SLOTS[sp])
        if not SPACE_USABLE[game.num_players, sp]:
            return f"circle space {sp} (slots {a}, {c}) is not used with {game.num_players} players"
        owner = int(s.circle_owner[row, sp])
        if owner >= 0:
            return f"circle space {sp} is taken by player_{owner}"
        cards = []
        for slot in (a, c):
            card = int(s.card_slot[row, slot])
            cards.append(card_text(card, f"units now: {_units_available(s, row, p, card)}"))
        return f"disc on circle space {sp}: " + " and ".join(cards)
    if action <= ACTION_ORDER_HIGH:
        sp = int(s.cur_space[row])
        if sp < 0:
            return f"resolve the card in the {'higher' if action == ACTION_ORDER_HIGH else 'lower'}-numbered slot first"
        a, c = (int(x) for x in CIRCLE_SLOTS[sp])
        first, second = (c, a) if action == ACTION_ORDER_HIGH else (a, c)
        return (f"resolve {CARD_NAMES[int(s.card_slot[row, first])]} (slot {first}) first, "
                f"then {CARD_NAMES[int(s.card_slot[row, second])]} (slot {second})")
    k = action - ACTION_COUNT
    if dec not in (data.DEC_CARD_UNITS, data.DEC_CARD_BREAD) or int(s.cur_space[row]) < 0:
        return f"count {k}"
    card = int(kernels.current_card(kernels._State(*(f[row:row + 1] for f in s)), 0))
    gain = CARD_GAIN[card]
    if dec == data.DEC_CARD_UNITS:
        pay = []
        coins = 0
        for g in range(NUM_GOODS):
            need = int(CARD_PAY[card, g]) * k
            have = int(s.goods[row, p, g])
            if min(need, have):
                pay.append(f"{min(need, have)} {GOOD_NAMES[g]}")
            coins += max(0, need - have)
        if coins:
            pay.append(f"{coins} coins")
        paid = " + ".join(pay) or "nothing"
        if not k:
            return f"pay nothing for {card_text(card)} (3-bread payments next, else -{data.FAIL_VP} VP)"
        return f"{k} units of {card_text(card)}: pay {paid}, gain {_amounts(gain * k, GAIN_NAMES)}"
    units = int(s.units[row])
    total = units + k
    if total == 0:
        return f"no 3-bread payment: {CARD_NAMES[card]} fails, -{data.FAIL_VP} VP"
    got = _amounts(gain * total, GAIN_NAMES)
    bread = f"{k} x 3 bread ({3 * k} bread)" if k else "no 3-bread payment"
    return f"{bread}: {CARD_NAMES[card]} scores {total} units -> {got}"


# --- text score sheet -----------------------------------------------------------------------------------

def _cell_lines(t: int, rot: int, banderole: bool, shovel: bool) -> list[str]:
    if t < 0:
        mid = "flag" if banderole else ("shov" if shovel else "    ")
        return ["    ", mid, "    ", "    "]
    L = [LABEL_CHARS[int(x)] for x in ROT_PORTS[t, rot]]
    ctr = " MBF"[int(TILE_CENTRE[t])]
    ch = str(int(TILE_CHIMNEYS[t])) if TILE_CHIMNEYS[t] else " "
    return [f" {L[0]}{L[1]} ", f"{L[7]}{ctr}{ch}{L[2]}", f"{L[6]}  {L[3]}", f" {L[5]}{L[4]} "]


def district_lines(state: Any, row: int, p: int) -> list[str]:
    """The district of player p as a text grid with the frame tasks in the margins."""
    board = int(state.board[row, p])
    shovel = int(data.BOARD_SHOVEL[board])
    top = [" " * 5] * 6
    bottom = [" " * 5] * 6
    left = ["    "] * 6
    right = ["    "] * 6
    for side in range(4):
        part = int(state.frame[row, p, side])
        for j in range(2):
            kind, pos = int(FRAME_TASKS[part, j, 0]), int(FRAME_TASKS[part, j, 1])
            is_row, idx = (int(x) for x in TASK_LINE[side, pos])
            mark = f"{KIND_CHAR[kind]}{int(FRAME_POSITION_VP[pos])}{'*' if state.task_done[row, p, 2 * side + j] else ' '}"
            if side == 0:
                top[idx] = f" {mark} "
            elif side == 2:
                bottom[idx] = f" {mark} "
            elif side == 1:
                right[idx] = f" {mark}"
            else:
                left[idx] = f"{mark} "
    lines = ["    " + " " + "".join(top), "    +" + "----+" * 6 + "    "]
    for r in range(6):
        cells = [_cell_lines(int(state.cell_tile[row, p, 6 * r + c]), int(state.cell_rot[row, p, 6 * r + c]),
                             bool(data.BOARD_BANDEROLE[board, 6 * r + c]), 6 * r + c == shovel) for c in range(6)]
        for i in range(4):
            body = "|" + "|".join(cell[i] for cell in cells) + "|"
            lines.append((left[r] if i == 1 else "    ") + body + (right[r] if i == 1 else "    "))
        lines.append("    +" + "----+" * 6 + "    ")
    lines.append("    " + " " + "".join(bottom))
    return lines


def _player_info(game: Any, state: Any, row: int, p: int, score: int) -> list[str]:
    s = state
    marks = seat_marks(s, row, p, start="start player")
    parts = game.score_parts(core.take(s, [row]))
    lines = [f"player_{p}" + (f" ({', '.join(marks)})" if marks else "") + f"  board {int(s.board[row, p]) + 1}"]
    if s.done[row]:
        lines.append(f"final VP {score}: cards {int(parts['vp_cards'][0, p])}, track {int(parts['track'][0, p])}, "
                     f"tasks {int(parts['tasks'][0, p])}, villas {int(parts['villas'][0, p])},")
        lines.append(f"  leftovers {int(parts['leftovers'][0, p])}, fountain cards {int(parts['fountain_cards'][0, p])}")
    else:
        lines.append(f"VP {score} running: cards {int(parts['vp_cards'][0, p])}, track {int(parts['track'][0, p])}, "
                     f"tasks {int(parts['tasks'][0, p])}, villas {int(parts['villas'][0, p])}")
    lines.append(f"track space {int(s.track[row, p])}, stack height {int(s.height[row, p])}")
    goods = " ".join(f"{GOOD_NAMES[g]} {int(s.goods[row, p, g])}" for g in range(NUM_GOODS))
    lines.append(f"goods: {goods}")
    lines.append(f"coins {int(s.coins[row, p])}  bread {int(s.bread[row, p])}  stored {int(s.stored[row, p])}  "
                 f"fountain cards {int(s.fountain_hand[row, p].sum())}")
    pat = int(s.patrician[row, p])
    discs = [f"{sp}" for sp in range(data.NUM_CIRCLE_SPACES) if s.circle_owner[row, sp] == p]
    lines.append(f"patrician: {'space ' + str(pat) if pat >= 0 else '-'}; discs on {', '.join(discs) or '-'}")
    done = [f"{FEATURE_SHORT[k]} {int(n)}" for k, n in enumerate(s.completed[row, p]) if n]
    lines.append("completed: " + (", ".join(done) or "-"))
    lines.append(f"chimneys {int(s.chimneys[row, p])}, completed villas {int(s.villa_vp[row, p])} VP")
    lines.append("frame tasks (* = satisfied):")
    for side in range(4):
        part = int(s.frame[row, p, side])
        tasks = []
        for j in range(2):
            tasks.append(task_text(part, j, side) + (" *" if s.task_done[row, p, 2 * side + j] else ""))
        lines.append(f" {SIDE_NAMES[side]} F{part + 1:02d}: " + "; ".join(tasks))
    return lines


def _scoring_area(game: Any, state: Any, row: int) -> list[str]:
    s = state
    P = game.num_players

    def space(sp: int) -> str:
        if not SPACE_USABLE[P, sp]:
            return f"{sp:>2}:xx "
        owner = int(s.circle_owner[row, sp])
        return f"{sp:>2}:--  " if owner < 0 else f"{sp:>2}:p{owner}/{int(s.circle_phase[row, sp]) + 1}"

    def card(slot: int) -> str:
        c = int(s.card_slot[row, slot])
        text = card_short(c) if c >= 0 else "-"
        return f"[{slot:>2} {text:<15}]"

    lines = []
    for r in range(4):
        horiz = [space(2 * r), space(2 * r + 1)]
        lines.append(f"  {card(3 * r)} {horiz[0]:<7} {card(3 * r + 1)} {horiz[1]:<7} {card(3 * r + 2)}")
        if r < 3:
            vert = [space(8 + 3 * r + c) for c in range(3)]
            lines.append("       " + "".join(f"{v:<28}" for v in vert).rstrip())
    return lines


def _head_lines(game: Any, state: Any, row: int, scores: np.ndarray) -> list[str]:
    """The lines both sheets open with: the phase and round, who is to play (or the final VP), the tile to
    build and the circle space being scored."""
    s = state
    P = game.num_players
    dec = int(s.decision[row])
    phase, rnd = int(s.phase[row]), int(s.round[row])
    where = "scoring round" if rnd >= data.ROUNDS_PER_PHASE else f"round {rnd + 1}/7"
    lines = [f"Carpe Diem — {P} players, phase {phase + 1}/4, {where}"]
    if s.done[row]:
        lines.append("Game over; final VP " + ", ".join(f"player_{p} {int(scores[p])}" for p in range(P)))
    else:
        lines.append(f"player_{int(s.to_play[row])} to play: {DECISION_NAMES[dec]}; start player player_{int(s.start_player[row])}")
    t = int(s.tile_pending[row])
    if t >= 0:
        lines.append(f"tile to build: {tile_text(t)}")
    if int(s.cur_space[row]) >= 0:
        sp = int(s.cur_space[row])
        a, c = (int(x) for x in CIRCLE_SLOTS[sp])
        first, second = (c, a) if s.first_high[row] else (a, c)
        lines.append(f"scoring on circle space {sp}: {card_text(int(s.card_slot[row, first]))} then "
                     f"{card_text(int(s.card_slot[row, second]))}" + (f"; units {int(s.units[row])}" if dec == data.DEC_CARD_BREAD else ""))
    return lines


def score_sheet(game: Any, state: Any, row: int = 0, seat: int | None = None, detail: bool = False) -> str:
    """Central board, scoring area, track and every district: public information only, plus with
    `seat=p` that player's own fountain cards (held, returned, a draw in progress).

    The default view fits a terminal (`compact_sheet`); `detail=True` gives the full sheet with every
    district as a text grid beside its player's details."""
    if not detail:
        return compact_sheet(game, state, row, seat)
    s = state
    P = game.num_players
    scores = game.scores(core.take(s, [row]))[0]
    lines = _head_lines(game, s, row, scores)
    lines.append("Circle of depots (spaces 0-6, cw = increasing):")
    for d in range(NUM_SPACES):
        who = [f"player_{p}" for p in range(P) if s.patrician[row, p] == d]
        slots = "  ".join((tile_text(int(x)) if x >= 0 else "--") for x in s.depot[row, d])
        lines.append(f"  {d}: {slots}" + (f"   <- {', '.join(who)}" if who else ""))
    disp = [f"{i}:{tile_text(int(x))}" for i, x in enumerate(s.display[row]) if x >= 0]
    lines.append("Bottom display: " + (", ".join(disp) if disp else "empty"))
    locs = s.tile_loc[row]
    light = int((locs[:data.NUM_LIGHT] == kernels.LOC_SUPPLY).sum())
    dark = int((locs[data.NUM_LIGHT:] == kernels.LOC_SUPPLY).sum())
    lines.append(f"Supply face down: {light} light, {dark} dark; removed {int((locs == kernels.LOC_REMOVED).sum())}")
    lines.append("Scoring area (cards per slot; circle spaces s:pX/phase, -- free, xx unused):")
    lines.extend(_scoring_area(game, s, row))
    stacks = []
    for sp in sorted({int(x) for x in s.track[row, :P]}, reverse=True):
        who = sorted((p for p in range(P) if s.track[row, p] == sp), key=lambda p: -int(s.height[row, p]))
        stacks.append(f"{sp}: " + " over ".join(f"player_{p}" for p in who))
    lines.append("Banderole track (top of stack first): " + "; ".join(stacks))
    for p in range(P):
        lines.append("")
        grid = district_lines(s, row, p)
        info = _player_info(game, s, row, p, int(scores[p]))
        width = len(grid[1])
        for i in range(max(len(grid), len(info))):
            left = grid[i] if i < len(grid) else ""
            right = info[i] if i < len(info) else ""
            lines.append(f"{left:<{width}}  {right}".rstrip())
        if p == seat:
            lines.extend(own_fountain_lines(s, row, p))
    return "\n".join(lines)


def own_fountain_lines(state: Any, row: int, p: int) -> list[str]:
    """Player p's private fountain cards: held, returned, and a draw in progress (its to_play only)."""
    s = state
    held = [f"{int(n)}x {FOUNTAIN_TEXT[k]}" for k, n in enumerate(s.fountain_hand[row, p]) if n]
    lines = ["your fountain cards: " + ("; ".join(held) or "none")]
    returned = [f"{int(n)}x {FOUNTAIN_TEXT[k]}" for k, n in enumerate(s.fountain_returned[row, p]) if n]
    if returned:
        lines.append("you returned: " + "; ".join(returned))
    if int(s.to_play[row]) == p and s.fountain_drawn[row, 0] >= 0:
        lines.append("you drew: " + "; ".join(FOUNTAIN_TEXT[int(k)] for k in s.fountain_drawn[row] if k >= 0))
    return lines


def tile_short(t: int) -> str:
    """At most 18 characters: 'L18:VV......,M,2ch' (the 8 ports N E S W, then market/bakery/fountain
    M B F and the chimneys, each only when present)."""
    text = f"{TILE_NAMES[t]}:" + "".join(LABEL_CHARS[int(x)] for x in ROT_PORTS[t, 0])
    if TILE_CENTRE[t]:
        text += "," + " MBF"[int(TILE_CENTRE[t])]
    if TILE_CHIMNEYS[t]:
        text += f",{int(TILE_CHIMNEYS[t])}ch"
    return text


def _mini_cell(state: Any, row: int, p: int, cell: int) -> str:
    """Three characters for one district cell: the tile's name, or `f` (banderole), `s` (shovel), `.`."""
    t = int(state.cell_tile[row, p, cell])
    if t >= 0:
        return TILE_NAMES[t]
    board = int(state.board[row, p])
    return " f " if data.BOARD_BANDEROLE[board, cell] else " s " if cell == int(data.BOARD_SHOVEL[board]) else " . "


def compact_sheet(game: Any, state: Any, row: int = 0, seat: int | None = None) -> str:
    """The terminal-sized sheet: the depots and the display as short tile texts (`tile_short`), the
    scoring area as in the detail view, two lines per player and every district as a 6 x 6 grid of
    tile names side by side (`f` banderole, `s` shovel, `.` empty); `seat=p` adds that player's own
    fountain cards."""
    s = state
    P = game.num_players
    scores = game.scores(core.take(s, [row]))[0]
    lines = _head_lines(game, s, row, scores)
    empty = []  # depots without tiles share one line, with the patricians standing there
    for d in range(NUM_SPACES):
        who = [f"p{p}" for p in range(P) if s.patrician[row, p] == d]
        if (s.depot[row, d] < 0).all():
            empty.append(f"{d}" + (f" (<- {' '.join(who)})" if who else ""))
            continue
        slots = "  ".join((tile_short(int(x)) if x >= 0 else "--") for x in s.depot[row, d])
        lines.append(f"depot {d}: {slots}" + (f"  <- {' '.join(who)}" if who else ""))
    if empty:
        lines.append("empty depots: " + ", ".join(empty))
    disp = [f"{i}={tile_short(int(x))}" for i, x in enumerate(s.display[row]) if x >= 0]
    lines.append("display: " + (", ".join(disp) if disp else "empty"))
    locs = s.tile_loc[row]
    light = int((locs[:data.NUM_LIGHT] == kernels.LOC_SUPPLY).sum())
    dark = int((locs[data.NUM_LIGHT:] == kernels.LOC_SUPPLY).sum())
    stacks = []
    for sp in sorted({int(x) for x in s.track[row, :P]}, reverse=True):
        who = sorted((p for p in range(P) if s.track[row, p] == sp), key=lambda p: -int(s.height[row, p]))
        stacks.append(f"{sp}: " + "/".join(f"p{p}" for p in who))
    lines.append(f"supply {light} light, {dark} dark; banderole track (top first) " + "; ".join(stacks))
    lines.extend(_scoring_area(game, s, row))
    parts = game.score_parts(core.take(s, [row]))
    for p in range(P):
        marks = seat_marks(s, row, p, ("you", p == seat))
        goods = " ".join(f"{GOOD_NAMES[g]} {int(s.goods[row, p, g])}" for g in range(NUM_GOODS))
        pat = int(s.patrician[row, p])
        discs = [f"{sp}" for sp in range(data.NUM_CIRCLE_SPACES) if s.circle_owner[row, sp] == p]
        lines.append(f"player_{p}" + (f" ({', '.join(marks)})" if marks else "")
                     + f": VP {int(scores[p])} = cards {int(parts['vp_cards'][0, p])} track {int(parts['track'][0, p])} "
                     f"tasks {int(parts['tasks'][0, p])} villas {int(parts['villas'][0, p])}; on space {int(s.track[row, p])}; "
                     f"patrician {pat if pat >= 0 else '-'}; discs {','.join(discs) or '-'}")
        lines.append(f"  {goods}; coins {int(s.coins[row, p])} bread {int(s.bread[row, p])} stored {int(s.stored[row, p])}; "
                     f"fountain cards {int(s.fountain_hand[row, p].sum())}; chimneys {int(s.chimneys[row, p])}")
        if p == seat:  # the seat's own fountain cards, by kind (each scores 2 VP per feature of its kind)
            held = ", ".join(f"{int(n)}x {FEATURE_NAMES[k]}" for k, n in enumerate(s.fountain_hand[row, p]) if n) or "none"
            returned = ", ".join(f"{int(n)}x {FEATURE_NAMES[k]}" for k, n in enumerate(s.fountain_returned[row, p]) if n)
            drawn = ", ".join(FEATURE_NAMES[int(k)] for k in s.fountain_drawn[row] if k >= 0) if int(s.to_play[row]) == p else ""
            lines.append(f"  your fountain cards (2 VP per feature): {held}" + (f"; returned {returned}" if returned else "")
                         + (f"; drawing {drawn}" if drawn else ""))
    lines.append("  ".join(f"player_{p} district".ljust(23) for p in range(P)).rstrip())
    for r in range(6):
        lines.append("  ".join(" ".join(_mini_cell(s, row, p, 6 * r + c) for c in range(6)) for p in range(P)))
    return "\n".join(fit_width(lines))


# chance outcomes narrated by golden playthroughs (envs/playthrough.py): setup deals, the depot tiles
# turned face up at each phase start, and the fountain cards drawn
CHANCE_FIELDS = {
    "frame": str,
    "board": str,
    "card_slot": lambda c: CARD_NAMES[c],
    "display": lambda t: TILE_NAMES[t],
    "depot": lambda t: TILE_NAMES[t],
    "fountain_drawn": str,
}
