"""The apprentice (spite_sdk.apprentice): a plan's features, the policy, and the searcher on it."""

from __future__ import annotations

import random

import pytest

from spite_engine import GameState, Move, Observation, observe, parse_rules
from spite_sdk.apprentice import FEATURES, FITTED, Apprentice, apprentice_for, candidates, plan_features
from spite_sdk.search import Searcher
from spite_sdk.tactics import tactician_plan

from ..rules.support import position
from .test_searcher import mid_game_decision


def test_plan_features_read_what_the_plan_leaves() -> None:
    """A stock play and a discard onto an empty pile, in a crafted position."""
    state = position("standard", hands=["3 4 9 9 J", "5 5 5 5 5"], stocks=["Q Q 2", "Q Q 6"],
                     centre=["A", "", "", ""], discards=[["8", "", "", ""], ["5", "", "", ""]])
    view = observe(state, 0)
    names = FEATURES[1:]
    stock = dict(zip(names, plan_features(view, 1000.0, [Move.parse("S:2>C0")])))
    assert stock["tactician"] == 10.0 and stock["stock"] == 1.0 and stock["ends_turn"] == 0.0
    assert stock["own_open"] + stock["own_short1"] + stock["own_short2"] == 0.0  # the next stock card is hidden
    assert stock["rival_short2"] == 1.0  # 6 on a pile at 2: the rival's 5 fills one gap of two
    discard = dict(zip(names, plan_features(view, 0.0, [Move.parse("H:9>D1")])))
    assert discard["ends_turn"] == 1.0 and discard["discard_new_pile"] == 1.0 and discard["hand_left"] == 4.0
    assert discard["own_open"] == 1.0 and discard["empty_piles"] == 2.0  # the 2 still plays on the Ace
    assert discard["rival_open"] + discard["rival_short1"] + discard["rival_short2"] == 0.0  # 3 short of 6
    assert discard["rival_tops_open"] == 0.0 and discard["own_tops_open"] == 0.0


@pytest.mark.parametrize("spec", ["skip-bo+short-20", "standard"])
def test_an_apprentice_without_weights_plays_the_tacticians_plan(spec: str) -> None:
    state = GameState.new(parse_rules(spec), 11)
    apprentice = Apprentice([0.0] * len(FEATURES))
    decisions = 0
    while state.outcome is None and decisions < 150:
        view = observe(state, state.to_move)
        plan = tactician_plan(view)
        assert apprentice(view) == plan
        decisions += 1
        for move in plan[:1]:
            state.apply(move)


@pytest.mark.parametrize("spec", sorted(FITTED))
def test_the_fitted_apprentice_plays_legal_plans_to_the_end(spec: str) -> None:
    rules = parse_rules(spec)
    apprentice = apprentice_for(rules)
    assert apprentice is not None and apprentice.weights == FITTED[spec]
    state = GameState.new(rules, 3)
    while state.outcome is None:
        view = observe(state, state.to_move)
        plan = apprentice(view)
        assert plan[0] in view.legal_moves
        state.apply(plan[0])


def test_no_apprentice_without_a_fit_and_none_with_the_wrong_size() -> None:
    assert apprentice_for(parse_rules("3p")) is None
    with pytest.raises(ValueError, match=f"needs {len(FEATURES)} weights"):
        Apprentice([1.0, 2.0])


def test_the_searcher_on_an_apprentice_takes_its_order_and_its_own_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model that prefers any other plan to the tactician's first puts another first: the
    searcher's default, compared with the rest; the searching seat's own turns in the
    rollouts are the apprentice's, the rival's the tactician's."""
    import spite_sdk.search as search

    state, view = mid_game_decision()
    seat = view.seat  # type: ignore[attr-defined]
    found, settled = candidates(view)  # type: ignore[arg-type]
    assert not settled and len(found) >= 2
    prefers_others = Apprentice([100.0] + [0.0] * (len(FEATURES) - 1))  # not_first: 100 for every other plan
    own: list[int] = []

    class Recorded(Apprentice):
        def __call__(self, observation: Observation) -> list[Move]:
            own.append(observation.seat)
            return super().__call__(observation)

    rivals: list[int] = []
    plan = search.tactician_plan

    def recorded_plan(observation, weights=None):  # type: ignore[no-untyped-def]
        rivals.append(observation.seat)
        return plan(observation, weights)

    monkeypatch.setattr(search, "tactician_plan", recorded_plan)
    apprentice = Recorded(prefers_others.weights)
    searcher = Searcher(rollouts=24, apprentice=lambda rules: apprentice)
    chosen = searcher.decide(view, random.Random(2))  # type: ignore[arg-type]
    assert chosen[0] in view.legal_moves  # type: ignore[attr-defined]
    assert searcher.last is not None and searcher.last[0][0] != found[0]
    assert searcher.last[0][0] == prefers_others.order(view, found)[0]  # type: ignore[arg-type]
    assert own and set(own) == {seat} and rivals and seat not in rivals
