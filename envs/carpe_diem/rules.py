"""Carpe Diem (Stefan Feld, alea 2018, 2nd edition; the Yucata.de rules), as a batched rules core.

Rules in brief (../shared/rules/carpe_diem.md, "the spec"): 2-4 players build a Roman district on a
6 x 6 board over 4 phases of 7 rounds. On a turn a player moves his patrician along a circle of 7
depots (skipping empty ones, or anywhere for 1 bread), takes one tile from the depot there and builds
it (the first on the shovel cell, then edge-adjacent, everything that touches must match, the frame
is meadow) or stores it face down. Completed landscapes give goods, lodgings give bread / banderole
steps / coins / a craftsman pick from the bottom display, markets coins, bakeries bread, fountains a
fountain card. After each phase every player, in banderole-track order, puts a disc between two
scoring cards and resolves both (green: have; red: pay goods, coins as jokers; 3 bread = one
fulfilment; -4 VP for a failed card). Final scoring: villas by chimneys, leftovers / 2, track
position, fountain cards and frame tasks. Most VP wins; ties go to the player further back on the
banderole track (spec 9, the seed's rule).

Hidden information (spec 11): only fountain cards (others' hands, the cards they returned, a draw in
progress). The depot tiles are dealt when they are turned face up (after the start spaces and at each
phase start) and the fountain draw samples the undrawn deck when it happens, so the state stores no
hidden order at all. The state is a struct of numpy arrays with batch axis B (`State`); the rules
live in numba kernels (`kernels.py`); this module orchestrates them and keeps `apply` pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from meeple.envs import core
from meeple.envs.carpe_diem import data, kernels
from meeple.envs.carpe_diem.data import (
    DEPOT_SLOTS, DISPLAY_SLOTS, NUM_ACTIONS, NUM_CARD_SLOTS, NUM_CARDS, NUM_CELLS, NUM_CIRCLE_SPACES,
    NUM_FEATURES, NUM_FOUNTAIN_KINDS, NUM_GOODS, NUM_SPACES, NUM_TILES, UNIFORMS_AT_INIT,
    UNIFORMS_PER_STEP,
)

LOC_SUPPLY, LOC_DEPOT, LOC_DISPLAY, LOC_PENDING, LOC_PLACED, LOC_STORED, LOC_REMOVED = range(7)
LOC_NAMES = ("supply", "depot", "display", "pending", "placed", "stored", "removed")
SCORE_PART_NAMES = ("vp_cards", "track", "tasks", "villas", "leftovers", "fountain_cards", "public", "final")


@dataclass(frozen=True)
class Config:
    """Variant flags (all JSON-serialisable)."""

    num_players: int = 2
    """2-4 players."""
    auto_forced: bool = True
    """spec 14 `skip_forced`: decisions with exactly one legal action are applied without asking."""
    tiebreak: str = "banner_back"
    """spec 9: "banner_back" (the seed: the tied player further back on the banderole track wins) or "banner_front"."""
    reward: str = "rank"
    """"rank": core.rank_returns by (VP, tie-break) in [-1, 1]; "score_diff": (own VP - best opponent VP) / 100."""

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, (int, np.integer)) or isinstance(self.num_players, bool) \
                or not data.MIN_PLAYERS <= self.num_players <= data.MAX_PLAYERS:
            raise ValueError(f"num_players must be 2..4, got {self.num_players!r}")
        if not isinstance(self.auto_forced, (bool, np.bool_)):
            raise ValueError(f"auto_forced must be a bool, got {self.auto_forced!r}")
        if self.tiebreak not in ("banner_back", "banner_front"):
            raise ValueError(f"tiebreak must be 'banner_back' or 'banner_front', got {self.tiebreak!r}")
        if self.reward not in ("rank", "score_diff"):
            raise ValueError(f"reward must be 'rank' or 'score_diff', got {self.reward!r}")


class State(NamedTuple):
    """Batched game state; every field has the batch axis first. P = num_players.

    Visibility (spec 11): fields are PUBLIC unless marked PRIVATE (only the owner sees them).
    DERIVED fields are recomputed from the districts after every placement (`kernels._analyze`).
    """

    # --- flow (public) ---
    to_play: np.ndarray         # (B,) int8 seat that decides now
    done: np.ndarray            # (B,) bool game over (decision GAME_OVER)
    truncated: np.ndarray       # (B,) bool always False: every game ends by the rules
    decision: np.ndarray        # (B,) int8 data.DEC_* pending decision
    phase: np.ndarray           # (B,) int8 0..3
    round: np.ndarray           # (B,) int8 0..6 turns; 7 = scoring round
    turn: np.ndarray            # (B,) int8 position in the turn order (start spaces, turns) or scoring order
    start_player: np.ndarray    # (B,) int8 this phase's start player
    tile_pending: np.ndarray    # (B,) int8 tile being built (decision PLACE), -1
    craft_pending: np.ndarray   # (B,) int8 craftsman display picks still owed this turn
    fountain_drawn: np.ndarray  # (B, 2) int8 PRIVATE (to_play): kinds of the 2 drawn fountain cards, -1
    score_order: np.ndarray     # (B, P) int8 seats in this scoring round's order (PD-23)
    cur_space: np.ndarray       # (B,) int8 circle space being resolved, -1
    card_seq: np.ndarray        # (B,) int8 0 = first card of the scoring turn, 1 = second
    first_high: np.ndarray      # (B,) bool the higher-numbered slot's card is resolved first
    units: np.ndarray           # (B,) int8 units of the current card (chosen for red, natural for green)
    # --- central board (public) ---
    patrician: np.ndarray       # (B, P) int8 circle space 0..6, -1 before the start placement
    depot: np.ndarray           # (B, 7, 4) int8 tile id per depot slot, -1 empty
    display: np.ndarray         # (B, 11) int8 bottom display tile ids, -1 taken
    tile_loc: np.ndarray        # (B, 123) int8 where every tile is (LOC_*)
    card_slot: np.ndarray       # (B, 12) int8 scoring card per slot, -1 unused
    circle_owner: np.ndarray    # (B, 17) int8 seat whose scoring disc is on the circle space, -1 free
    circle_phase: np.ndarray    # (B, 17) int8 phase the disc was placed in, -1
    # --- per player (public unless marked) ---
    board: np.ndarray           # (B, P) int8 building board 0..3
    frame: np.ndarray           # (B, P, 4) int8 frame part 0..15 on sides N, E, S, W
    cell_tile: np.ndarray       # (B, P, 36) int8 tile id per cell, -1 empty
    cell_rot: np.ndarray        # (B, P, 36) int8 clockwise quarter turns of the tile, 0 for empty cells
    goods: np.ndarray           # (B, P, 4) int16 grapes, herbs, chickens, fish
    coins: np.ndarray           # (B, P) int16
    bread: np.ndarray           # (B, P) int16
    stored: np.ndarray          # (B, P) int8 tiles stored face down
    vp: np.ndarray              # (B, P) int16 VP cards: start VP +- scoring rounds + excess track steps
    track: np.ndarray           # (B, P) int8 banderole-track space 0..35
    height: np.ndarray          # (B, P) int8 position in the stack on that space, 0 = bottom
    task_done: np.ndarray       # (B, P, 8) bool frame task 2 * side + j satisfied; DERIVED
    completed: np.ndarray       # (B, P, 12) int8 completed instances per feature kind; DERIVED
    chimneys: np.ndarray        # (B, P) int16 chimneys in all villas, complete or not; DERIVED
    villa_vp: np.ndarray        # (B, P) int16 VP of the completed villas (spec 2.5); DERIVED
    fountain_hand: np.ndarray   # (B, P, 12) int8 PRIVATE fountain cards per kind (count public)
    fountain_returned: np.ndarray  # (B, P, 12) int8 PRIVATE cards this player returned to the deck bottom


class View(NamedTuple):
    """What `viewer` may see (spec 11, spec 15 'must not contain'); seats are absolute.

    The private State fields (fountain_hand, fountain_returned, fountain_drawn) are never referenced;
    the viewer's own parts are copied by `kernels.observe_nb`. Public fields share the State's arrays.
    """

    viewer: np.ndarray          # (B,) int8
    to_play: np.ndarray         # (B,) int8
    done: np.ndarray            # (B,) bool
    decision: np.ndarray        # (B,) int8
    phase: np.ndarray           # (B,) int8
    round: np.ndarray           # (B,) int8
    turn: np.ndarray            # (B,) int8
    start_player: np.ndarray    # (B,) int8
    tile_pending: np.ndarray    # (B,) int8
    craft_pending: np.ndarray   # (B,) int8
    score_order: np.ndarray     # (B, P) int8
    cur_space: np.ndarray       # (B,) int8
    card_seq: np.ndarray        # (B,) int8
    first_high: np.ndarray      # (B,) bool
    units: np.ndarray           # (B,) int8
    patrician: np.ndarray       # (B, P) int8
    depot: np.ndarray           # (B, 7, 4) int8
    display: np.ndarray         # (B, 11) int8
    tile_loc: np.ndarray        # (B, 123) int8 (stored tiles show as LOC_STORED: face down, owner not kept)
    card_slot: np.ndarray       # (B, 12) int8
    circle_owner: np.ndarray    # (B, 17) int8
    circle_phase: np.ndarray    # (B, 17) int8
    board: np.ndarray           # (B, P) int8
    frame: np.ndarray           # (B, P, 4) int8
    cell_tile: np.ndarray       # (B, P, 36) int8
    cell_rot: np.ndarray        # (B, P, 36) int8
    goods: np.ndarray           # (B, P, 4) int16
    coins: np.ndarray           # (B, P) int16
    bread: np.ndarray           # (B, P) int16
    stored: np.ndarray          # (B, P) int8
    vp: np.ndarray              # (B, P) int16
    track: np.ndarray           # (B, P) int8
    height: np.ndarray          # (B, P) int8
    task_done: np.ndarray       # (B, P, 8) bool
    completed: np.ndarray       # (B, P, 12) int8
    chimneys: np.ndarray        # (B, P) int16
    villa_vp: np.ndarray        # (B, P) int16
    own_hand: np.ndarray        # (B, 12) int8 the viewer's fountain cards per kind
    own_returned: np.ndarray    # (B, 12) int8 kinds the viewer returned (it saw them; they lie below every drawable card)
    own_drawn: np.ndarray       # (B, 2) int8 the viewer's own pending draw, -1 otherwise
    fountain_count: np.ndarray  # (B, P) int8 fountain cards held (public count)
    score: np.ndarray           # (B, P) int16 Yucata's public running score (spec 10)


_PRIVATE = ("fountain_drawn", "fountain_hand", "fountain_returned")
_PUBLIC = tuple(f for f in State._fields if f not in _PRIVATE and f != "truncated")
_FILTERED = {"own_hand": ((NUM_FOUNTAIN_KINDS,), np.int8), "own_returned": ((NUM_FOUNTAIN_KINDS,), np.int8),
             "own_drawn": ((2,), np.int8), "fountain_count": (("P",), np.int8), "score": (("P",), np.int16)}
assert set(_PUBLIC) | set(_FILTERED) | {"viewer"} == set(View._fields)
_VIEW_SOURCES = tuple((0, 0) if name == "viewer" else (1, State._fields.index(name)) if name in _PUBLIC
                      else (2, list(_FILTERED).index(name)) for name in View._fields)

_FIELD_SPECS: dict[str, tuple[tuple, type]] = {
    # name: (trailing shape, "P" = players; dtype)
    "to_play": ((), np.int8), "done": ((), np.bool_), "truncated": ((), np.bool_), "decision": ((), np.int8),
    "phase": ((), np.int8), "round": ((), np.int8), "turn": ((), np.int8), "start_player": ((), np.int8),
    "tile_pending": ((), np.int8), "craft_pending": ((), np.int8), "fountain_drawn": ((2,), np.int8),
    "score_order": (("P",), np.int8), "cur_space": ((), np.int8), "card_seq": ((), np.int8),
    "first_high": ((), np.bool_), "units": ((), np.int8), "patrician": (("P",), np.int8),
    "depot": ((NUM_SPACES, DEPOT_SLOTS), np.int8), "display": ((DISPLAY_SLOTS,), np.int8),
    "tile_loc": ((NUM_TILES,), np.int8), "card_slot": ((NUM_CARD_SLOTS,), np.int8),
    "circle_owner": ((NUM_CIRCLE_SPACES,), np.int8), "circle_phase": ((NUM_CIRCLE_SPACES,), np.int8),
    "board": (("P",), np.int8), "frame": (("P", 4), np.int8), "cell_tile": (("P", NUM_CELLS), np.int8),
    "cell_rot": (("P", NUM_CELLS), np.int8), "goods": (("P", NUM_GOODS), np.int16), "coins": (("P",), np.int16),
    "bread": (("P",), np.int16), "stored": (("P",), np.int8), "vp": (("P",), np.int16), "track": (("P",), np.int8),
    "height": (("P",), np.int8), "task_done": (("P", data.TASKS_PER_PLAYER), np.bool_),
    "completed": (("P", NUM_FEATURES), np.int8), "chimneys": (("P",), np.int16), "villa_vp": (("P",), np.int16),
    "fountain_hand": (("P", NUM_FOUNTAIN_KINDS), np.int8), "fountain_returned": (("P", NUM_FOUNTAIN_KINDS), np.int8),
}
assert tuple(_FIELD_SPECS) == State._fields == kernels.STATE_FIELDS


def _ranges(P: int) -> dict[str, tuple[int, int]]:
    """Inclusive value range of every integer field (checked before the structural kernel)."""
    big = np.iinfo(np.int16).max
    return {
        "to_play": (0, P - 1), "decision": (0, data.NUM_DECISIONS - 1), "phase": (0, data.NUM_PHASES - 1),
        "round": (0, data.ROUNDS_PER_PHASE), "turn": (0, P - 1), "start_player": (0, P - 1),
        "tile_pending": (-1, NUM_TILES - 1), "craft_pending": (0, 4 * DISPLAY_SLOTS),
        "fountain_drawn": (-1, NUM_FOUNTAIN_KINDS - 1), "score_order": (0, P - 1),
        "cur_space": (-1, NUM_CIRCLE_SPACES - 1), "card_seq": (0, 1), "units": (0, 127),
        "patrician": (-1, NUM_SPACES - 1), "depot": (-1, NUM_TILES - 1), "display": (-1, NUM_TILES - 1),
        "tile_loc": (0, len(LOC_NAMES) - 1), "card_slot": (-1, NUM_CARDS - 1), "circle_owner": (-1, P - 1),
        "circle_phase": (-1, data.NUM_PHASES - 1), "board": (0, data.NUM_BOARDS - 1),
        "frame": (0, data.NUM_FRAME_PARTS - 1), "cell_tile": (-1, NUM_TILES - 1), "cell_rot": (0, 3),
        "goods": (0, big), "coins": (0, big), "bread": (0, big), "stored": (0, NUM_TILES),
        "vp": (-big, big), "track": (0, data.TRACK_END), "height": (0, P - 1), "completed": (0, NUM_CELLS),
        "chimneys": (0, data.MAX_CHIMNEYS), "villa_vp": (0, big), "fountain_hand": (0, data.FOUNTAIN_COPIES),
        "fountain_returned": (0, data.FOUNTAIN_COPIES),
    }


VALIDATE_ERRORS = {
    1: "flow fields inconsistent (decision vs done / pending tile / fountain draw / turn order / scoring order)",
    2: "tiles not conserved: a tile is in two places, nowhere, or not where tile_loc says",
    3: "a placed tile does not match a neighbour or the frame, or the district is not connected to the shovel cell",
    4: "derived fields (completed, chimneys, villa VP, frame tasks) differ from their recomputation",
    5: "fountain cards inconsistent (more than 2 of a kind, hands vs returned cards vs fountains built)",
    6: "banderole stacks, scoring discs or card slots inconsistent",
}


class CarpeDiem(core.GameBase):
    """The rules core for one configuration; see `meeple.envs.core.Game` for the protocol."""

    render_module = "meeple.envs.carpe_diem.render"

    State = State
    View = View

    def __init__(self, num_players: int = 2, **variant: object) -> None:
        self.config = Config(num_players=num_players, **variant)  # type: ignore[arg-type]
        self.num_players = int(self.config.num_players)
        self.info = data.info(self.num_players)
        self.num_actions = NUM_ACTIONS
        self.uniforms_per_step = UNIFORMS_PER_STEP
        self.action_names = data.action_names(NUM_ACTIONS)
        self._auto = bool(self.config.auto_forced)
        self._filtered_shapes = [(tuple(self.num_players if d == "P" else d for d in dims), dt)
                                 for dims, dt in _FILTERED.values()]
        self._work = np.zeros(kernels.WORK_SIZE, dtype=np.int32)
        self._cellmask = np.zeros(kernels.NUM_NODES, dtype=np.int64)

    def __repr__(self) -> str:
        return f"CarpeDiem({self.config})"

    # --- lifecycle ---------------------------------------------------------------------------

    def empty(self, batch: int) -> State:
        """An all-zero state of the right shapes (not a valid position by itself)."""
        P = self.num_players
        return State(*(np.zeros((batch, *(P if d == "P" else d for d in dims)), dtype=dt)
                       for dims, dt in _FIELD_SPECS.values()))

    def init(self, rng: np.random.Generator, batch: int = 1) -> State:
        """New games: start player, frames, boards, scoring cards and the bottom display from `rng`."""
        return self.init_from_uniforms(rng.random((batch, UNIFORMS_AT_INIT)))

    def init_from_uniforms(self, u: np.ndarray) -> State:
        """Deterministic `init` from u (B, data.UNIFORMS_AT_INIT); columns as in data.U_INIT_*.

        A narrower u (at least 1 column, e.g. the (B, 32) of a step) is extended per row with a
        splitmix64 stream seeded from the row's last uniform, so the result stays a function of u.
        """
        u = self._check_uniforms(u, None, 1)
        if u.shape[1] < UNIFORMS_AT_INIT:
            u = core.extend_uniforms(u, UNIFORMS_AT_INIT)
        state = self.empty(u.shape[0])
        kernels.init_nb(u, self._auto, self._work, self._cellmask, *state)
        return state

    def legal_action_mask(self, state: State) -> np.ndarray:
        """(B, A) bool legal actions of the seat in `to_play`; all True in finished rows."""
        mask = np.empty((state.done.shape[0], NUM_ACTIONS), dtype=np.bool_)
        kernels.legal_action_mask_nb(mask, *state)
        return mask

    def step(self, state: State, actions: np.ndarray, rng: np.random.Generator) -> State:
        """Apply one legal action per row, drawing the uniforms from `rng`."""
        return self.apply(state, actions, rng.random((state.done.shape[0], UNIFORMS_PER_STEP)))

    def apply(self, state: State, actions: np.ndarray, u: np.ndarray) -> State:
        """Deterministic step; u (B, 32): columns U_STEP_DEAL.. fill the depots when a phase begins,
        U_STEP_FOUNTAIN.. draw the fountain cards."""
        new = core.clone(state)
        self.apply_inplace(new, actions, u)
        return new

    def apply_inplace(self, state: State, actions: np.ndarray, u: np.ndarray) -> None:
        """`apply` without the copy, for owners of the state (the AEC env, the self-play env)."""
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        u = self._check_uniforms(u, state.done.shape[0], UNIFORMS_PER_STEP)
        if actions.shape[0] != state.done.shape[0]:
            raise ValueError(f"expected {state.done.shape[0]} actions, got {actions.shape[0]}")
        kernels.apply_nb(actions, u, self._auto, self._work, self._cellmask, *state)

    def advance(self, state: State, u: np.ndarray | None = None) -> State:
        """Recompute the derived fields from the districts, then run the automatic steps from a
        hand-built position (tests, tools); pure."""
        new = core.clone(state)
        if u is None:
            u = np.full((state.done.shape[0], UNIFORMS_PER_STEP), 0.5)
        u = self._check_uniforms(u, state.done.shape[0], UNIFORMS_PER_STEP)
        kernels.advance_nb(u, self._auto, self._work, self._cellmask, *new)
        return new

    @staticmethod
    def _check_uniforms(u: np.ndarray, batch: int | None, width: int) -> np.ndarray:
        u = np.ascontiguousarray(u, dtype=np.float64)
        if u.ndim != 2 or u.shape[1] < width or (batch is not None and u.shape[0] != batch):
            raise ValueError(f"u must have shape (B, >={width}) with B = {batch}, got {u.shape}")
        return u

    # --- results -----------------------------------------------------------------------------

    def scores(self, state: State) -> np.ndarray:
        """(B, P) int32 VP: final (spec 8) once done, Yucata's public running score (spec 10) before."""
        out = np.empty(state.vp.shape, dtype=np.int32)
        kernels.scores_nb(out, False, *state)
        return out

    def score_parts(self, state: State) -> dict[str, np.ndarray]:
        """(B, P) int32 per part of the score (SCORE_PART_NAMES): the VP cards (start VP +- scoring
        rounds + excess track steps), track space, frame tasks, completed villas, leftovers / 2,
        fountain cards, the public running score and the final score (their sum). Fountain-card VP
        is private: use it only for the viewer's own seat or at the end."""
        out = np.empty((*state.vp.shape, len(SCORE_PART_NAMES)), dtype=np.int32)
        kernels.score_parts_nb(out, *state)
        return {name: out[..., i] for i, name in enumerate(SCORE_PART_NAMES)}

    def tiebreak_key(self, state: State) -> np.ndarray:
        """(B, P) int32, higher wins a VP tie (spec 9): further back on the track (lower space; on a
        shared space lower in the stack) with tiebreak="banner_back", the reverse with "banner_front"."""
        pos = state.track.astype(np.int32) * data.MAX_PLAYERS + state.height.astype(np.int32)
        return -pos if self.config.tiebreak == "banner_back" else pos

    def returns(self, state: State) -> np.ndarray:
        """(B, P) float32 rewards at the end, 0 before.

        reward="rank" (default): `core.rank_returns(VP, tie-break)` in [-1, 1]: (opponents beaten -
        opponents beating) / (P - 1); the banderole tie-break is strict, so nobody shares. This is the
        suite's convention (spec 14 leaves the terminal reward open). reward="score_diff":
        (own VP - best opponent VP) / 100.
        """
        vp = self.scores(state)
        if self.config.reward == "rank":
            out = core.rank_returns(vp, self.tiebreak_key(state))
        else:
            P = self.num_players
            others = np.stack([np.delete(vp, p, axis=1).max(axis=1) for p in range(P)], axis=1)
            out = ((vp - others) / 100.0).astype(np.float32)
        out[~state.done] = 0.0
        return out

    # --- information -------------------------------------------------------------------------

    def observe(self, state: State, player: int | np.ndarray) -> View:
        """Only what `player` may see (spec 11, 15): the public fields, its own fountain cards (held,
        returned, drawn), every player's fountain-card count and public running score.

        Public fields are shared with the state, not copied: a View describes the state it came from
        until that state is mutated in place (`apply` never does).
        """
        B = state.done.shape[0]
        P = self.num_players
        if isinstance(player, (int, np.integer)):
            if not 0 <= player < P:
                raise ValueError(f"player must be a seat 0..{P - 1}, got {player}")
            viewer = np.full(B, player, dtype=np.int8)
        else:
            viewer = np.ascontiguousarray(np.broadcast_to(np.asarray(player), (B,)), dtype=np.int8)
            if B and (viewer.min() < 0 or viewer.max() >= P):
                raise ValueError(f"player must be a seat 0..{P - 1}")
        filtered = [np.empty((B, *shape), dtype=dt) for shape, dt in self._filtered_shapes]
        kernels.observe_nb(viewer, *filtered, *state)
        parts = ((viewer,), state, filtered)
        return tuple.__new__(View, [parts[src][i] for src, i in _VIEW_SOURCES])

    def determinize(self, state: State, player: int | np.ndarray, rng: np.random.Generator) -> State:
        """A state consistent with everything `player` has seen, the rest resampled from `rng`.

        The fountain cards `player` has not seen (24 minus its own hand, the cards it returned and its
        own pending draw) are shuffled into the unseen places: other players' hands and returned cards
        (their counts are public: one returned card per fountain built) and another player's pending
        draw; the rest form the undrawn deck, which the state does not store (a draw samples it).
        Tiles need nothing: depots are dealt when they are revealed, so no hidden tile order exists.
        """
        B = state.done.shape[0]
        new = core.clone(state)
        viewer = np.ascontiguousarray(np.broadcast_to(np.asarray(player, dtype=np.int8), (B,)))
        seeds = rng.integers(1, np.iinfo(np.int64).max, size=B, dtype=np.int64)
        kernels.determinize_nb(viewer, seeds, np.zeros(kernels.WORK_SIZE, dtype=np.int32),
                               np.zeros(1, dtype=np.uint64), *new)
        return new

    # --- validation and persistence ----------------------------------------------------------

    def validate(self, state: State) -> None:
        """Raise ValueError if `state` breaks a rule invariant (used when loading saved states)."""
        if not isinstance(state, State):
            raise ValueError(f"expected a {__name__}.State, got {type(state).__name__}")
        B = state.done.shape[0]
        P = self.num_players
        for (name, (dims, dt)), value in zip(_FIELD_SPECS.items(), state):
            shape = (B, *(P if d == "P" else d for d in dims))
            if not isinstance(value, np.ndarray) or value.shape != shape or value.dtype != dt:
                got = (getattr(value, "shape", None), getattr(value, "dtype", None))
                raise ValueError(f"field {name!r}: {got}, expected {shape} {np.dtype(dt)}")
        for name, (lo, hi) in _ranges(P).items():
            value = getattr(state, name)
            if value.size and (value.min() < lo or value.max() > hi):
                rows = np.flatnonzero(((value < lo) | (value > hi)).reshape(B, -1).any(axis=1))
                raise ValueError(f"invalid state: {name} outside {lo}..{hi} (rows {rows[:5].tolist()})")
        if state.truncated.any():
            raise ValueError("invalid state: truncated is never set in Carpe Diem")
        err = np.zeros(B, dtype=np.int32)
        kernels.validate_nb(err, np.zeros(kernels.WORK_SIZE, dtype=np.int32), np.zeros(kernels.NUM_NODES, dtype=np.int64),
                            np.zeros(NUM_FEATURES, dtype=np.int64), np.zeros(data.TASKS_PER_PLAYER, dtype=np.bool_),
                            np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), *core.clone(state))
        if err.any():
            rows = np.flatnonzero(err)
            raise ValueError(f"invalid state: {VALIDATE_ERRORS[int(err[rows[0]])]} (rows {rows[:5].tolist()})")
