"""Generic rules-core checks for every registered game (after Pgx's api_test).

A game gets all of these by registering in `meeple.envs.GAMES` with its test configurations.
"""

from __future__ import annotations

import json
import re
from importlib import import_module

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import core

from helpers import random_playout


def test_playouts_end_and_masks_nonempty(game_case, rng):
    _, _, game = game_case
    state, _ = random_playout(game, rng, 64)
    assert state.done.all()
    assert game.legal_action_mask(state).all(), "finished rows have an all-True mask"
    returns = game.returns(state)
    assert returns.shape == (64, game.num_players) and returns.dtype == np.float32
    if game.num_players > 1:
        np.testing.assert_allclose(returns.sum(axis=1), 0.0, atol=1e-5)
        assert (returns >= -1).all() and (returns <= 1).all()


def test_returns_zero_until_done(game_case, rng):
    _, _, game = game_case
    state = game.init(rng, 16)
    assert not state.done.any()
    assert (game.returns(state) == 0).all()


def test_step_is_pure(game_case, rng):
    _, _, game = game_case
    state = game.init(rng, 32)
    for _ in range(30):
        before = core.clone(state)
        actions = sample_masked(game.legal_action_mask(state), rng)
        new = game.step(state, actions, rng)
        assert core.states_equal(before, state), "step must not modify its input"
        state = new


def test_batch_returns_the_next_mask_in_the_same_pass(game_case, rng):
    """A `Batch` steps its games in place and returns the new state's legal_action_mask (computed in the
    step's own compiled call where the game has one): the same states as the plain step, at batch size
    one (one compiled call for every game) and above it; its mask cannot be written through."""
    name, _, game = game_case
    # a game whose rows can step and mask in one pass says so (`info.fused_mask`), and a Batch uses it
    assert game.info.fused_mask == hasattr(game.kernels, "apply_mask_row") == game.fused_step_mask
    for B in (1, 48):
        plain = game.init(np.random.default_rng(3), B)
        owner = game.batch(np.random.default_rng(4), state=plain)
        assert owner.state is not plain and core.states_equal(owner.state, plain)
        rng_a = np.random.default_rng(4)
        mask = owner.mask
        for step in range(400):
            actions = sample_masked(mask, rng)
            game.step_inplace(plain, actions, rng_a)
            mask = owner.step(actions)
            assert core.states_equal(plain, owner.state), f"B={B} step {step}"
            assert np.array_equal(mask, game.legal_action_mask(plain)), f"B={B} step {step}"
            if plain.done.all():
                break
        with pytest.raises(ValueError, match="read-only"):
            mask[0, 0] = not mask[0, 0]
    # rows restart with new games, and the mask follows
    owner = game.batch(np.random.default_rng(5), 6)
    before = core.clone(owner.state)
    owner.reset_rows(np.array([1, 4]))
    assert core.states_equal(core.take(owner.state, [0, 2, 3, 5]), core.take(before, [0, 2, 3, 5]))
    np.testing.assert_array_equal(owner.mask, game.legal_action_mask(owner.state))
    for bad in (np.array([6]), np.array([-1]), np.zeros(5, dtype=bool), np.array([0.5])):
        with pytest.raises(ValueError, match="rows"):
            owner.reset_rows(bad)


def test_done_rows_are_unchanged(game_case, rng):
    _, _, game = game_case
    state, _ = random_playout(game, rng, 8)
    again = game.step(state, np.zeros(8, dtype=np.int64), rng)
    assert core.states_equal(state, again)


def test_same_seed_same_game(game_case):
    _, _, game = game_case
    a, _ = random_playout(game, np.random.default_rng(7), 16)
    b, _ = random_playout(game, np.random.default_rng(7), 16)
    c, _ = random_playout(game, np.random.default_rng(8), 16)
    assert core.states_equal(a, b)
    assert not core.states_equal(a, c)


def test_batch_row_equals_single_game(game_case, rng):
    """Row i of a batched `apply` equals the same game run alone with row i's actions and uniforms."""
    _, _, game = game_case
    B = 6
    u0 = rng.random((B, game.uniforms_per_step))
    state = game.init_from_uniforms(u0)
    singles = [game.init_from_uniforms(u0[i:i + 1]) for i in range(B)]
    for i in range(B):
        assert core.states_equal(core.take(state, i), singles[i])
    steps = 0
    while not state.done.all() and steps < 3000:
        actions = sample_masked(game.legal_action_mask(state), rng)
        u = rng.random((B, game.uniforms_per_step))
        state = game.apply(state, actions, u)
        for i in range(B):
            if not singles[i].done[0]:
                singles[i] = game.apply(singles[i], actions[i:i + 1], u[i:i + 1])
            assert core.states_equal(core.take(state, i), singles[i]), f"row {i} diverged at step {steps}"
        steps += 1


def test_a_narrow_u_reads_on_as_its_extension(game_case, rng):
    """`step` draws `uniforms_per_step` uniforms per row (one, for the games whose deals read on from a
    per-row stream); `apply` with that narrow u equals `apply` with u extended to the full
    UNIFORMS_PER_STEP columns by `core.extend_uniforms`, over whole games (deals included)."""
    _, _, game = game_case
    K, W = game.UNIFORMS_PER_STEP, game.uniforms_per_step
    assert 1 <= W <= K
    B = 8
    narrow = wide = game.init(rng, B)
    for step in range(3000):
        if narrow.done.all():
            break
        actions = sample_masked(game.legal_action_mask(narrow), rng)
        u = rng.random((B, W))
        narrow = game.apply(narrow, actions, u)
        wide = game.apply(wide, actions, core.extend_uniforms(u, K))
        assert core.states_equal(narrow, wide), f"step {step}"
    assert narrow.done.all()


def test_save_load_round_trip(game_case, rng, tmp_path):
    _, _, game = game_case
    state = game.init(rng, 5)
    for _ in range(40):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    path = tmp_path / "state.json"
    core.save_state(game, state, path)
    loaded = core.load_state(game, path)
    assert core.states_equal(state, loaded)
    # the loaded state plays on identically
    actions = sample_masked(game.legal_action_mask(state), rng)
    u = rng.random((5, game.uniforms_per_step))
    assert core.states_equal(game.apply(state, actions, u), game.apply(loaded, actions, u))


def _corrupt(payload, mutate):
    bad = json.loads(json.dumps(payload))
    mutate(bad)
    return bad


def test_malformed_saved_state_is_rejected(game_case, rng, tmp_path):
    name, _, game = game_case
    state = game.init(rng, 2)
    payload = game.to_dict(state)
    first = state._fields[0]
    cases = {
        "not an object": [1, 2, 3],
        "wrong format": _corrupt(payload, lambda d: d.__setitem__("format", "pickle")),
        "wrong game": _corrupt(payload, lambda d: d.__setitem__("game", "chess")),
        "wrong config": _corrupt(payload, lambda d: d["config"].__setitem__("num_players", 99)),
        "missing field": _corrupt(payload, lambda d: d["fields"].pop(first)),
        "extra field": _corrupt(payload, lambda d: d["fields"].__setitem__("cheat", [1, 2])),
        "ragged": _corrupt(payload, lambda d: d["fields"].__setitem__(first, [[1], [1, 2]])),
        "wrong batch": _corrupt(payload, lambda d: d["fields"].__setitem__(first, [0])),
        "strings": _corrupt(payload, lambda d: d["fields"].__setitem__(first, ["a", "b"])),
        "overflow": _corrupt(payload, lambda d: d["fields"].__setitem__(first, [10**9, 0])),
    }
    for _label, bad in cases.items():
        with pytest.raises(ValueError):
            game.from_dict(bad)
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        core.load_state(game, path)
    # the state the payload came from is untouched by all of this
    assert core.states_equal(state, game.from_dict(payload))


def test_info_holds_the_facts_generic_code_reads(game_case):
    """Player range, hidden fields and encoder kinds come from the game itself (`GameInfo`), the same as
    the registry's helpers find by importing the game's modules."""
    name, _, game = game_case
    from meeple.envs import encoder_kinds, player_range

    assert (game.info.min_players, game.info.max_players) == player_range(name)
    assert game.info.min_players <= game.num_players <= game.info.max_players
    assert game.info.encoder_kinds == encoder_kinds(name)
    assert set(game.info.hidden_fields) <= {f.name for f in game.FIELDS}
    assert bool(game.info.hidden_fields) == game.info.has_hidden_information


def test_every_variant_flag_is_checked_by_its_type(game_case):
    """Each field of the game's Config is checked by its annotation (`base.GameConfig`): a value of the wrong
    kind or outside its range or choices is refused with a ValueError naming the flag."""
    import dataclasses

    name, config, game = game_case
    fields = dataclasses.fields(game.config)
    assert fields and all(f.name in repr(game.config) for f in fields)
    for field in fields:
        value = getattr(game.config, field.name)
        if isinstance(value, bool):
            bad = [1, "yes", None]
        elif isinstance(value, int):
            bad = [True, 1.0, "2", -(10 ** 9), 10 ** 9]
        else:
            bad = [value.upper() + "?", 0, None]
        for wrong in bad:
            with pytest.raises(ValueError, match=field.name):
                type(game.config)(**{**config, field.name: wrong})


def test_determinize_keeps_own_observation(game_case, rng):
    """Leak test: resampling what `player` cannot see leaves `player`'s observation unchanged (every encoder kind)."""
    name, _, game = game_case
    from meeple.envs import encoder_kinds, make_encoder

    state = game.init(rng, 16)
    for _ in range(60):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    for kind in encoder_kinds(name) or (None,):
        encoder = make_encoder(name, game, kind)
        for player in range(game.num_players):
            before = encoder.encode(game.observe(state, player))
            resampled = game.determinize(state, player, np.random.default_rng(player))
            after = encoder.encode(game.observe(resampled, player))
            np.testing.assert_array_equal(before, after, err_msg=f"{kind}")


def test_determinize_resamples_hidden_information(game_case, rng):
    """Leak test, other half: for hidden-information games, different seeds give different hidden parts."""
    _, _, game = game_case
    state = game.init(rng, 16)
    for _ in range(60):
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
    a = game.determinize(state, 0, np.random.default_rng(1))
    b = game.determinize(state, 0, np.random.default_rng(2))
    game.validate(a)
    if game.info.has_hidden_information:
        assert not core.states_equal(a, b), "determinize must resample what the player cannot see"
    else:
        assert core.states_equal(a, state) and core.states_equal(b, state)


def test_info_is_consistent(game_case):
    _, config, game = game_case
    info = game.info
    assert info.num_players == config["num_players"] == game.num_players
    assert info.num_actions == game.num_actions == len(game.action_names)
    assert info.max_game_length > 0


# an engine tag: an upper-case snake-case token (A_COLONY, MARK_REROLL_0, END_TURN, LAND_GREx2_FIR-3>WIN-4)
ENGINE_TAG = re.compile(r"[A-Z][A-Z0-9]*_[A-Za-z0-9_]+")


def _engine_names(game) -> set[str]:
    """The engine's own names of `game`: its action names and the tags of its data tables (decisions,
    Roll Through the Ages' die faces, Hadara's purple abilities)."""
    data = import_module(game.render_module.rsplit(".", 1)[0] + ".data")
    tables = ("DECISION_NAMES", "FACE_NAMES", "ABILITY_NAMES")
    return set(game.action_names) | {tag for table in tables for tag in getattr(data, table, ())}


def _check_words(game, state, names: set[str]) -> None:
    """The words of every legal action of row 0 (the rule of `test_action_to_str_reads_as_words`)."""
    legal = np.flatnonzero(game.legal_action_mask(state)[0])
    texts = [game.action_to_str(state, int(a)) for a in legal]
    for a, text in zip(legal, texts):
        name = game.action_names[a]
        assert isinstance(text, str) and text.strip() == text and text, name
        assert not text.startswith(name), (name, text)
        assert not ENGINE_TAG.search(text), (name, text)
        assert not names & set(re.findall(r"[\w-]+", text)), (name, text)
    assert len(set(texts)) == len(texts), [t for t in texts if texts.count(t) > 1][:4]


def test_action_to_str_names_every_action(game_case, rng):
    """Every action index has words in a position, legal or not, and none starts with its engine name
    (which stays `game.action_names[a]`); two legal moves never read the same."""
    _, _, game = game_case
    state = game.init(rng, 1)
    texts = [game.action_to_str(state, a) for a in range(game.num_actions)]
    assert all(text and not text.startswith(game.action_names[a]) for a, text in enumerate(texts))
    legal = np.flatnonzero(game.legal_action_mask(state)[0])
    assert len({texts[a] for a in legal}) == len(legal)
    assert isinstance(game.render_text(state), str) and game.render_text(state)


def test_action_to_str_reads_as_words(game_case):
    """`action_to_str` is what a person reads (the terminal, the web app, narration): over random positions
    of seeded games, the text of every legal action is non-empty words that do not start with the
    action's engine name, and the legal actions of one position never read the same.

    The rule for "words": no engine tag, i.e. no upper-case snake-case token (`ENGINE_TAG`: A_COLONY,
    MARK_REROLL_0, END_TURN) and, as a whole word, none of the game's engine names (`_engine_names`: its
    action names such as ROLL, PASS, GOLD, STORE, END, and the tags of its data tables: decisions such as
    TRADE_OFFER, the die faces FOOD3 and WORKERS3, the abilities SELL_BONUS). Codes that are the only
    name a thing has on the board are allowed, as none of them is an engine name: card, tile and
    fountain-card codes (I-P09, B04, L28, T09, FC03, C14), districts and civilizations (EAR-1, EGY), the
    landscape and colour letters of costs, tile faces and piles (W1 F2, .MH.W.., R B G P Y)."""
    _, _, game = game_case
    names = _engine_names(game)
    for seed in range(2):
        rng = np.random.default_rng(seed)
        state = game.init(rng, 1)
        for _ in range(150):
            if state.done[0]:
                break
            _check_words(game, state, names)
            state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
