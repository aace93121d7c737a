"""Before/after throughput of two trees of this repository, measured in the same run by alternating bursts.

    python benchmarks/compare.py --before caf0581                        # the checkout against caf0581
    python benchmarks/compare.py --before caf0581 --after HEAD~3 --games hadara --batch-sizes 1 256
    python benchmarks/compare.py --before caf0581 --aec --games attika        # the AEC env's row
    python benchmarks/compare.py --before caf0581 --gym --games attika        # the Gymnasium env's row
    python benchmarks/compare.py --before caf0581 --heuristic --games attika  # heuristic self-play

Two worker processes, one per tree, each run that tree's own `benchmarks/throughput.py` core loop
(`bench_core`: random legal play, the learner's observation too with `--encode`) on a state they keep
between bursts, or with `--aec` / `--gym` its AEC or single-agent Gymnasium row (one row). The
driver asks them in turn for short bursts (`--burst` seconds) and reports, per game
and batch size, the median steps/s of each tree and the median of the paired ratios after / before with
its quartiles. Alternating short bursts cancel the slow swings of a shared machine (back-to-back whole
runs differed by up to 30% on this 2-core VM while the paired ratios stayed within a few percent).

A tree other than the checkout is a temporary `git worktree`; its worker imports `meeple` from that tree
by rewriting the editable install's module map at start-up (a `sitecustomize` on its PYTHONPATH), so
the checkout must be installed editable (`scripts/setup.sh` does). Each tree uses its own API: an old
tree without a checked step runs its own, unchecked loop.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import tyro

REPO = Path(__file__).resolve().parent.parent

WORKER = r"""
import importlib
import sys
import time
import numpy as np
tree, game, players, row = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, tree + "/benchmarks")
from throughput import bench_core
from meeple.envs import GAMES, default_encoder, make
rules = make(game, num_players=players)
encoder = default_encoder(game, rules) if row == "core+encode" else None
rng = np.random.default_rng(0)
states = {}


def heuristic_steps(owner, heuristic, seconds):
    # heuristic self-play, every seat (what the rollout agent's playouts and the advantage labels run):
    # its move, then the step, restarting finished rows; returns live rows stepped per second
    state = owner.state
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += state.done.shape[0] - int(np.count_nonzero(state.done))
        owner.step(heuristic.act(rules, state, rng))
        if state.done.any():
            owner.reset_rows(np.flatnonzero(state.done))
    return steps / (time.perf_counter() - start)


for line in sys.stdin:
    batch, seconds = int(line.split()[0]), float(line.split()[1])
    if row in ("aec", "gym"):  # throughput.py's AEC or Gymnasium row, on a fresh env per burst
        import throughput
        bench = throughput.bench_aec if row == "aec" else throughput.bench_gym
        print(bench(throughput.Args(game=game, num_players=players), seconds)["steps_per_s"], flush=True)
        continue
    if batch not in states:  # warm up: compile, and let the games reach mixed ages
        states[batch] = rules.init(rng, batch)
        if row == "heuristic":
            heuristic = importlib.import_module(GAMES[game].heuristic).Heuristic()
            states[batch] = rules.batch(rng, state=states[batch], adopt=True), heuristic
            heuristic_steps(*states[batch], 1.0)
        else:
            bench_core(rules, encoder, states[batch], 1.0, rng)
    if row == "heuristic":
        print(heuristic_steps(*states[batch], seconds), flush=True)
    else:
        print(bench_core(rules, encoder, states[batch], seconds, rng)["steps_per_s"], flush=True)
"""

SITECUSTOMIZE = r"""
import sys
try:
    import __editable___meeple_0_1_0_finder as finder
except ImportError:
    finder = None
if finder is not None:
    for name, path in list(finder.MAPPING.items()):
        finder.MAPPING[name] = path.replace({checkout!r}, {tree!r}, 1)
"""


@dataclass
class Args:
    before: str
    """git revision of the 'before' tree"""
    after: str | None = None
    """git revision of the 'after' tree (default: the checkout as it is, uncommitted changes included)"""
    games: tuple[str, ...] = ("roll_through_the_ages", "hadara", "carpe_diem")
    num_players: int = 2
    batch_sizes: tuple[int, ...] = (1, 256, 4096)
    encode: bool = False
    """core + the learner's observation (throughput.py's core+encode row) instead of the bare core"""
    aec: bool = False
    """throughput.py's AEC row instead (random play through `agent_iter` / `last` / `step`; batch sizes
    are ignored: one row)"""
    gym: bool = False
    """throughput.py's single-agent Gymnasium row instead (learner steps against random opponents; one row)"""
    heuristic: bool = False
    """the game's heuristic playing every seat (its move, then the step) instead of random play: heuristic
    steps/s, what the rollout agent's playouts and the advantage labels cost"""
    pairs: int = 40
    """bursts per tree and batch size"""
    burst: float = 0.2
    """seconds per burst"""
    json: str | None = None
    """also write the results to this file"""


def checkout_tree(rev: str | None, keep: list[Path]) -> Path:
    """The tree of `rev`: the checkout itself for None, else a new temporary worktree."""
    if rev is None:
        return REPO
    path = Path(tempfile.mkdtemp(prefix="meeple-compare-")) / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(path), rev], check=True)
    keep.append(path)
    return path


def spawn(tree: Path, game: str, args: Args, site: Path) -> subprocess.Popen:
    """A worker stepping `game` with `tree`'s code."""
    env = {**os.environ, "MEEPLE_COMPILE": "wait"}  # timed code never runs as Python while a cache fills
    if tree != REPO:
        # a compile cache per commit, kept between runs: another run against the same tree loads its kernels
        # instead of compiling them again (each worktree is new, and numba's in-tree cache goes with it)
        commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
        env["NUMBA_CACHE_DIR"] = str(Path.home() / ".cache" / "meeple-compare" / commit)
        site.mkdir(parents=True, exist_ok=True)
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(checkout=str(REPO), tree=str(tree)))
        env["PYTHONPATH"] = str(site)
    return subprocess.Popen([sys.executable, "-c", WORKER, str(tree), game, str(args.num_players), row_of(args)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)


def row_of(args: Args) -> str:
    return ("aec" if args.aec else "gym" if args.gym else "heuristic" if args.heuristic else "core+encode" if args.encode
            else "core")


def burst(worker: subprocess.Popen, batch: int, seconds: float) -> float:
    worker.stdin.write(f"{batch} {seconds}\n")
    worker.stdin.flush()
    line = worker.stdout.readline()
    if not line:
        raise RuntimeError("a worker stopped (see its error above)")
    return float(line)


def main(args: Args) -> list[dict]:
    if args.pairs < 2 or args.burst <= 0 or not args.batch_sizes or min(args.batch_sizes) < 1:
        raise SystemExit("--pairs must be >= 2, --burst > 0 and every batch size >= 1")
    worktrees: list[Path] = []
    results = []
    try:
        trees = {"before": checkout_tree(args.before, worktrees), "after": checkout_tree(args.after, worktrees)}
        site_root = Path(tempfile.mkdtemp(prefix="meeple-compare-site-"))
        row = row_of(args)
        if args.aec or args.gym:
            args.batch_sizes = (1,)
        print(f"{row}, {args.num_players} players, {args.pairs} alternating bursts of {args.burst:g} s per tree; "
              f"before = {args.before}, after = {args.after or 'the checkout'}")
        print(f"{'game':<24}{'B':>6}{'before':>12}{'after':>12}{'after/before':>14}  (quartiles)")
        for game in args.games:
            workers = {name: spawn(tree, game, args, site_root / name) for name, tree in trees.items()}
            try:
                for batch in args.batch_sizes:
                    for w in workers.values():
                        burst(w, batch, args.burst)  # warm-up burst (and the worker's own warm-up)
                    seen: dict[str, list[float]] = {"before": [], "after": []}
                    ratios = []
                    for i in range(args.pairs):
                        order = ("before", "after") if i % 2 == 0 else ("after", "before")
                        got = {name: burst(workers[name], batch, args.burst) for name in order}
                        for name in got:
                            seen[name].append(got[name])
                        ratios.append(got["after"] / got["before"])
                    q1, _, q3 = statistics.quantiles(ratios, n=4)
                    r = {"game": game, "row": row, "batch": batch, "before": statistics.median(seen["before"]),
                         "after": statistics.median(seen["after"]), "ratio": statistics.median(ratios),
                         "ratio_q1": q1, "ratio_q3": q3, "pairs": args.pairs, "burst_s": args.burst}
                    results.append(r)
                    print(f"{game:<24}{batch:>6}{r['before']:>12,.0f}{r['after']:>12,.0f}{r['ratio']:>14.3f}"
                          f"  ({q1:.3f}-{q3:.3f})", flush=True)
            finally:
                for w in workers.values():
                    w.stdin.close()
                    w.wait()
    finally:
        for path in worktrees:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(path)], check=False)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main(tyro.cli(Args))
