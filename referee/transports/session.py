"""A bot's session, whatever carries it: Hello, admission, Welcome, attach, warm hand-over.

Both transports, the gRPC ``Play`` stream (:mod:`referee.transports.server`) and a launched bot's
pipes (:mod:`referee.transports.stdio`), are encodings of the same session (docs/protocol.md). This
module is that session, written once:

* an :class:`Arena` holds every match this referee serves and the seat tokens that open
  them, and admits a session's Hello (or refuses it with :class:`SessionRefused`);
* a :class:`Session` is one admitted connection: it writes the Welcome, attaches the
  connection to its seat, routes what the bot sends to the match, and on a warm connection
  (:mod:`referee.transports.warm`) takes each next match it is offered.

A transport only reads and writes messages: it reads the first one, hands the Hello to
:meth:`Arena.open`, passes every later message (and how its stream ended) to
:meth:`Session.deliver`, and gives :meth:`Session.run` a way to open a channel on its
stream. It reports a refusal in its own encoding. No transport imports another.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from typing import Callable, Protocol

from grpc import StatusCode  # the protocol's names for refusals (Refusal.code), not the transport

from referee.core.match import Match, MatchConfig
from referee.core.seats import Closed, Incoming, Seat, SeatChannel
from referee.transports.warm import Offer, Sink, WarmChannel, WarmLines, serve_next_matches
from spite.v1 import referee_pb2 as rpb
from spite_wire import PROTOCOL_VERSION

log = logging.getLogger("spite.referee")

MAX_MESSAGE_BYTES = 64 * 1024
"""Largest message either side may send on any transport: a full observation is a few KiB."""


class SessionRefused(Exception):
    """A session the referee will not open: the status and a sentence for the bot. The
    protocol names refusals by gRPC's status codes on every transport (``Refusal.code`` in
    proto/spite/v1/referee.proto is the status's name), so the code is a ``StatusCode``."""

    def __init__(self, code: StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def expect_hello(first: Incoming, what: str) -> rpb.Hello:
    """The Hello a session opens with (``first``, the first thing read on ``what``, e.g.
    "message on Play"); anything else is refused with ``INVALID_ARGUMENT``."""
    if isinstance(first, rpb.BotMessage) and first.WhichOneof("body") == "hello":
        return first.hello
    raise SessionRefused(StatusCode.INVALID_ARGUMENT, f"the first {what} must be a Hello")


class Arena:
    """Every match this referee serves, and the seat tokens that open them."""

    def __init__(self, retain_s: float = 3600.0) -> None:
        self.retain_s = retain_s
        self.matches: dict[str, Match] = {}
        self._seats: dict[bytes, tuple[Match, Seat]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.warm: WarmLines | None = None
        """Set (by a local pool, :mod:`referee.pool`) to take a Hello's ``warm``: such a
        connection may then play several matches. None: one match per connection."""

    def create(self, config: MatchConfig) -> Match:
        """Register a match and start waiting for its seats."""
        match = Match(secrets.token_hex(6), config)
        self.matches[match.match_id] = match
        for seat in match.seats:
            self._seats[_digest(seat.token)] = (match, seat)
        task = asyncio.get_running_loop().create_task(self._run(match))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return match

    async def _run(self, match: Match) -> None:
        try:
            await match.run()
        finally:
            for seat in match.seats:  # tokens are single-use: dead once the match ends
                self._seats.pop(_digest(seat.token), None)
            # GetMatch answers for a while after the end; then the match is forgotten, so a
            # long-running referee does not keep every finished match in memory.
            asyncio.get_running_loop().call_later(self.retain_s, self.matches.pop, match.match_id, None)

    def admit(self, hello: rpb.Hello, token: str, *, only: Seat | None = None) -> tuple[Match, Seat]:
        """Check a session's Hello (``token``: the Hello's, or the one its transport carried)
        and claim the seat it opens; raise :class:`SessionRefused`. ``only``: the one seat this
        connection may take (a launched stdio bot's pipes are its seat's); another seat's
        token is refused as unknown, and that seat stays free for its own bot."""
        found = self.find_seat(token)
        if found is None or found[0].finished.is_set():
            raise SessionRefused(StatusCode.UNAUTHENTICATED, "unknown or expired seat token")
        match, seat = found
        if hello.protocol_version != PROTOCOL_VERSION:
            raise SessionRefused(StatusCode.FAILED_PRECONDITION,
                                 f"this referee speaks protocol {PROTOCOL_VERSION}; the bot sent "
                                 f"protocol_version={hello.protocol_version}")
        if seat.connected.is_set() or seat.claimed:
            raise SessionRefused(StatusCode.ALREADY_EXISTS, f"seat {seat.index} of this match is already connected")
        if only is not None and seat is not only:
            raise SessionRefused(StatusCode.UNAUTHENTICATED, "unknown or expired seat token")
        # Claimed here, with no await between the check and the claim: a second connection whose
        # Hello comes while the first session is still writing its Welcome is refused too.
        seat.claimed = True
        return match, seat

    def open(self, hello: rpb.Hello, token: str, *, only: Seat | None = None, rejoin: bool = True) -> Session:
        """Admit ``hello`` (:meth:`admit`) and start its session (see :class:`Session` for ``rejoin``)."""
        match, seat = self.admit(hello, token, only=only)
        return Session(self, hello, match, seat, rejoin=rejoin)

    def find_seat(self, token: str) -> tuple[Match, Seat] | None:
        """The seat a token opens, compared in constant time; None for unknown or expired."""
        entry = self._seats.get(_digest(token))
        if entry is None or not hmac.compare_digest(entry[1].token.encode(), token.encode()):
            return None
        return entry

    async def close(self) -> None:
        """Abort every running match (graceful shutdown)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class Stream(SeatChannel, Protocol):
    """A transport's channel for one match of a session: ``closed`` is set once the match
    lets go of it (:meth:`SeatChannel.close`)."""

    closed: asyncio.Event


class Session:
    """One admitted connection, from its Welcome to its last match.

    ``rejoin``: whether the bot may open a new connection for its seat when this one ends
    before the match starts (gRPC: it dials again with its token), so the end frees the seat
    at once (:meth:`referee.core.seats.SeatRoster.receive`). A launched stdio bot's pipes are its
    only connection: their end stays in the seat's inbox for the match to judge, and the
    process's exit is reported by whoever launched it."""

    def __init__(self, arena: Arena, hello: rpb.Hello, match: Match, seat: Seat, *, rejoin: bool = True) -> None:
        self.hello = hello
        self.match = match
        self.seat = seat
        """The match and seat it plays now (or last played)."""
        self.rejoin = rejoin
        self.line = arena.warm.open(match, seat) if hello.warm and arena.warm is not None else None
        """Its warm line (the Hello said warm and the arena keeps them), else None: one match."""
        self._channel: SeatChannel | None = None
        self._early: list[Incoming] = []
        self._sink: Sink = self._early.append

    @property
    def warm(self) -> bool:
        """Whether the connection may play more than one match (its stream outlives a match)."""
        return self.line is not None

    def deliver(self, item: Incoming) -> None:
        """What the transport read after the Hello (a message, unreadable input, or how the
        stream ended): to the match being played, held until the first match is attached,
        or between two warm matches to the warm line."""
        self._sink(item)

    def cut(self, closed: Closed) -> None:
        """The transport lost the connection under the session (a cancelled stream): the match
        being played hears it now, before anything the reader may still say."""
        if self._channel is not None:
            self.match.receive(self.seat, self._channel, closed)

    async def run(self, open_stream: Callable[[], Stream]) -> None:
        """Play the first match on a stream from ``open_stream``, then, on a warm connection,
        each match offered on its line; return when the connection plays no more."""
        try:
            closed = await self._take(self.match, self.seat, open_stream)
            log.info("match %s: seat %d connected (%s %s)", self.match.match_id, self.seat.index, self.hello.name,
                     self.hello.version)
            await closed.wait()
            if self.line is not None:
                async def attach(offer: Offer) -> asyncio.Event:
                    return await self._take(offer.match, offer.seat, open_stream)

                await serve_next_matches(self.line, attach, self._set_sink)
        finally:
            if self.line is not None:
                self.line.lose(self.line.lost or "the session ended")

    async def _take(self, match: Match, seat: Seat, open_stream: Callable[[], Stream]) -> asyncio.Event:
        """Welcome the bot to ``seat`` of ``match`` and attach it; the event set when that match
        lets go of the connection."""
        stream = open_stream()
        channel: SeatChannel = WarmChannel(stream, self.line) if self.line is not None else stream
        try:
            await stream.send(match.welcome(seat))
        except BaseException:
            seat.claimed = False  # the session never took its seat: the bot may connect again
            raise
        hello = self.hello
        match.attach(seat, channel, hello.name, hello.version, compact=hello.compact)
        self.match, self.seat, self._channel = match, seat, channel
        route = self._route(match, seat, channel)
        self._sink = self.line.watching(route) if self.line is not None else route
        early, self._early = self._early, []
        for item in early:
            self._sink(item)
        return stream.closed

    def _route(self, match: Match, seat: Seat, channel: SeatChannel) -> Sink:
        if self.rejoin:
            return lambda item: match.receive(seat, channel, item)
        return seat.deliver

    def _set_sink(self, sink: Sink) -> None:
        self._sink = sink

