"""The search sees rules version 2: completing a centre pile while the hand is empty (and
nothing is left to draw) brings the pile's cards back and refills the hand at once
(docs/rules.md, decisions 3 and 4). The planner's and the tactician's search used to end a
branch at the play that empties the hand, as if five cards were drawn: with nothing to draw
none are, and the play that completes a pile afterwards, the one that does refill, was
never valued."""

from __future__ import annotations

import pytest

from spite_engine import GameState, observe
from spite_sdk.planning import plan_turn
from spite_sdk.tactics import tactician_plan

from ..rules.support import position


def empty_hand_then_complete() -> GameState:
    """Seat 0 holds a lone J, a centre pile needs the J and its discard pile shows the Q
    after it; the draw pile and the set-aside pile are empty. J then Q completes the pile,
    whose twelve cards then refill the emptied hand."""
    return position(
        "standard", to_move=0, hands=["J", "9 9 9 9 9"], stocks=["5 6 7", "4 4 8"],
        centre=["A 2 3 4 5 6 7 8 9 10", "A 2", "A", ""],
        discards=[["Q", "", "", ""], ["K", "", "", ""]], draw_pile="", set_aside="")


@pytest.mark.parametrize("decide", [plan_turn, tactician_plan], ids=["planner", "tactician"])
def test_the_search_plays_on_to_the_refill(decide) -> None:  # type: ignore[no-untyped-def]
    state = empty_hand_then_complete()
    plan = decide(observe(state, 0))
    assert [str(m) for m in plan[:2]] == ["H:J>C0", "D0:Q>C0"]
    for move in plan:
        state.apply_checked(move, 0)
        if len(state.hands[0]) == state.rules.hand_size:
            break
    assert len(state.hands[0]) == state.rules.hand_size  # the refill the search counted on
