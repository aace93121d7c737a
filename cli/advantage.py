"""Offline advantage training: a hinted net learns where to leave the heuristic (`meeple train --algo advantage`).

    meeple train --algo advantage --game roll_through_the_ages --num-players 2 --exp-name rtta_adv \
        --time-limit-minutes 60
    meeple train --algo advantage --exp-name rtta_adv --resume --time-limit-minutes 60   # later: go on
    meeple evaluate --game roll_through_the_ages --agents net:runs/rtta_adv/best.safetensors heuristic

The net (`meeple.agents.net`, "Heads") reads the heuristic's move and predicts, per legal move, how much
better it is than that move (Â, 0 at the heuristic's move); alone, with no search, it plays the heuristic's
move unless an alternative's Â exceeds the margin its file records. Each iteration (docs/training.md):

1. **Generation**: --games-per-shard games in lockstep; the learner (the net's act rule, the heuristic's move
   instead with probability --heuristic-share) plays every seat in --selfplay-share of them and one random
   seat against the heuristic in the rest (DAgger: the positions the net's own play reaches). Each of its
   decisions with a choice is kept with probability --label-prob.
2. **Labels** (`meeple.agents.advantage`): candidates per kept position (the heuristic's move, the net's
   --top-k best others, a random legal move with probability --random-prob), --playouts paired playouts each
   by the heuristic for every seat with common random numbers, raced up to --max-playouts where a challenger
   is still close; the mean paired differences, their counts and standard errors.
3. The labelled positions are written as a shard (runs/<name>/shards/shard-NNNNNN.npz; numpy arrays, read
   without pickle). With --tune-margin, the margin is chosen on this shard, which the net has not trained on.
4. **Training**: --epochs passes over the newest --window-shards shards: regression of Â at every labelled
   challenger to its mean difference, weighted by 1 / (se^2 + --se-eps), plus --value-coef x the value head's
   error on the games' results.
5. **Evaluation**, when --eval-every-minutes of run time have passed since the last (and at the start and
   the end): the net alone plays --eval-games games against the heuristic on fixed seeds, seats rotated; the
   point (hours, labelled states, win rate with its 95% interval) goes to runs/<name>/curve.json, and the best
   net so far to best.safetensors.
6. **Checkpoint**: the net and the Adam state (safetensors), and the run's scalars (checkpoint.json), then
   net.safetensors and manifest.json (the run's hours and labelled states, accumulated across sessions).

**Interruption.** Ctrl-C, SIGTERM or --time-limit-minutes stop at the next safe point (a second signal at
once): an iteration in generation or labelling is dropped, one in training finishes. `--resume` (with the
run's --exp-name) continues from the last checkpoint exactly: the same net, optimizer state, margin and
shard window, and every iteration's random generators are derived from (--seed, iteration), so a run
stopped and resumed trains the same net as one that never stopped. On --resume the run's own settings
come from its checkpoint; only --total-shards, --time-limit-minutes, --eval-every-minutes and
--torch-threads are taken from the command line. Arguments are checked before any work starts (output paths
included): a bad one exits with code 2 and a one-line message naming it. `--init-net <file>` starts a new run
from an advantage net file (a shipped baseline, say) instead of fresh weights, when the run that trained it
is gone; its optimizer state, shards and curve start afresh.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import tyro

from meeple.agents.io import (ArgsError, atomic_write, atomic_write_text, check_at_least, check_game, check_range,
                              check_run_paths)
from meeple.cli.console import check_folder, clock, wait_for_compile
from meeple.cli.trainers import (TrainerArgs, check_hidden, check_seed, check_time_limit, make_run_folder,
                                 run_trainer)


@dataclass
class Args(TrainerArgs):  # inherits --game, --num-players and --variant, listed after --algo (TrainerArgs)
    algo: str = "advantage"
    """advantage (this trainer), exit or ppo (`meeple train --help`)"""
    exp_name: str = ""
    """run name; default advantage_<game>_<P>p_s<seed>_<date-time>; needed with --resume"""
    run_dir: str = "runs"
    """parent folder of the run's folder <name>/"""
    resume: bool = False
    """continue the run --exp-name from its last checkpoint (its own settings; see the module docstring)"""
    init_net: str = ""
    """start from this net file (or shipped baseline name) instead of fresh weights: an advantage net of the same game (its layer widths and
    margin replace --hidden and --margin; the optimizer starts fresh), e.g. a shipped baseline, to go on
    training it where its run's folder is gone; the manifest names the file and its SHA-256"""
    seed: int = 1
    """seeds the net's initial weights, every iteration's games, labels and minibatch order, and the evaluation"""
    total_shards: int = 1_000_000
    """stop once the run holds this many labelled shards (counted across sessions)"""
    time_limit_minutes: float = 0.0
    """stop this session after this wall-clock budget (0 = no limit); the final evaluation and save still run"""
    torch_threads: int = 1
    """torch intra-op threads: the rules core needs the other core"""

    # --- the net ---
    hidden: tuple[int, ...] = (256, 256)
    """hidden layer widths of the shared MLP trunk"""
    margin: float = 0.05
    """the act rule's margin: the least Â (returns units) with which an alternative replaces the heuristic's
    move; the start value when --tune-margin"""
    tune_margin: bool = True
    """choose the margin on every new shard (labels the net has not trained on) among a fixed grid"""

    # --- generation (DAgger) ---
    games_per_shard: int = 32
    """games played per iteration, in lockstep"""
    selfplay_share: float = 0.5
    """share of those games with the learner in every seat; in the others it plays one random seat against the
    heuristic"""
    heuristic_share: float = 0.1
    """share of the learner's moves replaced by the heuristic's (positions a little off its own path)"""
    label_prob: float = 0.1
    """probability that a learner decision with a choice is labelled"""

    # --- labels ---
    top_k: int = 2
    """candidates from the net: its best moves other than the heuristic's"""
    random_prob: float = 0.25
    """probability of one more candidate, a random legal move"""
    playouts: int = 4
    """paired playouts per candidate before racing"""
    max_playouts: int = 16
    """paired playouts per candidate at most (racing adds --playouts at a time to close challengers)"""
    race_z: float = 2.0
    """a challenger is close while |mean difference| < race_z x its standard error"""

    # --- training ---
    window_shards: int = 8
    """train on the newest this many shards"""
    epochs: int = 1
    """passes over the window after every new shard"""
    batch_size: int = 256
    """minibatch size (positions)"""
    learning_rate: float = 1e-3
    """Adam step size"""
    weight_decay: float = 1e-5
    """Adam L2 weight decay"""
    se_eps: float = 0.01
    """a label's weight is 1 / (se^2 + se_eps): the floor keeps labels with a tiny measured se from dominating"""
    value_coef: float = 0.25
    """weight of the value head's error (the games' results) beside the advantage regression"""
    max_grad_norm: float = 1.0
    """gradient clipping norm"""

    # --- evaluation ---
    eval_games: int = 200
    """games against the heuristic per evaluation; the same seeds every time"""
    eval_every_minutes: float = 10.0
    """evaluate when this much run time has passed since the last evaluation"""

    run_name: tyro.conf.Suppress[str] = ""
    """(internal, not an option) the run's folder name: --exp-name, or the default; set when training starts"""


CHECKPOINT_FORMAT = "meeple-advantage-checkpoint"
CHECKPOINT_VERSION = 1
OPTIMIZER_FORMAT = "meeple-adam"
# what --resume takes from the command line; every other option is the run's own, from its checkpoint
SESSION_OPTIONS = ("algo", "exp_name", "run_dir", "resume", "total_shards", "time_limit_minutes",
                   "eval_every_minutes", "torch_threads", "run_name")
LEARNER, HEURISTIC = -1, 0  # seat owners in the generation games


def validate_args(args: Args) -> None:
    """Raises ArgsError naming the first invalid argument (the output paths, and with --resume the checkpoint,
    included); builds nothing heavier than the game config. With --resume, replaces the run's own settings in
    `args` by the checkpoint's."""
    if args.algo != "advantage":
        raise ArgsError(f"--algo must be 'advantage' here (meeple.cli.advantage), got {args.algo!r}")
    check_run_paths(args.exp_name, args.run_dir)
    check_folder("--run-dir", args.run_dir)
    if args.resume:
        if not args.exp_name:
            raise ArgsError("--resume needs --exp-name: the name of the run to continue")
        saved = read_checkpoint(Path(args.run_dir) / args.exp_name)  # ArgsError if missing or malformed
        for key, value in saved["args"].items():
            if key not in SESSION_OPTIONS and hasattr(args, key):
                setattr(args, key, tuple(value) if isinstance(getattr(Args, key, None), tuple) else value)
    elif args.init_net:
        from meeple.agents.net import load_net, resolve_net_path

        try:  # (a file, or a shipped baseline's name as in `net:` specs)
            args.init_net = str(resolve_net_path(f"net:{args.init_net}", args.init_net))
            net = load_net(args.init_net, args.game)
        except ValueError as exc:
            raise ArgsError(f"--init-net: {exc}") from None
        if net.head_kind != "advantage":
            raise ArgsError(f"--init-net: {args.init_net!r} is a {net.head_kind} net, not an advantage net")
        if net.header["num_players"] != args.num_players:
            raise ArgsError(f"--init-net: {args.init_net!r} is for {net.header['num_players']} players, "
                            f"not --num-players {args.num_players}")
    if not args.resume and args.exp_name and (Path(args.run_dir) / args.exp_name / "checkpoint.json").exists():
        raise ArgsError(f"--exp-name {args.exp_name!r} already holds a run in {args.run_dir!r}: add --resume to "
                        "continue it, or choose another name")
    check_at_least(args, 1, "total_shards", "torch_threads", "games_per_shard", "window_shards", "epochs",
                   "batch_size", "eval_games")
    check_at_least(args, 0, "top_k")
    check_at_least(args, 2, "playouts")  # a standard error needs two paired differences
    from meeple.agents.advantage import STREAM_STRIDE

    if not args.playouts <= args.max_playouts <= STREAM_STRIDE:
        raise ArgsError(f"--max-playouts must be in [--playouts, {STREAM_STRIDE}], got {args.max_playouts}")
    check_seed(args)
    check_time_limit(args)
    check_hidden(args)
    for name in ("learning_rate", "max_grad_norm", "se_eps", "eval_every_minutes", "label_prob"):
        check_range(args, name, 0.0, 1.0 if name == "label_prob" else float("inf"), lo_open=True)
    for name in ("margin", "race_z", "weight_decay", "value_coef"):
        check_range(args, name, 0.0)
    for name in ("selfplay_share", "heuristic_share", "random_prob"):
        check_range(args, name, 0.0, 1.0)
    check_game(args.game, args.num_players, args.variant)


def read_checkpoint(run: Path) -> dict:
    """The checkpoint.json of `run`, checked (its files exist); ArgsError naming the problem."""
    path = run / "checkpoint.json"
    if not path.is_file():
        raise ArgsError(f"--resume: no checkpoint at {str(path)!r} (start the run without --resume)")
    try:
        state = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ArgsError(f"--resume: cannot read {str(path)!r} ({exc})") from None
    keys = {"format", "version", "args", "shards", "labelled_states", "playouts", "hours", "next_eval_hours",
            "margin", "best", "curve", "sessions", "net", "optimizer", "window"}
    if not (isinstance(state, dict) and state.get("format") == CHECKPOINT_FORMAT
            and state.get("version") == CHECKPOINT_VERSION and keys <= set(state) and isinstance(state["args"], dict)):
        raise ArgsError(f"--resume: {str(path)!r} is not a {CHECKPOINT_FORMAT} version {CHECKPOINT_VERSION} file")
    for name in [state["net"], state["optimizer"], *state["window"].values()]:
        if not isinstance(name, str) or Path(name).is_absolute() or ".." in Path(name).parts or not (run / name).is_file():
            raise ArgsError(f"--resume: the checkpoint's file {name!r} is missing from {str(run)!r}")
    return state


# --- optimizer state: safetensors for its tensors, JSON for the rest ---------------------------------

def save_optimizer(optimizer: torch.optim.Optimizer, path: Path) -> None:
    """Adam's state as a safetensors file: every state tensor as `state.<param>.<name>`, and in the metadata the
    param groups and the state's non-tensor values as JSON (no pickle)."""
    from safetensors.numpy import save

    sd = optimizer.state_dict()
    tensors, scalars, shapes = {}, {}, {}
    for index, entry in sd["state"].items():
        for name, value in entry.items():
            key = f"state.{index}.{name}"
            if torch.is_tensor(value):
                array = value.detach().cpu().numpy()
                shapes[key] = list(array.shape)
                tensors[key] = np.ascontiguousarray(array.reshape(-1) if array.ndim == 0 else array)
            else:
                scalars[key] = value
    meta = {"format": OPTIMIZER_FORMAT, "param_groups": sd["param_groups"], "scalars": scalars, "shapes": shapes}
    with atomic_write(path) as f:
        f.write(save(tensors, metadata={"meeple": json.dumps(meta)}))


def load_optimizer(optimizer: torch.optim.Optimizer, path: Path) -> None:
    """Restore `save_optimizer`'s file into `optimizer` (built for the same parameters); ValueError if it does
    not fit."""
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        meta = json.loads((f.metadata() or {}).get("meeple", "null"))
        stored = {name: f.get_tensor(name) for name in f.keys()}
    if not isinstance(meta, dict) or meta.get("format") != OPTIMIZER_FORMAT:
        raise ValueError(f"{str(path)!r} is not a {OPTIMIZER_FORMAT} file")
    groups = meta["param_groups"]
    if [g["params"] for g in groups] != [g["params"] for g in optimizer.state_dict()["param_groups"]]:
        raise ValueError(f"{str(path)!r}: the optimizer's parameters do not match the net's")
    state: dict[int, dict[str, Any]] = {}
    for key, array in stored.items():
        _, index, name = key.split(".", 2)
        state.setdefault(int(index), {})[name] = torch.from_numpy(array.reshape(meta["shapes"][key]).copy())
    for key, value in meta["scalars"].items():
        _, index, name = key.split(".", 2)
        state.setdefault(int(index), {})[name] = value
    optimizer.load_state_dict({"state": state, "param_groups": groups})


# --- one iteration's games and labels -----------------------------------------------------------------

def generate_shard(game: Any, net: Any, heuristic: Any, args: Args, rng: np.random.Generator,
                   poll: Any) -> tuple[dict[str, np.ndarray], dict]:
    """Play --games-per-shard DAgger games, label the kept learner positions (`meeple.agents.advantage`);
    (the shard's arrays, its counts and timings). `poll()` runs before every step of games and playouts."""
    from meeple.agents.advantage import candidate_moves, paired_advantages
    from meeple.agents.net import advantage_actions, to_relative, value_targets
    from meeple.envs import core

    t0 = time.perf_counter()
    G, P, A = args.games_per_shard, int(game.num_players), int(game.num_actions)
    owner = np.full((G, P), HEURISTIC, dtype=np.int64)
    selfplay = rng.random(G) < args.selfplay_share if P > 1 else np.ones(G, dtype=np.bool_)
    owner[selfplay] = LEARNER
    owner[np.flatnonzero(~selfplay), rng.integers(P, size=int((~selfplay).sum()))] = LEARNER
    state = game.init(rng, G)
    rows_all = np.arange(G)
    kept: dict[str, list] = {"state": [], "obs": [], "mask": [], "scores": [], "hint": [], "row": [], "seat": []}
    while not state.done.all():
        poll()
        to_play = np.asarray(state.to_play, dtype=np.int64)
        holder = np.where(state.done, -2, owner[rows_all, to_play])
        actions = np.zeros(G, dtype=np.int64)
        mine = np.flatnonzero(holder == LEARNER)
        if mine.size:
            sub = core_take(state, mine, G)
            mask = np.asarray(game.legal_action_mask(sub), dtype=np.bool_)
            obs = net.encode(game, sub)
            scores, _ = net.predict(obs, mask)
            hint = np.argmax(obs[:, obs.shape[1] - A:], axis=1)
            chosen = advantage_actions(scores, hint, net.margin)
            actions[mine] = np.where(rng.random(mine.size) < args.heuristic_share, hint, chosen)
            keep = (mask.sum(axis=1) > 1) & (rng.random(mine.size) < args.label_prob)
            if keep.any():
                kept["state"].append(core.take(sub, keep))
                for key, value in (("obs", obs), ("mask", mask), ("scores", scores), ("hint", hint),
                                   ("row", mine), ("seat", to_play[mine])):
                    kept[key].append(value[keep])
        theirs = np.flatnonzero(holder == HEURISTIC)
        if theirs.size:
            actions[theirs] = np.asarray(heuristic.act(game, core_take(state, theirs, G), rng), dtype=np.int64)
        state = game.step(state, actions, rng)
    play_s = time.perf_counter() - t0
    targets = value_targets(game, state)
    C = 2 + args.top_k
    if not kept["state"]:  # every decision forced, or nothing drawn: an empty shard
        empty = {"obs": np.zeros((0, net.input_size), np.float32), "mask": np.zeros((0, A), np.bool_),
                 "value": np.zeros((0, P), np.float32),
                 **{k: np.zeros((0, C), np.float32) for k in ("diff", "se", "predicted")},
                 **{k: np.zeros((0, C), np.int32) for k in ("candidates", "count")}}
        return empty, {"games": G, "positions": 0, "playouts": 0, "play_s": round(play_s, 3), "label_s": 0.0}
    t1 = time.perf_counter()
    positions = core.concatenate(kept["state"])
    got = {k: np.concatenate(v) for k, v in kept.items() if k != "state"}
    candidates = candidate_moves(got["mask"], got["hint"], got["scores"], rng, args.top_k, args.random_prob)
    labels = paired_advantages(game, positions, candidates, heuristic, rng, args.playouts, args.max_playouts,
                               args.race_z, poll)
    label_s = time.perf_counter() - t1
    predicted = np.where(candidates >= 0, np.take_along_axis(got["scores"], np.maximum(candidates, 0), axis=1), 0.0)
    data = {"obs": got["obs"], "mask": got["mask"], "candidates": candidates, "diff": labels.diff, "se": labels.se,
            "count": labels.count, "predicted": predicted, "value": to_relative(targets[got["row"]], got["seat"])}
    return data, {"games": G, "positions": int(len(candidates)), "playouts": labels.playouts,
                  "play_s": round(play_s, 3), "label_s": round(label_s, 3)}


def core_take(state: Any, rows: np.ndarray, batch: int) -> Any:
    """The rows of `state`, or `state` itself when they are all of them (no copy)."""
    from meeple.envs import core

    return state if rows.size == batch else core.take(state, rows)


# --- the run ------------------------------------------------------------------------------------------

def main(args: Args) -> dict:
    """Validates `args`, then trains with Ctrl-C and SIGTERM turned into a stop at the next safe point."""
    from meeple.cli.train import run_stoppable

    validate_args(args)
    return run_stoppable(train, args)


class _Stopped(Exception):
    """Generation or labelling saw a stop request (signal or time limit) and gave up the iteration."""


def train(args: Args, stop: Any) -> dict:
    from meeple.agents import make_agent
    from meeple.agents.advantage import SHARD_ARRAYS, fit_advantages, load_shard, save_shard, tune_margin
    from meeple.agents.net import PolicyValueNet, load_net, save_net
    from meeple.cli.exit import evaluate_net
    from meeple.cli.train import Interrupted
    from meeple.envs import make

    session_t0, session_cpu0 = time.perf_counter(), time.process_time()
    started = time.strftime("%Y-%m-%dT%H:%M:%S")
    run = make_run_folder(args, "advantage_")
    for folder in (run / "shards", run / "checkpoint"):
        folder.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.torch_threads)
    game = make(args.game, num_players=args.num_players, **json.loads(args.variant))
    heuristic = make_agent("heuristic", args.game)
    wait_for_compile()
    if args.resume:
        ckpt = read_checkpoint(run)
        net = load_net(run / ckpt["net"], args.game, game)
        optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
        load_optimizer(optimizer, run / ckpt["optimizer"])
        state = {k: ckpt[k] for k in ("shards", "labelled_states", "playouts", "hours", "next_eval_hours", "margin",
                                      "best", "curve", "sessions", "window", "net", "optimizer", "init_net")
                 if k in ckpt}
        state["margin_gains"] = ckpt.get("margin_gains", {})
        net.set_margin(state["margin"])
    else:
        if args.init_net:
            net = load_net(args.init_net, args.game, game)
            net.train()
            args.hidden, args.margin = tuple(net.header["hidden"]), float(net.margin)
        else:
            net = PolicyValueNet.for_game(args.game, game, tuple(args.hidden), seed=args.seed, hint="heuristic",
                                          head="advantage", margin=args.margin)
        optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
        state = {"shards": 0, "labelled_states": 0, "playouts": 0, "hours": 0.0, "next_eval_hours": 0.0,
                 "margin": args.margin, "best": {"score": None, "shards": None, "hours": None}, "curve": [],
                 "sessions": [], "window": {}, "margin_gains": {}}
        if args.init_net:
            state["init_net"] = {"file": args.init_net, "sha256": hashlib.sha256(Path(args.init_net).read_bytes()).hexdigest()}
    base_hours = float(state["hours"])
    # CPU hours beside the wall-clock ones: a run that shares its core (nice, other work) waits without training
    session = {"started": started, "resumed": bool(args.resume), "hours": 0.0, "cpu_hours": 0.0, "shards": 0,
               "labelled_states": 0, "stopped_by": "running"}
    state["sessions"].append(session)
    deadline = session_t0 + args.time_limit_minutes * 60 if args.time_limit_minutes > 0 else float("inf")
    cache: dict[int, dict[str, np.ndarray]] = {}  # the window's shards, read once

    def hours_now() -> float:
        return base_hours + (time.perf_counter() - session_t0) / 3600

    def poll() -> None:
        if stop.reason is not None or time.perf_counter() > deadline:
            raise _Stopped

    def checkpoint(saved_net: bool) -> None:
        """net and optimizer files of this iteration (when `saved_net`), then the scalars that name them, then
        the net and the manifest; older checkpoint files and shards out of the window go last."""
        i = state["shards"]
        if saved_net:
            state["net"] = f"checkpoint/net-{i:06d}.safetensors"
            state["optimizer"] = f"checkpoint/optimizer-{i:06d}.safetensors"
            save_net(net, run / state["net"])
            save_optimizer(optimizer, run / state["optimizer"])
        state["hours"] = round(hours_now(), 6)
        session["hours"] = round((time.perf_counter() - session_t0) / 3600, 6)
        session["cpu_hours"] = round((time.process_time() - session_cpu0) / 3600, 6)
        atomic_write_text(run / "checkpoint.json", json.dumps({
            "format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION,
            "args": {k: v for k, v in asdict(args).items() if k not in SESSION_OPTIONS}, **state}, indent=1))
        save_net(net, run / "net.safetensors")
        atomic_write_text(run / "manifest.json", json.dumps({
            "game": args.game, "num_players": args.num_players, "variant": json.loads(args.variant),
            "hours": state["hours"], "labelled_states": state["labelled_states"], "shards": state["shards"],
            # (sessions from before CPU time was recorded have none: their CPU hours are not in this sum)
            "cpu_hours": round(sum(x.get("cpu_hours", 0.0) for x in state["sessions"]), 6),
            "playouts": state["playouts"], "margin": state["margin"], "best": state["best"],
            **({"init_net": state["init_net"]} if "init_net" in state else {}),
            "sessions": state["sessions"]}, indent=2))
        keep = {state["net"], state["optimizer"], *state["window"].values()}
        for old in [*(run / "checkpoint").glob("*.safetensors"), *(run / "shards").glob("*.npz")]:
            if str(old.relative_to(run)) not in keep:
                old.unlink(missing_ok=True)

    def run_eval() -> None:
        t = time.perf_counter()
        result = evaluate_net(net, game, args.game, ("heuristic",), args.eval_games, args.seed, False)["heuristic"]
        point = {"hours": round(hours_now(), 4), "labelled_states": state["labelled_states"],
                 "shards": state["shards"], "margin": state["margin"], "games": args.eval_games, **result}
        state["curve"].append(point)
        atomic_write_text(run / "curve.json", json.dumps(state["curve"], indent=2))
        score = result["win_rate"] if result["win_rate"] is not None else result["mean_score"]
        if score is not None and (state["best"]["score"] is None or score > state["best"]["score"]):
            state["best"] = {"score": score, "shards": state["shards"], "hours": point["hours"]}
            save_net(net, run / "best.safetensors")
        state["next_eval_hours"] = hours_now() + args.eval_every_minutes / 60
        ci = result["win_ci95"]
        shown = (f"win rate {result['win_rate']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if result["win_rate"] is not None
                 else f"mean score {result['mean_score']}")
        print(f"[eval] {state['labelled_states']:,} labelled states, {point['hours']:.3f} h: {shown} vs heuristic "
              f"({args.eval_games} games, margin {state['margin']:g}, {time.perf_counter() - t:.1f}s)", flush=True)

    print(f"{game!r}: advantage net {list(args.hidden)}, run {run}"
          + (f", resumed at shard {state['shards']} ({state['labelled_states']:,} labelled states, "
             f"{state['hours']:.3f} h)" if args.resume else ""), flush=True)
    stopped_by = "total_shards"
    try:
        stop.immediate = False
        if not args.resume:
            checkpoint(saved_net=True)  # shard 0: the fresh net, so that --resume works from the start
        if hours_now() >= state["next_eval_hours"]:
            run_eval()
            checkpoint(saved_net=False)
        while state["shards"] < args.total_shards:
            poll()
            i = state["shards"] + 1
            # every iteration's generators come from (seed, iteration) alone: a resumed run draws what an
            # uninterrupted one would have
            data, meta = generate_shard(game, net, heuristic, args, np.random.default_rng([args.seed, i, 0]), poll)
            # in the shard's dtypes from here on: training on a shard just made and on one read back after a
            # resume must be the same arithmetic
            data = {k: np.ascontiguousarray(v, dtype=SHARD_ARRAYS[k][0]) for k, v in data.items()}
            name = f"shards/shard-{i:06d}.npz"
            save_shard(run / name, data, {"shard": i, "game": args.game, **meta})
            if args.tune_margin and meta["positions"]:
                margin, gains = tune_margin(data)
                net.set_margin(margin)
                state["margin"], state["margin_gains"] = margin, gains
            state["window"][str(i)] = name
            for old in sorted(state["window"], key=int)[:-args.window_shards]:
                del state["window"][old]
            cache[i] = data
            window = []
            for key in sorted(state["window"], key=int):
                if int(key) not in cache:
                    cache[int(key)] = load_shard(run / state["window"][key])[0]
                window.append(cache[int(key)])
            for old in [k for k in cache if str(k) not in state["window"]]:
                del cache[old]
            t = time.perf_counter()
            train_data = {k: np.concatenate([d[k] for d in window]) for k in ("obs", "candidates", "diff", "se",
                                                                             "value")}
            stats = {"adv_mse": float("nan"), "value_mse": float("nan")}
            if len(train_data["obs"]):
                stats = fit_advantages(net, optimizer, train_data, args.epochs, args.batch_size,
                                       np.random.default_rng([args.seed, i, 1]), args.se_eps, args.value_coef,
                                       args.max_grad_norm)
            train_s = time.perf_counter() - t
            state["shards"] = i
            state["labelled_states"] += meta["positions"]
            state["playouts"] += meta["playouts"]
            session["shards"] += 1
            session["labelled_states"] += meta["positions"]
            rate = meta["positions"] / max(meta["label_s"] + meta["play_s"], 1e-9)
            print(f"[shard {i}] {meta['positions']} positions from {meta['games']} games, {meta['playouts']:,} playouts"
                  f" (games {meta['play_s']:.1f}s, labels {meta['label_s']:.1f}s: {rate:.2f} labelled states/s); "
                  f"margin {state['margin']:g}; train {train_s:.1f}s adv_mse={stats['adv_mse']:.4f} "
                  f"value_mse={stats['value_mse']:.4f}", flush=True)
            if hours_now() >= state["next_eval_hours"]:
                run_eval()
            checkpoint(saved_net=True)
    except _Stopped:
        stopped_by = stop.reason or "time_limit"
    except Interrupted:  # a second signal: leave the last checkpoint as it is
        session["stopped_by"] = stop.reason or "interrupt"
        raise
    # --- the end of the session: a last evaluation of what the run holds now, and its clock ---
    if stop.reason is None and (not state["curve"] or state["curve"][-1]["labelled_states"] != state["labelled_states"]):
        stop.interruptible(run_eval)  # a signal stops the evaluation at once
    session["stopped_by"] = stopped_by
    checkpoint(saved_net=False)
    print(f"done: {state['shards']} shards, {state['labelled_states']:,} labelled states, {state['hours']:.3f} h in "
          f"all ({clock(session['hours'] * 3600)} this session, stopped by {stopped_by}); best "
          f"{state['best']['score']} at shard {state['best']['shards']}; wrote {run / 'manifest.json'}", flush=True)
    if stop.reason is not None:
        print(f"stopped by {stop.reason} at shard {state['shards']}: continue with --resume --exp-name {args.run_name}",
              file=sys.stderr, flush=True)
    return {"run": str(run), **state, "stopped_by": stopped_by}


def run_cli(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Parses the command line (`argv`, default sys.argv[1:]) and trains; returns the exit code: 0, 2 for a bad
    argument (one `error:` line on stderr), 130 when a second signal stopped it at once."""
    return run_trainer(Args, main, argv, prog, "the last checkpoint is as it was (continue with --resume)")


if __name__ == "__main__":
    sys.exit(run_cli())
