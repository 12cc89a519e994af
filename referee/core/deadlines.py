"""Deadlines, the time bank and the referee's own lag: the time control a match is played
with, whether bots may think between decisions, the monitor that tells a bot's
timeout from a referee that ran late (then the match is void, not lost), and the audit of
what the machine gave a bot while its clock ran (:class:`GivenTime`: a bot kept off the CPU
by other work gets its time back, and is never charged a timeout it was not given)."""

from __future__ import annotations

import asyncio
import enum
import math
import os
import time
import weakref
from dataclasses import dataclass
from typing import ClassVar, Iterable, Mapping, Protocol

from referee.core import limits
from spite.v1 import referee_pb2 as rpb

LAG_LIMIT_MS = 250
"""A timeout is the platform's fault, not the bot's, when the referee judged the deadline
this late (its timer fired late), or its event loop stalled this long in all during the
decision (and for at least a tenth of the decision's window)."""
LAG_PROBE_S = 0.05
"""How often the lag monitor wakes to measure the event loop's lateness."""
GIVEN_PROBE_S = 0.1
"""A decision still open after this long (or a quarter of its window, if sooner) takes its bot's baseline (CPU time,
time spent runnable but waiting for a CPU), so a decision answered sooner, nearly every one, costs no
extra reads; the bot is taken to have been kept off the CPU for the same share of this
first moment as of the time after it."""
GIVEN_SLACK_MS = 50
"""A limit is extended while the bot is owed more than this (the time it was kept off
the CPU since its clock started, less the time already added), or than a twentieth of the
limit if that is less (:func:`given_slack_ms`)."""
GIVEN_CAP = 10
"""A limit waits at most this many times its length for the bot to be given its time
(a machine 10 times oversubscribed gives a single-threaded bot about a fifth of a core);
a bot still owed more than the lag limit then makes the match void, never a loss."""


def connect_cap_ms(connect_ms: int) -> int:
    """The longest a launched seat may take to connect: its ``connect_ms`` extended by the time
    a starved start-up was not given, up to ``GIVEN_CAP`` times (``Match._wait_for_seats``).
    A launched gRPC bot's SDK waits this long for the referee (``SPITE_CONNECT_TIMEOUT``), and
    a stdio bot's pipe this long for its Hello."""
    return GIVEN_CAP * connect_ms


def given_slack_ms(window_s: float) -> float:
    """The time a bot may still be owed when its extended limit ends: ``GIVEN_SLACK_MS``, or a
    twentieth of its window if that is less. The extensions converge on the bot having been
    given its window less this, so a fixed 50 ms would leave a bot with a 100 ms window only
    half of it on a crowded core (seen in CI: a 50 ms computation charged a timeout)."""
    return min(GIVEN_SLACK_MS, window_s * 1000 / 20)


@dataclass(frozen=True)
class TimeControl:
    """Thinking-time limits, in milliseconds (defaults suit Python bots on a laptop): the one
    time control from a file's ``[time_control]`` table to a decision's deadline
    (docs/architecture.md, "The time control, from file to deadline")."""

    decision_ms: int = 1000
    """Per decision; overruns are paid from the bank."""
    bank_ms: int = 10_000
    """Per seat, per game, for overruns."""
    connect_ms: int = 10_000
    """To connect, and for each seat's first decision of the match."""

    RANGES: ClassVar[dict[str, limits.Range]] = {
        "decision_ms": limits.DECISION_MS, "bank_ms": limits.BANK_MS, "connect_ms": limits.CONNECT_MS}
    """Each field's range (:mod:`referee.core.limits`): the constructor, :meth:`from_table` and
    the wire (:meth:`from_pb`) refuse the same values."""

    def __post_init__(self) -> None:
        for key, allowed in self.RANGES.items():
            allowed.check(getattr(self, key))

    @classmethod
    def from_table(cls, table: Mapping[str, object], where: str = "time_control.") -> "TimeControl":
        """The time control a ``[time_control]`` table states (a tournament's, a competition's,
        a job's JSON): only the three keys, each in its range, the others' defaults. A bad
        table is a :class:`~referee.core.limits.FieldError` naming ``where`` + the key."""
        unknown = sorted(set(table) - set(cls.RANGES))
        if unknown:
            raise limits.FieldError(where.rstrip("."), f"unknown key(s) {unknown}; known: {sorted(cls.RANGES)}")
        default = cls()
        return cls(**{key: allowed.field(table, key, getattr(default, key), where)
                      for key, allowed in cls.RANGES.items()})

    def deadline_ms(self, *, first: bool) -> int:
        """A decision's window before its seat's bank is drawn on (the wire's
        ``DecisionRequest.deadline_ms``): ``decision_ms``, or for a seat's ``first`` decision of
        the match ``connect_ms`` if that is longer (a bot may still be warming up)."""
        return max(self.decision_ms, self.connect_ms) if first else self.decision_ms

    def to_dict(self) -> dict[str, int]:
        """The ``[time_control]`` table (and a job's JSON) this reads back from (:meth:`from_table`)."""
        return {key: getattr(self, key) for key in self.RANGES}

    def to_pb(self) -> rpb.TimeControl:
        return rpb.TimeControl(decision_ms=self.decision_ms, bank_ms=self.bank_ms, connect_ms=self.connect_ms)

    @classmethod
    def from_pb(cls, message: rpb.TimeControl) -> "TimeControl":
        """The time control a wire message states, every field as given: a zero decision or
        connect time is refused (:class:`~referee.core.limits.LimitError`), never replaced by a default."""
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
    """What the match may do to a seat's bot process (:class:`referee.processes.launcher.BotProcess`)."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def cpu_seconds(self) -> float: ...

    def run_queue_seconds(self) -> float | None: ...


def run_queue_seconds(pids: Iterable[int]) -> float | None:
    """The time every thread of ``pids`` has spent runnable but waiting for a CPU, in seconds,
    summed (Linux ``/proc/PID/task/TID/schedstat``, second field: the run-queue delay); None
    where the kernel does not say (no schedstat, e.g. macOS)."""
    total, seen = 0, False
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as stats:
                    total += int(stats.read().split()[1])
                seen = True
            except (OSError, IndexError, ValueError):
                continue
    return total / 1e9 if seen else None


class GivenTime:
    """What the machine gave one bot since a moment: how much of the wall time since then
    the bot had, as opposed to time it was runnable but kept off the CPU by other work.

    The bot had a moment if it was running or chose not to run (sleeping, waiting for
    input): of the wall time ``W`` since the baseline, a bot whose threads waited ``Q`` on
    the run queue (at most ``W``) and ran for ``C`` of CPU was given ``max(W - Q, C)``.
    A bot that sleeps past its limit waits on no run queue, so it was given all of it; a bot
    whose own threads crowd each other out ran for as much CPU as it waited, and that counts
    as given too (its threads' waits are its own doing)."""

    def __init__(self, process: ProcessControl, at: float | None = None, opened: float | None = None) -> None:
        self.process = process
        self.at = time.monotonic() if at is None else at
        self.opened = self.at if opened is None else min(opened, self.at)
        """When the bot's clock started; the baseline may be taken a little later (``at``),
        and the share of the time the bot was not given is taken to be the same before it."""
        self.queued = process.run_queue_seconds()
        self.cpu = process.cpu_seconds()

    @property
    def measurable(self) -> bool:
        return self.queued is not None

    def not_given_s(self, now: float | None = None) -> float:
        """Seconds of the wall time since the baseline that the bot was not given."""
        if self.queued is None:
            return 0.0
        now = time.monotonic() if now is None else now
        queued = self.process.run_queue_seconds()
        if queued is None:  # the bot is gone: nothing more to give it
            return 0.0
        wall = max(0.0, now - self.at)
        starved = min(wall, max(0.0, queued - self.queued))
        given = max(wall - starved, self.process.cpu_seconds() - self.cpu)
        not_given = max(0.0, wall - given)
        return not_given * (now - self.opened) / wall if wall > 0 else 0.0


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
