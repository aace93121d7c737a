"""Single-agent Gymnasium envs: one learner seat against opponents, registered as `meeple/<Game>-v0`.

    import gymnasium
    import meeple.envs                      # registers the ids below
    env = gymnasium.make("meeple/Hadara-v0", num_players=3, opponents="heuristic")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample(mask=info["action_mask"]))

Ids: meeple/RollThroughTheAges-v0, meeple/Hadara-v0, meeple/CarpeDiem-v0, meeple/Attika-v0, meeple/Utopia-v0
(`GYMNASIUM_IDS`). `gymnasium.make_vec(id, num_envs=n)` gives the batched `BoardGameVectorEnv` of the same
game (its `vector_entry_point`, `meeple.envs.vector.make_vec_env`: autoreset NEXT_STEP, Gymnasium's default,
unless `autoreset_mode=` says otherwise), which is what to train on: one rules batch instead of n envs.

`BoardGameEnv` is that vector env at one row with autoreset DISABLED, so the two agree on everything
(observations, opponents, rewards, termination) and the single env only adds what a single env needs.
Design decisions, and why:

- **Observation: the learner's encoded view as a Box**, the mask in `info["action_mask"]` (int8, A) after
  every `reset` and `step` and from `action_masks()` (bool; the method sb3-contrib's MaskablePPO calls).
  A flat Box is what MLP policies, CleanRL's scripts and MaskablePPO's "MlpPolicy" take unchanged, and
  the int8 mask is the form `action_space.sample(mask=...)` takes. `mask_in_observation=True` gives
  instead a Dict {"observation": Box, "action_mask": Box(0, 1, (A,), int8)}, the PettingZoo layout, for
  tools that read the mask from the observation.
- **Seat** (`seat=None`, the default): the learner's seat rotates by episode, starting from a seat drawn
  at every seeded reset: playing on without reseeding visits every seat equally, and reseeding every
  episode (`reset(seed=episode)`) still spreads the seats instead of always giving seat 0, while a seeded
  reset stays reproducible. `seat=k` fixes it; `reset(options={"seat": k})` sets it for one episode. The
  seat is in the reset info ("learner_seat").
- **Illegal actions.** Gymnasium's contract, which `check_env` tests, is that `step` accepts every element
  of `action_space`: its step-determinism check samples an action without a mask, *before* a seeded reset,
  and plays it after, so an env that raises on a masked-out action fails it whenever that action is illegal
  in the new position. So by default (`illegal_action="terminate"`) a masked-out action ends the episode as
  a loss: reward -1, `terminated=True`, `truncated=False` (never both), `info["illegal_action"]`, a warning,
  and the game state untouched. `illegal_action="raise"` raises ValueError instead and changes nothing:
  the choice for masked learners, where an illegal action can only be a bug. Actions outside the action
  space (not an integer, out of range) always raise.
- **Termination and rewards** as in the vector env: `terminated` when the game ends by its rules,
  `truncated` when the rules cut it short, the reward the learner's `game.returns` at the end and 0
  before. The final info holds "scores", "returns", "winner" and "opponents". Wrap in
  `gymnasium.wrappers.RecordEpisodeStatistics` for "episode" statistics.
- **Rendering**: render_mode "ansi" (the game's text view of the whole table) for every game, and
  "rgb_array" (the picture, public information only) and "human" (that picture in a pygame window, drawn
  after every reset and step) for games that draw one; `metadata["render_modes"]` lists the game's own.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from meeple.envs import GAMES
from meeple.envs.vector import BoardGameVectorEnv

GYMNASIUM_IDS: dict[str, str] = {
    name: "meeple/" + "".join(part.title() for part in name.split("_")) + "-v0" for name in GAMES
}
ILLEGAL_ACTION_MODES = ("terminate", "raise")
ILLEGAL_ACTION_REWARD = -1.0


class BoardGameEnv(gymnasium.Env):
    """One learner seat of a registered game against opponents; see the module docstring.

    Args:
        game_name: a key of `meeple.envs.GAMES`.
        num_players: players per game (1 = solo).
        opponents: "random" (default), "heuristic", any `meeple.agents.make_agent` spec, an agent object
            (`act(game, state, rng)`), or a sequence of those: a pool each opponent seat draws from per episode.
        seat: None (rotating, see the module docstring) or a fixed seat.
        illegal_action: "terminate" (default: the episode ends with reward -1) or "raise" (ValueError).
        mask_in_observation: observe a Dict {"observation", "action_mask"} instead of the Box.
        encoder: None (the game's default encoder), an encoder kind or an encoder object.
        render_mode: None, "ansi" or (games with a picture) "rgb_array" or "human".
        **variant: the game's variant flags, passed to `meeple.envs.make`.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(self, game_name: str, *, num_players: int = 2, opponents: Any = "random", seat: int | None = None,
                 illegal_action: str = "terminate", mask_in_observation: bool = False, encoder: Any = None,
                 render_mode: str | None = None, **variant: Any) -> None:
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTION_MODES)}, got {illegal_action!r}")
        self.vector = BoardGameVectorEnv(game_name, 1, num_players=num_players, opponents=opponents, encoder=encoder,
                                         autoreset_mode=AutoresetMode.DISABLED, render_mode=render_mode, **variant)
        self.game_name = game_name
        self.game = self.vector.game
        self.num_players = self.game.num_players
        self.seat = None if seat is None else int(self.vector._check_seat(seat, 1, "seat")[0])
        self.illegal_action = illegal_action
        self.mask_in_observation = bool(mask_in_observation)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "render_modes": self.game.render_modes()}
        A = self.game.num_actions
        self.action_space = gymnasium.spaces.Discrete(A)
        box = self.vector.single_observation_space
        self.observation_space = (gymnasium.spaces.Dict({"observation": box,
                                                         "action_mask": gymnasium.spaces.Box(0, 1, (A,), np.int8)})
                                  if self.mask_in_observation else box)
        self._seat_start = 0
        self._episodes = 0  # episodes since the last seeded reset
        self._seeded = False
        self._over = True  # no episode in progress: step() needs a reset() first
        self._mask = np.zeros(A, dtype=bool)
        self._obs: np.ndarray | None = None

    # --- Gymnasium Env API -------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """A new game with the learner at its seat; `options={"seat": k}` seats it at k for this episode."""
        options = dict(options or {})
        forced = options.pop("seat", None)
        if options:
            raise ValueError(f"unknown reset options {sorted(options)}; this env takes ['seat']")
        if forced is not None:
            forced = int(self.vector._check_seat(forced, 1, "options['seat']")[0])
        super().reset(seed=seed)
        vector_seed = None
        if seed is not None or not self._seeded:
            # the game's streams restart from the seed (a fresh one if none was given), the seat rotation
            # from a seat drawn from it
            vector_seed = seed if seed is not None else int(self.np_random.integers(2**62))
            self._seat_start = int(self.np_random.integers(self.num_players))
            self._episodes = 0
            self._seeded = True
        if forced is not None:
            seat = forced
        elif self.seat is not None:
            seat = self.seat
        else:
            seat = (self._seat_start + self._episodes) % self.num_players
        self._episodes += 1
        obs, infos = self.vector.reset(seed=vector_seed, options={"seat": seat})
        self._over = False
        self._remember(obs[0], infos["action_mask"][0])
        return self._observation(), {"action_mask": self._mask.astype(np.int8), "learner_seat": seat}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("no episode in progress: call reset() first (also after the episode ended)")
        index = _action_index(action)
        A = self.game.num_actions
        if index is None or not 0 <= index < A:
            raise ValueError(f"action {action!r} is not an integer in Discrete({A}); legal: {self.legal_actions()[:20]}")
        if not self._mask[index]:
            move = f"{self.game.action_names[index]}: {self.game.action_to_str(self.vector.state, index)}"
            if self.illegal_action == "raise":
                raise ValueError(f"illegal action {index} ({move}) at seat {int(self.vector.learner_seat[0])}; "
                                 f"legal: {self.legal_actions()[:20]}")
            gymnasium.logger.warn(f"illegal action {index} ({move}): the episode ends as a loss (illegal_action='terminate')")
            self._over = True
            self._mask = np.zeros(A, dtype=bool)
            return (self._observation(), ILLEGAL_ACTION_REWARD, True, False,
                    {"action_mask": self._mask.astype(np.int8), "illegal_action": index})
        obs, rewards, terminated, truncated, infos = self.vector.step(np.array([index], dtype=np.int64))
        self._remember(obs[0], infos["action_mask"][0])
        info: dict[str, Any] = {"action_mask": self._mask.astype(np.int8)}
        if terminated[0] or truncated[0]:
            self._over = True
            final = infos["final_info"]
            info.update(scores=final["scores"][0].tolist(), returns=final["returns"][0].tolist(),
                        winner=int(final["winner"][0]), opponents=list(final["opponents"][0]))
        return self._observation(), float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info

    def render(self) -> str | np.ndarray | None:
        """render_mode "ansi": the game's text view; "rgb_array" (games with a picture): an (H, W, 3) uint8 array;
        "human": draws that picture in the window (as every reset and step do) and returns None."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        if self.vector.state is None:
            return "(call reset() first)" if self.render_mode == "ansi" else None
        if self.render_mode == "human":  # the vector env's window shows its row 0, this env's game
            return self.vector.render()
        return self.vector.render()[0]

    def close(self) -> None:
        """Closes the window of render_mode "human"."""
        self.vector.close()

    # --- masks and helpers -------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """(A,) bool legal actions of the learner (all False once the episode is over)."""
        return self._mask.copy()

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._mask).tolist()

    def _remember(self, obs: np.ndarray, mask: np.ndarray) -> None:
        self._obs, self._mask = obs, mask.copy()

    def _observation(self) -> Any:
        """A fresh copy every call: callers keep what they are given."""
        if self.mask_in_observation:
            return {"observation": self._obs.copy(), "action_mask": self._mask.astype(np.int8)}
        return self._obs.copy()


def _action_index(action: Any) -> int | None:
    """The action as a Python int if it is an integer (a Python or numpy integer, or a one-element integer
    array); None for anything else: floats, strings and bools are refused rather than converted."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        return int(action.reshape(-1)[0])
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    return None


def register_gymnasium_envs() -> None:
    """Register `GYMNASIUM_IDS` with Gymnasium (once; `gymnasium.make` then builds a `BoardGameEnv`, and
    `gymnasium.make_vec` a `BoardGameVectorEnv`)."""
    for name, env_id in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="meeple.envs.single_agent:BoardGameEnv",
                               vector_entry_point="meeple.envs.vector:make_vec_env", kwargs={"game_name": name})
