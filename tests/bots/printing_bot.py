"""A Python SDK bot for the stdio frames tests that writes to stdout every way a bot might.

It plays the greedy policy, and at each decision ``print()``s, writes to descriptor 1 and
(at its first) runs a child process that echoes: all of it must reach its log, none of it
the frames the SDK writes on the referee's pipe. (Output before ``run()`` is another matter:
until then stdout is the pipe, as for any stdio bot.)
"""

from __future__ import annotations

import os
import subprocess

from spite_sdk import Bot, Move, Observation, policies


class PrintingBot(Bot):
    name = "printing"
    version = "1"
    decisions = 0

    def decide(self, observation: Observation) -> Move:
        self.decisions += 1
        print(f"print: decision {self.decisions}")
        os.write(1, b"raw: fd 1\n")
        if self.decisions == 1:
            subprocess.run(["echo", "child: echo"], check=True)
        return policies.greedy_move(observation)


if __name__ == "__main__":
    PrintingBot().run()
