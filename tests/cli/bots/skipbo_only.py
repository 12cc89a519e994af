"""A bot that only knows Skip-Bo: under any other deck it stops with an error."""

from __future__ import annotations

from spite_sdk import Bot, Move, Observation, policies


class SkipBoOnly(Bot):
    name = "skipbo-only"
    version = "1.0.0"

    def decide(self, observation: Observation) -> Move:
        if "skip-bo" not in observation.rules.name:
            raise RuntimeError(f"this bot plays Skip-Bo only, not {observation.rules.name}")
        return policies.greedy_move(observation)


if __name__ == "__main__":
    SkipBoOnly().run()
