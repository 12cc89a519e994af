"""Matches played in process, without a network: the reference that wire runs must match.

The policies here are the sample bots' own (``spite_sdk.policies``), seeded the way the
sample bots seed themselves (``random.Random(f"{bot_seed}:{game_number}")``), and each
sees only ``observe(state, seat)``. The same (rules, seed, bots) therefore gives the same
games in process and through the gRPC referee with real bot processes.
"""

from __future__ import annotations

import random
from typing import Callable, Sequence

from referee.core.match import MatchConfig
from spite_engine import GameState, Move, Observation, Outcome, observe
from spite_sdk import policies

Strategy = Callable[[Observation, random.Random], Move]

STRATEGIES: dict[str, Strategy] = {
    "random": policies.random_move,
    "greedy": lambda view, rng: policies.greedy_move(view),
    "naive": policies.naive_move,
}


def play_game(state: GameState, bots: Sequence[Strategy], rngs: Sequence[random.Random]) -> Outcome:
    """Play ``state`` to the end with one policy per seat (each seeing only its observation)."""
    while state.outcome is None:
        seat = state.to_move
        state.apply(bots[seat](observe(state, seat), rngs[seat]))
    return state.outcome


def play_match(config: MatchConfig, bot_names: Sequence[str], bot_seed: int = 0) -> list[Outcome]:
    """The outcomes of ``config``'s games with the named policies, one per seat."""
    bots = [STRATEGIES[name] for name in bot_names]
    outcomes: list[Outcome] = []
    points = [0] * config.rules.players
    for number in range(config.games):
        state = GameState.new(config.rules, config.game_seed(number))
        rngs = [random.Random(f"{bot_seed}:{number}") for _ in bots]
        outcome = play_game(state, bots, rngs)
        outcomes.append(outcome)
        points = [p + s for p, s in zip(points, outcome.scores)]
        if config.rules.match_points and max(points) >= config.rules.match_points:
            break
    return outcomes
