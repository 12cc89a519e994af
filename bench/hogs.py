"""Busy processes that keep the machine loaded, always for a bounded time.

    python bench/hogs.py N [--seconds S] [--cpus 0,1] [-- COMMAND ...]

Starts N processes that only burn CPU (``while True: pass``), each pinned to ``--cpus`` if
given, and ends them after ``--seconds`` (default 600), on SIGTERM or SIGINT, or when
COMMAND exits; then exits with COMMAND's status (0 without one). Every hog also ends by
itself at the deadline and gets SIGKILL if this process dies (``PR_SET_PDEATHSIG``), so a
killed run leaves none behind. ``make test-under-load LOAD=8`` runs the suite beside 8 of
them; ``tests/load.py`` starts them from a test.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import time

_PR_SET_PDEATHSIG = 1


def _hog(until: float, cpus: set[int] | None) -> None:
    """In a forked child: burn CPU until ``until`` (monotonic), or until the parent dies."""
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    os.setsid()  # a session each, so a scheduler grouping by session (autogroup) weighs each as one user's work
    if cpus:
        os.sched_setaffinity(0, cpus)
    while time.monotonic() < until:
        for _ in range(100_000):
            pass
    os._exit(0)


def start(count: int, seconds: float, cpus: set[int] | None = None) -> list[int]:
    """Fork ``count`` hogs that end by themselves after ``seconds``; their pids."""
    until = time.monotonic() + seconds
    pids = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            _hog(until, cpus)
        pids.append(pid)
    return pids


def stop(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", type=int, help="how many busy processes")
    parser.add_argument("--seconds", type=float, default=600.0, help="the most they run (default 600)")
    parser.add_argument("--cpus", default="", help="pin them to these CPUs, e.g. 0 or 0,1")
    args = parser.parse_args(argv)
    cpus = {int(c) for c in args.cpus.split(",") if c} or None
    pids = start(args.count, args.seconds, cpus)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"[hogs] {args.count} busy processes for at most {args.seconds:g} s"
          + (f" on CPUs {sorted(cpus)}" if cpus else "") + (f": {' '.join(command)}" if command else ""),
          file=sys.stderr, flush=True)
    try:
        if command:
            return subprocess.run(command, timeout=args.seconds).returncode
        time.sleep(args.seconds)
        return 0
    except subprocess.TimeoutExpired:
        print(f"[hogs] {' '.join(command)} ran past {args.seconds:g} s", file=sys.stderr)
        return 124
    except KeyboardInterrupt:
        return 130
    finally:
        stop(pids)


if __name__ == "__main__":
    sys.exit(main())
