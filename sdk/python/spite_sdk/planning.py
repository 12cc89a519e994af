"""The planner: search every sequence of plays open this turn, then pick the best discard.

A pure function of an observation, like :mod:`spite_sdk.policies`: it reads only fields that
the SDK's :class:`~spite_sdk.Observation` and the engine's ``spite_engine.Observation``
share, so the same code runs in process (benchmarks, the sampler's rollouts) and as the
``sample_bots/planner`` process, with the same choices.

The search (:func:`plan_turn`)
    A depth-first search over the plays this turn allows: any hand card, the stock top, the
    top of any own discard pile, onto any centre pile it fits (a natural card onto the first
    pile needing its rank, a wild onto each distinct pile height: a wild's only effect is the
    height it raises). It keeps a transposition set on (centre pile heights as a multiset,
    hand, discard pile depths, whether there is anything to draw): everything the evaluation
    reads is a function of that key, so the search is exact. A branch ends where the next
    card is hidden: at a stock play (the next stock card turns up) and at a play that
    empties the hand while there is something to draw (five new cards are drawn). With
    nothing to draw (the draw pile and the set-aside pile empty) an emptied hand stays empty
    and the turn goes on from the stock and the discard piles; a pile completed then brings
    its cards back to be drawn (rules version 2: with an empty hand, at once, so that play
    ends the branch and earns ``empty_hand``). Every node is also a place to stop and discard.

The evaluation (weights in :data:`WEIGHTS`), a sum:
    * ``stock``: a stock card played (the whole objective of the game) dominates the rest,
      and emptying the stock wins outright;
    * ``empty_hand``: a play that empties the hand draws five fresh cards mid-turn;
    * ``hand_card`` / ``pile_card``: each natural hand card and each discard-pile card played
      (a smaller hand draws more next turn; a played discard top uncovers the card below);
    * ``wild``: each wild spent, a cost (wilds are what free stock cards);
    * ``danger``: for each opponent's stock top that is natural, by how many ranks the
      closest centre pile is short of it after the turn: 0 means the opponent plays it at
      once ("don't open the opponent's stock card"), 1 or 2 a smaller cost;
    * the discard (:func:`discard_value`): wilds are kept; a card goes preferably onto a pile
      whose top is the same rank or one above (piles stay ordered, descending to the top,
      so they play out in a run); a new pile is opened with a high card, and the last empty
      pile is kept if possible; burying a lower card is a cost, larger when the buried card
      is within two ranks of what a centre pile needs.

The plan sent is the best sequence up to its first revealing move (the referee stops a
plan there anyway and asks again), or the whole turn with its discard.

With nothing left to draw (the draw pile and the set-aside pile empty), a turn that plays
nothing and passes (legal only when the hand cannot be discarded: Aces, or nothing) leaves
the table exactly as it was: the seat's next decision sees the same position and would
choose the same again, and when no other seat can play either the game repeats until the
turn cap (docs/rules.md, decision 6: a seat that could play never counts toward a
stalemate). So then a bare pass is not a candidate while any play is open (:func:`search`):
the best plan that plays is chosen instead, even at a cost in the evaluation. Each such turn
moves a card to the centre, so the game goes on until a completed pile brings cards to draw
or nobody can play (a stalemate, which the rules end).
"""

from __future__ import annotations

from typing import Final, Mapping, Protocol, Sequence

from spite_engine import Move, Observation, make_move

PLAY, DISCARD, PASS = 0, 1, 2
HAND, STOCK, DISCARD_PILE = 0, 1, 2
ACE: Final = 1
QUEEN: Final = 12

WEIGHTS: Final[dict[str, float]] = {
    "stock": 1000.0,
    "win": 1_000_000.0,
    "empty_hand": 15.0,
    "hand_card": 2.0,
    "pile_card": 2.5,
    "wild": 7.0,
    "danger0": 30.0,
    "danger1": 8.0,
    "danger2": 3.0,
    "discard_wild": 20.0,
}
"""The evaluation's weights (see the module docstring)."""

DISCARD_MAX: Final = 5.0
"""The most a discard can add (:func:`discard_value` of a card onto the rank above it)."""

NODE_LIMIT: Final = 20_000
"""The search stops expanding after this many positions (never reached in practice: a
five-card hand with four discard piles gives a few hundred)."""

# A step of a sequence: (kind, source, index, card, target).
Step = tuple[int, int, int, int, int]


class TurnPlan:
    """One candidate: the steps (plays, then a discard or pass unless it ends in a reveal)
    and its evaluation."""

    __slots__ = ("steps", "value", "reveals")

    def __init__(self, steps: tuple[Step, ...], value: float, reveals: bool) -> None:
        self.steps = steps
        self.value = value
        self.reveals = reveals

    def __repr__(self) -> str:
        return f"TurnPlan({self.steps!r}, {self.value:.1f}, reveals={self.reveals})"


class DangerModel(Protocol):
    """What leaving the centre piles at some heights costs: the evaluation's one term that
    looks at the rivals. Called with the heights sorted (the search's transposition key)."""

    def __call__(self, heights: tuple[int, ...]) -> float: ...


class StockTopDanger:
    """The planner's danger: per rival's natural stock top, by how many ranks the closest
    centre pile below it is short (0, 1 or 2 ranks: ``danger0``..``danger2`` of the weights)."""

    def __init__(self, observation: Observation, weights: Mapping[str, float] = WEIGHTS) -> None:
        rules = observation.rules
        wild = rules.wild_ranks
        mine = rules.stock_of(observation.seat)
        team = rules.team_of(observation.seat)
        self.costs = {0: weights["danger0"], 1: weights["danger1"], 2: weights["danger2"]}
        self.threats: tuple[int, ...] = tuple(
            s.visible[0] for i, s in enumerate(observation.stocks)
            if i != mine and s.visible and s.visible[0] not in wild and (not rules.partners or i != team))

    def __call__(self, heights: tuple[int, ...]) -> float:
        cost = 0.0
        for threat in self.threats:
            gap = 99
            for h in heights:
                if h < threat and threat - 1 - h < gap:
                    gap = threat - 1 - h
            cost += self.costs.get(gap, 0.0)
        return cost


class Search:
    """The search of one decision (see the module docstring), for an evaluation: its
    ``weights`` (:data:`WEIGHTS` by default) and its :class:`DangerModel` (the planner's
    :class:`StockTopDanger` by default). ``spite_sdk.tactics`` searches with its own."""

    def __init__(self, observation: Observation, weights: Mapping[str, float] = WEIGHTS,
                 danger: DangerModel | None = None) -> None:
        self.w = weights
        self.danger_model: DangerModel = danger or StockTopDanger(observation, weights)
        rules = observation.rules
        seat = observation.seat
        self.wild: frozenset[int] = frozenset(rules.wild_ranks)
        self.no_block: bool = rules.no_block
        self.discard_aces: bool = rules.discard_aces
        self.draw_game: bool = rules.draw_pile_exhausted == "draw-game"
        self.piles: tuple[tuple[int, ...], ...] = tuple(observation.discard_piles[seat])
        stock_index = rules.stock_of(seat)
        mine = observation.stocks[stock_index]
        self.stock_top: int | None = mine.visible[0] if mine.visible else None
        self.stock_count: int = mine.count
        self.hand0: tuple[int, ...] = tuple(sorted(observation.hand))
        self.seen: set[object] = set()
        self.results: list[TurnPlan] = []
        self.stops: list[tuple[float, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[Step, ...]]] = []
        self.danger_memo: dict[tuple[int, ...], float] = {}
        self.nodes = 0
        heights = tuple(len(p) for p in observation.centre_piles)
        drawable = bool(observation.draw_pile_count or observation.set_aside_count)
        self.run(heights, self.hand0, tuple(len(p) for p in self.piles), (), 0.0, drawable)

    # -- evaluation ----------------------------------------------------------------------------

    def danger(self, heights: tuple[int, ...]) -> float:
        """The danger model's cost of the centre piles' heights, memoised by their multiset."""
        key = tuple(sorted(heights))
        cost = self.danger_memo.get(key)
        if cost is None:
            cost = self.danger_memo[key] = self.danger_model(key)
        return cost

    def best_discards(self, heights: tuple[int, ...], hand: tuple[int, ...],
                      depths: tuple[int, ...], count: int = 1) -> list[tuple[Step, float]]:
        """The ``count`` best legal discards at the end of the turn, best first, with their
        values (pass, valued 0, when none is legal)."""
        wild = self.wild
        best: Step = (PASS, HAND, 0, 0, 0)
        best_value = -1e18
        others: list[tuple[float, Step]] = []
        needs = {h + 1 for h in heights}
        tops: list[int | None] = [self.piles[i][d - 1] if d else None for i, d in enumerate(depths)]
        empties = [i for i, d in enumerate(depths) if not d]
        targets = [i for i, d in enumerate(depths) if d] + empties[:1]
        for card in set(hand):
            if card == ACE and not self.discard_aces:
                continue
            if self.no_block and card not in wild and card in needs and card <= QUEEN:
                continue
            for target in targets:
                value = discard_value(card, tops[target], card in wild, len(empties), needs, self.w)
                step = (DISCARD, HAND, 0, card, target)
                if value > best_value:
                    if count > 1 and best[0] != PASS:
                        others.append((best_value, best))
                    best_value, best = value, step
                elif count > 1:
                    others.append((value, step))
        if best[0] == PASS:
            return [(best, 0.0)]
        chosen = [(best, best_value)]
        if count > 1:
            others.sort(key=lambda other: -other[0])
            chosen += [(step, value) for value, step in others[:count - 1]]
        return chosen

    def finish(self, complete: bool, discards: int = 1) -> list[TurnPlan]:
        """The plans, best first. Each place to stop gets its ``discards`` best discards; with
        ``complete`` False only those that could still be the best one (a discard is worth
        at most :data:`DISCARD_MAX`)."""
        results = self.results
        best = max((plan.value for plan in results), default=-1e18)
        self.stops.sort(key=lambda stop: -stop[0])
        for base, heights, hand, depths, path in self.stops:
            if not complete and base + DISCARD_MAX < best:
                break
            for discard, score in self.best_discards(heights, hand, depths, discards):
                value = base + score
                results.append(TurnPlan(path + (discard,), value, False))
                if value > best:
                    best = value
        results.sort(key=lambda plan: -plan.value)
        return results

    # -- search --------------------------------------------------------------------------------

    def run(self, heights: tuple[int, ...], hand: tuple[int, ...], depths: tuple[int, ...],
            path: tuple[Step, ...], gain: float, drawable: bool = True) -> None:
        """Visit a position: ``gain`` is the value of the plays that led to it; ``drawable``,
        whether there are cards to draw (a completed pile brings some)."""
        # The hot loop of every planner, tactician and searcher decision (a searcher's
        # rollouts are nearly all of it): weights, memos and places are read once per node.
        ordered = tuple(sorted(heights))
        key = (ordered, hand, depths, drawable)
        seen = self.seen
        if key in seen or self.nodes >= NODE_LIMIT:
            return
        seen.add(key)
        self.nodes += 1
        danger = self.danger
        cost = self.danger_memo.get(ordered)
        if cost is None:
            cost = danger(heights)
        self.stops.append((gain - cost, heights, hand, depths, path))
        wild = self.wild
        w = self.w
        results = self.results
        # Where each rank may go: natural -> the first pile needing it; wild -> one pile per height.
        places = _PLACES.get(heights)
        if places is None:
            places = _places(heights)
        first_at, everywhere = places

        stock = self.stock_top
        if stock is not None:
            is_wild = stock in wild
            spots = everywhere if is_wild else ([first_at[stock - 1]] if stock - 1 in first_at else [])
            for target in spots:
                new_heights = _raised(heights, target)
                value = gain + w["stock"] - (w["wild"] if is_wild else 0.0) - danger(new_heights)
                if self.stock_count == 1:
                    value += w["win"]
                elif not hand and heights[target] + 1 >= QUEEN:
                    value += w["empty_hand"]  # rules v2: the completed pile refills the hand
                results.append(TurnPlan(path + ((PLAY, STOCK, 0, stock, target),), value, True))
        previous = -1
        for index, card in enumerate(hand):
            if card == previous:
                continue
            previous = card
            is_wild = card in wild
            if is_wild:
                spots = everywhere
            elif card - 1 in first_at and card <= QUEEN:
                spots = [first_at[card - 1]]
            else:
                continue
            rest = hand[:index] + hand[index + 1:]
            step_gain = gain - w["wild"] if is_wild else gain + w["hand_card"]
            for target in spots:
                step = (PLAY, HAND, 0, card, target)
                new_heights = _raised(heights, target)
                # A completed pile is drawn from; under "draw-game" an empty hand with nothing
                # to draw ends the game, so the branch ends there as before.
                refills = drawable or heights[target] + 1 >= QUEEN or self.draw_game
                if not rest and refills:
                    value = step_gain + w["empty_hand"] - danger(new_heights)
                    results.append(TurnPlan(path + (step,), value, True))
                else:
                    self.run(new_heights, rest, depths, path + (step,), step_gain, refills)
        for pile, depth in enumerate(depths):
            if not depth:
                continue
            card = self.piles[pile][depth - 1]
            is_wild = card in wild
            if is_wild:
                spots = everywhere
            elif card - 1 in first_at and card <= QUEEN:
                spots = [first_at[card - 1]]
            else:
                continue
            new_depths = depths[:pile] + (depth - 1,) + depths[pile + 1:]
            step_gain = gain - w["wild"] if is_wild else gain + w["pile_card"]
            for target in spots:
                step = (PLAY, DISCARD_PILE, pile, card, target)
                new_heights = _raised(heights, target)
                completes = heights[target] + 1 >= QUEEN
                if not hand and completes:
                    # Rules v2: the completed pile's cards refill the empty hand at once.
                    value = step_gain + w["empty_hand"] - danger(new_heights)
                    results.append(TurnPlan(path + (step,), value, True))
                else:
                    self.run(new_heights, hand, new_depths, path + (step,), step_gain, drawable or completes)


_PLACES: dict[tuple[int, ...], tuple[dict[int, int], list[int]]] = {}
"""Memo of :func:`_places` (a pure function of a few small ints). A search meets many
heights (7,000 after twelve tactician games), at about 480 bytes an entry, so it starts again
at ``_PLACES_LIMIT`` (about 1 MB): a bot process kept warm for a day stays small (issue 24)."""
_PLACES_LIMIT = 1 << 11


def _places(heights: tuple[int, ...]) -> tuple[dict[int, int], list[int]]:
    """For centre piles of ``heights``: the first pile of each height (a natural card goes on
    the first pile needing it), and those piles in order (a wild goes on one of each height).
    The values are shared: callers must not change them."""
    first_at: dict[int, int] = {}
    for index, h in enumerate(heights):
        if h not in first_at:
            first_at[h] = index
    if len(_PLACES) >= _PLACES_LIMIT:
        _PLACES.clear()
    places = _PLACES[heights] = (first_at, list(first_at.values()))
    return places


def _raised(heights: tuple[int, ...], target: int) -> tuple[int, ...]:
    """The heights after one more card on pile ``target`` (a completed pile starts again)."""
    h = heights[target] + 1
    return heights[:target] + ((0 if h >= QUEEN else h),) + heights[target + 1:]


def discard_value(card: int, top: int | None, is_wild: bool, empty_piles: int, needs: set[int],
                  weights: Mapping[str, float] = WEIGHTS) -> float:
    """How good it is to discard ``card`` onto a pile whose top is ``top`` (``None``: empty).

    ``needs`` are the ranks the centre piles need; ``empty_piles`` how many discard piles are
    empty. Higher is better; see the module docstring for the reasoning.
    """
    value = -weights["discard_wild"] if is_wild else 0.0
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


def search(observation: Observation, complete: bool = True, weights: Mapping[str, float] = WEIGHTS,
           danger: DangerModel | None = None, discards: int = 1) -> list[TurnPlan]:
    """The sequences the search found, best first: every one with ``complete``, else at
    least the best one; each place to stop with its ``discards`` best discards. With
    nothing left to draw, a bare pass is left out while any play is open (see the module
    docstring: it would repeat the position)."""
    searched = Search(observation, weights, danger)
    if observation.draw_pile_count or observation.set_aside_count:
        return searched.finish(complete, discards)
    plans = searched.finish(True, discards)
    moving = [plan for plan in plans if plan.steps[0][0] != PASS]
    return moving or plans


def _moves(observation: Observation, steps: Sequence[Step]) -> list[Move]:
    legal = observation.legal_moves
    first = steps[0]
    head = next((m for m in legal if tuple(m) == first), None)
    if head is None:  # cannot happen with a correct generator; never send an illegal move
        return [legal[0]]
    return [head] + [make_move(*step) for step in steps[1:]]


def plan_turn(observation: Observation, weights: Mapping[str, float] = WEIGHTS,
              danger: DangerModel | None = None) -> list[Move]:
    """The planner's plan for this decision: the best sequence's moves, the first one taken
    from ``observation.legal_moves`` (the rest are of the same type)."""
    plans = search(observation, False, weights, danger)
    return _moves(observation, plans[0].steps)


def planner_move(observation: Observation) -> Move:
    """The first move of :func:`plan_turn` (for callers that play one move per decision)."""
    return plan_turn(observation)[0]


def candidate_plans(observation: Observation, count: int, weights: Mapping[str, float] = WEIGHTS,
                    danger: DangerModel | None = None, discards: int = 0) -> list[tuple[float, list[Move]]]:
    """Up to ``count`` best plans with distinct first moves, best first, as (value, moves);
    then up to ``discards`` more: the best plan's plays with another discard (the next best
    ones, when it ends in a discard), best first."""
    chosen: list[tuple[float, list[Move]]] = []
    firsts: set[Step] = set()
    plans = search(observation, True, weights, danger, 1 + discards)
    taken: set[tuple[Step, ...]] = set()
    for plan in plans:
        if plan.steps[0] in firsts:
            continue
        firsts.add(plan.steps[0])
        taken.add(plan.steps)
        chosen.append((plan.value, _moves(observation, plan.steps)))
        if len(chosen) >= count:
            break
    best = plans[0].steps if plans else ()
    if discards and best and best[-1][0] == DISCARD:
        others = 0
        for plan in plans[1:]:
            steps = plan.steps
            if (len(steps) == len(best) and steps[:-1] == best[:-1] and steps[-1][0] == DISCARD
                    and steps not in taken):
                chosen.append((plan.value, _moves(observation, steps)))
                others += 1
                if others >= discards:
                    break
    return chosen
