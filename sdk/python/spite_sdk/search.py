"""Determinized search over the tactician's candidates: the searcher sample bot's decision.

Perfect-information Monte Carlo with the tactician as prior and as rollout policy:

1. The tactician (:mod:`spite_sdk.tactics`) lists the turn's best plans with distinct first
   moves (up to :data:`CANDIDATES`), then its own best plan's plays ending in its next best
   discards (up to :data:`DISCARDS`: candidates that differ only in the discard); plans more
   than :data:`GATE` points of its evaluation below its first choice are dropped. The first
   choice is the answer outright when it plays the stock card, wins, or no other candidate
   is left: about half the decisions, and none of them is worth a rollout.
2. Otherwise, sample after sample, it deals a world consistent with the observation
   (``spite_engine.determinize``: the other hands, the cards under every stock top, the draw
   pile's order, from the cards it has not seen, so no hidden card can reach the search) and
   plays every candidate in that same world (common random numbers): the candidate as the
   referee plays a plan, the rest of the turn and the next :data:`HORIZON` turns by the
   tactician for every seat. The engine plays the rollouts, so everything the rules do is in
   them: a completed pile refilling an empty hand (rules v2), reshuffles, the stalemate rule.
3. A rollout scores the position it stops in by the fitted chance that the searching seat's
   side wins (:mod:`spite_sdk.value`, version 4: a logistic model of tactician self-play over
   both stocks, how open each stock top is, wilds and discard piles), as ``WIN`` times twice
   the chance less one, and a finished game ``WIN`` for a win (minus for a loss). A rule set
   without a fitted value (and version 3, ``value=None``) scores its stock cards played minus
   the opponents' (per opponent), ``WIN`` for a win, and :data:`OPEN_TOP` for the position it
   stops in (the seat to move there can play its stock top at once: plus for the searching
   side, minus for a rival). Each candidate is compared with the tactician's first choice
   *on the same worlds*: it replaces it only when the mean of the paired differences is above
   :data:`MARGIN` and above :data:`Z` standard errors, so noise does not overrule the prior
   (the sampler's fixed margin overruled it on a third of its decisions and lost by it).

An experiment's options: ``weights`` change the tactician's for the searching seat (its
candidates and its own turns in the rollouts); ``apprentice`` (:mod:`spite_sdk.apprentice`)
orders the candidates, its first becoming the choice the search must beat, and (with
``apprentice_rollouts``) plays the searching seat's own turns in the rollouts. Neither beat
version 4 (docs/bots.md, "Expert iteration, round one"), so the sample bot uses neither.

Budget. ``rollouts`` per searched decision is fixed in advance (a pure function of the
observation and the bot's seeded ``rng``: the same seed gives the same games); a clock
(``clock``, ``budget_ms``, and at most ``deadline_share`` of the time left to the
referee's deadline) stops the search early if the machine is slower than that count
assumes, and then whole samples only are used.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Callable, Mapping

from spite_engine import GameState, Move, Observation, RuleSet, observe_lazy
from spite_engine.determinize import determinize

from .apprentice import CANDIDATES, DISCARDS, GATE, Apprentice, candidates
from .tactics import tactician_plan
from .value import value_for, win_chance

HORIZON = 2
"""Turns played after the searching seat's own turn (2: the opponent's reply, then its own
next turn, where a refilled hand or an opened stock card shows)."""
WIN = 20.0
"""A rollout's score for a win (a loss scores minus this), in stock cards."""
OPEN_TOP = 0.5
"""A rollout's score for the position it stops in: the seat to move there can play its stock
top at once (a natural card some centre pile needs, or a wild): plus this if it is the
searching seat's side, minus if a rival's (in stock cards)."""
MARGIN = 0.1
"""The least mean gain (stock cards) over the tactician's choice that overrules it."""
Z = 1.5
"""...and the gain must be this many standard errors above zero (paired samples)."""
MIN_SAMPLES = 6
"""Fewer complete samples than this never overrule the tactician."""
ROLLOUTS = 160
"""Rollouts per searched decision by default (40 samples of 4 candidates)."""
DEADLINE_SHARE = 0.5
"""At most this share of the time left before the referee's deadline is spent."""


def apply_plan(state: GameState, moves: list[Move], seat: int) -> None:
    """Play ``moves`` as the referee plays a plan: up to the first one that reveals something
    to ``seat`` (its draw, its stock's next card), ends the turn or ends the game."""
    for move in moves:
        start = len(state.log)
        state.apply(move)
        if state.news_for(seat, start):
            return


def play_turns(state: GameState, turn_ends: int,
               policy: Callable[[Observation], list[Move]] = tactician_plan) -> None:
    """Play on with ``policy`` for every seat until ``turn_ends`` turns have ended."""
    ends = 0
    while state.outcome is None and ends < turn_ends:
        seat = state.to_move
        apply_plan(state, policy(observe_lazy(state, seat)), seat)  # let go before apply: see observe_lazy
        if state.to_move != seat:
            ends += 1


@dataclass
class Stats:
    """What the search did, over the decisions so far (for benchmarks and logs)."""

    decisions: int = 0
    searched: int = 0
    """Decisions that ran rollouts."""
    overrides: int = 0
    """Searched decisions that chose another plan than the first candidate (the tactician's,
    or the apprentice's)."""
    rollouts: int = 0
    cut_by_clock: int = 0
    """Searched decisions the clock stopped before their rollout count."""


class Searcher:
    """The decision procedure (see the module docstring), usable in process.

    ``rollouts``: the count per searched decision (``None``: :data:`ROLLOUTS`). ``budget_ms``
    and ``clock`` bound it in time (``budget_ms`` None: no clock at all, for reproducible
    benchmarks on any machine). ``worlds`` replaces the sampled worlds (see :attr:`worlds`)."""

    def __init__(self, *, rollouts: int | None = None, budget_ms: float | None = None,
                 clock: Callable[[], float] = time.monotonic, horizon: int = HORIZON,
                 candidates: int = CANDIDATES, discards: int = DISCARDS, margin: float = MARGIN, z: float = Z,
                 deadline_share: float = DEADLINE_SHARE, gate: float = GATE,
                 worlds: Callable[[Observation, random.Random], GameState] | None = None,
                 value: Callable[[RuleSet], Callable[[GameState], float] | None] | None = value_for,
                 weights: Mapping[str, float] | None = None,
                 apprentice: Callable[[RuleSet], Apprentice | None] | None = None,
                 apprentice_rollouts: bool = True) -> None:
        self.rollouts = ROLLOUTS if rollouts is None else rollouts
        self.budget = None if budget_ms is None else budget_ms / 1000
        self.clock = clock
        self.horizon = horizon
        self.count = candidates
        self.discards = discards
        self.margin = margin
        self.z = z
        self.deadline_share = deadline_share
        self.gate = gate
        self.worlds = worlds
        """Deals the sampled worlds (None: ``determinize``); bench/bot_strength.py's two bounds
        pass the true state (``searcher-oracle``) or it with the rest re-dealt (``searcher-hands``)."""
        self.value = value
        """Gives, per rule set, what scores a rollout's last position (version 4:
        :func:`spite_sdk.value.value_for`, the chance that the seat to move wins); None, or None
        for the rule set: :func:`_score`'s count of stock cards (version 3)."""
        self.weights = weights
        """The tactician's weights for the searching seat's candidates and its own turns in
        the rollouts (None: :data:`spite_sdk.tactics.WEIGHTS`); the other seats' turns are
        always the stock tactician's."""
        self.apprentice = apprentice
        """Gives, per rule set, the apprentice (:mod:`spite_sdk.apprentice`) whose order of the
        candidates is the default choice and which plays the searching seat's own turns in the
        rollouts (None, or None for the rule set: the tactician's, as ``weights`` set it)."""
        self.apprentice_rollouts = apprentice_rollouts
        """False: the apprentice orders the candidates only; the rollouts stay the tactician's."""
        self.stats = Stats()
        self.last: tuple[list[tuple[float, list[Move]]], list[list[float]]] | None = None
        """The last searched decision's candidates as (the tactician's value, moves), the
        default choice first (the tactician's, or the apprentice's), and per candidate its
        rollouts' scores less the first's, one per sample (None: the last decision was not
        searched); for benchmarks that learn from the search (``bench/expert.py``)."""

    def decide(self, observation: Observation, rng: random.Random, deadline: float | None = None) -> list[Move]:
        """The plan for this decision; ``deadline`` is a ``clock()`` value the answer must beat."""
        started = self.clock() if self.budget is not None or deadline is not None else 0.0
        self.stats.decisions += 1
        self.last = None
        found, settled = candidates(observation, self.count, self.discards, self.gate, self.weights)
        if settled:
            return found[0][1]
        apprentice = None if self.apprentice is None else self.apprentice(observation.rules)
        if apprentice is not None:
            found = apprentice.order(observation, found)
        stop = None
        if self.budget is not None:
            stop = started + self.budget
        if deadline is not None:
            limit = started + self.deadline_share * (deadline - started)
            stop = limit if stop is None else min(stop, limit)
        self.stats.searched += 1
        rules = observation.rules
        seat = observation.seat
        mine = rules.stock_of(seat)
        others = [i for i in range(rules.stocks) if i != mine]  # with partners, stocks are the teams'
        start_counts = [s.count for s in observation.stocks]
        value = None if self.value is None else self.value(rules)
        weights = self.weights
        player = apprentice if self.apprentice_rollouts else None

        def policy(view: Observation) -> list[Move]:
            if view.seat != seat:
                return tactician_plan(view)
            return player(view) if player is not None else tactician_plan(view, weights)

        per_sample = len(found)
        samples = max(1, self.rollouts // per_sample)
        diffs: list[list[float]] = [[] for _ in found]
        slowest = 0.0
        for _ in range(samples):
            world = (determinize(observation, rules, rng, rng.randrange(1 << 62)) if self.worlds is None
                     else self.worlds(observation, rng))
            scores: list[float] = []
            for _, moves in found:
                if stop is not None:
                    now = self.clock()
                    if now + slowest > stop:
                        break
                state = world.clone()
                apply_plan(state, moves, seat)
                if state.to_move == seat and state.outcome is None:
                    play_turns(state, 1, policy)
                play_turns(state, self.horizon, policy)
                scores.append(_score(state, seat, mine, others, start_counts) if value is None
                              else _valued(state, seat, value))
                self.stats.rollouts += 1
                if stop is not None:
                    slowest = max(slowest, self.clock() - now)
            if len(scores) < per_sample:
                self.stats.cut_by_clock += 1
                break
            for index, score in enumerate(scores):
                diffs[index].append(score - scores[0])
        choice = 0
        best_gain = 0.0
        for index in range(1, len(found)):
            gain = _confident_gain(diffs[index], self.margin, self.z)
            if gain > best_gain:
                choice, best_gain = index, gain
        self.stats.overrides += choice != 0
        self.last = (found, diffs)
        return found[choice][1]


def _confident_gain(diffs: list[float], margin: float, z: float) -> float:
    """The mean of ``diffs`` if it is above ``margin`` and ``z`` standard errors, else 0."""
    n = len(diffs)
    if n < MIN_SAMPLES:
        return 0.0
    mean = sum(diffs) / n
    if mean <= margin:
        return 0.0
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if mean <= z * math.sqrt(variance / n):
        return 0.0
    return mean


def _valued(state: GameState, seat: int, value: Callable[[GameState], float]) -> float:
    """A rollout's value for ``seat`` from a position value: ``WIN`` for a sure win, minus for
    a sure loss (so :data:`MARGIN` is a 400th of a game), and a game over scores as before."""
    outcome = state.outcome
    if outcome is not None:
        if not outcome.winners:
            return 0.0
        return WIN if seat in outcome.winners else -WIN
    return WIN * (2.0 * win_chance(state, seat, value) - 1.0)


def _score(state: GameState, seat: int, mine: int, others: list[int], start_counts: list[int]) -> float:
    """A rollout's value for ``seat``: stock cards played, minus the opponents' on average."""
    outcome = state.outcome
    if outcome is not None and outcome.winners:
        return WIN if seat in outcome.winners else -WIN
    played = start_counts[mine] - len(state.stocks[mine])
    theirs = sum(start_counts[i] - len(state.stocks[i]) for i in others) / len(others)
    score = float(played - theirs)
    if outcome is None:
        to_move = state.to_move
        stock = state.stocks[state.rules.stock_of(to_move)]
        if stock:
            card = stock[-1]
            if card in state.rules.wild_ranks or any(len(pile) + 1 == card for pile in state.centre):
                score += -OPEN_TOP if state.rules.stock_of(to_move) in others else OPEN_TOP
    return score
