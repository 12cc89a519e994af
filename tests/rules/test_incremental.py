"""What the engine keeps between decisions equals a computation from scratch.

``legal_moves`` looks the discards up in a memo, and ``observe`` keeps the stocks' and the
discard piles' views in the state between moves (docs/performance.md, "Rules engine").
The references below compute the same from the piles alone, with no memo and no cache; on
every decision of real games (every preset and a few combinations, greedy, random and mixed
seats) and after piles are replaced directly, both must agree exactly.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spite_engine import (
    ACE,
    PASS_MOVE,
    GameState,
    Move,
    MoveKind,
    Observation,
    Source,
    StockView,
    make_move,
    observe,
    observe_lazy,
    parse_rules,
    visible_events,
)
from spite_sdk.policies import greedy_move

from .support import SPECS, cards, position


def reference_legal_moves(state: GameState) -> list[Move]:
    """The legal moves from the rules as docs/rules.md states them, in the documented order."""
    if state.outcome is not None:
        return []
    rules, seat = state.rules, state.to_move
    wild = rules.wild_ranks
    needs: list[int | None] = []
    first_empty_seen = False
    for pile in state.centre:
        if not pile and first_empty_seen:
            needs.append(None)  # empty piles are interchangeable: only the first one is a target
            continue
        first_empty_seen = first_empty_seen or not pile
        needs.append(len(pile) + 1)

    def targets(card: int) -> list[int]:
        return [index for index, need in enumerate(needs) if need is not None and (card == need or card in wild)]

    moves = []
    stock = state.stock_of(seat)
    if stock:
        moves += [make_move(MoveKind.PLAY, Source.STOCK, 0, stock[-1], t) for t in targets(stock[-1])]
    ranks = sorted(set(state.hands[seat]))
    for card in ranks:
        moves += [make_move(MoveKind.PLAY, Source.HAND, 0, card, t) for t in targets(card)]
    for index, pile in enumerate(state.discards[seat]):
        if pile:
            moves += [make_move(MoveKind.PLAY, Source.DISCARD_PILE, index, pile[-1], t) for t in targets(pile[-1])]
    discardable = [c for c in ranks if (c != ACE or rules.discard_aces)
                   and not (rules.no_block and c not in wild and targets(c))]
    if not discardable:
        return moves + [PASS_MOVE]
    piles = state.discards[seat]
    first_empty = next((i for i, p in enumerate(piles) if not p), None)
    onto = [i for i, p in enumerate(piles) if p or i == first_empty]
    for card in discardable:
        moves += [make_move(MoveKind.DISCARD, Source.HAND, 0, card, t) for t in onto]
    return moves


def reference_observation(state: GameState, seat: int) -> Observation:
    """``observe`` built field by field from the state, nothing kept."""
    rules = state.rules
    return Observation(
        rules, seat, state.turn, state.to_move, tuple(sorted(state.hands[seat])),
        tuple(len(h) for h in state.hands),
        tuple(StockView(len(s), tuple(reversed(s[-rules.open_stock:]))) for s in state.stocks),
        tuple(tuple(tuple(p) for p in piles) for piles in state.discards),
        tuple(tuple(p) for p in state.centre), len(state.draw_pile), len(state.set_aside),
        tuple(visible_events(state, seat, state.cursors[seat])),
        tuple(reference_legal_moves(state)) if seat == state.to_move and state.outcome is None else (),
        state.outcome)


@pytest.mark.parametrize("spec", SPECS)
def test_legal_moves_and_views_equal_a_computation_from_scratch(spec: str) -> None:
    rules = parse_rules(spec)
    for seed in range(6):
        for greedy_share in (1.0, 0.5, 0.0):
            rng = random.Random(seed)
            state = GameState.new(rules, seed)
            while state.outcome is None:
                assert state.legal_moves() == reference_legal_moves(state)
                for seat in range(rules.players):
                    assert observe(state, seat) == reference_observation(state, seat)
                view = observe(state, state.to_move)
                state.apply(greedy_move(view) if rng.random() < greedy_share else rng.choice(view.legal_moves))
            for seat in range(rules.players):
                assert observe(state, seat) == reference_observation(state, seat)


def test_piles_replaced_after_observing_are_seen() -> None:
    """Replacing a pile list, or a whole attribute, between two observations shows in the
    second one (the kept views are checked against the lists they were built from)."""
    state = position(hands=["2 3 4 5 6", "7 8 9 10 J"], stocks=["9 Q 7", "5 6 8"],
                     discards=[["3", "", "", ""], ["", "", "", ""]])
    observe(state, 0)
    state.stocks[1] = cards("5 6 9")
    state.discards[0][0] = cards("4")
    state.discards[1] = [cards("K"), [], [], []]
    assert observe(state, 0) == reference_observation(state, 0)
    assert observe(state, 0).stocks[1].top == 9 and observe(state, 0).discard_piles[0][0] == (4,)
    state.stocks = [cards("2"), cards("3 4")]
    state.discards = [[cards("8"), [], [], []], [[], [], [], []]]
    for seat in (0, 1):
        assert observe(state, seat) == reference_observation(state, seat)
    assert state.clone().legal_moves() == reference_legal_moves(state)


def test_a_replaced_centre_is_seen_and_clones_keep_the_heights() -> None:
    """The centre heights kept in the state (packed, added to by ``apply``) follow plays,
    completed piles and clones, and a ``centre`` list replaced directly is re-read."""
    state = position(hands=["2 3 4 5 6", "7 8 9 10 J"], stocks=["9 Q 7", "5 6 8"],
                     centre=["A", "", "", ""])
    assert state.legal_moves() == reference_legal_moves(state)
    state.apply(make_move(MoveKind.PLAY, Source.HAND, 0, 2, 0))
    assert state.legal_moves() == reference_legal_moves(state)
    state.centre = [cards("A 2 3 4 5 6 7 8 9 10 J"), cards("A 2 3 4 5"), [], []]
    assert state.legal_moves() == reference_legal_moves(state)
    copy = state.clone()
    copy.apply(make_move(MoveKind.PLAY, Source.HAND, 0, 6, 1))
    assert copy.legal_moves() == reference_legal_moves(copy)
    assert state.legal_moves() == reference_legal_moves(state)
    rng = random.Random(7)
    for seed in range(20):
        state = GameState.new(parse_rules("skip-bo"), seed)
        while state.outcome is None:
            copy = state.clone()
            assert copy.legal_moves() == reference_legal_moves(state)
            state.apply(rng.choice(state.legal_moves()))


@settings(max_examples=40, deadline=None)
@given(spec=st.sampled_from(SPECS), seed=st.integers(0, 2**64 - 1), greedy_share=st.floats(0, 1),
       moves=st.integers(0, 400), replace_at=st.integers(0, 400), clone_at=st.integers(0, 400))
def test_what_is_kept_between_decisions_equals_a_computation_from_scratch(
        spec: str, seed: int, greedy_share: float, moves: int, replace_at: int, clone_at: int) -> None:
    """A property over games of every rule set, any mix of greedy and random moves: at every
    decision the legal moves (from the kept centre heights and fits) and the lazy and eager
    observations of every seat equal the reference computed from the piles alone; so do a
    clone's, taken anywhere; and after the centre, a hand, a stock and the discard piles are
    replaced directly (as ``determinize`` and tests set positions up) play goes on equal."""
    rules = parse_rules(spec)
    rng = random.Random(seed)
    state = GameState.new(rules, seed)
    for step in range(moves):
        if state.outcome is not None:
            break
        if step == replace_at:
            state.centre = [list(p) for p in state.centre]
            state.hands[state.to_move] = list(reversed(state.hands[state.to_move]))
            state.stocks = [list(s) for s in state.stocks]
            state.discards = [[list(p) for p in piles] for piles in state.discards]
        if step == clone_at:
            state = state.clone()
        expected = reference_legal_moves(state)
        assert state.legal_moves() == expected
        for seat in range(rules.players):
            assert observe_lazy(state, seat) == reference_observation(state, seat)
        view = observe_lazy(state, state.to_move)
        assert list(view.legal_moves) == expected
        move = greedy_move(view) if rng.random() < greedy_share else rng.choice(view.legal_moves)
        del view
        state.apply(move)
    for seat in range(rules.players):
        assert observe(state, seat) == reference_observation(state, seat)
