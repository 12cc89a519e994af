"""Crash safety: a real ``spite tournament`` killed with SIGKILL mid-run, then resumed, ends
with exactly the results of an uninterrupted run (same seeds, nothing lost, nothing twice)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tournaments.store import Store, StoreError

from .conftest import LEAGUE, Run, write_tournament

pytestmark = pytest.mark.slow  # whole tournaments, killed and resumed


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (workers and the bots they launched), from /proc."""
    found: set[int] = set()
    pending = [pid]
    while pending:
        parent = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                children = Path(f"/proc/{parent}/task/{task}/children").read_text().split()
            except FileNotFoundError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    pending.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def marked(scratch: Path) -> list[int]:
    """Live processes whose environment points inside ``scratch`` (the runner's TMPDIR): every
    bot's HOME is a directory there, so this finds a bot wherever it ended up -- also one that
    was orphaned (ppid 1) before the test ever saw it in the runner's tree."""
    needle = b"=" + str(scratch).encode() + b"/"
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ and alive(int(entry)):
            found.append(int(entry))
    return found


def describe(pid: int) -> str:
    """``pid``, its parent and its command line, for a failure message."""
    try:
        parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, IndexError):
        return f"{pid} (gone)"
    return f"{pid} (ppid {parent}): {command.strip()}"


def counts(db: Path) -> dict[str, int]:
    try:
        with Store(db, readonly=True) as store:
            found = store.tournament()
            return store.counts(found.id) if found else {}
    except (StoreError, sqlite3.Error):
        return {}  # not created yet


def comparable(db: Path) -> tuple[list[Any], list[Any]]:
    """Everything that must match between two runs: the schedule, each game, the ratings."""
    with Store(db, readonly=True) as store:
        found = store.tournament()
        assert found is not None
        matches = [(m.ordinal, m.round, m.unit, m.rotation, m.bots, m.seed, m.points,
                    [(g.game_number, g.seed, g.first_seat, g.ending, g.winners, g.scores, g.moves,
                      g.turns) for g in m.games],
                    [(s.seat, s.bot, s.points, s.decisions, s.timeouts, s.crashes) for s in m.seats])
                   for m in store.finished(found.id)]
        return matches, list(store.rating_history(found.id))


@pytest.mark.parametrize("sandbox", ["auto", "insecure"])
def test_sigkill_mid_run_then_resume_equals_an_uninterrupted_run(tmp_path: Path, short_tmp: Path, league: Run,
                                                                  sandbox: str) -> None:
    """In the machine's sandbox mode (``auto``) and in the fallback (``insecure``)."""
    path = write_tournament(tmp_path, "league", **LEAGUE)
    db = tmp_path / "killed.db"
    command = [sys.executable, "-m", "spite_cli.main", "tournament", str(path), "--db", str(db), "--plain"]
    scratch = short_tmp  # the runner's TMPDIR, where its referees put their sockets
    runner = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "TMPDIR": str(scratch), "SPITE_SANDBOX": sandbox})
    try:
        family: set[int] = set()
        hang_guard = time.monotonic() + 300  # not a speed check: only so a hung runner fails the test
        while counts(db).get("done", 0) < 2:
            assert runner.poll() is None, runner.communicate()
            assert time.monotonic() < hang_guard, "the runner finished no match in 5 minutes"
            family |= descendants(runner.pid)
            time.sleep(0.02)
        family |= descendants(runner.pid)
        runner.send_signal(signal.SIGKILL)
    finally:
        runner.wait()
    assert runner.returncode == -signal.SIGKILL

    cut = counts(db)
    assert cut["done"] < 6 and cut["running"] >= 1, f"the kill landed mid-run: {cut}"
    assert family, "the runner had workers and bots"
    deadline = time.monotonic() + 30  # they die with their parent (PR_SET_PDEATHSIG); give the kernel time
    while any(alive(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in family if alive(pid)], "no worker or bot outlives a killed runner"
    deadline = time.monotonic() + 5  # an orphaned bot would live on until its connect timeout (30 s)
    while marked(scratch) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not marked(scratch), ("no bot outlives a killed runner, not even one started as the kill landed: "
                                 + "; ".join(describe(pid) for pid in marked(scratch)))

    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True,
                             env={**os.environ, "SPITE_SANDBOX": sandbox})
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming tournament 'league'" in resumed.stdout
    left = [line for line in Path("/proc/self/mounts").read_text().splitlines() if str(scratch) in line]
    assert not left, f"the killed run's private bot spaces are unmounted by the next launcher: {left}"
    assert f"{cut['running']} interrupted match(es) will be played again" in resumed.stdout
    assert resumed.stdout.count("round 0 deal") == 6 - cut["done"], "only the missing matches are played"

    assert comparable(db) == comparable(league.db)
    with Store(db, readonly=True) as store:
        tid = store.tournament().id  # type: ignore[union-attr]
        assert store.counts(tid) == {"pending": 0, "running": 0, "done": 6, "void": 0}
        assert store.db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 6
        assert store.db.execute("SELECT COUNT(*) FROM seat_results").fetchone()[0] == 12
        assert sorted(m.attempts for m in store.matches(tid)) == [1] * (6 - cut["running"]) + [2] * cut["running"]

    again = subprocess.run(command + ["--resume"], capture_output=True, text=True,
                           env={**os.environ, "SPITE_SANDBOX": sandbox})
    assert again.returncode == 0 and "round 0 deal" not in again.stdout, "a finished tournament plays nothing more"
    assert comparable(db) == comparable(league.db)
