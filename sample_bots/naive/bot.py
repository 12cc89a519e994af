"""The naive sample bot, the published baseline: play any legal card (at random),
discard only when it must.

Its choices are reproducible: the SDK's ``Bot.rng`` is ``random.Random(f"{seed}:{game}")``
with ``seed`` from ``SPITE_BOT_SEED`` (default 0), so an in-process run with the same
seed makes the same choices.
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation, policies


class NaiveBot(Bot):
    name = "naive"
    version = "1.0.0"

    def decide(self, observation: Observation) -> Move:
        return policies.naive_move(observation, self.rng)


if __name__ == "__main__":
    NaiveBot().run()
