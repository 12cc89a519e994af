"""The tactician's decision: the planner's whole-turn search with a Skip-Bo evaluation.

The search is :mod:`spite_sdk.planning`'s (every sequence of plays this turn, a branch ending
where a card turns up, every position also a place to stop and discard), re-written here
with an evaluation tuned in duplicate-deal games against ``h13-like`` (skipbot's best
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

A bot's observation is the engine's own, so the same code runs in process (``bench/bot_strength.py``), as ``sample_bots/tactician`` and inside the sampler
(``SPITE_SAMPLER_BASE=tactician``).
"""

from __future__ import annotations

from typing import Final, Sequence

from spite_engine import Move, Observation, make_move

PLAY, DISCARD, PASS = 0, 1, 2
HAND, STOCK, DISCARD_PILE = 0, 1, 2
ACE: Final = 1
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

NODE_LIMIT: Final = 20_000
"""The search stops expanding after this many positions (a bound, not reached in practice)."""

Step = tuple[int, int, int, int, int]
"""One move of a sequence: (kind, source, index, card, target), a move's fields."""


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


class TurnPlan:
    """One candidate: its steps (plays, then a discard or pass unless it ends in a reveal)
    and its evaluation."""

    __slots__ = ("steps", "value", "reveals")

    def __init__(self, steps: tuple[Step, ...], value: float, reveals: bool) -> None:
        self.steps = steps
        self.value = value
        self.reveals = reveals


class Search:
    """The search of one decision (see the module docstring)."""

    def __init__(self, observation: Observation, weights: dict[str, float] | None = None) -> None:
        self.w = w = WEIGHTS if weights is None else weights
        rules = observation.rules
        seat = observation.seat
        self.wild: frozenset[int] = frozenset(rules.wild_ranks)
        self.no_block: bool = rules.no_block
        self.discard_aces: bool = rules.discard_aces
        self.piles: tuple[tuple[int, ...], ...] = tuple(observation.discard_piles[seat])
        stock_index = rules.stock_of(seat)
        mine = observation.stocks[stock_index]
        self.stock_top: int | None = mine.visible[0] if mine.visible else None
        self.stock_count: int = mine.count
        team = rules.team_of(seat)
        # Each rival's natural stock top with the tops of its discard piles (what it reaches).
        self.threats: list[tuple[int, tuple[int, ...]]] = []
        for other in range(rules.players):
            index = rules.stock_of(other)
            if index == stock_index or (rules.partners and rules.team_of(other) == team):
                continue
            stock = observation.stocks[index]
            if stock.visible and stock.visible[0] not in self.wild and index not in {t[0] for t in self.threats}:
                tops = tuple(p[-1] for p in observation.discard_piles[other] if p) if w["danger_tops"] else ()
                self.threats.append((stock.visible[0], tops))
        self.danger_weights = (w["danger0"], w["danger1"], w["danger2"])
        self.hand0: tuple[int, ...] = tuple(sorted(observation.hand))
        self.seen: set[object] = set()
        self.results: list[TurnPlan] = []
        self.stops: list[tuple[float, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[Step, ...]]] = []
        self.danger_memo: dict[tuple[int, ...], float] = {}
        self.nodes = 0
        heights = tuple(len(p) for p in observation.centre_piles)
        self.run(heights, self.hand0, tuple(len(p) for p in self.piles), (), 0.0)

    # -- evaluation ----------------------------------------------------------------------------

    def danger(self, heights: tuple[int, ...]) -> float:
        """The cost of leaving the centre piles at ``heights`` for the rivals' stock cards."""
        key = tuple(sorted(heights))
        cost = self.danger_memo.get(key)
        if cost is None:
            cost = 0.0
            weights = self.danger_weights
            for top, tops in self.threats:
                short = shortfall(key, top, tops, self.wild)
                if short < len(weights):
                    cost += weights[short]
            self.danger_memo[key] = cost
        return cost

    def best_discard(self, heights: tuple[int, ...], hand: tuple[int, ...],
                     depths: tuple[int, ...]) -> tuple[Step, float]:
        """The best legal discard at the end of the turn (or pass when none is legal)."""
        wild = self.wild
        needs = {h + 1 for h in heights}
        tops: list[int | None] = [self.piles[i][d - 1] if d else None for i, d in enumerate(depths)]
        empties = [i for i, d in enumerate(depths) if not d]
        targets = [i for i, d in enumerate(depths) if d] + empties[:1]
        best: Step = (PASS, HAND, 0, 0, 0)
        best_value = -1e18
        for card in set(hand):
            if card == ACE and not self.discard_aces:
                continue
            if self.no_block and card not in wild and card in needs and card <= QUEEN:
                continue
            for target in targets:
                value = discard_value(card, tops[target], card in wild, len(empties), needs, self.w)
                if value > best_value:
                    best_value, best = value, (DISCARD, HAND, 0, card, target)
        return best, (0.0 if best[0] == PASS else best_value)

    def finish(self, complete: bool) -> list[TurnPlan]:
        """The plans, best first (with ``complete`` False, at least the best one)."""
        results = self.results
        best = max((plan.value for plan in results), default=-1e18)
        bound = 5.0  # the most a discard adds
        self.stops.sort(key=lambda stop: -stop[0])
        for base, heights, hand, depths, path in self.stops:
            if not complete and base + bound < best:
                break
            discard, score = self.best_discard(heights, hand, depths)
            value = base + score
            results.append(TurnPlan(path + (discard,), value, False))
            best = max(best, value)
        results.sort(key=lambda plan: -plan.value)
        return results

    # -- search --------------------------------------------------------------------------------

    def run(self, heights: tuple[int, ...], hand: tuple[int, ...], depths: tuple[int, ...],
            path: tuple[Step, ...], gain: float) -> None:
        """Visit a position: ``gain`` is the value of the plays that led to it."""
        key = (tuple(sorted(heights)), hand, depths)
        if key in self.seen or self.nodes >= NODE_LIMIT:
            return
        self.seen.add(key)
        self.nodes += 1
        w = self.w
        self.stops.append((gain - self.danger(heights), heights, hand, depths, path))
        wild = self.wild
        first_at: dict[int, int] = {}
        for index, h in enumerate(heights):
            first_at.setdefault(h, index)
        everywhere = list(first_at.values())

        stock = self.stock_top
        if stock is not None:
            is_wild = stock in wild
            spots = everywhere if is_wild else ([first_at[stock - 1]] if stock - 1 in first_at else [])
            for target in spots:
                new_heights = _raised(heights, target)
                value = gain + w["stock"] - (w["wild"] if is_wild else 0.0) - self.danger(new_heights)
                if self.stock_count == 1:
                    value += w["win"]
                self.results.append(TurnPlan(path + ((PLAY, STOCK, 0, stock, target),), value, True))
        previous = -1
        for index, card in enumerate(hand):
            if card == previous:
                continue
            previous = card
            is_wild = card in wild
            spots = everywhere if is_wild else ([first_at[card - 1]] if card - 1 in first_at and card <= QUEEN else [])
            if not spots:
                continue
            rest = hand[:index] + hand[index + 1:]
            step_gain = gain - w["wild"] if is_wild else gain + w["hand_card"]
            for target in spots:
                step = (PLAY, HAND, 0, card, target)
                new_heights = _raised(heights, target)
                if not rest:
                    value = step_gain + w["empty_hand"] - self.danger(new_heights)
                    self.results.append(TurnPlan(path + (step,), value, True))
                else:
                    self.run(new_heights, rest, depths, path + (step,), step_gain)
        for pile, depth in enumerate(depths):
            if not depth:
                continue
            card = self.piles[pile][depth - 1]
            is_wild = card in wild
            spots = everywhere if is_wild else ([first_at[card - 1]] if card - 1 in first_at and card <= QUEEN else [])
            if not spots:
                continue
            new_depths = depths[:pile] + (depth - 1,) + depths[pile + 1:]
            step_gain = gain - w["wild"] if is_wild else gain + w["pile_card"]
            for target in spots:
                self.run(_raised(heights, target), hand, new_depths,
                         path + ((PLAY, DISCARD_PILE, pile, card, target),), step_gain)


def _raised(heights: tuple[int, ...], target: int) -> tuple[int, ...]:
    """The heights after one more card on pile ``target`` (a completed pile starts again)."""
    h = heights[target] + 1
    return heights[:target] + ((0 if h >= QUEEN else h),) + heights[target + 1:]


def discard_value(card: int, top: int | None, is_wild: bool, empty_piles: int, needs: set[int],
                  w: dict[str, float]) -> float:
    """How good it is to discard ``card`` onto a pile whose top is ``top`` (``None``: empty):
    the planner's rule (:func:`spite_sdk.planning.discard_value`), at most 5."""
    value = -w["discard_wild"] if is_wild else 0.0
    if top is None:
        return value + (1.0 if empty_piles > 1 else -2.0) + 0.3 * min(card, QUEEN)
    if top == card + 1:
        return value + 5.0
    if top == card:
        return value + 4.0
    if top > card:
        return value + 2.0 - 0.2 * (top - card)
    near = any(0 <= top - n <= 2 for n in needs)
    return value - 3.0 - 0.3 * (card - top) - (2.0 if near else 0.0)


def _moves(observation: Observation, steps: Sequence[Step]) -> list[Move]:
    legal = observation.legal_moves
    head = next((m for m in legal if tuple(m) == steps[0]), None)
    if head is None:  # cannot happen with a correct generator; never send an illegal move
        return [legal[0]]
    return [head] + [make_move(*step) for step in steps[1:]]


def tactician_plan(observation: Observation, weights: dict[str, float] | None = None) -> list[Move]:
    """The tactician's plan for this decision: the best sequence up to its first revealing
    move, or the whole turn with its discard; the first move is from ``legal_moves``."""
    plans = Search(observation, weights).finish(complete=False)
    return _moves(observation, plans[0].steps)


def tactician_candidates(observation: Observation, count: int) -> list[tuple[float, list[Move]]]:
    """Up to ``count`` best plans with distinct first moves, best first, as (value, moves):
    :func:`spite_sdk.planning.candidate_plans` for the tactician's evaluation."""
    chosen: list[tuple[float, list[Move]]] = []
    firsts: set[Step] = set()
    for plan in Search(observation).finish(complete=True):
        if plan.steps[0] in firsts:
            continue
        firsts.add(plan.steps[0])
        chosen.append((plan.value, _moves(observation, plan.steps)))
        if len(chosen) >= count:
            break
    return chosen
