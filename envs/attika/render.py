"""Views of Attika: readable action names and a text score sheet (the picture is
picture.py).

`action_to_str` says what an action does, in words (the engine's name of an action stays
`game.action_names[action]`); map tiles keep their codes (`T05`), followed by their fields.

`score_sheet` shows public information by default (what a spectator at the table
sees): card counts, never their types. Pass `seat=p` to show that seat's own cards as well (a
player's view). `action_to_str` describes an action for the seat to play, so it may name that seat's
own cards: for a legal build it gives the cost by the rules' own helper (`kernels.requirement`), the
cards the automatic payment hands over and the immediate effects (a new settlement, a group's
amphora, a win), found by applying the action to a copy of the row without the automatic follow-ups.

Text map: one line per hex row r, each row indented by half a cell more than the one above (axial
hexes in offset rows), 4 characters per hex: `.` blank field, `w f h m` empty field with a landscape
symbol, `@` shrine, seat digit + 2-letter building code (`0Fo` = player_0's Fortress) for a building;
`( )` around a hex marks the site being paid for or the centre chosen for the face-up tile.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs import core
from meeple.envs.textview import fit_width, seat_marks
from meeple.envs.attika import data, kernels
from meeple.envs.attika.data import (
    ACTION_AMPHORA_CARD, ACTION_END_TURN, ACTION_PAY, ACTION_REVEAL, ACTION_ROTATE, ACTION_SELECT, ACTION_SLOT,
    ACTION_STORE, ACTION_SUBSTITUTE, BUILDING_NAMES, BUILDINGS_PER_PLAYER, CARDS_FOR_PASSING, DECISION_NAMES,
    FLAT_PLACE, FLAT_TAIL, GROUP_NAMES, LAND_BLANK, LAND_NONE, LAND_SHRINE, LAND_SYMBOL, LANDSCAPES,
    MODE_BUILD, MODE_NAMES, MODE_NONE, MODE_REVEAL, NUM_LANDSCAPES, NUM_SLOTS, NUM_STACKS, NUM_TILES, NUM_TYPES,
    PREDECESSOR, ROTATED_FACE, SLOT_Q, SLOT_R, TILE_PLACED, TILE_STACK, TILE_STATE_NAMES,
)

# 2-letter codes of the building types (text map, picture)
TYPE_CODES = ("Qu", "Fo", "To", "Ha", "Sh", "Li", "We", "Co", "Mi", "Vi", "Si", "Mn", "Vy", "Vn", "Te", "Or", "Ag",
              "St", "Th", "Tv", "So", "Gy", "Lb", "Pa", "Rd")
assert len(TYPE_CODES) == NUM_TYPES and len(set(TYPE_CODES)) == NUM_TYPES
TILE_NAMES = tuple(f"T{x + 1:02d}" for x in range(NUM_TILES))  # T01 .. T22, in data.TILE_CODES order
STACK_NAMES = ("main stack", "stack 1", "stack 2", "stack 3")
GROUP_SHORT = ("def", "sea", "sup", "coin", "vit", "city", "road")


def hex_text(h: int) -> str:
    """'(q,r)' of window slot h."""
    return f"({int(SLOT_Q[h])},{int(SLOT_R[h])})"


def tile_text(x: int, rot: int = 0) -> str:
    """'T05 (H.F.F..)': the tile's fields in footprint order centre, E, NE, NW, W, SW, SE when turned rot."""
    code = "".join("." if v == LAND_BLANK else LANDSCAPES[int(v) - LAND_SYMBOL] for v in ROTATED_FACE[x, rot])
    return f"{TILE_NAMES[x]} ({code})"


def cards_text(counts: Any) -> str:
    """'W1 F0 H2 M0'."""
    return " ".join(f"{LANDSCAPES[k]}{int(counts[k])}" for k in range(NUM_LANDSCAPES))


def display_text(state: Any, row: int, p: int) -> str:
    """'Fortress, Tower x2' or '-'."""
    out = []
    for t in range(NUM_TYPES):
        n = int(state.display[row, p, t])
        if n:
            out.append(BUILDING_NAMES[t] + (f" x{n}" if n > 1 else ""))
    return ", ".join(out) or "-"


# --- costs and effects (the rules' own helpers) ------------------------------------------------------

def cost_text(state: Any, row: int, p: int, t: int, h: int, public: bool = False) -> str:
    """What building t on slot h costs p, in words: 'free: next to own Quarry', 'paying W1 F1 + 1 any',
    '... + 3 any (2 for a new settlement)', 'free: the landscape covers the cost'; the landscapes p's hand
    lacks ('; two-for-one for M1') unless `public` (what every seat may read: the hand is secret)."""
    if kernels.free_by_order(state, row, p, t, h):
        return f"free: next to own {BUILDING_NAMES[int(PREDECESSOR[t])]}"
    req = [int(v) for v in kernels.requirement(state, row, p, t, h)]
    spec, any_cards = req[:NUM_LANDSCAPES], req[NUM_LANDSCAPES]
    if sum(req) == 0:
        return "free: the landscape covers the cost"
    surcharge = 0 if kernels.own_adjacent(state, row, p, h) else int(state.settlements[row, p])
    parts = [f"{LANDSCAPES[k]}{n}" for k, n in enumerate(spec) if n]
    text = "paying " + " ".join(parts)
    if any_cards:
        text += (" + " if parts else "") + f"{any_cards} any"
        if surcharge:
            text += f" ({surcharge} for a new settlement)"
    if public:
        return text
    hand = state.hand[row, p]
    missing = [f"{LANDSCAPES[k]}{n - int(hand[k])}" for k, n in enumerate(spec) if n > hand[k]]
    if missing:
        text += "; two-for-one for " + " ".join(missing)
    return text


_SIMULATORS: dict[tuple, Any] = {}


def _simulate(game: Any, state: Any, row: int, action: int) -> Any:
    """Row `row` after `action` without the automatic follow-ups (a copy of the game with auto_forced off)."""
    config = game.config
    key = (type(game), config)
    sim = _SIMULATORS.get(key)
    if sim is None:
        values = {k: getattr(config, k) for k in config.__dataclass_fields__}
        values["auto_forced"] = False
        sim = _SIMULATORS[key] = type(game)(**values)
    u = np.full((1, sim.uniforms_per_step), 0.5)
    return sim.apply(core.take(state, [row]), np.array([action], dtype=np.int64), u)


def _effects(game: Any, state: Any, row: int, action: int, p: int) -> str:
    """The immediate effects of a legal action that may complete a placement: the cards handed over (with
    automatic payment), a new settlement or a merge, a group's amphora, the win."""
    after = _simulate(game, state, row, action)
    out = []
    paid = state.hand[row, p].astype(int) - after.hand[0, p].astype(int)
    if int(after.decision[0]) != data.DEC_PAY and paid.sum() > 0:
        out.append("hands over " + " ".join(f"{LANDSCAPES[k]}{n}" for k, n in enumerate(paid) if n > 0))
    placed = int(after.placed[0, p]) - int(state.placed[row, p])
    if placed > 0:
        d = int(after.settlements[0, p]) - int(state.settlements[row, p])
        if d > 0:
            out.append(f"founds settlement {int(after.settlements[0, p])}")
        elif d < 0:
            out.append(f"joins {1 - d} settlements into one")
    for g in range(data.NUM_GROUPS):
        if after.rewarded[0, p, g] and not state.rewarded[row, p, g]:
            gain = "+1 amphora" if int(after.amphorae[0, p]) > int(state.amphorae[row, p]) else "a card (no amphora left)"
            out.append(f"completes {GROUP_NAMES[g]}: {gain}")
    if after.done[0] and int(after.winner[0]) == p:
        why = "all 30 buildings" if int(after.placed[0, p]) >= BUILDINGS_PER_PLAYER else "two shrines connected"
        out.append(f"wins ({why})")
    return "; ".join(out)


def _uses_amphora(state: Any, row: int, mode: int) -> bool:
    """The next reveal or build of this mode goes beyond the turn's allowance (spends an amphora)."""
    return int(state.mode[row]) == mode and int(state.actions_left[row]) == 0


# --- action_to_str --------------------------------------------------------------------------------------

def action_to_str(game: Any, state: Any, action: int, row: int = 0, public: bool = False) -> str:
    """'build Fortress on (0,-1), free: next to own Quarry', 'end turn (draw 2)': what the action does, in
    words (the engine's name is `game.action_names[action]`).

    Works for every index in every state and in both encodings (an illegal action is described as far
    as it means anything there and marked "[illegal now]"; in a finished game, "[the game is over]").
    `public=True` leaves out what depends on the hand of the seat to play (a payment's cards, the
    two-for-one, the effects found by applying the move) and the legality check (which depends on it too):
    the move as every seat may read it."""
    if not 0 <= action < game.num_actions:
        return f"no action {action}"
    if public or state.done[row]:
        text = _detail(game, state, row, action, False, public=True)
        return text + " [the game is over]" if state.done[row] else text
    one = state if state.done.shape[0] == 1 else core.take(state, [row])  # the same object: checked once
    legal = bool(game.legal_action_mask(one)[0, action])
    text = _detail(game, state, row, action, legal)
    return text if legal else text + " [illegal now]"


def _build_text(game: Any, state: Any, row: int, action: int, t: int, h: int, legal: bool, revealed: bool,
                public: bool = False) -> str:
    p = int(state.to_play[row])
    what = BUILDING_NAMES[t] + (" (revealed)" if revealed else "")
    text = f"build {what} on {hex_text(h)}"
    if not kernels.buildable(state, row, h):
        return text + ", no free field there"
    text += f", {cost_text(state, row, p, t, h, public)}"
    if not revealed and _uses_amphora(state, row, MODE_BUILD):
        text += "; spends an amphora"
    if legal:
        effects = _effects(game, state, row, action, p)
        if effects:
            text += "; " + effects
    return text


def _tail_text(game: Any, state: Any, row: int, action: int, action_index: int, legal: bool) -> str:
    """The actions common to both encodings: `action` as a factored index (REVEAL .. SUBSTITUTE),
    `action_index` the index in the game's own encoding."""
    s = state
    p = int(s.to_play[row])
    if action < ACTION_STORE:
        stack = action - ACTION_REVEAL
        n = int(s.stack_size[row, p, stack])
        text = f"reveal from {STACK_NAMES[stack]} ({n} left)"
        if _uses_amphora(s, row, MODE_REVEAL):
            text += "; spends an amphora"
        if n == 1:
            text += "; empties it: a map tile follows"
        return text
    if action == ACTION_STORE:
        t = int(s.pending_type[row])
        return f"store {BUILDING_NAMES[t]} on the display" if t >= 0 else "store the revealed building"
    if action == ACTION_AMPHORA_CARD:
        return f"amphora for a card ({int(s.amphorae[row, p])} held; no reveal or build after it)"
    if action == ACTION_END_TURN:
        mode = int(s.mode[row])
        n = CARDS_FOR_PASSING if mode == MODE_NONE else int(s.actions_left[row])
        return f"end turn (draw {n})"
    unit = _pay_unit(s, row)
    owed = "an any card" if unit < 0 else f"the {LANDSCAPES[unit]} owed"
    if action < ACTION_SUBSTITUTE:
        return f"pay {LANDSCAPES[action - ACTION_PAY]} for {owed}" + _pay_effects(game, s, row, action_index, legal)
    return f"substitute: two any cards for {owed}"


def _pay_unit(state: Any, row: int) -> int:
    """The unit of the explicit payment queue paid next: -1 for an any card, else its landscape type."""
    return int(kernels._pay_unit(state, row))


def _pay_effects(game: Any, state: Any, row: int, action: int, legal: bool) -> str:
    """The placement a legal last payment step completes, with its effects ('' otherwise)."""
    if not legal or int(state.decision[row]) != data.DEC_PAY:
        return ""
    left = int(state.pay_front[row]) + int(state.pay_any[row]) + int(state.pay_spec[row].sum())
    if left != 1:
        return ""
    effects = _effects(game, state, row, action, int(state.to_play[row]))
    placed = f"completes {BUILDING_NAMES[int(state.pending_type[row])]} on {hex_text(int(state.pending_slot[row]))}"
    return "; " + placed + ("; " + effects if effects else "")


def _detail(game: Any, state: Any, row: int, action: int, legal: bool, public: bool = False) -> str:
    """The words of `action`; `legal` adds the effects found by applying it (never with `public`)."""
    s = state
    dec = int(s.decision[row])
    if game.config.actions == "flat":
        if action < FLAT_PLACE:
            t, h = divmod(action, NUM_SLOTS)
            revealed = dec == data.DEC_PENDING_REVEAL
            return _build_text(game, s, row, action, t, h, legal, revealed, public)
        if action < FLAT_TAIL:
            k, h = divmod(action - FLAT_PLACE, NUM_SLOTS)
            x = int(s.tile_up[row])
            if x < 0:
                return f"place the face-up tile centred on {hex_text(h)} turned {k}"
            return f"place tile {tile_text(x, k)} centre {hex_text(h)} rotation {k}"
        return _tail_text(game, s, row, action - FLAT_TAIL + ACTION_REVEAL, action, legal)
    if action < ACTION_SLOT:
        t = action - ACTION_SELECT
        text = f"select {BUILDING_NAMES[t]}"
        if _uses_amphora(s, row, MODE_BUILD):
            text += " (the build spends an amphora)"
        return text
    if action < ACTION_ROTATE:
        h = action - ACTION_SLOT
        if dec == data.DEC_CHOOSE_FIELD or dec == data.DEC_PENDING_REVEAL:
            t = int(s.pending_type[row])
            return _build_text(game, s, row, action, t, h, legal, dec == data.DEC_PENDING_REVEAL, public)
        x = int(s.tile_up[row])
        if dec == data.DEC_PLACE_TILE and x >= 0:
            return f"place tile {tile_text(x)} centre {hex_text(h)}"
        return f"hex {hex_text(h)}"
    if action < ACTION_REVEAL:
        k = action - ACTION_ROTATE
        x, h = int(s.tile_up[row]), int(s.pending_slot[row])
        if dec == data.DEC_CHOOSE_ROTATION and x >= 0 and h >= 0:
            return f"rotate {k}: {tile_text(x, k)} centred on {hex_text(h)}"
        return f"rotate {k}"
    return _tail_text(game, s, row, action, action, legal)


# --- text score sheet -----------------------------------------------------------------------------------

def _occupied(state: Any, row: int) -> np.ndarray:
    """Window slots covered by the map (fields and shrines)."""
    return np.flatnonzero(state.land[row] != LAND_NONE)


def _cell_text(state: Any, row: int, h: int) -> str:
    land = int(state.land[row, h])
    owner = int(state.owner[row, h])
    if owner >= 0:
        return f"{owner}{TYPE_CODES[int(state.building[row, h])]}"
    if land == LAND_NONE:
        return "   "
    if land >= LAND_SHRINE:
        return " @ "
    if land == LAND_BLANK:
        return " . "
    return f" {LANDSCAPES[land - LAND_SYMBOL].lower()} "


def map_lines(state: Any, row: int) -> list[str]:
    """The map as text, cropped to the covered hexes (see the module docstring)."""
    marked = int(state.pending_slot[row])
    slots = _occupied(state, row)
    if marked >= 0:
        slots = np.union1d(slots, [marked])
    q, r = SLOT_Q[slots].astype(int), SLOT_R[slots].astype(int)
    x = 2 * q + r  # half-cell columns
    x0 = int(x.min())
    lines = []
    for rr in range(int(r.min()), int(r.max()) + 1):
        in_row = slots[r == rr]
        width = 2 * (int(x.max()) - x0) + 4
        chars = [" "] * width
        for h in in_row:
            col = 2 * (2 * int(SLOT_Q[h]) + rr - x0)
            cell = _cell_text(state, row, int(h))
            if h == marked:
                cell = "(" + cell[1] + ")" if cell[0] == " " else cell
                if int(state.land[row, h]) == LAND_NONE:
                    cell = "(*)"
            chars[col:col + 3] = list(cell)
        qs = SLOT_Q[in_row]
        span = f"q {int(qs.min())}..{int(qs.max())}" if len(in_row) else ""
        lines.append(f"r{rr:+3d} " + "".join(chars).rstrip().ljust(width) + f"   {span}")
    return lines


def _player_lines(game: Any, state: Any, row: int, p: int, seat: int | None, detail: bool = True) -> list[str]:
    s = state
    marks = seat_marks(s, row, p, ("WINNER", p == int(s.winner[row])), start="start player")
    n_cards = int(s.hand[row, p].sum())
    hand = f"{cards_text(s.hand[row, p])} ({n_cards} cards)" if seat == p else f"{n_cards} cards"
    stacks = " ".join(str(int(s.stack_size[row, p, k])) for k in range(NUM_STACKS))
    groups = ", ".join(GROUP_NAMES[g] for g in range(data.NUM_GROUPS) if s.rewarded[row, p, g]) or "-"
    head = (f"player_{p}" + (f" ({', '.join(marks)})" if marks else "")
            + f": {int(s.placed[row, p])}/{BUILDINGS_PER_PLAYER} buildings placed, {int(s.settlements[row, p])} settlements")
    if not detail:  # the terminal view: three lines per player
        return [head + f"; groups rewarded: {groups}",
                f"  hand {hand}; amphorae {int(s.amphorae[row, p])}; stacks (main, 1, 2, 3) {stacks}",
                f"  display: {display_text(s, row, p)}"]
    return [
        head,
        f"  hand {hand}; amphorae {int(s.amphorae[row, p])}; stacks (main, 1, 2, 3) {stacks}",
        f"  display: {display_text(s, row, p)}",
        f"  groups rewarded: {groups}",
    ]


def status_text(state: Any, row: int, max_rounds: int) -> str:
    s = state
    if s.done[row]:
        if s.truncated[row]:
            return f"Game over: round cap {max_rounds} reached, a draw"
        return f"Game over: player_{int(s.winner[row])} wins"
    dec = int(s.decision[row])
    mode = int(s.mode[row])
    text = f"player_{int(s.to_play[row])} to play: {DECISION_NAMES[dec]}; mode {MODE_NAMES[mode]}"
    if mode != MODE_NONE:
        n = int(s.actions_left[row])
        text += f", {n} action{'' if n == 1 else 's'} left"
    return text


def score_sheet(game: Any, state: Any, row: int = 0, seat: int | None = None, detail: bool = False) -> str:
    """The map, every player and the supplies. Public information only, unless `seat` names the seat
    whose own cards to show (its view).

    The default view fits a terminal (three lines per player, no blank lines, long lines wrapped to
    `textview.TERMINAL_WIDTH`); `detail=True` gives four lines per player, unwrapped."""
    s = state
    P = game.num_players
    lines = [f"Attika — {P} players, round {int(s.round[row]) + 1}/{game.config.max_rounds}",
             status_text(s, row, game.config.max_rounds)]
    t = int(s.pending_type[row])
    dec = int(s.decision[row])
    if t >= 0 and not s.done[row]:
        what = {data.DEC_PENDING_REVEAL: "revealed", data.DEC_CHOOSE_FIELD: "to build",
                data.DEC_PAY: "being paid for"}.get(dec, "pending")
        line = f"{what}: {BUILDING_NAMES[t]}"
        if dec == data.DEC_PAY:
            line += (f" on {hex_text(int(s.pending_slot[row]))}; owed {cards_text(s.pay_spec[row])} + "
                     f"{int(s.pay_front[row]) + int(s.pay_any[row])} any")
        lines.append(line)
    x = int(s.tile_up[row])
    if x >= 0:
        centre = int(s.pending_slot[row])
        lines.append(f"face-up tile: {tile_text(x)}" + (f", centre {hex_text(centre)} chosen" if centre >= 0 else ""))
    if detail:
        lines.append("")
    lines.extend(map_lines(s, row))
    if detail:
        lines.append("")
    for p in range(P):
        lines.extend(_player_lines(game, s, row, p, seat, detail))
    tiles = s.tile_state[row]
    lines.append(f"supply: amphorae {int(s.amphora_supply[row])}; draw pile {int(s.draw_pile[row].sum())} cards; "
                 f"discard {cards_text(s.discard[row])}; tile stack {int((tiles == TILE_STACK).sum())}, "
                 f"placed {int((tiles == TILE_PLACED).sum())}, removed {int((tiles == data.TILE_REMOVED).sum())}")
    return "\n".join(lines if detail else fit_width(lines))


# chance outcomes narrated by golden playthroughs (envs/playthrough.py): the building a reveal turns
# over (pending_type; display when a building that fits nowhere is stored at once, and for the setup's
# first four per seat), the map tiles drawn (tile_state, tile_up) and where and how the setup laid them
# (tile_centre, tile_rot), the landscape cards dealt and drawn (hand: every seat's W F H M). A field is
# narrated whenever it changes, so a selection, a payment or a placement shows there too.
CHANCE_FIELDS = {
    "pending_type": lambda t: BUILDING_NAMES[t],
    "display": str,
    "tile_up": lambda x: TILE_NAMES[x],
    "tile_state": lambda st: TILE_STATE_NAMES[st],
    "tile_centre": hex_text,
    "tile_rot": str,
    "hand": str,
}
