"""The planner and the sampler as real processes under the real referee (gRPC, bot
processes started from their bot.toml): whole matches with no fault, the planner sending
multi-move plans, and the sampler answering within a short per-decision limit with no
time bank, where only its own clock keeps it in time."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any, Callable

import pytest

from referee.core import replay as replay_file
from referee.core.deadlines import TimeControl
from referee.core.match import MatchConfig, Policy
from referee.local import play_local_match
from spite_engine import GameState, RuleSet, observe, parse_rules
from tournaments.bot_specs import resolve_bot
from tournaments.checkbot import check_bot

pytestmark = pytest.mark.slow  # the strong bots play whole matches as processes


def moves_in_process(rules: RuleSet, seed: int, first_seat: int, decide: Callable[[Any], list[Any]]) -> list[Any]:
    """The (seat, move) pairs of a game dealt from ``seed`` when ``decide`` plans every
    decision in process, each plan played as the referee plays one: up to news for the seat."""
    state = GameState.new(rules, seed)
    assert state.first_seat == first_seat
    moves = []
    while state.outcome is None:
        seat = state.to_move
        for move in decide(observe(state, seat)):
            start = len(state.log)
            state.apply(move)
            moves.append((seat, move))
            if state.news_for(seat, start):
                break
    return moves

def test_planner_process_plays_whole_turns_as_plans(tmp_path: Path) -> None:
    rules = parse_rules("standard")
    config = MatchConfig(rules, ["planner", "naive"], TimeControl(decision_ms=3000, bank_ms=20_000, connect_ms=20_000),
                         games=2, seed=5, policy=Policy.FORFEIT, replay_dir=tmp_path)
    result = asyncio.run(play_local_match([resolve_bot("planner"), resolve_bot("naive")], config, bot_seed=1))
    summary = result.match.summary()
    planner = summary["seats"][0]
    assert all(s["status"] == "done" for s in summary["seats"]), summary["seats"]
    assert planner["timeouts"] == planner["illegal_moves"] == planner["malformed"] == 0
    moves = 0
    for game in summary["games"]:
        record = replay_file.load(game["replay"]).record
        moves += sum(1 for seat, _ in record.moves if seat == 0)
    assert moves > planner["decisions"] > 0  # several moves per decision: plans


def test_sampler_process_stays_within_a_short_decision_limit(tmp_path: Path) -> None:
    """decision_ms 400 and no bank: an answer later than 400 ms is a timeout fault. The
    sampler is given a budget far above that (10 s), so only its cap of 40% of the time to
    the deadline, on its own clock, keeps it in time."""
    rules = parse_rules("standard")
    sampler = dataclasses.replace(resolve_bot("sampler"), env={"SPITE_SAMPLER_MS": "10000"})
    config = MatchConfig(rules, ["sampler", "planner"], TimeControl(decision_ms=400, bank_ms=0, connect_ms=20_000),
                         games=1, seed=8, policy=Policy.SUBSTITUTE, replay_dir=tmp_path)
    result = asyncio.run(play_local_match([sampler, resolve_bot("planner")], config, bot_seed=2))
    summary = result.match.summary()
    seat = summary["seats"][0]
    assert seat["status"] == "done", seat
    assert seat["decisions"] > 10
    assert seat["timeouts"] == 0 and seat["illegal_moves"] == 0 and seat["malformed"] == 0, seat["faults"]
    assert all(info.returncode == 0 for info in result.exits)


def test_skip_bo_bots_play_whole_matches_through_the_referee_in_time(tmp_path: Path) -> None:
    """tactician, h13-like and skipbo-naive as processes, at the demo league's time control
    (1 s per decision, 10 s bank): legal moves only, no timeout, clean exits."""
    rules = parse_rules("skip-bo+short-20")
    for pair, seed in ((("tactician", "h13-like"), 11), (("skipbo-naive", "tactician"), 12)):
        config = MatchConfig(rules, list(pair), TimeControl(decision_ms=1000, bank_ms=10_000, connect_ms=20_000),
                             games=2, seed=seed, policy=Policy.FORFEIT, replay_dir=tmp_path)
        result = asyncio.run(play_local_match([resolve_bot(name) for name in pair], config, bot_seed=3))
        summary = result.match.summary()
        for seat in summary["seats"]:
            assert seat["status"] == "done", seat
            assert seat["timeouts"] == seat["illegal_moves"] == seat["malformed"] == 0, seat["faults"]
        assert len(summary["games"]) == 2
        assert all(info.returncode == 0 for info in result.exits)


def test_the_tactician_passes_check_bot() -> None:
    """The strongest bot passes every check of `spite check-bot` (legal moves, time limits,
    rejection, presets, clean exit), as a newcomer's bot must."""
    checks = check_bot(resolve_bot("tactician"), games=2)
    assert checks and all(c.passed for c in checks), [c.line() for c in checks]


def test_the_tactician_process_finishes_the_demo_deal_it_used_to_stall_on(tmp_path: Path) -> None:
    """The demo league's round 0, deal 3 (leagues/demo.toml), tactician and random as
    processes at the demo's time control, seeded as the tournament seeds them, both seat
    orders: it used to run to the 2,000-turn cap, the tactician passing with plays open while
    nothing was left to draw (tests/strength/test_stalls.py says why); it ends by play now."""
    from tournaments.config import load_tournament
    from tournaments.runner import scheduler_for

    config = load_tournament(Path(__file__).resolve().parents[2] / "leagues" / "demo.toml")
    matches = [m for m in scheduler_for(config).rounds(1) if m.unit == 3]
    assert [m.bots for m in matches] == [("tactician", "random"), ("random", "tactician")]
    for match in matches:
        match_config = MatchConfig(config.rules, list(match.bots), config.time_control, games=1, seed=match.seed,
                                   policy=Policy.SUBSTITUTE, replay_dir=tmp_path)
        result = asyncio.run(play_local_match([resolve_bot(name) for name in match.bots], match_config,
                                              bot_seed=match.bot_seed))
        summary = result.match.summary()
        assert all(seat["status"] == "done" for seat in summary["seats"]), summary["seats"]
        [game] = summary["games"]
        assert game["outcome"]["ending"] != "turn-cap", game["outcome"]


def test_searcher_process_plays_a_match_through_the_referee_in_time(tmp_path: Path) -> None:
    """The searcher as shipped (its bot.toml's rollouts and clock bound), at the competition's
    time control (1 s per decision, 10 s bank): legal moves only, no timeout, clean exits."""
    rules = parse_rules("standard")
    config = MatchConfig(rules, ["searcher", "tactician"],
                         TimeControl(decision_ms=1000, bank_ms=10_000, connect_ms=20_000),
                         games=1, seed=9, policy=Policy.FORFEIT, replay_dir=tmp_path)
    result = asyncio.run(play_local_match([resolve_bot("searcher"), resolve_bot("tactician")], config, bot_seed=4))
    summary = result.match.summary()
    for seat in summary["seats"]:
        assert seat["status"] == "done", seat
        assert seat["timeouts"] == seat["illegal_moves"] == seat["malformed"] == 0, seat["faults"]
    assert all(info.returncode == 0 for info in result.exits)


def test_the_searcher_passes_check_bot() -> None:
    checks = check_bot(resolve_bot("searcher"), games=2)
    assert checks and all(c.passed for c in checks), [c.line() for c in checks]


def test_the_searcher_plays_the_same_games_through_the_referee_as_in_process(tmp_path: Path) -> None:
    """A fixed rollout count and no clock of its own: the searcher process, seeded by the
    match's bot seed, makes exactly the moves its code makes in process on the same deals. So
    what it sees over the wire is what ``observe`` gives (its sampled worlds, dealt from the
    observation, would differ otherwise), and figures measured either way measure one bot."""
    import random

    from spite_sdk.search import Searcher
    from spite_sdk.tactics import tactician_plan

    rules = parse_rules("skip-bo+short-20")
    searcher = dataclasses.replace(resolve_bot("searcher"),
                                   env={"SPITE_SEARCHER_ROLLOUTS": "24", "SPITE_SEARCHER_MS": ""})
    config = MatchConfig(rules, ["searcher", "tactician"],
                         TimeControl(decision_ms=60_000, bank_ms=0, connect_ms=20_000),
                         games=2, seed=31, policy=Policy.FORFEIT, replay_dir=tmp_path)
    result = asyncio.run(play_local_match([searcher, resolve_bot("tactician")], config, bot_seed=7))
    summary = result.match.summary()
    assert all(s["status"] == "done" for s in summary["seats"]), summary["seats"]
    for game in summary["games"]:
        record = replay_file.load(game["replay"]).record
        number = game["game_number"]
        mine = Searcher(rollouts=24)
        rng = random.Random(f"7:{number}")
        moves = moves_in_process(rules, config.game_seed(number), record.first_seat,
                                 lambda view: mine.decide(view, rng) if view.seat == 0 else tactician_plan(view))
        assert mine.stats.searched > 0
        assert moves == record.moves, number


def test_the_apprentice_passes_check_bot() -> None:
    checks = check_bot(resolve_bot("apprentice"), games=2)
    assert checks and all(c.passed for c in checks), [c.line() for c in checks]


@pytest.mark.parametrize("spec", ["skip-bo+short-20", "standard"])
def test_the_apprentice_plays_the_same_games_through_the_referee_as_in_process(spec: str, tmp_path: Path) -> None:
    """The apprentice process, at the demo league's time control, makes exactly the moves
    ``spite_sdk.apprentice`` makes in process on the same deals (its features read the SDK's
    observation as they read the engine's), with no fault."""
    from spite_sdk.apprentice import apprentice_for
    from spite_sdk.tactics import tactician_plan

    rules = parse_rules(spec)
    apprentice = apprentice_for(rules)
    assert apprentice is not None
    config = MatchConfig(rules, ["apprentice", "tactician"],
                         TimeControl(decision_ms=1000, bank_ms=10_000, connect_ms=20_000),
                         games=2, seed=33, policy=Policy.FORFEIT, replay_dir=tmp_path)
    result = asyncio.run(play_local_match([resolve_bot("apprentice"), resolve_bot("tactician")], config, bot_seed=5))
    summary = result.match.summary()
    for seat in summary["seats"]:
        assert seat["status"] == "done", seat
        assert seat["timeouts"] == seat["illegal_moves"] == seat["malformed"] == 0, seat["faults"]
    overruled = 0
    for game in summary["games"]:
        record = replay_file.load(game["replay"]).record

        def decide(view: Any) -> list[Any]:
            nonlocal overruled
            if view.seat != 0:
                return tactician_plan(view)
            plan = apprentice(view)
            overruled += plan != tactician_plan(view)
            return plan
        moves = moves_in_process(rules, config.game_seed(game["game_number"]), record.first_seat, decide)
        assert moves == record.moves, game["game_number"]
    assert overruled > 0  # the games show the apprentice, not the tactician
