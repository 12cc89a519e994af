"""The random sample bot: a uniformly random legal move.

Its choices are reproducible: game ``g`` draws from ``random.Random(f"{seed}:{g}")``
where ``seed`` is ``SPITE_BOT_SEED`` (default 0), so an in-process run with the same
seed makes the same choices.
"""

from __future__ import annotations

import os
import random

from spite_sdk import Bot, Move, Observation, policies


class RandomBot(Bot):
    name = "random"
    version = "1.0.0"

    def __init__(self, bot_seed: str | None = None) -> None:
        self.bot_seed = os.environ.get("SPITE_BOT_SEED", "0") if bot_seed is None else bot_seed
        self.rng = random.Random(f"{self.bot_seed}:0")

    def on_game_start(self, game_number: int, observation: Observation) -> None:
        self.rng = random.Random(f"{self.bot_seed}:{game_number}")

    def decide(self, observation: Observation) -> Move:
        return policies.random_move(observation, self.rng)


if __name__ == "__main__":
    RandomBot().run()
