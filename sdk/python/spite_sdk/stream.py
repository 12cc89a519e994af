"""A ``Play`` stream read and written on the calling thread, with no event loop and no helper
thread: what :meth:`Bot.run` plays on.

Per decision a bot reads one message and writes one. Through ``grpc.aio`` each of those is a
coroutine handed to gRPC's poller thread and back to the event loop; through the synchronous
stub a request iterator is drained by a thread of its own. Against ``bench/echo.py``'s bare
gRPC server a client spends 100-150 µs of CPU per round trip the first way, 76-129 the second,
before it decodes anything (``docs/performance.md``, "The Python SDK's side of a decision";
``bench/transport_speed.py`` measures a bot's CPU per decision). gRPC's own single-threaded
unary-stream calls (``grpc.experimental.ChannelOptions.SingleThreadedUnaryStream``) show the
way: a *segregated* call owns a completion queue that the calling thread polls itself. Here
each answer and the read of the next message go to gRPC as one batch, and the thread waits
for that batch alone: against a bare echo, about a third of grpc.aio's CPU per round trip.

gRPC has no public bidirectional form of this, so :class:`BlockingStream` uses the channel's
``cygrpc`` call (the one ``SingleThreadedUnaryStream`` uses). :func:`supported` says whether
the installed grpcio has it; where it does not, :meth:`Bot.run` plays on ``grpc.aio`` as
before. A stream is used by one thread; :meth:`BlockingStream.cancel` may come from another.
"""

from __future__ import annotations

import os
from typing import Any, Final, Sequence

import grpc

__all__ = ["BlockingStream", "supported"]

try:
    from grpc._cython import cygrpc as _cygrpc  # gRPC's own core binding, as grpc._channel uses it
except ImportError:  # pragma: no cover - every grpcio wheel has it
    _cygrpc = None

_NEEDED: Final = ("SendInitialMetadataOperation", "SendMessageOperation", "ReceiveMessageOperation",
                  "ReceiveStatusOnClientOperation", "ReceiveInitialMetadataOperation",
                  "SendCloseFromClientOperation", "OperationType", "PropagationConstants", "build_census_context")


OFF_VARIABLE: Final = "SPITE_BLOCKING_STREAM"
"""``SPITE_BLOCKING_STREAM=0`` makes :meth:`Bot.run` play on ``grpc.aio`` even where this
grpcio has the blocking stream: the way out should a grpcio release change the private call
this module drives in a way :func:`supported` cannot see."""


def supported(channel: grpc.Channel) -> bool:
    """Whether this grpcio offers what :class:`BlockingStream` needs on ``channel`` (and
    ``SPITE_BLOCKING_STREAM`` does not say 0)."""
    if os.environ.get(OFF_VARIABLE, "").strip() == "0":
        return False
    core = getattr(channel, "_channel", None)
    return (_cygrpc is not None and all(hasattr(_cygrpc, name) for name in _NEEDED)
            and callable(getattr(core, "segregated_call", None)))


class BlockingStream:
    """One bidirectional-streaming call on ``channel`` (bytes in, bytes out), driven by the
    calling thread: :meth:`exchange` writes a message (or none) and reads the next one."""

    def __init__(self, channel: grpc.Channel, method: str, metadata: Sequence[tuple[str, str]]) -> None:
        c = _cygrpc
        assert c is not None
        self._types = c.OperationType
        self._receive = c.ReceiveMessageOperation
        self._send = c.SendMessageOperation
        self.code: grpc.StatusCode | None = None
        """The stream's status once it has ended."""
        self.details = ""
        operations = (
            ((c.SendInitialMetadataOperation(tuple(metadata), 0),), None),
            ((c.ReceiveStatusOnClientOperation(0),), None),
            ((c.ReceiveInitialMetadataOperation(0),), None),
        )
        self._call: Any = channel._channel.segregated_call(
            c.PropagationConstants.GRPC_PROPAGATE_DEFAULTS, method.encode(), None, None, None, None,
            operations, c.build_census_context(), None)

    def exchange(self, message: bytes | None) -> bytes | None:
        """Write ``message`` (None: write nothing) and return the next message read; None when the
        stream has ended (its status is then in ``code`` and ``details``)."""
        if message is None:
            operations: tuple[Any, ...] = (self._receive(0),)
        else:
            operations = (self._send(message, 0), self._receive(0))
        if not self._call.operate(operations, None):
            self._wait_status()
            return None
        receive = self._types.receive_message
        while True:
            event = self._call.next_event()
            received = False
            data = None
            for operation in event.batch_operations:
                kind = operation.type()
                if kind == receive:
                    received, data = True, operation.message()
                elif kind == self._types.receive_status_on_client:
                    self._status(operation)
            if received:
                if data is None:
                    self._wait_status()
                return data

    def close(self) -> None:
        """Half-close: the bot writes nothing more; then wait for the referee to end the stream."""
        c = _cygrpc
        assert c is not None
        if self._call.operate((c.SendCloseFromClientOperation(0),), None):
            self._wait_status()

    def cancel(self) -> None:
        """End the call now (from any thread): a wait in :meth:`exchange` or :meth:`close` returns."""
        self._call.cancel(_cygrpc.StatusCode.cancelled, "cancelled by the bot")

    def _wait_status(self) -> None:
        while self.code is None:
            event = self._call.next_event()
            for operation in event.batch_operations:
                if operation.type() == self._types.receive_status_on_client:
                    self._status(operation)

    def _status(self, operation: Any) -> None:
        self.code = _STATUS.get(operation.code(), grpc.StatusCode.UNKNOWN)
        details = operation.details()
        self.details = details.decode("utf-8", "replace") if isinstance(details, bytes) else str(details or "")


_STATUS: Final[dict[int, grpc.StatusCode]] = {code.value[0]: code for code in grpc.StatusCode}
