"""The picture of an Attika position: `render_rgb`, the rgb_array render, drawn with Pillow.

Public information only (card counts, never their types), unless `seat` names the seat whose own
cards to show as well.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.attika import data
from meeple.envs.attika.data import (
    BUILDING_NAMES, FLOWER, LAND_SHRINE, LAND_SYMBOL, LANDSCAPES, NUM_LANDSCAPES, NUM_TILES, NUM_TYPES,
    ROTATED_FACE, SLOT_Q, SLOT_R, TILE_PLACED, TILE_STACK,
)
from meeple.envs.attika.render import GROUP_SHORT, TILE_NAMES, TYPE_CODES, _occupied, status_text

# --- RGB picture --------------------------------------------------------------------------------------------

LAND_RGB = ((70, 140, 215), (62, 138, 70), (206, 168, 112), (150, 150, 156))  # W F H M
BLANK_RGB = (240, 230, 204)
SHRINE_RGB = (252, 250, 244)
GOLD = (196, 152, 40)
SEAT_RGB = ((212, 52, 52), (240, 200, 30), (80, 200, 96), (48, 92, 212))  # red, yellow, green, blue
SEAT_TEXT = ((255, 255, 255), (20, 20, 20), (20, 20, 20), (255, 255, 255))
BG_RGB = (232, 226, 212)
PANEL_RGB = (246, 242, 232)
INK = (30, 30, 30)
EDGE_RGB = (150, 136, 112)
TILE_EDGE = (70, 50, 30)
MARK_RGB = (240, 110, 20)
HEX = 20  # hex circumradius in pixels
PANEL_W = 360
HEADER_H = 44
SQRT3 = 3 ** 0.5
AXIAL_DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def _font(size: int) -> Any:
    from meeple.envs import canvas  # Pillow loads with the first picture, not with the game

    return canvas.font(size)


def _centre(q: float, r: float, size: float = HEX) -> tuple[float, float]:
    """Pixel centre of axial hex (q, r), pointy-top, about the origin."""
    return size * SQRT3 * (q + r / 2), size * 1.5 * r


def _corners(cx: float, cy: float, size: float) -> list[tuple[float, float]]:
    return [(cx + size * np.cos(np.pi / 6 + k * np.pi / 3), cy + size * np.sin(np.pi / 6 + k * np.pi / 3))
            for k in range(6)]


def _land_rgb(land: int) -> tuple[int, int, int]:
    if land >= LAND_SYMBOL and land < LAND_SHRINE:
        return LAND_RGB[land - LAND_SYMBOL]
    return BLANK_RGB


def _shrine(draw: Any, cx: float, cy: float, size: float) -> None:
    """A small temple: pediment, three columns, base (gold on marble)."""
    w = size * 0.62
    draw.polygon([(cx - w, cy - size * 0.12), (cx, cy - size * 0.52), (cx + w, cy - size * 0.12)], fill=GOLD, outline=INK)
    for i in (-1, 0, 1):
        x = cx + i * w * 0.62
        draw.rectangle([x - size * 0.08, cy - size * 0.1, x + size * 0.08, cy + size * 0.34], fill=GOLD)
    draw.rectangle([cx - w, cy + size * 0.34, cx + w, cy + size * 0.46], fill=GOLD, outline=INK)


def _building(draw: Any, cx: float, cy: float, size: float, p: int, t: int, font: Any) -> None:
    r = size * 0.64
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=SEAT_RGB[p], outline=INK, width=2)
    draw.text((cx, cy), TYPE_CODES[t], fill=SEAT_TEXT[p], font=font, anchor="mm")


def _tile_outlines(draw: Any, cells: dict, origin: tuple[float, float], size: float, width: int) -> None:
    """Edges between hexes of different tiles (and the outside) of every tile: cells maps (q, r) -> tile."""
    ox, oy = origin
    for (q, r), x in cells.items():
        cx, cy = _centre(q, r, size)
        for dq, dr in AXIAL_DIRS:
            if cells.get((q + dq, r + dr), -1) == x:
                continue
            nx, ny = _centre(q + dq, r + dr, size)
            mx, my = (cx + nx) / 2 + ox, (cy + ny) / 2 + oy
            ux, uy = -(ny - cy), nx - cx  # perpendicular to the centre line, length sqrt(3) * size
            k = 0.5 / SQRT3
            draw.line([(mx - ux * k, my - uy * k), (mx + ux * k, my + uy * k)], fill=TILE_EDGE, width=width)


def draw_tile(draw: Any, x: int, cx: float, cy: float, size: float, rot: int = 0) -> None:
    """Tile x turned rot as a free-standing flower centred at pixel (cx, cy)."""
    cells = {}
    for j in range(7):
        dq, dr = (0, 0) if j == 0 else AXIAL_DIRS[j - 1]
        px, py = _centre(dq, dr, size)
        draw.polygon(_corners(cx + px, cy + py, size), fill=_land_rgb(int(ROTATED_FACE[x, rot, j])), outline=EDGE_RGB)
        cells[(dq, dr)] = x
    _tile_outlines(draw, cells, (cx, cy), size, 2)


def render_rgb(game: Any, state: Any, row: int = 0, seat: int | None = None) -> np.ndarray:
    """(H, W, 3) uint8 picture of row `row`: the map cropped to its hexes (fields coloured by landscape
    symbol, tile outlines, shrines, buildings as discs in player colours with their type code), a side
    panel with every player's display, cards (counts; the types too for `seat`), amphorae, stacks and
    groups, the supplies, the face-up tile, and a legend."""
    from PIL import Image

    from meeple.envs.canvas import Draw

    s = state
    P = game.num_players
    font, small, big = _font(12), _font(11), _font(15)
    code_font = _font(11)
    # --- the map's extent ---
    slots = _occupied(s, row)
    marked = int(s.pending_slot[row])
    flower = []
    if marked >= 0 and int(s.decision[row]) == data.DEC_CHOOSE_ROTATION:
        flower = [int(v) for v in FLOWER[marked] if v >= 0]
    extent = np.union1d(slots, flower) if flower else slots
    px = np.array([_centre(int(SLOT_Q[h]), int(SLOT_R[h])) for h in extent])
    pad = HEX + 10
    x0, y0 = px[:, 0].min() - pad, px[:, 1].min() - pad
    map_w = int(px[:, 0].max() - x0 + pad)
    map_h = int(px[:, 1].max() - y0 + pad)
    panel_h = 300 + 118 * P
    width = max(map_w, 420) + PANEL_W
    height = max(HEADER_H + map_h, panel_h)
    img = Image.new("RGB", (width, height), BG_RGB)
    draw = Draw(img)
    origin = (-x0 + (max(map_w, 420) - map_w) / 2, HEADER_H - y0)
    # --- header ---
    draw.text((12, 8), f"Attika  {P} players  round {int(s.round[row]) + 1}/{game.config.max_rounds}", fill=INK, font=big)
    draw.text((12, 26), status_text(s, row, game.config.max_rounds), fill=INK, font=font)
    # --- fields, shrines, buildings ---
    cells = {}
    for x in range(NUM_TILES):
        if int(s.tile_state[row, x]) == TILE_PLACED:
            for h in FLOWER[int(s.tile_centre[row, x])]:
                cells[(int(SLOT_Q[h]), int(SLOT_R[h]))] = x
    for h in slots:
        cx, cy = _centre(int(SLOT_Q[h]), int(SLOT_R[h]))
        cx, cy = cx + origin[0], cy + origin[1]
        land = int(s.land[row, h])
        if land >= LAND_SHRINE:
            draw.polygon(_corners(cx, cy, HEX), fill=SHRINE_RGB, outline=GOLD)
            _shrine(draw, cx, cy, HEX)
            continue
        draw.polygon(_corners(cx, cy, HEX), fill=_land_rgb(land), outline=EDGE_RGB)
    _tile_outlines(draw, cells, origin, HEX, 3)
    for h in flower:
        cx, cy = _centre(int(SLOT_Q[h]), int(SLOT_R[h]))
        draw.polygon(_corners(cx + origin[0], cy + origin[1], HEX - 2), outline=MARK_RGB, width=2)
    if marked >= 0:
        cx, cy = _centre(int(SLOT_Q[marked]), int(SLOT_R[marked]))
        draw.polygon(_corners(cx + origin[0], cy + origin[1], HEX - 1), outline=MARK_RGB, width=4)
    for h in np.flatnonzero(s.owner[row] >= 0):
        cx, cy = _centre(int(SLOT_Q[h]), int(SLOT_R[h]))
        _building(draw, cx + origin[0], cy + origin[1], HEX, int(s.owner[row, h]), int(s.building[row, h]), code_font)
    # --- side panel ---
    left = width - PANEL_W
    draw.rectangle([left, 0, width, height], fill=PANEL_RGB, outline=EDGE_RGB)
    y = 10
    for p in range(P):
        y = _panel_player(draw, s, row, p, seat, left + 10, y, font, small) + 8
    y = _panel_common(draw, s, row, left + 10, y, font, small)
    _legend(draw, P, left + 10, max(y + 8, height - 78), small)
    return np.asarray(img, dtype=np.uint8)


def _panel_player(draw: Any, s: Any, row: int, p: int, seat: int | None, x: int, y: int, font: Any, small: Any) -> int:
    marks = []
    if p == int(s.start_player[row]):
        marks.append("start")
    if p == int(s.to_play[row]) and not s.done[row]:
        marks.append("to play")
    if p == int(s.winner[row]):
        marks.append("WINNER")
    draw.ellipse([x, y + 1, x + 13, y + 14], fill=SEAT_RGB[p], outline=INK)
    draw.text((x + 19, y), f"player_{p}" + (f"  ({', '.join(marks)})" if marks else ""), fill=INK, font=font)
    n = int(s.hand[row, p].sum())
    hand = "  ".join(f"{LANDSCAPES[k]}{int(s.hand[row, p, k])}" for k in range(NUM_LANDSCAPES)) if seat == p else f"{n} cards"
    draw.text((x, y + 17), f"hand {hand}   amphorae {int(s.amphorae[row, p])}   placed {int(s.placed[row, p])}/30   "
              f"settlements {int(s.settlements[row, p])}", fill=INK, font=small)
    stacks = " / ".join(str(int(v)) for v in s.stack_size[row, p])
    groups = ", ".join(GROUP_SHORT[g] for g in range(data.NUM_GROUPS) if s.rewarded[row, p, g]) or "-"
    draw.text((x, y + 32), f"stacks (main / 1 / 2 / 3) {stacks}    groups rewarded {groups}", fill=INK, font=small)
    # display board: one chip per type waiting there, with its count
    cy = y + 48
    cx = x
    draw.text((x, cy + 4), "display", fill=INK, font=small)
    cx += 46
    shown = False
    for t in range(NUM_TYPES):
        n = int(s.display[row, p, t])
        if not n:
            continue
        if cx + 32 > x + PANEL_W - 14:
            cx = x + 46
            cy += 22
        draw.rounded_rectangle([cx, cy, cx + 30, cy + 19], radius=4, fill=SEAT_RGB[p], outline=INK)
        draw.text((cx + 15, cy + 10), TYPE_CODES[t] + (str(n) if n > 1 else ""), fill=SEAT_TEXT[p], font=small,
                  anchor="mm")
        cx += 33
        shown = True
    if not shown:
        draw.text((cx, cy + 4), "-", fill=INK, font=small)
    return cy + 24


def _panel_common(draw: Any, s: Any, row: int, x: int, y: int, font: Any, small: Any) -> int:
    tiles = s.tile_state[row]
    draw.line([x, y, x + PANEL_W - 20, y], fill=EDGE_RGB)
    y += 6
    draw.text((x, y), f"amphora supply {int(s.amphora_supply[row])}   draw pile {int(s.draw_pile[row].sum())}   "
              f"tile stack {int((tiles == TILE_STACK).sum())}", fill=INK, font=small)
    y += 16
    discard = "  ".join(f"{LANDSCAPES[k]}{int(s.discard[row, k])}" for k in range(NUM_LANDSCAPES))
    draw.text((x, y), f"discard {discard}    tiles removed {int((tiles == data.TILE_REMOVED).sum())}",
              fill=INK, font=small)
    y += 18
    t = int(s.pending_type[row])
    if t >= 0 and not s.done[row]:
        dec = int(s.decision[row])
        what = {data.DEC_PENDING_REVEAL: "revealed", data.DEC_CHOOSE_FIELD: "to build",
                data.DEC_PAY: "being paid for"}.get(dec, "pending")
        line = f"{what}: {BUILDING_NAMES[t]}"
        if dec == data.DEC_PAY:
            owed = "  ".join(f"{LANDSCAPES[k]}{int(s.pay_spec[row, k])}" for k in range(NUM_LANDSCAPES))
            line += f"   owed {owed}  + {int(s.pay_front[row]) + int(s.pay_any[row])} any"
        draw.text((x, y), line, fill=INK, font=font)
        y += 18
    x_up = int(s.tile_up[row])
    if x_up >= 0:
        draw.text((x, y), f"face-up tile {TILE_NAMES[x_up]}", fill=INK, font=font)
        draw_tile(draw, x_up, x + 150, y + 30, 12)
        y += 66
    return y


def _legend(draw: Any, P: int, x: int, y: int, small: Any) -> None:
    draw.line([x, y - 4, x + PANEL_W - 20, y - 4], fill=EDGE_RGB)
    entries = [(LAND_RGB[k], data.LANDSCAPE_NAMES[k]) for k in range(NUM_LANDSCAPES)] + [(BLANK_RGB, "blank")]
    cx = x
    for rgb, label in entries:
        draw.polygon(_corners(cx + 8, y + 9, 8), fill=rgb, outline=EDGE_RGB)
        draw.text((cx + 19, y + 9), label, fill=INK, font=small, anchor="lm")
        cx += 22 + int(draw.textlength(label, font=small)) + 10
    y += 22
    draw.polygon(_corners(x + 8, y + 9, 9), fill=SHRINE_RGB, outline=GOLD)
    _shrine(draw, x + 8, y + 9, 9)
    draw.text((x + 21, y + 9), "shrine", fill=INK, font=small, anchor="lm")
    cx = x + 70
    for p in range(P):
        draw.ellipse([cx, y + 2, cx + 14, y + 16], fill=SEAT_RGB[p], outline=INK)
        draw.text((cx + 18, y + 9), f"player_{p}", fill=INK, font=small, anchor="lm")
        cx += 68
    y += 22
    draw.text((x, y), "buildings: seat colour + type code; orange: site / tile centre chosen", fill=INK, font=small)
