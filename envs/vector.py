"""A Gymnasium vector env over a batched rules core: `num_envs` games in one batch, seen from a learner seat.

    from meeple.envs.vector import BoardGameVectorEnv
    envs = BoardGameVectorEnv("hadara", num_envs=8, num_players=3, opponents="heuristic")
    obs, infos = envs.reset(seed=0)                        # (8, 2454) float32, infos["action_mask"] (8, 104)
    obs, rewards, terminated, truncated, infos = envs.step(actions)

`BoardGameVectorEnv` is a `gymnasium.vector.VectorEnv` (no Stable-Baselines3 import): CleanRL-style loops and
Gymnasium's vector wrappers use it directly, and `SelfPlayVecEnv` (envs/selfplay.py) adapts it to SB3's
`VecEnv`. The same env is what `gymnasium.make_vec("meeple/Hadara-v0", num_envs=8)` returns (see
envs/single_agent.py for the ids), with autoreset NEXT_STEP unless `autoreset_mode=` says otherwise.

Design decisions, and why:

- **One rules batch, not `num_envs` envs.** Row i is one game. Every transition is the learner's: the
  observation is the learner's encoded view (the game's encoder; only what that seat may see), and
  between two learner decisions the opponents play inside `step` until it is the learner's turn again,
  so every row is always at the learner's turn and every row of the mask has a legal action.
- **Seats.** By default row i's episode j seats the learner at (i + j) mod P, counted from the last full
  `reset`, so every seat (and start order) is played equally; `seat=k` fixes it, and
  `reset(options={"seat": ...})` sets the seats of the games started by that reset.
- **Opponents** come from a weighted pool of agents (`"random"`, `"heuristic"`, any `make_agent` spec or
  any object with `act(game, state, rng)`); each opponent seat of each episode draws one. An agent acts
  once per round of opponent moves on the sub-batch of rows it plays, and its actions are checked against
  the rules (an illegal opponent move raises RuntimeError naming the agent).
- **Autoreset: all three of Gymnasium's modes** (`autoreset_mode=`, kept in `metadata["autoreset_mode"]`).
  SAME_STEP (the default of `BoardGameVectorEnv(...)`): a finished row returns the first observation of
  its next episode at once, with the last one in `infos["final_obs"]` and the finished game's facts in
  `infos["final_info"]` (Gymnasium's SyncVectorEnv layout for that mode); a row is always at a live
  decision, so the action mask is always the legal moves of the position the observation shows, which
  masked policies (MaskablePPO, a masked CleanRL PPO) need, and no policy call is wasted; the opponents'
  first moves of a new game happen in that same step. NEXT_STEP (Gymnasium's default, and the default of
  `gymnasium.make_vec("meeple/<Game>-v0", ...)`, so Gymnasium's vector wrappers stack on it as on any
  `make_vec` env: `NormalizeObservation` accepts no other mode, `FlattenObservation` and the other
  observation wrappers refuse SAME_STEP): a finished row returns its last observation, and the next step
  starts its next game instead of playing: that row's action is ignored (its mask is all True: any
  action is taken, so a masked policy can still pick one), its reward is 0 and its
  observation is the new game's first. DISABLED keeps finished rows finished (their observation is the
  last one, their mask all False) until `reset(options={"reset_mask": rows})`; stepping before that
  raises. The single-agent env uses it. In every mode the finished game's facts are in
  `infos["final_info"]` at the step the game ends.
- **Termination.** `terminated` when the game ended by its rules, `truncated` when the rules cut it
  short (`state.truncated`, e.g. Attika's round cap). Either way the reward is the game's own end result
  (`game.returns`: ranked on the scores reached), so bootstrapping a value from `final_obs` on
  truncation adds an estimate of play that never happens; treat truncation as terminal if that matters
  (the SB3 adapter does).
- **Rewards** are the learner seat's `game.returns` when its game ends, 0 before (plus an optional
  potential-based `shaping` bonus on the score margin), float64 as in Gymnasium's own vector envs.
- **Action masks** (`num_envs`, A) bool are in `infos["action_mask"]` after every `reset` and `step` and
  from `action_masks()` (the name sb3-contrib's MaskablePPO looks for).
- **Episode statistics** of a finished row are in `infos["final_info"]["episode"]` = {"r", "l", "t"} arrays
  with `infos["final_info"]["_episode"]` marking the rows: the shape `RecordEpisodeStatistics` writes,
  but under `final_info`, so that wrapper can still be stacked on top (it refuses a top-level "episode"
  key it did not write). Next to it: "learner_seat", "scores" (P,), "returns" (P,), "winner" (-1 when the
  top is shared) and "opponents" (names per seat, "learner" at the learner's), each with its `_key` mask.
- **One row is one compiled call per move.** At `num_envs=1` (the single-agent env, `make_vec(..., num_envs=1)`)
  the learner's move and every opponent move are each one `StepObserve` call (apply, the automatic steps,
  the new mask and the mover's encoded observation, into buffers made once), as in the AEC env; with more
  rows each round of moves is one batched call instead. Both paths draw the same uniforms from the same
  streams, so a one-row env plays the same games either way (a test switches the fused path off and
  compares). Opponents from this package act on the env's own state (agents only read it); any other
  agent acts on a copy.
- **Bad input changes nothing.** Actions must be an integer array of shape (num_envs,), in range and legal
  in every row; anything else raises ValueError naming the rows, before any state or random stream moves.
- **Seeding.** `reset(seed=s)` restarts every stream (dice, opponent draws, each opponent's generator:
  separate streams of `SeedSequence(s)`), so the same seed and actions give the same games; `reset()`
  without a seed continues them. One batch has one seed: a list of per-env seeds is refused.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from meeple.envs.batch import StepObserve
from meeple.envs import make, make_encoder
from meeple.envs.window import Window

RESET_OPTIONS = ("reset_mask", "seat")
_READ_ONLY_AGENTS = "meeple.agents."  # modules whose agents never write into the state they act on


def make_opponent_pool(game_name: str, opponents: Any, num_players: int | None = None, **variant: Any) -> list[Any]:
    """Agents from `opponents`: None, an agent spec string (`meeple.agents.make_agent`: "random",
    "heuristic", "mcts:200", "ppo:<path>"), an agent object (`act(game, state, rng)`), or a sequence of those."""
    if opponents is None:
        return []
    items = [opponents] if isinstance(opponents, str) or hasattr(opponents, "act") else opponents
    if not isinstance(items, Sequence):
        raise ValueError(f"opponents must be an agent spec, an agent or a sequence of them, got {opponents!r}")
    pool = []
    for item in items:
        if isinstance(item, str):
            from meeple.agents import make_agent

            pool.append(make_agent(item, game_name, num_players, **variant))
        elif callable(getattr(item, "act", None)):
            pool.append(item)
        else:
            raise ValueError(f"opponent {item!r} is neither an agent spec string nor an agent with act(game, state, rng)")
    return pool


def make_vec_env(game_name: str, num_envs: int = 1, *,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, **kwargs: Any) -> BoardGameVectorEnv:
    """`gymnasium.make_vec("meeple/<Game>-v0", ...)`'s entry point: a `BoardGameVectorEnv` whose autoreset
    defaults to NEXT_STEP, Gymnasium's own default, so that Gymnasium's vector wrappers stack on it as on any
    `make_vec` env; `autoreset_mode=` chooses another (SAME_STEP for masked training loops)."""
    return BoardGameVectorEnv(game_name, num_envs, autoreset_mode=autoreset_mode, **kwargs)


def agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", type(agent).__name__))


class BoardGameVectorEnv(VectorEnv):
    """`num_envs` games of one game in one rules batch, seen from a learner seat; see the module docstring.

    Args:
        game_name: a key of `meeple.envs.GAMES`.
        num_envs: games in the batch.
        num_players: players per game (1 = solo: no opponents).
        opponents: the opponent pool (see `make_opponent_pool`); may be empty only when solo.
        opponent_weights: relative draw weights of the pool (default all 1).
        seat: None (rotate: row i's episode j plays seat (i + j) mod P) or a fixed seat.
        encoder: None (the game's default encoder), an encoder kind (`meeple.envs.encoder_kinds`) or an
            encoder object.
        shaping: coefficient of a potential-based bonus on the learner's score margin (its score minus the
            best other score; the score itself when solo); 0 (default) = the game's result only.
        autoreset_mode: AutoresetMode.SAME_STEP (default), NEXT_STEP or DISABLED (or their names:
            "SameStep", "NextStep", "Disabled"); see the module docstring.
        render_mode: None, "ansi" or, for games that draw a picture, "rgb_array" (`render()` gives one
            frame per row) or "human" (row 0's picture in a pygame window, drawn after every reset and step;
            `envs/window.py`).
        **variant: the game's variant flags, passed to `meeple.envs.make`.
    """

    def __init__(self, game_name: str, num_envs: int = 8, *, num_players: int = 2, opponents: Any = "random",
                 opponent_weights: Sequence[float] | None = None, seat: int | None = None, encoder: Any = None,
                 shaping: float = 0.0, autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
                 render_mode: str | None = None, **variant: Any) -> None:
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ValueError(f"autoreset_mode must be an AutoresetMode ({', '.join(m.name for m in AutoresetMode)}), "
                             f"got {autoreset_mode!r}") from None
        self.game_name = game_name
        self.game = make(game_name, num_players=num_players, **variant)
        self.num_players = P = self.game.num_players
        if isinstance(encoder, str) or encoder is None:
            encoder = make_encoder(game_name, self.game, encoder)
        self.encoder = encoder
        self.seat = int(self._check_seat(seat, 1, "seat")[0]) if seat is not None else None
        self.opponents: list[Any] = make_opponent_pool(game_name, opponents, P, **variant)
        if P > 1 and not self.opponents:
            raise ValueError("a game with opponents needs a non-empty opponent pool")
        weights = [1.0] * len(self.opponents) if opponent_weights is None else [float(w) for w in opponent_weights]
        if len(weights) != len(self.opponents):
            raise ValueError(f"{len(self.opponents)} opponents but {len(weights)} weights")
        self.opponent_weights = np.asarray(weights, dtype=np.float64)
        self.shaping = float(shaping)
        modes = self.game.render_modes()
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = {"autoreset_mode": mode, "render_modes": modes, "render_fps": 4}
        self._window = Window(f"{game_name} (meeple)", self.metadata["render_fps"]) if render_mode == "human" else None
        self.autoreset_mode = mode

        self.num_envs = n = int(num_envs)
        self.single_observation_space = self.encoder.space()
        self.single_action_space = gymnasium.spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)

        self._rows = np.arange(n)
        self.state: Any = None  # the batch of games, once reset
        self.learner_seat = np.zeros(n, dtype=np.int64)
        self.episode_count = np.zeros(n, dtype=np.int64)  # episodes started per row since the last full reset
        self.seat_opponent = np.full((n, P), -1, dtype=np.int64)  # pool index per seat, -1 = the learner
        self.ep_return = np.zeros(n, dtype=np.float64)
        self.ep_len = np.zeros(n, dtype=np.int64)
        self._ep_start = np.zeros(n, dtype=np.float64)
        self._finished = np.zeros(n, dtype=bool)  # DISABLED mode: rows waiting for a reset
        self._restart = np.zeros(n, dtype=bool)  # NEXT_STEP mode: rows whose next step starts a new game
        self._mask = np.zeros((n, self.game.num_actions), dtype=bool)  # the core's mask, rows at the learner's turn
        self._last_margin = np.zeros(n, dtype=np.float64)
        self._env_rng: np.random.Generator | None = None
        self._pool_rng: np.random.Generator | None = None
        self._agent_seq: np.random.SeedSequence | None = None
        self._agent_rngs: list[np.random.Generator] = []
        self.timing = {"opponent_s": 0.0, "opponent_calls": 0, "game_steps": 0}
        # One row (the single-agent env, `make_vec(..., num_envs=1)`): every move of a step is one compiled
        # call (`StepObserve`: apply, the automatic steps, the new mask and the mover's observation) into
        # buffers made once, instead of separate step, mask, observe and encode calls with their checks and
        # allocations; the same draws from the same streams, so the games are the same (tests/test_gym.py).
        # None for more rows, or an encoder without a fused kernel.
        step_observe = getattr(self.encoder, "step_observe", None)
        self._fused = StepObserve(self.game, self.encoder) \
            if n == 1 and step_observe is not None and step_observe() is not None else None

    # --- opponent pool -----------------------------------------------------------------------

    def add_opponent(self, agent: Any, weight: float = 1.0) -> int:
        """Add `agent` to the pool (drawn from the next episode on); returns its index."""
        self.opponents.append(agent)
        self.opponent_weights = np.append(self.opponent_weights, float(weight))
        if self._agent_seq is not None:
            self._agent_rngs.append(np.random.default_rng(self._agent_seq.spawn(1)[0]))
        return len(self.opponents) - 1

    def set_opponent_weight(self, index: int, weight: float) -> None:
        """Change an agent's draw weight; 0 retires it (rows already playing it finish their game)."""
        self.opponent_weights[index] = float(weight)

    @property
    def opponent_names(self) -> list[str]:
        return [agent_name(agent) for agent in self.opponents]

    # --- Gymnasium VectorEnv API -------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New games: in every row, or in the rows of `options["reset_mask"]` ((num_envs,) bool).

        `seed` restarts every random stream (see the module docstring); `options["seat"]` (a seat, or one
        per row) seats the learner in the games this reset starts. Returns the observations of all rows
        and infos with "action_mask" and "learner_seat".
        """
        reset_mask, seats = self._check_reset_args(seed, options)
        if seed is not None or self._env_rng is None:
            if seed is None:
                seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
            super().reset(seed=int(seed))
            self._reseed(int(seed))
        if reset_mask is None:
            n = self.num_envs
            self.state = self.game.init(self._env_rng, n)
            self.episode_count[:] = -1
            self.seat_opponent[:] = -1
            self._finished[:] = False
            self._restart[:] = False
            rows = self._rows
        else:
            rows = np.flatnonzero(reset_mask)
            self._finished[rows] = False
            self._restart[rows] = False
        self._new_episodes(rows, None if seats is None else seats[rows])
        self._mask = self.game.legal_action_mask(self.state)
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._step_infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's actions, then the opponents until the learner's turn; finished rows autoreset
        (SAME_STEP: in this step; NEXT_STEP: in the next one, ignoring its action) or wait for a reset
        (DISABLED)."""
        if self.state is None:
            raise RuntimeError("reset() must be called before step()")
        if self._finished.any():
            raise RuntimeError(f"rows {np.flatnonzero(self._finished)[:10].tolist()} have finished (autoreset is "
                               "DISABLED): reset them with reset(options={'reset_mask': ...}) before stepping")
        game, state, fused = self.game, self.state, self._fused
        restart = self._restart.copy()  # NEXT_STEP: finished games, still on the table (done, all-True mask)
        any_restart = bool(restart.any())
        if any_restart:
            # checked like any step (range, dtype, shape; a finished row's all-True mask takes any action in
            # range); the finished rows stay as they are, since the rules leave done rows unchanged
            checked = self._check_actions(actions)
            if not restart.all():
                game._step_owned(state, checked, None, self._env_rng, self._mask)  # (its own mask)
        elif fused is not None:
            fused(state, self._one_action(actions), self._env_rng)
        else:
            game._step_owned(state, self._check_actions(actions), None, self._env_rng, self._mask)  # (its own mask)
        self.ep_len += ~restart
        self.timing["game_steps"] += self.num_envs - int(restart.sum())
        self._play_opponents()
        if any_restart:
            self._restart[:] = False
            self._new_episodes(np.flatnonzero(restart), None)

        done = state.done.copy()
        truncated = done & state.truncated
        terminated = done & ~truncated
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        any_done = bool(done.any())
        if any_done:
            returns = game.returns(state)
            rewards[done] = returns[done, self.learner_seat[done]]
        if self.shaping:
            margin = self._margin()
            rewards += self.shaping * (margin - self._last_margin)
            self._last_margin = margin
        self.ep_return += rewards
        if fused is not None and not any_done and not any_restart and fused.viewer[0] == self.learner_seat[0]:
            obs = fused.obs.copy()  # the learner is to move, and the last fused call observed it
        else:
            obs = self._observe()
        infos: dict[str, Any] = {}
        if any_done:
            finished = np.flatnonzero(done)
            final_info = self._final_info(done, returns)
            if self.autoreset_mode is AutoresetMode.SAME_STEP:
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in finished:
                    final_obs[i] = obs[i].copy()
                infos.update(final_obs=final_obs, _final_obs=done.copy(), final_info=final_info, _final_info=done.copy())
                self._new_episodes(finished, None)
                obs[finished] = self._observe()[finished]
            else:
                infos.update(final_info=final_info, _final_info=done.copy())
                if self.autoreset_mode is AutoresetMode.NEXT_STEP:
                    self._restart |= done
                else:
                    self._finished |= done
        fresh = fused is not None and not any_done and not any_restart
        self._mask = fused.mask.copy() if fresh else game.legal_action_mask(state)
        infos.update(self._step_infos())
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool legal actions of the learner in every row (all False in a finished row
        waiting for its reset, all True in a finished row whose next step starts its next game: NEXT_STEP
        ignores that action)."""
        mask = self._mask.copy()
        mask[self._finished] = False
        mask[self._restart] = True
        return mask

    def render(self) -> tuple[Any, ...] | None:
        """One frame per row: text for "ansi", an (H, W, 3) uint8 array for "rgb_array"; "human" draws
        row 0's picture in the window and returns None."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        if self.state is None:
            return None
        if self.render_mode == "human":
            self._window.show(self.game.render_rgb(self.state, 0))
            return None
        draw = self.game.render_rgb if self.render_mode == "rgb_array" else self.game.render_text
        return tuple(draw(self.state, i) for i in range(self.num_envs))

    def close_extras(self, **kwargs: Any) -> None:
        """Closes the window of render_mode "human"."""
        window = getattr(self, "_window", None)  # VectorEnv.__del__ closes an env whose __init__ raised, too
        if window is not None:
            window.close()

    # --- checks ------------------------------------------------------------------------------

    def _check_seat(self, seat: Any, count: int, what: str) -> np.ndarray:
        """(count,) int64 seats from one seat or `count` seats, or ValueError."""
        P = self.game.num_players
        raw = np.asarray(seat)
        if raw.dtype.kind not in "iu" or raw.ndim > 1 or (raw.ndim == 1 and raw.shape[0] != count):
            raise ValueError(f"{what} must be a seat 0..{P - 1} or {count} of them, got {seat!r}")
        if raw.size and (raw.min() < 0 or raw.max() >= P):
            raise ValueError(f"{what} must be a seat 0..{P - 1}, got {seat!r}")
        return np.broadcast_to(raw.astype(np.int64), (count,)).copy()

    def _check_reset_args(self, seed: Any, options: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
        if seed is not None and (not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0):
            raise ValueError(f"seed must be None or a non-negative integer (one seed for the whole batch), got {seed!r}")
        if options is None:
            return None, None
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset options {unknown}; this env takes {list(RESET_OPTIONS)}")
        reset_mask = options.get("reset_mask")
        if reset_mask is not None:
            if not isinstance(reset_mask, np.ndarray) or reset_mask.dtype != np.bool_ or reset_mask.shape != (self.num_envs,):
                raise ValueError(f"options['reset_mask'] must be a ({self.num_envs},) bool array, got "
                                 f"{getattr(reset_mask, 'shape', None)} {getattr(reset_mask, 'dtype', type(reset_mask).__name__)}")
            if not reset_mask.any():
                raise ValueError("options['reset_mask'] must select at least one row")
            if self.state is None:
                raise ValueError("options['reset_mask'] needs a first full reset()")
        seats = options.get("seat")
        if seats is not None:
            seats = self._check_seat(seats, self.num_envs, "options['seat']")
        return reset_mask, seats

    def _one_action(self, actions: Any) -> int:
        """The one row's legal action as an int: the checks of `_check_actions` in a few reads for the
        common input (an integer array of one legal action); anything else goes through them in full."""
        if type(actions) is np.ndarray and actions.shape == (1,) and actions.dtype.kind in "iu":
            action = int(actions[0])
            if 0 <= action < self.game.num_actions and self._mask[0, action]:
                return action
        return int(self._check_actions(actions)[0])

    def _check_actions(self, actions: Any) -> np.ndarray:
        """(num_envs,) int64 legal actions, or ValueError naming the problem (nothing has changed yet)."""
        n, A = self.num_envs, self.game.num_actions
        try:
            raw = np.asarray(actions)
        except (TypeError, ValueError):
            raise ValueError(f"actions must be an integer array of shape ({n},), got {type(actions).__name__}") from None
        if raw.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {raw.dtype}")
        if raw.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), got {raw.shape}")
        out = raw.astype(np.int64)
        outside = (out < 0) | (out >= A)
        if outside.any():
            bad = np.flatnonzero(outside)
            raise ValueError(f"actions must be 0..{A - 1}; rows {bad[:5].tolist()} have {out[bad[:5]].tolist()}")
        illegal = ~self._mask[self._rows, out]
        if illegal.any():
            bad = np.flatnonzero(illegal)
            detail = "; ".join(f"row {b}: action {int(out[b])} ({self.game.action_names[int(out[b])]}: "
                               f"{self.game.action_to_str(self.state, int(out[b]), int(b))}), "
                               f"legal {np.flatnonzero(self._mask[b]).tolist()[:20]}" for b in bad[:3])
            raise ValueError(f"illegal learner actions in {len(bad)} row(s): {detail}")
        return out

    # --- internals ---------------------------------------------------------------------------

    def _reseed(self, seed: int) -> None:
        env_seq, pool_seq, self._agent_seq = np.random.SeedSequence(seed).spawn(3)
        self._env_rng = np.random.default_rng(env_seq)
        self._pool_rng = np.random.default_rng(pool_seq)
        self._agent_rngs = [np.random.default_rng(s) for s in self._agent_seq.spawn(len(self.opponents))]

    def _observe(self) -> np.ndarray:
        return self.encoder.encode(self.game.observe(self.state, self.learner_seat))

    def _step_infos(self) -> dict[str, Any]:
        live = ~self._finished  # a NEXT_STEP row about to restart takes any action: its all-True mask is valid
        return {"action_mask": self.action_masks(), "_action_mask": live,
                "learner_seat": self.learner_seat.copy(), "_learner_seat": live.copy()}

    def _margin(self) -> np.ndarray:
        """(num_envs,) learner score minus the best other score (the score itself when solo)."""
        scores = self.game.scores(self.state).astype(np.float64)
        mine = scores[self._rows, self.learner_seat]
        if self.num_players == 1:
            return mine
        scores[self._rows, self.learner_seat] = -np.inf
        return mine - scores.max(axis=1)

    def _final_info(self, done: np.ndarray, returns: np.ndarray) -> dict[str, Any]:
        """The finished games' facts, as arrays over all rows with `_key` masks (Gymnasium's vector info layout)."""
        n = self.num_envs
        scores = self.game.scores(self.state)
        top = returns == returns.max(axis=1, keepdims=True)
        winner = np.where(top.sum(axis=1) == 1, returns.argmax(axis=1), -1)
        now = time.perf_counter()
        names = self.opponent_names
        opponents = np.full(n, None, dtype=object)
        for i in np.flatnonzero(done):
            opponents[i] = ["learner" if k < 0 else names[k] for k in self.seat_opponent[i]]
        zero = ~done
        return {
            "episode": {"r": np.where(done, self.ep_return, 0.0), "l": np.where(done, self.ep_len, 0),
                        "t": np.where(done, np.round(now - self._ep_start, 6), 0.0)},
            "_episode": done.copy(),
            "learner_seat": np.where(done, self.learner_seat, 0), "_learner_seat": done.copy(),
            "scores": np.where(zero[:, None], 0, scores), "_scores": done.copy(),
            "returns": np.where(zero[:, None], np.float32(0), returns), "_returns": done.copy(),
            "winner": np.where(done, winner, 0), "_winner": done.copy(),
            "opponents": opponents, "_opponents": done.copy(),
        }

    def _new_episodes(self, rows: np.ndarray, seats: np.ndarray | None) -> None:
        """Fresh games in `rows`: the learner's seat, new opponents, opponents play to the learner's turn."""
        started = rows
        for _ in range(100):
            fresh = self.game.init(self._env_rng, len(rows))
            for dst, src in zip(self.state, fresh):
                dst[rows] = src
            if self._fused is not None:
                self._fused.forget()  # a mask of a finished game must not pass for the new one
            self.episode_count[rows] += 1
            if seats is not None:
                self.learner_seat[rows] = seats
            elif self.seat is not None:
                self.learner_seat[rows] = self.seat
            else:
                self.learner_seat[rows] = (rows + self.episode_count[rows]) % self.num_players
            if self.num_players > 1:
                total = self.opponent_weights.sum()
                if not total > 0 or (self.opponent_weights < 0).any():
                    raise ValueError(f"opponent weights must be >= 0 with a positive sum, got {self.opponent_weights}")
                draws = self._pool_rng.choice(len(self.opponents), size=(len(rows), self.num_players),
                                              p=self.opponent_weights / total)
                draws[np.arange(len(rows)), self.learner_seat[rows]] = -1
                self.seat_opponent[rows] = draws
            self.ep_return[rows] = 0.0
            self.ep_len[rows] = 0
            self._ep_start[rows] = time.perf_counter()
            self._play_opponents()
            again = self.state.done[rows]  # a game over before the learner moved: deal again
            rows = rows[again]
            if seats is not None:
                seats = seats[again]
            if not len(rows):
                break
        else:
            raise RuntimeError("games keep ending before the learner's first decision")
        if self.shaping:
            self._last_margin[started] = self._margin()[started]

    def _play_opponents(self) -> None:
        """Opponent moves in every row that is not done and not at the learner's turn, until none is.

        Each involved agent acts once per iteration, on the sub-batch of the rows it plays: a turn
        of one row can take ~20 opponent decisions while the others wait, so an iteration has few
        pending rows, and acting on the whole batch was 1.7x slower with the heuristic in the pool.
        Rows waiting for the learner are frozen by marking them done for the duration of the step
        instead of copying a sub-batch: the rules protocol leaves done rows unchanged.
        """
        t0 = time.perf_counter()
        if self._fused is not None:
            self._play_opponents_one_row()
            self.timing["opponent_s"] += time.perf_counter() - t0
            return
        game, state, rows = self.game, self.state, self._rows
        while True:
            pending = ~state.done & (state.to_play != self.learner_seat)
            if not pending.any():
                break
            owner = np.where(pending, self.seat_opponent[rows, state.to_play], -1)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for k in np.unique(owner[pending]):
                mine = np.flatnonzero(owner == k)
                lo, hi = int(mine[0]), int(mine[-1]) + 1
                if hi - lo == len(mine):  # consecutive rows (all of them at one env): slices, copied
                    sub = type(state)._make([field[lo:hi].copy() for field in state])  # core.take, minus the checks
                else:
                    sub = type(state)._make([field[mine] for field in state])
                actions[mine] = self.opponents[k].act(game, sub, self._agent_rngs[k])
                self.timing["opponent_calls"] += 1
            # one mask serves this check and the step's own legality check
            mask = game.legal_action_mask(state)
            legal = mask[rows, np.clip(actions, 0, game.num_actions - 1)]
            bad = pending & ((actions < 0) | (actions >= game.num_actions) | ~legal)
            if bad.any():
                b = int(np.flatnonzero(bad)[0])
                raise RuntimeError(f"opponent {agent_name(self.opponents[owner[b]])!r} chose illegal action {actions[b]} in row {b}")
            waiting = ~pending & ~state.done
            mask[waiting] = True  # frozen rows (marked done below) take any action and stay as they are
            state.done[waiting] = True
            try:
                game._step_owned(state, actions, None, self._env_rng, mask)  # (the mask computed just above)
            finally:
                state.done[waiting] = False
            self.timing["game_steps"] += int(pending.sum())
        self.timing["opponent_s"] += time.perf_counter() - t0

    def _play_opponents_one_row(self) -> None:
        """`_play_opponents` at one row: each opponent move is one `StepObserve` call, and its action is
        checked like any other (the fused call refuses an illegal one and changes nothing).

        The agents of this package only read the state they are shown (the agent protocol), so they get the
        env's own: copying ~50 fields and checking the copy in full were a quarter of a learner step. Any
        other agent gets a copy, so that a bug in it cannot write into a state the core checked once and
        trusts from then on."""
        game, state, fused = self.game, self.state, self._fused
        learner = self.learner_seat[0]
        done, to_play = state.done, state.to_play
        while not done[0] and to_play[0] != learner:
            k = self.seat_opponent[0, to_play[0]]
            agent = self.opponents[k]
            shown = state if type(agent).__module__.startswith(_READ_ONLY_AGENTS) else type(state)._make([f.copy() for f in state])
            action = np.asarray(agent.act(game, shown, self._agent_rngs[k]))
            self.timing["opponent_calls"] += 1
            if action.shape != (1,) or action.dtype.kind not in "iu":
                raise RuntimeError(f"opponent {agent_name(agent)!r} returned {action!r}, not one integer action per row")
            try:
                fused(state, int(action[0]), self._env_rng)
            except ValueError:
                raise RuntimeError(f"opponent {agent_name(agent)!r} chose illegal action {int(action[0])} in row 0") from None
            self.timing["game_steps"] += 1
