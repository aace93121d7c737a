"""Ship a trained net as a baseline: agents/baselines/<game>-<P>p.safetensors (half floats) and its entry in
agents/baselines/baselines.json (the training command, the run's summary, and tournaments measured here).

    .venv/bin/python scripts/ship_baseline.py runs/<name> --games 1000 --search-games 400

The run folder is one `meeple train --algo exit` wrote (best.safetensors or net.safetensors, and
summary.json). The shipped file is the net with its weights rounded to float16 (the tournaments play that file, not the run's),
loadable as `net:<game>-<P>p` and `search:<game>-<P>p:...` anywhere meeple is installed. The
tournaments are `meeple.agents.tournament.run_tournament` (evaluate.py's: every seating, duplicate
seeding, Wilson 95% intervals): the policy alone against the heuristic and against random
(--games each), and, with --search-games > 0, `search:<name>:mode=rollout,sims=<--search-sims>` against
the heuristic and against the heuristic's own rollout agent at the same number of playouts.
A bad argument (a count out of range, a folder without the run's files) exits with code 2 and a one-line message
naming it, before anything is played or written.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import tyro

from meeple.agents.io import ArgsError, check_at_least

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Args:
    run: Annotated[tyro.conf.Positional[Path], tyro.conf.arg(metavar="RUN")]
    """the training run's folder (best.safetensors or net.safetensors, summary.json)"""
    games: int = 1000
    """games of the policy against each baseline"""
    search_games: int = 0
    """games of the search against each opponent (0 = no search tournaments)"""
    search_sims: int = 64
    """playouts per decision of the search"""
    seed: int = 2026
    """seed of the first tournament (each of the others adds its own offset)"""
    net: Literal["best", "net"] = "best"
    """ship best.safetensors (the run's best evaluation) or net.safetensors (its last net)"""


def validate_args(args: Args) -> None:
    """Raises ArgsError naming the first invalid argument; reads nothing but the run folder's listing."""
    check_at_least(args, 1, "games", "search_sims")
    check_at_least(args, 0, "search_games", "seed")  # the seed as evaluate.py's: default_rng takes no negative
    if not args.run.is_dir():
        raise ArgsError(f"RUN {str(args.run)!r}: no such folder (a `meeple train --algo exit` run folder)")
    for path in (args.run / f"{args.net}.safetensors", args.run / "summary.json"):
        if not path.is_file():
            raise ArgsError(f"RUN {str(args.run)!r}: {path.name} does not exist; is it a `meeple train --algo exit` "
                            f"run folder?")


def main(argv: list[str] | None = None) -> int:
    """Parses the command line (`argv`, default sys.argv[1:]), plays the tournaments and ships the net; returns the
    exit code: 0, or 2 for a bad argument (one `error:` line on stderr, nothing played or written)."""
    args = tyro.cli(Args, args=argv, description=__doc__.split("\n\n")[0])
    try:
        validate_args(args)
    except ArgsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    net_file, summary_file = args.run / f"{args.net}.safetensors", args.run / "summary.json"

    from meeple.agents.net import BASELINES_DIR, load_net, save_net
    from meeple.agents.tournament import run_tournament

    summary = json.loads(summary_file.read_text())
    net = load_net(net_file)
    game, players = net.header["game"], int(net.header["num_players"])
    name = f"{game}-{players}p"
    BASELINES_DIR.mkdir(exist_ok=True)
    shipped = BASELINES_DIR / f"{name}.safetensors"
    save_net(net, shipped, dtype="F16")
    config = {k: v for k, v in net.header["config"].items() if k != "num_players"}

    def tournament(agents: list[str], games: int, seed: int) -> dict:
        t = time.perf_counter()
        result = run_tournament(game, agents, num_players=players, games=games, seed=seed, variant=config)
        me = result["agents"][0]
        out = {"opponent": agents[1], "games": me["games"], "win_rate": round(me["win_rate"], 4),
               "win_ci95": [round(x, 4) for x in me["win_ci95"]], "mean_score": round(me["mean_score"], 2),
               "opponent_mean_score": round(result["agents"][1]["mean_score"], 2),
               "seconds": round(time.perf_counter() - t, 1), "seed": seed}
        print(f"{agents[0]} vs {agents[1]}: {out}", flush=True)
        return out

    policy = [tournament([f"net:{shipped}", opponent], args.games, args.seed + k)
              for k, opponent in enumerate(("heuristic", "random"))]
    search = []
    if args.search_games:
        spec = f"search:{shipped}:mode=rollout,sims={args.search_sims}"
        rival = f"mcts:{args.search_sims}:mode=rollout,rollout=heuristic"
        search = [tournament([spec, opponent], args.search_games, args.seed + 10 + k)
                  for k, opponent in enumerate(("heuristic", rival))]

    manifest_file = BASELINES_DIR / "baselines.json"
    manifest = json.loads(manifest_file.read_text()) if manifest_file.is_file() else {"baselines": {}}
    train_args = summary["args"]
    local = ("run_name", "run_dir", "exp_name", "progress_bar")  # where the run went, not what it did
    command = ["meeple", "train"] + [part for key, value in train_args.items() if key not in local
                                     for part in _flag(key, value)]
    manifest["baselines"][name] = {
        "file": shipped.name, "game": game, "num_players": players, "config": net.header["config"],
        "hidden": net.header["hidden"], "bytes": shipped.stat().st_size,
        "train_command": " ".join(shlex.quote(p) for p in command),
        "train_minutes": round(summary["timings"]["total_s"] / 60, 1),
        "rounds": summary["rounds"], "decisions": summary["decisions"], "shipped": f"{args.net}.safetensors",
        "best_eval": summary.get("best"),
        "policy": policy, "search": search,
        "measured": time.strftime("%Y-%m-%d"),
    }
    manifest["baselines"] = dict(sorted(manifest["baselines"].items()))
    manifest_file.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"shipped {shipped.relative_to(ROOT)} ({shipped.stat().st_size:,} bytes) as net:{name}")
    return 0


def _flag(key: str, value: object) -> list[str]:
    """One Args field as command-line words (tyro's spelling: --key-name value; booleans as --flag / --no-flag)."""
    from meeple.agents.io import option

    flag = option(key)
    if isinstance(value, bool):
        return [flag if value else "--no-" + flag[2:]]
    if isinstance(value, (list, tuple)):
        return [flag, *map(str, value)] if value else []
    return [flag, str(value)]


if __name__ == "__main__":
    sys.exit(main())
