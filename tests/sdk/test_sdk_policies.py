"""The reference policies run unchanged on the SDK's observations, and choose exactly
what they choose on the engine's: real games, every decision converted
engine -> wire -> SDK (the path a bot process sees)."""

from __future__ import annotations

import random
from typing import Any, Callable

import _sdk_engine_wire as wire
import pytest

from spite.v1 import game_pb2
from spite_engine import PRESETS, GameState, observe, parse_rules
from spite_sdk import Move, Observation, RuleSet, convert, policies


def sdk_view(state: GameState, rules: RuleSet) -> Observation:
    message = game_pb2.Observation.FromString(wire.observation(observe(state, state.to_move)).SerializeToString())
    return convert.observation_from_proto(message, rules)


Policy = Callable[[Any, random.Random], Any]
POLICIES: dict[str, Policy] = {
    "greedy": lambda observation, rng: policies.greedy_move(observation),
    "naive": policies.naive_move,
    "random": policies.random_move,
}


@pytest.mark.parametrize("spec", PRESETS)
@pytest.mark.parametrize("name", sorted(POLICIES))
def test_policies_choose_the_same_on_sdk_and_engine_observations(spec: str, name: str) -> None:
    policy = POLICIES[name]
    engine_rules = parse_rules(spec)
    rules = convert.rules_from_proto(wire.rules(engine_rules))
    assert rules.wild_ranks == engine_rules.wild_ranks
    assert [rules.stock_of(s) for s in range(rules.players)] == [engine_rules.stock_of(s)
                                                                  for s in range(rules.players)]
    for seed in range(2):
        state = GameState.new(engine_rules, seed)
        engine_rng, sdk_rng = random.Random(f"{seed}:0"), random.Random(f"{seed}:0")
        decisions = 0
        while state.outcome is None and decisions < 400:
            engine_view = observe(state, state.to_move)
            view = sdk_view(state, rules)
            # Same fields, same values, same numbering (rules and outcome travel apart).
            assert tuple(view)[1:13] == tuple(engine_view)[1:13]
            assert view.my_stock == engine_view.my_stock
            assert view.centre_needs == engine_view.centre_needs
            assert view.my_discard_piles == engine_view.my_discard_piles
            chosen = policy(view, sdk_rng)
            assert isinstance(chosen, Move)
            assert chosen == policy(engine_view, engine_rng)
            state.apply(engine_view.legal_moves[view.legal_moves.index(chosen)])
            decisions += 1
