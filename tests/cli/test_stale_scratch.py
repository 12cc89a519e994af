"""Issue 31.15: the temporary folders of a runner killed with SIGKILL (``spite-workers-*``, and
each match's ``spite-*`` with ``referee/`` and the seats' homes) are removed by the next
``spite`` command that makes one -- and only those whose owner is dead.

Real commands in subprocesses, each with its own short TMPDIR (the referee's Unix socket lives
there), a real SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO

SPITE = [sys.executable, "-m", "spite_cli.main"]


def ours(tmpdir: Path) -> set[str]:
    """The scratch folders in ``tmpdir`` (not ``spite play``'s bot logs, which it keeps on purpose)."""
    return {p.name for p in tmpdir.iterdir()
            if p.name.startswith("spite-") and not p.name.startswith("spite-logs-") and p.is_dir()}


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def family_of(pid: int) -> set[int]:
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return found


@pytest.mark.slow
def test_a_killed_runners_folders_are_removed_by_the_next_start_and_a_live_ones_are_kept(short_tmp: Path,
                                                                                          tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('name = "t"\nrules = "standard"\nbots = ["greedy", "random"]\nseed = 3\n'
                                     'rounds = 50\nparallel = 2\n')
    env = {**os.environ, "TMPDIR": str(short_tmp)}
    runner = subprocess.Popen([*SPITE, "tournament", "t.toml", "--db", "t.db", "--plain"], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    family: set[int] = set()
    try:
        deadline = time.monotonic() + 300  # not a speed check: only so a hung runner fails the test
        while not (any(n.startswith("spite-workers-") for n in ours(short_tmp))
                   and any((short_tmp / n / "referee").is_dir() for n in ours(short_tmp)
                           if not n.startswith("spite-workers-"))):
            assert runner.poll() is None, "the runner ended before it was killed"
            assert time.monotonic() < deadline, f"no workers' and match folders in 5 minutes: {ours(short_tmp)}"
            family |= family_of(runner.pid)
            time.sleep(0.05)
        family |= family_of(runner.pid)
        runner.send_signal(signal.SIGKILL)
    finally:
        runner.wait()
    deadline = time.monotonic() + 60  # workers and bots die with it (PR_SET_PDEATHSIG); give the kernel time
    while any(alive(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in family if alive(pid)], "the runner's family outlived it"
    left = ours(short_tmp)
    assert any(n.startswith("spite-workers-") for n in left), left  # what issue 31.15 found: they stay

    play = [*SPITE, "play", "greedy", "random", "--no-replays", "--plain"]
    again = subprocess.run(play, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert ours(short_tmp) == set(), "the next start removed the dead runner's folders (and its own when done)"

    # a live process's folder, made the same way, survives the sweep of the next start
    holder = subprocess.Popen([sys.executable, "-c", "import time\nfrom referee.processes.scratch import OwnedScratch\n"
                               "s = OwnedScratch('spite-'); print(s.name, flush=True); time.sleep(600)"],
                              cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        live = Path(holder.stdout.readline().strip())
        assert live.is_dir()
        again = subprocess.run(play, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        assert ours(short_tmp) == {live.name}, "a folder whose owner runs is kept"
    finally:
        holder.kill()
        holder.wait()


def test_the_sweep_judges_each_folder_by_its_owner(short_tmp: Path) -> None:
    """A folder whose owner exited without cleaning up is removed; one whose owner runs (this
    process), one still being made by a live process (no lock yet) and one not made this way
    are kept."""
    from referee.processes.scratch import sweep_stale

    child = subprocess.run([sys.executable, "-c", "import os, sys\nfrom pathlib import Path\n"
                            "from referee.processes.scratch import OwnedScratch\n"
                            "print(OwnedScratch('spite-workers-', Path(sys.argv[1])).name, flush=True)\n"
                            "os._exit(0)", str(short_tmp)],  # no clean-up, as if killed
                           cwd=REPO, capture_output=True, text=True, timeout=60)
    dead = Path(child.stdout.strip())
    assert dead.is_dir() and (dead / ".owner").is_file(), child.stderr
    unlocked_live = short_tmp / f"spite-{os.getppid()}-beingmade"  # no .owner yet; its pid (pytest's parent) runs
    unlocked_dead = short_tmp / "spite-999999999-abandoned"  # no .owner, no such process
    foreign = short_tmp / "spite-k2j3h4_1"  # not ours: no pid in its name
    for folder in (unlocked_live, unlocked_dead, foreign):
        folder.mkdir()
    elsewhere = short_tmp / "elsewhere"  # made there, so the holder's own sweep leaves short_tmp alone
    elsewhere.mkdir()
    live = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom pathlib import Path\n"
                             "from referee.processes.scratch import OwnedScratch\n"
                             "print(OwnedScratch('spite-', Path(sys.argv[1])).name, flush=True); time.sleep(600)",
                             str(elsewhere)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert live.stdout is not None
        held = Path(live.stdout.readline().strip())
        moved = short_tmp / held.name
        held.rename(moved)  # a live owner's folder, locked, where the sweep looks
        assert set(sweep_stale(short_tmp)) == {dead, unlocked_dead}
        assert moved.is_dir() and unlocked_live.is_dir() and foreign.is_dir()
        assert sweep_stale(short_tmp) == []  # once per process and directory
    finally:
        live.kill()
        live.wait()
