"""Self-play training env for Stable-Baselines3: `BoardGameVectorEnv` behind SB3's `VecEnv` API.

`SelfPlayVecEnv` runs `num_envs` games in one rules batch through `meeple.envs.vector.BoardGameVectorEnv`
(the Gymnasium vector env, which holds the games, the learner's rotating seat, the opponent pool and
the shaping; its docstring has the design). Every transition is the learner's: the observation is its
encoded view, the reward its `game.returns` at the end (0 before), and between two learner decisions
the opponents play inside `step`. Row i's episode j seats the learner at (i + j) mod P. This adapter
adds only what SB3 expects: `step_async` / `step_wait`, a 4-tuple with `dones = terminated | truncated`
(a game cut short by the rules is ranked on the scores reached, which is its result, so it is not
reported as `TimeLimit.truncated`: SB3 would bootstrap a value on top of it), float32 rewards, a list
of per-env infos with `terminal_observation` and `episode = {"r", "l", "t"}` (t: seconds since the env
was made, as SB3's Monitor), `seed()` taking effect at the next `reset()` (as SB3's own VecEnvs), and
the teacher labels train.py uses for kickstarting. Autoreset is same-step, the vector env's and SB3's
convention. `action_masks()` is the name MaskablePPO looks for (sb3-contrib
`sb3_contrib/common/maskable/utils.py`).

Only this module of `meeple.envs` imports stable-baselines3.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from tqdm.auto import tqdm
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from meeple.envs.vector import BoardGameVectorEnv


def _from_vector(name: str, doc: str) -> property:
    """A read-only attribute of the underlying vector env (the games and the pool live there)."""
    return property(lambda self: getattr(self.vector, name), doc=doc)


class SelfPlayVecEnv(VecEnv):
    """`num_envs` games of one game in one rules batch, seen from a rotating learner seat.

    Takes its arguments as `BoardGameVectorEnv` does: the game and the batch size, then keywords.

    Args:
        game_name: a key of `meeple.envs.GAMES`.
        num_envs: batch size B.
        num_players: players per game (1 = solo: no opponents).
        opponents: the initial pool of agents (`act(game, state, rng)`); may be empty only when solo.
        seed: seeds the dice, the opponent draws and every opponent's generator (separate streams).
        encoder: observation encoder; the game's default encoder when None.
        opponent_weights: relative draw weights of `opponents` (default all 1).
        shaping: coefficient of a potential-based bonus on the learner's score margin (learner score
            minus the best opponent score; the score itself when solo); 0 (default) = pure win/loss.
        check_opponents: kept for compatibility; opponent actions are always checked (the mask they are
            checked against is the one the step needs anyway).
        **variant: the game's variant flags, passed to `make`.
    """

    render_mode = None  # read by VecEnv.__init__ through get_attr

    game = _from_vector("game", "the rules core")
    game_name = _from_vector("game_name", "the game's registry name")
    encoder = _from_vector("encoder", "the observation encoder")
    num_players = _from_vector("num_players", "players per game")
    state = _from_vector("state", "the batch of games (every row at the learner's turn between steps)")
    learner_seat = _from_vector("learner_seat", "(B,) the learner's seat in every row")
    seat_opponent = _from_vector("seat_opponent", "(B, P) pool index per seat, -1 at the learner's")
    episode_count = _from_vector("episode_count", "(B,) episodes started per row since the last reset")
    ep_return = _from_vector("ep_return", "(B,) the running episode's return so far")
    ep_len = _from_vector("ep_len", "(B,) the running episode's learner steps so far")
    opponents = _from_vector("opponents", "the opponent pool")
    opponent_weights = _from_vector("opponent_weights", "the pool's draw weights")
    opponent_names = _from_vector("opponent_names", "the pool's names")
    shaping = _from_vector("shaping", "the score-margin shaping coefficient")

    def __init__(self, game_name: str, num_envs: int = 8, *, num_players: int = 2, opponents: Sequence[Any] = (),
                 seed: int = 0, encoder: Any = None, opponent_weights: Sequence[float] | None = None,
                 shaping: float = 0.0, check_opponents: bool = True, **variant: Any) -> None:
        self.vector = BoardGameVectorEnv(game_name, num_envs, num_players=num_players, opponents=list(opponents),
                                         encoder=encoder, opponent_weights=opponent_weights, shaping=shaping,
                                         **variant)
        self.check_opponents = bool(check_opponents)
        self._actions = np.zeros(num_envs, dtype=np.int64)
        # the vector env's counters ("opponent_s", "opponent_calls", "game_steps") and this adapter's, in one dict
        self.timing = self.vector.timing
        self.timing.update({"step_s": 0.0, "teacher_s": 0.0, "steps": 0})
        # set `teacher` (an agent) to have `teacher_actions` hold its (B,) choices in the learner's current
        # states after every reset and step (kickstarting labels), and every step append the labels of the
        # states it acted in to `teacher_history` (the caller clears it); its generator is seeded from `seed`
        self.teacher: Any = None
        self.teacher_actions = np.zeros(num_envs, dtype=np.int64)
        self.teacher_history: list[np.ndarray] = []
        self._t0 = time.perf_counter()
        super().__init__(num_envs, self.vector.single_observation_space, self.vector.single_action_space)
        self.seed(seed)
        self.reset()

    # --- opponent pool -----------------------------------------------------------------------

    def add_opponent(self, agent: Any, weight: float = 1.0) -> int:
        """Add `agent` to the pool (drawn from the next episode on); returns its index."""
        return self.vector.add_opponent(agent, weight)

    def set_opponent_weight(self, index: int, weight: float) -> None:
        """Change an agent's draw weight; 0 retires it (rows already playing it finish their game)."""
        self.vector.set_opponent_weight(index, weight)

    # --- VecEnv API --------------------------------------------------------------------------

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Reseed every stream (the dice, the opponent draws, each opponent's generator, the teacher's) at the
        next `reset()`."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._next_seed = int(seed)
        return [seed] * self.num_envs

    def reset(self) -> VecEnvObs:
        """Start a new game in every row (learner seat i mod P in row i) and return the observations."""
        seed, self._next_seed = self._next_seed, None
        if seed is not None:
            self._teacher_rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
        obs, _ = self.vector.reset(seed=seed)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        self._label()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        """The learner's actions, then the opponents until the learner's turn; autoreset finished rows."""
        t0 = time.perf_counter()
        obs, rewards, terminated, truncated, vector_infos = self.vector.step(self._actions)
        if self.teacher is not None:
            self.teacher_history.append(self.teacher_actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            self._fill_final_infos(infos, np.flatnonzero(dones), vector_infos, truncated)
        self._label()
        self.timing["step_s"] += time.perf_counter() - t0
        self.timing["steps"] += 1
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool legal actions of the learner in every row (each row is at its turn)."""
        return self.vector.action_masks()

    def close(self) -> None:
        self.vector.close()

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

    def _label(self) -> None:
        """The teacher's actions in the learner's current states (every row is at the learner's turn)."""
        if self.teacher is not None:
            t0 = time.perf_counter()
            self.teacher_actions = np.asarray(self.teacher.act(self.game, self.state, self._teacher_rng), dtype=np.int64)
            self.timing["teacher_s"] += time.perf_counter() - t0

    def _fill_final_infos(self, infos: list[dict[str, Any]], finished: np.ndarray, vector_infos: dict[str, Any],
                          truncated: np.ndarray) -> None:
        """SB3's terminal_observation and episode stats, plus the game's result, for finished rows."""
        final, final_obs = vector_infos["final_info"], vector_infos["final_obs"]
        returns = final["returns"]
        top = returns == returns.max(axis=1, keepdims=True)
        share = top / top.sum(axis=1, keepdims=True)  # a win shared 1/k among k tied seats (as the arena)
        elapsed = round(time.perf_counter() - self._t0, 6)
        for i in finished:
            seat = int(final["learner_seat"][i])
            infos[i] = {
                "terminal_observation": final_obs[i],
                "episode": {"r": float(final["episode"]["r"][i]), "l": int(final["episode"]["l"][i]), "t": elapsed},
                "learner_seat": seat,
                "scores": final["scores"][i].tolist(),
                "returns": returns[i].tolist(),
                "winner": int(final["winner"][i]),
                "opponents": final["opponents"][i],
                # the rules' own round limit, reported for the record; not TimeLimit.truncated (module docstring)
                "truncated": bool(truncated[i]),
            }
            if self.num_players > 1:  # a win share; SB3 logs the mean of `is_success` as rollout/success_rate
                infos[i]["is_success"] = float(share[i, seat])


def collect_demonstrations(env: SelfPlayVecEnv, teacher: Any, n_steps: int, gamma: float,
                           seed: int = 0, progress: bool = False) -> dict[str, np.ndarray]:
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
    for t in tqdm(range(T), desc="imitation: teacher games", unit="step", unit_scale=B, disable=not progress):
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
