"""Hand-written tests, one or more per decision of the rules.

Each test crafts a position (``support.position``: ``GameState.new`` then the lists set
directly; piles are written bottom to top, the last card is the top), plays a move or two,
and checks what the rules say should happen. The docstring of each test states the rule.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from spite_engine import (
    ACE,
    JOKER,
    KING,
    PASS_MOVE,
    Ending,
    EventKind,
    GameState,
    IllegalMoveError,
    Move,
    MoveKind,
    observe,
    parse_rules,
)
from spite_engine.rng import derive, keyed_shuffle

from .support import cards, notation, position, snapshot

BLOCKED = ["A 2 3", "A 2 3", "A 2 3", "A 2 3"]
"""Four started centre piles that all need a 4."""


def legal(state: GameState) -> list[str]:
    return notation(state.legal_moves())


def play(state: GameState, *moves: str) -> None:
    """Apply moves given in notation through the checked path, for the seat to move."""
    for text in moves:
        state.apply_checked(Move.parse(text), state.to_move)


def illegal(state: GameState, text: str) -> str:
    """The reason ``apply_checked`` gives for refusing ``text``; the state must not change."""
    before = snapshot(state)
    with pytest.raises(IllegalMoveError) as error:
        state.apply_checked(Move.parse(text), state.to_move)
    assert snapshot(state) == before, "a refused move changed the state"
    return str(error.value)


# -- wilds -------------------------------------------------------------------------------------

def test_a_wild_starts_a_pile_as_an_ace_and_the_next_card_is_a_two() -> None:
    """A King (wild) may start a centre pile: it plays as the Ace, so the pile then needs a 2;
    a 3 does not fit, and a 2 may not start a pile."""
    state = position(hands=["K 2 3 9 9", "5 5 5 5 5"], stocks=["9 9 Q", "9 9 Q"])
    assert "H:K>C0" in legal(state) and "H:2>C0" not in legal(state)
    play(state, "H:K>C0")
    assert state.centre[0] == [KING]
    assert "H:2>C0" in legal(state) and "H:3>C0" not in legal(state)
    assert "centre pile 0 needs 2 (or a wild), not 3" in illegal(state, "H:3>C0")
    assert "centre pile 1 needs A (or a wild), not 2" in illegal(state, "H:2>C1")
    play(state, "H:2>C0", "H:3>C0")
    assert state.centre[0] == [KING, 2, 3]


def test_a_wild_takes_the_rank_the_pile_needs() -> None:
    """A joker on a pile at 4 plays as the 5: the pile then needs a 6, not a 5. Wilds play on
    every started pile and the first empty one."""
    state = position(hands=["* 5 6 9 9", "9 9 9 9 9"], centre=["A 2 3 4", "A 2", "", ""], stocks=["Q", "Q"])
    assert [m for m in legal(state) if m.startswith("H:*>C")] == ["H:*>C0", "H:*>C1", "H:*>C2"]
    play(state, "H:*>C0")
    assert state.centre[0] == cards("A 2 3 4 *")
    assert "H:6>C0" in legal(state) and "H:5>C0" not in legal(state)
    assert "needs 6" in illegal(state, "H:5>C0")


def test_a_wild_on_a_jack_completes_the_pile() -> None:
    """A wild played on a pile at Jack plays as the Queen and completes it."""
    state = position(hands=["K 9 9 9 9", "9 9 9 9 9"], centre=["A 2 3 4 5 6 7 8 9 10 J", "", "", ""],
                     stocks=["Q 5", "Q 5"])
    play(state, "H:K>C0")
    assert state.centre[0] == []
    assert [e.kind for e in state.log[-2:]] == [EventKind.PILE_COMPLETED, EventKind.SHUFFLE]


def test_skip_bo_wilds_start_piles_and_ones_are_aces() -> None:
    """Skip-Bo's wild (rank 0) starts a pile as the 1 and takes any rank; 1 starts a pile."""
    state = position("skip-bo", hands=["* 2 1 9 9", "9 9 9 9 9"], stocks=["12", "12"])
    assert legal(state)[:2] == ["H:*>C0", "H:A>C0"]
    play(state, "H:*>C0", "H:2>C0", "H:A>C1")
    assert state.centre[:2] == [[JOKER, 2], [ACE]]


# -- refills -----------------------------------------------------------------------------------

def test_a_hand_emptied_mid_turn_is_refilled_at_once_and_the_turn_goes_on() -> None:
    """Playing the last card of the hand draws a new hand of hand_size from the top of the
    draw pile at once; the same seat goes on in the same turn."""
    state = position(hands=["A", "9 9 9 9 9"], draw_pile="2 3 4 5 6 7 8", stocks=["Q", "Q"])
    turn = state.turn
    play(state, "H:A>C0")
    assert sorted(state.hands[0]) == [4, 5, 6, 7, 8]
    assert state.draw_pile == [2, 3]
    assert state.to_move == 0 and state.turn == turn and state.outcome is None
    draw = state.log[-1]
    assert (draw.kind, draw.seat, draw.cards) == (EventKind.DRAW, 0, (8, 7, 6, 5, 4))
    assert "H:2>C0" not in legal(state) and "H:4>D0" in legal(state)


def test_a_short_draw_pile_leaves_a_short_hand() -> None:
    """With play-on (the default), a refill takes what the draw pile has; the hand stays short."""
    state = position(hands=["A", "9 9 9 9 9"], draw_pile="7 8", stocks=["Q", "Q"])
    play(state, "H:A>C0")
    assert sorted(state.hands[0]) == [7, 8] and state.draw_pile == [] and state.outcome is None


def test_hands_are_refilled_at_the_start_of_each_turn() -> None:
    """At the start of its turn a seat draws up to hand_size; a full hand draws nothing."""
    state = position(hands=["9 9 9 9 9", "4 4"], draw_pile="2 3 5 6 7 8", stocks=["Q", "Q"])
    play(state, "H:9>D0")
    assert state.to_move == 1 and sorted(state.hands[1]) == [4, 4, 6, 7, 8]
    assert [e.kind for e in state.log[-2:]] == [EventKind.TURN, EventKind.DRAW]
    play(state, "H:4>D0")
    assert sorted(state.hands[0]) == [5, 9, 9, 9, 9]


def test_an_empty_hand_is_refilled_when_a_completed_pile_reaches_the_draw_pile() -> None:
    """Decisions 3 and 4 (rules version 2): a seat whose hand is already empty, with nothing to
    draw, completes a centre pile from its stock; the 12 cards go into the draw pile, and the
    empty hand is refilled at once, so it does not have to pass holding nothing."""
    state = position(hands=["", "9 9 9 9 9"], stocks=["5 Q", "Q"], draw_pile="", set_aside="",
                     centre=["A 2 3 4 5 6 7 8 9 10 J", "", "", ""])
    assert legal(state) == ["S:Q>C0", "pass"]
    play(state, "S:Q>C0")
    assert len(state.hands[0]) == 5 and len(state.draw_pile) == 7 and state.to_move == 0
    assert [e.kind for e in state.log[-3:]] == [EventKind.PILE_COMPLETED, EventKind.SHUFFLE, EventKind.DRAW]
    assert "pass" not in legal(state)


def test_an_empty_hand_is_refilled_from_a_set_aside_pile_too() -> None:
    """Under set-aside the completed pile waits on the set-aside pile; an empty hand with an
    empty draw pile has something to draw again, so it is refilled from it at once."""
    state = position("skip-bo", hands=["", "9 9 9 9 9"], stocks=["5 12", "12"], draw_pile="", set_aside="",
                     centre=["1 2 3 4 5 6 7 8 9 10 11", "", "", ""])
    play(state, "S:12>C0")
    assert len(state.hands[0]) == 5 and len(state.draw_pile) == 7 and state.set_aside == []


@pytest.mark.parametrize("spec", ["standard", "skip-bo", "kings-only+short-15", "classic-20", "partners"])
def test_no_seat_ever_passes_with_an_empty_hand_while_there_is_something_to_draw(spec: str) -> None:
    """Issue 12, item 2, as a property of whole games: whenever pass is chosen with an empty
    hand, the draw pile and the set-aside pile are empty (decision 4)."""
    rules = parse_rules(spec)
    for seed in range(30):
        state = GameState.new(rules, seed)
        rng = random.Random(seed)
        while state.outcome is None:
            moves = state.legal_moves()
            plays = [m for m in moves if m.kind == MoveKind.PLAY]
            move = rng.choice(plays) if plays and rng.random() < 0.9 else rng.choice(moves)
            if move.kind == MoveKind.PASS and not state.hands[state.to_move]:
                assert not state.draw_pile and not state.set_aside, (spec, seed, state.turn)
            state.apply(move)


# -- ending a turn: discard or pass --------------------------------------------------------------

def test_a_discard_ends_the_turn() -> None:
    """A discard puts the card face up on the seat's discard pile and passes the turn on."""
    state = position(hands=["9 9 7 7 8", "9 9 9 9 9"], stocks=["Q", "Q"])
    play(state, "H:7>D0")
    assert state.discards[0][0] == [7] and sorted(state.hands[0]) == [7, 8, 9, 9]
    assert state.to_move == 1 and state.turn == 2
    assert state.log[-1].kind == EventKind.TURN and state.log[-1].seat == 1


def test_pass_is_illegal_while_a_discard_is_legal() -> None:
    """A turn ends with a discard; pass is not a way out while some discard is legal."""
    state = position(hands=["A 9 7 7 8", "9 9 9 9 9"], stocks=["Q", "Q"])
    assert "pass" not in legal(state)
    assert illegal(state, "pass") == "pass is legal only when no discard is"


def test_pass_with_an_empty_hand_and_nothing_to_draw_and_plays_stay_legal() -> None:
    """An empty hand with nothing to draw cannot discard, so pass is legal -- and the plays
    from the stock and the discard piles stay legal alongside it."""
    state = position(hands=["", "9 9 9 9 9"], stocks=["5 A", "Q"], draw_pile="", set_aside="",
                     discards=[["2", "", "", ""], ["", "", "", ""]])
    assert legal(state) == ["S:A>C0", "pass"]
    play(state, "S:A>C0")
    assert legal(state) == ["D0:2>C0", "pass"]
    play(state, "pass")
    assert state.to_move == 1


def test_pass_with_only_aces_in_hand() -> None:
    """Aces may not be discarded: a hand of Aces can only pass, or start piles if one is empty."""
    state = position(hands=["A A", "9 9 9 9 9"], stocks=["Q", "Q"], centre=BLOCKED, draw_pile="")
    assert legal(state) == ["pass"]
    state = position(hands=["A A", "9 9 9 9 9"], stocks=["Q", "Q"], centre=BLOCKED[:3] + [""], draw_pile="")
    assert legal(state) == ["H:A>C3", "pass"]


def test_pass_when_no_block_forbids_every_discard() -> None:
    """With no-block, a hand whose every card a centre pile needs now cannot discard: pass is
    legal, and so is playing those cards."""
    state = position("no-block", hands=["4 4", "9 9 9 9 9"], stocks=["Q", "Q"], centre=BLOCKED, draw_pile="")
    assert legal(state) == ["H:4>C0", "H:4>C1", "H:4>C2", "H:4>C3", "pass"]


# -- aces --------------------------------------------------------------------------------------

def test_aces_are_never_discarded() -> None:
    """Spite and Malice: an Ace may never go on a discard pile."""
    state = position(hands=["A 7 7 7 7", "9 9 9 9 9"], stocks=["Q", "Q"], centre=BLOCKED)
    assert [m for m in legal(state) if ">D" in m] == ["H:7>D0"]
    assert "Aces may never be discarded" in illegal(state, "H:A>D0")


def test_skip_bo_discards_ones() -> None:
    """Skip-Bo (discard_aces): a 1 may be discarded like any card."""
    state = position("skip-bo", hands=["1 7", "9 9 9 9 9"], stocks=["12", "12"], centre=BLOCKED)
    assert parse_rules("skip-bo").discard_aces
    assert [m for m in legal(state) if ">D" in m] == ["H:A>D0", "H:7>D0"]
    play(state, "H:A>D0")
    assert state.discards[0][0] == [ACE]


# -- completed centre piles --------------------------------------------------------------------

def test_a_completed_pile_is_shuffled_into_the_draw_pile_at_once() -> None:
    """"shuffle": the Queen completes the pile; its 12 cards (wilds included) go into the draw
    pile at once and the whole draw pile is shuffled with the next keyed shuffle."""
    state = position(hands=["Q 9 9 9 9", "9 9 9 9 9"], centre=["A 2 K 4 5 6 7 8 9 10 J", "", "", ""],
                     draw_pile="3 3 5 5 7", stocks=["5 Q", "5 Q"])
    pile = state.centre[0] + [12]
    expected = state.draw_pile + pile
    keyed_shuffle(expected, state.seed, state.shuffles)
    shuffles = state.shuffles
    play(state, "H:Q>C0")
    assert state.centre[0] == [] and state.set_aside == []
    assert state.draw_pile == expected and state.shuffles == shuffles + 1
    completed, shuffle = state.log[-2:]
    assert (completed.kind, completed.pile, list(completed.cards)) == (EventKind.PILE_COMPLETED, 0, pile)
    assert (shuffle.kind, shuffle.count, list(shuffle.cards)) == (EventKind.SHUFFLE, 17, expected)
    assert state.to_move == 0


def test_a_completed_pile_is_set_aside_until_the_draw_pile_runs_out() -> None:
    """"set-aside" (Skip-Bo): the 12 cards wait beside the table; the draw pile is untouched."""
    state = position("skip-bo", hands=["12 9 9 9 9", "9 9 9 9 9"], centre=["1 2 3 4 5 6 7 8 9 10 11", "", "", ""],
                     draw_pile="3 4 5", stocks=["5 12", "5 12"])
    play(state, "H:Q>C0")
    assert state.centre[0] == [] and state.set_aside == list(range(1, 13)) and state.draw_pile == [3, 4, 5]
    assert state.log[-1].kind == EventKind.PILE_COMPLETED


def test_set_aside_cards_become_the_draw_pile_mid_refill() -> None:
    """When the draw pile runs out in the middle of a refill, the set-aside cards are shuffled
    into a new draw pile and the refill goes on from it: one DRAW before the SHUFFLE, one after."""
    state = position("skip-bo", hands=["12", "9 9 9 9 9"], centre=["1 2 3 4 5 6 7 8 9 10 11", "", "", ""],
                     draw_pile="5 6", stocks=["5 12", "5 12"])
    new_pile = list(range(1, 13))
    keyed_shuffle(new_pile, state.seed, state.shuffles)
    play(state, "H:Q>C0")
    kinds = [e.kind for e in state.log[-4:]]
    assert kinds == [EventKind.PILE_COMPLETED, EventKind.DRAW, EventKind.SHUFFLE, EventKind.DRAW]
    first, shuffle, second = state.log[-3:]
    assert first.cards == (6, 5) and shuffle.count == 12 and list(shuffle.cards) == new_pile
    assert second.cards == tuple(new_pile[-3:][::-1])
    assert sorted(state.hands[0]) == sorted([5, 6] + new_pile[-3:])
    assert state.draw_pile == new_pile[:-3] and state.set_aside == []


def test_set_aside_cards_are_recycled_at_a_turn_start() -> None:
    """The recycling also happens when a turn's refill finds the draw pile empty."""
    state = position("skip-bo", hands=["9 9 9 9 9", "9"], draw_pile="", set_aside="1 2 3 4 5 6 7 8 9 10 11 12",
                     stocks=["5 12", "5 12"])
    play(state, "H:9>D0")
    assert len(state.hands[1]) == 5 and len(state.draw_pile) == 8 and state.set_aside == []


# -- stalemate ---------------------------------------------------------------------------------

def blocked(spec: str = "standard", players: int = 2, draw_pile: str = "") -> GameState:
    """Nobody can play: every centre pile needs a 4, nobody holds a 4 or a wild, the stock
    tops are 8 and Q; the draw pile is ``draw_pile`` and nothing is set aside."""
    hands = ["9 9 10 10 J", "J J Q Q 9", "5 5 6 6 7", "7 8 8 9 9"][:players]
    stocks = ["5 8", "5 Q", "5 8", "5 Q"][:players if spec != "partners" else 2]
    return position(spec, hands=hands, stocks=stocks, centre=BLOCKED, draw_pile=draw_pile, set_aside="")


def test_a_full_round_of_turns_without_a_possible_play_is_a_stalemate() -> None:
    """Nothing to draw and no play possible: such a turn counts even if the seat discards, and
    a full round of counting turns ends the game drawn (ending STALEMATE, no winners)."""
    state = blocked()
    play(state, "H:9>D0")  # the crafted turn is an ordinary one
    assert state.stuck_turns == 0 and state.turn_stuck
    play(state, "H:J>D0")
    assert state.stuck_turns == 1 and state.outcome is None
    play(state, "H:9>D0")
    outcome = state.outcome
    assert outcome is not None and outcome.ending == Ending.STALEMATE and outcome.ending.by_rules
    assert outcome.winners == () and outcome.scores == (0, 0) and outcome.is_draw
    assert "full round" in outcome.reason
    assert state.log[-1].kind == EventKind.GAME_OVER and state.legal_moves() == []


def test_a_stalemate_needs_a_round_of_every_seat() -> None:
    """With three seats, three counting turns in a row are needed."""
    state = blocked("3p", players=3)
    play(state, "H:9>D0", "H:J>D0", "H:5>D0")
    assert state.stuck_turns == 2 and state.outcome is None
    play(state, "H:9>D0")
    assert state.outcome is not None and state.outcome.ending == Ending.STALEMATE


def test_a_play_resets_the_stalemate_count() -> None:
    """A turn in which a play was possible and a card reached a centre pile starts the count afresh."""
    state = blocked()
    state.hands[1] = cards("4 J Q Q 9")
    play(state, "H:9>D0")
    assert not state.turn_stuck
    play(state, "H:4>C0", "H:J>D0")
    assert state.stuck_turns == 0
    play(state, "H:9>D0")  # seat 0: a 5 is needed now, which it lacks
    assert state.stuck_turns == 1 and state.outcome is None
    play(state, "H:Q>D0")
    assert state.outcome is not None and state.outcome.ending == Ending.STALEMATE


def test_turns_that_draw_and_discard_do_not_count() -> None:
    """While the draw pile has cards, turns that draw and discard (without a play) never count:
    the game goes on."""
    state = blocked(draw_pile="9 9 9 9 9 9 10 10 10 10 J J")
    for _ in range(6):
        discard = next(m for m in state.legal_moves() if m.kind == MoveKind.DISCARD)
        state.apply_checked(discard, state.to_move)
        assert state.stuck_turns == 0 and state.outcome is None
    assert len(state.draw_pile) < 12


def test_a_turn_that_draws_the_last_cards_and_cannot_play_counts() -> None:
    """The count looks at the table after the turn's refill: a seat that draws the last cards
    of the draw pile and then has no play has a counting turn (nothing can change any more)."""
    state = blocked(draw_pile="9 10")
    state.hands[1] = cards("J J Q")
    play(state, "H:9>D0")
    assert state.log[-1].kind == EventKind.DRAW and state.draw_pile == [] and state.turn_stuck
    play(state, "H:J>D0")
    assert state.stuck_turns == 1
    play(state, "H:10>D0")
    assert state.outcome is not None and state.outcome.ending == Ending.STALEMATE


def test_passing_while_a_play_exists_never_counts_toward_a_stalemate() -> None:
    """Rule change (rules version 2): a seat that passes while it could play (here, Aces on an
    empty pile) has not shown that nobody can ever play again, so its turns do not count; the
    game goes on (the old rule drew it after a round of such passes)."""
    state = position(hands=["A A A A A", "A A A A A"], stocks=["5 8", "5 Q"], centre=BLOCKED[:3] + [""],
                     draw_pile="9 9 9 9 9")
    assert "H:A>C3" in legal(state)
    for _ in range(10):
        play(state, "pass")
    assert not state.turn_stuck and state.stuck_turns == 0 and state.outcome is None


def stall_policy(state: GameState) -> str:
    """Declines every play: discards its first legal discard, else passes."""
    moves = legal(state)
    return next((m for m in moves if ">D" in m and m.startswith("H:")), "pass")


def test_a_stalling_seat_loses_to_a_seat_that_is_ahead() -> None:
    """Issue 12, item 1: seat 1 (three stock cards against seat 0's two) holds only Aces and
    passes although it could play; seat 0 cannot play. Passing no longer forces a draw: the
    game runs to the turn cap and is adjudicated, and the seat that is ahead wins."""
    rules = dataclasses.replace(parse_rules("standard"), turn_cap=60)
    state = position(rules, hands=["9 9 10 10 J", "A A A A A"], stocks=["5 8", "5 Q 7"],
                     centre=BLOCKED[:3] + [""], draw_pile="", set_aside="")
    while state.outcome is None:
        play(state, stall_policy(state))
    outcome = state.outcome
    assert outcome.ending == Ending.TURN_CAP and outcome.winners == (0,) and outcome.scores == (1, 0)
    assert "adjudicated" in outcome.reason and "seat 0 has the fewest" in outcome.reason


@pytest.mark.parametrize("seed", range(6))
def test_stalling_never_beats_playing_from_behind(seed: int) -> None:
    """Whole games: whenever a seat that declines every play (and passes whenever it may) is
    behind on stock when the game stops, it never wins and never draws by stalling: a game
    stopped by stalemate or the turn cap goes to the seat with fewer stock cards left."""
    rules = dataclasses.replace(parse_rules("standard"), turn_cap=400)
    state = GameState.new(rules, seed)
    rng = random.Random(seed)
    while state.outcome is None:
        if state.to_move == 1:
            play(state, stall_policy(state))
        else:
            moves = state.legal_moves()
            plays = [m for m in moves if m.kind == MoveKind.PLAY]
            state.apply(rng.choice(plays or moves))
    outcome = state.outcome
    assert 1 not in outcome.winners
    if len(state.stocks[1]) > len(state.stocks[0]):
        assert outcome.winners == (0,), outcome.reason


def test_a_stalemate_is_adjudicated_on_the_stocks() -> None:
    """A stalemate with unequal stocks: the seat with fewer stock cards left wins (scores 1);
    the ending stays STALEMATE, an ending by the rules."""
    state = blocked()
    state.stocks[1] = cards("5 6 Q")
    play(state, "H:9>D0", "H:J>D0", "H:9>D0")
    outcome = state.outcome
    assert outcome is not None and outcome.ending == Ending.STALEMATE and outcome.winners == (0,)
    assert outcome.scores == (1, 0) and "(2, 3)" in outcome.reason


def test_unfinished_draw_keeps_the_plain_draw() -> None:
    """The option ``unfinished-draw`` (``unfinished = "draw"``) settles a stalemate as a draw
    whatever the stocks."""
    state = blocked("standard+unfinished-draw")
    assert state.rules.unfinished == "draw" and state.rules.name == "unfinished-draw"
    state.stocks[1] = cards("5 6 Q")
    play(state, "H:9>D0", "H:J>D0", "H:9>D0")
    assert state.outcome is not None and state.outcome.ending == Ending.STALEMATE and state.outcome.is_draw


def test_partners_are_adjudicated_on_the_team_stock() -> None:
    """With partners the team stock counts: the team with fewer cards left wins, both partners."""
    state = blocked("partners", players=4)
    state.stocks[0] = cards("5 6 7 8")
    play(state, "H:9>D0", "H:J>D0", "H:5>D0", "H:7>D0", "H:9>D0")
    outcome = state.outcome
    assert outcome is not None and outcome.ending == Ending.STALEMATE and outcome.winners == (1, 3)
    assert "team 1 (seats 1 and 3)" in outcome.reason


def test_stock_left_scores_the_margin_of_an_adjudicated_win() -> None:
    """Under stock-left scoring an adjudicated winner scores the losers' stock cards less its
    own: the margin (an emptied stock scores the whole of the loser's)."""
    rules = dataclasses.replace(parse_rules("classic-20"), turn_cap=2)
    state = position(rules, hands=["9 9 9 9 9", "9 9 9 9 9"], stocks=["Q 8", "Q J 10 8 6"],
                     centre=["", "", ""], draw_pile="9 " * 20)
    play(state, "H:9>D0", "H:9>D0")
    assert state.outcome is not None and state.outcome.ending == Ending.TURN_CAP
    assert state.outcome.winners == (0,) and state.outcome.scores == (3, 0)


def test_a_turn_with_nothing_but_pass_counts_even_with_a_draw_pile() -> None:
    """A turn that begins with no play possible and no legal discard counts toward a stalemate
    even while the draw pile has cards."""
    state = position(hands=["A A A A A", "A A A A A"], stocks=["5 8", "5 Q"], centre=BLOCKED, draw_pile="9 9 9")
    play(state, "pass")
    assert state.turn_stuck and state.stuck_turns == 0
    play(state, "pass", "pass")
    assert state.outcome is not None and state.outcome.ending == Ending.STALEMATE


# -- turn cap ----------------------------------------------------------------------------------

@pytest.mark.parametrize("cap", [1, 2, 5])
def test_the_turn_cap_ends_the_game(cap: int) -> None:
    """After turn_cap turns the game stops with ending TURN_CAP (an ending by the rules); with
    equal stocks the adjudication is a draw."""
    rules = dataclasses.replace(parse_rules("standard"), turn_cap=cap)
    state = position(rules, hands=["9 9 9 9 9", "9 9 9 9 9"], stocks=["Q", "Q"], draw_pile="9 " * 20)
    for turn in range(1, cap + 1):
        assert state.turn == turn and state.outcome is None
        play(state, "H:9>D0")
    outcome = state.outcome
    assert outcome is not None and outcome.ending == Ending.TURN_CAP and outcome.ending.by_rules
    assert outcome.winners == () and f"turn cap of {cap}" in outcome.reason and state.turn == cap


# -- who starts --------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["standard", "3p", "partners", "skip-bo+6p"])
def test_the_first_seat_is_a_cut_derived_from_the_seed(spec: str) -> None:
    """Without an explicit first seat, the seat that starts is derive(seed, "first-seat") modulo
    the players: the same for the same seed, and every seat starts for some seed."""
    rules = parse_rules(spec)
    firsts = set()
    for seed in range(40):
        state = GameState.new(rules, seed)
        first = derive(seed, "first-seat") % rules.players
        assert state.first_seat == state.to_move == first == GameState.new(rules, seed).first_seat
        assert state.log[1].kind == EventKind.DEAL and state.log[1].seat == first
        firsts.add(first)
    assert firsts == set(range(rules.players))


def test_the_first_seat_can_be_given() -> None:
    """An explicit first seat overrides the cut; one outside the table is refused. The deal
    itself does not depend on who starts."""
    rules = parse_rules("4p")
    deals = set()
    for first in range(4):
        state = GameState.new(rules, 9, first_seat=first)
        assert state.to_move == state.first_seat == first
        deals.add((tuple(map(tuple, state.stocks)), tuple(map(tuple, state.hands))))
    assert len(deals) == 1
    for bad in (-1, 4):
        with pytest.raises(ValueError):
            GameState.new(rules, 9, first_seat=bad)


# -- where new piles go ------------------------------------------------------------------------

def test_new_centre_piles_only_in_the_first_empty_slot() -> None:
    """Empty centre piles are interchangeable: an Ace (or a wild) may start a pile only in the
    first empty one."""
    state = position(hands=["A K 5 9 9", "9 9 9 9 9"], centre=["A 2", "", "A", ""], stocks=["Q", "Q"])
    assert [m for m in legal(state) if ">C" in m] == ["H:A>C1", "H:K>C0", "H:K>C1", "H:K>C2"]
    assert "start a new centre pile in the first empty one" in illegal(state, "H:A>C3")
    assert "start a new centre pile in the first empty one" in illegal(state, "H:K>C3")


def test_new_discard_piles_only_in_the_first_empty_slot() -> None:
    """A discard goes on a started discard pile or starts the first empty one."""
    state = position(hands=["9 9 9 9 9", "9 9 9 9 9"], stocks=["Q", "Q"],
                     discards=[["5", "", "7", ""], ["", "", "", ""]])
    assert [m for m in legal(state) if ">D" in m] == ["H:9>D0", "H:9>D1", "H:9>D2"]
    assert "start a new discard pile in the first empty one" in illegal(state, "H:9>D3")


# -- winning -----------------------------------------------------------------------------------

def test_emptying_the_stock_ends_the_game_at_once() -> None:
    """Playing the last stock card wins at once: no more moves, turns or refills."""
    state = position(hands=["", "9 9 9 9 9"], stocks=["7", "5 Q"], centre=["A 2 3 4 5 6", "", "", ""],
                     draw_pile="9 9 9")
    play(state, "S:7>C0")
    outcome = state.outcome
    assert outcome is not None and outcome.ending == Ending.STOCK_EMPTIED
    assert outcome.winners == (0,) and outcome.scores == (1, 0) and outcome.reason == "seat 0 emptied its stock"
    assert state.hands[0] == [] and state.to_move == 0 and state.legal_moves() == []
    assert state.log[-1].kind == EventKind.GAME_OVER and state.log[-1].seat == 0
    assert illegal(state, "H:9>D0") == "the game is over"


def test_emptying_the_stock_with_a_queen_still_ends_the_game() -> None:
    """The last stock card may also complete a pile; the game is over all the same."""
    state = position(hands=["9", "9 9 9 9 9"], stocks=["Q", "5 Q"], centre=["A 2 3 4 5 6 7 8 9 10 J", "", "", ""])
    play(state, "S:Q>C0")
    assert state.outcome is not None and state.outcome.winners == (0,)


def test_partners_share_a_stock_and_win_together() -> None:
    """Partners: seats 0 and 2 play stock 0, seats 1 and 3 stock 1; the team whose stock is
    emptied wins, both partners are winners."""
    rules = parse_rules("partners")
    assert rules.players == 4 and rules.stocks == 2
    assert [rules.stock_of(s) for s in range(4)] == [0, 1, 0, 1] == [rules.team_of(s) for s in range(4)]
    state = position("partners", to_move=2, hands=["9"] * 4, stocks=["7", "5 Q"],
                     centre=["A 2 3 4 5 6", "", "", ""])
    assert state.stock_of(2) is state.stocks[0] and state.stock_of(3) is state.stocks[1]
    assert "S:7>C0" in legal(state)
    play(state, "S:7>C0")
    outcome = state.outcome
    assert outcome is not None and outcome.winners == (0, 2) and outcome.scores == (1, 0, 1, 0)
    assert "team 0" in outcome.reason


def test_a_seat_plays_only_its_own_stock() -> None:
    """Another seat's (or team's) stock top is never playable."""
    state = position("partners", to_move=1, hands=["9"] * 4, stocks=["A", "5 Q"])
    assert not [m for m in legal(state) if m.startswith("S:")]
    assert "your stock top is Q, not A" in illegal(state, "S:A>C0")


def test_classic_20_winner_scores_the_cards_left_in_the_losers_stock() -> None:
    """classic-20 scoring: the winner scores the number of cards left in the loser's stock."""
    state = position("classic-20", hands=["9", "9 9 9 9 9"], stocks=["7", "2 3 4 5 6 8 9 10 Q"],
                     centre=["A 2 3 4 5 6", "", ""])
    play(state, "S:7>C0")
    assert state.outcome is not None and state.outcome.scores == (9, 0)


# -- variants ----------------------------------------------------------------------------------

def test_open_stock_shows_three_cards_but_only_the_top_plays() -> None:
    """open-stock: the top three stock cards are face up for everyone; only the top is playable."""
    state = position("open-stock", hands=["9 9 9 9 9", "9 9 9 9 9"], stocks=["10 3 2 A", "7 7 Q"])
    view = observe(state, 1)
    assert view.stocks[0].visible == (ACE, 2, 3) and view.stocks[0].top == ACE and view.stocks[0].count == 4
    assert view.stocks[1].visible == (12, 7, 7)
    assert [m for m in legal(state) if m.startswith("S:")] == ["S:A>C0"]
    assert "your stock top is A, not 2" in illegal(state, "S:2>C0")
    play(state, "S:A>C0")
    assert state.log[-1].kind == EventKind.REVEAL and state.log[-1].cards == (2, 3, 10)
    assert observe(state, 1).stocks[0].visible == (2, 3, 10)
    standard = position("standard", hands=["9 9 9 9 9", "9 9 9 9 9"], stocks=["10 3 2 A", "7 7 Q"])
    assert observe(standard, 1).stocks[0].visible == (ACE,)


def test_no_block_forbids_discarding_a_card_a_centre_pile_needs() -> None:
    """no-block: a non-wild card that a centre pile needs now may not be discarded; wilds may,
    and other cards may. Without no-block the same discard is legal."""
    hands = ["4 9 K * A", "9 9 9 9 9"]
    state = position("no-block", hands=hands, stocks=["Q", "Q"], centre=BLOCKED)
    assert [m for m in legal(state) if ">D" in m] == ["H:*>D0", "H:9>D0", "H:K>D0"]
    assert "no-block" in illegal(state, "H:4>D0")
    standard = position("standard", hands=hands, stocks=["Q", "Q"], centre=BLOCKED)
    assert [m for m in legal(standard) if ">D" in m] == ["H:*>D0", "H:4>D0", "H:9>D0", "H:K>D0"]


def test_classic_20_ends_drawn_when_a_draw_finds_the_draw_pile_empty() -> None:
    """classic-20 (draw-game): a refill that finds the draw pile empty ends the game drawn,
    with ending DRAW_PILE_EXHAUSTED -- at a turn's start ..."""
    state = position("classic-20", hands=["9 9 9 9 9", "9 9 9"], stocks=["5 Q", "5 Q"],
                     centre=["", "", ""], draw_pile="")
    play(state, "H:9>D0")
    outcome = state.outcome
    assert outcome is not None and outcome.ending == Ending.DRAW_PILE_EXHAUSTED and outcome.ending.by_rules
    assert outcome.winners == () and outcome.scores == (0, 0)


def test_classic_20_ends_drawn_when_a_mid_turn_refill_runs_dry() -> None:
    """... and in the middle of a turn, after taking whatever cards were left."""
    state = position("classic-20", hands=["A", "9 9 9 9 9"], stocks=["5 Q", "5 Q"], centre=["", "", ""],
                     draw_pile="7 8")
    play(state, "H:A>C0")
    assert state.outcome is not None and state.outcome.ending == Ending.DRAW_PILE_EXHAUSTED
    assert sorted(state.hands[0]) == [7, 8]
    assert [e.kind for e in state.log[-2:]] == [EventKind.DRAW, EventKind.GAME_OVER]


def test_classic_20_goes_on_while_no_draw_is_needed() -> None:
    """An empty draw pile ends a classic-20 game only when someone has to draw from it."""
    state = position("classic-20", hands=["9 9 9 9 9", "9 9 9 9 9"], stocks=["5 Q", "5 Q"],
                     centre=["", "", ""], draw_pile="")
    play(state, "H:9>D0")
    assert state.outcome is None and state.to_move == 1


def test_standard_plays_on_when_the_draw_pile_is_empty() -> None:
    """Without draw-game, a refill from an empty draw pile is skipped and the game goes on."""
    state = position(hands=["9 9 9 9 9", "9 9 9"], stocks=["5 Q", "5 Q"], draw_pile="")
    play(state, "H:9>D0")
    assert state.outcome is None and state.hands[1] == [9, 9, 9]


# -- the referee's endings ---------------------------------------------------------------------

@pytest.mark.parametrize("spec, offender, winners", [
    ("standard", 0, (1,)), ("standard", 1, (0,)), ("3p", 1, (0, 2)), ("4p", 3, (0, 1, 2)),
    ("partners", 3, (0, 2)), ("partners", 0, (1, 3)),
])
def test_a_forfeit_gives_the_win_to_every_seat_not_on_the_offenders_team(spec: str, offender: int,
                                                                        winners: tuple[int, ...]) -> None:
    """forfeit(seat): the offender (and its partner) lose, every other seat wins; the ending is
    the referee's (not by the rules) and the outcome names the offender."""
    state = GameState.new(parse_rules(spec), 3)
    outcome = state.forfeit(offender, Ending.TIMEOUT, f"seat {offender} ran out of time")
    assert state.outcome == outcome and outcome.winners == winners and outcome.offender == offender
    assert outcome.ending == Ending.TIMEOUT and not outcome.ending.by_rules
    assert outcome.scores == tuple(1 if s in winners else 0 for s in range(state.rules.players))
    assert state.legal_moves() == [] and state.log[-1].kind == EventKind.GAME_OVER


def test_a_forfeit_scores_like_a_win_under_stock_left() -> None:
    """classic-20: the winner of a forfeit scores the cards left in the offender's stock."""
    state = GameState.new(parse_rules("classic-20"), 3)
    outcome = state.forfeit(1, Ending.CRASH, "seat 1 crashed")
    assert outcome.scores == (20, 0)


def test_a_forfeit_needs_a_referee_ending() -> None:
    """The rules' own endings cannot be handed out as a forfeit."""
    state = GameState.new(parse_rules("standard"), 3)
    for ending in Ending:
        if ending.by_rules:
            with pytest.raises(ValueError):
                state.forfeit(0, ending, "no")
    assert state.outcome is None


# -- the checked path --------------------------------------------------------------------------

def test_illegal_moves_are_refused_with_a_reason() -> None:
    """apply_checked raises IllegalMoveError saying why, and leaves the state as it was."""
    state = position(hands=["A 5 7 9 9", "9 9 9 9 9"], stocks=["3 8", "Q"], centre=["A 2", "", "", ""],
                     discards=[["6", "", "", ""], ["", "", "", ""]])
    reasons = {
        "H:4>C0": "H:4>C0: there is no 4 in your hand",
        "H:7>C0": "H:7>C0: centre pile 0 needs 3 (or a wild), not 7",
        "S:3>C0": "S:3>C0: your stock top is 8, not 3",
        "D0:7>C0": "D0:7>C0: discard pile 0 shows 6, not 7",
        "D1:7>C0": "D1:7>C0: discard pile 1 shows empty, not 7",
        "D6:7>C0": "D6:7>C0: there are only 4 discard piles",
        "H:A>C5": "H:A>C5: there are only 4 centre piles (C0..C3)",
        "H:9>D5": "H:9>D5: there are only 4 discard piles (D0..D3)",
        "H:4>D0": "H:4>D0: there is no 4 in your hand",
        "H:A>D0": "H:A>D0: Aces may never be discarded",
    }
    for text, reason in reasons.items():
        assert illegal(state, text) == reason
    with pytest.raises(IllegalMoveError, match="it is seat 0's turn, not seat 1's"):
        state.apply_checked(Move.parse("H:9>D0"), 1)
    assert issubclass(IllegalMoveError, ValueError)


def test_apply_checked_accepts_exactly_the_legal_moves() -> None:
    """Every well-formed move is accepted by apply_checked if and only if legal_moves lists it."""
    from spite_engine.moves import DISCARD_FROM_HAND, PLAY_FROM_DISCARD, PLAY_FROM_HAND, PLAY_FROM_STOCK
    every = [PASS_MOVE] + [m for table in (PLAY_FROM_HAND, PLAY_FROM_STOCK, DISCARD_FROM_HAND)
                           for row in table for m in row]
    every += [m for table in PLAY_FROM_DISCARD for row in table for m in row]
    state = position(hands=["A K 5 9 9", "9 9 9 9 9"], stocks=["3 4", "Q"], centre=["A 2 3", "", "A", ""],
                     discards=[["6", "5", "", ""], ["", "", "", ""]])
    allowed = set(state.legal_moves())
    assert allowed
    for move in every:
        child = state.clone()
        try:
            child.apply_checked(move, 0)
        except IllegalMoveError:
            assert move not in allowed, move
        else:
            assert move in allowed, move


# -- readings of the seed texts (issue 30: docs/rules.md decisions 12, 14, 15) -------------------

def test_classic_20_side_piles_take_any_card_but_an_ace() -> None:
    """Decision 15: classic-20's "n'importe quelle carte" is read as "whatever lies below", so the
    Spite and Malice rule that an Ace is never discarded stands there too."""
    state = position("classic-20", hands=["A 7 7 7 7", "9 9 9 9 9"], stocks=["Q", "Q"],
                     centre=["A 2 3", "A 2 3", "A 2 3"])
    assert "Aces may never be discarded" in illegal(state, "H:A>D0")
    assert "H:7>D0" in legal(state)


@pytest.mark.parametrize("spec, cards, left", [
    ("standard", 108, 46), ("partners", 108, 36), ("3p", 162, 69), ("4p", 162, 38),
    ("kings-only+3p", 156, 63), ("kings-only+4p", 156, 32), ("classic-20", 104, 54)])
def test_decks_by_seat_count(spec: str, cards: int, left: int) -> None:
    """Decision 12: two decks for 2 seats and 2 v 2, three for 3 and 4 seats; the table of what
    the deal leaves in the draw pile is docs/rules.md's."""
    state = GameState.new(parse_rules(spec), 1)
    assert state.rules.deck_size == cards
    assert len(state.draw_pile) == left


@pytest.mark.parametrize("spec, stock", [("skip-bo", 30), ("skip-bo+4p", 30), ("skip-bo+5p", 20), ("skip-bo+6p", 20)])
def test_skip_bo_takes_its_stock_sizes_and_set_aside_piles_from_the_commercial_rules(spec: str, stock: int) -> None:
    """Decision 14: 162 cards, stocks of 20 with 5 or 6 seats, completed piles set aside (each
    marked there as Mattel's commercial rules, not the seed texts)."""
    rules = parse_rules(spec)
    assert (rules.deck_size, rules.stock_size, rules.completed_piles, rules.discard_aces) == (162, stock,
                                                                                            "set-aside", True)
