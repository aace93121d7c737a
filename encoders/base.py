"""Encoder base: a flat float32 vector made of named, reshaped blocks.

An encoder turns a rules `View` (only what one player may see) into a network input. Its layout
is a list of `(name, shape)` blocks laid end to end; `split(vec)` returns them by name, so a layout
can be debugged by name, and `layout_table()` produces the docs table from the same list.

The block table is also the only source of offsets in the numba kernels: `AT = block_offsets(BLOCKS)`
is a namedtuple of each block's first index, which numba freezes into constants, so a kernel writes
`row[AT.coins + slot]` and a block can only be misplaced by naming the wrong block. `unwritten_blocks`
checks statically that a kernel names every block of its table. An encoder writes one row:
`<row>(v, b, row, ...)` fills the zeroed float32 `row` from row b of the View `v` (every field by name, so
the rules' `(s, b, ...)` helpers work on `v` unchanged), its further parameters the encoder's own
arguments (`row_args`). The batch loop around it, the rebuilding of the View from its fields, the streaming
of large outputs (below) and the fused AEC step are generated once (`envs/codegen.py`).
"""

from __future__ import annotations

import inspect
import re
import sys
from collections import namedtuple
from typing import Any

import gymnasium
import numpy as np

from meeple.envs import threads
from meeple.envs.jit import kernel, store_fence, stream_row

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


@kernel(inline="always")
def seat_flags(v, b, row, me, P, seats, present, is_start_player, is_to_play):
    """The blocks most per-seat layouts open with, by slot (`seat_of`; slot 0 the viewer me), into a zeroed
    row at the given offsets: `present` 1 for the P seats and 0 for the padding slots up to `seats`;
    `is_start_player` 1 for the start player; `is_to_play` 1 for the seat to play while the row is live."""
    for slot in range(seats):
        row[present + slot] = 1.0 if slot < P else 0.0
    for slot in range(P):
        q = seat_of(me, slot, P)
        row[is_start_player + slot] = 1.0 if q == v.start_player[b] else 0.0
        row[is_to_play + slot] = 1.0 if q == v.to_play[b] and not v.done[b] else 0.0


class Encoder:
    """Base class: subclasses set `name`, `blocks` and `row` (the name of their module's row kernel), and
    `row_args` if the row kernel takes arguments; `encode` and the fused AEC step run the generated entry
    points of the row kernel (`encode_<kind>_nb`, `step_observe_<kind>_nb` of the game's entries)."""

    name: str = "encoder"
    kind: str = "default"  # the key of the game's ENCODERS that names this class (the one encoder: "default")
    row: str = ""
    offsets: str = "AT"  # the module global of this kind's block offsets, as its row kernel names them
    # (function, offsets global) of helpers several kinds share, which write some of the blocks by name
    helpers: tuple[tuple[str, str], ...] = ()
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
        self._encode_kernel: Any = None
        self._step_kernel: Any = None
        self._args: tuple = ()
        if game is not None and self.row:
            function = getattr(sys.modules[type(self).__module__], self.row)
            names = list(inspect.signature(getattr(function, "py_func", function)).parameters)[3:]
            values = self.row_args(game)
            self._args = tuple(values[n] for n in names)
            self._encode_kernel = getattr(game.entries, f"encode_{self.kind}_nb")
            self._step_kernel = getattr(game.entries, f"step_observe_{self.kind}_nb")

    def row_args(self, game: Any) -> dict[str, Any]:
        """The values of the row kernel's parameters after (v, b, row), by name, for `game`'s configuration."""
        return {}

    @classmethod
    def unwritten(cls) -> list[str]:
        """The blocks of this kind that neither its row kernel (as `<offsets>.<block>`) nor a helper (as
        `<its offsets>.<block>`) names: empty when every block has a writer (`unwritten_blocks`)."""
        module = sys.modules[cls.__module__]
        missing = unwritten_blocks(getattr(module, cls.offsets), cls.offsets, getattr(module, cls.row))
        for function, offsets in cls.helpers:
            written = getattr(module, offsets)._fields
            written = set(written) - set(unwritten_blocks(getattr(module, offsets), offsets, getattr(module, function)))
            missing = [name for name in missing if name not in written]
        return missing

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
        streamed out; smaller output is written in place. A read outside an array (the kernels check every
        index: docs/memory_safety.md) is a ValueError."""
        try:
            self._run(kernel, config, out, view)
        except IndexError as error:
            raise ValueError(f"invalid view: the encoder read outside an array ({error})") from None

    def _run(self, kernel: Any, config: tuple, out: np.ndarray, view: Any) -> None:
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
        return (self._step_kernel, self._args) if self._step_kernel is not None else None

    def encode(self, view: Any, out: np.ndarray | None = None) -> np.ndarray:
        """(B, size) float32 encoding of a batch of views; writes into `out` if given."""
        out = self.output(view, out)
        self.run(self._encode_kernel, self._args, out, view)
        return out

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


def encoder_of_kind(kinds: dict[str, Any], kind: Any, game: Any, title: str) -> Any:
    """kinds[kind](game) for a game's `make_encoder(game, kind)`, or ValueError naming the kinds `title`
    (the game's name) offers."""
    try:
        cls = kinds[kind]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {title} encoder kind {kind!r}; choose one of {list(kinds)}") from None
    return cls(game)
