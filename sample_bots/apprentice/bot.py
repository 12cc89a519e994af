"""The apprentice sample bot: the tactician's candidates, ordered by what the searcher taught it.

Expert iteration's first round (``spite_sdk.apprentice``, docs/bots.md, "Expert iteration"):
a linear model, fitted on tens of thousands of the searcher's decisions, of how much better
than the tactician's first choice each of its other candidate plans scores in the search's
rollouts. It plays the candidate the model ranks first, the tactician's own unless the model
predicts a gain: about as strong as the searcher, at the tactician's speed. A rule set
without a fit (only ``standard`` and ``skip-bo+short-20`` have one) gets the tactician's plan.
It is deterministic.
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation
from spite_sdk.apprentice import apprentice_for
from spite_sdk.tactics import tactician_plan


class ApprenticeBot(Bot):
    name = "apprentice"
    version = "1.0.0"

    def decide(self, observation: Observation) -> list[Move]:
        apprentice = apprentice_for(observation.rules)
        return tactician_plan(observation) if apprentice is None else apprentice(observation)


if __name__ == "__main__":
    ApprenticeBot().run()
