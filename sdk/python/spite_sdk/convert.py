"""Protocol buffers <-> the SDK's values. The game's values (moves, rule sets, events,
outcomes, observations) convert in :mod:`spite_wire`, the one converter the referee uses
too, re-exported here; this module adds the session's messages (Welcome, ActionResult,
MatchOver, the bot's Action).

Everything here is a pure function. ``*_from_proto`` raises :class:`ConversionError`
on a message that cannot be a valid value (an unspecified move kind, say).
"""

from __future__ import annotations

from typing import Any, Final, Sequence

from spite.v1 import referee_pb2
from spite_wire import (
    ConversionError,
    event_from_proto,
    event_to_proto,
    move_from_proto,
    move_to_proto,
    observation_from_proto,
    observation_to_proto,
    outcome_from_proto,
    outcome_to_proto,
    rules_from_proto,
    rules_to_proto,
    stock_from_proto,
    stock_to_proto,
)

from .types import ActionResult, Fault, MatchResult, Move, Policy, TimeControl, Welcome

__all__ = [
    "ConversionError", "MAX_DEBUG_BYTES", "MAX_PLAN_MOVES",
    "move_from_proto", "move_to_proto", "rules_from_proto", "rules_to_proto",
    "stock_from_proto", "stock_to_proto", "event_from_proto", "event_to_proto",
    "outcome_from_proto", "outcome_to_proto", "observation_from_proto", "observation_to_proto",
    "welcome_from_proto", "action_result_from_proto", "match_result_from_proto",
    "action_to_proto", "cut_debug",
]

MAX_DEBUG_BYTES: Final = 256
"""The referee keeps at most this many bytes of an action's debug string."""
MAX_PLAN_MOVES: Final = 32
"""The referee accepts at most this many moves in one plan."""

_POLICIES: Final = (Policy.UNSPECIFIED, Policy.FORFEIT, Policy.SUBSTITUTE)


def welcome_from_proto(message: referee_pb2.Welcome) -> Welcome:
    t = message.time_control
    policy = message.policy
    return Welcome(
        seat=message.seat, rules=rules_from_proto(message.rules),
        time_control=TimeControl(t.decision_ms / 1000, t.bank_ms / 1000, t.connect_ms / 1000),
        games=message.games, match_id=message.match_id, protocol_version=message.protocol_version,
        seat_names=tuple(message.seat_names),
        policy=_POLICIES[policy] if 0 <= policy < len(_POLICIES) else Policy.UNSPECIFIED)


def action_result_from_proto(message: referee_pb2.ActionResult) -> ActionResult:
    fault = message.fault
    return ActionResult(
        decision_id=message.decision_id, applied=tuple([move_from_proto(m) for m in message.applied]),
        dropped=message.dropped, fault=Fault(fault) if 0 <= fault <= Fault.WRONG_DECISION else Fault.UNKNOWN,
        error=message.error or ("" if fault == 0 else f"fault {fault}"), strikes=message.strikes)


def match_result_from_proto(message: referee_pb2.MatchOver) -> MatchResult:
    return MatchResult(tuple(message.points), tuple(message.wins), tuple(message.winners), message.reason)


def cut_debug(debug: str) -> str:
    """``debug`` cut to :data:`MAX_DEBUG_BYTES` bytes of UTF-8, never inside a character."""
    data = debug.encode("utf-8", "replace")
    if len(data) <= MAX_DEBUG_BYTES:
        return debug
    return data[:MAX_DEBUG_BYTES].decode("utf-8", "ignore")


def action_to_proto(decision_id: int, choice: Any, debug: str = "",
                    legal_moves: Sequence[Any] | None = None) -> referee_pb2.Action:
    """The Action answering ``decision_id`` with ``choice``: a move, a plan (a list or tuple
    of moves) or an index into the legal moves.

    A negative index counts from the end, as in Python, when ``legal_moves`` is given.
    Raises ``TypeError`` for anything else and ``ValueError`` for an index no legal-move
    list can have. Whether the move is legal is the referee's to judge.
    """
    action = referee_pb2.Action(decision_id=decision_id)
    if debug:
        action.debug = cut_debug(debug)
    if isinstance(choice, int) and not isinstance(choice, bool):
        index = choice
        if index < 0 and legal_moves is not None and -len(legal_moves) <= index:
            index += len(legal_moves)
        if not 0 <= index < 2 ** 32:
            raise ValueError(f"decide() returned move index {choice}, outside the "
                             f"{'' if legal_moves is None else len(legal_moves)} legal moves")
        action.move_index = index
    elif isinstance(choice, Move):
        action.move.CopyFrom(move_to_proto(choice))
    elif isinstance(choice, (list, tuple)) and all(isinstance(m, Move) for m in choice):
        action.plan.moves.extend([move_to_proto(m) for m in choice])
    else:
        raise TypeError(f"decide() must return a Move, a list of Moves (a plan), an index into "
                        f"observation.legal_moves or a Decision; got {choice!r:.80}")
    return action
