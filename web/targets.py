"""Where each legal move sits on the picture: the server's map from actions to board targets.

`board_targets(game_name, game, state, seat, legal)` returns what the play page draws over the game's
picture (`render_rgb`, drawn by the rules package) so that the board can be clicked:

    {"width", "height"          the picture's size in pixels (the SVG's coordinates),
     "view": [x, y, w, h]       the SVG's viewBox: the picture, the targets that lie off it, the action bar,
     "targets": [{"id", "kind": "rect" | "circle" | "hex" | "line" | "button", "geometry": [...],
                  "label": what the target is, "moves": [{"action", "label": game.action_to_str(...)}]}],
     "decor": [{"kind": "line" | "text", "geometry": [...], "text"?, "class"}]}   drawn, not clickable

A target with one move plays it on a click; with several (the rotations of a tile, the civilizations
that may move along a sea route, the ways to pay) the page opens a small menu of them. Every legal action
is in exactly one target: the moves with a place on the picture (dice, districts, edges, routes, hexes,
cells, cards) sit there; the others (roll, pass, end the turn, choices without a place) are buttons of the
action bar drawn below the picture, one per kind of move. The page draws only what this module sends.

The layouts follow the pictures of `meeple.envs.<game>.picture` (their constants are imported, never
changed here); a game without a map here gets the action bar alone, so every game can be played by
clicking the board.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import numpy as np

BAR_ROW_H = 40
BAR_GAP = 8
BUTTON_H = 30
CHAR_W = 9.2  # width per character of the bar's 16 px labels
_SIZES: dict[tuple, tuple[int, int]] = {}


class Board:
    """The targets being built: moves are added to a target by id, in order."""

    def __init__(self, game: Any, state: Any) -> None:
        self.game = game
        self.state = state
        self.targets: OrderedDict[str, dict] = OrderedDict()
        self.decor: list[dict] = []
        self.placed: set[int] = set()

    def add(self, target_id: str, kind: str, geometry: list[float], label: str, action: int) -> None:
        target = self.targets.get(target_id)
        if target is None:
            target = self.targets[target_id] = {"id": target_id, "kind": kind,
                                                "geometry": [round(float(v), 1) for v in geometry], "label": label,
                                                "moves": []}
        target["moves"].append({"action": int(action), "label": self.game.action_to_str(self.state, int(action), 0)})
        self.placed.add(int(action))

    def line(self, geometry: list[float], css: str, text: str | None = None) -> None:
        item = {"kind": "line", "geometry": [round(float(v), 1) for v in geometry], "class": css}
        if text:
            item["text"] = text
        self.decor.append(item)

    def text(self, x: float, y: float, text: str, css: str = "coord") -> None:
        self.decor.append({"kind": "text", "geometry": [round(float(x), 1), round(float(y), 1)], "text": text,
                           "class": css})


def _bar_label(name: str) -> str:
    """'END_TURN' -> 'End turn', 'FW_FOOD' -> 'Fw food' (the hover text says what the move does)."""
    words = name.replace("_", " ").strip().lower()
    return words[:1].upper() + words[1:]


def _bar(board: Board, legal: list[int], width: int, top: float) -> float:
    """The action bar: a button per kind of move (the action name's first word) not placed on the picture;
    returns the bar's height."""
    groups: OrderedDict[str, list[int]] = OrderedDict()
    names = board.game.action_names
    for a in legal:
        if a not in board.placed:
            groups.setdefault(names[a].split("_")[0], []).append(a)
    x, y = 8.0, top + BAR_GAP
    for head, actions in groups.items():
        label = _bar_label(names[actions[0]]) if len(actions) == 1 else f"{_bar_label(head)}... ({len(actions)})"
        w = max(70.0, CHAR_W * len(label) + 24)
        if x + w > width - 8 and x > 8:
            x, y = 8.0, y + BAR_ROW_H
        for a in actions:
            board.add(f"bar:{head}", "button", [x, y, w, BUTTON_H], label, a)
        x += w + BAR_GAP
    return (y - top + BAR_ROW_H + BAR_GAP) if groups else 0.0


# --- Roll Through the Ages -------------------------------------------------------------------------------

def _rtta(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.roll_through_the_ages import data
    from meeple.envs.roll_through_the_ages.picture import HEADER_H, SHEET_H, SHEET_W

    s, names = board.state, board.game.action_names
    p = int(s.to_play[0])
    r, c = divmod(p, 2)
    x0, y0 = 6 + c * (SHEET_W + 8), HEADER_H + r * (SHEET_H + 10)
    chip_w = (SHEET_W - 16) // 7
    for i in range(data.MAX_DICE):  # the dice the moves name, numbered in their top left corners
        if int(s.dice[0, i]) >= 0:
            board.text(12 + 62 * i + 5, 66 + 15, f"{i + 1}", "coord")
    for a in legal:
        name = names[a]
        if name.startswith(("MARK_REROLL_", "LEADERSHIP_REROLL_")):
            i = int(name.rsplit("_", 1)[1])
            board.add(f"die:{i}", "rect", [12 + 62 * i - 3, 63, 62, 56], f"die {i + 1}", a)
        elif name == "BUILD_CITY":
            board.add("cities", "rect", [x0 + 74, y0 + 150, 24 * data.MAX_CITIES + 52, 34], "your cities", a)
        elif name.startswith("BUILD_MONUMENT_"):
            m = int(name.rsplit("_", 1)[1])
            board.add(f"monument:{m}", "rect", [x0 + 268, y0 + 46 + 14 * m, SHEET_W - 272, 14],
                      f"monument {data.MONUMENT_NAMES[m]}", a)
        elif name.startswith(("PAY_GOOD_", "DISCARD_")):
            g = int(name.rsplit("_", 1)[1])
            board.add(f"good:{g}", "rect", [x0 + 4, y0 + 49 + 16 * g, 262, 15], f"your {data.GOOD_NAMES[g]}", a)
        elif name == "PAY_FOOD":
            board.add("food", "rect", [x0 + 4, y0 + 30, 262, 15], "your food", a)
        elif name.startswith("BUY_DEV_"):
            d = int(name.rsplit("_", 1)[1])
            rr, cc = divmod(d, 7)
            board.add(f"development:{d}", "rect", [x0 + 8 + cc * chip_w, y0 + SHEET_H - 44 + rr * 20, chip_w - 4, 16],
                      f"development {data.DEVELOPMENT_NAMES[d]}", a)


# --- Utopia -------------------------------------------------------------------------------------------

def _utopia_districts(P: int) -> dict[int, tuple[float, float, float, float]]:
    from meeple.envs.utopia.data import DISTRICT_ISLAND, NUM_ISLANDS
    from meeple.envs.utopia.picture import ISLAND_BOX

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


def _utopia(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.utopia import data
    from meeple.envs.utopia.picture import HEIGHT, ISLAND_BOX

    s, P = board.state, board.game.num_players
    boxes = _utopia_districts(P)
    centre = {d: (x + w / 2, y + h / 2) for d, (x, y, w, h) in boxes.items()}
    code = data.DISTRICT_CODES
    live = data.DISTRICT_IN_PLAY[P]
    # the land edges (straight) and the sea routes (bent), drawn and labelled whether or not a move uses them
    edges = sorted({tuple(sorted((int(a), int(b)))) for a, b in data.LAND_EDGES})
    routes = sorted({tuple(sorted((int(a), int(b)))) for a, b in data.SEA_ROUTES})
    for a, b in edges:
        if live[a] and live[b]:
            board.line([*centre[a], *centre[b]], "land-edge", f"land edge {code[a]} - {code[b]}")
    for a, b in routes:
        if live[a] and live[b]:
            board.line([*centre[a], *_bend(centre[a], centre[b]), *centre[b]], "sea-route", f"sea route {code[a]} ~ {code[b]}")
    labelled: set[str] = set()

    def label_path(key: str, a: int, b: int, bent: bool) -> None:
        # the edge or route a move names, labelled at its middle (the picture labels the districts)
        if key in labelled:
            return
        labelled.add(key)
        (x1, y1), (x2, y2) = centre[a], centre[b]
        if bent:
            cx, cy = _bend(centre[a], centre[b])
            mx, my = 0.25 * x1 + 0.5 * cx + 0.25 * x2, 0.25 * y1 + 0.5 * cy + 0.25 * y2
        else:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        board.text(mx, my - 4, f"{code[a]}{'~' if bent else '-'}{code[b]}", "coord middle route-label")
    for a in legal:
        if a < data.ACTION_WONDER or data.ACTION_ADD <= a < data.ACTION_RAISE or data.ACTION_SPECIAL <= a < data.ACTION_PRIVILEGE:
            base = (data.ACTION_PLACE if a < data.ACTION_MONUMENT else data.ACTION_MONUMENT if a < data.ACTION_WONDER
                    else data.ACTION_ADD if a < data.ACTION_REMOVE else data.ACTION_REMOVE if a < data.ACTION_RAISE
                    else data.ACTION_SPECIAL)
            d = (a - base) % data.NUM_DISTRICTS
            board.add(f"district:{d}", "rect", boxes[d], f"district {code[d]}", a)
        elif data.ACTION_SELECT <= a < data.ACTION_LAND:
            d = a - data.ACTION_SELECT
            board.add(f"district:{d}", "rect", boxes[d], f"district {code[d]}", a)
        elif data.ACTION_WONDER <= a < data.ACTION_SELECT:
            i = a - data.ACTION_WONDER
            x0, y0, w, _h, _ = ISLAND_BOX[i]
            board.add(f"wonder:{i}", "circle", [x0 + w - 20, y0 + 12, 13], f"the wonder of {data.ISLAND_NAMES[i]}", a)
        elif data.ACTION_LAND <= a < data.ACTION_SEA:
            src, dst = (int(v) for v in data.LAND_EDGES[(a - data.ACTION_LAND) % data.NUM_LAND_EDGES])
            lo, hi = sorted((src, dst))
            board.add(f"edge:{lo}-{hi}", "line", [*centre[lo], *centre[hi]], f"land edge {code[lo]} - {code[hi]}", a)
            label_path(f"edge:{lo}-{hi}", lo, hi, False)
        elif data.ACTION_SEA <= a < data.ACTION_ADD:
            src, dst = (int(v) for v in data.SEA_ROUTES[(a - data.ACTION_SEA) % data.NUM_SEA_ROUTES])
            lo, hi = sorted((src, dst))
            board.add(f"route:{lo}-{hi}", "line", [*centre[lo], *_bend(centre[lo], centre[hi]), *centre[hi]],
                      f"sea route {code[lo]} ~ {code[hi]}", a)
            label_path(f"route:{lo}-{hi}", lo, hi, True)
        elif data.ACTION_RAISE <= a < data.ACTION_SPECIAL:
            c = (a - data.ACTION_RAISE) % data.NUM_CIVS
            v = int(s.scale[0, c])
            board.add(f"scale:{c}", "rect", [120 + (v - 1) * 70 - 2, HEIGHT - 104, 66, 20],
                      f"{data.CIV_LONG[c]} on the prestige scale", a)


def _bend(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """The control point of a sea route's curve: off the straight line, so routes and edges stay apart."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    return mx - dy / length * 0.18 * length, my + dx / length * 0.18 * length


# --- Attika -------------------------------------------------------------------------------------------

def _attika_map(state: Any) -> tuple[float, float, int, int]:
    """(x0, y0, width, height) of the map Attika's picture draws for this position: the occupied fields and,
    while a rotation is chosen, the marked field's flower (the picture's own computation, repeated)."""
    from meeple.envs.attika import data
    from meeple.envs.attika.picture import FLOWER, HEX, SLOT_Q, SLOT_R, _centre, _occupied

    slots = _occupied(state, 0)
    marked = int(state.pending_slot[0])
    choosing = marked >= 0 and int(state.decision[0]) == data.DEC_CHOOSE_ROTATION
    flower = [int(v) for v in FLOWER[marked] if v >= 0] if choosing else []
    extent = np.union1d(slots, flower) if flower else slots
    px = np.array([_centre(int(SLOT_Q[h]), int(SLOT_R[h])) for h in extent])
    pad = HEX + 10
    x0, y0 = px[:, 0].min() - pad, px[:, 1].min() - pad
    return x0, y0, int(px[:, 0].max() - x0 + pad), int(px[:, 1].max() - y0 + pad)


def _attika(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.attika.picture import HEADER_H, HEX, SLOT_Q, SLOT_R, _centre

    s, names = board.state, board.game.action_names
    marked = int(s.pending_slot[0])
    x0, y0, map_w, _ = _attika_map(s)
    origin = (-x0 + (max(map_w, 420) - map_w) / 2, HEADER_H - y0)

    def at(q: int, r: int) -> tuple[float, float]:
        cx, cy = _centre(q, r)
        return cx + origin[0], cy + origin[1]

    for a in legal:
        name = names[a]
        if name.startswith("SLOT_"):
            q, r = (int(v) for v in name[5:].split("_"))
            cx, cy = at(q, r)
            board.add(f"hex:{q},{r}", "hex", [cx, cy, HEX - 1], f"field ({q},{r})", a)
            board.text(cx, cy - 1, f"{q},", "coord middle")  # (q, r) on two lines: one line is wider than a hex
            board.text(cx, cy + 13, f"{r}", "coord middle")
        elif name.startswith("ROTATE_") and marked >= 0:
            cx, cy = at(int(SLOT_Q[marked]), int(SLOT_R[marked]))
            board.add("rotate", "hex", [cx, cy, HEX + 2], "the new tile: choose its rotation", a)


# --- Carpe Diem ---------------------------------------------------------------------------------------

def _carpe_diem(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.carpe_diem import data
    from meeple.envs.carpe_diem.picture import CELL

    s, names = board.state, board.game.action_names
    p = int(s.to_play[0])
    gx, gy = 490 + 305 * (p % 2) + 24, 10 + 345 * (p // 2) + 56
    ccx, ccy, radius, mini = 240, 206, 118, 26
    for a in legal:
        name = names[a]
        if name.startswith("PLACE_"):
            rc = name.split("_")[1]
            r, c = int(rc[0]), int(rc[1])
            board.add(f"cell:{r}{c}", "rect", [gx + c * CELL, gy + r * CELL, CELL, CELL], f"your cell {r}{c}", a)
            board.text(gx + c * CELL + CELL / 2, gy + r * CELL + CELL / 2 + 5, f"{r}{c}", "coord middle")
        elif name.startswith("SPACE_"):
            d = int(name.split("_")[1])
            ang = -np.pi / 2 + 2 * np.pi * d / data.NUM_SPACES
            dx, dy = ccx + radius * np.cos(ang), ccy + radius * np.sin(ang)
            board.add(f"space:{d}", "rect", [dx - mini - 4, dy - mini - 4, 2 * mini + 8, 2 * mini + 8], f"depot {d}", a)
        elif a in range(data.ACTION_TAKE, data.ACTION_TAKE + 4):
            j, d = a - data.ACTION_TAKE, int(s.patrician[0, p])
            if 0 <= d < data.NUM_SPACES:
                ang = -np.pi / 2 + 2 * np.pi * d / data.NUM_SPACES
                x, y = ccx + radius * np.cos(ang) - mini - 1, ccy + radius * np.sin(ang) - mini - 1
                board.add(f"take:{j}", "rect", [x + (j % 2) * (mini + 2), y + (j // 2) * (mini + 2), mini, mini],
                          f"tile {j + 1} of depot {d}", a)
        elif a in range(data.ACTION_DISPLAY, data.ACTION_DISPLAY + data.DISPLAY_SLOTS):
            i = a - data.ACTION_DISPLAY
            board.add(f"display:{i}", "rect", [70 + i * 34 - 2, 380, mini + 4, mini + 4], f"display slot {i + 1}", a)


# --- Hadara -------------------------------------------------------------------------------------------

def _hadara(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.hadara.picture import (BOARD_H, BOX_PITCH, PANEL_H, PANEL_W, PLAYER_COLUMNS, TRACK_BAR,
                                            TRACK_NAMES)
    from meeple.envs.hadara.render import COLOUR_LETTERS

    s, names = board.state, board.game.action_names
    p = int(s.to_play[0])
    r, c = divmod(p, PLAYER_COLUMNS)
    x0, y0 = 6 + c * (PANEL_W + 6), BOARD_H + r * (PANEL_H + 8)
    order = [int(v) for v in s.board_order[0]]
    for a in legal:
        name = names[a]
        parts = name.split("_")
        if parts[0] == "PICK":
            colour = COLOUR_LETTERS.index(parts[1])
            pos = order.index(colour) if colour in order else -1
            if pos >= 0:
                board.add(f"position:{pos}", "rect", [12 + pos * 122 - 2, 48, 118, BOARD_H - 100],
                          f"board position {pos}", a)
                continue
        if parts[0] == "TILE":
            k = COLOUR_LETTERS.index(parts[1])
            board.add(f"track:{k}", "rect", [x0 + 4, y0 + 27 + 16 * k, 66 + TRACK_BAR + 20, 15],
                      f"your {TRACK_NAMES[k]} track", a)
        elif parts[0] == "COLONY":
            t = int(parts[1])
            board.add(f"colony:{t}", "rect", [x0 + 60 + BOX_PITCH * t, y0 + 94, 42, 19], f"colony tier {t}", a)
        elif parts[0] == "BUST":
            b = int(parts[1])
            board.add(f"bust:{b}", "rect", [x0 + 60 + BOX_PITCH * b, y0 + 114, 42, 19], f"bust {b}", a)
        elif parts[0] in ("SILVER", "GOLD"):
            board.add("seals", "rect", [x0 + 4, y0 + 133, 62 + BOX_PITCH * 4 + 60, 20], "your seals", a)


BOARDS = {"roll_through_the_ages": _rtta, "hadara": _hadara, "utopia": _utopia, "attika": _attika, "carpe_diem": _carpe_diem}


def _attika_size(game: Any, state: Any) -> tuple[int, int]:
    """The size Attika's picture has for this map (its computation, repeated)."""
    from meeple.envs.attika.picture import HEADER_H, PANEL_W

    _, _, map_w, map_h = _attika_map(state)
    return max(map_w, 420) + PANEL_W, max(HEADER_H + map_h, 300 + 118 * game.num_players)


def picture_size(game_name: str, game: Any, state: Any, seat: int | None) -> tuple[int, int]:
    """(width, height) of the picture; Attika's depends on the map, the others' only on the configuration
    (drawn once per configuration to learn it)."""
    if game_name == "attika":
        return _attika_size(game, state)
    key = (game_name, game.num_players)
    if key not in _SIZES:
        h, w = game.render_rgb(state, 0, seat).shape[:2]
        _SIZES[key] = (int(w), int(h))
    return _SIZES[key]


def board_targets(game_name: str, game: Any, state: Any, seat: int | None, legal: list[int],
                  picture: bool = True) -> dict:
    """The targets of the legal moves `legal` in `state` (one row), for the person at `seat` (module docstring)."""
    width, height = picture_size(game_name, game, state, seat) if picture else (1000, 0)
    board = Board(game, state)
    if picture and game_name in BOARDS and legal:
        BOARDS[game_name](board, legal, seat)
    bar_h = _bar(board, legal, width, height)
    xs, ys = [0.0, float(width)], [0.0, float(height + bar_h)]
    for target in board.targets.values():
        g = target["geometry"]
        if target["kind"] in ("rect", "button"):
            xs += [g[0], g[0] + g[2]]
            ys += [g[1], g[1] + g[3]]
        elif target["kind"] in ("circle", "hex"):
            xs += [g[0] - g[2], g[0] + g[2]]
            ys += [g[1] - g[2], g[1] + g[2]]
    x0, y0 = min(xs) - 4, min(ys) - 4
    view = [round(x0, 1), round(y0, 1), round(max(xs) + 4 - x0, 1), round(max(ys) + 4 - y0, 1)]
    return {"width": width, "height": height, "view": view, "targets": list(board.targets.values()),
            "decor": board.decor}
