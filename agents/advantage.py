"""Advantage labels for a net with an advantage head (`train.py --algo advantage`, docs/training.md).

An advantage head (`meeple.agents.net`, "Heads") predicts Â(s, a): how much better move a is than the
heuristic's move h in position s, for the seat to move, on the game's returns scale. This module makes the
labels it learns from, with the rollout agent's playouts (`RolloutAgent.playout_values`):

    candidates = candidate_moves(mask, hint, scores, rng, top_k=2, random_prob=0.25)
    labels = paired_advantages(game, state, candidates, make_agent("heuristic", name), rng)
    labels.diff, labels.se, labels.count      # (b, C) each; column 0 is the heuristic's move: 0, 0, n

**Candidates** per position: the heuristic's move (always, column 0), the net's `top_k` other moves by its
current scores (so whatever the net would play gets checked), and with probability `random_prob` one more
legal move drawn at random (so moves the net ranks low are seen now and then). Unused slots are -1.

**Paired playouts.** Playout k of a position starts, for every candidate, from the same state (one
`game.determinize` for the seat to move per (position, k) in games with hidden information, shared by the
candidates) and draws its chance from the same counter-based stream, keyed by (position, k), so the n-th
roll of a seat is the same dice in every candidate's playout. After the candidate move, the heuristic plays
every seat to the end. The label of candidate c is the mean over k of the paired differences
return(c, k) - return(h, k) for the seat to move, with its count and standard error. The pairing cancels the
luck the candidates share: a candidate equal to h gets exactly 0 with standard error 0.

**Racing.** Every candidate gets `playouts` paired playouts first. A challenger still *close* to the
heuristic's move (|mean| < `race_z` x se, not yet told apart) gets `playouts` more, with h replayed on the
same new streams, round after round, until it separates or reaches `max_playouts`; candidates already told
apart get no more.

**Batching.** Each round stacks every (position, candidate, playout) row into one batched state and plays
them all to the end in one loop (one `game.apply` pair and one heuristic call per step for the whole
batch), so the rules core and the heuristic's kernel do the work in bulk.

`advantage_loss` / `fit_advantages` regress the head on the labels, each weighted by 1 / (se^2 + eps)
(inverse variance: a label measured precisely counts more), beside the value head's usual targets.
`tune_margin` picks the act rule's margin on labels the net has not trained on. `save_shard` /
`load_shard` write and read labelled positions as `.npz` files (numpy only, read without pickle).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from meeple.envs import core

STREAM_STRIDE = 1 << 16  # stream of playout k of position i: i * STREAM_STRIDE + k (max_playouts is at most this)
MARGIN_GRID = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)  # margins `tune_margin` chooses from
MARGIN_Z = 2.0  # `tune_margin` needs a gain this many standard errors above 0
SHARD_FORMAT = "meeple-advantage-shard"
SHARD_VERSION = 1
SHARD_ARRAYS = {  # name: (dtype, shape in terms of n positions, input size I, actions A, candidates C, players P)
    "obs": (np.float32, ("n", "I")), "mask": (np.bool_, ("n", "A")), "candidates": (np.int32, ("n", "C")),
    "diff": (np.float32, ("n", "C")), "se": (np.float32, ("n", "C")), "count": (np.int32, ("n", "C")),
    "predicted": (np.float32, ("n", "C")), "value": (np.float32, ("n", "P")),
}


@dataclass
class AdvantageLabels:
    """Paired-playout labels of b positions x C candidate slots (column 0: the heuristic's move).

    candidates: (b, C) int64 moves, -1 for an unused slot. diff: (b, C) float64 mean paired difference
    (candidate's return minus the heuristic move's, seat to move), NaN in unused slots. se: (b, C) its
    standard error (0 with fewer than 2 playouts or identical differences). count: (b, C) paired playouts.
    playouts: the playouts run in all (every candidate's, the heuristic's included)."""

    candidates: np.ndarray
    diff: np.ndarray
    se: np.ndarray
    count: np.ndarray
    playouts: int = 0


def candidate_moves(mask: np.ndarray, hint: np.ndarray, scores: np.ndarray, rng: np.random.Generator,
                    top_k: int = 2, random_prob: float = 0.25) -> np.ndarray:
    """(b, 2 + top_k) int64 candidate moves per position (module docstring), -1 for unused slots: the hinted
    move, the `top_k` best other legal moves by `scores` (the net's, -inf where illegal), and with probability
    `random_prob` a random legal move not yet among them. Every candidate is legal, none repeats."""
    mask = np.asarray(mask, dtype=np.bool_)
    b, A = mask.shape
    rows = np.arange(b)
    hint = np.asarray(hint, dtype=np.int64)
    out = np.full((b, 2 + top_k), -1, dtype=np.int64)
    out[:, 0] = hint
    taken = np.zeros((b, A), dtype=np.bool_)
    taken[rows, hint] = True
    ranked = np.where(mask & ~taken, np.asarray(scores, dtype=np.float64), -np.inf)
    ranked = np.where(mask & ~taken & np.isneginf(ranked), np.finfo(np.float64).min, ranked)  # legal, scored -inf
    order = np.argsort(-ranked, axis=1, kind="stable")
    for j in range(top_k):
        move = order[:, j]
        ok = np.isfinite(ranked[rows, move])
        out[ok, 1 + j] = move[ok]
        taken[rows[ok], move[ok]] = True
    # the random draws are made for every row, used or not, so a row's draw does not depend on the others
    wants = rng.random(b) < random_prob
    pick = rng.random(b)
    free = mask & ~taken
    n_free = free.sum(axis=1)
    k = np.minimum((pick * n_free).astype(np.int64), np.maximum(n_free - 1, 0))
    nth = np.argmax(np.cumsum(free, axis=1) > k[:, None], axis=1)
    use = wants & (n_free > 0)
    out[use, -1] = nth[use]
    return out


def _stats(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, se, count) over the last axis of paired differences (NaN: not played)."""
    played = ~np.isnan(grid)
    n = played.sum(axis=2)
    d = np.where(played, grid, 0.0)
    mean = np.divide(d.sum(axis=2), n, out=np.full(n.shape, np.nan), where=n > 0)
    centred = np.where(played, grid - mean[:, :, None], 0.0)
    var = np.divide((centred ** 2).sum(axis=2), n - 1, out=np.zeros(n.shape), where=n > 1)
    se = np.sqrt(np.divide(var, n, out=np.zeros(n.shape), where=n > 0))
    return mean, se, n


def paired_advantages(game: Any, state: Any, candidates: np.ndarray, playout_agent: Any, rng: np.random.Generator,
                      playouts: int = 4, max_playouts: int = 16, race_z: float = 2.0, poll: Any = None
                      ) -> AdvantageLabels:
    """Labels of b unfinished positions (`state`) for their `candidates` (b, C) (column 0 the heuristic's move,
    -1 unused): paired playouts with `playout_agent` (the game's heuristic) for every seat, raced (module
    docstring). Deterministic given `rng`. `poll()` is called before every playout step (it may raise)."""
    from meeple.agents.mcts import RolloutAgent

    if not 1 <= playouts <= max_playouts <= STREAM_STRIDE:
        raise ValueError(f"need 1 <= playouts <= max_playouts <= {STREAM_STRIDE}, got {playouts}, {max_playouts}")
    candidates = np.asarray(candidates, dtype=np.int64)
    b, C = candidates.shape
    valid = candidates >= 0
    if b and not valid[:, 0].all():
        raise ValueError("every position needs the heuristic's move in candidate column 0")
    # score_weight 0: a playout's value is the game's return for the seat to move, nothing else
    runner = RolloutAgent(rollout_agent=playout_agent, score_weight=0.0, z=0.0)
    to_play = np.asarray(state.to_play, dtype=np.int64)
    seed = int(rng.integers(1 << 62))
    values = np.full((b, C, max_playouts), np.nan)  # return of (position, candidate, playout k)
    used = np.zeros(b, dtype=np.int64)
    racing = valid.copy()  # round 0: every candidate
    total = 0
    while True:
        rows_on = racing[:, 1:].any(axis=1) if C > 1 else racing[:, 0]
        k_new = np.where(rows_on, np.minimum(playouts, max_playouts - used), 0)
        if not k_new.any():
            break
        play = racing.copy()
        play[:, 0] |= rows_on  # h is replayed on every new stream of its position: the pairs need it
        # the (position, k) streams of this round, then every racing candidate on each of them
        s_row = np.repeat(np.arange(b), k_new)
        s_k = np.arange(s_row.size) - np.repeat(np.cumsum(k_new) - k_new, k_new) + used[s_row]
        start = core.take(state, s_row)
        if game.info.has_hidden_information:  # one sample of what the seat may not see, shared by its candidates
            start = game.determinize(start, to_play[s_row], rng)
        s_idx, col = np.nonzero(play[s_row])
        p_row, p_k = s_row[s_idx], s_k[s_idx]
        values[p_row, col, p_k] = runner.playout_values(game, core.take(start, s_idx), candidates[p_row, col],
                                                        to_play[p_row], p_row * STREAM_STRIDE + p_k, seed, rng, poll)
        total += int(s_idx.size)
        used += k_new
        mean, se, _ = _stats(values - values[:, :1, :])
        racing = np.zeros_like(valid)
        racing[:, 1:] = valid[:, 1:] & (np.abs(mean[:, 1:]) < race_z * se[:, 1:]) & (used < max_playouts)[:, None]
    diffs = values - values[:, :1, :]
    mean, se, n = _stats(diffs)
    mean[~valid] = np.nan
    se[~valid] = np.nan
    n[~valid] = 0
    return AdvantageLabels(candidates=candidates, diff=mean, se=se, count=n.astype(np.int64), playouts=total)


# --- the act rule's margin ------------------------------------------------------------------------

def tune_margin(data: dict[str, np.ndarray], grid: tuple[float, ...] = MARGIN_GRID,
                z: float = MARGIN_Z) -> tuple[float, dict[str, float]]:
    """The margin of `grid` whose act rule gains surely on labels the net has not trained on (a fresh shard of
    its own positions), and the estimated gain per position of every margin.

    In each position the rule leaves the heuristic's move for the net's best other move c1 only if Â(c1) >
    margin. c1 is always labelled (the net's top move is a candidate; `predicted` holds Â when the labels
    were made), so the rule's gain over the heuristic is estimated by the mean over positions of
    [Â(c1) > margin] x diff(c1). The chosen margin is the one whose gain has the largest lower bound (mean
    minus z standard errors), if that bound is above 0; else the largest margin: no change without
    evidence. (Choosing by the mean alone picked small margins on noise: a young net's Â is noisy over
    every legal move, a margin of 0.01 then leaves the heuristic in nearly every position, and each
    deviation's one-step gain, tiny and noisy, said nothing of what hundreds of them do to a game.)"""
    top_margin = float(max(grid))
    pred = np.where(data["candidates"][:, 1:] >= 0, data["predicted"][:, 1:], -np.inf)
    if pred.shape[1] == 0 or len(pred) < 2:
        return top_margin, {f"{m:g}": 0.0 for m in grid}
    best = np.argmax(pred, axis=1)
    rows = np.arange(len(pred))
    top = pred[rows, best]
    gain_if = np.nan_to_num(data["diff"][:, 1:][rows, best].astype(np.float64))
    margins = sorted(grid, reverse=True)  # the largest first: ties keep it
    gains = np.stack([np.where(top > m, gain_if, 0.0) for m in margins], axis=1)  # (positions, margins)
    mean = gains.mean(axis=0)
    lower = mean - z * gains.std(axis=0, ddof=1) / np.sqrt(len(gains))
    k = int(np.argmax(lower))
    chosen = margins[k] if lower[k] > 0 else top_margin
    return float(chosen), {f"{m:g}": round(float(g), 6) for m, g in zip(margins, mean)}


# --- regression ---------------------------------------------------------------------------------

def advantage_loss(net: Any, obs: Any, candidates: Any, diff: Any, se: Any, value: Any, se_eps: float = 0.01,
                   value_coef: float = 1.0) -> tuple[Any, dict[str, float]]:
    """Inverse-variance-weighted squared error of the head's Â at every labelled challenger (candidate columns
    1..C-1 in use) to its mean paired difference, weight 1 / (se^2 + se_eps), normalised by the batch's total
    weight; plus value_coef x MSE of the value head to the seat-relative targets. Column 0 (the heuristic's
    move) has no term: Â is 0 there by construction. Returns (loss, {"adv_mse", "value_mse"})."""
    import torch

    scores, predicted = net(obs)
    cand = candidates[:, 1:]
    used = cand >= 0
    pred = torch.gather(scores, 1, cand.clamp(min=0).long())
    weight = torch.where(used, 1.0 / (se[:, 1:] ** 2 + se_eps), torch.zeros_like(diff[:, 1:]))
    target = torch.where(used, diff[:, 1:], torch.zeros_like(diff[:, 1:]))
    adv = (weight * (pred - target) ** 2).sum() / weight.sum().clamp(min=1e-12)
    mse = ((predicted - value) ** 2).mean()
    return adv + value_coef * mse, {"adv_mse": float(adv.detach()), "value_mse": float(mse.detach())}


def fit_advantages(net: Any, optimizer: Any, data: dict[str, np.ndarray], epochs: int, batch_size: int,
                   rng: np.random.Generator, se_eps: float = 0.01, value_coef: float = 1.0,
                   max_grad_norm: float = 1.0, on_batch: Any = None) -> dict[str, float]:
    """`epochs` passes of minibatch steps of `advantage_loss` over `data` (the arrays of `load_shard`) in an
    order drawn from `rng`; the last epoch's mean losses. `on_batch()` runs after every step (it may raise)."""
    import torch

    from meeple.agents.net import minibatch_epochs

    n = len(data["obs"])
    keys = ("obs", "candidates", "diff", "se", "value")
    tensors = {k: torch.from_numpy(np.ascontiguousarray(data[k])) for k in keys}
    tensors["candidates"] = tensors["candidates"].long()
    tensors["diff"] = torch.nan_to_num(tensors["diff"])  # unused slots (masked out by the candidates anyway)
    tensors["se"] = torch.nan_to_num(tensors["se"])

    def loss_of(idx: Any) -> tuple[Any, dict[str, float]]:
        return advantage_loss(net, *(tensors[k][idx] for k in keys), se_eps=se_eps, value_coef=value_coef)

    return minibatch_epochs(net, optimizer, n, epochs, batch_size, rng, loss_of, ("adv_mse", "value_mse"),
                            max_grad_norm, on_batch, initial=float("nan"))


# --- shards ---------------------------------------------------------------------------------------

def save_shard(path: str | Path, data: dict[str, np.ndarray], meta: dict) -> None:
    """Write labelled positions (`SHARD_ARRAYS`) and a JSON `meta` to `path` atomically, as a compressed
    `.npz` of plain arrays (the meta as a unicode string): numpy reads it back with allow_pickle=False."""
    from meeple.agents.io import atomic_write

    arrays = {k: np.ascontiguousarray(data[k], dtype=SHARD_ARRAYS[k][0]) for k in SHARD_ARRAYS}
    header = {"format": SHARD_FORMAT, "version": SHARD_VERSION, **meta}
    with atomic_write(path) as f:
        np.savez_compressed(f, meta=np.array(json.dumps(header, sort_keys=True)), **arrays)


def load_shard(path: str | Path) -> tuple[dict[str, np.ndarray], dict]:
    """(arrays, meta) of a shard `save_shard` wrote; ValueError naming the problem for anything else. Never
    unpickles: numpy refuses object arrays with allow_pickle=False."""
    where = f"shard {str(path)!r}"
    try:
        with np.load(path, allow_pickle=False) as f:
            stored = {k: f[k] for k in f.files}
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{where}: cannot read it ({exc})") from None
    if set(stored) != {"meta", *SHARD_ARRAYS}:
        raise ValueError(f"{where}: arrays {sorted(stored)}, expected {sorted(['meta', *SHARD_ARRAYS])}")
    try:
        meta = json.loads(str(stored.pop("meta")))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: meta is not JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != SHARD_FORMAT or meta.get("version") != SHARD_VERSION:
        raise ValueError(f"{where}: not a {SHARD_FORMAT} version {SHARD_VERSION} file")
    dims: dict[str, int] = {}
    for name, (dtype, shape) in SHARD_ARRAYS.items():
        array = stored[name]
        if array.dtype != np.dtype(dtype) or array.ndim != len(shape):
            raise ValueError(f"{where}: {name} is {array.dtype} of {array.ndim} dims, expected {np.dtype(dtype)} of "
                             f"{len(shape)}")
        for dim, size in zip(shape, array.shape):
            if dims.setdefault(dim, size) != size:
                raise ValueError(f"{where}: {name} has {size} along {dim}, the other arrays {dims[dim]}")
    for name in ("obs", "value", "predicted"):
        if not np.isfinite(stored[name]).all():
            raise ValueError(f"{where}: {name} holds non-finite values")
    return stored, meta
