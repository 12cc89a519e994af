"""Greedy, and its Welcome's seat names on stderr: what a bot learns of its opponents.
Its name, ``a-seat1-b``, also looks like another seat's log file name."""

import sys

from spite_sdk import Bot, policies


class Names(Bot):
    name = "a-seat1-b"
    version = "1.0"

    def on_welcome(self, welcome):
        print(f"seat {welcome.seat} seat_names={list(welcome.seat_names)}", file=sys.stderr, flush=True)

    def decide(self, observation):
        return policies.greedy_move(observation)


if __name__ == "__main__":
    Names().run()
