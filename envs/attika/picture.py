"""The picture of an Attika position: `render_rgb`, the rgb_array render, drawn with Pillow.

Public information only (card counts, never their types), unless `seat` names the seat whose own
cards to show as well.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from meeple.envs.attika import data
from meeple.envs.attika.data import (
    BUILDING_NAMES, FLOWER, LAND_SHRINE, LAND_SYMBOL, LANDSCAPES, NUM_LANDSCAPES, NUM_TILES, NUM_TYPES,
    ROTATED_FACE, SLOT_Q, SLOT_R, TILE_PLACED, TILE_STACK,
)
from meeple.envs.attika.render import GROUP_SHORT, TILE_NAMES, TYPE_CODES, _occupied, status_text
from meeple.envs.palette import INK
from meeple.envs.textview import seat_marks

# --- RGB picture --------------------------------------------------------------------------------------------

LAND_RGB = ((70, 140, 215), (62, 138, 70), (206, 168, 112), (150, 150, 156))  # W F H M
BLANK_RGB = (240, 230, 204)
SHRINE_RGB = (252, 250, 244)
GOLD = (196, 152, 40)
SEAT_RGB = ((212, 52, 52), (240, 200, 30), (80, 200, 96), (48, 92, 212))  # red, yellow, green, blue
SEAT_TEXT = ((255, 255, 255), (20, 20, 20), (20, 20, 20), (255, 255, 255))
BG_RGB = (232, 226, 212)
PANEL_RGB = (246, 242, 232)
EDGE_RGB = (150, 136, 112)
TILE_EDGE = (70, 50, 30)
MARK_RGB = (240, 110, 20)
HEX = 20  # hex circumradius in pixels
PANEL_W = 400
HEADER_H = 48
MAP_MIN_W = 420  # the map area is at least this wide
MAX_WIDTH = 1100  # a map too wide for the panel beside it within this gets the panel below it
ROW_H = 24  # a player's rows in the side panel
LAND_TEXT = ((255, 255, 255), (255, 255, 255), INK, INK)  # text on a landscape's colour
SQRT3 = 3 ** 0.5
AXIAL_DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def _font(size: int) -> Any:
    from meeple.envs import canvas  # Pillow loads with the first picture, not with the game

    return canvas.font(size)


class PlayerBoxes(NamedTuple):
    """Where seat p's parts sit in the side panel: each an (x, y, w, h) box."""

    top: int  # the player's first row
    hand: tuple  # one box per landscape (the seat's own view), else the whole "n cards" text
    amphorae: tuple
    stacks: tuple  # main stack, stacks 1..3
    display: tuple  # the display's row (label and chips)
    chips: dict  # {building type: its chip on the display}
    bottom: int  # the y below the player's rows


class Frame(NamedTuple):
    """The picture's layout for one position: its size, where the map's hex (0, 0) is drawn, the side
    panel's corner and every player's boxes in it (`render_rgb` draws it, the browser app's board clicks it)."""

    width: int
    height: int
    origin: tuple  # pixel offset of the map: a hex's centre is _centre(q, r) + origin
    left: int  # the side panel's corner
    top: int
    players: list  # PlayerBoxes per seat
    marked: int  # the field marked for the tile being placed, or -1
    flower: list  # the fields of the tile being turned, while its rotation is chosen
    slots: Any  # the fields drawn


def frame(s: Any, row: int, P: int, seat: int | None) -> Frame:
    """The layout of row `row` of `s` (see Frame): the map cropped to its fields (and the tile being turned),
    the side panel beside it, or below it where the picture would be wider than MAX_WIDTH."""
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
    area = max(map_w, MAP_MIN_W)
    origin = (-x0 + (area - map_w) / 2, HEADER_H - y0)
    if area + PANEL_W <= MAX_WIDTH:
        left, top = area, 0
    else:
        left, top = 0, HEADER_H + map_h + 8
    players = panel_layout(s, row, P, seat, left, top)
    panel_h = players[-1].bottom - top + 250
    if top:
        width, height = max(area, PANEL_W), top + panel_h
    else:
        width, height = area + PANEL_W, max(HEADER_H + map_h, panel_h)
    return Frame(width, height, origin, left, top, players, marked, flower, slots)


def panel_layout(s: Any, row: int, P: int, seat: int | None, left: int, top: int = 0) -> list[PlayerBoxes]:
    """The boxes of every player's rows in the side panel, whose corner is (`left`, `top`)."""
    out, y, x = [], top + 10, left + 10
    for p in range(P):
        if seat == p:
            hand = tuple((x + 46 + 40 * k, y + ROW_H, 36, 20) for k in range(NUM_LANDSCAPES))
        else:
            hand = ((x + 46, y + ROW_H, 156, 20),)
        amphorae = (x + 216, y + ROW_H, 110, 20)
        stacks = tuple((x + 46 + 58 * k, y + 2 * ROW_H, 54, 20) for k in range(data.NUM_STACKS))
        rows = 4 if s.rewarded[row, p].any() else 3  # the groups rewarded get a row of their own
        cy, cx, chips = y + rows * ROW_H, x + 56, {}
        for t in range(NUM_TYPES):
            if not int(s.display[row, p, t]):
                continue
            if cx + 32 > x + PANEL_W - 14:
                cx, cy = x + 56, cy + 22
            chips[t] = (cx, cy, 30, 20)
            cx += 33
        display = (x, y + rows * ROW_H, PANEL_W - 20, cy + 20 - y - rows * ROW_H)
        bottom = cy + 26
        out.append(PlayerBoxes(y, hand, amphorae, stacks, display, chips, bottom))
        y = bottom + 8
    return out


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
    font, small, big = _font(14), _font(13), _font(16)
    code_font = _font(13)
    f = frame(s, row, P, seat)
    width, height, origin, layout = f.width, f.height, f.origin, f.players
    slots, marked, flower = f.slots, f.marked, f.flower
    img = Image.new("RGB", (width, height), BG_RGB)
    draw = Draw(img)
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
    left = f.left
    draw.rectangle([left, f.top, left + PANEL_W if f.top else width, height], fill=PANEL_RGB, outline=EDGE_RGB)
    for p, boxes in enumerate(layout):
        _panel_player(draw, s, row, p, seat, left + 10, boxes, font, small)
    y = _panel_common(draw, s, row, left + 10, layout[-1].bottom + 4, font, small)
    _legend(draw, P, left + 10, max(y + 8, height - 100), small)
    return np.asarray(img, dtype=np.uint8)


def _box(draw: Any, box: tuple, text: str, fill: tuple, ink: tuple, font: Any, outline: tuple = INK) -> None:
    x, y, w, h = box
    draw.rounded_rectangle([x, y, x + w, y + h], radius=4, fill=fill, outline=outline)
    draw.text((x + w / 2, y + h / 2 + 1), text, fill=ink, font=font, anchor="mm")


def _panel_player(draw: Any, s: Any, row: int, p: int, seat: int | None, x: int, boxes: PlayerBoxes, font: Any,
                  small: Any) -> None:
    y = boxes.top
    marks = seat_marks(s, row, p, ("WINNER", p == int(s.winner[row])))
    draw.ellipse([x, y + 2, x + 14, y + 16], fill=SEAT_RGB[p], outline=INK)
    draw.text((x + 20, y), f"player_{p}" + (f"  ({', '.join(marks)})" if marks else ""), fill=INK, font=font)
    draw.text((x + PANEL_W - 20, y + 1), f"placed {int(s.placed[row, p])}/30   settlements {int(s.settlements[row, p])}",
              fill=INK, font=small, anchor="ra")
    # the hand: cards by landscape for the seat itself, a count for the others; the amphorae
    draw.text((x, y + ROW_H + 3), "hand", fill=INK, font=small)
    if seat == p:
        for k, box in enumerate(boxes.hand):
            _box(draw, box, f"{LANDSCAPES[k]} {int(s.hand[row, p, k])}", LAND_RGB[k], LAND_TEXT[k], small)
    else:
        bx, by, _, _ = boxes.hand[0]
        draw.text((bx, by + 3), f"{int(s.hand[row, p].sum())} cards", fill=INK, font=small)
    _box(draw, boxes.amphorae, f"amphorae {int(s.amphorae[row, p])}", (236, 214, 170), INK, small, EDGE_RGB)
    # the face-down stacks (main, 1, 2, 3) and the groups rewarded
    draw.text((x, y + 2 * ROW_H + 3), "stacks", fill=INK, font=small)
    for k, box in enumerate(boxes.stacks):
        _box(draw, box, f"{'main' if k == 0 else k}: {int(s.stack_size[row, p, k])}", (214, 200, 176), INK, small, EDGE_RGB)
    groups = ", ".join(GROUP_SHORT[g] for g in range(data.NUM_GROUPS) if s.rewarded[row, p, g])
    if groups:
        draw.text((x, y + 3 * ROW_H + 3), f"groups rewarded: {groups}", fill=INK, font=small)
    # display board: one chip per type waiting there, with its count
    draw.text((x, boxes.display[1] + 3), "display", fill=INK, font=small)
    for t, box in boxes.chips.items():
        n = int(s.display[row, p, t])
        _box(draw, box, TYPE_CODES[t] + (str(n) if n > 1 else ""), SEAT_RGB[p], SEAT_TEXT[p], small)
    if not boxes.chips:
        draw.text((x + 56, boxes.display[1] + 3), "-", fill=INK, font=small)


def _panel_common(draw: Any, s: Any, row: int, x: int, y: int, font: Any, small: Any) -> int:
    tiles = s.tile_state[row]
    draw.line([x, y, x + PANEL_W - 20, y], fill=EDGE_RGB)
    y += 6
    draw.text((x, y), f"amphora supply {int(s.amphora_supply[row])}   draw pile {int(s.draw_pile[row].sum())}   "
              f"tile stack {int((tiles == TILE_STACK).sum())}", fill=INK, font=small)
    y += 18
    discard = "  ".join(f"{LANDSCAPES[k]}{int(s.discard[row, k])}" for k in range(NUM_LANDSCAPES))
    draw.text((x, y), f"discard {discard}    tiles removed {int((tiles == data.TILE_REMOVED).sum())}",
              fill=INK, font=small)
    y += 20
    t = int(s.pending_type[row])
    if t >= 0 and not s.done[row]:
        dec = int(s.decision[row])
        what = {data.DEC_PENDING_REVEAL: "revealed", data.DEC_CHOOSE_FIELD: "to build",
                data.DEC_PAY: "being paid for"}.get(dec, "pending")
        draw.text((x, y), f"{what}: {BUILDING_NAMES[t]}", fill=INK, font=font)
        y += 19
        if dec == data.DEC_PAY:
            owed = "  ".join(f"{LANDSCAPES[k]}{int(s.pay_spec[row, k])}" for k in range(NUM_LANDSCAPES))
            draw.text((x, y), f"owed {owed}  + {int(s.pay_front[row]) + int(s.pay_any[row])} any", fill=INK, font=small)
            y += 19
    x_up = int(s.tile_up[row])
    if x_up >= 0:
        draw.text((x, y), f"face-up tile {TILE_NAMES[x_up]}", fill=INK, font=font)
        draw_tile(draw, x_up, x + 180, y + 30, 12)
        y += 68
    return y


def _legend(draw: Any, P: int, x: int, y: int, small: Any) -> None:
    draw.line([x, y - 4, x + PANEL_W - 20, y - 4], fill=EDGE_RGB)
    entries = [(LAND_RGB[k], f"{LANDSCAPES[k]} {data.LANDSCAPE_NAMES[k]}") for k in range(NUM_LANDSCAPES)] + [(BLANK_RGB, "blank")]
    cx = x
    for rgb, label in entries:
        draw.polygon(_corners(cx + 8, y + 9, 8), fill=rgb, outline=EDGE_RGB)
        draw.text((cx + 19, y + 9), label, fill=INK, font=small, anchor="lm")
        cx += 22 + int(draw.textlength(label, font=small)) + 8
    y += 22
    draw.polygon(_corners(x + 8, y + 9, 9), fill=SHRINE_RGB, outline=GOLD)
    _shrine(draw, x + 8, y + 9, 9)
    draw.text((x + 21, y + 9), "shrine", fill=INK, font=small, anchor="lm")
    cx = x + 76
    for p in range(P):
        draw.ellipse([cx, y + 2, cx + 14, y + 16], fill=SEAT_RGB[p], outline=INK)
        draw.text((cx + 18, y + 9), f"player_{p}", fill=INK, font=small, anchor="lm")
        cx += 76
    y += 22
    draw.text((x, y), "buildings: seat colour + type code (hover for the name)", fill=INK, font=small)
    draw.text((x, y + 19), "orange: site / tile centre chosen", fill=INK, font=small)
