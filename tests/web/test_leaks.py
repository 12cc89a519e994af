"""Leak tests of the viewer's data, as properties (docs/web.md, "Hidden information").

The replay viewer's as-seat frames and the spectator's public frames must be functions of
what that seat (or everyone) may see: re-deal everything hidden -- the other hands, the
cards under the stock tops, the draw pile, the hidden parts of the log -- and the frame
must be byte-identical. Over whole games: an as-seat document holds no other seat's hand
and no other seat's debug string, whatever those were.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.replay import Replay
from spite_engine import EventKind, GameRecord, GameState
from spite_web.replay_view import frame, viewer_data
from tests.rules.support import MAX_SEED
from tests.rules.test_leaks import Where, mid_game, positions, redeal

from .conftest import debug_string


def dumped(value: object) -> str:
    return json.dumps(value, sort_keys=True)


@settings(max_examples=80, deadline=None)
@given(where=positions, redeal_seed=st.integers(0, MAX_SEED))
def test_an_as_seat_frame_is_a_function_of_what_the_seat_sees(where: Where, redeal_seed: int) -> None:
    state = mid_game(*where)
    for seat in range(state.rules.players):
        world = redeal(state, seat, random.Random(redeal_seed))
        assert dumped(frame(world, seat)) == dumped(frame(state, seat))
        assert all(h is None for s, h in enumerate(frame(state, seat)["hands"]) if s != seat)


@settings(max_examples=60, deadline=None)
@given(where=positions, redeal_seed=st.integers(0, MAX_SEED))
def test_the_public_part_of_a_frame_is_a_function_of_public_information(where: Where, redeal_seed: int) -> None:
    state = mid_game(*where)
    world = redeal(state, None, random.Random(redeal_seed))
    public = {k: v for k, v in frame(state, 0).items() if k != "hands"}
    assert dumped({k: v for k, v in frame(world, 0).items() if k != "hands"}) == dumped(public)


def whole_game(where: Where, secret: str) -> Replay:
    """``where``'s game as a replay whose every move carries a debug string ending in ``secret``."""
    state = mid_game(*where)
    record = GameRecord.from_state(state)
    meta, moves = [], 0
    for event in record.events:
        if event.kind == EventKind.MOVE:
            meta.append({"us": 100 + moves, "debug": f"{debug_string(event.seat, moves)}:{secret}"})
            moves += 1
        else:
            meta.append({})
    return Replay({"seats": [{"name": f"bot{s}"} for s in range(state.rules.players)]}, record, meta)


@settings(max_examples=25, deadline=None)
@given(where=positions, secrets=st.tuples(st.text(min_size=1, max_size=8), st.text(min_size=1, max_size=8)))
def test_an_as_seat_document_shows_no_other_seats_hand_or_debug_strings(where: Where,
                                                                         secrets: tuple[str, str]) -> None:
    replays = [whole_game(where, secret) for secret in secrets]
    players = replays[0].record.rules.players
    for seat in range(players):
        data = viewer_data(replays[0], seat)
        assert all(h is None for f in data["frames"] for s, h in enumerate(f["hands"]) if s != seat)
        assert all(("debug" in m) == (m["seat"] == seat) for m in data["moves"])
        # Other seats' debug strings differ between the two replays; this seat's view must not.
        others = [dict(m, debug=None) if m["seat"] == seat else m for m in viewer_data(replays[1], seat)["moves"]]
        mine = [dict(m, debug=None) if m["seat"] == seat else m for m in data["moves"]]
        assert dumped(others) == dumped(mine)
    # The replay re-simulates to the frames: the last frame is the engine's final table.
    final = GameState.new(replays[0].record.rules, replays[0].record.seed, replays[0].record.first_seat)
    for seat, move in replays[0].record.moves:
        final.apply(move)
    assert dumped(viewer_data(replays[0])["frames"][-1]) == dumped(frame(final, None))
