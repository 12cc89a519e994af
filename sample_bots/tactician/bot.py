"""The tactician sample bot: the strongest Skip-Bo bot here (docs/bots.md).

The planner's whole-turn search (every sequence of plays this turn, then the discard) with
an evaluation measured against skipbot's best published heuristic (``h13-like``): what the
kept cards reach of its own stock card next turn, and which of the opponent's stock cards
a turn leaves open once the opponent's discard tops are counted (``spite_sdk.tactics``).

Each decision is sent as a plan, like the planner's: the best sequence up to its first move
that reveals something, or the whole turn with its discard. It needs only the SDK, and it
is deterministic.
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation
from spite_sdk.tactics import tactician_plan


class TacticianBot(Bot):
    name = "tactician"
    version = "1.0.0"

    def decide(self, observation: Observation) -> list[Move]:
        return tactician_plan(observation)


if __name__ == "__main__":
    TacticianBot().run()
