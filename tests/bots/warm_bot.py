"""A warm Python SDK bot for the tests: plays the first legal move, and logs every Welcome.

    python warm_bot.py [MODE]

Each Welcome prints ``welcome process=<id> match=<match id> seat=<seat> warm=<0|1>
bot_seed=<seed>`` on stderr (its log), ``<id>`` drawn once per process, so a test can tell
which process played which seat. Modes: ``good``; ``cold`` (does not say warm); ``crash-2``
(exits with code 3 at its first decision of its second match); ``leave-1`` (exits after its
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
        print(f"welcome process={PROCESS} match={welcome.match_id} seat={welcome.seat} warm={int(welcome.warm)} "
              f"bot_seed={welcome.bot_seed if welcome.bot_seed is not None else os.environ.get('SPITE_BOT_SEED')}",
              file=sys.stderr, flush=True)

    def decide(self, observation: Observation) -> Move:
        if MODE == "crash-2" and self.matches == 2:
            os._exit(3)
        return observation.legal_moves[0]

    def on_match_over(self, result: MatchResult) -> None:
        if MODE == "leave-1":
            os._exit(0)


if __name__ == "__main__":
    WarmBot().run()
