"""A first end-to-end check of the engine: every preset plays to an outcome with the
reference greedy policy. The full property, leak, perft and playthrough suites live in
tests/rules/."""

import pytest

from spite_engine import PRESETS, GameState, observe, parse_rules
from spite_sdk.policies import greedy_move


@pytest.mark.parametrize("spec", PRESETS)
def test_greedy_games_end_by_the_rules(spec: str) -> None:
    rules = parse_rules(spec)
    for seed in range(5):
        state = GameState.new(rules, seed)
        while state.outcome is None:
            state.apply(greedy_move(observe(state, state.to_move)))
        assert state.outcome.ending.by_rules
