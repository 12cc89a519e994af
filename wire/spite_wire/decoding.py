"""The bot's hot message read straight from protobuf wire bytes: a ``DecisionRequest``.

:func:`~spite_wire.observation_from_proto` reads a parsed message field by field, and with
protobuf's upb runtime each field read builds a Python object (a container per repeated
field, a message per pile, stock and event): about 20 µs per decision, most of what the SDK
itself spends on one. The referee writes every decision the same way (``spite_wire.encoding``:
field-number order, packed cards, zero values left out), so this module walks those bytes
once and builds the engine's values from them directly: a hand or a pile is
``tuple(bytes)`` (cards are one byte each), the legal moves and the events are looked up by
their bytes (they repeat from one decision to the next), and so are a seat's discard piles
and the stocks, which most decisions leave as they were.

Anything else (fields out of order or repeated, unknown fields, a card over 127, a number
out of its field's range) raises :class:`NotCanonical`, and the caller parses the message with
protobuf instead: this module only takes the shortcut where it gives exactly what that
parser and :func:`~spite_wire.observation_from_proto` give (``tests/wire/test_decoding.py``
checks that over random positions of every rule set, and the fallback on altered bytes).
"""

from __future__ import annotations

import re
from typing import Final, TypeVar

from spite.v1 import game_pb2 as pb
from spite_engine import Event, Move, Observation, RuleSet, StockView

__all__ = ["NotCanonical", "decision_from_bytes", "observation_from_bytes"]


class NotCanonical(ValueError):
    """The bytes are not a message as the referee writes it: parse them with protobuf instead."""


_new = tuple.__new__
_INT32: Final = 1 << 31
_VARINT: Final = re.compile(rb"[\x80-\xff]*[\x00-\x7f]")
"""One varint: bytes with the top bit set, then one without."""

T = TypeVar("T")


class _Memo(dict[bytes, T]):
    """Values by their bytes, emptied when full so a long-lived bot's memory stays bounded: at
    2,048 values each, about 2 MB for all of them (tests/wire/test_encoding_memory.py; at
    20,000 they held 19.5 MB, and a remote bot on the ladder rose to 64 MB as they filled).
    A hit is mostly the same game's next decision, so a few games' worth is enough."""

    LIMIT = 2048

    def put(self, key: bytes, value: T) -> T:
        if len(self) >= self.LIMIT:
            self.clear()
        self[key] = value
        return value


def _varint(data: bytes, i: int) -> tuple[int, int]:
    """The varint at ``data[i]`` and the index after it; under 2**31 (every int32 and uint32
    field here but the decision id, which a caller reads with :func:`_long`)."""
    value, i = _long(data, i)
    if value >= _INT32:
        raise NotCanonical("a varint over 2**31")
    return value, i


def _int32(data: bytes, i: int) -> tuple[int, int]:
    """An int32 field's varint (a negative one is ten bytes: the public view's seat -1)."""
    value, i = _long(data, i)
    if value >= _INT32:
        if value < (1 << 64) - _INT32:
            raise NotCanonical("an int32 out of range")
        value -= 1 << 64
    return value, i


def _long(data: bytes, i: int) -> tuple[int, int]:
    """The varint at ``data[i]`` (at most ten bytes, under 2**64) and the index after it."""
    value = data[i]
    if value < 128:
        return value, i + 1
    second = data[i + 1]
    if second < 128:
        return (value & 127) | second << 7, i + 2
    value = shift = 0
    for i in range(i, min(i + 10, len(data))):
        byte = data[i]
        value |= (byte & 127) << shift
        if byte < 128:
            if value >> 64:
                break
            return value, i + 1
        shift += 7
    raise NotCanonical("a varint over 64 bits or past the end")


def _span(data: bytes, i: int) -> tuple[int, int]:
    """A length-delimited field's payload ``data[start:end]``, ``i`` at its length."""
    size = data[i]
    start = i + 1
    if size >= 128:
        size, start = _varint(data, i)
    end = start + size
    if end > len(data):
        raise NotCanonical("a length past the end")
    return start, end


def _cards(data: bytes, start: int, end: int) -> tuple[int, ...]:
    """A packed list of cards or counts, each under 128 (one byte each)."""
    part = data[start:end]
    if not part.isascii():
        raise NotCanonical("a packed value over 127")
    return tuple(part)


def _stocks_from(data: bytes) -> tuple[StockView, ...]:
    """The StockView fields (6) that make up ``data``."""
    stocks = []
    i, n = 0, len(data)
    while i < n:
        if data[i] != 0x32:
            raise NotCanonical("not a stock")
        start, end = _span(data, i + 1)
        count, j = 0, start
        visible: tuple[int, ...] = ()
        if j < end and data[j] == 0x08:
            count, j = _varint(data, j + 1)
        if j < end and data[j] == 0x12:
            a, b = _span(data, j + 1)
            visible, j = _cards(data, a, b), b
        if j != end:
            raise NotCanonical("a stock's fields")
        stocks.append(_new(StockView, (count, visible)))
        i = end
    return tuple(stocks)


def _seat_piles_from(data: bytes, start: int, end: int) -> tuple[tuple[int, ...], ...]:
    """A SeatPiles message's piles (each a Pile field 1 holding packed cards in its field 1)."""
    piles = []
    i = start
    while i < end:
        if data[i] != 0x0A:
            raise NotCanonical("not a pile")
        size = data[i + 1]
        a, i = (i + 2, i + 2 + size) if size < 128 else _span(data, i + 1)
        piles.append(_pile(data, a, i))
    if i != end:
        raise NotCanonical("a pile past its seat")
    return tuple(piles)


def _pile(data: bytes, start: int, end: int) -> tuple[int, ...]:
    """A Pile message's cards."""
    if start == end:
        return ()
    size = data[start + 1]
    if data[start] != 0x0A or size >= 128 or start + 2 + size != end:
        raise NotCanonical("a pile's fields")
    part = data[start + 2:end]
    if not part.isascii():
        raise NotCanonical("a card over 127")
    return tuple(part)


_STOCKS: _Memo[tuple[StockView, ...]] = _Memo()
_SEATS: _Memo[tuple[tuple[int, ...], ...]] = _Memo()
_EVENTS: _Memo[Event] = _Memo()
_MOVE_FIELDS: _Memo[Move] = _Memo()
_MOVE_CODES: _Memo[Move] = _Memo()


def _event(data: bytes) -> Event:
    from . import event_from_proto

    return _EVENTS.put(data, event_from_proto(pb.Event.FromString(data)))


def _listed_move(data: bytes) -> Move:
    from . import move_from_proto

    return _MOVE_FIELDS.put(data, move_from_proto(pb.Move.FromString(data)))


def observation_from_bytes(data: bytes, rules: RuleSet, legal_moves: tuple[Move, ...] = ()) -> Observation:
    """:func:`~spite_wire.observation_from_proto` of an ``Observation`` message's bytes as the
    referee writes them (:class:`NotCanonical` otherwise); ``legal_moves`` are a compact
    decision's, else the message's own."""
    try:
        return _observation(data, rules, legal_moves)
    except IndexError:
        raise NotCanonical("a field past the end") from None


def _observation(data: bytes, rules: RuleSet, legal_moves: tuple[Move, ...]) -> Observation:
    # Inlined rather than factored into a call per field: a decision has twenty-odd fields, and
    # a Python call costs more than reading one. A length under 128 is one byte; a longer one
    # goes through _span. Reading past the end raises IndexError or leaves i past n.
    n = len(data)
    i = seat = turn = to_move = draw = aside = 0
    hand: tuple[int, ...] = ()
    sizes: tuple[int, ...] = ()
    stocks: tuple[StockView, ...] = ()
    key = data[0] if n else 0
    if key == 0x08:
        seat, i = _int32(data, 1)
        key = data[i] if i < n else 0
    if key == 0x10:
        turn, i = _varint(data, i + 1)
        key = data[i] if i < n else 0
    if key == 0x18:
        to_move, i = _varint(data, i + 1)
        key = data[i] if i < n else 0
    if key == 0x22:
        size = data[i + 1]
        a, i = (i + 2, i + 2 + size) if size < 128 else _span(data, i + 1)
        part = data[a:i]
        if not part.isascii():
            raise NotCanonical("a card over 127")
        hand = tuple(part)
        key = data[i] if i < n else 0
    if key == 0x2A:
        size = data[i + 1]
        a, i = (i + 2, i + 2 + size) if size < 128 else _span(data, i + 1)
        part = data[a:i]
        if not part.isascii():
            raise NotCanonical("a count over 127")
        sizes = tuple(part)
        key = data[i] if i < n else 0
    if key == 0x32:
        first = i
        while key == 0x32:
            size = data[i + 1]
            i = i + 2 + size if size < 128 else _span(data, i + 1)[1]
            key = data[i] if i < n else 0
        part = data[first:i]
        known_stocks = _STOCKS.get(part)
        stocks = known_stocks if known_stocks is not None else _STOCKS.put(part, _stocks_from(part))
    discards = []
    seats = _SEATS
    while key == 0x3A:
        size = data[i + 1]
        a, b = (i + 2, i + 2 + size) if size < 128 else _span(data, i + 1)
        part = data[a:b]
        piles = seats.get(part)
        discards.append(piles if piles is not None else seats.put(part, _seat_piles_from(data, a, b)))
        i = b
        key = data[i] if i < n else 0
    centre = []
    while key == 0x42:
        size = data[i + 1]
        a, i = (i + 2, i + 2 + size) if size < 128 else _span(data, i + 1)
        centre.append(_pile(data, a, i) if a < i else ())
        key = data[i] if i < n else 0
    if key == 0x48:
        draw, i = _varint(data, i + 1)
        key = data[i] if i < n else 0
    if key == 0x50:
        aside, i = _varint(data, i + 1)
        key = data[i] if i < n else 0
    events = []
    known = _EVENTS
    while key == 0x5A:
        size = data[i + 1]
        a, i = (i + 2, i + 2 + size) if size < 128 else _span(data, i + 1)
        part = data[a:i]
        event = known.get(part)
        events.append(event if event is not None else _event(part))
        key = data[i] if i < n else 0
    if key == 0x62:
        if legal_moves:
            raise NotCanonical("legal moves both packed and listed")
        moves = []
        listed = _MOVE_FIELDS
        while key == 0x62:
            size = data[i + 1]
            a, i = (i + 2, i + 2 + size) if size < 128 else _span(data, i + 1)
            part = data[a:i]
            move = listed.get(part)
            moves.append(move if move is not None else _listed_move(part))
            key = data[i] if i < n else 0
        legal_moves = tuple(moves)
    if i != n:
        raise NotCanonical("fields out of order, repeated or unknown")
    return _new(Observation, (rules, seat, turn, to_move, hand, sizes, stocks, tuple(discards), tuple(centre),
                              draw, aside, tuple(events), legal_moves, None))


def _packed_moves(data: bytes) -> tuple[Move, ...]:
    """The moves of a packed ``packed_legal_moves`` payload, each looked up by its varint's bytes."""
    if data[-1] >= 128:
        raise NotCanonical("a truncated varint")
    parts = _VARINT.findall(data)
    known = _MOVE_CODES
    try:
        return tuple(map(known.__getitem__, parts))
    except KeyError:
        pass
    from . import moves_from_codes

    codes = []
    for part in parts:
        code, end = _long(part, 0)
        if code >= 1 << 32 or end != len(part):
            raise NotCanonical("a move number over 32 bits")
        codes.append(code)
    moves = moves_from_codes(codes)  # ConversionError for a number that names no move, as before
    for part, move in zip(parts, moves):
        if len(part) <= 5 and (len(part) == 1 or part[-1]):  # the shortest form: the one a move is written in
            known.put(part, move)
    return moves


def decision_from_bytes(data: bytes, rules: RuleSet) -> tuple[int, int, int, int, Observation]:
    """A ``RefereeMessage`` holding a ``DecisionRequest``, as the referee writes it: its
    ``decision_id``, ``game_number``, ``deadline_ms``, ``bank_ms`` and observation (with the
    packed legal moves of a compact session). :class:`NotCanonical` for anything else."""
    try:
        if data[0] != 0x22:
            raise NotCanonical("not a DecisionRequest")
        start, end = _span(data, 1)
        if end != len(data):
            raise NotCanonical("a DecisionRequest and more")
        decision_id = game_number = deadline_ms = bank_ms = 0
        i = start
        key = data[i] if i < end else 0
        if key == 0x08:
            decision_id, i = _long(data, i + 1)
            key = data[i] if i < end else 0
        if key == 0x10:
            game_number, i = _varint(data, i + 1)
            key = data[i] if i < end else 0
        if key != 0x1A:
            raise NotCanonical("no observation")
        a, i = _span(data, i + 1)
        observation = data[a:i]
        key = data[i] if i < end else 0
        if key == 0x20:
            deadline_ms, i = _varint(data, i + 1)
            key = data[i] if i < end else 0
        if key == 0x28:
            bank_ms, i = _varint(data, i + 1)
            key = data[i] if i < end else 0
        moves: tuple[Move, ...] = ()
        if key == 0x32:
            a, i = _span(data, i + 1)
            if a < i:
                moves = _packed_moves(data[a:i])
        if i != end:
            raise NotCanonical("fields out of order, repeated or unknown")
        return decision_id, game_number, deadline_ms, bank_ms, _observation(observation, rules, moves)
    except IndexError:
        raise NotCanonical("a field past the end") from None
