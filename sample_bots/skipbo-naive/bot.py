"""The skipbo-naive sample bot: skipbot's naive Skip-Bo baseline (``heuristic14``), the bot
published Skip-Bo results are measured against.

Stock card first whenever it plays, then a discard-pile top, then a hand card; discards
only when nothing plays, always onto the first discard pile (``spite_sdk.rivals``). Its
random choices (which hand card: skipbot takes the first in draw order) come from the
SDK's seeded ``Bot.rng``, so an in-process run with the same seed makes the same choices.
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation
from spite_sdk.rivals import skipbo_naive_move


class SkipboNaiveBot(Bot):
    name = "skipbo-naive"
    version = "1.0.0"

    def decide(self, observation: Observation) -> Move:
        return skipbo_naive_move(observation, self.rng)


if __name__ == "__main__":
    SkipboNaiveBot().run()
