"""The referee's hot messages written straight to protobuf wire bytes.

Every decision sends a ``RefereeMessage`` holding a ``DecisionRequest`` and its
``Observation``; building that as protobuf objects (a message per pile, per stock, per
event, per legal move) and then serializing it costs several times what the rules engine
spends on the decision. The functions here write the same bytes directly from the engine's
values, in field-number order with packed repeated scalars and zero values left out, as
protobuf's own serializer does: ``tests/wire/test_encoding.py`` checks, over many random
games, that they parse to the messages ``spite_wire``'s converters build and serialize to
the same bytes.

The encoding, for a reader of this file (https://protobuf.dev/programming-guides/encoding/):
a field is a key ``number << 3 | wire type`` (0: varint, 2: length-delimited) then its value;
a nested message or a packed list is its length then its bytes. Cards, hand sizes and
counts under 128 are one byte each, so a packed list of them is ``bytes(values)``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from spite_engine import Event, Move, MoveKind, Observation

_MASK64 = (1 << 64) - 1


def _varint(value: int) -> bytes:
    value &= _MASK64
    out = bytearray()
    while value >= 128:
        out.append((value & 127) | 128)
        value >>= 7
    out.append(value)
    return bytes(out)


_COMMON = {n: _varint(n) for n in range(-1, 1 << 14)}
"""Every varint the hot messages write but ids, codes and clock values: -1 (no seat, no
pile), cards, counts, turns, sizes."""


def varint(value: int) -> bytes:
    """An unsigned varint; a negative int32 is written as its 64-bit two's complement (ten bytes)."""
    cached = _COMMON.get(value)
    return cached if cached is not None else _varint(value)


def _field(key: int, payload: bytes) -> bytes:
    """A length-delimited field: its key byte, the payload's length, the payload."""
    size = len(payload)
    return bytes((key, size)) + payload if size < 128 else bytes((key,)) + varint(size) + payload



def _packed(key: int, values: Sequence[int]) -> bytes:
    """A packed repeated uint32 field (nothing for an empty list, as protobuf writes it)."""
    if not values:
        return b""
    if max(values) < 128:
        return _field(key, bytes(values))
    return _field(key, b"".join(map(varint, values)))


def _uint(key: int, value: int) -> bytes:
    """A varint field, left out when zero (proto3's default)."""
    if not value:
        return b""
    return bytes((key, value)) if 0 < value < 128 else bytes((key,)) + varint(value)


class _Memo(dict[Any, bytes]):
    """A field's bytes by its value, written on a miss by ``write(key, value)``: from one
    decision to the next most turns, counts, hands, piles, stocks and events are the same, and
    a dict lookup costs a fraction of writing them. Emptied when it holds ``LIMIT`` values, so
    a long-running referee's memory stays bounded: an entry (its key, its bytes, its slot)
    holds about 100-400 bytes, so the memos here hold at most about 4 MB together
    (``tests/wire/test_encoding_memory.py`` measures it). Most hits are between one decision
    and the next of the same game, so a few thousand values keep nearly all of them; 20,000
    values a memo held about 30 MB once full, and filled over hours of a ladder (issue 24)."""

    LIMIT = 2048

    def __init__(self, key: int, write: "Callable[[int, Any], bytes]") -> None:
        super().__init__()
        self.key, self.write = key, write

    def __missing__(self, value: Any) -> bytes:
        written = self.write(self.key, value)
        if len(self) >= self.LIMIT:
            self.clear()
        self[value] = written
        return written


def _pile(key: int, pile: tuple[int, ...]) -> bytes:
    """A ``Pile`` message (its cards, packed) as field ``key``."""
    return _field(key, _packed(0x0A, pile))


_CENTRE_PILE, _SEAT_PILE = _Memo(0x42, _pile), _Memo(0x0A, _pile)
"""Each pile's field by its cards: a move changes one or two piles, the others are looked up."""


# -- moves ------------------------------------------------------------------------------------

_MOVE_BYTES: dict[Move, bytes] = {}
_MOVE_CODES: dict[Move, int] = {}


def move_bytes(move: Move) -> bytes:
    """A ``Move`` message's bytes (cached: the engine's moves are a small fixed set)."""
    cached = _MOVE_BYTES.get(move)
    if cached is None:
        if move.kind == MoveKind.PASS:
            cached = b"\x08\x03"
        else:
            cached = (_uint(0x08, move.kind + 1) + _uint(0x10, move.source + 1) + _uint(0x18, move.index)
                      + _uint(0x20, move.card) + _uint(0x28, move.target))
        _MOVE_BYTES[move] = cached
    return cached


def move_code(move: Move) -> int:
    """A move packed in one number, as in ``DecisionRequest.packed_legal_moves``: wire kind |
    wire source << 4 | source_index << 8 | card << 16 | target << 24 (a pass: 3)."""
    code = _MOVE_CODES.get(move)
    if code is None:
        if move.kind == MoveKind.PASS:
            code = 3
        else:
            code = (move.kind + 1) | (move.source + 1) << 4 | move.index << 8 | move.card << 16 | move.target << 24
        _MOVE_CODES[move] = code
    return code


def move_codes(moves: Iterable[Move]) -> list[int]:
    codes = _MOVE_CODES
    return [codes.get(m) or move_code(m) for m in moves]


_PACKED_MOVE = _Memo(0, lambda _, move: varint(move_code(move)))
_LISTED_MOVE = _Memo(0x62, lambda key, move: _field(key, move_bytes(move)))


def _legal_moves(moves: Sequence[Move], packed: bool) -> bytes:
    """The legal moves as an Observation's repeated ``Move`` fields (12), or packed in one
    field (a DecisionRequest's 6)."""
    if packed:
        return _field(0x32, b"".join(map(_PACKED_MOVE.__getitem__, moves)))
    return b"".join(map(_LISTED_MOVE.__getitem__, moves))


# -- events and observations ------------------------------------------------------------------

def _event_bytes(event: Event) -> bytes:
    kind, seat, move, cards, count, pile = event
    out = bytes((0x08, kind + 1))
    if seat:
        out += b"\x10" + varint(seat)
    if move is not None:
        out += _field(0x1A, move_bytes(move))
    if cards:
        out += _packed(0x22, cards)
    if count:
        out += b"\x28" + varint(count)
    if pile:
        out += b"\x30" + varint(pile)
    return out


_EVENT = _Memo(0, lambda _, event: _event_bytes(event))
_STOCKS = _Memo(0x32, lambda key, stocks: b"".join([_field(key, _uint(0x08, count) + _packed(0x12, visible))
                                                    for count, visible in stocks]))
"""The stocks: one ``StockView`` field (6) each."""
_EVENT_FIELDS = {key: _Memo(key, lambda key, event: _field(key, _EVENT[event])) for key in (0x12, 0x5A)}
"""Each event as a whole field of an EventBatch (2) or an Observation (11)."""


def event_bytes(event: Event) -> bytes:
    """An ``Event`` message's bytes (its seat and pile are int32: -1 takes ten bytes)."""
    return _EVENT[event]


def events_bytes(key: int, events: Sequence[Event]) -> bytes:
    """The events as repeated ``Event`` fields numbered by ``key`` (0x12 or 0x5A)."""
    return b"".join(map(_EVENT_FIELDS[key].__getitem__, events))


_LAST: dict[int, tuple[object, bytes]] = {}
"""The parts written last, by the identity of the value they were written from: the engine
keeps a stock or discard view object between decisions until a move changes it, and an
identity check costs less than hashing nested tuples. Holding the object keeps its id from
being reused while the entry lives; emptied when it holds ``_LAST_LIMIT`` entries."""
_LAST_LIMIT = 512
"""A hit is the next decision of the same game, so this only needs the games in play at once
(a few views each). Each entry keeps its view alive (about 500 bytes with its piles): 512
entries hold about 0.3 MB; the 20,000 it once shared with the memos held about 10 MB."""


def _seat_piles(piles: tuple[tuple[int, ...], ...]) -> bytes:
    """A ``SeatPiles`` field (7) of an observation."""
    last = _LAST.get(id(piles))
    if last is not None and last[0] is piles:
        return last[1]
    written = _field(0x3A, b"".join(map(_SEAT_PILE.__getitem__, piles)))
    _remember(piles, written)
    return written


def _centre(piles: tuple[tuple[int, ...], ...]) -> bytes:
    """The centre piles: one ``Pile`` field (8) each."""
    return b"".join(map(_CENTRE_PILE.__getitem__, piles))


def _stocks(stocks: tuple[tuple[int, tuple[int, ...]], ...]) -> bytes:
    """The stocks: one ``StockView`` field (6) each."""
    last = _LAST.get(id(stocks))
    if last is not None and last[0] is stocks:
        return last[1]
    written = _STOCKS[stocks]
    _remember(stocks, written)
    return written


def _remember(value: object, written: bytes) -> None:
    if len(_LAST) >= _LAST_LIMIT:
        _LAST.clear()
    _LAST[id(value)] = (value, written)


_SEAT, _TURN, _TO_MOVE, _DRAW_PILE, _SET_ASIDE = (_Memo(key, _uint) for key in (0x08, 0x10, 0x18, 0x48, 0x50))
_HAND, _HAND_SIZES = _Memo(0x22, _packed), _Memo(0x2A, _packed)
_GAME, _DEADLINE, _BANK = _Memo(0x10, _uint), _Memo(0x20, _uint), _Memo(0x28, _uint)


def observation_bytes(view: Observation, *, legal_moves: bool = True) -> bytes:
    """An ``Observation`` message's bytes (without its legal moves: ``legal_moves`` False)."""
    parts = [_SEAT[view.seat], _TURN[view.turn], _TO_MOVE[view.to_move], _HAND[view.hand],
             _HAND_SIZES[view.hand_sizes], _stocks(view.stocks), *map(_seat_piles, view.discard_piles),
             _centre(view.centre_piles), _DRAW_PILE[view.draw_pile_count], _SET_ASIDE[view.set_aside_count]]
    if view.events:
        parts.append(events_bytes(0x5A, view.events))
    if view.legal_moves and legal_moves:
        parts.append(_legal_moves(view.legal_moves, False))
    return b"".join(parts)


# -- referee messages -------------------------------------------------------------------------

def decision_message(decision_id: int, game_number: int, view: Observation, deadline_ms: int, bank_ms: int,
                     *, packed_moves: bool = False) -> bytes:
    """A ``RefereeMessage`` holding a ``DecisionRequest`` (field 4); with ``packed_moves`` (the
    compact session) the legal moves go in its ``packed_legal_moves``, not the observation.
    The parts are joined once: no part is copied into a bigger one."""
    observation = observation_bytes(view, legal_moves=not packed_moves)
    parts = [_uint(0x08, decision_id), _GAME[game_number], b"\x1a", varint(len(observation)), observation,
             _DEADLINE[deadline_ms], _BANK[bank_ms]]
    if packed_moves and view.legal_moves:
        parts.append(_legal_moves(view.legal_moves, True))
    return b"".join([b"\x22", varint(sum(map(len, parts))), *parts])


def event_batch_message(game_number: int, events: Sequence[Event]) -> bytes:
    """A ``RefereeMessage`` holding an ``EventBatch`` (field 3)."""
    return _field(0x1A, _uint(0x08, game_number) + events_bytes(0x12, events))
