"""The job and result shapes survive their JSON trip (a worker's pipe, a Dask task), and a
line that is not a job is refused with the field that is wrong, never half-read."""

from __future__ import annotations

import json

import pytest

from referee.core.deadlines import Thinking, TimeControl
from referee.core.match import Policy
from referee.core.reports import GameResult, MatchSummary, SeatFault, SeatSummary
from referee.core.status import FaultKind, MatchState, SeatStatus
from spite_engine import Ending, Outcome, parse_rules
from tournaments.jobs import JobResult, MatchJob, SeatJob


def test_a_job_round_trips_through_json() -> None:
    job = MatchJob(match_id=4, ordinal=3, rules=parse_rules("skip-bo+short-20"),
                   bots=(SeatJob("greedy", "f" * 64), SeatJob("x.toml")),
                   time_control=TimeControl(500, 2000, 7000), games=3, seed=2**64 - 1, bot_seed=9,
                   policy=Policy.SUBSTITUTE, replay_dir="/r", log_dir=None, thinking=Thinking.FROZEN,
                   hide=("/s.db", "/s.db-wal"), lag_limit_ms=100)
    assert MatchJob.from_dict(json.loads(json.dumps(job.to_dict()))) == job


@pytest.mark.parametrize("broken", [
    {"match_id": 1},                                                     # fields missing
    {"policy": "lenient"},                                               # not a policy
    {"thinking": "sometimes"},
    {"time_control": {"decision_ms": 0, "bank_ms": 1, "connect_ms": 1}},  # refused by TimeControl
    {"time_control": {"turn_ms": 5}},
    {"bots": [{"fingerprint": "x"}]},                                    # a seat without a bot
])
def test_a_broken_job_is_refused(broken: dict[str, object]) -> None:
    good = MatchJob(1, parse_rules("standard"), (SeatJob("greedy"), SeatJob("naive")), TimeControl(), 1, 1, 1,
                    Policy.FORFEIT).to_dict()
    data = broken if broken == {"match_id": 1} else {**good, **broken}
    with pytest.raises((KeyError, TypeError, ValueError)):
        MatchJob.from_dict(data)


def test_a_result_round_trips_with_its_enums() -> None:
    seat = SeatSummary(1, "greedy", "1.0", SeatStatus.TIMEOUT, 2, 0, 0, 0, 40, 900, 2100,
                       (SeatFault(FaultKind.TIMEOUT, "game 0: late"),), 10, 20, 30)
    game = GameResult(0, 2**64 - 2, 1, Outcome(Ending.TIMEOUT, (0,), (1, 0), "greedy ran out of time", 1), 80, 30,
                       "/r/m-g000.jsonl.gz")
    result = JobResult(7, "host:1", True, MatchSummary(MatchState.FINISHED, (1, 0), (seat, seat), (game,), (0,)),
                       histograms=({"80": 3}, {}), elapsed_s=1.25)
    again = JobResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result
    assert again.summary is not None and again.summary.seats[0].status is SeatStatus.TIMEOUT
    assert again.summary.seats[0].faults[0].kind is FaultKind.TIMEOUT
    assert JobResult.from_dict(JobResult.failure(3, "w", "it broke").to_dict()) == JobResult.failure(3, "w", "it broke")


def test_a_fault_is_read_by_its_kind_and_an_unreadable_one_is_refused() -> None:
    assert SeatFault.from_json({"kind": "no_show", "reason": "r"}) == SeatFault(FaultKind.NO_SHOW, "r")
    assert SeatFault.from_json({"kind": "a-newer-kind", "reason": "r"}).kind is FaultKind.UNKNOWN
    assert SeatFault.from_json("game 0: words alone") == SeatFault(FaultKind.UNKNOWN, "game 0: words alone")
    with pytest.raises(ValueError):
        SeatFault.from_json(7)


def test_a_result_with_an_unknown_status_or_ending_is_refused() -> None:
    seat = {"seat": 0, "name": "a", "version": "1", "status": "sleepy", "timeouts": 0, "illegal_moves": 0,
            "malformed": 0, "crashes": 0, "decisions": 1, "decision_us_p50": 1, "decision_us_p99": 1, "faults": []}
    with pytest.raises(ValueError):
        SeatSummary.from_dict(seat)
    with pytest.raises(ValueError):
        GameResult.from_dict({"game_number": 0, "seed": 1, "first_seat": 0, "moves": 1, "turns": 1,
                               "outcome": {"ending": "boredom", "winners": [], "scores": [0, 0], "reason": "?"}})


def test_a_summary_becomes_one_result_wherever_it_was_refereed() -> None:
    """JobResult.from_summary, used by the tournament worker and the ladder alike: void is the
    platform's fault, an unfinished match a failure, a finished one with a result ok."""
    seat = SeatSummary(0, "greedy", "1.0", SeatStatus.DONE, 0, 0, 0, 0, 40, 900, 2100, (), 10, 20, 30)
    game = GameResult(0, 1, 0, Outcome(Ending.STOCK_EMPTIED, (0,), (1, 0), "stock emptied", None), 80, 30, "")
    finished = MatchSummary(MatchState.FINISHED, (1, 0), (seat, seat), (game,), (0,))
    ok = JobResult.from_summary(3, "w", finished, histograms=({"80": 1}, {}), elapsed_s=0.5)
    assert ok.ok and not ok.platform_fault and ok.summary == finished and ok.elapsed_s == 0.5
    void = JobResult.from_summary(3, "w", MatchSummary(MatchState.VOID, (), (seat, seat), (), (),
                                                       void_reason="the referee ran late"))
    assert not void.ok and void.platform_fault and void.error == "void: the referee ran late"
    for state, points, games in ((MatchState.ABORTED, (), ()), (MatchState.FINISHED, (), (game,)),
                                 (MatchState.FINISHED, (1, 0), ())):
        failed = JobResult.from_summary(3, "w", MatchSummary(state, points, (seat, seat), games, ()))
        assert not failed.ok and not failed.platform_fault and "the referee ended the match" in failed.error


def test_a_time_controls_first_decision_has_the_connect_time_if_longer() -> None:
    control = TimeControl(decision_ms=500, bank_ms=0, connect_ms=4000)
    assert control.deadline_ms(first=True) == 4000 and control.deadline_ms(first=False) == 500
    assert TimeControl(decision_ms=5000, connect_ms=1000).deadline_ms(first=True) == 5000
