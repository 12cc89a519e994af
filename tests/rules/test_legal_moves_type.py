"""``observe`` hands out its legal moves as a :class:`LegalMoves`: the promise of the engine's
order, which ``greedy_move`` relies on to read few moves. The promise must hold (the same
moves, in the order of ``GameState.legal_moves``), the value must behave as the plain tuple
it equals, and the policy must choose the same move from the plain tuple (no promise) as from
the promised one, on every decision of real games."""

from __future__ import annotations

import pickle
import random

import pytest

from spite_engine import GameState, LegalMoves, observe, parse_rules
from spite_sdk.policies import greedy_move

from .support import SPECS


@pytest.mark.parametrize("spec", SPECS)
def test_observed_legal_moves_keep_the_engine_order_and_greedy_agrees_without_it(spec: str) -> None:
    rules = parse_rules(spec)
    for seed in range(4):
        rng = random.Random(seed)
        state = GameState.new(rules, seed)
        while state.outcome is None:
            view = observe(state, state.to_move)
            assert type(view.legal_moves) is LegalMoves
            assert view.legal_moves == tuple(state.legal_moves())
            plain = view._replace(legal_moves=tuple(view.legal_moves))
            assert greedy_move(plain) is greedy_move(view)
            for seat in range(rules.players):
                if seat != state.to_move:
                    assert observe(state, seat).legal_moves == ()
            state.apply(greedy_move(view) if rng.random() < 0.6 else rng.choice(view.legal_moves))


def test_legal_moves_behave_as_a_tuple() -> None:
    state = GameState.new(parse_rules("standard"), 3)
    moves = observe(state, state.to_move).legal_moves
    plain = tuple(moves)
    assert moves == plain and hash(moves) == hash(plain) and repr(moves) == repr(plain)
    assert pickle.loads(pickle.dumps(moves)) == plain
    assert moves[1:] == plain[1:] and list(moves) == list(plain)
