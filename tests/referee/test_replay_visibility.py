"""Who sees a bot's debug strings in a replay (issue 12, item 3): the owner always, every
seat's only in the omniscient view. ``referee.core.replay.debug_visible`` is the one rule."""

from __future__ import annotations

from pathlib import Path

from referee.core import replay as replay_file
from spite_engine import Ending, EventKind, GameState, parse_rules


def played_replay(tmp_path: Path, spec: str = "kings-only+short-13") -> replay_file.Replay:
    state = GameState.new(parse_rules(spec), 21)
    meta = {}
    while state.outcome is None and len(meta) < 60:
        seat = state.to_move
        meta[len(state.log)] = {"us": 1000 + seat,
                                "debug": f"seat {seat} secret: my hand is {sorted(state.hands[seat])}"}
        state.apply(state.legal_moves()[-1])
    if state.outcome is None:
        state.forfeit(state.to_move, Ending.FORFEIT, "test ends here")
    path = replay_file.write(tmp_path / "g.jsonl.gz", {"match_id": "m", "game_number": 0, "seats": []}, state, meta)
    return replay_file.load(path)


def test_as_a_seat_only_its_own_debug_is_visible(tmp_path: Path) -> None:
    loaded = played_replay(tmp_path)
    movers = [e.seat for e in loaded.record.events if e.kind == EventKind.MOVE]
    assert {0, 1} <= set(movers)
    for viewer in (0, 1):
        notes = replay_file.move_notes(loaded, viewer)
        assert len(notes) == len(movers)
        for mover, note in zip(movers, notes):
            if mover == viewer:
                assert note["debug"].startswith(f"seat {viewer} secret")
            else:
                assert note["debug"] == ""
            assert note["us"] == 1000 + mover  # decision times stay: everyone saw them pass
    omniscient = replay_file.move_notes(loaded)
    assert all(n["debug"].startswith(f"seat {m} secret") for m, n in zip(movers, omniscient))


def test_partners_do_not_see_each_others_debug(tmp_path: Path) -> None:
    loaded = played_replay(tmp_path, "partners")
    movers = [e.seat for e in loaded.record.events if e.kind == EventKind.MOVE]
    notes = replay_file.move_notes(loaded, 0)
    assert all(n["debug"] == "" for m, n in zip(movers, notes) if m == 2)
    assert replay_file.debug_visible(2, 0) is False and replay_file.debug_visible(2, 2) is True
    assert replay_file.debug_visible(2, None) is True
