"""The apprentice: the tactician's candidates, reordered by what the searcher learned of them.

Expert iteration's first round (``bench/expert.py``; docs/bots.md, "Expert iteration"). The
searcher (:mod:`spite_sdk.search`) compares the tactician's best few plans by rollouts in
sampled worlds; at each decision it searches, it finds how much better or worse than the
tactician's first choice each other candidate scores. A linear model of those differences
over what each plan leaves on the table (:data:`FEATURES`, read from the observation alone:
:func:`plan_features`) was fitted on tens of thousands of such decisions per rule set
(:data:`FITTED`). The apprentice plays the candidate the model ranks first: the tactician's
own unless the model predicts a gain. It costs a few tactician searches per decision, not
a search's thousands of simulated ones, and plays about as the searcher does.

The candidates (:func:`candidates`) are the searcher's: up to :data:`CANDIDATES` of the
tactician's best plans with distinct first moves, then up to :data:`DISCARDS` other discards
after its own plays, those more than :data:`GATE` points of its evaluation below its first
dropped; a decision is *settled* (the tactician's first choice is the answer, nothing to
compare) when its first plays the stock card or wins, or nothing else is left.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Mapping, Sequence

from spite_engine import QUEEN, Move, MoveKind, Observation, RuleSet, Source, parse_rules

from .tactics import WEIGHTS, shortfall, tactician_candidates

CANDIDATES = 4
"""How many of the tactician's plans with distinct first moves are compared..."""
DISCARDS = 2
"""...and how many other discards after the tactician's own plays (its next best ones)."""
GATE = 150.0
"""Candidates more than this many points of the tactician's evaluation below its first choice
are dropped (a stock card is 1,000). Version 3 widened it from 25: within 25 points the
candidates were mostly other discards, whose effects rarely show within the horizon; up to
150 come the tactician's trade-offs a rollout does see (a rival's stock card left open, 120;
a wild spent, 15; a hand emptied, 15). Against the tactician, 200 games on the same deals
at 120 rollouts: 54.0% to 59.0% in Skip-Bo (seed 2026), 57.5% to 58.0% (seed 2027), 51.5% to
56.0% in standard (docs/bots.md, "The searcher version 3")."""

Candidate = tuple[float, list[Move]]
"""A plan and the tactician's evaluation of it."""


def candidates(observation: Observation, count: int = CANDIDATES, discards: int = DISCARDS, gate: float = GATE,
               weights: Mapping[str, float] | None = None) -> tuple[list[Candidate], bool]:
    """The decision's candidates, the tactician's first choice in front, and whether the
    decision is settled (see the module docstring)."""
    found = tactician_candidates(observation, count, discards, weights)
    top = found[0][0]
    found = [found[0]] + [c for c in found[1:] if top - c[0] <= gate]
    settled = (len(found) == 1 or top >= WEIGHTS["win"]
               or any(m.kind == MoveKind.PLAY and m.source == Source.STOCK for m in found[0][1]))
    return found, settled


FEATURES = (
    "not_first", "tactician", "stock", "hand", "pile", "wild", "emptied", "ends_turn", "completed",
    "rival_open", "rival_short1", "rival_short2", "own_open", "own_short1", "own_short2",
    "wilds_kept", "hand_left", "discard_wild", "discard_new_pile", "discard_same", "discard_run",
    "discard_bury", "discard_near", "buried_near", "rival_tops_open", "own_tops_open", "near_complete",
    "empty_piles",
)
"""The model's inputs, each a candidate's less the tactician's first choice's: ``not_first``
1 (0 for the first itself); ``tactician`` its evaluation / 100; the cards it plays from the
stock, the hand (natural), the discard piles, and its wilds; whether it empties the hand,
ends the turn, completes centre piles; then, once it is played, whether a rival's stock top
is open (0 ranks short, with the rivals' discard tops: its hand is unseen), 1 or 2 short;
the same for the seat's own stock top (with its hand and discard tops; none when the stock
card was played, the next is hidden); wilds kept (hand and discard tops); cards left in
hand; the discard: a wild, onto an empty pile, onto the same rank, onto the rank above (a
run), onto a lower card, within 2 ranks of what a centre pile needs, and the card it buries
within 2 ranks; the rivals' and its own discard tops that play at once, centre piles within
2 cards of completion, and its own empty discard piles."""

FITTED: dict[str, tuple[float, ...]] = {
    # bench/expert.py collect --rules skip-bo+short-20 --games 800 (seed 31, 120 rollouts): 24,896
    # searched decisions, 84,372 candidates with 6 samples or more
    "skip-bo+short-20": (0.0109, 2.1079, 0.0, 0.4772, -0.0893, -0.4471, 0.0357, -0.7106, 0.1762, -1.3457,
                         -1.6301, -0.8001, 0.8673, 0.5012, 0.2434, 0.4902, 0.1391, 0.1423, -0.0462, 0.0149,
                         -0.0150, 0.0243, -0.0007, -0.0275, -0.2380, 0.0144, 0.1649, -0.2860),
    # bench/expert.py collect --rules standard --games 800 (seed 31, 120 rollouts): 26,764 searched
    # decisions, 92,011 candidates with 6 samples or more
    "standard": (0.0080, 1.9204, 0.0, 0.0310, -0.1505, -0.6470, 0.0564, -1.0953, 0.1096, -1.1560, -1.4481,
                 -0.7084, 1.0880, 0.3886, 0.1936, 0.5304, -0.2731, 0.1591, -0.0127, 0.0074, -0.0358, 0.0508,
                 -0.0099, -0.0194, -0.1521, 0.0096, 0.0511, -0.3124),
}
"""Weights per rule set spec, as ``bench/expert.py fit`` prints them; a rule set without them
has no apprentice (:func:`apprentice_for` returns None)."""


def _near(card: int, heights: Sequence[int], reach: int) -> float:
    """1 if a natural ``card`` is within ``reach`` ranks of what some centre pile needs."""
    return float(any(0 <= card - (h + 1) <= reach for h in heights))


def plan_features(observation: Observation, value: float, moves: Sequence[Move]) -> list[float]:
    """:data:`FEATURES` but ``not_first`` of a plan (up to its first revealing move) the
    tactician values ``value``, from the observation alone."""
    rules = observation.rules
    wild = rules.wild_ranks
    me = observation.seat
    heights = [len(p) for p in observation.centre_piles]
    hand = list(observation.hand)
    piles = [list(p) for p in observation.discard_piles[me]]
    stock_top = observation.my_stock.top
    stock = plays = pile = wilds = completed = 0
    discard: tuple[int, list[int]] | None = None
    ends = 0.0
    for move in moves:
        if move.kind == MoveKind.PLAY:
            if move.source == Source.HAND:
                hand.remove(move.card)
                plays += move.card not in wild
            elif move.source == Source.STOCK:
                stock_top = None
                stock += 1
            else:
                piles[move.index].pop()
                pile += 1
            wilds += move.card in wild
            heights[move.target] += 1
            if heights[move.target] >= QUEEN:
                heights[move.target] = 0
                completed += 1
        else:
            if move.kind == MoveKind.DISCARD:
                discard = (move.card, list(piles[move.target]))
                hand.remove(move.card)
                piles[move.target].append(move.card)
            ends = 1.0
    tops = [p[-1] for p in piles if p]
    emptied = not hand and bool(moves) and moves[0].kind == MoveKind.PLAY
    row = [value / 100.0, float(stock), float(plays), float(pile), float(wilds), float(emptied), ends,
           float(completed)]
    rival_tops = [p[-1] for seat, seat_piles in enumerate(observation.discard_piles) if seat != me
                  for p in seat_piles if p]
    rival = [0.0, 0.0, 0.0]
    mine = rules.stock_of(me)
    for index, view in enumerate(observation.stocks):
        if index != mine and view.top is not None:
            short = 0 if view.top in wild else shortfall(heights, view.top, rival_tops, wild)
            if short < 3:
                rival[short] = 1.0
    own = [0.0, 0.0, 0.0]
    if stock_top is not None:
        short = 0 if stock_top in wild else shortfall(heights, stock_top, hand + tops, wild)
        if short < 3:
            own[short] = 1.0
    row += rival + own + [float(sum(1 for c in hand + tops if c in wild)), float(len(hand))]
    if discard is None:
        row += [0.0] * 7
    else:
        card, before = discard
        top = before[-1] if before else None
        natural = top if top is not None and top not in wild else None
        row += [float(card in wild), float(top is None), float(top == card), float(top == card + 1),
                float(natural is not None and natural < card),
                _near(card, heights, 2) if card not in wild else 0.0,
                _near(natural, heights, 2) if natural is not None else 0.0]
    row += [float(sum(1 for c in rival_tops if c in wild or _near(c, heights, 0))),
            float(sum(1 for c in tops if c in wild or _near(c, heights, 0))),
            float(sum(1 for h in heights if h >= QUEEN - 2)), float(sum(1 for p in piles if not p))]
    return row


def differences(observation: Observation, found: Sequence[Candidate]) -> list[list[float]]:
    """Each candidate's :data:`FEATURES` less the first's (so the first's are all 0)."""
    rows = [plan_features(observation, value, moves) for value, moves in found]
    return [[float(i > 0)] + [x - y for x, y in zip(row, rows[0])] for i, row in enumerate(rows)]


class Apprentice:
    """The policy (see the module docstring) for a model's ``weights``, one per feature."""

    def __init__(self, weights: Sequence[float]) -> None:
        if len(weights) != len(FEATURES):
            raise ValueError(f"an apprentice needs {len(FEATURES)} weights, got {len(weights)}")
        self.weights = tuple(weights)

    def gains(self, observation: Observation, found: Sequence[Candidate]) -> list[float]:
        """Each candidate's predicted gain over the first (the first's is 0)."""
        return [sum(w * x for w, x in zip(self.weights, row)) if i else 0.0
                for i, row in enumerate(differences(observation, found))]

    def order(self, observation: Observation, found: list[Candidate]) -> list[Candidate]:
        """``found`` by predicted gain, best first; ties keep the tactician's order."""
        if len(found) < 2:
            return found
        gains = self.gains(observation, found)
        return [found[i] for i in sorted(range(len(found)), key=lambda i: (-gains[i], i))]

    def __call__(self, observation: Observation) -> list[Move]:
        """The apprentice's plan for this decision."""
        found, settled = candidates(observation)
        return found[0][1] if settled else self.order(observation, found)[0][1]


@functools.lru_cache(maxsize=64)
def apprentice_for(rules: RuleSet) -> Apprentice | None:
    """The apprentice fitted for ``rules`` (None: no fit for a game of exactly these options)."""
    for spec, weights in FITTED.items():
        if dataclasses.replace(parse_rules(spec), name=rules.name) == rules:
            return Apprentice(weights)
    return None
