"""The shared text-view helpers of `envs/textview.py` that the games' views and narrations call."""

from types import SimpleNamespace

import numpy as np

from meeple.envs.textview import move_line, player_lines, score_list, seat_marks


def _state(start: int, to_play: int, done: bool) -> SimpleNamespace:
    return SimpleNamespace(start_player=np.array([start], np.int8), to_play=np.array([to_play], np.int8),
                           done=np.array([done]))


def test_seat_marks_start_to_play_and_extras_in_order():
    s = _state(start=1, to_play=1, done=False)
    assert seat_marks(s, 0, 1) == ["start", "to play"]
    assert seat_marks(s, 0, 1, ("WINNER", False), ("you", True), start="start player") == ["start player", "to play", "you"]
    assert seat_marks(s, 0, 0) == []
    assert seat_marks(s, 0, 0, ("committed", np.bool_(True))) == ["committed"]
    assert seat_marks(_state(start=0, to_play=1, done=True), 0, 1) == []  # nobody is to play once the game is over


def test_move_line_hides_a_secret_move_from_everyone_but_the_actor():
    def move() -> str:
        calls.append(1)
        return "draft card 3"

    DRAFT, BUILD = 2, 3
    secrets = {DRAFT: "commits a hidden draft choice"}
    drafting = SimpleNamespace(to_play=np.array([1, 0], np.int8), decision=np.array([BUILD, DRAFT], np.int8))
    calls: list[int] = []
    assert move_line(drafting, 1, None, move) == "player_0: draft card 3"
    assert move_line(drafting, 1, 0, move, secrets) == "player_0 (you): draft card 3"
    assert move_line(drafting, 1, 1, move, secrets) == "player_0 commits a hidden draft choice"
    assert move_line(drafting, 1, None, move, secrets) == "player_0 commits a hidden draft choice"
    assert move_line(drafting, 0, 0, move, secrets) == "player_1: draft card 3"  # row 0's decision is no secret
    assert len(calls) == 3  # the move's text is worked out only when it is read


def test_player_lines_names_only_the_players_something_happened_to():
    changes = {0: "+2 VP", 1: "", 2: "takes a tile"}
    assert player_lines(3, None, changes.__getitem__) == ["player_0: +2 VP", "player_2: takes a tile"]
    assert player_lines(3, 2, changes.__getitem__) == ["player_0: +2 VP", "player_2 (you): takes a tile"]
    assert player_lines(2, 0, lambda p: "") == []


def test_score_list_in_seat_order_or_the_order_given_with_details():
    scores = np.array([12, 9, 15])
    assert score_list(scores, None) == "player_0 12, player_1 9, player_2 15"
    assert score_list(scores, 1, order=[2, 0, 1]) == "player_2 15, player_0 12, player_1 (you) 9"
    assert score_list(scores[:2], None, detail=lambda p: f" VP ({p + 3} coins)") == "player_0 12 VP (3 coins), player_1 9 VP (4 coins)"
