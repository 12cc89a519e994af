"""A warm Python SDK bot for the tests: plays the first legal move, and logs every Welcome.

    python warm_bot.py [MODE]

At each match's first game it prints ``welcome process=<id> match=<match id> seat=<seat>
bot_seed=<seed>`` on stderr (its log), ``<id>`` drawn once per process, so a test can tell
which process played which seat; at its end ``over process=<id> match=<match id> warm=<0|1>``
(whether the referee keeps the connection open, as its GameStart said). Modes: ``good``; ``cold`` (does not say warm);
``crash-2`` (exits with code 3 at its first decision of its second match); ``leave-1`` (exits after its
first MatchOver, between matches).
"""

from __future__ import annotations

import os
import sys
import uuid

from spite_sdk import Bot, MatchResult, Move, Observation, Welcome

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
PROCESS = uuid.uuid4().hex[:12]


class WarmBot(Bot):
    name = "warm-bot"
    version = "1"
    warm = MODE != "cold"
    matches = 0

    def on_welcome(self, welcome: Welcome) -> None:
        self.matches += 1

    def on_game_start(self, game_number: int, observation: Observation) -> None:
        if game_number == 0 and self.welcome is not None:
            print(f"welcome process={PROCESS} match={self.welcome.match_id} seat={self.seat} "
                  f"bot_seed={self.bot_seed}", file=sys.stderr, flush=True)

    def decide(self, observation: Observation) -> Move:
        if MODE == "crash-2" and self.matches == 2:
            os._exit(3)
        return observation.legal_moves[0]

    def on_match_over(self, result: MatchResult) -> None:
        match = self.welcome.match_id if self.welcome is not None else ""
        print(f"over process={PROCESS} match={match} warm={int(self.playing_warm)}", file=sys.stderr, flush=True)
        if MODE == "leave-1":
            os._exit(0)


if __name__ == "__main__":
    WarmBot().run()
