"""The picture of a Carpe Diem position: `render_rgb`, the rgb_array render, drawn with Pillow.

Public information only, unless `seat` names the seat whose own fountain cards (and pending fountain
draw) to show as well; the final scoring reveals every player's fountain cards, so a finished game shows them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.carpe_diem import data
from meeple.envs.carpe_diem.data import (
    CARD_RED, CIRCLE_SLOTS, DECISION_NAMES, FRAME_POSITION_VP, FRAME_TASKS, NUM_CELLS, NUM_GOODS, NUM_SPACES,
    ROT_PORTS, SPACE_USABLE, TASK_LINE, TILE_CENTRE, TILE_CHIMNEYS, TILE_NAMES,
)
from meeple.envs.carpe_diem.data import FEATURE_SHORT, NUM_FOUNTAIN_KINDS
from meeple.envs.carpe_diem.render import FEATURE_CHAR, GOOD_LETTERS, KIND_CHAR, card_short
from meeple.envs.palette import INK
from meeple.envs.textview import seat_marks

# --- RGB picture --------------------------------------------------------------------------------------------

LABEL_RGB = (
    (168, 204, 120),  # . meadow
    (178, 64, 48),  # V villa
    (238, 196, 40),  # m merchant (yellow roof, as in the rules)
    (222, 128, 46),  # b baker
    (52, 72, 150),  # a administrator
    (160, 120, 205),  # c craftsman
    (118, 32, 78),  # W vineyard
    (46, 128, 58),  # G garden
    (214, 184, 126),  # H chicken yard
    (70, 156, 222),  # P pond
)
CENTRE_RGB = ((0, 0, 0), (250, 224, 120), (150, 96, 50), (120, 210, 235))
SEAT_RGB = ((214, 48, 48), (44, 96, 214), (236, 196, 24), (245, 245, 245))
BG_RGB = (246, 240, 226)
EMPTY_RGB = (228, 218, 196)
WIDTH, HEIGHT = 1100, 810
LEGEND_H = 84  # the legend strip below the board and districts
CELL = 40
FRAME = 28  # the frame around a district's grid (its tasks)
DISTRICT_W, DISTRICT_H = 305, 400  # a player's district block, 2 x 2 from DISTRICT_X
DISTRICT_X = 490
CIRCLE = (240, 220, 118)  # the circle of depots: centre x, y and radius
MINI = 26  # a depot's or the display's tile
DISPLAY_Y = 410
CARDS_XY = (16, 456)  # the scoring area's first card slot
CARD_W, CARD_H, CARD_GAP_X, CARD_GAP_Y = 132, 30, 30, 16
TRACK_Y = 680  # the banderole track
FOUNTAIN_Y = 736  # the seat's own fountain cards, below the banderole track
TASK_KIND_LABEL = {k: lab for lab, k in enumerate(data.LABEL_FEATURE) if k >= 0}


def _font(size: int) -> Any:
    from meeple.envs import canvas  # Pillow loads with the first picture, not with the game

    return canvas.font(size)


def district_origin(p: int) -> tuple[int, int]:
    """The top-left corner of seat p's district block."""
    return DISTRICT_X + DISTRICT_W * (p % 2), 10 + DISTRICT_H * (p // 2)


def grid_origin(p: int) -> tuple[int, int]:
    """The top-left corner of cell (0, 0) of seat p's district."""
    x0, y0 = district_origin(p)
    return x0 + FRAME + 2, y0 + 54 + FRAME


def depot_centre(d: int) -> tuple[float, float]:
    """The centre of depot d on the circle."""
    ccx, ccy, radius = CIRCLE
    ang = -np.pi / 2 + 2 * np.pi * d / NUM_SPACES
    return ccx + radius * np.cos(ang), ccy + radius * np.sin(ang)


def depot_slot(d: int, j: int) -> tuple[float, float, int, int]:
    """(x, y, w, h) of tile slot j of depot d."""
    dx, dy = depot_centre(d)
    x, y = dx - MINI - 1, dy - MINI - 1
    return x + (j % 2) * (MINI + 2), y + (j // 2) * (MINI + 2), MINI, MINI


def display_slot(i: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of slot i of the bottom display."""
    return 70 + i * 34, DISPLAY_Y, MINI, MINI


def card_box(slot: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of card slot `slot` of the scoring area."""
    r, c = divmod(slot, 3)
    return CARDS_XY[0] + c * (CARD_W + CARD_GAP_X), CARDS_XY[1] + r * (CARD_H + CARD_GAP_Y), CARD_W, CARD_H


def circle_space(sp: int) -> tuple[float, float]:
    """The centre of circle space sp of the scoring area (between two card slots)."""
    a, c = (int(v) for v in CIRCLE_SLOTS[sp])
    (ax, ay, aw, ah), (cx, cy, _, _) = card_box(a), card_box(c)
    if sp < 8:
        return (ax + aw + cx) / 2, ay + ah / 2
    return ax + aw / 2, (ay + ah + cy) / 2


def pending_tile() -> tuple[int, int, int, int]:
    """(x, y, w, h) of the tile being built, in the circle's centre."""
    ccx, ccy, _ = CIRCLE
    return ccx - 24, ccy - 24, 48, 48


def fountain_chips(s: Any, row: int, seat: int) -> list[tuple[int, bool, tuple[int, int, int, int]]]:
    """The seat's own fountain cards as chips below the banderole track: (kind, just drawn, (x, y, w, h)) per
    chip, the kinds in hand first, then the two cards of a draw it is returning one of."""
    kinds = [(k, False) for k in range(NUM_FOUNTAIN_KINDS) if s.fountain_hand[row, seat, k]]
    if seat == int(s.to_play[row]) and not s.done[row]:
        kinds += [(int(k), True) for k in s.fountain_drawn[row] if k >= 0]
    return [(k, new, (12 + 65 * (i % 7), FOUNTAIN_Y + 18 + 24 * (i // 7), 62, 20)) for i, (k, new) in enumerate(kinds)]


def draw_tile(draw: Any, x: float, y: float, size: float, t: int, rot: int) -> None:
    """Tile t turned rot with its top-left corner at (x, y): meadow ground, landscape triangles per
    port, villa / lodging bands along whole sides, chimneys as dark squares, the centre building as a
    lettered disc; dark tiles get a dark rim."""
    s = size
    cx, cy = x + s / 2, y + s / 2
    corners = [(x, y), (x + s / 2, y), (x + s, y), (x + s, y + s / 2), (x + s, y + s), (x + s / 2, y + s),
               (x, y + s), (x, y + s / 2)]
    draw.rectangle([x, y, x + s, y + s], fill=LABEL_RGB[0])
    labels = [int(v) for v in ROT_PORTS[t, rot]]
    for q in range(8):
        if labels[q] >= 6:
            draw.polygon([corners[q], corners[(q + 1) % 8], (cx, cy)], fill=LABEL_RGB[labels[q]])
    band = s * 0.3
    chimneys = int(TILE_CHIMNEYS[t])
    first_villa = True
    for side in range(4):
        lab = labels[2 * side]
        if not 1 <= lab <= 5:
            continue
        box = ((x, y, x + s, y + band), (x + s - band, y, x + s, y + s), (x, y + s - band, x + s, y + s),
               (x, y, x + band, y + s))[side]
        draw.rectangle(box, fill=LABEL_RGB[lab], outline=INK)
        if lab == 1 and first_villa and chimneys:
            first_villa = False
            q = max(2.0, s * 0.08)
            for i in range(chimneys):
                if side in (0, 2):
                    px, py = box[0] + s * 0.2 + i * 2.2 * q, (box[1] + box[3]) / 2 - q / 2
                else:
                    px, py = (box[0] + box[2]) / 2 - q / 2, box[1] + s * 0.2 + i * 2.2 * q
                draw.rectangle([px, py, px + q, py + q], fill=INK)
    ctr = int(TILE_CENTRE[t])
    if ctr:  # the centre building's letter where the disc is large enough for it; its colour says it everywhere
        r = s * 0.2
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=CENTRE_RGB[ctr], outline=INK)
        if s >= 36:
            draw.text((cx, cy + 1), " MBF"[ctr], fill=INK, font=_font(max(13, int(s * 0.32))), anchor="mm")
    rim = (60, 60, 60) if t >= data.NUM_LIGHT else (150, 140, 120)
    draw.rectangle([x, y, x + s, y + s], outline=rim, width=2 if t >= data.NUM_LIGHT else 1)


def _draw_district(draw: Any, game: Any, s: Any, row: int, p: int, score: int) -> None:
    font, small = _font(14), _font(13)
    x0, y0 = district_origin(p)
    marks = seat_marks(s, row, p)
    board = int(s.board[row, p])
    draw.ellipse([x0, y0 + 2, x0 + 13, y0 + 15], fill=SEAT_RGB[p], outline=INK)
    draw.text((x0 + 19, y0), f"player_{p}  {score} VP  board {board + 1}" + (f"  ({', '.join(marks)})" if marks else ""),
              fill=INK, font=font)
    goods = " ".join(f"{GOOD_LETTERS[g]}{int(s.goods[row, p, g])}" for g in range(NUM_GOODS))
    draw.text((x0, y0 + 19), f"goods {goods}   coins {int(s.coins[row, p])}   bread {int(s.bread[row, p])}", fill=INK,
              font=small)
    draw.text((x0, y0 + 36), f"stored {int(s.stored[row, p])}   fountain cards {int(s.fountain_hand[row, p].sum())}   "
              f"{int(s.chimneys[row, p])} chimneys", fill=INK, font=small)
    gx, gy = grid_origin(p)
    shovel = int(data.BOARD_SHOVEL[board])
    draw.rectangle([gx - FRAME, gy - FRAME, gx + 6 * CELL + FRAME, gy + 6 * CELL + FRAME], fill=(205, 190, 160), outline=INK)
    for cell in range(NUM_CELLS):
        r, c = divmod(cell, 6)
        x, y = gx + c * CELL, gy + r * CELL
        t = int(s.cell_tile[row, p, cell])
        if t >= 0:
            draw_tile(draw, x, y, CELL, t, int(s.cell_rot[row, p, cell]))
            continue
        draw.rectangle([x, y, x + CELL, y + CELL], fill=EMPTY_RGB, outline=(190, 178, 150))
        if data.BOARD_BANDEROLE[board, cell]:
            draw.line([x + 12, y + 8, x + 12, y + 32], fill=INK, width=2)
            draw.polygon([(x + 13, y + 8), (x + 30, y + 13), (x + 13, y + 19)], fill=SEAT_RGB[p], outline=INK)
        if cell == shovel:
            draw.line([x + 20, y + 6, x + 20, y + 24], fill=(110, 70, 30), width=3)
            draw.polygon([(x + 13, y + 22), (x + 27, y + 22), (x + 27, y + 30), (x + 20, y + 35), (x + 13, y + 30)],
                         fill=(150, 150, 160), outline=INK)
    half = FRAME // 2
    for side in range(4):
        part = int(s.frame[row, p, side])
        for j in range(2):
            kind, pos = int(FRAME_TASKS[part, j, 0]), int(FRAME_TASKS[part, j, 1])
            is_row, idx = (int(v) for v in TASK_LINE[side, pos])
            mid = idx * CELL + CELL / 2
            cx, cy = ((gx + mid, gy - half), (gx + 6 * CELL + half, gy + mid), (gx + mid, gy + 6 * CELL + half),
                      (gx - half, gy + mid))[side]
            done = bool(s.task_done[row, p, 2 * side + j])
            colour = LABEL_RGB[TASK_KIND_LABEL[kind]]
            draw.rectangle([cx - 12, cy - 11, cx + 12, cy + 11], fill=colour if done else (250, 250, 250), outline=colour,
                           width=3)
            text_rgb = (255, 255, 255) if done and kind not in (4, 8) else INK
            draw.text((cx, cy + 1), f"{KIND_CHAR[kind]}{int(FRAME_POSITION_VP[pos])}", fill=text_rgb, font=small, anchor="mm")
    done = " ".join(f"{FEATURE_CHAR[k]}{int(n)}" for k, n in enumerate(s.completed[row, p]) if n)
    draw.text((x0, gy + 6 * CELL + FRAME + 4), f"completed: {done or '-'}", fill=INK, font=small)


def _own_cards(draw: Any, s: Any, row: int, p: int, x: int, y: int) -> None:
    """Player p's fountain cards by kind (each scores 2 VP per item of its feature kind), revealed by the final
    scoring."""
    kinds = ", ".join(FEATURE_SHORT[k] + (f" x{int(n)}" if n > 1 else "") for k, n in enumerate(s.fountain_hand[row, p])
                      if n) or "-"
    draw.text((x, y), f"revealed fountain cards: {kinds}", fill=(120, 40, 20), font=_font(13))


def _fountain(draw: Any, s: Any, row: int, seat: int) -> None:
    """The seat's own fountain cards as chips (its view only): the kinds in hand with their counts, the cards
    just drawn (one goes back), and the kinds it returned to the deck bottom."""
    small = _font(13)
    label = "your fountain cards (2 VP per item of the kind; orange: just drawn)"
    if s.fountain_returned[row, seat].any():
        label = "your fountain cards; returned " + ", ".join(
            FEATURE_SHORT[k] + (f" x{int(n)}" if n > 1 else "") for k, n in enumerate(s.fountain_returned[row, seat]) if n)
    draw.text((12, FOUNTAIN_Y), label, fill=(120, 40, 20), font=small)
    chips = fountain_chips(s, row, seat)
    for k, new, (x, y, w, h) in chips:
        n = 1 if new else int(s.fountain_hand[row, seat, k])
        draw.rectangle([x, y, x + w, y + h], fill=(246, 190, 120) if new else (250, 236, 214), outline=(120, 40, 20),
                       width=2 if new else 1)
        draw.text((x + w / 2, y + h / 2 + 1), f"{FEATURE_SHORT[k]} x{n}", fill=(120, 40, 20), font=small, anchor="mm")
    if not chips:
        draw.text((12, FOUNTAIN_Y + 19), "-", fill=(120, 40, 20), font=small)


def _legend(draw: Any, P: int, y: int) -> None:
    """What the colours and letters mean: port labels (tile colours and their letters), centre buildings,
    the players, frame tasks, scoring cards and discs."""
    small = _font(13)
    draw.line([8, y, WIDTH - 8, y], fill=(190, 178, 150))
    x = 10
    names = ("meadow", "villa", "merchant", "baker", "admin", "craftsman", "vineyard", "garden", "chicken yard", "pond")
    for lab, name in enumerate(names):
        if lab == 6:  # the landscapes on the second line
            x, y = 10, y + 20
        draw.rectangle([x, y + 6, x + 12, y + 18], fill=LABEL_RGB[lab], outline=INK)
        letter = "" if lab == 0 else data.LABEL_CHARS[lab] + " "
        label = f"{letter}{name}" + (" lodging" if 2 <= lab <= 5 else "")
        draw.text((x + 16, y + 12), label, fill=INK, font=small, anchor="lm")
        x += 26 + int(draw.textlength(label, font=small))
    for ctr, name in ((1, "market"), (2, "bakery"), (3, "fountain")):
        draw.ellipse([x, y + 4, x + 16, y + 20], fill=CENTRE_RGB[ctr], outline=INK)
        draw.text((x + 8, y + 13), " MBF"[ctr], fill=INK, font=small, anchor="mm")
        draw.text((x + 20, y + 12), name, fill=INK, font=small, anchor="lm")
        x += 30 + int(draw.textlength(name, font=small))
    x += 10
    for p in range(P):
        draw.ellipse([x, y + 5, x + 13, y + 18], fill=SEAT_RGB[p], outline=INK)
        draw.text((x + 17, y + 12), f"player_{p}", fill=INK, font=small, anchor="lm")
        x += 80
    notes = ("tile rims: light / dark (thick); dark squares: chimneys; small tiles show centre buildings by colour only; "
             "goods: W grapes, G herbs, H chickens, P fish",
             "frame tasks: feature letter + VP, filled once met; cards: red pay goods, green count features "
             "(code, needs > gains); discs: owner, phase placed")
    for i, note in enumerate(notes):
        draw.text((10, y + 24 + 19 * i), note, fill=INK, font=small)


def render_rgb(game: Any, state: Any, row: int = 0, seat: int | None = None) -> np.ndarray:
    """(894, 1100, 3) uint8 picture of row `row`: the central board on the left (circle of depots with
    the patricians, the tile being built, the bottom display, the scoring area with its discs, the
    banderole track), every district on the right (public information only)."""
    from PIL import Image

    from meeple.envs.canvas import Draw

    s = state
    P = game.num_players
    img = Image.new("RGB", (WIDTH, HEIGHT + LEGEND_H), BG_RGB)
    draw = Draw(img)
    font, small, big = _font(14), _font(13), _font(16)
    scores = game.scores(core.take(s, [row]))[0]
    dec = int(s.decision[row])
    rnd = int(s.round[row])
    where = "scoring" if rnd >= data.ROUNDS_PER_PHASE else f"round {rnd + 1}/7"
    title = f"Carpe Diem  phase {int(s.phase[row]) + 1}/4  {where}"
    status = "game over" if s.done[row] else f"player_{int(s.to_play[row])} to play: {DECISION_NAMES[dec]}"
    draw.text((12, 8), title, fill=INK, font=big)
    draw.text((12, 28), status, fill=INK, font=font)
    if seat is not None and not s.done[row]:
        _fountain(draw, s, row, seat)
    # circle of depots
    ccx, ccy, radius = CIRCLE
    mini = MINI
    draw.ellipse([ccx - radius - 8, ccy - radius - 8, ccx + radius + 8, ccy + radius + 8], outline=(170, 150, 120), width=3)
    for d in range(NUM_SPACES):
        ang = -np.pi / 2 + 2 * np.pi * d / NUM_SPACES
        dx, dy = depot_centre(d)
        x, y = dx - mini - 1, dy - mini - 1
        draw.rectangle([x - 3, y - 3, x + 2 * mini + 5, y + 2 * mini + 5], fill=(215, 200, 170), outline=INK)
        for j in range(4):
            t = int(s.depot[row, d, j])
            tx, ty, _, _ = depot_slot(d, j)
            if t >= 0:
                draw_tile(draw, tx, ty, mini, t, 0)
        draw.text((x - 12, dy), str(d), fill=INK, font=big, anchor="mm")
        ox, oy = ccx + (radius + 50) * np.cos(ang), ccy + (radius + 47) * np.sin(ang)
        who = [p for p in range(P) if s.patrician[row, p] == d]
        for i, p in enumerate(who):
            px = ox - 8 * (len(who) - 1) + 16 * i
            draw.ellipse([px - 7, oy - 7, px + 7, oy + 7], fill=SEAT_RGB[p], outline=INK)
    t = int(s.tile_pending[row])
    if t >= 0:
        x, y, w, _ = pending_tile()
        draw_tile(draw, x, y, w, t, 0)
        draw.text((ccx, ccy + 36), f"building {TILE_NAMES[t]}", fill=INK, font=small, anchor="mm")
    # bottom display
    draw.text((12, DISPLAY_Y + 5), "display", fill=INK, font=font)
    for i in range(data.DISPLAY_SLOTS):
        x, y, _, _ = display_slot(i)
        draw.rectangle([x - 1, y - 1, x + mini + 1, y + mini + 1], outline=(170, 150, 120))
        tt = int(s.display[row, i])
        if tt >= 0:
            draw_tile(draw, x, y, mini, tt, 0)
    # scoring area: 4 x 3 card slots, circle spaces between orthogonal neighbours
    for slot in range(data.NUM_CARD_SLOTS):
        card = int(s.card_slot[row, slot])
        x, y, w, h = card_box(slot)
        box = (x, y, x + w, y + h)
        if card < 0:
            draw.rectangle(box, outline=(200, 190, 170))
            continue
        red = bool(CARD_RED[card])
        draw.rectangle(box, fill=(246, 210, 200) if red else (206, 232, 200), outline=(170, 40, 40) if red else (40, 120, 40),
                       width=2)
        draw.text((x + w / 2, y + h / 2 + 1), card_short(card), fill=INK, font=small, anchor="mm")
    for sp in range(data.NUM_CIRCLE_SPACES):
        if not SPACE_USABLE[P, sp]:
            continue
        cx, cy = circle_space(sp)
        owner = int(s.circle_owner[row, sp])
        fill = SEAT_RGB[owner] if owner >= 0 else (255, 255, 255)
        width = 3 if sp == int(s.cur_space[row]) else 1
        draw.ellipse([cx - 8, cy - 8, cx + 8, cy + 8], fill=fill, outline=INK, width=width)
        if owner >= 0:
            draw.text((cx, cy + 1), str(int(s.circle_phase[row, sp]) + 1), fill=INK if owner in (2, 3) else (255, 255, 255),
                      font=small, anchor="mm")
    # banderole track 0..35
    ty = TRACK_Y
    draw.text((12, ty + 30), "banderole track (stacks: top last)", fill=INK, font=small)
    for sp in range(data.TRACK_SPACES):
        x = 12 + sp * 13
        draw.rectangle([x, ty, x + 12, ty + 12], fill=(250, 246, 236) if sp % 5 else (225, 212, 180), outline=(150, 130, 100))
        if sp % 5 == 0:
            draw.text((x + 6, ty + 21), str(sp), fill=INK, font=small, anchor="mm")
    for p in range(P):
        x = 12 + int(s.track[row, p]) * 13
        y = ty - 6 - 7 * int(s.height[row, p])
        draw.ellipse([x + 1, y - 3, x + 11, y + 5], fill=SEAT_RGB[p], outline=INK)
    # districts, 2 x 2
    for p in range(P):
        _draw_district(draw, game, s, row, p, int(scores[p]))
        if s.done[row]:  # final scoring reveals every hand
            x0, y0 = district_origin(p)
            _own_cards(draw, s, row, p, x0, grid_origin(p)[1] + 6 * CELL + FRAME + 21)
    _legend(draw, P, HEIGHT + 2)
    return np.asarray(img, dtype=np.uint8)
