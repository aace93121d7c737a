"""Agents backed by a MaskablePPO policy: a saved `model.zip`, or an in-memory snapshot for self-play.

Both act on a batch through the rules API: the observation is the game's default encoding of
`game.observe(state, state.to_play)`, the mask `game.legal_action_mask(state)`. Deterministic agents
take the policy's most likely legal action (`PolicyAgent` through `model.predict(obs, action_masks=mask,
deterministic=True)`; the frozen snapshots, which run inside the self-play env's hot loop, through the
same weights as plain `addmm` calls, tested equal). Stochastic ones sample the
masked distribution with the `rng` they are given, so they stay reproducible (torch's own sampler
would draw from the global torch generator instead).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from tqdm.auto import tqdm

from meeple.envs import default_encoder, make


_ACTIVATIONS = {th.nn.Tanh: th.Tensor.tanh_, th.nn.ReLU: th.Tensor.relu_}


def plain_actor(policy: Any) -> list[tuple[th.Tensor, th.Tensor, Any]] | None:
    """The actor of a plain MLP policy on the CPU as (weight (in, out), bias, in-place activation or None).

    None unless the features extractor only flattens and the actor is Linear layers with Tanh or
    ReLU between them (SB3's MlpPolicy). The tensors are copies, so later training does not show.
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor

    if (policy.device.type != "cpu" or not isinstance(policy.pi_features_extractor, FlattenExtractor)
            or len(policy.observation_space.shape) != 1):
        return None
    layers: list[tuple[th.Tensor, th.Tensor, Any]] = []
    for module in [*policy.mlp_extractor.policy_net, policy.action_net]:
        if isinstance(module, th.nn.Linear):
            weight = module.weight.detach().t().contiguous().float().clone()
            layers.append((weight, module.bias.detach().float().clone(), None))
        elif type(module) in _ACTIVATIONS and layers and layers[-1][2] is None:
            layers[-1] = (*layers[-1][:2], _ACTIVATIONS[type(module)])
        else:
            return None
    return layers


@contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run the block with torch on `n` threads (None: as it is), then restore the count. Agents act with one:
    their forward passes are small, and torch's default of one thread per core made them ~30x slower on a
    busy 2-core machine (threads waiting on each other); training keeps its own --torch-threads."""
    before = th.get_num_threads()
    if n is not None and n != before:
        th.set_num_threads(n)
    try:
        yield
    finally:
        if th.get_num_threads() != before:
            th.set_num_threads(before)


class _MaskablePolicyAgent:
    """Shared `act` for a sb3-contrib `MaskableActorCriticPolicy` and the game's default encoder."""

    name: str
    policy: Any
    game_name: str
    deterministic: bool

    def _setup(self, game_name: str, num_players: int | None, variant: dict[str, Any]) -> None:
        self.game_name = game_name
        self._layers = plain_actor(self.policy)
        self._encoder: Any = None
        self._encoder_game: Any = None
        if num_players is not None:  # build now so a wrong game fails at load time, not mid-match
            self._encoder_for(make(game_name, num_players=num_players, **variant))

    def _encoder_for(self, game: Any) -> Any:
        if game is not self._encoder_game:
            encoder = default_encoder(self.game_name, game)
            expected = tuple(self.policy.observation_space.shape)
            if tuple(encoder.shape) != expected or self.policy.action_space.n != game.num_actions:
                raise ValueError(f"{self.name}: the policy takes observations {expected} and "
                                 f"{self.policy.action_space.n} actions; {game!r} gives {tuple(encoder.shape)} "
                                 f"and {game.num_actions}")
            self._encoder, self._encoder_game = encoder, game
        return self._encoder

    def act(self, game: Any, state: Any, rng: np.random.Generator) -> np.ndarray:
        """(B,) int64 legal actions for the seat to play in every row."""
        obs = self._encoder_for(game).encode(game.observe(state, state.to_play))
        mask = game.legal_action_mask(state)
        if self.deterministic:
            return self._greedy(obs, mask)
        logits = self._masked_logits(obs, mask)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))  # exp(-inf) = 0 for illegal actions
        cdf = np.cumsum(probs, axis=1)
        u = rng.random(len(cdf))[:, None] * cdf[:, -1:]
        return np.argmax(cdf > u, axis=1).astype(np.int64)

    def _masked_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(B, A) float64 action logits of the policy head, -inf where illegal.

        The modules `policy.get_distribution` runs, minus SB3's distribution objects and, for a
        plain MLP actor, minus the module calls (`addmm` on copied weights): an opponent in the
        self-play env plays a few rows ~30 times per learner step, where that overhead was ~4x
        the arithmetic.
        """
        with torch_threads(1), th.inference_mode():
            if self._layers is not None:
                x = th.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
                for weight, bias, activation in self._layers:
                    x = th.addmm(bias, x, weight)
                    if activation is not None:
                        activation(x)
                logits = x.numpy()
            else:
                policy = self.policy
                features = policy.extract_features(th.as_tensor(obs, device=policy.device), policy.pi_features_extractor)
                logits = policy.action_net(policy.mlp_extractor.forward_actor(features)).cpu().numpy()
        return np.where(mask, logits.astype(np.float64), -np.inf)

    def _greedy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The most likely legal action: what `policy.predict(..., deterministic=True)` returns."""
        return np.argmax(self._masked_logits(obs, mask), axis=1).astype(np.int64)


class PolicyAgent(_MaskablePolicyAgent):
    """A MaskablePPO `model.zip` saved by train.py, loaded with `MaskablePPO.load` (name "ppo:<path>").

    Args:
        path: the saved model.
        game_name: the game it was trained on (a key of `meeple.envs.GAMES`).
        num_players: when given, the encoder is built and checked against the model at load time;
            otherwise on the first `act`, from the game it is handed.
        deterministic: play the most likely legal action (default) or sample with `rng`.
        device: torch device.
        **variant: the game's variant flags (only used with `num_players`).
    """

    def __init__(self, path: str | Path, game_name: str, num_players: int | None = None,
                 deterministic: bool = True, device: str = "cpu", **variant: Any) -> None:
        from sb3_contrib import MaskablePPO

        self.name = f"ppo:{path}"
        self.path = str(path)
        self.model = MaskablePPO.load(self.path, device=device)
        self.policy = self.model.policy
        self.policy.set_training_mode(False)
        self.deterministic = bool(deterministic)
        self._setup(game_name, num_players, variant)

    def _greedy(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        return np.asarray(actions, dtype=np.int64).reshape(-1)


class FrozenPolicyAgent(_MaskablePolicyAgent):
    """A frozen copy of a live policy, for the self-play opponent pool (no disk round trip).

    The weights are copied into a fresh policy object, so later training does not change it.

    Args:
        policy: a `MaskableActorCriticPolicy` (e.g. `model.policy`).
        game_name: the game it plays.
        name: its label in the pool and in results (default "ppo:snapshot").
        deterministic: most likely legal action, or (default) sample with `rng`: a stochastic
            opponent gives the learner more varied games.
    """

    def __init__(self, policy: Any, game_name: str, name: str = "ppo:snapshot", deterministic: bool = False) -> None:
        fresh = type(policy)(**policy._get_constructor_parameters())
        fresh.load_state_dict(policy.state_dict())
        fresh.to(policy.device)
        fresh.set_training_mode(False)
        self.policy = fresh
        self.name = name
        self.deterministic = bool(deterministic)
        self._setup(game_name, None, {})


def imitation_loss(policy: Any, data: dict[str, np.ndarray], idx: np.ndarray,
                   vf_coef: float = 0.5) -> tuple[th.Tensor, dict[str, float]]:
    """Masked cross-entropy of the teacher's actions plus vf_coef * MSE of the value on the returns.

    `data` as returned by `meeple.envs.selfplay.collect_demonstrations` (without "ret", or with
    vf_coef 0, the cross-entropy only); `idx` picks the minibatch.
    """
    obs = th.as_tensor(data["obs"][idx], device=policy.device)
    actions = th.as_tensor(data["action"][idx], device=policy.device)
    values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=data["mask"][idx])
    ce = -log_prob.mean()
    if not vf_coef or "ret" not in data:  # the actions only
        return ce, {"ce": float(ce.detach())}
    mse = th.nn.functional.mse_loss(values.flatten(), th.as_tensor(data["ret"][idx], device=policy.device))
    return ce + vf_coef * mse, {"ce": float(ce.detach()), "value_mse": float(mse.detach())}


def imitation_train(policy: Any, data: dict[str, np.ndarray], epochs: int, batch_size: int = 1024,
                    lr: float = 1e-3, vf_coef: float = 0.5, max_grad_norm: float = 1.0, seed: int = 0,
                    log: Any = print, progress: bool = False) -> dict[str, float]:
    """Behaviour cloning (+ value regression) of a MaskablePPO policy's own modules on demonstrations.

    A fresh Adam (the policy's PPO optimizer keeps its state), its step size decayed linearly. Returns the last epoch's mean losses
    and the greedy accuracy (argmax of the masked logits equals the teacher's action) over the data.
    """
    rng = np.random.default_rng(seed)
    optimizer = th.optim.Adam(policy.parameters(), lr=lr)
    n = len(data["action"])
    policy.set_training_mode(True)
    stats: dict[str, float] = {}
    bar = tqdm(total=epochs * -(-n // batch_size), desc="imitation: training", unit="batch", disable=not progress)
    for epoch in range(epochs):
        for group in optimizer.param_groups:  # linear decay to lr / epochs in the last epoch
            group["lr"] = lr * (1 - epoch / epochs)
        perm, sums, batches = rng.permutation(n), {"ce": 0.0, "value_mse": 0.0}, 0
        for start in range(0, n, batch_size):
            loss, parts = imitation_loss(policy, data, perm[start:start + batch_size], vf_coef)
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            optimizer.step()
            for k in sums:
                sums[k] += parts[k]
            batches += 1
            bar.update(1)
        stats = {k: v / max(batches, 1) for k, v in sums.items()}
        bar.set_postfix(epoch=epoch + 1, ce=round(stats["ce"], 4))
        if log is not None and not progress:  # the bar shows the same
            log(f"[imitation] epoch {epoch + 1}/{epochs} ce={stats['ce']:.4f} value_mse={stats['value_mse']:.4f}")
    bar.close()
    policy.set_training_mode(False)
    with th.inference_mode():
        correct = 0
        for start in range(0, n, 8192):
            sl = slice(start, start + 8192)
            dist = policy.get_distribution(th.as_tensor(data["obs"][sl], device=policy.device),
                                           action_masks=data["mask"][sl])
            correct += int((dist.distribution.probs.argmax(1).cpu().numpy() == data["action"][sl]).sum())
    stats["accuracy"] = correct / max(n, 1)
    return stats


def imitation_steps(policy: Any, optimizer: Any, data: dict[str, np.ndarray], n_batches: int, batch_size: int,
                    coef: float, rng: np.random.Generator, vf_coef: float = 0.5,
                    max_grad_norm: float = 0.5) -> dict[str, float]:
    """`n_batches` random-minibatch steps of `coef` * `imitation_loss` (an auxiliary term during RL)."""
    policy.set_training_mode(True)
    parts: dict[str, float] = {}
    for _ in range(n_batches):
        loss, parts = imitation_loss(policy, data, rng.integers(len(data["action"]), size=batch_size), vf_coef)
        optimizer.zero_grad()
        (coef * loss).backward()
        th.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
        optimizer.step()
    policy.set_training_mode(False)
    return parts


def evaluate_policy(policy: Any, game: Any, game_name: str, opponents: Any, n_games: int, seed: int,
                    progress: bool = False) -> dict:
    """{opponent spec: win_rate, win_ci95, mean_score, mean_return} of the deterministic `policy`.

    `n_games` seeded `play_games` per opponent spec (seed + 1000 * (k + 1) for the k-th), learner
    against P - 1 copies of the opponent, seats rotated.
    """
    from meeple.agents.arena import head_to_head

    learner = FrozenPolicyAgent(policy, game_name, name="learner", deterministic=True)
    return head_to_head(game, learner, game_name, opponents, n_games, seed, progress)


def warm_start(policy: Any, env: Any, teacher: Any, n_steps: int, epochs: int, gamma: float, batch_size: int = 1024,
               lr: float = 1e-3, vf_coef: float = 0.5, seed: int = 0, progress: bool = False) -> dict[str, float]:
    """Kickstart `policy` from `teacher`: `collect_demonstrations` in the self-play `env`, then `imitation_train`.

    Returns the training stats plus transitions, collect_s and total_s (wall-clock seconds).
    """
    import time

    from meeple.envs.selfplay import collect_demonstrations

    t0 = time.perf_counter()
    demos = collect_demonstrations(env, teacher, n_steps, gamma, seed=seed, progress=progress)
    collect_s = time.perf_counter() - t0
    stats = imitation_train(policy, demos, epochs, batch_size, lr, vf_coef, seed=seed, progress=progress)
    stats.update(transitions=len(demos["action"]), collect_s=round(collect_s, 2), total_s=round(time.perf_counter() - t0, 2))
    return stats
