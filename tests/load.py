"""Load for the tests that show the platform never blames a bot for a busy machine: busy
processes (``bench/hogs.py``), started for a bounded time and always ended by the test."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

HOGS = Path(__file__).resolve().parent.parent / "bench" / "hogs.py"


@contextlib.contextmanager
def hogs(count: int, seconds: float, cpus: str = "") -> Iterator[subprocess.Popen[bytes]]:
    """``count`` busy processes (pinned to ``cpus``, e.g. "0") while the block runs, for
    ``seconds`` at most; ended (by their parent's pid) when the block ends."""
    command = [sys.executable, str(HOGS), str(count), "--seconds", str(seconds)] + (["--cpus", cpus] if cpus else [])
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.2)  # the hogs are forked and spinning before the test's bots start
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def suite_load() -> int:
    """The busy processes ``make test-under-load`` runs the suite beside (``LOAD``), 0 idle."""
    try:
        return int(os.environ.get("LOAD", "0"))
    except ValueError:
        return 0
