"""What every consistent Hadara state keeps, as named invariants (`validate`, envs/codegen.py).

Each invariant is a kernel `name(s, b, ...) -> bool`, True when row b keeps it; `INVARIANTS` lists them in
the order they are checked, and a later one may rely on the earlier ones (a card id read from a pile is one
the pile's count covers, a drawn pair has both cards, ...). The field ranges are checked before any of them
(`RulesBase.check_values`), so indices read from the state are in bounds. `validate` hands the invariants a
copy of the state: `derived_fields_match_recomputation` recomputes the derived caches in it.

Scratch (state.SCRATCH): `where` counts the places holding each card; `v_tracks`, `v_colour_count`,
`v_ability_count` and `v_free_tiles` keep the stored derived values while they are recomputed.
"""

from __future__ import annotations

import numpy as np

from meeple.envs.base import Invariant
from meeple.envs.invariant_helpers import counts_within, distinct, filled_to, tally
from meeple.envs.jit import count_at_least, count_equal, invariant, kernel
from meeple.envs.hadara.data import (
    BUY_REQUIREMENT, BUY_REQUIREMENT_COINS_PER_POINT, CARD_ABILITY, CARD_COLOUR, CARD_EPOCH, COLONIES_IN_TIER,
    COLONY_TIER, DEC_A_BUST, DEC_A_COLONY, DEC_A_DRAFT, DEC_A_TILE, DEC_B_BUST, DEC_B_COLONY, DEC_B_FEED,
    DEC_B_PICK, DEC_B_TILE, DEC_GAME_OVER, DEC_SETUP_SIDE, DEC_WHEEL, DOUBLE_SECTION, FOOD, MAX_TABLEAU,
    NUM_ABILITIES, NUM_BUSTS, NUM_CARDS, NUM_COLOURS, NUM_EPOCHS, NUM_TIERS, NUM_TRACKS, ROUNDS_PER_PHASE_A, SELL,
    TILE_STEPS,
)
from meeple.envs.hadara.kernels import (
    NOT_TAKEN, PHASE_B_TURNS, _has_free_tile, actor_of, card_count, eff_price, refresh_player,
)
from meeple.envs.hadara.state import (
    ACQUISITIONS_PER_EPOCH, COINS_MAX, COLONY_GAIN_MAX, INCOME_GAIN_MAX, INCOMES_PER_EPOCH, SELL_GAIN_MAX, SOLD_SLOTS,
    SURPLUS_GAIN_MAX,
)


# --- helpers ------------------------------------------------------------------------------------

@kernel(inline="always")
def _rounds_drawn_resolved(sec, rnd):
    """Phase-A rounds of this epoch whose pairs were drawn, and those already revealed and resolved
    (draft: draw at the round's start, resolve when the last player commits)."""
    if sec == DEC_SETUP_SIDE or sec == DEC_WHEEL:
        return 0, 0
    if sec == DEC_A_DRAFT:
        return rnd + 1, rnd
    if sec == DEC_A_TILE:
        return rnd + 1, rnd + 1
    return ROUNDS_PER_PHASE_A, ROUNDS_PER_PHASE_A


@kernel(inline="always")
def _draws(s, b, c, k1):
    """Pairs drawn from the stack of colour c in phase-A rounds 0..k1-1 (seat i draws at
    board position (i + rotation + round) % 5, so a stack meets each seat once over the 5 rounds)."""
    P = s.coins.shape[1]
    n = 0
    for k in range(k1):
        for i in range(P):
            if s.board_order[b, (i + s.rotation[b] + k) % NUM_COLOURS] == c:
                n += 1
    return n


@kernel(inline="always")
def _acquisitions_so_far(s, b, p, resolved):
    """Cards p has kept so far (each bought into a slot or sold face down in phase A): one per resolved draft
    round and per own phase-B pick, 10 per past epoch; the card of a pick whose TILE_STEPS
    follow-up is pending is already in the tableau."""
    P = s.coins.shape[1]
    sec = s.decision[b]
    n = ACQUISITIONS_PER_EPOCH * s.epoch[b] + resolved
    if sec == DEC_B_PICK or sec == DEC_B_TILE or sec > DEC_B_TILE:
        picks = s.pick[b] + (1 if sec == DEC_B_TILE else 0)
        for j in range(picks):
            if (s.start_player[b] + j) % P == p:
                n += 1
    return n


@kernel(inline="always")
def _coins_still_to_gain(s, b, p, acquired):
    """The most coins p can still gain (see state.COINS_MAX): the Incomes, sales, colonies and FOOD_SURPLUS
    sections left in the game, each at its most."""
    P = s.coins.shape[1]
    sec = s.decision[b]
    later = NUM_EPOCHS - 1 - np.int64(s.epoch[b])  # int64: int8 arithmetic overflows without the JIT
    incomes = INCOMES_PER_EPOCH * later
    if sec <= DEC_A_TILE:
        incomes += 2  # after the draft (A3) and after the picks (B2)
    elif sec <= DEC_B_TILE:
        incomes += 1
    surplus = later
    if sec < DEC_B_FEED or (sec == DEC_B_FEED and (p - s.start_player[b]) % P >= s.turn[b]):
        surplus += 1  # FOOD_SURPLUS: after the player's own feeding in this epoch
    gain = incomes * INCOME_GAIN_MAX + surplus * SURPLUS_GAIN_MAX
    gain += (NUM_EPOCHS * ACQUISITIONS_PER_EPOCH - np.int64(acquired)) * SELL_GAIN_MAX
    for t in range(NUM_TIERS):
        if s.colony[b, p, t] == NOT_TAKEN:
            gain += COLONY_GAIN_MAX[t]
    return gain


@invariant
def _count_places(s, b, where):
    """where[card] = the places holding the card: the public discard, inner stacks, outer piles, drawn
    pairs, face-down sales and tableaux."""
    for card in range(NUM_CARDS):
        where[card] = 1 if s.removed[b, card] else 0
    for c in range(NUM_COLOURS):
        tally(s.inner[b, c], where)
        tally(s.outer[b, c], where)
    for p in range(s.coins.shape[1]):
        tally(s.drawn[b, p], where)
        tally(s.sold_a[b, p], where)
        tally(s.tableau[b, p], where)


@kernel(inline="always")
def _cards_of(pile, colour, epoch):
    """Every card of pile (-1: an empty slot) has this colour and epoch."""
    for i in range(pile.shape[0]):
        card = pile[i]
        if card >= 0 and (CARD_COLOUR[card] != colour or CARD_EPOCH[card] != epoch):
            return False
    return True


@kernel(inline="always")
def _in_take_section(sec):
    """A colony or bust section (sect_count / sect_bought count its takes and requirement coins)."""
    return sec == DEC_A_COLONY or sec == DEC_B_COLONY or sec == DEC_A_BUST or sec == DEC_B_BUST


# --- game over ----------------------------------------------------------------------------------

@invariant
def done_exactly_at_game_over(s, b):
    """The game is over exactly in the section GAME_OVER."""
    return s.done[b] == (s.decision[b] == DEC_GAME_OVER)


# --- card slots ---------------------------------------------------------------------------------

@invariant
def piles_filled_up_to_their_counts(s, b):
    """Inner stacks and outer piles hold cards exactly in their first count slots, -1 beyond."""
    for c in range(NUM_COLOURS):
        if not (filled_to(s.inner[b, c], s.inner_count[b, c]) and filled_to(s.outer[b, c], s.outer_count[b, c])):
            return False
    return True


@invariant
def piles_hold_their_colour_of_this_epoch(s, b):
    """Every card of an inner stack or outer pile has the pile's colour and is of the current epoch."""
    for c in range(NUM_COLOURS):
        if not (_cards_of(s.inner[b, c], c, s.epoch[b]) and _cards_of(s.outer[b, c], c, s.epoch[b])):
            return False
    return True


@invariant
def face_down_sales_in_their_epoch(s, b):
    """A face-down sale at 5e + k (epoch e, round k) is a card of epoch e."""
    for p in range(s.coins.shape[1]):
        for i in range(SOLD_SLOTS):
            card = s.sold_a[b, p, i]
            if card >= 0 and CARD_EPOCH[card] != i // ROUNDS_PER_PHASE_A:
                return False
    return True


@invariant
def tiles_only_on_tile_steps_cards(s, b):
    """A bonus tile lies only on a tableau slot that holds a TILE_STEPS card."""
    for p in range(s.coins.shape[1]):
        for slot in range(MAX_TABLEAU):
            if s.slot_tile[b, p, slot] >= 0:
                card = s.tableau[b, p, slot]
                if card < 0 or CARD_ABILITY[card] != TILE_STEPS:
                    return False
    return True


@invariant
def tableau_within_the_slots_used(s, b):
    """No card lies in a slot at or past n_slots (slots are assigned in order and never reused)."""
    for p in range(s.coins.shape[1]):
        for slot in range(MAX_TABLEAU):
            if s.tableau[b, p, slot] >= 0 and slot >= s.n_slots[b, p]:
                return False
    return True


# --- where the cards are ------------------------------------------------------------------------

@invariant
def each_card_in_one_place(s, b, where):
    """No card is in two places (the discard, a stack, a pile, a pair, a face-down sale, a tableau)."""
    _count_places(s, b, where)
    return counts_within(where, 0, 1)


@invariant
def cards_only_from_dealt_epochs(s, b, where):
    """No card of a later epoch is anywhere yet (an epoch's cards are dealt when it begins)."""
    _count_places(s, b, where)
    for card in range(NUM_CARDS):
        if where[card] > 0 and CARD_EPOCH[card] > s.epoch[b]:
            return False
    return True


@invariant
def cards_only_from_the_games_card_set(s, b, where, deck_cards, deck_count):
    """Every card in play belongs to this game's card set (the basic game leaves out the starred purple cards)."""
    _count_places(s, b, where)
    for card in range(NUM_CARDS):
        if where[card] > 0:
            e, c = CARD_EPOCH[card], CARD_COLOUR[card]
            in_set = False
            for i in range(deck_count[e, c]):
                if deck_cards[e, c, i] == card:
                    in_set = True
            if not in_set:
                return False
    return True


@invariant
def dealt_cards_conserved(s, b, where, deck_cards, deck_count):
    """Each dealt epoch and colour has exactly 2N cards somewhere outside the box."""
    _count_places(s, b, where)
    P = s.coins.shape[1]
    for e in range(s.epoch[b] + 1):
        for c in range(NUM_COLOURS):
            n = 0
            for i in range(deck_count[e, c]):
                n += where[deck_cards[e, c, i]]
            if n != 2 * P:
                return False
    return True


# --- colonies -----------------------------------------------------------------------------------

@invariant
def colony_stacks_filled_up_to_their_counts(s, b):
    """Each tier's stack holds colonies of its tier exactly in its first colony_count slots, -1 beyond."""
    for t in range(NUM_TIERS):
        if not filled_to(s.colony_stack[b, t], s.colony_count[b, t]):
            return False
        for i in range(s.colony_stack.shape[2]):
            cid = s.colony_stack[b, t, i]
            if cid >= 0 and COLONY_TIER[cid] != t:
                return False
    return True


@invariant
def taken_colonies_have_ids_of_their_tier(s, b):
    """A player holds a colony id of tier t exactly when he has taken (plundered or allied) that tier."""
    for p in range(s.coins.shape[1]):
        for t in range(NUM_TIERS):
            cid = s.colony_id[b, p, t]
            if (cid >= 0) != (s.colony[b, p, t] != NOT_TAKEN) or (cid >= 0 and COLONY_TIER[cid] != t):
                return False
    return True


@invariant
def colonies_accounted_for(s, b):
    """N colonies per tier between the stack and the players (the game uses N of each tier)."""
    for t in range(NUM_TIERS):
        if s.colony_count[b, t] + count_at_least(s.colony_id[b, :, t], 0) != s.coins.shape[1]:
            return False
    return True


@invariant
def colony_ids_distinct(s, b):
    """No colony is in two places (the stack and the players together)."""
    for t in range(NUM_TIERS):
        for i in range(COLONIES_IN_TIER):
            cid = COLONIES_IN_TIER * t + i
            if count_equal(s.colony_stack[b, t], cid) + count_equal(s.colony_id[b, :, t], cid) > 1:
                return False
    return True


# --- hidden commitments, pairs, sides and seats -------------------------------------------------

@invariant
def committed_exactly_when_pending(s, b):
    """A seat has committed (public) exactly when its hidden commitment `pending` is set."""
    for p in range(s.coins.shape[1]):
        if (s.pending[b, p] >= 0) != s.committed[b, p]:
            return False
    return True


@invariant
def commitments_only_in_simultaneous_sections(s, b):
    """Commitments exist only in the draft and the choice of start-card sides (a side is 0 or 1)."""
    sec = s.decision[b]
    for p in range(s.coins.shape[1]):
        if s.committed[b, p] and sec != DEC_A_DRAFT and sec != DEC_SETUP_SIDE:
            return False
        if sec == DEC_SETUP_SIDE and s.pending[b, p] > 1:
            return False
    return True


@invariant
def pairs_drawn_exactly_in_the_draft(s, b):
    """Every seat holds a drawn pair (both cards) in the draft, and no card outside it."""
    in_draft = s.decision[b] == DEC_A_DRAFT
    for p in range(s.coins.shape[1]):
        has_pair = s.drawn[b, p, 0] >= 0
        if has_pair != in_draft or has_pair != (s.drawn[b, p, 1] >= 0):
            return False
    return True


@invariant
def pairs_of_one_colour(s, b):
    """Both cards of a drawn pair come from one stack, so they have one colour."""
    for p in range(s.coins.shape[1]):
        if s.drawn[b, p, 0] >= 0 and CARD_COLOUR[s.drawn[b, p, 0]] != CARD_COLOUR[s.drawn[b, p, 1]]:
            return False
    return True


@invariant
def start_sides_hidden_only_in_the_side_choice(s, b, advanced):
    """Start-card sides are unrevealed exactly during the side choice, which only the advanced game has."""
    in_choice = s.decision[b] == DEC_SETUP_SIDE
    if in_choice and not advanced:
        return False
    for p in range(s.coins.shape[1]):
        if (s.start_side[b, p] < 0) != in_choice:
            return False
    return True


@invariant
def tile_due_on_an_untiled_tile_steps_card(s, b):
    """A pending TILE_STEPS follow-up points at a TILE_STEPS card of the tableau that has no tile yet."""
    for p in range(s.coins.shape[1]):
        td = s.tile_due[b, p]
        if td >= 0 and (s.tableau[b, p, td] < 0 or CARD_ABILITY[s.tableau[b, p, td]] != TILE_STEPS
                        or s.slot_tile[b, p, td] >= 0):
            return False
    return True


@invariant
def silver_seals_in_order(s, b):
    """A second silver seal only after the first."""
    for p in range(s.coins.shape[1]):
        if s.silver[b, p, 0] < 0 and s.silver[b, p, 1] >= 0:
            return False
    return True


@invariant
def coins_not_negative(s, b):
    """No player owes coins."""
    for p in range(s.coins.shape[1]):
        if s.coins[b, p] < 0:
            return False
    return True


@invariant
def start_cards_distinct(s, b):
    """Each player has his own start card (initiative)."""
    return distinct(s.start_card[b])


@invariant
def board_order_a_permutation(s, b):
    """The five board segments have five different colours."""
    return distinct(s.board_order[b])


# --- derived caches -----------------------------------------------------------------------------

@invariant
def derived_fields_match_recomputation(s, b, v_tracks, v_colour_count, v_ability_count, v_free_tiles):
    """The derived tracks, colour and ability counts and free tiles are what the rules' own `refresh_player`
    recomputes from the primary fields (saved, recomputed in this copy of the state, compared; free tiles
    can't go negative: the stored ones are in range)."""
    for p in range(s.coins.shape[1]):
        for k in range(NUM_TRACKS):
            v_tracks[p, k] = s.tracks[b, p, k]
            v_free_tiles[p, k] = s.free_tiles[b, p, k]
        for c in range(NUM_COLOURS):
            v_colour_count[p, c] = s.colour_count[b, p, c]
        for a in range(NUM_ABILITIES):
            v_ability_count[p, a] = s.ability_count[b, p, a]
        refresh_player(s, b, p)
        for k in range(NUM_TRACKS):
            if v_tracks[p, k] != s.tracks[b, p, k] or v_free_tiles[p, k] != s.free_tiles[b, p, k]:
                return False
        for c in range(NUM_COLOURS):
            if v_colour_count[p, c] != s.colour_count[b, p, c]:
                return False
        for a in range(NUM_ABILITIES):
            if v_ability_count[p, a] != s.ability_count[b, p, a]:
                return False
    return True


# --- where the flow stands ----------------------------------------------------------------------

@invariant
def outer_piles_shrink_with_the_picks(s, b):
    """In phase B the outer piles hold 5N cards less the picks taken (the card of a pick whose TILE_STEPS
    follow-up is pending is already taken)."""
    sec = s.decision[b]
    if sec != DEC_B_PICK and sec != DEC_B_TILE:
        return True
    n = 0
    for c in range(NUM_COLOURS):
        n += s.outer_count[b, c]
    return n == PHASE_B_TURNS * s.coins.shape[1] - s.pick[b] - (1 if sec == DEC_B_TILE else 0)


@invariant
def commitments_follow_the_turn_order(s, b):
    """In a simultaneous section the first `turn` seats from the start player have committed, the others not."""
    sec = s.decision[b]
    if sec != DEC_A_DRAFT and sec != DEC_SETUP_SIDE:
        return True
    P = s.coins.shape[1]
    for i in range(P):
        if s.committed[b, (s.start_player[b] + i) % P] != (i < s.turn[b]):
            return False
    return True


@invariant
def wheel_unset_only_before_its_decision(s, b):
    """The rotation is -1 exactly in the side choice and the wheel decision: the wheel is set once per epoch
    after the side choice and kept to the end of the game."""
    sec = s.decision[b]
    return (s.rotation[b] == -1) == (sec == DEC_SETUP_SIDE or sec == DEC_WHEEL)


@invariant
def to_play_is_the_actor(s, b):
    """The seat to play in a live game is the section's actor (by turn, or by pick in phase B)."""
    return s.done[b] or s.to_play[b] == actor_of(s, b)


# --- the section's counters ---------------------------------------------------------------------

@invariant
def side_choice_only_in_epoch_one(s, b):
    """Start-card sides are chosen at the setup, before the first epoch's wheel."""
    return s.decision[b] != DEC_SETUP_SIDE or s.epoch[b] == 0


@invariant
def round_fits_the_section(s, b):
    """Round 0 before the draft, rounds 0..4 in A_DRAFT / A_TILE, and round 5 once the draft is over."""
    sec = s.decision[b]
    rnd = s.round[b]
    if sec == DEC_SETUP_SIDE or sec == DEC_WHEEL:
        return rnd == 0
    if sec == DEC_A_DRAFT or sec == DEC_A_TILE:
        return rnd < ROUNDS_PER_PHASE_A
    return rnd == ROUNDS_PER_PHASE_A


@invariant
def picks_counted_only_in_phase_b(s, b):
    """The picks are 0 before phase B, count 0..5N-1 during its picks and are 5N after them."""
    sec = s.decision[b]
    picks = PHASE_B_TURNS * s.coins.shape[1]
    if sec < DEC_B_PICK:
        return s.pick[b] == 0
    if sec <= DEC_B_TILE:
        return s.pick[b] < picks
    return s.pick[b] == picks


@invariant
def turn_is_a_seat_still_to_act(s, b):
    """A live row's turn is a seat still to act; it stays 0 where the start player or the picks say who
    acts (the wheel, phase-B picks)."""
    sec = s.decision[b]
    if (sec == DEC_WHEEL or sec == DEC_B_PICK or sec == DEC_B_TILE) and s.turn[b] != 0:
        return False
    return s.done[b] or s.turn[b] < s.coins.shape[1]


@invariant
def take_counters_only_in_take_sections(s, b):
    """The takes and requirement coins of a section are counted only in colony and bust sections."""
    return _in_take_section(s.decision[b]) or (s.sect_count[b] == 0 and s.sect_bought[b] == 0)


@invariant
def requirement_bought_with_a_take(s, b):
    """Requirement points are bought (BUY_REQUIREMENT, in whole points) only by an actor who has it, and only
    with a take."""
    if not _in_take_section(s.decision[b]) or s.sect_bought[b] == 0:
        return True
    actor = actor_of(s, b)
    return (s.sect_count[b] != 0 and s.ability_count[b, actor, BUY_REQUIREMENT] != 0
            and s.sect_bought[b] % BUY_REQUIREMENT_COINS_PER_POINT == 0)


@invariant
def feeding_paid_only_in_feeding(s, b):
    """FEED_COINS payments count only in Feeding (the payer may remove the FEED_COINS card afterwards)."""
    return s.feed_paid[b] == 0 or s.decision[b] == DEC_B_FEED


@invariant
def no_colony_or_bust_before_its_first_section(s, b):
    """Colonies are taken from the first colony section (A4) on, busts from the first bust section (A5) on."""
    if s.epoch[b] != 0:
        return True
    sec = s.decision[b]
    for p in range(s.coins.shape[1]):
        for t in range(NUM_TIERS):
            if s.colony[b, p, t] != NOT_TAKEN and sec < DEC_A_COLONY:
                return False
        for bu in range(NUM_BUSTS):
            if s.bust[b, p, bu] >= 0 and sec < DEC_A_BUST:
                return False
    return True


# --- pile sizes ---------------------------------------------------------------------------------

@invariant
def inner_stacks_shrink_with_the_pairs_drawn(s, b):
    """Each inner stack has 2N cards at the deal and 2 fewer per pair drawn from it this epoch."""
    drawn_rounds, _ = _rounds_drawn_resolved(s.decision[b], s.round[b])
    P = s.coins.shape[1]
    for c in range(NUM_COLOURS):
        if s.inner_count[b, c] != 2 * P - 2 * _draws(s, b, c, drawn_rounds):
            return False
    return True


@invariant
def outer_piles_grow_with_the_pairs_resolved(s, b):
    """Each resolved pair discards one card onto its colour's outer pile, so in phase A the pile has one card
    per resolved pair from that stack (N each when phase B begins; 5N - picks during phase B is checked by
    outer_piles_shrink_with_the_picks); after phase B the piles are empty."""
    sec = s.decision[b]
    _, resolved = _rounds_drawn_resolved(sec, s.round[b])
    for c in range(NUM_COLOURS):
        if sec <= DEC_A_BUST and s.outer_count[b, c] != _draws(s, b, c, resolved):
            return False
        if sec > DEC_B_TILE and s.outer_count[b, c] != 0:
            return False
    return True


# --- cards kept and coins -----------------------------------------------------------------------

@invariant
def sales_only_in_resolved_rounds(s, b):
    """A face-down sale of this epoch is in a round already resolved."""
    _, resolved = _rounds_drawn_resolved(s.decision[b], s.round[b])
    for p in range(s.coins.shape[1]):
        for i in range(SOLD_SLOTS):
            if s.sold_a[b, p, i] >= 0 and i >= ROUNDS_PER_PHASE_A * s.epoch[b] + resolved:
                return False
    return True


@invariant
def cards_kept_within_the_acquisitions(s, b):
    """Every slot ever used and every face-down sale is one acquisition, so n_slots + sales never exceed the
    rounds and picks played; that leaves a slot for every card the player can still acquire (MAX_TABLEAU =
    10 per epoch)."""
    _, resolved = _rounds_drawn_resolved(s.decision[b], s.round[b])
    for p in range(s.coins.shape[1]):
        if s.n_slots[b, p] + count_at_least(s.sold_a[b, p], 0) > _acquisitions_so_far(s, b, p, resolved):
            return False
    return True


@invariant
def no_coins_before_the_sides_are_revealed(s, b):
    """The start coins come with the start-card sides, so nobody has coins during the side choice."""
    if s.decision[b] != DEC_SETUP_SIDE:
        return True
    for p in range(s.coins.shape[1]):
        if s.coins[b, p] != 0:
            return False
    return True


@invariant
def coins_within_what_the_rules_hand_out(s, b):
    """Coins are at most what the rules can have handed out so far (state.COINS_MAX less the most the rest
    of the game adds), so no later step passes COINS_MAX."""
    _, resolved = _rounds_drawn_resolved(s.decision[b], s.round[b])
    for p in range(s.coins.shape[1]):
        acquired = _acquisitions_so_far(s, b, p, resolved)
        if s.coins[b, p] + _coins_still_to_gain(s, b, p, acquired) > COINS_MAX:
            return False
    return True


# --- the draft ----------------------------------------------------------------------------------

@invariant
def draft_pairs_from_the_seats_stack(s, b):
    """In the draft each pair comes from this epoch's stack at the seat's emblem (board position
    (seat + rotation + round) % 5)."""
    if s.decision[b] != DEC_A_DRAFT:
        return True
    for p in range(s.coins.shape[1]):
        c = s.board_order[b, (p + s.rotation[b] + s.round[b]) % NUM_COLOURS]
        for i in range(2):
            card = s.drawn[b, p, i]
            if CARD_COLOUR[card] != c or CARD_EPOCH[card] != s.epoch[b]:
                return False
    return True


@invariant
def committed_purchases_affordable(s, b):
    """A committed purchase in the draft was affordable when committed (coins don't change before the reveal)."""
    if s.decision[b] != DEC_A_DRAFT:
        return True
    for p in range(s.coins.shape[1]):
        a = s.pending[b, p]
        if a >= 0 and a % 2 != SELL and s.coins[b, p] < eff_price(s, b, p, s.drawn[b, p, a // 2]):
            return False
    return True


# --- the seat to play has a decision ------------------------------------------------------------

@invariant
def tile_follow_ups_only_in_their_section(s, b):
    """A TILE_STEPS follow-up is pending only in A_TILE for a seat not yet past, or in B_TILE for the actor
    (so never in a finished game)."""
    P = s.coins.shape[1]
    sec = s.decision[b]
    actor = actor_of(s, b)
    for p in range(P):
        if s.tile_due[b, p] < 0:
            continue
        if sec == DEC_A_TILE:
            if (p - s.start_player[b]) % P < s.turn[b]:
                return False
        elif sec != DEC_B_TILE or p != actor:
            return False
    return True


@invariant
def tile_follow_ups_on_the_latest_card(s, b):
    """A TILE_STEPS follow-up belongs to the card its player bought last, this epoch."""
    for p in range(s.coins.shape[1]):
        td = s.tile_due[b, p]
        if td >= 0 and (td != s.n_slots[b, p] - 1 or CARD_EPOCH[s.tableau[b, p, td]] != s.epoch[b]):
            return False
    return True


@invariant
def tile_actor_has_a_tile_to_place(s, b):
    """In A_TILE / B_TILE the actor has a TILE_STEPS follow-up pending and a free tile for it (points
    without a legal action are skipped)."""
    sec = s.decision[b]
    if sec != DEC_A_TILE and sec != DEC_B_TILE:
        return True
    actor = actor_of(s, b)
    return s.tile_due[b, actor] >= 0 and _has_free_tile(s, b, actor)


@invariant
def take_actor_below_the_section_limit(s, b):
    """In a colony or bust section the actor has a take left: fewer than 2 with DOUBLE_SECTION, else than 1."""
    if not _in_take_section(s.decision[b]):
        return True
    actor = actor_of(s, b)
    limit = 2 if s.ability_count[b, actor, DOUBLE_SECTION] > 0 else 1
    return s.sect_count[b] < limit


@invariant
def feeding_actor_short_of_food(s, b):
    """In Feeding the actor's food plus the FEED_COINS paid is short of his cards (a fed player has no
    decision)."""
    if s.decision[b] != DEC_B_FEED:
        return True
    actor = actor_of(s, b)
    return s.tracks[b, actor, FOOD] + s.feed_paid[b] < card_count(s, b, actor)


INVARIANTS = (
    Invariant(done_exactly_at_game_over, "done must be set exactly in section GAME_OVER"),
    Invariant(piles_filled_up_to_their_counts, "an inner stack or outer pile has a card beyond its count or a gap "
              "below it"),
    Invariant(piles_hold_their_colour_of_this_epoch, "a pile holds a card of another colour or epoch"),
    Invariant(face_down_sales_in_their_epoch, "a face-down sale is not a card of its epoch"),
    Invariant(tiles_only_on_tile_steps_cards, "a bonus tile on a slot without a TILE_STEPS card"),
    Invariant(tableau_within_the_slots_used, "a tableau card in a slot at or past n_slots"),
    Invariant(each_card_in_one_place, "a card is in two places"),
    Invariant(cards_only_from_dealt_epochs, "a card of an epoch not dealt yet is in play"),
    Invariant(cards_only_from_the_games_card_set, "a card not in this game's card set is in play"),
    Invariant(dealt_cards_conserved, "cards not conserved: a dealt epoch/colour does not account for exactly 2N "
              "cards"),
    Invariant(colony_stacks_filled_up_to_their_counts, "a colony stack has a colony beyond its count, a gap below it "
              "or a colony of another tier"),
    Invariant(taken_colonies_have_ids_of_their_tier, "a taken colony without its id, an id without a taken colony, or "
              "an id of another tier"),
    Invariant(colonies_accounted_for, "a tier does not have N colonies between its stack and the players"),
    Invariant(colony_ids_distinct, "a colony is in two places"),
    Invariant(committed_exactly_when_pending, "committed differs from a hidden commitment being pending"),
    Invariant(commitments_only_in_simultaneous_sections, "a commitment outside the draft and the side choice, or a "
              "side other than 0 or 1"),
    Invariant(pairs_drawn_exactly_in_the_draft, "a drawn pair outside the draft, a seat without one in it, or half a "
              "pair"),
    Invariant(pairs_of_one_colour, "a drawn pair of two colours"),
    Invariant(start_sides_hidden_only_in_the_side_choice, "start-card sides unrevealed outside the side choice, "
              "revealed in it, or a side choice in the basic game"),
    Invariant(tile_due_on_an_untiled_tile_steps_card, "a tile follow-up on a slot without a TILE_STEPS card or on one "
              "that has its tile"),
    Invariant(silver_seals_in_order, "a second silver seal without the first"),
    Invariant(coins_not_negative, "negative coins"),
    Invariant(start_cards_distinct, "two players with one start card"),
    Invariant(board_order_a_permutation, "the board order repeats a colour"),
    Invariant(derived_fields_match_recomputation, "derived tracks / counts / free tiles differ from their "
              "recomputation"),
    Invariant(outer_piles_shrink_with_the_picks, "the outer piles in phase B do not hold 5N cards less the picks"),
    Invariant(commitments_follow_the_turn_order, "the commitments do not follow the turn order"),
    Invariant(wheel_unset_only_before_its_decision, "the wheel rotation is set before the wheel decision or unset "
              "after it"),
    Invariant(to_play_is_the_actor, "to_play is not the section's actor"),
    Invariant(side_choice_only_in_epoch_one, "a start-card side choice after epoch I"),
    Invariant(round_fits_the_section, "the round does not fit the section (0 before the draft, 0..4 in it, 5 after "
              "it)"),
    Invariant(picks_counted_only_in_phase_b, "the picks do not fit the section (0 before phase B, 0..5N-1 in it, 5N "
              "after it)"),
    Invariant(turn_is_a_seat_still_to_act, "the turn is not a seat still to act, or not 0 where the start player "
              "or the picks say who acts"),
    Invariant(take_counters_only_in_take_sections, "section take counters outside a colony or bust section"),
    Invariant(requirement_bought_with_a_take, "requirement coins bought without a take, without BUY_REQUIREMENT or "
              "not in whole points"),
    Invariant(feeding_paid_only_in_feeding, "FEED_COINS payments counted outside Feeding"),
    Invariant(no_colony_or_bust_before_its_first_section, "a colony or bust taken before its first section"),
    Invariant(inner_stacks_shrink_with_the_pairs_drawn, "inner stack sizes do not match the pairs drawn this epoch "
              "(2N - 2 per pair)"),
    Invariant(outer_piles_grow_with_the_pairs_resolved, "outer pile sizes do not match the pairs resolved this epoch "
              "(1 per pair), or not empty after phase B"),
    Invariant(sales_only_in_resolved_rounds, "a face-down sale in a round not resolved yet"),
    Invariant(cards_kept_within_the_acquisitions, "more cards bought (n_slots) or sold face down than rounds and "
              "picks played"),
    Invariant(no_coins_before_the_sides_are_revealed, "coins before the start-card sides are revealed"),
    Invariant(coins_within_what_the_rules_hand_out, "coins above what the rules can have handed out by this point "
              "of the game (state.COINS_MAX)"),
    Invariant(draft_pairs_from_the_seats_stack, "a drawn pair not from this epoch's stack at the seat's emblem"),
    Invariant(committed_purchases_affordable, "a committed purchase the player cannot afford"),
    Invariant(tile_follow_ups_only_in_their_section, "a tile follow-up pending outside its section, or for a seat "
              "already past"),
    Invariant(tile_follow_ups_on_the_latest_card, "a tile follow-up on a card not bought last or not this epoch"),
    Invariant(tile_actor_has_a_tile_to_place, "the seat to play in a tile section has no follow-up or no free "
              "tile"),
    Invariant(take_actor_below_the_section_limit, "the seat to play in a colony or bust section has no take left"),
    Invariant(feeding_actor_short_of_food, "the seat to play in Feeding is already fed"),
)
