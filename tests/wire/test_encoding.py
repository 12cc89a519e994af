"""The hot messages written straight to wire bytes (``spite_wire.encoding``) are the messages
the converters build: over random positions of every rule set, for every seat and the public
view, they parse to the same message and serialize to the same bytes; and packed legal moves
name exactly the legal moves."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from spite.v1 import game_pb2 as pb
from spite.v1 import referee_pb2 as rpb
from spite_engine import PASS_MOVE, observe, observe_public, visible_events
from spite_wire import (
    ConversionError,
    events_to_proto,
    move_to_proto,
    moves_from_codes,
    observation_from_proto,
    observation_to_proto,
)
from spite_wire.encoding import decision_message, event_batch_message, move_bytes, move_code, varint
from tests.rules.test_leaks import Where, mid_game, positions


@settings(max_examples=150, deadline=None)
@given(where=positions, decision_id=st.integers(1, 2**63), deadline_ms=st.integers(0, 2**31),
       bank_ms=st.integers(0, 2**31), game=st.integers(0, 10_000))
def test_a_decision_is_the_message_the_converters_build(where: Where, decision_id: int, deadline_ms: int,
                                                         bank_ms: int, game: int) -> None:
    state = mid_game(*where)
    views = [observe(state, seat) for seat in range(state.rules.players)] + [observe_public(state)]
    for view in views:
        expected = rpb.RefereeMessage(decision=rpb.DecisionRequest(
            decision_id=decision_id, game_number=game, observation=observation_to_proto(view),
            deadline_ms=deadline_ms, bank_ms=bank_ms))
        written = decision_message(decision_id, game, view, deadline_ms, bank_ms)
        assert rpb.RefereeMessage.FromString(written) == expected
        assert written == expected.SerializeToString(deterministic=True)
        compact = rpb.RefereeMessage.FromString(decision_message(decision_id, game, view, deadline_ms, bank_ms,
                                                                 packed_moves=True))
        observation = compact.decision.observation
        assert not observation.legal_moves
        assert len(compact.decision.packed_legal_moves) == len(view.legal_moves)
        assert observation_from_proto(observation, state.rules,
                                      compact.decision.packed_legal_moves) == view._replace(outcome=None)
        compact.decision.ClearField("packed_legal_moves")
        del expected.decision.observation.legal_moves[:]
        assert compact == expected


@settings(max_examples=100, deadline=None)
@given(where=positions, since=st.integers(0, 400), game=st.integers(0, 10_000))
def test_an_event_batch_is_the_message_the_converters_build(where: Where, since: int, game: int) -> None:
    state = mid_game(*where)
    for seat in [*range(state.rules.players), None]:
        events = visible_events(state, seat, min(since, len(state.log)))
        expected = rpb.RefereeMessage(events=rpb.EventBatch(game_number=game, events=events_to_proto(events)))
        written = event_batch_message(game, events)
        assert written == expected.SerializeToString(deterministic=True)


def test_every_move_packs_and_unpacks_to_itself() -> None:
    from spite_engine.moves import make_move

    moves = {PASS_MOVE}
    for kind in (0, 1):
        for source in (0, 1, 2):
            for index in range(4):
                for card in range(0, 16):
                    for target in range(4):
                        try:
                            moves.add(make_move(kind, source, index if source == 2 else 0, card, target))
                        except Exception:
                            pass
    assert len(moves) > 300
    codes = [move_code(m) for m in moves]
    assert len(set(codes)) == len(moves)
    assert moves_from_codes(codes) == tuple(moves)
    for move in moves:
        assert pb.Move.FromString(move_bytes(move)) == move_to_proto(move)


@given(st.integers(0, 2**32 - 1))
def test_a_packed_number_is_a_move_or_refused(code: int) -> None:
    try:
        (move,) = moves_from_codes([code])
    except ConversionError:
        return
    assert move.kind in (0, 1, 2)


@given(st.integers(-(2**31), 2**64 - 1))
def test_varints_are_protobufs(value: int) -> None:
    message = pb.Event(seat=value) if value < 2**31 else None
    if message is not None:
        assert message.SerializeToString() == (b"\x10" + varint(value) if value else b"")
    assert pb.Move.FromString(b"\x20" + varint(value & (2**32 - 1))).card == value & (2**32 - 1)
