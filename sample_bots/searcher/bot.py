"""The searcher sample bot: the tactician's best few turns compared in sampled worlds.

Determinized search (PIMC) with the tactician as prior and rollout policy
(``spite_sdk.search``, docs/bots.md): when the tactician's first choice is not clearly best,
it deals worlds consistent with its observation, plays each candidate and the next turns in
every world with the tactician for every seat, and overrules the tactician only when the
paired gain is significant.

Environment (its bot.toml sets both): ``SPITE_SEARCHER_ROLLOUTS``, rollouts per searched
decision (a fixed count: the same seed gives the same games), and ``SPITE_SEARCHER_MS``, a
clock bound that stops the search early on a slow machine (never more than half the time
left to the referee's deadline either). The rollouts' last positions are scored by the fitted
position value (``spite_sdk.value``, version 4); ``SPITE_SEARCHER_VALUE=0`` counts stock cards
instead (version 3). It imports the engine, so it runs in this repository's venv.
"""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation, env_number
from spite_sdk.search import ROLLOUTS, Searcher
from spite_sdk.value import value_for


class SearcherBot(Bot):
    name = "searcher"
    version = "4.0.0"

    def __init__(self) -> None:
        rollouts = env_number("SPITE_SEARCHER_ROLLOUTS", 1, 1_000_000, whole=True)
        self.searcher = Searcher(rollouts=ROLLOUTS if rollouts is None else int(rollouts),
                                 budget_ms=env_number("SPITE_SEARCHER_MS", 1, 600_000),
                                 value=None if env_number("SPITE_SEARCHER_VALUE", 0, 1, whole=True) == 0
                                 else value_for)

    def decide(self, observation: Observation) -> list[Move]:
        deadline = self.decision.deadline if self.decision is not None else None
        return self.searcher.decide(observation, self.rng, deadline)


if __name__ == "__main__":
    SearcherBot.main()
