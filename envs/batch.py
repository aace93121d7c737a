"""The owners of games stepped in place: `Batch` (any batch size) and `StepObserve` (one row, one call).

Pure calls (`Game.step`, `Game.apply`) check everything they are given on every call, legality included:
they compute the legal-action mask of the state they are handed, because no mask from outside can be
believed (an array a caller holds may have been edited, or may describe a position edited since). A
loop that steps the same games again and again would pay that mask twice per step, once to choose and
once to check. An owner saves it: it holds the state, the mask the last step computed for it (in the
same compiled call as the step where the game allows) and the generator, and checks each action on
that mask. The mask it hands out is a read-only view, so it cannot be edited into a lie by accident.

What an owner cannot stop is a hand edit of its state's arrays. Every step therefore checks the cheap
facts kernels index with again (the field table's ranges, one compiled pass: `RulesBase.check_values`),
and every kernel checks its indices (`jit.KERNEL_OPTIONS`), so a position edited into nonsense ends in a
ValueError, never outside an array. To change the position, hand the owner a state (`Batch.set_state`,
the AEC env's `reset(options={"state": ...})`): it is checked and its mask computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from meeple.envs.core import clone
from meeple.envs.numba_hooks import compiled_entry


def read_only(array: np.ndarray) -> np.ndarray:
    """A view of `array` that cannot be written through."""
    view = array.view()
    view.flags.writeable = False
    return view


class Batch:
    """The one owner of a batch of games stepped in place: state, legal-action mask and generator.

        batch = game.batch(rng, 4096)                 # 4096 new games (or game.batch(rng, state=saved))
        mask = batch.mask                             # (B, A) bool, read-only
        mask = batch.step(policy(batch.observe(seat))) # one action per row; returns the new mask
        batch.reset_rows(np.flatnonzero(batch.state.done))

    `state` is the batch's own State (its arrays are stepped in place: copy what you keep); a given
    `state` is copied, unless `adopt` hands it over (its caller then steps it only through the batch).
    Finished rows take any action and stay as they are, as in `Game.step`.
    """

    def __init__(self, game: Any, rng: np.random.Generator, size: int = 1, state: Any = None,
                 adopt: bool = False) -> None:
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy Generator, got {type(rng).__name__}")
        self.game = game
        self.rng = rng
        if state is None:
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
                raise ValueError(f"size must be a positive int, got {size!r}")
            state = game.init(rng, int(size))
        else:
            game.check_state(state)
            game.check_values(state, every_field=True)
            state = state if adopt else clone(state)
        self._set(state)

    def _set(self, state: Any) -> None:
        self.state = state
        self._mask = self.game.legal_action_mask(state)
        self._mask_view = read_only(self._mask)

    @property
    def size(self) -> int:
        return int(self.state[0].shape[0])

    @property
    def mask(self) -> np.ndarray:
        """(B, A) bool legal actions of every row's seat to play (read-only; all True in finished rows)."""
        return self._mask_view

    def step(self, actions: Any) -> np.ndarray:
        """One legal action per row (checked on the batch's mask), uniforms from the batch's generator;
        the new mask, computed in the same pass where the game allows. ValueError, and nothing changes, if
        an action is not an integer in range and legal in its row, or the state's values are out of range."""
        self.game._step_owned(self.state, actions, None, self.rng, self._mask, next_mask=self._mask)
        return self._mask_view

    def apply(self, actions: Any, u: np.ndarray) -> np.ndarray:
        """`step` with the chance outcomes read from u (B, K) in [0, 1) (see `Game.apply`)."""
        self.game._step_owned(self.state, actions, u, None, self._mask, next_mask=self._mask)
        return self._mask_view

    def observe(self, player: int | np.ndarray) -> Any:
        """What `player` (one seat, or one per row) may see (`Game.observe`)."""
        return self.game.observe(self.state, player)

    def reset_rows(self, rows: Any) -> np.ndarray:
        """New games, drawn from the batch's generator, in `rows` (indices or a (B,) bool mask); the new mask."""
        rows = np.asarray(rows)
        if rows.dtype == np.bool_:
            if rows.shape != (self.size,):
                raise ValueError(f"rows: a row mask must have shape ({self.size},), got {rows.shape}")
            rows = np.flatnonzero(rows)
        if rows.dtype.kind not in "iu" or rows.ndim != 1 or (rows.size and not (0 <= rows.min() and rows.max() < self.size)):
            raise ValueError(f"rows must be indices 0..{self.size - 1} or a ({self.size},) bool mask")
        if rows.size:
            fresh = self.game.init(self.rng, rows.size)
            for dst, src in zip(self.state, fresh):
                dst[rows] = src
            self._mask[rows] = self.game.legal_action_mask(fresh)
        return self._mask_view

    def set_state(self, state: Any) -> np.ndarray:
        """Take a copy of `state` (checked: this game's State, every value in its field's range) as the batch's
        position, of any batch size; the new mask."""
        self.game.check_state(state)
        self.game.check_values(state, every_field=True)
        self._set(clone(state))
        return self._mask_view

    def scores(self) -> np.ndarray:
        return self.game.scores(self.state)

    def returns(self) -> np.ndarray:
        return self.game.returns(self.state)


class StepObserve:
    """One compiled call per AEC step at batch size one, into buffers allocated once; the owner of the
    one-row state it steps (see the module docstring).

    An AEC step is four kernels (apply, legal-action mask, observe, encode); at B = 1 their argument
    unboxing, output allocation and the Python around them would be most of a step. The encoder's fused
    kernel (`Encoder.step_observe`, generated: envs/codegen.py) runs the same four in one call and writes
    the new mask, the seat to play and that seat's observation into the arrays here;
    `tests/test_step_observe.py` checks it against the separate calls.

    Args of the kernel, in order: actions (1,), u (1, K), mask (1, A), viewer (1,), the game's observe
    outputs (its VIEW_FIELDS, batch 1), obs (1, size), the encoder's arguments, the kernel arguments it
    names (`RulesBase.args_of`), and the state's fields.
    """

    def __init__(self, game: Any, encoder: Any) -> None:
        kernel, encoder_args = encoder.step_observe()
        self.game = game
        self.kernel = kernel
        self.actions = np.zeros(1, dtype=np.int64)
        self.u = np.zeros((1, game.uniforms_per_step), dtype=np.float64)
        self._mask = np.zeros((1, game.num_actions), dtype=np.bool_)
        self.mask = read_only(self._mask)  # the new position's legal actions after a call
        self.viewer = np.zeros(1, dtype=np.int8)
        self.view_outputs = tuple(np.zeros((1, *shape), dtype=dtype) for shape, dtype in game.view_output_shapes())
        self.obs = np.zeros((1, encoder.size), dtype=encoder.dtype)
        self._head = (self.actions, self.u, self._mask, self.viewer, *self.view_outputs, self.obs, *encoder_args)
        self._kernel_args = game.args_of(kernel)
        self._lead = (*self._head, *self._kernel_args)  # every argument before the state's fields, unpacked once
        # The kernel's compiled entry point for this object's buffers and a State whose fields are all
        # C-contiguous, aligned and writeable (`numba_hooks.compiled_entry`): while the same State object comes
        # back, the call skips the dispatcher's typing of ~60 arrays.
        self._entry: Any = None
        self._entry_state: Any = None
        self._overloads_seen = -1  # how many compiled versions the kernel had when _entry was last looked up
        self._owned: Any = None  # the state whose legal actions `_mask` holds (written by the last call)

    def forget(self) -> None:
        """The owner changed its state by other means (a reset, a new game dealt into it): the next call
        computes the mask afresh."""
        self._owned = None

    def copy_from(self, other: StepObserve, state: Any) -> None:
        """Hold what `other` holds (the same position, as `state`, a copy of other's)."""
        for mine, theirs in zip((self._mask, self.viewer, self.obs), (other._mask, other.viewer, other.obs)):
            mine[...] = theirs
        self._owned = state if other._owned is not None else None

    def __call__(self, state: Any, action: int, rng: np.random.Generator) -> None:
        """Apply `action` to the one-row `state` in place, drawing its uniforms from `rng` exactly as
        `game.step_inplace` does; then `mask[0]`, `viewer[0]` and `obs[0]` describe the new position.

        Checked before the kernel runs, so a bad input raises ValueError and changes nothing: the state
        (one row of this game's State, every field of the right shape and dtype, every value in its
        field's range) and the action (an int that the state's legal-action mask allows: the one the last
        call wrote for this state, else computed, as after a reset or for a state put in by hand)."""
        game = self.game
        game._check_structure(state)  # on identity for the state it checked last
        if state[0].shape[0] != 1:
            raise ValueError("StepObserve steps a state of batch size 1")
        game.check_values(state)  # hand edits of the arrays since the last call end here
        if state is not self._owned:
            game._mask_into(state, self._mask)
        legal = self._mask
        if type(action) is not int and (isinstance(action, (bool, np.bool_)) or not isinstance(action, np.integer)) \
                or not 0 <= action < game.num_actions or not legal[0, action]:
            raise ValueError(f"action {action!r} is not legal here; legal: {np.flatnonzero(legal[0]).tolist()[:20]}")
        self.actions[0] = action
        rng.random(out=self.u)  # the same draws as rng.random((1, K))
        self._owned = None
        try:
            if state is self._entry_state:
                self._entry(*self._lead, state)  # the star arguments (the State's fields) as one tuple
            else:
                self.kernel(*self._lead, *state)
                self._resolve_entry(state)
        except IndexError as error:
            raise ValueError(f"invalid state: the step read outside an array ({error}); validate() names the "
                             f"broken rule") from None
        self._owned = state

    def _resolve_entry(self, state: Any) -> None:
        """Use the compiled entry point for `state` from its next step on. `check_state` fixed every field's
        dtype and shape; numba's type of an array adds only its layout and flags, so one entry point serves
        every State whose fields are all C-contiguous, aligned and writeable (`flags.carray`, as the core
        makes them): a few microseconds per new State, where looking the entry point up costs ~0.7 ms. It
        is looked up once, and again only once the kernel has a new compiled version (a kernel running as
        Python while its compile finishes has none)."""
        self._entry_state = None
        for field in state:
            if not field.flags.carray:
                return  # another layout: the dispatcher types it on every call
        if self._entry is None:
            seen = len(getattr(self.kernel, "overloads", ()))
            if seen == self._overloads_seen:
                return
            self._overloads_seen = seen
            self._entry = compiled_entry(self.kernel, (*self._lead, *state))
        if self._entry is not None:
            self._entry_state = state


def step_own(game: Any, state: Any, actions: Any, mask: np.ndarray, *, u: np.ndarray | None = None,
             rng: np.random.Generator | None = None, copy: bool = True) -> Any:
    """`state` after `actions` (uniforms `u`, or drawn from `rng` as `Game.step` draws them), legality
    checked on `mask`: the legal-action mask the caller computed for `state` itself and kept to itself
    (a search, the arena, a recorder: owners of the states they step). `copy`: step a copy and leave
    `state` as it is; else `state` is stepped in place and returned. A game of another package, without
    the owner's path, checks legality its own way (`apply`, `step`)."""
    step_owned = getattr(game, "_step_owned", None)
    if step_owned is None:
        return game.apply(state, actions, u) if u is not None else game.step(state, actions, rng)
    if copy:
        state = clone(state)
    step_owned(state, actions, u, rng, mask)
    return state
