"""Your own policy as a meeple agent: `py:module:name` specs, the `Policy` protocol, a torch adapter.

    meeple evaluate --agents py:examples.my_policy:policy heuristic net:roll_through_the_ages-2p

A policy from outside this package sees what a learner sees in the Gymnasium envs, not the rules state:

    class Policy(Protocol):
        def act(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray: ...

`observation` is (B, D) float32, the game's default encoding (`meeple.envs.make_encoder(game)`, the
`observation` of the AEC and Gymnasium envs) of each row's position as its seat to move may see it,
`mask` is (B, A) bool, that seat's legal actions, and the result is (B,) integer actions, one legal
action per row (finished rows are never shown). A plain function `policy(observation, mask)` is accepted
as well. `TorchPolicy` turns a torch module that maps observations to logits, e.g. the agent of a
CleanRL-style PPO (its `actor`), into such a policy.

`py:module:name` imports `module` as `python -m` would (the current folder first, then the installed
packages) and takes its attribute `name` (dots reach into objects: `py:mypkg.agents:zoo.best`). Importing
runs the module's code: name only modules you trust, as with any import. Nothing is unpickled here; a
policy that loads weights does so with its own code (e.g. `safetensors` or `torch.load(weights_only=True)`).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, Protocol, runtime_checkable

import numpy as np

from meeple.agents.spec import AgentSpec, parse_spec


@runtime_checkable
class Policy(Protocol):
    """A batched policy on observations: `act(observation (B, D) float32, mask (B, A) bool) -> (B,) int`."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


def load_policy(target: str | AgentSpec) -> Any:
    """The object `module:name` (or the `py:module:name` spec parsed by `meeple.agents.spec.parse_spec`) names
    (ValueError naming what is missing); see the module docstring."""
    spec = target if isinstance(target, AgentSpec) else parse_spec(f"py:{target}")
    if spec.kind != "py":
        raise ValueError(f"agent spec {spec.text!r} is not a py:<module>:<name> spec")
    module_name, attr = spec.args
    here = os.getcwd()
    added = here not in sys.path
    if added:  # as `python -m` does: the current folder's modules first (a console script lacks it)
        sys.path.insert(0, here)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise ValueError(f"agent spec {spec.text!r}: cannot import module {module_name!r} ({exc})") from None
    finally:
        if added:
            sys.path.remove(here)
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent spec {spec.text!r}: module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not (isinstance(obj, Policy) or callable(obj)) or isinstance(obj, type):
        raise ValueError(f"agent spec {spec.text!r}: {attr!r} is a {type(obj).__name__}, not a policy "
                         "(an object with act(observation, mask), or a function of (observation, mask))")
    return obj


class PythonPolicyAgent:
    """A `Policy` (or function of (observation, mask)) playing as a meeple agent (`act(game, state, rng)`).

    Each call encodes every row's position for its seat to move (the game's default encoder), hands the
    policy the observations and legal masks of the unfinished rows, and checks its answer: integers, one
    per row, legal in its row; anything else raises ValueError naming the policy and the rows."""

    def __init__(self, policy: Any, game_name: str, name: str | None = None) -> None:
        self.policy = policy
        self.game_name = game_name
        self.name = name or getattr(policy, "name", None) or getattr(policy, "__name__", type(policy).__name__)
        self._act = policy.act if isinstance(policy, Policy) else policy
        self._encoders: dict[int, tuple[Any, Any]] = {}  # id(game) -> (game, its encoder)

    def _encoder(self, game: Any) -> Any:
        held = self._encoders.get(id(game))
        if held is None or held[0] is not game:
            from meeple.envs import make_encoder

            held = self._encoders[id(game)] = (game, make_encoder(self.game_name, game, None))
        return held[1]

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        B = state.done.shape[0]
        actions = np.zeros(B, dtype=np.int64)
        live = np.flatnonzero(~state.done)
        if not live.size:
            return actions
        from meeple.envs import core

        shown = core.take(state, live) if live.size < B else state
        observation = self._encoder(game).encode(game.observe(shown, shown.to_play))
        mask = game.legal_action_mask(shown)
        chosen = np.asarray(self._act(observation, mask.copy()))
        if chosen.shape != (live.size,) or chosen.dtype.kind not in "iu":
            raise ValueError(f"policy {self.name!r} returned {chosen.dtype} of shape {chosen.shape}; expected "
                             f"({live.size},) integer actions, one per row of the observation")
        inside = (chosen >= 0) & (chosen < game.num_actions)
        legal = inside & mask[np.arange(live.size), np.where(inside, chosen, 0)]
        if not legal.all():
            bad = np.flatnonzero(~legal)[:5]
            raise ValueError(f"policy {self.name!r} chose illegal actions {chosen[bad].tolist()} in rows {bad.tolist()} "
                             f"of its observation (legal in the first: {np.flatnonzero(mask[bad[0]])[:20].tolist()})")
        actions[live] = chosen
        return actions


class TorchPolicy:
    """A torch module mapping (B, D) float32 observations to (B, A) logits, as a `Policy`: the illegal
    logits masked out, then the best legal action (or, with `sample=True`, one drawn from the masked
    softmax by a torch generator seeded with `seed`, so a tournament stays reproducible).

    `logits` picks the part of the module to call: by default the module's `actor` if it has one (the
    layout of a CleanRL-style PPO agent: `actor` and `critic` heads), else the module itself."""

    def __init__(self, module: Any, *, logits: Any = None, sample: bool = False, seed: int = 0, name: str | None = None) -> None:
        import torch

        self.module = module.eval()
        self.forward = logits if logits is not None else getattr(module, "actor", module)
        self.sample = bool(sample)
        self.generator = torch.Generator().manual_seed(int(seed))
        self.name = name or type(module).__name__

    def act(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            logits = self.forward(torch.as_tensor(observation, dtype=torch.float32))
            logits = logits.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
            if self.sample:
                chosen = torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=self.generator)[:, 0]
            else:
                chosen = logits.argmax(dim=-1)
        return chosen.numpy().astype(np.int64)
