"""The connection side of a match: seats, their channels and inboxes, and how a seat's
bot comes, goes and is waited for.

A channel (gRPC stream or stdio) delivers the bot's messages into its seat's inbox and
carries the referee's out. Before the first game a stream that ends frees its seat at once
(the bot may reconnect with its token); afterwards the end is the game loop's to judge.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import secrets
import signal
import time
from dataclasses import dataclass
from typing import Protocol

from referee.core.deadlines import (
    GIVEN_SLACK_MS,
    GivenTime,
    ProcessControl,
    RefereeLag,
    TimeControl,
    WaitTimer,
    connect_cap_ms,
    given_slack_ms,
)
from referee.core.reports import SeatReport
from referee.core.status import FaultKind, MatchState, SeatStatus
from spite.v1 import referee_pb2 as rpb
from spite_engine import Ending, RuleSet

log = logging.getLogger("spite.referee")

PROCESS_EXIT_WAIT_S = 1.0
"""After a stream ends, how long to wait for the bot's process to exit (to report its status)."""
MAX_INBOX = 64
"""Unanswered messages a bot may queue before it counts as flooding."""


def _cut(text: str, limit: int) -> str:
    """At most ``limit`` bytes of UTF-8, never splitting a character."""
    return text.encode()[:limit].decode(errors="ignore")


def describe_exit(returncode: int | None, limit: str = "") -> str:
    """'the bot process exited with code 7' / 'was killed by SIGKILL: it hit the memory limit
    (512 MiB)' (``limit``: what the sandbox saw it run into) / '... (out of memory?)'."""
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        if limit:
            return f"the bot process was killed by {name}: it hit {limit}"
        hint = " (out of memory, or a resource limit?)" if name in ("SIGKILL", "SIGXCPU", "SIGSEGV") else ""
        return f"the bot process was killed by {name}{hint}"
    return f"the bot process exited with code {returncode}" + (f" after it hit {limit}" if limit else "")


@dataclass(frozen=True)
class Closed:
    """Put in a seat's inbox when its channel ends: how (an ending) and why."""

    ending: Ending
    detail: str


@dataclass(frozen=True)
class Garbled:
    """Put in a seat's inbox for input that is not a message at all (stdio: bad JSON)."""

    detail: str


Outgoing = rpb.RefereeMessage | bytes
"""What the referee sends a seat: a message, or one already written as protobuf wire bytes
(``spite_wire.encoding``: the hot messages, built without protobuf objects)."""

Incoming = rpb.BotMessage | Closed | Garbled
"""What a seat's inbox holds: the bot's messages, unreadable input, and how the channel ended."""


class SeatChannel(Protocol):
    """The referee's side of one seat's connection."""

    async def send(self, message: Outgoing) -> None: ...

    def close(self) -> None: ...


class Seat:
    """One seat of a match: its token, its channel, its inbox and its report."""

    def __init__(self, index: int, name: str) -> None:
        self.index = index
        self.token = secrets.token_urlsafe(32)
        self.report = SeatReport(index, name)
        self._inbox: collections.deque[Incoming] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self.channel: SeatChannel | None = None
        self.connected = asyncio.Event()
        self.gone: Closed | None = None
        self.loss_recorded = False
        self.process_exit: asyncio.Future[int | None] | None = None
        self.process: ProcessControl | None = None
        self.started: GivenTime | None = None
        self.launching = False
        """The referee is starting this seat's bot process (:meth:`SeatRoster.launching`)."""
        """What the machine has given the seat's process since it was started (its connect clock)."""
        self.exit_limit = ""
        self.paused = False
        self.decided_before = False
        self.left_early = ""
        """Why the seat's last connection ended before the match started (it may reconnect)."""
        self.compact = False
        """The bot asked for the compact session in its Hello (docs/protocol.md)."""
        self._timer: WaitTimer | None = None
        self.claimed = False
        """A session has been admitted to the seat (``Arena.admit``); cleared when it leaves
        before the match starts, or never takes the seat."""

    def pause(self) -> None:
        if self.process is not None and not self.paused:
            self.process.pause()
            self.paused = True

    def resume(self) -> None:
        if self.process is not None and self.paused:
            self.process.resume()
            self.paused = False

    async def send(self, message: Outgoing) -> None:
        if self.channel is None or self.gone is not None:
            return
        try:
            await self.channel.send(message)
        except Exception as error:  # the stream broke under us: the seat is gone
            log.info("seat %d: sending failed: %r", self.index, error)
            self.gone = Closed(Ending.CRASH, "the connection was lost: the bot's stream had ended")

    def deliver(self, item: Incoming) -> None:
        """Called by the channel for each message from the bot (or its end)."""
        if len(self._inbox) >= MAX_INBOX and not isinstance(item, Closed):
            item = Closed(Ending.MALFORMED, f"flooding: more than {MAX_INBOX} messages sent without a decision")
        self._inbox.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next_item(self, deadline: float) -> Incoming | None:
        """The next item in the inbox, waiting until ``deadline`` (``time.monotonic()``) at most;
        None when it passed. One future per wait, and the event loop's one :class:`WaitTimer`
        for the deadline: a decision's wait is on the referee's hot path, where
        ``asyncio.wait_for`` would start a task and a timer each time."""
        if deadline - time.monotonic() <= 0:  # past the deadline, even an answer already waiting is too late
            return None
        if self._inbox:
            return self._inbox.popleft()
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = self._timer
        if timer is None or timer.loop is not loop:
            timer = self._timer = WaitTimer.shared()
        timer.add(waiter, deadline)
        try:
            await waiter
        finally:
            timer.discard(waiter)
            self._waiter = None
        return self._inbox.popleft() if self._inbox else None

    def clear_inbox(self) -> None:
        self._inbox.clear()


class _Timed(Protocol):
    @property
    def time_control(self) -> TimeControl: ...

    @property
    def lag_limit_ms(self) -> int: ...


class SeatRoster:
    """A match's seats and their connections (the base of :class:`referee.core.match.Match`)."""

    match_id: str
    config: "_Timed"
    rules: RuleSet
    seats: list[Seat]
    state_name: MatchState
    finished: asyncio.Event

    def attach(self, seat: Seat, channel: SeatChannel, name: str, version: str, *, compact: bool = False) -> None:
        seat.channel = channel
        seat.compact = compact
        seat.left_early = ""
        seat.report.version = _cut(version, 64)
        seat.report.name = seat.report.name or _cut(name, 64)
        seat.report.status = SeatStatus.ACTIVE
        seat.connected.set()

    def receive(self, seat: Seat, channel: SeatChannel, item: Incoming) -> None:
        """Deliver what ``channel`` read to ``seat``. While the match waits for its seats, the
        end of a seat's stream frees the seat at once, so its bot may connect again with its
        token; afterwards the end is the match's to judge. Leftovers of a replaced channel
        are dropped."""
        if seat.channel is not channel:
            return
        if isinstance(item, Closed) and self.state_name is MatchState.WAITING:
            self._detach(seat, item)
            return
        seat.deliver(item)

    def _detach(self, seat: Seat, closed: Closed) -> None:
        channel, seat.channel = seat.channel, None
        seat.connected.clear()
        seat.claimed = False
        seat.report.status = SeatStatus.PENDING
        seat.left_early = closed.detail
        seat.clear_inbox()
        log.info("match %s: seat %d left before the match started: %s", self.match_id, seat.index, closed.detail)
        if channel is not None:
            channel.close()

    def expect_process(self, seat: Seat) -> None:
        """The seat's bot is a process this referee launched: report its exit in reasons."""
        seat.process_exit = asyncio.get_running_loop().create_future()

    def launching(self, seat: Seat) -> None:
        """The referee is about to start the seat's bot: until it is bound, its connect time has
        not begun (the launches before it, the sandbox's set-up are the platform's time)."""
        seat.launching = True

    def bind_process(self, seat: Seat, process: ProcessControl) -> None:
        """The seat's bot is ``process``: measure its CPU per decision, and pause it between
        decisions when the match is played with ``Thinking.FROZEN``."""
        seat.process = process
        if not seat.connected.is_set():
            started = GivenTime(process)
            seat.started = started if started.measurable else None

    def seat_exited(self, seat: Seat, returncode: int | None, limit: str = "") -> None:
        """The launcher saw the seat's process exit (after running into ``limit``, if the
        sandbox saw one); before the match ended, that is a crash."""
        seat.exit_limit = limit
        if seat.process_exit is not None and not seat.process_exit.done():
            seat.process_exit.set_result(returncode)
        if self.finished.is_set():
            return
        closed = Closed(Ending.CRASH, describe_exit(returncode, limit)
                        + ("" if seat.connected.is_set() else " before connecting"))
        if seat.connected.is_set() and self.state_name is not MatchState.WAITING:
            seat.deliver(closed)
        elif seat.connected.is_set():  # a launched process cannot come back: the seat is lost
            seat.gone = closed
            seat.report.status = SeatStatus.ERROR
        else:
            seat.gone = closed
            seat.report.status = SeatStatus.ERROR
            seat.report.connect_fault = Ending.CRASH
            seat.connected.set()

    async def _wait_for_seats(self) -> None:
        """Until every seat is connected (at the same moment) or lost, or the connect time is
        over. A seat whose stream ends meanwhile is free again (:meth:`receive`).

        A seat's bot that this referee launches is given its connect time: the time before its
        process started (the launches before it, the sandbox's set-up) and the time its
        process was kept off the CPU by other work are added to its deadline, up to
        ``GIVEN_CAP`` times the connect time; a bot still owed more than the lag limit then
        makes the match void (``RefereeLag``), never a no-show."""
        connect_ms = self.config.time_control.connect_ms
        connect = connect_ms / 1000
        opened = time.monotonic()
        window_end, cap = opened + connect, opened + connect_cap_ms(connect_ms) / 1000
        deadline = window_end
        while True:
            waiting = [s for s in self.seats if not s.connected.is_set() and s.gone is None]
            remaining = deadline - time.monotonic()
            if waiting and remaining <= 0:
                owed = max(self._connect_owed(s, opened, window_end) for s in waiting)
                if owed * 1000 > given_slack_ms(connect) and time.monotonic() < cap:
                    deadline = min(cap, time.monotonic() + owed)
                    continue
                limit = self.config.lag_limit_ms / 1000
                if owed > max(limit, connect / 10):
                    late = [s.index for s in waiting if self._connect_owed(s, opened, window_end) > limit]
                    raise RefereeLag(f"seat {late[0]}'s bot was not given its {connect:g} s to connect: it was "
                                     f"still owed {owed:.1f} s after {time.monotonic() - opened:.1f} s (its process "
                                     f"started late, or was kept waiting for a CPU): the no-show cannot be "
                                     f"blamed on the bot")
            if not waiting or remaining <= 0:
                break
            waits = [asyncio.create_task(s.connected.wait()) for s in waiting]
            await asyncio.wait(waits, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            for task in waits:
                task.cancel()
        for seat in self.seats:
            if not seat.connected.is_set() and seat.gone is None:
                why = (f"seat {seat.index} left before the match started ({seat.left_early}) and did not "
                       f"connect again within {connect:g} s" if seat.left_early
                       else f"seat {seat.index} did not connect within {connect:g} s")
                seat.gone = Closed(Ending.NO_SHOW, why)
                seat.report.status = SeatStatus.TIMEOUT
                seat.report.connect_fault = Ending.NO_SHOW
                seat.report.add_fault(FaultKind.NO_SHOW, seat.gone.detail)

    @staticmethod
    def _connect_owed(seat: Seat, opened: float, window_end: float) -> float:
        """Seconds of its connect time a waiting seat is still owed: a bot whose process the
        referee is still starting, a little more time (until it runs); one whose process
        runs, the time before it started and the time it was kept off the CPU, less the time
        already added. A bot the referee did not launch (a remote one) is owed nothing."""
        now = time.monotonic()
        if seat.process is None:
            return GIVEN_SLACK_MS / 500 if seat.launching else 0.0  # still being started: wait a little more
        if seat.started is None:
            return 0.0
        not_given = max(0.0, seat.started.at - opened) + seat.started.not_given_s(now)
        return max(0.0, not_given - max(0.0, now - window_end))

    def _no_contest(self) -> str:
        """Why no game can be played any more (every team has lost a seat), or ''."""
        if any(all(s.gone is None for s in self.seats if self.rules.team_of(s.index) == team)
               for team in {self.rules.team_of(s.index) for s in self.seats}):
            return ""
        return "; ".join(s.gone.detail for s in self.seats if s.gone is not None)
