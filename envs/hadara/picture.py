"""The picture of a Hadara position: `render_rgb`, the rgb_array render, drawn with Pillow.

The top shows the epoch, the section and who decides; the central board: one column per board
position in its colour with the face-down inner stack (a count) and the outer pile (every card bottom
to top, or only the top card with pile_view="top"), the seats drawing there this draft round; beside it
the colony stacks per tier and the busts. Below, one panel per player: VP, coins, initiative and start
side, the four tracks with the free bonus tiles, colonies (plundered, or allied with the public back),
carved busts, seals, face-down sales (colours only) and the tableau by colour; a legend strip at the
bottom. Text is at least 13 px (`canvas.MIN_TEXT_PX`); the geometry helpers (`panel_origin`, `hand_chip`,
`tableau_chips`, the layout constants) are what the browser app's board (`web/targets.py`) clicks.

Public information only, unless `seat` names the seat whose own hidden parts to show as well: its
drawn pair and pending commitment (in the header) and the cards of its face-down sales. Nobody sees a
plundered colony's back or the stacks' order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.hadara import data, kernels
from meeple.envs.hadara.data import (
    BUST_REQUIREMENT, BUST_REWARD, BUST_VP, CARD_COLOUR, CARD_NAMES, CARD_PRICE, CARD_VP, COLONY_ALLY_COST,
    COLONY_FRONT_VP, COLONY_NAMES, COLONY_PLUNDER, COLONY_TIER_REQUIREMENT, COLOUR_NAMES, MAX_SILVER, NUM_BUSTS,
    NUM_COLOURS, NUM_TIERS, NUM_TRACKS, TRACK_NAMES,
)
from meeple.envs.hadara.render import section_text, turn_text
from meeple.envs.palette import INK, MUTED
from meeple.envs.textview import seat_marks

WIDTH = 1100
HEADER_H = 54  # the title, the status and, in a seat's view, its drawn pair
BOARD_H = 248  # the header and the central board; the player panels start here
COL_W = 122  # a board position's column
COLUMN_H = 186  # its height, from BOARD_TOP
BOARD_TOP = HEADER_H
PANEL_W, PANEL_H = 541, 252
LEGEND_H = 46  # the legend strip below the panels
BG_RGB = (236, 230, 214)
PANEL_RGB = (252, 249, 240)
EMPTY_RGB = (232, 226, 210)
COLOUR_RGB = ((232, 190, 40), (204, 60, 50), (60, 110, 200), (70, 150, 70), (140, 82, 166))  # Y R B G P
COLOUR_TEXT = (INK, (255, 255, 255), (255, 255, 255), (255, 255, 255), (255, 255, 255))
SEAT_RGB = ((40, 40, 40), (245, 245, 245), (170, 110, 60), (90, 190, 200), (230, 120, 170))  # black, white, brown, teal, pink
DRAFT_CHOICES = ("buy card 1, discard card 2", "sell card 1, discard card 2", "buy card 2, discard card 1",
                 "sell card 2, discard card 1")
PLAYER_COLUMNS = 2
TRACK_BAR = 110  # pixels of the longest track bar
TABLEAU_COL = 50  # pixels per colour column of a tableau
TABLEAU_ROWS = 12  # chips per colour column before "+k"
BOX_X, BOX_W, BOX_PITCH = 64, 42, 44  # colony, bust and seal boxes: the first one's x in a panel, width, pitch
ROW_H = 18  # a panel's rows (tracks, colonies, ...)
CHIP_H = 16  # a card chip's height
TRACK_Y = 30  # the first track's row in a panel
COLONY_Y = TRACK_Y + 4 * ROW_H + 2  # then busts, seals and sales, ROW_H + 4 apart
SOLD_X = 106  # the first sold card
HAND_X, HAND_Y, HAND_CHIP = 640, 6, 58  # a seat's drawn pair in the header: where it starts, chip width


def _font(size: int) -> Any:
    from meeple.envs import canvas  # Pillow loads with the first picture, not with the game

    return canvas.font(size)


def panel_origin(p: int) -> tuple[int, int]:
    """The top-left corner of seat p's panel."""
    r, c = divmod(p, PLAYER_COLUMNS)
    return 6 + c * (PANEL_W + 6), BOARD_H + r * (PANEL_H + 8)


def tableau_left(x0: int) -> int:
    """The x of a panel's tableau (its five colour columns), from the panel's x."""
    return x0 + PANEL_W - NUM_COLOURS * TABLEAU_COL - 4


def hand_chip(i: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of card i of the seat's own drawn pair in the header."""
    return HAND_X + 70 + i * (HAND_CHIP + 4), HAND_Y, HAND_CHIP, CHIP_H


def tableau_chips(s: Any, row: int, p: int) -> dict[int, tuple[int, int, int, int]]:
    """{tableau slot: (x, y, w, h)} of the cards of seat p's tableau the picture shows as chips (the cards
    past TABLEAU_ROWS - 1 of a colour share the "+k more" box, under the slot of the first of them)."""
    x0, y0 = panel_origin(p)
    left, counts, out = tableau_left(x0), [0] * NUM_COLOURS, {}
    total = [0] * NUM_COLOURS
    for slot in range(int(s.n_slots[row, p])):
        card = int(s.tableau[row, p, slot])
        if card >= 0:
            total[int(CARD_COLOUR[card])] += 1
    for slot in range(int(s.n_slots[row, p])):
        card = int(s.tableau[row, p, slot])
        if card < 0:
            continue
        c = int(CARD_COLOUR[card])
        i = counts[c]
        counts[c] += 1
        if i >= TABLEAU_ROWS - 1 and total[c] > TABLEAU_ROWS:
            i = TABLEAU_ROWS - 1  # the "+k more" box
        out[slot] = (left + TABLEAU_COL * c, y0 + TRACK_Y + 10 + (CHIP_H + 1) * i, TABLEAU_COL - 4, CHIP_H)
    return out


def _chip(draw: Any, x: float, y: float, w: float, card: int, font: Any, text: str | None = None) -> None:
    c = int(CARD_COLOUR[card])
    draw.rectangle([x, y, x + w, y + CHIP_H], fill=COLOUR_RGB[c], outline=INK)
    draw.text((x + w / 2, y + CHIP_H / 2 + 1), CARD_NAMES[card] if text is None else text, fill=COLOUR_TEXT[c], font=font,
              anchor="mm")


def _seat_disc(draw: Any, x: float, y: float, p: int, r: float = 7) -> None:
    draw.ellipse([x - r, y - r, x + r, y + r], fill=SEAT_RGB[p], outline=INK, width=2)


def _drawing_position(s: Any, row: int, p: int, P: int) -> int:
    """The board position seat p draws from in this draft round, or -1 outside the draft."""
    if int(s.decision[row]) not in (data.DEC_A_DRAFT, data.DEC_A_TILE) or int(s.rotation[row]) < 0 \
            or int(s.round[row]) >= data.ROUNDS_PER_PHASE_A:
        return -1
    return (p + int(s.rotation[row]) + int(s.round[row])) % data.NUM_ROTATIONS


def _header(draw: Any, game: Any, s: Any, row: int, vp: np.ndarray, fonts: dict) -> None:
    P = game.num_players
    draw.text((12, 8), "Hadara   " + section_text(game, s, row, "   ", picture=True), fill=INK, font=fonts["big"])
    if s.done[row]:
        status = "Game over: " + ", ".join(f"player_{p} {int(vp[p])} VP ({int(s.coins[row, p])} coins)" for p in range(P))
    else:
        status = turn_text(s, row)
    draw.text((12, 30), status, fill=INK, font=fonts["font"])


def _legend(draw: Any, y: int, fonts: dict) -> None:
    """What the chips, boxes and marks mean, in a strip below the panels."""
    lines = ("cards: code in the card's colour (Y yellow, R red, B blue, G green, P purple), price in coins (c), VP; "
             "outer piles: top card last",
             "squares after a track: free bonus tiles; colonies: tan plundered (back secret), green allied (code); "
             "seals: silver ring in the scored track's colour, gold discs")
    draw.line([8, y, WIDTH - 8, y], fill=MUTED)
    for i, line in enumerate(lines):
        draw.text((12, y + 6 + 19 * i), line, fill=MUTED, font=fonts["small"])


def _board(draw: Any, game: Any, s: Any, row: int, fonts: dict) -> None:
    """The five board positions (inner stack, outer pile, who draws there), the colony stacks and the busts."""
    P = game.num_players
    small = fonts["small"]
    top = BOARD_TOP
    for pos in range(NUM_COLOURS):
        c = int(s.board_order[row, pos])
        x = 12 + pos * COL_W
        draw.rectangle([x, top, x + COL_W - 8, top + 20], fill=COLOUR_RGB[c], outline=INK)
        label = f"{pos}: {COLOUR_NAMES[c]}" + (f" ({TRACK_NAMES[c]})" if c < NUM_TRACKS else "")
        draw.text((x + 4, top + 4), label, fill=COLOUR_TEXT[c], font=small)
        inner = int(s.inner_count[row, c])
        for k in range(min(inner, 6)):  # the face-down stack, its height hinted by offset backs
            draw.rectangle([x + 2 + 2 * k, top + 28 - k, x + 26 + 2 * k, top + 44 - k], fill=(120, 96, 70), outline=INK)
        draw.text((x + 44, top + 29), f"inner {inner}", fill=INK, font=small)
        n = int(s.outer_count[row, c])
        draw.text((x, top + 48), f"outer pile {n}", fill=INK, font=small)
        shown = range(n) if game.config.pile_view == "full" else range(max(0, n - 1), n)
        y = top + 66
        if game.config.pile_view != "full" and n > 1:
            draw.text((x, y), f"{n - 1} below", fill=MUTED, font=small)
            y += ROW_H
        for i in shown:
            card = int(s.outer[row, c, i])
            _chip(draw, x, y, COL_W - 10, card, small,
                  f"{CARD_NAMES[card]}  {int(CARD_PRICE[card])}c  {int(CARD_VP[card])} VP")
            y += ROW_H
        drawers = [p for p in range(P) if _drawing_position(s, row, p, P) == pos]
        for i, p in enumerate(drawers):
            _seat_disc(draw, x + 10 + 18 * i, top + COLUMN_H - 12, p)
        if drawers:
            draw.text((x + 4 + 18 * len(drawers), top + COLUMN_H - 20), "draw here", fill=INK, font=small)
    # colony stacks and busts
    x = 12 + NUM_COLOURS * COL_W + 8
    draw.text((x, top), "colony stacks (military needed: left; plunder / ally)", fill=INK, font=small)
    y = top + 18
    for t in range(NUM_TIERS):
        draw.text((x, y), f"tier {t}  mil {int(COLONY_TIER_REQUIREMENT[t]):>2}:  {int(s.colony_count[row, t])} left   "
                  f"plunder +{int(COLONY_PLUNDER[t])} coins {int(COLONY_FRONT_VP[t])} VP / ally {int(COLONY_ALLY_COST[t])} coins",
                  fill=INK, font=small)
        y += 16
    y += 6
    draw.text((x, y), "busts (culture needed: VP; tile front steps / back VP)", fill=INK, font=small)
    y += 18
    for b in range(NUM_BUSTS):
        draw.text((x, y), f"bust {b}  cul {int(BUST_REQUIREMENT[b]):>2}:  {int(BUST_VP[b])} VP, tile +{int(BUST_REWARD[b])}",
                  fill=INK, font=small)
        y += 16


def _panel(draw: Any, game: Any, s: Any, row: int, p: int, seat: int | None, vp: int, fonts: dict) -> None:
    font, small = fonts["font"], fonts["small"]
    x0, y0 = panel_origin(p)
    draw.rectangle([x0, y0, x0 + PANEL_W, y0 + PANEL_H], fill=PANEL_RGB, outline=MUTED)
    marks = seat_marks(s, row, p, ("committed", s.committed[row, p]))
    _seat_disc(draw, x0 + 14, y0 + 14, p)
    side = int(s.start_side[row, p])
    head = (f"player_{p}   {vp} VP   {int(s.coins[row, p])} coins   initiative {int(s.start_card[row, p]) + 1}"
            + (f" side {'AB'[side]}" if side >= 0 else ""))
    draw.text((x0 + 28, y0 + 5), head, fill=INK, font=fonts["head"])
    if marks:
        draw.text((x0 + PANEL_W - 8, y0 + 7), ", ".join(marks), fill=INK, font=font, anchor="ra")
    # tracks with the free bonus tiles
    y = y0 + TRACK_Y
    scale = max(30, int(s.tracks[row, p].max()))
    for k in range(NUM_TRACKS):
        v = int(s.tracks[row, p, k])
        draw.text((x0 + 8, y), TRACK_NAMES[k], fill=INK, font=small)
        draw.rectangle([x0 + BOX_X, y + 2, x0 + BOX_X + TRACK_BAR, y + 14], fill=EMPTY_RGB)
        draw.rectangle([x0 + BOX_X, y + 2, x0 + BOX_X + TRACK_BAR * v // scale, y + 14], fill=COLOUR_RGB[k])
        draw.text((x0 + BOX_X + 4 + TRACK_BAR, y), str(v), fill=INK, font=small)
        for i in range(int(s.free_tiles[row, p, k])):
            tx = x0 + BOX_X + 28 + TRACK_BAR + 15 * i
            draw.rectangle([tx, y + 2, tx + 11, y + 13], fill=COLOUR_RGB[k], outline=INK)
        y += ROW_H
    # colonies, busts, seals
    y = y0 + COLONY_Y
    draw.text((x0 + 8, y + 1), "colonies", fill=INK, font=small)
    for t in range(NUM_TIERS):
        bx = x0 + BOX_X + BOX_PITCH * t
        st = int(s.colony[row, p, t])
        if st == kernels.PLUNDERED:  # the back stays secret, even from the owner
            fill, text, ink = (214, 170, 120), "plun", INK
        elif st == kernels.ALLIED:
            fill, text, ink = (150, 200, 150), COLONY_NAMES[int(s.colony_id[row, p, t])], INK
        else:
            fill, text, ink = PANEL_RGB, f"t{t}", MUTED
        draw.rectangle([bx, y, bx + BOX_W, y + CHIP_H + 1], fill=fill, outline=MUTED)
        draw.text((bx + BOX_W / 2, y + 9), text, fill=ink, font=small, anchor="mm")
    y += ROW_H + 4
    draw.text((x0 + 8, y + 1), "busts", fill=INK, font=small)
    for b in range(NUM_BUSTS):
        bx = x0 + BOX_X + BOX_PITCH * b
        v = int(s.bust[row, p, b])
        if v >= 0:  # the tile's colour, front (track steps) or back (VP) up
            c = v // 2
            draw.rectangle([bx, y, bx + BOX_W, y + CHIP_H + 1], fill=COLOUR_RGB[c], outline=INK)
            draw.text((bx + BOX_W / 2, y + 9), "back" if v % 2 else "front", fill=COLOUR_TEXT[c], font=small, anchor="mm")
        else:
            draw.rectangle([bx, y, bx + BOX_W, y + CHIP_H + 1], fill=PANEL_RGB, outline=MUTED)
            draw.text((bx + BOX_W / 2, y + 9), f"{b} -", fill=MUTED, font=small, anchor="mm")
    y += ROW_H + 4
    draw.text((x0 + 8, y + 1), "seals", fill=INK, font=small)
    for i in range(MAX_SILVER):
        bx = x0 + BOX_X + BOX_PITCH * i
        c = int(s.silver[row, p, i])
        draw.ellipse([bx, y, bx + 16, y + 16], fill=(200, 200, 210) if c >= 0 else PANEL_RGB,
                     outline=COLOUR_RGB[c] if c >= 0 else MUTED, width=3)
        if c >= 0:
            draw.text((bx + 19, y + 1), TRACK_NAMES[c][:3], fill=INK, font=small)
    gold = int(s.gold[row, p])
    gx = x0 + BOX_X + BOX_PITCH * MAX_SILVER
    for i in range(gold):
        draw.ellipse([gx + 18 * i, y, gx + 18 * i + 16, y + 16], fill=(222, 180, 40), outline=INK)
    draw.text((gx + 18 * max(gold, 1) + 4, y + 1), f"gold {gold}", fill=INK, font=small)
    # face-down sales of phase A: colours for everybody, the cards for their seller
    y += ROW_H + 4
    sold = [int(card) for card in s.sold_a[row, p] if card >= 0]
    draw.text((x0 + 8, y + 1), "sold face down", fill=INK, font=small)
    sx = x0 + SOLD_X
    right = tableau_left(x0) - 4
    for card in sold:
        if seat == p:
            if sx + 44 > right:  # the next line
                sx, y = x0 + 8, y + ROW_H
            _chip(draw, sx, y, 44, card, small)
            sx += 47
        else:
            if sx + 11 > right:
                sx, y = x0 + SOLD_X, y + ROW_H
            c = int(CARD_COLOUR[card])
            draw.rectangle([sx, y + 2, sx + 11, y + 14], fill=COLOUR_RGB[c], outline=INK)
            sx += 14
    if not sold:
        draw.text((sx, y + 1), "-", fill=MUTED, font=small)
    _tableau(draw, s, row, p, small)


def _own_hidden(draw: Any, s: Any, row: int, p: int, small: Any) -> None:
    """Seat p's drawn pair and pending commitment (its view only), in the header."""
    pair = [int(card) for card in s.drawn[row, p] if card >= 0]
    pending = int(s.pending[row, p])
    if not pair and pending < 0:
        draw.text((HAND_X, HAND_Y + 1), "your hand: -", fill=MUTED, font=small)
        return
    draw.text((HAND_X, HAND_Y + 1), "your hand", fill=INK, font=small)
    for i, card in enumerate(pair):
        x, y, w, _ = hand_chip(i)
        _chip(draw, x, y, w, card, small)
    if pending >= 0:
        choice = DRAFT_CHOICES[pending] if pair else f"side {'AB'[pending]}"
        draw.text((HAND_X, HAND_Y + 24), f"chosen: {choice}", fill=INK, font=small)


def _tableau(draw: Any, s: Any, row: int, p: int, small: Any) -> None:
    """The tableau as one column per colour (acquisition order), with each column's count."""
    x0, y0 = panel_origin(p)
    left = tableau_left(x0)
    columns: list[list[int]] = [[] for _ in range(NUM_COLOURS)]
    tiles: dict[int, int] = {}
    for slot in range(int(s.n_slots[row, p])):
        card = int(s.tableau[row, p, slot])
        if card >= 0:
            columns[int(CARD_COLOUR[card])].append(card)
            if s.slot_tile[row, p, slot] >= 0:
                tiles[card] = int(s.slot_tile[row, p, slot])
    for c in range(NUM_COLOURS):
        x = left + TABLEAU_COL * c
        draw.text((x + (TABLEAU_COL - 4) / 2, y0 + TRACK_Y + 1), f"{'YRBGP'[c]} {len(columns[c])}", fill=INK, font=small,
                  anchor="mm")
        y = y0 + TRACK_Y + 10
        for i, card in enumerate(columns[c]):
            if i == TABLEAU_ROWS - 1 and len(columns[c]) > TABLEAU_ROWS:
                draw.text((x + (TABLEAU_COL - 4) / 2, y + 9), f"+{len(columns[c]) - i} more", fill=INK, font=small,
                          anchor="mm")
                break
            _chip(draw, x, y, TABLEAU_COL - 4, card, small)
            if card in tiles:  # the bonus tile laid on a TILE_STEPS card
                draw.rectangle([x + TABLEAU_COL - 9, y + 1, x + TABLEAU_COL - 5, y + CHIP_H - 1],
                               fill=COLOUR_RGB[tiles[card]], outline=INK)
            y += CHIP_H + 1


def render_rgb(game: Any, state: Any, row: int = 0, seat: int | None = None) -> np.ndarray:
    """(H, W, 3) uint8 picture of row `row` (see the module docstring); `seat` adds that seat's own pair,
    commitment and face-down sales."""
    from PIL import Image

    from meeple.envs.canvas import Draw

    s = state
    P = game.num_players
    rows = (P + PLAYER_COLUMNS - 1) // PLAYER_COLUMNS
    height = BOARD_H + rows * (PANEL_H + 8) + LEGEND_H
    img = Image.new("RGB", (WIDTH, height), BG_RGB)
    draw = Draw(img)
    fonts = {"big": _font(16), "head": _font(15), "font": _font(14), "small": _font(13)}
    vp = game.scores(core.take(s, [row]))[0]
    _header(draw, game, s, row, vp, fonts)
    if seat is not None:
        _own_hidden(draw, s, row, seat, fonts["small"])
    _board(draw, game, s, row, fonts)
    for p in range(P):
        _panel(draw, game, s, row, p, seat, int(vp[p]), fonts)
    _legend(draw, height - LEGEND_H + 2, fonts)
    return np.asarray(img, dtype=np.uint8)
