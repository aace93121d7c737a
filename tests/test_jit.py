"""The shared kernel library (meeple.envs.jit) against plain numpy / python references."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.envs import jit
from meeple.envs.core import extend_uniforms
from meeple.envs.jit import (
    HEX_DQ, HEX_DR, best_legal, bits_to_uniform, find_root, hex_cell, hex_lattice, hex_neighbour, kernel,
    resample_unseen, shuffle_prefix, shuffle_stream, splitmix64, splitmix_uniform, splitmix_uniforms,
    square_neighbour, uniform_index, union_roots,
)

MASK64 = (1 << 64) - 1


def ref_splitmix_stream(state: int, n: int) -> list[float]:
    """Textbook splitmix64 in python ints."""
    out = []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z ^= z >> 31
        out.append((z >> 11) / 2.0 ** 53)
    return out


def ref_shuffle(arr: list, k: int, draws: list[float]) -> list:
    arr = list(arr)
    n = len(arr)
    for i in range(k):
        j = i + min(max(int(draws[i] * (n - i)), 0), n - i - 1)
        arr[i], arr[j] = arr[j], arr[i]
    return arr


# kernels with inline="always" are called from a small jitted wrapper, the way the games use them
@kernel
def _prefix_nb(arr, off, n, k, u, b, col):
    shuffle_prefix(arr, off, n, k, u, b, col)


@kernel
def _stream_nb(arr, off, n, stream):
    shuffle_stream(arr, off, n, stream)


@kernel
def _uniforms_nb(stream, out):
    for i in range(out.shape[0]):
        out[i] = splitmix_uniform(stream)


@kernel
def _resample_nb(pool, off, items, count, seen, stream):
    return resample_unseen(pool, off, items, count, seen, stream)


@kernel
def _components_nb(parent, edges, roots):
    for i in range(parent.shape[0]):
        parent[i] = i
    for e in range(edges.shape[0]):
        union_roots(parent, edges[e, 0], edges[e, 1])
    for i in range(parent.shape[0]):
        roots[i] = find_root(parent, i)


@kernel
def _square_nb(width, height, out):
    for cell in range(width * height):
        for side in range(4):
            out[cell, side] = square_neighbour(cell, side, width, height)


@kernel
def _hex_nb(index, cell_q, cell_r, out, probe):
    for cell in range(cell_q.shape[0]):
        for d in range(6):
            out[cell, d] = hex_neighbour(index, cell_q, cell_r, cell, d)
    for i in range(probe.shape[0]):
        probe[i, 2] = hex_cell(index, probe[i, 0], probe[i, 1])


@kernel
def _best_nb(mask, values, out):
    for b in range(mask.shape[0]):
        out[b] = best_legal(mask[b], values[b])


def test_uniform_index_clamps():
    assert uniform_index(0.0, 5) == 0
    assert uniform_index(0.999999999, 5) == 4
    assert uniform_index(1.0, 5) == 4
    assert uniform_index(-0.1, 5) == 0


@pytest.mark.parametrize("seed", [0, 1, 12345, 2 ** 63 - 1, MASK64])
def test_splitmix_numba_and_numpy_agree_with_reference(seed):
    ref = ref_splitmix_stream(seed, 20)
    stream = np.array([seed], dtype=np.uint64)
    out = np.empty(20)
    _uniforms_nb(stream, out)
    assert out.tolist() == ref
    assert splitmix_uniforms(np.array([seed], dtype=np.uint64), 20)[0].tolist() == ref
    assert bits_to_uniform(splitmix64(np.array([seed], dtype=np.uint64)))[0] == ref[0]


def test_extend_uniforms_is_the_stream_seeded_from_the_last_column():
    u = np.random.default_rng(3).random((4, 2))
    out = extend_uniforms(u, 7)
    assert (out[:, :2] == u).all()
    for row in range(4):
        seed = int(np.uint64(u[row, -1] * 9007199254740992.0)) ^ 0x9E3779B97F4A7C15
        assert out[row, 2:].tolist() == ref_splitmix_stream(seed, 5)


@pytest.mark.parametrize("n, k", [(1, 0), (5, 4), (16, 15), (14, 4), (11, 11), (7, 0)])
def test_shuffle_prefix_matches_reference(n, k):
    rng = np.random.default_rng(n * 100 + k)
    u = rng.random((3, 40))
    u[1, :] = 0.9999999999999999  # the clamp at n - i - 1
    for b in range(3):
        col, off = 2, 3
        arr = np.full(off + n + 2, -7, dtype=np.int16)
        arr[off:off + n] = np.arange(n) + 10
        _prefix_nb(arr, off, n, k, u, b, col)
        assert arr[off:off + n].tolist() == ref_shuffle(list(range(10, 10 + n)), k, list(u[b, col:col + k]))
        assert (arr[:off] == -7).all() and (arr[off + n:] == -7).all()


@pytest.mark.parametrize("n", [0, 1, 2, 9, 30])
def test_shuffle_stream_matches_reference(n):
    seed = 987654321 + n
    arr = np.arange(n + 4, dtype=np.int32)
    stream = np.array([seed], dtype=np.uint64)
    _stream_nb(arr, 4, n, stream)
    draws = ref_splitmix_stream(seed, max(n - 1, 0))
    assert arr[4:].tolist() == ref_shuffle(list(range(4, 4 + n)), max(n - 1, 0), draws)
    assert arr[:4].tolist() == [0, 1, 2, 3]
    assert int(stream[0]) == (seed + max(n - 1, 0) * 0x9E3779B97F4A7C15) & MASK64


def test_shuffle_stream_is_uniform_on_three_items():
    arr = np.zeros(3, dtype=np.int64)
    stream = np.array([42], dtype=np.uint64)
    counts: dict[tuple, int] = {}
    for _ in range(6000):
        arr[:] = [0, 1, 2]
        _stream_nb(arr, 0, 3, stream)
        counts[tuple(arr)] = counts.get(tuple(arr), 0) + 1
    assert len(counts) == 6 and min(counts.values()) > 850


def test_resample_unseen_gathers_then_shuffles():
    items = np.array([5, 3, 8, 1, 9, 0], dtype=np.int16)
    seen = np.zeros(10, dtype=np.bool_)
    seen[[3, 9]] = True
    pool = np.full(8, -1, dtype=np.int16)
    stream = np.array([77], dtype=np.uint64)
    n = _resample_nb(pool, 1, items, 5, seen, stream)  # items[5] is beyond count
    assert n == 3
    assert pool[0] == -1 and (pool[4:] == -1).all()
    assert pool[1:4].tolist() == ref_shuffle([5, 8, 1], 2, ref_splitmix_stream(77, 2))


def test_union_find_components():
    rng = np.random.default_rng(5)
    n = 40
    edges = rng.integers(0, n, size=(25, 2))
    parent = np.empty(n, dtype=np.int32)
    roots = np.empty(n, dtype=np.int64)
    _components_nb(parent, edges, roots)
    label = list(range(n))  # reference: relabel until stable

    def find(x):
        while label[x] != x:
            x = label[x]
        return x
    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            label[max(ra, rb)] = min(ra, rb)
    expect = [find(i) for i in range(n)]
    assert roots.tolist() == expect  # same partition, and the root is the smallest member


def test_square_neighbour_on_a_3_by_2_board():
    out = np.empty((6, 4), dtype=np.int64)
    _square_nb(3, 2, out)
    # cells 0 1 2 / 3 4 5; sides N, E, S, W
    assert out.tolist() == [
        [-1, 1, 3, -1], [-1, 2, 4, 0], [-1, -1, 5, 1],
        [0, 4, -1, -1], [1, 5, -1, 3], [2, -1, -1, 4],
    ]
    assert square_neighbour(np.int8(35), 1, 6, 6) == -1  # python path too (NUMBA_DISABLE_JIT style)


def test_hex_lattice_radius_one():
    # a centre and its ring, ring in HEX_D* order: cell d + 1 is the centre's neighbour in direction d
    coords = [(0, 0)] + [(int(HEX_DQ[d]), int(HEX_DR[d])) for d in range(6)]
    index, cq, cr, neighbours = hex_lattice(coords)
    assert index.shape == (3, 3) and (index >= 0).sum() == 7
    assert neighbours[0].tolist() == [1, 2, 3, 4, 5, 6]
    for d in range(6):
        ring = d + 1
        assert neighbours[ring, (d + 3) % 6] == 0  # back to the centre
        assert neighbours[ring, (d + 2) % 6] == (d + 1) % 6 + 1  # the next ring cell counter-clockwise
        assert neighbours[ring, (d + 4) % 6] == (d - 1) % 6 + 1
        assert (neighbours[ring] >= 0).sum() == 3  # the other three are off the board
    out = np.empty((7, 6), dtype=np.int64)
    probe = np.array([[1, 1, 0], [0, 0, 0], [2, 2, 0], [3, 1, 0], [-1, 0, 0]], dtype=np.int64)
    _hex_nb(index, cq, cr, out, probe)
    assert (out == neighbours).all()
    # local (1, 1) is the centre; (0, 0) and (2, 2) are the two corners of the 3x3 table outside the hexagon
    assert probe[:, 2].tolist() == [0, -1, -1, -1, -1]
    with pytest.raises(ValueError):
        hex_lattice([(0, 0), (0, 0)])


def test_best_legal():
    mask = np.array([[False, True, True, True], [False] * 4, [True, False, True, False]])
    values = np.array([[9.0, 1.0, 3.0, 3.0], [1.0, 2.0, 3.0, 4.0], [-1.0, 5.0, -1.0, 0.0]])
    out = np.empty(3, dtype=np.int64)
    _best_nb(mask, values, out)
    assert out.tolist() == [2, -1, 0]
    rng = np.random.default_rng(0)
    mask = rng.random((200, 12)) < 0.3
    values = rng.integers(0, 4, size=(200, 12)).astype(np.float64)
    out = np.empty(200, dtype=np.int64)
    _best_nb(mask, values, out)
    expect = [int(np.argmax(np.where(m, v, -np.inf))) if m.any() else -1 for m, v in zip(mask, values)]
    assert out.tolist() == expect


def test_library_names_stay_importable():
    for name in ("kernel", "uniform_index", "splitmix_uniform", "SPLITMIX_GOLDEN", "KERNEL_OPTIONS"):
        assert hasattr(jit, name)


@kernel
def _read_columns(u, cols, out):
    for b in range(u.shape[0]):
        for i in range(cols):
            out[b, i] = jit.uniform_at(u, b, i)


@pytest.mark.parametrize("width", [1, 3, 16])
def test_uniform_at_reads_past_the_width_as_extend_uniforms(width):
    """Columns past u's width are exactly the ones core.extend_uniforms appends (the row's stream)."""
    u = np.random.default_rng(width).random((5, width))
    out = np.empty((5, 64))
    _read_columns(u, 64, out)
    assert np.array_equal(out, extend_uniforms(u, 64))


def test_cache_entries_are_stamped_with_the_kernel_sources_they_may_depend_on():
    """A kernel's cached machine code is keyed on kernel sources beyond its own file: kernels inline helpers
    of other files, and a cache built with an old helper must not load. A game's kernel is keyed on the shared
    sources and its own game's (so editing one game recompiles that game only); a shared kernel on all."""
    from meeple.envs import numba_hooks
    from meeple.envs.hadara import entries
    if jit.numba_config.DISABLE_JIT:  # plain Python functions: nothing is compiled, so nothing is cached
        assert not hasattr(entries.step_nb, "_cache")
        return
    stamp = entries.step_nb._cache._cache_file._source_stamp
    assert stamp[1] == numba_hooks.kernel_sources_fingerprint("hadara") != numba_hooks.kernel_sources_fingerprint()
    assert type(entries.step_nb._cache._impl.locator).__name__.startswith("Fingerprinted")
    assert jit.first_illegal._cache._cache_file._source_stamp[1] == numba_hooks.kernel_sources_fingerprint()
    assert numba_hooks.kernel_sources_fingerprint("hadara") != numba_hooks.kernel_sources_fingerprint("utopia")


def test_a_games_kernel_sources_import_no_other_games_modules():
    """What makes a game's cache stamp sound: its kernels can inline only its own and the shared sources."""
    import ast

    from meeple.envs import GAMES, numba_hooks
    groups = numba_hooks._kernel_sources_by_game()
    assert set(GAMES) <= set(groups) and groups[None], "every game has kernel sources of its own, and some are shared"
    for game, paths in groups.items():
        others = set(GAMES) - {game}
        for path in paths:
            for node in ast.walk(ast.parse(path.read_text())):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else (
                    [a.name for a in node.names] if isinstance(node, ast.Import) else [])
                for name in names:
                    assert not others & set(name.split(".")), f"{path} imports {name}, another game's module"
                    if game is None:
                        assert not set(GAMES) & set(name.split(".")), f"shared {path} imports a game's module {name}"


def test_lowest_bit_is_the_index_of_the_lowest_set_bit():
    from meeple.envs.jit import lowest_bit
    for i in range(32):
        assert lowest_bit(np.int64(1) << i) == i
    rng = np.random.default_rng(7)
    for x in rng.integers(1, 1 << 32, size=2000):
        assert lowest_bit(np.int64(x)) == (int(x) & -int(x)).bit_length() - 1



def _fresh_kernels():
    """(add, caller, other): new kernels with the package's hooks (`numba_hooks.adopt`) and no cache, so that
    what they compile is compiled in this test."""
    from numba import njit

    from meeple.envs.numba_hooks import adopt

    def hooked(fn):
        dispatcher = njit(nogil=True)(fn)
        adopt(dispatcher, None)
        return dispatcher

    def add(a, k):
        return a + k

    add = hooked(add)

    def caller(a):
        return add(a, 0) + add(a, 1) + add(np.int8(a), np.int16(2))

    def other(a):
        return add(a, 3)

    return add, hooked(caller), hooked(other)


@pytest.mark.skipif(jit.numba_config.DISABLE_JIT, reason="kernels are plain Python with the JIT off")
def test_a_kernel_called_with_constants_and_narrow_ints_compiles_once():
    """Calls from kernels are typed with literals and narrow signed integers widened to int64
    (`numba_hooks`): one compiled version of the helper serves every such call, with the same values."""
    add, caller, _ = _fresh_kernels()
    assert caller(np.int64(5)) == 5 + 6 + 7
    assert len(add.overloads) == 1


@pytest.mark.skipif(jit.numba_config.DISABLE_JIT, reason="kernels are plain Python with the JIT off")
def test_compile_only_runs_every_other_kernel_called_from_python_as_python():
    """`compile_only` (envs/warm.py's parts): the kernels named compile, with what they call; any other
    kernel called from Python runs its Python source, with the same result."""
    from meeple.envs import numba_hooks

    add, caller, other = _fresh_kernels()
    numba_hooks.compile_only(caller)
    try:
        assert other(np.int64(4)) == 7
        assert not other.overloads
        assert caller(np.int64(1)) == 1 + 2 + 3
        assert caller.overloads and add.overloads  # (add compiled as what caller calls)
    finally:
        numba_hooks.compile_only(None)
    assert other(np.int64(4)) == 7 and other.overloads


@pytest.mark.skipif(jit.numba_config.DISABLE_JIT, reason="kernels are plain Python with the JIT off")
def test_helpers_and_cold_kernels_compile_at_the_lower_llvm_level(monkeypatch):
    """A kernel compiled because another kernel calls it, or declared cold, runs LLVM's passes at
    `HELPER_OPT_LEVEL`; a kernel Python calls, at `ENTRY_OPT_LEVEL` (its callees' code is optimized again in it)."""
    from numba.core import config

    from meeple.envs import numba_hooks

    levels: list[tuple[str, int]] = []
    builder = numba_hooks._numba_pass_builder

    def recording(self, **options):
        levels.append((compiling[-1], options.get("opt", config.OPT)))
        return builder(self, **options)

    monkeypatch.setattr(numba_hooks, "_numba_pass_builder", recording)
    compiling: list[str] = []
    add, caller, other = _fresh_kernels()
    for name, dispatcher in (("add", add), ("caller", caller), ("other", other)):
        compile_ = dispatcher._compiler._inner.compile

        def tracked(args, return_type, name=name, compile_=compile_):
            compiling.append(name)
            try:
                return compile_(args, return_type)
            finally:
                compiling.pop()

        monkeypatch.setattr(dispatcher._compiler._inner, "compile", tracked)
    other._compiler.depth = 2  # as `@kernel(cold=True)` sets it
    assert caller(np.int64(1)) == 1 + 2 + 3 and other(np.int64(4)) == 7
    full = {opt for name, opt in levels if name == "caller" and opt > 0}  # (numba's own cheap pass runs at 0)
    lower = {opt for name, opt in levels if name in ("add", "other") and opt > 0}
    assert full == {min(numba_hooks.ENTRY_OPT_LEVEL, int(config.OPT))} and lower == {numba_hooks.HELPER_OPT_LEVEL}


HELPER_MODULE = """
from meeple.envs.jit import kernel

@kernel
def add(a, k):
    return a + k

@kernel(inline="always")
def twice(a):
    return a * 2

@kernel
def caller(a):
    return twice(add(a, 1))
"""


@pytest.mark.skipif(jit.numba_config.DISABLE_JIT, reason="kernels are plain Python with the JIT off")
def test_a_helper_compiled_for_its_caller_has_no_python_entry_until_python_calls_it(tmp_path, monkeypatch):
    """A kernel compiled because another kernel calls it is compiled without numba's Python wrappers or machine
    code of its own and kept out of the disk cache (`numba_hooks`: "kernels called only from kernels"); a call
    from Python afterwards gets the usual kind, compiled and cached, with the same result, and the caller keeps
    working. An `inline="always"` kernel is compiled once and inlined by LLVM: no call to it is left."""
    import importlib.util

    from numba.core import config

    from meeple.envs import numba_hooks

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "helper_module.py").write_text(HELPER_MODULE)
    spec = importlib.util.spec_from_file_location("helper_module", tmp_path / "helper_module.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def cached(name):
        return sorted(p.name for p in (tmp_path / "cache").rglob(f"*{name}-*.nbi"))

    assert module.caller(np.int64(4)) == 10
    assert cached("caller") and not cached("add")
    assert module.add.overloads and all(numba_hooks._is_callee_only(c) for c in module.add.overloads.values())
    for compiled in module.add.overloads.values():
        assert getattr(compiled.library, numba_hooks.LINK_ONLY, False)
        assert not compiled.library.codegen._engine.is_symbol_defined(compiled.fndesc.mangled_name)
    assert len(module.twice.overloads) == 1 and module.twice.targetoptions["forceinline"] is True
    assert module.caller.targetoptions["forceinline"] is False  # (not passed on from an inlined caller)
    caller_ir = "\n".join(module.caller.inspect_llvm().values())
    assert not [line for line in caller_ir.splitlines() if " call " in line and "twice" in line]
    assert module.add(np.int64(4), np.int64(1)) == 5  # from Python: compiled again with its wrappers
    assert cached("add") and not any(numba_hooks._is_callee_only(c) for c in module.add.overloads.values())
    assert module.caller(np.int64(5)) == 12
