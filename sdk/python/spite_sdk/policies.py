"""Reference policies: pure functions from an observation to a move.

They read only fields that the SDK's :class:`~spite_sdk.Observation` and the engine's
``referee.rules.Observation`` share (``legal_moves``, ``hand``, ``rules``...), so the
same policy runs in process (benchmarks, simulations) and as a real bot process
(``sample_bots/``), and both give the same games for the same seeds.

Move kinds and sources are compared by value: PLAY=0, DISCARD=1, PASS=2;
HAND=0, STOCK=1, DISCARD_PILE=2.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

PLAY, DISCARD, PASS = 0, 1, 2
HAND, STOCK, DISCARD_PILE = 0, 1, 2


def wild_ranks(observation: Any) -> frozenset[int]:
    """The wild ranks of the observation's rule set (engine ``RuleSet`` or SDK ``RuleSet``)."""
    return frozenset(observation.rules.wild_ranks)


def random_move(observation: Any, rng: random.Random) -> Any:
    """Uniformly random among the legal moves."""
    return rng.choice(observation.legal_moves)


def greedy_move(observation: Any) -> Any:
    """Stock first, then natural hand cards, then natural discard tops; else discard the
    highest non-wild card (wilds only if nothing else may go) onto an empty discard pile,
    else onto the pile whose top is closest above it; with no discard, play a wild rather
    than pass."""
    moves: Sequence[Any] = observation.legal_moves
    wild = wild_ranks(observation)
    plays = [m for m in moves if m.kind == PLAY]
    for m in plays:
        if m.source == STOCK:
            return m
    for source in (HAND, DISCARD_PILE):
        for m in plays:
            if m.source == source and m.card not in wild:
                return m
    discards = [m for m in moves if m.kind == DISCARD]
    if discards:
        card = max(discards, key=lambda m: (m.card not in wild, m.card)).card
        piles = observation.discard_piles[observation.seat]

        def fit(m: Any) -> tuple[int, int]:
            pile = piles[m.target]
            if not pile:
                return (0, m.target)
            gap = pile[-1] - card
            return (1 if gap >= 0 else 2, abs(gap) * 10 + m.target)

        return min((m for m in discards if m.card == card), key=fit)
    return plays[0] if plays else moves[0]


def naive_move(observation: Any, rng: random.Random) -> Any:
    """The published baseline: play any legal card (at random), discard only when it must."""
    moves: Sequence[Any] = observation.legal_moves
    plays = [m for m in moves if m.kind == PLAY]
    return rng.choice(plays) if plays else rng.choice(moves)
