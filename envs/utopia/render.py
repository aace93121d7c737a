"""Text and picture views of a Utopia position (public information only) and action descriptions."""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.utopia import data
from meeple.envs.utopia.data import (
    ACTION_ADD, ACTION_DISCARD, ACTION_DROP, ACTION_END, ACTION_LAND, ACTION_MONUMENT, ACTION_PLACE,
    ACTION_PRIVILEGE, ACTION_RAISE, ACTION_REMOVE, ACTION_SEA, ACTION_SELECT, ACTION_SPECIAL, ACTION_WONDER,
    CIV_NAMES, DECISION_NAMES, DISTRICT_CODES, DISTRICT_ISLAND, DISTRICT_SEA, DISTRICT_SECTOR, DISTRICT_VALUE,
    ISLAND_NAMES, LAND_EDGES, NUM_CIVS, NUM_DISTRICTS, NUM_ISLANDS, NUM_LAND_EDGES, NUM_SEA_ROUTES, SEA_ROUTES,
    SECTOR_NAMES,
)


def _describe(game: Any, s: Any, row: int, a: int) -> str:
    p = int(s.to_play[row])
    if a < ACTION_MONUMENT:
        c, d = divmod(a - ACTION_PLACE, NUM_DISTRICTS)
        return f"{CIV_NAMES[c]} guest from {ISLAND_NAMES[DISTRICT_ISLAND[d]]} becomes a prince on {DISTRICT_CODES[d]}"
    if a < ACTION_WONDER:
        c, d = divmod(a - ACTION_MONUMENT, NUM_DISTRICTS)
        w = int(s.wonder_owner[row, DISTRICT_ISLAND[d]])
        bonus = f"; player_{w} gains {int(DISTRICT_VALUE[d])} (wonder)" if w >= 0 else ""
        return f"{CIV_NAMES[c]} monument on {DISTRICT_CODES[d]} (value {int(DISTRICT_VALUE[d])}){bonus}"
    if a < ACTION_SELECT:
        return f"wonder of {ISLAND_NAMES[a - ACTION_WONDER]} (+6)"
    if a < ACTION_LAND:
        c = int(s.wonder_civ[row])
        return f"remove the {CIV_NAMES[c] if c >= 0 else '?'} prince from {DISTRICT_CODES[a - ACTION_SELECT]}"
    if a < ACTION_SEA:
        ck, e = divmod(a - ACTION_LAND, NUM_LAND_EDGES)
        return (f"1 {CIV_NAMES[ck // 2]} card: move {ck % 2 + 1} {CIV_NAMES[ck // 2]} from "
                f"{DISTRICT_CODES[LAND_EDGES[e, 0]]} to {DISTRICT_CODES[LAND_EDGES[e, 1]]} by land (edge {e})")
    if a < ACTION_ADD:
        ck, r = divmod(a - ACTION_SEA, NUM_SEA_ROUTES)
        return (f"1 {CIV_NAMES[ck // 2]} card: move {ck % 2 + 1} {CIV_NAMES[ck // 2]} from "
                f"{DISTRICT_CODES[SEA_ROUTES[r, 0]]} to {DISTRICT_CODES[SEA_ROUTES[r, 1]]} by sea (route {r})")
    if a < ACTION_REMOVE:
        c, d = divmod(a - ACTION_ADD, NUM_DISTRICTS)
        owner = int(s.mon_owner[row, d])
        gift = f"; player_{owner} +1" if owner >= 0 and owner != p else ""
        return f"1 {CIV_NAMES[c]} card: add a prince at the monument on {DISTRICT_CODES[d]}{gift}"
    if a < ACTION_RAISE:
        c, d = divmod(a - ACTION_REMOVE, NUM_DISTRICTS)
        return f"1 {CIV_NAMES[c]} card: remove a prince from the monument on {DISTRICT_CODES[d]} (+2)"
    if a < ACTION_DROP:
        c = a - ACTION_RAISE
        return f"1 {CIV_NAMES[c]} card: {CIV_NAMES[c]} {int(s.scale[row, c])} -> {int(s.scale[row, c]) + 1}"
    if a < ACTION_SPECIAL:
        c = a - ACTION_DROP
        return f"2 {CIV_NAMES[c]} cards: {CIV_NAMES[c]} {int(s.scale[row, c])} -> 1"
    if a < ACTION_PRIVILEGE:
        c, d = divmod(a - ACTION_SPECIAL, NUM_DISTRICTS)
        return f"3 {CIV_NAMES[c]} cards: special guest, a {CIV_NAMES[c]} prince on {DISTRICT_CODES[d]}"
    if a < ACTION_DISCARD:
        src, dst = data.privilege_pair(a - ACTION_PRIVILEGE)
        return f"privilege token: a {CIV_NAMES[src]} card counts as {CIV_NAMES[dst]}"
    if a < ACTION_END:
        return f"discard a {CIV_NAMES[a - ACTION_DISCARD]} card"
    return "end the build window" if s.decision[row] == data.DEC_BUILD else "end the turn"


def action_to_str(game: Any, state: Any, action: int, row: int = 0) -> str:
    """'PLACE_EGY_FIR-6: EGY guest from Fire becomes a prince on FIR-6'; "[illegal now]" when masked."""
    if not 0 <= action < game.num_actions:
        return f"INVALID_{action}"
    name = game.action_names[action]
    if state is None or state.done[row]:
        return name
    legal = bool(game.legal_action_mask(core.take(state, [row]))[0, action])
    text = f"{name}: {_describe(game, state, row, action)}"
    return text if legal else text + " [illegal now]"


def _ranking(s: Any, row: int, P: int) -> list[int]:
    return sorted(range(P), key=lambda p: (-int(s.score[row, p]), int(s.stamp[row, p])))


def score_sheet(game: Any, state: Any, row: int = 0, seat: int | None = None) -> str:
    """Scale, ranking, players, displays and every district (public information only)."""
    s = state
    P = game.num_players
    dec = int(s.decision[row])
    lines = [f"Utopia — {P} players, round {int(s.round[row])}, phase {int(s.phase[row]) + 1} "
             f"({data.PHASE_NAMES[int(s.phase[row])]})" + (f", pass {int(s.pick_pass[row]) + 1}/3" if s.phase[row] == 0 else "")]
    if s.done[row]:
        lines.append(("Truncated after round 40" if s.truncated[row] else "Game over") + "; final ranking "
                     + ", ".join(f"player_{p} {int(s.score[row, p])}" for p in _ranking(s, row, P)))
    else:
        extra = ""
        if dec == data.DEC_WONDER:
            extra = f" ({CIV_NAMES[int(s.wonder_civ[row])]} prince on {ISLAND_NAMES[int(s.wonder_island[row])]})"
        elif dec == data.DEC_CONVERT:
            extra = f" ({CIV_NAMES[int(s.convert_from[row])]} card counts as {CIV_NAMES[int(s.convert_to[row])]})"
        elif dec == data.DEC_DISCARD:
            extra = f" ({int(s.owed[row, s.to_play[row]])} owed)"
        lines.append(f"player_{int(s.to_play[row])} to play: {DECISION_NAMES[dec]}{extra}; "
                     f"first player of the round player_{int(s.start_player[row])}")
    order = sorted(range(NUM_CIVS), key=lambda c: int(s.scale[row, c]))
    lines.append("Prestige scale: " + " < ".join(f"{CIV_NAMES[c]} {int(s.scale[row, c])}" for c in order))
    lines.append("Ranking: " + ", ".join(f"player_{p} {int(s.score[row, p])} (stamp {int(s.stamp[row, p])})"
                                          for p in _ranking(s, row, P)))
    for p in range(P):
        supply = [8 - int(s.princes[row, p, c].sum()) for c in range(NUM_CIVS)]
        bases = int((s.mon_owner[row] == p).sum() + (s.wonder_owner[row] == p).sum())
        gains = ", ".join(f"{n} {int(s.gains[row, p, g])}" for g, n in enumerate(data.GAIN_NAMES) if s.gains[row, p, g])
        lines.append(f"player_{p}: {int(s.score[row, p])} points ({gains or 'none'}); {int(s.hand_size[row, p])} cards; "
                     f"{int(s.privileges[row, p])} privileges; {8 - bases} bases free; supply "
                     + " ".join(f"{CIV_NAMES[c]} {supply[c]}" for c in range(NUM_CIVS))
                     + (" [acted]" if s.acted[row, p] else ""))
    discards = " ".join(f"{CIV_NAMES[c]} {int(s.discard[row, c])}" for c in range(NUM_CIVS))
    lines.append(f"Draw pile {int(s.pile[row].sum())} cards; discards {discards}")
    for i in range(NUM_ISLANDS):
        if not data.ISLAND_IN_PLAY[P, i]:
            continue
        w = int(s.wonder_owner[row, i])
        guests = " ".join(f"{CIV_NAMES[c]}x{int(s.display[row, i, c])}" for c in range(NUM_CIVS) if s.display[row, i, c])
        lines.append(f"{ISLAND_NAMES[i]}: wonder {'player_' + str(w) if w >= 0 else 'free'}; guests {guests or '-'}")
        for d in np.flatnonzero(DISTRICT_ISLAND == i):
            mon = ""
            if s.mon_civ[row, d] >= 0:
                mon = f" monument {CIV_NAMES[int(s.mon_civ[row, d])]} of player_{int(s.mon_owner[row, d])}"
            sea = f" ship {SECTOR_NAMES[int(DISTRICT_SECTOR[d])]}" if DISTRICT_SEA[d] else ""
            princes = " ".join(f"p{p}:{CIV_NAMES[c]}x{int(s.princes[row, p, c, d])}"
                               for p in range(P) for c in range(NUM_CIVS) if s.princes[row, p, c, d])
            lines.append(f"  {DISTRICT_CODES[d]} ({int(DISTRICT_VALUE[d])}{sea}){mon}: {princes or '-'}")
    return "\n".join(lines)


# chance outcomes narrated by golden playthroughs (envs/playthrough.py): the prestige scale and the
# first player at the start, and each round's guests on the displays (a pick takes one off)
CHANCE_FIELDS = {
    "scale": str,
    "start_player": lambda p: f"player_{p}",
    "display": str,
}


# --- the picture (rgb_array) -----------------------------------------------------------------------------

WIDTH, HEIGHT = 1000, 720
INK = (30, 30, 30)
SEAT_COLOURS = ((200, 40, 40), (40, 90, 200), (30, 150, 60), (210, 160, 20), (140, 60, 170))
CIV_COLOURS = ((90, 160, 80), (200, 120, 40), (220, 200, 90), (80, 150, 210), (200, 70, 90))
ISLAND_COLOURS = ((245, 215, 195), (215, 235, 200), (225, 230, 245), (200, 225, 240))
SEA_COLOUR = (170, 205, 230)
# where each island's box sits and how many district columns it has (a schematic map, not the board)
ISLAND_BOX = ((20, 150, 470, 250, 4), (510, 150, 470, 180, 3), (20, 420, 470, 180, 3), (510, 350, 470, 250, 3))


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType
        return ImageFont.load_default()


def _district(draw: Any, s: Any, row: int, P: int, d: int, x: int, y: int, w: int, h: int, small: Any, tiny: Any) -> None:
    in_play = bool(data.DISTRICT_IN_PLAY[P, d])
    draw.rectangle([x, y, x + w, y + h], fill=(255, 255, 255) if in_play else (200, 200, 200), outline=INK)
    label = f"{DISTRICT_CODES[d]}  {int(DISTRICT_VALUE[d])}"
    if DISTRICT_SEA[d]:
        label += f"  ship {SECTOR_NAMES[int(DISTRICT_SECTOR[d])]}"
    draw.text((x + 4, y + 2), label, fill=INK, font=small)
    civ, owner = int(s.mon_civ[row, d]), int(s.mon_owner[row, d])
    if civ >= 0:  # the monument: its civilization's colour on the owner's base
        draw.rectangle([x + w - 30, y + 4, x + w - 6, y + 28], fill=SEAT_COLOURS[owner], outline=INK)
        draw.polygon([(x + w - 18, y + 7), (x + w - 27, y + 25), (x + w - 9, y + 25)], fill=CIV_COLOURS[civ], outline=INK)
    yy = y + 20
    for p in range(P):
        xx = x + 4
        for c in range(NUM_CIVS):
            n = int(s.princes[row, p, c, d])
            if n:  # a prince: a disc in the civilization's colour ringed in the player's, with the count
                draw.ellipse([xx, yy, xx + 13, yy + 13], fill=CIV_COLOURS[c], outline=SEAT_COLOURS[p], width=3)
                draw.text((xx + 15, yy + 1), str(n), fill=INK, font=tiny)
                xx += 26
        if xx > x + 4:
            yy += 15


def render_rgb(game: Any, state: Any, row: int = 0) -> np.ndarray:
    """(HEIGHT, WIDTH, 3) uint8: the islands with their districts (value, ship and sector, monument in its
    civilization's colour on the owner's base, princes per player and civilization), wonders, the sea
    sectors between the three lighthouses, the guests on display, the prestige scale and the score track."""
    from PIL import Image, ImageDraw

    s = state
    P = game.num_players
    img = Image.new("RGB", (WIDTH, HEIGHT), SEA_COLOUR)
    draw = ImageDraw.Draw(img)
    big, small, tiny = _font(18), _font(12), _font(10)
    title = f"Utopia - round {int(s.round[row])}, phase {int(s.phase[row]) + 1}"
    if s.done[row]:
        title += " - truncated" if s.truncated[row] else " - game over"
    else:
        title += f" - player_{int(s.to_play[row])}: {DECISION_NAMES[int(s.decision[row])]}"
    draw.text((20, 8), title, fill=INK, font=big)
    # the sea sectors I..IV in a row from west to east, split by the lines of the three lighthouses
    for k in range(data.NUM_SECTORS):
        draw.text((20 + k * 245 + 100, 118), f"sector {SECTOR_NAMES[k]}", fill=INK, font=small)
        if k:
            x = 20 + k * 245
            draw.ellipse([x - 7, 104, x + 7, 118], fill=(250, 240, 120), outline=INK)  # lighthouse
            for y0 in range(120, HEIGHT - 110, 12):
                draw.line([x, y0, x, y0 + 6], fill=(90, 120, 160), width=2)
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
        districts = np.flatnonzero(DISTRICT_ISLAND == i)
        rows_n = (len(districts) + cols - 1) // cols
        cw, ch = (w - 16) // cols, (h - 28) // rows_n
        for k, d in enumerate(districts):
            r, c = divmod(k, cols)
            _district(draw, s, row, P, int(d), x0 + 8 + c * cw, y0 + 24 + r * ch, cw - 6, ch - 6, small, tiny)
    # prestige scale and score track
    y = HEIGHT - 100
    draw.rectangle([0, y - 6, WIDTH, HEIGHT], fill=(245, 240, 225))
    draw.text((20, y), "Prestige scale:", fill=INK, font=small)
    for c in range(NUM_CIVS):
        v = int(s.scale[row, c])
        x = 120 + (v - 1) * 70
        draw.rectangle([x, y - 2, x + 62, y + 14], fill=CIV_COLOURS[c], outline=INK)
        draw.text((x + 4, y), f"{v} {CIV_NAMES[c]}", fill=INK, font=small)
    draw.text((20, y + 24), "Score track:", fill=INK, font=small)
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
        draw.rectangle([560 + p * 85, y + 70, 572 + p * 85, y + 82], fill=SEAT_COLOURS[p], outline=INK)
        draw.text((576 + p * 85, y + 70), f"player_{p}", fill=INK, font=tiny)
    return np.asarray(img, dtype=np.uint8)
