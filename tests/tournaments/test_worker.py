"""The worker: its line protocol, its refusals, and the decision-time histograms."""

from __future__ import annotations

import json
import subprocess
import sys

from referee.processes.manifest import bot_fingerprint
from tournaments.bot_specs import resolve_bot
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
