"""A remote bot that thinks far past every deadline: each game ends in its forfeit for timeouts."""

import time

from spite_sdk import Bot, policies


class Sleeper(Bot):
    name = "sleeper"
    version = "1"

    def decide(self, observation):  # type: ignore[no-untyped-def]
        time.sleep(3)
        return policies.greedy_move(observation)


if __name__ == "__main__":
    Sleeper().run()
