"""How a bot reaches its referee: the configuration it reads from the environment (the
address, the seat token, TLS), the gRPC channel's options, and what each status the
referee ends a stream with means for the bot's author.

Configuration comes from the environment, never from the command line (a token in
argv is visible to every user of the machine):

==================  ======================================================
SPITE_ADDRESS       the referee: ``host:port`` or ``unix:/path``
SPITE_TOKEN         the seat's secret token, or
SPITE_TOKEN_FILE    a file holding it
SPITE_STDIO         ``protobuf``: the referee started the bot on its pipes; play there
                    (:mod:`spite_sdk.pipe`), with no address
SPITE_LOG_LEVEL     ``DEBUG``, ``INFO``, ``WARNING`` (default), ``ERROR``
SPITE_CONNECT_TIMEOUT  seconds to wait for the referee to accept the connection (30)
SPITE_TLS_CA        connect over TLS, trusting the CA certificate (PEM) in this file
SPITE_TLS           ``1``: connect over TLS trusting the system's roots (also implied by
                    ``SPITE_ADDRESS=tls:host:port`` or any other SPITE_TLS_* variable)
SPITE_TLS_CERT      mutual TLS: this bot's certificate chain (PEM), with
SPITE_TLS_KEY       its private key (PEM)
SPITE_TLS_SERVER_NAME  the name to check the referee's certificate against, when it is not
                    the host in SPITE_ADDRESS (e.g. ``localhost`` while dialling 127.0.0.1)
==================  ======================================================
"""

from __future__ import annotations

import logging
import math
import os
import sys
from dataclasses import dataclass
from typing import Any, Final

import grpc
import grpc.aio

__all__ = ["ConfigError", "RefereeError", "PROTOCOL_VERSION", "channel_options", "read_token", "TlsSettings",
           "read_tls", "env_seconds", "env_number", "configure_logging"]

PROTOCOL_VERSION: Final = 1
"""The protocol version this SDK speaks."""

MAX_MESSAGE_BYTES: Final = 64 * 1024
MAX_NAME_BYTES: Final = 64
DEFAULT_CONNECT_TIMEOUT: Final = 30.0
TOKEN_METADATA_KEY: Final = "spite-token"

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
"""The referee ended the stream with an error, or the bot raised an exception."""
EXIT_CONFIG: Final = 2
"""No address or no token."""

logger = logging.getLogger("spite_sdk")

# What each status the referee ends a stream with means for the bot's author
# (referee.proto, rpc Play).
STATUS_MEANINGS: Final = {
    grpc.StatusCode.UNAUTHENTICATED: "the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE)",
    grpc.StatusCode.ALREADY_EXISTS: "the referee already has a bot on this seat (is a second copy running?)",
    grpc.StatusCode.FAILED_PRECONDITION: f"the referee does not speak protocol version {PROTOCOL_VERSION} "
                                         "(update spite-sdk) or refused the seat now",
    grpc.StatusCode.INVALID_ARGUMENT: "the referee rejected a message from this bot as malformed",
    grpc.StatusCode.RESOURCE_EXHAUSTED: f"a message exceeded the {MAX_MESSAGE_BYTES // 1024} KiB limit",
    grpc.StatusCode.UNAVAILABLE: "the referee is unavailable (not running, or it went away)",
    grpc.StatusCode.CANCELLED: "the stream was cancelled (the referee stopped the match or shut down)",
    grpc.StatusCode.DEADLINE_EXCEEDED: "the referee's deadline passed",
    grpc.StatusCode.UNIMPLEMENTED: "the server at this address is not a Spite Arena referee",
}


class ConfigError(Exception):
    """The bot cannot start: no address or no token."""


class RefereeError(Exception):
    """The referee ended the stream before the match was over, or refused it."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None, details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.details = details

    @classmethod
    def from_rpc_error(cls, error: grpc.aio.AioRpcError) -> RefereeError:
        code = error.code()
        meaning = STATUS_MEANINGS.get(code, "the referee ended the stream with an error")
        return cls(meaning, code, error.details() or "")

    def __str__(self) -> str:
        if self.code is None:
            return self.message
        return f"{self.message} ({self.code.name}: {self.details or 'no details'})"


def channel_options(address: str) -> list[tuple[str, Any]]:
    """The channel options bots use: 64 KiB messages both ways, and keepalive pings so a
    referee that vanished (a dead host, a cut connection) ends the bot instead of hanging it.

    The referee must allow a ping every 30 s while a stream is open
    (``grpc.http2.min_ping_interval_without_data_ms`` <= 30000 on the server).
    """
    options: list[tuple[str, Any]] = [
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.primary_user_agent", "spite-sdk-python"),
    ]
    host = address.rsplit(":", 1)[0].strip("[]") if not address.startswith("unix") else ""
    if address.startswith("unix") or host in ("localhost", "127.0.0.1", "::1"):
        # A local referee is never behind a proxy; an http_proxy variable must not reroute it.
        options.append(("grpc.enable_http_proxy", 0))
    return options


def _dial(address: str, tls: TlsSettings | None) -> tuple[str, list[tuple[str, Any]], grpc.ChannelCredentials | None]:
    """Where to dial (a ``tls:`` prefix dropped), the channel options and the credentials
    (None: plaintext) for a channel to ``address``."""
    target = address.removeprefix("tls://").removeprefix("tls:")
    options = channel_options(target)
    if tls is None:
        return target, options, None
    if tls.server_name:
        options.append(("grpc.ssl_target_name_override", tls.server_name))
    return target, options, tls.credentials()


def open_channel(address: str, tls: TlsSettings | None) -> grpc.aio.Channel:
    """An asyncio channel to a referee or an arena at ``address`` (``tls`` None: plaintext)."""
    target, options, credentials = _dial(address, tls)
    if credentials is None:
        return grpc.aio.insecure_channel(target, options=options)
    return grpc.aio.secure_channel(target, credentials, options=options)


def open_blocking_channel(address: str, tls: TlsSettings | None) -> grpc.Channel:
    """:func:`open_channel` for a bot that plays on its own thread, without an event loop."""
    target, options, credentials = _dial(address, tls)
    if credentials is None:
        return grpc.insecure_channel(target, options=options)
    return grpc.secure_channel(target, credentials, options=options)


def read_token(environ: os._Environ[str] | dict[str, str] | None = None) -> str:
    """The seat token from ``SPITE_TOKEN``, else from the file named by ``SPITE_TOKEN_FILE``
    (the bots a referee starts get ``/dev/fd/N``, an inherited pipe, closed once read)."""
    env = os.environ if environ is None else environ
    token = env.get("SPITE_TOKEN", "").strip()
    if token:
        return token
    path = env.get("SPITE_TOKEN_FILE", "")
    if not path:
        raise ConfigError("no seat token: set SPITE_TOKEN, or SPITE_TOKEN_FILE to a file holding it "
                          "(the referee or `spite play` does this for the bots it starts)")
    try:
        with open(path, encoding="utf-8") as file:
            token = file.read().strip()
    except OSError as error:
        raise ConfigError(f"cannot read the seat token from SPITE_TOKEN_FILE={path}: {error.strerror}") from None
    inherited = path[len("/dev/fd/"):] if path.startswith("/dev/fd/") else ""
    if inherited.isdigit():  # the launcher's pipe: read once, then closed
        try:
            os.close(int(inherited))
        except OSError:
            pass
    if not token:
        raise ConfigError(f"the token file {path} is empty")
    return token


@dataclass(frozen=True)
class TlsSettings:
    """How to reach a TLS referee: the CA to trust (None: the system's roots), the bot's
    own certificate and key for mutual TLS (PEM bytes), and a server-name override."""

    root_certificates: bytes | None = None
    certificate_chain: bytes | None = None
    private_key: bytes | None = None
    server_name: str = ""

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(self.root_certificates, self.private_key, self.certificate_chain)


def read_tls(environ: os._Environ[str] | dict[str, str] | None = None, address: str = "") -> TlsSettings | None:
    """TLS settings from ``SPITE_TLS*`` (None: plaintext); raises :class:`ConfigError`
    for an unreadable file or a certificate without its key."""
    env = os.environ if environ is None else environ
    names = ("SPITE_TLS_CA", "SPITE_TLS_CERT", "SPITE_TLS_KEY", "SPITE_TLS_SERVER_NAME")
    wanted = env.get("SPITE_TLS", "").strip().lower() in ("1", "true", "yes") or address.startswith("tls:")
    if not wanted and not any(env.get(name, "").strip() for name in names):
        return None
    if bool(env.get("SPITE_TLS_CERT", "").strip()) != bool(env.get("SPITE_TLS_KEY", "").strip()):
        raise ConfigError("SPITE_TLS_CERT and SPITE_TLS_KEY go together (mutual TLS needs both)")

    def pem(name: str) -> bytes | None:
        path = env.get(name, "").strip()
        if not path:
            return None
        try:
            with open(path, "rb") as file:
                return file.read()
        except OSError as error:
            raise ConfigError(f"cannot read {name}={path}: {error.strerror}") from None

    return TlsSettings(pem("SPITE_TLS_CA"), pem("SPITE_TLS_CERT"), pem("SPITE_TLS_KEY"),
                       env.get("SPITE_TLS_SERVER_NAME", "").strip())


def cut_utf8(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


async def tls_failure(channel: grpc.aio.Channel) -> str:
    """Why a TLS channel never became ready, from one quick call's status (gRPC keeps the
    handshake error there, e.g. CERTIFICATE_VERIFY_FAILED)."""
    try:
        await channel.unary_unary("/spite.v1.Referee/GetMatch")(b"", timeout=2.0)
    except grpc.aio.AioRpcError as error:
        return _tls_hint(error.details())
    return ""


def blocking_tls_failure(channel: grpc.Channel) -> str:
    """:func:`tls_failure` on a blocking channel."""
    try:
        channel.unary_unary("/spite.v1.Referee/GetMatch")(b"", timeout=2.0)
    except grpc.RpcError as error:
        return _tls_hint(error.details())
    return ""


def _tls_hint(details: str | None) -> str:
    return (f" TLS: {details}; check SPITE_TLS_CA (the CA that signed the referee's certificate), "
            "SPITE_TLS_SERVER_NAME, and for mutual TLS SPITE_TLS_CERT/SPITE_TLS_KEY")


def env_seconds(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds, got {text!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {text!r}")
    return value


def env_number(name: str, low: float, high: float, *, whole: bool = False) -> float | None:
    """A bot's numeric setting from the environment variable ``name`` (None: unset or blank);
    raises :class:`ConfigError`, one line naming the range, when it is not a number from
    ``low`` to ``high`` (``whole``: a whole number)."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    kind = "a whole number" if whole else "a number"
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not low <= value <= high or (whole and not value.is_integer()):
        raise ConfigError(f"{name} must be {kind} from {_figure(low)} to {_figure(high)}, got {text!r}")
    return value


def _figure(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def configure_logging() -> None:
    level_name = os.environ.get("SPITE_LOG_LEVEL", "WARNING").strip().upper() or "WARNING"
    level = logging.getLevelName(level_name)
    if not isinstance(level, int):
        print(f"SPITE_LOG_LEVEL={level_name!r} is not a logging level; using WARNING", file=sys.stderr)
        level = logging.WARNING
    if not logging.getLogger().handlers:
        # The bot's own logging follows SPITE_LOG_LEVEL too, unless it set logging up itself.
        logging.basicConfig(stream=sys.stderr, level=level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logger.setLevel(level)
    for chatty in ("asyncio", "grpc"):  # their DEBUG lines are about the event loop, not the game
        logging.getLogger(chatty).setLevel(max(level, logging.INFO))
