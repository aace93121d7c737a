"""The play page's board beyond its targets: every code the picture and the move labels show is explained
(web/glossary.py: a hint box with a tooltip over the code on the picture, the explanation in the target's
tooltip and the move list, and the page's list of codes), and moves with a place on the picture sit there,
not on the action bar (web/targets.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from meeple.agents.random_agent import sample_masked
from meeple.envs import canvas, make
from meeple.web.targets import board_targets

GAMES = ("roll_through_the_ages", "hadara", "carpe_diem", "attika", "utopia")

# What a code looks like in each game, written independently of the glossary's own rules: the engine's tags
# (ALL_CAPS with underscores, decision names after "phase" / "section" / "to play:"), card and tile codes,
# districts and civilizations, building types, landscape and goods letters with counts.
TAGS = (r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", r"(?:\bphase|\bsection|to play:|player_\d+:) (?P<c>[A-Z]{3,})\b")
SHAPES = {
    "roll_through_the_ages": (*TAGS, r"\bfood/wk\b"),
    "hadara": (*TAGS, r"\b(?:I|II|III)-[YRBGP]\d\d\b", r"\bC\d\d\b"),
    "carpe_diem": (*TAGS, r"\b[LD]\d\d\b", r"\b[A-D]\d\d\b", r"^[VmbacWGHP][345]$", r"(?:\b[WGHP]\d+ ){3}[WGHP]\d+\b",
                   r"(?:[.VmbacWGHP]{2} ){3}[.VmbacWGHP]{2}"),
    "attika": (*TAGS, r"^[A-Z][a-z]\d*$", r"\bT\d\d\b", r"\b[WFHM] ?\d+\b"),
    "utopia": (*TAGS, r"\b[A-Z]{3}-\d\b", r"\b(?:MAY|PER|EGY|GRE|CHI)\b"),
}
# ALL_CAPS words of the pictures that are words, not codes
WORDS = {"FINAL", "ROUND", "WINNER"}


def _codes(game_name: str, text: str) -> list[tuple[int, int, str]]:
    out = []
    for shape in SHAPES[game_name]:
        for match in re.finditer(shape, text):
            group = "c" if "c" in match.re.groupindex else 0
            if match.group(group) not in WORDS:
                out.append((match.start(group), match.end(group), match.group(group)))
    return out


def _covers(listed: str, code: str) -> bool:
    """Whether the list's code `listed` explains `code`: the same, one containing it (a card's short text
    with its code), or a letter of it as a word or before a count ("W" of "W 1" and "W0")."""
    return (code in listed or re.search(rf"(?<![\w-]){re.escape(listed)}(?![\w-])", code) is not None
            or re.fullmatch(rf"{re.escape(listed)} ?\d+", code) is not None)


def _positions(game_name: str, num_players: int, seed: int, every: int):
    """(game, one-row state) at every `every`-th step of a random game, and at its end."""
    game = make(game_name, num_players=num_players)
    rng = np.random.default_rng(seed)
    state = game.init(rng, 1)
    step = 0
    while not state.done[0]:
        if step % every == 0:
            yield game, state
        state = game.step(state, sample_masked(game.legal_action_mask(state), rng), rng)
        step += 1
    yield game, state


def _board(game_name: str, game, state):
    """The board the play page gets for the player to move (its view of the picture, its legal moves)."""
    seat = int(state.to_play[0])
    legal = [] if state.done[0] else np.flatnonzero(game.legal_action_mask(state)[0]).tolist()
    with canvas.recording() as texts:
        picture = game.render_rgb(state, 0, seat)
    return texts, picture, board_targets(game_name, game, state, seat, legal, True,
                                         (texts, picture.shape[1], picture.shape[0]))


@pytest.mark.parametrize("game_name", GAMES)
def test_every_code_on_the_board_is_explained(game_name):
    """Each code the picture writes has a hint box over it whose tooltip explains it, and is in the page's
    list of codes; each code in a move's label is explained in that move's tooltip lines and in the list."""
    seen_picture, seen_moves = set(), set()
    for game, state in _positions(game_name, 3, seed=5, every=9):
        texts, picture, board = _board(game_name, game, state)
        listed = {entry["code"]: entry["text"] for entry in board["glossary"]}
        assert all(text for text in listed.values())
        hints = [d for d in board["decor"] if d["kind"] == "hint"]
        for hint in hints:
            x, y, w, h = hint["geometry"]
            assert hint["text"] and -2 <= x and x + w <= picture.shape[1] + 2 and -3 <= y and y + h <= picture.shape[0] + 3
        for t in texts:
            for start, end, code in _codes(game_name, t.text):
                seen_picture.add(code)
                assert any(_covers(listed_code, code) for listed_code in listed), f"{game_name}: {code!r} ({t.text!r}) not listed"
                # a hint box covers the code where it is written
                cx = t.x + t.font.getlength(t.text[:start]) + t.font.getlength(t.text[start:end]) / 2
                cy = t.y + t.h / 2
                assert any(hx <= cx <= hx + hw and hy <= cy <= hy + hh for hx, hy, hw, hh in (d["geometry"] for d in hints)), \
                    f"{game_name}: no hint over {code!r} in {t.text!r}"
        for target in board["targets"]:
            for move in target["moves"]:
                for _, _, code in _codes(game_name, move["label"]):
                    seen_moves.add(code)
                    assert any(code in line or _covers(line.split(": ", 1)[0], code) for line in move["explain"]), \
                        f"{game_name}: {code!r} in {move['label']!r} is not explained"
                    assert set(move["explain"]) <= set(target["explain"])
                    assert any(_covers(listed_code, code) or code in text for listed_code, text in listed.items())
    assert seen_picture  # the shapes found codes to check
    if game_name != "roll_through_the_ages":  # its moves are all in words
        assert seen_moves


def test_hadara_explains_cards_and_abilities_in_the_data_tables_words():
    from meeple.envs.hadara import data
    from meeple.web import glossary

    game = make("hadara")
    card = data.CARD_NAMES.index("II-P07")
    (code,) = glossary.find("hadara", game, "II-P07  10c  4 VP")
    assert code.code == "II-P07" and f"price {int(data.CARD_PRICE[card])} coins" in code.text
    assert f"{int(data.CARD_VP[card])} VP" in code.text and "purple" in code.text
    sell = data.CARD_NAMES[int(np.flatnonzero(data.CARD_ABILITY == data.SELL_BONUS)[0])]
    (code,) = glossary.find("hadara", game, sell)
    assert "SELL_BONUS" in code.text and f"+{data.SELL_BONUS_COINS} coin on every sale" in code.text
    (code,) = glossary.find("hadara", game, "section A_DRAFT")
    assert code.code == "A_DRAFT" and "buy card 0" in code.text  # the meanings of the draft's moves (ACTION_GROUPS)


@pytest.mark.parametrize("game_name", GAMES)
def test_moves_with_a_place_on_the_picture_are_not_on_the_action_bar(game_name):
    """Over random games, the only moves left on the action bar are those without a place on the picture."""
    bar_only = {"roll_through_the_ages": {"ROLL", "PASS"}, "hadara": {"PASS", "SIDE", "FEED"}, "carpe_diem": set(),
                "attika": {"END"}, "utopia": {"END"}}[game_name]
    on_bar, on_picture = set(), set()
    for game, state in _positions(game_name, 2, seed=3, every=1):
        if state.done[0]:
            continue
        legal = np.flatnonzero(game.legal_action_mask(state)[0]).tolist()
        board = board_targets(game_name, game, state, int(state.to_play[0]), legal)
        for target in board["targets"]:
            kinds = {game.action_names[m["action"]].split("_")[0] for m in target["moves"]}
            (on_bar if target["kind"] == "button" else on_picture).update(kinds)
    assert on_bar <= bar_only, on_bar - bar_only
    assert len(on_picture) >= 3
