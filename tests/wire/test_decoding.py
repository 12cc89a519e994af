"""A decision read straight from its bytes (``spite_wire.decoding``, the bot's hot path) is the
one protobuf's parser and :func:`spite_wire.observation_from_proto` give: over random positions
of every rule set, for every seat and the public view, compact and full, with the ids and
clocks anywhere in their ranges; and on bytes the referee would not write (altered, reordered,
with unknown fields) it either gives that same value or says :class:`NotCanonical`, never
another value."""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from spite.v1 import referee_pb2 as rpb
from spite_engine import GameState, RuleSet, observe, observe_public
from spite_wire import observation_from_proto
from spite_wire.decoding import NotCanonical, decision_from_bytes, observation_from_bytes
from spite_wire.encoding import decision_message, observation_bytes
from tests.rules.test_leaks import Where, mid_game, positions


def by_protobuf(data: bytes, rules: RuleSet) -> tuple[int, int, int, int, Any]:
    """The straightforward decode: protobuf's parser, then the converter."""
    request = rpb.RefereeMessage.FromString(data).decision
    return (request.decision_id, request.game_number, request.deadline_ms, request.bank_ms,
            observation_from_proto(request.observation, rules, request.packed_legal_moves))


def views(state: GameState) -> list[Any]:
    return [observe(state, seat) for seat in range(state.rules.players)] + [observe_public(state)]


@settings(max_examples=150, deadline=None)
@given(where=positions, decision_id=st.integers(0, 2**64 - 1), deadline_ms=st.integers(0, 2**32 - 1),
       bank_ms=st.integers(0, 2**32 - 1), game=st.integers(0, 2**32 - 1))
def test_a_decision_reads_as_protobuf_reads_it(where: Where, decision_id: int, deadline_ms: int, bank_ms: int,
                                               game: int) -> None:
    state = mid_game(*where)
    rules = state.rules
    small = max(deadline_ms, bank_ms, game) < 2**31  # the decision id is read up to 2**64
    for view in views(state):
        for packed in (True, False):
            data = decision_message(decision_id, game, view, deadline_ms, bank_ms, packed_moves=packed)
            expected = by_protobuf(data, rules)
            assert expected[4] == view._replace(outcome=None)
            try:
                assert decision_from_bytes(data, rules) == expected
            except NotCanonical:
                assert not small, "a decision as the referee writes it, with ids and clocks under 2**31, is read"
            assert observation_from_bytes(observation_bytes(view), rules) == view._replace(outcome=None)


@settings(max_examples=150, deadline=None)
@given(where=positions, seat=st.integers(0, 3), packed=st.booleans(), edits=st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=3))
def test_altered_bytes_read_as_protobuf_reads_them_or_not_at_all(where: Where, seat: int, packed: bool,
                                                                 edits: list[tuple[int, int]]) -> None:
    """Bytes changed anywhere (a card, a length, a key): the decoder's value, when it gives one,
    is protobuf's; when protobuf refuses the bytes, so does the decoder."""
    state = mid_game(*where)
    view = observe(state, seat % state.rules.players)
    data = bytearray(decision_message(41, 2, view, 1000, 5000, packed_moves=packed))
    for where_at, value in edits:
        data[where_at % len(data)] = value
    altered = bytes(data)
    try:
        expected: Any = by_protobuf(altered, state.rules)
    except Exception as error:  # noqa: BLE001 - protobuf's DecodeError or the converter's ConversionError
        expected = type(error)
    try:
        got: Any = decision_from_bytes(altered, state.rules)
    except NotCanonical:
        event("left to protobuf")
        return
    except Exception as error:  # noqa: BLE001
        got = type(error)
    if isinstance(expected, type) and isinstance(got, type):
        event("refused by both")
        return  # both refuse the bytes (protobuf may name another fault first)
    event("read")
    assert got == expected


@settings(max_examples=60, deadline=None)
@given(where=positions, packed=st.booleans())
def test_reordered_unknown_and_repeated_fields_fall_back(where: Where, packed: bool) -> None:
    """What protobuf accepts but the referee never writes is left to protobuf: NotCanonical."""
    state = mid_game(*where)
    view = observe(state, state.to_move)
    data = decision_message(7, 0, view, 1000, 5000, packed_moves=packed)
    request = rpb.RefereeMessage.FromString(data)
    unknown = request.SerializeToString() + b"\xf8\x01\x05"  # field 31, a varint: unknown to the referee
    assert by_protobuf(unknown, state.rules) == by_protobuf(data, state.rules)
    try:
        decision_from_bytes(unknown, state.rules)
        raise AssertionError("an unknown field was read")
    except NotCanonical:
        pass
    body = data[2:] if data[1] < 128 else data[3:]
    # the deadline written twice: protobuf keeps the last
    twice = bytes([0x22]) + _varint(len(body) + 3) + body + b"\x20\x85\x03"
    assert by_protobuf(twice, state.rules)[2] == 389
    try:
        decision_from_bytes(twice, state.rules)
        raise AssertionError("a repeated field was read")
    except NotCanonical:
        pass


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 128:
        out.append(value & 127 | 128)
        value >>= 7
    out.append(value)
    return bytes(out)
