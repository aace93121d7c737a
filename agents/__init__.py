"""Agents that play any meeple game through the batched rules API (protocol in `base.py`).

    from meeple.agents import make_agent
    agent = make_agent("heuristic", "roll_through_the_ages")
    agent = make_agent("mcts:200:mode=rollout,rollout=heuristic", "roll_through_the_ages")
    agent = make_agent("ppo:runs/x/model.zip", "roll_through_the_ages", num_players=2)
    agent = make_agent("search:runs/x/net.safetensors:sims=64", "roll_through_the_ages", num_players=2)
    agent = make_agent("py:examples.my_policy:policy", "roll_through_the_ages")   # your own policy (external.py)

Every agent class is imported only when its spec is asked for, so importing this package never
imports torch (only `ppo:`, `net:` and `search:` do).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from meeple.agents.spec import AGENT_SPECS, AgentSpec, parse_spec


def make_agent(spec: str | AgentSpec, game_name: str, num_players: int | None = None, **variant: Any) -> Any:
    """The agent named by `spec` for game `game_name`.

    Args:
        spec: an agent spec, as text (read by `meeple.agents.spec.parse_spec`) or an `AgentSpec`:
            "random" (uniform legal moves), "heuristic" (the game's hand-written player),
            "mcts:N" or "mcts:N:key=value,..." (`MCTSAgent.from_spec`: N simulations per move, options
            such as rollout_depth=30,prior=heuristic; with mode=rollout a `RolloutAgent`, e.g.
            "mcts:200:mode=rollout,rollout=heuristic"), "ppo:<path>" (a MaskablePPO model.zip saved by
            train.py, as a `PolicyAgent`), "net:<path>" (a policy-value net saved by `train.py --algo exit`,
            its policy alone: greedy, or sampled with "net:<path>:sample=1"), "search:<path>:sims=N,..."
            (MCTS with that net as prior and leaf value; options in `meeple.agents.net.agent_from_spec`),
            "py:<module>:<name>" (your own policy: an object with `act(observation, mask)` or a function of
            (observation, mask), batched; `meeple.agents.external`) or "human" (moves typed in the terminal).
        game_name: a key of `meeple.envs.GAMES`.
        num_players, **variant: the game configuration; a `ppo:`, `net:` or `search:` model is checked
            against it at load time when num_players is given.
    Raises:
        ValueError: for an unknown spec or game, a malformed option, a missing model file, or a net
            file that is invalid or of another game or configuration.
    """
    from meeple.envs import GAMES, list_games

    if game_name not in GAMES:
        raise ValueError(f"unknown game {game_name!r}; registered games: {list_games()}")
    spec = spec if isinstance(spec, AgentSpec) else parse_spec(spec)  # ValueError for a malformed or unknown spec
    if spec.kind == "random":
        from meeple.agents.random_agent import RandomAgent

        return RandomAgent()
    if spec.kind == "heuristic":
        try:
            module = importlib.import_module(GAMES[game_name].heuristic)
        except ModuleNotFoundError as exc:
            raise ValueError(f"game {game_name!r} has no heuristic agent ({exc})") from None
        return module.Heuristic()
    if spec.kind == "mcts":
        from meeple.agents.mcts import MCTSAgent

        return MCTSAgent.from_spec(spec, game_name)
    if spec.kind == "ppo":
        (path,) = spec.args
        if not (Path(path).is_file() or Path(path + ".zip").is_file()):  # MaskablePPO.load adds .zip
            raise ValueError(f"agent spec {spec.text!r}: no model file at {path!r}")
        from meeple.agents.policy import PolicyAgent

        return PolicyAgent(path, game_name, num_players, **variant)
    if spec.kind in ("net", "search"):
        from meeple.agents.net import agent_from_spec

        return agent_from_spec(spec, game_name, num_players, **variant)
    if spec.kind == "py":
        from meeple.agents.external import PythonPolicyAgent, load_policy

        return PythonPolicyAgent(load_policy(spec), game_name, name=spec.text)
    if spec.kind == "human":
        from meeple.agents.human import HumanAgent

        return HumanAgent()
    raise ValueError(f"unknown agent spec {spec.text!r}; known specs: {', '.join(AGENT_SPECS)}")
