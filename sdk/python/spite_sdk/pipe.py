"""Playing on the referee's pipes: length-delimited protobuf frames on stdin and stdout.

A bot whose ``bot.toml`` says ``transport = "stdio"`` and ``stdio_format = "protobuf"`` is
started by the referee with ``SPITE_STDIO=protobuf`` and no address: ``Bot.run()`` then plays
its seat here instead of dialling gRPC. The messages are the ``Play`` stream's, each written
as protobuf's delimited format (its size in bytes as a varint, then its wire bytes), so the
session, its hooks and the compact and warm behaviour are exactly those of gRPC: the same
``Bot._session`` talks to a :class:`PipeCall`, which offers the part of a ``grpc.aio`` stream
call that the session uses. The seat token comes from ``SPITE_TOKEN_FILE`` (or
``SPITE_TOKEN``) when there is one; without it the pipes say which seat this is.

The frames own the process's stdout while it plays: :meth:`PipeCall.take_over_stdio` moves
them to a descriptor of their own and points descriptor 1 at stderr (the bot's log), so a
``print()`` in a bot, or a library or child process writing to stdout, lands in the log
instead of cutting a frame in half. stdin likewise becomes ``/dev/null``.

``SPITE_STDIO=json`` (the stdio transport's JSON lines) is not spoken by this SDK: its bots
say ``stdio_format = "protobuf"``, or use gRPC.
"""

from __future__ import annotations

import asyncio
import os
import select
import sys
import traceback
from typing import Any, Protocol

import grpc
import grpc.aio

from spite.v1 import referee_pb2
from spite_wire.encoding import varint

from .connection import EXIT_CONFIG, EXIT_FAILED, MAX_MESSAGE_BYTES, ConfigError, RefereeError, read_token
from .types import MatchResult

STDIO_VARIABLE = "SPITE_STDIO"
FORMAT = "protobuf"
MAX_VARINT_BYTES = 10
_CHUNK = 65536


class Session(Protocol):
    """What playing on pipes needs of a bot (:class:`spite_sdk.Bot` is one)."""

    @property
    def display_name(self) -> str: ...

    async def _session(self, call: Any, token: str) -> MatchResult: ...


def stdio_requested() -> bool:
    """Whether the referee started this process on its pipes (``SPITE_STDIO`` is set)."""
    return bool(os.environ.get(STDIO_VARIABLE, "").strip())


class PipeCall:
    """A ``Play`` stream over two pipe descriptors, shaped like ``grpc.aio``'s stream call as far
    as ``Bot._session`` uses it, bytes both ways: ``write`` (a ``BotMessage``'s bytes), ``read``
    (a ``RefereeMessage``'s bytes, or ``grpc.aio.EOF`` when the referee closes the pipe), ``code``
    (``OK`` once the stream has ended), ``details`` and ``done_writing``.

    Reads and writes block: the session is the process's only work, and a blocking ``read(2)``
    is one system call where the event loop would add a poll and a wake-up per message."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._in = read_fd
        self._out: int | None = write_fd
        self._buffer = bytearray()
        self._ended = False

    @classmethod
    def take_over_stdio(cls) -> PipeCall:
        """The frames move to descriptors of their own; descriptor 1 becomes stderr and 0
        ``/dev/null``, so nothing else the process does can write into or read from them."""
        for stream in (sys.stdout, sys.__stdout__):
            if stream is not None:
                stream.flush()
        frames_in, frames_out = os.dup(0), os.dup(1)  # not inherited by any child process
        os.dup2(2, 1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        return cls(frames_in, frames_out)

    async def write(self, message: bytes | referee_pb2.BotMessage) -> None:
        if self._out is None:
            raise RefereeError("the bot wrote after it had closed its stdout")
        body = message if isinstance(message, bytes) else message.SerializeToString()
        frame = memoryview(varint(len(body)) + body)
        try:
            while frame:
                frame = frame[os.write(self._out, frame):]
        except BrokenPipeError:
            raise RefereeError("the referee stopped reading the bot's stdout (its session is over)") from None

    async def read(self) -> Any:
        """The next frame's bytes (the session parses them: bytes that are no RefereeMessage
        are a RefereeError there), or ``grpc.aio.EOF``."""
        frame = self._next_frame(block=True)
        return grpc.aio.EOF if frame is None else frame

    async def code(self) -> grpc.StatusCode:
        """``OK`` once the referee has closed the pipe; frames before that (none are expected)
        are dropped. It waits without blocking the event loop, so a timeout around it works."""
        while not self._ended:
            if self._next_frame(block=False) is None and not self._ended:
                await asyncio.sleep(0.005)
        return grpc.StatusCode.OK

    async def details(self) -> str:
        return ""

    async def done_writing(self) -> None:
        """Close the frames' stdout: the referee reads its end."""
        if self._out is not None:
            os.close(self._out)
            self._out = None

    def _next_frame(self, block: bool) -> bytes | None:
        """The next whole frame's message bytes; None at the end of the stream (or, not
        blocking, when no whole frame has arrived yet)."""
        buffer = self._buffer
        while True:
            if buffer:
                size, head = _frame_size(buffer)
                if head:
                    if size > MAX_MESSAGE_BYTES:
                        raise RefereeError(f"the referee sent a frame of {size} bytes, over "
                                           f"{MAX_MESSAGE_BYTES // 1024} KiB")
                    end = head + size
                    if len(buffer) >= end:
                        frame = bytes(buffer[head:end])
                        del buffer[:end]
                        return frame
            if self._ended or (not block and not select.select([self._in], [], [], 0)[0]):
                return None
            chunk = os.read(self._in, _CHUNK)
            if not chunk:
                self._ended = True
                if buffer:
                    raise RefereeError("the referee's stream ended inside a frame")
                return None
            buffer += chunk


def _frame_size(buffer: bytearray) -> tuple[int, int]:
    """The frame size at the start of ``buffer`` and the bytes its varint takes (0: not all
    of the varint has arrived)."""
    first = buffer[0]
    if first < 0x80:
        return first, 1
    value, shift = 0, 0
    for position in range(min(len(buffer), MAX_VARINT_BYTES)):
        byte = buffer[position]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position + 1
        shift += 7
    if len(buffer) >= MAX_VARINT_BYTES:
        raise RefereeError(f"the referee sent a frame size over {MAX_VARINT_BYTES} bytes")
    return 0, 0


def run_on_pipes(bot: Session) -> MatchResult:
    """``Bot.run()`` for a bot the referee started on its pipes: play the seat with protobuf
    frames on stdin/stdout and return the match's result, or print one line and exit the
    process (status 2 for a format this SDK does not speak, 1 when the referee refused or
    ended the session, or the bot raised an exception)."""
    name = bot.display_name
    try:
        stdio_format = os.environ.get(STDIO_VARIABLE, "").strip()
        if stdio_format != FORMAT:
            raise ConfigError(f"{STDIO_VARIABLE}={stdio_format}: the Python SDK speaks the stdio transport only as "
                              f'protobuf frames; set stdio_format = "protobuf" in bot.toml (or use transport = "grpc")')
        has_token = any(os.environ.get(v, "").strip() for v in ("SPITE_TOKEN", "SPITE_TOKEN_FILE"))
        token = read_token() if has_token else ""
    except ConfigError as error:
        print(f"{name}: {error}", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_CONFIG) from None
    call = PipeCall.take_over_stdio()
    try:
        return asyncio.run(bot._session(call, token))
    except RefereeError as error:
        print(f"{name}: {error}", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_FAILED) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except Exception:
        traceback.print_exc()
        print(f"{name}: the bot raised an exception and stopped (the referee counts this as a crash)",
              file=sys.stderr, flush=True)
        raise SystemExit(EXIT_FAILED) from None
