"""Any meeple game as an RLlib `MultiAgentEnv` (turn-based), ready for action masking.

    pip install -e ".[rllib]"        # ray[rllib], pinned (it pins its own gymnasium; see pyproject.toml)

    from ray.tune.registry import register_env
    from meeple.envs.rllib import MeepleMultiAgentEnv
    register_env("meeple", lambda config: MeepleMultiAgentEnv(config))
    # PPOConfig().environment("meeple", env_config={"game": "hadara", "num_players": 3}) ...

What RLlib needs and the PettingZoo env does not give as is (so nobody has to write this glue again):

- Observations are `{"observations": float32 vector, "action_mask": float32 0/1 vector}`, the layout of
  RLlib's action-masking RL modules (the PettingZoo env gives `observation` and a bool/int8 mask).
- Only the seat to move gets an observation, and only its action is expected (`agent_selection`
  follows the game's `to_play`, not round-robin). Rewards come at the end: every seat gets its
  return (the game's `reward` setting, rank-based by default) with its final observation and
  `terminateds[seat] = True`; `terminateds["__all__"]` ends the episode.
- `env_config` is plain data: `{"game": <registered name>, "num_players": P, ...variant flags, "encoder":
  kind}`; a worker process on another machine builds its own env from it.

An illegal action ends the game with reward -1 for its player and 0 for the others (the PettingZoo
`env()` convention; RLlib's env check steps random, unmasked actions, so raising would refuse every
env). With the mask applied in the policy it does not happen in training; `"illegal_action": "raise"`
in `env_config` makes it an error instead.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from meeple.envs import GAMES, make_env


class MeepleMultiAgentEnv(MultiAgentEnv):
    """A registered meeple game as a turn-based RLlib multi-agent env (module docstring)."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = dict(config or {})  # RLlib passes an EnvContext (a dict with worker_index etc. as attributes)
        name = config.pop("game", "roll_through_the_ages")
        if name not in GAMES:
            raise ValueError(f"env_config game must be one of {sorted(GAMES)}, got {name!r}")
        illegal = config.pop("illegal_action", "terminate")
        if illegal not in ("terminate", "raise"):
            raise ValueError(f"env_config illegal_action must be 'terminate' or 'raise', got {illegal!r}")
        self.env = make_env(name, raw=illegal == "raise", **config)
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.env.observation_space(self.possible_agents[0])
        n = self.env.action_space(self.possible_agents[0]).n
        space = gymnasium.spaces.Dict({
            "observations": gymnasium.spaces.Box(-np.inf, np.inf, inner["observation"].shape, np.float32),
            "action_mask": gymnasium.spaces.Box(0.0, 1.0, (n,), np.float32),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(n) for a in self.possible_agents}

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.env.observe(agent)
        return {"observations": np.asarray(raw["observation"], dtype=np.float32),
                "action_mask": np.asarray(raw["action_mask"], dtype=np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        first = self.env.agent_selection
        return {first: self._obs(first)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        mover = self.env.agent_selection
        if mover not in action_dict:
            raise ValueError(f"{mover} is to move; got actions for {sorted(action_dict)}")
        self.env.step(int(action_dict[mover]))
        obs, rewards, terminateds, truncateds, infos = {}, {}, {}, {}, {}
        # the next seat to move, or (at the end) every seat in turn with its final observation and return
        while self.env.agents:
            agent = self.env.agent_selection
            _, reward, terminated, truncated, _ = self.env.last(observe=False)
            obs[agent], rewards[agent] = self._obs(agent), float(reward)
            terminateds[agent], truncateds[agent] = bool(terminated), bool(truncated)
            if not (terminated or truncated):
                break
            self.env.step(None)  # PettingZoo's way of removing a finished agent
        done = not self.env.agents
        # a game that ended by its rules is terminated; one cut off (max length, an illegal move) truncated
        terminateds["__all__"] = done and all(terminateds.values()) and not any(truncateds.values())
        truncateds["__all__"] = done and not terminateds["__all__"]
        return obs, rewards, terminateds, truncateds, infos

    def close(self) -> None:
        self.env.close()
