"""The main job's final summary (scripts/run.sh): the time of each phase and the trained policy's results.

    python scripts/main_job_summary.py --phases PHASES --run runs/main_job [--record]

PHASES is the file scripts/run.sh and scripts/setup.sh append "<phase> <seconds>" lines to (install,
compile, training, tournament). The results come from runs/main_job/summary.json (training) and
runs/main_job/tournament.json (the 600-game tournament of the policy, the heuristic and random play: 200
games for each pair). `--record` also writes them into benchmarks/results.json as the `main_job` entry
(`first_run` when this run installed the packages, else `later_run`), which README's table is generated from.
A bad argument (a missing or malformed --phases file) exits with code 2 and a one-line message naming it, before
anything is printed or recorded.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import tyro

from meeple.agents.io import ArgsError

ROOT = Path(__file__).resolve().parents[1]
POLICY = "net:runs/main_job/best.safetensors"


@dataclass
class Args:
    phases: Path
    """the file of '<phase> <seconds>' lines"""
    run: Path = Path("runs/main_job")
    """the training run's folder"""
    policy: str = POLICY
    """the agent whose head-to-head results are reported"""
    record: tyro.conf.FlagCreatePairsOff[bool] = False
    """also write the figures into benchmarks/results.json"""


def clock(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


def read_phases(path: Path) -> dict[str, int]:
    """{phase: seconds}, summed over the lines of each phase; raises ArgsError naming --phases for a missing file
    or a line whose seconds are not a whole number."""
    if not path.is_file():
        raise ArgsError(f"--phases {str(path)!r}: no such file")
    out: dict[str, int] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        key, _, seconds = line.partition(" ")
        if seconds.strip():
            try:
                out[key] = out.get(key, 0) + int(seconds)
            except ValueError:
                raise ArgsError(f"--phases {str(path)!r}: line {number} is not '<phase> <seconds>': {line!r}") from None
    return out


def policy_results(tournament: dict, policy: str = POLICY) -> dict[str, dict]:
    """The policy's head-to-head record against each other agent: games, win rate and 95% interval."""
    out = {}
    for h in tournament.get("head_to_head", []):
        a, b = h["agents"]
        if policy in (a, b) and h["games"]:
            other, flip = (b, False) if a == policy else (a, True)
            rate, ci = h["win_rate"], h["win_ci95"]
            if flip:  # the rate of the other agent: the policy's is what it did not win or tie
                rate, ci = 1 - rate - (h["tie_rate"] or 0), [1 - ci[1], 1 - ci[0]]
            out[other] = {"games": h["games"], "win_rate": round(rate, 4), "win_ci95": [round(x, 4) for x in ci]}
    return out


def summary(phases: dict[str, int], run: Path, policy: str = POLICY) -> dict:
    train = json.loads((run / "summary.json").read_text()) if (run / "summary.json").exists() else {}
    tournament = json.loads((run / "tournament.json").read_text()) if (run / "tournament.json").exists() else {}
    return {"phases": phases, "total_s": sum(phases.values()),
            "training": {k: train.get(k) for k in ("rounds", "decisions", "stopped_by", "best")},
            "tournament_games": tournament.get("games"), "policy": policy_results(tournament, policy)}


def print_summary(s: dict) -> None:
    labels = {"install": "install", "compile": "compile", "training": "training", "tournament": "tournament"}
    times = ", ".join(f"{labels.get(k, k)} {clock(v)}" for k, v in s["phases"].items())
    print("\n=== main job: summary ===")
    print(f"time: {times}; total {clock(s['total_s'])}")
    t = s["training"]
    if t.get("rounds") is not None:
        best = t.get("best") or {}
        print(f"training: {t['rounds']} rounds, {t['decisions']:,} labelled decisions, stopped by {t['stopped_by']}; "
              f"best.safetensors from round {best.get('round')} (win rate {best.get('score')} in its evaluation)")
    if s["policy"]:
        print(f"tournament: {s['tournament_games']} games; the trained policy alone (best.safetensors), head to head:")
        for other, r in s["policy"].items():
            lo, hi = r["win_ci95"]
            print(f"  against {other:<10} {r['games']:>4} games, won {100 * r['win_rate']:.1f}% "
                  f"(95% interval {100 * lo:.1f}-{100 * hi:.1f}%)")
    else:
        print("tournament: no results (runs/main_job/tournament.json is missing)")


def record(s: dict) -> None:
    spec = importlib.util.spec_from_file_location("meeple_bench_results", ROOT / "benchmarks" / "results.py")
    results = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(results)
    old = results.load()["entries"].get("main_job", {}).get("figures", {})
    kind = "first_run" if "install" in s["phases"] else "later_run"
    run = {f"{k}_s": v for k, v in s["phases"].items()} | {"total_s": s["total_s"]}
    if "compile" in s["phases"]:
        run["compiled_games"] = os.environ.get("MEEPLE_WARM", "hadara").split()
    figures = {"first_run": old.get("first_run"), "later_run": old.get("later_run"), kind: run,
               "tournament": {"games": s["tournament_games"], "agents": [POLICY, "heuristic", "random"],
                              "policy_vs_heuristic": s["policy"].get("heuristic"),
                              "policy_vs_random": s["policy"].get("random")}}
    results.record("main_job", "bash scripts/run.sh", figures)


def main(argv: list[str] | None = None) -> int:
    """Parses the command line (`argv`, default sys.argv[1:]), prints the summary and records it with --record;
    returns the exit code: 0, or 2 for a bad argument (one `error:` line on stderr, nothing printed or recorded)."""
    args = tyro.cli(Args, args=argv, description=__doc__.split("\n\n")[0])
    try:
        phases = read_phases(args.phases)
    except ArgsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    s = summary(phases, args.run, args.policy)
    print_summary(s)
    if args.record:
        record(s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
