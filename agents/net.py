"""Policy-value networks for expert iteration, the agents that play with them, and their file format.

`PolicyValueNet` is an MLP over a game's default observation encoding (`meeple.envs.default_encoder`)
with two heads on a shared trunk:

- a **policy head**: one logit per action of the game; illegal actions get -inf before the softmax,
  so the policy never puts mass on them;
- a **value head**: one tanh output per seat, **seat-relative**: output k is the value for the seat
  k places after the seat that observes (output 0 is the observer's own value). The encoders are
  seat-relative too (slot 0 = the viewer), so "my value" is always the same output whoever sits
  where. `evaluate` turns them back into absolute seats. The targets are `value_targets`: the
  game's returns at the end (rank returns in [-1, 1] for 2+ players, clipped to [-1, 1] for
  reward variants that can leave it), and for solo games tanh(score / 30), the scale the MCTS
  score evaluator uses for solo scores.

**Hints.** A net built with `hint="heuristic"` (`train.py --algo exit --hint heuristic`) reads, after the
observation, the move the game's heuristic would make in the position (one-hot over the actions), and adds
a learned weight `hint_weight` (initially 4) to that move's logit. It is a residual policy over the
heuristic (Silver et al. 2018, "Residual policy learning"): a fresh net already plays the heuristic's
moves, and training teaches it where another move is better, instead of first having to rebuild the
heuristic's lookahead from the observation, which a small MLP does poorly where the heuristic computes a
lot (Carpe Diem's clone agrees with its heuristic on about half of its decisions). The heuristic plays from
the seat to move's view alone (`game.observe`), so the hint reveals nothing the observation does not.
Such a net is still the policy alone, with no search, but each of its moves costs a heuristic move too.

**Heads.** The net's action head is a policy head (logits, above) unless the header says otherwise. A hinted
net may have an **advantage head** instead (`head={"kind": "advantage", "margin": m}`, `train.py --algo
advantage`): output a is Â(s, a), how much better (on the game's returns scale, for the seat to move) move a
is than the hinted move h, and Â(s, h) is 0 by construction (the head's output at h is subtracted from every
output). It acts by `advantage_actions`: the heuristic's move, unless the best legal alternative's Â exceeds
the margin m, which the header records with the head. Its zero-initialised head makes a fresh advantage net
the heuristic exactly. Its outputs are not logits, so it has no distribution to sample or to use as a search
prior: `net:<path>` and `search:<path>:mode=rollout` play it, `sample=1` and MCTS `search:` refuse it.

Acting runs on the CPU under `torch.inference_mode()`, one forward pass per call for the whole
batch, on one torch thread (`PolicyValueNet.inference_threads`). Three agents use a net (specs for `meeple.agents.make_agent`):

    net:<path>                       NetAgent: the policy alone, its most likely legal action (an
                                     advantage head: the heuristic's move unless beaten by the margin)
    net:<path>:sample=1              the same, sampling the masked policy with the agent's rng
    search:<path>:sims=64,c_uct=1.4  NetSearchAgent: MCTS (PUCT) with the policy as prior and the
                                     value head at the leaves
    search:<path>:mode=rollout,sims=64
                                     RolloutAgent improving the policy's move: 64 playouts (by the
                                     game's heuristic; playout=net: by the policy) spread over the legal
                                     moves, the policy's move kept unless another is shown better

<path> may also name a shipped baseline (`baselines()`: agents/baselines/baselines.json), e.g.
`net:hadara-2p`.

File format (`save_net` / `load_net`): a safetensors file, written and read by the `safetensors`
package (no pickle; any tool that reads safetensors reads it, e.g. `safetensors.numpy.load_file`). The
tensors are float32 ("F32"; "F16" too, for the small shipped baselines), and the file's metadata holds
under "meeple" a JSON header: format "meeple-net", version, game, config (the game's full configuration,
num_players included), encoder (kind "default", its name and output size), num_players, num_actions,
hidden (the trunk's widths), value ("seat-relative") and, in a hinted net only, hint ({"kind":
"heuristic"}; the net then has one more tensor, `hint_weight`, unless its head is an advantage head), and
optionally head ({"kind": "policy"}, the same as no head field, or {"kind": "advantage", "margin": m} with m a
finite number >= 0, only beside a hint). Loading lets the library check the
layout (header, offsets, sizes), then checks every header field, that the game builds from the config
and its encoder and action count match the header, the exact set of tensor names, their dtypes and
shapes, and that every weight is finite; a safetensors file that meeple did not write (no "meeple"
metadata) is refused by name. Anything else raises ValueError naming the problem.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from meeple.agents.mcts import MCTSAgent
from meeple.agents.policy import torch_threads
from meeple.agents.spec import NET_KINDS, AgentSpec, parse_spec

NET_FORMAT = "meeple-net"
NET_FORMAT_VERSION = 1
ENCODER_KIND = "default"  # the only kind written so far: meeple.envs.default_encoder
VALUE_KIND = "seat-relative"
SOLO_SCALE = 30.0  # solo value target tanh(score / SOLO_SCALE), as ScoreEvaluator's solo_scale
DTYPES = {"F32": np.float32, "F16": np.float16}  # safetensors dtype names of the tensors meeple writes -> numpy
MAX_WIDTH = 1 << 16  # hidden widths above this are not a net anyone trained here
HEADER_FIELDS = ("format", "version", "game", "config", "encoder", "num_players", "num_actions", "hidden", "value")
OPTIONAL_FIELDS = ("hint", "head")  # absent in nets without a hint / with a policy head (every older file)
HINT_KINDS = ("heuristic",)  # a hint is the move of the game's heuristic (default weights), one-hot over the actions
HINT_WEIGHT_INIT = 4.0  # a fresh hinted net plays the hinted move: its other logits start within about +-1
HEAD_KINDS = ("policy", "advantage")  # the action head: logits, or advantages over the hinted move (docstring)


# --- value targets and seat frames ------------------------------------------------------------

def value_targets(game: Any, state: Any) -> np.ndarray:
    """(B, P) float32 value targets of finished rows for every absolute seat (module docstring).

    2+ players: `game.returns` clipped to [-1, 1]; solo: tanh(score / SOLO_SCALE).
    """
    if game.num_players == 1:
        return np.tanh(np.asarray(game.scores(state), dtype=np.float64) / SOLO_SCALE).astype(np.float32)
    return np.clip(np.asarray(game.returns(state), dtype=np.float32), -1.0, 1.0)


def to_relative(values: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(B, P) absolute-seat values -> seat-relative: out[:, k] = values[:, (seat + k) % P]."""
    P = values.shape[1]
    order = (np.asarray(seat, dtype=np.int64)[:, None] + np.arange(P)[None, :]) % P
    return np.take_along_axis(values, order, axis=1)


def to_absolute(values: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """(B, P) seat-relative values -> absolute seats: out[:, p] = values[:, (p - seat) % P]."""
    P = values.shape[1]
    order = (np.arange(P)[None, :] - np.asarray(seat, dtype=np.int64)[:, None]) % P
    return np.take_along_axis(values, order, axis=1)


# --- the network --------------------------------------------------------------------------------

class PolicyValueNet(nn.Module):
    """MLP trunk (Linear + ReLU per hidden width) with a policy head (A logits) and a value head (P tanh outputs).

    Build one for a game with `PolicyValueNet.for_game`, or from a file with `load_net`. `header` is
    the file header (module docstring); `evaluate` checks every game it is handed against it.
    """

    def __init__(self, header: dict, seed: int = 0) -> None:
        super().__init__()
        self.header = header
        layers: list[nn.Module] = []
        # With a hint the input is the observation followed by the hinted move, one-hot over the actions.
        self.hint_size = int(header["num_actions"]) if header.get("hint") else 0
        width = self.input_size = int(header["encoder"]["size"]) + self.hint_size
        # The action head's kind: "policy" (logits) or "advantage" (Â over the hinted move, module docstring).
        self.head_kind = str((header.get("head") or {"kind": "policy"})["kind"])
        with torch.random.fork_rng(devices=[]):  # initial weights from `seed`; the global generator is left alone
            torch.manual_seed(seed)
            for h in header["hidden"]:
                layers += [nn.Linear(width, int(h)), nn.ReLU()]
                width = int(h)
            self.trunk = nn.Sequential(*layers)
            # (named policy_head for either kind: the tensor names of every older file stay as they were)
            self.policy_head = nn.Linear(width, int(header["num_actions"]))
            self.value_head = nn.Linear(width, int(header["num_players"]))
        if self.head_kind == "advantage":
            # Zero weights: Â is 0 everywhere, so a fresh net plays the heuristic's move in every position, and
            # training moves it only where labels show an alternative better. Gradients still reach the trunk
            # once the head's weights move away from zero.
            with torch.no_grad():
                self.policy_head.weight.zero_()
                self.policy_head.bias.zero_()
        elif self.hint_size:
            # The hinted move's logit gets hint_weight on top of the head's: the net is a residual policy over
            # the hint (it learns when and how to leave it), and starts by playing it.
            self.hint_weight = nn.Parameter(torch.full((1,), HINT_WEIGHT_INIT))
        self._hint_agent: Any = None
        # torch threads while acting (None: torch's own setting). A forward pass over one batch of positions is
        # small; more threads add hand-off waits, and on a busy machine (other processes on every core) two
        # threads made RTTA searches ~30x slower than one. Training uses torch's setting (--torch-threads).
        self.inference_threads: int | None = 1
        self._game: Any = None  # the last game `evaluate` checked, and its encoder
        self._encoder: Any = None
        self.timing = {"encode_s": 0.0, "forward_s": 0.0, "calls": 0, "rows": 0}

    @classmethod
    def for_game(cls, game_name: str, game: Any, hidden: tuple[int, ...] = (256, 256), seed: int = 0,
                 hint: str | None = None, head: str = "policy", margin: float = 0.0) -> PolicyValueNet:
        """A fresh net for `game` (a rules core of game `game_name`), its initial weights drawn from `seed`.

        `hint="heuristic"`: the net also reads the heuristic's move in every position it is asked about
        (module docstring, "Hints"). `head="advantage"` (needs the hint): an advantage head that leaves the
        heuristic's move only for an alternative whose Â exceeds `margin` (module docstring, "Heads").
        """
        from meeple.envs import default_encoder

        encoder = default_encoder(game_name, game)
        header = {"format": NET_FORMAT, "version": NET_FORMAT_VERSION, "game": game_name,
                  "config": asdict(game.config),
                  "encoder": {"kind": ENCODER_KIND, "name": str(encoder.name), "size": int(encoder.size)},
                  "num_players": int(game.num_players), "num_actions": int(game.num_actions),
                  "hidden": [int(h) for h in hidden], "value": VALUE_KIND}
        if hint:
            header["hint"] = {"kind": hint}
        if head != "policy":  # a policy head writes no head field: such files read as they always did
            header["head"] = {"kind": head, "margin": float(margin)} if head == "advantage" else {"kind": head}
        _check_header(header)
        net = cls(header, seed)
        net.eval()
        return net

    @property
    def game_name(self) -> str:
        return str(self.header["game"])

    @property
    def margin(self) -> float:
        """An advantage head's margin: the least Â with which an alternative replaces the heuristic's move."""
        if self.head_kind != "advantage":
            raise ValueError(f"a {self.head_kind} head has no margin")
        return float(self.header["head"]["margin"])

    def set_margin(self, margin: float) -> None:
        """Set an advantage head's margin (recorded in the header, so in the file `save_net` writes)."""
        head = {"kind": "advantage", "margin": float(margin)}
        if self.head_kind != "advantage":
            raise ValueError(f"a {self.head_kind} head has no margin")
        _check_head({**self.header, "head": head})
        self.header["head"] = head

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(scores (B, A), seat-relative values (B, P) in (-1, 1)) of net inputs (B, `input_size`): encoded
        observations, followed by the hinted move one-hot if the net has a hint (`encode` builds both).

        The scores are the policy's logits, or with an advantage head the advantages Â(s, a) over the hinted
        move: the head's output minus its output at the hinted move, so Â(s, h) is exactly 0."""
        x = self.trunk(obs)
        scores = self.policy_head(x)
        if self.hint_size:
            hint = obs[:, obs.shape[1] - self.hint_size:]
            if self.head_kind == "advantage":
                scores = scores - (scores * hint).sum(dim=1, keepdim=True)
            else:
                scores = scores + self.hint_weight * hint
        return scores, torch.tanh(self.value_head(x))

    def copy(self) -> PolicyValueNet:
        """An independent copy (a frozen snapshot: later training of this net does not change it)."""
        twin = type(self)(json.loads(json.dumps(self.header)))
        twin.load_state_dict(self.state_dict())
        twin.eval()
        return twin

    # --- acting ---------------------------------------------------------------------------------

    def check_game(self, game: Any) -> None:
        """ValueError unless `game` is the game and configuration this net was built for."""
        h = self.header
        name = getattr(getattr(game, "info", None), "name", None)
        if name != h["game"]:
            raise ValueError(f"this net plays {h['game']!r}, not {name!r}")
        config = asdict(game.config)
        if config != h["config"]:
            diff = sorted(k for k in set(config) | set(h["config"]) if config.get(k) != h["config"].get(k))
            shown = ", ".join(f"{k}: net {h['config'].get(k)!r}, game {config.get(k)!r}" for k in diff)
            raise ValueError(f"this net was trained on another {h['game']} configuration ({shown})")

    def encoder_for(self, game: Any) -> Any:
        """The default encoder of `game`, checked against the header (cached for the last game seen)."""
        if game is not self._game:
            from meeple.envs import default_encoder

            self.check_game(game)
            encoder = default_encoder(self.game_name, game)
            expected = self.header["encoder"]
            if encoder.name != expected["name"] or encoder.size != expected["size"] or game.num_actions != self.header["num_actions"]:
                raise ValueError(f"this net takes {expected['name']} observations of size {expected['size']} and "
                                 f"{self.header['num_actions']} actions; {game!r} gives {encoder.name} of size "
                                 f"{encoder.size} and {game.num_actions}")
            self._game, self._encoder = game, encoder
        return self._encoder

    def encode(self, game: Any, state: Any) -> np.ndarray:
        """(B, `input_size`) float32: every row observed by its seat to move, encoded; with a hint, followed by
        the hinted move of every unfinished row, one-hot (all zeros in finished rows)."""
        t0 = time.perf_counter()
        obs = self.encoder_for(game).encode(game.observe(state, state.to_play))
        if self.hint_size:
            obs = np.concatenate([obs, self.hints(game, state)], axis=1)
        self.timing["encode_s"] += time.perf_counter() - t0
        return obs

    def hints(self, game: Any, state: Any) -> np.ndarray:
        """(B, A) float32: the hint's move in every unfinished row, one-hot.

        The heuristic is an agent like any other: it plays from what the seat to move may see, so the hint
        reveals nothing that seat could not work out. Its weights are its defaults, fixed with the net. It
        draws from its generator only to replace an illegal choice, which its tests show never happens, so
        a fixed generator keeps the net deterministic.
        """
        from meeple.agents import make_agent
        from meeple.envs import core

        if self._hint_agent is None:
            self._hint_agent = make_agent(self.header["hint"]["kind"], self.game_name)
        B = int(np.asarray(state.to_play).shape[0])
        out = np.zeros((B, self.hint_size), dtype=np.float32)
        live = np.flatnonzero(~np.asarray(state.done, dtype=np.bool_))
        if live.size:
            sub = state if live.size == B else core.take(state, live)
            moves = np.asarray(self._hint_agent.act(game, sub, np.random.default_rng(0)), dtype=np.int64)
            out[live, moves] = 1.0
        return out

    def choose(self, game: Any, state: Any, mask: np.ndarray | None = None) -> np.ndarray:
        """(B,) int64: the move this net plays alone in every row: the most likely legal action of a policy
        head, or `advantage_actions` of an advantage head (the heuristic's move unless beaten by the margin)."""
        mask = game.legal_action_mask(state) if mask is None else mask
        obs = self.encode(game, state)
        scores, _ = self.predict(obs, mask)
        if self.head_kind == "advantage":
            hint = np.argmax(obs[:, obs.shape[1] - self.hint_size:], axis=1)
            return advantage_actions(scores, hint, self.margin)
        return np.argmax(scores, axis=1).astype(np.int64)

    def predict(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(masked logits (B, A) float64, -inf where illegal; seat-relative values (B, P) float64) in one forward pass."""
        t0 = time.perf_counter()
        with torch_threads(self.inference_threads), torch.inference_mode():
            logits, values = self(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))
        self.timing["forward_s"] += time.perf_counter() - t0
        self.timing["calls"] += 1
        self.timing["rows"] += int(obs.shape[0])
        return np.where(mask, logits.numpy().astype(np.float64), -np.inf), values.numpy().astype(np.float64)

    def evaluate(self, game: Any, state: Any, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For every row's seat to move: (masked logits (B, A), values (B, P) for the absolute seats).

        `mask` defaults to `game.legal_action_mask(state)`. Only `game.observe` of the seat to move is
        read, so a net never sees what that seat may not.
        """
        mask = game.legal_action_mask(state) if mask is None else mask
        logits, values = self.predict(self.encode(game, state), mask)
        return logits, to_absolute(values, np.asarray(state.to_play, dtype=np.int64))


def improved_policy(logits: np.ndarray, visits: np.ndarray, q: np.ndarray, root_value: np.ndarray,
                    visit_init: float = 50.0, value_scale: float = 0.1) -> np.ndarray:
    """The search's improved policy at the root: softmax(logits + sigma(completed Q)) over the legal actions.

    This is the policy target of Gumbel MuZero (Danihelka et al. 2022, "Policy improvement by planning with
    Gumbel"), which keeps improving the policy with few simulations where visit counts mostly echo the prior.
    Completed Q: a visited child's mean value for the seat to move; an unvisited one gets the mixed value
    (the net's root value averaged with the prior-weighted mean Q of the visited children, weighted by the
    visits). The completed Qs are rescaled to [0, 1] per row and multiplied by (visit_init + the most
    visits of any child) x value_scale, so the more the search looked, the more its values count.

    Args: logits (b, A) masked root logits (-inf where illegal); visits (b, A) root child visits; q (b, A)
    their mean values (NaN where unvisited); root_value (b,) the net's value of the root for its seat.
    """
    legal = np.isfinite(logits)
    prior = masked_softmax(logits)
    seen = visits > 0
    q0 = np.where(seen, q, 0.0)
    n_total = visits.sum(axis=1)
    prior_seen = (prior * seen).sum(axis=1)
    weighted_q = np.divide((prior * q0).sum(axis=1), prior_seen, out=np.zeros_like(prior_seen), where=prior_seen > 0)
    mixed = (root_value + n_total * weighted_q) / (1.0 + n_total)
    completed = np.where(seen, q0, mixed[:, None])
    lo = np.min(np.where(legal, completed, np.inf), axis=1, keepdims=True)
    hi = np.max(np.where(legal, completed, -np.inf), axis=1, keepdims=True)
    scaled = np.divide(completed - lo, hi - lo, out=np.zeros_like(completed), where=(hi - lo) > 1e-12)
    sigma = (visit_init + visits.max(axis=1, keepdims=True)) * value_scale * scaled
    return masked_softmax(np.where(legal, logits + sigma, -np.inf)).astype(np.float32)


def advantage_actions(advantages: np.ndarray, hint: np.ndarray, margin: float) -> np.ndarray:
    """(B,) int64: the act rule of an advantage head. Per row, the legal move with the largest Â if its Â
    exceeds `margin` (strictly), else the hinted move `hint`. `advantages` (B, A) masked (-inf where illegal),
    with Â = 0 at the hinted move; margin 0 plays the best move by Â, ties to the hint."""
    advantages = np.asarray(advantages, dtype=np.float64)
    best = np.argmax(advantages, axis=1)
    gain = advantages[np.arange(len(best)), best]
    return np.where(gain > margin, best, np.asarray(hint, dtype=np.int64)).astype(np.int64)


def masked_softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of logits with -inf for illegal actions; all-zero rows where nothing is legal."""
    top = np.max(logits, axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(logits - top)
    total = e.sum(axis=1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def sample_rows(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) one index per row drawn from the row's distribution (rows sum to 1) with `rng`."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(len(cdf))[:, None] * cdf[:, -1:]
    return np.minimum(np.argmax(cdf > u, axis=1), probs.shape[1] - 1).astype(np.int64)


# --- the file format ----------------------------------------------------------------------------

def save_net(net: PolicyValueNet, path: str | Path, dtype: str = "F32") -> None:
    """Write `net` to `path` atomically, as a safetensors file (module docstring; no pickle).

    `dtype` "F16" stores the weights as half floats (half the file; loading widens them to float32): the
    shipped baselines use it to stay small.
    """
    from safetensors.numpy import save

    from meeple.agents.io import atomic_write

    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    _check_header(net.header)
    tensors = {name: tensor.detach().cpu().numpy().astype(DTYPES[dtype]) for name, tensor in net.state_dict().items()}
    data = save(tensors, metadata={"meeple": json.dumps(net.header, sort_keys=True)})
    with atomic_write(path) as f:
        f.write(data)


def read_header(path: str | Path) -> dict:
    """The meeple header of a net file, checked field by field (ValueError naming the problem)."""
    return _read(path)[0]


def load_net(path: str | Path, game_name: str | None = None, game: Any = None) -> PolicyValueNet:
    """The net saved at `path`, checked (module docstring); with `game_name` / `game`, also that it is theirs.

    Raises:
        ValueError: a missing or unreadable file, a malformed or tampered header or tensor block, or a
            net of another game or configuration.
    """
    header, tensors = _read(path)
    if game_name is not None and header["game"] != game_name:
        raise ValueError(f"net file {str(path)!r} is for game {header['game']!r}, not {game_name!r}")
    net = PolicyValueNet(header)
    expected = {name: tuple(t.shape) for name, t in net.state_dict().items()}
    if set(tensors) != set(expected):
        missing, extra = sorted(set(expected) - set(tensors)), sorted(set(tensors) - set(expected))
        raise ValueError(f"net file {str(path)!r}: tensors do not match its header (missing {missing}, unexpected {extra})")
    for name, shape in expected.items():
        if tensors[name].shape != shape:
            raise ValueError(f"net file {str(path)!r}: tensor {name!r} has shape {tensors[name].shape}, "
                             f"the header implies {shape}")
        if not np.isfinite(tensors[name]).all():
            raise ValueError(f"net file {str(path)!r}: tensor {name!r} holds non-finite values")
    net.load_state_dict({name: torch.from_numpy(array.copy()) for name, array in tensors.items()})
    net.eval()
    if game is not None:
        net.encoder_for(game)
    return net


def _read(path: str | Path) -> tuple[dict, dict[str, np.ndarray]]:
    """(meeple header, {name: float32 array}) of a net file; ValueError for anything malformed."""
    from safetensors import SafetensorError, safe_open

    where = f"net file {str(path)!r}"
    if not Path(path).is_file():
        raise ValueError(f"{where}: cannot read it (no such file)")
    try:
        with safe_open(str(path), framework="numpy") as f:
            meta = f.metadata() or {}
            stored = {name: f.get_tensor(name) for name in f.keys()}
    except (SafetensorError, OSError) as exc:
        raise ValueError(f"{where}: not a net file: the safetensors library cannot read it ({exc})") from None
    if not isinstance(meta.get("meeple"), str):
        raise ValueError(f"{where}: a safetensors file without a meeple header (metadata keys "
                         f"{sorted(meta)}): not saved by meeple.agents.net.save_net")
    try:
        header = json.loads(meta["meeple"])
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: meeple header is not valid JSON ({exc})") from None
    try:
        _check_header(header)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    tensors: dict[str, np.ndarray] = {}
    for name, array in stored.items():
        if array.dtype not in (np.dtype(np.float32), np.dtype(np.float16)):
            raise ValueError(f"{where}: tensor {name!r} has dtype {array.dtype}; meeple writes {' or '.join(DTYPES)}")
        tensors[name] = array.astype(np.float32)
    return header, tensors


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_header(header: Any) -> None:
    """ValueError naming the first header field that is missing, of the wrong type or inconsistent with its game."""
    import importlib

    from meeple.envs import GAMES, default_encoder, make

    if not isinstance(header, dict):
        raise ValueError("meeple header is not a JSON object")
    missing = [k for k in HEADER_FIELDS if k not in header]
    extra = sorted(set(header) - set(HEADER_FIELDS) - set(OPTIONAL_FIELDS))
    if missing or extra:
        raise ValueError(f"meeple header: missing fields {missing}, unexpected fields {extra}")
    if header["format"] != NET_FORMAT:
        raise ValueError(f"meeple header: format {header['format']!r}, expected {NET_FORMAT!r}")
    if header["version"] != NET_FORMAT_VERSION:
        raise ValueError(f"meeple header: format version {header['version']!r}; this meeple reads version "
                         f"{NET_FORMAT_VERSION}")
    if header["game"] not in GAMES:
        raise ValueError(f"meeple header: unknown game {header['game']!r}")
    if header["value"] != VALUE_KIND:
        raise ValueError(f"meeple header: value {header['value']!r}, expected {VALUE_KIND!r}")
    hidden = header["hidden"]
    if not (isinstance(hidden, list) and all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in hidden)):
        raise ValueError(f"meeple header: hidden must be a list of widths in [1, {MAX_WIDTH}], got {hidden!r}")
    for key in ("num_players", "num_actions"):
        if not (_is_int(header[key]) and header[key] >= 1):
            raise ValueError(f"meeple header: {key} must be a positive integer, got {header[key]!r}")
    encoder = header["encoder"]
    if not (isinstance(encoder, dict) and set(encoder) == {"kind", "name", "size"} and encoder["kind"] == ENCODER_KIND
            and isinstance(encoder["name"], str) and _is_int(encoder["size"]) and encoder["size"] >= 1):
        raise ValueError(f"meeple header: encoder must be {{kind: {ENCODER_KIND!r}, name, size}}, got {encoder!r}")
    if "hint" in header and not (isinstance(header["hint"], dict) and set(header["hint"]) == {"kind"}
                                 and header["hint"]["kind"] in HINT_KINDS):
        raise ValueError(f"meeple header: hint must be {{kind: one of {list(HINT_KINDS)}}}, got {header['hint']!r}")
    _check_head(header)
    config = header["config"]
    if not (isinstance(config, dict) and config.get("num_players") == header["num_players"]):
        raise ValueError(f"meeple header: config must be an object whose num_players is {header['num_players']}, "
                         f"got {config!r}")
    module, cls = GAMES[header["game"]].rules.split(":")
    try:
        rebuilt = asdict(getattr(importlib.import_module(module), cls).Config(**config))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"meeple header: config {config!r} is not a valid {header['game']} configuration ({exc})") from None
    if rebuilt != config:  # a partial config would load with today's defaults, which may not be what it was trained on
        raise ValueError(f"meeple header: config {config!r} is not a full {header['game']} configuration")
    game = make(header["game"], **config)
    built = default_encoder(header["game"], game)
    if (built.name, built.size, game.num_actions) != (encoder["name"], encoder["size"], header["num_actions"]):
        raise ValueError(f"meeple header: {header['game']} with this config encodes {built.name} of size {built.size} "
                         f"with {game.num_actions} actions, the header says {encoder['name']} of size {encoder['size']} "
                         f"with {header['num_actions']} (another meeple version?)")


def _check_head(header: dict) -> None:
    """ValueError unless the header's optional head field is {kind: "policy"} or {kind: "advantage", margin: a
    finite number >= 0}, the latter in a hinted net only (the advantages are over the hinted move)."""
    if "head" not in header:
        return
    head = header["head"]
    kind = head.get("kind") if isinstance(head, dict) else None
    margin = head.get("margin") if isinstance(head, dict) else None
    ok = kind in HEAD_KINDS and (
        set(head) == {"kind"} if kind == "policy" else
        set(head) == {"kind", "margin"} and isinstance(margin, (int, float)) and not isinstance(margin, bool)
        and math.isfinite(margin) and margin >= 0)
    if not ok:
        raise ValueError(f"meeple header: head must be {{kind: 'policy'}} or {{kind: 'advantage', margin: a finite "
                         f"number >= 0}}, got {head!r}")
    if kind == "advantage" and "hint" not in header:
        raise ValueError("meeple header: an advantage head needs a hint (its advantages are over the hinted move)")


# --- agents ---------------------------------------------------------------------------------------

class NetAgent:
    """The net alone, no search (spec `net:<path>`): the most likely legal action, or a sample of the masked
    policy drawn with the agent's rng (`sample=True`, spec `net:<path>:sample=1`). A net with an advantage head
    plays its act rule (`PolicyValueNet.choose`) and cannot sample."""

    def __init__(self, net: PolicyValueNet, sample: bool = False, name: str | None = None) -> None:
        if sample and net.head_kind != "policy":
            raise ValueError(f"sample=1 needs a policy head; this net has an {net.head_kind} head (it plays the "
                             "heuristic's move unless an alternative beats it by its margin)")
        self.net = net
        self.sample = bool(sample)
        self.name = name or ("net" + (":sample=1" if self.sample else ""))

    def policy_logits(self, game: Any, state: Any) -> np.ndarray:
        """(B, A) the policy's logits (an advantage head: its advantages) in every row, -inf where illegal
        (`RolloutAgent(top_k=...)` ranks by them)."""
        return self.net.evaluate(game, state)[0]

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        """(B,) int64 legal actions for the seat to play in every row."""
        if not self.sample:
            return self.net.choose(game, state)
        logits, _ = self.net.evaluate(game, state)
        return sample_rows(masked_softmax(logits), rng)


class NetEvaluator:
    """An MCTS `Evaluator` from the value head: (B, P) values of the seats; finished rows get `value_targets`."""

    def __init__(self, net: PolicyValueNet) -> None:
        self.net = net

    def __call__(self, game: Any, state: Any) -> np.ndarray:
        everything = np.ones((state.done.shape[0], game.num_actions), dtype=np.bool_)  # only the values are used
        _, values = self.net.evaluate(game, state, everything)
        done = np.asarray(state.done, dtype=np.bool_)
        if done.any():
            values[done] = value_targets(game, state)[done]
        return values


POLICY_TARGETS = ("visits", "improved")


class NetSearchAgent(MCTSAgent):
    """MCTS with the net (spec `search:<path>:sims=N,...`): PUCT over `MCTSAgent`'s open-loop tree with the
    policy head's distribution as prior and the value head at the leaves (no rollouts).

    Everything else is `MCTSAgent`'s: every simulation starts from a fresh `game.determinize` of the root
    for the seat to move (the search never reads hidden information), replays the path with fresh chance,
    and backs up one value per seat. The prior of a node is the net's policy at the state sampled in that
    simulation (chance and hidden cards change what is good below the root); the root's is computed once
    per search, optionally mixed with Dirichlet noise for exploration in self-play.

    Args:
        net: the policy-value net.
        simulations: simulations per decision.
        c_uct: the PUCT exploration constant.
        temperature: 0 plays the most visited action (ties: lowest index); T > 0 samples it with
            probability proportional to visits ** (1 / T).
        noise_fraction, noise_alpha: root prior = (1 - fraction) * policy + fraction * Dirichlet(alpha)
            over the legal actions (fraction 0: no noise).
        seed: seeds the agent's own generator, used when `act` is called with rng=None.
        name: the agent's label (default from the options).
        policy_target: what `search` returns as the root's policy (the training target of expert
            iteration): "visits", the visit distribution, or "improved", `improved_policy` (the prior
            moved toward the actions the search valued, which keeps learning with few simulations).
    """

    def __init__(self, net: PolicyValueNet, simulations: int = 64, c_uct: float = 1.4, temperature: float = 0.0,
                 noise_fraction: float = 0.0, noise_alpha: float = 0.3, seed: int | None = None,
                 name: str | None = None, policy_target: str = "visits") -> None:
        if net.head_kind != "policy":  # its advantages are no prior; mode=rollout plays such a net instead
            raise ValueError(f"MCTS needs a policy head for its prior; this net has an {net.head_kind} head "
                             "(play it with net:<path> or search:<path>:mode=rollout)")
        super().__init__(simulations=simulations, c_uct=c_uct, rollout_depth=0, evaluator=NetEvaluator(net), seed=seed)
        if policy_target not in POLICY_TARGETS:
            raise ValueError(f"policy_target must be one of {', '.join(POLICY_TARGETS)}, got {policy_target!r}")
        self.policy_target = policy_target
        self._root_logits = np.zeros((0, 0))
        self._root_value = np.zeros(0)
        if not (temperature >= 0 and math.isfinite(temperature)):
            raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")
        if not 0.0 <= noise_fraction <= 1.0:
            raise ValueError(f"noise_fraction must be in [0, 1], got {noise_fraction!r}")
        if not noise_alpha > 0:
            raise ValueError(f"noise_alpha must be > 0, got {noise_alpha!r}")
        self.net = net
        self.temperature = float(temperature)
        self.noise_fraction = float(noise_fraction)
        self.noise_alpha = float(noise_alpha)
        self._root_prior: np.ndarray | None = None
        self._noise = False
        options = [f"sims={self.simulations}"]
        if self.c_uct != 1.4:
            options.append(f"c_uct={self.c_uct:g}")
        if self.temperature:
            options.append(f"temperature={self.temperature:g}")
        if self.noise_fraction:
            options.append(f"noise={self.noise_fraction:g}")
        self.name = name or "search:" + ",".join(options)
        self.timing = {"search_s": 0.0}

    def act(self, game: Any, state: Any, rng: np.random.Generator | None = None) -> np.ndarray:
        """(B,) int64: the searched action of every row (class docstring: temperature, noise)."""
        return self.search(game, state, rng)[0]

    def search(self, game: Any, state: Any, rng: np.random.Generator | None = None,
               temperature: float | np.ndarray | None = None, noise: bool | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Search every row: (actions (B,), root policy (B, A) float32, searched (B,) bool).

        The root policy is the visit distribution, or with policy_target "improved" `improved_policy`.

        Rows with one legal action are not searched (their distribution is that action); finished rows
        get an all-zero distribution. `temperature` (a number or one per row) and `noise` override the
        agent's settings for this call, as self-play does.
        """
        t0 = time.perf_counter()
        rng = self.rng if rng is None else rng
        mask = np.asarray(game.legal_action_mask(state), dtype=np.bool_)
        B, A = mask.shape
        done = np.asarray(state.done, dtype=np.bool_)
        actions = np.argmax(mask, axis=1).astype(np.int64)
        policy = np.zeros((B, A), dtype=np.float32)
        searched = ~done & (mask.sum(axis=1) > 1)
        forced = np.flatnonzero(~done & ~searched)
        policy[forced, actions[forced]] = 1.0
        rows = np.flatnonzero(searched)
        if rows.size:
            from meeple.envs import core

            root = state if rows.size == B else core.take(state, rows)
            self._noise = self.noise_fraction > 0 if noise is None else bool(noise) and self.noise_fraction > 0
            visits = np.where(mask[rows], self._search(game, root, rng), 0).astype(np.float64)
            dist = visits / np.maximum(visits.sum(axis=1, keepdims=True), 1.0)
            if self.policy_target == "improved":
                policy[rows] = improved_policy(self._root_logits, visits, self.root_q, self._root_value)
            else:
                policy[rows] = dist
            temps = np.broadcast_to(np.asarray(self.temperature if temperature is None else temperature,
                                               dtype=np.float64), (B,))[rows]
            chosen = np.argmax(visits, axis=1)
            hot = temps > 0
            if hot.any():
                with np.errstate(divide="ignore"):
                    logp = np.log(dist[hot]) / temps[hot][:, None]
                chosen[hot] = sample_rows(masked_softmax(logp), rng)
            actions[rows] = chosen
        self.timing["search_s"] += time.perf_counter() - t0
        return actions, policy, searched

    def _search(self, game: Any, root: Any, rng: np.random.Generator) -> np.ndarray:
        # the root's observation is the same in every determinization, so its prior is computed once
        mask = np.asarray(game.legal_action_mask(root), dtype=np.bool_)
        logits, values = self.net.evaluate(game, root, mask)
        self._root_logits = logits
        self._root_value = values[np.arange(len(values)), np.asarray(root.to_play, dtype=np.int64)]
        prior = masked_softmax(logits)
        if self._noise:
            gamma = rng.standard_gamma(self.noise_alpha, size=prior.shape) * mask
            noise = gamma / np.maximum(gamma.sum(axis=1, keepdims=True), 1e-300)
            prior = (1.0 - self.noise_fraction) * prior + self.noise_fraction * noise
        self._root_prior = prior
        try:
            return super()._search(game, root, rng)
        finally:
            self._root_prior = None

    def _has_prior(self) -> bool:
        return True

    def _prior(self, game: Any, state: Any, mask: np.ndarray, rng: np.random.Generator, depth: int = 0) -> np.ndarray:
        if depth == 0 and self._root_prior is not None:  # every root row, in order (MCTSAgent._prior)
            prior = self._root_prior * mask
            total = prior.sum(axis=1, keepdims=True)
            return np.divide(prior, total, out=np.zeros_like(prior), where=total > 0)
        logits, _ = self.net.evaluate(game, state, mask)
        return masked_softmax(logits)

    def _rollout_value(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        """The leaves' values straight from the value head (no rollout); finished rows of 2+ player games
        from `game.returns`, as MCTSAgent does."""
        value = self.evaluator(game, state)
        if game.num_players > 1:
            done = np.asarray(state.done, dtype=np.bool_)
            value = np.where(done[:, None], np.asarray(game.returns(state), dtype=np.float64), value)
        return value


# --- specs ----------------------------------------------------------------------------------------

def agent_from_spec(spec: str | AgentSpec, game_name: str, num_players: int | None = None,
                    **variant: Any) -> NetAgent | NetSearchAgent:
    """The agent of a `net:` or `search:` spec (module docstring; text is read by
    `meeple.agents.spec.parse_spec`); with `num_players`, the net is checked against that configuration of
    the game now, otherwise against each game it is handed.

    The path is a net file or the name of a shipped baseline (`baselines()`, e.g. "hadara-2p"). `net:`
    options: sample (0/1). `search:` options: sims, c_uct, temperature, noise (the Dirichlet fraction),
    noise_alpha, seed; with mode=rollout instead `_rollout_search`'s (sims, playout, z, margin, seed).
    Raises ValueError for a malformed spec, a missing or invalid file, or a net of another game or
    configuration.
    """
    parsed = spec if isinstance(spec, AgentSpec) else parse_spec(spec)
    spec, kind, options = parsed.text, parsed.kind, parsed.options
    if kind not in NET_KINDS:
        raise ValueError(f"not a net spec: {spec!r}")
    path = resolve_net_path(spec, parsed.args[0])
    net = load_net(path, game_name)
    if num_players is not None:
        from meeple.envs import make

        net.encoder_for(make(game_name, num_players=num_players, **variant))
    try:
        if kind == "net":
            unknown = set(options) - {"sample"}
            if unknown:
                raise ValueError(f"unknown option {sorted(unknown)[0]!r}; known: sample")
            sample = options.get("sample", "0")
            if sample not in ("0", "1"):
                raise ValueError(f"sample must be 0 or 1, got {sample!r}")
            return NetAgent(net, sample=sample == "1", name=spec)
        if options.get("mode") == "rollout":  # kind is search from here on
            return _rollout_search(net, game_name, options, spec)
        kwargs: dict[str, Any] = {}
        for key, value in options.items():
            if key == "sims":
                kwargs["simulations"] = int(value)
            elif key == "seed":
                kwargs["seed"] = int(value)
            elif key in ("c_uct", "temperature", "noise_alpha"):
                kwargs[key] = float(value)
            elif key == "noise":
                kwargs["noise_fraction"] = float(value)
            else:
                raise ValueError(f"unknown option {key!r}; known: sims, c_uct, temperature, noise, noise_alpha, seed")
        return NetSearchAgent(net, name=spec, **kwargs)
    except ValueError as exc:
        raise ValueError(f"bad agent spec {spec!r}: {exc}") from None


def _rollout_search(net: PolicyValueNet, game_name: str, options: dict[str, str], spec: str) -> Any:
    """`search:<net>:mode=rollout,sims=N[,playout=heuristic|net,depth=D,top_k=K,z=..]`: rollout-based improvement of
    the net's policy (`RolloutAgent` with the net's move as the base move): N playouts to the end of the
    game, by the game's heuristic (default, fast) or by the net's own policy (playout=net), and the net's
    move is kept unless another is shown better in a paired test. With depth=D a playout stops after D
    steps and the net's value head stands in for the rest of the game. With top_k=K only the policy's K most
    likely legal moves are candidates."""
    from meeple.agents import make_agent
    from meeple.agents.mcts import RolloutAgent

    kwargs: dict[str, Any] = {}
    playout = "heuristic"
    for key, value in options.items():
        if key == "mode":
            continue
        if key == "sims":
            kwargs["simulations"] = int(value)
        elif key == "seed":
            kwargs["seed"] = int(value)
        elif key == "depth":
            kwargs["max_steps"] = int(value)
            if kwargs["max_steps"] < 1:
                raise ValueError(f"depth must be >= 1, got {value!r}")
            kwargs["leaf_evaluator"] = NetEvaluator(net)
        elif key in ("z", "margin"):
            kwargs[key] = float(value)
        elif key == "top_k":
            kwargs["top_k"] = int(value)
        elif key == "playout":
            if value not in ("heuristic", "net"):
                raise ValueError(f"playout must be heuristic or net, got {value!r}")
            playout = value
        else:
            raise ValueError(f"unknown option {key!r} with mode=rollout; known: sims, playout, depth, top_k, z, margin, "
                             "seed")
    policy = NetAgent(net, name="net")
    agent = RolloutAgent(rollout_agent=policy if playout == "net" else make_agent("heuristic", game_name),
                         base_agent=policy, **kwargs)
    agent.name = spec
    return agent


# --- shipped baselines ----------------------------------------------------------------------------

BASELINES_DIR = Path(__file__).resolve().parent / "baselines"
_BASELINE_NAME = re.compile(r"^[a-z_]+-[1-9]p$")


def baselines() -> dict[str, dict]:
    """The trained nets shipped with meeple: {name: manifest entry (game, num_players, file, training
    command, measured results)}, from agents/baselines/baselines.json. A name such as
    "roll_through_the_ages-2p" stands for its file in `net:` and `search:` specs."""
    manifest = BASELINES_DIR / "baselines.json"
    if not manifest.is_file():
        return {}
    return json.loads(manifest.read_text())["baselines"]


def resolve_net_path(spec: str, path: str) -> Path:
    """The net file of a spec's path part: an existing file, else a shipped baseline's name; ValueError
    naming the spec otherwise (with the baselines' names when the path looks like one)."""
    if Path(path).is_file():
        return Path(path)
    shipped = baselines()
    if path in shipped:
        return BASELINES_DIR / shipped[path]["file"]
    if _BASELINE_NAME.match(path):
        raise ValueError(f"agent spec {spec!r}: no net file at {path!r} and no shipped baseline of that name "
                         f"(shipped: {', '.join(sorted(shipped)) or 'none'})")
    raise ValueError(f"agent spec {spec!r}: no net file at {path!r}")


# --- training ---------------------------------------------------------------------------------------

def net_loss(net: PolicyValueNet, obs: torch.Tensor, mask: torch.Tensor, policy: torch.Tensor, value: torch.Tensor,
             value_coef: float = 1.0) -> tuple[torch.Tensor, dict[str, float]]:
    """Cross-entropy of the masked policy to the target distribution `policy` (B, A) plus value_coef x MSE
    of the value head to the seat-relative targets `value` (B, P). Returns (loss, {"ce", "value_mse"})."""
    logits, predicted = net(obs)
    logits = logits.masked_fill(~mask, torch.finfo(logits.dtype).min)  # finite: 0 x log p stays 0 off the mask
    ce = -(policy * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    mse = ((predicted - value) ** 2).mean()
    return ce + value_coef * mse, {"ce": float(ce.detach()), "value_mse": float(mse.detach())}


def fit(net: PolicyValueNet, optimizer: torch.optim.Optimizer, data: dict[str, np.ndarray], epochs: int,
        batch_size: int, rng: np.random.Generator, value_coef: float = 1.0, max_grad_norm: float = 1.0,
        on_batch: Any = None) -> dict[str, float]:
    """`epochs` passes of minibatch Adam (or any optimizer) over `data` = {"obs", "mask", "policy", "value"}
    (arrays with one row per decision) in an order drawn from `rng`; returns the last epoch's mean losses.
    `on_batch()` is called after every step (a progress bar)."""
    n = len(data["obs"])
    tensors = {k: torch.from_numpy(np.ascontiguousarray(data[k])) for k in ("obs", "mask", "policy", "value")}

    def loss_of(idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        return net_loss(net, tensors["obs"][idx], tensors["mask"][idx], tensors["policy"][idx], tensors["value"][idx],
                        value_coef)

    return minibatch_epochs(net, optimizer, n, epochs, batch_size, rng, loss_of, ("ce", "value_mse"), max_grad_norm,
                            on_batch)


def minibatch_epochs(net: nn.Module, optimizer: torch.optim.Optimizer, n: int, epochs: int, batch_size: int,
                     rng: np.random.Generator, loss_of: Callable[[torch.Tensor], tuple[torch.Tensor, dict[str, float]]],
                     parts: tuple[str, ...], max_grad_norm: float, on_batch: Any = None,
                     initial: float = 0.0) -> dict[str, float]:
    """`epochs` passes of minibatch steps over `n` rows, each pass in an order drawn from `rng`, the net in train
    mode meanwhile (eval mode after, whatever happens): `loss_of(idx)` is (the loss of the rows `idx`, a dict
    holding its float `parts`); each step clips the gradient norm to `max_grad_norm`, then `on_batch()` (if
    given) runs, e.g. a progress bar (it may raise). Returns the last epoch's mean of every part and of "loss",
    in that order (every one `initial` when `epochs` is 0): what `fit` and `fit_advantages` share."""
    stats = dict.fromkeys((*parts, "loss"), initial)
    net.train()
    try:
        for _ in range(epochs):
            sums, batches = dict.fromkeys((*parts, "loss"), 0.0), 0
            order = torch.from_numpy(rng.permutation(n))
            for start in range(0, n, batch_size):
                loss, values = loss_of(order[start:start + batch_size])
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
                optimizer.step()
                for key in parts:
                    sums[key] += values[key]
                sums["loss"] += float(loss.detach())
                batches += 1
                if on_batch is not None:
                    on_batch()
            stats = {k: v / max(batches, 1) for k, v in sums.items()}
    finally:
        net.eval()
    return stats
