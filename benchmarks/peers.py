"""meeple beside the peers a user would otherwise pick: random legal play at 2 players, steps/s, one run.

    python benchmarks/peers.py                                    # all games, all peers, 5 s per measurement
    python benchmarks/peers.py --seconds 3 --json peers.json      # save every figure
    python benchmarks/peers.py --games hadara --peers openspiel pgx --pgx-batch-sizes 256
    python benchmarks/peers.py --skip-install --peers-venv /tmp/peers   # never create or fill the venv

Peers (see benchmarks/README.md), each measured by a small worker program run with the python of a
separate virtual environment that this script creates and fills with pinned versions (default
benchmarks/.peers/), so none of them enters the project's own environment:
(a) `pettingzoo`: PettingZoo `connect_four_v3.env()`, the AEC loop with observation and mask every step;
(b) `openspiel`: OpenSpiel backgammon from Python, the observation tensor of the player to move every
decision, chance nodes sampled from `chance_outcomes()` and not counted;
(c) `pgx`: pgx backgammon, `jax.jit` of a vmapped step with the random legal action sampled inside the jitted
function and finished rows restarted with `env.init`, at each `--pgx-batch-sizes`, compile time excluded.
A peer that cannot be installed or run is reported as unavailable with the reason; the rest carry on.
meeple: `benchmarks/throughput.py` for each game in this interpreter (rows `aec`, `core`, `core+encode`).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tyro

from meeple.envs import GAMES

os.environ.setdefault("MEEPLE_COMPILE", "wait")  # timed: compile before the first step, never run kernels as Python

HERE = Path(__file__).resolve().parent
THROUGHPUT = HERE / "throughput.py"

# Versions checked to install and run on Python 3.11 here (2026-11-26). numpy is pinned with every peer so the
# three workers share one numpy (the project environment's version when the pins were checked).
PINS: dict[str, list[str]] = {
    "pettingzoo": ["pettingzoo[classic]==1.27.0", "numpy==2.4.6"],
    "openspiel": ["open_spiel==2.0.2", "numpy==2.4.6"],
    "pgx": ["pgx==2.6.0", "jax==0.10.2", "jaxlib==0.10.2", "numpy==2.4.6"],
}
PEER_LABELS = {
    "pettingzoo": "PettingZoo connect_four_v3 AEC",
    "openspiel": "OpenSpiel backgammon + observation",
    "pgx": "pgx backgammon (CPU)",
}

# The suite's aims against the peers (benchmarks/README.md).
AEC_VS_OPENSPIEL = 1.0
CORE_VS_PGX = 20.0
CORE_MIN = 2_000_000
CORE_ENCODE_MIN = 1_000_000
BATCH = 4096  # meeple's core rows compared with the peers


@dataclass
class Args:
    seconds: float = 5.0
    """wall-clock seconds per timed measurement (after a warm-up)"""
    games: tuple[str, ...] = tuple(GAMES)
    """meeple games to measure (meeple.envs.GAMES)"""
    peers: tuple[str, ...] = tuple(PINS)
    """peers to measure: pettingzoo, openspiel, pgx"""
    pgx_batch_sizes: tuple[int, ...] = (256, 4096)
    """batch sizes for pgx backgammon; the best of them is the one compared"""
    peers_venv: str | None = None
    """virtual environment holding the peers, created and filled here unless --skip-install (default:
    benchmarks/.peers beside this script, gitignored)"""
    skip_install: bool = False
    """never create or fill the peers venv: fail if it is missing, report peers whose packages are missing"""
    json: str | None = None
    """also write every figure to this file"""
    seed: int = 0
    """seed of the random players"""
    pairs: int = 8
    """paired AEC bursts per game: meeple's AEC loop and OpenSpiel's, --burst seconds each, alternating which
    goes first, in two long-lived worker processes; the ratio is taken within each pair, so a change of the
    machine's speed during the run moves both sides (0 skips them)"""
    burst: float = 0.5
    """seconds per paired burst"""
    record: bool = True
    """write the figures into benchmarks/results.json as entry `peers` (--no-record leaves it)"""


# --- worker programs, run with the peers venv's python; each prints one JSON line -------------------------

# Every worker samples the random legal action the way throughput.py's `aec` row does (a precomputed table of
# uniforms indexing the legal actions), so the sampler costs the same everywhere and the loops differ only in
# the library calls.

PETTINGZOO_WORKER = r"""
import json, sys, time
import numpy as np
from pettingzoo.classic import connect_four_v3
seconds, seed = float(sys.argv[1]), int(sys.argv[2])
u = np.random.default_rng(seed).random(1 << 16)

def run(env, seconds):
    # agent steps = actions taken; the dead-agent steps after the end (action None) are not counted
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = legal[int(u[steps & 0xFFFF] * len(legal))]
                steps += 1
            env.step(action)
        games += 1
        env.reset()
    return steps, games, time.perf_counter() - start

env = connect_four_v3.env()
env.reset(seed=seed)
run(env, min(0.5, seconds / 10))
steps, games, elapsed = run(env, seconds)
print(json.dumps({"steps": steps, "games": games, "seconds": elapsed}))
"""

OPENSPIEL_WORKER = r"""
import json, random, sys, time
import numpy as np
import pyspiel
seconds, seed = float(sys.argv[1]), int(sys.argv[2])
u = np.random.default_rng(seed).random(1 << 16).tolist()
chance_rng = random.Random(seed)
game = pyspiel.load_game("backgammon")

def run(seconds):
    # decision steps only: chance nodes (dice) are sampled and applied but not counted
    steps = games = chance = 0
    state = game.new_initial_state()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if state.is_terminal():
            games += 1
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            x = chance_rng.random()
            action = outcomes[-1][0]
            for a, p in outcomes:
                x -= p
                if x < 0:
                    action = a
                    break
            state.apply_action(action)
            chance += 1
        else:
            # the learner's input: the observation of the player to move, as the Python API returns it
            obs = state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(u[steps & 0xFFFF] * len(legal))])
            steps += 1
    return steps, games, chance, time.perf_counter() - start

run(min(0.5, seconds / 10))
if len(sys.argv) > 3 and sys.argv[3] == "serve":  # paired bursts: one line of seconds in, one JSON line out
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        steps, games, chance, elapsed = run(float(line))
        print(json.dumps({"steps": steps, "seconds": elapsed}), flush=True)
    sys.exit(0)
steps, games, chance, elapsed = run(seconds)
print(json.dumps({"steps": steps, "games": games, "chance_nodes": chance, "seconds": elapsed,
                  "observation_size": game.observation_tensor_size()}))
"""

# meeple's side of the paired AEC bursts (this interpreter): throughput.py's own `aec` row (`bench_aec`, one
# env per burst), served the same way as the OpenSpiel worker's, so both sides pay the same pipe round trip
MEEPLE_AEC_SERVER = r"""
import json, sys
sys.path.insert(0, sys.argv[3])  # the benchmarks directory
from throughput import Args, bench_aec
args = Args(game=sys.argv[1], num_players=2, seed=int(sys.argv[2]))
bench_aec(args, 0.5)  # warm-up (and the compile, if the cache lacks it)
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    row = bench_aec(args, float(line))
    print(json.dumps({"steps": row["steps"], "seconds": row["seconds"]}), flush=True)
"""

PGX_WORKER = r"""
import json, sys, time
import jax
import jax.numpy as jnp
import pgx
seconds, seed, batch = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
env = pgx.make("backgammon")
init = jax.vmap(env.init)
vstep = jax.vmap(env.step)

def restart(done, state, key):
    fresh = init(jax.random.split(key, batch))
    return jax.tree_util.tree_map(
        lambda f, s: jnp.where(done.reshape(done.shape + (1,) * (s.ndim - 1)), f, s), fresh, state)

@jax.jit
def step(state, key, steps, games):
    # One batched decision: a random legal action per row from the mask (masked logits), the vmapped step
    # (which also computes the observation), and finished rows replaced by fresh games so the batch stays full.
    key, k_act, k_step, k_init = jax.random.split(key, 4)
    live = ~(state.terminated | state.truncated)
    logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
    action = jax.random.categorical(k_act, logits, axis=-1)
    state = vstep(state, action, jax.random.split(k_step, batch))
    done = state.terminated | state.truncated
    # Under vmap a per-row cond (as in pgx.experimental.auto_reset) runs init for every row on every call;
    # one cond on the whole batch skips it when no row finished, which is the faster choice for pgx.
    state = jax.lax.cond(done.any(), lambda: restart(done, state, k_init), lambda: state)
    return state, key, steps + live.sum(), games + done.sum()

def run(state, key, seconds, stop_at_games=None):
    # Plays for `seconds`, or (warm-up) until `stop_at_games` games have finished if that comes first.
    steps = games = jnp.int32(0)
    pending = games
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, key, steps, games = step(state, key, steps, games)
        calls += 1
        # async dispatch: wait for the previous call, so at most two are in flight and the clock tracks the work
        pending.block_until_ready()
        if stop_at_games is not None and int(pending) >= stop_at_games:
            break
        pending = games
    steps.block_until_ready()
    return state, key, int(steps), int(games), time.perf_counter() - start, calls

key = jax.random.PRNGKey(seed)
key, k0 = jax.random.split(key)
state = jax.jit(init)(jax.random.split(k0, batch))
t0 = time.perf_counter()
state, key, first, _ = step(state, key, jnp.int32(0), jnp.int32(0))  # the first call compiles
first.block_until_ready()
compile_s = time.perf_counter() - t0
# Warm-up until about two games per row have finished, so games of all ages are mixed (the first to finish
# are the short ones): here pgx's batched step costs about twice as much while every game is young as at
# steady state. Capped at 30 s, which at large batches on a small machine stops short of that.
state, key, _, warm_games, warm_s, _ = run(state, key, 30.0, stop_at_games=2 * batch)
state, key, steps, games, elapsed, calls = run(state, key, seconds)
print(json.dumps({"steps": steps, "games": games, "seconds": elapsed, "calls": calls, "compile_s": compile_s,
                  "warmup_s": warm_s, "warmup_games": warm_games, "batch": batch, "jax": jax.__version__,
                  "devices": [str(d) for d in jax.devices()]}))
"""

WORKERS = {"pettingzoo": PETTINGZOO_WORKER, "openspiel": OPENSPIEL_WORKER, "pgx": PGX_WORKER}

CHECK_SNIPPET = r"""
import json, sys
from importlib.metadata import PackageNotFoundError, version
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = version(name)
    except PackageNotFoundError:
        out[name] = None
print(json.dumps(out))
"""


# --- the peers venv -------------------------------------------------------------------------------------

def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def dist_pins(peer: str) -> dict[str, str]:
    """`pettingzoo[classic]==1.27.0` -> {"pettingzoo": "1.27.0"}: the distributions to look for."""
    out = {}
    for req in PINS[peer]:
        name, ver = req.split("==")
        out[name.split("[")[0]] = ver
    return out


def installed_versions(python: Path, names: list[str]) -> dict[str, str | None]:
    proc = subprocess.run([str(python), "-c", CHECK_SNIPPET, *names], capture_output=True, text=True)
    if proc.returncode != 0:
        return dict.fromkeys(names)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def missing_pins(python: Path, peer: str) -> list[str]:
    """The pinned requirements of `peer` that the venv does not hold at the pinned version."""
    pins = dist_pins(peer)
    have = installed_versions(python, list(pins))
    return [f"{n}=={v}" for n, v in pins.items() if have.get(n) != v]


def prepare_venv(args: Args, peers: list[str]) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Create / fill the venv as needed. Returns (peer -> reason it is unavailable, peer -> versions)."""
    venv = Path(args.peers_venv)
    python = venv_python(venv)
    unavailable: dict[str, str] = {}
    if not python.exists():
        if args.skip_install:
            raise SystemExit(f"peers.py: error: no peers venv at {venv} (run without --skip-install to create it)")
        print(f"creating the peers venv at {venv}", file=sys.stderr)
        proc = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"]
            raise SystemExit(f"peers.py: error: could not create the peers venv at {venv}: {lines[-1]}")
    log = venv / "install.log"
    for peer in peers:
        missing = missing_pins(python, peer)
        if not missing:
            continue
        if args.skip_install:
            unavailable[peer] = f"not installed in {venv} (--skip-install): {' '.join(missing)}"
            continue
        # One pip call per peer: a peer with no wheel for this machine fails alone and the others carry on.
        print(f"installing {peer} into {venv}: {' '.join(PINS[peer])}", file=sys.stderr)
        with open(log, "a") as fh:
            proc = subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", *PINS[peer]],
                                  stdout=fh, stderr=subprocess.STDOUT)
        if proc.returncode != 0 or missing_pins(python, peer):
            unavailable[peer] = f"pip install {' '.join(PINS[peer])} failed (see {log})"
    versions = {p: {n: v or "?" for n, v in installed_versions(python, list(dist_pins(p))).items()}
                for p in peers if p not in unavailable}
    return unavailable, versions


def run_worker(python: Path, peer: str, argv: list[str], timeout: float) -> dict[str, Any]:
    """Run one worker program; its last stdout line is its JSON result, or the error is the reason."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}  # pgx on CPU: no probing for accelerators
    try:
        proc = subprocess.run([str(python), "-c", WORKERS[peer], *argv], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"available": False, "reason": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        return {"available": False, "reason": lines[-1] if lines else f"exit code {proc.returncode}"}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["steps_per_s"] = round(out["steps"] / out["seconds"], 1)
    out["games_per_s"] = round(out["games"] / out["seconds"], 2)
    out["available"] = True
    return out


def measure_peers(args: Args, peers: list[str], unavailable: dict[str, str]) -> dict[str, Any]:
    """peer row name -> result; rows of unavailable peers carry the reason instead."""
    python = venv_python(Path(args.peers_venv))
    timeout = 600 + 10 * args.seconds  # generous: pgx compiles for tens of seconds at large batches
    common = [str(args.seconds), str(args.seed)]
    out: dict[str, Any] = {}
    for peer in peers:
        rows = [f"pgx B={b}" for b in args.pgx_batch_sizes] if peer == "pgx" else [peer]
        argvs = [[*common, str(b)] for b in args.pgx_batch_sizes] if peer == "pgx" else [common]
        for row, argv in zip(rows, argvs):
            if peer in unavailable:
                out[row] = {"peer": peer, "available": False, "reason": unavailable[peer]}
                continue
            print(f"measuring {row}", file=sys.stderr)
            out[row] = {"peer": peer, **run_worker(python, peer, argv, timeout)}
    return out


# --- paired AEC bursts ---------------------------------------------------------------------------------

class BurstServer:
    """A worker process that runs its benchmark loop for the seconds written to its stdin and answers with a
    JSON line of steps and seconds (the `serve` protocol of OPENSPIEL_WORKER and MEEPLE_AEC_SERVER)."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
        self._answer()  # {"ready": true} once warmed up

    def _answer(self) -> dict[str, Any]:
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            lines = [ln for ln in err.strip().splitlines() if ln.strip()]
            raise RuntimeError(lines[-1] if lines else f"worker exited with code {self.proc.wait()}")
        return json.loads(line)

    def rate(self, seconds: float) -> float:
        """Steps/s of one burst."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{seconds}\n")
        self.proc.stdin.flush()
        out = self._answer()
        return out["steps"] / out["seconds"]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """(lower quartile, median, upper quartile): `statistics.quantiles`' "inclusive" method, numpy's
    default linear interpolation. (Before Python 3.13 it refuses a single value, whose quartiles are itself.)"""
    if len(values) == 1:
        return (float(values[0]),) * 3
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def paired_aec(args: Args, games: list[str]) -> dict[str, Any]:
    """game -> meeple's AEC steps/s over OpenSpiel's, burst by burst (see Args.pairs), or the failure."""
    python = venv_python(Path(args.peers_venv))
    print(f"paired AEC bursts: {args.pairs} pairs of {args.burst:g} s per game", file=sys.stderr)
    try:
        openspiel = BurstServer([str(python), "-c", OPENSPIEL_WORKER, str(args.burst), str(args.seed), "serve"])
    except (OSError, RuntimeError) as e:
        return {game: {"available": False, "reason": f"OpenSpiel worker: {e}"} for game in games}
    out: dict[str, Any] = {}
    try:
        for game in games:
            try:
                mine = BurstServer([sys.executable, "-c", MEEPLE_AEC_SERVER, game, str(args.seed), str(HERE)])
            except (OSError, RuntimeError) as e:
                out[game] = {"available": False, "reason": str(e)}
                continue
            try:
                meeple_rates, openspiel_rates = [], []
                for i in range(args.pairs):
                    first, second = (mine, openspiel) if i % 2 == 0 else (openspiel, mine)
                    a, b = first.rate(args.burst), second.rate(args.burst)
                    m, o = (a, b) if first is mine else (b, a)
                    meeple_rates.append(m)
                    openspiel_rates.append(o)
            finally:
                mine.close()
            ratios = [m / o for m, o in zip(meeple_rates, openspiel_rates)]
            q1, med, q3 = quartiles(ratios)
            out[game] = {"available": True, "pairs": args.pairs, "burst_s": args.burst,
                         "meeple_median": round(quartiles(meeple_rates)[1], 1),
                         "openspiel_median": round(quartiles(openspiel_rates)[1], 1),
                         "ratio_median": round(med, 3), "ratio_q1": round(q1, 3), "ratio_q3": round(q3, 3),
                         "ratio_min": round(min(ratios), 3), "ratios": [round(r, 3) for r in ratios]}
    finally:
        openspiel.close()
    return out


# --- meeple ---------------------------------------------------------------------------------------------

def measure_meeple(args: Args, game: str) -> dict[str, Any]:
    """throughput.py for one game in this interpreter; returns its rows by (name, B) or the failure."""
    print(f"measuring meeple {game}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="meeple-peers-") as tmp:
        out_file = Path(tmp) / "throughput.json"
        cmd = [sys.executable, str(THROUGHPUT), "--game", game, "--num-players", "2", "--batch-sizes", "1", str(BATCH),
               "--no-compile", "--no-gym", "--no-record", "--seconds", str(args.seconds), "--seed", str(args.seed),
               "--json", str(out_file)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not out_file.exists():
            lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
            return {"available": False, "reason": lines[-1] if lines else f"exit code {proc.returncode}"}
        report = json.loads(out_file.read_text())
    rows = {f"{r['name']} B={r['batch']}": r["steps_per_s"] for r in report["results"]}
    return {"available": True, "aec": rows.get("aec B=1"), "core": rows.get(f"core B={BATCH}"),
            "core+encode": rows.get(f"core+encode B={BATCH}"), "rows": rows, "num_actions": report["num_actions"]}


# --- comparison and report ------------------------------------------------------------------------------

def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else round(a / b, 3)


def compare(meeple: dict[str, Any], peers: dict[str, Any], paired: dict[str, Any] | None = None) -> dict[str, Any]:
    """Ratios to the peers and whether each target is met (None where a figure is missing). With paired AEC
    bursts, the AEC target is also judged on their median ratio, the figure a drifting machine moves least."""
    paired = paired or {}
    openspiel = peers.get("openspiel", {}).get("steps_per_s")
    pgx_rows = {k: v for k, v in peers.items() if v["peer"] == "pgx" and v.get("available")}
    pgx_best_row = max(pgx_rows, key=lambda k: pgx_rows[k]["steps_per_s"]) if pgx_rows else None
    pgx_best = pgx_rows[pgx_best_row]["steps_per_s"] if pgx_best_row else None
    out: dict[str, Any] = {"openspiel_steps_per_s": openspiel, "pgx_best_row": pgx_best_row,
                           "pgx_best_steps_per_s": pgx_best, "games": {}}
    for game, m in meeple.items():
        if not m.get("available"):
            continue
        aec_x, core_x = ratio(m["aec"], openspiel), ratio(m["core"], pgx_best)
        out["games"][game] = {
            "aec_vs_openspiel": aec_x, "core_vs_pgx_best": core_x,
            "targets": {
                f"aec >= {AEC_VS_OPENSPIEL:g}x openspiel": None if aec_x is None else aec_x >= AEC_VS_OPENSPIEL,
                f"core B={BATCH} >= {CORE_VS_PGX:g}x pgx best": None if core_x is None else core_x >= CORE_VS_PGX,
                f"core B={BATCH} >= {CORE_MIN:,}": None if m["core"] is None else m["core"] >= CORE_MIN,
                f"core+encode B={BATCH} >= {CORE_ENCODE_MIN:,}":
                    None if m["core+encode"] is None else m["core+encode"] >= CORE_ENCODE_MIN,
            }}
        p = paired.get(game)
        if p and p.get("available"):
            out["games"][game]["targets"][f"aec >= {AEC_VS_OPENSPIEL:g}x openspiel, paired median"] = \
                p["ratio_median"] >= AEC_VS_OPENSPIEL
    return out


def fmt(x: float | None, spec: str = ",.0f") -> str:
    return "—" if x is None else format(x, spec)


def print_report(report: dict[str, Any]) -> None:
    m = report["machine"]
    print(f"\nrandom legal play, 2 players, {report['seconds']:g} s per measurement, {report['date']}  "
          f"cpus={m['cpu_count']}  load avg {m['loadavg_start'][0]:.2f} -> {m['loadavg_end'][0]:.2f}  "
          f"meeple {report['source']['commit']}{' (+ uncommitted edits)' if report['source']['dirty'] else ''}")
    for peer, versions in report["peer_versions"].items():
        print(f"  {peer}: " + ", ".join(f"{n} {v}" for n, v in versions.items()))
    print("\npeers" + " " * 37 + "steps/s     games/s")
    for row, r in report["peers"].items():
        label = PEER_LABELS[r["peer"]] + (row[3:] if r["peer"] == "pgx" else "")
        if r.get("available"):
            print(f"  {label:<38}{r['steps_per_s']:>11,.0f}{r['games_per_s']:>12,.1f}")
        else:
            print(f"  {label:<38}  unavailable: {r['reason']}")
    c = report["comparison"]
    best = c["pgx_best_row"] or "pgx"
    header = (f"  {'game':<24}{'aec':>10}{'x OpenSpiel':>13}{f'core B={BATCH}':>15}{f'x {best}':>15}"
              f"{f'core+enc B={BATCH}':>18}")
    print("\nmeeple\n" + header)
    for game, g in report["meeple"].items():
        if not g.get("available"):
            print(f"  {game:<24}unavailable: {g['reason']}")
            continue
        cg = c["games"][game]
        print(f"  {game:<24}{fmt(g['aec']):>10}{fmt(cg['aec_vs_openspiel'], '.2f'):>13}{fmt(g['core']):>15}"
              f"{fmt(cg['core_vs_pgx_best'], '.2f'):>15}{fmt(g['core+encode']):>18}")
    paired = report.get("paired_aec") or {}
    if paired:
        print(f"\npaired AEC bursts (meeple / OpenSpiel within each pair)\n  {'game':<24}{'pairs':>6}{'meeple':>10}"
              f"{'OpenSpiel':>11}{'median x':>10}{'quartiles':>14}{'min':>7}")
        for game, p in paired.items():
            if not p.get("available"):
                print(f"  {game:<24}unavailable: {p['reason']}")
                continue
            print(f"  {game:<24}{p['pairs']:>6}{p['meeple_median']:>10,.0f}{p['openspiel_median']:>11,.0f}"
                  f"{p['ratio_median']:>10.2f}{p['ratio_q1']:>8.2f}-{p['ratio_q3']:.2f}{p['ratio_min']:>7.2f}")
    print("\ntargets")
    for game, cg in c["games"].items():
        marks = "  ".join(f"{name}: {({True: 'yes', False: 'MISS', None: 'n/a'})[ok]}"
                          for name, ok in cg["targets"].items())
        print(f"  {game:<24}{marks}")


def validate(args: Args) -> None:
    """One-line errors for bad arguments (before any minute is spent measuring)."""
    def fail(msg: str) -> None:
        raise SystemExit(f"peers.py: error: {msg}")
    if not (args.seconds > 0 and math.isfinite(args.seconds)):
        fail(f"--seconds must be a finite number > 0, got {args.seconds:g}")
    if not args.games:
        fail("--games needs at least one game")
    if args.pairs < 0:
        fail(f"--pairs must be >= 0, got {args.pairs}")
    if not (args.burst > 0 and math.isfinite(args.burst)):
        fail(f"--burst must be a finite number > 0, got {args.burst:g}")
    unknown = [g for g in args.games if g not in GAMES]
    if unknown:
        fail(f"unknown game(s) {', '.join(unknown)}; registered: {', '.join(GAMES)}")
    unknown = [p for p in args.peers if p not in PINS]
    if unknown:
        fail(f"unknown peer(s) {', '.join(unknown)}; choose from: {', '.join(PINS)}")
    if "pgx" in args.peers and not args.pgx_batch_sizes:
        fail("--pgx-batch-sizes needs at least one batch size")
    if any(b < 1 for b in args.pgx_batch_sizes):
        fail(f"--pgx-batch-sizes must be >= 1, got {' '.join(map(str, args.pgx_batch_sizes))}")
    if args.skip_install and args.peers and not venv_python(Path(args.peers_venv)).exists():
        fail(f"no peers venv at {args.peers_venv} (run without --skip-install to create it)")
    if args.json and not Path(args.json).resolve().parent.is_dir():
        fail(f"--json {args.json}: no such directory")


def main(args: Args) -> dict[str, Any]:
    if args.peers_venv is None:
        args.peers_venv = str(HERE / ".peers")
    validate(args)
    peers = list(dict.fromkeys(args.peers))
    load_start = os.getloadavg()
    unavailable, versions = prepare_venv(args, peers) if peers else ({}, {})
    peer_rows = measure_peers(args, peers, unavailable)
    meeple = {game: measure_meeple(args, game) for game in dict.fromkeys(args.games)}
    paired = {}
    if args.pairs and "openspiel" in peers:
        if "openspiel" in unavailable:
            paired = {g: {"available": False, "reason": unavailable["openspiel"]} for g in dict.fromkeys(args.games)}
        else:
            paired = paired_aec(args, list(dict.fromkeys(args.games)))
    from results import record, source_tree  # benchmarks/results.py: the one results file

    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": args.seconds, "num_players": 2,
        "machine": {"cpu_count": os.cpu_count(), "processor": platform.processor() or platform.machine(),
                    "platform": platform.platform(), "python": platform.python_version(),
                    "loadavg_start": [round(x, 2) for x in load_start],
                    "loadavg_end": [round(x, 2) for x in os.getloadavg()]},
        "source": source_tree(),
        "peer_versions": versions, "peers": peer_rows, "meeple": meeple,
        "paired_aec": paired,
        "comparison": compare(meeple, peer_rows, paired),
    }
    if args.json:
        with open(args.json, "w") as fh:
            fh.write(json.dumps(report) + "\n")
    if args.record:
        record("peers", f"benchmarks/peers.py --seconds {args.seconds:g} --pairs {args.pairs} --burst {args.burst:g}",
               results_figures(report))
    print_report(report)
    return report


def results_figures(report: dict[str, Any]) -> dict[str, Any]:
    """The figures of a run for benchmarks/results.json (the tables scripts/gen_docs.py renders)."""
    def rate(row: str) -> float | None:
        r = report["peers"].get(row, {})
        return round(r["steps_per_s"]) if r.get("available") else None

    games = {}
    for game, m in report["meeple"].items():
        if not m.get("available"):
            continue
        c, p = report["comparison"]["games"][game], (report.get("paired_aec") or {}).get(game, {})
        g = {"aec": round(m["aec"]), "aec_vs_openspiel": c["aec_vs_openspiel"], "core": round(m["core"]),
             "core_vs_pgx_best": c["core_vs_pgx_best"], "core_encode": round(m["core+encode"])}
        if p.get("available"):
            g.update(paired_median=p["ratio_median"], paired_q1=p["ratio_q1"], paired_q3=p["ratio_q3"],
                     paired_min=p["ratio_min"], pairs=p["pairs"])
        games[game] = g
    return {"seconds": report["seconds"], "num_players": report["num_players"], "batch": BATCH,
            "peers": {"pettingzoo_connect_four_aec": rate("pettingzoo"), "openspiel_backgammon_obs": rate("openspiel"),
                      **{f"pgx_backgammon_b{b}": rate(f"pgx B={b}") for b in (256, 4096)}},
            "games": games}


if __name__ == "__main__":
    main(tyro.cli(Args))
