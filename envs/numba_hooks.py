"""Every use meeple makes of numba's internals, in one place, each checked when this module is imported.

numba's public API has no way to (1) run a kernel as Python while its compile happens in another process,
(2) stamp cache entries with the sources of the helpers a kernel inlines, (3) call a compiled kernel
without typing every argument again, or (4) compile a kernel that only kernels call more cheaply (without
Python wrappers or machine code of its own, at a lower LLVM level, once for all integer widths). These
hooks reach into numba's dispatcher, cache and code-generation classes for that. They are tested with the
numba versions pyproject.toml allows; a numba whose internals moved makes this import fail with an error
naming the missing piece (`NumbaInternalsChanged`), rather than a kernel silently serving stale machine
code or running as Python forever.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import threading
from pathlib import Path
from collections.abc import Collection
from typing import Any

import numba
from numba import types
from numba.core import caching as numba_caching
from numba.core import cgutils as numba_cgutils
from numba.core import codegen as numba_codegen
from numba.core.dispatcher import Dispatcher


class NumbaInternalsChanged(ImportError):
    """This numba lacks an internal meeple hooks into (see the module docstring)."""


def _require(owner: Any, *names: str) -> None:
    for name in names:
        if not hasattr(owner, name):
            raise NumbaInternalsChanged(
                f"numba {numba.__version__}: {getattr(owner, '__name__', owner)}.{name} is gone; meeple's hooks "
                f"(meeple/envs/numba_hooks.py) are tested with the numba versions pyproject.toml allows: install one")


_require(Dispatcher, "_compile_for_args", "typeof_pyval")


# --- running a kernel as Python while it compiles elsewhere ----------------------------------------
#
# `meeple.envs.first_use` compiles a game's kernels in a background process on a cold cache; until that
# process is done, calls to kernels that are not in numba's cache run as plain Python (identical results:
# the CI leg with NUMBA_DISABLE_JIT checks the games' rules that way, tests/test_first_use.py the rest).
# The hook is numba's own: a call with no compiled version for its argument types goes to the
# dispatcher's `_compile_for_args`, which returns what to call; numba calls a returned Python function
# as it is. Each kernel's compiler is wrapped so that, while kernels are interpreted, a cache miss raises
# `_Uncompiled` where it would have compiled: a cached kernel still loads and runs compiled.

class _Uncompiled(Exception):
    """A kernel would have compiled while kernels run as Python (never leaves `_first_call`)."""


class Interpreting:
    """Whether cache misses run as Python now; `refresh` (set by first_use) re-checks the background
    compile, at most every `every` seconds, from a top-level kernel call."""

    on = False
    refresh: Any = None


INTERPRETING = Interpreting()
_interpreted: set[int] = set()  # kernels that missed the cache while interpreting (by id)


class _CompilerOrInterpret:
    """A dispatcher's compiler that refuses to compile while INTERPRETING.on (everything else as is)."""

    def __init__(self, inner: Any, cold: bool = False) -> None:
        self._inner = inner
        self.refuse = False  # set around a call from Python to a kernel `compile_only` leaves out
        self.depth = 2 if cold else 1  # (counted as a helper when cold: "helpers at a lower LLVM level")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def compile(self, args: Any, return_type: Any) -> Any:
        if INTERPRETING.on or self.refuse:
            raise _Uncompiled
        callee = getattr(_compiling, "depth", 0) > 0  # compiled because another kernel calls it
        _compiling.depth = getattr(_compiling, "depth", 0) + self.depth  # ("helpers at a lower LLVM level")
        options = self._inner.targetoptions
        if callee:  # ("kernels called only from kernels", below)
            self._inner.targetoptions = {**options, **CALLEE_OPTIONS}
        _compilations().append((self._inner.py_func.__qualname__, callee))
        try:
            compiled = self._inner.compile(args, return_type)
        finally:
            self._inner.targetoptions = options
            _compiling.depth -= self.depth
            _compilations().pop()
        if callee:
            compiled.metadata[CALLEE_ONLY] = True
        return compiled


def _python_of(dispatcher: Any, python: Any) -> Any:
    """What to call instead of the kernel: `python` or its source. numba passes a star-args kernel its
    star arguments packed in one tuple (the last argument), so they are unpacked for the source."""
    fn = python or dispatcher.py_func
    if fn.__code__.co_flags & inspect.CO_VARARGS:
        return lambda *args: fn(*args[:-1], *args[-1])
    return fn


def adopt(dispatcher: Any, python: Any, cold: bool = False) -> None:
    """Give a new kernel the interpret-on-miss hook (see above) and list it in KERNELS; `cold`: compile it at
    the helpers' LLVM level (below)."""
    KERNELS.append(dispatcher)
    as_python = _python_of(dispatcher, python)
    compile_for_args = type(dispatcher)._compile_for_args
    dispatcher._compiler = compiler = _CompilerOrInterpret(dispatcher._compiler, cold)

    def first_call(*args: Any, **kws: Any) -> Any:
        if INTERPRETING.refresh is not None:
            INTERPRETING.refresh()
        _drop_callee_only(dispatcher)
        refuse = _compile_only is not None and id(dispatcher) not in _compile_only
        if (INTERPRETING.on or refuse) and id(dispatcher) in _interpreted:
            return as_python
        compiler.refuse = refuse
        try:
            return compile_for_args(dispatcher, *args, **kws)
        except _Uncompiled:
            _interpreted.add(id(dispatcher))
            return as_python
        finally:
            compiler.refuse = False

    dispatcher._compile_for_args = first_call
    _one_version_per_width(dispatcher)
    _callee_only_kept_from_python(dispatcher)


KERNELS: list[Any] = []  # every kernel of the package
_compile_only: set[int] | None = None


def compile_only(*dispatchers: Any) -> None:
    """From now on in this process, a kernel called from Python and missing from numba's cache compiles
    only if it is one of `dispatchers` (with whatever kernels it calls); any other runs as Python.
    `compile_only(None)` ends it. For `meeple.envs.warm`'s parts: each compiles its own entry points and
    reaches its positions through the others' Python, so two processes never compile the same entry point."""
    global _compile_only
    _compile_only = None if dispatchers == (None,) else {id(d) for d in dispatchers}
    _interpreted.clear()


# --- kernels called only from kernels: no Python entry -----------------------------------------------
#
# numba wraps every compiled function twice so that Python and C can call it: the CPython wrapper unboxes
# every argument (a helper taking a State unboxes ~40 arrays) and both wrappers are generated, optimized
# and emitted as machine code. A kernel compiled because another kernel calls it is reached only through
# that call, whose module links the helper's own code, so it is compiled without them (numba's options,
# which its own overloads use). Such a version is never called from Python: it stays out of the
# dispatch table Python calls go through and out of the disk cache, and a call from Python drops it
# first, so that the call loads or compiles the version with wrappers (`first_call` above). Measured on
# Hadara, each part alone on a cold cache (CPU seconds, with entry points at level 2 below): "agents"
# 81 -> 41, "play" 67 -> 52.

CALLEE_OPTIONS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
CALLEE_ONLY = "meeple_callee_only"  # (the mark in a compile result's metadata)
_require(Dispatcher, "add_overload")


def _is_callee_only(compiled: Any) -> bool:
    return bool(compiled.metadata and compiled.metadata.get(CALLEE_ONLY))


def _drop_callee_only(dispatcher: Any) -> None:
    """Forget the versions compiled without wrappers (before a call from Python: it needs the other kind)."""
    for args in [args for args, compiled in list(dispatcher.overloads.items()) if _is_callee_only(compiled)]:
        dispatcher.overloads.pop(args, None)  # (another thread may have dropped it first)


# Nor is such a version ever run as machine code of its own: its callers link its IR into their modules.
# Its library is still optimized (at the helpers' level, below) for that linking, but never handed to
# numba's JIT engine, which would emit machine code for it (measured on Hadara's "play" part: ~40% of the
# time spent emitting machine code went to such helpers). The library is the one numba creates for the
# function being compiled, named by its qualified name, while `_CompilerOrInterpret.compile` of a callee
# runs (`_compilations`: per thread, innermost last).

LINK_ONLY = "_meeple_link_only"  # (the mark on such a library)
_require(numba_codegen.CPUCodegen, "create_library")
_require(numba_codegen.JITCodeLibrary, "_finalize_final_module", "_finalize_specific")
_require(numba_codegen.JITCPUCodegen, "_add_module", "set_env")


def _compilations() -> list:
    if not hasattr(_compiling, "stack"):
        _compiling.stack = []
    return _compiling.stack


def _create_library(self: Any, name: str, **kwargs: Any) -> Any:
    library = _numba_create_library(self, name, **kwargs)
    stack = _compilations()
    if stack and stack[-1] == (name, True):
        setattr(library, LINK_ONLY, True)
    return library


def _finalize_final_module(self: Any) -> None:
    if not getattr(self, LINK_ONLY, False):
        return _numba_finalize_final_module(self)
    # numba's own finalization, less the two steps that put the module into the engine and emit its code
    # (instance attributes shadowing the methods; numba holds its compiler lock while finalizing)
    codegen = self._codegen
    codegen._add_module = _no_engine
    self._finalize_specific = _no_machine_code
    try:
        return _numba_finalize_final_module(self)
    finally:
        del codegen._add_module, self._finalize_specific


def _no_engine(module: Any) -> None:
    return None


def _no_machine_code() -> None:
    return None


def _set_env(self: Any, env_name: str, env: Any) -> None:
    if self._engine.get_global_value_address(env_name) == 0:  # (a link-only library's: not in the engine)
        return
    _numba_set_env(self, env_name, env)


_numba_create_library = numba_codegen.CPUCodegen.create_library
_numba_finalize_final_module = numba_codegen.JITCodeLibrary._finalize_final_module
_numba_set_env = numba_codegen.JITCPUCodegen.set_env
numba_codegen.CPUCodegen.create_library = _create_library
numba_codegen.JITCodeLibrary._finalize_final_module = _finalize_final_module
numba_codegen.JITCPUCodegen.set_env = _set_env


def _callee_only_kept_from_python(dispatcher: Any) -> None:
    add_overload = dispatcher.add_overload

    def add(compiled: Any) -> None:
        if _is_callee_only(compiled):  # (for the callers' typing and linking only)
            dispatcher.overloads[tuple(compiled.signature.args)] = compiled
        else:
            add_overload(compiled)

    dispatcher.add_overload = add
    cache = dispatcher._cache
    save_overload = cache.save_overload

    def save(sig: Any, compiled: Any) -> None:
        if not _is_callee_only(compiled):
            save_overload(sig, compiled)

    cache.save_overload = save


# --- one compiled version per kernel called from kernels ---------------------------------------------
#
# A kernel called from another kernel is compiled for the argument types at that call site, and numba
# types a constant argument by its value (`f(v, b, p, 0)` and `f(v, b, p, 1)`: Literal[int](0) and
# Literal[int](1)) and a seat read from an int8 field as int8, so one helper was compiled up to eight times
# (measured: ~17% of a game's compile time went to such copies). numba does its integer arithmetic in at
# least 64 bits whatever the operands' width, so a helper given its signed integers as int64 computes the
# same values; each call is typed with its literals and narrow signed integers widened to int64, and the
# copies are gone. (No kernel of this package needs a literal argument: `literally` is not used.)

def _widened(t: Any) -> Any:
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64
    return t


def _one_version_per_width(dispatcher: Any) -> None:
    get_call_template = type(dispatcher).get_call_template

    def call_template(args: Any, kws: Any) -> Any:
        return get_call_template(dispatcher, tuple(_widened(a) for a in args),
                                 {k: _widened(v) for k, v in kws.items()})

    dispatcher.get_call_template = call_template


_require(Dispatcher, "get_call_template")


# --- one branch per checked index --------------------------------------------------------------------
#
# Every kernel is compiled with bounds checks (envs/jit.py, docs/memory_safety.md). numba checks an index
# with two signed comparisons, `i >= n` and `i < 0`, each with its own exception-raising block. One
# unsigned comparison says the same (a negative i, read as unsigned, is larger than any length): half the
# branches and raising blocks, the same IndexError. Measured on Hadara's "play" compile part: 110 s -> 87 s
# (the checks' blocks are a third of the code LLVM optimizes). numba's debug print of the failing index
# (NUMBA_FULL_TRACEBACKS) keeps numba's own two-branch version.

_require(numba_cgutils, "do_boundscheck", "if_unlikely")
_numba_do_boundscheck = numba_cgutils.do_boundscheck


def _do_boundscheck(context: Any, builder: Any, ind: Any, dimlen: Any, axis: Any = None) -> None:
    if numba.core.config.FULL_TRACEBACKS:
        return _numba_do_boundscheck(context, builder, ind, dimlen, axis)
    outside = builder.icmp_unsigned(">=", ind, dimlen)
    with numba_cgutils.if_unlikely(builder, outside):
        context.call_conv.return_user_exc(builder, IndexError, ("index is out of bounds",))


numba_cgutils.do_boundscheck = _do_boundscheck


# --- helpers at a lower LLVM level -------------------------------------------------------------------
#
# numba compiles a kernel called from another kernel as a library of its own, optimizes it, and then links
# its optimized IR into every caller, whose whole module (its own code and all its callees') LLVM
# optimizes again at the full level. A helper's own optimization is therefore mostly repeated later: its
# machine code runs only when Python calls it directly, and its IR is optimized again in every kernel
# that calls it. So a kernel compiled because another kernel calls it (a compile inside a compile, counted
# per thread by the wrapped compiler above) runs LLVM's passes at level 1, which still tidies its IR
# (SROA, simplification) for the callers; a kernel compiled because Python calls it runs them at numba's
# level (NUMBA_OPT, 3 by default), over its callees' code too. The machine code that runs stays optimized
# at full level. A kernel declared cold (`@kernel(cold=True)`: the generated `validate_nb`, which runs on
# loads and checks, not per step) is compiled at the helpers' level even when Python calls it.
# Measured on Hadara, the two parts compiled side by side, before and after (CPU seconds): "play"
# 95 -> 75, "agents" 77 -> 68. Level 0 for helpers made the callers' passes dearer (143 s), level 2 saved
# 8%. docs/performance.md has the speed before and after.

HELPER_OPT_LEVEL = 1
# Kernels Python calls (the entry points) at level 2, not numba's 3: level 3 adds little to code that is
# inlined and vectorized at 2 anyway, and costs compile time on the whole inlined tree (Hadara "play":
# 67 -> 60 CPU seconds). docs/performance.md has the speed before and after.
ENTRY_OPT_LEVEL = 2
_compiling = threading.local()
_require(numba_codegen.CPUCodegen, "_pass_builder")
_numba_pass_builder = numba_codegen.CPUCodegen._pass_builder


def _pass_builder(self: Any, **options: Any) -> Any:
    if "opt" not in options:
        helper = getattr(_compiling, "depth", 0) > 1
        options["opt"] = min(HELPER_OPT_LEVEL if helper else ENTRY_OPT_LEVEL, numba.core.config.OPT)
    return _numba_pass_builder(self, **options)


numba_codegen.CPUCodegen._pass_builder = _pass_builder
# (in every cache entry's stamp, below)
CODEGEN_HOOKS = (f"boundscheck: one unsigned comparison; helpers at LLVM level {HELPER_OPT_LEVEL}, entry points at "
                 f"{ENTRY_OPT_LEVEL}; callees without wrappers or machine code")


# --- compiled-code cache -------------------------------------------------------------------------------

# numba's cache (`cache=True`) keeps a kernel's machine code until the kernel's own source file changes.
# Kernels inline helpers of other files (this module's shuffles, a game's kernels inside its encoder's
# fused step) and close over the tables of a game's data and state modules, so after an edit or an update
# of one of those files the cache would go on serving code built from the old helper: wrong results, or
# indexing with the old column layout. Every cache entry of this package is therefore stamped with a
# fingerprint of the kernel sources it may depend on as well; a change to any of them recompiles (once, into
# the same cache). The kernel sources are the modules that define kernels and the data and state tables of
# every game; a module of plain Python (an env, an agent's search, the rules base) is not one, so editing
# it costs no compile. A game's own kernel sources (envs/<game>/, encoders/<game>.py,
# agents/heuristics/<game>.py) import no other game's (tests/test_jit.py checks it), so a kernel of a game
# is stamped with the shared sources and that game's only: editing one game recompiles that game, not all
# five. A kernel of a shared module (this package's generic checks and draws) is stamped with all of them.
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent
_KERNEL_SOURCE_DIRS = ("envs", "encoders", "agents")
_DEFINES_KERNELS = ("@" "kernel", "@" "invariant", "nj" "it", "@" "intrinsic", "@" "overload")  # (split: this file is none)
_TABLE_MODULES = ("data.py", "state.py")


def kernel_source_files() -> list[Path]:
    """The files whose contents the cache entries of this package are stamped with (see above)."""
    files = []
    for sub in _KERNEL_SOURCE_DIRS:
        for path in sorted((_PACKAGE_ROOT / sub).rglob("*.py")):
            if path.name in _TABLE_MODULES or any(mark in path.read_text() for mark in _DEFINES_KERNELS):
                files.append(path)
    return files


def game_of_source(path: str | Path, games: Collection[str]) -> str | None:
    """The game whose own kernel source `path` is (envs/<game>/..., encoders/<game>.py,
    agents/heuristics/<game>.py), or None for a shared one."""
    parts = Path(path).resolve().relative_to(_PACKAGE_ROOT).parts
    if parts[0] == "envs" and len(parts) > 2 and parts[1] in games:
        return parts[1]
    if (parts[0] == "encoders" or parts[:2] == ("agents", "heuristics")) and Path(parts[-1]).stem in games:
        return Path(parts[-1]).stem
    return None


@functools.cache
def _kernel_sources_by_game() -> dict[str | None, tuple[Path, ...]]:
    """The kernel source files by game (None: shared); the games are the folders of envs/ holding kernel sources."""
    files = kernel_source_files()
    games = {path.relative_to(_PACKAGE_ROOT).parts[1] for path in files
             if path.relative_to(_PACKAGE_ROOT).parts[0] == "envs" and len(path.relative_to(_PACKAGE_ROOT).parts) > 2}
    groups: dict[str | None, list[Path]] = {}
    for path in files:
        groups.setdefault(game_of_source(path, games), []).append(path)
    return {game: tuple(paths) for game, paths in groups.items()}


@functools.cache
def kernel_sources_fingerprint(game: str | None = None) -> bytes:
    """sha256 over the path and contents of the kernel source files a kernel may depend on: the shared ones
    and `game`'s own, or every one when `game` is None (`kernel_source_files`)."""
    groups = _kernel_sources_by_game()
    digest = hashlib.sha256()
    for path in kernel_source_files():
        if game is None or path in groups.get(None, ()) or path in groups.get(game, ()):
            digest.update(path.relative_to(_PACKAGE_ROOT).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.digest()


def kernel_fingerprint_of(py_file: str | Path) -> bytes:
    """The fingerprint a kernel defined in `py_file` is stamped with: its game's, or all sources' when shared."""
    return kernel_sources_fingerprint(game_of_source(py_file, [g for g in _kernel_sources_by_game() if g]))


def _fingerprint_cache_locators() -> None:
    """Put fingerprinted copies of numba's file-backed cache locators first in its search order, for
    functions defined in this package only (numba's own locators still serve everything else)."""
    impl = getattr(numba_caching, "CacheImpl", None) or getattr(numba_caching, "_CacheImpl", None)
    names = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")
    bases = [getattr(numba_caching, n, None) or getattr(numba_caching, "_" + n, None) for n in names]
    if impl is None or not hasattr(impl, "_locator_classes"):
        _require(numba_caching, "_CacheImpl._locator_classes")
    for name, base in zip(names, bases):
        if base is None:
            _require(numba_caching, name)
    if getattr(impl, "_meeple_fingerprinted", False):
        return
    root = str(_PACKAGE_ROOT) + os.sep
    fingerprinted = []
    for base in bases:
        class Fingerprinted(base):  # type: ignore[misc, valid-type]
            def get_source_stamp(self) -> Any:
                # (the bounds checks and this module's code generation change the machine code, not the
                # sources: stamped too, so entries compiled with and without them can share a cache folder)
                from meeple.envs.jit import bounds_checked

                return (super().get_source_stamp(), kernel_fingerprint_of(self._py_file), bounds_checked(),
                        CODEGEN_HOOKS)

            @classmethod
            def from_function(cls, py_func: Any, py_file: str) -> Any:
                if not os.path.abspath(py_file).startswith(root):
                    return None
                return super().from_function(py_func, py_file)

            if base.__name__.lstrip("_") == "UserProvidedCacheLocator":
                @classmethod
                def get_suitable_cache_subpath(cls, py_file: str) -> str:
                    # numba names the folder by a hash of the source folder's absolute path; the path inside
                    # the package instead lets one NUMBA_CACHE_DIR serve every copy of these sources (CI's
                    # clean checkouts: .ci/run): the stamps above still refuse entries of other sources
                    folder = Path(py_file).resolve().parent.relative_to(_PACKAGE_ROOT)
                    return "_".join(("meeple", *folder.parts))

        Fingerprinted.__name__ = Fingerprinted.__qualname__ = "Fingerprinted" + base.__name__.lstrip("_")
        fingerprinted.append(Fingerprinted)
    impl._locator_classes = [*fingerprinted, *impl._locator_classes]
    impl._meeple_fingerprinted = True


_fingerprint_cache_locators()


# --- calling a kernel without the dispatcher's typing ------------------------------------------------

def compiled_entry(dispatcher: Any, args: tuple) -> Any:
    """The compiled entry point numba's dispatcher runs for exactly these `args`, or None (not compiled
    yet, running as Python, or any surprise from numba's internals: the caller then keeps calling the
    dispatcher). A kernel declared `f(a, b, *fields)` takes the star arguments as one tuple there:
    `entry(a, b, fields)`.

    Why: a call through the dispatcher first works out the numba type of every argument to pick the
    machine code. A one-row AEC step passes ~60 arrays (the step's buffers and every State field), and
    that typing took ~2.2 us of a 10-20 us step; the entry point alone unboxes them in ~0.5 us. It is
    only safe for arguments whose numba types cannot differ from those it was looked up with: the
    caller's to keep (`StepObserve`: its own buffers, and States whose field dtypes and shapes
    `Game.check_state` fixed and whose arrays it checked for layout and flags). The lookup types every
    argument in Python (~0.7 ms for 60): once, not per call."""
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads:
        return None
    try:
        arg_types = tuple(dispatcher.typeof_pyval(a) for a in args)
        _, folded = dispatcher._compiler.fold_argument_types(arg_types, {})
        wanted = _tuples_flattened(folded)
        for key, compiled in overloads.items():
            # (a version loaded from the cache keys the star arguments as a Tuple, a fresh compile as a
            # StarArgTuple: compared element by element)
            if _tuples_flattened(key) == wanted and not _is_callee_only(compiled):
                return compiled.entry_point
    except Exception:  # numba's internals moved: the dispatcher stays the way in
        return None
    return None


def _tuples_flattened(signature: Any) -> tuple:
    return tuple(tuple(t.types) if isinstance(t, types.BaseTuple) else t for t in signature)


# --- what numba's cache holds ------------------------------------------------------------------------------

def _cache_of(dispatcher: Any) -> Any:
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or not hasattr(cache, "_cache_file") or not hasattr(cache._cache_file, "_load_index"):
        _require(dispatcher, "_cache._cache_file._load_index")
    return cache


def has_cached_code(dispatcher: Any) -> bool:
    """Whether numba's cache holds machine code of this kernel (for any argument types)."""
    return bool(_cache_of(dispatcher)._cache_file._load_index())


def cache_path(dispatcher: Any) -> str:
    """The folder numba caches this kernel's machine code in."""
    return str(getattr(_cache_of(dispatcher), "_cache_path", "numba's cache"))
