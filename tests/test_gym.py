"""Gymnasium envs: the registered single-agent envs pass `check_env`, and the vector env keeps the contract it
declares (spaces, seeding, SAME_STEP autoreset checked row by row against a DISABLED twin, masks, rewards
from `game.returns`, bad input refused without a change). Two players throughout: every game's test
configurations include it, and one configuration per game keeps the file at seconds per game once
numba's cache is warm.
"""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as wrappers

from meeple.agents.random_agent import RandomAgent, sample_masked
from meeple.envs import GAMES, core
from meeple.envs.single_agent import GYMNASIUM_IDS, BoardGameEnv
from meeple.envs.vector import BoardGameVectorEnv

NAMES = sorted(GAMES)
# check_env plays actions sampled without a mask; the env ends those episodes as losses and warns each time
quiet_illegal = pytest.mark.filterwarnings("ignore:.*illegal action")


def vector_env(name: str, n: int = 8, **kw) -> BoardGameVectorEnv:
    return BoardGameVectorEnv(name, n, num_players=kw.pop("num_players", 2), **kw)


def snapshot(env: BoardGameVectorEnv) -> tuple:
    """Everything a step may change: the games, the bookkeeping and the random streams."""
    return (core.clone(env.state), env.learner_seat.copy(), env.seat_opponent.copy(), env.ep_len.copy(),
            env.ep_return.copy(), env._mask.copy(), env._env_rng.bit_generator.state, env._pool_rng.bit_generator.state)


def same_snapshot(a: tuple, b: tuple) -> bool:
    return core.states_equal(a[0], b[0]) and all(np.array_equal(x, y) for x, y in zip(a[1:6], b[1:6])) and a[6:] == b[6:]


# --- the registered single-agent envs ------------------------------------------------------------

def test_every_game_is_registered():
    assert sorted(GYMNASIUM_IDS.values()) == ["meeple/Attika-v0", "meeple/CarpeDiem-v0", "meeple/Hadara-v0",
                                              "meeple/RollThroughTheAges-v0", "meeple/Utopia-v0"]
    for name, env_id in GYMNASIUM_IDS.items():
        spec = gymnasium.spec(env_id)
        assert spec.kwargs == {"game_name": name} and spec.vector_entry_point is not None


@quiet_illegal
@pytest.mark.parametrize("name", NAMES)
def test_check_env(name):
    env = gymnasium.make(GYMNASIUM_IDS[name])
    check_env(env.unwrapped)  # also renders every mode in metadata["render_modes"] (Carpe Diem: rgb_array too)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version")
        check_env(env)
    env.close()


@quiet_illegal
@pytest.mark.parametrize("kwargs", [{"num_players": 3, "opponents": "heuristic"}, {"mask_in_observation": True, "seat": 1},
                                    {"opponents": ["random", "heuristic"], "advanced": True}], ids=["heuristic", "dict", "pool"])
def test_check_env_options(kwargs):
    env = gymnasium.make("meeple/Hadara-v0", **kwargs)
    check_env(env.unwrapped)
    if kwargs.get("mask_in_observation"):
        obs, info = env.reset(seed=0)
        assert set(obs) == {"observation", "action_mask"} and np.array_equal(obs["action_mask"], info["action_mask"])


@pytest.mark.parametrize("name", NAMES)
def test_single_env_plays_a_game_to_its_result(name):
    env = gymnasium.make(GYMNASIUM_IDS[name], render_mode="ansi")
    raw: BoardGameEnv = env.unwrapped
    obs, info = env.reset(seed=3)
    env.action_space.seed(3)
    seat, total, steps = info["learner_seat"], 0.0, 0
    while True:
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.any() and np.array_equal(mask.astype(bool), raw.action_masks())
        assert np.array_equal(raw.action_masks(), raw.game.legal_action_mask(raw.vector.state)[0])
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample(mask=mask))
        assert obs in env.observation_space and isinstance(reward, float)
        total += reward
        steps += 1
        if terminated or truncated:
            break
        assert reward == 0.0
    assert terminated != truncated and truncated == bool(raw.vector.state.truncated[0])
    assert total == reward == pytest.approx(raw.game.returns(raw.vector.state)[0, seat])  # the core's result, once
    assert info["returns"][seat] == reward and len(info["scores"]) == 2 and info["opponents"][seat] == "learner"
    assert not info["action_mask"].any() and isinstance(env.render(), str)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("mode", ["raise", "terminate"])
def test_single_env_illegal_action(mode):
    env = BoardGameEnv("hadara", illegal_action=mode)
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = core.clone(env.vector.state)
    for bad in (-1, env.game.num_actions, 1.0, True, "3", np.array([1, 2])):  # outside the action space: always raise
        with pytest.raises(ValueError, match="Discrete"):
            env.step(bad)
    if mode == "raise":
        with pytest.raises(ValueError, match="illegal action"):
            env.step(illegal)
        assert core.states_equal(before, env.vector.state)
        legal = int(np.flatnonzero(info["action_mask"])[0])
        assert len(env.step(legal)) == 5  # the episode goes on
    else:
        with pytest.warns(UserWarning, match="illegal action"):
            next_obs, reward, terminated, truncated, info = env.step(illegal)
        assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, illegal)
        assert np.array_equal(next_obs, obs) and core.states_equal(before, env.vector.state)
        with pytest.raises(RuntimeError):
            env.step(illegal)
    with pytest.raises(ValueError, match="illegal_action"):
        BoardGameEnv("hadara", illegal_action="ignore")


def test_single_env_seats():
    env = BoardGameEnv("roll_through_the_ages", num_players=3)
    first = env.reset(seed=5)[1]["learner_seat"]
    seats = [env.reset()[1]["learner_seat"] for _ in range(5)]
    assert seats == [(first + k) % 3 for k in range(1, 6)]  # rotating from a seat drawn at the seeded reset
    assert env.reset(seed=5)[1]["learner_seat"] == first
    assert len({env.reset(seed=s)[1]["learner_seat"] for s in range(20)}) == 3  # reseeding every episode spreads them
    assert env.reset(options={"seat": 2})[1]["learner_seat"] == 2
    assert int(env.vector.state.to_play[0]) == 2  # the opponents moved first
    fixed = BoardGameEnv("roll_through_the_ages", num_players=3, seat=1)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(4)} == {1}
    for bad in ({"seat": 3}, {"seat": True}, {"sead": 1}):
        with pytest.raises(ValueError):
            env.reset(options=bad)


def test_single_env_is_the_vector_env_at_one_row():
    env = BoardGameEnv("hadara", seat=0)
    vec = vector_env("hadara", 1, seat=0, autoreset_mode=AutoresetMode.DISABLED)
    obs, info = env.reset(seed=9)
    vobs, vinfo = vec.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert np.array_equal(obs, vobs[0]) and np.array_equal(info["action_mask"].astype(bool), vinfo["action_mask"][0])
        action = int(sample_masked(vinfo["action_mask"], rng)[0])
        obs, reward, *_, info = env.step(action)
        vobs, vreward, *_, vinfo = vec.step(np.array([action]))
        assert reward == vreward[0]


# --- the vector env ------------------------------------------------------------------------------

def test_vector_spaces_and_metadata():
    env = vector_env("hadara", 5)
    assert env.num_envs == 5 and env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    D, A = env.encoder.size, env.game.num_actions
    assert env.single_observation_space.shape == (D,) and env.single_observation_space.dtype == np.float32
    assert env.single_action_space == gymnasium.spaces.Discrete(A)
    assert env.observation_space.shape == (5, D) and env.action_space == gymnasium.spaces.MultiDiscrete([A] * 5)
    obs, infos = env.reset(seed=0)
    assert obs in env.observation_space and infos["action_mask"].shape == (5, A) and infos["_action_mask"].all()
    assert np.array_equal(env.action_masks(), infos["action_mask"])
    for mode in AutoresetMode:
        assert vector_env("hadara", 2, autoreset_mode=mode.value).metadata["autoreset_mode"] is mode
    with pytest.raises(ValueError, match="autoreset_mode must be an AutoresetMode"):
        vector_env("hadara", 2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="opponent pool"):
        vector_env("hadara", 2, opponents=[])
    made = gymnasium.make_vec("meeple/Hadara-v0", num_envs=3, num_players=3)  # the vector_entry_point
    assert isinstance(made.unwrapped, BoardGameVectorEnv) and made.num_envs == 3 and made.unwrapped.num_players == 3
    assert made.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # Gymnasium's default, as make_vec's
    same = gymnasium.make_vec("meeple/Hadara-v0", num_envs=3, autoreset_mode=AutoresetMode.SAME_STEP)
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP


def test_vector_reset_seeding():
    env = vector_env("roll_through_the_ages", 6, opponents=["random", "heuristic"])
    rng = np.random.default_rng(0)

    def run(seed):
        obs, infos = env.reset(seed=seed)
        out = [obs, infos["action_mask"]]
        for _ in range(40):
            obs, rewards, *_ = env.step(sample_masked(env.action_masks(), rng))
            out += [obs, rewards]
        return out

    a, rng = run(7), np.random.default_rng(0)
    b, rng = run(7), np.random.default_rng(0)
    c = run(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))  # same seed, same actions: the same games
    assert not np.array_equal(a[0], c[0])
    assert not np.array_equal(env.reset()[0], env.reset(seed=7)[0])  # no seed: the streams continue
    assert np.array_equal(env.reset(seed=7)[0], a[0])
    for bad in ([1, 2], -1, True, 1.5):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=bad)
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"seats": 0})


@pytest.mark.parametrize("name", NAMES)
def test_vector_rollout_autoresets_same_step(name):
    """n = 8, 300 random legal learner steps, stepped side by side with a DISABLED twin on the same seed: at
    every step the SAME_STEP env's final_obs and rewards equal the twin's last observation and its core's
    returns, and after the twin resets those rows the two agree again, so the autoreset is exactly a reset of
    the finished rows in the same step."""
    n = 8
    env, twin = vector_env(name, n), vector_env(name, n, autoreset_mode=AutoresetMode.DISABLED)
    obs, infos = env.reset(seed=11)
    tobs, _ = twin.reset(seed=11)
    rng = np.random.default_rng(11)
    ep_return, ep_len, finished = np.zeros(n), np.zeros(n, dtype=int), 0
    for _ in range(300):
        masks = infos["action_mask"]
        assert np.array_equal(obs, tobs)
        assert np.all(~env.state.done & (env.state.to_play == env.learner_seat))  # every row at the learner's turn
        assert np.array_equal(masks, env.game.legal_action_mask(env.state)) and masks.any(axis=1).all()
        actions = sample_masked(masks, rng)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        tobs, trewards, tterm, ttrunc, tinfos = twin.step(actions)
        done = terminated | truncated
        assert not (terminated & truncated).any() and np.array_equal(truncated, done & twin.state.truncated)
        assert np.array_equal(rewards, trewards) and np.array_equal(done, tterm | ttrunc)
        assert rewards.dtype == np.float64 and np.all(rewards[~done] == 0.0)  # rewards only at the end
        ep_return += rewards
        ep_len += 1
        if not done.any():
            assert "final_obs" not in infos and "final_info" not in infos
            continue
        rows = np.flatnonzero(done)
        returns = twin.game.returns(twin.state)  # the finished games, still on the twin's table
        final = infos["final_info"]
        assert np.array_equal(infos["_final_obs"], done) and np.array_equal(final["_episode"], done)
        for i in rows:
            seat = twin.learner_seat[i]
            assert np.array_equal(infos["final_obs"][i], tobs[i])
            assert rewards[i] == ep_return[i] == returns[i, seat] == final["returns"][i, seat]
            assert final["episode"]["r"][i] == ep_return[i] and final["episode"]["l"][i] == ep_len[i]
            assert final["learner_seat"][i] == seat and np.array_equal(final["scores"][i], twin.game.scores(twin.state)[i])
        assert all(infos["final_obs"][i] is None for i in np.flatnonzero(~done))
        assert np.all(twin.action_masks()[rows] == 0) and not tinfos["_action_mask"][rows].any()
        with pytest.raises(RuntimeError, match="DISABLED"):
            twin.step(actions)
        tobs, _ = twin.reset(options={"reset_mask": done})
        assert np.array_equal(obs[rows], tobs[rows]) and np.all(env.ep_len[rows] == 0)
        ep_return[rows], ep_len[rows] = 0.0, 0
        finished += len(rows)
    assert finished >= n  # every row finished about one game or more


@pytest.mark.parametrize("name", NAMES)
def test_vector_one_row_fused_path_is_the_general_path(name):
    """At one row every move of a step is one fused call (`StepObserve`); with it switched off the env takes
    the general path. Same seed and actions, random and heuristic opponents, SAME_STEP autoreset across
    several games: the same observations, rewards, masks, final infos, states and random streams."""
    kw = {"opponents": ["random", "heuristic"], "num_players": max(c["num_players"] for c in GAMES[name].test_configs)}
    env, general = vector_env(name, 1, **kw), vector_env(name, 1, **kw)
    assert env._fused is not None
    general._fused = None
    out, expected = env.reset(seed=5), general.reset(seed=5)
    rng, finished = np.random.default_rng(5), 0
    for _ in range(250):
        assert np.array_equal(out[0], expected[0]) and np.array_equal(out[1]["action_mask"], expected[1]["action_mask"])
        assert same_snapshot(snapshot(env), snapshot(general))
        actions = sample_masked(out[1]["action_mask"], rng)
        out, expected = env.step(actions), general.step(actions)
        for mine, theirs in zip(out[1:4], expected[1:4]):
            assert np.array_equal(mine, theirs)
        if "final_info" in expected[4]:
            finished += 1
            assert np.array_equal(out[4]["final_obs"][0], expected[4]["final_obs"][0])
            for key in ("scores", "returns", "winner", "learner_seat"):
                assert np.array_equal(out[4]["final_info"][key], expected[4]["final_info"][key])
        out = (out[0], out[4])
        expected = (expected[0], expected[4])
    assert finished >= 1 and env.timing["game_steps"] == general.timing["game_steps"]


def test_vector_one_row_shows_other_agents_a_copy():
    """Agents of this package act on the env's own state; any other agent gets a copy, so one that writes
    into the state it is shown (here: zeros everywhere, after choosing as the random agent does) changes
    nothing in the env's games."""
    class Vandal:
        name = "vandal"

        def act(self, game, state, rng):
            actions = RandomAgent().act(game, state, rng)
            for field in state:
                field[...] = 0
            return actions

    env, clean = vector_env("carpe_diem", 1, opponents=Vandal(), seat=0), vector_env("carpe_diem", 1, opponents="random", seat=0)
    out, expected = env.reset(seed=3), clean.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(60):
        assert np.array_equal(out[0], expected[0]) and same_snapshot(snapshot(env), snapshot(clean))
        actions = sample_masked(out[1]["action_mask"], rng)
        out, expected = env.step(actions), clean.step(actions)
        out, expected = (out[0], out[4]), (expected[0], expected[4])


def test_vector_one_row_refuses_an_illegal_opponent_move():
    class Cheat:
        name = "cheat"

        def act(self, game, state, rng):
            mask = game.legal_action_mask(state)
            return np.array([int(np.argmin(mask[0]))]) if not mask[0].all() else np.array([game.num_actions])

    env = vector_env("hadara", 1, opponents=Cheat(), seat=1)
    with pytest.raises(RuntimeError, match="'cheat' chose illegal action"):
        env.reset(seed=0)


def test_vector_record_episode_statistics_wraps():
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(vector_env("hadara", 4))
    env.reset(seed=2)
    rng, seen = np.random.default_rng(2), 0
    for _ in range(120):
        _, _, terminated, truncated, infos = env.step(sample_masked(env.unwrapped.action_masks(), rng))
        if "episode" in infos:
            mine = infos["final_info"]["episode"]
            assert np.array_equal(infos["_episode"], terminated | truncated)
            assert np.array_equal(infos["episode"]["r"], mine["r"]) and np.array_equal(infos["episode"]["l"], mine["l"])
            seen += 1
    assert seen


def test_vector_bad_input_changes_nothing():
    env, twin = vector_env("hadara", 4), vector_env("hadara", 4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, dtype=np.int64))
    env.reset(seed=4)
    twin.reset(seed=4)
    masks = env.action_masks()
    A = env.game.num_actions
    illegal = np.where(masks.all(axis=1), 0, np.argmin(masks, axis=1))
    good = sample_masked(masks, np.random.default_rng(0))
    one_bad = good.copy()
    one_bad[2] = illegal[2]
    before = snapshot(env)
    for bad, match in [(good[:3], "shape"), (good.reshape(4, 1), "shape"), (good.astype(np.float64), "integers"),
                       (good.astype(bool), "integers"), (good.astype(str), "integers"), (None, "integers"),
                       (np.full(4, A), "0.."), (np.full(4, -1), "0.."), (one_bad, "illegal learner actions in 1 row")]:
        with pytest.raises(ValueError, match=match):
            env.step(bad)
        assert same_snapshot(before, snapshot(env))
    for bad in ({"reset_mask": np.ones(3, dtype=bool)}, {"reset_mask": np.zeros(4, dtype=bool)},
                {"reset_mask": np.ones(4, dtype=np.int8)}, {"seat": 2}, {"seat": [0, 1]}):
        with pytest.raises(ValueError):
            env.reset(options=bad)
        assert same_snapshot(before, snapshot(env))
    a, b = env.step(list(good)), twin.step(good)  # a plain list is an integer array too
    assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4]))


def test_vector_one_row_bad_input_changes_nothing():
    """The one-row env checks its action in a few reads (`_one_action`) and falls back to the full checks
    for anything else: every bad action is refused with the same messages, and nothing moves."""
    env, twin = vector_env("attika", 1), vector_env("attika", 1)
    env.reset(seed=6)
    twin.reset(seed=6)
    mask = env.action_masks()[0]
    A = env.game.num_actions
    good, illegal = int(np.flatnonzero(mask)[0]), int(np.flatnonzero(~mask)[0])
    before = snapshot(env)
    for bad, match in [(np.array([good, good]), "shape"), (np.array([[good]]), "shape"), (np.array([good], dtype=np.float64), "integers"),
                       (np.array([True]), "integers"), (np.array(["0"]), "integers"), (None, "integers"), (good, "shape"),
                       (np.array([A]), "0.."), (np.array([-1]), "0.."), (np.array([illegal]), "illegal learner actions in 1 row")]:
        with pytest.raises(ValueError, match=match):
            env.step(bad)
        assert same_snapshot(before, snapshot(env))
    a, b = env.step([good]), twin.step(np.array([good], dtype=np.int32))  # a list, and another integer dtype
    assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4]))


def test_vector_seats_and_opponent_pool():
    env = vector_env("roll_through_the_ages", 5, num_players=3, opponents=["random", "heuristic"], opponent_weights=[0, 1])
    _, infos = env.reset(seed=0)
    assert np.array_equal(infos["learner_seat"], np.arange(5) % 3)
    assert np.all(env.seat_opponent[np.arange(5), env.learner_seat] == -1)
    assert np.all(np.sort(env.seat_opponent, axis=1)[:, 1:] == 1)  # weight 0: only the heuristic is drawn
    _, infos = env.reset(options={"seat": [2, 2, 1, 0, 0]})
    assert np.array_equal(infos["learner_seat"], [2, 2, 1, 0, 0])
    _, infos = env.reset(options={"seat": 1, "reset_mask": np.array([True, False, False, False, False])})
    assert np.array_equal(infos["learner_seat"], [1, 2, 1, 0, 0])
    fixed = vector_env("roll_through_the_ages", 3, num_players=3, seat=2, opponents=RandomAgent())
    assert np.all(fixed.reset(seed=0)[1]["learner_seat"] == 2)


def test_the_env_classes_take_their_arguments_in_one_order():
    """The game, the batch size (the vector envs), then keywords only: a positional player count, which the
    SB3 adapter once took before the batch size, is refused instead of read as something else."""
    pytest.importorskip("sb3_contrib")
    import inspect

    from meeple.envs.selfplay import SelfPlayVecEnv
    from meeple.envs.vector import make_vec_env

    for cls, batch in ((BoardGameVectorEnv, ["num_envs"]), (SelfPlayVecEnv, ["num_envs"]), (BoardGameEnv, []),
                       (make_vec_env, ["num_envs"])):
        params = inspect.signature(cls).parameters.values()
        positional = [p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD]
        assert positional == ["game_name", *batch], (cls, positional)
        keywords = {p.name for p in params if p.kind == p.KEYWORD_ONLY}
        assert {"num_players", "opponents", "encoder"} <= keywords or cls is make_vec_env  # it forwards **kwargs
    with pytest.raises(TypeError):
        SelfPlayVecEnv("hadara", 4, 2)
    with pytest.raises(TypeError):
        BoardGameVectorEnv("hadara", 4, 2)


def test_selfplay_vecenv_is_the_vector_env_for_sb3():
    pytest.importorskip("sb3_contrib")
    from meeple.envs.selfplay import SelfPlayVecEnv

    sb3 = SelfPlayVecEnv("hadara", 4, num_players=2, opponents=[RandomAgent()], seed=5)
    env = vector_env("hadara", 4, opponents=[RandomAgent()])
    assert isinstance(sb3.vector, BoardGameVectorEnv) and sb3.observation_space == env.single_observation_space
    obs, _ = env.reset(seed=5)
    sb3_obs = sb3.reset()  # SB3's reset after seed=5 at construction continues the streams; reseed to compare
    sb3.seed(5)
    assert np.array_equal(sb3.reset(), obs) and not np.array_equal(sb3_obs, obs)
    rng = np.random.default_rng(5)
    for _ in range(60):
        actions = sample_masked(env.action_masks(), rng)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        sb3_obs, sb3_rewards, dones, sb3_infos = sb3.step(actions)
        assert np.array_equal(sb3_obs, obs) and np.array_equal(sb3_rewards, rewards.astype(np.float32))
        assert np.array_equal(dones, terminated | truncated)
        for i in np.flatnonzero(dones):
            assert np.array_equal(sb3_infos[i]["terminal_observation"], infos["final_obs"][i])


def test_maskable_ppo_trains_on_the_single_env():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("meeple/RollThroughTheAges-v0", illegal_action="raise")  # a masked learner never plays one
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(total_timesteps=128)


@pytest.mark.parametrize("name", NAMES)
def test_vector_rollout_autoresets_next_step(name):
    """NEXT_STEP: the step a game ends returns its last observation (the encoded view of the finished game,
    still on the table) and its result; the next step starts the row's next game instead of playing: any
    action in range is taken and ignored there (the mask is all True), the reward is
    0, the row is not done, and the observation is the new game's first, at the learner's turn. Until the
    first game ends it plays exactly the games of a SAME_STEP env on the same seed and actions."""
    n = 8
    env, same = vector_env(name, n, autoreset_mode=AutoresetMode.NEXT_STEP), vector_env(name, n)
    obs, infos = env.reset(seed=5)
    sobs, sinfos = same.reset(seed=5)
    rng = np.random.default_rng(5)
    diverged, restarted = False, 0
    restart = np.zeros(n, dtype=bool)
    ep_return = np.zeros(n)
    for _ in range(300):
        mask = infos["action_mask"]
        assert infos["_action_mask"].all() and mask[restart].all()
        live = ~restart
        assert np.array_equal(mask[live], env.game.legal_action_mask(env.state)[live]) and mask.any(axis=1).all()
        actions = sample_masked(mask, rng)
        if restart.any():  # an action the finished game's rules never allowed: ignored all the same
            actions[restart] = env.game.num_actions - 1
        obs, rewards, terminated, truncated, infos = env.step(actions)
        done = terminated | truncated
        if not diverged:
            sobs, srewards, sterm, strunc, sinfos = same.step(actions)
            assert np.array_equal(rewards, srewards) and np.array_equal(done, sterm | strunc)
            if done.any():
                assert np.array_equal(obs[~done], sobs[~done]) and np.array_equal(obs[done], np.stack(sinfos["final_obs"][done]))
                diverged = True
            else:
                assert np.array_equal(obs, sobs)
        assert "final_obs" not in infos
        if restart.any():
            rows = np.flatnonzero(restart)
            assert np.all(rewards[rows] == 0) and not done[rows].any() and np.all(env.ep_len[rows] == 0)
            assert np.all(~env.state.done[rows] & (env.state.to_play[rows] == env.learner_seat[rows]))
            assert np.array_equal(obs[rows], env.encoder.encode(env.game.observe(env.state, env.learner_seat))[rows])
            restarted += len(rows)
        ep_return += rewards
        if done.any():
            rows = np.flatnonzero(done)
            assert np.all(env.state.done[rows])  # the finished games, still on the table
            final = env.encoder.encode(env.game.observe(env.state, env.learner_seat))
            assert np.array_equal(obs[rows], final[rows])
            returns = env.game.returns(env.state)
            assert np.array_equal(rewards[rows], returns[rows, env.learner_seat[rows]])
            assert np.array_equal(infos["final_info"]["episode"]["r"][rows], ep_return[rows])
            ep_return[rows] = 0.0
        restart = done
    assert restarted >= n


VECTOR_WRAPPERS = {  # Gymnasium's vector wrappers for a Box observation and a Discrete action, in a stackable order
    "RescaleObservation": lambda env: wrappers.RescaleObservation(env, np.float32(-1.0), np.float32(1.0)),
    "TransformObservation": lambda env: wrappers.TransformObservation(env, lambda obs: 0.5 * obs),
    "ReshapeObservation": lambda env: wrappers.ReshapeObservation(env, (1, env.single_observation_space.shape[0])),
    "FlattenObservation": lambda env: wrappers.FlattenObservation(env),
    "NormalizeObservation": lambda env: wrappers.NormalizeObservation(env),
    "DtypeObservation": lambda env: wrappers.DtypeObservation(env, np.float64),
    "TransformReward": lambda env: wrappers.TransformReward(env, lambda r: 10.0 * r),
    "ClipReward": lambda env: wrappers.ClipReward(env, -5.0, 5.0),
    "NormalizeReward": lambda env: wrappers.NormalizeReward(env),
    "TransformAction": lambda env: wrappers.TransformAction(env, lambda a: a, env.action_space),
    "RecordEpisodeStatistics": lambda env: wrappers.RecordEpisodeStatistics(env),
}
# what Gymnasium itself refuses: its observation wrappers take NEXT_STEP or DISABLED, NormalizeObservation
# NEXT_STEP alone (they would transform the observation of the wrong game in a same-step autoreset row)
GYMNASIUM_REFUSES = {
    AutoresetMode.SAME_STEP: {"FlattenObservation", "NormalizeObservation", "TransformObservation", "DtypeObservation",
                              "ReshapeObservation", "RescaleObservation"},
    AutoresetMode.DISABLED: {"NormalizeObservation"},
    AutoresetMode.NEXT_STEP: set(),
}


def run_stack(env, steps: int, seed: int, rewards_changed: bool = False) -> int:
    """Random legal play through a wrapper stack; returns the games finished. Finished DISABLED rows are reset
    through the stack. Each finished game's statistics from `RecordEpisodeStatistics` equal the env's own (its
    return only where no reward wrapper sits below it)."""
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    mode = env.unwrapped.metadata["autoreset_mode"]
    finished = 0
    for _ in range(steps):
        assert obs in env.observation_space
        obs, rewards, terminated, truncated, infos = env.step(sample_masked(infos["action_mask"], rng))
        done = terminated | truncated
        if done.any():
            ours, theirs = infos["final_info"]["episode"], infos["episode"]  # the env's, RecordEpisodeStatistics'
            assert np.array_equal(infos["_episode"], done) and np.array_equal(ours["l"], theirs["l"])
            assert rewards_changed or np.allclose(ours["r"], theirs["r"])
            finished += int(done.sum())
            if mode is AutoresetMode.DISABLED:
                obs, infos = env.reset(options={"reset_mask": done})
    return finished


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_wrappers_stack_on_make_vec(name, mode):
    """FlattenObservation, NormalizeObservation and RecordEpisodeStatistics stacked on
    `gymnasium.make_vec(id, num_envs=8, autoreset_mode=mode)`, every game and mode: each wrapper that
    Gymnasium accepts for the mode runs, and the ones it refuses for that mode are refused by Gymnasium's own
    check (not this env's), so the stack needs NEXT_STEP (make_vec's default) or, without
    NormalizeObservation, DISABLED."""
    env = gymnasium.make_vec(GYMNASIUM_IDS[name], num_envs=8, autoreset_mode=mode)
    assert env.metadata["autoreset_mode"] is mode
    for wrapper in ("FlattenObservation", "NormalizeObservation", "RecordEpisodeStatistics"):
        if wrapper in GYMNASIUM_REFUSES[mode]:
            with pytest.raises(ValueError, match="autoreset_mode"):
                VECTOR_WRAPPERS[wrapper](env)
        else:
            env = VECTOR_WRAPPERS[wrapper](env)
    assert run_stack(env, 250, seed=3) >= 8
    if mode is AutoresetMode.NEXT_STEP:
        normalizer = env.env
        assert isinstance(normalizer, wrappers.NormalizeObservation) and normalizer.obs_rms.count > 250 * 8
    env.close()


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_every_applicable_gymnasium_vector_wrapper(mode):
    """Every vector wrapper of Gymnasium that applies to a Box observation and a Discrete action, stacked in
    one pile on the vector env (the ones Gymnasium refuses for the mode left out), plays games with the
    statistics intact."""
    env = gymnasium.make_vec("meeple/RollThroughTheAges-v0", num_envs=8, autoreset_mode=mode)
    stacked = []
    for wrapper, make_wrapper in VECTOR_WRAPPERS.items():
        if wrapper in GYMNASIUM_REFUSES[mode]:
            with pytest.raises(ValueError, match="autoreset_mode"):
                make_wrapper(env)
            continue
        env = make_wrapper(env)
        stacked.append(wrapper)
    assert run_stack(env, 250, seed=4, rewards_changed=True) >= 8
    assert len(stacked) == len(VECTOR_WRAPPERS) - len(GYMNASIUM_REFUSES[mode])
    env.close()


def test_dict_info_to_list_gives_every_row_its_mask():
    """Gymnasium's `DictInfoToList` on NEXT_STEP with `RecordEpisodeStatistics`: every row's info holds its
    action mask (all True in a row about to start its next game), and a finished row its episode."""
    env = wrappers.DictInfoToList(wrappers.RecordEpisodeStatistics(
        gymnasium.make_vec("meeple/RollThroughTheAges-v0", num_envs=4)))
    obs, infos = env.reset(seed=6)
    rng = np.random.default_rng(6)
    finished = 0
    for _ in range(200):
        mask = np.stack([info["action_mask"] for info in infos])
        obs, rewards, terminated, truncated, infos = env.step(sample_masked(mask, rng))
        for i in np.flatnonzero(terminated | truncated):
            assert infos[i]["episode"]["r"] == rewards[i] and infos[i]["final_info"]["episode"]["l"] == infos[i]["episode"]["l"]
            finished += 1
    assert finished >= 4
