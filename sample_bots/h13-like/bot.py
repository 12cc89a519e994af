"""The h13-like sample bot: the ideas of skipbot's best published Skip-Bo heuristic
(``heuristic13``, "combo architect"), re-implemented from its description as a sparring
partner for the strong bots.

One move per decision: the shortest run of cards that frees the stock card; else a sequence
that plays the whole hand (discard tops helping) for an immediate refill; else the highest
natural card of rank 6 or more above the stock card, keeping pairs of equal centre needs;
else a discard onto a matching top or the shallowest pile (``spite_sdk.rivals``).
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation
from spite_sdk.rivals import h13_move


class H13LikeBot(Bot):
    name = "h13-like"
    version = "1.0.0"

    def decide(self, observation: Observation) -> Move:
        return h13_move(observation, self.rng)


if __name__ == "__main__":
    H13LikeBot().run()
