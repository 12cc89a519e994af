"""The sampler sample bot: the planner's best few turns, compared by sampling what it cannot see.

Perfect-information Monte Carlo (PIMC) over the planner's candidates (docs/bots.md):

1. ``spite_sdk.planning`` lists the turn's candidate plans, best first, with distinct first
   moves. When one is clearly best (it plays the stock card, or it leads the next by more
   than ``GATE`` points of the planner's evaluation) that plan is sent at once.
2. Otherwise, sample after sample, it deals a world consistent with its observation
   (``spite_engine.determinize``: opponents' hands, the cards under the stock tops and the
   draw pile order dealt from the unseen cards) and plays each candidate in that same world
   (common random numbers): the candidate's moves as the referee would play them, the rest
   of the turn and the next ``players`` turns by the planner for every seat.
3. A rollout scores its own stock cards played minus the opponents' (per opponent), and
   ``WIN`` for a win (minus for a loss). The candidate with the best mean wins; ties keep
   the planner's order.

Time control, on its own clock: sampling stops when the next rollout would not fit in the
budget (an unfinished sample is dropped) (``SPITE_SAMPLER_MS``, default 100 ms, and never more than 40% of the time
left to the referee's deadline); the planner's choice is the answer if no sample fits. With
``SPITE_SAMPLER_SAMPLES=N`` it draws exactly N samples instead (reproducible, for benches).

``SPITE_SAMPLER_BASE`` says whose candidates it compares and whose plans play every seat in
the rollouts: ``planner`` (the default in process) or ``tactician`` (``spite_sdk.tactics``,
what its bot.toml sets: the stronger base, docs/bots.md).

It imports the engine (``spite_engine``) for determinization and simulation, so it runs
in this repository's venv, where the referee runs (bot.toml says so).
"""

from __future__ import annotations

import os
import random
import time
from typing import Callable

from spite_engine import GameState, observe
from spite_engine.determinize import determinize
from spite_sdk import Bot, ConfigError, Move, Observation, env_number
from spite_sdk.planning import STOCK, WEIGHTS, candidate_plans, plan_turn
from spite_sdk.search import apply_plan
from spite_sdk.tactics import tactician_candidates, tactician_plan

CANDIDATES = 4
"""How many of the planner's plans are compared."""
GATE = 25.0
"""Sample only when the planner's second plan is within this many points of its first."""
WIN = 20.0
"""A rollout's score for a win (a loss scores minus this)."""
BUDGET_MS = 100.0
"""Default thinking time per sampled decision."""
MARGIN = 0.25
"""A candidate replaces the planner's first choice only if its mean beats it by this much
(in stock cards): the planner's evaluation is the prior, the samples the evidence."""
DEADLINE_SHARE = 0.4
"""At most this share of the time left before the referee's deadline is spent."""

Candidates = Callable[[Observation, int], list[tuple[float, list[Move]]]]
Strategy = Callable[[Observation], list[Move]]
BASES: dict[str, tuple[Candidates, Strategy]] = {
    "planner": (candidate_plans, plan_turn),
    "tactician": (tactician_candidates, tactician_plan),
}
"""Whose candidates it compares and whose plans play the rollouts (``SPITE_SAMPLER_BASE``)."""

def finish_turns(state: GameState, turn_ends: int, policy: Strategy = plan_turn) -> None:
    """Play on with ``policy`` (the planner) for every seat until ``turn_ends`` turns have ended."""
    ends = 0
    while state.outcome is None and ends < turn_ends:
        seat = state.to_move
        apply_plan(state, policy(observe(state, seat)), seat)
        if state.to_move != seat:
            ends += 1


class Sampler:
    """The sampler's decision procedure (see the module docstring), usable in process."""

    def __init__(self, *, budget_ms: float | None = BUDGET_MS, samples: int | None = None,
                 clock: Callable[[], float] = time.monotonic, horizon: int | None = None,
                 margin: float = MARGIN, base: str = "planner") -> None:
        self.candidates, self.policy = BASES[base]
        self.horizon = horizon
        self.margin = margin
        self.budget = None if budget_ms is None else budget_ms / 1000
        self.samples = samples
        self.clock = clock
        self.sampled_decisions = 0
        """Decisions that drew samples (the others were the planner's choice outright)."""
        self.overrides = 0
        """Sampled decisions that chose another plan than the planner's first."""
        self.rollouts = 0

    def decide(self, observation: Observation, rng: random.Random, deadline: float | None = None) -> list[Move]:
        """The plan for this decision; ``deadline`` is a ``clock()`` value the answer must beat."""
        started = self.clock()
        candidates = self.candidates(observation, CANDIDATES)
        best = candidates[0][1]
        if (len(candidates) == 1 or any(m.source == STOCK and m.kind == 0 for m in best)
                or candidates[0][0] - candidates[1][0] > GATE or candidates[0][0] >= WEIGHTS["win"]):
            return best
        stop = None
        if self.samples is None:
            stop = started + (self.budget or 0.0)
            if deadline is not None:
                stop = min(stop, started + DEADLINE_SHARE * (deadline - started))
        self.sampled_decisions += 1
        rules = observation.rules  # the engine's own rule set: the SDK hands over the engine's values
        seat = observation.seat
        my_stock = rules.stock_of(seat)
        others = [i for i in range(rules.stocks) if i != my_stock]
        mine0 = observation.stocks[my_stock].count
        theirs0 = [observation.stocks[i].count for i in others]
        totals = [0.0] * len(candidates)
        drawn = 0
        slowest = 0.0  # the longest rollout so far: the next one is assumed to take as long
        while self.samples is None or drawn < self.samples:
            world = determinize(observation, rules, rng, rng.randrange(1 << 31))
            scores: list[float] = []
            for _, moves in candidates:
                if stop is not None and self.clock() + slowest > stop:
                    break  # out of time: this sample is incomplete and is dropped
                rollout_start = self.clock()
                state = world.clone()
                apply_plan(state, moves, seat)
                if state.to_move == seat and state.outcome is None:
                    finish_turns(state, 1, self.policy)
                finish_turns(state, rules.players if self.horizon is None else self.horizon, self.policy)
                scores.append(self.score(state, seat, my_stock, others, mine0, theirs0))
                self.rollouts += 1
                slowest = max(slowest, self.clock() - rollout_start)
            if len(scores) < len(candidates):
                break
            totals = [t + s for t, s in zip(totals, scores)]
            drawn += 1
        if not drawn:
            return best
        choice = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        if (totals[choice] - totals[0]) / drawn < self.margin:
            choice = 0
        self.overrides += choice != 0
        return candidates[choice][1]

    @staticmethod
    def score(state: GameState, seat: int, my_stock: int, others: list[int], mine0: int,
              theirs0: list[int]) -> float:
        """A rollout's value for ``seat``: stock cards played, minus the opponents' on average."""
        outcome = state.outcome
        if outcome is not None and outcome.winners:
            return WIN if seat in outcome.winners else -WIN
        mine = mine0 - len(state.stocks[my_stock])
        theirs = sum(t - len(state.stocks[i]) for t, i in zip(theirs0, others)) / len(others)
        return float(mine - theirs)


def _env_base() -> str:
    base = os.environ.get("SPITE_SAMPLER_BASE", "").strip() or "planner"
    if base not in BASES:
        raise ConfigError(f"SPITE_SAMPLER_BASE must be one of {', '.join(BASES)}, got {base!r}")
    return base


class SamplerBot(Bot):
    name = "sampler"
    version = "1.1.0"

    def __init__(self) -> None:
        samples = env_number("SPITE_SAMPLER_SAMPLES", 1, 1_000_000, whole=True)
        budget = env_number("SPITE_SAMPLER_MS", 1, 600_000)
        self.sampler = Sampler(budget_ms=BUDGET_MS if budget is None else budget,
                               samples=None if samples is None else int(samples),
                               base=_env_base())

    def decide(self, observation: Observation) -> list[Move]:
        deadline = self.decision.deadline if self.decision is not None else None
        return self.sampler.decide(observation, self.rng, deadline)


if __name__ == "__main__":
    SamplerBot.main()
