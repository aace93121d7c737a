"""The picture of a Utopia position: `render_rgb`, the rgb_array render, drawn with Pillow.

Public information only (card counts, never their civilizations), unless `seat` names the seat whose own
cards to show as well.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.palette import INK
from meeple.envs.utopia import data
from meeple.envs.utopia.data import (
    CIV_NAMES, DECISION_NAMES, DISTRICT_CODES, DISTRICT_ISLAND, DISTRICT_SEA, DISTRICT_SECTOR, DISTRICT_VALUE,
    ISLAND_NAMES, NUM_CIVS, NUM_ISLANDS, SECTOR_NAMES,
)
from meeple.envs.utopia.render import _ranking

# --- the picture (rgb_array) -----------------------------------------------------------------------------

WIDTH, HEIGHT = 1000, 760
SEAT_COLOURS = ((200, 40, 40), (40, 90, 200), (30, 150, 60), (210, 160, 20), (140, 60, 170))
CIV_COLOURS = ((90, 160, 80), (200, 120, 40), (220, 200, 90), (80, 150, 210), (200, 70, 90))
ISLAND_COLOURS = ((245, 215, 195), (215, 235, 200), (225, 230, 245), (200, 225, 240))
SEA_COLOUR = (170, 205, 230)
# where each island's box sits and how many district columns it has (a schematic map, not the board)
ISLAND_BOX = ((20, 180, 470, 250, 4), (510, 180, 470, 180, 3), (20, 450, 470, 180, 3), (510, 380, 470, 250, 3))
MAP_TOP = 134  # the lighthouses and sector names; the islands below
SCALE_Y = HEIGHT - 100  # the prestige scale; the score track below
HAND_X, HAND_Y, HAND_CHIP = 560, 58, 66  # a seat's own hand in the header: where it starts, chip width


def _font(size: int) -> Any:
    from meeple.envs import canvas  # Pillow loads with the first picture, not with the game

    return canvas.font(size)


def scale_box(c: int, value: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of civilization c's marker at `value` on the prestige scale."""
    return 120 + (value - 1) * 70, SCALE_Y - 2, 62, 17


def hand_chip(c: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of the seat's own cards of civilization c in the header."""
    return HAND_X + 78 + c * (HAND_CHIP + 4), HAND_Y, HAND_CHIP, 20


def district_boxes() -> dict[int, tuple[int, int, int, int]]:
    """{district: (x, y, w, h)} of its box on the picture."""
    boxes = {}
    for i in range(NUM_ISLANDS):
        x0, y0, w, h, cols = ISLAND_BOX[i]
        districts = np.flatnonzero(DISTRICT_ISLAND == i)
        rows_n = (len(districts) + cols - 1) // cols
        cw, ch = (w - 16) // cols, (h - 28) // rows_n
        for k, d in enumerate(districts):
            r, c = divmod(k, cols)
            boxes[int(d)] = (x0 + 8 + c * cw, y0 + 24 + r * ch, cw - 6, ch - 6)
    return boxes


def _district(draw: Any, s: Any, row: int, P: int, d: int, x: int, y: int, w: int, h: int, small: Any, tiny: Any) -> None:
    in_play = bool(data.DISTRICT_IN_PLAY[P, d])
    draw.rectangle([x, y, x + w, y + h], fill=(255, 255, 255) if in_play else (200, 200, 200), outline=INK)
    label = f"{DISTRICT_CODES[d]}  {int(DISTRICT_VALUE[d])}"
    if DISTRICT_SEA[d]:
        label += f"  ship {SECTOR_NAMES[int(DISTRICT_SECTOR[d])]}"
    draw.text((x + 4, y + 2), label, fill=INK, font=small)
    civ, owner = int(s.mon_civ[row, d]), int(s.mon_owner[row, d])
    if civ >= 0:  # the monument: its civilization's colour on the owner's base, bottom right (clear of the label)
        top = y + h - 28
        draw.rectangle([x + w - 30, top, x + w - 6, top + 24], fill=SEAT_COLOURS[owner], outline=INK)
        draw.polygon([(x + w - 18, top + 3), (x + w - 27, top + 21), (x + w - 9, top + 21)], fill=CIV_COLOURS[civ], outline=INK)
    # princes: a disc in the civilization's colour ringed in the player's, with the count, in player order,
    # flowing left to right and wrapping beside the monument's column; rows close up when a crowded
    # district (4+ rows at 5 players) would otherwise spill out of its box
    discs = [(p, c, int(s.princes[row, p, c, d])) for p in range(P) for c in range(NUM_CIVS) if s.princes[row, p, c, d]]
    per_row = max(1, (w - 40) // 26)
    rows = -(-len(discs) // per_row)
    step = min(16, max(6, (h - 22) // max(rows, 1)))
    for i, (p, c, n) in enumerate(discs):
        xx, yy = x + 4 + 26 * (i % per_row), y + 20 + step * (i // per_row)
        draw.ellipse([xx, yy, xx + 13, yy + 13], fill=CIV_COLOURS[c], outline=SEAT_COLOURS[p], width=3)
        draw.text((xx + 15, yy), str(n), fill=INK, font=tiny)


def render_rgb(game: Any, state: Any, row: int = 0, seat: int | None = None) -> np.ndarray:
    """(HEIGHT, WIDTH, 3) uint8: the islands with their districts (value, ship and sector, monument in its
    civilization's colour on the owner's base, princes per player and civilization), wonders, the sea
    sectors between the three lighthouses, the guests on display, the prestige scale and the score track;
    each player's points, card count and privileges, and with `seat` that seat's hand by civilization."""
    from PIL import Image

    from meeple.envs.canvas import Draw

    s = state
    P = game.num_players
    img = Image.new("RGB", (WIDTH, HEIGHT), SEA_COLOUR)
    draw = Draw(img)
    big, small, tiny = _font(18), _font(13), _font(13)
    title = f"Utopia - round {int(s.round[row])}, phase {int(s.phase[row]) + 1}"
    if s.done[row]:
        title += " - truncated" if s.truncated[row] else " - game over"
    else:
        title += f" - player_{int(s.to_play[row])}: {DECISION_NAMES[int(s.decision[row])]}"
    draw.text((20, 8), title, fill=INK, font=big)
    for p in range(P):  # the players' public counts
        y = 36 + 17 * p
        draw.ellipse([20, y + 2, 31, y + 13], fill=SEAT_COLOURS[p], outline=INK)
        line = (f"player_{p}: {int(s.score[row, p])} points, {int(s.hand_size[row, p])} cards, "
                f"{int(s.privileges[row, p])} privileges" + (", first this round" if p == int(s.start_player[row]) else ""))
        draw.text((38, y), line, fill=INK, font=tiny)
    discards = " ".join(f"{CIV_NAMES[c]} {int(s.discard[row, c])}" for c in range(NUM_CIVS))
    draw.text((WIDTH - 20, 36), f"draw pile {int(s.pile[row].sum())} cards; discards {discards}", fill=INK, font=tiny,
              anchor="ra")
    if seat is not None:  # the seat's own hand by civilization
        draw.text((HAND_X, HAND_Y + 3), "your hand", fill=INK, font=small)
        for c in range(NUM_CIVS):
            x, y, w, h = hand_chip(c)
            n = int(s.hand[row, seat, c])
            draw.rectangle([x, y, x + w, y + h], fill=CIV_COLOURS[c] if n else (205, 222, 235), outline=INK if n else (120, 150, 180))
            draw.text((x + w / 2, y + h / 2 + 1), f"{CIV_NAMES[c]} {n}", fill=INK if n else (90, 110, 130), font=small,
                      anchor="mm")
    # the sea sectors I..IV in a row from west to east, split by the lines of the three lighthouses
    for k in range(data.NUM_SECTORS):
        draw.text((20 + k * 245 + 100, MAP_TOP + 12), f"sector {SECTOR_NAMES[k]}", fill=INK, font=small)
        if k:
            x = 20 + k * 245
            draw.ellipse([x - 7, MAP_TOP, x + 7, MAP_TOP + 14], fill=(250, 240, 120), outline=INK)  # lighthouse
            for y0 in range(MAP_TOP + 16, SCALE_Y - 10, 12):
                draw.line([x, y0, x, y0 + 6], fill=(90, 120, 160), width=2)
    boxes = district_boxes()
    for i in range(NUM_ISLANDS):
        x0, y0, w, h, cols = ISLAND_BOX[i]
        live = bool(data.ISLAND_IN_PLAY[P, i])
        draw.rounded_rectangle([x0, y0, x0 + w, y0 + h], radius=12, fill=ISLAND_COLOURS[i] if live else (190, 190, 190),
                               outline=INK, width=2)
        owner = int(s.wonder_owner[row, i])
        head = f"{ISLAND_NAMES[i]}" + ("" if live else " (out of play)")
        draw.text((x0 + 8, y0 + 4), head, fill=INK, font=small)
        # the wonder space: a star in the owner's colour once built
        cx, cy = x0 + w - 20, y0 + 12
        draw.regular_polygon((cx, cy, 9), 5, fill=SEAT_COLOURS[owner] if owner >= 0 else (255, 255, 255), outline=INK)
        guests = [(c, int(s.display[row, i, c])) for c in range(NUM_CIVS) if s.display[row, i, c]]
        gx = x0 + 80
        for c, n in guests:  # guests by the island's ship
            for _ in range(n):
                draw.rectangle([gx, y0 + 5, gx + 10, y0 + 15], fill=CIV_COLOURS[c], outline=INK)
                gx += 13
        for d in np.flatnonzero(DISTRICT_ISLAND == i):
            _district(draw, s, row, P, int(d), *boxes[int(d)], small, tiny)
    # prestige scale and score track
    y = SCALE_Y
    draw.rectangle([0, y - 8, WIDTH, HEIGHT], fill=(245, 240, 225))
    draw.text((20, y), "Prestige scale:", fill=INK, font=small)
    for c in range(NUM_CIVS):
        x, yy, w, h = scale_box(c, int(s.scale[row, c]))
        draw.rectangle([x, yy, x + w, yy + h], fill=CIV_COLOURS[c], outline=INK)
        draw.text((x + 4, y), f"{int(s.scale[row, c])} {CIV_NAMES[c]}", fill=INK, font=small)
    draw.text((20, y + 26), "Score track:", fill=INK, font=small)
    top = max(50, int(s.score[row, :P].max()))
    draw.line([120, y + 62, 120 + 800, y + 62], fill=INK, width=2)
    draw.line([120 + 800 * 50 // top, y + 24, 120 + 800 * 50 // top, y + 66], fill=(200, 0, 0), width=2)
    for k, p in enumerate(_ranking(s, row, P)):
        x = 120 + 800 * int(s.score[row, p]) // top
        yy = y + 24 + 8 * k
        draw.ellipse([x - 6, yy, x + 6, yy + 12], fill=SEAT_COLOURS[p], outline=INK)
    legend = "   ".join(f"player_{p} {int(s.score[row, p])}" for p in _ranking(s, row, P))
    draw.text((560, y), legend, fill=INK, font=small)
    for p in range(P):
        draw.rectangle([560 + p * 85, y + 72, 572 + p * 85, y + 84], fill=SEAT_COLOURS[p], outline=INK)
        draw.text((576 + p * 85, y + 71), f"player_{p}", fill=INK, font=tiny)
    return np.asarray(img, dtype=np.uint8)
