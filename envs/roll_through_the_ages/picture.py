"""The picture of a Roll Through the Ages position: `render_rgb`, the rgb_array render, drawn with Pillow.

Nothing in this game is hidden, so every seat sees the spectator's picture. The top shows the round,
whose turn and which phase, the dice of the active player (each die's face, marked for the reroll or
kept, a food-or-workers die's choice) and the turn's counters (rolls, workers, coins, the purchase, an
open trade offer). Below it, one score sheet per player: food track, goods tracks with their values,
cities with the workers on the unfinished ones, monuments (boxes filled, the points of a completed one,
first or later builder), the developments owned, disasters and the score.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.palette import INK, MUTED
from meeple.envs.roll_through_the_ages import data
from meeple.envs.roll_through_the_ages.data import (
    CITY_THRESHOLDS, DECISION_NAMES, DEVELOPMENT_NAMES, FOOD_MAX, GOOD_NAMES, GOODS_MAX, GOODS_VALUE, MAX_DICE,
    MONUMENT_FIRST, MONUMENT_NAMES, MONUMENT_WORKERS, NUM_DEVELOPMENTS, NUM_GOODS, NUM_MONUMENTS, START_CITIES,
    TRADE_TYPE_NAMES,
)

WIDTH = 1100
HEADER_H = 170
SHEET_W, SHEET_H = 540, 270
DIE_X, DIE_Y, DIE_W, DIE_H, DIE_PITCH = 12, 70, 60, 52, 68  # the dice of the header
ROW_H = 18  # a sheet's rows (goods, monuments)
LEFT_BOXES = 66  # the food and goods boxes start this far into the left column
RIGHT_X = 256  # the right column (monuments), from the sheet's left edge
MONUMENT_BOXES = 112  # a monument's boxes start this far into the right column
CITY_Y = 170  # the cities' row, from the sheet's top
CITY_PITCH = 27
DEV_PER_ROW, DEV_H, DEV_PITCH = 5, 17, 19  # the developments along the bottom: per row, height, row pitch
BG_RGB = (240, 234, 220)
SHEET_RGB = (252, 249, 240)
EMPTY_RGB = (236, 230, 216)
MARK_RGB = (236, 120, 20)
SEAT_RGB = ((200, 48, 48), (44, 96, 200), (40, 150, 70), (220, 170, 20))
FOOD_RGB = (120, 176, 64)
GOOD_RGB = ((150, 100, 50), (150, 150, 156), (200, 96, 56), (130, 90, 170), (60, 60, 70))  # wood .. spearheads
# die faces: fill, big text, small text
FACE_LOOK = (
    ((176, 124, 72), "1", "good"),
    (FOOD_RGB, "3", "food"),
    ((40, 40, 40), "X", "skull"),
    ((110, 150, 200), "2", "food/wk"),
    ((226, 186, 40), "7", "coins"),
    ((70, 110, 190), "3", "workers"),
)
CITY_NEEDS = np.diff(np.concatenate(([0], CITY_THRESHOLDS)))  # workers each city 4..7 needs


def _font(size: int) -> Any:
    from meeple.envs import canvas  # Pillow loads with the first picture, not with the game

    return canvas.font(size)


def sheet_origin(p: int) -> tuple[int, int]:
    """The top-left corner of seat p's score sheet."""
    r, c = divmod(p, 2)
    return 6 + c * (SHEET_W + 8), HEADER_H + r * (SHEET_H + 10)


def die_box(i: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of die i in the header."""
    return DIE_X + DIE_PITCH * i, DIE_Y, DIE_W, DIE_H


def food_row(p: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of seat p's food row (label, boxes and count)."""
    x0, y0 = sheet_origin(p)
    return x0 + 4, y0 + 32, RIGHT_X - 8, ROW_H - 1


def good_row(p: int, g: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of seat p's row of good g."""
    x0, y0 = sheet_origin(p)
    return x0 + 4, y0 + 52 + ROW_H * g, RIGHT_X - 8, ROW_H - 1


def cities_box(p: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of seat p's cities."""
    x0, y0 = sheet_origin(p)
    return x0 + LEFT_BOXES + 4, y0 + CITY_Y - 4, CITY_PITCH * data.MAX_CITIES + 4, 38


def monument_row(p: int, m: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of seat p's row of monument m."""
    x0, y0 = sheet_origin(p)
    return x0 + RIGHT_X - 4, y0 + 52 + ROW_H * m, SHEET_W - RIGHT_X, ROW_H - 1


def development_chip(p: int, d: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of development d on seat p's sheet."""
    x0, y0 = sheet_origin(p)
    r, c = divmod(d, DEV_PER_ROW)
    w = (SHEET_W - 16) // DEV_PER_ROW
    return x0 + 8 + c * w, y0 + SHEET_H - 3 * DEV_PITCH - 4 + r * DEV_PITCH, w - 4, DEV_H


def _boxes(draw: Any, x: float, y: float, n: int, filled: int, size: int, colour: tuple, gap: int = 2) -> float:
    """n boxes in a row, the first `filled` in `colour`; returns the x after the last box."""
    for i in range(n):
        draw.rectangle([x, y, x + size, y + size], fill=colour if i < filled else EMPTY_RGB, outline=MUTED)
        x += size + gap
    return x


def _die(draw: Any, x: float, y: float, face: int, marked: bool, choice: int, fonts: tuple) -> None:
    big, small = fonts
    fill, number, word = FACE_LOOK[face]
    text_rgb = (255, 255, 255) if face in (data.SKULL, data.WORKERS3) else INK
    draw.rounded_rectangle([x, y, x + DIE_W, y + DIE_H], radius=8, fill=fill, outline=MARK_RGB if marked else INK,
                           width=4 if marked else 2)
    draw.text((x + DIE_W / 2, y + 19), number, fill=text_rgb, font=big, anchor="mm")
    draw.text((x + DIE_W / 2, y + 40), word, fill=text_rgb, font=small, anchor="mm")
    if marked:
        tag, rgb = "reroll", MARK_RGB
    elif face == data.FW2 and choice:
        tag, rgb = ("food" if choice == data.FW_FOOD_CHOSEN else "workers"), INK
    elif face == data.FW2:
        tag, rgb = "choose", INK
    elif face == data.SKULL:
        tag, rgb = "locked", (170, 30, 30)
    else:
        tag, rgb = "kept", MUTED
    draw.text((x + DIE_W / 2, y + DIE_H + 10), tag, fill=rgb, font=small, anchor="mm")


def _header(draw: Any, game: Any, s: Any, row: int, scores: np.ndarray, fonts: dict) -> None:
    P = game.num_players
    title = f"Roll Through the Ages   round {int(s.round[row])}"
    if P == 1:
        title += f"/{data.SOLO_ROUNDS} (solo)"
    if s.final_round[row] and not s.done[row]:
        title += "   FINAL ROUND"
    draw.text((12, 8), title, fill=INK, font=fonts["big"])
    if s.done[row]:
        status = "Game over" + (" (round limit)" if s.truncated[row] else "") + ": " + \
            ", ".join(f"player_{p} {int(scores[p])}" for p in range(P))
        draw.text((12, 30), status, fill=INK, font=fonts["font"])
        return
    active, to_play = int(s.active[row]), int(s.to_play[row])
    status = f"player_{active}'s turn, phase {DECISION_NAMES[int(s.decision[row])]}"
    if to_play != active:
        status += f"; player_{to_play} to decide"
    draw.text((12, 30), status, fill=INK, font=fonts["font"])
    draw.ellipse([12, 52, 24, 64], fill=SEAT_RGB[active], outline=INK)
    draw.text((30, 51), f"dice of player_{active}", fill=INK, font=fonts["small"])
    for i in range(MAX_DICE):
        face = int(s.dice[row, i])
        x, y, w, h = die_box(i)
        if face < 0:
            draw.rounded_rectangle([x, y, x + w, y + h], radius=8, outline=EMPTY_RGB, width=2)
        else:
            _die(draw, x, y, face, bool(s.marked[row, i]), int(s.fw_choice[row, i]), (fonts["big"], fonts["small"]))
    facts = [f"rolls {int(s.rolls_used[row])}/{data.MAX_ROLLS}", f"workers to place {int(s.workers[row])}",
             f"coins {int(s.coins[row])}"]
    if s.leadership_used[row]:
        facts.append("Leadership used")
    if s.bought[row] >= 0:
        facts.append(f"bought {DEVELOPMENT_NAMES[int(s.bought[row])]}")
    paying = [GOOD_NAMES[g] for g in range(NUM_GOODS) if s.marked_goods[row, g]]
    if paying or s.marked_food[row]:
        facts.append("paying with " + ", ".join(paying + ([f"{int(s.marked_food[row])} food"] if s.marked_food[row] else [])))
    y = 66
    for text in facts:
        draw.text((500, y), text, fill=INK, font=fonts["font"])
        y += ROW_H
    if s.trade_partner[row] >= 0:
        give = ", ".join(f"{int(n)} {TRADE_TYPE_NAMES[t]}" for t, n in enumerate(s.offer_give[row]) if n) or "nothing"
        take = ", ".join(f"{int(n)} {TRADE_TYPE_NAMES[t]}" for t, n in enumerate(s.offer_take[row]) if n) or "nothing"
        draw.text((500, y), f"offer to player_{int(s.trade_partner[row])}: gives {give} for {take}", fill=INK,
                  font=fonts["font"])
    draw.text((12, DIE_Y + DIE_H + 24), "orange rim: marked for the reroll; skulls stay (solo: may reroll); "
              "food/wk: food or workers, as chosen", fill=MUTED, font=fonts["small"])


def _sheet(draw: Any, game: Any, s: Any, row: int, p: int, score: int, fonts: dict) -> None:
    font, small = fonts["font"], fonts["small"]
    x0, y0 = sheet_origin(p)
    draw.rectangle([x0, y0, x0 + SHEET_W, y0 + SHEET_H], fill=SHEET_RGB, outline=MUTED)
    marks = []
    if p == int(s.start_player[row]):
        marks.append("start")
    if p == int(s.active[row]) and not s.done[row]:
        marks.append("active")
    draw.ellipse([x0 + 8, y0 + 8, x0 + 22, y0 + 22], fill=SEAT_RGB[p], outline=INK)
    draw.text((x0 + 28, y0 + 6), f"player_{p}   score {score}" + (f"   ({', '.join(marks)})" if marks else ""),
              fill=INK, font=fonts["big"])
    disasters = int(s.disasters[row, p])
    draw.text((x0 + SHEET_W - 8, y0 + 8), f"disasters {disasters}", fill=(170, 30, 30) if disasters else MUTED,
              font=font, anchor="ra")
    # left column: food and goods
    lx = x0 + 8
    _, y, _, _ = food_row(p)
    food = int(s.food[row, p])
    draw.text((lx, y), "food", fill=INK, font=small)
    end = _boxes(draw, lx + LEFT_BOXES, y + 3, FOOD_MAX, food, 9, FOOD_RGB, gap=1)
    draw.text((end + 4, y), str(food), fill=INK, font=small)
    total = 0
    for g in range(NUM_GOODS):
        _, y, _, _ = good_row(p, g)
        n = int(s.goods[row, p, g])
        value = int(GOODS_VALUE[g, n])
        total += value
        draw.text((lx, y), GOOD_NAMES[g], fill=INK, font=small)
        end = _boxes(draw, lx + LEFT_BOXES + 8, y + 2, int(GOODS_MAX[g]), n, 11, GOOD_RGB[g])
        draw.text((end + 4, y), f"{n} = {value}", fill=INK, font=small)
    draw.text((lx, y + ROW_H + 2), f"goods value {total}", fill=INK, font=small)
    # cities: 3 to start, then 4..7 as their workers arrive
    y = y0 + CITY_Y
    draw.text((lx, y + 2), "cities", fill=INK, font=small)
    workers = int(s.city_workers[row, p])
    cx = lx + LEFT_BOXES
    for c in range(data.MAX_CITIES):
        if c < START_CITIES:
            built, have, need = True, 0, 0
        else:
            k = c - START_CITIES
            need = int(CITY_NEEDS[k])
            have = max(0, min(need, workers - int(CITY_THRESHOLDS[k] - need)))
            built = have == need
        roof = [(cx, y + 8), (cx + 8, y), (cx + 16, y + 8)]
        fill = (196, 150, 100) if built else EMPTY_RGB
        draw.polygon(roof, fill=fill, outline=INK)
        draw.rectangle([cx + 2, y + 8, cx + 14, y + 18], fill=fill, outline=INK)
        if need and not built:
            draw.text((cx + 8, y + 27), f"{have}/{need}", fill=INK if have else MUTED, font=small, anchor="mm")
        cx += CITY_PITCH
    cities = START_CITIES + int((workers >= CITY_THRESHOLDS).sum())
    draw.text((lx, y + 20), f"{cities} dice", fill=INK, font=small)
    # right column: monuments
    rx = x0 + RIGHT_X
    draw.text((rx, y0 + 32), "monuments", fill=INK, font=small)
    for m in range(NUM_MONUMENTS):
        _, y, _, _ = monument_row(p, m)
        in_play = bool(game.monuments_in_play[m])
        progress = int(s.monument_progress[row, p, m])
        need = int(MONUMENT_WORKERS[m])
        draw.text((rx, y), MONUMENT_NAMES[m], fill=INK if in_play else MUTED, font=small)
        bx = rx + MONUMENT_BOXES
        if not in_play:
            draw.text((bx, y), "not in play", fill=MUTED, font=small)
        elif progress == need:  # complete: the points it scored instead of its (full) boxes
            points = int(s.monument_points[row, p, m])
            who = "first" if points == int(MONUMENT_FIRST[m]) else "later"
            draw.text((bx, y), f"built: {points} points ({who})", fill=INK, font=small)
        else:
            end = _boxes(draw, bx, y + 4, need, progress, 5, (90, 90, 90), gap=1)
            if s.completed_by_anyone[row, m]:
                draw.text((end + 5, y), "others 1st", fill=MUTED, font=small)
    # developments along the bottom
    for d in range(NUM_DEVELOPMENTS):
        cx, cy, w, h = development_chip(p, d)
        owned = bool(s.developments[row, p, d])
        draw.rounded_rectangle([cx, cy, cx + w, cy + h], radius=4, fill=(70, 130, 80) if owned else SHEET_RGB,
                               outline=(70, 130, 80) if owned else EMPTY_RGB)
        draw.text((cx + w / 2, cy + h / 2 + 1), DEVELOPMENT_NAMES[d], fill=(255, 255, 255) if owned else MUTED,
                  font=small, anchor="mm")


def render_rgb(game: Any, state: Any, row: int = 0, seat: int | None = None) -> np.ndarray:
    """(H, W, 3) uint8 picture of row `row` (see the module docstring). Every field is public, so `seat`
    changes nothing."""
    from PIL import Image

    from meeple.envs.canvas import Draw

    s = state
    P = game.num_players
    rows = (P + 1) // 2
    height = HEADER_H + rows * (SHEET_H + 10) + 4
    img = Image.new("RGB", (WIDTH, height), BG_RGB)
    draw = Draw(img)
    fonts = {"big": _font(16), "font": _font(14), "small": _font(13)}
    scores = game.scores(core.take(s, [row]))[0]
    _header(draw, game, s, row, scores, fonts)
    for p in range(P):
        _sheet(draw, game, s, row, p, int(scores[p]), fonts)
    return np.asarray(img, dtype=np.uint8)
