"""The planner, the tactician, the sampler and the skipbot-like rivals play only legal moves, in every preset (3 and 4
seats and partners included), over many seeded games in process; every move of their plans goes
through the engine's checked path. Against each other and against the baselines."""

from __future__ import annotations

import pytest

from spite_engine import PRESETS, parse_rules

from .support import agent, play_checked

pytestmark = pytest.mark.slow  # the strong bots play whole games in every preset

OPPONENTS = ("naive", "greedy", "planner")


@pytest.mark.parametrize("spec", PRESETS + ("skip-bo+short-20",))
def test_planner_plays_legal_moves_in_every_preset(spec: str) -> None:
    rules = parse_rules(spec)
    games = 0
    for seed in range(12):
        lineup = [("planner" if (seat + seed) % 2 == 0 else OPPONENTS[seed % 3]) for seat in range(rules.players)]
        outcome, decisions, moves = play_checked(rules, 1000 + seed, [agent(n) for n in lineup])
        assert outcome.ending.by_rules and decisions > 0 and moves >= decisions
        games += 1
    assert games == 12


@pytest.mark.parametrize("spec", PRESETS + ("skip-bo+short-20",))
def test_sampler_plays_legal_moves_in_every_preset(spec: str) -> None:
    rules = parse_rules(spec)
    for seed in range(2):
        # seed 0: the sampler on the planner; seed 1: on the tactician (its bot.toml's base)
        me = ("sampler", "sampler-t")[seed]
        lineup = [(me if (seat + seed) % 2 == 0 else ("planner", "naive")[seed]) for seat in range(rules.players)]
        outcome, decisions, _ = play_checked(rules, 2000 + seed, [agent(n, samples=2) for n in lineup])
        assert outcome.ending.by_rules and decisions > 0


@pytest.mark.parametrize("spec", PRESETS + ("skip-bo+short-20",))
@pytest.mark.parametrize("name", ["tactician", "h13-like", "skipbo-naive"])
def test_skip_bo_bots_play_legal_moves_in_every_preset(name: str, spec: str) -> None:
    """Tuned for Skip-Bo, they still play any rule set legally (wild Kings, no-block, partners)."""
    rules = parse_rules(spec)
    for seed in range(6):
        lineup = [(name if (seat + seed) % 2 == 0 else ("planner", "h13-like", "naive")[seed % 3])
                  for seat in range(rules.players)]
        outcome, decisions, moves = play_checked(rules, 5000 + seed, [agent(n) for n in lineup])
        assert outcome.ending.by_rules and decisions > 0 and moves >= decisions


def test_planner_sends_multi_move_plans() -> None:
    """The planner sends whole turns: over a few games, some decisions carry several moves."""
    rules = parse_rules("standard")
    total_decisions = total_moves = 0
    for seed in range(4):
        _, decisions, moves = play_checked(rules, 3000 + seed, [agent("planner"), agent("greedy")])
        total_decisions += decisions
        total_moves += moves
    assert total_moves > total_decisions


def test_planner_beats_naive_in_skip_bo() -> None:
    """A sanity check of strength, not a benchmark (bench/bot_strength.py measures it)."""
    rules = parse_rules("skip-bo+short-20")
    wins = 0
    for seed in range(20):
        seats = [agent("planner"), agent("naive")] if seed % 2 == 0 else [agent("naive"), agent("planner")]
        outcome, _, _ = play_checked(rules, 4000 + seed // 2, seats)
        wins += (seed % 2) in outcome.winners
    assert wins >= 16


def test_tactician_beats_h13_like_and_h13_like_beats_skipbo_naive() -> None:
    """Sanity checks of the order the benchmark measures (docs/bots.md), not benchmarks:
    over 40 duplicate-deal games each, far below the measured margins."""
    rules = parse_rules("skip-bo+short-20")

    def wins(a: str, b: str) -> int:
        total = 0
        for game in range(40):
            first = game % 2
            seats = [agent(a), agent(b)] if first == 0 else [agent(b), agent(a)]
            outcome, _, _ = play_checked(rules, 6000 + game // 2, seats)
            total += first in outcome.winners
        return total

    assert wins("h13-like", "skipbo-naive") >= 32
    assert wins("tactician", "h13-like") >= 21
