"""Ship a trained net as a baseline: agents/baselines/<game>-<P>p.safetensors (half floats) and its entry in
agents/baselines/baselines.json (the training command, the run's summary, and tournaments measured here).

    .venv/bin/python scripts/ship_baseline.py runs/<name> --games 1000 --search-games 400
    .venv/bin/python scripts/ship_baseline.py runs/<advantage run> --games 2000 --search-games 400 \
        --search-sims 12 --search-top-k 2

The run folder is one `meeple train --algo exit` wrote (best.safetensors or net.safetensors, and
summary.json) or one `meeple train --algo advantage` wrote (the same nets, manifest.json and
checkpoint.json: its hours, labelled states and learning curve, summed over its sessions, go into the
entry). The shipped file is the net with its weights rounded to float16 (the tournaments play that file, not the run's),
loadable as `net:<game>-<P>p` and `search:<game>-<P>p:...` anywhere meeple is installed. The
tournaments are `meeple.agents.tournament.run_tournament` (evaluate.py's: every seating, duplicate
seeding, Wilson 95% intervals): the policy alone against the heuristic and against random
(--games each), and, with --search-games > 0, `search:<name>:mode=rollout,sims=<--search-sims>` (with
`top_k=<--search-top-k>`, `depth=<--search-depth>` and `z=<--search-z>` when given) against the heuristic
and against the heuristic's own rollout agent at the same number of playouts, each with its milliseconds per
decision (`tournament.ms_per_decision`: 32 positions of heuristic games, batched as in the tournament).
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

import numpy as np
import tyro

from meeple.agents.io import ArgsError, check_at_least, check_range

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Args:
    run: Annotated[tyro.conf.Positional[Path], tyro.conf.arg(metavar="RUN")]
    """the training run's folder (best.safetensors or net.safetensors; summary.json, or manifest.json and
    checkpoint.json)"""
    games: int = 1000
    """games of the policy against each baseline"""
    search_games: int = 0
    """games of the search against each opponent (0 = no search tournaments)"""
    search_sims: int = 64
    """playouts per decision of the search"""
    search_top_k: int = 0
    """the search's candidates: the net's this many best moves besides its own (0 = every legal move)"""
    search_depth: int = 0
    """cut every playout of the search after this many steps, valued by the net's value head (0 = play to the
    end): for games whose playouts to the end cost more than the decision budget"""
    search_z: float = 1.0
    """the t-statistic the search needs to leave the net's move for another (the rollout agent's `z`; its
    rival's too): higher keeps the net's move unless a challenger's gain is surer"""
    search_rival: bool = True
    """also play the search against the heuristic's rollout agent at the same playouts (--no-search-rival: not;
    that agent tries every legal move, which costs several times the search's budget where moves are many)"""
    seed: int = 2026
    """seed of the first tournament (each of the others adds its own offset)"""
    net: Literal["best", "net"] = "best"
    """ship best.safetensors (the run's best evaluation) or net.safetensors (its last net)"""


# the files that say which trainer wrote a run folder (besides its nets)
RUN_FILES = {"exit": ("summary.json",), "advantage": ("manifest.json", "checkpoint.json")}


def run_kind(run: Path) -> str | None:
    """"exit" or "advantage": the trainer whose files the run folder holds; None for neither."""
    return next((kind for kind, files in RUN_FILES.items() if all((run / f).is_file() for f in files)), None)


def validate_args(args: Args) -> None:
    """Raises ArgsError naming the first invalid argument; reads nothing but the run folder's listing."""
    check_at_least(args, 1, "games", "search_sims")
    # (the seed as evaluate.py's: default_rng takes no negative)
    check_at_least(args, 0, "search_games", "seed", "search_top_k", "search_depth")
    check_range(args, "search_z", 0.0)
    if args.search_depth and args.search_rival:
        raise ArgsError("--search-depth needs --no-search-rival: the rival's playouts go to the end of the game")
    if args.search_top_k == 1:
        raise ArgsError("--search-top-k must be 0 (every legal move) or at least 2, got 1")
    if not args.run.is_dir():
        raise ArgsError(f"RUN {str(args.run)!r}: no such folder (a `meeple train --algo exit` or `--algo advantage` "
                        f"run folder)")
    if run_kind(args.run) is None:
        raise ArgsError(f"RUN {str(args.run)!r}: neither summary.json (an exit run) nor manifest.json and "
                        f"checkpoint.json (an advantage run) exist; is it a `meeple train` run folder?")
    if not (args.run / f"{args.net}.safetensors").is_file():
        raise ArgsError(f"RUN {str(args.run)!r}: {args.net}.safetensors does not exist")


def training_record(run: Path, kind: str) -> dict:
    """The entry's account of the training: its command (the run's own settings), how long it ran and on how
    much, and its best evaluation; for an advantage run also its learning curve (the net alone against the
    heuristic over the run's hours and labelled states: docs/training.md draws it)."""
    local = ("run_name", "run_dir", "exp_name", "progress_bar")  # where the run went, not what it did
    if kind == "exit":
        summary = json.loads((run / "summary.json").read_text())
        train_args = summary["args"]
        record = {"train_minutes": round(summary["timings"]["total_s"] / 60, 1), "rounds": summary["rounds"],
                  "decisions": summary["decisions"], "best_eval": summary.get("best")}
    else:
        manifest = json.loads((run / "manifest.json").read_text())
        train_args = {"algo": "advantage", **json.loads((run / "checkpoint.json").read_text())["args"]}
        curve = json.loads((run / "curve.json").read_text()) if (run / "curve.json").is_file() else []
        record = {"train_minutes": round(manifest["hours"] * 60, 1), "cpu_hours": manifest.get("cpu_hours"),
                  "sessions": len(manifest["sessions"]),
                  "shards": manifest["shards"], "labelled_states": manifest["labelled_states"],
                  "playouts": manifest["playouts"], "margin": manifest["margin"], "best_eval": manifest.get("best"),
                  "curve": [{"hours": p["hours"], "labelled_states": p["labelled_states"], "games": p["games"],
                             "win_rate": round(p["win_rate"], 4), "win_ci95": [round(x, 4) for x in p["win_ci95"]]}
                            for p in curve]}
    command = ["meeple", "train"] + [part for key, value in train_args.items() if key not in local
                                     for part in _flag(key, value)]
    return {"train_command": " ".join(shlex.quote(p) for p in command), **record}


def main(argv: list[str] | None = None) -> int:
    """Parses the command line (`argv`, default sys.argv[1:]), plays the tournaments and ships the net; returns the
    exit code: 0, or 2 for a bad argument (one `error:` line on stderr, nothing played or written)."""
    args = tyro.cli(Args, args=argv, description=__doc__.split("\n\n")[0])
    try:
        validate_args(args)
    except ArgsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    net_file = args.run / f"{args.net}.safetensors"

    from meeple.agents import make_agent
    from meeple.agents.net import BASELINES_DIR, load_net, save_net
    from meeple.agents.tournament import heuristic_positions, ms_per_decision, run_tournament
    from meeple.envs import make

    training = training_record(args.run, run_kind(args.run))
    net = load_net(net_file)
    game, players = net.header["game"], int(net.header["num_players"])
    name = f"{game}-{players}p"
    BASELINES_DIR.mkdir(exist_ok=True)
    shipped = BASELINES_DIR / f"{name}.safetensors"
    save_net(net, shipped, dtype="F16")
    config = {k: v for k, v in net.header["config"].items() if k != "num_players"}

    def tournament(agents: list[str], games: int, seed: int, **extra: object) -> dict:
        t = time.perf_counter()
        result = run_tournament(game, agents, num_players=players, games=games, seed=seed, variant=config)
        me = result["agents"][0]
        out = {"opponent": agents[1], **extra, "games": me["games"], "win_rate": round(me["win_rate"], 4),
               "win_ci95": [round(x, 4) for x in me["win_ci95"]], "mean_score": round(me["mean_score"], 2),
               "opponent_mean_score": round(result["agents"][1]["mean_score"], 2),
               "seconds": round(time.perf_counter() - t, 1), "seed": seed}
        print(f"{agents[0]} vs {agents[1]}: {out}", flush=True)
        return out

    policy = [tournament([f"net:{shipped}", opponent], args.games, args.seed + k)
              for k, opponent in enumerate(("heuristic", "random"))]
    search = []
    if args.search_games:
        z = f",z={args.search_z:g}" if args.search_z != 1.0 else ""  # (the search's and its rival's test alike)
        options = (f"mode=rollout,sims={args.search_sims}" + (f",top_k={args.search_top_k}" if args.search_top_k else "")
                   + (f",depth={args.search_depth}" if args.search_depth else "") + z)
        spec = f"search:{shipped}:{options}"
        rival = f"mcts:{args.search_sims}:mode=rollout,rollout=heuristic{z}"
        env = make(game, num_players=players, **config)
        positions = heuristic_positions(env, make_agent("heuristic", game, players, **config), 32, 30, args.seed)
        timed = ms_per_decision(env, [make_agent(s, game, players, **config)
                                      for s in ((spec, rival) if args.search_rival else (spec,))], positions, 3, args.seed)
        opponents = ("heuristic", rival) if args.search_rival else ("heuristic",)
        search = [tournament([spec, opponent], args.search_games, args.seed + 10 + k, spec=f"search:{name}:{options}",
                             ms_per_decision=round(timed[0], 1))
                  for k, opponent in enumerate(opponents)]
        if args.search_rival:
            search[1]["opponent_ms_per_decision"] = round(timed[1], 1)

    manifest_file = BASELINES_DIR / "baselines.json"
    manifest = json.loads(manifest_file.read_text()) if manifest_file.is_file() else {"baselines": {}}
    manifest["baselines"][name] = {
        "file": shipped.name, "game": game, "num_players": players, "config": net.header["config"],
        "hidden": net.header["hidden"], "bytes": shipped.stat().st_size, **training,
        "shipped": f"{args.net}.safetensors", "policy": policy, "search": search,
        "measured": time.strftime("%Y-%m-%d"),
    }
    manifest["baselines"] = dict(sorted(manifest["baselines"].items()))
    manifest_file.write_text(json.dumps(manifest, indent=2) + "\n")
    draw_curves(manifest["baselines"], CURVES)
    print(f"shipped {shipped.relative_to(ROOT)} ({shipped.stat().st_size:,} bytes) as net:{name}")
    return 0


CURVES = ROOT / "docs" / "img" / "advantage_curves.png"


def draw_curves(baselines: dict, path: Path) -> None:
    """The learning curve of every shipped advantage net (docs/training.md): the net alone against the
    heuristic, win rate with its 95% band over the run's hours, one panel per net, its labelled states on
    the top axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nets = {name: b for name, b in baselines.items() if b.get("curve")}
    if not nets:
        return
    fig, axes = plt.subplots(1, len(nets), figsize=(4.2 * len(nets), 3.4), dpi=100, squeeze=False)
    for ax, (name, b) in zip(axes[0], nets.items()):
        hours = [p["hours"] for p in b["curve"]]
        ax.plot(hours, [p["win_rate"] for p in b["curve"]], marker="o", markersize=3)
        ax.fill_between(hours, [p["win_ci95"][0] for p in b["curve"]], [p["win_ci95"][1] for p in b["curve"]],
                        alpha=0.2)
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        ax.set_ylim(0, 1)
        ax.set_xlabel("training hours (one core)")
        ax.set_ylabel("win rate vs heuristic (200 games)")
        ax.set_title(f"net:{name}", fontsize=9)
        ax.grid(alpha=0.3)
        top = ax.secondary_xaxis("top")  # labelled states at the hour ticks (between evaluations: interpolated)
        ticks = [t for t in ax.get_xticks() if hours[0] <= t <= hours[-1]]
        states = np.interp(ticks, hours, [p["labelled_states"] for p in b["curve"]])
        top.set_xticks(ticks, [f"{n / 1000:.0f}k" for n in states], fontsize=7)
        top.set_xlabel("labelled states", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)


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
