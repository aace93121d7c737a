"""Self-play training env: one batched rules state seen from a learner's seat, as an SB3 `VecEnv`.

`SelfPlayVecEnv` runs `n_envs` games in one rules batch. Every transition is the learner's: the
observation is its encoded view, the reward its `game.returns` at the end (0 before), and between
two learner decisions the opponents play inside `step` until it is the learner's turn again. Row
i's episode j seats the learner at (i + j) mod P, so every seat (and start order) is trained. Each
opponent seat of each episode draws an agent from a weighted pool (`add_opponent` adds snapshots
while training). Autoreset is same-step, the Stable-Baselines3 convention: a finished row returns
the first observation of its next episode, with the last one in `infos[i]["terminal_observation"]`
and `infos[i]["episode"] = {"r", "l", "t"}`. `action_masks()` is the name MaskablePPO looks for
(sb3-contrib `sb3_contrib/common/maskable/utils.py`).

Only this module of `meeple.envs` imports stable-baselines3.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from meeple.envs import default_encoder, make


class SelfPlayVecEnv(VecEnv):
    """`n_envs` games of one game in one rules batch, seen from a rotating learner seat.

    Args:
        game_name: a key of `meeple.envs.GAMES`.
        num_players: players per game (1 = solo: no opponents).
        n_envs: batch size B (the VecEnv's num_envs).
        opponents: the initial pool of agents (`act(game, state, rng)`); may be empty only when solo.
        seed: seeds the dice, the opponent draws and every opponent's generator (separate streams).
        encoder: observation encoder; the game's default encoder when None.
        opponent_weights: relative draw weights of `opponents` (default all 1).
        shaping: coefficient of a potential-based bonus on the learner's score margin (learner score
            minus the best opponent score; the score itself when solo); 0 (default) = pure win/loss.
        check_opponents: verify every opponent action against the legal mask (cheap; on by default).
        **variant: the game's variant flags, passed to `make`.
    """

    render_mode = None  # read by VecEnv.__init__ through get_attr

    def __init__(self, game_name: str, num_players: int, n_envs: int, opponents: Sequence[Any] = (),
                 seed: int = 0, encoder: Any = None, *, opponent_weights: Sequence[float] | None = None,
                 shaping: float = 0.0, check_opponents: bool = True, **variant: Any) -> None:
        self.game_name = game_name
        self.game = make(game_name, num_players=num_players, **variant)
        self.encoder = encoder if encoder is not None else default_encoder(game_name, self.game)
        self.num_players = P = self.game.num_players
        if P > 1 and not opponents:
            raise ValueError("a game with opponents needs a non-empty opponent pool")
        weights = [1.0] * len(opponents) if opponent_weights is None else [float(w) for w in opponent_weights]
        if len(weights) != len(opponents):
            raise ValueError(f"{len(opponents)} opponents but {len(weights)} weights")
        self.opponents: list[Any] = list(opponents)
        self.opponent_weights = np.asarray(weights, dtype=np.float64)
        self.shaping = float(shaping)
        self.check_opponents = bool(check_opponents)
        self._rows = np.arange(n_envs)
        self._actions = np.zeros(n_envs, dtype=np.int64)
        self.timing = {"step_s": 0.0, "opponent_s": 0.0, "teacher_s": 0.0, "steps": 0, "opponent_calls": 0,
                       "game_steps": 0}
        # set `teacher` (an agent) to have `teacher_actions` hold its (B,) choices in the learner's current
        # states after every reset and step (kickstarting labels), and every step append the labels of the
        # states it acted in to `teacher_history` (the caller clears it); its generator is seeded from `seed`
        self.teacher: Any = None
        self.teacher_actions = np.zeros(n_envs, dtype=np.int64)
        self.teacher_history: list[np.ndarray] = []
        self._t0 = time.perf_counter()
        super().__init__(n_envs, self.encoder.space(), gymnasium.spaces.Discrete(self.game.num_actions))
        self._reseed(seed)
        self.reset()

    # --- opponent pool -----------------------------------------------------------------------

    def add_opponent(self, agent: Any, weight: float = 1.0) -> int:
        """Add `agent` to the pool (drawn from the next episode on); returns its index."""
        self.opponents.append(agent)
        self.opponent_weights = np.append(self.opponent_weights, float(weight))
        self._agent_rngs.append(np.random.default_rng(self._agent_seq.spawn(1)[0]))
        return len(self.opponents) - 1

    def set_opponent_weight(self, index: int, weight: float) -> None:
        """Change an agent's draw weight; 0 retires it (rows already playing it finish their game)."""
        self.opponent_weights[index] = float(weight)

    @property
    def opponent_names(self) -> list[str]:
        return [str(agent.name) for agent in self.opponents]

    # --- VecEnv API --------------------------------------------------------------------------

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Reseed every stream now (the dice, the opponent draws, each opponent's generator)."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._reseed(seed)
        return [seed] * self.num_envs

    def reset(self) -> VecEnvObs:
        """Start a new game in every row (learner seat i mod P in row i) and return the observations."""
        self.episode_count = np.full(self.num_envs, -1, dtype=np.int64)
        self.learner_seat = np.zeros(self.num_envs, dtype=np.int64)
        self.seat_opponent = np.full((self.num_envs, self.num_players), -1, dtype=np.int64)
        self.ep_return = np.zeros(self.num_envs, dtype=np.float64)
        self.ep_len = np.zeros(self.num_envs, dtype=np.int64)
        self.state = self.game.init(self._env_rng, self.num_envs)
        self._new_episodes(self._rows)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        self._label()
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        """The learner's actions, then the opponents until the learner's turn; autoreset finished rows."""
        t0 = time.perf_counter()
        actions, game, state, rows = self._actions, self.game, self.state, self._rows
        if actions.min() < 0 or actions.max() >= game.num_actions or not self._mask[rows, actions].all():
            bad = int(np.flatnonzero((actions < 0) | (actions >= game.num_actions) |
                                     ~self._mask[rows, np.clip(actions, 0, game.num_actions - 1)])[0])
            raise ValueError(f"illegal learner action {actions[bad]} in row {bad}")
        if self.teacher is not None:
            self.teacher_history.append(self.teacher_actions)
        game.step_inplace(state, actions, self._env_rng, self._mask)
        self.ep_len += 1
        self.timing["game_steps"] += self.num_envs
        self._play_opponents()

        done = state.done.copy()
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        if done.any():
            returns = game.returns(state)
            rewards[done] = returns[done, self.learner_seat[done]]
        if self.shaping:
            margin = self._margin()
            rewards += (self.shaping * (margin - self._last_margin)).astype(np.float32)
            self._last_margin = margin
        self.ep_return += rewards
        obs = self._observe()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            finished = np.flatnonzero(done)
            self._fill_final_infos(infos, finished, obs, returns)
            self._new_episodes(finished)
            obs[finished] = self._observe()[finished]
        self._mask = game.legal_action_mask(self.state)
        self._label()
        self.timing["step_s"] += time.perf_counter() - t0
        self.timing["steps"] += 1
        return obs, rewards, done, infos

    def action_masks(self) -> np.ndarray:
        """(n_envs, A) bool legal actions of the learner in every row (each row is at its turn)."""
        return self._mask.copy()

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The env-level attribute, once per index (all rows share one env object)."""
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an env-level attribute; it applies to every row, so `indices` must cover them all."""
        if len(list(self._get_indices(indices))) != self.num_envs:
            raise ValueError("SelfPlayVecEnv rows share one env: set_attr applies to all of them")
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """`action_masks` gives each row its own mask; any other method runs once and is repeated."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    # --- internals ---------------------------------------------------------------------------

    def _reseed(self, seed: int) -> None:
        env_seq, pool_seq, self._agent_seq = np.random.SeedSequence(seed).spawn(3)
        self._env_rng = np.random.default_rng(env_seq)
        self._pool_rng = np.random.default_rng(pool_seq)
        self._agent_rngs = [np.random.default_rng(s) for s in self._agent_seq.spawn(len(self.opponents))]
        self._teacher_rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))

    def _label(self) -> None:
        """The teacher's actions in the learner's current states (every row is at the learner's turn)."""
        if self.teacher is not None:
            t0 = time.perf_counter()
            self.teacher_actions = np.asarray(self.teacher.act(self.game, self.state, self._teacher_rng), dtype=np.int64)
            self.timing["teacher_s"] += time.perf_counter() - t0

    def _observe(self) -> np.ndarray:
        return self.encoder.encode(self.game.observe(self.state, self.learner_seat))

    def _margin(self) -> np.ndarray:
        """(B,) learner score minus the best opponent score (the score itself when solo)."""
        scores = self.game.scores(self.state).astype(np.float64)
        mine = scores[self._rows, self.learner_seat]
        if self.num_players == 1:
            return mine
        scores[self._rows, self.learner_seat] = -np.inf
        return mine - scores.max(axis=1)

    def _new_episodes(self, rows: np.ndarray) -> None:
        """Fresh games in `rows`: next learner seat, new opponents, opponents play to the learner's turn."""
        for _ in range(100):
            fresh = self.game.init(self._env_rng, len(rows))
            for dst, src in zip(self.state, fresh):
                dst[rows] = src
            self.episode_count[rows] += 1
            self.learner_seat[rows] = (rows + self.episode_count[rows]) % self.num_players
            if self.num_players > 1:
                total = self.opponent_weights.sum()
                if not total > 0 or (self.opponent_weights < 0).any():
                    raise ValueError(f"opponent weights must be >= 0 with a positive sum, got {self.opponent_weights}")
                p = self.opponent_weights / total
                draws = self._pool_rng.choice(len(self.opponents), size=(len(rows), self.num_players), p=p)
                draws[np.arange(len(rows)), self.learner_seat[rows]] = -1
                self.seat_opponent[rows] = draws
            self.ep_return[rows] = 0.0
            self.ep_len[rows] = 0
            self._play_opponents()
            rows = rows[self.state.done[rows]]  # a game over before the learner moved: deal again
            if not len(rows):
                break
        else:
            raise RuntimeError("games keep ending before the learner's first decision")
        self._mask = self.game.legal_action_mask(self.state)
        if self.shaping:
            self._last_margin = self._margin()

    def _play_opponents(self) -> None:
        """Opponent moves in every row that is not done and not at the learner's turn, until none is.

        Each involved agent acts once per iteration, on the sub-batch of the rows it plays: a turn
        of one row can take ~20 opponent decisions while the others wait, so an iteration has few
        pending rows, and acting on the whole batch was 1.7x slower with the heuristic in the pool.
        Rows waiting for the learner are frozen by marking them done for the duration of `apply`
        (the rules protocol leaves done rows unchanged, STYLE.md) instead of copying a sub-batch.
        """
        t0 = time.perf_counter()
        game, state, rows = self.game, self.state, self._rows
        while True:
            pending = ~state.done & (state.to_play != self.learner_seat)
            if not pending.any():
                break
            owner = np.where(pending, self.seat_opponent[rows, state.to_play], -1)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for k in np.unique(owner[pending]):
                mine = np.flatnonzero(owner == k)
                sub = type(state)._make([field[mine] for field in state])  # core.take, minus the checks
                actions[mine] = self.opponents[k].act(game, sub, self._agent_rngs[k])
                self.timing["opponent_calls"] += 1
            # one mask serves this check and apply's own legality check
            mask = game.legal_action_mask(state)
            legal = mask[rows, np.clip(actions, 0, game.num_actions - 1)]
            bad = pending & ((actions < 0) | (actions >= game.num_actions) | ~legal)
            if bad.any():
                b = int(np.flatnonzero(bad)[0])
                raise RuntimeError(f"opponent {self.opponents[owner[b]].name!r} chose illegal action {actions[b]} in row {b}")
            waiting = ~pending & ~state.done
            mask[waiting] = True  # frozen rows (marked done below) take any action and stay as they are
            state.done[waiting] = True
            try:
                game.step_inplace(state, actions, self._env_rng, mask)
            finally:
                state.done[waiting] = False
            self.timing["game_steps"] += int(pending.sum())
        self.timing["opponent_s"] += time.perf_counter() - t0

    def _fill_final_infos(self, infos: list[dict[str, Any]], finished: np.ndarray, obs: np.ndarray,
                          returns: np.ndarray) -> None:
        """SB3's terminal_observation and episode stats, plus the game's result, for finished rows."""
        scores = self.game.scores(self.state)
        top = returns == returns.max(axis=1, keepdims=True)
        share = top / top.sum(axis=1, keepdims=True)  # a win shared 1/k among k tied seats (as the arena)
        truncated = getattr(self.state, "truncated", np.zeros(self.num_envs, dtype=bool))
        elapsed = round(time.perf_counter() - self._t0, 6)
        names = self.opponent_names
        for i in finished:
            seat = int(self.learner_seat[i])
            infos[i] = {
                "terminal_observation": obs[i].copy(),
                "episode": {"r": float(self.ep_return[i]), "l": int(self.ep_len[i]), "t": elapsed},
                "learner_seat": seat,
                "scores": scores[i].tolist(),
                "returns": returns[i].tolist(),
                "winner": int(np.argmax(returns[i])) if top[i].sum() == 1 else -1,
                "opponents": [("learner" if k < 0 else names[k]) for k in self.seat_opponent[i]],
                # the round limit is a rule of the game (ranked on the scores reached), so it is not
                # reported as TimeLimit.truncated: SB3 would bootstrap a value on top of the result
                "truncated": bool(truncated[i]),
            }
            if self.num_players > 1:  # a win share; SB3 logs the mean of `is_success` as rollout/success_rate
                infos[i]["is_success"] = float(share[i, seat])



def collect_demonstrations(env: SelfPlayVecEnv, teacher: Any, n_steps: int, gamma: float,
                           seed: int = 0) -> dict[str, np.ndarray]:
    """About `n_steps` learner-seat transitions of `env` with `teacher` choosing the learner's actions.

    The env plays as in training (same rows, seats and opponent pool); only the learner's moves come
    from the teacher (`act(game, state, rng)`, called on the whole batch: every row is at the
    learner's turn). Returns {"obs" (N, D) float32, "mask" (N, A) bool, "action" (N,) int64,
    "ret" (N,) float32}: the discounted return of each transition's episode from that step on (the
    shaping bonus included). Transitions of episodes still running at the end are dropped. The env is
    reset afterwards, so a learner starts from fresh games.
    """
    rng = np.random.default_rng(seed)
    B = env.num_envs
    T = max(1, -(-n_steps // B))
    obs = env.reset()
    obs_buf = np.empty((T, B, *obs.shape[1:]), dtype=np.float32)
    mask_buf = np.empty((T, B, env.game.num_actions), dtype=bool)
    act_buf = np.empty((T, B), dtype=np.int64)
    rew_buf = np.empty((T, B), dtype=np.float32)
    done_buf = np.empty((T, B), dtype=bool)
    for t in range(T):
        obs_buf[t], mask_buf[t] = obs, env.action_masks()
        act_buf[t] = teacher.act(env.game, env.state, rng)
        obs, rew_buf[t], done_buf[t], _ = env.step(act_buf[t])
    ret = np.zeros((T, B), dtype=np.float32)
    valid = np.zeros((T, B), dtype=bool)
    running, ended = np.zeros(B, dtype=np.float32), np.zeros(B, dtype=bool)
    for t in range(T - 1, -1, -1):
        running = np.where(done_buf[t], 0.0, gamma * running) + rew_buf[t]
        ended |= done_buf[t]
        ret[t], valid[t] = running, ended
    env.reset()
    v = valid.reshape(-1)
    return {"obs": obs_buf.reshape(T * B, -1)[v], "mask": mask_buf.reshape(T * B, -1)[v],
            "action": act_buf.reshape(-1)[v], "ret": ret.reshape(-1)[v]}
