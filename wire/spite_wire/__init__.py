"""The engine's values <-> the ``spite.v1`` wire messages: the one place that knows the
wire's numbering, used by the referee and the Python SDK alike.

The wire keeps 0 of every enum for "unspecified", so its move kinds, sources, event
kinds and endings are the engine's numbers plus one: ``MOVE_KIND_PLAY = 1`` is
``MoveKind.PLAY = 0``, ``SOURCE_HAND = 1`` is ``Source.HAND = 0``, and so on. Wire
``-1`` for "no seat" / "no pile" / "no offender" stays -1, except ``Outcome.offender``
which becomes ``None``.

Everything a seat receives is built here from the engine's ``observe()`` /
``visible_events()`` output and nothing else: these functions take already filtered
values, never the game state. Every function is pure; ``*_from_proto`` raises
:class:`ConversionError` on a message that makes no valid value.
"""

from __future__ import annotations

from typing import Any, Final, Iterable

from spite.v1 import game_pb2 as pb
from spite_engine import (
    Ending,
    Event,
    EventKind,
    MalformedMoveError,
    Move,
    MoveKind,
    Observation,
    Outcome,
    RulesError,
    RuleSet,
    StockView,
    make_move,
)

from .encoding import move_code

__all__ = [
    "PROTOCOL_VERSION", "ConversionError",
    "move_from_proto", "move_to_proto", "moves_from_proto", "moves_from_codes", "rules_from_proto", "rules_to_proto",
    "stock_from_proto", "stock_to_proto", "event_from_proto", "event_to_proto", "events_to_proto",
    "outcome_from_proto", "outcome_to_proto", "observation_from_proto", "observation_to_proto",
]

PROTOCOL_VERSION: Final = 1
"""The protocol version this code speaks (``Hello.protocol_version``, ``Welcome.protocol_version``)."""


class ConversionError(MalformedMoveError):
    """A wire message that makes no valid value (an unspecified move kind, an unknown
    event kind, a rule set the engine refuses). A kind of :class:`MalformedMoveError`, so
    the referee's checked path for untrusted actions catches it with the engine's errors."""


# Wire number -> engine value, by position (0, "unspecified", has none).
_EVENT_KINDS: Final = (None, *EventKind)
_ENDINGS: Final = (None, *(e for e in Ending if e is not Ending.UNKNOWN))
# Engine value -> wire number.
_ENDING_NUMBERS: Final[dict[Ending, pb.Ending]] = {ending: getattr(pb, "ENDING_" + ending.name) for ending in Ending
                          if ending is not Ending.UNKNOWN}

# Moves are interned by their wire fields: an observation's legal moves repeat from one
# decision to the next, and a lookup costs less than building and checking a new tuple.
# Only a move's own canonical fields are keys, so what a peer sends cannot grow the table.
_MOVES: dict[tuple[int, int, int, int, int], Move] = {}


def move_to_proto(move: Move) -> pb.Move:
    if move.kind == MoveKind.PASS:
        return pb.Move(kind=pb.MOVE_KIND_PASS)
    # The wire's enum numbers are the engine's plus one (0 is unspecified on the wire).
    return pb.Move(kind=move.kind + 1, source=move.source + 1, source_index=move.index,  # type: ignore[arg-type]
                   card=move.card, target=move.target)


def move_from_proto(message: pb.Move) -> Move:
    """The engine's (interned) move that a wire move names; :class:`ConversionError` if none."""
    key = (message.kind, message.source, message.source_index, message.card, message.target)
    move = _MOVES.get(key)
    return move if move is not None else _new_move(key)


def moves_from_proto(messages: Iterable[pb.Move]) -> tuple[Move, ...]:
    """:func:`move_from_proto` of each; the hot path of every decision, so inlined."""
    known = _MOVES
    moves = []
    for x in messages:
        key = (x.kind, x.source, x.source_index, x.card, x.target)
        move = known.get(key)
        moves.append(move if move is not None else _new_move(key))
    return tuple(moves)


def moves_from_codes(codes: Iterable[int]) -> tuple[Move, ...]:
    """The moves of a decision's ``packed_legal_moves`` (one number per move: wire kind |
    wire source << 4 | source_index << 8 | card << 16 | target << 24); :class:`ConversionError`
    for a number that names no move."""
    known = _CODED
    try:
        return tuple(map(known.__getitem__, codes))  # every number seen before: one call
    except KeyError:
        pass
    moves = []
    for code in codes:
        move = known.get(code)
        if move is None:
            move = _new_move((code & 15, code >> 4 & 15, code >> 8 & 255, code >> 16 & 255, code >> 24 & 255))
            if move_code(move) == code:  # only a number that names its move exactly is kept
                known[code] = move
        moves.append(move)
    return tuple(moves)


_CODED: dict[int, Move] = {}


def _new_move(key: tuple[int, int, int, int, int]) -> Move:
    kind, source, index, card, target = key
    if not 1 <= kind <= 3:
        raise ConversionError(f"move kind {kind} is not PLAY, DISCARD or PASS (MOVE_KIND_UNSPECIFIED?)")
    if kind - 1 == MoveKind.PASS:
        move = make_move(MoveKind.PASS, 0, 0, 0, 0)
    elif not 1 <= source <= 3:
        raise ConversionError(f"a {MoveKind(kind - 1).name} move needs a source, got {source}")
    else:
        try:
            move = make_move(kind - 1, source - 1, index if source - 1 == 2 else 0, card, target)
        except MalformedMoveError as error:
            raise ConversionError(str(error)) from None
    canonical = (move.kind + 1, 0 if move.kind == MoveKind.PASS else move.source + 1, move.index, move.card,
                 move.target)
    if canonical == key:
        _MOVES[key] = move
    return move


def rules_to_proto(rules: RuleSet) -> pb.RuleSet:
    return pb.RuleSet(
        name=rules.name, version=rules.version, players=rules.players, partners=rules.partners,
        deck=rules.deck, decks=rules.decks, jokers_per_deck=rules.jokers_per_deck, kings_wild=rules.kings_wild,
        stock_size=rules.stock_size, hand_size=rules.hand_size, centre_piles=rules.centre_piles,
        discard_piles=rules.discard_piles, open_stock=rules.open_stock, no_block=rules.no_block,
        completed_piles=rules.completed_piles, draw_pile_exhausted=rules.draw_pile_exhausted,
        discard_aces=rules.discard_aces, scoring=rules.scoring, match_points=rules.match_points,
        turn_cap=rules.turn_cap, wild_ranks=sorted(rules.wild_ranks))


def rules_from_proto(message: pb.RuleSet) -> RuleSet:
    """The engine's rule set the wire describes (its ``wild_ranks`` follow from the options)."""
    m = message
    try:
        return RuleSet(
            name=m.name, version=m.version, players=m.players, partners=m.partners,
            deck=m.deck,  # type: ignore[arg-type]
            decks=m.decks, jokers_per_deck=m.jokers_per_deck, kings_wild=m.kings_wild,
            stock_size=m.stock_size, hand_size=m.hand_size, centre_piles=m.centre_piles,
            discard_piles=m.discard_piles, open_stock=m.open_stock, no_block=m.no_block,
            completed_piles=m.completed_piles, draw_pile_exhausted=m.draw_pile_exhausted,  # type: ignore[arg-type]
            discard_aces=m.discard_aces, scoring=m.scoring, match_points=m.match_points,  # type: ignore[arg-type]
            turn_cap=m.turn_cap)
    except RulesError as error:
        raise ConversionError(str(error)) from None


def stock_to_proto(stock: StockView) -> pb.StockView:
    return pb.StockView(count=stock.count, visible=stock.visible)


def stock_from_proto(message: pb.StockView) -> StockView:
    return StockView(message.count, tuple(message.visible))


def event_to_proto(event: Event) -> pb.Event:
    message = pb.Event(kind=event.kind + 1, seat=event.seat, cards=event.cards,  # type: ignore[arg-type]
                       count=event.count, pile=event.pile)
    if event.move is not None:
        message.move.CopyFrom(move_to_proto(event.move))
    return message


def events_to_proto(events: Iterable[Event]) -> list[pb.Event]:
    return [event_to_proto(e) for e in events]


def event_from_proto(message: pb.Event) -> Event:
    number = message.kind
    kind = _EVENT_KINDS[number] if 0 <= number < len(_EVENT_KINDS) else None
    if kind is None:
        raise ConversionError(f"unknown event kind {number}")
    move = move_from_proto(message.move) if message.HasField("move") else None
    # tuple.__new__ builds the same value as Event(...) without a Python-level call: every
    # decision converts its events
    return _new(Event, (kind, message.seat, move, tuple(message.cards), message.count, message.pile))


_new = tuple.__new__


def outcome_to_proto(outcome: Outcome) -> pb.Outcome:
    return pb.Outcome(ending=_ENDING_NUMBERS.get(outcome.ending, pb.ENDING_UNSPECIFIED), winners=outcome.winners,
                      scores=outcome.scores, reason=outcome.reason,
                      offender=-1 if outcome.offender is None else outcome.offender)


def outcome_from_proto(message: pb.Outcome) -> Outcome:
    """An outcome; an ending this code does not know (a newer referee's) is ``Ending.UNKNOWN``."""
    number = message.ending
    ending = _ENDINGS[number] if 0 <= number < len(_ENDINGS) else None
    return Outcome(ending or Ending.UNKNOWN, tuple(message.winners), tuple(message.scores), message.reason,
                   None if message.offender < 0 else message.offender)


def observation_to_proto(view: Observation) -> pb.Observation:
    """The wire form of an observation (without its rule set and outcome, which travel
    apart); the observation already holds only what its seat may see."""
    return pb.Observation(
        seat=view.seat, turn=view.turn, to_move=view.to_move, hand=view.hand, hand_sizes=view.hand_sizes,
        stocks=[pb.StockView(count=s.count, visible=s.visible) for s in view.stocks],
        discard_piles=[pb.SeatPiles(piles=[pb.Pile(cards=p) for p in piles]) for piles in view.discard_piles],
        centre_piles=[pb.Pile(cards=p) for p in view.centre_piles],
        draw_pile_count=view.draw_pile_count, set_aside_count=view.set_aside_count,
        events=events_to_proto(view.events), legal_moves=[move_to_proto(m) for m in view.legal_moves])


_PILES: dict[bytes, tuple[tuple[int, ...], ...]] = {}


def _seat_piles(message: pb.SeatPiles) -> tuple[tuple[int, ...], ...]:
    """A seat's discard piles, remembered by their bytes: from one decision to the next most
    are unchanged, and serializing a few bytes costs less than reading each pile's fields."""
    key = message.SerializeToString()
    piles = _PILES.get(key)
    if piles is None:
        if len(_PILES) >= 20_000:
            _PILES.clear()
        piles = _PILES[key] = tuple([tuple(p.cards) for p in message.piles])
    return piles


def observation_from_proto(message: pb.Observation, rules: RuleSet,
                           packed_legal_moves: Iterable[int] = ()) -> Observation:
    """An observation from its wire form and the match's rule set (sent once, in Welcome); in
    a compact session, its legal moves are the decision's ``packed_legal_moves``."""
    m: Any = message
    new = _new
    return new(Observation, (
        rules, m.seat, m.turn, m.to_move, tuple(m.hand), tuple(m.hand_sizes),
        tuple([new(StockView, (s.count, tuple(s.visible))) for s in m.stocks]),
        tuple([_seat_piles(seat) for seat in m.discard_piles]),
        tuple([tuple(p.cards) for p in m.centre_piles]),
        m.draw_pile_count, m.set_aside_count,
        tuple([event_from_proto(e) for e in m.events]),
        moves_from_codes(packed_legal_moves) if packed_legal_moves else moves_from_proto(m.legal_moves),
        None,
    ))
