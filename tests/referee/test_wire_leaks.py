"""The wire leak test: what a seat receives, serialized, is byte-identical when every
card it cannot see is dealt again consistently with its view (and the hidden parts of
the log are rewritten). Spectator messages likewise under a re-deal of all hidden cards.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from spite.v1 import referee_pb2 as rpb
from spite_engine import observe, observe_public, visible_events
from spite_wire import events_to_proto, observation_to_proto
from spite_wire.encoding import decision_message, event_batch_message
from tests.rules.support import MAX_SEED
from tests.rules.test_leaks import Where, mid_game, positions, redeal


def seat_bytes(state, seat: int, since: int) -> list[bytes]:  # type: ignore[no-untyped-def]
    """Every message the referee builds for ``seat`` at this point, serialized."""
    observation = observe(state, seat)
    view = observation_to_proto(observation)
    events = visible_events(state, seat, since)
    return [
        # what the referee really sends: its wire-bytes writers, full and compact sessions
        decision_message(1, 0, observation, 1000, 0),
        decision_message(1, 0, observation, 1000, 0, packed_moves=True),
        event_batch_message(0, events),
        rpb.RefereeMessage(decision=rpb.DecisionRequest(decision_id=1, observation=view)).SerializeToString(
            deterministic=True),
        rpb.RefereeMessage(game_start=rpb.GameStart(observation=view)).SerializeToString(deterministic=True),
        rpb.RefereeMessage(events=rpb.EventBatch(events=events_to_proto(visible_events(state, seat, since))))
        .SerializeToString(deterministic=True),
    ]


def public_bytes(state, since: int) -> list[bytes]:  # type: ignore[no-untyped-def]
    return [
        rpb.SpectatorMessage(game_start=rpb.GameStart(observation=observation_to_proto(observe_public(state))))
        .SerializeToString(deterministic=True),
        rpb.SpectatorMessage(events=rpb.EventBatch(events=events_to_proto(visible_events(state, None, since))))
        .SerializeToString(deterministic=True),
    ]


@settings(max_examples=80, deadline=None)
@given(where=positions, redeal_seed=st.integers(0, MAX_SEED), since=st.integers(0, 400))
def test_serialized_messages_do_not_depend_on_hidden_cards(where: Where, redeal_seed: int, since: int) -> None:
    state = mid_game(*where)
    since = min(since, len(state.log))
    rng = random.Random(redeal_seed)
    for seat in range(state.rules.players):
        sent = seat_bytes(state, seat, since)
        for _ in range(2):
            assert seat_bytes(redeal(state, seat, rng), seat, since) == sent
    shown = public_bytes(state, since)
    for _ in range(2):
        assert public_bytes(redeal(state, None, rng), since) == shown


def test_the_redeal_changes_what_is_hidden() -> None:
    """The property above is not vacuous: re-dealing for seat 0 changes seat 1's hand, and
    seat 1's own messages (which may show its hand) then differ."""
    state = mid_game("standard", 5, 30, "random")
    rng = random.Random(1)
    changed = 0
    for _ in range(10):
        world = redeal(state, 0, rng)
        if world.hands[1] != state.hands[1]:
            changed += 1
            assert seat_bytes(world, 1, 0) != seat_bytes(state, 1, 0)
            assert seat_bytes(world, 0, 0) == seat_bytes(state, 0, 0)
    assert changed
