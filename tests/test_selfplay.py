"""SelfPlayVecEnv: the VecEnv contract SB3 relies on, seen from the learner's seat.

There is no `check_env` for VecEnvs, so the checks are written out: spaces, shapes and dtypes,
same-step autoreset with terminal observations, masks equal to the rules core's, seat rotation,
opponents only on their own turns, rewards from `game.returns`, and determinism given the seed.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the training extras (stable-baselines3, sb3-contrib, torch)

from stable_baselines3.common.vec_env import VecCheckNan  # noqa: E402

from meeple.agents import make_agent  # noqa: E402
from meeple.agents.random_agent import RandomAgent, sample_masked  # noqa: E402
from meeple.envs.selfplay import SelfPlayVecEnv  # noqa: E402

GAME = "roll_through_the_ages"


def make_env(n_envs: int = 8, seed: int = 0, num_players: int = 2, **kw) -> SelfPlayVecEnv:
    pool = [] if num_players == 1 else [RandomAgent(), make_agent("heuristic", GAME)]
    return SelfPlayVecEnv(GAME, n_envs, num_players=num_players, opponents=pool, seed=seed, **kw)


def at_learner_turn(env: SelfPlayVecEnv) -> bool:
    return bool(np.all(~env.state.done & (env.state.to_play == env.learner_seat)))


def play(env, steps: int, rng: np.random.Generator, on_step=None):
    """Random masked learner moves for `steps` steps; returns all (obs, rewards, dones, infos)."""
    out = []
    for _ in range(steps):
        result = env.step(sample_masked(env.action_masks(), rng))
        out.append(result)
        if on_step is not None:
            on_step(*result)
    return out


@pytest.mark.parametrize("num_players", [1, 2, 3])
def test_vecenv_contract(num_players):
    env = make_env(n_envs=6, num_players=num_players)
    checked = VecCheckNan(env, raise_exception=True)
    space, n, A = env.observation_space, env.num_envs, env.action_space.n
    obs = checked.reset()
    assert obs.shape == (n, *space.shape) and obs.dtype == space.dtype
    assert at_learner_turn(env)
    finished = 0
    ep_reward = np.zeros(n)
    rng = np.random.default_rng(1)
    for _ in range(400):
        masks = env.action_masks()
        assert masks.shape == (n, A) and masks.dtype == np.bool_
        assert np.array_equal(masks, env.game.legal_action_mask(env.state))  # the learner's rows, from the core
        assert np.array_equal(np.stack(env.env_method("action_masks")), masks)  # what MaskablePPO calls
        assert masks.any(axis=1).all()  # some legal action always exists: nothing illegal is ever needed
        obs, rewards, dones, infos = checked.step(sample_masked(masks, rng))
        assert obs.shape == (n, *space.shape) and obs.dtype == space.dtype
        assert all(space.contains(row) for row in obs)
        assert rewards.shape == (n,) and rewards.dtype == np.float32
        assert dones.shape == (n,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == n
        assert at_learner_turn(env)  # after autoreset every row waits for the learner
        ep_reward += rewards
        assert np.all(rewards[~dones] == 0.0)
        for i in np.flatnonzero(dones):
            info = infos[i]
            term = info["terminal_observation"]
            assert term.shape == space.shape and space.contains(term)
            assert not np.array_equal(term, obs[i])  # obs[i] already starts the next episode
            assert rewards[i] == pytest.approx(info["returns"][info["learner_seat"]])
            assert info["episode"]["r"] == pytest.approx(ep_reward[i])
            assert info["episode"]["l"] >= 1
            assert len(info["scores"]) == num_players
            ep_reward[i] = 0.0
            finished += 1
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}
    assert finished > 0
    assert env.get_attr("num_players") == [num_players] * n
    assert env.env_is_wrapped(object) == [False] * n
    assert env.has_attr("action_masks")
    env.close()


def test_learner_seat_rotates_by_episode():
    env = make_env(n_envs=5, num_players=3)
    assert np.array_equal(env.learner_seat, np.arange(5) % 3)
    episodes = np.zeros(5, dtype=int)

    def check(obs, rewards, dones, infos):
        for i in np.flatnonzero(dones):
            assert infos[i]["learner_seat"] == (i + episodes[i]) % 3
            assert infos[i]["opponents"][infos[i]["learner_seat"]] == "learner"
            episodes[i] += 1
        assert np.array_equal(env.learner_seat, (np.arange(5) + episodes) % 3)

    play(env, 500, np.random.default_rng(2), check)
    assert episodes.min() >= 2


class SpyAgent(RandomAgent):
    """A random opponent that checks every row it is asked to play against the env's full state."""

    def __init__(self, env_ref: list) -> None:
        self.env_ref = env_ref
        self.calls = 0
        self.rows = 0

    def act(self, game, state, rng):
        env = self.env_ref[0]
        if env is not None:  # rows handed over are copies of env rows taken just before the move
            full = env.state
            for r in range(len(state.done)):
                same = np.ones(env.num_envs, dtype=bool)
                for a, b in zip(full, state):
                    same &= (a.reshape(env.num_envs, -1) == b[r].reshape(1, -1)).all(axis=1)
                assert same.any()
                assert np.any(same & ~full.done & (full.to_play != env.learner_seat)), "opponent on a learner turn"
            self.calls += 1
            self.rows += len(state.done)
        return super().act(game, state, rng)


def test_opponents_only_move_on_their_turns():
    ref = [None]
    spy = SpyAgent(ref)
    env = SelfPlayVecEnv(GAME, 6, opponents=[spy], seed=3)
    ref[0] = env
    env.reset()
    play(env, 300, np.random.default_rng(3))
    assert spy.calls > 0 and spy.rows > 0


def test_move_accounting():
    """Every decision in the games is the learner's (one per row per step) or an opponent's."""
    counter = {"rows": 0}

    class Counting(RandomAgent):
        def act(self, game, state, rng):
            counter["rows"] += len(state.done)
            return super().act(game, state, rng)

    env = SelfPlayVecEnv(GAME, 4, opponents=[Counting()], seed=4)
    assert env.timing["game_steps"] == counter["rows"]  # only opponents moved so far (after reset)
    play(env, 200, np.random.default_rng(4))
    assert env.timing["game_steps"] == 200 * 4 + counter["rows"]


def test_determinism_given_seed():
    def run(seed):
        env = make_env(n_envs=4, seed=seed)
        obs0 = env.reset()
        results = play(env, 150, np.random.default_rng(7))
        return obs0, results

    (o1, r1), (o2, r2), (o3, r3) = run(5), run(5), run(6)
    assert np.array_equal(o1, o2)
    for (a, b, c, d), (e, f, g, h) in zip(r1, r2):
        assert np.array_equal(a, e) and np.array_equal(b, f) and np.array_equal(c, g)
        assert [x.get("scores") for x in d] == [x.get("scores") for x in h]
    assert not np.array_equal(o1, o3) or not all(np.array_equal(x[0], y[0]) for x, y in zip(r1, r3))


def test_seed_method_restarts_streams():
    env = make_env(n_envs=4, seed=0)
    env.seed(11)
    a = env.reset()
    ra = play(env, 50, np.random.default_rng(0))
    env.seed(11)
    b = env.reset()
    rb = play(env, 50, np.random.default_rng(0))
    assert np.array_equal(a, b)
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(ra, rb))


def test_illegal_learner_action_raises():
    env = make_env(n_envs=3)
    actions = np.argmin(env.action_masks(), axis=1)  # an illegal action in every row
    assert not env.action_masks()[np.arange(3), actions].any()
    with pytest.raises(ValueError, match="illegal learner action"):
        env.step(actions)


def test_illegal_opponent_action_raises():
    class Bad:
        name = "bad"

        def act(self, game, state, rng):
            return np.argmin(game.legal_action_mask(state), axis=1)

    with pytest.raises(RuntimeError, match="illegal action"):
        env = SelfPlayVecEnv(GAME, 8, opponents=[Bad()], seed=0)
        play(env, 50, np.random.default_rng(0))


def test_add_opponent_and_weights():
    env = make_env(n_envs=8)
    k = env.add_opponent(RandomAgent(), weight=1.0)
    env.set_opponent_weight(0, 0.0)
    env.set_opponent_weight(1, 0.0)
    env.reset()
    opp = env.seat_opponent[np.arange(8), 1 - env.learner_seat]
    assert np.all(opp == k)
    assert np.all(env.seat_opponent[np.arange(8), env.learner_seat] == -1)


def test_shaping_is_off_by_default_and_telescopes():
    env = make_env(n_envs=4, shaping=0.01)
    rows = np.arange(4)

    def margins():  # learner score minus opponent score at the learner's current decision
        scores = env.game.scores(env.state)
        return scores[rows, env.learner_seat] - scores[rows, 1 - env.learner_seat]

    start = margins()  # the opponent may have moved first
    finished = []

    def check(obs, rewards, dones, infos):
        for i in np.flatnonzero(dones):  # the bonuses telescope to 0.01 * (final margin - start margin)
            info = infos[i]
            seat = info["learner_seat"]
            margin = info["scores"][seat] - info["scores"][1 - seat]
            expected = info["returns"][seat] + 0.01 * (margin - start[i])
            assert info["episode"]["r"] == pytest.approx(expected, abs=1e-4)
            finished.append(i)
        start[dones] = margins()[dones]

    play(env, 200, np.random.default_rng(8), check)
    assert finished
    plain = make_env(n_envs=4)
    plain_rewards = np.concatenate([r for _, r, _, _ in play(plain, 150, np.random.default_rng(8))])
    assert set(np.unique(plain_rewards)) <= {-1.0, 0.0, 1.0}


def test_maskable_ppo_learns_a_few_steps_and_snapshot_plays():
    from sb3_contrib import MaskablePPO

    from meeple.agents.policy import FrozenPolicyAgent

    env = make_env(n_envs=4)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=256)
    snapshot = FrozenPolicyAgent(model.policy, GAME, name="ppo:snapshot@256")
    k = env.add_opponent(snapshot, weight=1e6)
    env.reset()
    assert np.all(env.seat_opponent[np.arange(4), 1 - env.learner_seat] == k)
    play(env, 100, np.random.default_rng(9))  # the env checks every opponent action is legal
    before = [p.detach().clone() for p in snapshot.policy.parameters()]
    model.learn(total_timesteps=128)  # training the learner does not move the frozen copy
    assert all(np.array_equal(a, b.detach()) for a, b in zip(before, snapshot.policy.parameters()))
    game, state = env.game, env.state
    a1 = snapshot.act(game, state, np.random.default_rng(0))
    a2 = snapshot.act(game, state, np.random.default_rng(0))
    assert np.array_equal(a1, a2)  # stochastic, but deterministic given rng
    assert game.legal_action_mask(state)[np.arange(4), a1].all()


def test_frozen_policy_matches_sb3_predict_and_distribution():
    import torch as th
    from sb3_contrib import MaskablePPO

    from meeple.agents.policy import FrozenPolicyAgent
    from meeple.envs import core

    env = make_env(n_envs=16)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [32]})
    play(env, 20, np.random.default_rng(10))
    game, state = env.game, env.state
    obs = env.encoder.encode(game.observe(state, state.to_play))
    mask = game.legal_action_mask(state)
    expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
    greedy = FrozenPolicyAgent(model.policy, GAME, deterministic=True)
    logits = np.sort(greedy._masked_logits(obs, mask), axis=1)
    clear = logits[:, -1] - logits[:, -2] > 1e-4  # rows whose best action is not a float-rounding tie
    assert clear.sum() >= 8
    assert np.array_equal(greedy.act(game, state, np.random.default_rng(0))[clear], expected[clear])

    one = core.take(state, np.zeros(20_000, dtype=np.int64))  # one position, many samples
    sampler = FrozenPolicyAgent(model.policy, GAME)
    counts = np.bincount(sampler.act(game, one, np.random.default_rng(1)), minlength=game.num_actions) / 20_000
    with th.no_grad():
        probs = model.policy.get_distribution(th.as_tensor(obs[:1]), action_masks=mask[:1]).distribution.probs[0].numpy()
    assert np.all(counts[~mask[0]] == 0)
    assert np.abs(counts - probs).max() < 0.02


def test_plain_actor_equals_the_policy_modules():
    import torch as th
    from sb3_contrib import MaskablePPO

    from meeple.agents.policy import FrozenPolicyAgent

    env = make_env(n_envs=8)
    obs = env.reset()
    mask = env.action_masks()
    for arch, act in (([64, 32], th.nn.Tanh), ([16], th.nn.ReLU)):
        model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": arch, "activation_fn": act})
        agent = FrozenPolicyAgent(model.policy, GAME)
        assert agent._layers is not None
        with th.no_grad():
            expected = model.policy.action_net(model.policy.mlp_extractor.forward_actor(th.as_tensor(obs))).numpy()
        np.testing.assert_allclose(agent._masked_logits(obs, mask)[mask], expected[mask], rtol=1e-5, atol=1e-6)
        agent._layers = None  # the generic path through the modules
        np.testing.assert_allclose(agent._masked_logits(obs, mask)[mask], expected[mask], rtol=1e-5, atol=1e-6)


def test_collect_demonstrations_returns_and_cloning():
    from sb3_contrib import MaskablePPO

    from meeple.agents.policy import imitation_train
    from meeple.envs.selfplay import collect_demonstrations

    env = make_env(n_envs=8)
    teacher = make_agent("heuristic", GAME)
    gamma = 0.9
    data = collect_demonstrations(env, teacher, 8 * 200, gamma, seed=3)
    n = len(data["action"])
    assert 0 < n <= 8 * 200 and data["obs"].shape == (n, env.observation_space.shape[0])
    assert data["mask"][np.arange(n), data["action"]].all()  # the teacher's actions are legal
    # win/loss only: every return is +-gamma^k (or 0 for a draw), and |return| grows towards the end
    k = np.log(np.abs(data["ret"][data["ret"] != 0])) / np.log(gamma)
    assert np.allclose(k, np.round(k), atol=1e-3)
    assert at_learner_turn(env) and env.ep_len.max() == 0  # reset afterwards
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [64]})
    first = imitation_train(model.policy, data, 1, batch_size=256, log=None)
    last = imitation_train(model.policy, data, 10, batch_size=256, log=None)
    assert last["ce"] < first["ce"] and last["accuracy"] > 0.5


def test_teacher_labels_the_learner_states():
    env = make_env(n_envs=8, seed=4)
    teacher = make_agent("heuristic", GAME)
    env.teacher = teacher
    env.reset()
    for _ in range(150):
        labels = env.teacher_actions.copy()
        assert env.action_masks()[np.arange(8), labels].all()
        # the labels are the teacher's choices in the current states (the heuristic ignores rng unless tied)
        assert np.array_equal(labels, teacher.act(env.game, env.state, np.random.default_rng(0)))
        env.step(labels)
    assert env.timing["teacher_s"] > 0
    assert len(env.teacher_history) == 150 and np.array_equal(env.teacher_history[-1], labels)
