"""A greedy bot that takes its time (so a game stays in play long enough to watch) and
writes its hand into every debug string and its log (which no spectator may ever see)."""

import sys
import time

from spite_sdk import Bot, Decision, policies


class Slowpoke(Bot):
    name = "slowpoke"
    version = "1"

    def decide(self, observation):  # type: ignore[no-untyped-def]
        time.sleep(0.15)
        hand = "".join(f"h{card}." for card in observation.hand)
        print(f"slowpoke-log {hand}", file=sys.stderr, flush=True)
        return Decision(policies.greedy_move(observation), debug=f"slowpoke-debug {hand}")


if __name__ == "__main__":
    Slowpoke().run()
