"""A well-behaved bot with a chosen way of spending time, for the CPU-time and thinking tests.

    python busy_bot.py MODE MS [--marker=TEXT] [--cpu=N]   (through the Python SDK)

``spin``: burns ``MS`` ms of CPU per decision; ``sleep``: sleeps ``MS`` ms per decision (a slow
machine looks like this: wall time without CPU); ``think``: from its first decision on, a
thread burns CPU all the time, on the opponent's turns too, and it answers at once; at each
game over it writes to stderr the thread's CPU time in the waits between its answers and its
next decisions, and the wall time of those waits (and the same figures so far at every
decision). It always plays the SDK's greedy choice.
``--cpu=N`` pins it to CPU N (the load tests put busy processes on the same CPU);
``--start-spin=MS`` and ``--start-sleep=MS`` spend MS ms of CPU, or of sleep, before it connects;
``--end-spin=MS`` and ``--end-sleep=MS`` spend them at each game over, then write to stderr
``game over handled in S s`` (the wall time it took).
"""

from __future__ import annotations

import os
import sys
import threading
import time

from spite_sdk import Bot, Move, Observation, Outcome, policies

MODE = sys.argv[1] if len(sys.argv) > 1 else "spin"
MS = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
END_SPIN_MS = END_SLEEP_MS = 0.0
for _arg in sys.argv[3:]:
    if _arg.startswith("--cpu="):
        os.sched_setaffinity(0, {int(_arg[len("--cpu="):])})
    elif _arg.startswith("--start-spin="):  # a slow start-up that computes (a JVM's, a big model's load)
        _end = time.process_time() + float(_arg[len("--start-spin="):]) / 1000
        while time.process_time() < _end:
            pass
    elif _arg.startswith("--start-sleep="):  # a slow start-up that waits
        time.sleep(float(_arg[len("--start-sleep="):]) / 1000)
    elif _arg.startswith("--end-spin="):  # a game-over handler that computes (saving what it learnt)
        END_SPIN_MS = float(_arg[len("--end-spin="):])
    elif _arg.startswith("--end-sleep="):  # one that waits
        END_SLEEP_MS = float(_arg[len("--end-sleep="):])


def spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def think_forever() -> None:
    while True:
        spin(0.001)
        time.sleep(0)  # let the bot's own thread take the GIL when it has a decision


class BusyBot(Bot):
    name = f"busy-{MODE}"
    version = "1"
    thinker: threading.Thread | None = None
    answered: tuple[float, float] | None = None  # (wall, thinker's CPU) at the last answer
    waited_s = waited_cpu_s = 0.0

    def thinker_cpu(self) -> float:
        assert self.thinker is not None and self.thinker.ident is not None
        return time.clock_gettime(time.pthread_getcpuclockid(self.thinker.ident))

    def decide(self, observation: Observation) -> Move:
        if self.answered is not None:
            self.waited_s += time.monotonic() - self.answered[0]
            self.waited_cpu_s += self.thinker_cpu() - self.answered[1]
        if MODE == "spin":
            spin(MS / 1000)
        elif MODE == "sleep":
            time.sleep(MS / 1000)
        elif MODE == "think" and self.thinker is None:
            self.thinker = threading.Thread(target=think_forever, daemon=True)
            self.thinker.start()
        move = policies.greedy_move(observation)
        if self.thinker is not None:
            if self.answered is not None:  # the figures so far, in case the game's end is cut short
                self.report()
            self.answered = (time.monotonic(), self.thinker_cpu())
        return move

    def report(self) -> None:
        print(f"between decisions: {self.waited_cpu_s} s in {self.waited_s} s", file=sys.stderr, flush=True)

    def on_game_over(self, game_number: int, outcome: Outcome) -> None:
        # A loaded machine may stop the bot (the referee's grace after the match) before it gets
        # here: the line written at every decision above is then the last one in the log.
        self.report()
        if END_SPIN_MS or END_SLEEP_MS:
            started = time.monotonic()
            spin(END_SPIN_MS / 1000)
            time.sleep(END_SLEEP_MS / 1000)
            print(f"game over handled in {time.monotonic() - started} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    BusyBot().run()
