"""Live spectating: a match in play, from its public stream, as it happens.

A match's public stream is what the referee sends spectators: ``observe_public`` at each
game's start, then ``visible_events(state, None)`` (no hand, no drawn card, no shuffled
order), the outcomes, the match's end. It comes from one of two places:

* a league's referee (``spite web --referee``): its gRPC Spectate stream (:func:`spectate`);
* a hosted ladder's game (``spite serve``), refereed in a worker process or, for remote
  bots, on the lobby's referee: the match's feed file under ``DATA/live/``
  (:mod:`referee.core.feed`, followed by :func:`follow_feed`).

Either way :func:`public_frames` turns it into the viewer's messages -- one function, so
the viewer gets the same frames from both -- which are sent to the browser as server-sent
events (:func:`sse`). :class:`PublicTable` keeps the table from exactly the stream and
nothing else: it has no way to hold a hand. ``tests/web/test_live.py`` checks that the
table equals the engine's public view after every move of random games of every rule set,
through the wire form and through a feed file.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, AsyncGenerator, AsyncIterator, Callable

from google.protobuf.message import DecodeError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from referee.core import feed
from spite.v1 import game_pb2
from spite.v1 import referee_pb2 as rpb
from spite_engine import Ending, Event, EventKind, MoveKind, RuleSet, Source
from spite_wire import event_from_proto, rules_from_proto

from .replay_view import viewer_rules

_ADMIN_METADATA = "spite-admin-token"


class PublicTable:
    """The public table of one game, from its public start and its public events."""

    def __init__(self, rules: RuleSet, start: dict[str, Any]) -> None:
        self.rules = rules
        self.turn: int = start["turn"]
        self.to_move: int = start["to_move"]
        self.hand_sizes: list[int] = list(start["hand_sizes"])
        self.stocks = [{"count": s["count"], "visible": list(s["visible"])} for s in start["stocks"]]
        self.discards = [[list(p) for p in piles] for piles in start["discards"]]
        self.centre = [list(p) for p in start["centre"]]
        self.draw_pile: int = start["draw_pile"]
        self.set_aside: int = start["set_aside"]

    def apply(self, event: Event) -> None:
        """One public event (a DRAW's or SHUFFLE's cards, if any, are never read)."""
        kind, seat = event.kind, event.seat
        if kind == EventKind.TURN:
            self.turn, self.to_move = event.count, seat
        elif kind == EventKind.MOVE and event.move is not None:
            move = event.move
            if move.kind == MoveKind.PLAY:
                if move.source == Source.HAND:
                    self.hand_sizes[seat] -= 1
                elif move.source == Source.STOCK:
                    stock = self.stocks[self.rules.stock_of(seat)]
                    stock["count"] -= 1
                    stock["visible"] = stock["visible"][1:]  # the REVEAL that follows says what shows now
                else:
                    self.discards[seat][move.index].pop()
                self.centre[move.target].append(move.card)
            elif move.kind == MoveKind.DISCARD:
                self.hand_sizes[seat] -= 1
                self.discards[seat][move.target].append(move.card)
        elif kind == EventKind.REVEAL:
            self.stocks[event.pile] = {"count": event.count, "visible": list(event.cards)}
        elif kind == EventKind.DRAW:
            self.hand_sizes[seat] += event.count
            self.draw_pile -= event.count
        elif kind == EventKind.PILE_COMPLETED:
            completed = len(self.centre[event.pile])
            self.centre[event.pile] = []
            if self.rules.completed_piles != "shuffle":
                self.set_aside += completed
        elif kind == EventKind.SHUFFLE:
            # After a completed pile ("shuffle" rule sets) or a recycle of the set-aside pile.
            self.draw_pile = event.count
            if self.rules.completed_piles != "shuffle":
                self.set_aside = 0

    def frame(self) -> dict[str, Any]:
        """The viewer's frame: the same shape as a replay's, every hand hidden."""
        return {"turn": self.turn, "to_move": self.to_move, "hand_sizes": list(self.hand_sizes),
                "stocks": [{"count": s["count"], "visible": list(s["visible"])} for s in self.stocks],
                "discards": [[list(p) for p in piles] for piles in self.discards],
                "centre": [list(p) for p in self.centre], "draw_pile": self.draw_pile,
                "set_aside": self.set_aside, "hands": [None] * self.rules.players}


def start_from_pb(view: Any) -> dict[str, Any]:
    """A spectator's GameStart observation as a frame's public fields (its hand is never read)."""
    return {"turn": view.turn, "to_move": view.to_move, "hand_sizes": list(view.hand_sizes),
            "stocks": [{"count": s.count, "visible": list(s.visible)} for s in view.stocks],
            "discards": [[list(p.cards) for p in seat.piles] for seat in view.discard_piles],
            "centre": [list(p.cards) for p in view.centre_piles],
            "draw_pile": view.draw_pile_count, "set_aside": view.set_aside_count}


async def public_frames(rules: RuleSet, seats: list[str], match_id: str,
                        messages: AsyncIterator[rpb.SpectatorMessage]) -> AsyncGenerator[dict[str, Any], None]:
    """A match's public stream as the viewer's messages: ``match`` (rules, seats), then per
    game ``game_start`` (a frame), ``step`` (each move: the move and the frame after it),
    ``frame`` (the table after a batch of events), ``game_over`` (the outcome), and
    ``match_over``; a stream that ends before ``match_over`` ends with an ``error``."""
    yield {"type": "match", "match_id": match_id, "rules": viewer_rules(rules), "seats": seats}
    table: PublicTable | None = None
    async for message in messages:
        body = message.WhichOneof("body")
        if body == "game_start":
            table = PublicTable(rules, start_from_pb(message.game_start.observation))
            yield {"type": "game_start", "game_number": message.game_start.game_number,
                   "first_seat": message.game_start.first_seat, "frame": table.frame()}
        elif body == "events" and table is not None:
            for wire in message.events.events:
                event = event_from_proto(wire)
                table.apply(event)
                if event.kind == EventKind.MOVE and event.move is not None:
                    yield {"type": "step", "move": {"seat": event.seat, "move": str(event.move),
                                                    "turn": table.turn}, "frame": table.frame()}
            yield {"type": "frame", "frame": table.frame()}
        elif body == "game_over":
            outcome = message.game_over.outcome
            ending = Ending(game_pb2.Ending.Name(outcome.ending).removeprefix("ENDING_").lower().replace("_", "-"))
            yield {"type": "game_over", "game_number": message.game_over.game_number,
                   "outcome": {"ending": ending.value, "by_rules": ending.by_rules, "winners": list(outcome.winners),
                               "scores": list(outcome.scores), "reason": outcome.reason}}
        elif body == "match_over":
            yield {"type": "match_over", "reason": message.match_over.reason,
                   "points": list(message.match_over.points)}
            return
    yield {"type": "error", "error": "the stream ended before the match did (it was cut off)"}


async def spectate(address: str, admin_token: str, match_id: str) -> AsyncGenerator[dict[str, Any], None]:
    """A match on a league's referee, from its Spectate stream (:func:`public_frames`).
    Raises ``grpc.aio.AioRpcError`` before the first message (no such match, a wrong
    token); a failure later ends the stream with an ``error`` message."""
    import grpc

    from spite.v1 import referee_pb2_grpc

    metadata = ((_ADMIN_METADATA, admin_token),)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
        status = await stub.GetMatch(rpb.GetMatchRequest(match_id=match_id), metadata=metadata, timeout=10)
        rules = rules_from_proto(status.rules)
        seats = [s.name or f"seat {s.seat}" for s in status.seats] or [f"seat {i}" for i in range(rules.players)]
        stream = public_frames(rules, seats, match_id, stub.Spectate(rpb.SpectateRequest(match_id=match_id),
                                                                     metadata=metadata))
        try:
            async for message in stream:
                yield message
        except grpc.aio.AioRpcError as error:
            yield {"type": "error", "error": error.code().name}
        finally:
            await stream.aclose()


def sse(first: dict[str, Any], stream: AsyncGenerator[dict[str, Any], None],
        done: Callable[[], None] = lambda: None) -> Response:
    """The viewer's messages as server-sent events (``first`` already read from ``stream``);
    ``done`` runs when the stream ends or the browser leaves."""
    async def events() -> AsyncIterator[str]:
        try:
            yield f"data: {json.dumps(first)}\n\n"
            async for message in stream:
                yield f"data: {json.dumps(message)}\n\n"
        finally:
            await stream.aclose()
            done()

    # a proxy passes each event on
    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


# -- a ladder's games in play, from their feed files ---------------------------------------

POLL_S = 0.25
"""How often a follower looks for new lines in a feed it has read to the end: a person sees a
move at most this late, and 200 followers wake ``spite serve``'s loop (where the lobby's
referee runs too) 800 times a second, not thousands."""
HEADER_WAIT_S = 5.0
"""How long a feed just created may take to get its header line."""
MAX_LINE = 1 << 20
"""The longest line a feed may hold (a batch of a few events is under a kilobyte)."""


class FeedError(ValueError):
    """A file that is not a readable feed."""


class FeedReader:
    """Complete lines of a file another process appends to, and whether it still does."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.source = open(path, "rb")  # FileNotFoundError: not in play
        self.buffer = b""

    def line(self) -> str | None:
        """The next complete line, or None for none yet."""
        while b"\n" not in self.buffer:
            more = self.source.read(65536)
            if not more:
                return None
            self.buffer += more
            if len(self.buffer) > MAX_LINE and b"\n" not in self.buffer:
                raise FeedError(f"a line of {self.path.name} is over {MAX_LINE} bytes")
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("ascii", errors="replace")

    def abandoned(self) -> bool:
        """The writer is gone: the file was removed, or replaced by a new attempt's feed."""
        if os.fstat(self.source.fileno()).st_nlink == 0:
            return True
        try:
            return os.stat(self.path).st_ino != os.fstat(self.source.fileno()).st_ino
        except FileNotFoundError:
            return True

    def close(self) -> None:
        self.source.close()


async def follow_feed(path: Path) -> tuple[RuleSet, AsyncGenerator[rpb.SpectatorMessage, None]]:
    """The rule set of the feed at ``path`` and its messages, from the first, following the
    file until its end line (or until it is removed or replaced). Raises ``FileNotFoundError``
    (no such game in play) or :class:`FeedError`."""
    reader = FeedReader(path)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HEADER_WAIT_S
        while (first := reader.line()) is None:
            if loop.time() > deadline or reader.abandoned():
                raise FeedError(f"{path.name} has no header")
            await asyncio.sleep(POLL_S)
        try:
            header = json.loads(first)
            known = header.get("format") == feed.FORMAT and header.get("version") == feed.VERSION
            rules = rules_from_proto(game_pb2.RuleSet.FromString(base64.b64decode(header["rules"], validate=True)))
        except (ValueError, KeyError, TypeError, AttributeError, DecodeError) as error:
            raise FeedError(f"{path.name} has no readable header: {error}") from None
        if not known:
            raise FeedError(f"{path.name} is not a {feed.FORMAT} {feed.VERSION} feed")
    except BaseException:
        reader.close()
        raise

    async def messages() -> AsyncGenerator[rpb.SpectatorMessage, None]:
        try:
            while True:
                try:
                    line = reader.line()
                    if line is None and not reader.abandoned():
                        await asyncio.sleep(POLL_S)
                        continue
                    if line is None:
                        line = reader.line()  # what was written before the writer went
                    if line is None or line == feed.END:
                        return
                    message = rpb.SpectatorMessage.FromString(base64.b64decode(line, validate=True))
                except (ValueError, DecodeError):  # a torn or endless line (a full disk): ends as cut off
                    return
                yield message
        finally:
            reader.close()

    return rules, messages()


MAX_STREAMS, STREAMS_PER_ADDRESS = 200, 8
"""Live views open at once on the ladder's web face, in all and from one client address."""


@dataclass
class LadderLive:
    """The ladder's live views: the feeds' folder (``DATA/live``) and the streams open now."""

    directory: Path
    open: Counter[str] = field(default_factory=Counter)

    def games(self) -> list[int]:
        """The ids of the games in play, newest first."""
        found = (p.name.removesuffix(feed.SUFFIX) for p in self.directory.glob(f"*{feed.SUFFIX}"))
        return sorted((int(n) for n in found if n.isdigit() and len(n) <= 18), reverse=True)

    def take(self, address: str) -> Callable[[], None]:
        """Count one more stream from ``address`` (429 past the limits); returns its release."""
        if sum(self.open.values()) >= MAX_STREAMS:
            raise HTTPException(429, f"{MAX_STREAMS} live views are open already; try again in a minute")
        if self.open[address] >= STREAMS_PER_ADDRESS:
            raise HTTPException(429, f"{STREAMS_PER_ADDRESS} live views are open from this address; close one")
        self.open[address] += 1

        def release() -> None:
            self.open[address] -= 1
            if self.open[address] <= 0:
                del self.open[address]
        return release


Page = Callable[..., Response]
"""How a face renders one of its pages: ``page(template, request, **context)``."""


def ladder_routes(directory: Path, page: Page) -> list[Route]:
    """The ladder's live routes over the feeds in ``directory``: ``/live`` (the games in play),
    ``/games/{id}/live`` (one, in the viewer), ``/api/live`` and ``/api/games/{id}/live`` (SSE);
    the pages are rendered by the face's own ``page`` (its name, navigation and templates)."""
    live = LadderLive(directory)
    return [Route("/live", partial(ladder_index, live, page)), Route("/api/live", partial(ladder_list, live)),
            Route("/games/{gid:id}/live", partial(ladder_page, live, page)),
            Route("/api/games/{gid:id}/live", partial(ladder_stream, live))]


async def ladder_index(live: LadderLive, page: Page, request: Request) -> Response:
    return page("live_list.html", request, games=live.games())


async def ladder_list(live: LadderLive, request: Request) -> Response:
    return JSONResponse({"games": [{"id": g, "live": f"/games/{g}/live", "api": f"/api/games/{g}/live"}
                                   for g in live.games()]})


async def ladder_page(live: LadderLive, page: Page, request: Request) -> Response:
    game = request.path_params["gid"]
    if not feed.feed_path(live.directory, game).exists():
        raise HTTPException(404, f"game {game} is not in play (see /live for the games in play)")
    return page("live.html", request, what=f"game {game}", api=f"/api/games/{game}/live")


async def ladder_stream(live: LadderLive, request: Request) -> Response:
    """Server-sent events: a ladder game in play, its seats anonymous (``seat N``) until it is over."""
    game = request.path_params["gid"]
    release = live.take(request.client.host if request.client else "?")
    try:
        rules, messages = await follow_feed(feed.feed_path(live.directory, game))
    except FileNotFoundError:
        release()
        raise HTTPException(404, f"game {game} is not in play (see /api/live for the games in play)") from None
    except FeedError as error:
        release()
        raise HTTPException(404, f"game {game} has no live view: {error}") from None
    stream = public_frames(rules, [f"seat {i}" for i in range(rules.players)], str(game), messages)
    return sse(await stream.__anext__(), stream, release)
