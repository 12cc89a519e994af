"""Item 4 (and 8's broken pipe): every --json / --format json output is JSON alone on stdout
-- progress and notes go to stderr -- and a reader that leaves early (`| head`) gets no
traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import CRASHY, REPO, spite


def test_play_json_is_json_alone_with_progress_on_stderr(tmp_path: Path) -> None:
    for extra in ([], ["--plain"]):
        run = spite("play", "greedy", "random", "--games", "2", "--json", *extra, cwd=tmp_path)
        summary = json.loads(run.stdout)
        assert len(summary["games"]) == 2
        assert "game 1/2:" in run.stderr and "game 2/2:" in run.stderr
        assert run.returncode == 0


def test_check_bot_json(tmp_path: Path) -> None:
    run = spite("check-bot", str(CRASHY), "--json", cwd=tmp_path)
    report = json.loads(run.stdout)
    assert report["bot"] == "crashy" and "checking crashy" in run.stderr


@pytest.mark.parametrize("args", [
    ["leaderboard", "--db", "league.db", "--format", "json"],
    ["leaderboard", "--db", "league.db", "--format", "json", "--recompute", "--sigma", "4"],
    ["games", "--db", "league.db", "--json"],
    ["games", "--db", "league.db", "--json", "--bot", "crashy", "--result", "lost"],
    ["doctor", "--json"],
], ids=lambda a: " ".join(a[:3]))
def test_json_outputs_parse(league: Path, args: list[str]) -> None:
    run = spite(*args, cwd=league)
    assert run.returncode == 0, run.stderr
    json.loads(run.stdout)


@pytest.mark.parametrize("args", [
    ["doctor", "--json"], ["doctor"], ["leaderboard", "--db", "league.db", "--format", "csv"],
    ["leaderboard", "--db", "league.db", "--format", "json"], ["games", "--db", "league.db"],
    ["games", "--db", "league.db", "--json"], ["leaderboard", "--db", "league.db"],
], ids=lambda a: " ".join(a[:3]))
def test_a_reader_that_left_gets_no_traceback(league: Path, args: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte, as with `| head -0`
    try:
        done = subprocess.run([sys.executable, "-m", "spite_cli.main", *args], cwd=league, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_replay_piped_is_full_width(league: Path) -> None:
    replay = next((league / "replays").glob("*.jsonl.gz"))
    run = spite("replay", str(replay), "--moves-only", cwd=league)
    lines = run.stdout.splitlines()
    assert lines and all(line.startswith("step ") for line in lines[:-1])
    assert not any(line.endswith("…") for line in lines)
    assert REPO  # the replay path is absolute in the store
