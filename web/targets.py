"""Where each legal move sits on the picture: the server's map from actions to board targets.

`board_targets(game_name, game, state, seat, legal)` returns what the play page draws over the game's
picture (`render_rgb`, drawn by the rules package) so that the board can be clicked:

    {"width", "height"          the picture's size in pixels (the SVG's coordinates),
     "view": [x, y, w, h]       the SVG's viewBox: the picture, the targets that lie off it, the action bar,
     "targets": [{"id", "kind": "rect" | "circle" | "hex" | "line" | "button", "geometry": [...],
                  "label": what the target is, "explain": [what the codes of its label and moves mean],
                  "moves": [{"action", "label": game.action_to_str(...), "explain": [...]}]}],
     "decor": [{"kind": "line" | "text" | "hint", "geometry": [...], "text"?, "class"}],   drawn, not clickable
     "glossary": [{"code", "text"}]}   every code the picture and the moves show, explained

A target with one move plays it on a click; with several (the rotations of a tile, the civilizations
that may move along a sea route, the ways to pay) the page opens a small menu of them. Every legal action
is in exactly one target: the moves with a place on the picture (dice, districts, edges, routes, hexes,
cells, cards, stacks, the hand) sit there; the others (roll, pass, end the turn, choices without a place)
are buttons of the action bar drawn below the picture, one per kind of move. The page draws only what this
module sends.

The codes the picture writes (card codes, districts, building types; `web/glossary.py`) get a "hint"
decoration over them, an invisible box whose tooltip says what the code means; that needs the strings the
picture wrote and where (`canvas.recording()` while it was drawn: `drawn`).

The layouts follow the pictures of `meeple.envs.<game>.picture` (their geometry is imported, never
changed here); a game without a map here gets the action bar alone, so every game can be played by
clicking the board.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any


from meeple.web import glossary

BAR_ROW_H = 40
BAR_GAP = 8
BUTTON_H = 30
CHAR_W = 9.2  # width per character of the bar's 16 px labels
MAX_HINTS = 600  # hint boxes per picture at most (a 5-player Hadara endgame draws about 250 codes)
_SIZES: dict[tuple, tuple[int, int]] = {}


class Board:
    """The targets being built: moves are added to a target by id, in order."""

    def __init__(self, game: Any, state: Any) -> None:
        self.game = game
        self.state = state
        self.targets: OrderedDict[str, dict] = OrderedDict()
        self.decor: list[dict] = []
        self.placed: set[int] = set()

    def add(self, target_id: str, kind: str, geometry: Any, label: str, action: int) -> None:
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


def _grow(box: Any, pad: float = 2.0) -> list[float]:
    """(x, y, w, h) grown by `pad` on every side."""
    x, y, w, h = box
    return [x - pad, y - pad, w + 2 * pad, h + 2 * pad]


# --- Roll Through the Ages -------------------------------------------------------------------------------

def _rtta(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.roll_through_the_ages import data
    from meeple.envs.roll_through_the_ages.picture import (cities_box, development_chip, die_box, food_row, good_row,
                                                           monument_row)

    s, names = board.state, board.game.action_names
    p = int(s.to_play[0])
    for i in range(data.MAX_DICE):  # the dice the moves name, numbered in their top left corners
        if int(s.dice[0, i]) >= 0:
            x, y, _, _ = die_box(i)
            board.text(x + 5, y + 15, f"{i + 1}", "coord")
    undecided = [i for i in range(data.MAX_DICE)
                 if int(s.dice[0, i]) == data.FW2 and int(s.fw_choice[0, i]) == data.FW_UNDECIDED]
    for a in legal:
        name = names[a]
        if name.startswith(("MARK_REROLL_", "LEADERSHIP_REROLL_")):
            i = int(name.rsplit("_", 1)[1])
            board.add(f"die:{i}", "rect", _grow(die_box(i), 3), f"die {i + 1}", a)
        elif name in ("FW_FOOD", "FW_WORKERS") and undecided:  # the lowest undecided food-or-workers die
            i = undecided[0]
            board.add(f"die:{i}", "rect", _grow(die_box(i), 3), f"die {i + 1}: food or workers", a)
        elif name == "BUILD_CITY":
            board.add("cities", "rect", cities_box(p), "your cities", a)
        elif name.startswith("BUILD_MONUMENT_"):
            m = int(name.rsplit("_", 1)[1])
            board.add(f"monument:{m}", "rect", monument_row(p, m), f"monument {data.MONUMENT_NAMES[m]}", a)
        elif name.startswith(("PAY_GOOD_", "DISCARD_")):
            g = int(name.rsplit("_", 1)[1])
            board.add(f"good:{g}", "rect", good_row(p, g), f"your {data.GOOD_NAMES[g]}", a)
        elif name == "PAY_FOOD":
            board.add("food", "rect", food_row(p), "your food", a)
        elif name.startswith("BUY_DEV_"):
            d = int(name.rsplit("_", 1)[1])
            board.add(f"development:{d}", "rect", _grow(development_chip(p, d), 1),
                      f"development {data.DEVELOPMENT_NAMES[d]}", a)
        elif name == "ENGINEERING":
            board.add(f"development:{data.ENGINEERING}", "rect", _grow(development_chip(p, data.ENGINEERING), 1),
                      "your Engineering", a)


# --- Utopia -------------------------------------------------------------------------------------------

def _utopia(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.utopia import data
    from meeple.envs.utopia.picture import ISLAND_BOX, district_boxes, hand_chip, scale_box

    s, P = board.state, board.game.num_players
    boxes = district_boxes()
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
            board.add(f"scale:{c}", "rect", _grow(scale_box(c, int(s.scale[0, c]))),
                      f"{data.CIV_NAMES[c]} ({data.CIV_LONG[c]}) on the prestige scale", a)
        elif data.ACTION_PRIVILEGE <= a < data.ACTION_DISCARD:  # a card of src counts as another civilization
            src, _ = data.privilege_pair(a - data.ACTION_PRIVILEGE)
            board.add(f"hand:{src}", "rect", _grow(hand_chip(src)), f"your {data.CIV_NAMES[src]} cards", a)
        elif data.ACTION_DISCARD <= a < data.ACTION_END:
            c = a - data.ACTION_DISCARD
            board.add(f"hand:{c}", "rect", _grow(hand_chip(c)), f"your {data.CIV_NAMES[c]} cards", a)


def _bend(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """The control point of a sea route's curve: off the straight line, so routes and edges stay apart."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    return mx - dy / length * 0.18 * length, my + dx / length * 0.18 * length


# --- Attika -------------------------------------------------------------------------------------------

def _attika(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.attika import data
    from meeple.envs.attika.picture import HEX, SLOT_Q, SLOT_R, _centre, frame
    from meeple.envs.attika.render import STACK_NAMES, TYPE_CODES

    s, names = board.state, board.game.action_names
    f = frame(s, 0, board.game.num_players, seat)
    p = int(s.to_play[0])
    mine = f.players[p]
    marked = int(s.pending_slot[0])

    def at(q: int, r: int) -> tuple[float, float]:
        cx, cy = _centre(q, r)
        return cx + f.origin[0], cy + f.origin[1]

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
        elif data.ACTION_SELECT <= a < data.ACTION_SELECT + data.NUM_TYPES and (a - data.ACTION_SELECT) in mine.chips:
            t = a - data.ACTION_SELECT
            board.add(f"display:{t}", "rect", _grow(mine.chips[t]), f"{TYPE_CODES[t]}: {data.BUILDING_NAMES[t]} on your display", a)
        elif data.ACTION_REVEAL <= a < data.ACTION_REVEAL + data.NUM_STACKS:
            k = a - data.ACTION_REVEAL
            board.add(f"stack:{k}", "rect", _grow(mine.stacks[k]), f"your {STACK_NAMES[k]}", a)
        elif a == data.ACTION_STORE:
            board.add("display", "rect", _grow(mine.display), "your display", a)
        elif a == data.ACTION_AMPHORA_CARD:
            board.add("amphorae", "rect", _grow(mine.amphorae), "your amphorae", a)
        elif data.ACTION_PAY <= a < data.ACTION_PAY + data.NUM_LANDSCAPES and len(mine.hand) == data.NUM_LANDSCAPES:
            k = a - data.ACTION_PAY
            board.add(f"hand:{k}", "rect", _grow(mine.hand[k]),
                      f"your {data.LANDSCAPES[k]} ({data.LANDSCAPE_NAMES[k]}) cards", a)
        elif a == data.ACTION_SUBSTITUTE and len(mine.hand) == data.NUM_LANDSCAPES:
            x, y, _, h = mine.hand[0]
            board.add("hand", "rect", [x - 48, y - 2, 44, h + 4], "your hand: two cards of any kind for one", a)


# --- Carpe Diem ---------------------------------------------------------------------------------------

def _carpe_diem(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.carpe_diem import data, kernels
    from meeple.envs.carpe_diem.picture import (CELL, MINI, card_box, circle_space, depot_centre, depot_slot,
                                                display_slot, fountain_chips, grid_origin, pending_tile)

    s, names = board.state, board.game.action_names
    p = int(s.to_play[0])
    gx, gy = grid_origin(p)

    def depot(d: int) -> list[float]:
        dx, dy = depot_centre(d)
        return [dx - MINI - 4, dy - MINI - 4, 2 * MINI + 8, 2 * MINI + 8]

    for a in legal:
        name = names[a]
        if name.startswith("PLACE_"):
            rc = name.split("_")[1]
            r, c = int(rc[0]), int(rc[1])
            board.add(f"cell:{r}{c}", "rect", [gx + c * CELL, gy + r * CELL, CELL, CELL], f"your cell {r}{c}", a)
            board.text(gx + c * CELL + CELL / 2, gy + r * CELL + CELL / 2 + 5, f"{r}{c}", "coord middle")
        elif name.startswith("SPACE_"):
            d = int(name.split("_")[1])
            board.add(f"space:{d}", "rect", depot(d), f"depot {d}", a)
        elif a in (data.ACTION_MOVE_CW, data.ACTION_MOVE_CCW) and int(s.patrician[0, p]) >= 0:
            start = int(s.patrician[0, p])
            dest = int(kernels.walk(kernels._State(*s), 0, start, 1 if a == data.ACTION_MOVE_CW else data.NUM_SPACES - 1))
            board.add(f"space:{dest}", "rect", depot(dest), f"depot {dest}", a)
        elif a in range(data.ACTION_TAKE, data.ACTION_TAKE + 4):
            j, d = a - data.ACTION_TAKE, int(s.patrician[0, p])
            if 0 <= d < data.NUM_SPACES:
                board.add(f"take:{j}", "rect", depot_slot(d, j), f"tile {j + 1} of depot {d}", a)
        elif a == data.ACTION_STORE:
            board.add("pending", "rect", _grow(pending_tile(), 3), "the tile being built", a)
        elif a in range(data.ACTION_DISPLAY, data.ACTION_DISPLAY + data.DISPLAY_SLOTS):
            i = a - data.ACTION_DISPLAY
            board.add(f"display:{i}", "rect", _grow(display_slot(i)), f"display slot {i + 1}", a)
        elif data.ACTION_RETURN <= a < data.ACTION_RETURN + data.NUM_FOUNTAIN_KINDS:
            k = a - data.ACTION_RETURN
            chip = next((box for kind, _, box in fountain_chips(s, 0, p) if kind == k), None)
            if chip is not None:
                board.add(f"fountain:{k}", "rect", _grow(chip), f"your fountain cards of kind {data.FEATURE_NAMES[k]}", a)
        elif data.ACTION_SCORE_SPACE <= a < data.ACTION_ORDER_LOW:
            sp = a - data.ACTION_SCORE_SPACE
            cx, cy = circle_space(sp)
            board.add(f"circle:{sp}", "circle", [cx, cy, 12], f"circle space {sp}", a)
        elif a in (data.ACTION_ORDER_LOW, data.ACTION_ORDER_HIGH) and int(s.cur_space[0]) >= 0:
            slot = int(data.CIRCLE_SLOTS[int(s.cur_space[0]), 0 if a == data.ACTION_ORDER_LOW else 1])
            board.add(f"card:{slot}", "rect", _grow(card_box(slot), 3),
                      f"card {data.CARD_NAMES[int(s.card_slot[0, slot])]}: resolve it first", a)
        elif data.ACTION_COUNT <= a < data.NUM_ACTIONS and int(s.cur_space[0]) >= 0:
            low, high = (int(v) for v in data.CIRCLE_SLOTS[int(s.cur_space[0])])
            first, second = (high, low) if s.first_high[0] else (low, high)
            slot = first if int(s.card_seq[0]) == 0 else second  # the card being resolved (kernels.current_card)
            board.add(f"card:{slot}", "rect", _grow(card_box(slot), 3),
                      f"card {data.CARD_NAMES[int(s.card_slot[0, slot])]} being resolved", a)


# --- Hadara -------------------------------------------------------------------------------------------

def _hadara(board: Board, legal: list[int], seat: int | None) -> None:
    from meeple.envs.hadara import data
    from meeple.envs.hadara.picture import (BOARD_TOP, BOX_PITCH, BOX_W, BOX_X, CHIP_H, COL_W, COLONY_Y, COLUMN_H,
                                            ROW_H, TRACK_BAR, TRACK_NAMES, TRACK_Y, hand_chip, panel_origin,
                                            tableau_chips)
    from meeple.envs.hadara.render import COLOUR_LETTERS

    s, names = board.state, board.game.action_names
    p = int(s.to_play[0])
    x0, y0 = panel_origin(p)
    order = [int(v) for v in s.board_order[0]]
    chips = None

    def column(pos: int) -> list[float]:
        return [12 + pos * COL_W - 3, BOARD_TOP - 3, COL_W - 2, COLUMN_H + 6]

    def box(row: int, k: int) -> list[float]:  # colony (row 0) or bust (row 1) box k
        return [x0 + BOX_X + BOX_PITCH * k - 1, y0 + COLONY_Y + row * (ROW_H + 4) - 1, BOX_W + 2, CHIP_H + 3]

    for a in legal:
        name = names[a]
        parts = name.split("_")
        if parts[0] == "PICK":
            colour = COLOUR_LETTERS.index(parts[1])
            pos = order.index(colour) if colour in order else -1
            if pos >= 0:
                board.add(f"position:{pos}", "rect", column(pos), f"board position {pos}", a)
        elif parts[0] == "WHEEL":  # the rotation puts the start player's first draw at board position p + r
            pos = (p + int(parts[1])) % data.NUM_ROTATIONS
            board.add(f"position:{pos}", "rect", column(pos), f"board position {pos}: your first draw", a)
        elif parts[0] in ("BUY", "SELL") and len(parts) == 2 and int(s.drawn[0, p, int(parts[1])]) >= 0:
            i = int(parts[1])
            card = data.CARD_NAMES[int(s.drawn[0, p, i])]
            board.add(f"hand:{i}", "rect", _grow(hand_chip(i)), f"card {i + 1} of your pair: {card}", a)
        elif parts[0] == "TILE":
            k = COLOUR_LETTERS.index(parts[1])
            board.add(f"track:{k}", "rect", [x0 + 4, y0 + TRACK_Y + ROW_H * k - 1, BOX_X + TRACK_BAR + 60, ROW_H],
                      f"your {TRACK_NAMES[k]} track", a)
        elif parts[0] == "COLONY":
            t = int(parts[1])
            board.add(f"colony:{t}", "rect", box(0, t), f"colony tier {t}", a)
        elif parts[0] == "BUST":
            b = int(parts[1])
            board.add(f"bust:{b}", "rect", box(1, b), f"bust {b}", a)
        elif parts[0] in ("SILVER", "GOLD"):
            board.add("seals", "rect", [x0 + 4, y0 + COLONY_Y + 2 * (ROW_H + 4) - 2, BOX_X + BOX_PITCH * 4, ROW_H + 2],
                      "your seals", a)
        elif parts[0] == "REMOVE":
            if chips is None:
                chips = tableau_chips(s, 0, p)
            slot = int(parts[1])
            if slot in chips:  # chips past a column's last row share its "+k more" box (and its menu)
                x, y, w, h = chips[slot]
                card = data.CARD_NAMES[int(s.tableau[0, p, slot])]
                board.add(f"tableau:{x},{y}", "rect", _grow((x, y, w, h), 1), f"your card {card}", a)


BOARDS = {"roll_through_the_ages": _rtta, "hadara": _hadara, "utopia": _utopia, "attika": _attika, "carpe_diem": _carpe_diem}


def picture_size(game_name: str, game: Any, state: Any, seat: int | None) -> tuple[int, int]:
    """(width, height) of the picture; Attika's depends on the position (its picture's own layout), the
    others' only on the configuration (drawn once per configuration to learn it)."""
    if game_name == "attika":
        from meeple.envs.attika.picture import frame

        f = frame(state, 0, game.num_players, seat)
        return f.width, f.height
    key = (game_name, game.num_players)
    if key not in _SIZES:
        h, w = game.render_rgb(state, 0, seat).shape[:2]
        _SIZES[key] = (int(w), int(h))
    return _SIZES[key]


def _explain(codes: list) -> list[str]:
    return list(dict.fromkeys(c.text for c in codes))


def _hints(board: Board, game_name: str, texts: list, glossary_out: dict) -> None:
    """A hint box over every code the picture wrote (its tooltip explains it); the codes go to the glossary."""
    seen: set[tuple] = set()
    for t in texts:
        for code in glossary.find(game_name, board.game, t.text):
            glossary_out.setdefault(code.code, code.line)
            left = t.font.getlength(t.text[:code.start]) if code.start else 0.0
            width = t.font.getlength(t.text[code.start:code.end])
            if code.start == 0 and code.end == len(t.text):
                left, width = 0.0, float(t.w)
            key = (round(t.x + left), t.y, round(width))
            if key in seen or len(seen) >= MAX_HINTS:
                continue
            seen.add(key)
            board.decor.append({"kind": "hint", "geometry": [round(t.x + left - 1, 1), float(t.y - 2), round(width + 2, 1),
                                                             float(t.h + 4)], "text": code.text, "class": "hint"})


def board_targets(game_name: str, game: Any, state: Any, seat: int | None, legal: list[int],
                  picture: bool = True, drawn: tuple | None = None) -> dict:
    """The targets of the legal moves `legal` in `state` (one row), for the person at `seat` (module docstring).

    `drawn`: (the strings this position's picture from `seat` wrote, as `canvas.recording()` collected them,
    its width, its height), for the hints over its codes; None: no hints (the size is learnt here)."""
    if picture and drawn is not None:
        texts, width, height = drawn
    else:
        texts = []
        width, height = picture_size(game_name, game, state, seat) if picture else (1000, 0)
    board = Board(game, state)
    codes: dict[str, str] = {}
    if picture:
        _hints(board, game_name, texts, codes)
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
        explained = glossary.find(game_name, game, target["label"])
        for move in target["moves"]:
            move_codes = glossary.explain_move(game_name, game, move["action"], move["label"])
            move["explain"] = _explain(move_codes)
            explained += move_codes
        target["explain"] = _explain(explained)
        for code in explained:
            codes.setdefault(code.code, code.line)
    x0, y0 = min(xs) - 4, min(ys) - 4
    view = [round(x0, 1), round(y0, 1), round(max(xs) + 4 - x0, 1), round(max(ys) + 4 - y0, 1)]
    return {"width": width, "height": height, "view": view, "targets": list(board.targets.values()),
            "decor": board.decor, "glossary": [{"code": k, "text": v} for k, v in codes.items()]}
