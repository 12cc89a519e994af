"""The planner sample bot: searches every sequence of plays this turn, then discards by a
documented evaluation (``spite_sdk.planning``; the algorithm is in docs/bots.md).

Run by the referee (``spite play planner naive``) or by hand::

    SPITE_ADDRESS=localhost:50051 SPITE_TOKEN=... python bot.py

Each decision is sent as a plan: the turn's best sequence up to its first move that
reveals something (a stock card turning up, a refill), or the whole turn with its
discard. The referee plays the plan up to that move and asks again. It needs only the
SDK (the planner works on the SDK's observation), and it is deterministic.
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation
from spite_sdk.planning import plan_turn


class PlannerBot(Bot):
    name = "planner"
    version = "1.0.0"

    def decide(self, observation: Observation) -> list[Move]:
        return plan_turn(observation)


if __name__ == "__main__":
    PlannerBot().run()
