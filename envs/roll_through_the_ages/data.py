"""Static data for Roll Through the Ages: The Bronze Age (original 2008 score sheet).

Every table follows the rules summarised in docs/roll_through_the_ages.md. Tables are numpy
arrays so numba kernels can read them as frozen globals; never mutate them.

The action index layout (the base game's 51 actions, plus the trade variant's actions from 51 on) is
`ACTION_GROUPS` below; docs/roll_through_the_ages.md shows it as a table generated from it.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.core import GameInfo, action_names_from_groups

# --- dice --------------------------------------------------------------------------------
NUM_FACES = 6
GOOD1, FOOD3, SKULL, FW2, COINS7, WORKERS3 = range(6)
FACE_NAMES = ("GOOD1", "FOOD3", "SKULL", "FW2", "COINS7", "WORKERS3")
MAX_DICE = 7
NO_DIE = -1  # dice slots beyond the player's city count

# food/worker decision per FW2 die (phase 2: choose food or workers)
FW_UNDECIDED, FW_FOOD_CHOSEN, FW_WORKERS_CHOSEN = 0, 1, 2

# --- food and goods ----------------------------------------------------------------------
FOOD_START = 3
FOOD_MAX = 15
NUM_GOODS = 5
WOOD, STONE, POTTERY, CLOTH, SPEARHEADS = range(5)
GOOD_NAMES = ("wood", "stone", "pottery", "cloth", "spearheads")
GOODS_MAX = np.array([8, 7, 6, 5, 4], dtype=np.int64)  # max of type k (1-based) is 9 - k
# GOODS_VALUE[g, n] = value of n units of type g = k * n * (n + 1) / 2 with k = g + 1
GOODS_VALUE = np.array(
    [[(g + 1) * n * (n + 1) // 2 if n <= GOODS_MAX[g] else 0 for n in range(9)] for g in range(5)],
    dtype=np.int64,
)
GOODS_LIMIT = 6  # at most 6 units after the discard phase (unless Caravans)
MAX_GOODS_VALUE = int(sum(GOODS_VALUE[g, GOODS_MAX[g]] for g in range(5)))  # 265

# Tradeable resources in the trade variant: the five goods, then food.
NUM_TRADE_TYPES = 6
TRADE_FOOD = 5
TRADE_MAX = np.array([8, 7, 6, 5, 4, FOOD_MAX], dtype=np.int64)

# --- cities ------------------------------------------------------------------------------
START_CITIES = 3
MAX_CITIES = 7
CITY_THRESHOLDS = np.array([3, 7, 12, 18], dtype=np.int64)  # cumulative workers for cities 4..7
CITY_WORKERS_MAX = 18

# --- monuments ---------------------------------------------------------------------------
NUM_MONUMENTS = 7
MONUMENT_NAMES = (
    "Step Pyramid", "Stone Circle", "Temple", "Obelisk", "Hanging Gardens", "Great Wall", "Great Pyramid",
)
GREAT_WALL = 5
MONUMENT_WORKERS = np.array([3, 5, 7, 9, 11, 13, 15], dtype=np.int64)
MONUMENT_FIRST = np.array([1, 2, 4, 6, 8, 10, 12], dtype=np.int64)
MONUMENT_LATER = np.array([0, 1, 2, 3, 4, 5, 6], dtype=np.int64)
# monuments in play, by player count (index = number of players)
MONUMENTS_IN_PLAY = np.array(
    [
        [0, 0, 0, 0, 0, 0, 0],  # unused (0 players)
        [1, 1, 1, 1, 1, 1, 1],  # solo: all seven
        [1, 1, 0, 1, 1, 1, 0],  # 2 players: no Temple, no Great Pyramid
        [1, 1, 1, 1, 0, 1, 1],  # 3 players: no Hanging Gardens
        [1, 1, 1, 1, 1, 1, 1],  # 4 players: all seven
    ],
    dtype=np.bool_,
)

# --- developments (original sheet: Religion costs 20 and scores 6, not the revised 25/7) -------
NUM_DEVELOPMENTS = 13
(LEADERSHIP, IRRIGATION, AGRICULTURE, QUARRYING, MEDICINE, COINAGE, CARAVANS, RELIGION,
 GRANARIES, MASONRY, ENGINEERING, ARCHITECTURE, EMPIRE) = range(13)
DEVELOPMENT_NAMES = (
    "Leadership", "Irrigation", "Agriculture", "Quarrying", "Medicine", "Coinage", "Caravans",
    "Religion", "Granaries", "Masonry", "Engineering", "Architecture", "Empire",
)
DEVELOPMENT_COST = np.array([10, 10, 15, 15, 15, 20, 20, 20, 30, 30, 40, 50, 60], dtype=np.int64)
DEVELOPMENT_POINTS = np.array([2, 2, 3, 3, 3, 4, 4, 6, 6, 6, 6, 8, 8], dtype=np.int64)
GRANARIES_COINS_PER_FOOD = 4
ENGINEERING_WORKERS_PER_STONE = 3
COINS_PER_DIE_MAX = 12  # a COINS7 die with Coinage
WORKERS_PER_DIE_MAX = 4  # a WORKERS3 die with Masonry
DEVELOPMENTS_TO_END = 5  # buying the 5th development triggers the final round

# --- disasters ---------------------------------------------------------------------------
DROUGHT_SKULLS, PESTILENCE_SKULLS, INVASION_SKULLS, REVOLT_SKULLS = 2, 3, 4, 5
DROUGHT_POINTS, PESTILENCE_POINTS, INVASION_POINTS = 2, 3, 4

# --- turn structure --------------------------------------------------------------------
MAX_ROLLS = 3
SOLO_ROUNDS = 10  # solo variant
DEFAULT_MAX_ROUNDS = 100  # truncation limit (the game has no natural bound)
DECISION_NAMES = (
    "ROLL", "LEADERSHIP", "CHOOSE_FW", "TRADE", "TRADE_OFFER", "TRADE_RESPOND", "BUILD", "BUY",
    "DISCARD", "GAME_OVER",
)
(DEC_ROLL, DEC_LEADERSHIP, DEC_CHOOSE_FW, DEC_TRADE, DEC_TRADE_OFFER, DEC_TRADE_RESPOND,
 DEC_BUILD, DEC_BUY, DEC_DISCARD, DEC_GAME_OVER) = range(10)
NUM_DECISIONS = len(DECISION_NAMES)

# --- actions ----------------------------------------------------------------------------
ACTION_MARK_REROLL = 0
ACTION_ROLL = 7
ACTION_LEADERSHIP_REROLL = 8
ACTION_FW_FOOD = 15
ACTION_FW_WORKERS = 16
ACTION_BUILD_CITY = 17
ACTION_BUILD_MONUMENT = 18
ACTION_ENGINEERING = 25
ACTION_PAY_GOOD = 26
ACTION_PAY_FOOD = 31
ACTION_BUY_DEV = 32
ACTION_DISCARD = 45
ACTION_PASS = 50
NUM_BASE_ACTIONS = 51
ACTION_TRADE_WITH = 51  # + (k - 1), k = seats after the active player
ACTION_OFFER_GIVE = 54
ACTION_OFFER_TAKE = 60
ACTION_PROPOSE = 66
ACTION_ACCEPT = 67
ACTION_DECLINE = 68
NUM_TRADE_ACTIONS = 69
DEFAULT_MAX_TRADE_OFFERS = 3  # offers (proposed or withdrawn) per turn; bounds the trade step

# Uniform draws per `apply` row. Dice are drawn in order from this block; a row that needs more
# (only when whole turns pass without a decision) continues with a generator seeded from it.
UNIFORMS_PER_STEP = 16

TRADE_TYPE_NAMES = GOOD_NAMES + ("food",)


# (first index, count, name pattern, phase, meaning): the base action table plus trading.
# `action_names` and docs/roll_through_the_ages.md are generated from it.
ACTION_GROUPS: tuple[tuple[int, int, str, str, str], ...] = (
    (ACTION_MARK_REROLL, 7, "MARK_REROLL_{i}", "ROLL", "mark die i for the next reroll (not a skull, unless solo)"),
    (ACTION_ROLL, 1, "ROLL", "ROLL", "reroll the marked dice (uses one of the 3 rolls)"),
    (ACTION_LEADERSHIP_REROLL, 7, "LEADERSHIP_REROLL_{i}", "LEADERSHIP", "Leadership: reroll die i once, skulls allowed; final"),
    (ACTION_FW_FOOD, 1, "FW_FOOD", "CHOOSE_FW", "the lowest undecided food/worker die gives food"),
    (ACTION_FW_WORKERS, 1, "FW_WORKERS", "CHOOSE_FW", "the lowest undecided food/worker die gives workers"),
    (ACTION_BUILD_CITY, 1, "BUILD_CITY", "BUILD", "one worker on the next unfinished city"),
    (ACTION_BUILD_MONUMENT, 7, "BUILD_MONUMENT_{i}", "BUILD", "one worker on monument i (0 Step Pyramid … 6 Great Pyramid)"),
    (ACTION_ENGINEERING, 1, "ENGINEERING", "BUILD", "Engineering: one stone becomes 3 workers"),
    (ACTION_PAY_GOOD, 5, "PAY_GOOD_{i}", "BUY", "mark the whole goods track i (wood..spearheads) as payment"),
    (ACTION_PAY_FOOD, 1, "PAY_FOOD", "BUY", "Granaries: mark one food as 4 coins"),
    (ACTION_BUY_DEV, 13, "BUY_DEV_{i}", "BUY", "buy development i (0 Leadership … 12 Empire) with coins and the marks"),
    (ACTION_DISCARD, 5, "DISCARD_{i}", "DISCARD", "discard one unit of goods i"),
    (ACTION_PASS, 1, "PASS", "ROLL, LEADERSHIP, TRADE, TRADE_OFFER, BUILD, BUY",
     "end the phase: stop rolling / decline / end trading / withdraw the offer / stop building / buy nothing"),
    (ACTION_TRADE_WITH, 3, "TRADE_WITH_{k}", "TRADE", "trade variant: open an offer to the seat k = i + 1 places after the active one"),
    (ACTION_OFFER_GIVE, 6, "OFFER_GIVE_{i}", "TRADE_OFFER", "trade variant: give one more unit of i (5 goods, then food)"),
    (ACTION_OFFER_TAKE, 6, "OFFER_TAKE_{i}", "TRADE_OFFER", "trade variant: ask for one more unit of i"),
    (ACTION_PROPOSE, 1, "PROPOSE", "TRADE_OFFER", "trade variant: send the offer; the partner decides next"),
    (ACTION_ACCEPT, 1, "ACCEPT", "TRADE_RESPOND", "trade variant (partner): accept; both sides transfer at once"),
    (ACTION_DECLINE, 1, "DECLINE", "TRADE_RESPOND", "trade variant (partner): decline"),
)


def action_names(num_actions: int) -> tuple[str, ...]:
    """Symbolic name of every action index (used by action_to_str and the docs)."""
    return action_names_from_groups(ACTION_GROUPS, num_actions)


def info(num_players: int, trade: bool, max_rounds: int, max_trade_offers: int) -> GameInfo:
    """GameInfo for one configuration (at most 126 steps per turn, plus trading)."""
    num_actions = NUM_TRADE_ACTIONS if trade else NUM_BASE_ACTIONS
    rounds = SOLO_ROUNDS if num_players == 1 else max_rounds
    # each offer: <= 45 unit steps per side + propose + answer; + partner choice + end
    trade_steps = max_trade_offers * (2 * 45 + 3) + 1 if trade else 0
    return GameInfo(
        name="roll_through_the_ages",
        num_players=num_players,
        num_actions=num_actions,
        max_game_length=rounds * num_players * (126 + trade_steps),
        has_chance=True,
        has_hidden_information=False,
    )
