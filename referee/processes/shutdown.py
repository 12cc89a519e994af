"""Signals that end a command: SIGHUP (the terminal closed) and SIGTERM stop it the way
Ctrl-C does, so the same clean-up runs (bot processes killed, per-match scratch
directories and ``/tmp/spite-workers-*`` removed, running tournament matches released).

Python's default for SIGHUP and SIGTERM is to die at once, skipping every ``finally``.
``stop_like_interrupt()`` (called once by the CLI at start-up) turns them into SIGINT,
whose handler is whatever the program has: ``KeyboardInterrupt``, or ``asyncio.run``'s,
which cancels the main task first. Commands that install their own handlers on the event
loop (``spite referee``) keep them.
"""

from __future__ import annotations

import signal
from types import FrameType

STOPPING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name))


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    handler = signal.getsignal(signal.SIGINT)
    if handler in (signal.SIG_IGN, signal.SIG_DFL, None):  # SIGINT ignored (e.g. a background job)
        raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")
    signal.raise_signal(signal.SIGINT)


def stop_like_interrupt() -> None:
    """Route SIGHUP and SIGTERM to the SIGINT handler, where they still have their defaults."""
    for signum in STOPPING_SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _as_interrupt)
