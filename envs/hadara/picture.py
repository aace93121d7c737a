"""The picture of a Hadara position: `render_rgb`, the rgb_array render, drawn with Pillow.

The top shows the epoch, the section and who decides; the central board: one column per board
position in its colour with the face-down inner stack (a count) and the outer pile (every card bottom
to top, or only the top card with pile_view="top"), the seats drawing there this draft round; beside it
the colony stacks per tier and the busts. Below, one panel per player: VP, coins, initiative and start
side, the four tracks with the free bonus tiles, colonies (plundered, or allied with the public back),
carved busts, seals, face-down sales (colours only) and the tableau by colour.

Public information only, unless `seat` names the seat whose own hidden parts to show as well: its
drawn pair, its pending commitment and the cards of its face-down sales. Nobody sees a plundered
colony's back or the stacks' order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.hadara import data, kernels
from meeple.envs.hadara.data import (
    BUST_REQUIREMENT, BUST_REWARD, BUST_VP, CARD_COLOUR, CARD_NAMES, CARD_PRICE, CARD_VP, COLONY_ALLY_COST,
    COLONY_FRONT_VP, COLONY_NAMES, COLONY_PLUNDER, COLONY_TIER_REQUIREMENT, COLOUR_NAMES, DECISION_NAMES,
    EPOCH_NAMES, MAX_SILVER, NUM_BUSTS, NUM_COLOURS, NUM_TIERS, NUM_TRACKS, TRACK_NAMES,
)

WIDTH = 1100
BOARD_H = 232
PANEL_W, PANEL_H = 541, 232
INK = (30, 30, 30)
MUTED = (150, 144, 132)
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
TABLEAU_COL = 52  # pixels per colour column of a tableau
BOX_PITCH = 42  # colony, bust and seal boxes
TABLEAU_ROWS = 10  # chips per colour column before "+k"


def _font(size: int) -> Any:
    from meeple.envs import canvas  # Pillow loads with the first picture, not with the game

    return canvas.font(size)


def _chip(draw: Any, x: float, y: float, w: float, card: int, font: Any, text: str | None = None) -> None:
    c = int(CARD_COLOUR[card])
    draw.rectangle([x, y, x + w, y + 13], fill=COLOUR_RGB[c], outline=INK)
    draw.text((x + w / 2, y + 7), CARD_NAMES[card] if text is None else text, fill=COLOUR_TEXT[c], font=font, anchor="mm")


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
    sec = int(s.decision[row])
    title = f"Hadara   epoch {EPOCH_NAMES[int(s.epoch[row])]}/III   section {DECISION_NAMES[sec]}"
    if sec in (data.DEC_A_DRAFT, data.DEC_A_TILE):
        title += f"   draft round {int(s.round[row]) + 1}/5"
    if sec in (data.DEC_B_PICK, data.DEC_B_TILE):
        title += f"   phase-B turns left {data.PHASE_B_TURNS_PER_PLAYER * P - int(s.pick[row])}"
    draw.text((12, 8), title, fill=INK, font=fonts["big"])
    if s.done[row]:
        status = "Game over: " + ", ".join(f"player_{p} {int(vp[p])} VP ({int(s.coins[row, p])} coins)" for p in range(P))
    else:
        status = f"player_{int(s.to_play[row])} to play; start player player_{int(s.start_player[row])}"
        if s.rotation[row] >= 0:
            status += f"; wheel rotation {int(s.rotation[row])}"
    draw.text((12, 28), status, fill=INK, font=fonts["font"])
    legend = ("cards: name in the card's colour (Y R B G P), price in coins (c), VP; squares after a track:",
              "free bonus tiles of that colour; seals: silver ring in the scored track's colour, gold discs")
    for i, line in enumerate(legend):
        draw.text((WIDTH - 10, 6 + 14 * i), line, fill=MUTED, font=fonts["tiny"], anchor="ra")


def _board(draw: Any, game: Any, s: Any, row: int, fonts: dict) -> None:
    """The five board positions (inner stack, outer pile, who draws there), the colony stacks and the busts."""
    P = game.num_players
    small, tiny = fonts["small"], fonts["tiny"]
    top = 50
    col_w = 122
    for pos in range(NUM_COLOURS):
        c = int(s.board_order[row, pos])
        x = 12 + pos * col_w
        draw.rectangle([x, top, x + col_w - 8, top + 18], fill=COLOUR_RGB[c], outline=INK)
        label = f"{pos}: {COLOUR_NAMES[c]}" + (f" ({TRACK_NAMES[c]})" if c < NUM_TRACKS else "")
        draw.text((x + 4, top + 3), label, fill=COLOUR_TEXT[c], font=small)
        inner = int(s.inner_count[row, c])
        for k in range(min(inner, 6)):  # the face-down stack, its height hinted by offset backs
            draw.rectangle([x + 2 + 2 * k, top + 24 - k, x + 26 + 2 * k, top + 40 - k], fill=(120, 96, 70), outline=INK)
        draw.text((x + 44, top + 26), f"inner {inner}", fill=INK, font=small)
        n = int(s.outer_count[row, c])
        draw.text((x, top + 46), f"outer pile {n} (top last)", fill=INK, font=tiny)
        shown = range(n) if game.config.pile_view == "full" else range(max(0, n - 1), n)
        y = top + 60
        if game.config.pile_view != "full" and n > 1:
            draw.text((x, y), f"{n - 1} below", fill=MUTED, font=tiny)
            y += 14
        for i in shown:
            card = int(s.outer[row, c, i])
            _chip(draw, x, y, col_w - 10, card, tiny,
                  f"{CARD_NAMES[card]}  {int(CARD_PRICE[card])}c  {int(CARD_VP[card])} VP")
            y += 15
        drawers = [p for p in range(P) if _drawing_position(s, row, p, P) == pos]
        for i, p in enumerate(drawers):
            _seat_disc(draw, x + 10 + 18 * i, top + BOARD_H - 62, p)
        if drawers:
            draw.text((x + 4 + 18 * len(drawers), top + BOARD_H - 68), "draw here", fill=INK, font=tiny)
    # colony stacks and busts
    x = 12 + NUM_COLOURS * col_w + 8
    draw.text((x, top), "colony stacks (military needed: left; plunder / ally)", fill=INK, font=small)
    y = top + 16
    for t in range(NUM_TIERS):
        draw.text((x, y), f"tier {t}  mil {int(COLONY_TIER_REQUIREMENT[t]):>2}:  {int(s.colony_count[row, t])} left   "
                  f"plunder +{int(COLONY_PLUNDER[t])} coins {int(COLONY_FRONT_VP[t])} VP / ally {int(COLONY_ALLY_COST[t])} coins",
                  fill=INK, font=tiny)
        y += 14
    y += 8
    draw.text((x, y), "busts (culture needed: VP; tile front steps / back VP)", fill=INK, font=small)
    y += 16
    for b in range(NUM_BUSTS):
        draw.text((x, y), f"bust {b}  cul {int(BUST_REQUIREMENT[b]):>2}:  {int(BUST_VP[b])} VP, tile +{int(BUST_REWARD[b])}",
                  fill=INK, font=tiny)
        y += 14


def _panel(draw: Any, game: Any, s: Any, row: int, p: int, seat: int | None, x0: int, y0: int, vp: int,
           fonts: dict) -> None:
    font, small, tiny = fonts["font"], fonts["small"], fonts["tiny"]
    draw.rectangle([x0, y0, x0 + PANEL_W, y0 + PANEL_H], fill=PANEL_RGB, outline=MUTED)
    marks = []
    if p == int(s.start_player[row]):
        marks.append("start")
    if p == int(s.to_play[row]) and not s.done[row]:
        marks.append("to play")
    if s.committed[row, p]:
        marks.append("committed")
    _seat_disc(draw, x0 + 14, y0 + 13, p)
    side = int(s.start_side[row, p])
    head = (f"player_{p}   {vp} VP   {int(s.coins[row, p])} coins   initiative {int(s.start_card[row, p]) + 1}"
            + (f" side {'AB'[side]}" if side >= 0 else ""))
    draw.text((x0 + 28, y0 + 5), head, fill=INK, font=fonts["big"])
    if marks:
        draw.text((x0 + PANEL_W - 8, y0 + 7), ", ".join(marks), fill=INK, font=font, anchor="ra")
    # tracks with the free bonus tiles
    y = y0 + 28
    scale = max(30, int(s.tracks[row, p].max()))
    for k in range(NUM_TRACKS):
        v = int(s.tracks[row, p, k])
        draw.text((x0 + 8, y), TRACK_NAMES[k], fill=INK, font=small)
        draw.rectangle([x0 + 62, y + 1, x0 + 62 + TRACK_BAR, y + 12], fill=EMPTY_RGB)
        draw.rectangle([x0 + 62, y + 1, x0 + 62 + TRACK_BAR * v // scale, y + 12], fill=COLOUR_RGB[k])
        draw.text((x0 + 66 + TRACK_BAR, y), str(v), fill=INK, font=small)
        for i in range(int(s.free_tiles[row, p, k])):
            tx = x0 + 90 + TRACK_BAR + 14 * i
            draw.rectangle([tx, y + 1, tx + 10, y + 11], fill=COLOUR_RGB[k], outline=INK)
        y += 16
    # colonies, busts, seals
    y += 4
    draw.text((x0 + 8, y + 2), "colonies", fill=INK, font=small)
    for t in range(NUM_TIERS):
        bx = x0 + 62 + BOX_PITCH * t
        st = int(s.colony[row, p, t])
        if st == kernels.PLUNDERED:  # the back stays secret, even from the owner
            fill, text = (214, 170, 120), f"t{t} plun"
        elif st == kernels.ALLIED:
            fill, text = (150, 200, 150), COLONY_NAMES[int(s.colony_id[row, p, t])]
        else:
            fill, text = PANEL_RGB, f"t{t} -"
        draw.rectangle([bx, y, bx + 38, y + 15], fill=fill, outline=MUTED)
        draw.text((bx + 19, y + 8), text, fill=INK, font=tiny, anchor="mm")
    y += 20
    draw.text((x0 + 8, y + 2), "busts", fill=INK, font=small)
    for b in range(NUM_BUSTS):
        bx = x0 + 62 + BOX_PITCH * b
        v = int(s.bust[row, p, b])
        if v >= 0:  # the tile's colour, front (track steps) or back (VP) up
            c = v // 2
            draw.rectangle([bx, y, bx + 38, y + 15], fill=COLOUR_RGB[c], outline=INK)
            draw.text((bx + 19, y + 8), f"{b} {'back' if v % 2 else 'front'}", fill=COLOUR_TEXT[c], font=tiny, anchor="mm")
        else:
            draw.rectangle([bx, y, bx + 38, y + 15], fill=PANEL_RGB, outline=MUTED)
            draw.text((bx + 19, y + 8), f"{b} -", fill=MUTED, font=tiny, anchor="mm")
    y += 20
    draw.text((x0 + 8, y + 2), "seals", fill=INK, font=small)
    for i in range(MAX_SILVER):
        bx = x0 + 62 + BOX_PITCH * i
        c = int(s.silver[row, p, i])
        draw.ellipse([bx, y, bx + 15, y + 15], fill=(200, 200, 210) if c >= 0 else PANEL_RGB,
                     outline=COLOUR_RGB[c] if c >= 0 else MUTED, width=3)
        if c >= 0:
            draw.text((bx + 18, y + 2), TRACK_NAMES[c][:3], fill=INK, font=tiny)
    gold = int(s.gold[row, p])
    gx = x0 + 62 + BOX_PITCH * MAX_SILVER
    for i in range(gold):
        draw.ellipse([gx + 18 * i, y, gx + 18 * i + 15, y + 15], fill=(222, 180, 40), outline=INK)
    draw.text((gx + 18 * max(gold, 1) + 2, y + 2), f"gold {gold}", fill=INK, font=tiny)
    # face-down sales of phase A: colours for everybody, the cards for their seller
    y += 22
    sold = [int(card) for card in s.sold_a[row, p] if card >= 0]
    draw.text((x0 + 8, y), "sold face down", fill=INK, font=small)
    sx = x0 + 92
    right = x0 + PANEL_W - NUM_COLOURS * TABLEAU_COL - 8  # the tableau's left edge
    for card in sold:
        if seat == p:
            if sx + 44 > right:  # the next line
                sx, y = x0 + 8, y + 16
            _chip(draw, sx, y, 42, card, tiny)
            sx += 45
        else:
            c = int(CARD_COLOUR[card])
            draw.rectangle([sx, y + 1, sx + 10, y + 12], fill=COLOUR_RGB[c], outline=INK)
            sx += 13
    if not sold:
        draw.text((sx, y), "-", fill=MUTED, font=small)
    if seat == p:
        _own_hidden(draw, s, row, p, x0 + 8, y + 20, small, tiny)
    _tableau(draw, s, row, p, x0 + PANEL_W - NUM_COLOURS * TABLEAU_COL - 4, y0 + 28, tiny)


def _own_hidden(draw: Any, s: Any, row: int, p: int, x: int, y: int, small: Any, tiny: Any) -> None:
    """Seat p's drawn pair and pending commitment (its view only)."""
    pair = [int(card) for card in s.drawn[row, p] if card >= 0]
    pending = int(s.pending[row, p])
    if not pair and pending < 0:
        draw.text((x, y), "your hand: -", fill=MUTED, font=small)
        return
    draw.text((x, y), "your hand", fill=INK, font=small)
    cx = x + 60
    for card in pair:
        _chip(draw, cx, y, 44, card, tiny)
        cx += 48
    if pending >= 0:
        choice = DRAFT_CHOICES[pending] if pair else f"side {'AB'[pending]}"
        draw.text((cx + 4, y), f"chosen: {choice}", fill=INK, font=tiny)


def _tableau(draw: Any, s: Any, row: int, p: int, x0: int, y0: int, tiny: Any) -> None:
    """The tableau as one column per colour (acquisition order), with each column's count."""
    columns: list[list[int]] = [[] for _ in range(NUM_COLOURS)]
    tiles: dict[int, int] = {}
    for slot in range(int(s.n_slots[row, p])):
        card = int(s.tableau[row, p, slot])
        if card >= 0:
            columns[int(CARD_COLOUR[card])].append(card)
            if s.slot_tile[row, p, slot] >= 0:
                tiles[card] = int(s.slot_tile[row, p, slot])
    for c in range(NUM_COLOURS):
        x = x0 + TABLEAU_COL * c
        draw.text((x + 24, y0 + 4), f"{'YRBGP'[c]} {len(columns[c])}", fill=INK, font=tiny, anchor="mm")
        y = y0 + 12
        for i, card in enumerate(columns[c]):
            if i == TABLEAU_ROWS - 1 and len(columns[c]) > TABLEAU_ROWS:
                draw.text((x + 24, y + 7), f"+{len(columns[c]) - i} more", fill=INK, font=tiny, anchor="mm")
                break
            _chip(draw, x, y, TABLEAU_COL - 4, card, tiny)
            if card in tiles:  # the bonus tile laid on a TILE_STEPS card
                draw.rectangle([x + TABLEAU_COL - 11, y + 3, x + TABLEAU_COL - 5, y + 10], fill=COLOUR_RGB[tiles[card]],
                               outline=INK)
            y += 15


def render_rgb(game: Any, state: Any, row: int = 0, seat: int | None = None) -> np.ndarray:
    """(H, W, 3) uint8 picture of row `row` (see the module docstring); `seat` adds that seat's own pair,
    commitment and face-down sales."""
    from PIL import Image

    from meeple.envs.canvas import Draw

    s = state
    P = game.num_players
    rows = (P + PLAYER_COLUMNS - 1) // PLAYER_COLUMNS
    height = BOARD_H + rows * (PANEL_H + 8) + 4
    img = Image.new("RGB", (WIDTH, height), BG_RGB)
    draw = Draw(img)
    fonts = {"big": _font(14), "font": _font(12), "small": _font(11), "tiny": _font(10)}
    vp = game.scores(core.take(s, [row]))[0]
    _header(draw, game, s, row, vp, fonts)
    _board(draw, game, s, row, fonts)
    for p in range(P):
        r, c = divmod(p, PLAYER_COLUMNS)
        _panel(draw, game, s, row, p, seat, 6 + c * (PANEL_W + 6), BOARD_H + r * (PANEL_H + 8), int(vp[p]), fonts)
    return np.asarray(img, dtype=np.uint8)
