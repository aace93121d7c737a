"""Narration (`game.narrate(before, action, after, row, seat)`): every step of seeded random games is
described without error, names the actor, tells the dice and disasters of Roll Through the Ages, and
never depends on what the seat may not see; plus hand-made situations per game."""

from __future__ import annotations

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import GAMES, core, make
from meeple.envs.roll_through_the_ages import data as rtta
from meeple.envs.roll_through_the_ages.data import FACE_NAMES

CONFIGS = [(name, config) for name in GAMES for config in GAMES[name].test_configs]
DISASTER_WORDS = ("drought", "pestilence", "invasion", "revolt", "famine")


def _steps(game, seed: int, steps: int):
    """(before, action, after) of one seeded random game, at most `steps` steps."""
    rng = np.random.default_rng(seed)
    state = game.init(rng, 1)
    for _ in range(steps):
        if state.done[0]:
            return
        action = sample_masked(game.legal_action_mask(state), rng)
        after = game.step(state, action, rng)
        yield state, int(action[0]), after
        state = after


@pytest.mark.parametrize("name,config", CONFIGS, ids=[f"{n}-{c}" for n, c in CONFIGS])
def test_random_games_are_narrated_without_leaks(name, config):
    game = make(name, **config)
    rng = np.random.default_rng(7)
    seats = [None, *range(game.num_players)]
    for before, action, after in _steps(game, 11, 250):
        actor = int(before.to_play[0])
        for seat in seats:
            lines = game.narrate(before, action, after, 0, seat=seat)
            assert isinstance(lines, list) and lines and all(isinstance(line, str) and line for line in lines)
            assert lines[0].startswith(f"player_{actor}")
            if after.done[0]:
                continue  # the end reveals every hand (the final scores count them)
            # a seat's narration is the same for every state that differs only in what it cannot see
            for viewer in ([seat] if seat is not None else range(game.num_players)):
                other_before = game.determinize(before, viewer, rng)
                other_after = game.determinize(after, viewer, rng)
                assert game.narrate(other_before, action, other_after, 0, seat=seat) == lines, (seat, viewer, lines)


@pytest.mark.parametrize("name", list(GAMES))
def test_narrate_refuses_actions_out_of_range_as_action_to_str_does(name):
    game = make(name, num_players=2)
    before, _, after = next(_steps(game, 3, 1))
    for bad in (-1, game.num_actions, 10**12, 1.5, True, "0", None):
        with pytest.raises(ValueError, match="action must be an integer"):
            game.action_to_str(before, bad)
        with pytest.raises(ValueError, match="action must be an integer"):
            game.narrate(before, bad, after)


@pytest.mark.parametrize("num_players", [1, 2, 4])
def test_rtta_narration_tells_the_dice_and_the_disasters(num_players):
    game = make("roll_through_the_ages", num_players=num_players)
    rolls = disasters = 0
    for seed in range(3):
        for before, action, after in _steps(game, seed, 400):
            text = "\n".join(game.narrate(before, action, after))
            same_turn = not after.done[0] and after.active[0] == before.active[0] and after.round[0] == before.round[0]
            if action == rtta.ACTION_ROLL and same_turn:
                rolls += 1
                faces = [FACE_NAMES[int(f)] for f in after.dice[0] if f >= 0]
                assert "dice now " + " ".join(faces) in text
            if not same_turn and not after.done[0]:
                assert "'s turn: rolls " in text  # the next player's first roll
            got_points = (after.disasters[0] > before.disasters[0]).any()
            if got_points and "are final" in text:
                disasters += 1
                assert any(word in text for word in DISASTER_WORDS), text
    assert rolls > 0 and disasters > 0


def _rtta_with_dice(game, faces):
    """A game at the active player's roll decision with `faces` showing (3 cities: 3 dice)."""
    state = game.init(np.random.default_rng(0), 1)
    state.dice[0] = -1
    state.dice[0, :len(faces)] = faces
    return state


def test_rtta_pestilence_and_drought_by_hand():
    game = make("roll_through_the_ages", num_players=3)
    state = _rtta_with_dice(game, [rtta.SKULL, rtta.SKULL, rtta.SKULL])
    game.validate(state)
    p = int(state.active[0])
    after = game.step(state, np.array([rtta.ACTION_PASS]), np.random.default_rng(1))
    lines = game.narrate(state, rtta.ACTION_PASS, after, seat=p)
    others = [q for q in range(3) if q != p]
    assert lines[0] == f"player_{p} (you): keep the dice as they are (stop rolling)"
    assert f"player_{p} (you)'s dice are final: SKULL SKULL SKULL" in lines
    assert f"3 skulls: pestilence, +3 disaster points to player_{others[0]} and player_{others[1]}" in lines
    assert any(line.startswith(f"player_{others[0]}: ") and "disasters 0 -> 3" in line for line in lines)

    state = _rtta_with_dice(game, [rtta.SKULL, rtta.SKULL, rtta.FOOD3])
    after = game.step(state, np.array([rtta.ACTION_PASS]), np.random.default_rng(1))
    lines = game.narrate(state, rtta.ACTION_PASS, after)
    assert "2 skulls: drought, +2 disaster points" in lines
    assert any(line.startswith(f"player_{p}: ") and "disasters 0 -> 2" in line for line in lines)


def _first_step(game, seed, condition, steps=800):
    for before, action, after in _steps(game, seed, steps):
        if condition(before, action, after):
            return before, action, after
    raise AssertionError("no such step in the game")


def test_hadara_draft_choice_is_hidden_from_other_seats():
    game = make("hadara", num_players=3)
    from meeple.envs.hadara import data

    before, action, after = _first_step(game, 0, lambda b, a, af: b.decision[0] == data.DEC_A_DRAFT and not af.committed[0].all()
                                        and af.decision[0] == data.DEC_A_DRAFT)
    actor = int(before.to_play[0])
    other = (actor + 1) % 3
    rng = np.random.default_rng(0)
    mask = game.legal_action_mask(before)[0]
    texts = set()
    for a in np.flatnonzero(mask):
        after_a = game.step(before, np.array([a]), rng)
        texts.add(tuple(game.narrate(before, int(a), after_a, seat=other)))
        assert game.narrate(before, int(a), after_a, seat=actor)[0] == f"player_{actor} (you): {game.action_to_str(before, int(a))}"
    assert len(texts) == 1  # every choice reads the same to another seat
    assert "commits a hidden draft choice" in next(iter(texts))[0]
    # when the last player commits, everything resolves in public: discards face up, buys and sales
    before, action, after = _first_step(game, 0, lambda b, a, af: b.decision[0] == data.DEC_A_DRAFT and af.round[0] != b.round[0])
    text = "\n".join(game.narrate(before, action, after))
    assert "outer pile" in text and ("takes " in text or "face down" in text)


def test_carpe_diem_fountain_return_is_hidden_from_other_seats():
    game = make("carpe_diem", num_players=2)
    from meeple.envs.carpe_diem import data

    before, action, after = _first_step(game, 3, lambda b, a, af: b.decision[0] == data.DEC_FOUNTAIN_RETURN, steps=2000)
    actor = int(before.to_play[0])
    assert game.narrate(before, action, after, seat=1 - actor)[0] == f"player_{actor} returns a fountain card to the bottom of the deck"
    assert game.narrate(before, action, after)[0] == f"player_{actor} returns a fountain card to the bottom of the deck"
    assert f"FC{action - data.ACTION_RETURN:02d}" in game.narrate(before, action, after, seat=actor)[0]


@pytest.mark.parametrize("name", ["attika", "utopia"])
def test_card_draws_name_the_cards_only_to_their_owner(name):
    game = make(name, num_players=3)
    before, action, after = _first_step(game, 2, lambda b, a, af: (af.hand[0].sum(axis=1) > b.hand[0].sum(axis=1)).any())
    p = int(np.flatnonzero(after.hand[0].sum(axis=1) > before.hand[0].sum(axis=1))[0])
    own = "\n".join(game.narrate(before, action, after, seat=p))
    spectator = "\n".join(game.narrate(before, action, after))
    other = "\n".join(game.narrate(before, action, after, seat=(p + 1) % 3))
    count = f"cards {int(before.hand[0, p].sum())} -> {int(after.hand[0, p].sum())}"
    assert "you draw " in own and count in own
    assert count in spectator and count in other and f"player_{p}: " in spectator
    assert "you draw" not in spectator


def test_attika_build_and_game_over_by_hand():
    game = make("attika", num_players=2)
    before, action, after = _first_step(game, 0, lambda b, a, af: (af.owner[0] != b.owner[0]).any())
    actor = int(before.to_play[0])
    text = "\n".join(game.narrate(before, action, after))
    assert f"player_{actor}: builds " in text
    finished = core.clone(after)
    finished.done[0], finished.winner[0], finished.decision[0] = True, actor, 9
    assert game.narrate(before, action, finished)[-1] == f"game over: player_{actor} wins"


def test_utopia_round_and_guests():
    game = make("utopia", num_players=2)
    before, action, after = _first_step(game, 1, lambda b, a, af: af.round[0] != b.round[0])
    text = "\n".join(game.narrate(before, action, after))
    assert f"round {int(after.round[0])} begins" in text and "new guests by the ships" in text
