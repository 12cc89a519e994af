"""Game records: full-information logs that ``replay()`` re-simulates exactly, and that
refuse to replay once tampered with (ReplayMismatch says where)."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from spite_engine import (
    Ending,
    Event,
    EventKind,
    GameRecord,
    GameState,
    Move,
    Outcome,
    ReplayMismatch,
    parse_rules,
    replay,
)
from spite_engine.record import check_rule_set_name

from .support import eager_policy, play


def finished_game(spec: str = "standard", seed: int = 8) -> GameState:
    state = GameState.new(parse_rules(spec), seed)
    play(state, random.Random(seed), 10**6, eager_policy)
    return state


def test_events_and_outcomes_round_trip_through_dicts() -> None:
    """Every event of a game, and its outcome, survive to_dict/from_dict (and JSON)."""
    state = finished_game("skip-bo+open-stock+short-15")
    kinds = set()
    for event in state.log:
        assert Event.from_dict(json.loads(json.dumps(event.to_dict()))) == event
        kinds.add(event.kind)
    assert kinds == set(EventKind)
    assert state.outcome is not None
    assert Outcome.from_dict(json.loads(json.dumps(state.outcome.to_dict()))) == state.outcome


def test_a_forfeited_game_replays() -> None:
    """A record that ends by the referee (a forfeit) replays to the same outcome."""
    state = GameState.new(parse_rules("partners"), 4)
    play(state, random.Random(4), 25)
    state.forfeit(state.to_move, Ending.ILLEGAL_MOVE, f"seat {state.to_move} sent an illegal move")
    record = GameRecord.from_dict(json.loads(json.dumps(GameRecord.from_state(state).to_dict())))
    assert replay(record).outcome == state.outcome


def tampered(record: GameRecord, **changes: object) -> GameRecord:
    return dataclasses.replace(record, **changes)  # type: ignore[arg-type]


def test_tampered_records_do_not_replay() -> None:
    """A changed move, chance event, event count, outcome or seed is caught, with the place."""
    state = finished_game()
    record = GameRecord.from_state(state)
    assert replay(record).log == state.log

    moves = list(record.moves)
    seat, _ = moves[3]
    moves[3] = (seat, Move.parse("H:A>C7"))
    with pytest.raises(ReplayMismatch, match="move 3 .* does not replay"):
        replay(tampered(record, moves=moves))

    events = list(record.events)
    index = next(i for i, e in enumerate(events) if e.kind == EventKind.DRAW and i > 20)
    events[index] = events[index]._replace(cards=tuple(reversed(events[index].cards)) + (0,))
    with pytest.raises(ReplayMismatch, match=f"event {index} differs"):
        replay(tampered(record, events=events))

    with pytest.raises(ReplayMismatch, match="recorded .* events"):
        replay(tampered(record, events=record.events[:-1]))

    assert record.outcome is not None
    with pytest.raises(ReplayMismatch, match="recorded outcome"):
        replay(tampered(record, outcome=dataclasses.replace(record.outcome, reason="a different story")))

    with pytest.raises(ReplayMismatch):
        replay(tampered(record, seed=record.seed + 1))

    with pytest.raises(ReplayMismatch, match="without an offending seat"):
        replay(tampered(record, moves=record.moves[:5], events=[],
                        outcome=Outcome(Ending.CRASH, (1,), (0, 1), "crash")))


def test_a_record_without_events_replays_from_its_moves() -> None:
    """Events are optional in a record: the moves and seed alone give the game back."""
    state = finished_game("3p", 2)
    record = tampered(GameRecord.from_state(state), events=[])
    assert replay(record).log == state.log


def test_a_record_of_another_rules_version_is_refused() -> None:
    """Rules version 2 changed games (decisions 3 and 6): a version-1 record is refused with the
    reason rather than re-read under the new rules."""
    state = GameState.new(parse_rules("standard"), 5)
    record = GameRecord.from_state(state)
    record.rules = dataclasses.replace(record.rules, version=1)
    with pytest.raises(ReplayMismatch, match="rules version 1"):
        replay(record)


def test_a_record_whose_rule_set_is_not_what_its_name_says_is_refused() -> None:
    """Issue 30, item 1: a replay whose header says ``kings-only`` but that was played (and
    re-simulates) under ``standard`` must not verify: the name, the options and the version
    are checked together."""
    record = GameRecord.from_state(finished_game("standard", 3))
    check_rule_set_name(record.rules)
    claimed = tampered(record, rules=dataclasses.replace(record.rules, name="kings-only"))
    assert replay(claimed).outcome == record.outcome  # the moves alone re-simulate...
    with pytest.raises(ReplayMismatch, match="names rule set 'kings-only' but was played with jokers_per_deck = 2"):
        check_rule_set_name(claimed.rules)  # ...but the name is a claim of its own
    with pytest.raises(ReplayMismatch, match="names no rule set"):
        check_rule_set_name(dataclasses.replace(record.rules, name="house-rules"))
    with pytest.raises(ReplayMismatch, match="stock_size = 27"):
        check_rule_set_name(dataclasses.replace(record.rules, stock_size=27))
