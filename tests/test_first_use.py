"""First use without the wait (meeple.envs.first_use): kernels missing from numba's cache run as Python while
a background process compiles them, with the same results as compiled.

The subprocesses here get an empty NUMBA_CACHE_DIR, so every kernel call in them misses the cache:
- MEEPLE_COMPILE=python: nothing compiles, every kernel runs as Python through numba's first-call hook;
  its games must equal the compiled games of this process, bit for bit;
- MEEPLE_COMPILE=background with a stand-in for the compile command (a sleep, or a failure): the game is
  usable at once, interpreted, and the switch, the lock shared between processes and a failed compile
  behave as documented. (The real background compile is `benchmarks/cold_start.py`'s measurement: it
  takes minutes of CPU per game.)
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, make, make_env

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def digest(name: str, aec_steps: int = 40, batch_steps: int = 12) -> str:
    """A hash of everything a short seeded game shows: the AEC env's observations, masks and rewards, the
    batched core's states (B = 3) and the heuristic's moves."""
    h = hashlib.sha256()
    env = make_env(name, num_players=2)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(aec_steps):
        obs, reward, terminated, truncated, _ = env.last()
        h.update(np.ascontiguousarray(obs["observation"]).tobytes())
        h.update(np.ascontiguousarray(obs["action_mask"]).tobytes())
        h.update(np.float64(reward).tobytes())
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset(seed=8)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = make(name, num_players=2)
    heuristic = importlib.import_module(GAMES[name].heuristic).Heuristic()
    state = game.init(np.random.default_rng(3), 3)
    rng = np.random.default_rng(3)
    for step in range(batch_steps):
        mask = game.legal_action_mask(state)
        h.update(mask.tobytes())
        actions = heuristic.act(game, state, rng) if step % 3 == 0 else sample_masked(mask, rng)
        h.update(np.asarray(actions, dtype=np.int64).tobytes())
        state = game.step(state, actions, rng)
        for field in state:
            h.update(np.ascontiguousarray(field).tobytes())
    return h.hexdigest()


def run_python(code: str, mode: str, cache_dir: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "MEEPLE_COMPILE": mode, "MEEPLE_QUIET": "0",
           "PYTHONPATH": os.path.join(REPO, "tests") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_interpreted_kernels_equal_compiled(name, tmp_path):
    code = f"""
        import json
        from meeple.envs import numba_hooks as jit
        from test_first_use import digest
        d = digest({name!r})
        print(json.dumps({{"digest": d, "interpreted": len(jit._interpreted),
                           "compiled": sum(bool(k.overloads) for k in jit.KERNELS)}}))
    """
    proc = run_python(code, "python", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["compiled"] == 0, "a kernel compiled although MEEPLE_COMPILE=python"
    assert out["interpreted"] > 5
    assert out["digest"] == digest(name)


BACKGROUND = """
    import json, sys, time
    import numpy as np
    from meeple.envs import first_use, make_env
    from meeple.envs import numba_hooks as jit
    first_use._warm_command = lambda game: [sys.executable, "-c", {stand_in!r}]
    env = make_env("carpe_diem", num_players=2)
    env.reset(seed=0)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    report = {{"compiling": first_use.compiling(), "interpreting": jit.INTERPRETING.on,
               "own_compile": first_use._compiles["carpe_diem"].proc is not None,
               "compiled": sum(bool(k.overloads) for k in jit.KERNELS)}}
    print(json.dumps(report), flush=True)
    {then}
    report = {{"compiling": first_use.compiling(), "interpreting": jit.INTERPRETING.on,
               "failed": first_use._compiles["carpe_diem"].failed}}
    print(json.dumps(report), flush=True)
"""


def reports(proc: subprocess.CompletedProcess) -> list[dict]:
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [json.loads(line) for line in proc.stdout.strip().splitlines() if line.startswith("{")]


def test_background_compile_interprets_until_it_ends(tmp_path):
    code = BACKGROUND.format(stand_in="import time; time.sleep(2)", then="first_use.wait_for_kernels()")
    proc = run_python(code, "background", str(tmp_path))
    before, after = reports(proc)
    assert before == {"compiling": ["carpe_diem"], "interpreting": True, "own_compile": True, "compiled": 0}
    assert after == {"compiling": [], "interpreting": False, "failed": False}
    assert "compiling the CarpeDiem kernels in the background" in proc.stderr


def test_one_background_compile_per_game_and_cache(tmp_path):
    """A second process finds the lock held: it starts no compile of its own and interprets until the first
    process's compile ends."""
    first = BACKGROUND.format(stand_in="import time; time.sleep(8)", then="first_use.wait_for_kernels()")
    second = BACKGROUND.format(stand_in="raise SystemExit(3)", then="first_use.wait_for_kernels()")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MEEPLE_COMPILE": "background", "MEEPLE_QUIET": "0"}
    one = subprocess.Popen([sys.executable, "-c", textwrap.dedent(first)], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        line = one.stdout.readline()  # the first process has started its compile (and holds the lock)
        assert json.loads(line)["own_compile"] is True
        proc = run_python(second, "background", str(tmp_path))
    finally:
        out, err = one.communicate(timeout=120)
    before, after = reports(proc)
    assert before["own_compile"] is False and before["interpreting"] is True
    assert after == {"compiling": [], "interpreting": False, "failed": False}
    assert "compiling in another process" in proc.stderr
    assert one.returncode == 0, err[-3000:]


def test_failed_background_compile_says_so_and_compiles_here(tmp_path):
    # (the stand-in fails after the first use: a failure before it would compile the game here, for a minute)
    code = BACKGROUND.format(stand_in="import sys, time; time.sleep(5); print('no compiler here'); sys.exit(3)",
                             then="first_use.wait_for_kernels()")
    proc = run_python(code, "background", str(tmp_path))
    _, after = reports(proc)
    assert after == {"compiling": [], "interpreting": False, "failed": True}
    assert "background compile of carpe_diem failed (exit code 3)" in proc.stderr
    assert "no compiler here" in proc.stderr


def test_compile_mode_is_checked(tmp_path):
    code = """
        from meeple.envs import make
        for attempt in range(2):
            try:
                make('carpe_diem')
            except ValueError as error:
                print(error)
    """
    proc = run_python(code, "later", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["MEEPLE_COMPILE must be one of ['background', 'wait', 'python'], got 'later'"] * 2


# A stand-in for the background compile that "compiles" by copying this checkout's numba cache (written by
# scripts/setup.sh) into the process's empty NUMBA_CACHE_DIR, then goes on running for a while.
COPY_CACHE = """
import os, shutil, sys, time
time.sleep(1)
from meeple.envs import GAMES, make_encoder
from meeple.envs import numba_hooks as jit
import importlib
importlib.import_module(GAMES["carpe_diem"].heuristic)
make_encoder("carpe_diem", __import__("meeple.envs", fromlist=["make"]).make("carpe_diem"))
done = set()
for k in jit.KERNELS:
    src = os.path.join(os.path.dirname(k.py_func.__code__.co_filename), "__pycache__")
    dst = k._cache._cache_path
    if (src, dst) in done or not os.path.isdir(src):
        continue
    done.add((src, dst))
    os.makedirs(dst, exist_ok=True)
    for name in os.listdir(src):
        if name.endswith((".nbi", ".nbc")):
            shutil.copy2(os.path.join(src, name), os.path.join(dst, name))
print("copied", flush=True)
time.sleep(float(sys.argv[1]))
"""

RETRY = """
import json, sys, time
import numpy as np
from meeple.envs import first_use, make_env
from meeple.envs import numba_hooks as jit
# (the compile "ends" 25 s after the copy: time for a kernel call from an interpreted step to load, also on a
# busy machine, where one step of Carpe Diem as Python can take seconds)
first_use._warm_command = lambda game: [sys.executable, "-c", {copy!r}, "25"]
env = make_env("carpe_diem", num_players=2)
env.reset(seed=0)
start = time.monotonic()
loaded_while_compiling = False
while time.monotonic() - start < 40:
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        env.reset()
        continue
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    if any(k.overloads for k in jit.KERNELS):
        loaded_while_compiling = first_use.compiling() == ["carpe_diem"]
        break
first_use.wait_for_kernels()
for _ in range(50):
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        env.reset()
        continue
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
print(json.dumps({{"loaded_while_compiling": loaded_while_compiling, "interpreting": jit.INTERPRETING.on,
                   "loaded": sum(bool(k.overloads) for k in jit.KERNELS),
                   "compiled_here": [k.py_func.__name__ for k in jit.KERNELS for sig in k.overloads
                                     if not k.stats.cache_hits.get(sig)]}}))
"""


def test_kernels_switch_to_machine_code_as_the_cache_fills(tmp_path):
    """While the background compile still runs, a kernel it has written to the cache loads at a later call
    (the 2 s retry); after it, the game runs on loaded machine code and compiles nothing itself."""
    here = os.path.join(REPO, "envs", "carpe_diem", "__pycache__")
    if not os.path.isdir(here) or not any(n.endswith(".nbi") for n in os.listdir(here)):
        pytest.skip("needs this checkout's numba cache (scripts/setup.sh writes it)")
    code = RETRY.format(copy=COPY_CACHE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MEEPLE_COMPILE": "background", "MEEPLE_QUIET": "1"}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["loaded_while_compiling"] is True
    assert out["interpreting"] is False and out["loaded"] >= 1  # (how many depends on the steps played)
    assert out["compiled_here"] == []  # every kernel came from the cache
