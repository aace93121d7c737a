"""Expert iteration: a policy-value net trained on the moves of a search that uses it (`meeple train --algo exit`).

    meeple train --algo exit --game roll_through_the_ages --num-players 2 --time-limit-minutes 30
    meeple evaluate --game roll_through_the_ages --agents net:runs/<name>/net.safetensors heuristic
    meeple evaluate --game roll_through_the_ages --agents search:runs/<name>/net.safetensors:sims=64 heuristic

Each round has three phases (docs/training.md):

1. **Self-play**: --games-per-round games in lockstep in one batched rules state. The learner is
   `NetSearchAgent` (MCTS with the net as prior and leaf value, --simulations per decision, Dirichlet
   noise at the root, moves sampled from the visit counts at --temperature for each game's first
   --temperature-moves learner decisions, then the most visited). A game is drawn per row from the
   line-ups: the learner in every seat (--selfplay-weight), or the learner in one random seat against
   --opponents (--opponent-weights) or a snapshot of the net of an earlier round (--snapshot-weight each,
   the last --max-snapshots; their policy, sampled). For every searched learner decision the round keeps the
   encoded observation of the seat to move, the legal mask and the search's visit distribution at the
   root; when the games end, the value target of every seat (`meeple.agents.net.value_targets`, seat-relative).
2. **Training**: --epochs passes of Adam over the last --replay-rounds rounds: cross-entropy of the
   masked policy to the visit distributions plus --value-coef x the mean squared error of the value
   head to the targets.
3. **Evaluation** every --eval-every rounds (and before the first round and at the end): the policy
   alone, greedy (`net:`), plays --eval-games seeded games against each --eval-opponents with seats
   rotated; the win rates make the curve (runs/<name>/curve.json and curve.png) and go to TensorBoard.

Optionally (--warm-start-games, inside the time limit) the net first learns from --teacher's games: the
teacher plays every seat, the net is fit to its moves (one-hot targets) and the results for
--warm-start-epochs, so the first searches have a prior better than uniform.

The run ends after --total-rounds or --time-limit-minutes, whichever comes first; a round the time
limit interrupts is dropped (its games are unfinished: there are no value targets yet). The net is
saved to runs/<name>/checkpoint.safetensors after every --checkpoint-every rounds, and to
runs/<name>/net.safetensors at the end, with runs/<name>/summary.json (timings, the curve); the net of
the best evaluation so far (win rate against the first --eval-opponents) is runs/<name>/best.safetensors
(a selection on --eval-games games: measure it again with evaluate.py on fresh seeds). Ctrl-C or
SIGTERM stops at the next safe point (a second one at once) and still saves the net and the summary.
Every file is written atomically. Arguments are checked before any work starts: a bad one exits with
code 2 and a one-line message naming it.
"""

from __future__ import annotations

import json
import sys
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import tyro
from tqdm.auto import tqdm

from meeple.agents.io import (ArgsError, atomic_write, atomic_write_text, check_agent_specs, check_at_least, check_game,
                              check_range, check_run_paths)
from meeple.cli.console import check_folder, clock, interactive, wait_for_compile
from meeple.cli.trainers import (TrainerArgs, check_hidden, check_seed, check_time_limit, make_run_folder,
                                 run_trainer)


@dataclass
class Args(TrainerArgs):  # inherits --game, --num-players and --variant, listed after --algo (TrainerArgs)
    algo: str = "exit"
    """exit (this trainer) or ppo (`meeple train --help`)"""
    exp_name: str = ""
    """run name; default exit_<game>_<P>p_s<seed>_<date-time>"""
    run_dir: str = "runs"
    """parent folder of <name>/net.safetensors, curve.json, curve.png, summary.json and tb/ (TensorBoard)"""
    seed: int = 1
    """seeds the games, the search, the net's initial weights, torch and the evaluation games"""
    total_rounds: int = 100
    """rounds of self-play + training to run"""
    time_limit_minutes: float = 0.0
    """stop after this wall-clock budget (0 = no limit), warm start and evaluations included; the final
    evaluation and save still run"""
    torch_threads: int = 1
    """torch intra-op threads: the rules core needs the other core"""
    progress_bar: bool = True
    """progress bars: the run (sized to whichever of --total-rounds and the time limit ends it), and each
    phase (teacher games, self-play, training, evaluation)"""
    checkpoint_every: int = 1
    """save <name>/checkpoint.safetensors after every this many rounds (0 = never)"""

    # --- the net ---
    hidden: tuple[int, ...] = (256, 256)
    """hidden layer widths of the shared MLP trunk"""
    hint: str = ""
    """heuristic: the net also reads the heuristic's move in every position (one-hot, after the observation)
    and adds a learned weight to that move's logit, so it starts as the heuristic and learns where to
    leave it (a residual policy); empty = the observation alone"""

    # --- self-play ---
    games_per_round: int = 256
    """games per round, played in lockstep (one batched rules state; rows finish at their own pace)"""
    simulations: int = 64
    """MCTS simulations per learner decision"""
    c_uct: float = 1.4
    """PUCT exploration constant"""
    temperature: float = 1.0
    """the learner samples its move with probability ~ visits ** (1 / T) ..."""
    temperature_moves: int = 20
    """... for this many of its decisions per game, then plays the most visited move"""
    policy_target: str = "visits"
    """the search's policy the net learns: visits (the root's visit distribution) or improved (the prior
    moved toward the actions the search valued: softmax(logits + sigma(completed Q)), as Gumbel MuZero;
    keeps improving with few --simulations)"""
    noise_fraction: float = 0.25
    """share of Dirichlet noise in the root prior (0 = none)"""
    noise_alpha: float = 0.3
    """Dirichlet concentration of the root noise"""
    selfplay_weight: float = 1.0
    """draw weight of games with the learner in every seat"""
    opponents: tuple[str, ...] = ("heuristic",)
    """fixed opponents (make_agent specs) of games with the learner in one seat"""
    opponent_weights: tuple[float, ...] = (0.0,)
    """draw weights of --opponents (0 = not drawn)"""
    snapshot_weight: float = 0.0
    """draw weight of each snapshot of the net (taken after every round; policy alone, sampled)"""
    max_snapshots: int = 3
    """snapshots in the pool; older ones are retired"""

    # --- a fixed expert instead of the net's own search ---
    expert: str = ""
    """make_agent spec of an expert that labels the learner's decisions instead of the net's search, e.g.
    mcts:64:mode=rollout,rollout=heuristic (rollout-based improvement of the heuristic); empty = the net's
    search (classic expert iteration). With an expert the learner's games are played by the net's policy
    and the expert (--expert-share), and every decision's target is the expert's move (DAgger)"""
    expert_share: float = 0.5
    """with --expert: share of the learner's moves the expert plays (the rest: the net's policy, greedy);
    the net is trained on the positions its own play reaches, which is what it meets when it plays alone"""

    # --- training ---
    replay_rounds: int = 4
    """train on the decisions of this many most recent rounds"""
    epochs: int = 1
    """passes over the replay buffer per round"""
    batch_size: int = 512
    """minibatch size"""
    learning_rate: float = 1e-3
    """Adam step size"""
    weight_decay: float = 1e-5
    """Adam L2 weight decay"""
    value_coef: float = 1.0
    """weight of the value loss beside the policy cross-entropy"""
    max_grad_norm: float = 1.0
    """gradient clipping norm"""

    # --- warm start from a teacher (inside the time limit) ---
    warm_start_games: int = 0
    """games played by --teacher in every seat to pretrain the net on (0 = off)"""
    teacher: str = "heuristic"
    """make_agent spec of the warm start's demonstrator"""
    warm_start_epochs: int = 4
    """passes over the teacher's decisions"""
    warm_start_holdout_games: int = 0
    """more teacher games, never trained on, to measure the clone on positions it has not seen: how often
    its most likely move is the teacher's, its cross-entropy and its value error (0 = off)"""

    # --- evaluation ---
    eval_every: int = 5
    """evaluate the policy every this many rounds (and before the first and after the last)"""
    eval_games: int = 200
    """games per evaluation opponent; the same seeds every time, so the curve compares like with like"""
    eval_opponents: tuple[str, ...] = ("random", "heuristic")
    """opponents to report a win rate against"""

    run_name: tyro.conf.Suppress[str] = ""
    """(internal, not an option) the run's folder name: --exp-name, or the default; set when training starts"""


LEARNER = -1  # owner code of the learner's seats


def validate_args(args: Args) -> None:
    """Raises ArgsError naming the first invalid argument; builds nothing heavier than the game config and agents."""
    if args.algo != "exit":
        raise ArgsError(f"--algo must be 'exit' here (meeple.cli.exit), got {args.algo!r}")
    check_at_least(args, 1, "total_rounds", "torch_threads", "games_per_round", "simulations", "replay_rounds", "epochs",
                   "batch_size", "warm_start_epochs", "eval_every", "eval_games")
    check_at_least(args, 0, "checkpoint_every", "temperature_moves", "max_snapshots", "warm_start_games",
                   "warm_start_holdout_games")
    if args.warm_start_holdout_games > 0 and args.warm_start_games == 0:
        raise ArgsError("--warm-start-holdout-games needs a warm start (--warm-start-games > 0)")
    check_seed(args)
    check_time_limit(args)
    if args.hint not in ("", "heuristic"):
        raise ArgsError(f"--hint must be heuristic or empty, got {args.hint!r}")
    check_hidden(args)
    for name in ("learning_rate", "max_grad_norm", "noise_alpha"):
        check_range(args, name, 0.0, lo_open=True)
    for name in ("c_uct", "temperature", "weight_decay", "value_coef", "selfplay_weight", "snapshot_weight"):
        check_range(args, name, 0.0)
    check_range(args, "noise_fraction", 0.0, 1.0)
    from meeple.agents.net import POLICY_TARGETS

    if args.policy_target not in POLICY_TARGETS:
        raise ArgsError(f"--policy-target must be one of {', '.join(POLICY_TARGETS)}, got {args.policy_target!r}")
    check_run_paths(args.exp_name, args.run_dir)
    check_folder("--run-dir", args.run_dir)

    variant = check_game(args.game, args.num_players, args.variant)
    if len(args.opponent_weights) != len(args.opponents):
        raise ArgsError(f"--opponent-weights needs {len(args.opponents)} values (one per --opponents), "
                        f"got {len(args.opponent_weights)}")
    if any(not (0 <= w < float("inf")) for w in args.opponent_weights):
        raise ArgsError(f"--opponent-weights must be finite and non-negative, got {args.opponent_weights}")
    if args.selfplay_weight + sum(args.opponent_weights) <= 0:
        raise ArgsError("--selfplay-weight and --opponent-weights are all 0: no line-up to play the first round "
                        "(snapshots join only after it)")
    check_agent_specs("--opponents", args.opponents, args.game, args.num_players, variant, allow_human=False)
    check_agent_specs("--eval-opponents", args.eval_opponents, args.game, args.num_players, variant, allow_human=False)
    if args.warm_start_games > 0:
        check_agent_specs("--teacher", [args.teacher], args.game, args.num_players, variant, allow_human=False)
    check_range(args, "expert_share", 0.0, 1.0)
    if args.expert:
        check_agent_specs("--expert", [args.expert], args.game, args.num_players, variant, allow_human=False)


class _Stopped(Exception):
    """A phase saw a stop request (signal or time limit) at a safe point and gave up its unfinished work."""


def play_and_record(game: Any, decide: Any, n_games: int, owner: np.ndarray, pool: list, rng: np.random.Generator,
                    encode: Any, obs_size: int, should_stop: Any, bar: Any) -> dict[str, np.ndarray]:
    """Play `n_games` games in one batched state and record the learner's decisions.

    `owner` (n_games, P) says who holds each seat: LEARNER or an index into `pool` (agents). The learner's
    rows go to `decide(state, learner_decisions_so_far) -> (actions, policy (k, A), recorded (k,) bool)`;
    for every recorded decision the data keep `encode(state)` of the seat to move, the legal mask, the
    policy target, and (when the games end) the seat-relative value targets; "returns" holds the value
    targets of every game by absolute seat. `should_stop()` is polled every step; _Stopped is raised when
    it says so.
    """
    from meeple.agents.net import to_relative, value_targets
    from meeple.envs import core

    state = game.init(rng, n_games)
    rows_all = np.arange(n_games)
    decisions = np.zeros(n_games, dtype=np.int64)
    obs, masks, policies, rows, seats = [], [], [], [], []
    finished = 0
    while not state.done.all():
        if should_stop():
            raise _Stopped
        to_play = np.asarray(state.to_play, dtype=np.int64)
        holder = np.where(state.done, -2, owner[rows_all, to_play])
        actions = np.zeros(n_games, dtype=np.int64)
        mine = np.flatnonzero(holder == LEARNER)
        if mine.size:
            sub = state if mine.size == n_games else core.take(state, mine)
            chosen, policy, recorded = decide(sub, decisions[mine])
            actions[mine] = chosen
            if recorded.any():
                kept = core.take(sub, recorded)
                obs.append(encode(kept))
                masks.append(np.asarray(game.legal_action_mask(kept), dtype=np.bool_))
                policies.append(policy[recorded])
                rows.append(mine[recorded])
                seats.append(to_play[mine[recorded]])
            decisions[mine] += 1
        for k, agent in enumerate(pool):
            theirs = np.flatnonzero(holder == k)
            if theirs.size:
                sub = state if theirs.size == n_games else core.take(state, theirs)
                actions[theirs] = np.asarray(agent.act(game, sub, rng), dtype=np.int64)
        state = game.step(state, actions, rng)
        done_now = int(state.done.sum())
        bar.update(done_now - finished)
        finished = done_now
    A, P = int(game.num_actions), int(game.num_players)
    targets = value_targets(game, state)
    if not obs:  # e.g. every decision was forced
        return {"obs": np.zeros((0, obs_size), np.float32), "mask": np.zeros((0, A), np.bool_),
                "policy": np.zeros((0, A), np.float32), "value": np.zeros((0, P), np.float32), "returns": targets}
    row = np.concatenate(rows)
    # copy=False: the observations are float32 already, and a second copy of them can be gigabytes
    # (Carpe Diem's 3,231 floats x ~210 decisions per game)
    return {"obs": np.concatenate(obs).astype(np.float32, copy=False), "mask": np.concatenate(masks),
            "policy": np.concatenate(policies).astype(np.float32, copy=False),
            "value": to_relative(targets[row], np.concatenate(seats)).astype(np.float32),
            "returns": targets}


def clone_fit(net: Any, data: dict[str, np.ndarray], batch: int = 4096) -> dict[str, float]:
    """How well the net matches one-hot policy targets and value targets it was not trained on: the share
    of decisions where its most likely legal move is the target's ("agreement"), the mean cross-entropy
    of its masked policy to the targets, and the mean squared error of its values. A value error far
    below the one on fresh games means the value head learned the training games, not the positions."""
    n = len(data["policy"])
    if n == 0:
        return {"decisions": 0, "agreement": float("nan"), "ce": float("nan"), "value_mse": float("nan")}
    agree = ce = sq = 0.0
    for start in range(0, n, batch):
        sl = slice(start, start + batch)
        logits, values = net.predict(data["obs"][sl], data["mask"][sl])
        target = data["policy"][sl].argmax(axis=1)
        agree += float((logits.argmax(axis=1) == target).sum())
        top = logits.max(axis=1, keepdims=True)
        log_z = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        ce += float((log_z - logits[np.arange(len(target)), target]).sum())
        sq += float(((values - data["value"][sl]) ** 2).mean(axis=1).sum())
    return {"decisions": n, "agreement": round(agree / n, 4), "ce": round(ce / n, 4), "value_mse": round(sq / n, 4)}


def concat(datasets: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The training arrays of several rounds, one after the other."""
    return {k: np.concatenate([d[k] for d in datasets]) for k in ("obs", "mask", "policy", "value")}


def save_curve(curve: list[dict], opponents: tuple[str, ...], run: Path) -> None:
    """curve.json and curve.png (win rate against each evaluation opponent by round with its Wilson 95% band;
    solo games: the mean score)."""
    atomic_write_text(run / "curve.json", json.dumps(curve, indent=2))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    rounds = [p["round"] for p in curve]
    solo = bool(curve) and all(r["win_rate"] is None for r in curve[0]["results"].values())
    if solo:  # no one to beat: the mean score (the same for every "opponent", so once)
        ax.plot(rounds, [next(iter(p["results"].values()))["mean_score"] for p in curve], marker="o", label="solo")
        ax.set_ylabel("mean score of the policy (greedy)")
    else:
        for spec in opponents:
            ax.plot(rounds, [p["results"][spec]["win_rate"] for p in curve], marker="o", label=f"vs {spec}")
            ax.fill_between(rounds, [p["results"][spec]["win_ci95"][0] for p in curve],
                            [p["results"][spec]["win_ci95"][1] for p in curve], alpha=0.2)
        ax.set_ylabel("win rate of the policy (greedy)")
        ax.set_ylim(0, 1)
    ax.set_xlabel("round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    ax.set_title(run.name, fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    fig.tight_layout()
    with atomic_write(run / "curve.png") as f:
        fig.savefig(f, format="png")
    plt.close(fig)


def evaluate_net(net: Any, game: Any, game_name: str, opponents: tuple[str, ...], n_games: int, seed: int,
                 progress: bool) -> dict:
    """{opponent spec: win_rate, win_ci95, mean_score, mean_return} of the greedy policy, `n_games` seeded games
    against P - 1 copies of each opponent with seats rotated (seed + 1000 * (k + 1) for the k-th)."""
    from meeple.agents.arena import head_to_head
    from meeple.agents.net import NetAgent

    return head_to_head(game, NetAgent(net, name="learner"), game_name, opponents, n_games, seed, progress)


def write_hparams(writer: Any, args: Args) -> None:
    """Every argument as a TensorBoard hyperparameter, with the evaluation win rates as its metrics."""
    from torch.utils.tensorboard.summary import hparams

    from meeple.cli.train import hyperparameters

    metrics = {f"eval/win_rate_vs_{spec}": 0.0 for spec in args.eval_opponents} or {"train/loss": 0.0}
    for summary in hparams(hyperparameters(args), metrics):
        writer.file_writer.add_summary(summary)


def main(args: Args) -> dict:
    """Validates `args`, then runs expert iteration with Ctrl-C and SIGTERM turned into a stop at the next safe point."""
    from meeple.cli.train import run_stoppable

    validate_args(args)
    return run_stoppable(train, args)


def train(args: Args, stop: Any) -> dict:
    from torch.utils.tensorboard import SummaryWriter

    from meeple.agents import make_agent
    from meeple.agents.net import NetAgent, NetSearchAgent, PolicyValueNet, fit, save_net
    from meeple.cli.train import Interrupted, RunBar
    from meeple.envs import make

    run = make_run_folder(args, "exit_")
    variant = json.loads(args.variant)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    seeds = np.random.SeedSequence(args.seed)
    game = make(args.game, num_players=args.num_players, **variant)
    wait_for_compile()  # training at full speed from the first game (a line every few seconds meanwhile)
    bars = args.progress_bar and interactive()  # bars on a terminal; in a log the phase lines alone
    net = PolicyValueNet.for_game(args.game, game, tuple(args.hidden), seed=args.seed, hint=args.hint or None)
    learner = NetSearchAgent(net, simulations=args.simulations, c_uct=args.c_uct, noise_fraction=args.noise_fraction,
                             noise_alpha=args.noise_alpha, policy_target=args.policy_target)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    opponents = [make_agent(spec, args.game) for spec in args.opponents]
    expert = make_agent(args.expert, args.game) if args.expert else None
    snapshots: list[NetAgent] = []
    writer = SummaryWriter(str(run / "tb"))
    write_hparams(writer, args)
    P = game.num_players
    obs_size = net.input_size

    def encode(state: Any) -> np.ndarray:
        return net.encode(game, state)

    hint = f", hint {args.hint}" if args.hint else ""
    print(f"{game!r}: obs {net.header['encoder']['size']}, {game.num_actions} actions, net {list(args.hidden)}{hint}, "
          f"run {run}", flush=True)

    t0 = time.perf_counter()  # the time limit and the curve's clock start here, before the warm start
    deadline = t0 + args.time_limit_minutes * 60 if args.time_limit_minutes > 0 else float("inf")
    timings = {"warm_start_s": 0.0, "selfplay_s": 0.0, "train_s": 0.0, "eval_s": 0.0, "save_s": 0.0}
    curve: list[dict] = []
    replay: deque = deque(maxlen=args.replay_rounds)
    totals = {"rounds": 0, "games": 0, "decisions": 0}
    stopped_by = "total_rounds"
    warm: dict = {}
    bar: Any = None

    def out_of_time() -> bool:
        now = time.perf_counter()
        if bar is not None:
            bar.update(totals["rounds"], now)
        return stop.reason is not None or now > deadline

    best: dict[str, Any] = {"score": None, "round": None}  # the best evaluation so far (best.safetensors)

    def run_eval() -> None:
        t = time.perf_counter()
        results = evaluate_net(net, game, args.game, args.eval_opponents, args.eval_games, args.seed, bars)
        timings["eval_s"] += time.perf_counter() - t
        point = {"round": totals["rounds"], "games": totals["games"], "decisions": totals["decisions"],
                 "wall_time_s": round(time.perf_counter() - t0, 2), "results": results}
        curve.append(point)
        for spec, r in results.items():
            for key in ("win_rate", "mean_score"):
                if r[key] is not None:
                    writer.add_scalar(f"eval/{key}_vs_{spec}", r[key], totals["rounds"])
        writer.flush()
        save_curve(curve, args.eval_opponents, run)
        rates = " ".join(f"{s}={r['win_rate']}" for s, r in results.items())
        print(f"[eval] round {totals['rounds']} t={point['wall_time_s']}s win rate: {rates}", flush=True)
        first = results[args.eval_opponents[0]] if args.eval_opponents else None
        score = None if first is None else (first["win_rate"] if first["win_rate"] is not None else first["mean_score"])
        if score is not None and (best["score"] is None or score > best["score"]):
            best.update(score=score, round=totals["rounds"])
            save_net(net, run / "best.safetensors")

    def train_on(data: dict, epochs: int, phase: str) -> dict:
        if not len(data["policy"]):
            return {"ce": float("nan"), "value_mse": float("nan"), "loss": float("nan")}
        n_batches = epochs * -(-len(data["policy"]) // args.batch_size)
        with tqdm(total=n_batches, desc=f"{phase}: training", unit="batch", disable=not bars,
                  leave=False) as train_bar:
            def on_batch() -> None:
                train_bar.update(1)
                if stop.reason is not None:
                    raise _Stopped
            return fit(net, optimizer, data, epochs, args.batch_size, np.random.default_rng(seeds.spawn(1)[0]),
                       args.value_coef, args.max_grad_norm, on_batch)

    try:
        stop.immediate = False
        # --- warm start: the teacher's games, its moves as one-hot targets ---
        if args.warm_start_games > 0:
            t = time.perf_counter()
            teacher = make_agent(args.teacher, args.game)
            teacher_rng = np.random.default_rng(seeds.spawn(1)[0])

            def teach(state: Any, _decisions: np.ndarray) -> tuple:
                chosen = np.asarray(teacher.act(game, state, teacher_rng), dtype=np.int64)
                mask = game.legal_action_mask(state)
                policy = np.zeros(mask.shape, dtype=np.float32)
                policy[np.arange(len(chosen)), chosen] = 1.0
                return chosen, policy, ~np.asarray(state.done) & (mask.sum(axis=1) > 1)

            owner = np.full((args.warm_start_games, P), LEARNER, dtype=np.int64)
            print(f"[warm start] {args.warm_start_games} games of {args.teacher} to clone, then "
                  f"{args.warm_start_epochs} epochs of training ...", flush=True)
            with tqdm(total=args.warm_start_games, desc="warm start: teacher games", unit="game",
                      disable=not bars, leave=False) as games_bar:
                data = play_and_record(game, teach, args.warm_start_games, owner, [], teacher_rng,
                                       encode, obs_size, out_of_time, games_bar)
            stats = train_on(data, args.warm_start_epochs, "warm start")
            warm = {"games": args.warm_start_games, "decisions": int(len(data["policy"])), **stats}
            if args.warm_start_holdout_games > 0:
                # (their own generator, from --seed alone, so that asking for them changes nothing else)
                holdout_rng = np.random.default_rng([args.seed, 0x401D])
                owner = np.full((args.warm_start_holdout_games, P), LEARNER, dtype=np.int64)
                with tqdm(total=args.warm_start_holdout_games, desc="warm start: held-out games", unit="game",
                          disable=not bars, leave=False) as games_bar:
                    held = play_and_record(game, teach, args.warm_start_holdout_games, owner, [], holdout_rng,
                                           encode, obs_size, out_of_time, games_bar)
                warm["holdout"] = clone_fit(net, held)
                warm["holdout"]["games"] = args.warm_start_holdout_games
            warm["total_s"] = round(time.perf_counter() - t, 2)
            timings["warm_start_s"] = time.perf_counter() - t
            for key in ("ce", "value_mse"):
                writer.add_scalar(f"warm_start/{key}", stats[key], 0)
            for key, value in warm.get("holdout", {}).items():
                if key != "games":
                    writer.add_scalar(f"warm_start/holdout_{key}", value, 0)
            print(f"[warm start] {warm['decisions']:,} decisions from {warm['games']} games, ce={warm['ce']:.4f} "
                  f"value_mse={warm['value_mse']:.4f}, {clock(warm['total_s'])}", flush=True)

        run_eval()  # the starting point: untrained, or after the warm start
        bar = RunBar(args.total_rounds, t0, deadline, args.progress_bar, label="exit", unit="rounds")
        while totals["rounds"] < args.total_rounds:
            if out_of_time():
                raise _Stopped
            r = totals["rounds"] + 1
            # --- self-play ---
            t = time.perf_counter()
            round_rng = np.random.default_rng(seeds.spawn(1)[0])
            pool = opponents + snapshots
            weights = np.array([args.selfplay_weight, *args.opponent_weights,
                                *[args.snapshot_weight] * len(snapshots)], dtype=np.float64)
            lineup = round_rng.choice(len(weights), size=args.games_per_round, p=weights / weights.sum())
            owner = np.where(lineup[:, None] == 0, LEARNER, lineup[:, None] - 1) * np.ones((1, P), dtype=np.int64)
            owner[np.arange(args.games_per_round), round_rng.integers(P, size=args.games_per_round)] = LEARNER

            def search(state: Any, decisions: np.ndarray, rng: np.random.Generator = round_rng) -> tuple:
                if expert is not None:  # DAgger: the expert's move is the target wherever the row came from
                    t_search = time.perf_counter()
                    labels = np.asarray(expert.act(game, state, rng), dtype=np.int64)
                    mask = np.asarray(game.legal_action_mask(state), dtype=np.bool_)
                    own = np.argmax(net.evaluate(game, state, mask)[0], axis=1)
                    chosen = np.where(rng.random(len(labels)) < args.expert_share, labels, own)
                    policy = np.zeros(mask.shape, dtype=np.float32)
                    policy[np.arange(len(labels)), labels] = 1.0
                    learner.timing["search_s"] += time.perf_counter() - t_search
                    return chosen, policy, ~np.asarray(state.done) & (mask.sum(axis=1) > 1)
                temps = np.where(decisions < args.temperature_moves, args.temperature, 0.0)
                return learner.search(game, state, rng, temperature=temps, noise=True)

            net_before = dict(net.timing)
            search_before = learner.timing["search_s"]
            try:
                with tqdm(total=args.games_per_round, desc=f"round {r}: self-play", unit="game",
                          disable=not bars, leave=False) as games_bar:
                    data = play_and_record(game, search, args.games_per_round, owner, pool, round_rng,
                                           encode, obs_size, out_of_time, games_bar)
            finally:  # a dropped round's time counts too (its searches are in search_s)
                selfplay_s = time.perf_counter() - t
                timings["selfplay_s"] += selfplay_s
            n = int(len(data["policy"]))
            totals["games"] += args.games_per_round
            totals["decisions"] += n
            replay.append(data)
            returns = data["returns"]
            learner_rows = np.flatnonzero(lineup > 0)
            writer.add_scalar("selfplay/decisions", n, r)
            writer.add_scalar("selfplay/seconds", selfplay_s, r)
            writer.add_scalar("selfplay/decisions_per_s", n / max(selfplay_s, 1e-9), r)
            writer.add_scalar("selfplay/search_s", learner.timing["search_s"] - search_before, r)
            writer.add_scalar("selfplay/net_forward_s", net.timing["forward_s"] - net_before["forward_s"], r)
            writer.add_scalar("selfplay/net_encode_s", net.timing["encode_s"] - net_before["encode_s"], r)
            if learner_rows.size and P > 1:  # the learner's results in games against the pool
                seat = np.asarray([np.flatnonzero(owner[g] == LEARNER)[0] for g in learner_rows])
                writer.add_scalar("selfplay/return_vs_pool", float(returns[learner_rows, seat].mean()), r)
            # --- training ---
            t = time.perf_counter()
            stats = train_on(concat(list(replay)), args.epochs, f"round {r}")
            timings["train_s"] += time.perf_counter() - t
            for key, value in stats.items():
                writer.add_scalar(f"train/{key}", value, r)
            writer.add_scalar("train/replay_decisions", sum(len(d["policy"]) for d in replay), r)
            totals["rounds"] = r
            if args.snapshot_weight > 0 and args.max_snapshots > 0:
                snapshots.append(NetAgent(net.copy(), sample=True, name=f"net:snapshot@{r}"))
                del snapshots[:-args.max_snapshots]
            if args.checkpoint_every and r % args.checkpoint_every == 0:
                t = time.perf_counter()
                save_net(net, run / "checkpoint.safetensors")
                timings["save_s"] += time.perf_counter() - t
            print(f"[round {r}] {n} decisions in {selfplay_s:.1f}s, ce={stats['ce']:.4f} "
                  f"value_mse={stats['value_mse']:.4f}", flush=True)
            bar.update(r)
            if r % args.eval_every == 0 and r < args.total_rounds:
                run_eval()
    except (_Stopped, Interrupted):
        stopped_by = stop.reason or ("time_limit" if time.perf_counter() > deadline else "interrupt")
    finally:
        if bar is not None:
            bar.close()

    # --- save and final eval (a second signal during the save raises: atomic_write keeps the old file) ---
    save_net(net, run / "net.safetensors")
    if stop.reason is None and (not curve or curve[-1]["round"] != totals["rounds"]):
        stop.interruptible(run_eval)  # nothing to save but the summary: a signal stops the evaluation at once
    writer.close()
    summary = {
        "args": asdict(args), "game": game.info.name, "config": asdict(game.config), "net": net.header,
        **totals, "stopped_by": stopped_by,
        "timings": {"total_s": round(time.perf_counter() - t0, 2), **{k: round(v, 2) for k, v in timings.items()},
                    "search_s": round(learner.timing["search_s"], 2),  # inside self-play
                    "net_forward_s": round(net.timing["forward_s"], 2),  # every forward pass (search, eval, warm start)
                    "net_encode_s": round(net.timing["encode_s"], 2)},  # observe + encode for those passes
        "selfplay_decisions_per_s": round(totals["decisions"] / max(timings["selfplay_s"], 1e-9), 1),
        "warm_start": warm,
        "best": best,
        "final": {k: v for k, v in curve[-1].items() if k != "wall_time_s"} if curve else None,
        "curve": curve,
    }
    atomic_write_text(run / "summary.json", json.dumps(summary, indent=2))
    final = " ".join(f"{spec}={r['win_rate']}" for spec, r in (summary["final"] or {}).get("results", {}).items())
    best_at = f", best at round {best['round']} ({run / 'best.safetensors'})" if best["round"] is not None else ""
    print(f"done: {totals['rounds']} rounds, {totals['decisions']:,} decisions in {clock(summary['timings']['total_s'])} "
          f"(stopped by {stopped_by}); final win rate: {final or '-'}{best_at}; wrote {run / 'summary.json'}",
          flush=True)
    if stop.reason is not None:
        print(f"stopped by {stop.reason} at round {totals['rounds']}: saved {run / 'net.safetensors'} and summary.json",
              file=sys.stderr, flush=True)
    return summary


def run_cli(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Parses the command line (`argv`, default sys.argv[1:]) and trains; returns the exit code: 0, 2 for a bad
    argument (one `error:` line on stderr), 130 when stopped before anything could be saved."""
    return run_trainer(Args, main, argv, prog, "nothing (more) saved, existing files left as they were")


if __name__ == "__main__":
    sys.exit(run_cli())
