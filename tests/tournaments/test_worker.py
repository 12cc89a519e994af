"""The worker: its line protocol, its refusals, and the decision-time histograms."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.deadlines import TimeControl
from referee.core.match import Policy
from referee.processes.manifest import bot_fingerprint
from spite_engine import parse_rules
from tournaments.backends import LocalWorker
from tournaments.bot_specs import resolve_bot
from tournaments.jobs import JobResult, MatchJob, Reuse, SeatJob
from tournaments.timing import bucket, bucket_value, histogram, percentile


def test_histogram_percentiles_are_within_five_percent() -> None:
    values = list(range(100, 100_000, 37))
    merged = {int(b): n for b, n in histogram(values).items()}
    assert sum(merged.values()) == len(values)
    for q in (0.5, 0.9, 0.99):
        exact = sorted(values)[int(q * len(values))]
        assert abs(percentile(merged, q) - exact) / exact < 0.05
    assert percentile({}, 0.5) == 0.0
    assert bucket_value(bucket(1000)) / 1000 < 1.05


def test_the_fingerprint_does_not_depend_on_where_python_lives() -> None:
    greedy = resolve_bot("greedy")
    assert sys.executable in greedy.command
    assert bot_fingerprint(greedy) == bot_fingerprint(resolve_bot("greedy"))
    assert bot_fingerprint(greedy) != bot_fingerprint(resolve_bot("naive"))


def test_the_worker_answers_each_line_and_refuses_what_it_cannot_play() -> None:
    job = {"match_id": 7, "rules": "standard", "bots": [{"spec": "greedy", "fingerprint": "0" * 64},
                                                         {"spec": "naive"}],
           "time_control": {"decision_ms": 1000, "bank_ms": 1000, "connect_ms": 5000}, "games": 1, "seed": 1,
           "policy": "forfeit", "bot_seed": 1}
    unknown_rules = {**job, "rules": "no-such-rules", "bots": [{"spec": "greedy"}, {"spec": "naive"}]}
    lines = "not json\n" + json.dumps(job) + "\n" + json.dumps(unknown_rules) + "\n"
    done = subprocess.run([sys.executable, "-m", "tournaments.worker"], input=lines, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["ok"] for r in results] == [False, False, False], "stdout holds results only, one per job"
    assert "not a JSON job" in results[0]["error"]
    assert results[1]["match_id"] == 7 and "fingerprint mismatch" in results[1]["error"]
    assert "greedy" in results[1]["error"]
    assert "no-such-rules" in results[2]["error"]


def test_a_worker_process_is_replaced_by_a_fresh_one_after_its_games(tmp_path: Path) -> None:
    """A long ladder's worker does not keep one process for days (its memory grows below
    Python's objects, docs/performance.md): after ``recycle_games`` games, between two
    matches, the process ends cleanly with its warm bots, its log goes, and a new one plays on."""

    def job(match_id: int) -> MatchJob:
        return MatchJob(match_id, parse_rules("standard"), (SeatJob("greedy"), SeatJob("naive")), TimeControl(),
                        games=2, seed=match_id, bot_seed=match_id, policy=Policy.FORFEIT, reuse=Reuse.WARM)

    async def play() -> tuple[list[JobResult], list[asyncio.subprocess.Process], list[Path], int]:
        worker = LocalWorker(None, tmp_path, recycle_games=3)
        results, processes, logs = [], [], []
        try:
            for match_id in (1, 2, 3):
                results.append(await worker.run(job(match_id)))
                assert worker.process is not None and worker.stderr_path is not None
                processes.append(worker.process)
                logs.append(worker.stderr_path)
            started = worker.started
        finally:
            await worker.stop()
        return results, processes, logs, started

    results, processes, logs, started = asyncio.run(play())
    assert [r.ok for r in results] == [True] * 3, [r.error for r in results]
    assert processes[0] is processes[1] and processes[2] is not processes[1]  # 2 games, then 4 >= 3
    assert started == 2
    assert processes[0].returncode == 0  # ended by closing its jobs, not killed
    assert not logs[0].exists() and not logs[2].exists()  # the replaced one's at once, the last at stop
    assert list(tmp_path.iterdir()) == []


def test_a_worker_refuses_a_recycle_count_out_of_range(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        LocalWorker(None, tmp_path, recycle_games=0)
