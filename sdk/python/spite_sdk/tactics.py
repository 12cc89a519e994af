"""The tactician's decision: the planner's whole-turn search with a Skip-Bo evaluation.

The search is :mod:`spite_sdk.planning`'s (every sequence of plays this turn, a branch ending
where a card turns up, every position also a place to stop and discard), run here with an
evaluation tuned in duplicate-deal games against ``h13-like`` (skipbot's best
published heuristic, :mod:`spite_sdk.rivals`) on deals apart from the benchmark's
(docs/bots.md gives each change's effect). Against the planner's evaluation it differs in:

* **Danger counts the opponent's discard tops.** For each opponent's natural stock card,
  the fewest ranks still missing before some centre pile takes it, once the opponent's
  visible discard tops (wild tops for any rank) fill what they can: the rest must come from
  its unseen hand. Leaving a stock card open that its discard piles already reach is priced
  at 120, about an eighth of a stock card of ours.
* **Discard-pile cards are kept.** Playing a discard top costs a little (-1.5) instead of
  earning: a top is only worth playing when it leads to a stock card, an emptied hand or a
  better discard. Stacked discard piles are the reserve that frees later stock cards.
* **Wilds cost more** (15 instead of 7), and a natural hand card played earns 3.

Every term is a function of the transposition key (centre heights as a multiset, hand,
discard depths), so the search stays exact for its evaluation.

A bot's observation is the engine's own, so the same code runs in process (``bench/bot_strength.py``), as
``sample_bots/tactician`` and inside the sampler (``SPITE_SAMPLER_BASE=tactician``).
"""

from __future__ import annotations

from typing import Final, Mapping, Sequence

from spite_engine import Move, Observation

from .planning import candidate_plans, plan_turn

QUEEN: Final = 12

WEIGHTS: dict[str, float] = {
    "stock": 1000.0,
    "win": 1_000_000.0,
    "empty_hand": 15.0,
    "hand_card": 3.0,
    "pile_card": -1.5,
    "wild": 15.0,
    "danger0": 120.0,
    "danger1": 30.0,
    "danger2": 6.0,
    "discard_wild": 20.0,
    "danger_tops": 1.0,
}
"""The evaluation's weights (see the module docstring and :mod:`spite_sdk.planning`;
``dangerK`` is by how many ranks the opponent is short of its stock card; ``danger_tops`` 0
leaves the opponent's discard tops out, as the planner does, for experiments)."""

def _gap_ranks(height: int, target: int) -> list[int]:
    """The ranks a centre pile of ``height`` needs before it takes ``target`` (it wraps
    through a completed pile when it is already past it)."""
    ranks: list[int] = []
    need = height + 1
    while need != target and len(ranks) < QUEEN:
        ranks.append(need)
        need = 1 if need >= QUEEN else need + 1
    return ranks


def shortfall(heights: Sequence[int], target: int, cards: Sequence[int], wild: frozenset[int]) -> int:
    """The fewest ranks that ``cards`` (each used once, wilds for any rank) leave missing
    before some centre pile of ``heights`` takes a natural ``target``."""
    wilds = sum(1 for c in cards if c in wild)
    best = 99
    for height in set(heights):
        pool = [c for c in cards if c not in wild]
        missing = 0
        for rank in _gap_ranks(height, target):
            if rank in pool:
                pool.remove(rank)
            else:
                missing += 1
        best = min(best, max(0, missing - wilds))
    return best


class ReachDanger:
    """The tactician's danger: per rival's natural stock top, the :func:`shortfall` of the
    centre piles once the rival's visible discard tops fill what they can, priced by
    ``danger0``..``danger2`` (``danger_tops`` 0 leaves the discard tops out).

    The shortfall of several piles is the least of each pile height's (:func:`shortfall`
    tries every height alone), so each threat keeps its shortfall per height, from a memo
    shared by every decision (a rollout's searches ask about the same few stock tops and
    discard tops again and again): a cost is then a few lookups, not a walk of the ranks."""

    def __init__(self, observation: Observation, weights: Mapping[str, float] = WEIGHTS) -> None:
        rules = observation.rules
        self.wild = rules.wild_ranks
        mine = rules.stock_of(observation.seat)
        team = rules.team_of(observation.seat)
        # Each rival's natural stock top with the tops of its discard piles (what it reaches).
        self.threats: list[tuple[int, tuple[int, ...]]] = []
        seen: set[int] = set()
        for other in range(rules.players):
            index = rules.stock_of(other)
            if index == mine or (rules.partners and rules.team_of(other) == team) or index in seen:
                continue
            stock = observation.stocks[index]
            if stock.visible and stock.visible[0] not in self.wild:
                seen.add(index)
                tops = tuple(p[-1] for p in observation.discard_piles[other] if p) if weights["danger_tops"] else ()
                self.threats.append((stock.visible[0], tops))
        self.costs = (weights["danger0"], weights["danger1"], weights["danger2"])
        self.tables = [_shortfalls(top, tuple(sorted(tops)), self.wild) for top, tops in self.threats]

    def __call__(self, heights: tuple[int, ...]) -> float:
        cost = 0.0
        costs = self.costs
        for table in self.tables:
            short = min([table[h] for h in heights], default=99)
            if short < 3:
                cost += costs[short]
        return cost


_SHORTFALLS: dict[tuple[int, tuple[int, ...], frozenset[int]], tuple[int, ...]] = {}
"""Memo of :func:`_shortfalls` (a pure function of a stock top, up to four discard tops and
a set of wild ranks; about 300 bytes an entry): it starts again at ``_SHORTFALLS_LIMIT``
(about 1.2 MB), so a bot process kept warm for a day stays small (issue 24)."""
_SHORTFALLS_LIMIT = 1 << 12


def _shortfalls(target: int, tops: tuple[int, ...], wild: frozenset[int]) -> tuple[int, ...]:
    """:func:`shortfall` of one centre pile of each height 0..:data:`QUEEN`, for a natural
    ``target`` and discard tops ``tops`` (sorted: their order does not matter)."""
    key = (target, tops, wild)
    table = _SHORTFALLS.get(key)
    if table is None:
        if len(_SHORTFALLS) >= _SHORTFALLS_LIMIT:
            _SHORTFALLS.clear()
        table = _SHORTFALLS[key] = tuple(shortfall((height,), target, tops, wild) for height in range(QUEEN + 1))
    return table


def tactician_plan(observation: Observation, weights: Mapping[str, float] | None = None) -> list[Move]:
    """The tactician's plan for this decision: the best sequence up to its first revealing
    move, or the whole turn with its discard; the first move is from ``legal_moves``."""
    weights = WEIGHTS if weights is None else weights
    return plan_turn(observation, weights, ReachDanger(observation, weights))


def tactician_candidates(observation: Observation, count: int, discards: int = 0,
                         weights: Mapping[str, float] | None = None) -> list[tuple[float, list[Move]]]:
    """Up to ``count`` best plans with distinct first moves, best first, as (value, moves),
    then up to ``discards`` other discards after the best plan's plays:
    :func:`spite_sdk.planning.candidate_plans` for the tactician's evaluation."""
    weights = WEIGHTS if weights is None else weights
    return candidate_plans(observation, count, weights, ReachDanger(observation, weights), discards)
