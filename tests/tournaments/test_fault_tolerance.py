"""Nothing lost, nothing burned: a runner killed with SIGKILL again and again resumes to the
results of an uninterrupted run; a bot that keeps crashing is benched with the reason; a
league mixing hostile and sample bots finishes with the right leaderboard and no process left.
Real runners, real workers, real bot processes, real SQLite files."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tournaments.store import Store

from .conftest import HOSTILE, LEAGUE, Run, run, write_tournament
from .test_crash import alive, comparable, counts, descendants

pytestmark = pytest.mark.slow  # whole tournaments, killed and resumed


def hostile_manifest(directory: Path, mode: str, marker: str) -> Path:
    """A bot.toml for a hostile mode whose command line carries ``marker`` (found in /proc later)."""
    folder = directory / f"hostile-{mode}"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(HOSTILE, folder / HOSTILE.name)  # a manifest names only files in its own folder
    (folder / "bot.toml").write_text(f'name = "hostile-{mode}"\nversion = "1"\n'
                                     f'command = ["{{python}}", "{HOSTILE.name}", "{mode}", "--marker={marker}"]\n')
    return folder / "bot.toml"


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes() and alive(int(entry)):
                    found.append(int(entry))
            except OSError:
                continue
    return found


def test_killed_again_and_again_then_resumed_equals_an_uninterrupted_run(tmp_path: Path, league: Run) -> None:
    path = write_tournament(tmp_path, "league", **LEAGUE)
    db = tmp_path / "killed.db"
    command = [sys.executable, "-m", "spite_cli.main", "tournament", str(path), "--db", str(db), "--plain"]
    moments = random.Random(20261129)
    cuts = []
    for life in range(3):
        runner = subprocess.Popen(command + (["--resume"] if life else []), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        family: set[int] = set()
        try:
            hang_guard = time.monotonic() + 300  # not a speed check: only so a hung runner fails the test
            while counts(db).get("running", 0) == 0:  # this life is playing...
                if runner.poll() is not None:  # a fast machine finished the league: no more lives
                    assert runner.returncode == 0, runner.communicate()
                    break
                assert time.monotonic() < hang_guard, "the runner started no match in 5 minutes"
                family |= descendants(runner.pid)
                time.sleep(0.01)
            end = time.monotonic() + moments.uniform(0.0, 1.5)  # ...then die at a random moment
            while time.monotonic() < end and runner.poll() is None:
                family |= descendants(runner.pid)
                time.sleep(0.01)
            runner.send_signal(signal.SIGKILL)
        finally:
            runner.wait()
        cuts.append(counts(db))
        with Store(db, readonly=True) as store:
            # no half-written match: games and seat rows exist for done matches only, all of them
            done = cuts[-1].get("done", 0)
            assert store.db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == done
            assert store.db.execute("SELECT COUNT(*) FROM seat_results").fetchone()[0] == 2 * done
        deadline = time.monotonic() + 30
        while any(alive(pid) for pid in family) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in family if alive(pid)], f"life {life}: a worker or bot outlived the runner"
    assert sum(1 for c in cuts if c.get("running", 0) >= 1) >= 2, f"at least two kills landed mid-match: {cuts}"

    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert comparable(db) == comparable(league.db)
    with Store(db, readonly=True) as store:
        tid = store.tournament().id  # type: ignore[union-attr]
        assert store.counts(tid) == {"pending": 0, "running": 0, "done": 6, "void": 0}


def test_a_mixed_league_of_hostile_and_sample_bots(tmp_path: Path) -> None:
    marker = f"spite-mixed-{os.getpid()}-{time.monotonic_ns()}"
    hostile = {mode: hostile_manifest(tmp_path, mode, marker)
               for mode in ("crash-mid", "loop-forever", "garbage", "fork-bomb")}
    path = write_tournament(tmp_path, "mixed", bots=["greedy", "naive", *map(str, hostile.values())], rounds=1,
                            parallel=2, policy="forfeit", seed=5,
                            time_control={"decision_ms": 300, "bank_ms": 200, "connect_ms": 8000},
                            bench={"min_games": 3, "failure_share": 0.5})
    result = run(path, tmp_path / "mixed.db")
    outcome = result.outcome
    with Store(tmp_path / "mixed.db", readonly=True) as store:
        matches = store.matches(outcome.tournament_id)
        finished = store.finished(outcome.tournament_id)
        benched = store.benched(outcome.tournament_id)
        incidents = store.incidents(outcome.tournament_id)
    assert len(matches) == 30 and outcome.done + outcome.void == 30

    # bots that keep crashing or timing out are benched, with the reason; a bot that only
    # sends garbage loses its games but is not benched (it costs the league no time)
    assert {"hostile-crash-mid", "hostile-loop-forever"} <= set(benched), benched
    assert not {"greedy", "naive", "hostile-garbage"} & set(benched), benched
    assert all("ended by its own crash, timeout or no-show" in why for why in benched.values())
    assert sorted(i.detail.split(":")[0] for i in incidents if i.kind == "benched") == sorted(benched)
    for bot in benched:
        played = [m for m in finished if bot in m.bots]
        unplayed = [m for m in matches if bot in m.bots and m.status == "void"]
        assert len(played) >= 3 and len(played) + len(unplayed) == 10, (bot, len(played), len(unplayed))
    void = [m for m in matches if m.status == "void"]
    assert void and all(" is benched (" in (m.error or "") for m in void)
    for m in matches:  # every match without a benched bot was played to the end
        if not set(m.bots) & set(benched):
            assert m.status == "done", (m.bots, m.status, m.error)

    # what each did is recorded with its reason, and each game against a sample bot is its loss
    endings = {(m.bots[g.offender], g.ending) for m in finished for g in m.games if g.offender is not None}
    assert ("hostile-crash-mid", "crash") in endings and ("hostile-garbage", "malformed") in endings
    assert ("hostile-loop-forever", "timeout") in endings
    samples = {"greedy", "naive"}
    for m in finished:
        if len(samples & set(m.bots)) == 1:
            sample = next(i for i, b in enumerate(m.bots) if b in samples)
            assert m.points[sample] > m.points[1 - sample], (m.bots, m.points)
    ranked = [row.name for row in outcome.board]
    assert set(ranked[:2]) == samples, ranked
    board = {row.name: row for row in outcome.board}
    assert all(board[bot].benched for bot in benched)
    assert "BENCHED" in result.output or all(f"{bot} is benched" in result.output for bot in benched)

    # a resumed run plays nothing: benched matches stay void, the rest is done
    again = run(path, tmp_path / "mixed.db", resume=True)
    assert again.outcome.done == outcome.done and again.outcome.void == outcome.void
    assert "round 0 deal" not in again.output

    deadline = time.monotonic() + 20
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not processes_with(marker), "no process of a hostile bot is left"


def test_a_worker_killed_mid_match_is_retried_with_the_same_seeds(tmp_path: Path, league: Run) -> None:
    # The worker process holds the referee of the match it plays: SIGKILL it mid-match. The
    # runner records the failed attempt with the reason and plays the match again; the final
    # results are those of the uninterrupted league.
    path = write_tournament(tmp_path, "league", **LEAGUE)
    db = tmp_path / "worker-killed.db"
    command = [sys.executable, "-m", "spite_cli.main", "tournament", str(path), "--db", str(db), "--plain"]
    runner = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    try:
        hang_guard = time.monotonic() + 300  # not a speed check: only so a hung runner fails the test
        while killed is None:
            assert runner.poll() is None, runner.communicate()
            assert time.monotonic() < hang_guard, "the runner started no match in 5 minutes"
            if counts(db).get("running", 0) >= 1:
                for pid in descendants(runner.pid):
                    try:
                        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                    except OSError:
                        continue
                    if b"tournaments.worker" in cmdline:
                        os.kill(pid, signal.SIGKILL)
                        killed = pid
                        break
            time.sleep(0.01)
        out, err = runner.communicate(timeout=600)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    assert runner.returncode == 0, err
    assert "playing it again (attempt 2 of 3)" in out and "the worker process exited" in out, out
    assert comparable(db) == comparable(league.db)
    with Store(db, readonly=True) as store:
        tid = store.tournament().id  # type: ignore[union-attr]
        assert store.counts(tid) == {"pending": 0, "running": 0, "done": 6, "void": 0}
        incidents = store.incidents(tid)
    assert len(incidents) >= 1 and all(i.kind == "retried" and i.platform_fault for i in incidents)
    assert all("the worker process exited (code -9)" in i.detail for i in incidents), incidents
