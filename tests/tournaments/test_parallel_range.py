"""``parallel``: one range for the tournament file and ``--parallel``, and never more
workers than matches to play (issue 31.11)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tournaments.config import TournamentFileError, load_tournament
from tournaments.store import Store

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, parallel: int, extra: str = "") -> Path:
    file = tmp_path / "t.toml"
    file.write_text(f'bots = ["greedy", "random"]\nrounds = 1\nparallel = {parallel}\n{extra}')
    return file


def test_a_files_parallel_has_the_flags_range(tmp_path: Path) -> None:
    with pytest.raises(TournamentFileError, match=r"field 'parallel'.*at most 1024.*100000"):
        load_tournament(write(tmp_path, 100_000))
    assert load_tournament(write(tmp_path, 1024)).parallel == 1024


def test_a_run_starts_no_more_workers_than_it_has_matches(tmp_path: Path) -> None:
    """``parallel = 12`` for one pairing's duplicate deal (two matches): two worker processes,
    counted by the log file each one opens in the run's scratch folder while the run lasts."""
    file = write(tmp_path, 12)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    run = subprocess.Popen([sys.executable, "-m", "spite_cli.main", "tournament", str(file), "--db",
                            str(tmp_path / "t.db"), "--plain"], cwd=REPO, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env={**os.environ, "TMPDIR": str(scratch)})
    most = 0
    deadline = time.monotonic() + 300
    while run.poll() is None and time.monotonic() < deadline:
        most = max(most, len(list(scratch.glob("spite-workers-*/worker-*.log"))))
        time.sleep(0.01)
    output, _ = run.communicate(timeout=60)
    assert run.returncode == 0, output
    assert most == 2, output


@pytest.mark.parametrize("stop", ["", '[stop]\nrule = "separated"\nmax_rounds = 5\n'])
def test_workers_are_capped_by_the_matches_left_or_a_rounds(tmp_path: Path, stop: str) -> None:
    from tournaments.runner import journal_rounds, matches_at_once, open_tournament, scheduler_for

    config = load_tournament(write(tmp_path, 12, stop))
    with Store(tmp_path / "t.db") as store:
        tid = open_tournament(store, config, {name: "" for name in config.bots}, False)
        journal_rounds(store, tid, config, scheduler_for(config))
        assert len(store.matches(tid)) == 2  # one pairing, a duplicate deal: two matches
        assert matches_at_once(store, tid, config) == 2
