"""Leak tests (OpenSpiel's ResampleInfostateTest, as properties): what a seat observes must
be a function of what it may see, and nothing else.

For random mid-game states, every seat, and many re-deals: everything the seat cannot see
is dealt again consistently with what it saw -- the cards of the other seats' hands (a
partner's too), of the stocks below their face-up top(s), and of the draw pile are permuted
among those places, every pile keeping its size -- and the hidden parts of the log (other
seats' DRAW cards, every SHUFFLE order) are overwritten with other values. The seat's
observation and its redacted events must not change at all. The seat's own hand and its
own past draws are visible to it, so they stay. The same holds for the public view under a
re-deal of everything hidden from everyone.
"""

from __future__ import annotations

import dataclasses
import random
from enum import Enum
from typing import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from spite_engine import (
    Card,
    Event,
    EventKind,
    GameState,
    Outcome,
    RuleSet,
    observe,
    observe_public,
    parse_rules,
    visible_events,
)

from .support import MAX_SEED, POLICIES, SPECS, all_cards, play

Slot = tuple[list[Card], int]


def hidden_slots(state: GameState, seat: int | None) -> list[Slot]:
    """Every place holding a card that ``seat`` (None: every seat) cannot see."""
    slots: list[Slot] = []
    for other, hand in enumerate(state.hands):
        if other != seat:
            slots.extend((hand, i) for i in range(len(hand)))
    for stock in state.stocks:
        slots.extend((stock, i) for i in range(len(stock) - state.rules.open_stock))
    slots.extend((state.draw_pile, i) for i in range(len(state.draw_pile)))
    return slots


def redeal(state: GameState, seat: int | None, rng: random.Random) -> GameState:
    """A copy of ``state`` in which everything hidden from ``seat`` is dealt again (see the
    module docstring), and the hidden parts of the log hold other values."""
    world = state.clone()
    slots = hidden_slots(world, seat)
    cards = [pile[i] for pile, i in slots]
    rng.shuffle(cards)
    for (pile, i), card in zip(slots, cards):
        pile[i] = card
    ranks = sorted(set(world.rules.deck_cards()))

    def rewrite(event: Event) -> Event:
        if event.kind == EventKind.SHUFFLE or (event.kind == EventKind.DRAW and event.seat != seat):
            return event._replace(cards=tuple(rng.choice(ranks) for _ in event.cards))
        return event

    world.log = [rewrite(e) for e in world.log]
    return world


def mid_game(spec: str, seed: int, moves: int, policy: str) -> GameState:
    state = GameState.new(parse_rules(spec), seed)
    play(state, random.Random(seed), moves, POLICIES[policy])
    return state


Where = tuple[str, int, int, str]
positions = st.tuples(st.sampled_from(SPECS), st.integers(0, MAX_SEED), st.integers(0, 250),
                      st.sampled_from(sorted(POLICIES)))
"""(spec, seed, moves, policy): the game of ``mid_game``; playing it happens in the test body."""


@settings(max_examples=120, deadline=None)
@given(where=positions, redeal_seed=st.integers(0, MAX_SEED))
def test_a_seat_sees_nothing_it_may_not_see(where: Where, redeal_seed: int) -> None:
    """For every seat: re-dealing what it cannot see and rewriting the hidden log leaves its
    observation (compared as values and as text) and its visible events exactly as they were."""
    state = mid_game(*where)
    rng = random.Random(redeal_seed)
    for seat in range(state.rules.players):
        view = observe(state, seat)
        events = visible_events(state, seat)
        for _ in range(3):
            world = redeal(state, seat, rng)
            assert world.hands[seat] == state.hands[seat] and all_cards(world) == all_cards(state)
            assert observe(world, seat) == view
            assert repr(observe(world, seat)) == repr(view)
            assert visible_events(world, seat) == events


@settings(max_examples=40, deadline=None)
@given(where=positions, redeal_seed=st.integers(0, MAX_SEED))
def test_the_public_view_shows_nothing_hidden(where: Where, redeal_seed: int) -> None:
    """Re-dealing everything hidden from every seat (all hands included) and rewriting every
    hidden log entry leaves ``observe_public`` and the public events unchanged; the public view
    has no seat, no hand, no events and no legal moves."""
    state = mid_game(*where)
    rng = random.Random(redeal_seed)
    view = observe_public(state)
    assert (view.seat, view.hand, view.events, view.legal_moves) == (-1, (), (), ())
    events = visible_events(state, None)
    assert all(not e.cards for e in events if e.kind in (EventKind.DRAW, EventKind.SHUFFLE))
    for _ in range(3):
        world = redeal(state, None, rng)
        assert observe_public(world) == view
        assert repr(observe_public(world)) == repr(view)
        assert visible_events(world, None) == events


@settings(max_examples=40, deadline=None)
@given(where=positions)
def test_only_the_seat_to_move_gets_legal_moves(where: Where) -> None:
    """The legal moves are in the observation of the seat to move only (and nobody's once the
    game is over); everything else a seat sees of the table is the same for every seat."""
    state = mid_game(*where)
    public = observe_public(state)
    for seat in range(state.rules.players):
        view = observe(state, seat)
        if seat == state.to_move and state.outcome is None:
            assert view.legal_moves == tuple(state.legal_moves()) and view.legal_moves
        else:
            assert view.legal_moves == ()
        assert view.hand == tuple(sorted(state.hands[seat]))
        assert view._replace(seat=-1, hand=(), events=(), legal_moves=()) == public


def _immutable(value: object, path: str = "observation") -> None:
    """Fail unless ``value`` is built only of immutable values (no list, dict, set or state)."""
    if value is None or isinstance(value, (int, str, Enum)):
        return
    if isinstance(value, tuple):
        for index, item in enumerate(value):
            _immutable(item, f"{path}[{index}]")
        return
    if isinstance(value, (RuleSet, Outcome)):
        assert getattr(type(value), "__dataclass_params__").frozen, f"{path} is a mutable dataclass"
        for field in dataclasses.fields(value):
            _immutable(getattr(value, field.name), f"{path}.{field.name}")
        return
    raise AssertionError(f"{path} is a mutable {type(value).__name__}")


@settings(max_examples=30, deadline=None)
@given(where=positions, more=st.integers(1, 30))
def test_an_observation_holds_no_reference_to_the_state(where: Where, more: int) -> None:
    """An observation is built of immutable values only, and mutating the state afterwards --
    every list in place, and playing on -- leaves it exactly as it was."""
    state = mid_game(*where)
    views = [observe(state, seat) for seat in range(state.rules.players)] + [observe_public(state)]
    texts = [repr(v) for v in views]
    for view in views:
        _immutable(view)
    for pile in [state.draw_pile, state.set_aside, *state.stocks, *state.hands, *state.centre]:
        pile.append(7)
        pile.reverse()
    for piles in state.discards:
        for pile in piles:
            pile.insert(0, 3)
    state.log.append(Event(EventKind.DEAL, seat=0))
    state.cursors[0] = 0
    assert [repr(v) for v in views] == texts
    state = mid_game(state.rules.name, state.seed, 0, "random")
    views = [observe(state, seat) for seat in range(state.rules.players)]
    texts = [repr(v) for v in views]
    play(state, random.Random(more), more)
    assert [repr(v) for v in views] == texts


def test_observe_rejects_a_seat_outside_the_table() -> None:
    """``observe`` is for seats 0..players-1 only."""
    state = GameState.new(parse_rules("standard"), 1)
    for seat in (-1, 2):
        try:
            observe(state, seat)
        except ValueError as error:
            assert "seat" in str(error)
        else:
            raise AssertionError(f"observe accepted seat {seat}")


def test_a_partners_hand_is_hidden() -> None:
    """With partners, seat 0 sees neither its partner's (seat 2) hand nor its draws, though
    they share a stock; seat 2 sees its own."""
    state = mid_game("partners", 5, 10, "random")
    view, events = observe(state, 0), visible_events(state, 0)
    partner_draws = [e for e in visible_events(state, 2) if e.kind == EventKind.DRAW and e.seat == 2]
    assert partner_draws and all(e.cards for e in partner_draws)
    assert all(not e.cards for e in events if e.kind == EventKind.DRAW and e.seat == 2)
    world = state.clone()
    world.hands[2] = [12 if card != 12 else 11 for card in world.hands[2]]
    assert world.hands[2] and world.hands[2] != state.hands[2]
    assert observe(world, 0) == view and visible_events(world, 0) == events
    assert observe(world, 2) != observe(state, 2)


def test_the_redeal_changes_what_a_leaky_observer_would_see() -> None:
    """The re-deal has teeth: each kind of hidden information, were an observation to carry
    it, would differ after some re-deal of these few games. (Guards the leak tests above
    against a re-deal that silently changes nothing.)"""
    leaks: dict[str, Callable[[GameState], object]] = {
        "another seat's hand": lambda s: sorted(s.hands[1]),
        "the draw pile's top": lambda s: s.draw_pile[-1:],
        "a stock card below the top": lambda s: s.stocks[1][-2:-1],
        "another seat's drawn cards": lambda s: [e.cards for e in s.log if e.kind == EventKind.DRAW and e.seat == 1],
        "a shuffle's order": lambda s: [e.cards for e in s.log if e.kind == EventKind.SHUFFLE],
    }
    caught = set()
    for seed in range(5):
        state = mid_game("standard", seed, 12, "random")
        rng = random.Random(seed)
        world = redeal(state, 0, rng)
        for name, leak in leaks.items():
            if leak(world) != leak(state):
                caught.add(name)
    assert caught == set(leaks)
