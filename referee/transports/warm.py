"""Warm connections: one bot connection that plays several matches, one after another.

A bot that says ``warm`` in its Hello may be handed its next match on the same stream
after MatchOver (docs/protocol.md, "Warm bots"). This module is the referee's side of
that, apart from the transports: a :class:`WarmLine` per warm connection, on which whoever
runs the bot's process (the local pool, :mod:`referee.pool`) offers the next seat, and
:func:`serve_next_matches`, the loop a session (:class:`referee.transports.session.Session`) runs once its first match
is over. A referee whose arena has no :class:`WarmLines` (``spite referee``, the hosted lobby) never
takes the offer: its GameStart does not say ``warm`` and the stream closes after MatchOver.

On a warm connection every match is played through a :class:`WarmChannel`, which marks the
seat's GameStart ``warm`` with the match's ``bot_seed``: the match loop itself knows nothing
of warm connections.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable

from referee.core.match import Match
from referee.core.seats import MAX_INBOX, Closed, Garbled, Outgoing, Seat, SeatChannel
from spite.v1 import referee_pb2 as rpb

log = logging.getLogger("spite.referee")

IDLE_S = 600.0
"""How long a warm connection waits between matches for its next one before the referee
closes it (the pool that owns it normally says sooner: a next match, or the end)."""

Item = rpb.BotMessage | Closed | Garbled
Sink = Callable[[Item], None]


@dataclass
class Offer:
    """The next match for a warm connection: a seat nobody has taken, and the match's bot seed."""

    match: Match
    seat: Seat
    bot_seed: int | None = None
    taken: asyncio.Future[bool] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    """True once the Welcome went out and the connection is the seat's; False if it was not taken."""

    def settle(self, taken: bool) -> None:
        if not self.taken.done():
            self.taken.set_result(taken)


class WarmLine:
    """One warm connection, as its owner sees it: offer it the next match, or end it."""

    def __init__(self, match: Match, seat: Seat) -> None:
        self.match = match
        self.seat = seat
        """The seat it plays now (or last played)."""
        self.matches = 1
        self.bot_seed = 0
        """The bot seed of the match it plays now (sent in each GameStart)."""
        self.lost = ""
        """Why the connection is gone ("" while it is open)."""
        self._offers: asyncio.Queue[Offer | None] = asyncio.Queue()
        self._stray = 0

    def offer(self, match: Match, seat: Seat, bot_seed: int | None = None) -> asyncio.Future[bool]:
        """Hand the connection ``seat`` of ``match`` once its current match is over; the future
        says whether it took it (False: the connection was lost first, or the seat was gone)."""
        offer = Offer(match, seat, bot_seed)
        if self.lost:
            offer.settle(False)
        else:
            self._offers.put_nowait(offer)
        return offer.taken

    def end(self) -> None:
        """No more matches: the referee closes the stream once the current match is over."""
        self._offers.put_nowait(None)

    def lose(self, why: str) -> None:
        """The connection ended (the stream closed, the process exited): refuse every offer."""
        self.lost = self.lost or why
        while not self._offers.empty():
            offer = self._offers.get_nowait()
            if offer is not None:
                offer.settle(False)
        self._offers.put_nowait(None)

    async def next(self, idle_s: float = IDLE_S) -> Offer | None:
        """The next offer, or None: ended, lost, or nothing offered within ``idle_s``."""
        try:
            offer = await asyncio.wait_for(self._offers.get(), idle_s)
        except (asyncio.TimeoutError, TimeoutError):
            self.lose(f"no next match within {idle_s:g} s")
            return None
        if offer is None or self.lost:
            if offer is not None:
                offer.settle(False)
            return None
        return offer

    def watching(self, sink: Sink) -> Sink:
        """``sink`` (a match's), noting the connection's end on the way: a stream that ends
        during a match takes no further one."""
        def deliver(item: Item) -> None:
            if isinstance(item, Closed):
                self.lose(item.detail)
            sink(item)
        return deliver

    def between(self, item: Item) -> None:
        """What the bot sends between two matches: dropped (there is no decision to answer);
        its end, or a flood, loses the connection."""
        if isinstance(item, Closed):
            self.lose(item.detail)
            return
        self._stray += 1
        if self._stray > MAX_INBOX:
            self.lose(f"flooding: more than {MAX_INBOX} messages sent between matches")


class WarmLines:
    """An arena's warm connections, found by the seat each was admitted to. An arena with one
    takes a Hello's ``warm``; without one, every stream plays one match."""

    def __init__(self) -> None:
        self._by_seat: dict[tuple[str, int], WarmLine] = {}
        self.bot_seeds: dict[str, int] = {}
        """By match id: the bot seed a warm connection's first match is played with (its
        process was started with it as SPITE_BOT_SEED); set by whoever starts the bots."""

    def open(self, match: Match, seat: Seat) -> WarmLine:
        line = WarmLine(match, seat)
        line.bot_seed = self.bot_seeds.get(match.match_id, 0)
        self._by_seat[(match.match_id, seat.index)] = line
        return line

    def claim(self, match: Match, seat: Seat) -> WarmLine | None:
        """The warm connection that played ``seat`` of ``match`` (None: it played one match only),
        for its owner to offer the next match or end; each line is claimed once."""
        return self._by_seat.pop((match.match_id, seat.index), None)

    def forget(self, line: WarmLine) -> None:
        for key, value in list(self._by_seat.items()):
            if value is line:
                del self._by_seat[key]


class WarmChannel:
    """A match's channel on a warm connection: ``inner``, with the seat's GameStart marked
    ``warm`` and carrying the match's ``bot_seed`` (a copy: the match may share a message
    between seats). Everything else passes through untouched."""

    def __init__(self, inner: SeatChannel, line: WarmLine) -> None:
        self.inner = inner
        self.line = line

    async def send(self, message: Outgoing) -> None:
        if not isinstance(message, bytes) and message.WhichOneof("body") == "game_start":
            marked = rpb.RefereeMessage()
            marked.CopyFrom(message)
            marked.game_start.warm = True
            marked.game_start.bot_seed = self.line.bot_seed
            message = marked
        await self.inner.send(message)

    def close(self) -> None:
        self.inner.close()


Attach = Callable[[Offer], Awaitable[asyncio.Event]]
"""A session's step: send the offer's Welcome, attach the connection to its seat, and
return the event set when that match lets go of the connection (its channel closed)."""


async def serve_next_matches(line: WarmLine, attach: Attach, set_sink: Callable[[Sink], None],
                             idle_s: float = IDLE_S) -> None:
    """After a warm connection's first match: play each match offered on ``line`` until it is
    ended or lost. Between matches the bot's messages go to :meth:`WarmLine.between`."""
    set_sink(line.between)
    try:
        while (offer := await line.next(idle_s)) is not None:
            if offer.match.finished.is_set() or offer.seat.connected.is_set() or offer.seat.gone is not None:
                offer.settle(False)
                continue
            if offer.bot_seed is not None:
                line.bot_seed = offer.bot_seed
            try:
                closed = await attach(offer)
            except Exception as error:  # the stream broke while the Welcome went out
                offer.settle(False)
                line.lose(f"the Welcome could not be sent ({type(error).__name__})")
                return
            line.match, line.seat = offer.match, offer.seat
            line.matches += 1
            offer.settle(True)
            log.info("match %s: seat %d connected warm (match %d of its connection)", offer.match.match_id,
                     offer.seat.index, line.matches)
            await closed.wait()
            set_sink(line.between)
    finally:
        line.lose(line.lost or "the session ended")
