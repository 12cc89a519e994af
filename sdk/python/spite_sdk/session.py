"""One ``Play`` stream's bookkeeping, apart from how its bytes travel.

:class:`Session` turns each message the referee sends (its wire bytes) into the bot's hooks
and returns the bytes to answer with, if any. :meth:`Bot.run` drives it on one thread over a
blocking stream (:mod:`spite_sdk.stream`), :meth:`Bot.play` on an event loop over
``grpc.aio``: the same session either way, so a bot sees the same hooks in the same order.
"""

from __future__ import annotations

import logging
import time
from typing import Any, ClassVar, Final, Protocol, Sequence

import grpc
from google.protobuf.message import DecodeError

from spite.v1 import referee_pb2
from spite_wire.decoding import NotCanonical, decision_from_bytes
from spite_wire.encoding import varint

from .connection import MAX_NAME_BYTES, PROTOCOL_VERSION, STATUS_MEANINGS, RefereeError, cut_utf8, logger
from .convert import (
    action_result_from_proto,
    action_to_proto,
    event_from_proto,
    match_result_from_proto,
    observation_from_proto,
    outcome_from_proto,
    welcome_from_proto,
)
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

__all__ = ["Player", "Session", "action_bytes"]

_DECISION: Final = 0x22
"""The first byte of a RefereeMessage holding a DecisionRequest (field 4, length-delimited)."""


class Player(Protocol):
    """What a session reads and sets on its bot (:class:`spite_sdk.Bot`), and the hooks it calls."""

    compact: ClassVar[bool]
    warm: ClassVar[bool]
    version: ClassVar[str]
    welcome: Welcome | None
    decision: DecisionContext | None
    game_number: int
    playing_warm: bool
    playing_compact: bool
    _rng_key: tuple[str, int] | None
    _match_seed: int | None

    @property
    def display_name(self) -> str: ...

    def decide(self, observation: Observation) -> Move | list[Move] | int | Decision: ...

    def on_welcome(self, welcome: Welcome) -> None: ...

    def on_game_start(self, game_number: int, observation: Observation) -> None: ...

    def on_events(self, events: tuple[Event, ...]) -> None: ...

    def on_result(self, result: ActionResult) -> None: ...

    def on_game_over(self, game_number: int, outcome: Outcome) -> None: ...

    def on_match_over(self, result: MatchResult) -> None: ...


class Session:
    """The state of one stream: the match's rules, whether the session is compact, the last
    match's result on a warm stream. ``receive`` one message at a time; after a message that
    ends the match for good, ``over`` holds its result and the caller half-closes the stream.
    """

    def __init__(self, bot: Player) -> None:
        self.bot = bot
        self.rules: RuleSet | None = None
        self.played: MatchResult | None = None
        """On a warm stream, the last match's result (the next Welcome clears it)."""
        self.over: MatchResult | None = None
        """The result of a match after which this stream carries nothing more."""
        self.compact = False  # the session is compact: GameStart says so
        self.dealt = 0  # events of GameStart's observation that the game's first decision repeats
        self.debug = logger.isEnabledFor(logging.DEBUG)

    def hello(self, token: str) -> bytes:
        bot = self.bot
        hello = referee_pb2.BotMessage(hello=referee_pb2.Hello(
            token=token, name=cut_utf8(bot.display_name, MAX_NAME_BYTES),
            version=cut_utf8(str(bot.version), MAX_NAME_BYTES), protocol_version=PROTOCOL_VERSION,
            warm=bool(bot.warm), compact=bool(bot.compact)))
        data: bytes = hello.SerializeToString()
        return data

    def receive(self, data: bytes) -> bytes | None:
        """Handle one message from the referee; the answer's bytes (an Action) or None."""
        received = time.monotonic()
        if data and data[0] == _DECISION and self.rules is not None:
            try:
                decision_id, game_number, deadline_ms, bank_ms, observation = decision_from_bytes(data, self.rules)
            except NotCanonical:  # not as the referee writes it: protobuf's own parser, below
                pass
            else:
                return self._decide(received, decision_id, game_number, deadline_ms, bank_ms, observation)
        try:
            message = referee_pb2.RefereeMessage.FromString(data)
        except DecodeError as error:
            raise RefereeError(f"the referee sent a message that is not a RefereeMessage ({error})") from None
        return self.receive_message(message, received)

    def receive_message(self, message: referee_pb2.RefereeMessage, received: float) -> bytes | None:
        bot = self.bot
        kind = message.WhichOneof("body")
        if kind == "decision":
            request = message.decision
            if self.rules is None:
                raise RefereeError("protocol error: a DecisionRequest came before Welcome")
            observation = observation_from_proto(request.observation, self.rules, request.packed_legal_moves)
            return self._decide(received, request.decision_id, request.game_number, request.deadline_ms,
                                request.bank_ms, observation)
        if kind == "result":
            result = action_result_from_proto(message.result)
            if self.debug and result.dropped:
                logger.debug("decision %d: %d plan moves dropped", result.decision_id, result.dropped)
            bot.on_result(result)
        elif kind == "events":
            bot.on_events(tuple([event_from_proto(e) for e in message.events.events]))
        elif kind == "game_start":
            if self.rules is None:
                raise RefereeError("protocol error: GameStart came before Welcome")
            start = message.game_start
            bot.game_number = start.game_number
            if start.warm:
                bot.playing_warm, bot._match_seed = True, start.bot_seed
            self.compact = bot.playing_compact = start.compact
            logger.info("game %d starts, seat %d moves first", start.game_number, start.first_seat)
            self.dealt = len(start.observation.events)
            bot.on_game_start(start.game_number, observation_from_proto(start.observation, self.rules))
        elif kind == "game_over":
            outcome = outcome_from_proto(message.game_over.outcome)
            logger.info("game %d over: %s", message.game_over.game_number, outcome.reason)
            bot.on_game_over(message.game_over.game_number, outcome)
        elif kind == "welcome":
            welcome = welcome_from_proto(message.welcome)
            if welcome.protocol_version not in (0, PROTOCOL_VERSION):
                logger.warning("the referee speaks protocol %d, this SDK %d",
                               welcome.protocol_version, PROTOCOL_VERSION)
            bot.welcome, self.rules = welcome, welcome.rules
            # a warm stream's next match starts afresh (the rng too, even with the same bot seed)
            bot.decision, bot.game_number, bot._rng_key, self.played = None, 0, None, None
            logger.info("seat %d of match %s: %s, %d game(s)", welcome.seat, welcome.match_id,
                        welcome.rules.name, welcome.games)
            bot.on_welcome(welcome)
        elif kind == "match_over":
            match_result = match_result_from_proto(message.match_over)
            logger.info("match over: %s", match_result.reason)
            bot.on_match_over(match_result)
            if bot.playing_warm:
                self.played = match_result  # the next Welcome, or the stream's end
            else:
                self.over = match_result
        elif kind == "refusal":  # the stdio transport's form of a refused stream
            refusal = message.refusal
            code = getattr(grpc.StatusCode, refusal.code, None)
            raise RefereeError(STATUS_MEANINGS.get(code, "the referee refused the seat"), code, refusal.message)
        else:
            logger.warning("ignoring a message this SDK does not know (a newer referee?)")
        return None

    def _decide(self, received: float, decision_id: int, game_number: int, deadline_ms: int, bank_ms: int,
                observation: Observation) -> bytes:
        bot = self.bot
        bot.game_number = game_number
        bot.decision = DecisionContext(decision_id, game_number, received, received + deadline_ms / 1000,
                                       bank_ms / 1000)
        if self.compact and len(observation.events) > self.dealt:
            # the game's first decision repeats the deal, which GameStart showed
            bot.on_events(observation.events[self.dealt:])
        self.dealt = 0
        choice: Any = bot.decide(observation)
        note = ""
        if isinstance(choice, Decision):
            choice, note = choice.choice, choice.debug
        answer = action_bytes(decision_id, choice, note, observation.legal_moves)
        if self.debug:
            logger.debug("decision %d: %s in %.0f us", decision_id, _describe(choice, observation),
                         (time.monotonic() - received) * 1e6)
        return answer

    def ended(self, code: grpc.StatusCode | None, details: str) -> MatchResult:
        """The stream ended with ``code``: a warm stream's last match, or a :class:`RefereeError`."""
        if self.played is not None and code == grpc.StatusCode.OK:
            return self.played  # a warm stream's end: no next match
        if code != grpc.StatusCode.OK:
            raise RefereeError(STATUS_MEANINGS.get(code, "the referee ended the stream with an error"), code, details)
        raise RefereeError("the referee closed the stream before the match was over")


_MOVE_FIELDS: dict[Move, bytes] = {}
"""An Action's ``move`` field (3) by move: the engine's moves are a small fixed set."""


def action_bytes(decision_id: int, choice: Any, debug: str = "", legal_moves: Sequence[Any] | None = None) -> bytes:
    """The BotMessage holding :func:`~spite_sdk.convert.action_to_proto`'s Action, serialized, as
    protobuf writes it. A move or an index, the usual answers, are written directly; anything else
    goes through ``action_to_proto`` (which also raises its errors)."""
    if type(choice) is Move and not debug:
        field = _MOVE_FIELDS.get(choice)
        if field is None:
            part = action_to_proto(0, choice).SerializeToString()
            field = _MOVE_FIELDS[choice] = part
    elif type(choice) is int and not debug and 0 <= choice < 2 ** 32:
        field = b"\x10" + varint(choice)
    else:
        data: bytes = referee_pb2.BotMessage(action=action_to_proto(decision_id, choice, debug,
                                                                    legal_moves)).SerializeToString()
        return data
    body = (b"\x08" + varint(decision_id) if decision_id else b"") + field
    return b"\x12" + varint(len(body)) + body


def _describe(choice: Any, observation: Observation) -> str:
    if isinstance(choice, int):
        moves: Sequence[Any] = observation.legal_moves
        return f"#{choice} ({moves[choice]})" if -len(moves) <= choice < len(moves) else f"#{choice}"
    if isinstance(choice, (list, tuple)) and not hasattr(choice, "kind"):
        return "plan " + " ".join(map(str, choice))
    return str(choice)

