"""Reference policies: pure functions from an observation to a move.

A bot's observation is the engine's own :class:`spite_engine.Observation`, so the same
policy runs in process (benchmarks, simulations) and as a real bot process
(``sample_bots/``), and both give the same games for the same seeds.

Move kinds and sources are compared by value: PLAY=0, DISCARD=1, PASS=2;
HAND=0, STOCK=1, DISCARD_PILE=2.
"""

from __future__ import annotations

import random
from operator import attrgetter
from typing import Sequence

from spite_engine import Move, Observation

PLAY, DISCARD, PASS = 0, 1, 2
HAND, STOCK, DISCARD_PILE = 0, 1, 2
_CARD = attrgetter("card")


def wild_ranks(observation: Observation) -> frozenset[int]:
    """The wild ranks of the observation's rule set."""
    return frozenset(observation.rules.wild_ranks)


def random_move(observation: Observation, rng: random.Random) -> Move:
    """Uniformly random among the legal moves."""
    return rng.choice(observation.legal_moves)


def greedy_move(observation: Observation) -> Move:
    """Stock first, then natural hand cards, then natural discard tops; else discard the
    highest non-wild card (wilds only if nothing else may go) onto an empty discard pile,
    else onto the pile whose top is closest above it; with no discard, play a wild rather
    than pass."""
    moves: Sequence[Move] = observation.legal_moves
    wild = observation.rules.wild_ranks
    # One pass, keeping the first move of each kind in list order (as the rule above reads)
    # and collecting the discards; then the discards' cards as a set (one C-level pass) give
    # the card to discard, and a last pass looks at the discards of that card only.
    first_play: Move | None = None
    hand_play: Move | None = None
    pile_play: Move | None = None
    discards: list[Move] = []
    for m in moves:
        kind = m.kind
        if kind == DISCARD:
            discards.append(m)
        elif kind == PLAY:
            source = m.source
            if source == STOCK:
                return m
            if first_play is None:
                first_play = m
            if m.card not in wild:
                if source == HAND:
                    if hand_play is None:
                        hand_play = m
                elif source == DISCARD_PILE and pile_play is None:
                    pile_play = m
    if hand_play is not None:
        return hand_play
    if pile_play is not None:
        return pile_play
    if discards:
        cards = set(map(_CARD, discards))
        naturals = cards.difference(wild)
        card = max(naturals) if naturals else max(cards)
        piles = observation.discard_piles[observation.seat]
        best: Move | None = None
        best_fit = (3, 0)
        for m in discards:  # the first move with the smallest fit
            if m.card != card:
                continue
            target = m.target
            pile = piles[target]
            if not pile:
                fit = (0, target)
            else:
                gap = pile[-1] - card
                fit = (1 if gap >= 0 else 2, abs(gap) * 10 + target)
            if fit < best_fit:
                best, best_fit = m, fit
        if best is not None:
            return best
    return first_play if first_play is not None else moves[0]


def naive_move(observation: Observation, rng: random.Random) -> Move:
    """The published baseline: play any legal card (at random), discard only when it must."""
    moves: Sequence[Move] = observation.legal_moves
    plays = [m for m in moves if m.kind == PLAY]
    return rng.choice(plays) if plays else rng.choice(moves)
