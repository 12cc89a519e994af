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
import logging
import os
import random
import sys
import time
import traceback
from typing import Any, ClassVar, Sequence

import grpc
import grpc.aio

from spite.v1 import referee_pb2, referee_pb2_grpc

from .connection import (DEFAULT_CONNECT_TIMEOUT, EXIT_CONFIG, EXIT_FAILED, EXIT_OK, MAX_NAME_BYTES, PROTOCOL_VERSION,
                         STATUS_MEANINGS, TOKEN_METADATA_KEY, ConfigError, RefereeError, TlsSettings, channel_options,
                         configure_logging, cut_utf8, env_seconds, logger, read_tls, read_token, tls_failure)
from .convert import (action_result_from_proto, action_to_proto, event_from_proto, match_result_from_proto,
                      observation_from_proto, outcome_from_proto, welcome_from_proto)
from .types import (ActionResult, Decision, DecisionContext, Event, MatchResult, Move, Observation, Outcome,
                    RuleSet, Welcome)

__all__ = ["Bot", "RefereeError", "ConfigError", "PROTOCOL_VERSION"]


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
        from .pipe import run_on_pipes, stdio_requested
        if address is None and stdio_requested():  # SPITE_STDIO: the referee started it on its pipes
            return run_on_pipes(self)
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
            connect_timeout = env_seconds("SPITE_CONNECT_TIMEOUT", DEFAULT_CONNECT_TIMEOUT)
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
                                   f"running?{await tls_failure(channel) if tls else ''})") from None
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
                raise RefereeError(STATUS_MEANINGS.get(code, "the referee ended the stream with an error"),
                                   code, details) from None

    async def _session(self, call: Any, token: str) -> MatchResult:
        name = self.display_name
        await call.write(referee_pb2.BotMessage(hello=referee_pb2.Hello(
            token=token, name=cut_utf8(name, MAX_NAME_BYTES), version=cut_utf8(str(self.version), MAX_NAME_BYTES),
            protocol_version=PROTOCOL_VERSION, warm=bool(self.warm), compact=bool(self.compact))))
        debug = logger.isEnabledFor(logging.DEBUG)
        rules: RuleSet | None = None
        played: MatchResult | None = None  # on a warm stream, the last match's result
        compact = False  # the session is compact: GameStart says so
        dealt = 0  # events of GameStart's observation that the game's first decision repeats
        monotonic = time.monotonic
        BotMessage = referee_pb2.BotMessage
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                code = await call.code()
                if played is not None and code == grpc.StatusCode.OK:
                    return played  # a warm stream's end: no next match
                if code != grpc.StatusCode.OK:
                    raise RefereeError(STATUS_MEANINGS.get(code, "the referee ended the stream with an error"),
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
                observation = observation_from_proto(request.observation, rules, request.packed_legal_moves)
                if compact and len(observation.events) > dealt:
                    # the game's first decision repeats the deal, which GameStart showed
                    self.on_events(observation.events[dealt:])
                dealt = 0
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
                if start.warm:
                    self.playing_warm, self._match_seed = True, start.bot_seed
                compact = self.playing_compact = start.compact
                logger.info("game %d starts, seat %d moves first", start.game_number, start.first_seat)
                dealt = len(start.observation.events)
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
                # a warm stream's next match starts afresh (the rng too, even with the same bot seed)
                self.decision, self.game_number, self._rng_key, played = None, 0, None, None
                logger.info("seat %d of match %s: %s, %d game(s)", welcome.seat, welcome.match_id,
                            welcome.rules.name, welcome.games)
                self.on_welcome(welcome)
            elif kind == "match_over":
                match_result = match_result_from_proto(message.match_over)
                logger.info("match over: %s", match_result.reason)
                self.on_match_over(match_result)
                if self.playing_warm:
                    played = match_result  # the next Welcome, or the stream's end
                    continue
                await call.done_writing()
                await _wait_closed(call)
                return match_result
            elif kind == "refusal":  # the stdio transport's form of a refused stream
                refusal = message.refusal
                code = getattr(grpc.StatusCode, refusal.code, None)
                raise RefereeError(STATUS_MEANINGS.get(code, "the referee refused the seat"),
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
