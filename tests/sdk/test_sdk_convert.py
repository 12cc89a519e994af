"""Wire messages <-> SDK values: round trips both ways, and the enum offset by one."""

from __future__ import annotations

import itertools

import pytest
from _sdk_values import rule_set

from spite.v1 import game_pb2, referee_pb2
from spite_sdk import (
    PASS_MOVE,
    Ending,
    Event,
    EventKind,
    Fault,
    Move,
    MoveKind,
    Outcome,
    Policy,
    Source,
    StockView,
    convert,
)

PLAY, DISCARD, PASS = MoveKind
HAND, STOCK, DISCARD_PILE = Source


def every_move() -> list[Move]:
    moves = [PASS_MOVE]
    for card, target in itertools.product(range(14), range(8)):
        moves.append(Move(PLAY, HAND, 0, card, target))
        moves.append(Move(PLAY, STOCK, 0, card, target))
        moves.append(Move(DISCARD, HAND, 0, card, target))
        moves.extend(Move(PLAY, DISCARD_PILE, index, card, target) for index in range(8))
    return moves


def test_move_numbering_is_offset_by_one_on_the_wire() -> None:
    wire = convert.move_to_proto(Move.parse("D1:Q>C3"))
    assert wire == game_pb2.Move(kind=game_pb2.MOVE_KIND_PLAY, source=game_pb2.SOURCE_DISCARD_PILE,
                                 source_index=1, card=12, target=3)
    assert convert.move_to_proto(Move.parse("H:9>D2")) == game_pb2.Move(
        kind=game_pb2.MOVE_KIND_DISCARD, source=game_pb2.SOURCE_HAND, card=9, target=2)
    assert convert.move_to_proto(Move.parse("S:K>C0")).source == game_pb2.SOURCE_STOCK
    # PASS carries no source on the wire.
    assert convert.move_to_proto(PASS_MOVE) == game_pb2.Move(kind=game_pb2.MOVE_KIND_PASS)


def test_every_move_round_trips_both_ways() -> None:
    for move in every_move():
        wire = convert.move_to_proto(move)
        assert convert.move_from_proto(wire) == move
        again = game_pb2.Move.FromString(wire.SerializeToString())
        assert convert.move_to_proto(convert.move_from_proto(again)) == wire
        assert isinstance(convert.move_from_proto(wire).kind, MoveKind)


@pytest.mark.parametrize("wire", [
    game_pb2.Move(),                                                       # kind unspecified
    game_pb2.Move(kind=9, source=1),                                       # unknown kind
    game_pb2.Move(kind=game_pb2.MOVE_KIND_PLAY, card=7),                   # PLAY without a source
    game_pb2.Move(kind=game_pb2.MOVE_KIND_DISCARD, source=game_pb2.SOURCE_STOCK, card=7),
])
def test_moves_that_cannot_be_are_refused(wire: game_pb2.Move) -> None:
    with pytest.raises(convert.ConversionError):
        convert.move_from_proto(wire)


def test_rules_round_trip() -> None:
    rules = rule_set(name="skip-bo+4p", players=4, deck="skip-bo", decks=1, completed_piles="set-aside",
                     discard_aces=True, stock_size=30, match_points=5)
    wire = convert.rules_to_proto(rules)
    assert list(wire.wild_ranks) == [0]
    assert convert.rules_from_proto(wire) == rules
    assert convert.rules_to_proto(convert.rules_from_proto(wire)) == wire
    # Every proto field is an attribute of the same name (wild_ranks follows from the options).
    assert all(hasattr(rules, f.name) for f in game_pb2.RuleSet.DESCRIPTOR.fields)


def sample_observation_proto() -> game_pb2.Observation:
    return game_pb2.Observation(
        seat=1, turn=17, to_move=1, hand=[0, 3, 3, 9, 13], hand_sizes=[4, 5],
        stocks=[game_pb2.StockView(count=12, visible=[6]), game_pb2.StockView(count=0)],
        discard_piles=[
            game_pb2.SeatPiles(piles=[game_pb2.Pile(cards=[10, 8]), game_pb2.Pile(), game_pb2.Pile(cards=[5]),
                                      game_pb2.Pile()]),
            game_pb2.SeatPiles(piles=[game_pb2.Pile(), game_pb2.Pile(cards=[13, 11, 4]), game_pb2.Pile(),
                                      game_pb2.Pile(cards=[2])]),
        ],
        centre_piles=[game_pb2.Pile(cards=[1, 2, 0]), game_pb2.Pile(), game_pb2.Pile(cards=[1]),
                      game_pb2.Pile(cards=list(range(1, 12)))],
        draw_pile_count=61, set_aside_count=12,
        events=[
            game_pb2.Event(kind=game_pb2.EVENT_KIND_MOVE, seat=1, pile=-1,
                           move=game_pb2.Move(kind=game_pb2.MOVE_KIND_DISCARD, source=game_pb2.SOURCE_HAND,
                                              card=2, target=3)),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_TURN, seat=0, count=16, pile=-1),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_DRAW, seat=0, count=3, pile=-1),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_MOVE, seat=0, pile=-1,
                           move=game_pb2.Move(kind=game_pb2.MOVE_KIND_PLAY, source=game_pb2.SOURCE_STOCK,
                                              card=0, target=0)),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_REVEAL, seat=-1, cards=[6], count=12, pile=0),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_PILE_COMPLETED, seat=-1, pile=2, cards=list(range(1, 13))),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_SHUFFLE, seat=-1, count=61, pile=-1),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_MOVE, seat=0, pile=-1,
                           move=game_pb2.Move(kind=game_pb2.MOVE_KIND_PASS)),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_TURN, seat=1, count=17, pile=-1),
            game_pb2.Event(kind=game_pb2.EVENT_KIND_DRAW, seat=1, cards=[3, 9], count=2, pile=-1),
        ],
        legal_moves=[convert.move_to_proto(Move.parse(t)) for t in
                     ("H:*>C0", "H:*>C1", "H:3>C0", "D1:4>C0", "D3:2>C2", "H:3>D0", "H:9>D1", "H:K>C3")],
    )


def test_observation_round_trips_with_nested_piles_and_events() -> None:
    wire = sample_observation_proto()
    rules = rule_set()
    observation = convert.observation_from_proto(wire, rules)
    assert observation.rules is rules
    assert observation.hand == (0, 3, 3, 9, 13)
    assert observation.stocks == (StockView(12, (6,)), StockView(0, ()))
    assert observation.discard_piles[1][1] == (13, 11, 4)
    assert observation.my_discard_piles == ((), (13, 11, 4), (), (2,))
    assert observation.centre_piles[3] == tuple(range(1, 12))
    assert observation.centre_needs == (4, 1, 2, 12)
    assert observation.my_stock.count == 0
    assert (observation.draw_pile_count, observation.set_aside_count) == (61, 12)
    assert observation.events[0] == Event(EventKind.MOVE, 1, Move.parse("H:2>D3"), (), 0, -1)
    assert observation.events[3].move == Move.parse("S:*>C0")
    assert observation.events[4] == Event(EventKind.REVEAL, -1, None, (6,), 12, 0)
    assert observation.events[7].move == PASS_MOVE
    assert [e.kind for e in observation.events][:3] == [EventKind.MOVE, EventKind.TURN, EventKind.DRAW]
    assert [str(m) for m in observation.legal_moves][:4] == ["H:*>C0", "H:*>C1", "H:3>C0", "D1:4>C0"]
    assert convert.observation_to_proto(observation) == wire
    reparsed = game_pb2.Observation.FromString(convert.observation_to_proto(observation).SerializeToString())
    assert convert.observation_from_proto(reparsed, rules) == observation


def test_observation_values_are_immutable() -> None:
    observation = convert.observation_from_proto(sample_observation_proto(), rule_set())
    for value in (observation.hand, observation.legal_moves, observation.discard_piles,
                  observation.discard_piles[0], observation.discard_piles[0][0], observation.centre_piles[0],
                  observation.events, observation.events[0].cards):
        assert isinstance(value, tuple)


def test_unknown_event_kind_is_refused() -> None:
    with pytest.raises(convert.ConversionError):
        convert.event_from_proto(game_pb2.Event(kind=0))


@pytest.mark.parametrize("number, ending", list(enumerate(
    ["stock-emptied", "stalemate", "turn-cap", "draw-pile-exhausted", "timeout", "illegal-move", "malformed",
     "crash", "disconnect", "no-show", "forfeit"], start=1)))
def test_endings_are_offset_by_one(number: int, ending: str) -> None:
    wire = game_pb2.Outcome(ending=number, winners=[1], scores=[0, 1], reason="why", offender=-1)
    outcome = convert.outcome_from_proto(wire)
    assert outcome.ending == Ending(ending)
    assert game_pb2.Ending.Name(number) == "ENDING_" + outcome.ending.name
    assert convert.outcome_to_proto(outcome) == wire


def test_outcome_round_trip_and_offender() -> None:
    wire = game_pb2.Outcome(ending=game_pb2.ENDING_TIMEOUT, winners=[0, 2], scores=[1, 0, 1, 0],
                            reason="seat 1 ran out of time", offender=1)
    outcome = convert.outcome_from_proto(wire)
    assert outcome == Outcome(Ending.TIMEOUT, (0, 2), (1, 0, 1, 0), "seat 1 ran out of time", 1)
    assert not outcome.ending.by_rules and not outcome.is_draw
    assert convert.outcome_to_proto(outcome) == wire
    draw = convert.outcome_from_proto(game_pb2.Outcome(ending=game_pb2.ENDING_STALEMATE, scores=[0, 0],
                                                       reason="stalemate", offender=-1))
    assert draw.offender is None and draw.is_draw and draw.ending.by_rules
    assert convert.outcome_from_proto(game_pb2.Outcome(ending=42, offender=-1)).ending == Ending.UNKNOWN


def test_referee_messages() -> None:
    welcome = convert.welcome_from_proto(referee_pb2.Welcome(
        seat=1, rules=convert.rules_to_proto(rule_set()), games=3, match_id="m-1", protocol_version=1,
        time_control=referee_pb2.TimeControl(decision_ms=250, bank_ms=5000, connect_ms=10000),
        seat_names=["greedy", "mine"], policy=referee_pb2.POLICY_SUBSTITUTE))
    assert welcome.seat == 1 and welcome.rules == rule_set() and welcome.seat_names == ("greedy", "mine")
    assert (welcome.time_control.decision, welcome.time_control.bank, welcome.time_control.connect) == (0.25, 5, 10)
    assert welcome.policy == Policy.SUBSTITUTE
    result = convert.action_result_from_proto(referee_pb2.ActionResult(
        decision_id=7, fault=referee_pb2.FAULT_ILLEGAL_MOVE, error="H:7>C0: centre pile 0 needs 3", strikes=1,
        applied=[convert.move_to_proto(Move.parse("H:9>D0"))]))
    assert result.fault == Fault.ILLEGAL_MOVE and not result.ok and result.applied == (Move.parse("H:9>D0"),)
    assert convert.action_result_from_proto(referee_pb2.ActionResult(decision_id=8)).ok
    over = convert.match_result_from_proto(referee_pb2.MatchOver(points=[2, 1], wins=[2, 1], winners=[0],
                                                                 reason="seat 0 won 2-1"))
    assert over.points == (2, 1) and over.winners == (0,)


def test_action_from_a_move_a_plan_or_an_index() -> None:
    legal = (Move.parse("H:3>C0"), Move.parse("S:5>C1"), Move.parse("H:9>D0"))
    action = convert.action_to_proto(5, legal[1])
    assert action.decision_id == 5 and action.WhichOneof("choice") == "move"
    assert convert.move_from_proto(action.move) == legal[1]
    plan = convert.action_to_proto(6, [legal[0], legal[1]])
    assert [convert.move_from_proto(m) for m in plan.plan.moves] == [legal[0], legal[1]]
    index = convert.action_to_proto(7, 0, legal_moves=legal)
    assert index.WhichOneof("choice") == "move_index" and index.move_index == 0
    assert convert.action_to_proto(8, -1, legal_moves=legal).move_index == 2
    assert convert.action_to_proto(9, 10, legal_moves=legal).move_index == 10  # the referee judges it
    with pytest.raises(ValueError):
        convert.action_to_proto(10, -4, legal_moves=legal)
    for junk in (None, True, "H:3>C0", 1.5, [1, 2]):
        with pytest.raises(TypeError):
            convert.action_to_proto(11, junk, legal_moves=legal)


def test_debug_is_cut_to_256_bytes_on_a_character_boundary() -> None:
    assert convert.action_to_proto(1, 0, "short").debug == "short"
    assert convert.action_to_proto(1, 0, "x" * 300).debug == "x" * 256
    cut = convert.action_to_proto(1, 0, "é" * 200).debug  # 2 bytes each
    assert cut == "é" * 128 and len(cut.encode()) == 256
    cut = convert.action_to_proto(1, 0, "a" + "€" * 100).debug  # 3 bytes each, 1 + 255 = 256
    assert cut == "a" + "€" * 85
    assert len(convert.action_to_proto(1, 0, "€" * 100).debug.encode()) == 255


def test_every_sdk_enum_maps_to_the_proto_value_of_the_same_name() -> None:
    for kind in EventKind:
        wire = convert.event_to_proto(Event(kind))
        assert game_pb2.EventKind.Name(wire.kind) == f"EVENT_KIND_{kind.name}"
        assert convert.event_from_proto(wire).kind is kind
    for move in (Move.parse("H:7>C0"), Move.parse("S:7>C0"), Move.parse("D2:7>C0"), Move.parse("H:7>D0"), PASS_MOVE):
        wire = convert.move_to_proto(move)
        assert game_pb2.MoveKind.Name(wire.kind) == f"MOVE_KIND_{move.kind.name}"
        if move.kind != PASS:
            assert game_pb2.Source.Name(wire.source) == f"SOURCE_{move.source.name}"
    for fault in Fault:
        if fault is not Fault.UNKNOWN:
            assert referee_pb2.Fault.Name(fault) == f"FAULT_{fault.name}"
            assert convert.action_result_from_proto(referee_pb2.ActionResult(fault=fault)).fault is fault
    assert convert.action_result_from_proto(referee_pb2.ActionResult(fault=99, error="new")).fault is Fault.UNKNOWN
    for number in (referee_pb2.POLICY_FORFEIT, referee_pb2.POLICY_SUBSTITUTE):
        policy = convert.welcome_from_proto(referee_pb2.Welcome(policy=number,
                                                                rules=convert.rules_to_proto(rule_set()))).policy
        assert referee_pb2.Policy.Name(number) == f"POLICY_{policy.name}"


@pytest.mark.parametrize("decision_id", [0, 1, 127, 128, 300_000, 2**63 + 5])
def test_an_action_written_directly_is_the_message_protobuf_writes(decision_id: int) -> None:
    """``session.action_bytes`` writes the usual answers (a move, an index) itself; every
    answer's bytes are protobuf's for ``action_to_proto``'s Action, and what it refuses it still
    refuses."""
    from spite_sdk.session import action_bytes

    moves = every_move()
    choices: list[object] = [*moves, 0, 1, 127, 128, 2**32 - 1, -1, -len(moves), moves[:3], tuple(moves[5:6])]
    for choice in choices:
        for debug in ("", "why", "é" * 200):
            expected = referee_pb2.BotMessage(action=convert.action_to_proto(decision_id, choice, debug, moves))
            assert action_bytes(decision_id, choice, debug, moves) == expected.SerializeToString()
    for nonsense in (2**32, -len(moves) - 1, True, None, "H:7>C0", [1, 2]):
        with pytest.raises((TypeError, ValueError)):
            action_bytes(decision_id, nonsense, "", moves)
