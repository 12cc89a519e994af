"""The greedy sample bot: stock first, then natural cards, then the discard that blocks least.

Run by the referee (``spite play greedy naive``) or by hand::

    SPITE_ADDRESS=localhost:50051 SPITE_TOKEN=... python bot.py
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation, policies


class GreedyBot(Bot):
    name = "greedy"
    version = "1.0.0"

    def decide(self, observation: Observation) -> Move:
        return policies.greedy_move(observation)


if __name__ == "__main__":
    GreedyBot().run()
