"""The searcher's position value (``spite_sdk.value``) and its fit (``bench/fit_value.py``)."""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spite_engine import GameState, observe, parse_rules
from spite_sdk.search import Searcher
from spite_sdk.tactics import tactician_plan
from spite_sdk.value import FEATURES, FITTED, features, logistic, value_for, win_chance

from .support import load_bench


def fit_script() -> Any:
    return load_bench("fit_value")


def played(spec: str, seed: int, moves: int) -> GameState:
    """A position ``moves`` tactician moves into deal ``seed`` (earlier if the game ends)."""
    state = GameState.new(parse_rules(spec), seed)
    for _ in range(moves):
        if state.outcome is not None:
            break
        state.apply(tactician_plan(observe(state, state.to_move))[0])
    return state


@settings(max_examples=40, deadline=None)
@given(spec=st.sampled_from(sorted(FITTED)), seed=st.integers(0, 10_000), moves=st.integers(0, 200))
def test_the_value_reads_a_position_and_the_two_sides_chances_add_to_one(spec: str, seed: int, moves: int) -> None:
    state = played(spec, seed, moves)
    if state.outcome is not None:
        return
    row = features(state)
    assert len(row) == len(FEATURES) and row[0] == 1.0
    before = repr((state.stocks, state.hands, state.discards, state.centre, state.to_move))
    value = value_for(state.rules)
    assert value is not None
    mover = state.to_move
    chance = win_chance(state, mover, value)
    assert 0.0 < chance < 1.0
    assert math.isclose(chance + win_chance(state, 1 - mover, value), 1.0)
    assert repr((state.stocks, state.hands, state.discards, state.centre, state.to_move)) == before


@pytest.mark.parametrize("spec", sorted(FITTED))
def test_a_shorter_stock_is_never_worth_less(spec: str) -> None:
    """What the fit must have learnt first: with everything else alike, each card fewer in the
    mover's stock raises its chance, and each card fewer in the rival's lowers it."""
    weights = FITTED[spec]
    size = parse_rules(spec).stock_size
    mine, near, theirs, their_near = (FEATURES.index(n) for n in ("stock", "near_end", "rival_stock", "rival_near_end"))

    def chance(left: int, other: int) -> float:
        row = [1.0] + [0.0] * (len(FEATURES) - 1)
        row[mine], row[near], row[theirs], row[their_near] = left / size, 1 / (1 + left), other / size, 1 / (1 + other)
        return logistic(weights, row)

    for other in range(1, size + 1):
        chances = [chance(left, other) for left in range(1, size + 1)]
        assert chances == sorted(chances, reverse=True)
    for left in range(1, size + 1):
        chances = [chance(left, other) for other in range(1, size + 1)]
        assert chances == sorted(chances)


def test_a_rule_set_without_a_fit_has_no_value() -> None:
    assert value_for(parse_rules("3p")) is None
    assert value_for(parse_rules("kings-only+short-15")) is None
    # The options decide, not the name: a renamed standard game is standard, and a game
    # called "standard" with another stock is not.
    assert value_for(dataclasses.replace(parse_rules("standard"), name="friday")) is not None
    assert value_for(dataclasses.replace(parse_rules("standard"), stock_size=15)) is None


def test_a_value_that_sees_nothing_never_overrules_the_tactician() -> None:
    """A constant value scores every candidate alike unless a rollout ends the game: the
    searcher then keeps the tactician's first choice, so the value is what decides."""
    flat = Searcher(rollouts=24, value=lambda rules: (lambda state: 0.5))
    for seed in range(3):
        state = played("skip-bo+short-20", seed, 30)
        for _ in range(40):
            if state.outcome is not None or min(len(s) for s in state.stocks) < 6:
                break
            view = observe(state, state.to_move)
            plan = flat.decide(view, random.Random(seed))
            assert plan == tactician_plan(view)
            state.apply(plan[0])
    assert flat.stats.searched > 0 and flat.stats.overrides == 0


def test_the_searcher_with_the_value_is_reproducible_from_a_seed() -> None:
    state = played("skip-bo+short-20", 11, 40)
    plans = []
    for _ in range(2):
        searcher = Searcher(rollouts=24, value=value_for)
        plans.append([searcher.decide(observe(state, state.to_move), random.Random(3)) for _ in range(3)])
    assert plans[0] == plans[1]


def test_the_fit_finds_the_weights_that_made_the_data() -> None:
    fit = fit_script()
    rng = random.Random(5)
    truth = [0.3, -1.5, 2.0]
    rows, labels = [], []
    for _ in range(4000):
        row = [1.0, rng.uniform(-1, 1), float(rng.random() < 0.4)]
        rows.append(row)
        labels.append(float(rng.random() < logistic(truth, row)))
    weights = fit.fit(rows, labels)
    assert all(abs(w - t) < 0.25 for w, t in zip(weights, truth))
    assert fit.scores(weights, rows, labels)["log_loss"] < fit.scores([0.0, 0.0, 0.0], rows, labels)["log_loss"]
