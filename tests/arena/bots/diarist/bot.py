"""A bot that keeps a diary: a debug string on every move and a line of stderr log, each
marked with the name it is run as (``bot.py diarist`` or ``bot.py rival``), so a test can
tell whose debug strings and log a page shows."""

from __future__ import annotations

import sys

from spite_sdk import Bot, Decision, Observation, policies

MARK = sys.argv[1] if len(sys.argv) > 1 else "diarist"


class Diarist(Bot):
    name = MARK
    version = "1"

    def decide(self, observation: Observation) -> Decision:
        print(f"{MARK}-log: turn {observation.turn}", file=sys.stderr, flush=True)
        return Decision(policies.random_move(observation, self.rng), debug=f"{MARK}-debug turn {observation.turn}")


if __name__ == "__main__":
    Diarist().run()
