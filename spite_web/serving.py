"""How the web faces (``spite web``, ``spite serve``) listen: one socket bound here, refused
with one line when the port is busy; client addresses from the TCP peer unless the
organizer names a trusted proxy; connections that never finish a request's headers closed.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import Any, Sequence

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
"""How long a connection may take to send a request's headers (from its opening, or from the
end of the previous response): an idle or dripping (slowloris) connection is closed then."""


class ListenError(ValueError):
    """The address cannot be listened on; the message is one line, naming the option."""


def split_listen(text: str, option: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as ``(host, port)``; else :class:`ListenError`."""
    host, colon, port = text.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ListenError(f"{option} wants host:port (a port 0..65535), got {text!r}")
    return host.strip("[]"), int(port)


def bind_listener(host: str, port: int, option: str, who: str = "another server") -> socket.socket:
    """A listening TCP socket on ``host:port``, without ``SO_REUSEPORT``: a port another process
    listens on is refused (:class:`ListenError`, "port N is in use (another server?)") instead
    of shared with it."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise ListenError(f"{option} {host}:{port}: unknown host {host!r} ({error.strerror})") from None
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT only, never a live listener
    try:
        listener.bind(address)
        listener.listen(128)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise ListenError(f"{option} {host}:{port}: port {port} is in use ({who}?); choose another port") from None
        raise ListenError(f"{option} {host}:{port}: cannot listen there: {error.strerror}") from None
    listener.setblocking(False)
    return listener


def port_problem(listen: str, option: str, who: str) -> str:
    """Why nothing can listen on ``HOST:PORT`` now (``""``: it can, as far as a probe tells)."""
    try:
        host, port = split_listen(listen, option)
        if port:
            bind_listener(host, port, option, who).close()
    except ListenError as error:
        return str(error)
    return ""


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, with a deadline on each request's headers.

    uvicorn times out an idle keep-alive connection only after a first response, and any
    byte received cancels that timer: a connection that opens and says nothing, or sends a
    header a byte at a time, would be held for ever (300 of them were). Here every
    connection must complete a request's headers within :data:`HEADER_TIMEOUT_S` of its
    opening or of the previous response, else it is closed. A request in progress (headers
    read, body or handler running) is never cut by this timer.
    """

    header_timeout = HEADER_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def _arm_header_deadline(self) -> None:
        self._cycle_at_arming = self.cycle
        self._header_deadline = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _headers_too_slow(self) -> None:
        if self.cycle is self._cycle_at_arming and not self.transport.is_closing():
            self.transport.close()  # no new request's headers arrived in time

    def on_response_complete(self) -> None:
        self._header_deadline.cancel()
        if not self.transport.is_closing():
            self._arm_header_deadline()  # before uvicorn starts a pipelined request's cycle, which it then spares
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._header_deadline.cancel()
        super().connection_lost(exc)


def server_config(app: Any, host: str, port: int, *, trusted_proxies: Sequence[str] = (),
                  header_timeout: float = HEADER_TIMEOUT_S) -> uvicorn.Config:
    """uvicorn's configuration for a web face. ``X-Forwarded-For`` is believed only from the
    ``trusted_proxies`` (addresses or networks, e.g. ``127.0.0.1`` for a reverse proxy on this
    machine); by default the client address is the TCP peer's, so a client cannot pick the
    address a per-address limit counts."""
    protocol = type("HeaderTimeout", (HeaderTimeoutProtocol,), {"header_timeout": header_timeout})
    return uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off", http=protocol,
                          proxy_headers=bool(trusted_proxies),
                          forwarded_allow_ips=list(trusted_proxies) if trusted_proxies else None)
