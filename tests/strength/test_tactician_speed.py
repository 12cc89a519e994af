"""The tactician's search made cheaper without changing a choice: the danger's per-height
tables against :func:`spite_sdk.tactics.shortfall` (a property), and the tactician's plans
and candidates over whole games pinned by a digest."""

from __future__ import annotations

import hashlib
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from spite_engine import GameState, observe, parse_rules
from spite_sdk import planning, tactics
from spite_sdk.search import apply_plan
from spite_sdk.tactics import WEIGHTS, ReachDanger, _shortfalls, shortfall, tactician_candidates, tactician_plan

WILD_SETS = (frozenset({0}), frozenset({0, 13}), frozenset({13}))
SKIP_BO_VIEW = observe(GameState.new(parse_rules("skip-bo"), 1), 0)
heights = st.lists(st.integers(0, 11), min_size=1, max_size=4).map(tuple)


@settings(max_examples=200, deadline=None)
@given(heights=heights, target=st.integers(1, 12), tops=st.lists(st.integers(0, 13), max_size=4),
       wild=st.sampled_from(WILD_SETS))
def test_the_danger_tables_give_the_shortfall_of_the_piles(heights: tuple[int, ...], target: int,
                                                          tops: list[int], wild: frozenset[int]) -> None:
    danger = ReachDanger(SKIP_BO_VIEW)
    danger.wild = wild
    danger.threats = [(target, tuple(tops))]
    danger.tables = [_shortfalls(target, tuple(sorted(tops)), wild)]
    short = shortfall(heights, target, tops, wild)
    expected = (WEIGHTS["danger0"], WEIGHTS["danger1"], WEIGHTS["danger2"])[short] if short < 3 else 0.0
    assert danger(heights) == expected


def test_the_danger_of_real_positions_is_the_reference_sum() -> None:
    rules = parse_rules("skip-bo+short-20")
    state = GameState.new(rules, 3)
    checked = 0
    while state.outcome is None and checked < 30:
        seat = state.to_move
        view = observe(state, seat)
        danger = ReachDanger(view)
        for probe in ((0, 0, 0, 0), (3, 5, 7, 11), tuple(len(p) for p in view.centre_piles), (11, 2, 0, 9)):
            expected = 0.0
            for top, tops in danger.threats:
                short = shortfall(probe, top, tops, danger.wild)
                if short < 3:
                    expected += danger.costs[short]
            assert danger(probe) == expected
        checked += 1
        apply_plan(state, tactician_plan(view), seat)


TACTICIAN_GAMES = "b6710defadb524f8383db2a81870a19212b3ab3ddb649d68af8c359f2fbfc242"


def test_the_tacticians_choices_are_pinned() -> None:
    """Every plan and every candidate list of whole tactician games in three rule sets: a
    change that only makes the search cheaper keeps this digest; a change of strategy
    updates it on purpose (and is measured: docs/bots.md)."""
    digest = hashlib.sha256()
    for spec in ("skip-bo+short-20", "standard", "3p"):
        rules = parse_rules(spec)
        for seed in range(1):
            state = GameState.new(rules, seed)
            while state.outcome is None:
                seat = state.to_move
                view = observe(state, seat)
                digest.update(repr(tactician_candidates(view, 4, 2)).encode())
                plan = tactician_plan(view)
                digest.update(repr(plan).encode())
                apply_plan(state, plan, seat)
            digest.update(repr(state.outcome).encode())
    assert digest.hexdigest() == TACTICIAN_GAMES


def _bytes(value: object, seen: set[int]) -> int:
    if id(value) in seen or (type(value) is int and -5 <= value <= 256):
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        size += sum(_bytes(k, seen) + _bytes(v, seen) for k, v in value.items())
    elif isinstance(value, (tuple, list, frozenset)):
        size += sum(_bytes(item, seen) for item in value)
    return size


def test_the_search_memos_hold_about_a_megabyte_each_once_full() -> None:
    """The memos the search keeps across decisions start again at their limits; the limit
    times what an entry holds after real games stays near a megabyte (issue 24: a bot process
    may be kept warm across a day of matches)."""
    rules = parse_rules("standard")
    state = GameState.new(rules, 11)
    while state.outcome is None:
        seat = state.to_move
        apply_plan(state, tactician_plan(observe(state, seat)), seat)
    for memo, limit in ((planning._PLACES, planning._PLACES_LIMIT), (tactics._SHORTFALLS, tactics._SHORTFALLS_LIMIT)):
        assert 0 < len(memo) <= limit
        full = _bytes(memo, set()) / len(memo) * limit
        assert full <= 1.5 * 2**20, (len(memo), full)
