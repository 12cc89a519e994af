"""The bot base class: subclass :class:`Bot`, write ``decide``, call ``run()``.

``run()`` plays one seat of one match over the referee's ``Play`` stream::

    bot                                     referee
    Hello(token, name, version, 1)  ----->            (token also in `spite-token` metadata)
                                    <-----  Welcome               -> on_welcome
                                    <-----  GameStart             -> on_game_start
                                    <-----  EventBatch            -> on_events
                                    <-----  DecisionRequest       -> decide
    Action(decision_id, ...)        ----->
                                    <-----  ActionResult          -> on_result
                                    ...
                                    <-----  GameOver              -> on_game_over
                                    ...     (next game)
                                    <-----  MatchOver             -> on_match_over
    (half-close; exit 0)

Configuration comes from the environment, never from the command line (a token in
argv is visible to every user of the machine):

==================  ======================================================
SPITE_ADDRESS       the referee: ``host:port`` or ``unix:/path``
SPITE_TOKEN         the seat's secret token, or
SPITE_TOKEN_FILE    a file holding it
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

import asyncio
import logging
import os
import random
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Sequence

import grpc
import grpc.aio

from spite.v1 import referee_pb2, referee_pb2_grpc

from .convert import (action_result_from_proto, action_to_proto, event_from_proto, match_result_from_proto,
                      observation_from_proto, outcome_from_proto, welcome_from_proto)
from .types import (ActionResult, Decision, DecisionContext, Event, MatchResult, Move, Observation, Outcome,
                    RuleSet, Welcome)

__all__ = ["Bot", "RefereeError", "ConfigError", "PROTOCOL_VERSION", "channel_options", "TlsSettings", "read_tls"]

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
_STATUS_MEANINGS: Final = {
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
        meaning = _STATUS_MEANINGS.get(code, "the referee ended the stream with an error")
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


def read_token(environ: os._Environ[str] | dict[str, str] | None = None) -> str:
    """The seat token from ``SPITE_TOKEN``, else from the file named by ``SPITE_TOKEN_FILE``."""
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


def _cut(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


async def _tls_failure(channel: grpc.aio.Channel) -> str:
    """Why a TLS channel never became ready, from one quick call's status (gRPC keeps the
    handshake error there, e.g. CERTIFICATE_VERIFY_FAILED)."""
    try:
        await channel.unary_unary("/spite.v1.Referee/GetMatch")(b"", timeout=2.0)
    except grpc.aio.AioRpcError as error:
        return (f" TLS: {error.details()}; check SPITE_TLS_CA (the CA that signed the referee's certificate), "
                "SPITE_TLS_SERVER_NAME, and for mutual TLS SPITE_TLS_CERT/SPITE_TLS_KEY")
    return ""


class Bot:
    """A bot: one ``decide`` method, some optional hooks, and ``run()``.

    ``decide(observation)`` returns one of:

    * a :class:`Move` (usually one of ``observation.legal_moves``);
    * a plan: a list of moves to play in order without a round trip each (the referee
      stops at the first one that reveals something new and asks again);
    * an ``int``: an index into ``observation.legal_moves`` (negative counts from the end);
    * a :class:`Decision` wrapping any of these with a ``debug`` string for the replay.

    While ``decide`` runs, ``self.decision`` holds the request's terms (deadline and time
    bank as ``time.monotonic()`` values). ``self.welcome``, ``self.seat``, ``self.rules``
    and ``self.game_number`` are kept up to date too. ``decide`` runs on the thread that
    reads the stream: the time it takes is the bot's thinking time, nothing is added.
    """

    name: ClassVar[str] = ""
    """Shown in logs and leaderboards (at most 64 bytes); the class name if empty."""
    version: ClassVar[str] = "0"
    """The bot's version (at most 64 bytes)."""

    welcome: Welcome | None = None
    """The terms of the match, once the referee has sent them."""
    decision: DecisionContext | None = None
    """The decision being made, while ``decide`` runs (the last one afterwards)."""
    game_number: int = 0
    """The current game's number within the match, from 0."""

    @property
    def rng(self) -> random.Random:
        """This game's random numbers, reproducible: ``random.Random(f"{seed}:{game}")`` with
        ``seed`` from ``SPITE_BOT_SEED`` (default 0), fresh at each game, so a run with the
        same bot seed (in process or through the referee) makes the same choices."""
        key = (os.environ.get("SPITE_BOT_SEED", "0"), self.game_number)
        if getattr(self, "_rng_key", None) != key:
            self._rng_key = key
            self._rng = random.Random(f"{key[0]}:{key[1]}")
        return self._rng

    @property
    def seat(self) -> int:
        """This bot's seat (after Welcome)."""
        if self.welcome is None:
            raise RuntimeError("the seat is known once the referee's Welcome has arrived")
        return self.welcome.seat

    @property
    def rules(self) -> RuleSet:
        """The match's rule set (after Welcome)."""
        if self.welcome is None:
            raise RuntimeError("the rules are known once the referee's Welcome has arrived")
        return self.welcome.rules

    @property
    def display_name(self) -> str:
        return self.name or type(self).__name__

    # ----------------------------------------------------------------------------------
    # What a bot author writes

    def decide(self, observation: Observation) -> Move | list[Move] | int | Decision:
        """Choose a move (see the class docstring for what to return)."""
        raise NotImplementedError(f"{type(self).__name__} must implement decide(self, observation)")

    def on_welcome(self, welcome: Welcome) -> None:
        """The referee accepted the bot: its seat, the rules, the time control."""

    def on_game_start(self, game_number: int, observation: Observation) -> None:
        """A game begins; ``observation`` is the opening view (no legal moves yet)."""

    def on_events(self, events: tuple[Event, ...]) -> None:
        """Events the referee sent between decisions (an ``EventBatch``). The events since
        the seat's previous decision also arrive in ``observation.events``."""

    def on_result(self, result: ActionResult) -> None:
        """The referee's verdict on an action. By default a rejected action is reported
        on stderr, since a bot author must see what the bot did wrong."""
        if not result.ok:
            print(f"{self.display_name}: decision {result.decision_id} rejected: {result.fault.name}: "
                  f"{result.error}" + (f" (strikes: {result.strikes})" if result.strikes else "")
                  + (f"; the referee played {', '.join(map(str, result.applied))} instead" if result.applied else ""),
                  file=sys.stderr, flush=True)

    def on_game_over(self, game_number: int, outcome: Outcome) -> None:
        """A game ended."""

    def on_match_over(self, result: MatchResult) -> None:
        """The match ended; ``run()`` returns after this."""

    # ----------------------------------------------------------------------------------
    # Running

    def run(self, address: str | None = None) -> MatchResult:
        """Play one match as a separate process: connect to the referee at ``address``
        (default: ``SPITE_ADDRESS``) with the token from ``SPITE_TOKEN`` or
        ``SPITE_TOKEN_FILE``, play until MatchOver and return its result.

        On any failure it prints one clear line to stderr and exits the process:
        status 2 when the address or token is missing, 1 when the referee refused or
        ended the stream, or the bot raised an exception.
        """
        _configure_logging()
        from .arena import ladder_requested, run_ladder
        if address is None and ladder_requested():  # SPITE_ARENA and SPITE_BOT_KEY: a hosted ladder
            try:
                tls = read_tls(address=os.environ["SPITE_ARENA"].strip())
            except ConfigError as error:
                print(f"{self.display_name}: {error}", file=sys.stderr, flush=True)
                raise SystemExit(EXIT_CONFIG) from None
            run_ladder(self, tls, channel_options, RefereeError)
        try:
            address = address or os.environ.get("SPITE_ADDRESS", "").strip()
            if not address:
                raise ConfigError("no referee address: set SPITE_ADDRESS (host:port or unix:/path) "
                                  "or pass it to Bot.run()")
            token = read_token()
            tls = read_tls(address=address)
            connect_timeout = _env_seconds("SPITE_CONNECT_TIMEOUT", DEFAULT_CONNECT_TIMEOUT)
        except ConfigError as error:
            print(f"{self.display_name}: {error}", file=sys.stderr, flush=True)
            raise SystemExit(EXIT_CONFIG) from None
        try:
            return asyncio.run(self.play(address, token, connect_timeout=connect_timeout, tls=tls))
        except RefereeError as error:
            print(f"{self.display_name}: {error}", file=sys.stderr, flush=True)
            raise SystemExit(EXIT_FAILED) from None
        except KeyboardInterrupt:
            raise SystemExit(130) from None
        except Exception:
            traceback.print_exc()
            print(f"{self.display_name}: the bot raised an exception and stopped "
                  f"(the referee counts this as a crash)", file=sys.stderr, flush=True)
            raise SystemExit(EXIT_FAILED) from None

    async def play(self, address: str, token: str, *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                   tls: TlsSettings | None = None) -> MatchResult:
        """Play one match on the running event loop; raises :class:`RefereeError`.
        ``tls`` None connects in plaintext.

        For embedding (tests, notebooks); a bot process uses :meth:`run`.
        """
        # grpc.aio, reading and writing on one event loop, and decide() called inline.
        # Measured against a grpc.aio echo referee on this 2-CPU machine (3000 decisions,
        # median of 10 runs, TCP/unix): aio 567/547 us p50, a sync stub fed by a request
        # queue 587/568 us, aio with decide() in an executor 720/688 us. The sync stub needs a
        # thread to drain the queue and hands each action across threads; aio does neither
        # and turns every failure into one AioRpcError at the read or write that met it.
        address = address.removeprefix("tls://").removeprefix("tls:")
        options = channel_options(address)
        if tls is None:
            channel = grpc.aio.insecure_channel(address, options=options)
        else:
            if tls.server_name:
                options.append(("grpc.ssl_target_name_override", tls.server_name))
            channel = grpc.aio.secure_channel(address, tls.credentials(), options=options)
        async with channel:
            try:
                await asyncio.wait_for(channel.channel_ready(), connect_timeout)
            except asyncio.TimeoutError:
                raise RefereeError(f"cannot reach the referee at {address} (waited {connect_timeout:g} s; is it "
                                   f"running?{await _tls_failure(channel) if tls else ''})") from None
            call = referee_pb2_grpc.RefereeStub(channel).Play(  # type: ignore[no-untyped-call]
                metadata=((TOKEN_METADATA_KEY, token),))
            try:
                return await self._session(call, token)
            except grpc.aio.AioRpcError as error:
                raise RefereeError.from_rpc_error(error) from None
            except asyncio.InvalidStateError:
                # A write after the referee closed the stream: its status says why.
                code = await call.code()
                details = await call.details()
                if code == grpc.StatusCode.OK:
                    raise RefereeError("the referee closed the stream before the match was over") from None
                raise RefereeError(_STATUS_MEANINGS.get(code, "the referee ended the stream with an error"),
                                   code, details) from None

    async def _session(self, call: Any, token: str) -> MatchResult:
        name = self.display_name
        await call.write(referee_pb2.BotMessage(hello=referee_pb2.Hello(
            token=token, name=_cut(name, MAX_NAME_BYTES), version=_cut(str(self.version), MAX_NAME_BYTES),
            protocol_version=PROTOCOL_VERSION)))
        debug = logger.isEnabledFor(logging.DEBUG)
        rules: RuleSet | None = None
        monotonic = time.monotonic
        BotMessage = referee_pb2.BotMessage
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                code = await call.code()
                if code != grpc.StatusCode.OK:
                    raise RefereeError(_STATUS_MEANINGS.get(code, "the referee ended the stream with an error"),
                                       code, await call.details())
                raise RefereeError("the referee closed the stream before the match was over")
            received = monotonic()
            kind = message.WhichOneof("body")
            if kind == "decision":
                request = message.decision
                if rules is None:
                    raise RefereeError("protocol error: a DecisionRequest came before Welcome")
                self.game_number = request.game_number
                self.decision = DecisionContext(request.decision_id, request.game_number, received,
                                                received + request.deadline_ms / 1000, request.bank_ms / 1000)
                observation = observation_from_proto(request.observation, rules)
                choice: Any = self.decide(observation)
                note = ""
                if isinstance(choice, Decision):
                    choice, note = choice.choice, choice.debug
                action = action_to_proto(request.decision_id, choice, note, observation.legal_moves)
                await call.write(BotMessage(action=action))
                if debug:
                    logger.debug("decision %d: %s in %.0f us", request.decision_id, _describe(choice, observation),
                                 (monotonic() - received) * 1e6)
            elif kind == "result":
                result = action_result_from_proto(message.result)
                if debug and result.dropped:
                    logger.debug("decision %d: %d plan moves dropped", result.decision_id, result.dropped)
                self.on_result(result)
            elif kind == "events":
                self.on_events(tuple([event_from_proto(e) for e in message.events.events]))
            elif kind == "game_start":
                if rules is None:
                    raise RefereeError("protocol error: GameStart came before Welcome")
                start = message.game_start
                self.game_number = start.game_number
                logger.info("game %d starts, seat %d moves first", start.game_number, start.first_seat)
                self.on_game_start(start.game_number, observation_from_proto(start.observation, rules))
            elif kind == "game_over":
                outcome = outcome_from_proto(message.game_over.outcome)
                logger.info("game %d over: %s", message.game_over.game_number, outcome.reason)
                self.on_game_over(message.game_over.game_number, outcome)
            elif kind == "welcome":
                welcome = welcome_from_proto(message.welcome)
                if welcome.protocol_version not in (0, PROTOCOL_VERSION):
                    logger.warning("the referee speaks protocol %d, this SDK %d",
                                   welcome.protocol_version, PROTOCOL_VERSION)
                self.welcome, rules = welcome, welcome.rules
                logger.info("seat %d of match %s: %s, %d game(s)", welcome.seat, welcome.match_id,
                            welcome.rules.name, welcome.games)
                self.on_welcome(welcome)
            elif kind == "match_over":
                match_result = match_result_from_proto(message.match_over)
                logger.info("match over: %s", match_result.reason)
                self.on_match_over(match_result)
                await call.done_writing()
                await _wait_closed(call)
                return match_result
            elif kind == "refusal":  # the stdio transport's form of a refused stream
                refusal = message.refusal
                code = getattr(grpc.StatusCode, refusal.code, None)
                raise RefereeError(_STATUS_MEANINGS.get(code, "the referee refused the seat"),
                                   code, refusal.message)
            else:
                logger.warning("ignoring a message this SDK does not know (a newer referee?)")


async def _wait_closed(call: Any) -> None:
    """Give the referee a moment to close the stream itself after MatchOver."""
    try:
        await asyncio.wait_for(call.code(), 2.0)
    except asyncio.TimeoutError:
        logger.debug("the referee kept the stream open after MatchOver; closing it")


def _describe(choice: Any, observation: Observation) -> str:
    if isinstance(choice, int):
        moves: Sequence[Any] = observation.legal_moves
        return f"#{choice} ({moves[choice]})" if -len(moves) <= choice < len(moves) else f"#{choice}"
    if isinstance(choice, (list, tuple)) and not hasattr(choice, "kind"):
        return "plan " + " ".join(map(str, choice))
    return str(choice)


def _env_seconds(name: str, default: float) -> float:
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


def _configure_logging() -> None:
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
