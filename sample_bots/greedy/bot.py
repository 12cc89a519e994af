"""The greedy sample bot: stock first, then natural cards, then the discard that blocks least.

Run by the referee (``spite play greedy naive``) or by hand::

    SPITE_ADDRESS=localhost:50051 SPITE_TOKEN=... python bot.py

With ``SPITE_GREEDY_PLAN=1`` it sends each turn's greedy moves as one plan (played
up to the first move that reveals something: a stock card, a refill, the turn's
end) instead of one move per round trip: the same games, fewer round trips. The
plan is worked out on a determinized copy of the table (``spite_engine``'s
simulator), so that mode needs the Spite Arena package next to the SDK.
"""

from __future__ import annotations

import os
import random

from spite_sdk import Bot, Move, Observation, policies

PLAN = os.environ.get("SPITE_GREEDY_PLAN") == "1"


def greedy_plan(observation: Observation) -> list[Move]:
    """The greedy moves of this turn that reveal nothing new, then the first one that does."""
    from spite_engine import observe as engine_observe
    from spite_engine import parse_rules
    from spite_engine.determinize import determinize

    world = determinize(observation, parse_rules(observation.rules.name), random.Random(0))
    seat = observation.seat
    plan: list[Move] = []
    while len(plan) < 32:
        move = policies.greedy_move(engine_observe(world, seat))
        plan.append(Move(int(move.kind), int(move.source), move.index, move.card, move.target))
        reveals = (move.kind != policies.PLAY or move.source == policies.STOCK
                   or (move.source == policies.HAND and len(world.hands[seat]) == 1))
        if reveals:
            break
        world.apply(move)
        if world.outcome is not None or world.to_move != seat:
            break
    return plan


class GreedyBot(Bot):
    name = "greedy"
    version = "1.0.0"

    def decide(self, observation: Observation) -> Move | list[Move]:
        return greedy_plan(observation) if PLAN else policies.greedy_move(observation)


if __name__ == "__main__":
    GreedyBot().run()
