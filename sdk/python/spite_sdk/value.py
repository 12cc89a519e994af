"""A position's worth: the chance that the seat to move wins, fitted on tactician self-play.

The searcher's rollouts stop three turns after its decision, where the game is rarely over;
:func:`win_chance` is what such a position is worth, for the searcher's leaf (``Searcher(value=...)``,
:mod:`spite_sdk.search`) in place of counting stock cards. It is a logistic model over
:data:`FEATURES`, read from the whole position (a rollout plays a sampled world, so every card
in it is the world's, not the real game's hidden ones), for the two seats of a two-seat game:
the seat to move, at the start of its turn (its hand just refilled), and the other.

Per side: its stock's size, how near it is to the end, how many ranks its hand and discard
tops leave its stock top short of a centre pile (:func:`spite_sdk.tactics.shortfall`: 0 means
it can play it, with the cards it holds), its wilds in hand and on its discard tops, and its
discard piles (cards in them, empty piles).

:data:`FITTED` holds the weights ``bench/fit_value.py`` fitted, per rule set, on the positions of
tactician-v-tactician games dealt apart from the benchmark's deals; a rule set without them
has no value (:func:`value_for` returns None and the searcher counts stock cards).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Callable, Sequence

from spite_engine import GameState, RuleSet, parse_rules

from .tactics import shortfall

FEATURES = (
    "bias",
    "stock", "near_end", "top_open", "top_short1", "top_short2", "wilds", "discards", "empty_discards",
    "rival_stock", "rival_near_end", "rival_top_open", "rival_top_short1", "rival_top_short2", "rival_wilds",
    "rival_discards", "rival_empty_discards",
)
"""The model's inputs, in order (the first 8 after ``bias`` are the seat to move's, the last 8
the other side's): ``stock`` its stock's size over the dealt size, ``near_end`` 1 / (1 + the
stock's size), ``top_open`` / ``top_short1`` / ``top_short2`` its stock top's shortfall is 0 /
1 / 2 ranks (a wild top is open), ``wilds`` wilds in hand and on discard tops, ``discards``
cards in its discard piles over the dealt stock size, ``empty_discards`` its empty piles."""

FITTED: dict[str, tuple[float, ...]] = {
    # bench/fit_value.py --rules skip-bo+short-20 --games 3000 (seed 77): 183,467 turn starts
    "skip-bo+short-20": (-0.1576, -4.0483, 3.9743, 0.4328, 0.1482, 0.0739, 0.1512, 0.4178, -0.0274,
                         4.1114, -3.2489, -0.2341, -0.1481, -0.0864, -0.1529, -0.4025, 0.0355),
    # bench/fit_value.py --rules standard --games 3000 (seed 77): 194,495 turn starts
    "standard": (-0.1716, -4.7223, 4.0460, 0.4063, 0.1375, 0.0943, 0.1361, 0.6707, -0.0379,
                 4.7933, -3.2449, -0.2284, -0.1491, -0.1094, -0.1318, -0.6502, 0.0526),
}
"""Weights per rule set spec (:func:`spite_engine.parse_rules`), as ``bench/fit_value.py``
prints them; they serve any rule set with exactly that spec's options."""


def features(state: GameState) -> list[float]:
    """:data:`FEATURES` of ``state`` for its seat to move (two seats, the game not over)."""
    rules = state.rules
    wild = rules.wild_ranks
    heights = tuple(len(pile) for pile in state.centre)
    size = rules.stock_size
    mover = state.to_move
    row = [1.0]
    for seat in (mover, (mover + 1) % rules.players):
        stock = state.stocks[rules.stock_of(seat)]
        left = len(stock)
        cards = list(state.hands[seat])
        piles = state.discards[seat]
        cards += [pile[-1] for pile in piles if pile]
        if not left:
            short = 0
        else:
            top = stock[-1]
            short = 0 if top in wild else shortfall(heights, top, cards, wild)
        row += [left / size, 1.0 / (1 + left), float(short == 0), float(short == 1), float(short == 2),
                float(sum(1 for card in cards if card in wild)), sum(len(pile) for pile in piles) / size,
                float(sum(1 for pile in piles if not pile))]
    return row


def logistic(weights: Sequence[float], row: Sequence[float]) -> float:
    """The model's probability for ``row``."""
    z = sum(w * x for w, x in zip(weights, row))
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@functools.lru_cache(maxsize=64)
def value_for(rules: RuleSet) -> Callable[[GameState], float] | None:
    """The chance that the seat to move wins, for positions of ``rules`` (None: no fit for a
    game of exactly these options, whatever its name, or not a game of two seats)."""
    if rules.players != 2:
        return None
    for spec, weights in FITTED.items():
        if dataclasses.replace(parse_rules(spec), name=rules.name) == rules:
            return lambda state: logistic(weights, features(state))
    return None


def win_chance(state: GameState, seat: int, value: Callable[[GameState], float]) -> float:
    """``value`` of ``state`` for ``seat``: its chance if it is to move, else one minus the mover's."""
    chance = value(state)
    return chance if state.to_move == seat else 1.0 - chance
