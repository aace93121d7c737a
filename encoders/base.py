"""Encoder base: a flat float32 vector made of named, reshaped blocks.

An encoder turns a rules `View` (only what one player may see) into a network input. Its layout
is a list of `(name, shape)` blocks laid end to end; `split(vec)` returns them by name, so a layout
can be debugged by name, and `layout_table()` produces the docs table from the same list.

The block table is also the only source of offsets in the numba kernels: `AT = block_offsets(BLOCKS)`
is a namedtuple of each block's first index, which numba freezes into constants, so a kernel writes
`row[AT.coins + slot]` and a block can only be misplaced by naming the wrong block. `unwritten_blocks`
checks statically that a kernel names every block of its table. A kernel takes the View's fields
positionally (`*fields`: numba unboxes them faster than one NamedTuple) and rebuilds `v = View(*fields)`
inside, so it reads every field by name and the rules' `(s, b, ...)` helpers work on `v` unchanged.
Before the fields it takes `out` and a `scratch` row: each row is begun with `begin_row` (or `target_row`)
and ended with `end_row`, which write in place or, for output larger than the caches, build the row in
`scratch` and stream it out (see "writing rows" below).
"""

from __future__ import annotations

import inspect
import re
from abc import ABC, abstractmethod
from collections import namedtuple
from typing import Any

import gymnasium
import numpy as np

from meeple.envs import threads
from meeple.envs.jit import compiled_entry, kernel, store_fence, stream_row

Blocks = list[tuple[str, tuple[int, ...], str]]


def block_offsets(blocks: Blocks, typename: str = "Offsets") -> Any:
    """A namedtuple of ints: the first index of every block, by block name, for `row[AT.<name> + i]` in kernels.

    numba treats a global namedtuple of ints as a compile-time constant, so the named offsets cost
    nothing over hand-written integers.
    """
    names, starts = [], []
    offset = 0
    for name, shape, _ in blocks:
        names.append(name)
        starts.append(offset)
        offset += int(np.prod(shape))
    return namedtuple(typename, names)(*starts)


def unwritten_blocks(offsets: Any, alias: str, *functions: Any) -> list[str]:
    """The blocks of `offsets` that the source of none of `functions` (kernels or their helpers) names as
    `<alias>.<block>` (alias: the module global holding `offsets`). A cheap static check that every
    block has a writer."""
    source = "\n".join(inspect.getsource(getattr(f, "py_func", f)) for f in functions)
    named = set(re.findall(rf"\b{re.escape(alias)}\.([A-Za-z_][A-Za-z0-9_]*)", source))
    return [name for name in offsets._fields if name not in named]


# --- writing rows: in place, or built in a cached scratch row and streamed out ------------------------------
#
# An encoder kernel takes `scratch` after `out`: a zero-length array to write each row of `out` in place, or
# one row's worth of float32 to build every row there (in the cache) and stream it into `out` with
# non-temporal stores (`jit.stream_row`), which skip reading `out`'s memory before writing it. `Encoder.run`
# streams when `out` is larger than the caches (STREAM_BYTES); the fused AEC step writes its one row in place,
# where the caller reads it next. Either way the rows are the same, bit for bit (tests/test_encoders.py).

STREAM_BYTES = 8 << 20  # streamed above this much output: ~the last-level cache of the 2-core machine (8 MiB)
_IN_PLACE = np.zeros(0, dtype=np.float32)  # the `scratch` that means "write in place"


def describe_array(x: Any) -> str:
    """What an array argument is, for an error message: dtype, shape and the flags a kernel relies on."""
    if not isinstance(x, np.ndarray):
        return f"a {type(x).__name__}"
    missing = [flag for flag, ok in (("C-contiguous", x.flags.c_contiguous), ("aligned", x.flags.aligned),
                                     ("writeable", x.flags.writeable)) if not ok]
    return f"{x.dtype} {x.shape}" + (f", not {' / '.join(missing)}" if missing else "")


@kernel(inline="always")
def target_row(out, b, scratch):
    """The row to encode row b of `out` into: `scratch` when streaming, else out[b] itself (for a kernel
    that writes every element of it; `begin_row` zeroes it first)."""
    return scratch if scratch.shape[0] > 0 else out[b]


@kernel(inline="always")
def begin_row(out, b, scratch):
    """`target_row`, zeroed."""
    row = target_row(out, b, scratch)
    row[:] = 0.0
    return row


@kernel(inline="always")
def end_row(out, b, scratch):
    """Row b is complete: stream the scratch row into out[b] (nothing to do in place)."""
    if scratch.shape[0] > 0:
        stream_row(out[b], scratch)


@kernel(inline="always")
def end_rows(scratch):
    """Every row is written: make streamed rows visible to the thread that reads them (`jit.store_fence`)."""
    if scratch.shape[0] > 0:
        store_fence()


@kernel(inline="always")
def seat_of(me, slot, P):
    """The seat `slot` places clockwise of `me` ((me + slot) % P for 0 <= me + slot < 2P), without the
    integer division. Per-seat blocks are seat-major: slot 0 is the viewer, slots P.. are padding."""
    q = me + slot
    return q - P if q >= P else q


class Encoder(ABC):
    """Base class: subclasses set `name`, `blocks` and implement `encode(view) -> (B, size)`."""

    name: str = "encoder"
    blocks: Blocks = []  # (name, shape, description)
    seat_blocks: tuple[str, ...] = ()  # blocks indexed by relative seat first (slot 0 = viewer)
    dtype = np.float32
    low: float = -1.0
    high: float = 1.0

    def __init__(self, game: Any = None) -> None:
        self.game = game  # the configured game whose views this encodes (`encode` checks them against it)
        self.slices: dict[str, slice] = {}
        offset = 0
        for name, shape, _ in self.blocks:
            size = int(np.prod(shape))
            self.slices[name] = slice(offset, offset + size)
            offset += size
        self.size = offset
        self.shape = (offset,)

    def space(self) -> gymnasium.spaces.Box:
        """The single-row observation space."""
        return gymnasium.spaces.Box(low=self.low, high=self.high, shape=self.shape, dtype=self.dtype)

    def output(self, view: Any, out: np.ndarray | None) -> np.ndarray:
        """`out`, checked, or a new (B, size) float32 array for `view`, checked too (`Game.check_view`):
        the kernels read the view and write at the block offsets without bounds checks, so neither a view
        of another configuration nor an output of the wrong shape must reach them."""
        if self.game is None:
            raise ValueError(f"this {type(self).__name__} was made without its game: make it with "
                             "make_encoder(name, game) to encode")
        batch = self.game.check_view(view)
        if out is None:
            return np.empty((batch, self.size), dtype=self.dtype)
        if (not isinstance(out, np.ndarray) or out.shape != (batch, self.size) or out.dtype != self.dtype
                or not out.flags.c_contiguous or not out.flags.aligned or not out.flags.writeable):
            raise ValueError(f"out must be a writeable, aligned, C-contiguous {np.dtype(self.dtype)} array of shape "
                             f"{(batch, self.size)}, got {describe_array(out)}")
        return out

    def run(self, kernel: Any, config: tuple, out: np.ndarray, view: Any) -> None:
        """kernel(*config, out, scratch, *view) over the batch, large batches split into row chunks run on
        every core when that pays (`meeple.envs.threads`). Output larger than STREAM_BYTES is built row by
        row in a scratch row per chunk, made here for this call (so concurrent calls share nothing), and
        streamed out; smaller output is written in place."""
        B = out.shape[0]
        stream = out.nbytes > STREAM_BYTES
        if B < threads.serial_below:
            kernel(*config, out, np.empty(out.shape[1], np.float32) if stream else _IN_PLACE, *view)
            return
        scratch = np.empty((threads.get_num_threads(), out.shape[1]), np.float32) if stream else None
        costs = self.__dict__.setdefault("_row_costs", {})
        cost = costs.get(kernel) or costs.setdefault(kernel, threads.RowCost())
        cost.run(B, lambda: kernel(*config, out, _IN_PLACE if scratch is None else scratch[0], *view),
                 lambda t, lo, hi: kernel(*config, out[lo:hi], _IN_PLACE if scratch is None else scratch[t],
                                          *[f[lo:hi] for f in view]))

    def step_observe(self) -> tuple[Any, tuple] | None:
        """(kernel, encoder arguments) of this encoder's fused AEC step (see `StepObserve`), or None: the
        AEC env then makes the separate calls (apply, mask, observe, encode)."""
        return None

    @abstractmethod
    def encode(self, view: Any) -> np.ndarray:
        """(B, size) float32 encoding of a batch of views."""

    def split(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of an encoded (..., size) array, each reshaped to (..., *shape)."""
        lead = vec.shape[:-1]
        return {name: vec[..., self.slices[name]].reshape(*lead, *shape) for name, shape, _ in self.blocks}

    def layout_table(self) -> str:
        """A Markdown table of the blocks: name, shape, offset range and meaning."""
        rows = ["| Block | Shape | Indices | Meaning |", "|---|---|---|---|"]
        for name, shape, text in self.blocks:
            sl = self.slices[name]
            rows.append(f"| `{name}` | {shape} | {sl.start}..{sl.stop - 1} | {text} |")
        return "\n".join(rows)


class StepObserve:
    """One compiled call per AEC step at batch size one, into buffers allocated once.

    The AEC env's step used to make four kernel calls (apply, legal-action mask, observe, encode), each
    with its argument unboxing, its output allocation and its Python around it: at B = 1 that overhead
    is most of a step. The encoder's fused kernel (`Encoder.step_observe`) runs the same four functions
    in one call and writes the new mask, the seat to play and that seat's observation into the arrays
    here; `tests/test_step_observe.py` checks it against the separate calls.

    Args of the kernel, in order: actions (1,), u (1, K), mask (1, A), viewer (1,), the game's observe
    outputs (its VIEW_FIELDS, batch 1), obs (1, size), the encoder's arguments, the KERNEL_ARGS it names,
    and the state's fields.
    """

    def __init__(self, game: Any, encoder: Encoder) -> None:
        kernel, encoder_args = encoder.step_observe()
        self.game = game
        self.kernel = kernel
        self.actions = np.zeros(1, dtype=np.int64)
        self.u = np.zeros((1, game.uniforms_per_step), dtype=np.float64)
        self.mask = np.zeros((1, game.num_actions), dtype=np.bool_)
        self.viewer = np.zeros(1, dtype=np.int8)
        self.view_outputs = tuple(np.zeros((1, *shape), dtype=dtype) for shape, dtype in game.view_output_shapes())
        self.obs = np.zeros((1, encoder.size), dtype=encoder.dtype)
        self._head = (self.actions, self.u, self.mask, self.viewer, *self.view_outputs, self.obs, *encoder_args)
        self._kernel_args = game.args_of(kernel)
        self._lead = (*self._head, *self._kernel_args)  # every argument before the state's fields, unpacked once
        # The kernel's compiled entry point for this object's buffers and a State whose fields are all
        # C-contiguous, aligned and writeable (`jit.compiled_entry`): while the same State object comes
        # back, the call skips the dispatcher's typing of ~60 arrays.
        self._entry: Any = None
        self._entry_state: Any = None
        self._overloads_seen = -1  # how many compiled versions the kernel had when _entry was last looked up

    def __call__(self, state: Any, action: int, rng: np.random.Generator) -> None:
        """Apply `action` to the one-row `state` in place, drawing its uniforms from `rng` exactly as
        `game.step_inplace` does; then `mask[0]`, `viewer[0]` and `obs[0]` describe the new position.

        Checked before the kernel runs, so a bad input raises ValueError and changes nothing: the state
        (one row of this game's State, every field of the right shape and dtype; on identity for the state
        checked last) and the action (an int that the state's legal-action mask allows). The mask is the
        one this object wrote for this state at its last step, if the core has stepped no state in place
        since (its record of the masks it computed, `Game._issue`); otherwise it is computed, as after a
        reset or for a state put in by hand."""
        game = self.game
        game.check_state(state)  # an owner's state passes on identity; anything else is checked in full
        if state[0].shape[0] != 1:
            raise ValueError("StepObserve steps a state of batch size 1")
        mask, issued = self.mask, game._issued
        entry = issued.get(id(mask))  # `Game._issued_mask`, inline: a dict operation is ~1% of this step
        legal = mask if entry is not None and entry[1] is state and entry[0] is mask else game.legal_action_mask(state)
        if type(action) is not int and (isinstance(action, (bool, np.bool_)) or not isinstance(action, np.integer)) \
                or not 0 <= action < game.num_actions or not legal[0, action]:
            raise ValueError(f"action {action!r} is not legal here; legal: {np.flatnonzero(legal[0]).tolist()[:20]}")
        self.actions[0] = action
        rng.random(out=self.u)  # the same draws as rng.random((1, K))
        issued.clear()  # an in-place step: every mask the core issued is forgotten (see `Game._issue`)
        if state is self._entry_state:
            self._entry(*self._lead, state)  # the star arguments (the State's fields) as one tuple
        else:
            self.kernel(*self._lead, *state)
            self._resolve_entry(state)
        issued[id(mask)] = (mask, state)  # the kernel wrote the new position's mask

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


def encoder_of_kind(kinds: dict[str, Any], kind: Any, game: Any, title: str) -> Any:
    """kinds[kind](game) for a game's `make_encoder(game, kind)`, or ValueError naming the kinds `title`
    (the game's name) offers."""
    try:
        cls = kinds[kind]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {title} encoder kind {kind!r}; choose one of {list(kinds)}") from None
    return cls(game)
