"""A tournament between any agents: win rates with 95% intervals, OpenSkill ratings, a win-rate matrix.

    meeple evaluate --game roll_through_the_ages --agents heuristic random --games 1000
    meeple evaluate --agents heuristic random mcts:200 --games 400 --num-players 2
    meeple evaluate --agents heuristic --num-players 1              # solo: mean scores only
    meeple evaluate --agents human mcts:400                         # play in the terminal

(`python evaluate.py ...` in a checkout is the same: a thin wrapper around `run_cli` here.)

Agent specs: random, heuristic, mcts:N[:key=value,...] (e.g. mcts:200:rollout_depth=30), ppo:<path to
model.zip>, net:<path to net.safetensors> (an expert-iteration policy), search:<path>:sims=N (search with that
net), py:<module>:<policy> (your own policy from Python: `act(observation, mask) -> actions`, batched;
`meeple.agents.external`), human. Every line-up of agents plays every seating of each deal, and all games of a deal
share one chance stream (duplicate seeding), so seat order and dice luck cancel out; the schedule,
the win-rate matrix and the ratings are defined in `agents/tournament.py`. A win rate is the fraction
of an agent's games won by one of its seats (shared 1/k when k seats tie); mean scores are per seat.
`--record DIR` also writes every game as a small replayable JSON record (`meeple.envs.record`: the
chance stream, the moves, the agents and the result), which `meeple serve --records DIR` shows.
Results go to a JSON file (runs/eval/<game>-<time>.json unless --json) and a PNG beside it: OpenSkill
ratings with intervals on the left, the head-to-head matrix on the right. With a `human` agent one
game is played at the terminal (--games is ignored; the person sits in the seat of its place in
--agents, --seed picks the deal) and nothing is saved. Arguments are checked before any game is played
(every agent spec is built once): a bad one exits with code 2 and a one-line message naming it. Files
are written atomically, so an interrupted run never leaves a truncated JSON or PNG.
"""

from __future__ import annotations

import io
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import tyro

from meeple.agents import make_agent
from meeple.agents.io import ArgsError, atomic_write, atomic_write_text, check_agent_specs, check_at_least, check_game
from meeple.agents.arena import play_games, unique_labels
from meeple.agents.tournament import run_tournament
from meeple.cli.console import check_file, check_folder, interactive, wait_for_compile
from meeple.envs import make


@dataclass
class Args:
    game: str = "roll_through_the_ages"
    """registered game name (meeple.envs.GAMES)"""
    agents: tuple[str, ...] = ("heuristic", "random")
    """agent specs: random, heuristic, mcts:N[:key=value,...], ppo:<path to model.zip>, net:<path to net.safetensors>,
    search:<path to net.safetensors>:sims=N, py:<module>:<policy> (your own: act(observation, mask) -> actions), human"""
    games: int = 1000
    """at least this many games, rounded up to whole deals (every seating of every line-up)"""
    num_players: int = 2
    """seats per game (1 plays the solo variant where the game has one)"""
    seed: int = 0
    """base seed: deal d's dice come from [seed, d]; the agents' generators are seeded from it too"""
    variant: str = "{}"
    """JSON object of variant flags passed to the game, e.g. '{"trade": true}'"""
    seating: Literal["permutations", "rotations"] = "permutations"
    """seat orders of each line-up: every permutation, or cyclic rotations only (5 players, many agents)"""
    duplicate: bool = True
    """every seating of a deal shares its dice (--no-duplicate: every game its own dice)"""
    batch_size: int = 0
    """games per batch, in whole deals (0 = all at once); bounds memory for large MCTS tournaments"""
    json: str | None = None
    """where to write the full results; default runs/eval/<game>-<time>.json"""
    plot: str | None = None
    """where to save the figure; default the JSON path with .png"""
    save: bool = True
    """write the JSON and the PNG (--no-save only prints)"""
    progress: bool = True
    """show a progress bar over games (--no-progress hides it)"""
    record: str | None = None
    """write every game as a replayable JSON record into this folder (meeple.envs.record)"""


def rating_text(agent: dict) -> str:
    """"mu ± 1.96 sigma" of an agent's rating, or "-" without one."""
    r = agent.get("rating")
    return f"{r['mu']:6.1f} ± {1.96 * r['sigma']:4.1f}" if r else "-"


def plain_table(headers: list[str], rows: list[list[str]]) -> str:
    """Rows under headers as aligned plain text, by rich (the first column left-aligned, the rest right); the
    cells are text, never markup, since agent specs may hold brackets."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for k, header in enumerate(headers):
        table.add_column(Text(header), justify="left" if k == 0 else "right")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return render_table(table)


def render_table(table: Any) -> str:
    """A rich table as plain text (no colour or terminal codes, never wrapped: it goes to logs as well)."""
    from rich.console import Console

    console = Console(file=io.StringIO(), width=1000, color_system=None, force_terminal=False, highlight=False)
    console.print(table)
    return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines() if line.strip())


def format_table(result: dict) -> str:
    """The per-agent summary as aligned text, best first (by rating ordinal, else win rate or score)."""
    solo = result["num_players"] == 1
    agents = sorted(result["agents"], key=lambda a: -(a["rating"]["ordinal"] if a.get("rating") else
                                                      a["win_rate"] if not solo else a["mean_score"]))
    rows = []
    for a in agents:
        win, ci = ("-", "-") if solo else (f"{a['win_rate']:.3f}", f"[{a['win_ci95'][0]:.3f}, {a['win_ci95'][1]:.3f}]")
        sci = f"[{a['score_ci95'][0]:.2f}, {a['score_ci95'][1]:.2f}]" if a.get("score_ci95") else "-"
        rows.append([a["name"], rating_text(a), win, ci, f"{a['mean_score']:.2f}", sci, str(a["games"]), str(a["seats"])])
    return plain_table(["agent", "rating (mu ± 1.96σ)", "win rate", "95% interval", "mean score", "95% interval",
                        "games", "seats"], rows)


def format_matrix(result: dict) -> str:
    """The head-to-head matrix (row agent's share of finishes ahead of the column agent; columns by index)."""
    rows = [[f"[{k}] {agent['name']}", *("-" if w is None else f"{w:.3f}" for w in row)]
            for k, (agent, row) in enumerate(zip(result["agents"], result["pairwise"]["win_rate"]))]
    return plain_table(["", *(f"[{k}]" for k in range(len(result["agents"])))], rows)


def agent_letters(n: int) -> list[str]:
    """Short axis labels for n agents: A..Z, then A1..Z1, ... (the legend gives each one's full spec)."""
    return [chr(ord("A") + k % 26) + (str(k // 26) if k >= 26 else "") for k in range(n)]


def plot_results(result: dict, path: Path) -> None:
    """Left: ratings (mu ± 1.96σ; win rates or solo mean scores without ratings); right: the matrix.

    Agents are labelled A, B, C, ... on the axes, so no spec is ever cut, and a legend under the
    panels gives every label's full agent spec. The matrix's diagonal (an agent against itself) is
    grey, hatched and marked "—"; missing pairs show "n/a"."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    agents, n = result["agents"], len(result["agents"])
    letters = agent_letters(n)
    multi = result["num_players"] > 1
    legend_cols = 1 if max(len(a["name"]) for a in agents) > 40 else min(n, 3)
    legend_rows = -(-n // legend_cols)
    height = 1.6 + 0.45 * max(n, 3) + 0.28 * legend_rows
    # the matrix is square, so its panel is as wide as the figure is high; the ratings take the rest (no empty band)
    matrix_width = height - 0.28 * legend_rows
    fig, axes = plt.subplots(1, 2 if multi else 1, figsize=(6.5 + matrix_width if multi else 6.5, height), squeeze=False,
                             layout="constrained", width_ratios=[6.5, matrix_width] if multi else None)
    ax = axes[0, 0]
    if multi and agents[0].get("rating"):
        x = [a["rating"]["mu"] for a in agents]
        err = [1.96 * a["rating"]["sigma"] for a in agents]
        ax.set_xlabel("OpenSkill Plackett-Luce rating (mu ± 1.96 sigma)")
    elif multi:
        x = [a["win_rate"] for a in agents]
        err = np.abs(np.array([a["win_ci95"] for a in agents]).T - x)
        ax.set_xlabel("win rate (95% Wilson interval)")
    else:
        x = [a["mean_score"] for a in agents]
        err = np.abs(np.array([a["score_ci95"] or [m, m] for a, m in zip(agents, x)]).T - x)
        ax.set_xlabel("mean score (95% interval)")
    ax.errorbar(x, range(n), xerr=err, fmt="o", capsize=4)
    ax.set_yticks(range(n), letters)
    ax.set_ylim(n - 0.5, -0.5)  # the first agent at the top, as in the legend
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"{result['game']}, {result['num_players']} player(s), {result['games']} games", fontsize=11)
    if multi:
        ax = axes[0, 1]
        m = np.array([[np.nan if w is None else w for w in row] for row in result["pairwise"]["win_rate"]], dtype=float)
        im = ax.imshow(np.ma.masked_invalid(m), cmap="RdBu", vmin=0.0, vmax=1.0)
        for i in range(n):
            for j in range(n):
                if i == j:  # an agent never plays itself: grey and hatched, so it never reads as a result
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.85", hatch="//", edgecolor="0.6", linewidth=0))
                    ax.text(j, i, "—", ha="center", va="center", color="0.3", fontsize=14)
                elif np.isnan(m[i, j]):
                    ax.text(j, i, "n/a", ha="center", va="center", color="0.3")
                else:
                    ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center",
                            color="white" if abs(m[i, j] - 0.5) > 0.3 else "black")
        ax.set_xticks(range(n), letters)
        ax.set_yticks(range(n), letters)
        ax.set_xlabel("column agent")
        ax.set_ylabel("row agent")
        ax.set_title("head-to-head: row ahead of column", fontsize=11)
        fig.colorbar(im, ax=ax, fraction=0.046)
    handles = [Patch(visible=False) for _ in agents]
    fig.legend(handles, [f"{letter}: {a['name']}" for letter, a in zip(letters, agents)], loc="outside lower center",
               ncol=legend_cols, frameon=False, handlelength=0, handletextpad=0, columnspacing=2.5)
    with atomic_write(path) as f:  # a file object carries no name: the format comes from the suffix
        fig.savefig(f, format=path.suffix[1:].lower(), dpi=120)
    plt.close(fig)


def play_human(args: Args, variant: dict) -> dict | None:
    """One game at the terminal: before each of the person's decisions, everything since its last
    move is narrated from its seat (`HumanAgent.watch`), and the end is narrated to every person."""
    from meeple.agents.human import HumanAgent, Quit

    game = make(args.game, num_players=args.num_players, **variant)
    agents = [make_agent(spec, args.game, args.num_players, **variant) for spec in args.agents]
    labels = unique_labels(list(args.agents))
    people = [agent for agent in agents if isinstance(agent, HumanAgent)]

    def watch(game, before, actions, after, owner) -> None:
        for person in people:
            person.watch(game, before, actions, after, owner)

    try:
        result = play_games(game, agents, 1, args.seed, names=labels, deals=[0], after_step=watch)
    except Quit:
        print("\nquit: game abandoned")
        return None
    seats = result["per_game"]["seat_agent"][0]
    mine = [p for p, k in enumerate(seats) if isinstance(agents[k], HumanAgent)]
    for person in people:  # the moves since the person's last one, narrated from its (first) seat
        person.catch_up(game, mine[0])
    print("\ngame over: " + ", ".join(f"player_{p} ({labels[k]}) {s} points"
                                      for p, (k, s) in enumerate(zip(seats, result["per_game"]["scores"][0]))))
    if game.num_players > 1:
        print("winner: " + " and ".join(a["name"] for a in result["agents"] if a["wins"]))
    return result


# what Figure.savefig can write without extra packages (pgf needs LaTeX, so it is left out)
PLOT_FORMATS = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")


def output_paths(args: Args) -> tuple[Path, Path]:
    """The JSON and plot paths --json / --plot name, or their defaults."""
    path = Path(args.json or f"runs/eval/{args.game}-{time.strftime('%Y%m%d-%H%M%S')}.json")
    return path, Path(args.plot) if args.plot else path.with_suffix(".png")


def check_output_path(option: str, path: Path) -> None:
    """Raises ArgsError if `path` cannot become a file: an existing folder, under an existing file, or in a folder
    this process cannot write in or create (checked before any game is played)."""
    check_file(option, path)


def validate_args(args: Args) -> None:
    """Raises ArgsError naming the first invalid argument; builds the game config and every agent once."""
    check_at_least(args, 1, "games")
    check_at_least(args, 0, "batch_size", "seed")
    if not args.agents:
        raise ArgsError("--agents needs at least one agent spec")
    variant = check_game(args.game, args.num_players, args.variant)
    check_agent_specs("--agents", args.agents, args.game, args.num_players, variant)
    if args.record is not None:
        folder = Path(args.record)
        if not args.record or folder.exists() and not folder.is_dir():
            raise ArgsError(f"--record {args.record!r}: not a folder")
        check_folder("--record", folder)
    if args.save and "human" not in args.agents:  # a human game saves nothing
        check_output_path("--json", Path(args.json or "runs/eval/x.json"))  # before with_suffix, which needs a name
        path, plot = output_paths(args)
        check_output_path("--plot" if args.plot else "--json (the plot goes beside it)", plot)
        if plot.suffix.lower() not in PLOT_FORMATS:
            raise ArgsError(f"--plot {str(plot)!r}: the suffix picks the format, one of {' '.join(PLOT_FORMATS)}")
        if plot.resolve() == path.resolve():
            raise ArgsError(f"--plot and --json are the same file {str(path)!r}")


def main(args: Args) -> dict | None:
    # --- setup ---
    validate_args(args)
    variant = json.loads(args.variant)
    if "human" in args.agents:
        return play_human(args, variant)

    # --- play ---
    make(args.game, num_players=args.num_players, **variant)  # starts the kernels' compile on a cold cache
    wait_for_compile()  # with a line every few seconds while it runs
    progress = args.progress and interactive()  # a bar on a terminal; in a log only the lines below
    if args.progress and not progress:
        print(f"tournament: {' '.join(args.agents)}, at least {args.games} games ...", flush=True)
    start = time.perf_counter()
    result = run_tournament(args.game, list(args.agents), args.num_players, args.games, args.seed, variant,
                            progress, seating=args.seating, duplicate=args.duplicate,
                            batch_size=args.batch_size or None, record=args.record is not None)
    result["seconds"] = round(time.perf_counter() - start, 3)
    result["args"] = vars(args)
    if result["pairwise"]:
        names = [a["name"] for a in result["agents"]]
        result["head_to_head"] = [{"agents": [names[a], names[b]], **head_to_head(result, a, b)}
                                  for a in range(len(names)) for b in range(a + 1, len(names))]

    # --- report ---
    print(f"{args.game}, {args.num_players} player(s), {result['games']} games ({result['deals']} deals x "
          f"{result['games_per_deal']} seatings), seed {args.seed}: {result['steps']} steps in {result['seconds']:.1f} s, "
          f"{result['truncated']} truncated")
    print(format_table(result))
    if result["pairwise"]:
        print("\nhead-to-head (row finishes ahead of column; with 2 players, row's win rate against column):")
        print(format_matrix(result))
        print("\nhead-to-head games (games with both agents; share won by the first, 95% Wilson interval):")
        print("\n".join(head_to_head_lines(result)))
    saved = None
    if args.save:
        path, plot = output_paths(args)
        saved = str(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(result))
        plot.parent.mkdir(parents=True, exist_ok=True)
        try:
            plot_results(result, plot)
            print(f"\nwrote {path} and {plot}")
        except ImportError:  # matplotlib is in the `eval` extra
            print(f"\nwrote {path} (no plot: pip install matplotlib)")
    if args.record is not None:
        print(f"wrote {write_records(args, variant, result)} game records to {args.record}")
    # one short machine-readable line (the full results are in the JSON file)
    print(json.dumps({"game": result["game"], "games": result["games"], "seconds": result["seconds"],
                      "json": saved,
                      "win_rate": {a["name"]: a["win_rate"] for a in result["agents"]}}))
    return result


def head_to_head(result: dict, a: int, b: int) -> dict:
    """Agent a against agent b over the games with both: games, a's share finishing ahead of b, its 95% Wilson
    interval, and the share of ties."""
    from meeple.agents.arena import wilson_interval

    pw = result["pairwise"]
    n, win, tie = pw["games"][a][b], pw["win_rate"][a][b], pw["tie_rate"][a][b]
    if not n or win is None:
        return {"games": 0, "win_rate": None, "win_ci95": None, "tie_rate": None}
    lo, hi = wilson_interval(win * n, n)
    return {"games": n, "win_rate": win, "win_ci95": [lo, hi], "tie_rate": tie}


def head_to_head_lines(result: dict) -> list[str]:
    """One line per pair of agents (the earlier one in --agents first)."""
    names = [a["name"] for a in result["agents"]]
    width = max(len(n) for n in names)
    lines = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            h = head_to_head(result, a, b)
            if not h["games"]:
                continue
            ties = f", {h['tie_rate']:.1%} tied" if h["tie_rate"] else ""
            lines.append(f"{names[a]:>{width}} vs {names[b]:<{width}}  {h['games']:>6} games  "
                         f"{h['win_rate']:6.1%} [{h['win_ci95'][0]:.1%}, {h['win_ci95'][1]:.1%}]{ties}")
    return lines


def write_records(args: Args, variant: dict, result: dict) -> int:
    """One record file per game (`<game>-<players>p-seed<seed>-<index>.json`); returns how many."""
    from meeple.envs.record import records_from_games, save_record

    labels = [a["name"] for a in result["agents"]]
    config = {"num_players": args.num_players, **variant}
    meta = {"source": "meeple evaluate", "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    records = records_from_games(args.game, config, args.seed, result, labels, meta)
    folder = Path(args.record)
    width = len(str(len(records) - 1))
    for i, record in enumerate(records):
        save_record(record, folder / f"{args.game}-{args.num_players}p-seed{args.seed}-{i:0{width}d}.json")
    return len(records)


def run_cli(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Parses the command line (`argv`, default sys.argv[1:]) and runs the tournament; returns the exit code: 0,
    2 for a bad argument (one `error:` line on stderr), 130 on Ctrl-C."""
    try:
        main(tyro.cli(Args, args=argv, prog=prog))
    except ArgsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the JSON and PNG are written atomically: an old file is never left half-written
        print("interrupt: stopped, nothing saved", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(run_cli())
