"""Invariant sweep: thousands of random Hadara games per configuration, checked after every step,
plus a Hadara-specific determinization leak test.

The number of games per configuration is MEEPLE_SWEEP_GAMES (1,500 by default, what CI runs, `tests/helpers.py`;
`benchmarks/soak.py` plays a million games per game with `validate` after every step). Every
check recomputes its quantity with numpy from the state's primary fields (tableaux, colonies, busts,
seals, piles), independently of the kernels and their derived caches.
"""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import core, default_encoder, make
from meeple.envs.hadara import data

from helpers import SWEEP_GAMES as GAMES

CONFIGS = [{"num_players": 2}, {"num_players": 3}, {"num_players": 5}, {"num_players": 4, "advanced": True}]
IDS = ["2p", "3p", "5p", "4p-advanced"]

# cards are ordered by epoch, then colour: group g = 5 * epoch + colour starts at GROUP_START[g]
GROUP_START = np.searchsorted(data.CARD_EPOCH * 5 + data.CARD_COLOUR, np.arange(15))


def _padded(table: np.ndarray, dtype) -> np.ndarray:
    """table with an extra all-zero row at the end, so that index -1 reads zeros."""
    return np.concatenate([table, np.zeros((1, *table.shape[1:]), dtype=table.dtype)]).astype(dtype)


# per card: 4 track steps, VP, 5 colour one-hot, 18 ability one-hot (float32 for a BLAS matmul; exact)
CARD_TABLE = np.concatenate([data.CARD_TRACKS, data.CARD_VP[:, None], np.eye(5)[data.CARD_COLOUR],
                             np.eye(data.NUM_ABILITIES + 1)[data.CARD_ABILITY][:, :data.NUM_ABILITIES]],
                            axis=1).astype(np.float32)
BACK_TRACKS_P = _padded(data.COLONY_BACK_TRACKS, np.int8)
BACK_VP_P = _padded(data.COLONY_BACK_VP, np.int16)
TILE_1H = _padded(np.eye(4, dtype=np.int8), np.int8)


def gather_sum(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """(B, P, k): sum over the last axis of ids (B, P, K) of the padded table (n + 1, k) rows; -1 reads zeros."""
    rows = np.take(np.ascontiguousarray(table.T), ids.astype(np.intp), axis=1)  # (k, B, P, K)
    return np.moveaxis(rows.sum(axis=-1, dtype=np.int64), 0, -1)


def per_player_counts(ids: np.ndarray, n: int) -> np.ndarray:
    """(B, P, n) how often each value 0..n-1 occurs in ids (B, P, K); -1 entries are ignored."""
    B, P = ids.shape[:2]
    ids = ids.astype(np.int64)
    flat = (np.arange(B * P, dtype=np.int64).reshape(B, P, 1) * n + ids)[ids >= 0]
    return np.bincount(flat, minlength=B * P * n).reshape(B, P, n)


def card_locations(s) -> np.ndarray:
    """(B, 162) how many places hold each card: inner stacks, pairs, piles, tableaux, face-down sales, discards."""
    B = s.done.shape[0]
    ids = np.concatenate([s.inner.reshape(B, -1), s.drawn.reshape(B, -1), s.outer.reshape(B, -1),
                          s.tableau.reshape(B, -1), s.sold_a.reshape(B, -1)], axis=1)
    return per_player_counts(ids[:, None, :], data.NUM_CARDS)[:, 0] + s.removed


def reference(s) -> dict[str, np.ndarray]:
    """Tracks, VP and tiles in use, recomputed with numpy from the primary fields."""
    held = per_player_counts(s.tableau, data.NUM_CARDS).astype(np.float32)  # (B, P, 162) cards in the tableau
    cards = np.rint(held.reshape(-1, data.NUM_CARDS) @ CARD_TABLE).astype(np.int64).reshape(*held.shape[:2], -1)
    # cards (B, P, 28): track steps, VP, colour counts, abilities
    counts = cards[..., 5:10]
    ab = cards[..., 10:]
    slot_tiles = per_player_counts(s.slot_tile, 4)
    bust_colour = np.where(s.bust >= 0, s.bust // 2, -1)
    front = (s.bust >= 0) & (s.bust % 2 == 0)
    back = (s.bust >= 0) & (s.bust % 2 == 1)
    boost = ab[..., data.BUST_BOOST, None]
    # tracks: start card + cards + allied backs + front busts (+ BUST_BOOST) + TILE_STEPS tiles + PER_*
    side = s.start_side.astype(np.int64)
    tracks = np.where((side >= 0)[..., None], data.START_TRACKS[s.start_card, np.maximum(side, 0)], 0).astype(np.int64)
    tracks += cards[..., :4]
    tracks += gather_sum(BACK_TRACKS_P, np.where(s.colony == 2, s.colony_id, -1))
    tracks += (TILE_1H[np.where(front, bust_colour, -1)] * ((data.BUST_REWARD + 2 * boost) * front)[..., None]).sum(axis=2)
    tracks += 2 * slot_tiles
    for a in (data.PER_BLUE_CUL, data.PER_YELLOW_INC, data.PER_GREEN_FOOD, data.PER_RED_MIL):
        col = data.ABILITY_PER_COLOUR[a]
        tracks[..., col] += ab[..., a] * counts[..., col]
    # VP, read on the state's tracks
    st = s.tracks.astype(np.int64)
    vp = np.where(s.colony == 1, data.COLONY_FRONT_VP, 0).sum(axis=2)
    vp += gather_sum(BACK_VP_P[:, None], np.where(s.colony == 2, s.colony_id, -1))[..., 0]
    vp += ((s.bust >= 0) * data.BUST_VP).sum(axis=2) + (back * (data.BUST_REWARD + 2 * boost)).sum(axis=2)
    # silver: each seal ceil(track / 2); SILVER_FULL upgrades the highest seals, one per copy
    seal_track = np.where(s.silver >= 0, np.take_along_axis(st, np.maximum(s.silver, 0).astype(np.int64), axis=2), -1)
    seal_track = -np.sort(-seal_track, axis=2)
    full = np.arange(2)[None, None, :] < ab[..., data.SILVER_FULL, None]
    vp += np.where(seal_track >= 0, np.where(full, seal_track, (seal_track + 1) // 2), 0).sum(axis=2)
    sets = counts.min(axis=2)
    # GOLD_WILDCARD: largest k with sum_c max(0, k - n_c) <= 1 (tried directly for k = sets + 1)
    k = sets + 1
    fits = np.maximum(0, k[..., None] - counts).sum(axis=2) <= 1
    gold_sets = np.where((ab[..., data.GOLD_WILDCARD] > 0) & fits, k, sets)
    vp += 7 * gold_sets * s.gold + 4 * sets * ab[..., data.SET_POINTS]
    vp += cards[..., 4]
    vp += s.coins // 5
    # bonus tiles in use per colour: busts, silver seals, TILE_STEPS cards
    tiles = gather_sum(TILE_1H, bust_colour) + gather_sum(TILE_1H, s.silver) + slot_tiles
    return {"tracks": tracks, "vp": vp, "tiles_used": tiles, "colour_count": counts, "abilities": ab}


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_random_games_keep_every_invariant(config):
    game = make("hadara", **config)
    P = config["num_players"]
    basic = not config.get("advanced", False)
    rng = np.random.default_rng(2024 + P)
    state = game.init(rng, GAMES)
    rows = np.arange(GAMES)
    paid = np.zeros((GAMES, P), dtype=np.int64)  # FEED_COINS covers per player in the current Feeding
    expected_groups = 2 * P
    group_epoch = np.arange(15) // 5
    steps = 0
    while True:
        game.validate(state)
        live = ~state.done
        # cards conserved: every card in at most one place; each dealt (epoch, colour) holds 2N outside the box
        where = card_locations(state)
        assert where.max() <= 1, "a card is in two places"
        groups = np.add.reduceat(where, GROUP_START, axis=1)
        dealt = group_epoch[None, :] <= state.epoch[:, None]
        np.testing.assert_array_equal(groups, np.where(dealt, expected_groups, 0), err_msg="cards not conserved")
        if basic:
            assert not where[:, data.CARD_STARRED].any(), "a starred card in the basic game"
        # derived tracks and caches, coins, seals, colonies, tiles, VP
        ref = reference(state)
        np.testing.assert_array_equal(state.tracks, ref["tracks"], err_msg="tracks != derived formula")
        np.testing.assert_array_equal(state.colour_count, ref["colour_count"])
        np.testing.assert_array_equal(state.ability_count, ref["abilities"])
        assert (state.coins >= 0).all()
        assert ((state.silver >= 0).sum(axis=2) <= 2).all() and (state.gold <= 2).all()
        for t in range(5):  # at most one colony per tier per player, distinct tiles of the tier
            ids = state.colony_id[:, :, t].astype(np.int64)
            taken = ids >= 0
            assert (np.where(taken, data.COLONY_TIER[np.maximum(ids, 0)], t) == t).all()
            srt = np.sort(np.where(taken, ids, -1 - np.arange(P)), axis=1)
            assert (np.diff(srt, axis=1) != 0).all(), "two players hold the same colony"
        assert (ref["tiles_used"] <= 2).all(), "more than 2 tiles of a colour in use"
        np.testing.assert_array_equal(state.free_tiles, 2 - ref["tiles_used"])
        np.testing.assert_array_equal(game.scores(state), ref["vp"], err_msg="VP != sum of parts")
        if state.done.all():
            break
        if live.mean() < 0.5:  # finished games are checked once more above, then dropped
            state, paid = core.take(state, np.flatnonzero(live)), paid[live]
            rows = np.arange(state.done.shape[0])
            live = ~state.done
        # masks non-empty until done; with auto_forced no agent ever faces a single legal action
        mask = game.legal_action_mask(state)
        n_legal = mask.sum(axis=1)
        assert (n_legal[live] >= 2).all(), "a live row offers fewer than 2 actions"
        actions = sample_masked(mask, rng)
        prev = state
        state = game.step(state, actions, rng)
        steps += 1
        assert steps <= game.info.max_game_length
        # Feeding: covers are counted per player; when a player's feeding is over, food + paid >= cards
        feeding = live & (prev.decision == data.DEC_B_FEED)
        actor = (prev.start_player + prev.turn) % P
        paid[rows[feeding & (actions == data.ACTION_FEED_PAY)], actor[feeding & (actions == data.ACTION_FEED_PAY)]] += 1
        moved_on = feeding & ((state.decision != data.DEC_B_FEED) | (state.turn != prev.turn))
        if moved_on.any():
            r, p = rows[moved_on], actor[moved_on]
            cards = (state.tableau[r, p] >= 0).sum(axis=1)
            assert (state.tracks[r, p, data.FOOD] + paid[r, p] >= cards).all(), "a player left feeding unfed"
        paid[state.decision != data.DEC_B_FEED] = 0
    # every game ends after epoch III's seals
    assert (state.epoch == 2).all() and (state.decision == data.DEC_GAME_OVER).all()
    assert not state.truncated.any()
    returns = game.returns(state)
    assert np.isfinite(returns).all()
    np.testing.assert_allclose(returns.sum(axis=1), 0.0, atol=1e-5)


def _draft_states(game, rng, batch=128, per_step=2):
    """Random positions in A_DRAFT with some players committed, spread over all three epochs."""
    state = game.init(rng, batch)
    picked = []
    while not state.done.all():
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
        rows = np.flatnonzero((state.decision == data.DEC_A_DRAFT) & state.committed.any(axis=1))
        if len(rows):
            picked.append(core.take(state, rng.choice(rows, size=min(per_step, len(rows)), replace=False)))
    out = core.concatenate(picked)
    assert set(np.unique(out.epoch)) == {0, 1, 2}
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_determinize_hides_nothing_and_resamples_the_hidden_part(config):
    """Leak test: p's observation is unchanged by determinize (two seeds), other players' pairs or the
    inner stacks differ between seeds, and public information stays put."""
    game = make("hadara", **config)
    encoder = default_encoder("hadara", game)
    state = _draft_states(game, np.random.default_rng(11))
    P = game.num_players
    public = ("coins", "tracks", "tableau", "outer", "outer_count", "inner_count", "colony", "bust", "silver",
              "gold", "committed", "removed", "colony_count", "decision", "to_play")
    for p in range(P):
        before = encoder.encode(game.observe(state, p))
        a = game.determinize(state, p, np.random.default_rng(100 + p))
        b = game.determinize(state, p, np.random.default_rng(200 + p))
        for resampled in (a, b):
            game.validate(resampled)
            np.testing.assert_array_equal(encoder.encode(game.observe(resampled, p)), before)
            for name in public:
                np.testing.assert_array_equal(getattr(resampled, name), getattr(state, name), err_msg=name)
            np.testing.assert_array_equal(resampled.drawn[:, p], state.drawn[:, p])
            np.testing.assert_array_equal(resampled.sold_a[:, p], state.sold_a[:, p])
            np.testing.assert_array_equal(resampled.pending[:, p], state.pending[:, p])
        others = [q for q in range(P) if q != p]
        differs = (a.inner != b.inner).reshape(a.inner.shape[0], -1).any(axis=1)
        differs |= (a.drawn[:, others] != b.drawn[:, others]).reshape(a.inner.shape[0], -1).any(axis=1)
        assert differs.mean() > 0.5, "determinize should resample the hidden cards"
        assert (a.colony_stack != b.colony_stack).any(), "colony stacks should be resampled"
        # the resampled game plays on: every row still has legal actions and the mask is consistent
        assert game.legal_action_mask(a).any(axis=1).all()


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_view_excludes_hidden_fields(config):
    """Hidden information: no View field equals a hidden array, and changing only hidden
    parts (another player's pair, the stacks, plundered backs) leaves the View unchanged."""
    game = make("hadara", **config)
    state = _draft_states(game, np.random.default_rng(5))
    P = game.num_players
    for p in range(P):
        view = game.observe(state, p)
        other = game.determinize(state, p, np.random.default_rng(p))
        view2 = game.observe(other, p)
        for name, x, y in zip(view._fields, view, view2):
            np.testing.assert_array_equal(x, y, err_msg=name)
        assert not any(name in view._fields for name in ("inner", "drawn", "pending", "colony_stack", "colony_id", "sold_a"))
        plundered = state.colony == 1
        assert (view.colony_back[plundered] == -1).all()
        if (state.sold_a >= 0).any():
            mine = view.own_sold
            np.testing.assert_array_equal(mine, state.sold_a[:, p])


def test_start_players_and_start_coins():
    """Rules example 1/22: start player by initiative rank per epoch; +1 coin for the
    ranks that never start (2 players: the one that starts only once)."""
    for P, ranks in ((2, (0, 1, 0)), (3, (0, 1, 2)), (4, (0, 1, 2)), (5, (0, 1, 2))):
        game = make("hadara", num_players=P)
        rng = np.random.default_rng(P)
        state = game.init(rng, 64)
        rank = np.argsort(np.argsort(state.start_card, axis=1), axis=1)
        extra = data.EXTRA_COIN_RANK[P][rank]
        base = data.START_COINS[state.start_card, 0]
        assert (state.decision == data.DEC_WHEEL).all()
        np.testing.assert_array_equal(state.coins, base + extra)
        np.testing.assert_array_equal(rank[np.arange(64), state.start_player], ranks[0])
        seen = {0}
        while not state.done.all():
            state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
            live = ~state.done
            np.testing.assert_array_equal(rank[np.arange(64), state.start_player][live],
                                          np.array(ranks)[state.epoch[live]])
            seen |= set(state.epoch[live].tolist())
        assert seen == {0, 1, 2}


def test_every_player_visits_every_colour_and_phase_b_empties_the_piles():
    """Rules example 24/25: after the draft all inner stacks are empty and each pile holds N cards;
    phase B gives every player exactly 5 turns and empties the piles."""
    for P in (2, 5):
        game = make("hadara", num_players=P, auto_forced=False)
        rng = np.random.default_rng(10 + P)
        state = game.init(rng, 32)
        while not state.done.all():
            prev = state
            state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
            entered_b = (prev.decision != data.DEC_B_PICK) & (state.decision == data.DEC_B_PICK) & (state.pick == 0)
            if entered_b.any():
                assert (state.inner_count[entered_b] == 0).all()
                assert (state.outer_count[entered_b] == P).all()
            left_b = (prev.decision == data.DEC_B_PICK) & (state.decision == data.DEC_B_COLONY)
            if left_b.any():
                assert (prev.pick[left_b] == 5 * P - 1).all()
                assert (state.outer_count[left_b] == 0).all()


@pytest.mark.parametrize("variant", [{"auto_forced": False}, {"pile_view": "top"}, {"reward": "score_diff"},
                                     {"random_board_order": True, "advanced": True}])
def test_variants_play_to_the_end(variant):
    game = make("hadara", num_players=3, **variant)
    encoder = default_encoder("hadara", game)
    rng = np.random.default_rng(3)
    state = game.init(rng, 64)
    steps = 0
    while not state.done.all():
        mask = game.legal_action_mask(state)
        assert mask.any(axis=1).all()
        encoder.encode(game.observe(state, state.to_play))
        state = game.step(state, sample_masked(mask, rng), rng)
        game.validate(state)
        steps += 1
        assert steps <= game.info.max_game_length
    returns = game.returns(state)
    if variant.get("reward") == "score_diff":
        vp = game.scores(state)
        best_other = np.stack([np.delete(vp, p, axis=1).max(axis=1) for p in range(3)], axis=1)
        np.testing.assert_allclose(returns, (vp - best_other) / 100, rtol=1e-6)
    if variant.get("pile_view") == "top":
        view = game.observe(state, 0)
        below_top = np.arange(5)[None, None, :] < (state.outer_count[..., None] - 1)
        assert (view.outer[below_top] == -1).all()
    if variant.get("random_board_order"):
        assert (state.board_order != data.DEFAULT_BOARD_ORDER).any()


def test_encoder_blocks_match_the_state():
    """A few encoder blocks checked by name against the state, for a viewer that is not seat 0."""
    game = make("hadara", num_players=4, advanced=True)
    encoder = default_encoder("hadara", game)
    state = _draft_states(game, np.random.default_rng(8))
    viewer = 2
    parts = encoder.split(encoder.encode(game.observe(state, viewer)))
    order = [(viewer + k) % 4 for k in range(4)]
    B = state.done.shape[0]
    np.testing.assert_array_equal(parts["present"], np.tile([1, 1, 1, 1, 0], (B, 1)))
    np.testing.assert_allclose(parts["tracks"][:, :4], np.minimum(state.tracks[:, order] / 20, 4), rtol=1e-6)
    np.testing.assert_allclose(parts["coins"][:, :4], np.minimum(state.coins[:, order] / 50, 4), rtol=1e-6)
    np.testing.assert_allclose(parts["vp"][:, :4], np.minimum(game.scores(state)[:, order] / 100, 4), rtol=1e-5)
    held = np.zeros((B, 4, data.NUM_CARDS))
    for k, q in enumerate(order):
        for i in range(data.MAX_TABLEAU):
            ids = state.tableau[:, q, i]
            held[np.flatnonzero(ids >= 0), k, ids[ids >= 0]] = 1
    np.testing.assert_array_equal(parts["tableau"][:, :4], held)
    np.testing.assert_array_equal(parts["committed"][:, :4], state.committed[:, order])
    np.testing.assert_array_equal(parts["colonies"][:, :4].argmax(axis=-1), state.colony[:, order])
    np.testing.assert_array_equal(parts["decision"].argmax(axis=1), state.decision)
    np.testing.assert_array_equal(parts["epoch"].argmax(axis=1), state.epoch)
    # the viewer's own pair (draw order), as ranks within its epoch and colour
    np.testing.assert_array_equal(parts["own_drawn"].argmax(axis=2), data.CARD_RANK[state.drawn[:, viewer]])
    np.testing.assert_array_equal(parts["own_drawn_colour"].argmax(axis=1), data.CARD_COLOUR[state.drawn[:, viewer, 0]])
    mine = np.zeros((B, data.NUM_CARDS))
    rows, cols = np.nonzero(state.sold_a[:, viewer] >= 0)
    mine[rows, state.sold_a[:, viewer][rows, cols]] = 1
    np.testing.assert_array_equal(parts["own_sold"], mine)
    committed = state.committed[:, viewer] & (state.decision == data.DEC_A_DRAFT)
    np.testing.assert_array_equal(parts["own_pending"][committed, :4].argmax(axis=1), state.pending[committed, viewer])
    assert (parts["own_pending"][~committed] == 0).all()


# --- the rules' worked examples on hand-built positions ---------------------------

def _position(P=2, section=data.DEC_A_COLONY, cards=None, coins=None, start=None, **fields):
    """A B=1 position in `section` with seat 0 to act: tableaux `cards` {seat: [card names]}, `coins`
    {seat: n}, start cards `start` {seat: (card, side)}; other State fields by name. auto_forced is off,
    so the position stops at every decision."""
    game = make("hadara", num_players=P, auto_forced=False)
    s = game.init(np.random.default_rng(0), 1)
    s.decision[0], s.turn[0], s.start_player[0], s.rotation[0], s.round[0] = section, 0, 0, 0, 5
    s.outer_count[0] = P  # (piles are irrelevant here; keep phase B consistent if reached)
    for p, names in (cards or {}).items():
        ids = [data.CARD_NAMES.index(n) for n in names]
        s.tableau[0, p, :len(ids)] = ids
        s.n_slots[0, p] = len(ids)
    for p, n in (coins or {}).items():
        s.coins[0, p] = n
    for p, (card, side) in (start or {}).items():
        s.start_card[0, p], s.start_side[0, p] = card, side
    for name, value in fields.items():
        getattr(s, name)[0] = value
    return game, game.advance(s)


def _legal(game, s):
    return set(np.flatnonzero(game.legal_action_mask(s)[0]).tolist())


def test_colony_plunder_ally_colony_coins_and_buy_requirement():
    red = ["I-R10", "II-R09", "I-R08"]  # +15 military; start cards add 1..4, so military 16..19
    game, s = _position(cards={0: red}, coins={0: 0})
    mil = int(s.tracks[0, 0, data.MILITARY])
    assert 15 <= mil < 21
    legal = _legal(game, s)
    for t in range(5):  # rules example 11: tiers 3, 9, 15 eligible; 21, 30 not
        assert ((data.ACTION_COLONY + 2 * t) in legal) == (t <= 2)
    after = game.apply(s, [data.ACTION_COLONY + 4], np.zeros((1, 64)))
    assert after.coins[0, 0] == 5 and after.tracks[0, 0, data.MILITARY] == mil and after.colony[0, 0, 2] == 1
    assert game.observe(after, 0).colony_back[0, 0, 2] == -1  # a plundered back is never revealed
    assert game.scores(after)[0, 0] - game.scores(s)[0, 0] == 8 + 1  # front VP 8, coins 5 -> +1 VP
    # rules example 12: ally with the tier-1 top colony C05: -1 coin, +2 military, +1 culture
    stack = s.colony_stack.copy()
    stack[0, 1, s.colony_count[0, 1] - 1] = 5
    stack[0, 1, :s.colony_count[0, 1] - 1] = [c for c in range(5, 10) if c != 5][:s.colony_count[0, 1] - 1]
    game, s = _position(cards={0: red}, coins={0: 1}, colony_stack=stack[0])
    after = game.apply(s, [data.ACTION_COLONY + 3], np.zeros((1, 64)))
    assert after.coins[0, 0] == 0
    np.testing.assert_array_equal(after.tracks[0, 0] - s.tracks[0, 0], [0, 2, 1, 0])
    assert game.observe(after, 1).colony_back[0, 0, 1] == 5
    # rules example 29: COLONY_COINS +4 before plunder (+3) or ally (-1)
    game, s = _position(cards={0: ["II-P01", "I-R10", "I-R08"]}, coins={0: 0})
    assert game.apply(s, [data.ACTION_COLONY + 2], np.zeros((1, 64))).coins[0, 0] == 7
    assert game.apply(s, [data.ACTION_COLONY + 3], np.zeros((1, 64))).coins[0, 0] == 3
    # rules example 40: BUY_REQUIREMENT charges 3 per missing point, then the colony is taken
    game, s = _position(cards={0: ["III-P14", "I-R10", "II-R09"]}, coins={0: 5}, start={0: (1, 0)})  # mil 1+5+6 = 12
    short = 15 - int(s.tracks[0, 0, data.MILITARY])
    assert short == 3 and (data.ACTION_COLONY + 4) not in _legal(game, s)  # 9 coins needed, 5 held
    game, s = _position(cards={0: ["III-P14", "I-R10", "II-R09", "I-R03", "I-R01"]}, coins={0: 5}, start={0: (1, 0)})
    assert s.tracks[0, 0, data.MILITARY] == 14
    after = game.apply(s, [data.ACTION_COLONY + 4], np.zeros((1, 64)))
    assert after.coins[0, 0] == 5 - 3 + 5 and after.sect_bought[0] == 0  # section counters reset for the next player


def test_bust_front_and_back():
    # rules example 14: culture >= 13, a yellow tile on bust 1 front: income +3
    game, s = _position(section=data.DEC_A_BUST, cards={0: ["I-B10", "II-B10", "I-B09"]})
    assert s.tracks[0, 0, data.CULTURE] >= 13
    a = data.ACTION_BUST + 8 * 1 + 2 * data.YELLOW + data.FRONT
    after = game.apply(s, [a], np.zeros((1, 64)))
    assert after.tracks[0, 0, data.INCOME] - s.tracks[0, 0, data.INCOME] == 3
    assert after.free_tiles[0, 0, data.YELLOW] == 1
    # back side: no track change, reward VP at the end
    after = game.apply(s, [a + 1], np.zeros((1, 64)))
    np.testing.assert_array_equal(after.tracks[0, 0], s.tracks[0, 0])
    assert game.scores(after)[0, 0] - game.scores(s)[0, 0] == 8 + 3


def test_feeding_removal_undoes_the_card_and_feed_coins_pays():
    # rules example 19: removing I-Y02 takes back +1 income +1 military, no coins
    many = ["I-Y02", "I-B08", "I-B02", "I-R02", "I-Y05", "I-Y06", "I-R05", "I-P09", "I-B05", "I-Y01", "I-R01", "I-B01"]
    game, s = _position(section=data.DEC_B_FEED, cards={0: many}, coins={0: 3})
    food, count = int(s.tracks[0, 0, data.FOOD]), len(many)
    assert food < count and s.to_play[0] == 0
    legal = _legal(game, s)
    assert legal == {data.ACTION_REMOVE + i for i in range(count)}  # no pass, no FEED_COINS
    after = game.apply(s, [data.ACTION_REMOVE + 0], np.zeros((1, 64)))
    np.testing.assert_array_equal(s.tracks[0, 0] - after.tracks[0, 0], [1, 1, 0, 0])
    assert after.coins[0, 0] == 3 and after.removed[0, data.CARD_NAMES.index("I-Y02")]
    # rules example 34: FEED_COINS pays 2 coins per card instead (for at most FEED_COINS_MAX_CARDS cards)
    for n in range(len(many), 0, -1):  # a tableau short of food by 2..6 cards, so coins cover all of it
        game, s = _position(section=data.DEC_B_FEED, cards={0: ["II-P14"] + many[:n]}, coins={0: 20})
        deficit = n + 1 - int(s.tracks[0, 0, data.FOOD])
        if 2 <= deficit <= data.FEED_COINS_MAX_CARDS:
            break
    assert 2 <= deficit <= data.FEED_COINS_MAX_CARDS and data.ACTION_FEED_PAY in _legal(game, s)
    for _ in range(deficit):
        s = game.apply(s, [data.ACTION_FEED_PAY], np.zeros((1, 64)))
    assert s.coins[0, 0] == 20 - 2 * deficit and (s.tableau[0, 0] >= 0).sum() == n + 1
    assert not (s.decision[0] == data.DEC_B_FEED and s.turn[0] == 0)  # player 0's feeding is over


def test_scoring_silver_gold_and_abilities():
    # rules example 21/38: 1 gold seal; counts Y3 R3 B2 G3 P3 -> 14 VP, with GOLD_WILDCARD 21 VP
    base = ["I-Y01", "I-Y02", "I-Y03", "I-R01", "I-R02", "I-R03", "I-B01", "I-B02", "I-G01", "I-G02", "I-G03",
            "I-P05", "I-P06"]
    def vp(names, **kw):
        game, s = _position(cards={0: names}, coins={0: 0}, **kw)
        cards_vp = sum(int(data.CARD_VP[data.CARD_NAMES.index(n)]) for n in names)
        return int(game.scores(s)[0, 0]) - cards_vp, s
    gold = np.zeros((1, 2), dtype=np.int8)
    gold[0, 0] = 1
    assert vp(base + ["I-P07"], gold=gold[0])[0] == 14
    assert vp(base + ["III-P12"], gold=gold[0])[0] == 21
    # rules example 36: SET_POINTS +4 per complete set (2 sets here)
    assert vp(base + ["III-P03"])[0] == 8
    # rules example 20/35: a silver seal scores ceil(track / 2), SILVER_FULL the full track
    silver = np.full((1, 2, 2), -1, dtype=np.int8)
    silver[0, 0, 0] = data.CULTURE
    extra, s = vp(["I-B10"], silver=silver[0])
    assert extra == (int(s.tracks[0, 0, data.CULTURE]) + 1) // 2
    extra, s = vp(["I-B10", "III-P01"], silver=silver[0])
    assert extra == int(s.tracks[0, 0, data.CULTURE])
