"""The `meeple` command: the scripts of a checkout, installed with the package.

    meeple games                      # the registered games: players, actions, observation size, Gymnasium id
    meeple train --help               # self-play MaskablePPO, --algo exit or --algo advantage (`python train.py` in a checkout)
    meeple evaluate --help            # tournaments and ratings (meeple.cli.evaluate; `python evaluate.py`)
    meeple run                        # the main job: what scripts/run.sh runs after setting up
    meeple serve --help               # the browser app: replays and play against agents (meeple.web)

`pip install` puts the command on the PATH (`[project.scripts]` in pyproject.toml). The training code is here,
in the package, rather than only in the checkout's top-level scripts, so that an installed meeple can train
and evaluate without a checkout; those scripts are thin wrappers around the same `run_cli` functions, so the
two never drift apart.

`meeple run` is the main job of scripts/run.sh without its setup step (an installed meeple is set up): a
9-minute expert-iteration run on Hadara, 2 players (a net cloned from the heuristic, then trained on the
moves of the rollout agent over the heuristic on the positions its own play reaches; runs/main_job/, under
the current folder), then a seeded 600-game tournament of the trained policy alone against the heuristic and
random play; about 10 minutes on 2 cores. The two argument lists are `RUN_TRAIN_ARGS` and
`RUN_EVALUATE_ARGS`, the same as the script's (tests/test_install.py compares them). Ctrl-C during
training saves the model and stops without the tournament.

Each subcommand imports only what it needs: `meeple games` never imports torch, and a command whose extra
is not installed says which one to install instead of printing a traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator

COMMANDS = {
    "games": "list the registered games: players, actions, observation size, Gymnasium id",
    "train": "self-play MaskablePPO, expert iteration (--algo exit) or an advantage head (--algo advantage) "
             "(`meeple train --help`; needs the train extra)",
    "evaluate": "tournaments between agents: win rates, ratings (`meeple evaluate --help`)",
    "run": "the main job: a 9-minute expert-iteration run on Hadara, then a 600-game tournament (200 games per pair)",
    "serve": "the browser app: replay recorded games, play against agents (`meeple serve --help`; needs the web extra)",
}

# scripts/run.sh's two commands, argument for argument
RUN_TRAIN_ARGS = ["--algo", "exit", "--game", "hadara", "--num-players", "2", "--exp-name", "main_job",
                  "--time-limit-minutes", "9", "--warm-start-games", "2000", "--warm-start-epochs", "6",
                  "--games-per-round", "64", "--expert", "mcts:64:mode=rollout,rollout=heuristic",
                  "--expert-share", "0.5", "--opponents", "heuristic", "--opponent-weights", "1",
                  "--replay-rounds", "100", "--epochs", "1", "--learning-rate", "5e-4", "--weight-decay", "1e-4",
                  "--eval-every", "2", "--eval-games", "200", "--eval-opponents", "heuristic"]
RUN_EVALUATE_ARGS = ["--game", "hadara", "--num-players", "2", "--games", "600",
                     "--agents", "net:runs/main_job/best.safetensors", "heuristic", "random",
                     "--json", "runs/main_job/tournament.json"]

TORCH_CPU = "2.13.0"  # the torch scripts/setup.sh installs

# top-level module -> the extra that installs it
EXTRA_OF = {"torch": "train", "stable_baselines3": "train", "sb3_contrib": "train", "tensorboard": "train",
            "rich": "train", "openskill": "eval", "matplotlib": "eval", "flask": "web", "werkzeug": "web"}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: meeple <command> [options]", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, text in COMMANDS.items()]
    lines += ["", "`meeple <command> --help` lists a command's options; `meeple --version` prints the version."]
    return "\n".join(lines)


@contextlib.contextmanager
def quiet_first_use() -> Iterator[None]:
    """Building a rules core compiles nothing, but on a cold cache it says so and starts compiling the game
    in the background (`envs.first_use`); `meeple games` only reads each game's configuration."""
    old = {name: os.environ.get(name) for name in ("MEEPLE_QUIET", "MEEPLE_COMPILE")}
    os.environ["MEEPLE_QUIET"] = "1"
    os.environ["MEEPLE_COMPILE"] = "wait"  # no background compile: nothing here runs a kernel
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def game_rows() -> list[dict]:
    """One dict per registered game: name, player counts, actions and observation size (at 2 players, or
    the fewest the game allows, default variant), the variants that change the action count, Gymnasium id."""
    import numpy as np

    from meeple.envs import GAMES, make, make_encoder, player_range
    from meeple.envs.single_agent import GYMNASIUM_IDS

    rows = []
    with quiet_first_use():
        for name, entry in GAMES.items():
            lo, hi = player_range(name)
            players = list(range(lo, hi + 1))
            P = 2 if 2 in players else players[0]
            game = make(name, num_players=P)
            variants = {}  # the test configurations whose variant flags change the action count
            for test_config in entry.test_configs:
                flags = {k: v for k, v in test_config.items() if k != "num_players"}
                label = ", ".join(f"{k}={v!r}" for k, v in flags.items())
                if flags and label not in variants:
                    n = make(name, **test_config).num_actions
                    if n != game.num_actions:
                        variants[label] = n
            rows.append({"game": name, "players": players, "num_players": P, "actions": game.num_actions,
                         "variant_actions": variants,
                         "observation": int(np.prod(make_encoder(name, game).space().shape)),
                         "gymnasium_id": GYMNASIUM_IDS[name]})
    return rows


def games(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: meeple games\n\n" + COMMANDS["games"] + " (actions and observation at 2 players, default "
              "variant; variants that change the action count in brackets)")
        return 0
    if argv:
        print(f"error: meeple games takes no arguments, got {' '.join(argv)}", file=sys.stderr)
        return 2
    table = [("game", "players", "actions", "observation", "gymnasium id")]
    for row in game_rows():
        players = row["players"]
        span = f"{players[0]}-{players[-1]}" if len(players) > 1 else str(players[0])
        actions = str(row["actions"]) + "".join(f" ({label}: {n})" for label, n in row["variant_actions"].items())
        table.append((row["game"], span, actions, str(row["observation"]), row["gymnasium_id"]))
    widths = [max(len(r[k]) for r in table) for k in range(len(table[0]))]
    for r in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    return 0


def run(argv: list[str]) -> int:
    """scripts/run.sh's two commands in this process: train, then the tournament (skipped after Ctrl-C)."""
    if argv and argv[0] in ("-h", "--help"):
        print("usage: meeple run\n\n" + COMMANDS["run"] + ", as scripts/run.sh does after its setup:\n\n"
              f"  meeple train {' '.join(RUN_TRAIN_ARGS)}\n  meeple evaluate {' '.join(RUN_EVALUATE_ARGS)}\n\n"
              "Files go to runs/ under the current folder. Ctrl-C during training saves the model and skips the "
              "tournament.")
        return 0
    if argv:
        print(f"error: meeple run takes no arguments (its budget is fixed; use meeple train and meeple evaluate to "
              f"choose), got {' '.join(argv)}", file=sys.stderr)
        return 2
    import tyro

    from meeple.agents.io import ArgsError
    from meeple.cli import evaluate
    from meeple.cli import exit as expert_iteration

    print(f"[meeple run] 1/2: meeple train {' '.join(RUN_TRAIN_ARGS)}", flush=True)
    try:
        summary = expert_iteration.main(tyro.cli(expert_iteration.Args, args=RUN_TRAIN_ARGS, prog="meeple run"))
    except ArgsError as exc:  # e.g. runs/main_job is a file
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(f"{exc or 'interrupt'}; nothing (more) saved, existing files left as they were", file=sys.stderr)
        return 130
    if summary["stopped_by"] in ("interrupt", "sigterm"):
        print(f"[meeple run] stopped by {summary['stopped_by']}: no tournament", file=sys.stderr)
        return 130
    print(f"[meeple run] 2/2: meeple evaluate {' '.join(RUN_EVALUATE_ARGS)}", flush=True)
    return evaluate.run_cli(RUN_EVALUATE_ARGS, prog="meeple run")


def main(argv: list[str] | None = None) -> int:
    """The console script: `meeple <command> [options]`; returns the exit code (0, 1 for a missing extra,
    2 for bad arguments, 130 on Ctrl-C)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print(usage(), file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    if argv[0] == "--version":
        from importlib.metadata import version

        print(f"meeple {version('meeple')}")
        return 0
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"error: unknown command {command!r}; choose one of {', '.join(COMMANDS)}\n\n{usage()}", file=sys.stderr)
        return 2
    try:
        if command == "games":
            return games(rest)
        if command == "run":
            return run(rest)
        if command == "serve":  # the app lives in its own package, meeple.web
            from meeple.web import run_cli as serve

            return serve(rest, prog="meeple serve")
        module = importlib.import_module(f"meeple.cli.{command}")
        return module.run_cli(rest, prog=f"meeple {command}")
    except ModuleNotFoundError as exc:
        root = (exc.name or "").partition(".")[0]
        if root not in EXTRA_OF:
            raise
        extra = EXTRA_OF[root]
        first = (f"pip install torch=={TORCH_CPU} --index-url https://download.pytorch.org/whl/cpu (the CPU build; "
                 "a bare `torch` is a multi-GB CUDA build), then ") if extra == "train" else ""
        print(f"error: meeple {command} needs {root}, from the {extra!r} extra: {first}"
              f"pip install 'meeple[{extra}]'", file=sys.stderr)
        return 1
