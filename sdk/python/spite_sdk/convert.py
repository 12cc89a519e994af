"""Protocol buffers <-> the SDK's values (:mod:`spite_sdk.types`). The only module that
knows the wire's numbering.

The wire keeps 0 of every enum for "unspecified", so its move kinds, sources, event
kinds and endings are the engine's numbers plus one: ``MOVE_KIND_PLAY = 1`` is
``MoveKind.PLAY = 0``, ``SOURCE_HAND = 1`` is ``Source.HAND = 0``, and so on. Wire
``-1`` for "no seat" / "no pile" / "no offender" stays -1, except ``Outcome.offender``
which becomes ``None``.

Everything here is a pure function. ``*_from_proto`` raises :class:`ConversionError`
on a message that cannot be a valid value (an unspecified move kind, say).
"""

from __future__ import annotations

from typing import Any, Final, Sequence

from spite.v1 import game_pb2, referee_pb2

from .types import (PASS_MOVE, ActionResult, Ending, Event, EventKind, Fault, MatchResult, Move, MoveKind,
                    Observation, Outcome, Policy, RuleSet, Source, StockView, TimeControl, Welcome)

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


class ConversionError(ValueError):
    """A message that does not make a valid SDK value."""


# Wire number -> SDK value, by position (0, "unspecified", has none).
_KINDS: Final = (None, MoveKind.PLAY, MoveKind.DISCARD, MoveKind.PASS)
_SOURCES: Final = (None, Source.HAND, Source.STOCK, Source.DISCARD_PILE)
_EVENT_KINDS: Final = (None, *EventKind)
_ENDINGS: Final = (None, *(e for e in Ending if e is not Ending.UNKNOWN))
_POLICIES: Final = (Policy.UNSPECIFIED, Policy.FORFEIT, Policy.SUBSTITUTE)

# SDK value -> wire number.
_KIND_NUMBERS: Final = (game_pb2.MOVE_KIND_PLAY, game_pb2.MOVE_KIND_DISCARD, game_pb2.MOVE_KIND_PASS)
_SOURCE_NUMBERS: Final = (game_pb2.SOURCE_HAND, game_pb2.SOURCE_STOCK, game_pb2.SOURCE_DISCARD_PILE)
_EVENT_KIND_NUMBERS: Final = (
    game_pb2.EVENT_KIND_DEAL, game_pb2.EVENT_KIND_TURN, game_pb2.EVENT_KIND_MOVE, game_pb2.EVENT_KIND_DRAW,
    game_pb2.EVENT_KIND_REVEAL, game_pb2.EVENT_KIND_PILE_COMPLETED, game_pb2.EVENT_KIND_SHUFFLE,
    game_pb2.EVENT_KIND_GAME_OVER)
_ENDING_NUMBERS: Final[dict[Ending, game_pb2.Ending]] = {
    Ending.STOCK_EMPTIED: game_pb2.ENDING_STOCK_EMPTIED, Ending.STALEMATE: game_pb2.ENDING_STALEMATE,
    Ending.TURN_CAP: game_pb2.ENDING_TURN_CAP, Ending.DRAW_PILE_EXHAUSTED: game_pb2.ENDING_DRAW_PILE_EXHAUSTED,
    Ending.TIMEOUT: game_pb2.ENDING_TIMEOUT, Ending.ILLEGAL_MOVE: game_pb2.ENDING_ILLEGAL_MOVE,
    Ending.MALFORMED: game_pb2.ENDING_MALFORMED, Ending.CRASH: game_pb2.ENDING_CRASH,
    Ending.DISCONNECT: game_pb2.ENDING_DISCONNECT, Ending.NO_SHOW: game_pb2.ENDING_NO_SHOW,
    Ending.FORFEIT: game_pb2.ENDING_FORFEIT,
}

# Moves are interned by their wire fields: an observation's legal moves repeat from one
# decision to the next, and a lookup costs less than building and checking a new tuple.
_MOVES: dict[tuple[int, int, int, int, int], Move] = {}


def move_from_proto(message: game_pb2.Move) -> Move:
    """The move a wire ``Move`` stands for."""
    key = (message.kind, message.source, message.source_index, message.card, message.target)
    move = _MOVES.get(key)
    if move is None:
        move = _MOVES[key] = _new_move(*key)
    return move


def _new_move(kind_number: int, source_number: int, index: int, card: int, target: int) -> Move:
    kind = _KINDS[kind_number] if 0 <= kind_number < len(_KINDS) else None
    if kind is None:
        raise ConversionError(f"move kind {kind_number} is not PLAY, DISCARD or PASS")
    if kind == MoveKind.PASS:
        return PASS_MOVE
    source = _SOURCES[source_number] if 0 <= source_number < len(_SOURCES) else None
    if source is None:
        raise ConversionError(f"a {kind.name} move needs a source, got {source_number}")
    if kind == MoveKind.DISCARD and source != Source.HAND:
        raise ConversionError(f"a DISCARD comes from the hand, not {source.name}")
    return Move(kind, source, index if source == Source.DISCARD_PILE else 0, card, target)


def move_to_proto(move: Any) -> game_pb2.Move:
    """The wire form of a move (an SDK :class:`Move` or anything with the same fields)."""
    kind = move.kind
    if kind == MoveKind.PASS:
        return game_pb2.Move(kind=game_pb2.MOVE_KIND_PASS)
    return game_pb2.Move(kind=_KIND_NUMBERS[kind], source=_SOURCE_NUMBERS[move.source], source_index=move.index,
                         card=move.card, target=move.target)


def rules_from_proto(message: game_pb2.RuleSet) -> RuleSet:
    m = message
    return RuleSet(
        name=m.name, version=m.version, players=m.players, partners=m.partners, deck=m.deck,
        decks=m.decks, jokers_per_deck=m.jokers_per_deck, kings_wild=m.kings_wild,
        stock_size=m.stock_size, hand_size=m.hand_size, centre_piles=m.centre_piles,
        discard_piles=m.discard_piles, open_stock=m.open_stock, no_block=m.no_block,
        completed_piles=m.completed_piles, draw_pile_exhausted=m.draw_pile_exhausted,
        discard_aces=m.discard_aces, scoring=m.scoring, match_points=m.match_points,
        turn_cap=m.turn_cap, wild_ranks=frozenset(m.wild_ranks))


def rules_to_proto(rules: RuleSet) -> game_pb2.RuleSet:
    r = rules
    return game_pb2.RuleSet(
        name=r.name, version=r.version, players=r.players, partners=r.partners, deck=r.deck,
        decks=r.decks, jokers_per_deck=r.jokers_per_deck, kings_wild=r.kings_wild,
        stock_size=r.stock_size, hand_size=r.hand_size, centre_piles=r.centre_piles,
        discard_piles=r.discard_piles, open_stock=r.open_stock, no_block=r.no_block,
        completed_piles=r.completed_piles, draw_pile_exhausted=r.draw_pile_exhausted,
        discard_aces=r.discard_aces, scoring=r.scoring, match_points=r.match_points,
        turn_cap=r.turn_cap, wild_ranks=sorted(r.wild_ranks))


def stock_from_proto(message: game_pb2.StockView) -> StockView:
    return StockView(message.count, tuple(message.visible))


def stock_to_proto(stock: StockView) -> game_pb2.StockView:
    return game_pb2.StockView(count=stock.count, visible=stock.visible)


def event_from_proto(message: game_pb2.Event) -> Event:
    number = message.kind
    kind = _EVENT_KINDS[number] if 0 <= number < len(_EVENT_KINDS) else None
    if kind is None:
        raise ConversionError(f"unknown event kind {number}")
    move = move_from_proto(message.move) if message.HasField("move") else None
    return Event(kind, message.seat, move, tuple(message.cards), message.count, message.pile)


def event_to_proto(event: Event) -> game_pb2.Event:
    message = game_pb2.Event(kind=_EVENT_KIND_NUMBERS[event.kind], seat=event.seat, cards=event.cards,
                             count=event.count, pile=event.pile)
    if event.move is not None:
        message.move.CopyFrom(move_to_proto(event.move))
    return message


def outcome_from_proto(message: game_pb2.Outcome) -> Outcome:
    number = message.ending
    ending = _ENDINGS[number] if 0 <= number < len(_ENDINGS) else None
    return Outcome(ending or Ending.UNKNOWN, tuple(message.winners), tuple(message.scores), message.reason,
                   None if message.offender < 0 else message.offender)


def outcome_to_proto(outcome: Outcome) -> game_pb2.Outcome:
    return game_pb2.Outcome(ending=_ENDING_NUMBERS.get(outcome.ending, game_pb2.ENDING_UNSPECIFIED), winners=outcome.winners,
                            scores=outcome.scores, reason=outcome.reason,
                            offender=-1 if outcome.offender is None else outcome.offender)


def observation_from_proto(message: game_pb2.Observation, rules: RuleSet) -> Observation:
    """An observation from its wire form and the match's rule set (sent once, in Welcome)."""
    m = message
    return Observation(
        rules, m.seat, m.turn, m.to_move, tuple(m.hand), tuple(m.hand_sizes),
        tuple([StockView(s.count, tuple(s.visible)) for s in m.stocks]),
        tuple([tuple([tuple(p.cards) for p in seat.piles]) for seat in m.discard_piles]),
        tuple([tuple(p.cards) for p in m.centre_piles]),
        m.draw_pile_count, m.set_aside_count,
        tuple([event_from_proto(e) for e in m.events]),
        _moves_from_proto(m.legal_moves),
        None,
    )


def _moves_from_proto(messages: Any) -> tuple[Move, ...]:
    # The hot path of every decision: move_from_proto inlined (reading the five fields
    # of each upb message is most of the cost of converting an observation).
    known = _MOVES
    moves = []
    for x in messages:
        key = (x.kind, x.source, x.source_index, x.card, x.target)
        move = known.get(key)
        if move is None:
            move = known[key] = _new_move(*key)
        moves.append(move)
    return tuple(moves)


def observation_to_proto(observation: Observation) -> game_pb2.Observation:
    """The wire form of an observation (without its rule set and outcome, which travel apart)."""
    o = observation
    return game_pb2.Observation(
        seat=o.seat, turn=o.turn, to_move=o.to_move, hand=o.hand, hand_sizes=o.hand_sizes,
        stocks=[stock_to_proto(s) for s in o.stocks],
        discard_piles=[game_pb2.SeatPiles(piles=[game_pb2.Pile(cards=p) for p in seat])
                       for seat in o.discard_piles],
        centre_piles=[game_pb2.Pile(cards=p) for p in o.centre_piles],
        draw_pile_count=o.draw_pile_count, set_aside_count=o.set_aside_count,
        events=[event_to_proto(e) for e in o.events],
        legal_moves=[move_to_proto(m) for m in o.legal_moves],
    )


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
    elif hasattr(choice, "kind") and hasattr(choice, "target"):
        action.move.CopyFrom(move_to_proto(choice))
    elif isinstance(choice, (list, tuple)) and all(hasattr(m, "kind") and hasattr(m, "target") for m in choice):
        action.plan.moves.extend([move_to_proto(m) for m in choice])
    else:
        raise TypeError(f"decide() must return a Move, a list of Moves (a plan), an index into "
                        f"observation.legal_moves or a Decision; got {choice!r:.80}")
    return action
