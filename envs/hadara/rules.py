"""Hadara (Benjamin Schwer, Hans im Glück 2019; the Yucata.de rules), as a batched rules core.

Rules in brief (../shared/rules/hadara.md, "the spec"): 2-5 players build civilisations on four
tracks (income, military, culture, food) over 3 epochs. Phase A: the start player (by initiative)
sets the wheel; in 5 simultaneous rounds every player draws 2 hidden cards of the colour at their
emblem, discards one face-up to that colour's outer pile and buys (price minus own cards of that
colour) or sells (2/3/4 coins by epoch) the other; then Income (coins = income track), Take a
colony (military requirement; plunder for coins or ally for the hidden back's values) and Carve a
bust (culture requirement, a bonus tile front = steps or back = VP). Phase B: 5 turns each taking
the top card of any outer pile to buy or sell, then Income, colony, bust, Feeding (food >= cards or
remove cards, which undoes everything they gave) and Buy seals (silver: half a track; gold: 7 per
5-colour set). Purple cards add the 18 abilities of spec 10 (starred ones only in the advanced game,
where start-card sides are chosen too). Most VP wins (spec 9); ties by coins, then shared.

Simultaneity is modelled as sequential hidden commitments (D7, D20): `pending` is private, only
`committed` is public, and everything is revealed and resolved when the last player commits.
The state is a struct of numpy arrays with batch axis B (`State`); the rules live in numba kernels
(`kernels.py`); this module orchestrates them and keeps `apply` pure by copying once per call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from meeple.envs import core
from meeple.envs.hadara import data, kernels
from meeple.envs.hadara.data import (
    MAX_TABLEAU, NUM_ABILITIES, NUM_ACTIONS, NUM_BUSTS, NUM_CARDS, NUM_COLONIES, NUM_COLOURS,
    NUM_DECISIONS, NUM_TIERS, NUM_TRACKS, UNIFORMS_AT_INIT, UNIFORMS_PER_STEP,
)

SOLD_SLOTS = kernels.SOLD_SLOTS
PILE_SLOTS = data.MAX_PLAYERS  # an outer pile holds one card per player (spec 5 A2)
INNER_SLOTS = 2 * data.MAX_PLAYERS  # 2N cards per inner stack
SCRATCH = 16  # shuffle buffer length (>= 14 cards of one colour)


@dataclass(frozen=True)
class Config:
    """Variant flags (all JSON-serialisable)."""

    num_players: int = 2
    """2-5 players."""
    advanced: bool = False
    """Advanced game: starred purple cards are shuffled in and start-card sides are chosen (spec 3)."""
    random_board_order: bool = False
    """Shuffle the clockwise colour order of the board segments at reset (spec 2.8)."""
    pile_view: str = "full"
    """D8: "full" shows every outer pile bottom->top, "top" only the top cards."""
    auto_forced: bool = True
    """D19: decisions with exactly one legal action are applied without asking."""
    reward: str = "rank"
    """"rank": core.rank_returns by (VP, coins) in [-1, 1]; "score_diff": (own VP - best opponent VP) / 100."""

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, (int, np.integer)) or isinstance(self.num_players, bool) \
                or not data.MIN_PLAYERS <= self.num_players <= data.MAX_PLAYERS:
            raise ValueError(f"num_players must be 2..5, got {self.num_players!r}")
        for flag in ("advanced", "random_board_order", "auto_forced"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise ValueError(f"{flag} must be a bool, got {getattr(self, flag)!r}")
        if self.pile_view not in ("full", "top"):
            raise ValueError(f"pile_view must be 'full' or 'top', got {self.pile_view!r}")
        if self.reward not in ("rank", "score_diff"):
            raise ValueError(f"reward must be 'rank' or 'score_diff', got {self.reward!r}")


class State(NamedTuple):
    """Batched game state; every field has the batch axis first. P = num_players.

    Visibility (spec 11.1): fields are PUBLIC unless marked HIDDEN (nobody sees them) or PRIVATE
    (only the named owner sees them). `observe` filters; `determinize` resamples the non-public part.
    """

    # --- flow (public) ---
    to_play: np.ndarray        # (B,) int8 seat that decides now
    done: np.ndarray           # (B,) bool game over (section GAME_OVER)
    truncated: np.ndarray      # (B,) bool always False: every game ends by the rules
    epoch: np.ndarray          # (B,) int8 0..2 = I..III
    decision: np.ndarray        # (B,) int8 data.SECTION_* (spec 14)
    round: np.ndarray          # (B,) int8 phase-A round k 0..4 (5 once the draft is over)
    turn: np.ndarray           # (B,) int8 0..P position in turn order in sequential sections; actor = (start + turn) % P
    pick: np.ndarray           # (B,) int8 0..5P phase-B turns taken; actor = (start + pick) % P
    start_player: np.ndarray   # (B,) int8 seat of this epoch's start player
    rotation: np.ndarray       # (B,) int8 wheel rotation r 0..4, -1 until set this epoch
    board_order: np.ndarray    # (B, 5) int8 colour at board position 0..4 (spec 2.8)
    # --- per player (public unless marked) ---
    start_card: np.ndarray     # (B, P) int8 start card = initiative - 1, 0..4
    start_side: np.ndarray     # (B, P) int8 SIDE_A/SIDE_B once revealed, -1 before (advanced setup)
    coins: np.ndarray          # (B, P) int16 >= 0 (D22: public)
    tracks: np.ndarray         # (B, P, 4) int16 income, military, culture, food; DERIVED (spec 7 note)
    colour_count: np.ndarray   # (B, P, 5) int8 cards per colour in the tableau; DERIVED
    ability_count: np.ndarray  # (B, P, 18) int8 copies of each ability in the tableau; DERIVED
    free_tiles: np.ndarray     # (B, P, 4) int8 bonus tiles per colour not on a bust, seal or TILE_STEPS card; DERIVED
    tableau: np.ndarray        # (B, P, 30) int16 card id per slot in acquisition order, -1 empty/removed
    n_slots: np.ndarray        # (B, P) int8 slots assigned so far (slots are never reused)
    slot_tile: np.ndarray      # (B, P, 30) int8 tile colour on the TILE_STEPS card in that slot, -1 none
    tile_due: np.ndarray       # (B, P) int8 slot of a TILE_STEPS card awaiting its tile, -1 none
    bust: np.ndarray           # (B, P, 4) int8 -1 uncarved, else 2 * tile colour + side (FRONT 0 / BACK 1)
    colony: np.ndarray         # (B, P, 5) int8 per tier 0 not taken, 1 plundered, 2 allied
    colony_id: np.ndarray      # (B, P, 5) int8 colony id per taken tier, -1; HIDDEN when plundered (D14), public when allied
    silver: np.ndarray         # (B, P, 2) int8 tile colour (scored track) of each silver seal, -1 empty; filled in order
    gold: np.ndarray           # (B, P) int8 gold seals bought 0..2
    sold_a: np.ndarray         # (B, P, 15) int16 card sold face-down in phase A of epoch e round k at 5e+k, -1;
    #                            PRIVATE to the seller (colour and epoch public, spec 11.1)
    committed: np.ndarray      # (B, P) bool has committed this draft round / side choice
    pending: np.ndarray        # (B, P) int8 PRIVATE commitment: draft action - 7 (0..3) or side (0..1), -1 none
    drawn: np.ndarray          # (B, P, 2) int16 PRIVATE pair drawn this round (draw order), -1 outside A_DRAFT
    # --- the current actor's section counters (public) ---
    sect_count: np.ndarray     # (B,) int8 colonies / busts taken in this section (2 with DOUBLE_SECTION)
    sect_bought: np.ndarray    # (B,) int16 BUY_REQUIREMENT coins spent in this section (max 30)
    feed_paid: np.ndarray      # (B,) int8 cards covered with FEED_COINS in this Feeding (max 6)
    # --- supply ---
    inner: np.ndarray          # (B, 5, 10) int16 HIDDEN inner stack per colour, bottom -> top, -1 beyond the count
    inner_count: np.ndarray    # (B, 5) int8 inner stack sizes (public)
    outer: np.ndarray          # (B, 5, 5) int16 outer pile per colour, bottom -> top, -1 beyond the count (public, D8)
    outer_count: np.ndarray    # (B, 5) int8
    colony_stack: np.ndarray   # (B, 5, 5) int8 HIDDEN colony ids per tier, bottom -> top (fronts are identical)
    colony_count: np.ndarray   # (B, 5) int8 colonies left per tier (public)
    removed: np.ndarray        # (B, 162) bool out of the game face-up: sold in phase B or removed in feeding (public)


class View(NamedTuple):
    """What `viewer` may see (spec 11.1, spec 15 'must not contain'); seats are absolute.

    Hidden State fields (inner, colony_stack, drawn, pending, sold_a, colony_id) are never referenced;
    their visible parts are rebuilt by `kernels.observe_nb`. Public fields share the State's arrays.
    """

    viewer: np.ndarray         # (B,) int8
    to_play: np.ndarray        # (B,) int8
    done: np.ndarray           # (B,) bool
    epoch: np.ndarray          # (B,) int8
    decision: np.ndarray        # (B,) int8
    round: np.ndarray          # (B,) int8
    turn: np.ndarray           # (B,) int8
    pick: np.ndarray           # (B,) int8
    start_player: np.ndarray   # (B,) int8
    rotation: np.ndarray       # (B,) int8
    board_order: np.ndarray    # (B, 5) int8
    start_card: np.ndarray     # (B, P) int8
    start_side: np.ndarray     # (B, P) int8 (-1 until the simultaneous reveal)
    coins: np.ndarray          # (B, P) int16
    tracks: np.ndarray         # (B, P, 4) int16
    colour_count: np.ndarray   # (B, P, 5) int8
    ability_count: np.ndarray  # (B, P, 18) int8
    free_tiles: np.ndarray     # (B, P, 4) int8
    tableau: np.ndarray        # (B, P, 30) int16
    slot_tile: np.ndarray      # (B, P, 30) int8
    tile_due: np.ndarray       # (B, P) int8
    bust: np.ndarray           # (B, P, 4) int8
    colony: np.ndarray         # (B, P, 5) int8
    colony_back: np.ndarray    # (B, P, 5) int8 allied colony ids; -1 for plundered (never revealed) and untaken
    silver: np.ndarray         # (B, P, 2) int8
    gold: np.ndarray           # (B, P) int8
    committed: np.ndarray      # (B, P) bool
    sold_colour: np.ndarray    # (B, P, 15) int8 colour of each face-down phase-A sale, -1 none
    own_sold: np.ndarray       # (B, 15) int16 the viewer's own face-down sales (card ids)
    own_drawn: np.ndarray      # (B, 2) int16 the viewer's drawn pair, -1 outside A_DRAFT
    own_pending: np.ndarray    # (B,) int8 the viewer's own commitment, -1 none
    sect_count: np.ndarray     # (B,) int8
    sect_bought: np.ndarray    # (B,) int16
    feed_paid: np.ndarray      # (B,) int8
    inner_count: np.ndarray    # (B, 5) int8 sizes only, never contents
    outer: np.ndarray          # (B, 5, 5) int16 piles (only the tops with pile_view="top")
    outer_count: np.ndarray    # (B, 5) int8
    colony_count: np.ndarray   # (B, 5) int8
    removed: np.ndarray        # (B, 162) bool public discards
    vp: np.ndarray             # (B, P) int16 running public VP (spec 9 on the current position)


# public State fields copied verbatim into the View
_PUBLIC = ("to_play", "done", "epoch", "decision", "round", "turn", "pick", "start_player", "rotation",
           "board_order", "start_card", "start_side", "coins", "tracks", "colour_count", "ability_count",
           "free_tiles", "tableau", "slot_tile", "tile_due", "bust", "colony", "silver", "gold", "committed",
           "sect_count", "sect_bought", "feed_paid", "inner_count", "outer_count", "colony_count", "removed")
# View fields the observe kernel writes: (trailing shape symbols, dtype)
_FILTERED = {"colony_back": (("P", NUM_TIERS), np.int8), "sold_colour": (("P", SOLD_SLOTS), np.int8),
             "own_sold": ((SOLD_SLOTS,), np.int16), "own_drawn": ((2,), np.int16), "own_pending": ((), np.int8),
             "outer": ((NUM_COLOURS, PILE_SLOTS), np.int16), "vp": (("P",), np.int16)}
assert set(_PUBLIC) | set(_FILTERED) | {"viewer"} == set(View._fields)
# where each View field comes from: (0, 0) the viewer, (1, i) State field i, (2, j) filtered array j
_VIEW_SOURCES = tuple((0, 0) if name == "viewer" else (1, State._fields.index(name)) if name in _PUBLIC
                      else (2, list(_FILTERED).index(name)) for name in View._fields)

_FIELD_SPECS: dict[str, tuple[tuple, type]] = {
    # name: (trailing shape, "P" = players; dtype)
    "to_play": ((), np.int8), "done": ((), np.bool_), "truncated": ((), np.bool_), "epoch": ((), np.int8),
    "decision": ((), np.int8), "round": ((), np.int8), "turn": ((), np.int8), "pick": ((), np.int8),
    "start_player": ((), np.int8), "rotation": ((), np.int8), "board_order": ((NUM_COLOURS,), np.int8),
    "start_card": (("P",), np.int8), "start_side": (("P",), np.int8), "coins": (("P",), np.int16),
    "tracks": (("P", NUM_TRACKS), np.int16), "colour_count": (("P", NUM_COLOURS), np.int8),
    "ability_count": (("P", NUM_ABILITIES), np.int8), "free_tiles": (("P", NUM_TRACKS), np.int8),
    "tableau": (("P", MAX_TABLEAU), np.int16), "n_slots": (("P",), np.int8),
    "slot_tile": (("P", MAX_TABLEAU), np.int8), "tile_due": (("P",), np.int8), "bust": (("P", NUM_BUSTS), np.int8),
    "colony": (("P", NUM_TIERS), np.int8), "colony_id": (("P", NUM_TIERS), np.int8),
    "silver": (("P", data.MAX_SILVER), np.int8), "gold": (("P",), np.int8), "sold_a": (("P", SOLD_SLOTS), np.int16),
    "committed": (("P",), np.bool_), "pending": (("P",), np.int8), "drawn": (("P", 2), np.int16),
    "sect_count": ((), np.int8), "sect_bought": ((), np.int16), "feed_paid": ((), np.int8),
    "inner": ((NUM_COLOURS, INNER_SLOTS), np.int16), "inner_count": ((NUM_COLOURS,), np.int8),
    "outer": ((NUM_COLOURS, PILE_SLOTS), np.int16), "outer_count": ((NUM_COLOURS,), np.int8),
    "colony_stack": ((NUM_TIERS, data.COLONIES_IN_TIER), np.int8), "colony_count": ((NUM_TIERS,), np.int8),
    "removed": ((NUM_CARDS,), np.bool_),
}
assert tuple(_FIELD_SPECS) == State._fields == kernels.STATE_FIELDS


def _ranges(P: int) -> dict[str, tuple[int, int]]:
    """Inclusive value range of every integer field (checked before the structural kernel)."""
    big = np.iinfo(np.int16).max
    return {
        "to_play": (0, P - 1), "epoch": (0, 2), "decision": (0, NUM_DECISIONS - 1), "round": (0, 5), "turn": (0, P),
        "pick": (0, 5 * P), "start_player": (0, P - 1), "rotation": (-1, 4), "board_order": (0, 4),
        "start_card": (0, 4), "start_side": (-1, 1), "coins": (0, big), "tracks": (0, big),
        "colour_count": (0, MAX_TABLEAU), "ability_count": (0, 2), "free_tiles": (0, 2),
        "tableau": (-1, NUM_CARDS - 1), "n_slots": (0, MAX_TABLEAU), "slot_tile": (-1, 3), "tile_due": (-1, MAX_TABLEAU - 1),
        "bust": (-1, 7), "colony": (0, 2), "colony_id": (-1, NUM_COLONIES - 1), "silver": (-1, 3), "gold": (0, 2),
        "sold_a": (-1, NUM_CARDS - 1), "pending": (-1, 3), "drawn": (-1, NUM_CARDS - 1), "sect_count": (0, 2),
        "sect_bought": (0, data.BUY_REQUIREMENT_MAX_COINS), "feed_paid": (0, data.FEED_COINS_MAX_CARDS),
        "inner": (-1, NUM_CARDS - 1), "inner_count": (0, 2 * P), "outer": (-1, NUM_CARDS - 1), "outer_count": (0, P),
        "colony_stack": (-1, NUM_COLONIES - 1), "colony_count": (0, P),
    }


VALIDATE_ERRORS = {
    1: "done must be set exactly in section GAME_OVER",
    2: "card slots inconsistent (entries beyond a count, wrong colour/epoch in a pile, tile on a non-TILE_STEPS slot)",
    3: "a card is in two places, in a future epoch, or not in this game's card set",
    4: "cards not conserved: a dealt epoch/colour does not account for exactly 2N cards",
    5: "colonies inconsistent (N per tier between stack and players, tiers, distinct ids)",
    6: "commitments, pairs, sides, tile follow-ups, seals, coins or start cards inconsistent",
    7: "derived tracks / counts / free tiles differ from their recomputation (spec 7)",
    8: "flow counters inconsistent (piles vs picks, commitments vs turn, wheel, to_play)",
}


class Hadara(core.GameBase):
    """The rules core for one configuration; see `meeple.envs.core.Game` for the protocol."""

    render_module = "meeple.envs.hadara.render"

    State = State
    View = View

    def __init__(self, num_players: int = 2, **variant: object) -> None:
        self.config = Config(num_players=num_players, **variant)  # type: ignore[arg-type]
        self.num_players = int(self.config.num_players)
        self.info = data.info(self.num_players, bool(self.config.advanced))
        self.num_actions = NUM_ACTIONS
        self.uniforms_per_step = UNIFORMS_PER_STEP
        self.action_names = data.action_names(NUM_ACTIONS)
        if self.config.advanced:
            self.deck_cards, self.deck_count = data.EPOCH_COLOUR_CARDS, data.EPOCH_COLOUR_COUNT
        else:  # spec 3 step 6: the basic game removes the starred purple cards
            self.deck_cards, self.deck_count = data.BASIC_EPOCH_COLOUR_CARDS, data.BASIC_EPOCH_COLOUR_COUNT
        self._auto = bool(self.config.auto_forced)
        self._pile_top = self.config.pile_view == "top"
        self._filtered_shapes = [(tuple(self.num_players if d == "P" else d for d in dims), dt)
                                 for dims, dt in _FILTERED.values()]
        self._scratch = np.zeros(SCRATCH, dtype=np.int16)

    def __repr__(self) -> str:
        return f"Hadara({self.config})"

    # --- lifecycle ---------------------------------------------------------------------------

    def empty(self, batch: int) -> State:
        """An all-zero state of the right shapes (not a valid position by itself)."""
        P = self.num_players
        return State(*(np.zeros((batch, *(P if d == "P" else d for d in dims)), dtype=dt)
                       for dims, dt in _FIELD_SPECS.values()))

    def init(self, rng: np.random.Generator, batch: int = 1) -> State:
        """New games: start cards, board order, colonies and the epoch I deal from `rng`."""
        return self.init_from_uniforms(rng.random((batch, UNIFORMS_AT_INIT)))

    def init_from_uniforms(self, u: np.ndarray) -> State:
        """Deterministic `init` from u (B, data.UNIFORMS_AT_INIT); columns as in data.U_INIT_*.

        A narrower u (at least 1 column, e.g. the (B, 64) of a step) is extended per row with a
        splitmix64 stream seeded from the row's last uniform, so the result stays a function of u.
        """
        u = self._check_uniforms(u, None, 1)
        if u.shape[1] < UNIFORMS_AT_INIT:
            u = core.extend_uniforms(u, UNIFORMS_AT_INIT)
        state = self.empty(u.shape[0])
        kernels.init_nb(u, bool(self.config.advanced), bool(self.config.random_board_order), self._auto,
                        self.deck_cards, self.deck_count, self._scratch, *state)
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
        """Deterministic step; u (B, 64) is read only by a row whose new epoch is dealt (data.U_STEP_DEAL)."""
        new = core.clone(state)
        self.apply_inplace(new, actions, u)
        return new

    def apply_inplace(self, state: State, actions: np.ndarray, u: np.ndarray) -> None:
        """`apply` without the copy, for owners of the state (the AEC env, the self-play env)."""
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        u = self._check_uniforms(u, state.done.shape[0], UNIFORMS_PER_STEP)
        if actions.shape[0] != state.done.shape[0]:
            raise ValueError(f"expected {state.done.shape[0]} actions, got {actions.shape[0]}")
        kernels.apply_nb(actions, u, self._auto, self.deck_cards, self.deck_count, self._scratch, *state)

    def advance(self, state: State, u: np.ndarray | None = None) -> State:
        """Recompute the derived fields (tracks, counts, free tiles), then run the automatic sections
        from a hand-built position (tests, tools); pure."""
        new = core.clone(state)
        if u is None:
            u = np.full((state.done.shape[0], UNIFORMS_PER_STEP), 0.5)
        u = self._check_uniforms(u, state.done.shape[0], UNIFORMS_PER_STEP)
        kernels.advance_nb(u, self._auto, self.deck_cards, self.deck_count, self._scratch, *new)
        return new

    @staticmethod
    def _check_uniforms(u: np.ndarray, batch: int | None, width: int) -> np.ndarray:
        u = np.ascontiguousarray(u, dtype=np.float64)
        if u.ndim != 2 or u.shape[1] < width or (batch is not None and u.shape[0] != batch):
            raise ValueError(f"u must have shape (B, >={width}) with B = {batch}, got {u.shape}")
        return u

    # --- results -----------------------------------------------------------------------------

    def scores(self, state: State) -> np.ndarray:
        """(B, P) int32 VP of every player (spec 9): final once done, the public VP so far before."""
        out = np.empty(state.coins.shape, dtype=np.int32)
        kernels.scores_nb(out, *state)
        return out

    def returns(self, state: State) -> np.ndarray:
        """(B, P) float32 rewards at the end, 0 before.

        reward="rank" (default): `core.rank_returns(VP, coins)` in [-1, 1]: (opponents beaten -
        opponents beating) / (P - 1), ties (equal VP and coins) share. This deviates on purpose from
        spec 14's +1 per winner / -1 to the rest: it is the suite's convention, and keeps rows zero-sum.
        reward="score_diff": (own VP - best opponent VP) / 100.
        """
        vp = self.scores(state)
        if self.config.reward == "rank":
            out = core.rank_returns(vp, state.coins.astype(np.int32))
        else:
            P = self.num_players
            others = np.stack([np.delete(vp, p, axis=1).max(axis=1) for p in range(P)], axis=1)
            out = ((vp - others) / 100.0).astype(np.float32)
        out[~state.done] = 0.0
        return out

    # --- information -------------------------------------------------------------------------

    def observe(self, state: State, player: int | np.ndarray) -> View:
        """Only what `player` may see (spec 11.1): public fields, own pair/commitment/sales, allied backs.

        Public fields are shared with the state, not copied (as RTTA's View shares its state): a View
        describes the state it came from until that state is mutated in place (`apply` never does).
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
        kernels.observe_nb(viewer, self._pile_top, *filtered, *state)
        parts = ((viewer,), state, filtered)
        return tuple.__new__(View, [parts[src][i] for src, i in _VIEW_SOURCES])

    def determinize(self, state: State, player: int | np.ndarray, rng: np.random.Generator) -> State:
        """A state consistent with everything `player` has seen, the rest resampled from `rng`.

        Per dealt epoch and colour, the cards `player` has not seen (not in a tableau, outer pile or
        the public discard, not in its own pair or own face-down sales) are shuffled into the unseen
        slots: the inner stack, other players' current pairs of that colour, other players' face-down
        sales of that colour; the rest is in the box (not stored). Other players' pending commitments
        are redrawn uniformly among the options legal for their new pair (side choice: uniform A/B).
        Per colony tier, every back nobody has seen (stack and plundered colonies, one's own included)
        is reshuffled.
        """
        B = state.done.shape[0]
        new = core.clone(state)
        viewer = np.ascontiguousarray(np.broadcast_to(np.asarray(player, dtype=np.int8), (B,)))
        seeds = rng.integers(1, np.iinfo(np.int64).max, size=B, dtype=np.int64)
        kernels.determinize_nb(viewer, seeds, bool(self.config.advanced), self.deck_cards, self.deck_count,
                               np.zeros(NUM_CARDS, dtype=np.bool_), np.zeros(SCRATCH, dtype=np.int16),
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
            raise ValueError("invalid state: truncated is never set in Hadara")
        err = np.zeros(B, dtype=np.int32)
        kernels.validate_nb(bool(self.config.advanced), self.deck_cards, self.deck_count,
                            np.zeros(NUM_CARDS, dtype=np.int8), np.zeros((P, NUM_TRACKS), dtype=np.int64),
                            np.zeros((P, NUM_COLOURS), dtype=np.int64), np.zeros((P, NUM_ABILITIES), dtype=np.int64),
                            np.zeros((P, NUM_TRACKS), dtype=np.int64), err, *state)
        if err.any():
            rows = np.flatnonzero(err)
            raise ValueError(f"invalid state: {VALIDATE_ERRORS[int(err[rows[0]])]} (rows {rows[:5].tolist()})")
