"""Load, and waits that hold under it: busy processes (``bench/hogs.py``) started for a bounded
time and always ended by the test, and waits for a condition with a generous cap instead of
a fixed sleep a slow machine misses (README, "Testing")."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

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


def as_in_a_terminal() -> None:
    """A ``preexec_fn`` for a program a test stops with SIGINT or SIGHUP: both at their
    defaults in the child, as in a terminal's foreground job. A suite started with ``nohup``
    or as a background job (``&``) hands both down ignored, and a program keeps an ignored
    SIGINT or SIGHUP ignored, as it should (``spite play``, a Rust or Java bot)."""
    for signum in (signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, signal.SIG_DFL)


def suite_load() -> int:
    """The busy processes ``make test-under-load`` runs the suite beside (``LOAD``), 0 idle."""
    try:
        return int(os.environ.get("LOAD", "0"))
    except ValueError:
        return 0


async def until(condition: Callable[[], object], what: str, cap: float = 60.0) -> None:
    """Wait for ``condition()`` to hold, polling; fail saying ``what`` was awaited after ``cap``
    seconds (a generous cap, not a speed check: a loaded machine only makes it take longer)."""
    deadline = time.monotonic() + cap
    while not condition():
        assert time.monotonic() < deadline, f"waited {cap:g} s for {what}"
        await asyncio.sleep(0.01)


def frozen(pids: Iterable[int]) -> bool:
    """Every thread of ``pids`` is stopped or frozen: state T/t (SIGSTOP), or parked by a cgroup
    freezer (v1 shows D, v2 S with the freezer's wait channel, so those also read the cgroup)."""
    states = []
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            except OSError:
                continue
            states.append(stat[stat.rindex(")") + 2])
    return bool(states) and all(state != "R" for state in states)


_slowdown: list[float] = []


def slowdown() -> float:
    """How many times longer than its CPU time a short computation takes here now (1 on an
    idle core; about 5 for a process on a machine 10 times oversubscribed), from 1 to 10,
    measured once per process: what a test's time limits are multiplied by, so a test meant
    to end by a kill or the rules does not end by a timeout a busy machine caused."""
    if not _slowdown:
        wall, cpu = time.monotonic(), time.process_time()
        while time.process_time() - cpu < 0.05:
            pass
        ratio = (time.monotonic() - wall) / max(1e-6, time.process_time() - cpu)
        _slowdown.append(min(10.0, max(1.0, ratio)))
    return _slowdown[0]


def calibrated_ms(ms: int) -> int:
    """``ms`` scaled by :func:`slowdown`."""
    return int(ms * slowdown())
