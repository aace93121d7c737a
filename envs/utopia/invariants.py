"""What every consistent Utopia state keeps, as named invariants (`validate`, envs/codegen.py).

Each invariant is a kernel `name(s, b, ...) -> bool`, True when row b keeps it; `INVARIANTS` lists them in
the order they are checked, and a later one may rely on the earlier ones (the last fills the actor's mask).
The field ranges are checked before any of them (`RulesBase.check_values`), so indices read from the
state are in bounds. Scores and arrival stamps are tied to their sources here (the score is the sum of
the recorded gains, the stamp counter one past the latest stamp) rather than by tight ranges.
"""

from __future__ import annotations

from meeple.envs.base import Invariant
from meeple.envs.invariant_helpers import cards_conserved, distinct, is_permutation
from meeple.envs.jit import invariant
from meeple.envs.utopia.data import (
    BASES, CARDS_PER_CIV, DEC_BUILD, DEC_CONVERT, DEC_DISCARD, DEC_GAME_OVER, DEC_PICK, DEC_TURN, DEC_WONDER,
    DISTRICT_VALUE, END_SCORE, GAIN_BONUS, GAIN_REMOVE, GAIN_WONDER, HAND_LIMIT, ISLAND_FIRST, ISLAND_IN_PLAY,
    MAX_ROUNDS, MONUMENTS_PER_CIV, NUM_ACTIONS, NUM_CIVS, NUM_DISTRICTS, NUM_GAIN_KINDS, NUM_ISLANDS, PICK_PASSES,
    PRIVILEGES, REMOVE_VP, WONDER_VP,
)
from meeple.envs.utopia.kernels import ahead, bases_used, fill_mask, in_play, monuments_built, supply


# --- flow ---------------------------------------------------------------------------------------------

@invariant
def done_exactly_at_game_over(s, b):
    """The game is over exactly when the decision is GAME_OVER, and only a finished game is truncated."""
    if s.done[b] != (s.decision[b] == DEC_GAME_OVER):
        return False
    return s.done[b] or not s.truncated[b]


@invariant
def decision_fits_the_phase(s, b):
    """A finished game ends in Phase 3; Phase 1 decides picks, builds and wonder removals, Phase 2
    discards, turns, privilege conversions and wonder removals; no decision waits in Phase 3."""
    dec = s.decision[b]
    ph = s.phase[b]
    if s.done[b]:
        return ph == 2
    if ph == 0:
        return dec == DEC_PICK or dec == DEC_BUILD or dec == DEC_WONDER
    if ph == 1:
        return dec == DEC_DISCARD or dec == DEC_TURN or dec == DEC_CONVERT or dec == DEC_WONDER
    return False


@invariant
def wonder_removal_pending_only_in_its_decision(s, b):
    """The island and civilization of a wonder removal are set exactly during the WONDER decision."""
    wonder = s.decision[b] == DEC_WONDER
    return (s.wonder_island[b] >= 0) == wonder and (s.wonder_civ[b] >= 0) == wonder


@invariant
def conversion_pending_only_in_its_decision(s, b):
    """The converted card's civilization and its target are set exactly during the CONVERT decision,
    and differ."""
    convert = s.decision[b] == DEC_CONVERT
    if (s.convert_from[b] >= 0) != convert or (s.convert_to[b] >= 0) != convert:
        return False
    return not convert or s.convert_from[b] != s.convert_to[b]


@invariant
def actor_has_started_his_pick_or_turn(s, b):
    """The player to act (but for a discard) has begun his pick or turn: `acted` is set when it begins."""
    return s.done[b] or s.decision[b] == DEC_DISCARD or s.acted[b, s.to_play[b]]


@invariant
def discards_owed_only_while_discarding(s, b):
    """Discards are owed only during a DISCARD decision, and the player deciding it owes some."""
    if s.decision[b] == DEC_DISCARD:
        return s.owed[b, s.to_play[b]] > 0
    for q in range(s.score.shape[1]):
        if s.owed[b, q] > 0:
            return False
    return True


@invariant
def the_right_player_discards(s, b):
    """Once a turn has begun, a discard is the hand limit at the end of to_play's turn: only he owes, and
    down to the limit. Before the turns (rank discards) the best-ranked player still owing discards."""
    if s.decision[b] != DEC_DISCARD:
        return True
    P = s.score.shape[1]
    p = s.to_play[b]
    owing = 0
    any_acted = False
    for q in range(P):
        if s.owed[b, q] > 0:
            owing += 1
        if s.acted[b, q]:
            any_acted = True
    if any_acted:
        return owing == 1 and s.acted[b, p] and s.hand_size[b, p] - s.owed[b, p] == HAND_LIMIT
    for q in range(P):
        if s.owed[b, q] > 0 and ahead(s, b, q, p):
            return False
    return True


# --- board and pieces ---------------------------------------------------------------------------------

@invariant
def monuments_have_owners(s, b):
    """A district has a monument's civilization exactly when it has a controlling seat."""
    for d in range(NUM_DISTRICTS):
        if (s.mon_civ[b, d] >= 0) != (s.mon_owner[b, d] >= 0):
            return False
    return True


@invariant
def nothing_on_districts_out_of_play(s, b):
    """No monument and no prince stands on a district out of play at this player count."""
    for d in range(NUM_DISTRICTS):
        if not in_play(s, d):
            if s.mon_civ[b, d] >= 0:
                return False
            for q in range(s.score.shape[1]):
                for c in range(NUM_CIVS):
                    if s.princes[b, q, c, d] > 0:
                        return False
    return True


@invariant
def nothing_on_islands_out_of_play(s, b):
    """No wonder and no guest on an island out of play at this player count."""
    P = s.score.shape[1]
    for i in range(NUM_ISLANDS):
        if not ISLAND_IN_PLAY[P, i]:
            if s.wonder_owner[b, i] >= 0:
                return False
            for c in range(NUM_CIVS):
                if s.display[b, i, c] > 0:
                    return False
    return True


@invariant
def wonder_removal_on_the_actors_wonder(s, b):
    """A pending wonder removal is on an island whose wonder the player to act owns (he just built it)."""
    return s.wonder_island[b] < 0 or s.wonder_owner[b, s.wonder_island[b]] == s.to_play[b]


@invariant
def pieces_within_their_limits(s, b):
    """At most 7 monuments of a civilization, at most 8 princes of a civilization per player (no
    negative supply), at most 8 constructions (bases) per player."""
    P = s.score.shape[1]
    for c in range(NUM_CIVS):
        if monuments_built(s, b, c) > MONUMENTS_PER_CIV:
            return False
        for q in range(P):
            if supply(s, b, q, c) < 0:
                return False
    for q in range(P):
        if bases_used(s, b, q) > BASES:
            return False
    return True


@invariant
def guests_only_in_phase_1(s, b):
    """At most 3 guests per player wait on the displays, and only in Phase 1."""
    guests = 0
    for i in range(NUM_ISLANDS):
        for c in range(NUM_CIVS):
            guests += s.display[b, i, c]
    return guests <= PICK_PASSES * s.score.shape[1] and (s.phase[b] == 0 or guests == 0)


# --- action cards -------------------------------------------------------------------------------------

@invariant
def action_cards_conserved(s, b):
    """Hands + draw pile + discards + a pending converted card = 10 cards of every civilization."""
    return cards_conserved(s.pile[b], s.discard[b], s.hand[b], CARDS_PER_CIV, s.convert_from[b])


@invariant
def hand_sizes_match_the_hands(s, b):
    """Every public hand size is the number of cards in the hand, and nobody owes more discards than
    he holds cards."""
    for q in range(s.score.shape[1]):
        n = 0
        for c in range(NUM_CIVS):
            n += s.hand[b, q, c]
        if n != s.hand_size[b, q] or s.owed[b, q] > n:
            return False
    return True


@invariant
def hands_within_the_limit(s, b):
    """Nobody holds more than the hand limit in Phase 1, once the game is over, or after his turn (the
    player to act may, until his hand-limit discards)."""
    done = s.done[b]
    phase_1 = s.phase[b] == 0
    for q in range(s.score.shape[1]):
        limited = phase_1 or done or (s.acted[b, q] and q != s.to_play[b])
        if limited and s.hand_size[b, q] > HAND_LIMIT:
            return False
    return True


@invariant
def conversion_spent_a_privilege(s, b):
    """A pending privilege conversion used up one of the actor's privilege tokens."""
    return s.decision[b] != DEC_CONVERT or s.privileges[b, s.to_play[b]] < PRIVILEGES


# --- the prestige scale and the scores ------------------------------------------------------------------

@invariant
def prestige_scale_is_a_permutation(s, b):
    """The five civilizations stand on the five values 1..5 of the prestige scale, one each."""
    return is_permutation(s.scale[b], 1)


@invariant
def score_is_the_sum_of_gains(s, b):
    """Every player's score is the sum of his points by source (gains)."""
    for q in range(s.score.shape[1]):
        total = 0
        for g in range(NUM_GAIN_KINDS):
            total += s.gains[b, q, g]
        if total != s.score[b, q]:
            return False
    return True


@invariant
def gains_match_their_sources(s, b):
    """Wonder points are 6 per wonder owned, wonder bonuses at most the values of the districts with a
    monument on the owner's wonder islands, removal points a whole number of removals."""
    for q in range(s.score.shape[1]):
        wonders = 0
        bonus_max = 0
        for i in range(NUM_ISLANDS):
            if s.wonder_owner[b, i] == q:
                wonders += 1
                for d in range(ISLAND_FIRST[i], ISLAND_FIRST[i + 1]):
                    if s.mon_civ[b, d] >= 0:
                        bonus_max += DISTRICT_VALUE[d]
        if s.gains[b, q, GAIN_WONDER] != WONDER_VP * wonders or s.gains[b, q, GAIN_BONUS] > bonus_max:
            return False
        if s.gains[b, q, GAIN_REMOVE] % REMOVE_VP != 0:
            return False
    return True


@invariant
def stamps_distinct_and_counter_one_past_the_latest(s, b):
    """No two players share an arrival stamp, and the stamp counter is one past the latest stamp."""
    last = -1
    for q in range(s.score.shape[1]):
        last = max(last, s.stamp[b, q])
    return distinct(s.stamp[b]) and s.stamp_counter[b] == last + 1


@invariant
def finished_game_reached_the_end_score(s, b):
    """A game over by the rules (not truncated) ended after somebody reached 50 points."""
    if not s.done[b] or s.truncated[b]:
        return True
    top = 0
    for q in range(s.score.shape[1]):
        top = max(top, s.score[b, q])
    return top >= END_SCORE


@invariant
def truncated_only_after_the_last_round(s, b):
    """A game is truncated only by the safety cap, after round 40."""
    return not s.truncated[b] or s.round[b] == MAX_ROUNDS


# --- the player to act ----------------------------------------------------------------------------------

@invariant
def actor_has_a_legal_action(s, b, actor_mask):
    """The player to act in a live game has at least one legal action."""
    if s.done[b]:
        return True
    actor_mask[:] = False
    fill_mask(s, b, actor_mask)
    for a in range(NUM_ACTIONS):
        if actor_mask[a]:
            return True
    return False


INVARIANTS = (
    Invariant(done_exactly_at_game_over, "done differs from decision GAME_OVER, or a live game is truncated"),
    Invariant(decision_fits_the_phase, "the decision does not belong to the phase (or a finished game is not in Phase 3)"),
    Invariant(wonder_removal_pending_only_in_its_decision, "a wonder removal is pending outside the WONDER decision, "
              "or missing in it"),
    Invariant(conversion_pending_only_in_its_decision, "a privilege conversion is pending outside the CONVERT "
              "decision, missing in it, or converts a card to its own civilization"),
    Invariant(actor_has_started_his_pick_or_turn, "the player to act has not started his pick or turn"),
    Invariant(discards_owed_only_while_discarding, "discards are owed outside a DISCARD decision, or the discarding "
              "player owes none"),
    Invariant(the_right_player_discards, "the discarding player is not the one owing the hand limit at the end of "
              "his turn, or not the best-ranked player owing rank discards"),
    Invariant(monuments_have_owners, "a monument without owner, or an owner without monument"),
    Invariant(nothing_on_districts_out_of_play, "a monument or a prince on a district out of play"),
    Invariant(nothing_on_islands_out_of_play, "a wonder or a guest on an island out of play"),
    Invariant(wonder_removal_on_the_actors_wonder, "a wonder removal on an island whose wonder the actor does not own"),
    Invariant(pieces_within_their_limits, "more than 7 monuments of a civilization, more than 8 princes of a "
              "civilization or more than 8 constructions for a player"),
    Invariant(guests_only_in_phase_1, "more than 3 guests per player on display, or guests on display outside Phase 1"),
    Invariant(action_cards_conserved, "action cards not conserved (hands + draw pile + discards + a converted card "
              "!= 10 per civilization)"),
    Invariant(hand_sizes_match_the_hands, "a public hand size differs from the hand, or more discards owed than cards"),
    Invariant(hands_within_the_limit, "a hand above the limit in Phase 1, at the end, or after its owner's turn"),
    Invariant(conversion_spent_a_privilege, "a privilege conversion pending while the actor has all his tokens"),
    Invariant(prestige_scale_is_a_permutation, "the prestige scale is not a permutation of 1..5"),
    Invariant(score_is_the_sum_of_gains, "a score differs from the sum of its gains"),
    Invariant(gains_match_their_sources, "wonder points differ from the wonders owned, a bonus exceeds the monuments "
              "on own wonder islands, or removal points are not whole removals"),
    Invariant(stamps_distinct_and_counter_one_past_the_latest, "arrival stamps repeated, or the stamp counter is "
              "not one past the latest"),
    Invariant(finished_game_reached_the_end_score, "a game finished by the rules without 50 points"),
    Invariant(truncated_only_after_the_last_round, "a game truncated before round 40"),
    Invariant(actor_has_a_legal_action, "the player to act has no legal action"),
)
