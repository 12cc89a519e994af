"""``policies.greedy_move`` chooses exactly what its plain one-loop reference chooses.

The policy reads only a few moves when the engine's ``LegalMoves`` promises their order, and
otherwise goes through a rank table (docs/performance.md, "Rules engine"); the reference
below is the straightforward loop, kept here as the statement of the rule. They are
compared on every decision of real games (every preset; greedy seats, random seats and seats
that mix the two, so that discard piles, wilds and passes come in every shape), on shuffled
move lists (a plain tuple in any order takes the general path) and on attribute-only move
values (the stdio test bot passes ``SimpleNamespace`` moves).
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any, Sequence

import pytest

from spite_engine import PRESETS, GameState, Move, Observation, observe, parse_rules
from spite_sdk import policies

PLAY, DISCARD = 0, 1
HAND, STOCK, DISCARD_PILE = 0, 1, 2


def reference_greedy(observation: Any) -> Any:
    """The rule of ``greedy_move`` as one loop over the moves, in list order."""
    moves: Sequence[Any] = observation.legal_moves
    wild = frozenset(observation.rules.wild_ranks)
    first_play = hand_play = pile_play = None
    discards = []
    for m in moves:
        if m.kind == PLAY:
            if m.source == STOCK:
                return m
            if first_play is None:
                first_play = m
            if m.card not in wild:
                if m.source == HAND and hand_play is None:
                    hand_play = m
                elif m.source == DISCARD_PILE and pile_play is None:
                    pile_play = m
        elif m.kind == DISCARD:
            discards.append(m)
    if hand_play is not None:
        return hand_play
    if pile_play is not None:
        return pile_play
    if discards:
        naturals = [m.card for m in discards if m.card not in wild]
        card = max(naturals) if naturals else max(m.card for m in discards)
        piles = observation.discard_piles[observation.seat]
        best, best_fit = None, (3, 0)
        for m in discards:
            if m.card != card:
                continue
            pile = piles[m.target]
            if not pile:
                fit = (0, m.target)
            else:
                gap = pile[-1] - card
                fit = (1 if gap >= 0 else 2, abs(gap) * 10 + m.target)
            if fit < best_fit:
                best, best_fit = m, fit
        if best is not None:
            return best
    return first_play if first_play is not None else moves[0]


def views(spec: str, seeds: range, greedy_share: float) -> list[Observation]:
    """Every observation of the deciding seat in games whose moves are greedy with
    probability ``greedy_share``, else random."""
    rules = parse_rules(spec)
    seen = []
    for seed in seeds:
        rng = random.Random(seed)
        state = GameState.new(rules, seed)
        while state.outcome is None:
            view = observe(state, state.to_move)
            seen.append(view)
            state.apply(policies.greedy_move(view) if rng.random() < greedy_share else rng.choice(view.legal_moves))
    return seen


@pytest.mark.parametrize("spec", PRESETS)
def test_greedy_move_chooses_as_the_reference_loop(spec: str) -> None:
    rng = random.Random(spec)
    checked = 0
    for share in (1.0, 0.7, 0.0):
        for view in views(spec, range(12), share):
            assert policies.greedy_move(view) is reference_greedy(view), view
            shuffled = list(view.legal_moves)
            rng.shuffle(shuffled)
            mixed = view._replace(legal_moves=tuple(shuffled))
            assert policies.greedy_move(mixed) is reference_greedy(mixed), mixed
            checked += 1
    assert checked > 1000


def test_greedy_move_reads_moves_by_attribute() -> None:
    """Moves that are not tuples (as the stdio test bot builds them) get the same choice."""
    for view in views("standard", range(4), 0.5):
        moves = [SimpleNamespace(**m._asdict()) for m in view.legal_moves]
        plain = SimpleNamespace(legal_moves=moves, rules=SimpleNamespace(wild_ranks=view.rules.wild_ranks),
                                discard_piles=view.discard_piles, seat=view.seat)
        chosen: Move = policies.greedy_move(view)
        assert moves.index(policies.greedy_move(plain)) == view.legal_moves.index(chosen)  # type: ignore[arg-type]
