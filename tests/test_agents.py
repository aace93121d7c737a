"""Agents on every registered game: legal play to the end in every test configuration, the heuristic
beats random, seeded play repeats, and the heuristic decides from the acting seat's information only.
Also the arena's seating and statistics, and make_agent's errors.

A game gets these checks by registering in `meeple.envs.GAMES` with a heuristic; the tables below
(decision kinds, hidden fields, score leads) only sharpen them for the games they name.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from meeple.agents import make_agent
from meeple.agents.arena import play_games, seat_agents, wilson_interval
from meeple.agents.random_agent import RandomAgent
from meeple.envs import GAMES, core, make

from helpers import game_cases, mixed_seats, play_batch, random_positions

RTTA = "roll_through_the_ages"

# Variants beyond the registry's test configurations that the heuristic must also play legally.
EXTRA_LEGAL_PLAY_CONFIGS = (
    (RTTA, {"num_players": 2, "trade": True}),
    ("hadara", {"num_players": 2, "advanced": True}),
    ("hadara", {"num_players": 3, "pile_view": "top", "random_board_order": True, "auto_forced": False}),
    ("carpe_diem", {"num_players": 2, "auto_forced": False}),
)

LEGAL_PLAY_GAMES = 150  # per configuration; a multiple of 3 for the three kinds of seating


def _rtta_decisions(config: dict) -> dict[str, bool]:
    # trade offers reach the heuristic (it must answer them) exactly when the trade variant is on;
    # TRADE_OFFER and DISCARD are too rare in a batch to demand
    trade = bool(config.get("trade"))
    return {"ROLL": True, "LEADERSHIP": True, "CHOOSE_FW": True, "BUILD": True, "BUY": True,
            "TRADE": trade, "TRADE_RESPOND": trade}


def _hadara_decisions(config: dict) -> dict[str, bool]:
    # tile purchases and feeding are too rare in a batch to demand; setup sides exist only in the advanced game
    required = ("WHEEL", "A_DRAFT", "A_COLONY", "A_BUST", "B_PICK", "B_COLONY", "B_BUST", "B_SEALS")
    return {**dict.fromkeys(required, True), "SETUP_SIDE": bool(config.get("advanced"))}


def _attika_decisions(config: dict) -> dict[str, bool]:
    # CHOOSE_FIELD / CHOOSE_ROTATION are the second steps of the factored actions, PAY exists only with
    # explicit payment; DRAW follows the heuristic's own AMPHORA_CARD (a surplus amphora on a turn it passes)
    factored = config.get("actions", "factored") == "factored"
    return {"START": True, "PENDING_REVEAL": True, "PLACE_TILE": True, "CHOOSE_ROTATION": factored,
            "REVEAL_MODE": True, "BUILD_MODE": True, "CHOOSE_FIELD": factored, "DRAW": True,
            "PAY": config.get("payment", "auto") == "explicit"}


# Decision kinds (the game's data.DECISION_NAMES) that must (True) or must not (False) reach the
# heuristic in the legal-play batch; a game not named here must meet every kind but GAME_OVER.
DECISION_COVERAGE = {RTTA: _rtta_decisions, "hadara": _hadara_decisions, "attika": _attika_decisions}

# Measured with evaluate.py over 1000 two-player games against random: the heuristic of each game here
# won all of them, its mean score ahead of random's by ~33 (RTTA), ~85 VP (Hadara) and ~180 VP (Carpe
# Diem). The thresholds leave a wide margin.
MIN_SCORE_LEAD = {RTTA: 10, "hadara": 50, "carpe_diem": 50}

# Share of positions determinize must change (default 0.5). Utopia hides only the cards in hands and in
# the draw pile; random players spend nearly every card (END is one of ~100 legal actions), so with 2
# players the one opponent holds no card in about two thirds of the positions and nothing is hidden there.
MIN_RESAMPLED = {"utopia": 0.25}


def _heuristic_class(name: str) -> type:
    return importlib.import_module(GAMES[name].heuristic).Heuristic


def _decision_names(name: str) -> tuple[str, ...]:
    rules_module = GAMES[name].rules.split(":")[0]
    return importlib.import_module(rules_module.rsplit(".", 1)[0] + ".data").DECISION_NAMES


# --- every game -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", game_cases(EXTRA_LEGAL_PLAY_CONFIGS))
def test_agents_play_legally_to_the_end(case) -> None:
    """A batch of games to the end with mixed seats (heuristic self-play, heuristic in seat 0 against
    random players, random self-play): in every live row both agents' choices are legal, every game
    ends within max_game_length, the heuristic's own logic never needs its random fallback, and it
    meets the decision kinds of DECISION_COVERAGE."""
    name, config = case
    game = make(name, **config)
    heuristic, rand = make_agent("heuristic", name), RandomAgent()
    names = _decision_names(name)
    met = np.zeros(len(names), dtype=np.int64)  # heuristic decisions per kind

    def count_heuristic_decisions(state, choices, owner):
        met[:] += np.bincount(state.decision[owner == 0], minlength=len(names))

    seats = mixed_seats(LEGAL_PLAY_GAMES, game.num_players)
    state = play_batch(game, [heuristic, rand], seats, np.random.default_rng(7), count_heuristic_decisions)
    assert state.done.all()
    assert heuristic.fallbacks == 0
    coverage = DECISION_COVERAGE.get(name, lambda _: {d: True for d in names if d != "GAME_OVER"})(config)
    wrong = {d: int(met[names.index(d)]) for d, required in coverage.items() if (met[names.index(d)] > 0) != required}
    assert not wrong, f"decision counts {dict(zip(names, met.tolist()))}; expected {coverage}"


@pytest.mark.parametrize("name", list(GAMES))
def test_heuristic_beats_random(name: str) -> None:
    result = play_games(make(name, num_players=2), [make_agent("heuristic", name), RandomAgent()], 200, seed=0)
    heuristic, rand = result["agents"]
    assert heuristic["games"] == heuristic["seats"] == rand["seats"] == 200
    assert heuristic["win_rate"] > 0.9 and heuristic["win_ci95"][0] > 0.8
    assert heuristic["mean_score"] > rand["mean_score"] + MIN_SCORE_LEAD.get(name, 0)


def test_same_seed_same_play(game_case) -> None:
    """The heuristic and random agents repeat their actions and the games their final states under the
    same seed; another seed plays differently. The heuristic's actions do not depend on its generator
    (it only feeds the fallback) nor on the instance."""
    name, _, game = game_case
    seats = mixed_seats(12, game.num_players)

    def play(seed: int) -> tuple[list[np.ndarray], object]:
        heuristic = make_agent("heuristic", name)
        steps: list[np.ndarray] = []

        def record(state, choices, owner):
            steps.append(choices.copy())
            fresh = make_agent("heuristic", name).act(game, state, np.random.default_rng(seed + 1000))
            np.testing.assert_array_equal(fresh[~state.done], choices[0][~state.done])

        final = play_batch(game, [heuristic, RandomAgent()], seats, np.random.default_rng(seed), record)
        return steps, final

    (first, final), (again, final_again), (_, final_other) = play(5), play(5), play(6)
    assert len(first) == len(again) and all(np.array_equal(a, b) for a, b in zip(first, again))
    assert core.states_equal(final, final_again)
    assert not core.states_equal(final, final_other)


def test_seeded_arena_repeats(game_case) -> None:
    name, _, game = game_case

    def arena(seed: int) -> dict:
        return play_games(game, [make_agent("heuristic", name), RandomAgent()], 12, seed=seed, record=True)

    first = arena(5)
    assert first == arena(5)
    assert first["per_game"]["actions"] != arena(6)["per_game"]["actions"]


def test_heuristic_ignores_hidden_information(game_case) -> None:
    """Resample everything the seat to play cannot see (`determinize`) twice, over positions spread
    through random games: the heuristic's choices stay those it makes in the true state. For a game
    with hidden information the resampling must have changed many positions, and only in the fields its
    field table keeps from some seat (`info.hidden_fields`); for one without, determinize is the identity."""
    name, _, game = game_case
    positions = random_positions(game, seed=3, games=48, per_game=4)
    seat = positions.to_play
    rows = core.batch_size(positions)
    chosen = make_agent("heuristic", name).act(game, positions, np.random.default_rng(0))
    changed_rows = np.zeros(rows, dtype=bool)
    changed_fields: set[str] = set()
    for det_seed in (101, 202):
        determinized = game.determinize(positions, seat, np.random.default_rng(det_seed))
        game.validate(determinized)
        np.testing.assert_array_equal(make_agent("heuristic", name).act(game, determinized, np.random.default_rng(0)), chosen)
        for field, before, after in zip(positions._fields, positions, determinized):
            differs = (before != after).reshape(rows, -1).any(axis=1)
            changed_rows |= differs
            if differs.any():
                changed_fields.add(field)
    if game.info.has_hidden_information:
        assert changed_rows.mean() > MIN_RESAMPLED.get(name, 0.5), (changed_rows.mean(), changed_fields)
        assert changed_fields and changed_fields <= set(game.info.hidden_fields), changed_fields
    else:
        assert not changed_fields


@pytest.mark.parametrize("name", list(GAMES))
def test_make_agent_and_heuristic_parameters(name: str) -> None:
    heuristic_class = _heuristic_class(name)
    assert isinstance(make_agent("heuristic", name), heuristic_class)
    assert isinstance(make_agent("random", name), RandomAgent)
    first = heuristic_class.PARAM_NAMES[0]
    assert heuristic_class(**{first: 0.5}).params[0] == 0.5
    assert heuristic_class().params[0] == heuristic_class.DEFAULT_PARAMS[0]  # the override did not leak
    with pytest.raises(ValueError, match="unknown heuristic parameter"):
        heuristic_class(aggression=1.0)


def test_make_agent_rejects_unknown_specs_and_games() -> None:
    with pytest.raises(ValueError, match="known specs"):
        make_agent("alphago", RTTA)
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("random", "chess")


# --- one game -------------------------------------------------------------------------------------


def test_rtta_heuristic_solo_score() -> None:
    """Solo (10 rounds): the heuristic averages ~47 points (measured over 1000 games)."""
    result = play_games(make(RTTA, num_players=1), [make_agent("heuristic", RTTA)], 100, seed=0)
    assert result["agents"][0]["win_rate"] is None
    assert result["agents"][0]["mean_score"] > 35


# --- the arena --------------------------------------------------------------------------------------


def test_seats_rotate_and_wins_are_shared() -> None:
    seats = seat_agents(6, 3, 2)  # fewer agents than seats: cycled, one step per game
    assert seats[0].tolist() == [0, 1, 0] and seats[1].tolist() == [1, 0, 1]
    for seat in range(3):
        assert np.bincount(seats[:, seat], minlength=2).tolist() == [3, 3]
    heuristic = make_agent("heuristic", RTTA)
    result = play_games(make(RTTA, num_players=3), [heuristic, RandomAgent()], 40, seed=1)
    a, b = result["agents"]
    assert result["games"] == 40
    assert (a["games"], a["seats"], b["games"], b["seats"]) == (40, 60, 40, 60)
    assert a["wins"] + b["wins"] == pytest.approx(40)  # a game's win is shared among its seats
    assert a["win_rate"] + b["win_rate"] == pytest.approx(1.0)
    result = play_games(make(RTTA, num_players=2), [heuristic, make_agent("heuristic", RTTA)], 40, seed=1)
    assert [x["name"] for x in result["agents"]] == ["heuristic#0", "heuristic#1"]
    result = play_games(make(RTTA, num_players=1), [heuristic, RandomAgent()], 10, seed=1)
    assert result["games"] == 10 and [x["games"] for x in result["agents"]] == [5, 5]  # solo: alternate games


def test_wilson_interval() -> None:
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)


def test_arena_rejects_illegal_actions() -> None:
    class AlwaysZero:
        name = "zero"

        def act(self, game, state, rng):
            return np.zeros(state.done.shape[0], dtype=np.int64)

    with pytest.raises(RuntimeError, match="zero"):
        play_games(make(RTTA, num_players=2), [AlwaysZero(), RandomAgent()], 8, seed=0)


@pytest.mark.parametrize("actions", [512, 668, 1904, 2000, 2003])
def test_random_sampling_reads_large_masks_eight_actions_at_a_time_with_the_same_results(actions) -> None:
    from meeple.agents.random_agent import pick_legal_nb, sample_masked

    rng = np.random.default_rng(actions)
    mask = rng.random((300, actions)) < rng.choice([0.0, 0.002, 0.05, 0.5, 1.0], size=(300, 1))
    mask[0] = False
    mask[1, -1] = True  # a row whose only legal actions sit in the last word
    mask[1, :-1] = False
    got = sample_masked(mask, np.random.default_rng(1))
    u = np.random.default_rng(1).random(300)
    assert [int(a) for a in got] == [pick_legal_nb(mask[b], u[b]) for b in range(300)]
    assert got[1] == actions - 1 and got[0] == 0
    mask[2] = False
    mask[2, 0] = True  # action 0 alone: found in the first word, not looked for again in the tail
    mask[3] = False
    mask[3, [0, actions - 1]] = True
    got = sample_masked(mask, np.random.default_rng(1))
    assert got[2] == 0 and got[3] in (0, actions - 1)
    assert [int(a) for a in got] == [pick_legal_nb(mask[b], u[b]) for b in range(300)]
