"""A bot's processes and CPU time without cgroups: with psutil (portable: Linux, macOS, the
BSDs), else from ``/proc`` by hand, else only the leader itself.

The launcher calls these at most once per ``_SCAN_AGE`` at decisions; with a cgroup (v1
cpuacct or v2 cpu.stat) it does not call them at all.
"""

from __future__ import annotations

import os
from typing import Any, Iterable


def _load_psutil() -> Any:
    try:
        import psutil as module
    except ImportError:  # psutil is a dependency; this keeps a bare install working
        return None
    return module


psutil = _load_psutil()


def descendants(leader: int) -> list[int]:
    """The leader and every live process below it."""
    if psutil is not None:
        try:
            process = psutil.Process(leader)
            return sorted({leader, *(child.pid for child in process.children(recursive=True))})
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return []
    return _proc_descendants(leader)


def process_cpu_seconds(pids: Iterable[int]) -> float:
    """User + system time of ``pids`` and of their reaped children."""
    if psutil is not None:
        total = 0.0
        for pid in pids:
            try:
                times = psutil.Process(pid).cpu_times()
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            total += times.user + times.system + times.children_user + times.children_system
        return total
    return _proc_cpu_seconds(pids)


def _proc_descendants(leader: int) -> list[int]:
    """:func:`descendants` in one pass over /proc (Linux without psutil)."""
    parent_of: dict[int, int] = {}
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return [leader]
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields_ = handle.read().rsplit(b")", 1)[1].split()
            parent_of[int(entry.name)] = int(fields_[1])
        except (OSError, IndexError, ValueError):
            continue
    found = {leader} if leader in parent_of else set()
    changed = True
    while changed:
        changed = False
        for pid, parent in parent_of.items():
            if parent in found and pid not in found:
                found.add(pid)
                changed = True
    return sorted(found)


_CLK_TCK = os.sysconf("SC_CLK_TCK")


def _proc_cpu_seconds(pids: Iterable[int]) -> float:
    """:func:`process_cpu_seconds` from /proc (Linux without psutil)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields_ = handle.read().rsplit(b")", 1)[1].split()
            total += sum(int(x) for x in fields_[11:15])
        except (OSError, IndexError, ValueError):
            continue
    return total / _CLK_TCK


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not: an init that is slow to reap keeps dead
    launchers in /proc for a while)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        if psutil is not None:
            try:
                return bool(psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD))
            except psutil.Error:
                return False
        return False
    return state not in (b"Z", b"X")
