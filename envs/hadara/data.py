"""Static data for Hadara (Hans im Glück 2019, as played on Yucata.de).

Every table follows the rules summarised in docs/hadara.md. Tables are numpy arrays so numba
kernels can read them as frozen globals; never mutate them. Tags: [R] published
rules, [P] other public source, [D] project decision or designed substitute. Every [D] table
lives here so printed values can replace it later without touching a code path.

Index order everywhere: colours Y, R, B, G, P = 0..4; tracks income, military, culture, food =
0..3 (track c is the track of colour c). Card ids 0..161 run by epoch, then colour, then
number; colony ids 0..24 by tier.

The action index layout (104 actions) is `ACTION_GROUPS` below; docs/hadara.md shows it
as a table generated from it.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.core import GameInfo, action_names_from_groups

# --- colours and tracks --------------------------------------------------------------------
NUM_COLOURS = 5
YELLOW, RED, BLUE, GREEN, PURPLE = range(5)
COLOUR_NAMES = ("yellow", "red", "blue", "green", "purple")
COLOUR_LETTERS = ("Y", "R", "B", "G", "P")
NUM_TRACKS = 4  # colours 0..3 have a track of the same index; purple has none
INCOME, MILITARY, CULTURE, FOOD = range(4)
TRACK_NAMES = ("income", "military", "culture", "food")

# --- game length ---------------------------------------------------------------------------
NUM_EPOCHS = 3
EPOCH_NAMES = ("I", "II", "III")
ROUNDS_PER_PHASE_A = 5  # one draw per colour
PHASE_B_TURNS_PER_PLAYER = 5  # outer piles hold 5*N cards (phase B)
MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_TABLEAU = 30  # tableau slots 0..29, at most 30 epoch cards per game

# --- purple abilities ------------------------------------------------------------------------
NO_ABILITY = -1
NUM_ABILITIES = 18
(SELL_BONUS, TILE_STEPS, PER_BLUE_CUL, PER_YELLOW_INC, PER_GREEN_FOOD, PER_RED_MIL,
 COLONY_COINS, CHEAP_SEALS, TRACK_INCOME, FOOD_SURPLUS, BUST_BOOST, FEED_COINS,
 SILVER_FULL, SET_POINTS, REQ_MINUS_4, GOLD_WILDCARD, DOUBLE_SECTION, BUY_REQUIREMENT) = range(18)
ABILITY_NAMES = (
    "SELL_BONUS", "TILE_STEPS", "PER_BLUE_CUL", "PER_YELLOW_INC", "PER_GREEN_FOOD", "PER_RED_MIL",
    "COLONY_COINS", "CHEAP_SEALS", "TRACK_INCOME", "FOOD_SURPLUS", "BUST_BOOST", "FEED_COINS",
    "SILVER_FULL", "SET_POINTS", "REQ_MINUS_4", "GOLD_WILDCARD", "DOUBLE_SECTION", "BUY_REQUIREMENT",
)
# the epoch whose purple cards carry the ability, and whether it is starred (advanced game) [R]
ABILITY_EPOCH = np.array([0] * 6 + [1] * 6 + [2] * 6, dtype=np.int16)
ABILITY_ADVANCED = np.array([0, 0, 1, 1, 1, 1] * 3, dtype=np.bool_)
# PER_*: +1 step on track c per card of colour c in the tableau; -1 for other abilities
ABILITY_PER_COLOUR = np.array([-1, -1, BLUE, YELLOW, GREEN, RED] + [-1] * 12, dtype=np.int16)

# ability parameters (copies stack additively, except CHEAP_SEALS; SILVER_FULL upgrades one seal per copy)
SELL_BONUS_COINS = 1  # per SELL_BONUS card held, on every sale
TILE_STEPS_STEPS = 2  # front of the assigned tile: +2 on its track
COLONY_COINS_AMOUNT = 4  # per COLONY_COINS card, on taking a colony, before plunder/ally, so they may pay the alliance
TRACK_INCOME_PER = 2  # per track (mil, cul, food) strictly greater than income
TRACK_INCOME_MAX = 6  # per card and Income section
FOOD_SURPLUS_PER_POINT = 3  # per food above the card count, after the owner's feeding
FOOD_SURPLUS_MAX = 12
BUST_BOOST_STEPS = 2  # per carved bust: +2 steps on a front tile's track, or +2 VP for a back tile
FEED_COINS_COST = 2  # coins per card covered in one Feeding section
FEED_COINS_MAX_CARDS = 6  # = 12 coins per Feeding section
SET_POINTS_VP = 4  # per complete 5-colour set, per card held (GOLD_WILDCARD applies to gold seals only)
REQ_MINUS = 4  # REQ_MINUS_4: requirement max(0, req - 4) for colonies and busts
BUY_REQUIREMENT_COINS_PER_POINT = 3
BUY_REQUIREMENT_MAX_COINS = 30  # per section, separately for colonies and busts; charged automatically

# --- epoch cards ---------------------------------------------------------------------------
NUM_CARDS = 162
CARDS_PER_EPOCH = 54  # 10 each of Y, R, B, G and 14 purple [R]
MAX_COLOUR_CARDS = 14  # cards of one colour in one epoch (purple)
SELL_VALUE = np.array([2, 3, 4], dtype=np.int16)  # coins on the card back, by epoch [R]

# DESIGNED SUBSTITUTE [D]: the printed values are not public. Anchors kept [R]: I-B03
# (price 3, +2 culture, +1 food, 2 VP), I-Y02 (+1 income, +1 military), I-B07 (price 5).
# Purple composition [D]: per epoch 2 x 2 basic-ability cards, 6 value/VP cards, 4 starred.
# Row i is card id i. The epoch and colour are read from the name.
# (name, price, income, military, culture, food, VP, ability, starred)
_CARDS = (
    # epoch I yellow: ids 0..9
    ("I-Y01",    2, 1, 0, 0, 0,  1, NO_ABILITY,      False),
    ("I-Y02",    3, 1, 1, 0, 0,  1, NO_ABILITY,      False),
    ("I-Y03",    3, 1, 0, 0, 1,  1, NO_ABILITY,      False),
    ("I-Y04",    3, 1, 0, 1, 0,  1, NO_ABILITY,      False),
    ("I-Y05",    4, 2, 0, 0, 0,  1, NO_ABILITY,      False),
    ("I-Y06",    4, 2, 0, 0, 0,  1, NO_ABILITY,      False),
    ("I-Y07",    5, 2, 0, 0, 1,  1, NO_ABILITY,      False),
    ("I-Y08",    5, 2, 1, 0, 0,  1, NO_ABILITY,      False),
    ("I-Y09",    6, 3, 0, 0, 0,  1, NO_ABILITY,      False),
    ("I-Y10",    7, 3, 0, 1, 0,  2, NO_ABILITY,      False),
    # epoch I red: ids 10..19
    ("I-R01",    1, 0, 1, 0, 0,  1, NO_ABILITY,      False),
    ("I-R02",    2, 0, 2, 0, 0,  1, NO_ABILITY,      False),
    ("I-R03",    2, 0, 1, 0, 1,  1, NO_ABILITY,      False),
    ("I-R04",    3, 0, 2, 1, 0,  1, NO_ABILITY,      False),
    ("I-R05",    3, 0, 3, 0, 0,  1, NO_ABILITY,      False),
    ("I-R06",    4, 0, 3, 0, 1,  1, NO_ABILITY,      False),
    ("I-R07",    4, 1, 2, 0, 0,  1, NO_ABILITY,      False),
    ("I-R08",    5, 0, 4, 0, 0,  2, NO_ABILITY,      False),
    ("I-R09",    6, 0, 4, 1, 0,  2, NO_ABILITY,      False),
    ("I-R10",    7, 0, 5, 0, 0,  2, NO_ABILITY,      False),
    # epoch I blue: ids 20..29
    ("I-B01",    1, 0, 0, 1, 0,  1, NO_ABILITY,      False),
    ("I-B02",    2, 0, 0, 2, 0,  1, NO_ABILITY,      False),
    ("I-B03",    3, 0, 0, 2, 1,  2, NO_ABILITY,      False),
    ("I-B04",    3, 0, 1, 1, 0,  2, NO_ABILITY,      False),
    ("I-B05",    4, 0, 0, 3, 0,  2, NO_ABILITY,      False),
    ("I-B06",    4, 1, 0, 2, 0,  1, NO_ABILITY,      False),
    ("I-B07",    5, 0, 0, 3, 1,  2, NO_ABILITY,      False),
    ("I-B08",    5, 0, 0, 2, 0,  4, NO_ABILITY,      False),
    ("I-B09",    6, 0, 0, 4, 0,  3, NO_ABILITY,      False),
    ("I-B10",    7, 0, 1, 4, 0,  3, NO_ABILITY,      False),
    # epoch I green: ids 30..39
    ("I-G01",    1, 0, 0, 0, 1,  1, NO_ABILITY,      False),
    ("I-G02",    2, 0, 0, 0, 2,  1, NO_ABILITY,      False),
    ("I-G03",    2, 0, 0, 1, 1,  1, NO_ABILITY,      False),
    ("I-G04",    3, 0, 0, 0, 3,  1, NO_ABILITY,      False),
    ("I-G05",    3, 0, 1, 0, 2,  1, NO_ABILITY,      False),
    ("I-G06",    4, 1, 0, 0, 2,  1, NO_ABILITY,      False),
    ("I-G07",    4, 0, 0, 0, 4,  1, NO_ABILITY,      False),
    ("I-G08",    5, 0, 0, 1, 3,  2, NO_ABILITY,      False),
    ("I-G09",    6, 0, 1, 0, 4,  2, NO_ABILITY,      False),
    ("I-G10",    7, 0, 0, 0, 5,  2, NO_ABILITY,      False),
    # epoch I purple: ids 40..53
    ("I-P01",    3, 0, 0, 0, 0,  1, SELL_BONUS,      False),
    ("I-P02",    3, 0, 0, 0, 0,  1, SELL_BONUS,      False),
    ("I-P03",    4, 0, 0, 0, 0,  1, TILE_STEPS,      False),
    ("I-P04",    4, 0, 0, 0, 0,  1, TILE_STEPS,      False),
    ("I-P05",    3, 1, 1, 0, 0,  1, NO_ABILITY,      False),
    ("I-P06",    3, 0, 0, 1, 1,  1, NO_ABILITY,      False),
    ("I-P07",    4, 0, 1, 1, 1,  1, NO_ABILITY,      False),
    ("I-P08",    5, 1, 0, 1, 1,  2, NO_ABILITY,      False),
    ("I-P09",    5, 0, 0, 0, 0,  4, NO_ABILITY,      False),
    ("I-P10",    6, 1, 1, 1, 1,  2, NO_ABILITY,      False),
    ("I-P11",    4, 0, 0, 0, 0,  1, PER_BLUE_CUL,    True),
    ("I-P12",    5, 0, 0, 0, 0,  1, PER_YELLOW_INC,  True),
    ("I-P13",    4, 0, 0, 0, 0,  1, PER_GREEN_FOOD,  True),
    ("I-P14",    4, 0, 0, 0, 0,  1, PER_RED_MIL,     True),
    # epoch II yellow: ids 54..63
    ("II-Y01",   4, 2, 0, 0, 0,  1, NO_ABILITY,      False),
    ("II-Y02",   5, 2, 1, 0, 0,  2, NO_ABILITY,      False),
    ("II-Y03",   5, 2, 0, 0, 1,  2, NO_ABILITY,      False),
    ("II-Y04",   6, 3, 0, 0, 0,  2, NO_ABILITY,      False),
    ("II-Y05",   7, 3, 0, 1, 0,  2, NO_ABILITY,      False),
    ("II-Y06",   7, 2, 1, 0, 1,  2, NO_ABILITY,      False),
    ("II-Y07",   8, 4, 0, 0, 0,  2, NO_ABILITY,      False),
    ("II-Y08",   9, 3, 2, 0, 0,  3, NO_ABILITY,      False),
    ("II-Y09",  10, 4, 0, 0, 1,  3, NO_ABILITY,      False),
    ("II-Y10",  11, 5, 0, 0, 0,  3, NO_ABILITY,      False),
    # epoch II red: ids 64..73
    ("II-R01",   4, 0, 3, 0, 0,  2, NO_ABILITY,      False),
    ("II-R02",   5, 0, 3, 0, 1,  2, NO_ABILITY,      False),
    ("II-R03",   5, 0, 2, 1, 0,  3, NO_ABILITY,      False),
    ("II-R04",   6, 0, 4, 0, 0,  3, NO_ABILITY,      False),
    ("II-R05",   7, 1, 4, 0, 0,  3, NO_ABILITY,      False),
    ("II-R06",   8, 0, 5, 0, 0,  3, NO_ABILITY,      False),
    ("II-R07",   8, 0, 4, 1, 0,  4, NO_ABILITY,      False),
    ("II-R08",   9, 0, 5, 0, 1,  4, NO_ABILITY,      False),
    ("II-R09",  10, 0, 6, 0, 0,  4, NO_ABILITY,      False),
    ("II-R10",  12, 0, 6, 1, 0,  5, NO_ABILITY,      False),
    # epoch II blue: ids 74..83
    ("II-B01",   4, 0, 0, 2, 0,  3, NO_ABILITY,      False),
    ("II-B02",   5, 0, 0, 3, 0,  3, NO_ABILITY,      False),
    ("II-B03",   6, 0, 0, 3, 1,  3, NO_ABILITY,      False),
    ("II-B04",   6, 0, 1, 2, 0,  4, NO_ABILITY,      False),
    ("II-B05",   7, 0, 0, 4, 0,  4, NO_ABILITY,      False),
    ("II-B06",   8, 0, 0, 3, 0,  6, NO_ABILITY,      False),
    ("II-B07",   8, 1, 0, 4, 0,  4, NO_ABILITY,      False),
    ("II-B08",   9, 0, 0, 5, 0,  5, NO_ABILITY,      False),
    ("II-B09",  10, 0, 0, 4, 1,  6, NO_ABILITY,      False),
    ("II-B10",  12, 0, 0, 6, 0,  6, NO_ABILITY,      False),
    # epoch II green: ids 84..93
    ("II-G01",   4, 0, 0, 0, 3,  1, NO_ABILITY,      False),
    ("II-G02",   5, 0, 0, 1, 3,  2, NO_ABILITY,      False),
    ("II-G03",   5, 1, 0, 0, 2,  2, NO_ABILITY,      False),
    ("II-G04",   6, 0, 0, 0, 4,  2, NO_ABILITY,      False),
    ("II-G05",   7, 0, 1, 0, 4,  2, NO_ABILITY,      False),
    ("II-G06",   7, 0, 0, 1, 3,  3, NO_ABILITY,      False),
    ("II-G07",   8, 0, 0, 0, 5,  3, NO_ABILITY,      False),
    ("II-G08",   9, 1, 0, 0, 5,  3, NO_ABILITY,      False),
    ("II-G09",  10, 0, 0, 0, 6,  3, NO_ABILITY,      False),
    ("II-G10",  11, 0, 0, 1, 6,  4, NO_ABILITY,      False),
    # epoch II purple: ids 94..107
    ("II-P01",   6, 0, 0, 0, 0,  2, COLONY_COINS,    False),
    ("II-P02",   6, 0, 0, 0, 0,  2, COLONY_COINS,    False),
    ("II-P03",   5, 0, 0, 0, 0,  2, CHEAP_SEALS,     False),
    ("II-P04",   5, 0, 0, 0, 0,  2, CHEAP_SEALS,     False),
    ("II-P05",   6, 1, 1, 1, 0,  2, NO_ABILITY,      False),
    ("II-P06",   6, 0, 1, 1, 1,  2, NO_ABILITY,      False),
    ("II-P07",   7, 1, 0, 1, 1,  3, NO_ABILITY,      False),
    ("II-P08",   8, 1, 1, 1, 1,  3, NO_ABILITY,      False),
    ("II-P09",   8, 0, 0, 0, 0,  7, NO_ABILITY,      False),
    ("II-P10",  10, 2, 1, 1, 1,  4, NO_ABILITY,      False),
    ("II-P11",   7, 0, 0, 0, 0,  2, TRACK_INCOME,    True),
    ("II-P12",   6, 0, 0, 0, 0,  2, FOOD_SURPLUS,    True),
    ("II-P13",   8, 0, 0, 0, 0,  2, BUST_BOOST,      True),
    ("II-P14",   6, 0, 0, 0, 0,  2, FEED_COINS,      True),
    # epoch III yellow: ids 108..117
    ("III-Y01",  8, 3, 0, 0, 0,  4, NO_ABILITY,      False),
    ("III-Y02",  9, 3, 0, 0, 1,  4, NO_ABILITY,      False),
    ("III-Y03", 10, 4, 0, 0, 0,  4, NO_ABILITY,      False),
    ("III-Y04", 10, 3, 1, 0, 0,  5, NO_ABILITY,      False),
    ("III-Y05", 11, 4, 0, 1, 0,  5, NO_ABILITY,      False),
    ("III-Y06", 12, 5, 0, 0, 0,  5, NO_ABILITY,      False),
    ("III-Y07", 13, 4, 0, 0, 2,  6, NO_ABILITY,      False),
    ("III-Y08", 14, 5, 1, 0, 0,  6, NO_ABILITY,      False),
    ("III-Y09", 15, 6, 0, 0, 0,  6, NO_ABILITY,      False),
    ("III-Y10", 17, 6, 0, 1, 0,  7, NO_ABILITY,      False),
    # epoch III red: ids 118..127
    ("III-R01",  8, 0, 4, 0, 0,  4, NO_ABILITY,      False),
    ("III-R02",  9, 0, 4, 0, 1,  4, NO_ABILITY,      False),
    ("III-R03", 10, 0, 5, 0, 0,  5, NO_ABILITY,      False),
    ("III-R04", 11, 0, 4, 2, 0,  5, NO_ABILITY,      False),
    ("III-R05", 12, 0, 6, 0, 0,  5, NO_ABILITY,      False),
    ("III-R06", 13, 1, 6, 0, 0,  6, NO_ABILITY,      False),
    ("III-R07", 14, 0, 7, 0, 0,  6, NO_ABILITY,      False),
    ("III-R08", 15, 0, 6, 0, 2,  7, NO_ABILITY,      False),
    ("III-R09", 16, 0, 8, 0, 0,  7, NO_ABILITY,      False),
    ("III-R10", 18, 0, 8, 1, 0,  8, NO_ABILITY,      False),
    # epoch III blue: ids 128..137
    ("III-B01",  8, 0, 0, 3, 0,  5, NO_ABILITY,      False),
    ("III-B02",  9, 0, 0, 4, 0,  5, NO_ABILITY,      False),
    ("III-B03", 10, 0, 0, 3, 1,  6, NO_ABILITY,      False),
    ("III-B04", 11, 0, 0, 5, 0,  6, NO_ABILITY,      False),
    ("III-B05", 12, 0, 1, 4, 0,  7, NO_ABILITY,      False),
    ("III-B06", 13, 0, 0, 3, 0,  9, NO_ABILITY,      False),
    ("III-B07", 14, 0, 0, 6, 0,  7, NO_ABILITY,      False),
    ("III-B08", 15, 0, 0, 5, 1,  8, NO_ABILITY,      False),
    ("III-B09", 16, 0, 0, 6, 0,  9, NO_ABILITY,      False),
    ("III-B10", 18, 0, 0, 7, 0, 10, NO_ABILITY,      False),
    # epoch III green: ids 138..147
    ("III-G01",  8, 0, 0, 0, 4,  3, NO_ABILITY,      False),
    ("III-G02",  9, 0, 0, 1, 4,  4, NO_ABILITY,      False),
    ("III-G03", 10, 0, 0, 0, 5,  4, NO_ABILITY,      False),
    ("III-G04", 11, 1, 0, 0, 4,  5, NO_ABILITY,      False),
    ("III-G05", 12, 0, 0, 0, 6,  5, NO_ABILITY,      False),
    ("III-G06", 13, 0, 1, 0, 5,  6, NO_ABILITY,      False),
    ("III-G07", 14, 0, 0, 0, 7,  6, NO_ABILITY,      False),
    ("III-G08", 15, 0, 0, 1, 6,  7, NO_ABILITY,      False),
    ("III-G09", 16, 0, 0, 0, 8,  7, NO_ABILITY,      False),
    ("III-G10", 17, 0, 1, 0, 7,  8, NO_ABILITY,      False),
    # epoch III purple: ids 148..161
    ("III-P01", 10, 0, 0, 0, 0,  3, SILVER_FULL,     False),
    ("III-P02", 10, 0, 0, 0, 0,  3, SILVER_FULL,     False),
    ("III-P03", 10, 0, 0, 0, 0,  3, SET_POINTS,      False),
    ("III-P04", 10, 0, 0, 0, 0,  3, SET_POINTS,      False),
    ("III-P05",  9, 1, 1, 1, 0,  4, NO_ABILITY,      False),
    ("III-P06", 10, 0, 1, 1, 1,  5, NO_ABILITY,      False),
    ("III-P07", 11, 1, 1, 1, 1,  5, NO_ABILITY,      False),
    ("III-P08", 12, 0, 2, 2, 0,  6, NO_ABILITY,      False),
    ("III-P09", 13, 0, 0, 0, 0, 11, NO_ABILITY,      False),
    ("III-P10", 15, 1, 2, 2, 1,  7, NO_ABILITY,      False),
    ("III-P11", 10, 0, 0, 0, 0,  3, REQ_MINUS_4,     True),
    ("III-P12", 11, 0, 0, 0, 0,  3, GOLD_WILDCARD,   True),
    ("III-P13", 10, 0, 0, 0, 0,  3, DOUBLE_SECTION,  True),
    ("III-P14",  9, 0, 0, 0, 0,  3, BUY_REQUIREMENT, True),
)
_EPOCH_OF_NAME = {"I": 0, "II": 1, "III": 2}

CARD_NAMES: tuple[str, ...] = tuple(row[0] for row in _CARDS)
CARD_EPOCH = np.array([_EPOCH_OF_NAME[name.split("-")[0]] for name in CARD_NAMES], dtype=np.int16)
CARD_COLOUR = np.array([COLOUR_LETTERS.index(name.split("-")[1][0]) for name in CARD_NAMES], dtype=np.int16)
CARD_PRICE = np.array([row[1] for row in _CARDS], dtype=np.int16)
CARD_TRACKS = np.array([row[2:6] for row in _CARDS], dtype=np.int16)  # (162, 4) steps gained on buying
CARD_VP = np.array([row[6] for row in _CARDS], dtype=np.int16)
CARD_ABILITY = np.array([row[7] for row in _CARDS], dtype=np.int16)  # NO_ABILITY or an ability code
CARD_STARRED = np.array([row[8] for row in _CARDS], dtype=np.bool_)  # advanced-game purple cards


def _epoch_colour_cards(keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(3, 5, 14) card ids per epoch and colour in id order, padded with -1; and the (3, 5) counts."""
    cards = np.full((NUM_EPOCHS, NUM_COLOURS, MAX_COLOUR_CARDS), -1, dtype=np.int16)
    counts = np.zeros((NUM_EPOCHS, NUM_COLOURS), dtype=np.int16)
    for card in np.flatnonzero(keep):
        e, c = CARD_EPOCH[card], CARD_COLOUR[card]
        cards[e, c, counts[e, c]] = card
        counts[e, c] += 1
    return cards, counts


# the cards shuffled into each epoch's colour stacks: all of them in the advanced
# game; the basic game removes the starred purple cards (10 purple remain, enough for 5 players)
EPOCH_COLOUR_CARDS, EPOCH_COLOUR_COUNT = _epoch_colour_cards(np.ones(NUM_CARDS, dtype=np.bool_))
BASIC_EPOCH_COLOUR_CARDS, BASIC_EPOCH_COLOUR_COUNT = _epoch_colour_cards(~CARD_STARRED)

# position of each card among the cards of its epoch and colour (0..13), for compact encodings
CARD_RANK = np.zeros(NUM_CARDS, dtype=np.int16)
for _e in range(NUM_EPOCHS):
    for _c in range(NUM_COLOURS):
        for _i, _card in enumerate(EPOCH_COLOUR_CARDS[_e, _c, :EPOCH_COLOUR_COUNT[_e, _c]]):
            CARD_RANK[_card] = _i
# the two TILE_STEPS cards (I-P03, I-P04), in id order
TILE_STEPS_CARDS = np.flatnonzero(CARD_ABILITY == TILE_STEPS).astype(np.int16)

# --- start cards ---------------------------------------------------------------------------
# Start card s has initiative s + 1 on both sides (so initiatives stay distinct). Side A of initiative 2 is printed [R];
# the rest is designed [D] (side A tracks sum to 10; side B is more asymmetric).
NUM_START_CARDS = 5
SIDE_A, SIDE_B = 0, 1
START_INITIATIVE = np.array([1, 2, 3, 4, 5], dtype=np.int16)
START_COINS = np.array([[7, 5], [8, 12], [8, 6], [9, 7], [9, 6]], dtype=np.int16)  # (5, 2) [card, side]
START_TRACKS = np.array(  # (5, 2, 4) [card, side, track]
    [
        [[2, 2, 3, 3], [4, 1, 2, 3]],  # initiative 1
        [[2, 1, 3, 4], [1, 2, 2, 3]],  # initiative 2 (side A [R])
        [[3, 2, 1, 4], [2, 4, 1, 3]],  # initiative 3
        [[2, 3, 2, 3], [2, 1, 5, 2]],  # initiative 4
        [[1, 2, 2, 5], [2, 2, 1, 6]],  # initiative 5
    ],
    dtype=np.int16,
)

# --- setup by player count (index = number of players, rows 0 and 1 unused) ---------
STACK_SIZE = np.array([0, 0, 4, 6, 8, 10], dtype=np.int16)  # 2N cards per inner stack [R]
COLONIES_PER_TIER = np.array([0, 0, 2, 3, 4, 5], dtype=np.int16)  # N colonies per tier stack [R]
# start player of each epoch as a 0-based initiative rank (rank 0 = lowest initiative) [R]
START_PLAYER_RANK = np.array(
    [[-1, -1, -1], [-1, -1, -1], [0, 1, 0], [0, 1, 2], [0, 1, 2], [0, 1, 2]], dtype=np.int16
)
# ranks that never start (or, at 2 players, start only once) take 1 coin before epoch I [R]
START_PLAYER_COINS = 1
EXTRA_COIN_RANK = np.array(
    [
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0],  # 2 players: the higher initiative
        [0, 0, 0, 0, 0],  # 3 players: nobody
        [0, 0, 0, 1, 0],  # 4 players: rank 4 (1-based)
        [0, 0, 0, 1, 1],  # 5 players: ranks 4 and 5 (1-based)
    ],
    dtype=np.bool_,
)

# --- board and wheel ---------------------------------------------------------------------
DEFAULT_BOARD_ORDER = np.array([YELLOW, RED, BLUE, GREEN, PURPLE], dtype=np.int16)  # colour at position 0..4
NUM_ROTATIONS = 5  # phase A round k: seat i draws from position (i + r + k) % 5

# --- busts [D] ----------------------------------------------------------------------------
# bust 0: req/VP [R], reward [P]; bust 1: req and reward [R], VP [D]; bust 2 [R]; bust 3: reward [P], rest [D]
NUM_BUSTS = 4
BUST_REQUIREMENT = np.array([6, 13, 20, 30], dtype=np.int16)  # culture
BUST_VP = np.array([4, 8, 14, 22], dtype=np.int16)
BUST_REWARD = np.array([2, 3, 4, 6], dtype=np.int16)  # steps on the tile's track (front) or VP (back)

# --- bonus tiles ---------------------------------------------------------------------------
TILES_PER_COLOUR = 2  # per player, colours 0..3 only; shared by busts, silver seals and TILE_STEPS [R]
FRONT, BACK = 0, 1  # tile side: track steps / VP

# --- colonies [D] -------------------------------------------------------------------------
NUM_COLONIES = 25
NUM_TIERS = 5
COLONIES_IN_TIER = 5
PLUNDER, ALLY = 0, 1
COLONY_TIER_REQUIREMENT = np.array([3, 9, 15, 21, 30], dtype=np.int16)  # military [P]
# fronts are identical within a tier [D]; anchors [R]: tier 2 plunders 5 for 8 VP, tier 1 ally costs 1,
# tier 0 front shows 2 VP
COLONY_PLUNDER = np.array([2, 3, 5, 7, 10], dtype=np.int16)  # coins gained
COLONY_ALLY_COST = np.array([0, 1, 2, 3, 5], dtype=np.int16)  # coins paid
COLONY_FRONT_VP = np.array([2, 4, 8, 11, 15], dtype=np.int16)
# backs [D], except C00 (+1 income, +1 military) and C05 (+2 military, +1 culture, 5 VP) [R]
# (tier, income, military, culture, food, back VP); row i is colony id i
_COLONIES = (
    (0, 1, 1, 0, 0, 2), (0, 0, 0, 1, 1, 2), (0, 0, 2, 0, 0, 3), (0, 0, 0, 0, 2, 3), (0, 1, 0, 1, 0, 3),
    (1, 0, 2, 1, 0, 5), (1, 1, 0, 0, 2, 5), (1, 2, 1, 0, 0, 4), (1, 0, 0, 2, 1, 5), (1, 0, 1, 1, 1, 6),
    (2, 2, 2, 0, 0, 8), (2, 0, 0, 2, 2, 9), (2, 0, 3, 1, 0, 9), (2, 1, 0, 0, 3, 10), (2, 0, 1, 2, 1, 10),
    (3, 2, 3, 0, 0, 11), (3, 0, 0, 3, 2, 12), (3, 0, 2, 2, 1, 13), (3, 3, 0, 0, 2, 12), (3, 0, 4, 1, 0, 14),
    (4, 3, 3, 0, 0, 15), (4, 0, 0, 4, 2, 16), (4, 0, 3, 2, 1, 17), (4, 2, 0, 2, 2, 18), (4, 0, 4, 3, 0, 19),
)
COLONY_NAMES: tuple[str, ...] = tuple(f"C{i:02d}" for i in range(NUM_COLONIES))
COLONY_TIER = np.array([row[0] for row in _COLONIES], dtype=np.int16)
COLONY_BACK_TRACKS = np.array([row[1:5] for row in _COLONIES], dtype=np.int16)  # (25, 4) steps when allied
COLONY_BACK_VP = np.array([row[5] for row in _COLONIES], dtype=np.int16)

# --- seals [D] ---------------------------------------------------------------------------
MAX_SILVER = 2
MAX_GOLD = 2
SILVER_PRICE = np.array([5, 10, 20], dtype=np.int16)  # by epoch [D]
GOLD_PRICE = np.array([8, 15, 30], dtype=np.int16)  # by epoch [D]
# CHEAP_SEALS prices [R] for II/III; the card can't be held in epoch I, so that entry is the normal price.
# The holder pays min(normal, cheap); copies do not stack.
CHEAP_SILVER_PRICE = np.array([5, 4, 15], dtype=np.int16)
CHEAP_GOLD_PRICE = np.array([8, 6, 22], dtype=np.int16)
SILVER_VP_DIVISOR = 2  # a silver seal scores ceil(track / 2), or the full track with SILVER_FULL
GOLD_VP_PER_SET = 7  # per complete 5-colour set, per gold seal

# --- final scoring -------------------------------------------------------------------------
COINS_PER_VP = 5  # floor(coins / 5) VP; ties go to more coins, then the win is shared

# --- sections of the state machine ---------------------------------------------------------
DECISION_NAMES = (
    "SETUP_SIDE", "WHEEL", "A_DRAFT", "A_TILE", "A_COLONY", "A_BUST",
    "B_PICK", "B_TILE", "B_COLONY", "B_BUST", "B_FEED", "B_SEALS", "GAME_OVER",
)
(DEC_SETUP_SIDE, DEC_WHEEL, DEC_A_DRAFT, DEC_A_TILE, DEC_A_COLONY, DEC_A_BUST,
 DEC_B_PICK, DEC_B_TILE, DEC_B_COLONY, DEC_B_BUST, DEC_B_FEED, DEC_B_SEALS,
 DEC_GAME_OVER) = range(13)
NUM_DECISIONS = len(DECISION_NAMES)

# --- actions -------------------------------------------------------------------------------
BUY, SELL = 0, 1
ACTION_SIDE = 0  # + side (SIDE_A, SIDE_B)
ACTION_WHEEL = 2  # + rotation r
ACTION_DRAFT = 7  # 7: discard 1 buy 0; 8: discard 1 sell 0; 9: discard 0 buy 1; 10: discard 0 sell 1
ACTION_PICK = 11  # + 2 * colour + (BUY, SELL)
ACTION_TILE = 21  # + colour (0..3)
ACTION_COLONY = 25  # + 2 * tier + (PLUNDER, ALLY)
ACTION_BUST = 35  # + 8 * bust + 2 * tile colour + (FRONT, BACK)
ACTION_SILVER = 67  # + tile colour (0..3)
ACTION_GOLD = 71
ACTION_REMOVE = 72  # + tableau slot (0..29)
ACTION_FEED_PAY = 102
ACTION_PASS = 103
NUM_ACTIONS = 104

# Uniform draws per `apply` row, and at `init` (constants only; their use is defined in rules.py).
UNIFORMS_PER_STEP = 64
UNIFORMS_AT_INIT = 128
# Column layout of those uniforms. A deal shuffles each colour of an epoch by a partial Fisher-Yates
# of 2N draws, DEAL_UNIFORMS_PER_COLOUR columns reserved per colour.
DEAL_UNIFORMS_PER_COLOUR = 10
U_INIT_START_CARDS = 0  # 4 draws: Fisher-Yates of the 5 start cards, seat p gets entry p
U_INIT_BOARD = 4  # 4 draws: the board order, only with random_board_order
U_INIT_COLONIES = 8  # 4 draws per tier: shuffle the 5 colonies of the tier, keep N
U_INIT_DEAL = 28  # 5 x 10 draws: the epoch I deal
U_STEP_DEAL = 0  # 5 x 10 draws of an `apply` row in which epoch II or III begins
assert U_INIT_DEAL + NUM_COLOURS * DEAL_UNIFORMS_PER_COLOUR <= UNIFORMS_AT_INIT
assert U_STEP_DEAL + NUM_COLOURS * DEAL_UNIFORMS_PER_COLOUR <= UNIFORMS_PER_STEP

# (first index, count, name pattern, section(s), meaning): the action table.
# `action_names` and docs/hadara.md are generated from it. Besides {i} (index in the group) and {k}
# (= i + 1), a pattern may use fields of paired indices, first + 2 * p + q: {p}, {pc} (colour letter
# of p), {bs} (BUY/SELL of q), {pa} (PLUNDER/ALLY of q), {fb} (FRONT/BACK of q); and {c}, the colour
# letter of i.
_CHOICE = "A_COLONY, A_BUST, B_COLONY, B_BUST, B_SEALS"
ACTION_GROUPS: tuple[tuple[int, int, str, str, str], ...] = (
    (ACTION_SIDE, 1, "SIDE_A", "SETUP_SIDE", "advanced setup: play the start card on side A"),
    (ACTION_SIDE + 1, 1, "SIDE_B", "SETUP_SIDE", "advanced setup: play the start card on side B"),
    (ACTION_WHEEL, 5, "WHEEL_{i}", "WHEEL", "start player: set the wheel to rotation r = i"),
    (ACTION_DRAFT, 1, "BUY_0", "A_DRAFT", "discard card 1 to its outer pile, buy card 0"),
    (ACTION_DRAFT + 1, 1, "SELL_0", "A_DRAFT", "discard card 1 to its outer pile, sell card 0"),
    (ACTION_DRAFT + 2, 1, "BUY_1", "A_DRAFT", "discard card 0 to its outer pile, buy card 1"),
    (ACTION_DRAFT + 3, 1, "SELL_1", "A_DRAFT", "discard card 0 to its outer pile, sell card 1"),
    (ACTION_PICK, 10, "PICK_{pc}_{bs}", "B_PICK", "take the top card of outer pile p (Y,R,B,G,P) and buy / sell it"),
    (ACTION_TILE, 4, "TILE_{c}", "A_TILE, B_TILE", "TILE_STEPS: assign a free tile of colour i (Y,R,B,G): +2 on track i"),
    (ACTION_COLONY, 10, "COLONY_{p}_{pa}", "A_COLONY, B_COLONY", "take the top colony of tier p and plunder / ally"),
    (ACTION_BUST, 8, "BUST_0_{pc}_{fb}", "A_BUST, B_BUST", "carve bust 0 with a free tile of colour p, front / back up"),
    (ACTION_BUST + 8, 8, "BUST_1_{pc}_{fb}", "A_BUST, B_BUST", "carve bust 1 with a free tile of colour p, front / back up"),
    (ACTION_BUST + 16, 8, "BUST_2_{pc}_{fb}", "A_BUST, B_BUST", "carve bust 2 with a free tile of colour p, front / back up"),
    (ACTION_BUST + 24, 8, "BUST_3_{pc}_{fb}", "A_BUST, B_BUST", "carve bust 3 with a free tile of colour p, front / back up"),
    (ACTION_SILVER, 4, "SILVER_{c}", "B_SEALS", "buy a silver seal scoring track i, using a free tile of colour i"),
    (ACTION_GOLD, 1, "GOLD", "B_SEALS", "buy a gold seal"),
    (ACTION_REMOVE, 30, "REMOVE_{i}", "B_FEED", "remove the card in tableau slot i (no coins)"),
    (ACTION_FEED_PAY, 1, "FEED_PAY", "B_FEED", "FEED_COINS: pay 2 coins to cover one card"),
    (ACTION_PASS, 1, "PASS", _CHOICE, "take no (further) colony / bust / seal this section"),
)


def _name_fields(i: int) -> dict[str, int | str]:
    """The format fields of index i within an action group (see ACTION_GROUPS)."""
    p, q = divmod(i, 2)
    return {
        "i": i, "k": i + 1, "c": COLOUR_LETTERS[i % NUM_COLOURS], "p": p, "pc": COLOUR_LETTERS[p % NUM_COLOURS],
        "bs": ("BUY", "SELL")[q], "pa": ("PLUNDER", "ALLY")[q], "fb": ("FRONT", "BACK")[q],
    }


def action_names(num_actions: int) -> tuple[str, ...]:
    """Symbolic name of every action index (used by action_to_str and the docs)."""
    return action_names_from_groups(ACTION_GROUPS, num_actions, _name_fields)


def max_game_length(num_players: int, advanced: bool) -> int:
    """An upper bound on decisions in one game: per epoch the wheel, 5 draft rounds and
    their tile follow-ups, 5 phase-B picks with follow-ups, 4 colony/bust sections of at most 3
    decisions (2 takes + pass), at most 30 removals + 6 payments in feeding, and 5 seal decisions."""
    per_epoch = 1 + num_players * (5 + 5 + 5 + 5 + 4 * 3 + MAX_TABLEAU + FEED_COINS_MAX_CARDS + MAX_SILVER + MAX_GOLD + 1)
    return (num_players if advanced else 0) + NUM_EPOCHS * per_epoch


def info(num_players: int, advanced: bool) -> GameInfo:
    """GameInfo for one configuration."""
    return GameInfo(
        name="hadara",
        num_players=num_players,
        num_actions=NUM_ACTIONS,
        max_game_length=max_game_length(num_players, advanced),
        has_chance=True,
        has_hidden_information=True,
    )
