"""Bad input never corrupts memory: every reproduction of the hardening report, through the public API.

Each bad action, seat, uniform array, state or saved payload must raise ValueError naming the problem
and leave the state it was given unchanged. The saved-state fuzzer (envs/fuzz.py) runs briefly here;
`benchmarks/soak.py --fuzz N` runs it long. The kernels check every index (docs/memory_safety.md), so
an out-of-bounds index in a kernel fails a test instead of writing into another row.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core, encoder_kinds, make, make_encoder
from meeple.envs.fuzz import fuzz_saves





def _unchanged_after(call, state) -> None:
    before = core.clone(state)
    with pytest.raises(ValueError):
        call()
    assert core.states_equal(state, before), "a rejected call changed the state"


def test_nan_and_inf_actions_are_rejected(case) -> None:
    _, _, game, state = case
    u = np.zeros((4, game.uniforms_per_step))
    for bad in (np.nan, np.inf, -np.inf):
        _unchanged_after(lambda bad=bad: game.apply_inplace(state, np.full(4, bad), u), state)


def test_out_of_range_actions_are_rejected(case) -> None:
    _, _, game, state = case
    u = np.zeros((4, game.uniforms_per_step))
    for bad in (-1, -1000, game.num_actions, 10**10):
        actions = np.zeros(4, dtype=np.int64)
        actions[2] = bad
        _unchanged_after(lambda a=actions: game.apply_inplace(state, a, u), state)


def test_float_string_and_bool_actions_are_rejected_not_truncated(case) -> None:
    _, _, game, state = case
    legal = np.argmax(game.legal_action_mask(state), axis=1)
    u = np.zeros((4, game.uniforms_per_step))
    for bad in (legal.astype(np.float64) + 0.4, legal.astype(str), legal.astype(bool)):
        _unchanged_after(lambda a=bad: game.apply_inplace(state, a, u), state)
    with pytest.raises(ValueError, match="integers"):
        game.apply(state, legal.astype(np.float64), u)


def test_strided_actions_play_as_contiguous_ones(case) -> None:
    """A column of an action table (a strided view) plays as the same actions in a contiguous array, and
    reaches the kernels as one: no second compiled version of the step for another memory layout."""
    _, _, game, state = case
    legal = np.argmax(game.legal_action_mask(state), axis=1)
    table = np.stack([legal, np.zeros_like(legal)], axis=1)
    u = np.zeros((4, game.uniforms_per_step))
    assert core.states_equal(game.apply(state, table[:, 0], u), game.apply(state, legal, u))
    layouts = {signature[0].layout for signature in getattr(game.entries.step_nb, "signatures", ())}
    assert layouts <= {"C"}, f"step_nb compiled for actions of layouts {sorted(layouts)}"


def _illegal_actions(state, mask):
    """One legal action per row, and in the first live row with an illegal action, that action."""
    live = np.flatnonzero(~state.done & ~mask.all(axis=1))
    assert live.size, "10 random moves leave live rows, and a live row always has an illegal action"
    actions = np.argmax(mask, axis=1)
    row = int(live[0])
    actions[row] = int(np.flatnonzero(~mask[row])[0])
    return actions, row


def test_masked_out_action_in_one_row_changes_no_row(case) -> None:
    """The report's Roll Through the Ages case: an in-range, masked-out action in row 1 changed row 0."""
    _, _, game, state = case
    actions, row = _illegal_actions(state, game.legal_action_mask(state))
    with pytest.raises(ValueError, match=f"row {row}"):
        game.apply(state, actions, np.zeros((4, game.uniforms_per_step)))
    _unchanged_after(lambda: game.apply_inplace(state, actions, np.zeros((4, game.uniforms_per_step))), state)


def test_no_mask_from_outside_is_believed(case) -> None:
    """Legality is checked on a mask the core computes for the very state it steps: the pure calls take
    no mask at all, and an owner (`Batch`) keeps its own where nobody writes it. A mask edited into a lie
    (the issue's reproduction: the array legal_action_mask returned, set all True) gets no illegal action
    through; the owner's mask refuses writes; the state is unchanged after each refusal."""
    _, _, game, state = case
    mask = game.legal_action_mask(state)
    actions, row = _illegal_actions(state, mask)
    u = np.zeros((4, game.uniforms_per_step))
    rng = np.random.default_rng(0)
    mask[:] = True  # edited, as a user would
    for call in (lambda: game.apply_inplace(state, actions, u), lambda: game.step_inplace(state, actions, rng),
                 lambda: game.apply(state, actions, u), lambda: game.step(state, actions, rng)):
        before = core.clone(state)
        with pytest.raises(ValueError, match=f"row {row}"):
            call()
        assert core.states_equal(state, before), "a refused step changed the state"
    for call in (lambda: game.step(state, actions, rng, mask), lambda: game.apply(state, actions, u, mask)):
        with pytest.raises(TypeError):
            call()  # no mask argument to lie with
    owner = game.batch(rng, state=state)
    with pytest.raises(ValueError, match="read-only"):
        owner.mask[row] = True
    before = core.clone(owner.state)
    with pytest.raises(ValueError, match=f"row {row}"):
        owner.step(actions)
    assert core.states_equal(owner.state, before)
    # a mask from before a step: legal then, perhaps not now
    before_mask = owner.mask.copy()
    owner.step(np.argmax(before_mask, axis=1))
    now = owner.mask
    stale = np.argwhere(before_mask & ~now & ~owner.state.done[:, None])
    if stale.size:
        actions = np.argmax(now, axis=1)
        actions[stale[0, 0]] = stale[0, 1]
        _unchanged_after(lambda: owner.step(actions), owner.state)


def test_illegal_actions_never_reach_a_kernel_in_random_games(case) -> None:
    """Random in-range illegal actions at every step of random games, through the pure calls and through an
    owner: each is refused, nothing changes (with the kernels' index checks, an index outside an array
    would fail here as a ValueError instead)."""
    _, _, game, _ = case
    rng = np.random.default_rng(5)
    owner = game.batch(rng, 8)
    state = owner.state
    refused = 0
    for _ in range(60):
        mask = owner.mask
        live = np.flatnonzero(~state.done & ~mask.all(axis=1))
        if live.size == 0:
            break
        actions = sample_masked(mask, rng)
        row = int(rng.choice(live))
        actions[row] = int(rng.choice(np.flatnonzero(~mask[row])))
        _unchanged_after(lambda a=actions: game.apply_inplace(state, a, rng.random((8, game.uniforms_per_step))), state)
        _unchanged_after(lambda a=actions: owner.step(a), state)
        refused += 1
        owner.step(sample_masked(mask, rng))
    assert refused >= 10


def test_encoders_refuse_views_they_cannot_read(case) -> None:
    """The encoders' kernels take their loops and offsets from the configuration, so a view of another
    player count, a field of the wrong shape or dtype, a seat out of range or a State instead of a View
    is refused with a ValueError before any kernel reads it; an encoder made without its game cannot encode."""
    name, config, game, state = case
    view = game.observe(state, 0)
    other_count = next((c for c in GAMES[name].test_configs if c["num_players"] != config["num_players"]), None)
    first = game.View._fields[1]
    bad = {"a State": state, "a short field": view._replace(**{first: view[1][:, :0] if view[1].ndim > 1 else view[1][:0]}),
           "a field of another dtype": view._replace(**{first: view[1].astype(np.float64)}),
           "a seat out of range": view._replace(viewer=np.full_like(view.viewer, game.num_players))}
    if other_count is not None:
        other = make(name, **other_count)
        bad["another player count's view"] = other.observe(other.init(np.random.default_rng(0), 4), 0)
    for kind in encoder_kinds(name):
        encoder = make_encoder(name, game, kind)
        encoder.encode(view)
        for what, value in bad.items():
            with pytest.raises(ValueError):
                encoder.encode(value)
                pytest.fail(f"{kind} encoder read {what}")
        with pytest.raises(ValueError, match="without its game"):
            _no_game(encoder).encode(view)


def _no_game(encoder):
    """A copy of `encoder` as if made without its game."""
    import copy

    bare = copy.copy(encoder)
    bare.game = None
    return bare


def test_rtta_build_action_zero_in_row_one_leaves_row_zero() -> None:
    game = make("roll_through_the_ages", num_players=2)
    rng = np.random.default_rng(0)
    state = game.init(rng, 2)
    for _ in range(200):  # reach a BUILD decision in row 1
        if state.decision[1] == 6:  # DEC_BUILD
            break
        state = game.step(state, np.argmax(game.legal_action_mask(state), axis=1), rng)
    assert state.decision[1] == 6
    mask = game.legal_action_mask(state)
    actions = np.argmax(mask, axis=1)
    actions[1] = 0
    assert not mask[1, 0]
    _unchanged_after(lambda: game.apply_inplace(state, actions, np.zeros((2, game.uniforms_per_step))), state)


def test_uniforms_must_be_finite_and_in_unit_interval(case) -> None:
    _, _, game, state = case
    actions = np.argmax(game.legal_action_mask(state), axis=1)
    for bad in (np.nan, np.inf, -0.1, 1.0, 7.0):
        u = np.full((4, game.uniforms_per_step), 0.5)
        u[1, 0] = bad
        _unchanged_after(lambda u=u: game.apply_inplace(state, actions, u), state)
        with pytest.raises(ValueError, match="u must"):
            game.init_from_uniforms(u)
    # strings and complex numbers are refused, not parsed or cut to their real part
    for bad in (np.full((4, game.uniforms_per_step), "0.5"), np.full((4, game.uniforms_per_step), 0.5 + 0.1j),
                np.full((4, game.uniforms_per_step), False), [["0.5"] * game.uniforms_per_step] * 4):
        _unchanged_after(lambda u=bad: game.apply_inplace(state, actions, u), state)
        with pytest.raises(ValueError, match="u must"):
            game.init_from_uniforms(bad)


def test_state_of_another_player_count_is_rejected(case) -> None:
    name, config, game, state = case
    lo, hi = game.info.min_players, game.info.max_players
    other_p = config["num_players"] + 1 if config["num_players"] < hi else lo
    other = make(name, **{**config, "num_players": other_p})  # the trade variant is tested at 3 players: 4 exists
    alien = other.init(np.random.default_rng(0), 4)
    with pytest.raises(ValueError):
        game.apply(alien, np.zeros(4, dtype=np.int64), np.zeros((4, game.uniforms_per_step)))
    for call in (game.legal_action_mask, game.scores, game.validate, lambda s: game.observe(s, 0)):
        with pytest.raises(ValueError):
            call(alien)


def test_malformed_state_fields_are_refused_naming_the_field(case) -> None:
    """The structure check every entry runs on a state it has not seen: a field of the wrong batch,
    trailing shape, dimension count or dtype, or not an array, is named in the ValueError."""
    _, _, game, state = case
    B = state[0].shape[0]
    for i in (0, len(state) // 2, len(state) - 1):
        name, field = state._fields[i], state[i]
        wrong = {
            "batch": np.zeros((B + 1, *field.shape[1:]), dtype=field.dtype),
            "trailing shape": np.zeros((B, *field.shape[1:], 2), dtype=field.dtype),
            "no batch axis": np.zeros((), dtype=field.dtype),
            "dtype": field.astype(np.float64),
            "a list": field.tolist(),
        }
        for what, value in wrong.items():
            if i == 0 and what == "batch":
                continue  # the first field sets the batch size
            bad = state._replace(**{name: value})
            with pytest.raises(ValueError, match=name):
                game.legal_action_mask(bad)


def test_views_refuse_rows_and_actions_the_state_does_not_have(case) -> None:
    """action_to_str, render_text, render_rgb and narrate describe one row: a row the state does not have
    (a negative one would quietly show another), a bool or float row, and an action outside the action
    space raise ValueError instead of numpy's IndexError or a made-up name."""
    _, _, game, state = case
    B = state[0].shape[0]
    for row in (B, -1, True, 1.0, "0"):
        with pytest.raises(ValueError, match="row"):
            game.action_to_str(state, 0, row)
        with pytest.raises(ValueError, match="row"):
            game.render_text(state, row)
        with pytest.raises(ValueError, match="row"):
            game.narrate(state, 0, state, row)
        if "rgb_array" in game.render_modes():
            with pytest.raises(ValueError, match="row"):
                game.render_rgb(state, row)
    for action in (-1, game.num_actions, True, 1.5, "0"):
        with pytest.raises(ValueError, match="action"):
            game.action_to_str(state, action, 0)
    with pytest.raises(ValueError, match="batch"):
        game.narrate(state, 0, core.take(state, [0]), 0)
    assert game.action_to_str(state, np.int64(game.num_actions - 1), B - 1)  # numpy integers are fine


@pytest.mark.parametrize("seat", [-1, 100, True, 1.0, "0"])
def test_observe_and_determinize_check_the_seat(case, seat) -> None:
    _, _, game, state = case
    rng = np.random.default_rng(0)
    bad = [seat, game.num_players]
    for s in bad:
        with pytest.raises(ValueError):
            game.observe(state, s)
        with pytest.raises(ValueError):
            game.determinize(state, s, rng)
    with pytest.raises(ValueError):
        game.determinize(state, np.array([0, 1, 2, 100]), rng)


def test_boolean_player_count_is_rejected() -> None:
    for name in GAMES:
        with pytest.raises(ValueError, match="num_players"):
            make(name, num_players=True)


def test_empty_batch_round_trips_through_its_own_save(case) -> None:
    _, _, game, state = case
    empty = core.take(state, np.arange(0))
    loaded = game.from_dict(json.loads(json.dumps(game.to_dict(empty))))
    assert core.states_equal(loaded, empty)


def test_deeply_nested_json_is_rejected_before_parsing(tmp_path) -> None:
    game = make("hadara", num_players=2)
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nests deeper"):
        core.load_state(game, path)
    payload = game.to_dict(game.init(np.random.default_rng(0), 1))
    nested: list = [0]
    for _ in range(3000):
        nested = [nested]
    payload["fields"]["coins"] = nested
    with pytest.raises(ValueError):
        game.from_dict(payload)


def test_rtta_nan_uniforms_at_init_are_rejected() -> None:
    game = make("roll_through_the_ages", num_players=2)
    with pytest.raises(ValueError, match="u must"):
        game.init_from_uniforms(np.full((3, 8), np.nan))


def test_rtta_trade_decision_in_a_game_without_trade_is_rejected() -> None:
    """The report's heap abort: a trade decision (3-5) loaded into a game without the trade variant."""
    game = make("roll_through_the_ages", num_players=2)
    payload = game.to_dict(game.init(np.random.default_rng(0), 1))
    for decision in (3, 4, 5):
        payload["fields"]["decision"] = [decision]
        with pytest.raises(ValueError):
            game.from_dict(payload)


def test_rtta_offer_in_progress_at_the_offer_limit_is_rejected() -> None:
    """Found by the fuzzer (session 8): a save in the middle of a trade offer whose turn has already used
    every offer (trade_offers == max_trade_offers) loaded, and withdrawing or proposing then counted
    one offer past the limit, so `validate` failed a few moves later. An offer is only begun below the
    limit, so such a save is refused; one offer fewer still loads and plays."""
    from meeple.agents.random_agent import sample_masked
    from meeple.envs.roll_through_the_ages import data
    game = make("roll_through_the_ages", num_players=3, trade=True)
    rng = np.random.default_rng(5)
    state = game.init(rng, 256)
    for _ in range(600):
        offering = np.flatnonzero(state.decision == data.DEC_TRADE_OFFER)
        if offering.size:
            break
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    assert offering.size, "no trade offer in 600 random steps"
    payload = game.to_dict(core.take(state, offering[:1]))
    limit = game.config.max_trade_offers
    payload["fields"]["trade_offers"] = [limit]
    with pytest.raises(ValueError, match="trade_offers"):
        game.from_dict(payload)
    payload["fields"]["trade_offers"] = [limit - 1]
    loaded = game.from_dict(payload)
    for _ in range(20):
        loaded = game.step(loaded, sample_masked(game.legal_action_mask(loaded), rng), rng)
        game.validate(loaded)


def test_rtta_saved_state_fuzz() -> None:
    """A short run of the fuzzer on every Roll Through the Ages configuration: no failure."""
    for config in GAMES["roll_through_the_ages"].test_configs:
        report = fuzz_saves(make("roll_through_the_ages", **config), 60, np.random.default_rng(11))
        assert not report.failures, report.failures[:3]
        assert report.rejected and report.played


# --- the AEC env ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(GAMES))
def test_aec_refuses_non_integer_actions(name) -> None:
    from meeple.envs import make_env
    from meeple.envs.aec import IllegalActionError

    env = make_env(name, raw=True)
    env.reset(seed=0)
    legal = env.legal_actions()[0]
    for bad in (legal + 0.9, float(legal), str(legal), str(legal).encode(), True, None, np.array([0.0])):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    env.step(np.int64(legal))  # numpy integers are fine


@pytest.mark.parametrize("name", list(GAMES))
def test_aec_masks_are_empty_once_the_game_is_over(name) -> None:
    from meeple.envs import make_env

    env = make_env(name)
    env.reset(seed=1)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert not obs["action_mask"].any() and env.legal_actions() == []
            for other in env.possible_agents:
                assert not env.observe(other)["action_mask"].any()
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("name", list(GAMES))
def test_aec_deepcopy_continues_the_same_game(name) -> None:
    import copy

    from meeple.envs import make_env

    env = make_env(name)
    env.reset(seed=2)
    for _ in range(5):
        env.step(env.legal_actions()[-1])
    twin = copy.deepcopy(env)
    assert core.states_equal(twin.game_state, env.game_state) and twin.agent_selection == env.agent_selection
    for _ in range(20):
        if not env.legal_actions():
            break
        a = env.legal_actions()[0]
        env.step(a)
        twin.step(a)
    assert core.states_equal(twin.game_state, env.game_state)
    assert twin.game_state is not env.game_state
