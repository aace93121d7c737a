"""PettingZoo AEC checks for every registered game: api_test, seed_test, illegal actions, render, and
the PettingZoo-style module `meeple.envs.<game>_v0` of each."""

from __future__ import annotations

import importlib
import json
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from meeple.envs import GAMES, core, make_env
from meeple.envs.aec import BoardGameAEC, IllegalActionError


@pytest.fixture
def env_case(game_case):
    name, config, _ = game_case
    return name, config


def test_pettingzoo_api_test(env_case):
    name, config = env_case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make_env(name, **config), num_cycles=300)


def test_pettingzoo_seed_test(env_case):
    name, config = env_case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: make_env(name, **config), num_cycles=300)


@pytest.mark.parametrize("name", list(GAMES))
def test_pettingzoo_style_module_of_every_game(name):
    """`from meeple.envs import <name>_v0` and `import meeple.envs.<name>_v0` give the registered env
    module; its env() and raw_env() differ only in the illegal-action convention, and env() of the
    first test configuration passes PettingZoo's api_test."""
    namespace: dict = {}
    exec(f"from meeple.envs import {name}_v0 as imported_from\nimport meeple.envs.{name}_v0", namespace)
    module = importlib.import_module(f"meeple.envs.{name}_v0")
    assert namespace["imported_from"] is module is getattr(namespace["meeple"].envs, f"{name}_v0")
    assert GAMES[name].env == module.__name__ and module.__doc__
    config = GAMES[name].test_configs[0]
    env, raw = module.env(**config), module.raw_env(**config)
    assert isinstance(env, BoardGameAEC) and isinstance(raw, BoardGameAEC)
    assert (env.illegal_action, raw.illegal_action) == ("terminate", "raise")
    assert env.metadata["name"] == f"{name}_v0" and env.game.num_players == config["num_players"]
    assert pickle.loads(pickle.dumps(module.env)) is module.env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(module.env(**config), num_cycles=100)


def _first_illegal(env):
    mask = env.observe(env.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[0])


def test_raw_env_illegal_action_raises_and_changes_nothing(env_case):
    name, config = env_case
    env = make_env(name, raw=True, **config)
    env.reset(seed=1)
    before = core.clone(env.game_state)
    agent = env.agent_selection
    illegal = _first_illegal(env)
    with pytest.raises(IllegalActionError, match="legal:") as excinfo:
        env.step(illegal)
    for action in env.legal_actions():
        assert f"{action}=" in str(excinfo.value)
    with pytest.raises(IllegalActionError, match="outside"):
        env.step(env.game.num_actions + 5)
    assert core.states_equal(before, env.game_state)
    assert env.agent_selection == agent and not any(env.terminations.values())


def test_env_illegal_action_terminates_like_pettingzoo_classic(env_case):
    name, config = env_case
    env = make_env(name, **config)
    env.reset(seed=2)
    agent = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(_first_illegal(env))
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env._cumulative_rewards[agent] == -1.0
    assert all(env._cumulative_rewards[a] == 0.0 for a in env.agents if a != agent)


def test_env_out_of_range_action_raises(env_case):
    name, config = env_case
    env = make_env(name, **config)
    env.reset(seed=2)
    with pytest.raises(IllegalActionError, match="outside"):
        env.step(10**6)


def test_env_requires_reset(env_case):
    name, config = env_case
    env = make_env(name, **config)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_rewards_and_infos_at_the_end(env_case):
    name, config = env_case
    env = make_env(name, **config)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            assert "scores" in info
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    returns = np.array([totals[a] for a in env.possible_agents])
    if len(returns) > 1:
        assert abs(returns.sum()) < 1e-6 and returns.max() > 0


def test_render_ansi_and_action_to_str(env_case):
    name, config = env_case
    env = make_env(name, render_mode="ansi", **config)
    env.reset(seed=4)
    text = env.render()
    assert isinstance(text, str) and "player_0" in text
    for action in env.legal_actions():
        assert env.action_to_str(action)
    with pytest.raises(ValueError):
        make_env(name, render_mode="rgb_array_typo", **config)


# --- OpenSpiel-style hooks: history, string_to_action, loading a saved position ---------------------

@pytest.mark.parametrize("name", list(GAMES))
def test_history_string_to_action_and_loading_a_saved_position(name):
    env = make_env(name, num_players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(12):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        assert env.string_to_action(env.action_to_str(action)) == action
        env.step(action)
    assert len(env.history) == 12 and all(isinstance(a, int) for a in env.history)
    saved = env.state_dict()
    other = make_env(name, num_players=2)
    other.reset(seed=99, options={"state": json.dumps(saved)})
    assert core.states_equal(other.game_state, env.game_state) and other.history == []
    assert other.agent_selection == env.agent_selection
    np.testing.assert_array_equal(other.observe(other.agent_selection)["observation"],
                                  env.observe(env.agent_selection)["observation"])
    np.testing.assert_array_equal(other.observe(other.agent_selection)["action_mask"],
                                  env.observe(env.agent_selection)["action_mask"])


def test_bad_saved_positions_and_action_strings_are_refused():
    env = make_env("hadara", num_players=2)
    env.reset(seed=0)
    before = core.clone(env.game_state)
    with pytest.raises(ValueError, match="no action reads"):
        env.string_to_action("not an action")
    with pytest.raises(ValueError):
        env.reset(options={"state": {"format": "meeple-state-v1", "game": "hadara"}})
    with pytest.raises(ValueError):
        env.reset(options={"state": "[" * 10_000})
    other = make_env("hadara", num_players=3)
    other.reset(seed=0)
    with pytest.raises(ValueError):
        env.reset(options={"state": other.state_dict()})  # another player count
    assert core.states_equal(env.game_state, before)


def test_state_is_the_joint_observation(env_case):
    """PettingZoo's `state()`: every seat's encoded observation, seat 0 first, in `state_space` (its shape
    equal to `state_space.shape` for every game and configuration), at every position of a random game; the
    same through PettingZoo's AEC-to-parallel conversion, which carries `state_space` over."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    name, config = env_case
    env = make_env(name, **config)
    with pytest.raises(RuntimeError, match="reset"):
        env.state()
    env.reset(seed=3)
    P, D = env.game.num_players, env.encoder.size
    assert env.state_space.shape == (P * D,) and env.state_space.dtype == np.float32
    rng = np.random.default_rng(3)
    for _ in range(40):
        state = env.state()
        assert state.shape == env.state_space.shape and state in env.state_space
        joint = np.concatenate([env.observe(agent)["observation"] for agent in env.possible_agents])
        np.testing.assert_array_equal(state, joint)
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    parallel = turn_based_aec_to_parallel(make_env(name, **config))
    parallel.reset(seed=3)
    assert parallel.state_space.shape == (P * D,) and parallel.state().shape == parallel.state_space.shape


def test_each_seat_part_of_state_is_that_seat_view():
    """Seat 0's part of the joint observation is built from seat 0's view alone: the same position with
    everything seat 0 cannot see resampled (`determinize`) gives the same part."""
    env = make_env("hadara", num_players=2)
    env.reset(seed=4)
    D = env.encoder.size
    resampled = env.game.determinize(env.game_state, 0, np.random.default_rng(9))
    other = make_env("hadara", num_players=2)
    other.reset(seed=0, options={"state": env.game.to_dict(resampled)})
    np.testing.assert_array_equal(other.state()[:D], env.state()[:D])


def test_reset_refuses_unknown_and_non_dict_options(env_case):
    """As the Gymnasium envs do: a key other than "state" (PettingZoo's API-test probe "options" aside), or
    options that are not a dict, raise ValueError naming the problem, and nothing changes."""
    name, config = env_case
    env = make_env(name, **config)
    env.reset(seed=1)
    env.step(env.legal_actions()[0])
    before, history, agent = core.clone(env.game_state), list(env.history), env.agent_selection
    for options, message in (({"seed": 3}, "unknown reset options 'seed'"),
                             ({"state": env.state_dict(), "seat": 1}, "unknown reset options 'seat'"),
                             ([("state", env.state_dict())], "options must be a dict"),
                             ("state", "options must be a dict")):
        with pytest.raises(ValueError, match=message):
            env.reset(seed=5, options=options)
        assert core.states_equal(env.game_state, before) and env.history == history and env.agent_selection == agent
    env.reset(seed=5, options={"options": 1})  # what pettingzoo.test's api_test sends: taken, ignored
    assert env.history == []
