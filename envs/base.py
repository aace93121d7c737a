"""The one game mechanism: field tables and the rules base every game extends.

A game declares, in `envs/<game>/state.py`, one **field table**: every `Field` of its state with its
trailing shape (ints and "P" for the player count), dtype, inclusive value range and visibility, plus
the extra fields of its `View` (what one seat may see, written by its observe kernel) and its named
scratch arrays. From that table `state_classes` generates the `State`, `View` and `Scratch` NamedTuple
classes that the kernels, encoders and heuristics share; `RulesBase` derives `empty`, the shape and
range checks of `validate`, the View routing and the scratch memory from it.

Kernel calling convention: a game writes what one row does (`kernels.py`: `init_row`, `apply_row`,
`fill_mask`, ...) and its consistency rules as named invariants (`invariants.py`); the batch entry points
(`init_nb`: init or advance; `step_nb`: apply, mask, or both; `scores_nb`, `observe_nb`, `determinize_nb`,
`validate_nb` and the encoders' `encode_<kind>_nb` / `step_observe_<kind>_nb`) are generated
into `entries.py` from them and the field table (`envs/codegen.py`). Every entry point is

    <entry>_nb(<inputs and outputs>, <the kernel arguments it uses>, *state_fields)

where a kernel argument is one of the game's configuration values (`kernel_config()`, by name) or scratch
arrays (`SCRATCH`, by name): an entry takes those its row functions name, and `RulesBase.args_of(entry)`
passes them by the names in its signature. The kernel rebuilds `s = State(*fields)` inside: numba unboxes
positional arrays faster than one large NamedTuple.
"""

from __future__ import annotations

import inspect
import operator
from importlib import import_module
from abc import ABC, abstractmethod
import dataclasses
import functools
import typing
from collections import namedtuple
from typing import Annotated, Any, Literal, NamedTuple

import numpy as np

from meeple.envs.core import clone, extend_uniforms, rank_returns, state_from_dict, state_to_dict, take
from meeple.envs import threads
from meeple.envs.jit import first_field_outside, first_illegal, first_out_of_range
from meeple.envs.numba_hooks import compiled_entry

PUBLIC, PRIVATE, HIDDEN = "public", "private", "hidden"
VISIBILITIES = (PUBLIC, PRIVATE, HIDDEN)
# numpy's dtype objects of built-in types are singletons: `a.dtype is _INT64` is the cheap form of
# `a.dtype == np.int64` on the per-step paths (a False only sends the input to the full check)
_INT64, _BOOL = np.dtype(np.int64), np.dtype(np.bool_)

I8, I16, I32, I64, BOOL = np.int8, np.int16, np.int32, np.int64, np.bool_


class Field(NamedTuple):
    """One array of a game's state (or view, or scratch), described once.

    shape: trailing dimensions after the batch axis; ints, or "P" for the number of players.
    lo, hi: inclusive value range checked by `validate` (ints, or expressions in P such as "P-1");
        None means the dtype's own range (booleans: unchecked unless given, e.g. 0, 0 for "never set").
    visibility: PUBLIC (everyone; shared into the View), PRIVATE (one seat's secret; the observe kernel
        copies the viewer's part into a View field) or HIDDEN (nobody; never reaches a View).
    """

    name: str
    shape: tuple = ()
    dtype: Any = I8
    lo: int | str | None = None
    hi: int | str | None = None
    visibility: str = PUBLIC
    doc: str = ""


def dims(shape: tuple, num_players: int) -> tuple[int, ...]:
    """Concrete trailing dimensions of a field shape ("P" -> num_players)."""
    return tuple(num_players if d == "P" else int(d) for d in shape)


_SHAPE, _DTYPE = operator.attrgetter("shape"), operator.attrgetter("dtype")


def _arrays_of(fields: tuple, shapes: tuple, dtypes: tuple) -> bool:
    """Every field is a plain numpy array of exactly these shapes and dtypes, in one pass each of C-level
    maps (a Python loop over ~40 fields was most of checking a one-row state). False sends the caller to
    its field-by-field check, which also accepts array subclasses and names the first bad field."""
    return (len(fields) == len(shapes) and set(map(type, fields)) == _NDARRAY
            and tuple(map(_SHAPE, fields)) == shapes and tuple(map(_DTYPE, fields)) == dtypes)


_NDARRAY = {np.ndarray}


def _seats_in_range(seats: np.ndarray, num_players: int) -> bool:
    """Every entry of a 1-D integer array is a seat 0..num_players-1 (one row read directly: two numpy
    reductions cost more than the rest of a one-row observation's checks)."""
    if seats.shape[0] == 1:
        return 0 <= int(seats[0]) < num_players
    return not seats.shape[0] or (seats.min() >= 0 and seats.max() < num_players)


def _bound(value: int | str, num_players: int) -> int:
    """A range bound: an int, or an arithmetic expression of P written in a field table."""
    if isinstance(value, str):
        return int(eval(value, {"__builtins__": {}}, {"P": num_players}))  # table text, never user input
    return int(value)


def _dtype_range(f: Field) -> tuple[int, int] | None:
    """The (lo, hi) of a field's dtype (None for booleans)."""
    if np.dtype(f.dtype) == np.bool_:
        return None
    info = np.iinfo(f.dtype)
    return int(info.min), int(info.max)


def field_range(f: Field, num_players: int) -> tuple[int, int] | None:
    """The inclusive (lo, hi) of an integer field, None for booleans."""
    if np.dtype(f.dtype) == np.bool_:
        return None if f.lo is None and f.hi is None else (_bound(f.lo, num_players), _bound(f.hi, num_players))
    info = np.iinfo(f.dtype)
    lo = info.min if f.lo is None else _bound(f.lo, num_players)
    hi = info.max if f.hi is None else _bound(f.hi, num_players)
    return lo, hi


class GameClasses(NamedTuple):
    State: type
    View: type
    Scratch: type
    view_sources: tuple  # per View field: (0, 0) viewer, (1, i) state field i, (2, j) observe output j


class Invariant(NamedTuple):
    """One consistency rule of a game (its `invariants.INVARIANTS`): `function(s, b, ...)` is a kernel that
    returns True when row b keeps the rule; `message` says what the rule is, for the error."""

    function: Any
    message: str

    @property
    def name(self) -> str:
        return getattr(self.function, "py_func", self.function).__name__


class InvalidState(ValueError):
    """`validate` found a row that breaks an invariant: `invariant` is its name, `rows` the rows."""

    def __init__(self, invariant: str, message: str, rows: np.ndarray) -> None:
        super().__init__(f"invalid state: {invariant}: {message} (rows {rows[:5].tolist()})")
        self.invariant = invariant
        self.rows = rows


def state_classes(fields: tuple[Field, ...], view_fields: tuple[Field, ...] = (),
                  scratch: tuple[Field, ...] = ()) -> GameClasses:
    """The State, View and Scratch classes of a field table.

    The View is the viewer seat, every PUBLIC state field (sharing the state's arrays) and the
    `view_fields` the observe kernel writes; a view field named like a public state field replaces it
    (a filtered copy, e.g. only the tops of piles).
    """
    names = [f.name for f in fields]
    assert len(set(names)) == len(names), "duplicate field names"
    for f in (*fields, *view_fields):
        assert f.visibility in VISIBILITIES, f"{f.name}: visibility {f.visibility!r}"
    State = namedtuple("State", names)
    extra = [f.name for f in view_fields]
    view_names = ["viewer"] + [f.name for f in fields if f.visibility == PUBLIC and f.name not in extra]
    view_names += extra
    View = namedtuple("View", view_names)
    Scratch = namedtuple("Scratch", [f.name for f in scratch])
    sources = tuple((0, 0) if n == "viewer" else (2, extra.index(n)) if n in extra else (1, names.index(n))
                    for n in view_names)
    return GameClasses(State, View, Scratch, sources)


def make_scratch(cls: type, fields: tuple[Field, ...], num_players: int) -> Any:
    """Zeroed scratch arrays (no batch axis) of a game, as its Scratch NamedTuple."""
    return cls(*(np.zeros(dims(f.shape, num_players), dtype=f.dtype) for f in fields))


# --- chance -------------------------------------------------------------------------------------------

CHANCE_LIMIT = 10_000  # `chance_outcomes` lists at most this many outcomes of one step


class TooManyOutcomes(ValueError):
    """A step whose chance has more outcomes than `chance_outcomes` was asked to list (a full shuffle)."""

    def __init__(self, what: str, count: int, limit: int) -> None:
        super().__init__(f"{what} has {count:,} chance outcomes, more than the limit of {limit:,}: sample "
                         f"it with `step` instead (or pass a larger limit)")
        self.count = count


# --- configuration checks ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Range:
    """An inclusive range of an integer variant flag: `num_players: Annotated[int, Range(2, 5)] = 2`."""

    lo: int
    hi: int


class GameConfig:
    """The base of every game's `Config` (a frozen dataclass of JSON-serialisable variant flags): each field
    is checked by its annotation alone, so a game declares a flag once, with its type:

        flag: bool = False                                    a bool
        reward: Literal["rank", "score_diff"] = "rank"       one of the listed strings
        max_rounds: Annotated[int, Range(1, 1000)] = 30       an integer in the range

    `check()` adds the rules that tie several flags together (a game overrides it). A bad value raises a
    ValueError naming the flag."""

    def __post_init__(self) -> None:
        for name, kind, detail in _config_checks(type(self)):
            if kind == "bool":
                check_bool(self, name)
            elif kind == "choice":
                check_choice(self, name, detail)
            else:
                check_int(self, name, *detail)
        self.check()

    def check(self) -> None:
        """Rules between flags; none by default."""


@functools.cache
def _config_checks(cls: type) -> tuple[tuple[str, str, Any], ...]:
    """(name, "bool" | "choice" | "int", choices or (lo, hi)) per field of a Config class, from its annotations;
    TypeError for an annotation this mechanism cannot check (a programming error, not a user's)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    checks = []
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        if hint is bool:
            checks.append((field.name, "bool", None))
        elif typing.get_origin(hint) is Literal:
            checks.append((field.name, "choice", typing.get_args(hint)))
        elif typing.get_origin(hint) is Annotated and typing.get_args(hint)[0] is int \
                and isinstance(typing.get_args(hint)[1], Range):
            bounds = typing.get_args(hint)[1]
            checks.append((field.name, "int", (bounds.lo, bounds.hi)))
        else:
            raise TypeError(f"{cls.__qualname__}.{field.name}: annotate a variant flag as bool, Literal[...] or "
                            f"Annotated[int, Range(lo, hi)], got {hint!r}")
    return tuple(checks)


def check_int(config: Any, name: str, lo: int, hi: int) -> None:
    value = getattr(config, name)
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or not lo <= value <= hi:
        raise ValueError(f"{name} must be {lo}..{hi}, got {value!r}")


def check_bool(config: Any, *names: str) -> None:
    for name in names:
        if not isinstance(getattr(config, name), (bool, np.bool_)):
            raise ValueError(f"{name} must be a bool, got {getattr(config, name)!r}")


def check_choice(config: Any, name: str, choices: tuple[str, ...]) -> None:
    if getattr(config, name) not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {getattr(config, name)!r}")


def others_best(scores: np.ndarray) -> np.ndarray:
    """(B, P): for every seat the best score among the other seats."""
    top = scores.max(axis=1, keepdims=True)
    sole_top = (scores == top) & ((scores == top).sum(axis=1, keepdims=True) == 1)
    second = np.where(scores == top, np.iinfo(np.int64).min, scores).max(axis=1, keepdims=True)
    return np.where(sole_top, second, top)


# --- the rules base -------------------------------------------------------------------------------

CHEAP_FACTS = 8  # values per row up to which a field's range is checked on every call (`check_values`)


class FieldRanges:
    """The range checks of one field table: one compiled pass over every field whose range (lo..hi) is
    narrower than its dtype's (with `max_per_row`, only the fields of at most that many values per row at
    `most_players`: the same fields at every player count, so one compiled version serves them all), and a
    message naming the first field and rows out of range."""

    def __init__(self, fields: tuple[Field, ...], num_players: int, max_per_row: int | None = None,
                 most_players: int | None = None, compiled: bool = True) -> None:
        ranged = [(i, f, field_range(f, num_players)) for i, f in enumerate(fields)]
        size_at = most_players or num_players
        ranged = [(i, f, r) for i, f, r in ranged if r is not None and (r != _dtype_range(f) or f.dtype == np.bool_)
                  and (max_per_row is None or int(np.prod(dims(f.shape, size_at))) <= max_per_row)]
        self.fields = tuple(f for _, f, _ in ranged)
        self.lo = np.array([r[0] for _, _, r in ranged], dtype=np.int64)
        self.hi = np.array([r[1] for _, _, r in ranged], dtype=np.int64)
        index = tuple(i for i, _, _ in ranged)
        self.take = operator.itemgetter(*index) if len(index) > 1 else (
            (lambda values: (values[index[0]],)) if index else None)
        self._entry: Any = None  # the kernel's compiled entry point for the tuple `_entry_of`
        self._entry_of: Any = None
        self._entry_arrays: tuple = ()  # the arrays of `_entry_of` it checks
        self._last: Any = None  # the tuple of the call before
        # a pass over every field runs on loads and `validate`, not per step: numpy's min and max, one
        # compiled version fewer for the background compile to build
        self.compiled = compiled

    def _bind(self, values: tuple, arrays: tuple) -> None:
        """Call the compiled entry point directly for `values`, a tuple checked twice in a row (an owner's
        state): it skips the dispatcher's typing of every array on each later call (`numba_hooks.compiled_entry`).
        One entry point serves every tuple of C-contiguous, aligned, writeable arrays (numba's types differ
        only in layout and flags beyond dtype and shape), so it is looked up once (~0.5 ms)."""
        if not all(type(a) is np.ndarray and a.flags.carray for a in arrays):
            return
        if self._entry is None:
            self._entry = compiled_entry(first_field_outside, (self.lo, self.hi, arrays))
        if self._entry is not None:
            self._entry_of, self._entry_arrays = values, arrays

    def check(self, values: tuple, what: str) -> None:
        """ValueError("<what>: <field> outside lo..hi (rows [...])") for the first field out of range."""
        if self.take is None:
            return
        if not self.compiled:
            arrays = self.take(values)
            k = next((k for k, a in enumerate(arrays) if a.size and (a.min() < self.lo[k] or a.max() > self.hi[k])), -1)
        elif values is self._entry_of:  # (an owner's state: the same arrays as at the last call)
            arrays = self._entry_arrays
            k = self._entry(self.lo, self.hi, arrays)
        else:
            arrays = self.take(values)
            k = first_field_outside(self.lo, self.hi, arrays)
            if values is self._last:
                self._bind(values, arrays)
            self._last = values
        if k >= 0:
            lo, hi, value = int(self.lo[k]), int(self.hi[k]), arrays[k]
            rows = np.flatnonzero(((value < lo) | (value > hi)).reshape(value.shape[0], -1).any(axis=1))
            raise ValueError(f"{what}: {self.fields[k].name} outside {lo}..{hi} (rows {rows[:5].tolist()})")


def _encoder_kinds_of(rules: type) -> tuple[str, ...]:
    """The encoder kinds the registry's game of this rules class (or of its nearest registered base) offers."""
    from meeple.envs import GAMES, encoder_kinds

    for cls in rules.__mro__:
        for name, entry in GAMES.items():
            if entry.rules == f"{cls.__module__}:{cls.__qualname__}":
                return encoder_kinds(name)
    return ()


class FixedActions:
    """A mixin before `RulesBase` (`class Game(base.FixedActions, base.RulesBase)`) for a game whose
    `configure` only takes `info(num_players)`, the fixed `NUM_ACTIONS` and their names from its data
    module, and whose one kernel configuration value is the `auto_forced` flag of its Config."""

    def configure(self) -> None:
        data = import_module(self.kernels.__name__.rsplit(".", 1)[0] + ".data")
        self.info = data.info(self.num_players)
        self.num_actions = data.NUM_ACTIONS
        self.action_names = data.action_names(data.NUM_ACTIONS)

    def kernel_config(self) -> dict:
        return {"auto_forced": bool(self.config.auto_forced)}


class RulesBase(ABC):
    """The lifecycle shared by every game's rules core; see `meeple.envs.core.Game` for the protocol.

    A subclass, defined in `meeple.envs.<game>.rules`, writes `configure()` (info, action names, kernel
    config); the class attributes below it takes from its own package unless it sets them
    (`__init_subclass__`): the field table and classes from `state`, `Config` from its module, `kernels`,
    `render_module` = `<package>.render`, the player range and the uniform widths from `data`. Everything
    else (init, step/apply, advance, mask, scores, returns, observe, determinize, validate, save/load, text
    views) comes from here and the game's kernels module.
    """

    # --- what a game declares ---
    FIELDS: tuple[Field, ...]
    VIEW_FIELDS: tuple[Field, ...] = ()
    SCRATCH: tuple[Field, ...] = ()
    CLASSES: GameClasses  # state_classes(FIELDS, VIEW_FIELDS, SCRATCH), built in the game's state.py
    PLAYERS: tuple[int, int]  # the player counts the rules allow (inclusive), checked by the Config
    Config: type
    kernels: Any  # the game's kernels module (entry points in the module docstring above)
    render_module: str
    UNIFORMS_AT_INIT: int
    UNIFORMS_PER_STEP: int  # columns of u a step may read (a deal); `advance` fills this many with 0.5
    # narrowest u `apply` accepts (None: UNIFORMS_PER_STEP); `step` draws this many. One: a step draws one
    # uniform per row, and columns past a narrower u's width come from the row's extension stream
    # (`jit.uniform_at`, as `core.extend_uniforms`), so a deal can read as many as it needs.
    UNIFORMS_MIN_WIDTH: int | None = 1
    SCORE_DIFF_SCALE: float = 100.0  # reward="score_diff": (own - best other) / this
    # a step that also computes the new mask does both in one pass over each row at every batch size (the
    # game's `apply_mask_row`); otherwise in one pass at batch size one only (the rows of a larger batch:
    # all applied, then all masked, measured faster where the two passes' code differs)
    FUSED_MASK: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Fill in what a game's rules class leaves out from its package's modules (class docstring)."""
        super().__init_subclass__(**kwargs)
        package = cls.__module__.rsplit(".", 1)[0]
        data, state = import_module(f"{package}.data"), import_module(f"{package}.state")
        found = {"FIELDS": state.FIELDS, "VIEW_FIELDS": getattr(state, "VIEW_FIELDS", ()),
                 "SCRATCH": getattr(state, "SCRATCH", ()), "CLASSES": state.CLASSES,
                 "PLAYERS": (getattr(data, "MIN_PLAYERS", None), getattr(data, "MAX_PLAYERS", None)),
                 "Config": getattr(import_module(cls.__module__), "Config", None),
                 "kernels": import_module(f"{package}.kernels"), "render_module": f"{package}.render",
                 "UNIFORMS_AT_INIT": getattr(data, "UNIFORMS_AT_INIT", None),
                 "UNIFORMS_PER_STEP": getattr(data, "UNIFORMS_PER_STEP", None)}
        for name, value in found.items():
            if name not in cls.__dict__:
                setattr(cls, name, value)
        missing = [name for name in found if getattr(cls, name) is None or getattr(cls, name) == (None, None)]
        if missing:
            raise TypeError(f"{cls.__qualname__}: set {missing} (or define them in {package}'s modules)")

    def __init__(self, num_players: int = 2, **variant: object) -> None:
        self.config = self.Config(num_players=num_players, **variant)
        self.num_players = int(self.config.num_players)
        self.State, self.View = self.CLASSES.State, self.CLASSES.View
        self.uniforms_per_step = self.UNIFORMS_MIN_WIDTH or self.UNIFORMS_PER_STEP  # what `step` draws per row
        self.scratch = make_scratch(self.CLASSES.Scratch, self.SCRATCH, self.num_players)
        self.configure()
        self.info = self.info._replace(
            min_players=self.PLAYERS[0], max_players=self.PLAYERS[1],
            hidden_fields=tuple(f.name for f in self.FIELDS if f.visibility != PUBLIC),
            render_modes=tuple(self.render_modes()), encoder_kinds=_encoder_kinds_of(type(self)),
            fused_mask=self.FUSED_MASK)
        config = self.kernel_config()
        self._kernel_arg_names = [*config, *self.CLASSES.Scratch._fields]
        self.kernel_args: tuple = (*config.values(), *self.scratch)
        self.entries = import_module(self.kernels.__name__.rsplit(".", 1)[0] + ".entries")
        self._entry_args: dict[tuple[Any, int], tuple] = {}
        self._serial_args: dict[Any, tuple] = {}  # chunk 0's, keyed by the entry alone
        self._chunk_scratch: list[Any] = [self.scratch]  # chunk 0 uses the game's own scratch
        self._row_costs: dict[str, threads.RowCost] = {}  # per entry: when splitting a batch pays
        self._view_shapes = [(dims(f.shape, self.num_players), f.dtype) for f in self.VIEW_FIELDS]
        # (trailing shape, numpy dtype) of every State field, built once for `check_state`: working out each
        # field's dims and comparing its dtype with a scalar type on every call was most of checking a state
        # the core had not seen (~190 us for a one-row Hadara state; every sub-batch an opponent or a search
        # is handed is such a state)
        self._state_specs = tuple((dims(f.shape, self.num_players), np.dtype(f.dtype)) for f in self.FIELDS)
        self._state_dtypes = tuple(dtype for _, dtype in self._state_specs)
        self._full_shapes: dict[tuple[str, int], tuple] = {}  # (kind, batch) -> every field's full shape
        self._checked_state: Any = None
        self._checked_view: Any = None
        # (trailing shape, dtype) of every View field after the viewer: the public state fields, then the
        # observe outputs (CLASSES.view_sources gives the order)
        self._view_specs = [(dims(self.FIELDS[i].shape, self.num_players), np.dtype(self.FIELDS[i].dtype)) if src == 1
                            else (self._view_shapes[i][0], np.dtype(self._view_shapes[i][1]))
                            for src, i in self.CLASSES.view_sources[1:]]
        self._view_dtypes = tuple(dtype for _, dtype in self._view_specs)
        # the values every public call checks before a kernel reads them (`check_values`): the cheap facts
        # (seats, phases, counters: the fields of a few values per row), and all of them on a load
        self._state_ranges = FieldRanges(self.FIELDS, self.num_players, CHEAP_FACTS, self.PLAYERS[1])
        self._all_ranges = FieldRanges(self.FIELDS, self.num_players, compiled=False)
        view_fields = [self.FIELDS[i] if src == 1 else self.VIEW_FIELDS[i] for src, i in self.CLASSES.view_sources[1:]]
        self._view_ranges = FieldRanges((Field("viewer", (), I8, 0, "P-1"), *view_fields), self.num_players, CHEAP_FACTS,
                                        self.PLAYERS[1])
        self._apply_mask = self.FUSED_MASK
        # `step_nb`'s "no actions" / "no mask" (arrays of no rows, of the types the real ones have)
        self._no_actions = np.empty(0, dtype=np.int64)
        self._no_uniforms = np.empty((0, 1))
        self._no_mask = np.empty((0, self.num_actions), dtype=np.bool_)
        public = [i for src, i in self.CLASSES.view_sources if src == 1]
        self._public_fields = operator.itemgetter(*public) if len(public) > 1 else (lambda state: (state[public[0]],))

    @abstractmethod
    def configure(self) -> None:
        """Set `info`, `num_actions`, `action_names` and any per-configuration tables."""

    def kernel_config(self) -> dict[str, Any]:
        """The configuration values the row functions take as kernel arguments, by name."""
        return {}

    def args_of(self, entry: Any, chunk: int = 0) -> tuple:
        """The kernel arguments (configuration values and scratch arrays) kernel `entry` takes, by the names
        in its signature. An entry takes only what its row functions use, because numba unboxes every
        argument on every call (an unused array costs a fraction of a microsecond at B = 1). `entry` is the
        name of a kernel of the game's entries module, or a kernel itself (an encoder's fused step, a
        game's own kernel). Chunk t > 0 of a call split across threads (`envs.threads`) gets its own
        scratch arrays."""
        if not chunk:  # the hot path: one dict lookup by the entry itself
            args = self._serial_args.get(entry)
            if args is not None:
                return args
        args = self._entry_args.get((entry, chunk))
        if args is None:
            function = getattr(self.entries, entry) if isinstance(entry, str) else entry
            params = inspect.signature(getattr(function, "py_func", function)).parameters  # py_func: a numba dispatcher
            order = [self._kernel_arg_names.index(name) for name in params if name in self._kernel_arg_names]
            values = self._chunk_kernel_args(chunk)
            args = self._entry_args[(entry, chunk)] = tuple(values[i] for i in order)
            if not chunk:
                self._serial_args[entry] = args
        return args

    def view_output_shapes(self) -> list[tuple[tuple[int, ...], Any]]:
        """(trailing shape, dtype) of every array the observe kernel writes (the VIEW_FIELDS), in order."""
        return list(self._view_shapes)

    def _chunk_kernel_args(self, chunk: int) -> tuple:
        """The kernel arguments of chunk `chunk`: the shared configuration, and scratch of its own."""
        while len(self._chunk_scratch) <= chunk:
            self._chunk_scratch.append(make_scratch(self.CLASSES.Scratch, self.SCRATCH, self.num_players))
        return (*self.kernel_args[:len(self.kernel_args) - len(self.scratch)], *self._chunk_scratch[chunk])

    def run_kernel(self, entry: str, rows: tuple, state: Any, cost: str | None = None) -> None:
        """entries.<entry>(*rows, *its kernel arguments, *state): `rows` are the arrays with a batch axis
        before the kernel arguments (actions, uniforms, outputs; an array of no rows, or a flag, is passed as
        is to every chunk). Large batches are split into row chunks run on every core (`envs.threads`),
        when the serial time per row measured for `cost` (default: the entry's name) says it pays; the
        results are the same as one serial call. A read outside an array is a ValueError (`_kernel`)."""
        kernel = getattr(self.entries, entry)
        B = state[0].shape[0]
        if B < threads.serial_below:
            self._kernel(kernel, entry, *rows, *self.args_of(entry), *state)
            return

        def chunk(t: int, lo: int, hi: int) -> None:
            kernel(*[r[lo:hi] if isinstance(r, np.ndarray) and len(r) else r for r in rows], *self.args_of(entry, t),
                   *[f[lo:hi] for f in state])

        key = cost or entry
        cost_of_rows = self._row_costs.get(key) or self._row_costs.setdefault(key, threads.RowCost())
        self._kernel(cost_of_rows.run, entry, B, lambda: kernel(*rows, *self.args_of(entry), *state), chunk)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"

    # --- lifecycle ---------------------------------------------------------------------------

    def empty(self, batch: int) -> Any:
        """An all-zero state of the right shapes (not a valid position by itself)."""
        P = self.num_players
        return self.State(*(np.zeros((batch, *dims(f.shape, P)), dtype=f.dtype) for f in self.FIELDS))

    def init(self, rng: np.random.Generator, batch: int = 1) -> Any:
        """New games, their setup drawn from `rng`."""
        return self.init_from_uniforms(rng.random((batch, self.UNIFORMS_AT_INIT)))

    def init_from_uniforms(self, u: np.ndarray) -> Any:
        """Deterministic `init` from u (B, UNIFORMS_AT_INIT) (the game's data module names the columns).

        A narrower u (at least 1 column, e.g. the uniforms of a step) is extended per row with a
        splitmix64 stream seeded from the row's last uniform, so the result stays a function of u.
        """
        u = self.check_uniforms(u, None, 1)
        if u.shape[1] < self.UNIFORMS_AT_INIT:
            u = extend_uniforms(u, self.UNIFORMS_AT_INIT)
        state = self.empty(u.shape[0])
        self.run_kernel("init_nb", (u, False), state)
        return state

    def legal_action_mask(self, state: Any) -> np.ndarray:
        """(B, A) bool legal actions of the seat in `to_play`; all True in finished rows."""
        B = self.check_state(state)
        mask = np.empty((B, self.num_actions), dtype=np.bool_)
        self._mask_into(state, mask)
        return mask

    def _mask_into(self, state: Any, mask: np.ndarray) -> None:
        """The legal-action mask of a checked state into `mask` (B, A)."""
        if state[0].shape[0] < threads.serial_below:  # the direct call: run_kernel's bookkeeping counts at B = 1
            self._kernel(self.entries.step_nb, "step_nb", self._no_actions, self._no_uniforms, mask,
                         *self.args_of("step_nb"), *state)
        else:
            self.run_kernel("step_nb", (self._no_actions, self._no_uniforms, mask), state, cost="mask")

    # Legality is checked on every public step against a mask computed here for that state: no mask a
    # caller hands in is believed, since an array the caller holds may have been edited, or may belong to
    # a position edited since. Owners of a state that the core steps in place (`Batch`: the AEC env, the
    # vector env, search) keep the mask the step itself computed, where nobody else can write it.

    def step(self, state: Any, actions: np.ndarray, rng: np.random.Generator) -> Any:
        """Apply one legal action per row, drawing the uniforms from `rng` (see `apply`); pure."""
        B = self.check_state(state)
        actions = self.check_actions(actions, B)
        self._check_legal(state, actions, None)
        new = clone(state)
        self._apply(new, actions, rng.random((B, self.uniforms_per_step)), None)
        return new

    def step_inplace(self, state: Any, actions: np.ndarray, rng: np.random.Generator) -> None:
        """`step` without the copy; the state is left unchanged when a check fails."""
        B = self.check_state(state)
        actions = self.check_actions(actions, B)
        self._check_legal(state, actions, None)
        self._apply(state, actions, rng.random((B, self.uniforms_per_step)), None)

    def _step_owned(self, state: Any, actions: Any, u: np.ndarray | None, rng: np.random.Generator | None,
                    mask: np.ndarray, next_mask: np.ndarray | None = None) -> None:
        """A step in place of a state whose owner computed `mask` for it and kept it where nobody else
        writes (`Batch`, the vector env, search on its own copies): legality is checked on that mask. The
        values are checked again all the same (the owner's arrays may have been written into by hand), and
        the kernels check every index, so even a broken promise cannot reach outside an array. The
        uniforms come from `u`, or from `rng` as in `step`; `next_mask` receives the new mask."""
        B = self._check_structure(state)
        self._state_ranges.check(state, "invalid state")
        if not self._one_legal_action(B, actions, mask):
            actions = self.check_actions(actions, B)
            self._check_legal(state, actions, mask)
        if u is None:
            u = rng.random((B, self.uniforms_per_step))
        else:
            u = self.check_uniforms(u, B, self.UNIFORMS_MIN_WIDTH or self.UNIFORMS_PER_STEP)
        if next_mask is not None and next_mask is not mask:
            self._check_mask_out(next_mask, B)
        self._apply(state, actions, u, next_mask)

    def _one_legal_action(self, B: int, actions: Any, mask: np.ndarray) -> bool:
        """True for the common one-row step of an owner: an int64 array of one in-range action its mask
        allows (the checks of `check_actions` and `_check_legal` in a few reads, a sixth of a one-row
        step as separate calls). False means: run the full checks."""
        if B != 1 or type(actions) is not np.ndarray or actions.dtype is not _INT64 or actions.shape != (1,):
            return False
        a = int(actions[0])
        return 0 <= a < self.num_actions and bool(mask[0, a])

    def _check_mask_out(self, out: Any, batch: int) -> None:
        """ValueError unless `out` can receive a (batch, A) legal-action mask."""
        if not isinstance(out, np.ndarray) or out.shape != (batch, self.num_actions) or out.dtype != np.bool_ \
                or not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError(f"next_mask must be a writeable C-contiguous ({batch}, {self.num_actions}) bool array, "
                             f"got {getattr(out, 'shape', None)} {getattr(out, 'dtype', None)}")

    def batch(self, rng: np.random.Generator, size: int = 1, state: Any = None, adopt: bool = False) -> Any:
        """A `Batch`: the one owner of `size` new games (or of a copy of `state`, or `state` itself with
        `adopt`) stepped in place, with its legal-action mask and generator (`meeple.envs.batch`)."""
        from meeple.envs.batch import Batch

        return Batch(self, rng, size, state, adopt)

    def _apply(self, state: Any, actions: np.ndarray, u: np.ndarray, next_mask: np.ndarray | None) -> None:
        """The apply kernel on checked input (actions legal in `state`), and the new mask into next_mask if
        given (a writeable C-contiguous (B, A) bool array)."""
        B = state[0].shape[0]
        entries = self.entries
        if next_mask is None:
            if B < threads.serial_below:  # the direct call (see legal_action_mask)
                self._kernel(entries.step_nb, "step_nb", actions, u, self._no_mask, *self.args_of("step_nb"), *state)
            else:
                self.run_kernel("step_nb", (actions, u, self._no_mask), state, cost="apply")
        elif self._apply_mask or B == 1:
            # one pass over each row; at one row (search, the self-play env) also one call instead of two,
            # which saves unboxing every field again
            if B < threads.serial_below:
                self._kernel(entries.step_nb, "step_nb", actions, u, next_mask, *self.args_of("step_nb"), *state)
            else:
                self.run_kernel("step_nb", (actions, u, next_mask), state, cost="apply and mask")
        else:
            self._apply(state, actions, u, None)
            self._mask_into(state, next_mask)

    @property
    def fused_step_mask(self) -> bool:
        """True if a step that also computes the new mask (`Batch.step`) does both in the same pass over
        each row (the game's `FUSED_MASK`); otherwise, at batch size one, the step and then
        the mask in one compiled call (`step_nb` with both), and above it the two passes one after the other."""
        return self._apply_mask

    def apply(self, state: Any, actions: np.ndarray, u: np.ndarray) -> Any:
        """Deterministic step: the chance outcomes are read from u (B, UNIFORMS_PER_STEP) in [0, 1).

        Everything is checked before anything changes: the state's structure and the ranges of its fields
        (`check_state`), every action (an integer, in range, and legal in its row; finished rows take any
        action and stay as they are) and the uniforms (finite, in [0, 1)). Raises ValueError naming the
        problem (for actions: the rows and their legal actions).
        """
        B = self.check_state(state)
        actions, u = self._checked_step_input(state, B, actions, u)
        new = clone(state)
        self._apply(new, actions, u, None)
        return new

    def apply_inplace(self, state: Any, actions: np.ndarray, u: np.ndarray) -> None:
        """`apply` without the copy; the state is left unchanged when a check fails."""
        B = self.check_state(state)
        actions, u = self._checked_step_input(state, B, actions, u)
        self._apply(state, actions, u, None)

    def _checked_step_input(self, state: Any, B: int, actions: Any, u: Any) -> tuple[np.ndarray, np.ndarray]:
        """(actions, u) of a step of a checked state, or ValueError (legality on a mask computed here)."""
        actions = self.check_actions(actions, B)
        u = self.check_uniforms(u, B, self.UNIFORMS_MIN_WIDTH or self.UNIFORMS_PER_STEP)
        self._check_legal(state, actions, None)
        return actions, u

    def _kernel(self, kernel: Any, entry: str, *args: Any) -> None:
        """kernel(*args), a kernel that read outside an array (`jit.KERNEL_OPTIONS` checks every index)
        reported as ValueError: only a state no rules step can reach gets there."""
        try:
            kernel(*args)
        except IndexError as error:
            raise ValueError(f"invalid state: {entry} read outside an array ({error}); "
                             f"validate() names the broken rule") from None

    def check_state(self, state: Any) -> int:
        """The batch size of `state`, or ValueError unless it is this game's State with every field of the
        right shape and dtype (kernels size their loops from the arrays) and every value in its field's
        range (`check_values`)."""
        B = self._check_structure(state)
        self.check_values(state)
        return B

    def check_values(self, state: Any, every_field: bool = False) -> None:
        """ValueError naming the first field of a structurally checked state with a value outside its range
        in the field table, and its rows. Every public call checks the cheap facts (the fields of at most
        CHEAP_FACTS values per row: seats, phases, counters, what kernels index with first), since anyone
        holding the arrays may have written into them since the last call; `every_field` checks all ranges
        (a state handed to an owner, a load). A value out of range in a larger field (a board, a deck) that
        a kernel indexes with is caught by the kernel's own index check (`_kernel`)."""
        (self._all_ranges if every_field else self._state_ranges).check(state, "invalid state")

    def _check_structure(self, state: Any) -> int:
        """The batch size of `state`, or ValueError unless it is this game's State with every field of the
        right shape and dtype. A state's structure cannot change in place, so the last state that passed is
        remembered: an owner stepping one state pays this once."""
        if state is self._checked_state:
            return state[0].shape[0]
        if type(state) is not self.State:
            raise ValueError(f"expected a {type(self).__name__} State, got {type(state).__name__}")
        first = state[0]
        if not isinstance(first, np.ndarray) or first.ndim < 1:
            raise ValueError(f"field {self.FIELDS[0].name!r} must be an array with a batch axis")
        B = first.shape[0]
        if _arrays_of(state, self._shapes_of("state", B), self._state_dtypes):  # the common case, a few C-level passes
            self._checked_state = state
            return B
        batch = (B,)
        for f, (trailing, dtype), value in zip(self.FIELDS, self._state_specs, state):
            if not isinstance(value, np.ndarray) or value.shape[:1] != batch or value.shape[1:] != trailing \
                    or value.dtype != dtype:
                got = (getattr(value, "shape", None), getattr(value, "dtype", None))
                raise ValueError(f"field {f.name!r}: {got}, expected {(B, *trailing)} {dtype}")
        self._checked_state = state
        return B

    def check_view(self, view: Any) -> int:
        """The batch size of `view`, or ValueError unless it is this game's View as `observe` makes it:
        every field of this configuration's shape and dtype (the encoders' kernels size their loops and
        offsets from the configuration, not from the arrays) and every value in its field's range (seats
        in `viewer`, and the ranges of the field table), checked on every call."""
        if view is self._checked_view:  # (its structure cannot change in place; its values can)
            self._check_viewer_seats(view[0])
            self._view_ranges.check(view, "invalid view")
            return view[0].shape[0]
        if type(view) is not self.View:
            raise ValueError(f"expected a {type(self).__name__} View (from observe), got {type(view).__name__}")
        viewer = view[0]
        if not isinstance(viewer, np.ndarray) or viewer.ndim != 1 or viewer.dtype != np.int8:
            raise ValueError(f"view field 'viewer' must be a (B,) int8 array, got {getattr(viewer, 'shape', None)} "
                             f"{getattr(viewer, 'dtype', None)}")
        B = viewer.shape[0]
        batch = (B,)
        if _arrays_of(view[1:], self._shapes_of("view", B), self._view_dtypes):
            self._check_viewer_seats(viewer)
            self._view_ranges.check(view, "invalid view")
            self._checked_view = view
            return B
        for name, value, (shape, dtype) in zip(self.View._fields[1:], view[1:], self._view_specs):
            if not isinstance(value, np.ndarray) or value.shape[:1] != batch or value.shape[1:] != shape \
                    or value.dtype != dtype:
                got = (getattr(value, "shape", None), getattr(value, "dtype", None))
                raise ValueError(f"view field {name!r}: {got}, expected {(B, *shape)} {dtype} "
                                 f"(a view of another configuration?)")
        self._check_viewer_seats(viewer)
        self._view_ranges.check(view, "invalid view")
        self._checked_view = view
        return B

    def _check_viewer_seats(self, viewer: np.ndarray) -> None:
        if not _seats_in_range(viewer, self.num_players):
            raise ValueError(f"view field 'viewer' must hold seats 0..{self.num_players - 1}")

    def _shapes_of(self, kind: str, batch: int) -> tuple:
        """The full shape of every State field (`kind` "state") or every View field after the viewer
        ("view") at batch size `batch`; a few batch sizes are remembered."""
        shapes = self._full_shapes.get((kind, batch))
        if shapes is None:
            if len(self._full_shapes) > 32:
                self._full_shapes.clear()
            specs = self._state_specs if kind == "state" else self._view_specs
            shapes = self._full_shapes[(kind, batch)] = tuple((batch, *t) for t, _ in specs)
        return shapes

    def _check_legal(self, state: Any, actions: np.ndarray, mask: np.ndarray | None) -> None:
        """ValueError unless actions[b] is legal in every row b (checked actions, see `check_actions`;
        `mask` the state's own, kept by its owner (`Batch`), or None to compute it)."""
        B = actions.shape[0]
        if mask is None:
            mask = np.empty((B, self.num_actions), dtype=np.bool_)
            self._mask_into(state, mask)
        # one row (search at B = 1): a numpy index costs less than a kernel call's argument unboxing
        legal = bool(mask[0, actions[0]]) if B == 1 else first_illegal(mask, actions) < 0
        if not legal:
            bad = np.flatnonzero(~mask[np.arange(B), actions])
            detail = "; ".join(f"row {b}: action {int(actions[b])}, legal {np.flatnonzero(mask[b]).tolist()[:20]}"
                               for b in bad[:3])
            raise ValueError(f"illegal actions in {len(bad)} row(s): {detail}")

    def advance(self, state: Any, u: np.ndarray | None = None) -> Any:
        """Recompute derived fields and run the automatic steps from a hand-built position (tests,
        tools); pure. Missing uniforms default to 0.5."""
        B = self.check_state(state)
        new = clone(state)
        u = np.full((B, self.UNIFORMS_PER_STEP), 0.5) if u is None else u
        u = self.check_uniforms(u, B, self.UNIFORMS_MIN_WIDTH or self.UNIFORMS_PER_STEP)
        self.run_kernel("init_nb", (u, True), new)
        return new

    def check_actions(self, actions: Any, batch: int) -> np.ndarray:
        """(B,) int64 actions, or ValueError naming what is wrong: not integers (floats, strings and bools
        are refused, not truncated or parsed), the wrong count, or out of range. Kernels index with them."""
        if type(actions) is np.ndarray and actions.dtype == np.int64 and actions.ndim == 1 and actions.flags.c_contiguous:
            out = actions  # the common case, without numpy's conversion overhead (it matters at B = 1)
        else:
            raw = np.asarray(actions)
            if raw.dtype.kind not in "iu":
                raise ValueError(f"actions must be integers, got dtype {raw.dtype}")
            # contiguous: a strided view (a column, every other row) would make numba compile every kernel
            # that takes actions once more for that layout, tens of seconds, for the same machine code
            out = np.ascontiguousarray(raw.reshape(-1), dtype=np.int64)
        if out.shape[0] != batch:
            raise ValueError(f"expected {batch} actions, got {out.shape[0]}")
        if (not 0 <= out[0] < self.num_actions) if batch == 1 else first_out_of_range(out, self.num_actions) >= 0:
            bad = np.flatnonzero((out < 0) | (out >= self.num_actions))
            raise ValueError(f"actions must be 0..{self.num_actions - 1}; rows {bad[:5].tolist()} have "
                             f"{out[bad[:5]].tolist()}")
        return out

    @staticmethod
    def check_uniforms(u: np.ndarray, batch: int | None, width: int) -> np.ndarray:
        """u as a C-contiguous float64 (B, >= width) array of values in [0, 1), or ValueError (strings,
        complex numbers and bools are refused, not parsed or truncated, as actions are)."""
        if not (type(u) is np.ndarray and u.dtype == np.float64):
            try:
                raw = np.asarray(u)
            except (TypeError, ValueError):
                raise ValueError("u must be an array of floats in [0, 1)") from None
            if raw.dtype.kind not in "fiu":
                raise ValueError(f"u must be an array of floats in [0, 1), got dtype {raw.dtype}")
            u = raw
        u = np.ascontiguousarray(u, dtype=np.float64)
        if u.ndim != 2 or u.shape[1] < width or (batch is not None and u.shape[0] != batch):
            raise ValueError(f"u must have shape (B, >={width}) with B = {batch}, got {u.shape}")
        if u.size and not (u.min() >= 0.0 and u.max() < 1.0):  # NaN fails both comparisons
            raise ValueError("u must hold finite values in [0, 1)")
        return u

    # --- results -----------------------------------------------------------------------------

    def scores(self, state: Any) -> np.ndarray:
        """(B, P) int32 the game's own score of every seat: final once done, the running score before."""
        out = np.empty((self.check_state(state), self.num_players), dtype=np.int32)
        self.run_kernel("scores_nb", (out,), state)
        return out

    def tiebreak_key(self, state: Any) -> np.ndarray:
        """(B, P): among tied scores the higher key ranks higher (the game's tie-break rule)."""
        return np.zeros((state.done.shape[0], self.num_players), dtype=np.int32)

    def returns(self, state: Any) -> np.ndarray:
        """(B, P) float32 rewards at the end, 0 before.

        reward="rank" (the default): `core.rank_returns(score, tie-break key)` in [-1, 1], (opponents
        beaten - opponents beating) / (P - 1), so a sole winner gets +1, exact ties share and every row
        sums to 0. reward="score_diff": (own score - best other score) / SCORE_DIFF_SCALE. One player:
        the score itself (nobody to rank against). Truncated games are ranked on the scores reached.
        """
        scores = self.scores(state)
        if self.num_players == 1:
            out = scores.astype(np.float32)
        elif getattr(self.config, "reward", "rank") == "score_diff":
            out = ((scores - others_best(scores)) / self.SCORE_DIFF_SCALE).astype(np.float32)
        else:
            out = rank_returns(scores, self.tiebreak_key(state))
        out[~state.done] = 0.0
        return out

    # --- information -------------------------------------------------------------------------

    def viewer_array(self, state: Any, player: int | np.ndarray) -> np.ndarray:
        """(B,) int8 seats, or ValueError unless every one is a seat of this game (and `state` is its State)."""
        B = self.check_state(state)
        P = self.num_players
        if isinstance(player, (int, np.integer)) and not isinstance(player, (bool, np.bool_)):
            if not 0 <= player < P:
                raise ValueError(f"player must be a seat 0..{P - 1}, got {player}")
            return np.full(B, player, dtype=np.int8)
        raw = np.asarray(player)
        if raw.dtype.kind not in "iu":
            raise ValueError(f"player must be an integer seat or an array of seats, got dtype {raw.dtype}")
        if raw.shape != (B,):  # (one seat per row, the common case, needs no broadcast)
            try:
                raw = np.broadcast_to(raw, (B,))
            except ValueError:
                raise ValueError(f"player must be one seat or {B} seats, got shape {raw.shape}") from None
        if not _seats_in_range(raw, P):
            raise ValueError(f"player must be a seat 0..{P - 1}")
        # always a fresh writable array: a read-only one (broadcast_to's view) is another numba type, and
        # every kernel taking it (observe_nb, each encoder) would be compiled a second time for it
        return np.array(raw, dtype=np.int8)

    def observe(self, state: Any, player: int | np.ndarray) -> Any:
        """Only what `player` may see: the viewer, the PUBLIC fields (shared with the state, not copied:
        a View describes its state until that state is mutated in place) and the game's view fields.
        """
        viewer = self.viewer_array(state, player)
        B = state.done.shape[0]
        outputs = [np.empty((B, *shape), dtype=dt) for shape, dt in self._view_shapes]
        if outputs:
            self.run_kernel("observe_nb", (viewer, *outputs), state)
        # the View's field order is: viewer, the shared public fields (state order), the observe outputs
        return tuple.__new__(self.View, (viewer, *self._public_fields(state), *outputs))

    def determinize(self, state: Any, player: int | np.ndarray, rng: np.random.Generator) -> Any:
        """A state consistent with everything `player` has seen, the rest resampled from `rng` (a copy)."""
        viewer = self.viewer_array(state, player)
        new = clone(state)
        if self.info.has_hidden_information:
            seeds = rng.integers(1, np.iinfo(np.int64).max, size=state.done.shape[0], dtype=np.int64)
            self._zero_scratch()
            self.run_kernel("determinize_nb", (viewer, seeds), new)
        return new

    def _zero_scratch(self) -> None:
        """Fresh scratch for the kernels that expect it (determinize, validate: not on the hot path)."""
        for scratch in self._chunk_scratch:
            for array in scratch:
                array.fill(0)

    # --- saves and views (`core.Views`) --------------------------------------------------------
    # `render_module` is the dotted path of the game's text-view module (`action_to_str`, `score_sheet`);
    # two sibling modules of the game package complete the views: `picture` (`render_rgb`, the drawn
    # picture) and `narration` (`narrate`, what a step did, in words). `seat` in the views: None shows
    # what a spectator at the table sees (public information only); seat p adds what player p alone may
    # see (its own hidden cards), never another player's.

    def to_dict(self, state: Any) -> dict:
        """A JSON-ready dict of `state` (see `state_to_dict`)."""
        return state_to_dict(self, state)

    def from_dict(self, payload: object) -> Any:
        """The validated state saved by `to_dict`; malformed input raises ValueError."""
        return state_from_dict(self, payload, self.empty(1))

    def check_row(self, state: Any, row: Any) -> int:
        """`row` as an int, or ValueError unless `state` is this game's State and `row` one of its rows (an
        integer 0..B-1: a negative index would quietly show another row, a bool or a float is a mistake)."""
        B = self.check_state(state)
        if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)) or not 0 <= row < B:
            raise ValueError(f"row must be an integer 0..{B - 1} (a row of the state), got {row!r}")
        return int(row)

    def action_to_str(self, state: Any, action: int, row: int = 0) -> str:
        """What the action does in `state` (row `row`), in words ("buy Agriculture for 15 coins (3 points)");
        its engine name stays `action_names[action]`. ValueError for a row the state does not have or an
        action outside 0..num_actions-1."""
        row = self.check_row(state, row)
        return import_module(self.render_module).action_to_str(self, state, self.check_action(action), row)

    def check_action(self, action: Any) -> int:
        """`action` as an int, or ValueError unless it is an integer 0..num_actions-1 (not a bool or float)."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < self.num_actions:
            raise ValueError(f"action must be an integer 0..{self.num_actions - 1}, got {action!r}")
        return int(action)

    def _view_module(self, name: str) -> Any:
        """The game package's sibling module `name` of its text-view module (None if it has none)."""
        package = self.render_module.rsplit(".", 1)[0]
        try:
            return import_module(f"{package}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.{name}":
                raise
            return None

    def check_seat_view(self, seat: int | None) -> int | None:
        """seat for a view: None (spectator) or a seat number of this game, else ValueError."""
        if seat is None:
            return None
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) \
                or not 0 <= int(seat) < self.num_players:
            raise ValueError(f"seat must be None or 0..{self.num_players - 1}, got {seat!r}")
        return int(seat)

    def render_text(self, state: Any, row: int = 0, seat: int | None = None) -> str:
        """A readable text view of row `row` (the ansi render); `seat` adds that player's own hidden cards."""
        return import_module(self.render_module).score_sheet(self, state, self.check_row(state, row),
                                                             seat=self.check_seat_view(seat))

    def render_modes(self) -> list[str]:
        """The AEC render modes: "ansi", plus "rgb_array" and "human" if the game draws a picture."""
        return ["ansi"] + (["rgb_array", "human"] if self._view_module("picture") is not None else [])

    def render_rgb(self, state: Any, row: int = 0, seat: int | None = None) -> np.ndarray:
        """An (H, W, 3) uint8 picture of row `row` (the rgb_array render); `seat` as in `render_text`."""
        module = self._view_module("picture")
        if module is None:
            raise ValueError(f"{type(self).__name__} draws no picture; its render modes are {self.render_modes()}")
        return module.render_rgb(self, state, self.check_row(state, row), seat=self.check_seat_view(seat))

    def narrate(self, before: Any, action: int, after: Any, row: int = 0, seat: int | None = None) -> list[str]:
        """What the step `before` --action--> `after` did in row `row`, as lines of text: the move, and the
        chance outcomes and automatic events it led to (dice, draws, disasters, scoring), as `seat` may
        see them (None: public information only)."""
        row = self.check_row(before, row)
        action = self.check_action(action)
        if self.check_state(after) != before[0].shape[0]:
            raise ValueError("narrate: `before` and `after` must be states of the same batch size")
        module = self._view_module("narration")
        if module is None:
            return [self.action_to_str(before, action, row)]
        return module.narrate(self, before, action, after, row, seat=self.check_seat_view(seat))

    # --- chance --------------------------------------------------------------------------------

    def chance_outcomes(self, state: Any, action: int, row: int = 0,
                        limit: int = CHANCE_LIMIT) -> list[tuple[str, float]]:
        """The chance outcomes that playing `action` in row `row`'s position can lead to, with their
        probabilities under the rules (OpenSpiel's chance_outcomes, for the chance inside one step): a list of
        (description, probability) pairs, most likely first, the probabilities summing to 1; [] when the
        move involves no chance (or the game is over). An outcome is what chance decides in that step, seen
        in full (the dice rolled, the cards drawn, as a multiset where the rules make their order
        irrelevant); `chance_outcome` names the outcome of a step that was played, so the two can be
        compared. This is the rules' chance given the whole state: a card already placed in a shuffled stack
        the state holds is no chance when drawn (a player who cannot see the stack is uncertain of it:
        `determinize` samples that). The game's `chance` module (`envs/<game>/chance.py`) computes both
        from the rules.

        ValueError for a row the state does not have, an action outside the game or not legal in that
        position, and `TooManyOutcomes` (a ValueError) where a step's chance has more than `limit`
        outcomes (a full shuffle), saying how many."""
        row = self.check_row(state, row)
        action = self.check_action(action)
        if bool(np.asarray(state.done)[row]):
            return []
        one = take(state, [row])
        if not self.legal_action_mask(one)[0, action]:
            raise ValueError(f"action {action} ({self.action_names[action]}) is not legal in row {row}")
        outcomes = self._view_module("chance").chance_outcomes(self, one, action, limit)
        return sorted(outcomes, key=lambda o: -o[1])

    def chance_outcome(self, before: Any, action: int, after: Any, row: int = 0) -> str | None:
        """The description (as `chance_outcomes` lists it) of what chance decided in the step `before`
        --action--> `after` of row `row`; None when that move involves no chance."""
        row = self.check_row(before, row)
        action = self.check_action(action)
        if self.check_state(after) != before[0].shape[0]:
            raise ValueError("chance_outcome: `before` and `after` must be states of the same batch size")
        if bool(np.asarray(before.done)[row]):
            return None
        return self._view_module("chance").chance_outcome(self, take(before, [row]), action, take(after, [row]))

    # --- validation ----------------------------------------------------------------------------

    def validate_rules(self, state: Any) -> None:  # noqa: B027 (an optional hook, not abstract)
        """Consistency checks a game writes in numpy (after the ranges, before `validate_nb`)."""

    def validate(self, state: Any) -> None:
        """Raise ValueError if `state` is not a reachable position: wrong type, shape or dtype of a
        field, a value outside its range (the field table), then the game's consistency kernel."""
        B = self.check_state(state)
        self.check_values(state, every_field=True)  # (the same compiled pass as every call's, over all fields)
        self.validate_rules(state)
        if not hasattr(self.entries, "validate_nb"):
            return
        err = np.zeros(B, dtype=np.int32)
        self._zero_scratch()
        self.run_kernel("validate_nb", (err,), clone(state))
        if err.any():
            rows = np.flatnonzero(err)
            invariants = import_module(self.kernels.__name__.rsplit(".", 1)[0] + ".invariants").INVARIANTS
            invariant = invariants[int(err[rows[0]]) - 1]
            raise InvalidState(invariant.name, invariant.message, rows)

