"""A bot that raises ValueError at its 20th decision (or at the decision given as argv[1]):
the crash `spite play` and `spite check-bot` must show, with its traceback."""

from __future__ import annotations

import sys

from spite_sdk import Bot, Move, Observation, policies

CRASH_AT = int(sys.argv[1]) if len(sys.argv) > 1 else 20


class CrashyBot(Bot):
    name = "crashy"
    version = "0.1.0"

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    def decide(self, observation: Observation) -> Move:
        self.decisions += 1
        if self.decisions == CRASH_AT:
            raise ValueError(f"crashy gives up at decision {self.decisions}")
        return policies.greedy_move(observation)


if __name__ == "__main__":
    CrashyBot().run()
