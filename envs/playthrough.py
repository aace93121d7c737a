"""Golden playthroughs: seeded games written as text, one line per decision (after OpenSpiel's playthroughs).

A playthrough pins a game's behaviour end to end: every decision's seat, action name and words, the chance
outcomes it set off, the rewards, a short hash of the whole state and of every seat's encoded
observation, and the final scores. `tests/test_playthroughs.py` regenerates every file under
`tests/playthroughs/` and diffs; `python scripts/gen_playthroughs.py` rewrites them on purpose (commit
such a change on its own, with the reason). A refactor that leaves the rules alone leaves these files
byte-identical.

Hashes cover field values in field order (not field names), so renaming a state field keeps them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from meeple.envs import GAMES, default_encoder, make

GAMES_PER_KIND = {"random": 2, "heuristic": 1}


def short_hash(arrays: Any) -> str:
    """8 hex digits of blake2b over the arrays' bytes (dtype included, names not)."""
    h = hashlib.blake2b(digest_size=4)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(a.dtype.str.encode())
        h.update(a.tobytes())
    return h.hexdigest()


def chance_text(game_name: str, before: Any, after: Any) -> str:
    """The chance outcomes of one step in words: every field in the render module's CHANCE_FIELDS
    (name -> formatter of one value) whose row-0 value changed, as `name: v1 v2 ...` (entries >= 0)."""
    from importlib import import_module

    fields = getattr(import_module(make_render_module(game_name)), "CHANCE_FIELDS", {})
    parts = []
    for name, fmt in fields.items():
        old, new = np.asarray(getattr(before, name)[0]), np.asarray(getattr(after, name)[0])
        if not np.array_equal(old, new):
            parts.append(f"{name}: " + " ".join(fmt(int(v)) if v >= 0 else "-" for v in new.reshape(-1)))
    return "; ".join(parts)


def make_render_module(game_name: str) -> str:
    module, cls = GAMES[game_name].rules.split(":")
    return module.rsplit(".", 1)[0] + ".render"


def config_id(config: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in config.items())


def playthrough(game_name: str, config: dict, agent_kind: str, seed: int) -> list[str]:
    """The lines of one seeded game of `game_name` played by `agent_kind` ("random" or "heuristic") in every seat."""
    from meeple.agents import make_agent

    game = make(game_name, **config)
    encoder = default_encoder(game_name, game)
    agent = make_agent(agent_kind, game_name)
    rng = np.random.default_rng(seed)
    agent_rng = np.random.default_rng(seed + 1_000_003)
    state = game.init(rng, 1)
    P = game.num_players
    lines = [f"# {game_name} {json.dumps(config, sort_keys=True)} agents={agent_kind} seed={seed}",
             f"init | chance: {chance_text(game_name, game.empty(1), state) or '-'} | {_hashes(game, encoder, state)}"]
    step = 0
    while not state.done[0] and step < game.info.max_game_length:
        seat = int(state.to_play[0])
        action = int(agent.act(game, state, agent_rng)[0])
        name = f"{game.action_names[action]}: {game.action_to_str(state, action)}"  # the engine's name, then the words
        after = game.step(state, np.array([action]), rng)
        chance = chance_text(game_name, state, after)
        rewards = " ".join(f"{r:+.3f}" for r in game.returns(after)[0])
        lines.append(f"{step} | seat {seat} | {name} | chance: {chance or '-'} | rewards {rewards} | {_hashes(game, encoder, after)}")
        state = after
        step += 1
    scores = game.scores(state)[0].tolist()
    lines.append(f"final | done={bool(state.done[0])} truncated={bool(state.truncated[0])} | scores {scores} | "
                 f"returns {' '.join(f'{r:+.3f}' for r in game.returns(state)[0])} | decisions {step}")
    assert P == len(scores)
    return lines


def _hashes(game: Any, encoder: Any, state: Any) -> str:
    obs = " ".join(short_hash([encoder.encode(game.observe(state, p))]) for p in range(game.num_players))
    return f"state {short_hash(state)} | obs {obs}"


def playthrough_file(game_name: str, config: dict) -> str:
    """The whole text of one configuration's golden file: GAMES_PER_KIND seeded games per agent kind."""
    chunks = []
    for kind, n in GAMES_PER_KIND.items():
        for seed in range(n):
            chunks.append("\n".join(playthrough(game_name, config, kind, seed)))
    return "\n\n".join(chunks) + "\n"


def golden_cases() -> list[tuple[str, dict, str]]:
    """(game, config, file name) for every registered game and test configuration."""
    return [(name, config, f"{name}--{config_id(config)}.txt")
            for name, entry in GAMES.items() for config in entry.test_configs]
