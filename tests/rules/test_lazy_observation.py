"""``observe_lazy`` returns a LazyObservation: equal to the eager observation of the same moment in
every way a bot reads one, before and after the state moves on, and holding no reference to
the state once the state has changed."""

from __future__ import annotations

import copy
import gc
import pickle
import random

import pytest

from spite_engine import GameState, LazyObservation, Observation, observe, observe_lazy, parse_rules
from spite_sdk.policies import greedy_move, random_move

from .support import SPECS

FIELDS = Observation._fields


@pytest.mark.parametrize("spec", SPECS)
def test_lazy_equals_eager_at_every_decision_whatever_is_read_first(spec: str) -> None:
    rules = parse_rules(spec)
    for seed in range(4):
        state = GameState.new(rules, seed)
        rng = random.Random(seed)
        while state.outcome is None:
            seat = rng.randrange(rules.players)
            lazy, eager = observe_lazy(state, seat), observe(state, seat)
            assert type(lazy) is LazyObservation and type(eager) is Observation
            order = list(FIELDS)
            rng.shuffle(order)
            for name in order[:rng.randrange(len(order) + 1)]:
                assert getattr(lazy, name) == getattr(eager, name), name
            assert lazy == eager and eager == lazy and hash(lazy) == hash(eager)
            assert tuple(lazy) == tuple(eager) and all(lazy[i] == eager[i] for i in range(len(FIELDS)))
            view = observe_lazy(state, state.to_move)
            state.apply(greedy_move(view) if seed % 2 else random_move(view, rng))


def test_a_kept_observation_still_shows_its_moment_after_the_state_moves_on() -> None:
    rules = parse_rules("standard")
    state = GameState.new(rules, 3)
    kept: list[tuple[Observation, Observation]] = []
    for _ in range(120):
        if state.outcome is not None:
            break
        for seat in range(rules.players):
            kept.append((observe_lazy(state, seat), observe(state, seat)))
        state.apply(greedy_move(observe_lazy(state, state.to_move)))
    assert len(kept) > 100
    for lazy, eager in kept:
        assert lazy == eager
        assert "_state" not in vars(lazy)
        assert not any(isinstance(r, GameState) for r in gc.get_referents(lazy))
        assert not any(isinstance(r, GameState) for r in gc.get_referents(vars(lazy)))


def test_the_namedtuple_api_gives_plain_observations() -> None:
    state = GameState.new(parse_rules("skip-bo"), 8)
    lazy, eager = observe_lazy(state, 0), observe(state, 0)
    rules, seat, turn, to_move, hand, *rest = lazy
    assert (rules, seat, turn, to_move, hand) == tuple(eager[:5]) and list(rest) == list(eager[5:])
    assert lazy[4:6] == eager[4:6] and lazy[-1] == eager[-1]
    assert lazy._asdict() == eager._asdict()
    for value in (lazy._replace(turn=99), pickle.loads(pickle.dumps(lazy)), copy.copy(lazy), copy.deepcopy(lazy)):
        assert type(value) is Observation
    assert lazy._replace(turn=99) == eager._replace(turn=99)
    assert pickle.loads(pickle.dumps(lazy)) == eager
    assert repr(lazy) == repr(eager)
    assert eager.hand in lazy and lazy.my_stock == eager.my_stock and lazy.centre_needs == eager.centre_needs
    assert lazy != eager._replace(turn=eager.turn + 1)
