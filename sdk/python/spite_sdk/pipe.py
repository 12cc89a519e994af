"""Playing on the referee's pipes: length-delimited protobuf frames on stdin and stdout.

A bot whose ``bot.toml`` says ``transport = "stdio"`` and ``stdio_format = "protobuf"`` is
started by the referee with ``SPITE_STDIO=protobuf`` and no address: ``Bot.run()`` then plays
its seat here instead of dialling gRPC. The messages are the ``Play`` stream's, each written
as protobuf's delimited format (its size in bytes as a varint, then its wire bytes), so the
session, its hooks and the compact and warm behaviour are exactly those of gRPC: the same
:class:`~spite_sdk.session.Session` turns each frame into the bot's hooks and its answer,
on this thread, with blocking reads and writes on the :class:`Pipes` (no event loop: one
``read(2)`` and one ``write(2)`` per decision). The seat token comes from
``SPITE_TOKEN_FILE`` (or ``SPITE_TOKEN``) when there is one; without it the pipes say which
seat this is.

The frames own the process's stdout while it plays: :meth:`Pipes.take_over_stdio` moves
them to a descriptor of their own and points descriptor 1 at stderr (the bot's log), so a
``print()`` in a bot, or a library or child process writing to stdout, lands in the log
instead of cutting a frame in half. stdin likewise becomes ``/dev/null``.

``SPITE_STDIO=json`` (the stdio transport's JSON lines) is not spoken by this SDK: its bots
say ``stdio_format = "protobuf"``, or use gRPC.
"""

from __future__ import annotations

import os
import select
import sys
import time

import grpc

from spite_wire.encoding import varint

from .connection import MAX_MESSAGE_BYTES, ConfigError, RefereeError, read_token
from .session import Player, Session
from .types import MatchResult

STDIO_VARIABLE = "SPITE_STDIO"
FORMAT = "protobuf"
MAX_VARINT_BYTES = 10
CLOSE_WAIT_S = 2.0
"""After MatchOver, how long to wait for the referee to close the pipe itself."""
_CHUNK = 65536


def stdio_requested() -> bool:
    """Whether the referee started this process on its pipes (``SPITE_STDIO`` is set)."""
    return bool(os.environ.get(STDIO_VARIABLE, "").strip())


class Pipes:
    """The frames' two pipe descriptors. Reads and writes block: the session is the process's
    only work, and a blocking ``read(2)`` is one system call where an event loop would add a
    poll and a wake-up per message."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._in = read_fd
        self._out: int | None = write_fd
        self._buffer = bytearray()
        self._ended = False

    @classmethod
    def take_over_stdio(cls) -> Pipes:
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

    def write(self, message: bytes) -> None:
        """One frame: ``message`` (a BotMessage's bytes) after its size."""
        if self._out is None:
            raise RefereeError("the bot wrote after it had closed its stdout")
        frame = memoryview(varint(len(message)) + message)
        try:
            while frame:
                frame = frame[os.write(self._out, frame):]
        except BrokenPipeError:
            raise RefereeError("the referee stopped reading the bot's stdout (its session is over)") from None

    def read(self) -> bytes | None:
        """The next frame's message bytes, or None when the referee has closed the pipe."""
        return self._next_frame(block=True)

    def close(self, wait_s: float = CLOSE_WAIT_S) -> None:
        """Close the frames' stdout (the referee reads its end), then give the referee
        ``wait_s`` to close the pipe itself; frames before that (none are expected) are dropped."""
        if self._out is not None:
            os.close(self._out)
            self._out = None
        give_up = time.monotonic() + wait_s
        while not self._ended and (left := give_up - time.monotonic()) > 0:
            if select.select([self._in], [], [], left)[0]:
                self._next_frame(block=False)

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


def pipe_token() -> str:
    """The seat token for a bot on the referee's pipes (``SPITE_TOKEN_FILE`` or ``SPITE_TOKEN``;
    none: the pipes say which seat it is); ``ConfigError`` for a stdio format this SDK does
    not speak."""
    stdio_format = os.environ.get(STDIO_VARIABLE, "").strip()
    if stdio_format != FORMAT:
        raise ConfigError(f"{STDIO_VARIABLE}={stdio_format}: the Python SDK speaks the stdio transport only as "
                          f'protobuf frames; set stdio_format = "protobuf" in bot.toml (or use transport = "grpc")')
    has_token = any(os.environ.get(v, "").strip() for v in ("SPITE_TOKEN", "SPITE_TOKEN_FILE"))
    return read_token() if has_token else ""


def play_on_pipes(bot: Player, token: str) -> MatchResult:
    """Play the seat the referee started this process for, on stdin/stdout as protobuf frames,
    and return the match's result (a warm session's last); raises :class:`RefereeError`."""
    pipes = Pipes.take_over_stdio()
    session = Session(bot)
    answer: bytes | None = session.hello(token)
    while True:
        if answer is not None:
            pipes.write(answer)
        message = pipes.read()
        if message is None:
            return session.ended(grpc.StatusCode.OK, "")
        answer = session.receive(message)
        if session.over is not None:
            pipes.close()
            return session.over
