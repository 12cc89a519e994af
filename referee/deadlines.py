"""Deadlines, the time bank and the referee's own lag: the time control a match is played
with, whether bots may think between decisions, and the monitor that tells a bot's
timeout from a referee that ran late (then the match is void, not lost)."""

from __future__ import annotations

import asyncio
import enum
import math
import time
import weakref
from dataclasses import dataclass
from typing import Protocol

from spite.v1 import referee_pb2 as rpb

from . import limits

LAG_LIMIT_MS = 250
"""A timeout is the platform's fault, not the bot's, when the referee judged the deadline
this late (its timer fired late), or its event loop stalled this long in all during the
decision (and for at least a tenth of the decision's window)."""
LAG_PROBE_S = 0.05
"""How often the lag monitor wakes to measure the event loop's lateness."""


@dataclass(frozen=True)
class TimeControl:
    """Thinking-time limits, in milliseconds (defaults suit Python bots on a laptop)."""

    decision_ms: int = 1000
    """Per decision; overruns are paid from the bank."""
    bank_ms: int = 10_000
    """Per seat, per game, for overruns."""
    connect_ms: int = 10_000
    """To connect, and for each seat's first decision of the match."""

    def __post_init__(self) -> None:
        limits.DECISION_MS.check(self.decision_ms)
        limits.BANK_MS.check(self.bank_ms)
        limits.CONNECT_MS.check(self.connect_ms)

    def to_pb(self) -> rpb.TimeControl:
        return rpb.TimeControl(decision_ms=self.decision_ms, bank_ms=self.bank_ms, connect_ms=self.connect_ms)

    @classmethod
    def from_pb(cls, message: rpb.TimeControl) -> "TimeControl":
        """The time control a wire message states, every field as given: a zero decision or
        connect time is refused (:class:`~referee.limits.LimitError`), never replaced by a default."""
        return cls(message.decision_ms, message.bank_ms, message.connect_ms)


class Thinking(enum.Enum):
    """May a bot compute while it is not its decision (docs/security.md)?"""

    ALLOWED = "allowed"
    """Bots run all the time, as on a bot's own machine."""
    FROZEN = "frozen"
    """A launched bot is paused (cgroup freezer or SIGSTOP) from its answer until its next
    decision, so it cannot think on the opponent's time or steal the opponent's CPU."""


class RefereeLag(RuntimeError):
    """The referee itself was too late to judge a deadline: the match is void, not lost."""


class ProcessControl(Protocol):
    """What the match may do to a seat's bot process (:class:`referee.launcher.BotProcess`)."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def cpu_seconds(self) -> float: ...


class LagMonitor:
    """Measures how late the event loop runs: one task per event loop, shared by every match
    on it, sleeps ``LAG_PROBE_S`` and adds up its overshoots (the time the loop was stalled).
    A match reads :meth:`mark` when a decision opens and :meth:`since` when it times out.
    (One probe per match would wake a referee holding a thousand matches 20,000 times a second.)"""

    _shared: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LagMonitor]" = weakref.WeakKeyDictionary()

    def __init__(self) -> None:
        self.stalled_ms = 0.0
        """Stalled time since the probe started, in all."""
        self._task: asyncio.Task[None] | None = None
        self._users = 0

    @classmethod
    def shared(cls) -> "LagMonitor":
        """The running loop's monitor."""
        loop = asyncio.get_running_loop()
        monitor = cls._shared.get(loop)
        if monitor is None:
            monitor = cls._shared[loop] = cls()
        return monitor

    def start(self) -> None:
        """One more match uses the probe (it runs while any does)."""
        self._users += 1
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._probe())

    def stop(self) -> None:
        self._users -= 1
        if self._users <= 0 and self._task is not None:
            self._task.cancel()
            self._task = None
            self._users = 0

    async def _probe(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(LAG_PROBE_S)
            self.stalled_ms += max(0.0, (time.monotonic() - before - LAG_PROBE_S) * 1000)

    def mark(self) -> float:
        return self.stalled_ms

    def since(self, mark: float) -> float:
        """Milliseconds the loop was stalled since ``mark``."""
        return self.stalled_ms - mark


class WaitTimer:
    """Ends the waits whose deadline has passed: one timer per event loop for every seat's
    wait for an answer. A timer per wait costs a heap push and a cancel on every decision,
    and nearly every wait ends early; here the timer is set for the soonest deadline, a wait
    that ends early is only forgotten, and when the timer fires it wakes every wait that is
    due and sets itself for the next. Deadlines are ``time.monotonic()`` values."""

    _shared: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, WaitTimer]" = weakref.WeakKeyDictionary()

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._waits: dict[asyncio.Future[None], float] = {}
        self._handle: asyncio.TimerHandle | None = None
        self._at = math.inf

    @classmethod
    def shared(cls) -> "WaitTimer":
        """The running loop's timer."""
        loop = asyncio.get_running_loop()
        timer = cls._shared.get(loop)
        if timer is None:
            timer = cls._shared[loop] = cls(loop)
        return timer

    def add(self, waiter: asyncio.Future[None], deadline: float) -> None:
        """Give ``waiter`` the result None at ``deadline`` unless it is done or discarded by then."""
        self._waits[waiter] = deadline
        if deadline < self._at:
            self._set(deadline)

    def discard(self, waiter: asyncio.Future[None]) -> None:
        self._waits.pop(waiter, None)

    def __len__(self) -> int:
        return len(self._waits)

    def _set(self, deadline: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._at = deadline
        self._handle = self.loop.call_at(self.loop.time() + (deadline - time.monotonic()), self._fire)

    def _fire(self) -> None:
        self._handle, self._at = None, math.inf
        now = time.monotonic()
        soonest = math.inf
        for waiter, deadline in list(self._waits.items()):
            if deadline <= now:
                del self._waits[waiter]
                if not waiter.done():
                    waiter.set_result(None)
            elif deadline < soonest:
                soonest = deadline
        if soonest < math.inf:
            self._set(soonest)
