"""The random sample bot: a uniformly random legal move.

Its choices are reproducible: the SDK's ``Bot.rng`` is ``random.Random(f"{seed}:{game}")``
with ``seed`` from ``SPITE_BOT_SEED`` (default 0), so an in-process run with the same
seed makes the same choices.
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation, policies


class RandomBot(Bot):
    name = "random"
    version = "1.0.0"

    def decide(self, observation: Observation) -> Move:
        return policies.random_move(observation, self.rng)


if __name__ == "__main__":
    RandomBot().run()
