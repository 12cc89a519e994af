"""Reference policies: pure functions from an observation to a move.

A bot's observation is the engine's own :class:`spite_engine.Observation`, so the same
policy runs in process (benchmarks, simulations) and as a real bot process
(``sample_bots/``), and both give the same games for the same seeds.

Move kinds and sources are compared by value: PLAY=0, DISCARD=1, PASS=2;
HAND=0, STOCK=1, DISCARD_PILE=2.
"""

from __future__ import annotations

import random
from typing import Sequence

from spite_engine import KING, PASS_MOVE, LegalMoves, Move, Observation, make_move
from spite_engine.ruleset import MAX_PILES

PLAY, DISCARD, PASS = 0, 1, 2
HAND, STOCK, DISCARD_PILE = 0, 1, 2
_KIND, _SOURCE, _CARD, _TARGET = 0, 1, 3, 4
"""A :class:`Move`'s fields by position, as ``greedy_move`` reads the engine's moves: compiled,
``move[_CARD]`` is the tuple's own subscript where ``move.card`` looks a descriptor up on the
type. Python ints, not C ones (no ``.pxd``): a C index on a tuple subclass goes through its
``__getitem__`` method instead, several times dearer."""


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
    if type(moves) is not LegalMoves:
        return _greedy_any_order(observation, moves, wild)
    # In the engine's order (see LegalMoves) the rule reads few moves: the plays from the
    # front (the stock's come first, the hand's before the discard piles'), the discards
    # from the back (by rank: the highest natural card's are the last but the wilds').
    first_play = None
    for move in moves:
        if move[_KIND] != PLAY:
            break
        if move[_SOURCE] == STOCK or move[_CARD] not in wild:
            return move
        if first_play is None:
            first_play = move
    last = len(moves) - 1
    if moves[last][_KIND] != DISCARD:  # pass: there is no discard
        return first_play if first_play is not None else moves[0]
    end = last
    while moves[end][_CARD] in wild:
        end -= 1
        if moves[end][_KIND] != DISCARD:  # only wilds to discard: the highest
            end = last
            break
    card = moves[end][_CARD]
    piles = observation.discard_piles[observation.seat]
    best = moves[end]
    best_fit = _NO_FIT
    for index in range(end, -1, -1):
        move = moves[index]
        if move[_CARD] != card or move[_KIND] != DISCARD:
            break
        target = move[_TARGET]
        fit = _fit(piles[target], card, target)
        if fit < best_fit:
            best, best_fit = move, fit
    return best


def _greedy_any_order(observation: Observation, moves: Sequence[Move], wild: frozenset[int]) -> Move:
    """:func:`greedy_move` on moves in any order: the rule ranks every move but a discard's
    target (see _greedy_order), and ``min`` keeps the first of equal ranks, as the rule reads
    the list; then the discards of the chosen card are compared by their piles."""
    order = _ORDERS.get(wild)
    if order is None:
        order = _ORDERS[wild] = _greedy_order(frozenset(wild))
    try:
        best = min(moves, key=order.__getitem__)
    except (KeyError, TypeError):
        # Moves that are not the engine's values (no hash, as the stdio test bot's, or not
        # equal to one): choose among their values, answer with the caller's own object.
        values = [make_move(m.kind, m.source, m.index, m.card, m.target) for m in moves]
        return moves[values.index(_greedy_any_order(observation, values, wild))]
    if best.kind != DISCARD:
        return best
    piles = observation.discard_piles[observation.seat]
    best_fit = _NO_FIT
    for move in moves:
        if move.kind == DISCARD and move.card == best.card:
            fit = _fit(piles[move.target], move.card, move.target)
            if fit < best_fit:
                best, best_fit = move, fit
    return best


_NO_FIT = 3000


def _fit(pile: Sequence[int], card: int, target: int) -> int:
    """How well ``card`` goes on discard pile ``target`` (lower is better): an empty pile;
    else a top closest above the card; else closest below; ties to the lower pile."""
    if not pile:
        return target
    gap = pile[-1] - card
    return (1000 if gap >= 0 else 2000) + abs(gap) * 10 + target


def _greedy_order(wild: frozenset[int]) -> dict[Move, int]:
    """Every move's rank under :func:`greedy_move`'s rule, lowest first: a stock play; a
    natural card from the hand; a natural discard top; a discard, by card (naturals first,
    high first); a wild from the hand or a discard pile; pass."""
    order: dict[Move, int] = {PASS_MOVE: 100}
    for card in range(KING + 1):
        natural = card not in wild
        for target in range(MAX_PILES):
            order[make_move(PLAY, STOCK, 0, card, target)] = 0
            order[make_move(PLAY, HAND, 0, card, target)] = 1 if natural else 90
            for index in range(MAX_PILES):
                order[make_move(PLAY, DISCARD_PILE, index, card, target)] = 2 if natural else 90
            order[make_move(DISCARD, HAND, 0, card, target)] = (10 if natural else 50) + KING - card
    return order


_ORDERS: dict[frozenset[int], dict[Move, int]] = {}
""":func:`_greedy_order` per set of wild ranks, built on first use."""


def naive_move(observation: Observation, rng: random.Random) -> Move:
    """The published baseline: play any legal card (at random), discard only when it must."""
    moves: Sequence[Move] = observation.legal_moves
    plays = [m for m in moves if m.kind == PLAY]
    return rng.choice(plays) if plays else rng.choice(moves)
