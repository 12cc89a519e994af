"""determinize(): a state consistent with a seat's observation, for bots that search."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from spite_engine import observe
from spite_engine.determinize import determinize, unseen_cards

from .support import MAX_SEED, all_cards
from .test_leaks import Where, mid_game, positions, redeal


@settings(max_examples=60, deadline=None)
@given(where=positions, sample_seed=st.integers(0, MAX_SEED))
def test_the_seat_cannot_tell_a_determinized_world_from_the_real_one(where: Where, sample_seed: int) -> None:
    state = mid_game(*where)
    if state.outcome is not None:
        return
    for seat in range(state.rules.players):
        view = observe(state, seat)
        world = determinize(view, state.rules, random.Random(sample_seed))
        assert all_cards(world) == Counter(state.rules.deck_cards())
        assert observe(world, seat)._replace(events=()) == view._replace(events=())
        if seat == state.to_move:
            assert world.legal_moves() == state.legal_moves()


def test_hidden_cards_differ_between_samples() -> None:
    state = mid_game("standard", 3, 40, "random")
    view = observe(state, 0)
    worlds = [determinize(view, state.rules, random.Random(s)) for s in range(5)]
    assert len({tuple(w.draw_pile) for w in worlds}) > 1
    assert sorted(unseen_cards(view, state.rules)) == sorted(
        [c for h in (state.hands[1],) for c in h] + state.draw_pile + state.set_aside
        + [c for s in state.stocks for c in s[:len(s) - state.rules.open_stock]])


@settings(max_examples=60, deadline=None)
@given(where=positions, sample_seed=st.integers(0, MAX_SEED), redeal_seed=st.integers(0, MAX_SEED))
def test_determinization_never_reveals_a_hidden_card(where: Where, sample_seed: int, redeal_seed: int) -> None:
    """Everything the seat cannot see dealt again (another hidden world with the same view):
    the same rng gives exactly the same determinized world, so no hidden card of the real
    state can reach a search through ``determinize``."""
    state = mid_game(*where)
    if state.outcome is not None:
        return
    for seat in range(state.rules.players):
        other = redeal(state, seat, random.Random(redeal_seed))
        view, other_view = observe(state, seat), observe(other, seat)
        assert other_view._replace(events=()) == view._replace(events=())
        first = determinize(view, state.rules, random.Random(sample_seed))
        second = determinize(other_view, state.rules, random.Random(sample_seed))
        for name in ("hands", "stocks", "discards", "centre", "draw_pile", "set_aside", "to_move", "turn"):
            assert getattr(first, name) == getattr(second, name), name
