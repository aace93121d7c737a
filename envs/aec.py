"""One generic PettingZoo AEC environment over any batched rules core, at batch size one.

`BoardGameAEC` runs a game's rules core with B = 1 and a numpy Generator seeded in `reset(seed=…)`.
`agent_selection` follows the core's `to_play` (not round-robin), observations come from the
game's encoder for the observing seat (its default, or the kind named by `encoder=`, e.g. Carpe Diem's
"compact" / "full": `meeple.envs.encoder_kinds(game_name)`), and rewards are the core's `returns` at the end.
Render modes: "ansi" (`game.render_text`) for every game, "rgb_array" (`game.render_rgb`, an
(H, W, 3) uint8 array) and "human" (that picture in a pygame window, drawn after every reset and step;
`envs/window.py`) for games with a picture module (`game.render_modes()`). The picture is the
spectator's view: public information only.

Each game has a PettingZoo-style module `meeple.envs.<game>_v0` with `env()` and `raw_env()`, made by
`env_functions`:

    from meeple.envs import hadara_v0
    e = hadara_v0.env(num_players=4)

Illegal actions — two conventions, chosen by `illegal_action`:

- ``"raise"`` (what `raw_env()` gives): an action that is out of range or masked out raises
  `IllegalActionError`, naming the legal actions; the game state is left unchanged.
- ``"terminate"`` (what `env()` gives, PettingZoo classic's convention): the offender gets
  reward -1, every other agent 0, and all agents are terminated and truncated. Out-of-range
  actions and stepping before `reset` raise, as PettingZoo's AssertOutOfBounds and
  OrderEnforcing wrappers do. These checks are built in rather than stacked as three wrappers,
  which would cost ~60 µs per step.

Global state for centralised critics (MAPPO-style): `env.state()` is PettingZoo's global state, the **joint
observation**: every seat's encoded observation (what `observe(agent)["observation"]` gives that seat),
seat 0 first, concatenated into one float32 vector of shape `env.state_space.shape` = (P * D,). It holds
everything any player may see, each player's hidden hand included, and nothing that no player may see
(the order of a deck, dice not yet rolled), so a critic trained on it learns values a player could reach
with the others' cards in view, never from the future. The rules state itself (the core's one-row
struct of arrays) is `env.game_state`; it was `env.state` before, a name that hid PettingZoo's
`state()` method.

Reset options: `reset(options={"state": saved})` loads a position; any other key, or options that are
not a dict, raise ValueError (as the Gymnasium envs do), with one exception: the key "options", which
PettingZoo's own `api_test` and `parallel_api_test` send (`options={"options": 1}`) to check that `reset`
takes the argument, is accepted and ignored.

OpenSpiel-style hooks: `env.history` lists the actions taken since the last reset (decisions only; the
chance outcomes of each step come from the env's Generator, `reset(seed=…)`, and each game's page in
docs/ says which uniforms decide what); `env.string_to_action(text)` inverts `env.action_to_str`;
`env.state_dict()` saves the position as JSON-ready data and `env.reset(options={"state": saved})` loads
one (validated like every saved state; a loaded position starts a new history).

Speed: `step` is one compiled call (`envs.batch.StepObserve`: apply, the automatic steps, the new
mask and the next seat's observation), and `observe` of that seat copies the encoded row out.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from meeple.envs.batch import StepObserve
from meeple.envs import make, make_encoder
from meeple.envs.core import parse_state_json
from meeple.envs.window import Window


RESET_OPTIONS = ("state",)
PETTINGZOO_PROBE = "options"  # the key pettingzoo.test's api_test passes to check that reset takes options


class IllegalActionError(ValueError):
    """An action outside the action space or masked out in the current state."""


class BoardGameAEC(AECEnv, EzPickle):
    """PettingZoo AEC env for a registered game; see the module docstring for illegal actions."""

    metadata = {"render_modes": ["ansi"], "name": "board_game_v0", "is_parallelizable": False, "render_fps": 4}

    def __init__(
        self,
        game_name: str,
        num_players: int = 2,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        encoder: str | None = None,
        **variant: Any,
    ) -> None:
        EzPickle.__init__(self, game_name, num_players, render_mode, illegal_action, encoder, **variant)
        super().__init__()
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")
        self.game = make(game_name, num_players=num_players, **variant)
        modes = self.game.render_modes() if hasattr(self.game, "render_modes") else ["ansi"]
        self.metadata = {**self.metadata, "name": f"{game_name}_v0", "render_modes": modes}
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.encoder = make_encoder(game_name, self.game, encoder)
        self.render_mode = render_mode
        self._window = Window(f"{game_name} (meeple)", self.metadata["render_fps"]) if render_mode == "human" else None
        self.illegal_action = illegal_action
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        num_actions = self.game.num_actions
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": self.encoder.space(),
                "action_mask": gymnasium.spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(num_actions) for a in self.possible_agents}
        self.game_state: Any = None  # the rules core's state of the one game (B = 1), once reset
        single = self.encoder.space()
        P = self.game.num_players
        self.state_space = gymnasium.spaces.Box(np.tile(single.low, P), np.tile(single.high, P), dtype=single.dtype)
        self._mask: np.ndarray | None = None
        self._rng = np.random.default_rng()
        # one compiled call per step (apply, mask, the next seat's observation) into buffers made once;
        # None for an encoder without a fused kernel (then the separate calls run)
        self._fused = StepObserve(self.game, self.encoder) if self.encoder.step_observe() is not None else None
        self._fused_seat = -1  # the seat whose observation _fused.obs holds for this position, or -1
        self.history: list[int] = []  # actions taken since the last reset

    def __deepcopy__(self, memo: dict) -> BoardGameAEC:
        """A copy that continues from the same position with the same random stream. (EzPickle alone would
        rebuild an un-reset env.) The rules core and encoder are shared: they hold configuration and
        scratch memory only, no game state."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key == "_window" and value is not None:  # a window of its own, opened if the copy is drawn
                new.__dict__[key] = Window(value.title, value.fps)
            elif key == "_fused" and value is not None:  # its own buffers (filled below)
                new.__dict__[key] = StepObserve(self.game, self.encoder)
            else:
                new.__dict__[key] = value if key in ("game", "encoder") else copy.deepcopy(value, memo)
        if self._fused is not None:  # the same position, in the copy's own state
            new._fused.copy_from(self._fused, new.game_state)
            if self._mask is not None and np.shares_memory(self._mask, self._fused.mask):
                new._mask = new._fused.mask[0]  # the mask is a row of the step buffer, as in the original
        return new

    # --- PettingZoo API -------------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game, or with `options={"state": saved}` the position of a saved state: the dict from
        `state_dict()` / `game.to_dict` (or its JSON text), checked like every load (shape, ranges, the
        game's consistency rules; never unpickled). `seed` seeds the dice of the steps that follow."""
        saved = self._saved_state(options)
        if seed is not None or self.game_state is None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.init(self._rng, 1) if saved is None else saved
        self.history = []
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._refresh()
        if self.game_state.done[0]:  # a saved position may be a finished game
            self._finish()
        if self.render_mode == "human":
            self.render()

    def _saved_state(self, options: dict | None) -> Any:
        """The validated one-game state of `options["state"]`, or None; ValueError for options that are not
        a dict or hold a key other than "state" (and "options", PettingZoo's API-test probe, ignored)."""
        if options is None:
            return None
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict (or None), got {type(options).__name__}")
        unknown = sorted(map(repr, set(options) - set(RESET_OPTIONS) - {PETTINGZOO_PROBE}))
        if unknown:
            raise ValueError(f"unknown reset options {', '.join(unknown)}; this env takes {list(RESET_OPTIONS)}")
        if "state" not in options:
            return None
        payload = options["state"]
        if isinstance(payload, (str, bytes)):
            payload = parse_state_json(payload)
        state = self.game.from_dict(payload)
        if state.done.shape[0] != 1:
            raise ValueError(f"the AEC env plays one game; the saved state holds {state.done.shape[0]}")
        return state

    def state(self) -> np.ndarray:
        """PettingZoo's global state: the joint observation, every seat's encoded observation concatenated,
        seat 0 first ((P * D,) float32, in `state_space`; the module docstring says what it holds)."""
        if self.game_state is None:
            raise RuntimeError("reset() must be called before state()")
        return np.concatenate([self.encoder.encode(self.game.observe(self.game_state, seat))[0]
                               for seat in range(self.game.num_players)])

    def state_dict(self) -> dict:
        """The current position as a JSON-ready dict (`reset(options={"state": ...})` loads it back)."""
        if self.game_state is None:
            raise RuntimeError("reset() must be called before state_dict()")
        return self.game.to_dict(self.game_state)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game_state is None:
            raise RuntimeError("reset() must be called before observe()")
        seat = self.agent_name_mapping[agent]
        if seat == self._fused_seat:  # the step's fused call encoded this seat's view already
            observation = self._fused.obs[0].copy()
        else:
            observation = self.encoder.encode(self.game.observe(self.game_state, seat))[0]
        if self._mask is not None and self.possible_agents[int(self.game_state.to_play[0])] == agent:
            mask = self._mask.astype(np.int8)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int | np.integer | None) -> None:
        if self.game_state is None:
            raise RuntimeError("reset() must be called before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = _action_index(action)
        if index is None or not 0 <= index < self.game.num_actions:
            raise IllegalActionError(
                f"action {action!r} is not an integer or is outside Discrete({self.game.num_actions}); "
                f"legal: {self.legal_actions_text()}"
            )
        action = index
        if not self._mask[action]:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"{agent} may not play {action} ({self._move_text(action)}) now; "
                    f"legal: {self.legal_actions_text()}"
                )
            self._terminate_illegal(agent)
            return
        self._cumulative_rewards[agent] = 0.0
        self.history.append(action)
        if self._fused is not None:  # (it checks the state and the action once more, on the state's own mask)
            self._fused(self.game_state, action, self._rng)
            self._refresh(self._fused.mask[0])
            self._fused_seat = int(self._fused.viewer[0])
        else:
            self.game.step_inplace(self.game_state, np.array([action]), self._rng)  # (checked again there)
            self._refresh()
        if self.game_state.done[0]:
            self._finish()
            self._accumulate_rewards()
        # (an unfinished game's rewards are all 0, so there is nothing to accumulate before the end)
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """render_mode "ansi": the text view; "rgb_array" (games with a picture): an (H, W, 3) uint8 array;
        "human": draws that picture in the window and returns None."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        if self.game_state is None:
            return "(call reset() first)" if self.render_mode == "ansi" else None
        if self.render_mode == "human":
            self._window.show(self.game.render_rgb(self.game_state))
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.game_state)
        return self.game.render_text(self.game_state)

    def close(self) -> None:
        """Closes the window of render_mode "human" (nothing else holds resources)."""
        if self._window is not None:
            self._window.close()

    # --- helpers --------------------------------------------------------------------------------

    def action_to_str(self, action: int) -> str:
        """What `action` does in the current state, in words (its engine name is `game.action_names[action]`)."""
        return self.game.action_to_str(self.game_state, int(action))

    def chance_outcomes(self, action: int) -> list[tuple[str, float]]:
        """The chance outcomes `action` can lead to in the current state, with their probabilities (the
        rules core's `chance_outcomes`): [] for a move without chance."""
        if self.game_state is None:
            raise RuntimeError("reset() must be called before chance_outcomes()")
        return self.game.chance_outcomes(self.game_state, int(action))

    def string_to_action(self, text: str) -> int:
        """The action whose `action_to_str` in the current position is `text` (OpenSpiel's
        string_to_action): the legal actions are searched first, then every action (so an illegal one
        can be named and then refused by `step`); an engine name (`game.action_names`) is accepted too.
        ValueError if no action reads so."""
        if self.game_state is None:
            raise RuntimeError("reset() must be called before string_to_action()")
        if not isinstance(text, str):
            raise ValueError(f"expected an action string, got {type(text).__name__}")
        wanted = text.strip()
        for action in (*self.legal_actions(), *range(self.game.num_actions)):
            if self.game.action_to_str(self.game_state, action) == wanted:
                return action
        if wanted in self.game.action_names:
            return self.game.action_names.index(wanted)
        raise ValueError(f"no action reads {text!r} here; legal: {self.legal_actions_text()}"[:2000])

    def legal_actions(self) -> list[int]:
        """Legal action indices for `agent_selection` (empty once the game is over)."""
        if self.game_state is None or self.game_state.done[0]:
            return []
        return np.flatnonzero(self._mask).tolist()

    def legal_actions_text(self) -> str:
        """The legal actions for error messages: 'id=NAME: words', separated by '; '."""
        return "; ".join(f"{a}={self._move_text(a)}" for a in self.legal_actions())

    def _move_text(self, action: int) -> str:
        """'NAME: words' of `action` in the current state: the engine name for code, the words for people."""
        return f"{self.game.action_names[action]}: {self.game.action_to_str(self.game_state, action)}"

    def _refresh(self, mask: np.ndarray | None = None) -> None:
        """After the state changed: its legal actions (`mask` if the caller has them) and who moves."""
        if mask is None:
            mask = self.game.legal_action_mask(self.game_state)[0]
        self._fused_seat = -1
        # a finished game has no legal action (the core's all-True mask of done rows is for batching)
        self._mask = np.zeros_like(mask) if self.game_state.done[0] else mask
        self.agent_selection = self.possible_agents[int(self.game_state.to_play[0])]

    def _finish(self) -> None:
        returns = self.game.returns(self.game_state)[0]
        scores = self.game.scores(self.game_state)[0]
        truncated = bool(self.game_state.truncated[0])
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = float(returns[seat])
            if truncated:
                self.truncations[agent] = True
            else:
                self.terminations[agent] = True
            self.infos[agent] = {"scores": scores.tolist(), "final_score": int(scores[seat]), "truncated": truncated}

    def _terminate_illegal(self, agent: str) -> None:
        """PettingZoo classic's TerminateIllegalWrapper behaviour (illegal_reward = -1)."""
        gymnasium.logger.warn(f"Illegal move by {agent}; the game terminates with that player losing.")
        self._cumulative_rewards[agent] = 0.0
        self.terminations = {a: True for a in self.agents}
        self.truncations = {a: True for a in self.agents}
        self.infos = {a: {"illegal_action_by": agent} for a in self.agents}
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = -1.0
        self._accumulate_rewards()


def env_functions(game_name: str) -> tuple[Callable[..., BoardGameAEC], Callable[..., BoardGameAEC]]:
    """`(env, raw_env)` of game `game_name`, for its module `meeple.envs.<game_name>_v0`.

    The functions are named as if defined in that module, so they pickle and show up in help() there.
    """
    module = f"meeple.envs.{game_name}_v0"

    def env(num_players: int = 2, render_mode: str | None = None, **variant: Any) -> BoardGameAEC:
        return BoardGameAEC(game_name, num_players=num_players, render_mode=render_mode, illegal_action="terminate", **variant)

    def raw_env(num_players: int = 2, render_mode: str | None = None, **variant: Any) -> BoardGameAEC:
        return BoardGameAEC(game_name, num_players=num_players, render_mode=render_mode, illegal_action="raise", **variant)

    env.__doc__ = (f"The {game_name}_v0 AEC env with PettingZoo classic's convention: an illegal action ends the game "
                   "with -1 for the offender.")
    raw_env.__doc__ = f"The {game_name}_v0 AEC env without action checks beyond the rules: an illegal action raises IllegalActionError."
    for function in (env, raw_env):
        function.__module__ = module
        function.__qualname__ = function.__name__
    return env, raw_env


def _action_index(action: Any) -> int | None:
    """The action as a Python int if it is an integer (a Python or numpy integer, or a one-element integer
    array); None for anything else: floats, strings, bytes and bools are refused rather than converted."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        return int(action.reshape(-1)[0])
    return None
