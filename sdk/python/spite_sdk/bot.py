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

A bot is "warm" by default (``Bot.warm``): its Hello says it can play more than one match
on one connection. Where the referee takes that up (its GameStart says ``warm``, as the local
tournament runner's does), a new Welcome may follow MatchOver: the next match, with a new
seat; ``welcome``, ``decision``, ``game_number`` and ``rng`` (seeded from the match's bot seed,
which GameStart carries on a warm stream) start afresh, while anything else the bot object
holds stays (its memory). ``run()`` returns when the referee closes the stream. Everywhere
else the session is the one above.

Configuration comes from the environment (:mod:`spite_sdk.connection` lists it).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import sys
import threading
import time
import traceback
from typing import Any, ClassVar, Final

import grpc
import grpc.aio

from . import stream
from .connection import (
    DEFAULT_CONNECT_TIMEOUT,
    EXIT_CONFIG,
    EXIT_FAILED,
    PROTOCOL_VERSION,
    STATUS_MEANINGS,
    TOKEN_METADATA_KEY,
    ConfigError,
    RefereeError,
    TlsSettings,
    blocking_tls_failure,
    configure_logging,
    env_seconds,
    logger,
    open_blocking_channel,
    open_channel,
    read_tls,
    read_token,
    tls_failure,
)
from .session import Session
from .types import (
    ActionResult,
    Decision,
    DecisionContext,
    Event,
    MatchResult,
    Move,
    Observation,
    Outcome,
    RuleSet,
    Welcome,
)

__all__ = ["Bot", "RefereeError", "ConfigError", "PROTOCOL_VERSION"]

PLAY_METHOD: Final = "/spite.v1.Referee/Play"


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
    compact: ClassVar[bool] = True
    """Ask the referee for the compact session (docs/protocol.md): legal moves packed, no
    ActionResult for an accepted action, the events in each decision rather than in batches
    during the opponents' turns. The hooks see the same things either way (``on_events`` gets
    each decision's events just before ``decide``); set False to see the full session's
    messages as they come."""
    warm: ClassVar[bool] = True
    """Offer to play several matches on one connection (docs/protocol.md, "Warm bots");
    set False for a bot that must start afresh for every match."""

    welcome: Welcome | None = None
    """The terms of the match, once the referee has sent them."""
    decision: DecisionContext | None = None
    """The decision being made, while ``decide`` runs (the last one afterwards)."""
    game_number: int = 0
    """The current game's number within the match, from 0."""
    playing_warm: bool = False
    """True once the referee has said (in a GameStart) that this connection stays open for
    further matches (docs/protocol.md, "Warm bots")."""
    playing_compact: bool = False
    """True when the referee has said (in a GameStart) that the session is compact
    (docs/protocol.md, "Compact sessions")."""
    _rng_key: tuple[str, int] | None = None
    _match_seed: int | None = None  # on a warm stream: GameStart.bot_seed

    @property
    def rng(self) -> random.Random:
        """This game's random numbers, reproducible: ``random.Random(f"{seed}:{game}")`` with
        ``seed`` from ``SPITE_BOT_SEED`` (default 0), fresh at each game, so a run with the
        same bot seed (in process or through the referee) makes the same choices."""
        key = (self.bot_seed, self.game_number)
        if getattr(self, "_rng_key", None) != key:
            self._rng_key = key
            self._rng = random.Random(f"{key[0]}:{key[1]}")
        return self._rng

    @property
    def bot_seed(self) -> str:
        """The seed ``rng`` draws from: ``SPITE_BOT_SEED`` (default 0), or on a warm stream the
        match's bot seed from its GameStart."""
        return os.environ.get("SPITE_BOT_SEED", "0") if self._match_seed is None else str(self._match_seed)

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
        """Events the referee sent between decisions (an ``EventBatch``; in the compact session,
        a decision's ``observation.events``, just before ``decide``). Each event of a game comes
        here once; the events since the seat's previous decision also arrive in
        ``observation.events``."""

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

    @classmethod
    def main(cls) -> None:
        """Construct the bot and :meth:`run` it, for a script's ``if __name__ == "__main__"``.
        A :class:`ConfigError` from the constructor (a setting it reads from the environment,
        e.g. with :func:`spite_sdk.env_number`, out of range) is one line on stderr and exit
        status 2, as :meth:`run`'s own settings are."""
        try:
            bot = cls()
        except ConfigError as error:
            print(f"{cls.name or cls.__name__}: {error}", file=sys.stderr, flush=True)
            raise SystemExit(EXIT_CONFIG) from None
        bot.run()

    def run(self, address: str | None = None) -> MatchResult:
        """Play one match as a separate process: connect to the referee at ``address``
        (default: ``SPITE_ADDRESS``) with the token from ``SPITE_TOKEN`` or
        ``SPITE_TOKEN_FILE``, play until MatchOver and return its result. A bot the referee
        started on its pipes (``SPITE_STDIO``) plays there instead (:mod:`spite_sdk.pipe`).

        On any failure it prints one clear line to stderr and exits the process:
        status 2 when the address or token is missing, 1 when the referee refused or
        ended the stream, or the bot raised an exception.
        """
        configure_logging()
        from .pipe import pipe_token, play_on_pipes, stdio_requested
        on_pipes = address is None and stdio_requested()  # SPITE_STDIO: the referee started it on its pipes
        from .arena import ladder_requested, run_ladder
        if not on_pipes and address is None and ladder_requested():  # SPITE_ARENA and SPITE_BOT_KEY: a hosted ladder
            try:
                tls = read_tls(address=os.environ["SPITE_ARENA"].strip())
            except ConfigError as error:
                print(f"{self.display_name}: {error}", file=sys.stderr, flush=True)
                raise SystemExit(EXIT_CONFIG) from None
            run_ladder(self, tls, RefereeError)
        target = ""
        try:
            if on_pipes:
                token = pipe_token()
            else:
                target = address or os.environ.get("SPITE_ADDRESS", "").strip()
                if not target:
                    raise ConfigError("no referee address: set SPITE_ADDRESS (host:port or unix:/path) "
                                      "or pass it to Bot.run()")
                token = read_token()
                tls = read_tls(address=target)
                connect_timeout = env_seconds("SPITE_CONNECT_TIMEOUT", DEFAULT_CONNECT_TIMEOUT)
        except ConfigError as error:
            print(f"{self.display_name}: {error}", file=sys.stderr, flush=True)
            raise SystemExit(EXIT_CONFIG) from None
        try:
            if on_pipes:
                return play_on_pipes(self, token)
            result = self._play_blocking(target, token, connect_timeout=connect_timeout, tls=tls)
            if result is None:  # this grpcio has no blocking stream: the event loop's
                result = asyncio.run(self.play(target, token, connect_timeout=connect_timeout, tls=tls))
            return result
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

    def _play_blocking(self, address: str, token: str, *, connect_timeout: float,
                       tls: TlsSettings | None) -> MatchResult | None:
        """Play on this thread over a :class:`~spite_sdk.stream.BlockingStream` (what ``run()``
        does); None, having done nothing, where this grpcio cannot (``play()`` then does)."""
        # One thread reads, decides and writes; no event loop. Measured on this 2-CPU machine
        # (docs/performance.md, "The Python SDK's side of a decision"): against a bare echo about
        # a third of grpc.aio's CPU per round trip, and less than the synchronous stub with its
        # request-iterator thread; a greedy bot's CPU per decision about 40% less.
        channel = open_blocking_channel(address, tls)
        address = address.removeprefix("tls://").removeprefix("tls:")
        with channel:
            if not stream.supported(channel):
                return None
            try:
                grpc.channel_ready_future(channel).result(timeout=connect_timeout)
            except grpc.FutureTimeoutError:
                raise RefereeError(f"cannot reach the referee at {address} (waited {connect_timeout:g} s; is it "
                                   f"running?{blocking_tls_failure(channel) if tls else ''})") from None
            call = stream.BlockingStream(channel, PLAY_METHOD, ((TOKEN_METADATA_KEY, token),))
            session = Session(self)
            try:
                answer: bytes | None = session.hello(token)
                while True:
                    message = call.exchange(answer)
                    if message is None:
                        return session.ended(call.code, call.details)
                    answer = session.receive(message)
                    if session.over is not None:
                        # Give the referee a moment to close the stream itself after MatchOver.
                        timer = threading.Timer(2.0, call.cancel)
                        timer.start()
                        call.close()
                        timer.cancel()
                        return session.over
            except BaseException:
                call.cancel()
                raise

    async def play(self, address: str, token: str, *, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
                   tls: TlsSettings | None = None) -> MatchResult:
        """Play one match on the running event loop; raises :class:`RefereeError`.
        ``tls`` None connects in plaintext.

        For embedding (tests, notebooks, several games at once); a bot process uses :meth:`run`,
        which plays the same session on its own thread with less overhead.
        """
        channel = open_channel(address, tls)
        address = address.removeprefix("tls://").removeprefix("tls:")
        async with channel:
            try:
                await asyncio.wait_for(channel.channel_ready(), connect_timeout)
            except asyncio.TimeoutError:
                raise RefereeError(f"cannot reach the referee at {address} (waited {connect_timeout:g} s; is it "
                                   f"running?{await tls_failure(channel) if tls else ''})") from None
            # bytes both ways: the session reads and writes the messages itself
            call = channel.stream_stream(PLAY_METHOD)(metadata=((TOKEN_METADATA_KEY, token),))
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
                raise RefereeError(STATUS_MEANINGS.get(code, "the referee ended the stream with an error"),
                                   code, details) from None

    async def _session(self, call: Any, token: str) -> MatchResult:
        session = Session(self)
        await call.write(session.hello(token))
        # A reader task keeps taking what the referee sends, and an answer well past its
        # deadline and bank is not sent (the referee played a substitute long ago): if it
        # ended the match meanwhile (a forfeit for timeouts) and closed the stream, the write
        # would fail and hide the MatchOver behind "INTERNAL: Internal error from Core".
        received: collections.deque[Any] = collections.deque()
        arrived = asyncio.Event()
        reader = asyncio.get_running_loop().create_task(_pump(call, received, arrived))
        failed: grpc.aio.AioRpcError | asyncio.InvalidStateError | None = None
        try:
            while True:
                while not received:
                    arrived.clear()
                    await arrived.wait()
                message = received.popleft()
                if isinstance(message, BaseException) or message is grpc.aio.EOF:
                    if failed is not None:
                        raise failed
                    if isinstance(message, BaseException):
                        raise message
                    code = await call.code()
                    return session.ended(code, await call.details() if code != grpc.StatusCode.OK else "")
                answer = session.receive(message)
                if answer is not None:
                    await asyncio.sleep(0)  # let the reader take what arrived while the bot thought
                    late = self.decision is not None and time.monotonic() > self.decision.final_deadline + LATE_S
                    if failed is None and not late and not any(m is grpc.aio.EOF or isinstance(m, BaseException)
                                                               for m in received):
                        try:
                            await call.write(answer)
                        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
                            failed = error  # what was read before it may still hold the match's end
                elif session.over is not None:
                    if failed is None:
                        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                            await call.done_writing()
                        await _wait_closed(call)
                    return session.over
        finally:
            reader.cancel()


LATE_S: Final = 1.0
"""An answer this long past its decision's final deadline (the network's margin) is not sent."""


async def _pump(call: Any, received: collections.deque[Any], arrived: asyncio.Event) -> None:
    """Read the stream into ``received`` until its end (``EOF``) or its error (appended too)."""
    try:
        while True:
            message = await call.read()
            received.append(message)
            arrived.set()
            if message is grpc.aio.EOF:
                return
    except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
        received.append(error)
        arrived.set()


async def _wait_closed(call: Any) -> None:
    """Give the referee a moment to close the stream itself after MatchOver."""
    try:
        await asyncio.wait_for(call.code(), 2.0)
    except asyncio.TimeoutError:
        logger.debug("the referee kept the stream open after MatchOver; closing it")
