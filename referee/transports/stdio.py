"""The stdio transport: the same protocol on a bot's stdin/stdout, as JSON lines or protobuf frames.

For languages without a good gRPC library (and for competition programmers used to
stdin/stdout), the referee launches the bot itself and exchanges the ``spite.v1``
messages on its pipes, in one of two formats (the manifest's ``stdio_format``, told to the
bot as ``SPITE_STDIO``): protobuf's canonical JSON mapping, one message per line
(``json``, the default), or length-delimited protobuf frames, each the message's size as a
varint and then its wire bytes (``protobuf``: what ``writeDelimitedTo`` and Go's
``protodelim`` write). Only reading and writing one message differ (a :class:`StdioCodec`);
the session is the same for both and the same as on gRPC (:mod:`referee.transports.session`): the bot's first message
is a
``Hello`` with its token (from ``SPITE_TOKEN_FILE``, or none: the pipes the referee started
it on say which seat it is), refusals carry the status name gRPC would use, and deadlines,
faults and policies are the match's. A line or frame over the size cap (or a frame cut short)
ends the session like an oversized gRPC message; input that is not a message is a malformed
action. stderr is the bot's log (captured and capped by the launcher).
"""

from __future__ import annotations

import asyncio
import json
from typing import Callable, Protocol

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from grpc import StatusCode  # the protocol's names for refusals, on every transport

from referee.core.deadlines import connect_cap_ms
from referee.core.seats import Closed, Garbled, Outgoing, Seat
from referee.processes.launcher import BotProcess
from referee.transports.session import MAX_MESSAGE_BYTES, Arena, Session, SessionRefused, expect_hello
from spite.v1 import referee_pb2 as rpb
from spite_engine import Ending
from spite_wire.canonical_json import referee_message_line
from spite_wire.encoding import varint

MAX_VARINT_BYTES = 10
"""The longest varint protobuf writes (a 64-bit value); a frame's length never needs more."""


class Unreadable(ValueError):
    """The bot's output cannot be read any further (a line or frame over the cap, a frame cut
    by the end of the stream, a length that is not a varint): the session ends (``MALFORMED``;
    before the Hello, a refusal with ``code``)."""

    def __init__(self, why: str, code: str = "RESOURCE_EXHAUSTED") -> None:
        super().__init__(why)
        self.code = code


class StdioCodec(Protocol):
    """How one message is read from and written to a stdio bot's pipes."""

    unit: str
    """What one message is on the pipe, for the faults' wording: ``line`` or ``frame``."""

    async def read(self, stream: asyncio.StreamReader) -> bytes | None:
        """One message's bytes, or None at the end of the stream between messages; raises
        :class:`Unreadable`. Never holds more than the cap of one message in memory."""
        ...

    def decode(self, raw: bytes) -> rpb.BotMessage:
        """The message in ``raw``; ``ValueError`` saying what is wrong with it (a malformed action)."""
        ...

    def encode(self, message: Outgoing) -> bytes:
        """``message`` (or its protobuf wire bytes, as the referee's hot messages come) as written."""
        ...


class StdioSeatChannel:
    """A seat's channel over a bot process's stdin, in ``codec``'s format (``keep_open``: a
    warm session's, whose stdin outlives the match)."""

    def __init__(self, writer: asyncio.StreamWriter, keep_open: bool = False, codec: StdioCodec | None = None) -> None:
        self.writer = writer
        self.closed = asyncio.Event()
        self.keep_open = keep_open
        self.encode = (codec or JSON_LINES).encode

    async def send(self, message: Outgoing) -> None:
        self.writer.write(self.encode(message))
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
    """The next line, or None at end of stream; :class:`Unreadable` for a line over the cap."""
    too_long = Unreadable(f"a line over {MAX_MESSAGE_BYTES // 1024} KiB")
    try:
        line = await stream.readline()
    except ValueError:  # the stream's limit (set by the launcher) was hit
        raise too_long from None
    if len(line) > MAX_MESSAGE_BYTES:
        raise too_long
    return line or None


class JsonLines:
    """``stdio_format = "json"``: one message per line in protobuf's canonical JSON mapping."""

    unit = "line"

    async def read(self, stream: asyncio.StreamReader) -> bytes | None:
        return await _read_line(stream)

    def decode(self, raw: bytes) -> rpb.BotMessage:
        return decode(raw)

    def encode(self, message: Outgoing) -> bytes:
        return referee_message_line(message)


class ProtobufFrames:
    """``stdio_format = "protobuf"``: length-delimited frames, each the message's size in bytes
    as a varint and then the message's wire bytes (protobuf's own delimited format)."""

    unit = "frame"

    async def read(self, stream: asyncio.StreamReader) -> bytes | None:
        try:
            first = await stream.readexactly(1)
        except asyncio.IncompleteReadError:
            return None  # the stream ended between frames
        size = first[0]
        if size & 0x80:
            size = await _rest_of_varint(stream, size)
        if size > MAX_MESSAGE_BYTES:
            raise Unreadable(f"a frame of {size} bytes, over {MAX_MESSAGE_BYTES // 1024} KiB")
        try:
            return await stream.readexactly(size)
        except asyncio.IncompleteReadError as cut:
            raise Unreadable(f"a frame cut short by the end of the stream ({len(cut.partial)} of {size} bytes)",
                             "INVALID_ARGUMENT") from None

    def decode(self, raw: bytes) -> rpb.BotMessage:
        try:
            message: rpb.BotMessage = rpb.BotMessage.FromString(raw)
            return message
        except DecodeError as error:
            raise ValueError(f"not a BotMessage in protobuf wire format ({error}): {raw[:24].hex()}") from None

    def encode(self, message: Outgoing) -> bytes:
        body = message if isinstance(message, bytes) else message.SerializeToString()
        return varint(len(body)) + body


async def _rest_of_varint(stream: asyncio.StreamReader, first: int) -> int:
    """A frame length whose first byte, ``first``, said more bytes follow."""
    value, shift = first & 0x7F, 7
    for _ in range(MAX_VARINT_BYTES - 1):
        try:
            byte = (await stream.readexactly(1))[0]
        except asyncio.IncompleteReadError:
            raise Unreadable("a frame length cut short by the end of the stream", "INVALID_ARGUMENT") from None
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value
        shift += 7
    raise Unreadable(f"a frame length over {MAX_VARINT_BYTES} bytes (not a varint)", "INVALID_ARGUMENT")


JSON_LINES = JsonLines()
PROTOBUF_FRAMES = ProtobufFrames()
CODECS: dict[str, StdioCodec] = {"json": JSON_LINES, "protobuf": PROTOBUF_FRAMES}
"""The codec of each ``stdio_format`` (``referee.processes.manifest.STDIO_FORMATS``)."""


async def serve_stdio_seat(arena: Arena, seat: Seat, process: BotProcess, connect_ms: int) -> None:
    """Carry one launched stdio bot's session (:class:`referee.transports.session.Session`) for ``seat``:
    read its Hello, report a refusal as a ``Refusal`` message, then pump its messages. The pipe
    waits for the Hello as long as the match may wait for the seat to connect (``connect_ms``
    extended up to :func:`~referee.core.deadlines.connect_cap_ms`)."""
    proc = process.process
    if proc is None or proc.stdin is None or proc.stdout is None:
        raise RuntimeError("a stdio bot needs its stdin and stdout as pipes")
    stdin, stdout = proc.stdin, proc.stdout
    codec = CODECS[process.stdio_format]
    try:
        session = await _open(arena, seat, stdout, codec, connect_cap_ms(connect_ms))
    except SessionRefused as refused:
        await _refuse(StdioSeatChannel(stdin, codec=codec), refused.code.name, refused.message)
        return
    except Unreadable as error:
        await _refuse(StdioSeatChannel(stdin, codec=codec), error.code, str(error))
        return
    if session is None:
        return  # exited or closed stdout before saying anything: the process watcher reports it
    reader = asyncio.get_running_loop().create_task(_pump(stdout, codec, session.deliver))
    try:
        await session.run(lambda: StdioSeatChannel(stdin, keep_open=session.warm, codec=codec))
        if not session.warm:
            await reader  # a one-match bot's stdout is read to its end
    finally:
        reader.cancel()
        if session.warm and not stdin.is_closing():
            stdin.close()  # no next match: the warm bot's stdin closes
        _stop_reading(proc)


async def _open(arena: Arena, seat: Seat, stdout: asyncio.StreamReader, codec: StdioCodec,
                wait_ms: int) -> Session | None:
    """The session the bot's first message opens (None: stdout ended first); raises
    :class:`SessionRefused` or :class:`Unreadable`."""
    try:
        first = await asyncio.wait_for(codec.read(stdout), wait_ms / 1000)
    except (asyncio.TimeoutError, TimeoutError):
        raise SessionRefused(StatusCode.DEADLINE_EXCEEDED, f"no Hello within {wait_ms / 1000:g} s") from None
    if first is None:
        return None
    try:
        message = codec.decode(first)
    except ValueError as error:
        raise SessionRefused(StatusCode.INVALID_ARGUMENT, f"the first {codec.unit} must be a Hello: {error}") from None
    hello = expect_hello(message, codec.unit)
    # The pipes are the credential: this process was started for this seat, so a Hello without
    # a token is this seat's; a token given must still be the seat's own.
    return arena.open(hello, hello.token or seat.token, only=seat, rejoin=False)


async def _refuse(channel: StdioSeatChannel, code: str, message: str) -> None:
    """Write a refused session's ``Refusal`` and close the bot's stdin."""
    try:
        await channel.send(rpb.RefereeMessage(refusal=rpb.Refusal(code=code, message=message)))
    except (ConnectionError, RuntimeError):
        pass
    channel.close()


async def _pump(stdout: asyncio.StreamReader, codec: StdioCodec,
                deliver: Callable[[rpb.BotMessage | Closed | Garbled], None]) -> None:
    """Every message the bot writes, as a message (or garble) to ``deliver``; then how it ended."""
    read, decode_one, unreadable = codec.read, codec.decode, f"unreadable {codec.unit} on stdout"
    while True:
        try:
            raw = await read(stdout)
        except Unreadable as error:
            deliver(Closed(Ending.MALFORMED, f"{error}: the session is closed"))
            return
        except (ConnectionError, OSError) as error:
            deliver(Closed(Ending.CRASH, f"reading the bot's stdout failed ({type(error).__name__})"))
            return
        if raw is None:
            deliver(Closed(Ending.DISCONNECT, "the bot closed its stdout before the match ended"))
            return
        try:
            deliver(decode_one(raw))
        except ValueError as error:
            deliver(Garbled(f"{unreadable}: {error}"))


def _stop_reading(proc: asyncio.subprocess.Process) -> None:
    """The session is over: close our end of the bot's stdout. Otherwise a bot that went on
    writing (a 10 MB line) leaves the pipe paused with data in it, the pipe never reports its
    end, and the subprocess transport outlives the event loop ("Exception ignored ... Event
    loop is closed" at exit). asyncio offers the pipe only through the process's transport."""
    transport = getattr(proc, "_transport", None)
    pipe = transport.get_pipe_transport(1) if transport is not None else None
    if pipe is not None and not pipe.is_closing():
        pipe.close()
