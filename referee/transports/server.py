"""The gRPC referee: one ``grpc.aio`` process serving many concurrent matches.

The servicer only translates: a Play stream carries one bot session
(:mod:`referee.transports.session`, the same session the stdio transport carries), whose refusals
become the stream's status; the admin calls create, look up and watch the
:class:`~referee.core.match.Match`, which owns the game. Health checking and server reflection are served too, so stock
tools (grpcurl, grpc_health_probe) can talk to it.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator, Callable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from referee.core import limits
from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.core.seats import Closed, Outgoing
from referee.transports.session import MAX_MESSAGE_BYTES, Arena, Session, SessionRefused, expect_hello
from spite.v1 import referee_pb2 as rpb
from spite.v1 import referee_pb2_grpc
from spite_engine import Ending, RulesError, parse_rules

log = logging.getLogger("spite.referee")

UNNAMED_CONNECT_MS = 10_000
"""Time to send Hello on a stream whose metadata names no seat; a stream that names one (the
SDKs send the token as ``spite-token`` metadata) gets its match's ``connect_ms``."""
EOF_SETTLE_S = 0.25
TOKEN_METADATA = "spite-token"
ADMIN_METADATA = "spite-admin-token"

SERVER_OPTIONS = [
    # A port another process listens on is refused, never shared: with gRPC's default
    # SO_REUSEPORT a second server on the same port started silently and took half the calls.
    ("grpc.so_reuseport", 0),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    # Notice a dead bot quickly: ping idle connections every 10 s, give up after 5 s.
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    ("grpc.http2.max_pings_without_data", 0),
]


class GrpcSeatChannel:
    """A seat's channel over a Play stream: writes go straight to the stream."""

    def __init__(self, context: grpc.aio.ServicerContext) -> None:
        self.context = context
        self.closed = asyncio.Event()

    async def send(self, message: Outgoing) -> None:
        await self.context.write(message)  # bytes pass through the Play stream's serializer as they are

    def close(self) -> None:
        self.closed.set()


class RefereeServicer(referee_pb2_grpc.RefereeServicer):
    """Translates the Referee service onto an :class:`Arena`."""

    def __init__(self, arena: Arena, admin_token: str) -> None:
        self.arena = arena
        self._admin_token = admin_token.encode()

    async def _check_admin(self, context: grpc.aio.ServicerContext) -> None:
        supplied = dict(context.invocation_metadata() or ()).get(ADMIN_METADATA, "")
        if not hmac.compare_digest(str(supplied).encode(), self._admin_token):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, f"admin calls need the {ADMIN_METADATA} metadata")

    async def Play(self, request_iterator: AsyncIterator[rpb.BotMessage],  # noqa: N802 (gRPC's name)
                   context: grpc.aio.ServicerContext) -> None:
        """A bot's session on one stream (:class:`referee.transports.session.Session`): this reads the
        Hello, reports a refusal as the stream's status, and carries the messages."""
        pending: asyncio.Queue[rpb.BotMessage | Closed] = asyncio.Queue()
        sink: list[Callable[[rpb.BotMessage | Closed], None]] = [pending.put_nowait]
        reader = asyncio.get_running_loop().create_task(_pump(context, lambda item: sink[0](item)))
        session: Session | None = None
        try:
            named_token = str(dict(context.invocation_metadata() or ()).get(TOKEN_METADATA, ""))
            named = self.arena.find_seat(named_token)
            connect_ms = named[0].config.time_control.connect_ms if named else UNNAMED_CONNECT_MS
            try:
                try:
                    first = await asyncio.wait_for(pending.get(), connect_ms / 1000)
                except (asyncio.TimeoutError, TimeoutError):
                    raise SessionRefused(grpc.StatusCode.DEADLINE_EXCEEDED,
                                         f"no Hello within {connect_ms / 1000:g} s of opening the stream") from None
                hello = expect_hello(first, "message on Play")
                session = self.arena.open(hello, hello.token or named_token)
            except SessionRefused as refused:
                await context.abort(refused.code, refused.message)
                return
            while not pending.empty():
                session.deliver(pending.get_nowait())
            sink[0] = session.deliver
            await session.run(lambda: GrpcSeatChannel(context))
        except asyncio.CancelledError:
            if session is not None:
                session.cut(Closed(Ending.CRASH, "the stream was cut: the bot exited, crashed, or "
                                                 f"sent a message over {MAX_MESSAGE_BYTES // 1024} KiB"))
            raise
        finally:
            reader.cancel()

    async def CreateMatch(self, request: rpb.CreateMatchRequest,  # noqa: N802
                          context: grpc.aio.ServicerContext) -> rpb.CreateMatchResponse:
        await self._check_admin(context)
        try:
            config = match_config_from_pb(request)
        except (RulesError, ValueError) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
            raise  # unreachable: abort raises
        match = self.arena.create(config)
        return rpb.CreateMatchResponse(match_id=match.match_id, seat_tokens=[s.token for s in match.seats])

    async def GetMatch(self, request: rpb.GetMatchRequest,  # noqa: N802
                       context: grpc.aio.ServicerContext) -> rpb.MatchStatus:
        await self._check_admin(context)
        match = self.arena.matches.get(request.match_id)
        if match is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            raise AssertionError("unreachable")  # abort raises
        return match.status_pb()

    async def Spectate(self, request: rpb.SpectateRequest,  # noqa: N802
                       context: grpc.aio.ServicerContext) -> AsyncIterator[rpb.SpectatorMessage]:
        await self._check_admin(context)
        match = self.arena.matches.get(request.match_id)
        if match is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            return
        if match.finished.is_set():
            if match.match_over is not None:
                yield rpb.SpectatorMessage(match_over=match.match_over)
            return
        queue: asyncio.Queue[rpb.SpectatorMessage | None] = asyncio.Queue()
        match.spectators.append(queue)
        try:
            while (message := await queue.get()) is not None:
                yield message
        finally:
            match.spectators.remove(queue)


def _serialize_referee_message(message: Outgoing) -> bytes:
    """The Play stream's serializer: a message, or the bytes ``spite_wire.encoding`` wrote for one."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def add_referee_servicer(servicer: RefereeServicer, server: grpc.aio.Server) -> None:
    """Serve ``servicer`` on ``server``: the generated registration, but Play's replies may be
    ready-written bytes (the referee's hot messages skip protobuf objects)."""
    service = rpb.DESCRIPTOR.services_by_name["Referee"].full_name
    handlers = {
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play, request_deserializer=rpb.BotMessage.FromString,
            response_serializer=_serialize_referee_message),
        "CreateMatch": grpc.unary_unary_rpc_method_handler(
            servicer.CreateMatch, request_deserializer=rpb.CreateMatchRequest.FromString,
            response_serializer=rpb.CreateMatchResponse.SerializeToString),
        "GetMatch": grpc.unary_unary_rpc_method_handler(
            servicer.GetMatch, request_deserializer=rpb.GetMatchRequest.FromString,
            response_serializer=rpb.MatchStatus.SerializeToString),
        "Spectate": grpc.unary_stream_rpc_method_handler(
            servicer.Spectate, request_deserializer=rpb.SpectateRequest.FromString,
            response_serializer=rpb.SpectatorMessage.SerializeToString),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    server.add_registered_method_handlers(service, handlers)


_POLICIES = {rpb.POLICY_FORFEIT: Policy.FORFEIT, rpb.POLICY_SUBSTITUTE: Policy.SUBSTITUTE}


def match_config_from_pb(request: rpb.CreateMatchRequest) -> MatchConfig:
    """The match a CreateMatch asks for, every field checked and none guessed: an empty rule
    set, a seat list of the wrong length, games or a time control out of range
    (``referee/core/limits.py``) or a policy other than forfeit or substitute raise ``ValueError``
    (or ``RulesError``) with one sentence."""
    if not request.rules.strip():
        raise limits.LimitError("rules is empty: name a rule set, e.g. \"standard\" (docs/rules.md)")
    rules = parse_rules(request.rules)
    if len(request.seats) != rules.players:
        raise limits.LimitError(f"seats lists {len(request.seats)} seats; {rules.name} needs {rules.players}")
    if not request.HasField("time_control"):
        raise limits.LimitError("time_control is missing: give decision_ms, bank_ms and connect_ms")
    if request.policy not in _POLICIES:
        raise limits.LimitError(f"policy must be POLICY_FORFEIT or POLICY_SUBSTITUTE, got {request.policy}")
    return MatchConfig(rules=rules, seat_names=[s.name for s in request.seats],
                       time_control=TimeControl.from_pb(request.time_control),
                       games=limits.GAMES.check(request.games), seed=request.seed, policy=_POLICIES[request.policy])


async def _pump(context: grpc.aio.ServicerContext, deliver: Callable[[rpb.BotMessage | Closed], None]) -> None:
    """The reader task: every message from the bot goes to ``deliver``, then how the stream ended."""
    try:
        while True:
            message = await context.read()
            if message is grpc.aio.EOF:
                # A dead connection also reads as EOF, and gRPC cancels the call just after:
                # give it a moment, so a crash is not recorded as a clean disconnect.
                await asyncio.sleep(EOF_SETTLE_S)
                deliver(Closed(Ending.DISCONNECT, "the bot closed its stream before the match ended"))
                return
            deliver(message)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # a broken stream is the bot's crash, never the referee's
        log.info("a Play stream failed: %r", error)
        deliver(Closed(Ending.CRASH, "the stream failed: the connection broke"))


class TlsError(ValueError):
    """TLS cannot be set up: a certificate, key or CA file is missing, unreadable or not PEM."""


@dataclass(frozen=True)
class TlsConfig:
    """The referee's TLS files (PEM). With ``client_ca`` set, every client must present a
    certificate signed by that CA (mutual TLS); without it, any client may connect and the
    seat token alone admits it."""

    cert: Path
    key: Path
    client_ca: Path | None = None

    @property
    def mode(self) -> str:
        """``"mutual TLS"`` or ``"TLS"``, for the start-up line."""
        return "mutual TLS" if self.client_ca is not None else "TLS"

    def credentials(self) -> grpc.ServerCredentials:
        """Read the files; raise :class:`TlsError` naming the one that cannot be used."""
        cert, key = _read_pem(self.cert, "certificate"), _read_pem(self.key, "private key")
        client_ca = _read_pem(self.client_ca, "client CA") if self.client_ca is not None else None
        return grpc.ssl_server_credentials([(key, cert)], root_certificates=client_ca,
                                           require_client_auth=client_ca is not None)


def _read_pem(path: Path, what: str) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise TlsError(f"cannot read the TLS {what} {str(path)!r}: {error.strerror or error}") from None
    if b"-----BEGIN " not in data:
        raise TlsError(f"the TLS {what} {str(path)!r} is not a PEM file (no '-----BEGIN' line)")
    return data


def is_loopback(listen: str) -> bool:
    """True for a listen address only this machine can reach: ``unix:``, localhost, 127.x, ::1."""
    if listen.startswith("unix:"):
        return True
    host = listen.rsplit(":", 1)[0].strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class RunningReferee:
    server: grpc.aio.Server
    arena: Arena
    address: str
    """What a bot dials: ``127.0.0.1:PORT`` or ``unix:/path``."""
    admin_token: str
    mode: str = "plaintext"
    """How bots connect: ``plaintext``, ``TLS`` or ``mutual TLS``."""

    async def stop(self, grace: float = 2.0) -> None:
        """Graceful shutdown: stop taking calls, abort running matches, let streams close."""
        await self.arena.close()
        await self.server.stop(grace)


async def start_referee(listen: str = "127.0.0.1:0", admin_token: str | None = None,
                        credentials: grpc.ServerCredentials | None = None,
                        tls: TlsConfig | None = None) -> RunningReferee:
    """Start a referee on ``listen`` (``host:port``, port 0 for any, or ``unix:/path``).

    ``tls`` serves TLS (mutual TLS with its ``client_ca``); its files are read before the
    server is built, so a missing one raises :class:`TlsError` and nothing listens.
    ``credentials`` takes ready-made gRPC server credentials instead.
    """
    mode = "plaintext" if credentials is None else "TLS"
    if tls is not None:
        credentials, mode = tls.credentials(), tls.mode
    arena = Arena()
    admin_token = admin_token or secrets.token_urlsafe(32)
    server = grpc.aio.server(options=SERVER_OPTIONS)
    add_referee_servicer(RefereeServicer(arena, admin_token), server)
    health_servicer = health.aio.HealthServicer() if hasattr(health, "aio") else health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (rpb.DESCRIPTOR.services_by_name["Referee"].full_name, health.SERVICE_NAME, reflection.SERVICE_NAME)
    reflection.enable_server_reflection(names, server)
    if credentials is None:
        port = server.add_insecure_port(listen)
    else:
        port = server.add_secure_port(listen, credentials)
    await server.start()
    for service in ("", names[0]):
        result = health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
        if asyncio.iscoroutine(result):
            await result
    if listen.startswith("unix:"):
        address = listen
    else:
        host = listen.rsplit(":", 1)[0] or "127.0.0.1"
        address = f"{'127.0.0.1' if host in ('0.0.0.0', '[::]') else host}:{port}"
    return RunningReferee(server, arena, address, admin_token, mode)


GC_THRESHOLDS = (20_000, 50, 100)
"""The collector's thresholds in a referee process (Python's defaults: 700, 10, 10)."""


def tune_gc() -> None:
    """For a process whose main job is refereeing: freeze what start-up made (modules, the
    engine's tables) out of the collector's way, and collect less often. With Python's defaults
    a referee holding 1,000 matches spends its full collections walking every match's objects,
    and the decisions arriving meanwhile wait: bench/referee_load.py measured the p99 added
    latency at 86 ms with the defaults and 15 ms with this. The referee makes few reference
    cycles; what it does make is freed a little later. Called by the entry points that run a
    referee (``spite referee``, ``spite serve``, the tournament worker), never by the library."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def unix_address(directory: Path) -> str:
    return f"unix:{directory / 'referee.sock'}"
