"""The stdio transport: the same protocol as newline-delimited JSON on a bot's stdin/stdout.

For languages without a good gRPC library (and for competition programmers used to
stdin/stdout), the referee launches the bot itself and exchanges the ``spite.v1``
messages in protobuf's canonical JSON mapping, one message per line. The session is
the same as on gRPC: the bot's first line is a ``Hello`` with its token (from
``SPITE_TOKEN_FILE``, or none: the pipes the referee started it on say which seat it
is), refusals carry the status name gRPC would use, and deadlines,
faults and policies are the match's. Lines over the size cap end the session like an
oversized gRPC message; text that is not a message is a malformed action. stderr is
the bot's log (captured and capped by the launcher).
"""

from __future__ import annotations

import asyncio
import json
from typing import Callable

from google.protobuf import json_format
from spite.v1 import referee_pb2 as rpb

from . import warm
from .launcher import BotProcess
from .match import Closed, Garbled, Match, Seat
from .seats import Outgoing
from spite_wire.canonical_json import referee_message_line
from spite_engine import Ending
from .server import MAX_MESSAGE_BYTES, Arena, SessionRefused


class StdioSeatChannel:
    """A seat's channel over a bot process's stdin (``keep_open``: a warm session's, whose
    stdin outlives the match)."""

    def __init__(self, writer: asyncio.StreamWriter, keep_open: bool = False) -> None:
        self.writer = writer
        self.closed = asyncio.Event()
        self.keep_open = keep_open

    async def send(self, message: Outgoing) -> None:
        self.writer.write(referee_message_line(message))
        await self.writer.drain()

    def close(self) -> None:
        self.closed.set()
        if not self.keep_open and not self.writer.is_closing():
            self.writer.close()


def encode(message: rpb.RefereeMessage) -> bytes:
    """One line of canonical JSON (lowerCamelCase names, enums by name, 64-bit ints as strings)."""
    return referee_message_line(message)


_UINT64 = 2**64


def _plain_action(text: str) -> rpb.BotMessage | None:
    """The common line, ``{"action": {"decisionId": "7", "moveIndex": 3, "debug": "..."}}``,
    read without ``json_format`` (which walks descriptors and costs a stdio session most of
    its time per decision); None for anything else, which the full parser then judges."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if type(data) is not dict or len(data) != 1 or type(action := data.get("action")) is not dict:
        return None
    decision_id, move_index, debug = action.get("decisionId", 0), action.get("moveIndex", 0), action.get("debug", "")
    if not set(action) <= {"decisionId", "moveIndex", "debug"} or type(debug) is not str:
        return None
    if type(decision_id) is str and decision_id.isdigit() and decision_id.isascii():
        decision_id = int(decision_id)
    if type(decision_id) is not int or not 0 <= decision_id < _UINT64:
        return None
    if type(move_index) is not int or not 0 <= move_index < 2**32:
        return None
    return rpb.BotMessage(action=rpb.Action(decision_id=decision_id, move_index=move_index, debug=debug))


def decode(line: bytes) -> rpb.BotMessage:
    """Parse one line; raises ``ValueError`` saying what is wrong with it."""
    text = line.decode("utf-8", errors="replace").strip()
    if not text:
        raise ValueError("an empty line")
    plain = _plain_action(text)
    if plain is not None:
        return plain
    try:
        message: rpb.BotMessage = json_format.Parse(text, rpb.BotMessage())
    except json_format.ParseError as error:
        raise ValueError(f"not a BotMessage in canonical JSON ({error}): {text[:80]!r}") from None
    if message.WhichOneof("body") == "action" and message.action.WhichOneof("choice") is None:
        # proto3 JSON leaves zero values out, and docs/protocol.md says defaults may be: an
        # Action naming no choice at all is moveIndex 0, the first legal move.
        message.action.move_index = 0
    return message


async def _read_line(stream: asyncio.StreamReader) -> bytes | None:
    """The next line, or None at end of stream; ``ValueError`` for a line over the cap."""
    too_long = ValueError(f"a line over {MAX_MESSAGE_BYTES // 1024} KiB")
    try:
        line = await stream.readline()
    except ValueError:  # the stream's limit (set by the launcher) was hit
        raise too_long from None
    if len(line) > MAX_MESSAGE_BYTES:
        raise too_long
    return line or None


async def serve_stdio_seat(arena: Arena, match: Match, seat: Seat, process: BotProcess,
                           hello_timeout_s: float) -> None:
    """Run one stdio bot's session for ``seat``: handshake, then pump its lines to the match."""
    proc = process.process
    if proc is None or proc.stdin is None or proc.stdout is None:
        raise RuntimeError("a stdio bot needs its stdin and stdout as pipes")
    channel = StdioSeatChannel(proc.stdin)

    async def refuse(code: str, message: str) -> None:
        try:
            await channel.send(rpb.RefereeMessage(refusal=rpb.Refusal(code=code, message=message)))
        except (ConnectionError, RuntimeError):
            pass
        channel.close()

    try:
        first = await asyncio.wait_for(_read_line(proc.stdout), hello_timeout_s)
    except (asyncio.TimeoutError, TimeoutError):
        await refuse("DEADLINE_EXCEEDED", f"no Hello within {hello_timeout_s:g} s")
        return
    except ValueError as error:
        await refuse("RESOURCE_EXHAUSTED", str(error))
        return
    if first is None:
        return  # exited or closed stdout before saying anything: the process watcher reports it
    try:
        message = decode(first)
    except ValueError as error:
        await refuse("INVALID_ARGUMENT", f"the first line must be a Hello: {error}")
        return
    if message.WhichOneof("body") != "hello":
        await refuse("INVALID_ARGUMENT", "the first line must be a Hello")
        return
    try:
        # The pipes are the credential: this process was started for this seat, so a Hello
        # without a token is this seat's; a token given must still be the seat's own.
        admitted_match, admitted_seat = arena.admit(message.hello, message.hello.token or seat.token)
    except SessionRefused as refused:
        await refuse(refused.code.name, refused.message)
        return
    if admitted_seat is not seat:
        await refuse("UNAUTHENTICATED", "unknown or expired seat token")
        return
    line = arena.warm_line(message.hello, admitted_match, seat)
    channel.keep_open = line is not None
    await channel.send(admitted_match.welcome(seat))
    admitted_match.attach(seat, warm.WarmChannel(channel, line) if line is not None else channel,
                          message.hello.name, message.hello.version, compact=message.hello.compact)
    try:
        if line is None:
            await _pump_lines(proc.stdout, seat.deliver)
        else:
            await _serve_warm(proc.stdout, proc.stdin, line, seat, channel, message.hello)
    finally:
        _stop_reading(proc)


async def _pump_lines(stdout: asyncio.StreamReader, deliver: Callable[[rpb.BotMessage | Closed | Garbled], None]) -> None:
    """Every line the bot writes, as a message (or garble) to ``deliver``; then how it ended."""
    while True:
        try:
            line = await _read_line(stdout)
        except ValueError as error:
            deliver(Closed(Ending.MALFORMED, f"{error}: the session is closed"))
            return
        except (ConnectionError, OSError) as error:
            deliver(Closed(Ending.CRASH, f"reading the bot's stdout failed ({type(error).__name__})"))
            return
        if line is None:
            deliver(Closed(Ending.DISCONNECT, "the bot closed its stdout before the match ended"))
            return
        try:
            deliver(decode(line))
        except ValueError as error:
            deliver(Garbled(f"unreadable line on stdout: {error}"))


async def _serve_warm(stdout: asyncio.StreamReader, stdin: asyncio.StreamWriter, line: warm.WarmLine, seat: Seat,
                      channel: StdioSeatChannel, hello: rpb.Hello) -> None:
    """A warm stdio session: its first match, then each match offered on ``line``; the
    bot's stdin is closed once there is none."""
    sink: list[warm.Sink] = [line.watching(seat.deliver)]
    reader = asyncio.get_running_loop().create_task(_pump_lines(stdout, lambda item: sink[0](item)))

    async def attach(offer: warm.Offer) -> asyncio.Event:
        now = StdioSeatChannel(stdin, keep_open=True)
        await now.send(offer.match.welcome(offer.seat))
        offer.match.attach(offer.seat, warm.WarmChannel(now, line), hello.name, hello.version, compact=hello.compact)
        sink[0] = line.watching(offer.seat.deliver)
        return now.closed

    def set_sink(deliver: warm.Sink) -> None:
        sink[0] = deliver

    try:
        await channel.closed.wait()
        await warm.serve_next_matches(line, attach, set_sink)
    finally:
        reader.cancel()
        line.lose(line.lost or "the session ended")
        if not stdin.is_closing():
            stdin.close()


def _stop_reading(proc: asyncio.subprocess.Process) -> None:
    """The session is over: close our end of the bot's stdout. Otherwise a bot that went on
    writing (a 10 MB line) leaves the pipe paused with data in it, the pipe never reports its
    end, and the subprocess transport outlives the event loop ("Exception ignored ... Event
    loop is closed" at exit). asyncio offers the pipe only through the process's transport."""
    transport = getattr(proc, "_transport", None)
    pipe = transport.get_pipe_transport(1) if transport is not None else None
    if pipe is not None and not pipe.is_closing():
        pipe.close()
