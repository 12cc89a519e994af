"""The stdio transport's JSON for the hot messages (``spite_wire.canonical_json``) is
``json_format.MessageToDict``'s, over random positions of every rule set; and the fast
reading of a plain action line gives what ``json_format.Parse`` gives, or leaves the line to it."""

from __future__ import annotations

import json

from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.transports.stdio import _plain_action, decode
from spite.v1 import referee_pb2 as rpb
from spite_engine import observe, observe_public, visible_events
from spite_wire import move_to_proto
from spite_wire.canonical_json import referee_message_dict, referee_message_line
from spite_wire.encoding import decision_message, event_batch_message
from tests.rules.test_leaks import Where, mid_game, positions


@settings(max_examples=120, deadline=None)
@given(where=positions, decision_id=st.integers(0, 2**64 - 1), since=st.integers(0, 400), compact=st.booleans())
def test_hot_messages_are_json_formats(where: Where, decision_id: int, since: int, compact: bool) -> None:
    state = mid_game(*where)
    messages = []
    for view in [observe(state, s) for s in range(state.rules.players)] + [observe_public(state)]:
        messages.append(rpb.RefereeMessage.FromString(
            decision_message(decision_id, view.turn % 3, view, 1000, decision_id % 5000, packed_moves=compact)))
        messages.append(rpb.RefereeMessage.FromString(
            event_batch_message(view.turn % 2, visible_events(state, None if view.seat < 0 else view.seat,
                                                              min(since, len(state.log))))))
    legal = state.legal_moves()
    messages.append(rpb.RefereeMessage(result=rpb.ActionResult(
        decision_id=decision_id, applied=[move_to_proto(m) for m in legal[:3]], dropped=since % 3,
        fault=since % 5, error="x" * (since % 4), strikes=since % 3)))
    for message in messages:
        assert referee_message_dict(message) == json_format.MessageToDict(message)
        assert json.loads(referee_message_line(message)) == json_format.MessageToDict(message)
        assert referee_message_line(message.SerializeToString()) == referee_message_line(message)


def test_other_messages_go_to_json_format() -> None:
    message = rpb.RefereeMessage(refusal=rpb.Refusal(code="UNAUTHENTICATED", message="no"))
    assert referee_message_dict(message) == {"refusal": {"code": "UNAUTHENTICATED", "message": "no"}}


@given(decision_id=st.one_of(st.integers(-5, 2**64 + 5), st.text(max_size=25), st.floats(), st.booleans(),
                             st.none()),
       move_index=st.one_of(st.integers(-5, 2**32 + 5), st.floats(), st.booleans(), st.text(max_size=5)),
       debug=st.one_of(st.text(max_size=30), st.integers()), extra=st.booleans(), drop=st.sampled_from(
           ["", "decisionId", "moveIndex", "debug"]))
def test_a_plain_action_reads_as_json_format_reads_it(decision_id: object, move_index: object, debug: object,
                                                      extra: bool, drop: str) -> None:
    action = {"decisionId": decision_id, "moveIndex": move_index, "debug": debug}
    action.pop(drop, None)
    if extra:
        action["plan"] = {"moves": [{"kind": "MOVE_KIND_PASS"}]}
    text = json.dumps({"action": action})
    fast = _plain_action(text)
    try:
        slow = json_format.Parse(text, rpb.BotMessage())
    except json_format.ParseError:
        assert fast is None  # refused by the full parser: never accepted by the fast one
        return
    if fast is not None:
        if slow.action.WhichOneof("choice") is None:
            slow.action.move_index = 0  # decode()'s rule: no choice is move_index 0
        assert fast == slow
    assert decode(text.encode()) is not None
